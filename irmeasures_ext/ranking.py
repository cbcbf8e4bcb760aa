"""Columnar, vectorised representation of qrels and ranked runs shared by every kernel.

Qrels are converted once into :class:`Judgments`. Each run is turned into a
:class:`RankedRun`: the retrieved documents of each qrels query ranked by trec_eval's tie
rule (score descending, then doc_id descending byte-wise), of which it keeps the judged ones,
with their 1-based rank and qrels label, and the number of documents retrieved per query.
Like trec_eval, which stores scores as 32-bit floats, scores are compared after rounding to
float32, so the ranking is the one trec_eval and pytrec_eval evaluate. Kernels compute a
measure for all queries at once with segment sums over these arrays.

Ranking takes a few linear passes over the run and no sort on strings. The rows of each
query are made contiguous (they already are in run files) and processed in blocks of whole
queries. Doc_ids are hashed to 64-bit integers, read eight bytes at a time from the Arrow
buffers: repeated docs show up as equal neighbours among sorted 32-bit (query, hash) keys,
and judged docs are found through a membership filter and hash buckets of the qrels (hash
matches are confirmed on the strings). A judged row's rank is its position among its query's
rows in score order, which run files already follow (other blocks are sorted on integer
(query, score) keys); only rows tied on score compare doc_ids. Blocks are independent and run
on a small thread pool (numpy releases the GIL for most of the work).
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.errors import InputError

#: Label given to retrieved documents that have no qrels entry (below every ``rel`` threshold).
UNJUDGED = np.iinfo(np.int64).min

GainFunction = Callable[[np.ndarray], np.ndarray]
T = TypeVar('T')

#: Score ties are resolved by comparing doc_ids pairwise while that needs at most this many
#: comparisons per run row of a block; beyond that, the block is sorted on (query, score, doc_id).
TIE_PAIRS_PER_ROW = 4

#: Rows per block (whole queries; a longer query makes a longer block): 1 MB per uint64 array.
_BLOCK = 1 << 17
#: Ids hashed at once: small enough for the temporaries to stay in the CPU cache and malloc's heap.
_PIECE = 1 << 15
#: Blocks ranked at once, at most (one per CPU up to this).
_MAX_THREADS = 4

_MIX_1, _MIX_2 = np.uint64(0xFF51_AFD7_ED55_8CCD), np.uint64(0xC4CE_B9FE_1A85_EC53)
_QUERY_MIX = np.uint64(0x9E37_79B9_7F4A_7C15)


def segment_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sums ``values`` per segment id (float64, one entry per segment)."""
    return np.bincount(segment, weights=values, minlength=n_segments).astype(np.float64, copy=False)


def segment_count(mask: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Counts the true entries of ``mask`` per segment id."""
    return np.bincount(segment[mask], minlength=n_segments)


def segment_cumsum(values: np.ndarray, segment: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``values`` restarting at each segment (rows grouped by segment)."""
    running = np.cumsum(values)
    before = np.concatenate(([0], running))[starts]
    return running - before[segment]


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 wherever the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


@dataclass(frozen=True)
class IdealList:
    """Per query, the given qrels gains sorted descending (the ideal ranking), concatenated."""

    query: np.ndarray        # query index of each entry
    rank: np.ndarray         # 1-based ideal rank of each entry
    gain: np.ndarray         # gain of each entry (descending within a query)
    cumulative: np.ndarray   # cumulative gain up to each entry
    starts: np.ndarray       # offset of each query's first entry
    counts: np.ndarray       # entries per query

    def cumulative_at(self, query: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """cg*(r): ideal cumulative gain at rank r, staying at the total past the list's end.

        Only valid for queries with at least one entry.
        """
        depth = np.minimum(rank, self.counts[query])
        return self.cumulative[self.starts[query] + depth - 1]


class Judgments:
    """Qrels converted once: the evaluated query ids and every judged (query, doc, label)."""

    def __init__(self, qrels: pa.Table) -> None:
        _keep_freed_memory()
        self._cache: dict[Hashable, Any] = {}
        if self._index(qrels):
            self._index(_deduplicate_qrels(qrels))

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per ``key``: qrels-side values shared by measures and runs."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def _index(self, qrels: pa.Table) -> bool:
        """Sets the attributes from ``qrels``; returns whether some (query, doc) hash repeats."""
        self.query_ids: pa.Array = pc.unique(qrels['query_id']).sort()
        self.n_queries = len(self.query_ids)
        query = pc.index_in(qrels['query_id'], value_set=self.query_ids).cast(pa.int64())
        self.table = qrels.append_column('query', query)
        self.query = _to_numpy(query)
        self.label = _to_numpy(qrels['relevance'])
        self._docs = _Docs.of(qrels['doc_id'])
        # Pair keys are sorted with each entry's index in their low bits (a plain sort is much
        # faster than an argsort) and compared on the bits above. They are looked up through
        # buckets of their top bits (about one key per bucket); the doc hashes' top bits index a
        # membership filter (1/16 full) that dismisses most run rows with one lookup.
        self._index_bits = np.uint64(max(1, (len(self.query) - 1).bit_length()))
        packed = _pair_keys(self.query, self._docs.hash) >> self._index_bits << self._index_bits
        packed |= np.arange(len(packed), dtype=np.uint64)
        packed.sort()
        self._entry = (packed & ((np.uint64(1) << self._index_bits) - np.uint64(1))).view(np.int64)
        self._sorted_keys = packed >> self._index_bits
        bucket_bits = len(packed).bit_length()
        self._bucket_shift = np.uint64(64 - bucket_bits)
        self._bucket_size = np.bincount((packed >> self._bucket_shift).view(np.int64), minlength=1 << bucket_bits)
        self._bucket_start = np.cumsum(self._bucket_size) - self._bucket_size
        filter_bits = min(max(16, bucket_bits + 4), 28)
        self._filter_shift = np.uint64(64 - filter_bits)
        self._filter = np.zeros(1 << filter_bits, dtype=bool)
        self._filter[self._filter_slots(self._docs)] = True
        return bool(np.any(self._sorted_keys[1:] == self._sorted_keys[:-1]))

    @functools.cached_property
    def _by_label(self) -> np.ndarray:
        """Entry order by query, then label descending."""
        return np.lexsort((-self.label, self.query))

    def n_relevant(self, rel: int) -> np.ndarray:
        """R per query: judged docs with label >= rel."""
        return self.cached(('R', rel), lambda: segment_count(self.label >= rel, self.query, self.n_queries))

    def ideal(self, gain_of: GainFunction, keep: np.ndarray) -> IdealList:
        """The ideal list of the judged docs selected by ``keep``, gains from ``gain_of(label)``.

        Entries are taken in (query, label descending) order, which is already the ideal order
        when gains grow with labels; other gain mappings are sorted again.
        """
        by_label = self._by_label[keep[self._by_label]]
        query, gain = self.query[by_label], gain_of(self.label[by_label])
        if np.any((gain[1:] > gain[:-1]) & (query[1:] == query[:-1])):
            order = np.lexsort((-gain, query))
            query, gain = query[order], gain[order]
        starts = np.searchsorted(query, np.arange(self.n_queries))
        counts = np.bincount(query, minlength=self.n_queries)
        rank = np.arange(len(query)) - starts[query] + 1
        return IdealList(query, rank, gain, segment_cumsum(gain, query, starts), starts, counts)

    def maybe_judged(self, docs: _Docs) -> np.ndarray:
        """Indices of the docs that may be judged (for some query); every judged one is included."""
        return np.flatnonzero(self._filter[self._filter_slots(docs)])

    def _filter_slots(self, docs: _Docs) -> np.ndarray:
        # int64 indices: numpy gathers with them about twice as fast as with uint64 ones.
        return (docs.hash >> self._filter_shift).view(np.int64)

    def find(self, rows: np.ndarray, query: np.ndarray, docs: _Docs) -> tuple[np.ndarray, np.ndarray]:
        """The judged ones among run ``rows`` (ascending, of query indices ``query``) and their
        qrels entries, in row order; hash matches are confirmed on the doc ids."""
        keys = _pair_keys(query, docs.hash[rows])
        bucket = (keys >> self._bucket_shift).view(np.int64)
        keys >>= self._index_bits
        first, size = self._bucket_start[bucket], self._bucket_size[bucket]
        owners, positions = [], []
        for depth in range(int(size.max(initial=0))):  # buckets hold about one key each
            probe = np.flatnonzero(size > depth)
            position = first[probe] + depth
            hit = self._sorted_keys[position] == keys[probe]
            owners.append(probe[hit])
            positions.append(position[hit])
        owner, position = (np.concatenate([np.empty(0, dtype=np.int64), *parts]) for parts in (owners, positions))
        order = np.argsort(owner, kind='stable')  # back to row order
        owner, entry = owner[order], self._entry[position[order]]
        rows = rows[owner]
        same = (query[owner] == self.query[entry]) & docs.equal(rows, self._docs, entry)
        return rows[same], entry[same]


@dataclass(frozen=True)
class RankedRun:
    """A run ranked with trec_eval's tie rule, restricted to the queries of the judgments.

    Rows are the *judged* retrieved documents only: an unjudged document is relevant for no
    ``rel`` and has no gain, so no measure needs its row; its rank still counts, and
    ``n_retrieved`` holds every retrieved document.
    """

    judgments: Judgments
    query: np.ndarray    # query index of each row; rows grouped by query, then ordered by rank
    rank: np.ndarray     # 1-based rank within the query (among all retrieved documents)
    label: np.ndarray    # qrels label
    starts: np.ndarray   # offset of each query's first row
    n_retrieved: np.ndarray  # documents retrieved per query (judged or not)
    depth: int           # the most documents any query of the run retrieved (run-only queries too)
    _first_relevant: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return self.judgments.n_queries

    def relevant(self, rel: int) -> np.ndarray:
        """Boolean per row: the document is judged with label >= rel."""
        return self.label >= rel

    def top(self, cutoff: int | None) -> RankedRun:
        """The rows ranked ``cutoff`` or better (every row if ``cutoff`` is None)."""
        if cutoff is None:
            return self
        keep = self.rank <= cutoff
        query = self.query[keep]
        return replace(self, query=query, rank=self.rank[keep], label=self.label[keep],
                       starts=np.searchsorted(query, np.arange(self.n_queries)))

    def per_query_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sums ``values`` (optionally where ``mask``) per query."""
        if mask is None:
            return segment_sum(values, self.query, self.n_queries)
        return segment_sum(values[mask], self.query[mask], self.n_queries)

    def per_query_count(self, mask: np.ndarray) -> np.ndarray:
        """Counts the rows where ``mask`` holds, per query."""
        return segment_count(mask, self.query, self.n_queries)

    def cumulative(self, values: np.ndarray) -> np.ndarray:
        """Per-query cumulative sum of ``values`` down the ranking."""
        return segment_cumsum(values, self.query, self.starts)

    def first_relevant_rank(self, rel: int) -> np.ndarray:
        """Rank of the first doc with label >= rel, per query; 0 if none (read-only, shared by measures)."""
        if rel not in self._first_relevant:
            first = np.zeros(self.n_queries, dtype=np.int64)
            relevant = self.relevant(rel)
            query, rank = self.query[relevant], self.rank[relevant]
            leads = np.concatenate(([True], query[1:] != query[:-1]))[:len(query)]  # rows are sorted by (query, rank)
            first[query[leads]] = rank[leads]
            first.flags.writeable = False
            self._first_relevant[rel] = first
        return self._first_relevant[rel]


def rank_run(run: pa.Table, judgments: Judgments) -> RankedRun:
    """Validates ``run`` and ranks it against ``judgments`` (see module docstring)."""
    _keep_freed_memory()
    _check_scores(run)
    if not run.num_rows:
        empty, zeros = np.empty(0, dtype=np.int64), np.zeros(judgments.n_queries, dtype=np.int64)
        return RankedRun(judgments, empty, empty, empty, zeros, zeros, 0)
    order, sizes, group_query = _query_groups(run['query_id'], judgments)
    grouped = run if order is None else run.take(_arrow(order))
    ends = np.cumsum(sizes)
    cuts = np.searchsorted(ends, np.arange(0, run.num_rows, _BLOCK), 'right')
    cuts = cuts[np.concatenate(([True], cuts[1:] != cuts[:-1]))]  # (np.unique would import numpy.ma)
    bounds = list(zip(cuts.tolist(), [*cuts[1:].tolist(), len(sizes)], strict=True))

    def block(groups: tuple[int, int]) -> _RankedBlock:
        first, last = groups
        start = int(ends[first - 1]) if first else 0
        return _rank_block(grouped.slice(start, int(ends[last - 1]) - start), sizes[first:last],
                           group_query[first:last], judgments)

    with ThreadPoolExecutor(min(len(bounds), os.cpu_count() or 1, _MAX_THREADS)) as pool:
        blocks = list(pool.map(block, bounds))
    if any(b.has_duplicate for b in blocks):
        _find_duplicate_doc(run)
    query, rank, label = (np.concatenate([np.empty(0, dtype=np.int64)] + [getattr(b, name) for b in blocks])
                          for name in ('query', 'rank', 'label'))
    order = np.argsort((query << 32) | rank)  # by query, then rank (ranks < 2**32)
    query, rank, label = query[order], rank[order], label[order]
    known = group_query >= 0
    n_retrieved = np.bincount(group_query[known], weights=sizes[known], minlength=judgments.n_queries)
    return RankedRun(judgments, query, rank, label, np.searchsorted(query, np.arange(judgments.n_queries)),
                     n_retrieved.astype(np.int64), int(sizes.max()))


@functools.cache
def _keep_freed_memory() -> None:
    """Lets malloc keep the blocks' freed temporaries for the next block, once per process.

    glibc returns freed memory above its trim threshold (128 KB at start) to the OS, so each
    block faults its temporaries in again: about a tenth of the ranking time in a fresh
    process here. Freeing a large mmapped buffer raises that threshold to twice its size
    (mallopt(3), dynamic mmap threshold); this one is never touched, so it costs no page.
    Other allocators ignore it.
    """
    np.empty(16 << 20, dtype=np.uint8)


@dataclass(frozen=True)
class _RankedBlock:
    """The judged rows of a block of queries."""

    has_duplicate: bool  # some doc hash repeats within a query (checked on the strings afterwards)
    query: np.ndarray    # judged rows: qrels query index,
    rank: np.ndarray     # rank,
    label: np.ndarray    # and label


def _rank_block(run: pa.Table, sizes: np.ndarray, group_query: np.ndarray, judgments: Judgments) -> _RankedBlock:
    """Ranks the judged rows of a block of whole queries (``sizes`` rows each, in order)."""
    row_group = np.repeat(np.arange(len(sizes)), sizes)
    docs = _Docs.of(run['doc_id'])
    has_duplicate = _has_repeated_doc(row_group, docs.hash)
    rows = judgments.maybe_judged(docs)
    query = group_query[row_group[rows]]
    known = query >= 0
    rows, entry = judgments.find(rows[known], query[known], docs)
    rank = _ranks(_descending_score_keys(run['score']), row_group, np.cumsum(sizes) - sizes, docs, rows)
    return _RankedBlock(has_duplicate, judgments.query[entry], rank, judgments.label[entry])


def _has_repeated_doc(row_group: np.ndarray, doc_hash: np.ndarray) -> bool:
    """Whether two rows of a query group have the same doc hash (``row_group`` ascending).

    Sorts 32-bit (group, top hash bits) keys, which is fast; the few rows whose short key
    repeats by chance (about (rows / 2**16.5)**2) are compared again on 64-bit keys.
    """
    short = _group_keys(row_group, doc_hash, np.uint32)
    ordered = np.sort(short)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return False
    rows = np.flatnonzero(np.isin(short, repeated))
    full = np.sort(_group_keys(row_group[rows], doc_hash[rows], np.uint64))
    return bool(np.any(full[1:] == full[:-1]))


def _group_keys(row_group: np.ndarray, doc_hash: np.ndarray, dtype: type[np.unsignedinteger]) -> np.ndarray:
    """Keys of ``dtype`` holding the row's group in the top bits and the doc hash's top bits below."""
    bits = np.dtype(dtype).itemsize * 8
    group_bits = int(row_group[-1]).bit_length() if len(row_group) else 0
    keys = (doc_hash >> np.uint64(64 - bits + group_bits)).astype(dtype)  # a shift by 64 gives 0 in numpy
    keys |= row_group.astype(dtype) << dtype(bits - group_bits)
    return keys


@dataclass(frozen=True)
class _Docs:
    """Doc ids and, per id, a 64-bit hash, its first 8 bytes (little-endian, zero-padded) and its length."""

    ids: pa.ChunkedArray
    hash: np.ndarray
    head: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, ids: pa.ChunkedArray) -> _Docs:
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

    def equal(self, rows: np.ndarray, other: _Docs, other_rows: np.ndarray) -> np.ndarray:
        """Whether ``ids[rows] == other.ids[other_rows]``, pairwise (strings compared past 8 bytes only)."""
        length = self.length[rows]
        same = (self.head[rows] == other.head[other_rows]) & (length == other.length[other_rows])
        long = np.flatnonzero(same & (length > 8))
        if len(long):
            same[long] = _to_numpy(pc.equal(self.ids.take(_arrow(rows[long])),
                                            other.ids.take(_arrow(other_rows[long]))))
        return same

    def greater(self, rows: np.ndarray, other_rows: np.ndarray) -> np.ndarray:
        """Whether ``ids[rows] > ids[other_rows]`` byte-wise, pairwise (strings compared on equal heads only)."""
        head, other = self.head[rows].byteswap(), self.head[other_rows].byteswap()  # big-endian: byte order
        greater = head > other
        tied = np.flatnonzero((head == other) & (rows != other_rows))
        if len(tied):
            greater[tied] = _to_numpy(pc.greater(self.ids.take(_arrow(rows[tied])),
                                                 self.ids.take(_arrow(other_rows[tied]))))
        return greater


def _read_ids(strings: pa.Array, hashes: np.ndarray, head: np.ndarray, lengths: np.ndarray) -> None:
    """Fills the hash, head and length of each string, reading its bytes eight at a time."""
    strings = strings.cast(pa.string())
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, strings.offset * 4)
    first, size = int(offsets[0]), int(offsets[-1]) - int(offsets[0])
    words = np.zeros(size // 8 + 2, dtype=np.uint64)  # zero padding: reads never leave the array
    if size:
        words.view(np.uint8)[:size] = np.frombuffer(strings.buffers()[2], np.uint8, size, first)
    position = np.subtract(offsets[:-1], first, dtype=np.int64)
    np.subtract(offsets[1:], offsets[:-1], out=lengths)
    head[:] = _read_words(words, position, lengths)
    np.multiply(head, _MIX_2, out=hashes)
    longer = np.flatnonzero(lengths > 8)
    if len(longer):  # hash = (...((head·m1 ^ word1)·m1 ^ word2)...)·m2
        chain = head[longer]
        for word in range(1, -(-int(lengths.max()) // 8)):
            longer_still = lengths[longer] > 8 * word
            chain[longer_still] = (chain[longer_still] * _MIX_1) ^ _read_words(
                words, position[longer[longer_still]] + 8 * word, lengths[longer[longer_still]] - 8 * word)
        hashes[longer] = chain * _MIX_2


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
    # (Arithmetic, not a table lookup: numpy's take and small-table gathers are slower.)
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


def _pair_keys(query: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (query index, doc hash) pair."""
    keys = query.astype(np.uint64)
    keys *= _QUERY_MIX
    keys ^= doc_hash
    return _mix(keys)


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, position) for every position of every range ``[lo[i], hi[i])``, owner = i."""
    sizes = hi - lo
    owner = np.repeat(np.arange(len(lo)), sizes)
    return owner, np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes - lo, sizes)


def _to_numpy(array: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A fixed-width or boolean Arrow array as numpy (nulls become -1), read from its buffers:
    Arrow's own ``to_numpy`` imports pandas (~0.2 s and 40 MB on first use)."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    if len(chunks) == 1:
        return _chunk_to_numpy(chunks[0])
    return np.concatenate([np.empty(0, dtype=array.type.to_pandas_dtype())]
                          + [_chunk_to_numpy(chunk) for chunk in chunks])


def _chunk_to_numpy(chunk: pa.Array) -> np.ndarray:
    n, offset = len(chunk), chunk.offset
    if not n:
        return np.empty(0, dtype=chunk.type.to_pandas_dtype())
    validity, data = chunk.buffers()[:2]
    if chunk.type == pa.bool_():
        values = _bits(data, offset, n)
    else:
        dtype = np.dtype(chunk.type.to_pandas_dtype())
        values = np.frombuffer(data, dtype, n, offset * dtype.itemsize)
    if chunk.null_count:
        values = values.copy()
        values[~_bits(validity, offset, n)] = -1
    return values


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """An Arrow bitmap as a numpy bool array."""
    return np.unpackbits(np.frombuffer(buffer, np.uint8), count=offset + n, bitorder='little')[offset:].view(np.bool_)


def _arrow(values: np.ndarray) -> pa.Array:
    """A zero-copy Arrow array of a 1-d numpy integer array (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def _query_groups(query_ids: pa.ChunkedArray,
                  judgments: Judgments) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Groups the rows by query: (row order making each query's rows contiguous, None if they
    already are, as in run files; rows per group in that order; qrels query index per group or -1)."""
    changed = _to_numpy(pc.not_equal(query_ids[1:], query_ids[:-1]))
    starts = np.concatenate(([0], np.flatnonzero(changed) + 1))
    heads = query_ids.take(_arrow(starts))
    order = None
    if pc.count_distinct(heads).as_py() == len(heads):
        sizes = np.diff(starts, append=len(query_ids))
    else:
        heads = pc.unique(query_ids)
        group = _to_numpy(pc.index_in(query_ids, value_set=heads))
        order, sizes = np.argsort(group, kind='stable'), np.bincount(group, minlength=len(heads))
    return order, sizes, _to_numpy(pc.index_in(heads, value_set=judgments.query_ids)).astype(np.int64)


def _descending_score_keys(score: pa.ChunkedArray) -> np.ndarray:
    """uint32 keys whose ascending order is the descending order of the scores rounded to float32."""
    bits = _to_numpy(pc.cast(score, pa.float32(), safe=False)) + np.float32(0)  # also turns -0 into +0
    bits = bits.view(np.uint32)
    # Non-negative floats order like their bits and negative ones in reverse: flip the bits
    # that make the order descending for both.
    flip = bits >> np.uint32(31)
    flip -= np.uint32(1)
    flip >>= np.uint32(1)
    bits ^= flip
    return bits


def _ranks(score_key: np.ndarray, row_group: np.ndarray, group_start: np.ndarray, docs: _Docs,
           rows: np.ndarray) -> np.ndarray:
    """Rank of each of ``rows`` in its query group. ``score_key`` orders the scores (ascending key
    = descending score), ``row_group`` gives each row's group (contiguous, ascending) and
    ``group_start`` each group's first row; rows tied on score are ordered by doc_id descending."""
    run_start = np.zeros(len(score_key), dtype=bool)  # first row of each run of equal (group, score), ranked
    run_start[group_start] = True
    if np.all((score_key[1:] >= score_key[:-1]) | run_start[1:]):  # run files list each query's docs by score
        order, position = None, rows
        run_start[1:] |= score_key[1:] != score_key[:-1]
    else:
        key = _group_score_keys(row_group, score_key)
        order = np.argsort(key)
        key = key[order]
        run_start[1:] = key[1:] != key[:-1]
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        position = position[rows]
    bounds = np.append(np.flatnonzero(run_start), len(score_key))
    tie_run = np.searchsorted(bounds, position, 'right')
    lo, hi = bounds[tie_run - 1], bounds[tie_run]
    first = group_start[row_group[rows]]
    tied = np.flatnonzero(hi - lo > 1)
    if (hi - lo)[tied].sum() > TIE_PAIRS_PER_ROW * len(score_key):
        return _ranks_by_sort(_group_score_keys(row_group, score_key), docs.ids, rows, first)
    rank = lo - first + 1
    owner, others = _expand(lo[tied], hi[tied])  # each tied row against its whole tie run, itself included
    if order is not None:
        others = order[others]
    rank[tied] += np.bincount(owner[docs.greater(others, rows[tied][owner])], minlength=len(tied))
    return rank


def _group_score_keys(row_group: np.ndarray, score_key: np.ndarray) -> np.ndarray:
    """(group << 32 | score key) per row: ascending order ranks every group."""
    keys = row_group.view(np.uint64) << np.uint64(32)
    keys |= score_key
    return keys


def _ranks_by_sort(key: np.ndarray, doc_ids: pa.ChunkedArray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """:func:`_ranks` by sorting the block on (key, doc_id descending), for blocks with many ties."""
    order = _to_numpy(pc.sort_indices(pa.table({'key': _arrow(key), 'doc_id': doc_ids}),
                                      sort_keys=[('key', 'ascending'), ('doc_id', 'descending')]))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[rows] - first + 1


def _check_scores(run: pa.Table) -> None:
    finite = pc.is_finite(run['score'])
    if run.num_rows and not pc.all(finite).as_py():
        bad = pc.index(finite, False).as_py()
        raise InputError(f'run: score {run["score"][bad].as_py()} for doc {run["doc_id"][bad].as_py()!r} in '
                         f'query {run["query_id"][bad].as_py()!r} is not a finite number')


def _find_duplicate_doc(run: pa.Table) -> None:
    pairs = run.group_by(['query_id', 'doc_id']).aggregate([([], 'count_all')])
    if pairs.num_rows != run.num_rows:
        repeated = pairs.filter(pc.greater(pairs['count_all'], 1)).slice(0, 1).to_pylist()[0]
        raise InputError(f'run: duplicate doc {repeated["doc_id"]!r} in query {repeated["query_id"]!r} '
                         f'({repeated["count_all"]} times); each doc may appear once per query')


def _deduplicate_qrels(qrels: pa.Table) -> pa.Table:
    """Drops repeated identical qrels lines; raises InputError on conflicting labels."""
    pairs = qrels.group_by(['query_id', 'doc_id']).aggregate([('relevance', 'min'), ('relevance', 'max')])
    if pairs.num_rows != qrels.num_rows:
        conflicts = pairs.filter(pc.not_equal(pairs['relevance_min'], pairs['relevance_max']))
        if conflicts.num_rows:
            first = conflicts.slice(0, 1).to_pylist()[0]
            raise InputError(f'qrels: conflicting labels for doc {first["doc_id"]!r} in query '
                             f'{first["query_id"]!r} (labels {first["relevance_min"]} and '
                             f'{first["relevance_max"]}); {conflicts.num_rows} such pair(s)')
    return pa.table({'query_id': pairs['query_id'], 'doc_id': pairs['doc_id'],
                     'relevance': pairs['relevance_min']})
