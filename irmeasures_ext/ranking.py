"""Columnar, vectorised representation of qrels and ranked runs shared by every kernel.

Qrels are converted once into :class:`Judgments`. Each run is turned into a
:class:`RankedRun`: one row per retrieved document of a qrels query, sorted by query,
then by trec_eval's tie rule (score descending, then doc_id descending byte-wise), with
its 1-based rank and its qrels label. Like trec_eval, which stores scores as 32-bit floats,
scores are compared after rounding to float32, so the ranking is the one trec_eval and
pytrec_eval evaluate. Kernels compute a measure for all queries at once
with segment sums over these arrays.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.errors import InputError

#: Label given to retrieved documents that have no qrels entry (below every ``rel`` threshold).
UNJUDGED = np.iinfo(np.int64).min

GainFunction = Callable[[np.ndarray], np.ndarray]


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
        qrels = _deduplicate_qrels(qrels)
        self.query_ids: pa.Array = pc.unique(qrels['query_id']).sort()
        self.n_queries = len(self.query_ids)
        self.table = qrels.append_column(
            'query', pc.index_in(qrels['query_id'], value_set=self.query_ids).cast(pa.int64()))
        self.query = self.table['query'].to_numpy()
        self.label = self.table['relevance'].to_numpy()

    def n_relevant(self, rel: int) -> np.ndarray:
        """R per query: judged docs with label >= rel."""
        return segment_count(self.label >= rel, self.query, self.n_queries)

    def ideal(self, gain_of: GainFunction, keep: np.ndarray) -> IdealList:
        """The ideal list of the judged docs selected by ``keep``, gains from ``gain_of(label)``."""
        query, gain = self.query[keep], gain_of(self.label[keep])
        order = np.lexsort((-gain, query))
        query, gain = query[order], gain[order]
        starts = np.searchsorted(query, np.arange(self.n_queries))
        counts = np.bincount(query, minlength=self.n_queries)
        rank = np.arange(len(query)) - starts[query] + 1
        return IdealList(query, rank, gain, segment_cumsum(gain, query, starts), starts, counts)


@dataclass(frozen=True)
class RankedRun:
    """A run ranked with trec_eval's tie rule, restricted to the queries of the judgments."""

    judgments: Judgments
    query: np.ndarray    # query index of each row; rows grouped by query
    rank: np.ndarray     # 1-based rank within the query
    label: np.ndarray    # qrels label, or UNJUDGED
    starts: np.ndarray   # offset of each query's first row
    n_retrieved: np.ndarray  # rows per query

    @property
    def n_queries(self) -> int:
        return self.judgments.n_queries

    def relevant(self, rel: int) -> np.ndarray:
        """Boolean per row: the document is judged with label >= rel."""
        return self.label >= rel

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

    def first_rank(self, mask: np.ndarray) -> np.ndarray:
        """Rank of the first row where ``mask`` holds, per query; 0 if none."""
        first = np.zeros(self.n_queries, dtype=np.int64)
        query, rank = self.query[mask], self.rank[mask]
        leads = np.concatenate(([True], query[1:] != query[:-1]))[:len(query)]  # rows are sorted by (query, rank)
        first[query[leads]] = rank[leads]
        return first


def rank_run(run: pa.Table, judgments: Judgments) -> RankedRun:
    """Validates ``run`` and ranks it against ``judgments`` (see module docstring)."""
    _check_scores(run)
    _check_unique_docs(run)
    query = pc.index_in(run['query_id'], value_set=judgments.query_ids)
    run = pa.table({'query': query.cast(pa.int64()), 'doc_id': run['doc_id'],
                    'score': _as_trec_eval_score(run['score'])}).filter(pc.is_valid(query))
    order = pc.sort_indices(run, sort_keys=[('query', 'ascending'), ('score', 'descending'),
                                            ('doc_id', 'descending')])
    run = run.take(order)
    query = run['query'].to_numpy()
    starts = np.searchsorted(query, np.arange(judgments.n_queries))
    rank = np.arange(len(query), dtype=np.int64) - starts[query] + 1
    return RankedRun(judgments, query, rank, _labels(run, judgments), starts,
                     np.bincount(query, minlength=judgments.n_queries))


def _as_trec_eval_score(score: pa.ChunkedArray) -> pa.Array:
    """Scores as trec_eval compares them: rounded to 32-bit floats (so 1.00000001 ties with 1.0)."""
    with np.errstate(over='ignore'):
        return pa.array(score.to_numpy().astype(np.float32))


def _labels(run: pa.Table, judgments: Judgments) -> np.ndarray:
    """The qrels label of each run row (UNJUDGED where the doc is not judged)."""
    rows = pa.table({'query': run['query'], 'doc_id': run['doc_id'],
                     'row': pa.array(np.arange(run.num_rows, dtype=np.int64))})
    joined = rows.join(judgments.table.select(['query', 'doc_id', 'relevance']), keys=['query', 'doc_id'],
                       join_type='inner')
    label = np.full(run.num_rows, UNJUDGED, dtype=np.int64)
    label[joined['row'].to_numpy()] = joined['relevance'].to_numpy()
    return label


def _check_scores(run: pa.Table) -> None:
    finite = pc.is_finite(run['score'])
    if run.num_rows and not pc.all(finite).as_py():
        bad = pc.index(finite, False).as_py()
        raise InputError(f'run: score {run["score"][bad].as_py()} for doc {run["doc_id"][bad].as_py()!r} in '
                         f'query {run["query_id"][bad].as_py()!r} is not a finite number')


def _check_unique_docs(run: pa.Table) -> None:
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
