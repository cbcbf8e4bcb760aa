"""Kernels of ir_measures' own measures that our provider also computes, with trec_eval's
semantics (declared in ``irmeasures_ext.measures.trec_family``; checked against pytrec_eval)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import UNJUDGED, Judgments
from irmeasures_ext.engine.kernels.common import discounted_gain, expected_dcg, ideal_dcg, kernel, mapped_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import expand, safe_divide, segment_sum
from irmeasures_ext.engine.ties import (
    RelevantGroups,
    expected_position_weight,
    first_relevant_offset_distribution,
    positions,
)
from irmeasures_ext.measures.base import optional_param


def _relevant_in_top(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Relevant docs ranked ``cutoff`` or better, per query."""
    top = ranked.top(measure['cutoff'])
    return top.per_query_count(top.relevant(measure['rel']))


def _n_relevant(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    return judgments.n_relevant(measure['rel'])


def _expected_relevant_in_top(measure: irm.Measure, ranked: RankedRun, cutoff: np.ndarray | int) -> np.ndarray:
    """E[relevant docs ranked ``cutoff`` or better] per query over the orderings of each tie group."""
    weight = np.ones(len(positions(ranked)))
    return ranked.per_query_sum(expected_position_weight(ranked, weight, cutoff), ranked.relevant(measure['rel']))


def _expected_ap(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[AP] (or E[AP@k]) over the orderings of each tie group (McSherry & Najork 2008).

    A relevant doc at offset j of a group of g docs at positions s .. s+g-1 holding r relevant ones,
    after c relevant docs, has precision (c + 1 + Y) / (s + j), with E[Y | j] = j(r-1)/(g-1). Over
    the group's r relevant docs and the g equally likely offsets: (r/g) · Σ_j (c + 1 + j(r-1)/(g-1))
    / (s + j), summed with harmonic numbers H: Σ_j 1/(s+j) = H(s+J-1) - H(s-1) and
    Σ_j j/(s+j) = J - s·Σ_j 1/(s+j), J the group's offsets ranked within the cutoff.
    """
    groups = RelevantGroups.of(ranked, ranked.relevant(measure['rel']))
    cutoff = optional_param(measure, 'cutoff')
    g, r, s = groups.size, groups.relevant, groups.start
    counted = g if cutoff is None else np.clip(cutoff - s + 1, 0, g)
    harmonic = np.concatenate(([0.0], np.cumsum(1 / np.arange(1, int((s + g).max(initial=1)) + 1))))
    inverse = harmonic[s + counted - 1] - harmonic[s - 1]
    offsets = counted - s * inverse
    others = np.where(g > 1, (r - 1) / np.maximum(g - 1, 1), 0.0)
    total = r / g * ((groups.relevant_before + 1) * inverse + others * offsets)
    return safe_divide(segment_sum(total, groups.query, ranked.n_queries), _n_relevant(measure, ranked.judgments))


@kernel('AP', prepare=_n_relevant, expected=_expected_ap)
def average_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """AP = Σ_r I(r)·C(r)/r / R; AP@k sums ranks <= k and still divides by R (map_cut_k)."""
    top = ranked.top(optional_param(measure, 'cutoff'))  # a prefix of each query: the same running counts
    relevant = top.relevant(measure['rel'])
    precision = top.cumulative(relevant.astype(np.int64)) / top.rank
    return safe_divide(top.per_query_sum(precision, relevant), _n_relevant(measure, ranked.judgments))


@kernel('P', expected=lambda measure, ranked: _expected_relevant_in_top(measure, ranked, measure['cutoff'])
        / measure['cutoff'])
def precision_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P@k = |relevant in top k| / k (always divided by k)."""
    return _relevant_in_top(measure, ranked) / measure['cutoff']


@kernel('R', prepare=_n_relevant, expected=lambda measure, ranked: safe_divide(
        _expected_relevant_in_top(measure, ranked, measure['cutoff']), _n_relevant(measure, ranked.judgments)))
def recall_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """R@k = |relevant in top k| / R."""
    return safe_divide(_relevant_in_top(measure, ranked), _n_relevant(measure, ranked.judgments))


def _expected_success(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P(a relevant doc in the top k) over the orderings of each tie group: only the first group holding
    relevant docs matters. With its r relevant docs among g at positions s .. s+g-1, and m = k - s + 1
    of those positions within the top k: 1 - C(g-r, m) / C(g, m) = 1 - Π_{i<m} (g-r-i)/(g-i)."""
    groups = RelevantGroups.of(ranked, ranked.relevant(measure['rel']))
    queries, first = groups.first_of_each_query()
    g, r, s = groups.size[first], groups.relevant[first], groups.start[first]
    inside = np.clip(measure['cutoff'] - s + 1, 0, g)
    straddles = np.flatnonzero((inside > 0) & (inside < g))
    owner, i = expand(inside[straddles])
    g_, r_ = g[straddles][owner], r[straddles][owner]
    log_none = segment_sum(np.log(np.maximum(g_ - r_ - i, 0) / (g_ - i)), owner, len(straddles))
    value = np.zeros(ranked.n_queries)
    value[queries] = (inside > 0).astype(np.float64)
    value[queries[straddles]] = 1 - np.exp(log_none)
    return value


@kernel('Success', expected=_expected_success)
def success_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Success@k = 1 if a relevant doc is in the top k, else 0."""
    return (_relevant_in_top(measure, ranked) > 0).astype(np.float64)


def _expected_rr(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[RR] (or E[RR@k]) over the orderings of each tie group: Σ_j P(first relevant at offset j of the
    first group holding relevant docs) / (s + j), the offsets within the cutoff."""
    groups = RelevantGroups.of(ranked, ranked.relevant(measure['rel']))
    queries, first = groups.first_of_each_query()
    owner, offset, probability = first_relevant_offset_distribution(groups.size[first], groups.relevant[first])
    rank = groups.start[first][owner] + offset
    cutoff = optional_param(measure, 'cutoff')
    if cutoff is not None:
        probability = np.where(rank <= cutoff, probability, 0.0)
    value = np.zeros(ranked.n_queries)
    value[queries] = segment_sum(probability / rank, owner, len(first))
    return value


@kernel('RR', expected=_expected_rr)
def reciprocal_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """RR@k = 1 / rank of the first relevant doc if that rank <= k, else 0."""
    first = ranked.first_relevant_rank(measure['rel'])
    cutoff = optional_param(measure, 'cutoff')
    if cutoff is not None:
        first = np.where(first > cutoff, 0, first)
    return safe_divide(np.ones(len(first)), first)


def precision_at_ranks(measure: irm.Measure, ranked: RankedRun, ranks: np.ndarray) -> np.ndarray:
    """|relevant in the top ``ranks[q]``| / ``ranks[q]`` per query q (0 where the rank is 0)."""
    in_top = ranked.rank <= ranks[ranked.query]
    return safe_divide(ranked.per_query_count(ranked.relevant(measure['rel']) & in_top), ranks)


def expected_precision_at_ranks(measure: irm.Measure, ranked: RankedRun, ranks: np.ndarray) -> np.ndarray:
    """E[:func:`precision_at_ranks`] over the orderings of each tie group."""
    return safe_divide(_expected_relevant_in_top(measure, ranked, ranks[ranked.query]), ranks)


@kernel('Rprec', prepare=_n_relevant, expected=lambda measure, ranked: expected_precision_at_ranks(
        measure, ranked, _n_relevant(measure, ranked.judgments)))
def r_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rprec = |relevant in top R| / R."""
    return precision_at_ranks(measure, ranked, _n_relevant(measure, ranked.judgments))


def trec_gain(labels: np.ndarray, gains: dict[float, float] | None) -> np.ndarray:
    """trec_eval's nDCG gain: the judged label (mapped by ``gains``), negatives counting 0."""
    judged = labels != UNJUDGED
    return np.maximum(mapped_gain(labels, judged, gains, np.where(judged, labels, 0)), 0.0)


def _trec_credit(measure: irm.Measure, labels: np.ndarray) -> np.ndarray:
    """nDCG's credit for a doc of each label, by which optimistic/pessimistic order tied docs: its gain."""
    return trec_gain(labels, optional_param(measure, 'gains'))


def _log2_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1)


def _ideal_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """trec_eval's ideal DCG@k per query: every judged doc, by :func:`trec_gain`, best first."""
    gains = optional_param(measure, 'gains')
    every_doc = np.ones(len(judgments.label), dtype=bool)
    return ideal_dcg(measure, judgments, lambda: judgments.ideal(lambda labels: trec_gain(labels, gains), every_doc),
                     optional_param(measure, 'cutoff'), _log2_discount)


def _expected_ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    gain = trec_gain(ranked.label, optional_param(measure, 'gains'))
    dcg = expected_dcg(ranked, gain, _log2_discount, optional_param(measure, 'cutoff'))
    return safe_divide(dcg, _ideal_dcg(measure, ranked.judgments))


@kernel('nDCG', prepare=_ideal_dcg, expected=_expected_ndcg, credit=_trec_credit)
def ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k, gain = label, discount 1/log2(r + 1) (trec_eval ndcg_cut)."""
    top = ranked.top(optional_param(measure, 'cutoff'))
    gain = trec_gain(top.label, optional_param(measure, 'gains'))
    dcg = discounted_gain(top.query, top.rank, gain, None, _log2_discount, ranked.n_queries)
    return safe_divide(dcg, _ideal_dcg(measure, ranked.judgments))


@kernel('NumRel', prepare=_n_relevant, expected=lambda measure, ranked: num_relevant(measure, ranked))
def num_relevant(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NumRel = R, the number of judged docs with label >= rel."""
    return _n_relevant(measure, ranked.judgments).astype(np.int64)


@kernel('NumRet', expected=lambda measure, ranked: num_retrieved(measure, ranked))  # the order does not matter
def num_retrieved(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NumRet = docs retrieved; with ``rel``, relevant docs retrieved (trec_eval num_rel_ret)."""
    rel = optional_param(measure, 'rel')
    if rel is None:
        return ranked.n_retrieved.astype(np.int64)
    return ranked.per_query_count(ranked.relevant(rel)).astype(np.int64)
