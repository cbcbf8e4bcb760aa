"""Kernels of trec_eval 10.0's ``rbp``, ``rbp_resid`` and ``unj`` (declared in ``irmeasures_ext.measures.trec10``),
exact to its m_rbp.c, m_rbp_resid.c and m_unjudged.c on trec_eval's ranking (10.0 compares scores as doubles:
``score_precision='float64'`` ranks as it does).

trec_eval gives a retrieved doc its qrels label, -1 when it has none and -2 when its label is below 0 ("in
the pool, not judged"): both count as unjudged for ``rbp_resid`` and ``unj`` and gain nothing in ``rbp``.
"""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import gains_key, kernel, mapped_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.ties import expected_position_weight, positions
from irmeasures_ext.measures.base import optional_param


def level_gain(measure: irm.Measure, labels: np.ndarray) -> np.ndarray:
    """trec_eval's gain of each label before the per-query scaling: ``gains[label]`` (default the label) for a
    label >= 0, else 0. Also the credit by which optimistic/pessimistic order tied docs (rbp is a sum of
    gain times a weight that falls with the rank)."""
    judged = labels >= 0
    return mapped_gain(labels, judged, optional_param(measure, 'gains'), np.where(judged, labels, 0))


def gain_scale(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """Per query, what trec_eval 10.0 divides the gains by: the largest gain g_hi of the levels 0 .. the query's
    largest label >= 0 (each its ``gains`` entry, else itself; real-valued labels are levels of their own) and of
    every level ``gains`` names, where g_hi > 1; else 1 (computed once per measure's gains and qrels)."""
    gains = optional_param(measure, 'gains') or {}

    def compute() -> np.ndarray:
        judged = judgments.label >= 0
        query, label = judgments.query[judged], judgments.label[judged].astype(np.float64)
        named = np.array(sorted(gains), dtype=np.float64)
        top, own = np.full(judgments.n_queries, -1.0), np.full(judgments.n_queries, -1.0)
        np.maximum.at(top, query, label)
        unnamed = ~np.isin(label, named)
        np.maximum.at(own, query[unnamed], label[unnamed])  # the largest label gaining itself
        level = np.floor(top)
        for _ in range(len(named)):  # the largest integer level <= top gaining itself (not named in gains)
            level = np.where(np.isin(level, named), level - 1, level)
        highest = np.maximum(np.maximum(level, own), max(gains.values(), default=0.0))
        return np.where(highest > 1, highest, 1.0)
    return judgments.cached(('trec_eval 10 gain scale', gains_key(gains or None)), compute)


def _discounted(ranked: RankedRun, value: np.ndarray, p: float, expected: bool) -> np.ndarray:
    """Σ value(r)·p^{r−1} per query over the rows (``expected``: p^{r−1} averaged over each row's tie group)."""
    if not expected:
        return ranked.per_query_sum(value * p ** (ranked.rank - 1.0))
    position = positions(ranked)
    weight = np.zeros(len(position))
    weight[1:] = p ** (position[1:] - 1)
    return ranked.per_query_sum(value * expected_position_weight(ranked, weight, None))


def _rbp(measure: irm.Measure, ranked: RankedRun, expected: bool = False) -> np.ndarray:
    gain = level_gain(measure, ranked.label) / gain_scale(measure, ranked.judgments)[ranked.query]
    return (1 - measure['p']) * _discounted(ranked, gain, measure['p'], expected)


@kernel('rbp', prepare=gain_scale, expected=lambda measure, ranked: _rbp(measure, ranked, expected=True),
        credit=level_gain)
def rank_biased_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """rbp per query (see :class:`irmeasures_ext.measures.trec10.rbp`)."""
    return _rbp(measure, ranked)


def _rbp_residual(measure: irm.Measure, ranked: RankedRun, expected: bool = False) -> np.ndarray:
    """p^n + (1 − p)·Σ_{r unjudged} p^{r−1} = 1 − (1 − p)·Σ_{r judged} p^{r−1} (the weights of ranks 1 .. n sum to
    (1 − p^n)/(1 − p)), where some doc of the list is unjudged; else 0."""
    judged = ranked.label >= 0
    unjudged = ranked.n_retrieved - ranked.per_query_count(judged)
    p = measure['p']
    return np.where(unjudged > 0, 1 - (1 - p) * _discounted(ranked, judged.astype(np.float64), p, expected), 0.0)


@kernel('rbp_resid', expected=lambda measure, ranked: _rbp_residual(measure, ranked, expected=True))
def rbp_residual(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """rbp_resid per query (see :class:`irmeasures_ext.measures.trec10.rbp_resid`). Judged docs first in each tie
    group (optimistic: lower is better) give its smallest value, last its largest."""
    return _rbp_residual(measure, ranked)


def _unjudged_in_top(measure: irm.Measure, ranked: RankedRun, expected: bool = False) -> np.ndarray:
    cutoff = measure['cutoff']
    judged = ranked.label >= 0
    if expected:
        inside = expected_position_weight(ranked, np.ones(len(positions(ranked))), cutoff)
        judged_in_top = ranked.per_query_sum(inside, judged)
    else:
        judged_in_top = ranked.per_query_count(judged & (ranked.rank <= cutoff))
    return (np.minimum(ranked.n_retrieved, cutoff) - judged_in_top) / cutoff


@kernel('unj', expected=lambda measure, ranked: _unjudged_in_top(measure, ranked, expected=True))
def unjudged_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """unj@k per query (see :class:`irmeasures_ext.measures.trec10.unj`). Judged docs first in each tie group
    (optimistic: lower is better) give its smallest value, last its largest."""
    return _unjudged_in_top(measure, ranked)
