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

#: Ids longer than this (bytes) are hashed one by one (see _read_ids).
_LONG = 256
#: Ids hashed at once: small enough for the temporaries to stay in the CPU cache and malloc's heap.
_PIECE = 1 << 15

_MIX_1, _MIX_2 = np.uint64(0xFF51_AFD7_ED55_8CCD), np.uint64(0xC4CE_B9FE_1A85_EC53)
_QUERY_MIX = np.uint64(0x9E37_79B9_7F4A_7C15)


@dataclass(frozen=True)
class DocIds:
    """Doc ids and, per id, a 64-bit hash, its first 8 bytes (little-endian, zero-padded) and its length."""

    ids: pa.ChunkedArray
    hash: np.ndarray
    head: np.ndarray
    length: np.ndarray

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
        """Whether ``ids[rows] == other.ids[other_rows]``, pairwise (strings compared past 8 bytes only)."""
        length = self.length[rows]
        same = (self.head[rows] == other.head[other_rows]) & (length == other.length[other_rows])
        long = np.flatnonzero(same & (length > 8))
        if len(long):
            same[long] = to_numpy(ac.equal(ac.take(self.ids, from_numpy(rows[long])),
                                           ac.take(other.ids, from_numpy(other_rows[long]))))
        return same

    def greater(self, rows: np.ndarray, other_rows: np.ndarray) -> np.ndarray:
        """Whether ``ids[rows] > ids[other_rows]`` byte-wise, pairwise (strings compared on equal heads only)."""
        head, other = self.head[rows].byteswap(), self.head[other_rows].byteswap()  # big-endian: byte order
        greater = head > other
        tied = np.flatnonzero((head == other) & (rows != other_rows))
        if len(tied):
            greater[tied] = to_numpy(ac.greater(ac.take(self.ids, from_numpy(rows[tied])),
                                                ac.take(self.ids, from_numpy(other_rows[tied]))))
        return greater


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
    if len(longer):  # hash = (...((head·m1 ^ word1)·m1 ^ word2)...)·m2
        chain = head[longer]
        for word in range(1, -(-int(lengths[longer].max()) // 8)):
            longer_still = lengths[longer] > 8 * word
            chain[longer_still] = (chain[longer_still] * _MIX_1) ^ _read_words(
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
