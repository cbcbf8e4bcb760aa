"""Kernels of TREC ndeval's novelty and diversity measures, under ir_measures' names (declared in
``irmeasures_ext.measures.diversity``), exact to ndeval 4.5 as pyndeval runs it.

Notation (per query): a doc d is relevant to intent j iff its label for j is >= ``rel`` (binary: higher labels
count the same); S = the query's intents with a relevant judged doc; c_j(r) = the docs ranked above r that are
relevant to j; the novelty gain of rank r is gain(r) = Σ_{j ∋ d_r} (1 − α)^{c_j(r)}. The ideal ranking is
ndeval's greedy one over every judged doc: at each rank the doc of largest novelty gain given the docs above it,
equal gains to the larger doc id (byte-wise).

- α-DCG@k = Σ_{r≤k} gain(r)/log2(r + 1) / Σ_{r≤k} S·(1 − α)^{r−1}/log2(r + 1) (ndeval's "ideal ideal");
  ERR-IA@k the same with 1/r for 1/log2(r + 1). At k = 1 ndeval does not divide (its value is the sum).
- α-nDCG@k and nERR-IA@k divide the same sums by the ideal ranking's (0 if either is 0).
- NRBP = (1 − (1 − α)·β)/S · Σ_r β^{r−1}·gain(r) over the whole run; nNRBP = NRBP / the ideal ranking's NRBP
  (NaN, 0/0, where S = 0).
- AP-IA = (1/S)·Σ_j AP_j, AP_j = Σ_{r: d_r ∋ j} (c_j(r) + 1)/r / R_j, R_j = the judged docs relevant to j.
- P-IA@k = Σ_{r≤k} |{j ∋ d_r}| / (k·S); S-recall@k = |∪_{r≤k} {j ∋ d_r}| / S.

Every value is 0 where S = 0, except nNRBP's. ERR-IA, nERR-IA, P-IA, AP-IA and S-recall take no α
parameter in ir_measures: ndeval's default, 0.5.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.intents import JUDGMENT_COLUMN, earlier_of_same
from irmeasures_ext.engine.judgments import Intents, Judgments
from irmeasures_ext.engine.kernels.common import KernelFunction, PrepareFunction, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts, safe_divide, segment_sum
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import optional_param

#: ndeval's defaults for α (redundancy intolerance) and β (patience).
ALPHA = BETA = 0.5

Discount = Callable[[np.ndarray], np.ndarray]


def _log_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1.0)


def _rank_discount(rank: np.ndarray) -> np.ndarray:
    return rank.astype(np.float64)


class Ideal(NamedTuple):
    """The greedy ideal ranking's novelty gains, per query in rank order (relevant docs only: the rest gain 0)."""

    query: np.ndarray
    rank: np.ndarray
    gain: np.ndarray


def _alpha(measure: irm.Measure) -> float:
    return float(measure['alpha']) if 'alpha' in measure.SUPPORTED_PARAMS else ALPHA


def _intents(judgments: Judgments) -> Intents:
    assert judgments.intents is not None  # (the evaluator reads the qrels with intents for these measures)
    return judgments.intents


def _check(measure: irm.Measure, judgments: Judgments) -> None:
    """MeasureParamError for a measure without the cutoff ndeval computes it at, or α, β outside [0, 1]."""
    if 'cutoff' in measure.SUPPORTED_PARAMS and optional_param(measure, 'cutoff') is None:
        raise MeasureParamError(f'{measure}: ndeval computes {measure.NAME} at a cutoff: write {measure.NAME}@k')
    for name in ('alpha', 'beta'):  # (ir_measures has checked that each is a float)
        if name in measure.SUPPORTED_PARAMS and not 0 <= measure[name] <= 1:
            raise MeasureParamError(f'{measure}: {name} must be a number from 0 to 1, got {measure[name]!r}')


def _prepare_ideal(measure: irm.Measure, judgments: Judgments) -> None:
    _check(measure, judgments)
    ideal(judgments, measure['rel'], _alpha(measure))


def novelty_gains(ranked: RankedRun, rel: int, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(row, intent, c_j) of each (row, relevant intent) pair of ``ranked`` in rank order (c_j: the docs above
    the row relevant to the intent), and gain(r) per row (computed once per run, ``rel`` and ``alpha``)."""
    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        row, intent, _ = _intents(ranked.judgments).of_rows(ranked.judged[JUDGMENT_COLUMN], rel)
        seen = earlier_of_same(intent)
        return row, intent, seen, np.bincount(row, (1 - alpha) ** seen, minlength=len(ranked.rank))
    return ranked.cached(('novelty gains', rel, alpha), compute)


def ideal(judgments: Judgments, rel: int, alpha: float) -> Ideal:
    """ndeval's greedy ideal ranking of the judged docs relevant to an intent (computed once per ``rel`` and
    ``alpha``): at each step every query with docs left takes the doc of largest novelty gain (equal gains: the
    larger doc id, the later entry), which then counts as seen for its intents."""
    def compute() -> Ideal:
        intents = _intents(judgments)
        entry, intent, _ = intents.relevant_pairs(rel)
        new = run_starts(entry)
        candidate = np.cumsum(new) - 1  # per pair, its doc among the candidates
        query = judgments.query[entry[new]]  # per candidate (ascending: entries are by query, then doc id)
        seen = np.zeros(len(intents.query))
        steps: list[tuple[np.ndarray, np.ndarray]] = []
        while len(query):
            gain = np.bincount(candidate, (1 - alpha) ** seen[intent], minlength=len(query))
            first = np.flatnonzero(run_starts(query))
            best = np.repeat(np.maximum.reduceat(gain, first), np.diff(np.append(first, len(query))))
            pick = np.maximum.reduceat(np.where(gain == best, np.arange(len(query)), -1), first)
            steps.append((query[pick], gain[pick]))
            left = np.ones(len(query), dtype=bool)
            left[pick] = False
            taken = ~left[candidate]
            seen += np.bincount(intent[taken], minlength=len(seen))
            renumbered = np.cumsum(left) - 1
            candidate, intent, query = renumbered[candidate[~taken]], intent[~taken], query[left]
        ideal_query = np.concatenate([np.empty(0, dtype=np.int64)] + [step[0] for step in steps])
        ideal_rank = np.concatenate([np.empty(0, dtype=np.int64)]
                                    + [np.full(len(step[0]), rank) for rank, step in enumerate(steps, start=1)])
        order = np.lexsort((ideal_rank, ideal_query))
        ideal_gain = np.concatenate([np.empty(0)] + [step[1] for step in steps])
        return Ideal(ideal_query[order], ideal_rank[order], ideal_gain[order])
    return judgments.cached(('novelty ideal', rel, alpha), compute)


def _covered(judgments: Judgments, rel: int) -> np.ndarray:
    """S per query (computed once per ``rel``)."""
    return judgments.cached(('intents covered', rel), lambda: _intents(judgments).covered(rel, judgments.n_queries))


def _discounted(query: np.ndarray, rank: np.ndarray, gain: np.ndarray, cutoff: int, discount: Discount,
                n_queries: int) -> np.ndarray:
    top = rank <= cutoff
    return segment_sum(gain[top] / discount(rank[top]), query[top], n_queries)


def _run_sum(measure: irm.Measure, ranked: RankedRun, discount: Discount) -> np.ndarray:
    """Σ_{r≤k} gain(r)/discount(r) per query."""
    gain = novelty_gains(ranked, measure['rel'], _alpha(measure))[3]
    return _discounted(ranked.query, ranked.rank, gain, measure['cutoff'], discount, ranked.n_queries)


def _by_ideal_ideal(measure: irm.Measure, ranked: RankedRun, discount: Discount) -> np.ndarray:
    """The run's sum over S·Σ_{r≤k} (1 − α)^{r−1}/discount(r) (not divided at k = 1, as ndeval)."""
    total = _run_sum(measure, ranked, discount)
    cutoff, alpha = measure['cutoff'], _alpha(measure)
    covered = _covered(ranked.judgments, measure['rel'])
    if cutoff == 1:  # (where S = 0, no doc is relevant: the sum is 0)
        return total
    ranks = np.arange(1, cutoff + 1)
    return safe_divide(total, covered * float(np.sum((1 - alpha) ** (ranks - 1) / discount(ranks))))


def _by_ideal(measure: irm.Measure, ranked: RankedRun, discount: Discount) -> np.ndarray:
    """The run's sum over the greedy ideal ranking's (0 where either is 0)."""
    best = ideal(ranked.judgments, measure['rel'], _alpha(measure))
    return safe_divide(_run_sum(measure, ranked, discount),
                       _discounted(best.query, best.rank, best.gain, measure['cutoff'], discount, ranked.n_queries))


def _diversity_kernel(name: str, prepare: PrepareFunction, may_be_nan: bool = False) -> Callable[[KernelFunction],
                                                                                                KernelFunction]:
    """Registers a kernel reading the intents, refusing classes, the tie range (no order of tied docs by a credit
    per doc bounds a novelty measure) and the expected value (none has a closed form here)."""
    return kernel(name, prepare=prepare, may_be_nan=may_be_nan, bounded_by_credit=lambda measure: False,
                  takes_classes=False, needs_intents=True)


@_diversity_kernel('alpha_DCG', _check)
def alpha_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """α-DCG@k (module docstring)."""
    return _by_ideal_ideal(measure, ranked, _log_discount)


@_diversity_kernel('ERR_IA', _check)
def err_ia(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """ERR-IA@k (module docstring)."""
    return _by_ideal_ideal(measure, ranked, _rank_discount)


@_diversity_kernel('alpha_nDCG', _prepare_ideal)
def alpha_ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """α-nDCG@k (module docstring)."""
    return _by_ideal(measure, ranked, _log_discount)


@_diversity_kernel('nERR_IA', _prepare_ideal)
def nerr_ia(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nERR-IA@k (module docstring)."""
    return _by_ideal(measure, ranked, _rank_discount)


def _rbp_sum(query: np.ndarray, rank: np.ndarray, gain: np.ndarray, measure: irm.Measure,
             n_queries: int) -> np.ndarray:
    """(1 − (1 − α)·β) · Σ_r β^{r−1}·gain(r) per query (NRBP before dividing by S)."""
    alpha, beta = _alpha(measure), float(measure['beta'])
    return (1 - (1 - alpha) * beta) * segment_sum(beta ** (rank - 1.0) * gain, query, n_queries)


@_diversity_kernel('NRBP', _check)
def nrbp(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NRBP (module docstring)."""
    gain = novelty_gains(ranked, measure['rel'], _alpha(measure))[3]
    return safe_divide(_rbp_sum(ranked.query, ranked.rank, gain, measure, ranked.n_queries),
                       _covered(ranked.judgments, measure['rel']))


@_diversity_kernel('nNRBP', _prepare_ideal, may_be_nan=True)
def nnrbp(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nNRBP (module docstring): NaN where no intent has a relevant doc."""
    gain = novelty_gains(ranked, measure['rel'], _alpha(measure))[3]
    best = ideal(ranked.judgments, measure['rel'], _alpha(measure))
    return (_rbp_sum(ranked.query, ranked.rank, gain, measure, ranked.n_queries)  # (0/0: the evaluator's errstate)
            / _rbp_sum(best.query, best.rank, best.gain, measure, ranked.n_queries))


@_diversity_kernel('AP_IA', _check)
def ap_ia(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """AP-IA (module docstring)."""
    rel = measure['rel']
    intents = _intents(ranked.judgments)
    row, intent, seen, _ = novelty_gains(ranked, rel, ALPHA)
    n_relevant = np.bincount(intents.relevant_pairs(rel)[1], minlength=len(intents.query))
    per_intent = safe_divide(np.bincount(intent, (seen + 1) / ranked.rank[row], minlength=len(intents.query)),
                             n_relevant)
    return safe_divide(segment_sum(per_intent, intents.query, ranked.n_queries), _covered(ranked.judgments, rel))


@_diversity_kernel('P_IA', _check)
def p_ia(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """P-IA@k (module docstring)."""
    rel, cutoff = measure['rel'], measure['cutoff']
    row = novelty_gains(ranked, rel, ALPHA)[0]
    top = row[ranked.rank[row] <= cutoff]
    return safe_divide(np.bincount(ranked.query[top], minlength=ranked.n_queries),
                       cutoff * _covered(ranked.judgments, rel))


@_diversity_kernel('StRecall', _check)
def subtopic_recall(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """S-recall@k (module docstring)."""
    rel, cutoff = measure['rel'], measure['cutoff']
    row, _, seen, _ = novelty_gains(ranked, rel, ALPHA)
    first = row[(seen == 0) & (ranked.rank[row] <= cutoff)]
    return safe_divide(np.bincount(ranked.query[first], minlength=ranked.n_queries),
                       _covered(ranked.judgments, rel))
