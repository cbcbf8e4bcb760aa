"""Doc ids as 64-bit hashes, read straight from Arrow's string buffers, and compared byte-wise.

Ranking and the qrels lookup work on integers: a doc id's hash finds its qrels entry and its
repeats, and its first eight bytes order most ties; the strings themselves are compared only
where hashes or heads are equal.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext.engine.segments import expand, run_starts

#: Ids longer than this (bytes) are hashed one by one (see _read_ids).
_LONG = 256
#: Ids hashed at once: small enough for the temporaries to stay in the CPU cache and malloc's heap.
_PIECE = 1 << 15
#: Ids whose first 8 bytes (heads) all share this many or more leave at most two bytes to tell them apart (as
#: ``clueweb09-en…`` or ``msmarco_doc_…`` ids): :meth:`DocIds.order_within` sorts their strings at once.
SHARED_HEAD_BYTES = 6

_MIX_1, _MIX_2 = np.uint64(0xFF51_AFD7_ED55_8CCD), np.uint64(0xC4CE_B9FE_1A85_EC53)
_QUERY_MIX = np.uint64(0x9E37_79B9_7F4A_7C15)
#: Odd 64-bit multipliers: a key's slot in each round of has_repeats.
_SLOT_MULTIPLIERS = (np.uint64(0x9E37_79B9_7F4A_7C15), np.uint64(0xC2B2_AE3D_27D4_EB4F),
                     np.uint64(0x1656_67B1_9E37_79F9))


@dataclass(frozen=True)
class DocIds:
    """Doc ids and, per id, a 64-bit hash, its first 8 bytes (little-endian, zero-padded) and its length. The strings
    are ``ids``, or (``at`` given, as :meth:`take` leaves them) row i's is ``ids[at[i]]``: a take copies no string."""

    ids: pa.ChunkedArray
    hash: np.ndarray
    head: np.ndarray
    length: np.ndarray
    at: np.ndarray | None = None

    @classmethod
    def of(cls, ids: pa.ChunkedArray) -> DocIds:
        """Reads the ids' bytes straight from the Arrow buffers, in pieces of at most ``_PIECE`` ids."""
        docs = cls(ids, np.empty(len(ids), dtype=np.uint64), np.empty(len(ids), dtype=np.uint64),
                   np.empty(len(ids), dtype=np.int32))
        start = 0
        for chunk in ids.chunks:
            for offset in range(0, len(chunk), _PIECE):
                piece = chunk.slice(offset, _PIECE)
                end = start + len(piece)
                _read_ids(piece, docs.hash[start:end], docs.head[start:end], docs.length[start:end])
                start = end
        return docs

    def equal(self, rows: np.ndarray, other: DocIds, other_rows: np.ndarray) -> np.ndarray:
        """Whether the ids of ``rows`` equal those of ``other_rows`` in ``other``, pairwise (strings compared past 8
        bytes only)."""
        length = self.length[rows]
        same = (self.head[rows] == other.head[other_rows]) & (length == other.length[other_rows])
        long = np.flatnonzero(same & (length > 8))
        if len(long):
            same[long] = to_numpy(ac.equal(self._strings(rows[long]), other._strings(other_rows[long])))
        return same

    def greater(self, rows: np.ndarray, other_rows: np.ndarray) -> np.ndarray:
        """Whether the ids of ``rows`` are above those of ``other_rows`` byte-wise, pairwise (strings compared on equal
        heads only)."""
        head, other = self.head[rows].byteswap(), self.head[other_rows].byteswap()  # big-endian: byte order
        greater = head > other
        tied = np.flatnonzero((head == other) & (rows != other_rows))
        if len(tied):
            greater[tied] = to_numpy(ac.greater(self._strings(rows[tied]), self._strings(other_rows[tied])))
        return greater

    def take(self, rows: np.ndarray) -> DocIds:
        """The ids of ``rows``, with their hashes, heads and lengths (nothing read again, no string copied)."""
        return DocIds(self.ids, self.hash[rows], self.head[rows], self.length[rows], self._source(rows))

    def strings(self) -> pa.ChunkedArray:
        """The ids, in row order."""
        return self.ids if self.at is None else ac.take(self.ids, from_numpy(self.at))

    def _source(self, rows: np.ndarray) -> np.ndarray:
        """The places of ``rows``' strings in ``ids``."""
        return rows if self.at is None else self.at[rows]

    def _strings(self, rows: np.ndarray) -> pa.ChunkedArray:
        """The ids of ``rows``."""
        return ac.take(self.ids, from_numpy(self._source(rows)))

    def order_within(self, rows: np.ndarray, sizes: np.ndarray, descending: bool = False) -> np.ndarray:
        """``rows`` (in groups of ``sizes`` contiguous rows) with each group's rows in the order of their ids,
        byte-wise (ascending, or ``descending``): a group of two swapped where out of order (:meth:`greater`); those
        of three or more sorted on (group, head), the strings sorted only where heads are equal, or every group's
        where the heads tell too few ids apart (:data:`SHARED_HEAD_BYTES`); only the rows of groups of two or more
        are read."""
        starts = np.cumsum(sizes) - sizes
        ordered = rows.copy()
        first = starts[sizes == 2]  # (ties of two: most, where few scores tie)
        if len(first):
            upper, lower = (first + 1, first) if descending else (first, first + 1)
            swapped = first[self.greater(rows[upper], rows[lower])]
            ordered[swapped], ordered[swapped + 1] = rows[swapped + 1], rows[swapped]
        groups = np.flatnonzero(sizes > 2)
        if not len(groups):
            return ordered
        _, at = expand(sizes[groups], starts[groups])  # (the rows of those groups)
        group = np.repeat(np.arange(len(groups)), sizes[groups])
        heads = self.head[rows[at]].byteswap()  # big-endian: byte order
        if _shared_bytes(heads) >= SHARED_HEAD_BYTES:
            moved = at[self._sorted_by_id(rows[at], group, descending)]
        else:
            order = to_numpy(ac.sort_indices(pa.table({'group': group, 'head': heads}),
                                             [('group', 'ascending'), ('head', 'descending' if descending else
                                                                       'ascending')]))
            moved, heads = at[order], heads[order]
            new = run_starts(group, heads)
            if not new.all():  # (runs of equal heads, within a group: their strings sorted)
                tied = np.flatnonzero(~new | np.append(~new[1:], False))
                moved[tied] = moved[tied][self._sorted_by_id(rows[moved[tied]], np.cumsum(new)[tied], descending)]
        ordered[at] = rows[moved]
        return ordered

    def _sorted_by_id(self, rows: np.ndarray, run: np.ndarray, descending: bool) -> np.ndarray:
        """The order of ``rows`` (in runs numbered ``run``, ascending) that sorts each run's rows by their ids."""
        source = self._source(rows)
        every = len(source) == len(self.ids) and np.array_equal(source, np.arange(len(source)))  # (then no copy)
        ids = self.ids if every else ac.take(self.ids, from_numpy(source))
        return to_numpy(ac.sort_indices(pa.table({'run': run, 'id': ids}),
                                        [('run', 'ascending'), ('id', 'descending' if descending else 'ascending')]))


def _shared_bytes(heads: np.ndarray) -> int:
    """How many leading bytes all the big-endian ``heads`` share (8: all equal, or none)."""
    if not len(heads):
        return 8
    lowest, highest = int(heads.min()), int(heads.max())
    return (64 - (lowest ^ highest).bit_length()) // 8


def _read_ids(strings: pa.Array, hashes: np.ndarray, head: np.ndarray, lengths: np.ndarray) -> None:
    """Fills the hash, head and length of each string, reading its bytes eight at a time.

    Ids longer than ``_LONG`` bytes are hashed one by one (blake2b): the word-by-word loop below
    runs once per word of the longest id, so one 10 MB id would cost over a million numpy passes.
    """
    strings = ac.cast(strings, pa.string())
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, strings.offset * 4)
    first, size = int(offsets[0]), int(offsets[-1]) - int(offsets[0])
    words = np.zeros(size // 8 + 2, dtype=np.uint64)  # zero padding: reads never leave the array
    if size:
        words.view(np.uint8)[:size] = np.frombuffer(strings.buffers()[2], np.uint8, size, first)
    position = np.subtract(offsets[:-1], first, dtype=np.int64)
    np.subtract(offsets[1:], offsets[:-1], out=lengths)
    head[:] = _read_words(words, position, lengths)
    np.multiply(head, _MIX_2, out=hashes)
    longer = np.flatnonzero((lengths > 8) & (lengths <= _LONG))
    if len(longer):  # hash = (...(fold(fold(head)·m1 ^ word1)·m1 ^ word2)...)·m2, fold(x) = x ^ (x >> 32)
        # (the fold carries a word's top bytes down before the product carries them up: without it, ids that differ
        # in the last byte of two words, as ClueWeb's clueweb09-en0079-13-00702 and -en0077-13-00722, shared a hash
        # about once in 100 such pairs)
        chain = head[longer]
        for word in range(1, -(-int(lengths[longer].max()) // 8)):
            longer_still = lengths[longer] > 8 * word
            link = chain[longer_still]
            link ^= link >> np.uint64(32)
            link *= _MIX_1
            chain[longer_still] = link ^ _read_words(
                words, position[longer[longer_still]] + 8 * word, lengths[longer[longer_still]] - 8 * word)
        hashes[longer] = chain * _MIX_2
    data = words.view(np.uint8)
    very_long = np.flatnonzero(lengths > _LONG).tolist()
    if very_long:
        import hashlib  # here, not at the top: only very long ids need OpenSSL's module
    for index in very_long:
        start = int(position[index])
        digest = hashlib.blake2b(data[start:start + int(lengths[index])].tobytes(), digest_size=8).digest()
        hashes[index] = int.from_bytes(digest, 'little')


def _read_words(words: np.ndarray, position: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """The 8 bytes at each byte ``position`` (little-endian), zeroed past ``remaining`` bytes."""
    index = position >> 3
    shift = (position << 3).view(np.uint64)
    shift &= np.uint64(63)
    value = words[index]
    value >>= shift
    index += 1
    np.subtract(np.uint64(64), shift, out=shift)
    upper = words[index]
    upper <<= shift  # a shift by 64 gives 0 in numpy
    value |= upper
    # Keep the first ``remaining`` bytes: shift the rest out at the top and back (by 64 - 8 * min(remaining, 8)).
    np.minimum(remaining, 8, out=shift, casting='unsafe')
    shift <<= np.uint64(3)
    np.subtract(np.uint64(64), shift, out=shift)
    value <<= shift
    value >>= shift
    return value


def _mix(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's finaliser, in place: every input bit affects every output bit (a bijection)."""
    x ^= x >> np.uint64(33)
    x *= _MIX_1
    x ^= x >> np.uint64(33)
    x *= _MIX_2
    x ^= x >> np.uint64(33)
    return x


def pair_keys(query: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (query index, doc hash) pair."""
    keys = query.astype(np.uint64)
    keys *= _QUERY_MIX
    keys ^= doc_hash
    return _mix(keys)


def has_repeats(keys: np.ndarray) -> bool:
    """Whether two of the uint64 ``keys`` are equal.

    Each key is scattered into a table of 4 to 8 slots per key, by the top bits of a multiplicative hash: a key
    that lost its slot to an equal key is a repeat, one that lost it to another key (about 1 in 9) is placed
    again with another multiplier, and the few keys left after the last round are sorted, rather than every key.
    """
    for multiplier in _SLOT_MULTIPLIERS:
        bits = np.uint64(len(keys).bit_length() + 2)
        slot = ((keys * multiplier) >> (np.uint64(64) - bits)).view(np.int64)
        row = np.arange(len(keys), dtype=np.int32)
        table = np.empty(1 << int(bits), dtype=np.int32)
        table[slot] = row  # one of the keys sharing a slot wins it
        winner = table[slot]
        lost = np.flatnonzero(winner != row)
        if np.any(keys[lost] == keys[winner[lost]]):
            return True
        keys = keys[lost]  # a repeat of a winner would have been found: winners are done
        if not len(keys):
            return False
    keys.sort()
    return bool(np.any(keys[1:] == keys[:-1]))


@dataclass(frozen=True, eq=False)
class _Regions:
    """Each group's region of slots in a :class:`GroupedHashes` table: its first slot, and its size (a power of two,
    at least four times the group's keys: a table a quarter full or less) as the shift and the mask that place a
    key in it."""

    start: np.ndarray
    shift: np.ndarray
    mask: np.ndarray

    @classmethod
    def of(cls, sizes: np.ndarray) -> _Regions:
        bits = np.frexp(np.maximum(4 * sizes - 1, 1))[1].astype(np.int64)  # (the bit length of 4 size - 1)
        slots = np.left_shift(np.int64(1), bits)
        return cls(np.cumsum(slots) - slots, (64 - bits).astype(np.uint64), slots - 1)

    @property
    def slots(self) -> int:
        return int(self.start[-1] + self.mask[-1] + 1) if len(self.start) else 0

    def home(self, group: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """The first slot each key is looked for in: in its group's region, by the top bits of a product."""
        return self.start[group] + ((hashes * _SLOT_MULTIPLIERS[0]) >> self.shift[group]).view(np.int64)

    def next(self, slot: np.ndarray, group: np.ndarray) -> np.ndarray:
        """The slot after each of ``slot`` in the region of its ``group`` (the first after the last)."""
        start = self.start[group]
        return start + ((slot - start + 1) & self.mask[group])


@dataclass(frozen=True, eq=False)
class GroupedHashes:
    """The rows of a run found by their (group, hash) keys, each group a topic: a table of open addressing, each
    group's keys in a region of its own (:class:`_Regions`), probed linearly within it. Looking up rows grouped alike
    (a run's, by topic) reads one group's few kilobytes at a time (a topic's 1,000 docs: 16 KB), where one table of
    every key (pandas' index) is read at random."""

    regions: _Regions
    hash: np.ndarray
    slot_row: np.ndarray

    @classmethod
    def of(cls, group: np.ndarray, hashes: np.ndarray, n_groups: int) -> GroupedHashes | None:
        """The table of the rows whose groups (numbered from 0, below ``n_groups``) and uint64 ``hashes`` are given;
        None where two rows of a group share a hash. Each round, the keys not yet placed take their slots where empty
        (one of those sharing a slot wins it), and the others move on to the next slot."""
        regions = _Regions.of(np.bincount(group, minlength=n_groups))
        slot_row = np.full(regions.slots, -1, dtype=np.int32 if len(hashes) < 2 ** 31 else np.int64)
        pending = np.arange(len(hashes))
        slot = regions.home(group, hashes)
        while len(pending):
            empty = slot_row[slot] < 0
            slot_row[slot[empty]] = pending[empty]
            occupant = slot_row[slot]
            lost = np.flatnonzero(occupant != pending)
            if np.any(hashes[occupant[lost]] == hashes[pending[lost]]):  # (a slot's occupant is of the same group)
                return None
            pending = pending[lost]
            slot = regions.next(slot[lost], group[pending])
        return cls(regions, hashes, slot_row)

    def rows_of(self, group: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """The row holding each (``group``, ``hashes``) key, -1 for a key the table does not hold (every key looked
        for in its first slot at once, then those whose slot holds another key in the next, and so on)."""
        if not len(self.hash):
            return np.full(len(hashes), -1, dtype=np.int64)
        slot = self.regions.home(group, hashes)
        found, going_on = self._probe(slot, hashes)  # (going_on: the keys looked for further, with their slots)
        slot = slot[going_on]
        while len(going_on):
            slot = self.regions.next(slot, group[going_on])
            more, still = self._probe(slot, hashes[going_on])
            found[going_on] = more
            going_on, slot = going_on[still], slot[still]
        return found

    def _probe(self, slot: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The row of each key in its ``slot`` (-1: the slot holds another key, or none), and which keys (their
        places in ``hashes``) are to be looked for in the next slot: those whose slot holds another key."""
        occupant = self.slot_row[slot].astype(np.int64)
        match = self.hash[occupant] == hashes  # (an empty slot, -1, reads the last row's hash: not held, below)
        held = occupant >= 0
        match &= held
        held &= ~match
        return np.where(match, occupant, -1), np.flatnonzero(held)


def distinct(ids: DocIds) -> tuple[np.ndarray, np.ndarray] | None:
    """The first row of each distinct id of ``ids``, ascending, and the number of each row's value in that order
    (values numbered by first appearance), found through the hashes; None where two different ids share a hash
    (then found otherwise)."""
    if not has_repeats(ids.hash):  # (no two hashes alike, so no two ids: the heads of qrels grouped by query)
        every = np.arange(len(ids.hash))
        return every, every
    order = np.argsort(ids.hash)
    new = run_starts(ids.hash[order])
    group = np.cumsum(new) - 1
    first = np.minimum.reduceat(order, np.flatnonzero(new)) if len(order) else order
    if not ids.equal(order, ids, first[group]).all():
        return None
    by_appearance = np.argsort(first)
    renumbered = np.empty(len(first), dtype=np.int64)
    renumbered[by_appearance] = np.arange(len(first))
    number = np.empty(len(order), dtype=np.int64)
    number[order] = renumbered[group]
    return first[by_appearance], number


def sorted_distinct(ids: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The distinct values of ``ids`` (a string column), ascending byte-wise, and the position among them of each
    row's value: what ``ac.sorted_unique`` and ``ac.index_in`` give, through the 64-bit hashes of the first row of
    each run of equal values (qrels list each query's lines together), not Arrow's hash table of strings (0.6 s
    against 0.2 s for a million distinct queries: benchmarks/queries.py)."""
    starts = np.concatenate(([0], run_changes(ids))) if len(ids) else np.empty(0, dtype=np.int64)
    heads = ac.take(ids, from_numpy(starts))
    if isinstance(heads, pa.ChunkedArray):
        heads = heads.combine_chunks()
    found = distinct(DocIds.of(pa.chunked_array([heads]))) if len(heads) else None
    if found is None:  # (none, or a 64-bit hash shared by two ids)
        values = ac.sorted_unique(ids)
        return values, to_numpy(ac.index_in(ids, values)).astype(np.int64)
    first, number = found
    values = ac.take(heads, from_numpy(first))
    order = to_numpy(ac.sort_indices(pa.table({'id': values}), [('id', 'ascending')])).astype(np.int64)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return ac.take(values, from_numpy(order)), np.repeat(position[number], np.diff(starts, append=len(ids)))


def run_changes(ids: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The rows (counted from 1) whose id differs from the row before's."""
    return to_numpy(ac.indices_nonzero(ac.not_equal(ids[1:], ids[:-1]))).view(np.int64) + 1
