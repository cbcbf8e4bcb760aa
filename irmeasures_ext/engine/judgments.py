"""Qrels converted once per evaluator: query indices, labels, ideal lists and a lookup by (query, doc)."""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext._arrow.memory import keep_freed_memory
from irmeasures_ext.engine.doc_ids import DocIds, pair_keys, sorted_distinct
from irmeasures_ext.engine.segments import expand, run_starts, segment_count, segment_cumsum
from irmeasures_ext.errors import (
    ConflictingClassesError,
    ConflictingLabelsError,
    InputError,
    InvalidClassError,
    RepeatedJudgment,
    RowError,
)
from irmeasures_ext.readers.schemas import CLASS_COLUMN, INTENT_COLUMN

#: Label given to retrieved documents that have no qrels entry (below every ``rel`` threshold).
UNJUDGED = np.iinfo(np.int64).min

GainFunction = Callable[[np.ndarray], np.ndarray]
T = TypeVar('T')
E = TypeVar('E', bound=RowError)

class Intents(NamedTuple):
    """The (intent, label) pairs of each judgment entry: entry e's pairs are ``start[e]:start[e + 1]``.
    Intents are numbered across queries (``query`` gives each one's query index); within a query, entries are
    in doc id order (byte-wise), which breaks the ties of the greedy ideal ranking. With the intents'
    probabilities (:class:`~irmeasures_ext.readers.intent_probabilities.IntentQrels`), ``probability`` holds
    P(i|q) and ``navigational`` the type of each intent (NaN and False for an intent they do not list)."""

    start: np.ndarray   # per entry, its first pair (one more item: the number of pairs)
    intent: np.ndarray  # per pair, its intent
    label: np.ndarray   # per pair, its label
    query: np.ndarray   # per intent, its query index
    probability: np.ndarray | None = None
    navigational: np.ndarray | None = None
    #: Where the probabilities list an intent that no qrels line judges (NTCIREVAL's measures skip it).
    unjudged: tuple[str, ...] = ()

    def relevant_pairs(self, rel: int | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(entry, intent, label) of each pair with label >= ``rel``, by entry."""
        relevant = self.label >= rel
        entry = np.repeat(np.arange(len(self.start) - 1), np.diff(self.start))
        return entry[relevant], self.intent[relevant], self.label[relevant]

    def of_rows(self, entry: np.ndarray, rel: int | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, intent, label) of each pair with label >= ``rel`` of rows judged by ``entry``, in row order."""
        row, pair = expand(self.start[entry + 1] - self.start[entry], self.start[entry])
        relevant = self.label[pair] >= rel
        return row[relevant], self.intent[pair[relevant]], self.label[pair[relevant]]

    def covered(self, rel: int | float, n_queries: int) -> np.ndarray:
        """S per query: its intents with a doc judged >= ``rel``."""
        return np.bincount(self.query[self.relevant(rel)], minlength=n_queries)

    def relevant(self, rel: int | float) -> np.ndarray:
        """Per intent, whether a doc is judged >= ``rel`` for it."""
        intents = np.zeros(len(self.query), dtype=bool)
        intents[self.intent[self.label >= rel]] = True
        return intents


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


@dataclass(frozen=True, eq=False)
class RunQueries:
    """A run's queries (each once, by id) against the qrels (:meth:`Judgments.run_queries`); their judged doc ids
    (Python strings) are made when first asked for."""

    judgments: Judgments
    query: np.ndarray   # the qrels query index of each, -1 for one the qrels do not have
    judged: np.ndarray  # those the qrels have (positions among the run's queries)
    entry: np.ndarray   # their qrels entries, query after query,
    owner: np.ndarray   # and the run's query of each (a position among the run's queries)

    @functools.cached_property
    def doc_ids(self) -> list[list[str]]:
        """The judged doc ids of each query the qrels have."""
        return self.judgments.judged_doc_ids(self.query[self.judged])

    @functools.cached_property
    def entry_doc_ids(self) -> list[str]:
        """The doc id of each entry."""
        return list(itertools.chain.from_iterable(self.doc_ids))


#: The qrels columns that name a judgment (the rest are judgment columns: :attr:`Judgments.columns`).
_KEY_COLUMNS = ('query_id', 'doc_id', 'relevance')


class Judgments:
    """Qrels converted once: the evaluated query ids and every judged (query, doc, label), with the qrels'
    other columns beside the label (:attr:`columns`: the equivalence class, where the qrels have one); a
    ranked run's rows carry the same columns (:attr:`.RankedRun.judged`), so another kind of judgment is
    another column, not another layer."""

    def __init__(self, qrels: pa.Table) -> None:
        keep_freed_memory()
        self._cache: dict[Hashable, Any] = {}
        if CLASS_COLUMN in qrels.column_names:
            _check_class_ids(qrels)
        #: The first (query, doc) pair judged on identical lines (counted once), if any.
        self.repeated: RepeatedJudgment | None = None
        #: The intents of each entry, for qrels of intents (:func:`.intents.judgments_of_intents`), else None.
        self.intents: Intents | None = None
        if self._index(qrels):
            deduplicated, self.repeated = deduplicated_qrels(qrels)
            self._index(deduplicated)

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per ``key``: qrels-side values shared by measures and runs."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def _index(self, qrels: pa.Table) -> bool:
        """Sets the attributes from ``qrels``; returns whether some (query, doc) hash repeats."""
        self.query_ids: pa.Array
        self.query_ids, self.query = sorted_distinct(qrels['query_id'])
        self.n_queries = len(self.query_ids)
        self.label = to_numpy(qrels['relevance'])
        #: Each judgment's other columns, by name (the equivalence class: ``CLASS_COLUMN``).
        self.columns: dict[str, np.ndarray] = {name: to_numpy(qrels[name]) for name in qrels.column_names
                                               if name not in _KEY_COLUMNS}
        self._docs = DocIds.of(qrels['doc_id'])
        # Pair keys are sorted with each entry's index in their low bits (a sort of the keys rather
        # than an argsort) and compared on the bits above. They are looked up through
        # buckets of their top bits (about one key per bucket); the doc hashes' top bits index a
        # membership filter (1/16 full) that dismisses most run rows with one lookup.
        self._index_bits = np.uint64(max(1, (len(self.query) - 1).bit_length()))
        packed = pair_keys(self.query, self._docs.hash) >> self._index_bits << self._index_bits
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

    @property
    def equivalence_class(self) -> np.ndarray | None:
        """Each judgment's equivalence class, for qrels with classes (else None)."""
        return self.columns.get(CLASS_COLUMN)

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
            return ideal_list(query, gain, self.n_queries)
        return _ideal_of_sorted(query, gain, self.n_queries)

    def by_class(self) -> Judgments:
        """The judgments of the equivalence classes (computed once): an entry per (query, class), labelled
        with the class's highest label and named by the doc of its first entry of that label, so that R,
        the ideal list and the counts per label are those of the classes. InputError for qrels without
        classes."""
        if self.equivalence_class is None:
            raise InputError('classes=True needs qrels with equivalence classes (a fifth field, the class id, on '
                             f'every line of a TREC file, an {CLASS_COLUMN} column, or dict values (relevance, '
                             'class)); these qrels have none')
        return self.cached('by class', self._by_class)

    def _by_class(self) -> Judgments:
        classes = self.equivalence_class
        assert classes is not None  # (by_class checks)
        order = np.lexsort((-self.label, classes, self.query))  # (stable: first entries first)
        query, group = self.query[order], classes[order]
        best = order[run_starts(query, group)]
        indices = pa.array(best)
        return Judgments(pa.table({'query_id': ac.take(self.query_ids, pa.array(self.query[best])),
                                   'doc_id': ac.take(self._docs.ids, indices), 'relevance': self.label[best]}))

    def highest_label(self, query: int) -> tuple[str, int | float]:
        """The doc and label of the highest label of query index ``query`` (one with a judgment; the first
        such entry)."""
        entries = np.flatnonzero(self.query == query)
        entry = entries[np.argmax(self.label[entries])]
        return self._docs.ids[int(entry)].as_py(), self.label[entry].item()

    def judgment_error(self, entry: int, problem: str) -> RowError:
        """A RowError about the judgment ``entry``, named by its query and doc (a file's reader names its line)."""
        query_id = self.query_ids[int(self.query[entry])].as_py()
        doc_id = self._docs.ids[int(entry)].as_py()
        return RowError(f'{problem} (doc {doc_id!r} in query {query_id!r})', 'qrels', query_id, doc_id)

    def query_index(self, query_ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """The index of each of ``query_ids`` among the qrels queries, -1 for one the qrels do not have: what
        ``ac.index_in`` gives, by one comparison where they are the qrels' queries in the qrels' order (as runs often
        list them), else through their 64-bit hashes looked up in buckets of their top bits. Arrow's hash table of
        strings took 0.3 s for a million queries (benchmarks/queries.py), the hashes 0.18 s, the comparison 5 ms."""
        listed = self.cached('qrels order', self._qrels_order)
        if listed is not None and len(query_ids) == len(listed[0]) and to_numpy(ac.equal(query_ids, listed[0])).all():
            return listed[1].copy()
        lookup = self.cached('query lookup', self._query_lookup)
        if lookup is None:  # (two qrels queries share a hash)
            return to_numpy(ac.index_in(query_ids, self.query_ids)).astype(np.int64)
        hashes, queries, docs, shift, bucket_start = lookup
        ids = DocIds.of(query_ids if isinstance(query_ids, pa.ChunkedArray) else pa.chunked_array([query_ids]))
        bucket = (ids.hash >> shift).view(np.int64)
        owner, slot = expand(bucket_start[bucket + 1] - bucket_start[bucket], bucket_start[bucket])
        match = hashes[slot] == ids.hash[owner]
        owner, query = owner[match], queries[slot[match]]
        same = ids.equal(owner, docs, query)
        index = np.full(len(ids.hash), -1, dtype=np.int64)
        index[owner[same]] = query[same]
        return index

    def _qrels_order(self) -> tuple[pa.Array, np.ndarray] | None:
        """The qrels' query ids in the order they list them and their indices; None unless they list each query's
        lines together."""
        listed = self.query[run_starts(self.query)]
        return None if len(listed) != self.n_queries else (ac.take(self.query_ids, from_numpy(listed)), listed)

    def _query_lookup(self) -> tuple[np.ndarray, np.ndarray, DocIds, np.uint64, np.ndarray] | None:
        """The qrels queries' hashes, ascending, their query indices, the query ids, and where each bucket of
        hashes of equal top bits starts (about one hash a bucket); None if two queries share a hash."""
        docs = DocIds.of(pa.chunked_array([self.query_ids]))
        queries = np.argsort(docs.hash)
        hashes = docs.hash[queries]
        if np.any(hashes[1:] == hashes[:-1]):
            return None
        bits = len(hashes).bit_length()
        shift = np.uint64(64 - bits)
        bucket_start = np.append(np.searchsorted(hashes, np.arange(1 << bits, dtype=np.uint64) << shift),
                                 len(hashes))
        return hashes, queries, docs, shift, bucket_start

    def run_queries(self, query_ids: list[str]) -> RunQueries:
        """The judged docs of a run's queries ``query_ids`` (Python strings, each once), remembered for the next
        run of the same queries (the runs evaluated against qrels usually answer their queries)."""
        key = tuple(query_ids)
        last = self._cache.get('run queries')
        if last is None or last[0] != key:
            last = self._cache['run queries'] = (key, self._run_queries(query_ids))
        return last[1]

    def _run_queries(self, query_ids: list[str]) -> RunQueries:
        by_id = self.cached('query index', lambda: {query_id: index for index, query_id
                                                    in enumerate(self.query_ids.to_pylist())})
        query = np.fromiter(map(by_id.get, query_ids, itertools.repeat(-1)), np.int64, len(query_ids))
        judged = np.flatnonzero(query >= 0)
        owner, entry = self._entries_of(query[judged])
        return RunQueries(self, query, judged, entry, judged[owner])

    def judged_doc_ids(self, queries: np.ndarray) -> list[list[str]]:
        """The judged doc ids (Python strings) of each query index of ``queries``, made once per query (those of a
        run's queries: not the whole qrels' for a run of a few)."""
        by_query: dict[int, list[str]] = self.cached('judged doc ids', dict)
        missing = np.array([query for query in dict.fromkeys(queries.tolist()) if query not in by_query],
                           dtype=np.int64)
        if len(missing):
            owner, entry = self._entries_of(missing)
            doc_ids = ac.take(self._docs.ids, from_numpy(entry)).to_pylist()
            ends = np.cumsum(np.bincount(owner, minlength=len(missing))).tolist()
            for query, start, end in zip(missing.tolist(), [0, *ends[:-1]], ends, strict=True):
                by_query[query] = doc_ids[start:end]
        return [by_query[query] for query in queries.tolist()]

    def _entries_of(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entries of the query indices ``queries``, query after query: the position in ``queries`` of each, and
        the entry."""
        bounds = self._query_bounds
        owner, position = expand(bounds[queries + 1] - bounds[queries], bounds[queries])
        return owner, self._by_label[position]

    @functools.cached_property
    def _query_bounds(self) -> np.ndarray:
        """Where each query's entries start in :attr:`_by_label` (and, last, their number)."""
        return np.searchsorted(self.query[self._by_label], np.arange(self.n_queries + 1))

    def maybe_judged(self, docs: DocIds) -> np.ndarray:
        """Indices of the docs that may be judged (for some query); every judged one is included."""
        return np.flatnonzero(self._filter[self._filter_slots(docs)])

    def _filter_slots(self, docs: DocIds) -> np.ndarray:
        # int64 indices: numpy gathers with them about twice as fast as with uint64 ones.
        return (docs.hash >> self._filter_shift).view(np.int64)

    def find(self, rows: np.ndarray, query: np.ndarray, docs: DocIds) -> tuple[np.ndarray, np.ndarray]:
        """The judged ones among run ``rows`` (ascending, of query indices ``query``) and their
        qrels entries, in row order; hash matches are confirmed on the doc ids."""
        keys = pair_keys(query, docs.hash[rows])
        bucket = (keys >> self._bucket_shift).view(np.int64)
        keys >>= self._index_bits
        size = self._bucket_size[bucket]  # (about one key each): every key of each row's bucket, in row order
        owner = np.repeat(np.arange(len(keys)), size)
        position = self._bucket_start[bucket][owner] + np.arange(len(owner)) - np.repeat(np.cumsum(size) - size, size)
        hit = self._sorted_keys[position] == keys[owner]
        owner, entry = owner[hit], self._entry[position[hit]]
        rows = rows[owner]
        same = (query[owner] == self.query[entry]) & docs.equal(rows, self._docs, entry)
        return rows[same], entry[same]


def ideal_list(segment: np.ndarray, gain: np.ndarray, n_segments: int) -> IdealList:
    """The ``gain`` of each item sorted descending within its ``segment`` (a query, or a query's intent): the
    segment's ideal ranking."""
    order = np.lexsort((-gain, segment))
    return _ideal_of_sorted(segment[order], gain[order], n_segments)


def _ideal_of_sorted(segment: np.ndarray, gain: np.ndarray, n_segments: int) -> IdealList:
    starts = np.searchsorted(segment, np.arange(n_segments))
    counts = np.bincount(segment, minlength=n_segments)
    rank = np.arange(len(segment)) - starts[segment] + 1
    return IdealList(segment, rank, gain, segment_cumsum(gain, segment, starts), starts, counts)


def deduplicated_qrels(qrels: pa.Table) -> tuple[pa.Table, RepeatedJudgment | None]:
    """``qrels`` without repeated identical lines (of a (query, doc) pair, or of a (query, intent, doc) in qrels
    of intents) and the first such pair (None if no line repeats); InputError on conflicting labels or
    classes."""
    keys = [name for name in ('query_id', 'doc_id', INTENT_COLUMN) if name in qrels.column_names]
    columns = [name for name in ('relevance', CLASS_COLUMN) if name in qrels.column_names]
    pairs = qrels.group_by(keys).aggregate([(name, how) for name in columns for how in ('min', 'max')]
                                           + [([], 'count_all')])

    def row_error(error: type[E], first: dict, problem: str) -> E:
        """``error`` of ``problem`` about the pair ``first`` (and its intent, in qrels of intents)."""
        located = error(problem, 'qrels', first['query_id'], first['doc_id'])
        located.intent = first.get(INTENT_COLUMN)
        return located

    def pair(first: dict) -> str:
        intent = first.get(INTENT_COLUMN)
        return f'doc {first["doc_id"]!r} in query {first["query_id"]!r}' + (
            '' if intent is None else f' for intent {intent!r}')

    if pairs.num_rows != qrels.num_rows:
        for name, error, what in (('relevance', ConflictingLabelsError, 'labels'),
                                  (CLASS_COLUMN, ConflictingClassesError, 'classes')):
            if name not in columns:
                continue
            conflicts = pairs.filter(ac.not_equal(pairs[f'{name}_min'], pairs[f'{name}_max']))
            if conflicts.num_rows:
                first = conflicts.slice(0, 1).to_pylist()[0]
                raise row_error(error, first, f'conflicting {what} for {pair(first)} ({what} {first[f"{name}_min"]} '
                                              f'and {first[f"{name}_max"]}); {conflicts.num_rows} such pair(s)')
    if pairs.num_rows == qrels.num_rows:
        return qrels, None
    repeated = pairs.filter(ac.greater(pairs['count_all'], 1))
    first = repeated.slice(0, 1).to_pylist()[0]
    more = f' ({repeated.num_rows - 1} more such pair(s))' if repeated.num_rows > 1 else ''
    judgment = row_error(RepeatedJudgment, first, f'{pair(first)} is judged on {first["count_all"]} lines with the '
                                                  f'same label: counted once{more}')
    return pa.table({name: pairs[name] for name in keys} | {name: pairs[f'{name}_min'] for name in columns}), judgment


def _check_class_ids(qrels: pa.Table) -> None:
    """InvalidClassError for the first class id below 0 (the column holds integers)."""
    classes = to_numpy(qrels[CLASS_COLUMN])
    if classes.min(initial=0) < 0:
        bad = int(np.argmax(classes < 0))
        query_id, doc_id = (qrels[name][bad].as_py() for name in ('query_id', 'doc_id'))
        raise InvalidClassError(f'class id {int(classes[bad])} of doc {doc_id!r} in query {query_id!r} is not a '
                                'non-negative integer', 'qrels', query_id, doc_id, int(classes[bad]))
