"""Kernels of trec_eval 9.0.8's measures beyond those of :mod:`.trec_family`: ir_measures' ``Bpref``,
``infAP``, ``IPrec``, ``NumQ`` and set measures (declared in ``irmeasures_ext.measures.trec_family``) and
our measures named after trec_eval's (``irmeasures_ext.measures.trec_eval_rest``), each as its
``m_<name>.c`` computes it.

trec_eval's reading of the qrels (``form_res_rels.c``): a label >= rel is relevant, a label from 0 to rel − 1
judged non-relevant, and a label below 0 "in the pool but not judged" (RELVALUE_UNJUDGED), which is no
relevance level (its doc gains 0 and is not counted in R or N); a retrieved doc without a label is not in
the pool. Rows of the ranked run are the docs with a label; their ranks count every retrieved doc.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import UNJUDGED, IdealList, Judgments
from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.kernels.trec_family import (
    _expected_ap,
    _expected_relevant_in_top,
    _relevant_in_top,
    _trec_credit,
    average_precision,
    expected_precision_at_ranks,
    precision_at_ranks,
    trec_gain,
)
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_count, segment_cumsum, segment_sum
from irmeasures_ext.engine.ties import RelevantGroups, expected_position_weight, positions
from irmeasures_ext.measures.base import optional_param

#: trec_eval's INFAP_EPSILON (trec_eval.h).
INFAP_EPSILON = 1e-5
#: The recall levels of trec_eval's 11pt_avg (and default iprec_at_recall cutoffs).
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _never(_measure: irm.Measure) -> bool:
    return False


def _order_independent(compute: Callable[[irm.Measure, RankedRun], np.ndarray]) -> Callable[
        [irm.Measure, RankedRun], np.ndarray]:
    """``compute`` as its own expected value: a measure of the retrieved set ignores the order."""
    return lambda measure, ranked: compute(measure, ranked)


def judged_non_relevant(labels: np.ndarray, rel: int) -> np.ndarray:
    """Labels from 0 to rel − 1: judged non-relevant (a negative label is not judged)."""
    return (labels >= 0) & (labels < rel)


def pooled_unjudged(labels: np.ndarray) -> np.ndarray:
    """Labels below 0: in the pool but not judged (trec_eval's RELVALUE_UNJUDGED)."""
    return (labels < 0) & (labels != UNJUDGED)


def _relevance_counts(measure: irm.Measure, judgments: Judgments) -> tuple[np.ndarray, np.ndarray]:
    """(R, N) per query: the qrels labels >= rel and those from 0 to rel − 1."""
    rel = measure['rel']
    return judgments.n_relevant(rel), judgments.cached(('trec_eval N', rel), lambda: segment_count(
        judged_non_relevant(judgments.label, rel), judgments.query, judgments.n_queries))


def _running_count(ranked: RankedRun, mask: np.ndarray) -> np.ndarray:
    """Per row, the rows of its query down to it (itself included) where ``mask`` holds."""
    return ranked.cumulative(mask.astype(np.int64))


@kernel('Bpref', prepare=_relevance_counts)
def bpref(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """bpref = Σ over relevant docs retrieved of (1 − min(n_r, R) / min(N, R)) / R, n_r the judged non-relevant
    docs above (1 where n_r = 0); docs not judged (unlabelled or labelled below 0) are skipped. Equivalence
    classes can put more judged non-relevant docs above than N counts (N counts classes): each term is kept
    from 0 to 1 (0 where min(N, R) = 0), which changes nothing without classes (n_r <= N)."""
    rel = measure['rel']
    big_r, big_n = _relevance_counts(measure, ranked.judgments)
    relevant = ranked.relevant(rel)
    above = _running_count(ranked, judged_non_relevant(ranked.label, rel))[relevant]
    query = ranked.query[relevant]
    penalty = safe_divide(np.minimum(above, big_r[query]), np.minimum(big_n, big_r)[query])
    term = np.where(above == 0, 1.0, np.where(np.minimum(big_n, big_r)[query] > 0, np.maximum(1 - penalty, 0.0), 0.0))
    return safe_divide(segment_sum(term, query, ranked.n_queries), big_r)


def _n_relevant(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    return judgments.n_relevant(measure['rel'])


@kernel('infAP', prepare=_n_relevant, bounded_by_credit=_never)
def inferred_ap(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """trec_eval's infAP: Σ over relevant docs retrieved at rank k of 1 (k = 1), else 1/k + ((k − 1)/k) ·
    ((c + n + u)/(k − 1)) · ((c + ε)/(c + n + 2ε)), with c, n and u the relevant, judged non-relevant and
    pooled-but-unjudged docs above and ε = 1e-5; divided by R."""
    rel = measure['rel']
    relevant = ranked.relevant(rel)
    rel_above = _running_count(ranked, relevant)[relevant] - 1
    nonrel_above = _running_count(ranked, judged_non_relevant(ranked.label, rel))[relevant]
    pooled_above = _running_count(ranked, pooled_unjudged(ranked.label))[relevant]
    rank = ranked.rank[relevant].astype(np.float64)
    above = np.maximum(rank - 1, 1.0)
    term = (1 / rank + ((rank - 1) / rank) * ((rel_above + nonrel_above + pooled_above) / above)
            * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
    total = segment_sum(np.where(rank == 1, 1.0, term), ranked.query[relevant], ranked.n_queries)
    return safe_divide(total, _n_relevant(measure, ranked.judgments))


def recall_rank(fraction: float, n_relevant: np.ndarray) -> np.ndarray:
    """trec_eval 9's count of relevant docs for a fraction of R: int(fraction·R + 0.9) (iprec_at_recall,
    11pt_avg, Rprec_mult; trec_eval 10 rounds instead for the first two)."""
    return (fraction * n_relevant + 0.9).astype(np.int64)


def interpolated_precision(ranked: RankedRun, rel: int, recall: float) -> np.ndarray:
    """trec_eval's iprec_at_recall: with r_j the rank of the j-th relevant doc retrieved and c the
    :func:`recall_rank` of ``recall``, max_{j >= max(c, 1)} j / r_j where c <= the relevant docs retrieved,
    else 0."""
    relevant = ranked.relevant(rel)
    found = _running_count(ranked, relevant)[relevant]
    query = ranked.query[relevant]
    cut = recall_rank(recall, ranked.judgments.n_relevant(rel))
    counted = found >= np.maximum(cut, 1)[query]
    value = np.zeros(ranked.n_queries)
    np.maximum.at(value, query[counted], found[counted] / ranked.rank[relevant][counted])
    return np.where(cut <= ranked.per_query_count(relevant), value, 0.0)


@kernel('IPrec', prepare=_n_relevant)
def iprec_at_recall(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """IPrec@p: the interpolated precision at recall p (:func:`interpolated_precision`)."""
    return interpolated_precision(ranked, measure['rel'], measure['recall'])


@kernel('eleven_pt_avg', prepare=_n_relevant)
def eleven_point_average(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """11pt_avg: the mean of IPrec at recall 0, 0.1, ..., 1."""
    points = [interpolated_precision(ranked, measure['rel'], recall) for recall in ELEVEN_POINTS]
    return np.sum(points, axis=0) / len(ELEVEN_POINTS)


def num_queries(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NumQ: 1 for every query of the qrels (summed: trec_eval -c's num_q)."""
    return np.ones(ranked.n_queries, dtype=np.int64)


kernel('NumQ', expected=num_queries)(num_queries)


def _set_counts(measure: irm.Measure, ranked: RankedRun) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(relevant docs retrieved, docs retrieved, R) per query."""
    rel = measure['rel']
    return (ranked.per_query_count(ranked.relevant(rel)), ranked.n_retrieved, ranked.judgments.n_relevant(rel))


def set_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """SetP = relevant retrieved / retrieved; relative: / min(retrieved, R) (set_relative_P)."""
    found, retrieved, big_r = _set_counts(measure, ranked)
    return safe_divide(found, np.minimum(retrieved, big_r) if measure['relative'] else retrieved)


def set_recall(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """SetR = relevant retrieved / R."""
    found, _, big_r = _set_counts(measure, ranked)
    return safe_divide(found, big_r)


def set_f(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """SetF = (β + 1)·P·R / (β·P + R) of SetP and SetR (trec_eval's set_F, β its parameter: not squared);
    0 where no relevant doc is retrieved."""
    found, retrieved, big_r = _set_counts(measure, ranked)
    beta = measure['beta']
    precision, recall = safe_divide(found, retrieved), safe_divide(found, big_r)
    return np.where(found > 0, safe_divide((beta + 1.0) * precision * recall, beta * precision + recall), 0.0)


def set_average_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """SetAP (trec_eval's set_map) = relevant retrieved² / (retrieved · R)."""
    found, retrieved, big_r = _set_counts(measure, ranked)
    found = found.astype(np.float64)
    return safe_divide(found * found, retrieved.astype(np.float64) * big_r)


def utility_of(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """utility = a·rel_ret + b·(retrieved − a) + c·(R − a) + d·(num_docs + a − retrieved − R), a the relevant
    docs retrieved."""
    found, retrieved, big_r = _set_counts(measure, ranked)
    return (measure['rel_ret'] * found + measure['nonrel_ret'] * (retrieved - found)
            + measure['rel_missed'] * (big_r - found)
            + measure['nonrel_missed'] * (measure['num_docs'] + found - retrieved - big_r))


def judged_non_relevant_retrieved(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """num_nonrel_judged_ret: the retrieved docs labelled from 0 to rel − 1."""
    return ranked.per_query_count(judged_non_relevant(ranked.label, measure['rel'])).astype(np.int64)


for _name, _compute in (('SetP', set_precision), ('SetR', set_recall), ('SetF', set_f),
                        ('SetAP', set_average_precision), ('utility', utility_of),
                        ('num_nonrel_judged_ret', judged_non_relevant_retrieved)):
    kernel(_name, prepare=_n_relevant, expected=_order_independent(_compute))(_compute)


def _as_ap(measure: irm.Measure) -> irm.Measure:
    return irm.AP(rel=measure['rel'])


@kernel('gm_map', prepare=_n_relevant, expected=lambda measure, ranked: _expected_ap(_as_ap(measure), ranked))
def gm_map_per_query(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """gm_map per query: AP (its aggregator takes the geometric mean)."""
    return average_precision(_as_ap(measure), ranked)


kernel('gm_bpref', prepare=_relevance_counts)(bpref)


def _rprec_mult_rank(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    return judgments.cached(('Rprec_mult rank', measure['rel'], measure['mult']), lambda: recall_rank(
        measure['mult'], judgments.n_relevant(measure['rel'])))


@kernel('Rprec_mult', prepare=_rprec_mult_rank, expected=lambda measure, ranked: expected_precision_at_ranks(
        measure, ranked, _rprec_mult_rank(measure, ranked.judgments)))
def rprec_mult(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rprec_mult@m = |relevant in the top c| / c, c = int(m·R + 0.9); 0 where c = 0."""
    return precision_at_ranks(measure, ranked, _rprec_mult_rank(measure, ranked.judgments))


def _best_precision_at(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    return np.minimum(measure['cutoff'], _n_relevant(measure, judgments))


@kernel('relative_P', prepare=_best_precision_at, expected=lambda measure, ranked: safe_divide(
        _expected_relevant_in_top(measure, ranked, measure['cutoff']), _best_precision_at(measure, ranked.judgments)))
def relative_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """relative_P@k = |relevant in the top k| / min(k, R)."""
    return safe_divide(_relevant_in_top(measure, ranked), _best_precision_at(measure, ranked.judgments))


def _non_relevant_above(ranked: RankedRun, relevant: np.ndarray) -> np.ndarray:
    """Per relevant row, the docs above it that are not relevant (unjudged ones included)."""
    return ranked.rank[relevant] - _running_count(ranked, relevant)[relevant]


def _expected_bin_g(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[binG] over the orderings of each tie group: a relevant doc of a group of g docs holding r relevant
    ones, after m_0 docs above the group that are not relevant, has as many of the group's g − r others above
    it with equal chance 0 .. g − r (its place among them is uniform), so the group adds
    r · mean_{x=0..g−r} 1 / log2(2 + m_0 + x)."""
    groups = RelevantGroups.of(ranked, ranked.relevant(measure['rel']))
    table = np.concatenate(([0.0], np.cumsum(1 / np.log2(2 + positions(ranked)))))  # table[t]: Σ_{u<t}
    others = groups.size - groups.relevant
    above = groups.start - 1 - groups.relevant_before
    mean = (table[(above + others + 1).astype(np.int64)] - table[above.astype(np.int64)]) / (others + 1)
    total = segment_sum(groups.relevant * mean, groups.query, ranked.n_queries)
    return safe_divide(total, _n_relevant(measure, ranked.judgments))


@kernel('binG', prepare=_n_relevant, expected=_expected_bin_g)
def bin_g(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """binG = Σ over relevant docs retrieved of 1 / log2(2 + docs above that are not relevant), / R."""
    relevant = ranked.relevant(measure['rel'])
    terms = 1 / np.log2(2 + _non_relevant_above(ranked, relevant))
    return safe_divide(segment_sum(terms, ranked.query[relevant], ranked.n_queries),
                       _n_relevant(measure, ranked.judgments))


# The gain measures (Rndcg, ndcg_rel, G): gain = label or gains[label] for labels >= 0 (trec_gain), the ideal
# list the qrels' positive gains descending; tied docs ordered by gain under optimistic/pessimistic.

def _log2_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1.0)


def positive_ideal(measure: irm.Measure, judgments: Judgments) -> IdealList:
    """The qrels' positive gains per query, descending (trec_eval's ideal list past which the gain is 0)."""
    gains = optional_param(measure, 'gains')
    key = None if gains is None else tuple(sorted(gains.items()))
    return judgments.cached(('trec_eval positive ideal', key), lambda: judgments.ideal(
        lambda labels: trec_gain(labels, gains), trec_gain(judgments.label, gains) > 0))


def _ideal_running(measure: irm.Measure, judgments: Judgments, value_of: Callable[[IdealList], np.ndarray],
                   name: str) -> tuple[IdealList, np.ndarray]:
    """The positive ideal list and, per entry, the running sum of ``value_of(list)`` within its query."""
    def compute() -> tuple[IdealList, np.ndarray]:
        best = positive_ideal(measure, judgments)
        return best, segment_cumsum(value_of(best), best.query, best.starts)
    gains = optional_param(measure, 'gains')
    return judgments.cached((name, None if gains is None else tuple(sorted(gains.items()))), compute)


def ideal_dcg_running(measure: irm.Measure, judgments: Judgments) -> tuple[IdealList, np.ndarray]:
    """The positive ideal list and its DCG down to each entry."""
    return _ideal_running(measure, judgments, lambda best: best.gain / _log2_discount(best.rank), 'trec_eval IDCG')


def at_depth(best: IdealList, running: np.ndarray, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``running`` at the ``depth``-th entry of each ``query``'s ideal list (its last past the end; 0 at depth 0
    or for a query without entries)."""
    depth = np.minimum(depth, best.counts[query])
    return np.where(depth > 0, running[np.maximum(best.starts[query] + depth - 1, 0)] if len(running) else 0.0, 0.0)


def run_gain(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    return trec_gain(ranked.label, optional_param(measure, 'gains'))


def dcg_at(ranked: RankedRun, running_dcg: np.ndarray, query: np.ndarray, cutoff: np.ndarray) -> np.ndarray:
    """The run's DCG of the top ``cutoff`` docs of each ``query``, from its running DCG per row."""
    if not len(running_dcg):
        return np.zeros(len(query))
    keys = (ranked.query << 32) | ranked.rank
    last = np.searchsorted(keys, (query << 32) | cutoff, 'right') - 1
    inside = (last >= 0) & (ranked.query[np.maximum(last, 0)] == query)
    return np.where(inside, running_dcg[np.maximum(last, 0)], 0.0)


def rndcg_points(measure: irm.Measure, ranked: RankedRun) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rndcg's points, grouped by query: (query, DCG cutoff min(i, n), IDCG_i) for each rank i <= L after
    which the ideal gain changes, and (query, n, IDCG_L) where n >= L + 2 (n: docs retrieved)."""
    best, idcg = ideal_dcg_running(measure, ranked.judgments)
    change = np.ones(len(best.gain), dtype=bool)
    change[:-1] = (best.gain[1:] != best.gain[:-1]) | (best.query[1:] != best.query[:-1])
    n = ranked.n_retrieved
    query = best.query[change]
    ends = np.flatnonzero((best.counts > 0) & (n >= best.counts + 2))
    last = best.starts[ends] + best.counts[ends] - 1
    point_query = np.concatenate((query, ends))
    order = np.argsort(point_query, kind='stable')
    cutoff = np.concatenate((np.minimum(best.rank[change], n[query]), n[ends]))
    return point_query[order], cutoff[order], np.concatenate((idcg[change], idcg[last]))[order]


def _rndcg_mean(measure: irm.Measure, ranked: RankedRun, point_dcg: np.ndarray, point_query: np.ndarray) -> np.ndarray:
    """The mean over each query's points of DCG / IDCG; 0 where R = 0 or the query has no point."""
    _, _, idcg = rndcg_points(measure, ranked)
    mean = safe_divide(segment_sum(point_dcg / idcg, point_query, ranked.n_queries),
                       segment_count(np.ones(len(point_query), dtype=bool), point_query, ranked.n_queries))
    return np.where(_n_relevant(measure, ranked.judgments) > 0, mean, 0.0)


def _expected_rndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[Rndcg]: Rndcg is linear in the DCGs at its points, whose cutoffs do not depend on the order, and
    E[DCG_c] = Σ gain · the mean of 1/log2(p + 1) over the positions p <= c of the doc's tie group."""
    point_query, cutoff, _ = rndcg_points(measure, ranked)
    gain = run_gain(measure, ranked)
    position = positions(ranked)
    weight = np.zeros(len(position))
    weight[1:] = 1 / _log2_discount(position[1:])
    index = np.arange(len(point_query)) - np.searchsorted(point_query, point_query)  # each point's index in its query
    point_dcg = np.zeros(len(point_query))
    for t in range(int(index.max(initial=-1)) + 1):
        at_t = np.flatnonzero(index == t)
        query_cutoff = np.zeros(ranked.n_queries, dtype=np.int64)
        query_cutoff[point_query[at_t]] = cutoff[at_t]
        dcg = ranked.per_query_sum(gain * expected_position_weight(ranked, weight, query_cutoff[ranked.query]))
        point_dcg[at_t] = dcg[point_query[at_t]]
    return _rndcg_mean(measure, ranked, point_dcg, point_query)


@kernel('Rndcg', prepare=lambda measure, judgments: (ideal_dcg_running(measure, judgments),
                                                     _n_relevant(measure, judgments)),
        expected=_expected_rndcg, credit=_trec_credit)
def rndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rndcg: the mean of DCG_min(i, n) / IDCG_i over its points (:func:`rndcg_points`)."""
    point_query, cutoff, _ = rndcg_points(measure, ranked)
    gain = run_gain(measure, ranked)
    running = ranked.cumulative(gain / _log2_discount(ranked.rank))
    return _rndcg_mean(measure, ranked, dcg_at(ranked, running, point_query, cutoff), point_query)


@kernel('ndcg_rel', prepare=ideal_dcg_running, credit=_trec_credit)
def ndcg_rel_per_query(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """ndcg_rel = (Σ over retrieved docs of positive gain at rank k of DCG_k / IDCG_min(k, L) + (L − those
    docs) · DCG_n / IDCG_L) / L; 0 where that sum is 0. (Under equivalence classes with gains that do not grow
    with the label a retrieved doc can gain where its class does not: a term over IDCG 0 counts 0, and L −
    those docs at least 0.)"""
    best, idcg = ideal_dcg_running(measure, ranked.judgments)
    gain = run_gain(measure, ranked)
    running = ranked.cumulative(gain / _log2_discount(ranked.rank))
    positive = gain > 0
    query = ranked.query[positive]
    found = segment_sum(safe_divide(running[positive], at_depth(best, idcg, query, ranked.rank[positive])), query,
                        ranked.n_queries)
    every = np.arange(ranked.n_queries)
    missing = np.maximum(best.counts - ranked.per_query_count(positive), 0)
    total = found + missing * safe_divide(ranked.per_query_sum(gain / _log2_discount(ranked.rank)),
                                          at_depth(best, idcg, every, best.counts))
    return np.where(total > 0, safe_divide(total, best.counts), 0.0)


def _ideal_excess_cost(measure: irm.Measure, judgments: Judgments) -> tuple[IdealList, np.ndarray]:
    """The positive ideal list and the running sum of max(g* − 1, 0) down each query's entries (G's cost
    beyond 1 a rank)."""
    return _ideal_running(measure, judgments, lambda best: np.maximum(best.gain - 1.0, 0.0), 'trec_eval G cost')


@kernel('G', prepare=_ideal_excess_cost, bounded_by_credit=_never)
def normalised_gain(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """G = Σ_r g(r) / log2(2 + C(r) − S(r)) / Σ g*, C(r) = Σ_{i<=r} max(g*_i, 1) = r + Σ_{i<=min(r, L)}
    max(g*_i − 1, 0), S(r) = Σ_{i<=r} g(i). C(r) >= S(r) but under equivalence classes with gains that do not
    grow with the label (a member's label can gain more than its class's highest label): there C − S counts
    as 0."""
    best, excess = _ideal_excess_cost(measure, ranked.judgments)
    gain = run_gain(measure, ranked)
    gained = ranked.cumulative(gain)
    scored = gain != 0
    query, rank = ranked.query[scored], ranked.rank[scored]
    cost = rank + at_depth(best, excess, query, rank)
    total = segment_sum(gain[scored] / np.log2(2 + np.maximum(cost - gained[scored], 0.0)), query, ranked.n_queries)
    every = np.arange(ranked.n_queries)
    return safe_divide(total, at_depth(best, best.cumulative, every, best.counts))
