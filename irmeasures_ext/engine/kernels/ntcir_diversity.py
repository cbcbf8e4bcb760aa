"""Kernels of NTCIREVAL's intent-aware measures (declared in ``irmeasures_ext.measures.ntcir_diversity``), as
NTCIREVAL 190111's diversity scripts compute them (``D-NTCIR-eval``, ``DIN-NTCIR-eval``, ``D-NTCIR-IAeval``,
``DIN-NTCIR-PQeval``).

Notation (per query q): an intent's level g_i(d) counts where it is >= ``rel`` (NTCIREVAL: L1 and above); I =
the intents with such a doc (an intent without one is invisible, its probability missing from every sum);
P(i|q) from the intent probabilities. The global gain GG(d) = Σ_i P(i|q)·g_i(d); the D-measures' ideal list is
every doc of GG > 0 by GG descending, H = its largest GG.

- D-nDCG@k = MSnDCG@k over GG: Σ_{r≤k} G(r)/log2(r + 1) over the same of the ideal list.
- D-Q@k = Σ_{r≤k, G(r)>0} BR(r) / min(k, R), BR(r) = (C(r) + β·CG(r)) / (r + β·CG*(r)) (the measure's ``beta``,
  default 1, NTCIREVAL's gcompute ``-beta``: every measure built on BR takes it), R = the ideal list's length;
  D-nERR@k = ERR@k / ERR@k of the ideal list, D-ERR@k = Σ_{r≤k} (1/r)·p(r)·Π_{s<r}(1 − p(s)) and D-EBR@k =
  Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)) with the stop probability p = G/(H + 1); D-RBP@k = (1 − p)·Σ_{r≤k}
  G(r)·p^{r−1} / H (persistence p, NTCIREVAL's default 0.95; its D-NTCIR-eval2 script passes 0.99); D-AP@k =
  Σ_{r≤k, G(r)>0} C(r)/r / min(k, R), D-P@k = C(k)/k, D-Hit@k = 1 if C(k) > 0, and D-nDCG_JK@k (NTCIREVAL's
  ``nDCG@k``) discounts by 1 to rank 2, then by log2(r).
- Without a cutoff (NTCIREVAL's lines without ``@k``: gcompute on the list as the script cut it, our depth cut),
  D-AP and D-Q divide by R, and D-RBP, D-ERR, D-EBR read the whole list. On the top k (the whole list without a
  cutoff): D-RR = 1/r1, r1 the first rank of GG > 0; D-O-measure = BR(r1); D-P-measure = BR(rp), rp the first
  rank of the largest GG; D-P-plus = Σ_{r≤rp, G(r)>0} BR(r) / C(rp); D-NCU = Σ_{G(r)>0} u(r)·γ^{C(r)−1} /
  Σ_{j≤R} γ^{j−1}, u = C(r)/r (``utility='P'``) or BR(r) (gcompute's rank-biased NCU); D-GAP@k = Σ_{r≤k}
  GS(r)/r / GI(min(k, R)), GS(r) = Σ_{s≤r} m(m + 1) with m = min(G(r), G(s)) for G(r) > 0, GI(n) = Σ_{j≤n}
  G*(j)(G*(j) + 1) over the ideal list (gcompute's ``-gap``: Robertson's GAP with the gains as grades).
- I-rec@k = |{i ∈ I: a doc of the top k is relevant to i}| / |I|; I-rec@n = I-rec at rank n = |I|.
- DIN: a doc's gain counts its informational intents, and a navigational intent only at the first doc relevant to
  it; the ideal list stays the D-measures' (so do R and H). C(r) counts the docs whose DIN gain is above 0. DIN-M is
  D-M with these gains, for every D-measure above but D-GAP (DIN-NTCIR-eval's gcompute lines).
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

from irmeasures_ext.engine.intents import JUDGMENT_COLUMN, earlier_of_same
from irmeasures_ext.engine.judgments import IdealList, Intents, Judgments, ideal_list
from irmeasures_ext.engine.kernels.common import KernelFunction, PrepareFunction, cascade, discounted_gain, kernel
from irmeasures_ext.engine.kernels.ntcir_br import rank_biased_norm
from irmeasures_ext.engine.kernels.ntcir_gap import grade_weight
from irmeasures_ext.engine.kernels.q import blended_ratio
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts, safe_divide, segment_cumsum, segment_sum
from irmeasures_ext.errors import InputError
from irmeasures_ext.measures.base import optional_param


def _ms_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1.0)


#: The cutoff of a measure given without one: the whole list (NTCIREVAL's lines without ``@k``).
WHOLE_LIST = np.iinfo(np.int64).max


def _cutoff(measure: irm.Measure) -> int:
    """The measure's cutoff k, or :data:`WHOLE_LIST`."""
    cutoff = optional_param(measure, 'cutoff')
    return WHOLE_LIST if cutoff is None else cutoff


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


def _pairs_of_rows(ranked: RankedRun, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, intent, label) of each (intent, label >= ``rel``) judgment of the run's rows, in row order (computed
    once per run and ``rel``)."""
    intents = ranked.judgments.intents
    assert intents is not None  # (the evaluator reads the qrels with intents)
    return ranked.cached(('intent pairs', rel), lambda: intents.of_rows(ranked.judged[JUDGMENT_COLUMN], rel))


def _d_gains(ranked: RankedRun, rel: int) -> np.ndarray:
    """GG per row."""
    return global_gains(ranked.judgments, rel)[ranked.judged[JUDGMENT_COLUMN]]


def _din_gains(ranked: RankedRun, rel: int) -> np.ndarray:
    """DIN gain per row: a navigational intent counts only at its first relevant doc."""
    intents = _intents(ranked.judgments)
    row, intent, label = _pairs_of_rows(ranked, rel)
    assert intents.navigational is not None  # (set with the probabilities)
    counts = ~intents.navigational[intent] | (earlier_of_same(intent) == 0)
    return np.bincount(row, np.where(counts, _probability(intents)[intent] * label, 0.0), minlength=len(ranked.rank))


GainsOfRows = Callable[[RankedRun, int], np.ndarray]


class GainLists(NamedTuple):
    """Ranked lists of gains, one per segment (a query, or a query's intent): rows grouped by segment in rank
    order (only rows of gain above 0 needed), each segment's ideal list and its top gain H."""

    segment: np.ndarray
    rank: np.ndarray
    gain: np.ndarray
    ideal: IdealList
    top: np.ndarray

    @property
    def n_segments(self) -> int:
        return len(self.ideal.counts)

    def at(self, cutoff: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(segment, rank, gain) of the rows ranked ``cutoff`` or better."""
        keep = self.rank <= cutoff
        return self.segment[keep], self.rank[keep], self.gain[keep]

    def blended(self, cutoff: int, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(segment, rank, gain, BR) of the rows of gain above 0 ranked ``cutoff`` or better, BR(r) = (C(r) +
        β·CG(r)) / (r + β·CG*(r)) (NTCIREVAL's default β = 1; β = 0 gives precision C(r)/r)."""
        starts = np.searchsorted(self.segment, np.arange(self.n_segments))
        relevant = self.gain > 0
        hits = segment_cumsum(relevant.astype(np.float64), self.segment, starts)
        gained = segment_cumsum(self.gain, self.segment, starts)
        counted = relevant & (self.rank <= cutoff)
        segment, rank = self.segment[counted], self.rank[counted]
        blended = blended_ratio(hits[counted], gained[counted], rank, self.ideal.cumulative_at(segment, rank), beta)
        return segment, rank, self.gain[counted], blended


def _top_of(ideal: IdealList) -> np.ndarray:
    """H per segment: its ideal list's first gain (0 for an empty list)."""
    top = np.zeros(len(ideal.counts))
    has = ideal.counts > 0
    top[has] = ideal.gain[ideal.starts[has]]
    return top


def _global_lists(ranked: RankedRun, rel: int, gains_of: GainsOfRows) -> GainLists:
    """The run's lists of GG (or DIN's gains, ``gains_of``) per query, its rows of gain above 0, against the
    D-measures' ideal list (computed once per run, ``gains_of`` and ``rel``)."""
    def compute() -> GainLists:
        ideal = global_ideal(ranked.judgments, rel)
        gain = gains_of(ranked, rel)
        kept = gain > 0
        return GainLists(ranked.query[kept], ranked.rank[kept], gain[kept], ideal, _top_of(ideal))
    return ranked.cached(('global lists', gains_of, rel), compute)


def intent_lists(ranked: RankedRun, rel: int) -> GainLists:
    """The run's lists of gains g_i per intent, against each intent's ideal list (computed once per run and
    ``rel``)."""
    def compute() -> GainLists:
        intents = _intents(ranked.judgments)
        row, intent, label = _pairs_of_rows(ranked, rel)
        order = np.argsort(intent, kind='stable')  # (pairs are in rank order within each query)
        ideal = ranked.judgments.cached(('intent ideal', rel), lambda: ideal_list(
            *intents.relevant_pairs(rel)[1:], len(intents.query)))
        return GainLists(intent[order], ranked.rank[row[order]], label[order].astype(np.float64), ideal,
                         _top_of(ideal))
    return ranked.cached(('intent lists', rel), compute)


# ---------------------------------------------------------------- the measures of a list, per segment

def ms_ndcg(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """MSnDCG@k: Σ_{r≤k} G(r)/log2(r + 1) over the same of the ideal list."""
    cutoff, ideal = measure['cutoff'], lists.ideal
    return safe_divide(
        discounted_gain(lists.segment, lists.rank, lists.gain, cutoff, _ms_discount, lists.n_segments),
        discounted_gain(ideal.query, ideal.rank, ideal.gain, cutoff, _ms_discount, lists.n_segments))


def _blended_mean(lists: GainLists, cutoff: int, beta: float) -> np.ndarray:
    """Σ_{r≤k, G(r)>0} BR(r) / min(k, R), BR with patience ``beta``."""
    segment, _, _, blended = lists.blended(cutoff, beta)
    return safe_divide(segment_sum(blended, segment, lists.n_segments), np.minimum(lists.ideal.counts, cutoff))


def q_measure(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """Q@k = Σ_{r≤k, G(r)>0} BR(r) / min(k, R), BR with the measure's ``beta``."""
    return _blended_mean(lists, _cutoff(measure), measure['beta'])


def average_precision(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """AP@k = Σ_{r≤k, G(r)>0} C(r)/r / min(k, R) (NTCIREVAL's, which divides by min(k, R))."""
    return _blended_mean(lists, _cutoff(measure), 0.0)


def _hits(lists: GainLists, cutoff: int) -> np.ndarray:
    """C(k) per segment: the rows of gain above 0 ranked ``cutoff`` or better."""
    segment, _, gain = lists.at(cutoff)
    return np.bincount(segment[gain > 0], minlength=lists.n_segments)


def precision(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """P@k = C(k)/k."""
    return _hits(lists, measure['cutoff']) / measure['cutoff']


def hit(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """Hit@k = 1 if C(k) > 0, else 0."""
    return (_hits(lists, measure['cutoff']) > 0).astype(np.float64)


def _jk_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(np.maximum(rank, 2.0))  # (1 to rank 2, then log2 r)


def jk_ndcg(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """nDCG@k of Järvelin and Kekäläinen (NTCIREVAL's nDCG@k): discount 1 to rank 2, then log2(r)."""
    cutoff, ideal = measure['cutoff'], lists.ideal
    return safe_divide(
        discounted_gain(lists.segment, lists.rank, lists.gain, cutoff, _jk_discount, lists.n_segments),
        discounted_gain(ideal.query, ideal.rank, ideal.gain, cutoff, _jk_discount, lists.n_segments))


def _err(segment: np.ndarray, rank: np.ndarray, gain: np.ndarray, top: np.ndarray, n_segments: int) -> np.ndarray:
    return cascade(segment, gain / (top[segment] + 1), 1 / rank, n_segments)


def err(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """ERR@k = Σ_{r≤k} (1/r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1) (not normalised)."""
    return _err(*lists.at(_cutoff(measure)), lists.top, lists.n_segments)


def nerr(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """nERR@k = ERR@k / ERR@k of the ideal list."""
    ideal, cutoff = lists.ideal, measure['cutoff']
    keep = ideal.rank <= cutoff
    return safe_divide(err(lists, measure), _err(ideal.query[keep], ideal.rank[keep], ideal.gain[keep], lists.top,
                                                 lists.n_segments))


def rbp(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """RBP@k = (1 − p)·Σ_{r≤k} G(r)·p^{r−1} / H."""
    p = measure['p']
    segment, rank, gain = lists.at(_cutoff(measure))
    return safe_divide((1 - p) * segment_sum(gain * p ** (rank - 1.0), segment, lists.n_segments), lists.top)


def ebr(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """EBR@k = Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1), BR with the measure's ``beta``."""
    segment, _, gain, blended = lists.blended(_cutoff(measure), measure['beta'])
    return cascade(segment, gain / (lists.top[segment] + 1), blended, lists.n_segments)


def _first_of_each(segment: np.ndarray, values: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, ``values`` at its first row (rows grouped by segment); 0 for a segment without rows."""
    first = run_starts(segment)
    result = np.zeros(n_segments)
    result[segment[first]] = values[first]
    return result


def reciprocal_rank(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """RR on the top k = 1/r1, r1 the first rank of gain above 0 (0 without one)."""
    segment, rank, gain = lists.at(_cutoff(measure))
    relevant = gain > 0
    return _first_of_each(segment[relevant], 1.0 / rank[relevant], lists.n_segments)


def o_measure(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """O-measure on the top k = BR(r1) (0 without a row of gain above 0)."""
    segment, _, _, blended = lists.blended(_cutoff(measure), measure['beta'])
    return _first_of_each(segment, blended, lists.n_segments)


#: The decimals to which gains are compared when finding the largest (NTCIREVAL's glabel passes them to gcompute as
#: ``%.12f`` text: 0.1 + 0.2 and 0.3 are one gain there, as they are by definition, but not as doubles).
GAIN_DECIMALS = 12


def _preferred_rank(segment: np.ndarray, rank: np.ndarray, gain: np.ndarray, n_segments: int) -> np.ndarray:
    """rp per segment: the first rank of its largest gain (to :data:`GAIN_DECIMALS`) among the rows given (the int64
    maximum without rows)."""
    gain = np.round(gain, GAIN_DECIMALS)
    best = np.zeros(n_segments)
    np.maximum.at(best, segment, gain)
    preferred = np.full(n_segments, np.iinfo(np.int64).max)
    np.minimum.at(preferred, segment, np.where(gain == best[segment], rank, np.iinfo(np.int64).max))
    return preferred


def p_measure(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """P-measure on the top k = BR(rp), rp the first rank of the largest gain there (0 without one above 0)."""
    segment, rank, gain, blended = lists.blended(_cutoff(measure), measure['beta'])
    at = rank == _preferred_rank(segment, rank, gain, lists.n_segments)[segment]
    result = np.zeros(lists.n_segments)
    result[segment[at]] = blended[at]
    return result


def p_plus(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """P-plus on the top k: the mean BR of the rows of gain above 0 down to rp (0 for a segment with no such row
    there)."""
    segment, rank, gain, blended = lists.blended(_cutoff(measure), measure['beta'])
    until = rank <= _preferred_rank(segment, rank, gain, lists.n_segments)[segment]
    return safe_divide(segment_sum(blended[until], segment[until], lists.n_segments),
                       np.bincount(segment[until], minlength=lists.n_segments))


def rank_biased_ncu(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """NCUrb on the top k = Σ_{G(r)>0} u(r)·γ^{C(r)−1} / Σ_{j≤R} γ^{j−1}, u = BR(r) or C(r)/r (``utility``)."""
    beta = measure['beta'] if measure['utility'] == 'BR' else 0.0
    segment, _, _, utility = lists.blended(_cutoff(measure), beta)
    hits = np.arange(len(segment)) - np.searchsorted(segment, segment) + 1.0  # C(r) at each row of gain above 0
    gamma = measure['gamma']
    return safe_divide(segment_sum(utility * gamma ** (hits - 1), segment, lists.n_segments),
                       rank_biased_norm(lists.ideal.counts, gamma))


#: About the most (row, earlier row) pairs that GAP's grade sums build at once (a few arrays of this length).
GAP_PAIRS_AT_ONCE = 1 << 20


def pair_blocks(pairs: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive row ranges [first, last) covering every row, each as long as its rows' ``pairs`` stay within
    ``limit`` (a row of more pairs alone)."""
    pairs_until = np.cumsum(pairs)
    blocks = []
    first = 0
    while first < len(pairs):
        before = pairs_until[first] - pairs[first]
        last = max(first + 1, int(np.searchsorted(pairs_until, before + limit, side='right')))
        blocks.append((first, last))
        first = last
    return blocks


def grade_sums(segment: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """GS(r) per row (rows grouped by segment in rank order) = Σ over the rows s ≤ r of its segment of m·(m + 1),
    m = min(G(r), G(s)): from every such pair, as NTCIREVAL's gcompute loops, built for a block of rows at a time
    (:func:`pair_blocks`, :data:`GAP_PAIRS_AT_ONCE`; quadratic time in the rows of a segment, as gcompute's)."""
    pairs = np.arange(len(segment)) - np.searchsorted(segment, segment) + 1  # (the rows s ≤ r of its segment)
    sums = np.empty(len(segment))
    for first, last in pair_blocks(pairs, GAP_PAIRS_AT_ONCE):
        count = pairs[first:last]
        row = np.repeat(np.arange(first, last), count)
        earlier = row - (np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count))
        sums[first:last] = np.bincount(row - first, grade_weight(np.minimum(gain[row], gain[earlier])))
    return sums


def graded_average_precision(lists: GainLists, measure: irm.Measure) -> np.ndarray:
    """GAP@k = Σ_{r≤k} GS(r)/r / GI(min(k, R)) over the gains (module docstring), from the rows of gain above 0 in
    a segment's top k."""
    cutoff, ideal = _cutoff(measure), lists.ideal
    segment, rank, gain = lists.at(cutoff)
    relevant = gain > 0
    segment, rank, gain = segment[relevant], rank[relevant], gain[relevant]
    keep = ideal.rank <= cutoff
    return safe_divide(segment_sum(grade_sums(segment, gain) / rank, segment, lists.n_segments),
                       segment_sum(grade_weight(ideal.gain[keep]), ideal.query[keep], lists.n_segments))


OfLists = Callable[[GainLists, irm.Measure], np.ndarray]


def global_measure(of: OfLists, gains_of: GainsOfRows, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """A D-measure (GG: ``_d_gains``) or DIN-measure (``_din_gains``): ``of`` the run's lists per query."""
    return of(_global_lists(ranked, measure['rel'], gains_of), measure)


def intent_aware(of: OfLists, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """IA-M@k = Σ_{i∈I} P(i|q)·M_i@k, M = ``of`` each intent's list."""
    return _per_query(ranked, of(intent_lists(ranked, measure['rel']), measure))


def _intent_recall(ranked: RankedRun, rel: int, depth: np.ndarray) -> np.ndarray:
    """|{i ∈ I: a doc of the top ``depth`` (per query) is relevant to i}| / |I|; needs no probabilities."""
    intents = ranked.judgments.intents
    assert intents is not None  # (the evaluator reads the qrels with intents)
    row, intent, _ = _pairs_of_rows(ranked, rel)
    found = np.zeros(len(intents.query), dtype=bool)
    found[intent[ranked.rank[row] <= depth[intents.query[intent]]]] = True
    return safe_divide(np.bincount(intents.query[found], minlength=ranked.n_queries),
                       intents.covered(rel, ranked.n_queries))


def intent_recall(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """I-rec@k (module docstring)."""
    return _intent_recall(ranked, measure['rel'], np.full(ranked.n_queries, measure['cutoff']))


def intent_recall_at_n(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """I-rec@n: I-rec at rank n = |I| (module docstring)."""
    intents = ranked.judgments.intents
    assert intents is not None  # (the evaluator reads the qrels with intents)
    return _intent_recall(ranked, measure['rel'], intents.covered(measure['rel'], ranked.n_queries))


def probability_sum(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """SUMp = Σ P(i|q) over the intents with a doc judged >= rel (module docstring); the run plays no part."""
    intents = _intents(ranked.judgments)
    relevant = intents.relevant(measure['rel'])
    return np.bincount(intents.query[relevant], _probability(intents)[relevant], minlength=ranked.n_queries)


def sharp(of: KernelFunction, measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """X#@k = γ·I-rec@k + (1 − γ)·X@k, X computed by ``of``."""
    gamma = measure['gamma']
    return gamma * intent_recall(measure, ranked) + (1 - gamma) * of(measure, ranked)


def _per_query(ranked: RankedRun, per_intent: np.ndarray) -> np.ndarray:
    """Σ_i P(i|q)·value_i per query."""
    intents = _intents(ranked.judgments)
    return segment_sum(_probability(intents) * per_intent, intents.query, ranked.n_queries)


def p_plus_q(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P+Q@k (module docstring)."""
    lists = intent_lists(ranked, measure['rel'])
    navigational = _intents(ranked.judgments).navigational
    assert navigational is not None  # (set with the probabilities)
    return _per_query(ranked, np.where(navigational, p_plus(lists, measure), q_measure(lists, measure)))


def _ntcir_kernel(name: str, prepare: PrepareFunction = _check) -> Callable[[KernelFunction], KernelFunction]:
    """Registers a kernel reading the intents, with trec_eval's and the rank column's orders only (the range and
    the expected value are refused by name), and no equivalence classes."""
    return kernel(name, prepare=prepare, bounded_by_credit=lambda measure: False, takes_classes=False,
                  needs_intents=True)


# (Registered by calls of partial functions, not decorators: mutation testing reaches the functions.)
_ntcir_kernel('I_rec', prepare=lambda measure, judgments: None)(intent_recall)
_ntcir_kernel('I_rec_n', prepare=lambda measure, judgments: None)(intent_recall_at_n)
_ntcir_kernel('PplusQ')(p_plus_q)
_ntcir_kernel('SUMp')(probability_sum)
_ntcir_kernel('PplusQ_sharp')(partial(sharp, p_plus_q))
for _name, _of in (('nDCG', ms_ndcg), ('Q', q_measure), ('nERR', nerr), ('ERR', err), ('RBP', rbp), ('EBR', ebr)):
    _ntcir_kernel(f'D_{_name}', _prepare_global)(partial(global_measure, _of, _d_gains))
    if _name != 'nERR':  # (NTCIREVAL's scripts have no D#-nERR)
        _ntcir_kernel(f'D_sharp_{_name}', _prepare_global)(partial(sharp, partial(global_measure, _of, _d_gains)))
    _ntcir_kernel(f'IA_{"MSnDCG" if _name == "nDCG" else _name}')(partial(intent_aware, _of))
for _name, _of in (('AP', average_precision), ('P', precision), ('Hit', hit), ('nDCG_JK', jk_ndcg),
                   ('RR', reciprocal_rank), ('O_measure', o_measure), ('P_measure', p_measure), ('P_plus', p_plus),
                   ('NCU', rank_biased_ncu), ('GAP', graded_average_precision)):
    _ntcir_kernel(f'D_{_name}', _prepare_global)(partial(global_measure, _of, _d_gains))
# DIN-NTCIR-eval's gcompute lines: each D-measure on DIN's gains (no DIN-GAP: the script passes no -gap).
for _name, _of in (('nDCG', ms_ndcg), ('Q', q_measure), ('nERR', nerr), ('ERR', err), ('RBP', rbp), ('EBR', ebr),
                   ('AP', average_precision), ('P', precision), ('Hit', hit), ('nDCG_JK', jk_ndcg),
                   ('RR', reciprocal_rank), ('O_measure', o_measure), ('P_measure', p_measure), ('P_plus', p_plus),
                   ('NCU', rank_biased_ncu)):
    _ntcir_kernel(f'DIN_{_name}', _prepare_global)(partial(global_measure, _of, _din_gains))
for _name, _of in (('nDCG', ms_ndcg), ('Q', q_measure)):
    _ntcir_kernel(f'DIN_sharp_{_name}', _prepare_global)(partial(sharp, partial(global_measure, _of, _din_gains)))
