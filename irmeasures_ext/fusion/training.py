"""Training the supervised methods' parameters (:mod:`.trained`) on training runs and their qrels, as ranx 0.3.21
trains them, after normalising the training runs as the fusion will (the order of their lists is what counts).

A doc is relevant when its label is ≥ 1. The training queries are the qrels' queries: a run's queries outside them
are left out, and a training query a run does not answer counts for it as one where it retrieved nothing (ranx pairs
the qrels' and a run's queries by position, so it needs the same query sets).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow.compute as pc

from irmeasures_ext._arrow.arrays import to_numpy
from irmeasures_ext.fusion.normalize import normalize
from irmeasures_ext.fusion.pool import FusionError, Pool
from irmeasures_ext.fusion.trained import SUPERVISED
from irmeasures_ext.readers.inputs import read_input

#: SegFuse's segments: the first rank − 1 of each of its 10 (sizes 5, 10, 20, ..., 2,560), and the end.
SEGFUSE_STARTS = 5 * (2 ** np.arange(11) - 1)
#: BayesFuse's cut-offs (ranks − 1): its segments are [a, b) between consecutive ones.
BAYESFUSE_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])


class Training:
    """Training runs (normalised) with each row's relevance, and the number of training queries."""

    def __init__(self, qrels: Any, runs: list[Any], norm: str | None) -> None:
        labels = read_input(qrels, 'qrels').table
        read = Pool.read(runs)
        rows = read.rows
        keep = to_numpy(pc.is_in(rows.query_ids, pc.unique(labels['query_id'])))[rows.query]
        self.pool = normalize(Pool.ranked(rows.run[keep], rows.query[keep], rows.doc[keep], read.score[keep],
                                          rows.n_runs, rows.query_ids, rows.doc_ids), norm)
        self.n_queries = pc.count_distinct(labels['query_id']).as_py()
        judged = labels.filter(pc.greater_equal(labels['relevance'], 1))
        query = to_numpy(pc.index_in(judged['query_id'], rows.query_ids).fill_null(-1))
        doc = to_numpy(pc.index_in(judged['doc_id'], rows.doc_ids).fill_null(-1))
        found = (query >= 0) & (doc >= 0)
        rows = self.pool.rows
        self.relevant = np.isin(rows.query * len(rows.doc_ids) + rows.doc,
                                query[found] * len(rows.doc_ids) + doc[found])
        #: Each query's number of relevant docs.
        self.n_relevant = np.bincount(query[query >= 0], minlength=len(rows.query_ids))

    def shares(self, segment: np.ndarray, n_segments: int, sizes: np.ndarray | None = None) -> np.ndarray:
        """Per run and segment (``segment``: each row's; rows past ``n_segments`` left out), the sum over the
        training queries of the relevant docs in the segment over its size (``sizes``, one a segment; None: the
        list's docs in it), divided by the number of training queries."""
        rows = self.pool.rows
        kept = segment < n_segments
        cell = (rows.list_of_row * n_segments + segment)[kept]
        n_cells = len(rows.list_starts) * n_segments
        hits = np.bincount(cell, weights=self.relevant[kept], minlength=n_cells)
        size = np.bincount(cell, minlength=n_cells) if sizes is None else np.tile(sizes, len(rows.list_starts))
        share = np.divide(hits, size, out=np.zeros(n_cells), where=size > 0)
        run_cell = np.repeat(rows.run[rows.list_starts] * n_segments, n_segments) + np.tile(np.arange(n_segments),
                                                                                           len(rows.list_starts))
        per_run = np.bincount(run_cell, weights=share, minlength=rows.n_runs * n_segments)
        return per_run.reshape(rows.n_runs, n_segments) / self.n_queries


def posfuse_params(training: Training) -> dict[str, Any]:
    """pᵢ[k]: of the training queries where run i has a doc at rank k + 1, the share where it is relevant."""
    rows = training.pool.rows
    width = int(rows.list_sizes.max(initial=0))
    at = rows.run * width + rows.rank - 1
    hits = np.bincount(at, weights=training.relevant, minlength=rows.n_runs * width).reshape(rows.n_runs, width)
    docs = np.bincount(at, minlength=rows.n_runs * width).reshape(rows.n_runs, width)
    lengths = [int(rows.list_sizes[rows.run[rows.list_starts] == i].max(initial=0)) for i in range(rows.n_runs)]
    return {'probs': [(hits[i, :n] / docs[i, :n]).tolist() for i, n in enumerate(lengths)]}


def probfuse_params(training: Training, n_segments: int) -> dict[str, Any]:
    """pᵢ[k]: the mean over training queries of run i's share of relevant docs in its list's k-th of
    ``n_segments`` segments (⌈length/n_segments⌉ docs each)."""
    rows = training.pool.rows
    segment = (rows.rank - 1) // -(-rows.per_row(rows.list_sizes) // n_segments)
    return {'probs': training.shares(segment, n_segments).tolist()}


def segfuse_params(training: Training) -> dict[str, Any]:
    """pᵢ[k]: the mean over training queries of the relevant docs in SegFuse's k-th segment over its size."""
    segment = np.searchsorted(SEGFUSE_STARTS, training.pool.rows.rank - 1, side='right') - 1
    shares = training.shares(segment, len(SEGFUSE_STARTS) - 1, np.diff(SEGFUSE_STARTS))
    return {'probs': shares.tolist()}


def bayesfuse_params(training: Training) -> dict[str, Any]:
    """Lᵢ[r − 1] = ln(p/(1 − p)), p the mean over training queries of run i's precision in the cut-off segment of
    rank r (p = 0 read as 0.001, 1 − p = 0 as 0.001), one value a rank up to 1,000."""
    widths = np.diff(BAYESFUSE_CUTOFFS)
    segment = np.searchsorted(BAYESFUSE_CUTOFFS, training.pool.rows.rank - 1, side='right') - 1
    p = training.shares(segment, len(widths), widths)
    p = np.where(p == 0, 0.001, p)
    # (the C library's log, as ranx's floor UNRANKED_LOG_ODDS: numpy 1.26's own is one ulp off on some CPUs)
    log_odds = np.vectorize(math.log, otypes=[np.float64])(p / np.where(1 - p == 0, 0.001, 1 - p))
    return {'log_odds': [np.repeat(row, widths).tolist() for row in log_odds]}


def mapfuse_params(training: Training) -> dict[str, Any]:
    """MAPᵢ: run i's mean average precision over the training queries (0 for a query without a relevant doc)."""
    rows = training.pool.rows
    relevant = training.relevant.astype(np.float64)
    found = np.cumsum(relevant) - rows.per_row(np.cumsum(rows.list_totals(relevant)) - rows.list_totals(relevant))
    n_relevant = training.n_relevant[rows.query]
    precision = np.divide(relevant * found / rows.rank, n_relevant, out=np.zeros(len(relevant)),
                          where=n_relevant > 0)
    total = np.bincount(rows.run, weights=precision, minlength=rows.n_runs)
    return {'map_scores': (total / training.n_queries).tolist()}


def train(qrels: Any, runs: list[Any] | Mapping[str, Any], method: str, norm: str | None = 'min-max',
          params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The trained parameters of supervised ``method`` (posfuse, probfuse, segfuse, slidefuse, mapfuse, bayesfuse)
    on training ``runs`` (one a run to fuse, in its order) normalised by ``norm`` and their ``qrels``; ``params``:
    probfuse's ``n_segments``, slidefuse's ``w`` (passed through). Give the result to
    :func:`~irmeasures_ext.fusion.fuse`."""
    params = dict(params or {})
    expected = {'probfuse': {'n_segments'}, 'slidefuse': {'w'}}.get(method, set())
    if method not in SUPERVISED:
        raise FusionError(f'{method!r} is not a supervised fusion method')
    if set(params) != expected:
        raise FusionError(f'training {method} takes the parameters {sorted(expected) or "none"}, got {sorted(params)}')
    if method == 'probfuse' and not (isinstance(params['n_segments'], int) and params['n_segments'] >= 1):
        raise FusionError(f'probfuse: n_segments must be a whole number ≥ 1, got {params["n_segments"]!r}')
    training = Training(qrels, list(runs.values()) if isinstance(runs, Mapping) else list(runs), norm)
    if method in {'posfuse', 'slidefuse'}:
        return posfuse_params(training) | params
    if method == 'probfuse':
        return probfuse_params(training, params['n_segments'])
    return {'segfuse': segfuse_params, 'mapfuse': mapfuse_params, 'bayesfuse': bayesfuse_params}[method](training)
