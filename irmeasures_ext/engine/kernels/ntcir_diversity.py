"""Kernels of NTCIREVAL's intent-aware measures (declared in ``irmeasures_ext.measures.ntcir_diversity``), as
NTCIREVAL 190111's diversity scripts compute them (``D-NTCIR-eval``, ``DIN-NTCIR-eval``, ``D-NTCIR-IAeval``,
``DIN-NTCIR-PQeval``).

Notation (per query q): an intent's level g_i(d) counts where it is >= ``rel`` (NTCIREVAL: L1 and above); I =
the intents with such a doc (an intent without one is invisible, its probability missing from every sum);
P(i|q) from the intent probabilities. The global gain GG(d) = Σ_i P(i|q)·g_i(d); the D-measures' ideal list is
every doc of GG > 0 by GG descending, H = its largest GG.

- D-nDCG@k = MSnDCG@k over GG: Σ_{r≤k} G(r)/log2(r + 1) over the same of the ideal list.
- D-Q@k = Σ_{r≤k, G(r)>0} BR(r) / min(k, R), BR(r) = (C(r) + CG(r)) / (r + CG*(r)) (β = 1), R = the ideal list's
  length; D-nERR@k = ERR@k / ERR@k of the ideal list, stop probability G/(H + 1).
- I-rec@k = |{i ∈ I: a doc of the top k is relevant to i}| / |I|.
- DIN: a doc's gain counts its informational intents, and a navigational intent only at the first doc relevant to
  it; the ideal list stays the D-measures'. C(r) counts the docs whose DIN gain is above 0.
- X#@k = γ·I-rec@k + (1 − γ)·X@k.
- IA-M@k = Σ_{i∈I} P(i|q)·M_i@k, M_i computed with gains g_i against intent i's ideal list (H_i = its top level).
- P+Q@k = Σ_{i∈I} P(i|q)·(Q_i@k for an informational intent, P-plus_i on the top k for a navigational one).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.intents import JUDGMENT_COLUMN, Intents, earlier_of_same
from irmeasures_ext.engine.judgments import IdealList, Judgments, ideal_list
from irmeasures_ext.engine.kernels.common import KernelFunction, PrepareFunction, cascade, discounted_gain, kernel
from irmeasures_ext.engine.kernels.q import blended_ratio
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_cumsum, segment_sum
from irmeasures_ext.errors import InputError


def _ms_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1.0)


def _intents(judgments: Judgments) -> Intents:
    """The judgments' intents, with their probabilities: InputError where the qrels came without them."""
    intents = judgments.intents
    assert intents is not None  # (the evaluator reads the qrels with intents for these measures)
    if intents.probability is None:
        raise InputError("NTCIREVAL's diversity measures need the intents' probabilities P(i|q): give the qrels as "
                         "irmeasures_ext.intent_qrels(qrels, 'Iprob.txt' or 'DINprob.txt') (on the command line: "
                         '--intents FILE)')
    return intents


def _check(measure: irm.Measure, judgments: Judgments) -> None:
    _intents(judgments)


def _probability(intents: Intents) -> np.ndarray:
    assert intents.probability is not None  # (checked by _intents)
    return np.nan_to_num(intents.probability)


# ---------------------------------------------------------------- the global gain and its ideal list

def global_gains(judgments: Judgments, rel: int) -> np.ndarray:
    """GG per judgment entry (computed once per ``rel``)."""
    def compute() -> np.ndarray:
        intents = _intents(judgments)
        entry, intent, label = intents.relevant_pairs(rel)
        return np.bincount(entry, _probability(intents)[intent] * label, minlength=len(intents.start) - 1)
    return judgments.cached(('global gains', rel), compute)


def global_ideal(judgments: Judgments, rel: int) -> IdealList:
    """The D-measures' ideal list: the entries of GG > 0 by GG descending (computed once per ``rel``)."""
    def compute() -> IdealList:
        gain = global_gains(judgments, rel)
        keep = gain > 0
        return ideal_list(judgments.query[keep], gain[keep], judgments.n_queries)
    return judgments.cached(('global ideal', rel), compute)


def _prepare_global(measure: irm.Measure, judgments: Judgments) -> None:
    global_ideal(judgments, measure['rel'])


def _d_gains(ranked: RankedRun, rel: int) -> np.ndarray:
    """GG per row."""
    return global_gains(ranked.judgments, rel)[ranked.judged[JUDGMENT_COLUMN]]


def _din_gains(ranked: RankedRun, rel: int) -> np.ndarray:
    """DIN gain per row: a navigational intent counts only at its first relevant doc."""
    intents = _intents(ranked.judgments)
    row, intent, label = intents.of_rows(ranked.judged[JUDGMENT_COLUMN], rel)
    assert intents.navigational is not None  # (set with the probabilities)
    counts = ~intents.navigational[intent] | (earlier_of_same(intent) == 0)
    return np.bincount(row, np.where(counts, _probability(intents)[intent] * label, 0.0), minlength=len(ranked.rank))


GainsOfRows = Callable[[RankedRun, int], np.ndarray]


def _ndcg(ranked: RankedRun, gain: np.ndarray, ideal: IdealList, cutoff: int) -> np.ndarray:
    return safe_divide(discounted_gain(ranked.query, ranked.rank, gain, cutoff, _ms_discount, ranked.n_queries),
                       discounted_gain(ideal.query, ideal.rank, ideal.gain, cutoff, _ms_discount, ranked.n_queries))


def _q(segment: np.ndarray, rank: np.ndarray, gain: np.ndarray, ideal: IdealList, cutoff: int,
       n_segments: int) -> np.ndarray:
    """Q@k per segment of rows grouped by segment in rank order (rows of gain 0 count as non-relevant)."""
    starts = np.searchsorted(segment, np.arange(n_segments))
    relevant = gain > 0
    hits, gained = segment_cumsum(relevant.astype(np.float64), segment, starts), segment_cumsum(gain, segment, starts)
    counted = relevant & (rank <= cutoff)
    segment, rank = segment[counted], rank[counted]
    blended = blended_ratio(hits[counted], gained[counted], rank, ideal.cumulative_at(segment, rank), 1.0)
    return safe_divide(segment_sum(blended, segment, n_segments), np.minimum(ideal.counts, cutoff))


def _err(segment: np.ndarray, rank: np.ndarray, gain: np.ndarray, top: np.ndarray, cutoff: int,
         n_segments: int) -> np.ndarray:
    """ERR@k per segment, stop probability gain/(top + 1) with ``top`` per segment."""
    keep = rank <= cutoff
    segment, rank, gain = segment[keep], rank[keep], gain[keep]
    return cascade(segment, gain / (top[segment] + 1), 1 / rank, n_segments)


def _top_per_query(ideal: IdealList, n_queries: int) -> np.ndarray:
    """H per query: its ideal list's first gain (0 for an empty list)."""
    top = np.zeros(n_queries)
    has = ideal.counts > 0
    top[has] = ideal.gain[ideal.starts[has]]
    return top


def global_ndcg(gains_of: GainsOfRows, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """D-nDCG@k, or DIN-nDCG@k with DIN's ``gains_of`` (module docstring)."""
    rel = measure['rel']
    return _ndcg(ranked, gains_of(ranked, rel), global_ideal(ranked.judgments, rel), measure['cutoff'])


def global_q(gains_of: GainsOfRows, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """D-Q@k, or DIN-Q@k with DIN's ``gains_of`` (module docstring)."""
    rel = measure['rel']
    return _q(ranked.query, ranked.rank, gains_of(ranked, rel), global_ideal(ranked.judgments, rel),
              measure['cutoff'], ranked.n_queries)


def d_nerr(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """D-nERR@k (module docstring)."""
    rel, cutoff, n_queries = measure['rel'], measure['cutoff'], ranked.n_queries
    ideal = global_ideal(ranked.judgments, rel)
    top = _top_per_query(ideal, n_queries)
    return safe_divide(_err(ranked.query, ranked.rank, _d_gains(ranked, rel), top, cutoff, n_queries),
                       _err(ideal.query, ideal.rank, ideal.gain, top, cutoff, n_queries))


def intent_recall(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """I-rec@k (module docstring); needs no probabilities."""
    intents = ranked.judgments.intents
    assert intents is not None  # (the evaluator reads the qrels with intents)
    rel = measure['rel']
    row, intent, _ = intents.of_rows(ranked.judged[JUDGMENT_COLUMN], rel)
    found = np.zeros(len(intents.query), dtype=bool)
    found[intent[ranked.rank[row] <= measure['cutoff']]] = True
    return safe_divide(np.bincount(intents.query[found], minlength=ranked.n_queries),
                       intents.covered(rel, ranked.n_queries))


def sharp(of: KernelFunction, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """X#@k = γ·I-rec@k + (1 − γ)·X@k, X computed by ``of``."""
    gamma = measure['gamma']
    return gamma * intent_recall(measure, ranked) + (1 - gamma) * of(measure, ranked)


# ---------------------------------------------------------------- per intent (IA-measures, P+Q)

class IntentRows(NamedTuple):
    """The (row, relevant intent) pairs of a ranked run, by intent, then rank, with what every per-intent
    measure needs; ``ideal``: each intent's relevant docs by level (the ideal list of gains g_i)."""

    intent: np.ndarray
    rank: np.ndarray
    gain: np.ndarray
    ideal: IdealList


def intent_rows(ranked: RankedRun, rel: int) -> IntentRows:
    """:class:`IntentRows` of ``ranked`` (computed once per run and ``rel``)."""
    def compute() -> IntentRows:
        intents = _intents(ranked.judgments)
        row, intent, label = intents.of_rows(ranked.judged[JUDGMENT_COLUMN], rel)
        order = np.argsort(intent, kind='stable')  # (pairs are in rank order within each query)
        ideal = ranked.judgments.cached(('intent ideal', rel), lambda: ideal_list(
            *intents.relevant_pairs(rel)[1:], len(intents.query)))
        return IntentRows(intent[order], ranked.rank[row[order]], label[order].astype(np.float64), ideal)
    return ranked.cached(('intent rows', rel), compute)


def _per_query(ranked: RankedRun, per_intent: np.ndarray) -> np.ndarray:
    """Σ_i P(i|q)·value_i per query."""
    intents = _intents(ranked.judgments)
    return segment_sum(_probability(intents) * per_intent, intents.query, ranked.n_queries)


def _intent_q(rows: IntentRows, cutoff: int) -> np.ndarray:
    return _q(rows.intent, rows.rank, rows.gain, rows.ideal, cutoff, len(rows.ideal.counts))


def ia_ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """IA-MSnDCG@k (module docstring)."""
    rows, cutoff = intent_rows(ranked, measure['rel']), measure['cutoff']
    n_intents = len(rows.ideal.counts)
    ideal = rows.ideal
    return _per_query(ranked, safe_divide(
        discounted_gain(rows.intent, rows.rank, rows.gain, cutoff, _ms_discount, n_intents),
        discounted_gain(ideal.query, ideal.rank, ideal.gain, cutoff, _ms_discount, n_intents)))


def ia_nerr(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """IA-nERR@k (module docstring): H_i, intent i's top level."""
    rows, cutoff = intent_rows(ranked, measure['rel']), measure['cutoff']
    ideal, n_intents = rows.ideal, len(rows.ideal.counts)
    top = _top_per_query(ideal, n_intents)
    return _per_query(ranked, safe_divide(_err(rows.intent, rows.rank, rows.gain, top, cutoff, n_intents),
                                          _err(ideal.query, ideal.rank, ideal.gain, top, cutoff, n_intents)))


def ia_q(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """IA-Q@k (module docstring)."""
    rows = intent_rows(ranked, measure['rel'])
    return _per_query(ranked, _intent_q(rows, measure['cutoff']))


def _p_plus(rows: IntentRows, cutoff: int) -> np.ndarray:
    """P-plus per intent on the top ``cutoff``: the mean BR of the relevant rows down to rp, the first rank of
    the largest gain in the top k (0 for an intent with no relevant row there)."""
    n_intents = len(rows.ideal.counts)
    top = rows.rank <= cutoff
    intent, rank, gain = rows.intent[top], rows.rank[top], rows.gain[top]
    starts = np.searchsorted(intent, np.arange(n_intents))
    hits, gained = segment_cumsum(np.ones(len(intent)), intent, starts), segment_cumsum(gain, intent, starts)
    blended = blended_ratio(hits, gained, rank, rows.ideal.cumulative_at(intent, rank), 1.0)
    best = np.zeros(n_intents)
    np.maximum.at(best, intent, gain)
    first_best = np.full(n_intents, np.iinfo(np.int64).max)
    np.minimum.at(first_best, intent, np.where(gain == best[intent], rank, np.iinfo(np.int64).max))
    until = rank <= first_best[intent]
    return safe_divide(segment_sum(blended[until], intent[until], n_intents),
                       np.bincount(intent[until], minlength=n_intents))


def p_plus_q(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P+Q@k (module docstring)."""
    rows, cutoff = intent_rows(ranked, measure['rel']), measure['cutoff']
    navigational = _intents(ranked.judgments).navigational
    assert navigational is not None  # (set with the probabilities)
    return _per_query(ranked, np.where(navigational, _p_plus(rows, cutoff), _intent_q(rows, cutoff)))


def _ntcir_kernel(name: str, prepare: PrepareFunction = _check) -> Callable[[KernelFunction], KernelFunction]:
    """Registers a kernel reading the intents, with trec_eval's and the rank column's orders only (the range and
    the expected value are refused by name), and no equivalence classes."""
    return kernel(name, prepare=prepare, bounded_by_credit=lambda measure: False, takes_classes=False,
                  needs_intents=True)


# (Registered by calls of partial functions, not decorators: mutation testing reaches the functions.)
_ntcir_kernel('I_rec', prepare=lambda measure, judgments: None)(intent_recall)
_ntcir_kernel('D_nDCG', _prepare_global)(partial(global_ndcg, _d_gains))
_ntcir_kernel('D_Q', _prepare_global)(partial(global_q, _d_gains))
_ntcir_kernel('D_nERR', _prepare_global)(d_nerr)
_ntcir_kernel('D_sharp_nDCG', _prepare_global)(partial(sharp, partial(global_ndcg, _d_gains)))
_ntcir_kernel('D_sharp_Q', _prepare_global)(partial(sharp, partial(global_q, _d_gains)))
_ntcir_kernel('DIN_nDCG', _prepare_global)(partial(global_ndcg, _din_gains))
_ntcir_kernel('DIN_Q', _prepare_global)(partial(global_q, _din_gains))
_ntcir_kernel('DIN_sharp_nDCG', _prepare_global)(partial(sharp, partial(global_ndcg, _din_gains)))
_ntcir_kernel('DIN_sharp_Q', _prepare_global)(partial(sharp, partial(global_q, _din_gains)))
_ntcir_kernel('IA_MSnDCG')(ia_ndcg)
_ntcir_kernel('IA_nERR')(ia_nerr)
_ntcir_kernel('IA_Q')(ia_q)
_ntcir_kernel('PplusQ')(p_plus_q)
_ntcir_kernel('PplusQ_sharp')(partial(sharp, p_plus_q))
