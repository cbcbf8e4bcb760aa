"""Kernels of ir_measures' own measures that our provider also computes, with trec_eval's
semantics (declared in ``irmeasures_ext.measures.trec_family``; checked against pytrec_eval)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import UNJUDGED, Judgments
from irmeasures_ext.engine.kernels.common import discounted_gain, ideal_dcg, kernel, mapped_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.measures.base import optional_param


def _relevant_in_top(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Relevant docs ranked ``cutoff`` or better, per query."""
    top = ranked.top(measure['cutoff'])
    return top.per_query_count(top.relevant(measure['rel']))


def _n_relevant(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    return judgments.n_relevant(measure['rel'])


@kernel('AP', prepare=_n_relevant)
def average_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """AP = Σ_r I(r)·C(r)/r / R; AP@k sums ranks <= k and still divides by R (map_cut_k)."""
    top = ranked.top(optional_param(measure, 'cutoff'))  # a prefix of each query: the same running counts
    relevant = top.relevant(measure['rel'])
    precision = top.cumulative(relevant.astype(np.int64)) / top.rank
    return safe_divide(top.per_query_sum(precision, relevant), _n_relevant(measure, ranked.judgments))


@kernel('P')
def precision_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P@k = |relevant in top k| / k (always divided by k)."""
    return _relevant_in_top(measure, ranked) / measure['cutoff']


@kernel('R', prepare=_n_relevant)
def recall_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """R@k = |relevant in top k| / R."""
    return safe_divide(_relevant_in_top(measure, ranked), _n_relevant(measure, ranked.judgments))


@kernel('Success')
def success_at_k(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Success@k = 1 if a relevant doc is in the top k, else 0."""
    return (_relevant_in_top(measure, ranked) > 0).astype(np.float64)


@kernel('RR')
def reciprocal_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """RR@k = 1 / rank of the first relevant doc if that rank <= k, else 0."""
    first = ranked.first_relevant_rank(measure['rel'])
    cutoff = optional_param(measure, 'cutoff')
    if cutoff is not None:
        first = np.where(first > cutoff, 0, first)
    return safe_divide(np.ones(len(first)), first)


@kernel('Rprec', prepare=_n_relevant)
def r_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rprec = |relevant in top R| / R."""
    n_relevant = _n_relevant(measure, ranked.judgments)
    in_top_r = ranked.rank <= n_relevant[ranked.query]
    return safe_divide(ranked.per_query_count(ranked.relevant(measure['rel']) & in_top_r), n_relevant)


def trec_gain(labels: np.ndarray, gains: dict[int, float] | None) -> np.ndarray:
    """trec_eval's nDCG gain: the judged label (mapped by ``gains``), negatives counting 0."""
    judged = labels != UNJUDGED
    return np.maximum(mapped_gain(labels, judged, gains, np.where(judged, labels, 0)), 0.0)


def _log2_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1)


def _ideal_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """trec_eval's ideal DCG@k per query: every judged doc, by :func:`trec_gain`, best first."""
    gains = optional_param(measure, 'gains')
    every_doc = np.ones(len(judgments.label), dtype=bool)
    return ideal_dcg(measure, judgments, lambda: judgments.ideal(lambda labels: trec_gain(labels, gains), every_doc),
                     optional_param(measure, 'cutoff'), _log2_discount)


@kernel('nDCG', prepare=_ideal_dcg)
def ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k, gain = label, discount 1/log2(r + 1) (trec_eval ndcg_cut)."""
    top = ranked.top(optional_param(measure, 'cutoff'))
    gain = trec_gain(top.label, optional_param(measure, 'gains'))
    dcg = discounted_gain(top.query, top.rank, gain, None, _log2_discount, ranked.n_queries)
    return safe_divide(dcg, _ideal_dcg(measure, ranked.judgments))


@kernel('NumRel', prepare=_n_relevant)
def num_relevant(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NumRel = R, the number of judged docs with label >= rel."""
    return _n_relevant(measure, ranked.judgments).astype(np.int64)


@kernel('NumRet')
def num_retrieved(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NumRet = docs retrieved; with ``rel``, relevant docs retrieved (trec_eval num_rel_ret)."""
    rel = optional_param(measure, 'rel')
    if rel is None:
        return ranked.n_retrieved.astype(np.int64)
    return ranked.per_query_count(ranked.relevant(rel)).astype(np.int64)
