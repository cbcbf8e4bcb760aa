"""Kernels of NTCIREVAL's O-measure, P-measure, P-plus, NCU and EBR (declared in
``irmeasures_ext.measures.ntcir_br``): each reads the blended ratios of Q's kernel at the relevant rows."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import (
    cascade,
    graded_credit,
    graded_gain,
    graded_ideal,
    kernel,
    mapped_gain,
    top_gain,
)
from irmeasures_ext.engine.kernels.q import BlendedRatios, blended_ratio, blended_ratios
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts, safe_divide, segment_sum
from irmeasures_ext.engine.ties import RelevantGroups, first_relevant_offset_distribution
from irmeasures_ext.measures.base import optional_param


def _never(measure: irm.Measure) -> bool:
    """For ``bounded_by_credit``: no measure of the family (a lower doc tied before a better one, or a doc of
    larger stop value after a smaller one, can raise its value)."""
    return False


def _per_query(values: np.ndarray, query: np.ndarray, n_queries: int) -> np.ndarray:
    """``values`` of at most one row per query, by query; 0 for the other queries."""
    result = np.zeros(n_queries)
    result[query] = values
    return result


def _preferred(rows: BlendedRatios) -> np.ndarray:
    """The index of each query's preferred row rp: the first of the highest label among its relevant rows."""
    if not len(rows.query):
        return np.empty(0, dtype=np.int64)
    starts = np.flatnonzero(run_starts(rows.query))
    highest = np.maximum.reduceat(rows.label, starts)
    top = np.flatnonzero(rows.label == np.repeat(highest, np.diff(np.append(starts, len(rows.query)))))
    return top[run_starts(rows.query[top])]


def expected_o_measure(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[O] over the orderings of each tie group (see :class:`irmeasures_ext.measures.ntcir_br.O_measure`)."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    ideal = graded_ideal(measure, ranked.judgments)
    groups = RelevantGroups.of(ranked, ranked.relevant(rel), graded_gain(ranked.label, rel, gains))
    query, first = groups.first_of_each_query()
    owner, offset, probability = first_relevant_offset_distribution(groups.size[first], groups.relevant[first])
    group, query = first[owner], query[owner]
    position = groups.start[group] + offset
    mean_gain = groups.gain[group] / groups.relevant[group]
    blended = blended_ratio(1.0, mean_gain, position, ideal.cumulative_at(query, position), measure['beta'])
    return segment_sum(probability * blended, query, ranked.n_queries)


@kernel('O_measure', prepare=graded_ideal, expected=expected_o_measure, credit=graded_credit)
def o_measure(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """O-measure per query: BR at the first relevant doc."""
    rows = blended_ratios(measure, ranked, measure['beta'])
    first = run_starts(rows.query)
    return _per_query(rows.blended[first], rows.query[first], ranked.n_queries)


@kernel('P_measure', prepare=graded_ideal, credit=graded_credit, bounded_by_credit=_never)
def p_measure(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P-measure per query: BR at the preferred rank."""
    rows = blended_ratios(measure, ranked, measure['beta'])
    preferred = _preferred(rows)
    return _per_query(rows.blended[preferred], rows.query[preferred], ranked.n_queries)


@kernel('P_plus', prepare=graded_ideal, credit=graded_credit, bounded_by_credit=_never)
def p_plus(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P-plus per query: the mean BR over the relevant docs down to the preferred rank."""
    rows = blended_ratios(measure, ranked, measure['beta'])
    preferred = _preferred(rows)
    preferred_rank = _per_query(rows.rank[preferred], rows.query[preferred], ranked.n_queries)
    within = rows.rank <= preferred_rank[rows.query]
    total = segment_sum(rows.blended[within], rows.query[within], ranked.n_queries)
    return safe_divide(total, _per_query(rows.hits[preferred], rows.query[preferred], ranked.n_queries))


def rank_biased_norm(n_relevant: np.ndarray, gamma: float) -> np.ndarray:
    """Σ_{j=1..R} γ^(j−1) per query: rank-biased NCU's normaliser."""
    return n_relevant.astype(np.float64) if gamma == 1 else (1 - gamma ** n_relevant) / (1 - gamma)


@kernel('NCU', prepare=graded_ideal, credit=graded_credit,
        bounded_by_credit=lambda measure: measure['stopping'] == 'rb')
def ncu(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NCU per query: the utility at each relevant doc weighted by the probability of stopping there."""
    rows = blended_ratios(measure, ranked, measure['beta'] if measure['utility'] == 'BR' else 0.0)
    judgments, rel = ranked.judgments, measure['rel']
    if measure['stopping'] == 'gu':
        stops, gains = optional_param(measure, 'stops'), optional_param(measure, 'gains')

        def stop_value(labels: np.ndarray) -> np.ndarray:
            return mapped_gain(labels, labels >= rel, stops, graded_gain(labels, rel, gains))

        weight = stop_value(rows.label)
        total = segment_sum(stop_value(judgments.label), judgments.query, judgments.n_queries)
    else:
        gamma = measure['gamma']
        weight = gamma ** (rows.hits - 1.0)
        total = rank_biased_norm(judgments.n_relevant(rel), gamma)
    return safe_divide(segment_sum(rows.blended * weight, rows.query, ranked.n_queries), total)


@kernel('EBR', prepare=graded_ideal, credit=graded_credit, bounded_by_credit=_never)
def ebr(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """EBR (or EBR@k) per query: BR at the rank where the cascade user stops, in expectation."""
    rows = blended_ratios(measure, ranked, measure['beta'], optional_param(measure, 'cutoff'))
    stop = rows.gain / (top_gain(measure, ranked.judgments) + 1)
    return cascade(rows.query, stop, rows.blended, ranked.n_queries)
