"""A run ranked with trec_eval's tie rule against converted qrels (:class:`Judgments`).

Each run is turned into a
:class:`RankedRun`: the retrieved documents of each qrels query ranked by trec_eval's tie
rule (score descending, then doc_id descending byte-wise), of which it keeps the judged ones,
with their 1-based rank and qrels label, and the number of documents retrieved per query.
Like trec_eval, which stores scores as 32-bit floats, scores are compared after rounding to
float32, so the ranking is the one trec_eval and pytrec_eval evaluate. Kernels compute a
measure for all queries at once with segment sums over these arrays.

Ranking takes a few linear passes over the run and no sort on strings. The rows of each
query are made contiguous (they already are in run files) and processed in blocks of whole
queries. Doc_ids are hashed to 64-bit integers, read eight bytes at a time from the Arrow
buffers: repeated docs show up as equal (query, hash) keys meeting in a scatter table,
and judged docs are found through a membership filter and hash buckets of the qrels (hash
matches are confirmed on the strings). A judged row's rank is its position among its query's
rows in score order, which run files already follow (other blocks are sorted on integer
(query, score) keys); only rows tied on score compare doc_ids. Blocks are independent and run
on the calling thread and a small thread pool (numpy releases the GIL for most of the work).

A small run given as a dict-of-dict is ranked from its dicts (:func:`rank_dict_run`): its judged
docs are looked up in them, and its scores and the same integer keys rank them.
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext._arrow.memory import keep_freed_memory
from irmeasures_ext.engine.doc_ids import DocIds, has_repeats, run_changes
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.segments import expand, run_starts, segment_count, segment_cumsum, segment_sum
from irmeasures_ext.errors import DuplicateDocError, NonFiniteScoreError
from irmeasures_ext.readers.inputs import DictRun, Input
from irmeasures_ext.readers.schemas import CLASS_COLUMN

T = TypeVar('T')
R = TypeVar('R')

#: Score ties are resolved by comparing doc_ids pairwise while that needs at most this many
#: comparisons per run row of a block; beyond that, the block is sorted on (query, score, doc_id).
TIE_PAIRS_PER_ROW = 4

#: Rows per block (whole queries; a longer query makes a longer block): 1 MB per uint64 array.
_BLOCK = 1 << 17
#: Blocks ranked at once, at most (one per CPU up to this).
_MAX_THREADS = 4
#: CPUs of the machine (``os.cpu_count`` reads /sys each time).
_CPUS = os.cpu_count() or 1
#: Runs of fewer rows are ranked on the calling thread alone: for runs of 10,000 rows, starting a thread cost
#: more than it saved (benchmarks/every_measure.py, part ``small``).
_THREADED_ROWS = 1 << 14
#: An endless NaN: the default of each lookup of :func:`rank_dict_run`.
_NAN_FOREVER = itertools.repeat(math.nan)
#: An odd 64-bit multiplier: a row's (group, doc hash) key in _has_repeated_doc.
_GROUP_MIX = np.uint64(0xD6E8_FEB8_6659_FD93)


@dataclass(frozen=True)
class RankedRun:
    """A run ranked with trec_eval's tie rule, restricted to the queries of the judgments.

    Rows are the *judged* retrieved documents only: an unjudged document is relevant for no
    ``rel`` and has no gain, so no measure needs its row; its rank still counts, and
    ``n_retrieved`` holds every retrieved document. Each row also has its document's judgment
    columns beside the label (``judged``: those of :attr:`Judgments.columns`, e.g. its equivalence class): a
    transform that drops or reorders rows takes the same rows of them (:meth:`judged_of`).
    """

    judgments: Judgments
    query: np.ndarray    # query index of each row; rows grouped by query, then ordered by rank
    rank: np.ndarray     # 1-based rank within the query (among all retrieved documents)
    label: np.ndarray    # qrels label
    tie_start: np.ndarray  # 1-based rank of the first document of the row's tie group (its query's docs
    tie_size: np.ndarray   # with its score), and the group's size (unjudged documents included)
    starts: np.ndarray   # offset of each query's first row
    n_retrieved: np.ndarray  # documents retrieved per query (judged or not)
    run_queries: int     # queries in the run (run-only queries too)
    judged: dict[str, np.ndarray] = field(default_factory=dict)  # each row's judgment columns beside the label
    _first_relevant: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False, compare=False)
    _tops: dict[int, RankedRun] = field(default_factory=dict, init=False, repr=False, compare=False)
    _cache: dict[Hashable, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return self.judgments.n_queries

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per ``key`` for this run (e.g. what several measures of a family share)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def judged_of(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The judgment columns of ``rows`` (a mask or indices)."""
        return {name: column[rows] for name, column in self.judged.items()}

    @property
    def equivalence_class(self) -> np.ndarray | None:
        """Each row's equivalence class, for judgments with classes (else None)."""
        return self.judged.get(CLASS_COLUMN)

    def relevant(self, rel: int) -> np.ndarray:
        """Boolean per row: the document is judged with label >= rel."""
        return self.label >= rel

    def top(self, cutoff: int | None) -> RankedRun:
        """The rows ranked ``cutoff`` or better (every row if ``cutoff`` is None), computed once per cutoff (e.g.
        for P@10 and nDCG@10)."""
        if cutoff is None or cutoff >= self.deepest_rank:
            return self
        if cutoff not in self._tops:
            self._tops[cutoff] = self.rows(self.rank <= cutoff)
        return self._tops[cutoff]

    @cached_property
    def deepest_rank(self) -> int:
        """The largest rank of a judged row (0 if none)."""
        return int(self.rank.max()) if len(self.rank) else 0

    def rows(self, keep: np.ndarray) -> RankedRun:
        """The run of the rows where ``keep`` (a mask) holds, each with its rank, tie group and class as they are."""
        query = self.query[keep]
        return replace(self, query=query, rank=self.rank[keep], label=self.label[keep],
                       tie_start=self.tie_start[keep], tie_size=self.tie_size[keep],
                       starts=np.searchsorted(query, np.arange(self.n_queries)),
                       judged=self.judged_of(keep))

    def without_rows(self, n_retrieved: np.ndarray, run_queries: int) -> RankedRun:
        """The run of the same judgments with no judged row, retrieving ``n_retrieved`` docs per query."""
        empty = np.empty(0, dtype=np.int64)
        return replace(self, query=empty, rank=empty, label=empty, tie_start=empty, tie_size=empty,
                       starts=np.zeros(self.n_queries, dtype=np.int64), n_retrieved=n_retrieved,
                       run_queries=run_queries, judged=self.judged_of(empty))

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
            leads = run_starts(query)  # rows are sorted by (query, rank)
            first[query[leads]] = rank[leads]
            first.flags.writeable = False
            self._first_relevant[rel] = first
        return self._first_relevant[rel]


def rank_run(run: pa.Table, judgments: Judgments, precision: str = 'float32',
             query_starts: np.ndarray | None = None) -> RankedRun:
    """Validates ``run`` and ranks it against ``judgments`` (see module docstring), comparing scores
    as ``precision`` (``'float32'`` or ``'float64'``). ``query_starts``, where the run's form guarantees it
    (:attr:`~irmeasures_ext.readers.inputs.Input.query_starts`: rows grouped by query, each query once, no doc
    twice in a query), spares finding the queries and checking for repeated docs."""
    keep_freed_memory()
    if not run.num_rows:
        empty, zeros = np.empty(0, dtype=np.int64), np.zeros(judgments.n_queries, dtype=np.int64)
        return RankedRun(judgments, empty, empty, empty, empty, empty, zeros, zeros, 0,
                         {name: column[empty] for name, column in judgments.columns.items()})
    # The query boundaries, by halves, and the score check on two threads, before the first block (a small
    # run on the calling thread alone: starting a thread costs more than it saves there).
    with ThreadPoolExecutor(1) if run.num_rows >= _THREADED_ROWS else _InlineExecutor() as helper:
        starts = _query_starts(run['query_id'], helper) if query_starts is None else query_starts
        checked = helper.submit(_check_scores, run)
        order, sizes, group_query = _query_groups(run['query_id'], starts, judgments, known=query_starts is not None)
        checked.result()
    grouped = run if order is None else ac.take(run, from_numpy(order))
    ends = np.cumsum(sizes)
    cuts = np.searchsorted(ends, np.arange(0, run.num_rows, _BLOCK), 'right')
    cuts = cuts[run_starts(cuts)]  # (np.unique would import numpy.ma)
    bounds = list(zip(cuts.tolist(), [*cuts[1:].tolist(), len(sizes)], strict=True))

    def block(groups: tuple[int, int]) -> _RankedBlock:
        first, last = groups
        start = int(ends[first - 1]) if first else 0
        return _rank_block(grouped.slice(start, int(ends[last - 1]) - start), sizes[first:last],
                           group_query[first:last], judgments, precision, query_starts is None)

    blocks = _on_threads_with_caller(block, bounds, min(len(bounds), _CPUS, _MAX_THREADS))
    if any(b.has_duplicate for b in blocks):
        _find_duplicate_doc(run)
    return _ranked_run(judgments, blocks, sizes, group_query)


def rank_input(run: Input, judgments: Judgments, precision: str = 'float32') -> RankedRun:
    """:func:`rank_run` of a run read (its :attr:`~.Input.dict_run` ranked from its dicts, where it can be); a table
    checked whole (not a form's :attr:`~.Input.query_starts` taken at its word, nor dicts whose table is built
    later) is then :attr:`~.Input.checked`."""
    ranked = None if run.dict_run is None else rank_dict_run(run.dict_run, judgments, precision)
    if ranked is None:
        ranked = rank_run(run.table, judgments, precision, run.query_starts)
        run.checked = run.query_starts is None
    return ranked


def rank_dict_run(run: DictRun, judgments: Judgments, precision: str = 'float32') -> RankedRun | None:
    """:func:`rank_run` of ``run``'s table, from its dicts (:class:`~.DictRun`): the judged docs of each of its
    queries are looked up in the query's dict, and no doc id of the run is hashed, copied or compared but those tied
    on score with a judged doc. None where the table must be ranked instead: where the qrels judge more than half
    as many docs of its queries as the run holds; where the table reads a doc id or score otherwise than as it is,
    or reports it (:attr:`~.DictRun.columns`), or a score is not finite (the error names its doc); and for so many
    ties that their docs are best sorted (:data:`TIE_PAIRS_PER_ROW`)."""
    queries = judgments.run_queries(run.query_ids)
    if 2 * len(queries.entry) > run.sizes.sum():  # (a lookup costs about two docs of the table's reading)
        return None
    columns = run.columns
    if columns is None or not np.isfinite(columns[1]).all():
        return None
    doc_ids, run_scores = columns
    scores = np.fromiter(itertools.chain.from_iterable(map(  # the score of each of those docs, NaN if not retrieved
        map, [run.queries[query].get for query in queries.judged.tolist()], queries.doc_ids,
        itertools.repeat(_NAN_FOREVER))), np.float64, len(queries.entry))
    found = np.flatnonzero(~np.isnan(scores))  # (the run holds no NaN score)
    n = len(doc_ids)
    # The keys of every doc, then of the judged ones (float64: dense ranks among the run's scores, theirs included).
    score_keys = _descending_score_keys(np.concatenate([run_scores, scores[found]]), precision)
    keys = _group_score_keys(np.repeat(np.arange(len(run.sizes)), run.sizes), score_keys[:n])
    judged_group = queries.owner[found]

    def greater(rows: np.ndarray, tied: np.ndarray) -> np.ndarray:  # (as text, byte-wise in UTF-8: as trec_eval)
        return np.fromiter(map(str.__gt__, map(doc_ids.__getitem__, rows.tolist()),
                               map(queries.entry_doc_ids.__getitem__, found[tied].tolist())), bool, len(rows))

    rank, tie_start, tie_size = _ranks(keys, run.sizes, _group_score_keys(judged_group, score_keys[n:]),
                                       (np.cumsum(run.sizes) - run.sizes)[judged_group], greater)
    if rank is None:
        return None
    return _ranked_run(judgments, [_RankedBlock.of(judgments, queries.entry[found], rank, tie_start, tie_size)],
                       run.sizes, queries.query)


def order_by_score(group: np.ndarray, score: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of groups of ``sizes`` contiguous rows (numbered ``group``, ascending) in the order :func:`rank_run`
    ranks them by score within each group (descending, compared as float32; finite scores), rows tied on score in no
    particular order; and the size of each run of tied rows in that order (1 for a row tied with none)."""
    keys = _group_score_keys(group, _descending_score_keys(score, 'float32'))
    ordered, order = _ordered(keys, sizes)
    return (np.arange(len(keys)) if order is None else order), np.diff(np.flatnonzero(run_starts(ordered)),
                                                                       append=len(keys))


def _ranked_run(judgments: Judgments, blocks: list[_RankedBlock], sizes: np.ndarray,
                group_query: np.ndarray) -> RankedRun:
    """The run of the judged rows of ``blocks`` (each of whole queries), whose groups of rows (a query's) hold
    ``sizes`` rows each and are of the qrels queries ``group_query`` (-1: a query the qrels do not have)."""
    query, rank, entry, tie_start, tie_size = (
        getattr(blocks[0], name) if len(blocks) == 1 else
        np.concatenate([np.empty(0, dtype=np.int64)] + [getattr(b, name) for b in blocks])
        for name in ('query', 'rank', 'entry', 'tie_start', 'tie_size'))
    if len(blocks) > 1:  # by query, then rank: each block's rows are (_RankedBlock.of), and each query in one block
        order = np.argsort(query, kind='stable')
        query, rank, entry, tie_start, tie_size = (a[order] for a in (query, rank, entry, tie_start, tie_size))
    known = group_query >= 0
    n_retrieved = np.bincount(group_query[known], weights=sizes[known], minlength=judgments.n_queries)
    return RankedRun(judgments, query, rank, judgments.label[entry], tie_start, tie_size,
                     np.searchsorted(query, np.arange(judgments.n_queries)), n_retrieved.astype(np.int64), len(sizes),
                     {name: column[entry] for name, column in judgments.columns.items()})


def _on_threads_with_caller(function: Callable[[T], R], items: list[T], threads: int) -> list[R]:
    """``function`` of every item, in no particular order, on ``threads`` threads of which the calling
    thread is one: each takes the next item until none is left.

    The calling thread's malloc arena holds the qrels conversion's freed temporaries, which its blocks
    reuse; a pool thread starts a fresh arena (fewer page faults and a lower peak RSS than two pool
    threads).
    """
    if threads == 1:
        return [function(item) for item in items]
    remaining = iter(items)  # (shared: taking an item holds the GIL)

    def drain() -> list[R]:
        return [function(item) for item in remaining]

    with ThreadPoolExecutor() as pool:  # (it starts a thread per task submitted while none is idle)
        helpers = [pool.submit(drain) for _ in range(threads - 1)]
        return drain() + [result for helper in helpers for result in helper.result()]


class _InlineExecutor(Executor):
    """An executor that runs each task at once on the calling thread."""

    def submit(self, fn: Callable[..., R], /, *args: object, **kwargs: object) -> Future[R]:
        done: Future[R] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as error:  # (raised by result(), as a thread's would be)
            done.set_exception(error)
        return done


@dataclass(frozen=True)
class _RankedBlock:
    """The judged rows of a block of queries, by query, then rank."""

    has_duplicate: bool  # some doc hash repeats within a query (checked on the strings afterwards)
    query: np.ndarray    # judged rows: qrels query index,
    rank: np.ndarray     # rank,
    entry: np.ndarray    # qrels entry,
    tie_start: np.ndarray  # and tie group (see RankedRun)
    tie_size: np.ndarray

    @classmethod
    def of(cls, judgments: Judgments, entry: np.ndarray, rank: np.ndarray, tie_start: np.ndarray,
           tie_size: np.ndarray, has_duplicate: bool = False) -> _RankedBlock:
        """The judged rows of qrels entries ``entry``, with their ranks and tie groups, ordered by query, then rank."""
        query = judgments.query[entry]
        order = np.argsort((query << 32) | rank, kind='stable')  # (ranks < 2**32: see _group_score_keys)
        return cls(has_duplicate, query[order], rank[order], entry[order], tie_start[order], tie_size[order])


def _rank_block(run: pa.Table, sizes: np.ndarray, group_query: np.ndarray, judgments: Judgments,
                precision: str, may_repeat_docs: bool = True) -> _RankedBlock:
    """Ranks the judged rows of a block of whole queries (``sizes`` rows each, in order), checking that no doc
    repeats in a query where one ``may_repeat_docs``."""
    row_group = np.repeat(np.arange(len(sizes)), sizes)
    docs = DocIds.of(run['doc_id'])
    has_duplicate = may_repeat_docs and _has_repeated_doc(row_group, docs.hash)
    rows = judgments.maybe_judged(docs)
    query = group_query[row_group[rows]]
    known = query >= 0
    rows, entry = judgments.find(rows[known], query[known], docs)
    keys = _group_score_keys(row_group, _descending_score_keys(to_numpy(run['score']), precision))
    first = (np.cumsum(sizes) - sizes)[row_group[rows]]
    rank, tie_start, tie_size = _ranks(keys, sizes, keys[rows], first,
                                       lambda others, tied: docs.greater(others, rows[tied]))
    if rank is None:
        rank = _ranks_by_sort(keys, docs.ids, rows, first)
    return _RankedBlock.of(judgments, entry, rank, tie_start, tie_size, has_duplicate)


def _has_repeated_doc(row_group: np.ndarray, doc_hash: np.ndarray) -> bool:
    """Whether two rows of a query group have the same doc hash (the strings are compared afterwards): whether
    their (group, hash) keys repeat (:func:`.doc_ids.has_repeats`)."""
    # Two passes, not doc_ids.pair_keys (eight): has_repeats' slot multipliers do the mixing.
    keys = row_group.view(np.uint64) * _GROUP_MIX
    keys += doc_hash
    return has_repeats(keys)


def _query_starts(query_ids: pa.ChunkedArray, helper: Executor) -> np.ndarray:
    """The first row of each run of equal query ids (a non-empty column), the second half of the rows
    compared on ``helper``'s thread."""
    half = len(query_ids) // 2
    second_half = helper.submit(run_changes, query_ids[half:])
    return np.concatenate(([0], run_changes(query_ids[:half + 1]), half + second_half.result()))


def _query_groups(query_ids: pa.ChunkedArray, starts: np.ndarray, judgments: Judgments,
                  known: bool = False) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Groups the rows by query, given the ``starts`` of runs of equal query ids (:func:`_query_starts`, or
    ``known`` to be the starts of distinct queries): (row order making each query's rows contiguous, None if
    they already are, as in run files; rows per group in that order; qrels query index per group or -1)."""
    heads = ac.take(query_ids, from_numpy(starts))
    group_query = judgments.query_index(heads)
    if known or _distinct(heads, group_query):
        return None, np.diff(starts, append=len(query_ids)), group_query
    heads = ac.unique(query_ids)
    group = to_numpy(ac.index_in(query_ids, heads))
    return (np.argsort(group, kind='stable'), np.bincount(group, minlength=len(heads)),
            judgments.query_index(heads))


def _distinct(heads: pa.ChunkedArray, group_query: np.ndarray) -> bool:
    """Whether the query ids ``heads`` (of qrels query indices ``group_query``, -1 for none) are distinct: no qrels
    query twice, and the others compared as strings (Arrow's count of distinct strings took as long as the rest of
    the ranking for a million queries of one doc: benchmarks/queries.py)."""
    judged = group_query[group_query >= 0]
    if len(judged) and np.bincount(judged).max() > 1:
        return False
    others = np.flatnonzero(group_query < 0)
    return len(others) < 2 or ac.count_distinct(ac.take(heads, from_numpy(others))) == len(others)


def _descending_score_keys(score: np.ndarray, precision: str) -> np.ndarray:
    """uint32 keys whose ascending order is the descending order of the float64 scores, compared as float32
    (trec_eval 9 and pytrec_eval: 1.00000001 ties with 1.0) or as float64 (trec_eval 10).

    For float64, the 64-bit keys are replaced by their dense ranks among ``score``'s (one sort), so that
    the rest of the ranking keeps working on 32-bit keys."""
    if precision == 'float64':
        keys = _descending_keys(score + 0.0, np.uint64)
        distinct = np.sort(keys)
        distinct = distinct[run_starts(distinct)]
        return np.searchsorted(distinct, keys).astype(np.uint32)
    with np.errstate(over='ignore'):  # (beyond float32's range: infinite, as trec_eval's cast)
        return _descending_keys(score.astype(np.float32) + np.float32(0), np.uint32)


def _descending_keys(values: np.ndarray, dtype: type[np.unsignedinteger]) -> np.ndarray:
    """Unsigned keys (of ``dtype``, as wide as ``values``) whose ascending order is the descending order
    of the float ``values`` (``+ 0`` beforehand turns -0 into +0)."""
    bits = values.view(dtype)
    # Non-negative floats order like their bits and negative ones in reverse: flip the bits
    # that make the order descending for both.
    width = dtype(np.dtype(dtype).itemsize * 8 - 1)
    flip = bits >> width
    flip -= dtype(1)
    flip >>= dtype(1)
    bits ^= flip
    return bits


def _ranks(keys: np.ndarray, sizes: np.ndarray, judged: np.ndarray, first: np.ndarray,
           greater: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> tuple[np.ndarray | None, np.ndarray,
                                                                           np.ndarray]:
    """The rank of each judged row in its query group, and the 1-based position of the first row and the size
    of its tie group (the rows of its query with its score), from ``keys`` (:func:`_group_score_keys`) of every
    row of a block (groups of ``sizes`` rows) and ``judged``, those of the judged rows, whose groups start at row
    ``first``. Rows tied on score are ordered by doc_id descending: ``greater(rows, tied)`` says whether the doc of
    each of ``rows`` is greater than that of the judged row ``tied`` beside it (an index into ``judged``). The rank
    is None where that would take more than ``TIE_PAIRS_PER_ROW`` comparisons per row (the caller sorts on
    doc_ids)."""
    ordered, order = _ordered(keys, sizes)
    starts = np.flatnonzero(run_starts(ordered))  # each tie group's first position: looked up among the distinct
    tie_group = np.searchsorted(ordered[starts], judged)  # keys (1,000 for a query of 1M docs and rounded scores)
    lo, hi = starts[tie_group], np.append(starts[1:], len(keys))[tie_group]
    tie_start, tie_size = lo - first + 1, hi - lo
    tied = np.flatnonzero(tie_size > 1)
    if tie_size[tied].sum() > TIE_PAIRS_PER_ROW * len(keys):
        return None, tie_start, tie_size
    rank = tie_start.copy()
    owner, others = expand(tie_size[tied], lo[tied])  # each tied row against its whole tie group, itself included
    if order is not None:
        others = order[others]
    rank[tied] += np.bincount(owner[greater(others, tied[owner])], minlength=len(tied))
    return rank, tie_start, tie_size


def _ordered(keys: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``keys`` (:func:`_group_score_keys`) of groups of ``sizes`` rows, in ascending order, and the rows in that
    order (None: in order already, as run files list each query's docs by score). Where the row number fits in the
    bits below a key, one sort of the keys with their rows there, as int64 (an argsort took twice as long on
    10,000 rows, and a sort of uint64 half as long again), group by group where the groups are of one size
    (runs cut at a depth: 0.55 times as long for 100 groups of 100 rows)."""
    if np.all(keys[1:] >= keys[:-1]):
        return keys, None
    row_bits = np.uint64((len(keys) - 1).bit_length())
    if (int(keys[-1]) >> 32).bit_length() + 32 + int(row_bits) <= 63:  # (the last row's group is the largest)
        packed = keys << row_bits
        packed |= np.arange(len(keys), dtype=np.uint64)
        signed = packed.view(np.int64)  # (below 2**63: ordered alike)
        if np.all(sizes == sizes[0]):
            signed.reshape(len(sizes), -1).sort(axis=1)  # (the groups ascend: sorted within each, all are)
        else:
            signed.sort()
        return packed >> row_bits, (packed & ((np.uint64(1) << row_bits) - np.uint64(1))).view(np.int64)
    order = np.argsort(keys, kind='stable')  # (timsort: the keys ascend by group, a run each)
    return keys[order], order


def _group_score_keys(row_group: np.ndarray, score_key: np.ndarray) -> np.ndarray:
    """(group << 32 | score key) per row: ascending order ranks every group (its rows in a row, the groups
    numbered in order)."""
    keys = row_group.view(np.uint64) << np.uint64(32)
    keys |= score_key
    return keys


def _ranks_by_sort(key: np.ndarray, doc_ids: pa.ChunkedArray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """:func:`_ranks` by sorting the block on (key, doc_id descending), for blocks with many ties."""
    order = to_numpy(ac.sort_indices(pa.table({'key': from_numpy(key), 'doc_id': doc_ids}),
                                      [('key', 'ascending'), ('doc_id', 'descending')]))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[rows] - first + 1


def check_run(run: pa.Table, duplicates: bool = True) -> None:
    """What :func:`rank_run` checks of a run, without ranking it (a run read for another provider): its first
    score that is not finite, then (``duplicates``) a doc twice in a query."""
    _check_scores(run)
    if duplicates:
        _find_duplicate_doc(run)


def _check_scores(run: pa.Table) -> None:
    """NonFiniteScoreError for the first score that is not finite, chunk by chunk (a view of each, not a
    copy of the whole column)."""
    start = 0
    for chunk in run['score'].chunks:
        finite = np.isfinite(to_numpy(chunk))
        if not finite.all():
            bad = start + int(np.argmin(finite))
            query_id, doc_id, score = (run[name][bad].as_py() for name in ('query_id', 'doc_id', 'score'))
            raise NonFiniteScoreError(f'score {score} for doc {doc_id!r} in query {query_id!r} is not a finite '
                                      'number', 'run', query_id, doc_id)
        start += len(chunk)


def _find_duplicate_doc(run: pa.Table) -> None:
    pairs = run.group_by(['query_id', 'doc_id']).aggregate([([], 'count_all')])
    if pairs.num_rows != run.num_rows:
        repeated = pairs.filter(ac.greater(pairs['count_all'], 1)).slice(0, 1).to_pylist()[0]
        raise DuplicateDocError(f'duplicate doc {repeated["doc_id"]!r} in query {repeated["query_id"]!r} '
                                f'({repeated["count_all"]} times); each doc may appear once per query',
                                'run', repeated['query_id'], repeated['doc_id'])
