"""Kernels of ir_measures' C/W/L measures, as cwl_eval computes them (``RBP`` with ``rel``, ``BPM``, ``SDCG``,
``NERR8``–``NERR11``, ``INST``, ``INSQ``), and of trectools' RBP (``RBP`` without ``rel``); declared in
``irmeasures_ext.measures.cwl_family``.

A C/W/L measure is given by C(i), the probability that a user at rank i goes on to rank i + 1. The user
reaches rank i with P(i) = Π_{j<i} C(j) and the measure is the expected gain per doc looked at,
Σ_i P(i)·g(i) / Σ_i P(i), over ranks 1 .. :data:`CWL_DEPTH` (ir_measures calls cwl_eval with ``max_n=1000``:
each ranked list is cut or padded to 1000 ranks; unjudged and missing docs gain 0). The gains are
ir_measures': ``RBP(rel=r)`` 1 for a label >= r (negative labels read as 0 first), the others the label read
as 0 if negative, clipped to [min_rel, max_rel] and scaled to [0, 1].

Each kernel takes the judged rows ranked within the 1000 and of positive gain (the others leave P and
the gain sums as they are), and sums in closed form over the ranks between them: C(i) = base(i) with a
base that does not depend on the gains (RBP, SDCG, INSQ: P is a table of ranks), base(i)·(1 − g(i))
(NERR: P = the base's table times Π (1 − g) over the rows above), or a function of the gain so far (INST:
a trigamma sum between rows; BPM: the rank where the gain so far reaches T).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import UNJUDGED, Judgments
from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.ties import expected_position_weight, positions
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import INT64_MAX, check_integer, optional_param
from irmeasures_ext.measures.ntcir_cascade import check_probability

#: The ranks cwl_eval evaluates: ir_measures builds its rankings with ``max_n=1000``.
CWL_DEPTH = 1000
#: Σ of the rank-dependent part of P over the ranks (a, b] of runs, given the state along each run.
RunSum = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: The measures of cwl_eval's graded gains (``min_rel``, ``max_rel``).
GRADED = ('BPM', 'SDCG', 'NERR8', 'NERR9', 'NERR10', 'NERR11', 'INST', 'INSQ')


def check_params(measure: irm.Measure, judgments: Judgments | None = None) -> None:
    """MeasureParamError for a parameter the tools would take but the measure does not define: p outside
    [0, 1], T not a finite number > 0, min_rel not below max_rel (for ``prepare``: when the evaluator is
    built, before a run is read)."""
    name = measure.NAME
    if name in ('RBP', 'NERR10'):
        check_probability(name, 'p', measure['p'], below_one=False)
    if name in ('BPM', 'NERR11', 'INST', 'INSQ'):
        target = measure['T']
        if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < math.inf:
            raise MeasureParamError(f'{name}: T must be a finite number > 0, got {target!r}')
    if name in GRADED:
        low, high = (check_integer(name, param, measure[param], minimum=-INT64_MAX - 1)
                     for param in ('min_rel', 'max_rel'))
        if low >= high:
            raise MeasureParamError(f'{name}: min_rel must be below max_rel, got min_rel={low}, max_rel={high}')


def gain(measure: irm.Measure, labels: np.ndarray) -> np.ndarray:
    """Each label's gain (0 for unjudged rows): cwl_eval's graded gain (the label, 0 if negative, clipped to
    [min_rel, max_rel] and scaled to [0, 1]); for ``RBP`` with ``rel``, 1 if the label (0 if negative) is
    >= rel; for ``RBP`` without, trectools' gain, the label if positive. Also the credit by which
    optimistic/pessimistic order tied docs."""
    judged = labels != UNJUDGED
    nonnegative = np.maximum(labels, 0)
    if measure.NAME != 'RBP':
        low, high = measure['min_rel'], measure['max_rel']
        scaled = (np.clip(nonnegative, low, high).astype(np.float64) - low) / (high - low)
        return np.where(judged, scaled, 0.0)
    rel = optional_param(measure, 'rel')
    if rel is None:
        return np.where(judged, nonnegative, 0).astype(np.float64)
    return (judged & (nonnegative >= rel)).astype(np.float64)


def _continuation(measure: irm.Measure) -> np.ndarray:
    """C(i) for ranks i = 1 .. CWL_DEPTH as cwl_eval writes it, without the factor (1 − g(i)) of NERR."""
    rank = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
    name = measure.NAME
    if name in ('RBP', 'NERR10'):
        return np.full(CWL_DEPTH, float(measure['p']))
    if name == 'SDCG':
        return np.where(rank < measure['cutoff'], np.log(rank + 1) / np.log(rank + 2), 0.0)
    if name == 'NERR8':
        return np.where(rank < measure['cutoff'], 1.0, 0.0)
    if name == 'NERR9':
        return np.where(rank < measure['cutoff'], rank / (rank + 1), 0.0)
    twice_target = 2 * measure['T']  # INSQ, NERR11
    return ((rank + twice_target - 1) / (rank + twice_target)) ** 2


def _reach(measure: irm.Measure) -> np.ndarray:
    """Π_{j<i} C(j) (the base's, without gains) at ranks i = 1 .. CWL_DEPTH, at index i (index 0: 0)."""
    return np.concatenate(([0.0, 1.0], np.cumprod(_continuation(measure)[:-1])))


def _rank_weights(measure: irm.Measure, length: int) -> np.ndarray:
    """The weight of each rank 0 .. length − 1 in a measure linear in the gains (RBP, SDCG, INSQ): trectools'
    (1 − p)·p^(r−1) down to the cutoff, or cwl_eval's P(r) / Σ P within CWL_DEPTH (0 beyond)."""
    weight = np.zeros(length)
    if measure.NAME == 'RBP' and optional_param(measure, 'rel') is None:
        cutoff, p = optional_param(measure, 'cutoff'), measure['p']
        end = length if cutoff is None else min(length, cutoff + 1)
        weight[1:end] = (1 - p) * p ** (np.arange(1, end) - 1.0)
        return weight
    reach = _reach(measure)
    end = min(length, CWL_DEPTH + 1)
    weight[:end] = (reach / reach.sum())[:end]
    return weight


def _expected_linear(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[value] over the orderings of each tie group: each doc's gain times the mean weight of its group's ranks."""
    weight = _rank_weights(measure, len(positions(ranked)))
    return ranked.per_query_sum(gain(measure, ranked.label) * expected_position_weight(ranked, weight, None))


def linear(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Σ_r weight(r)·g(r) per query (:func:`_rank_weights`)."""
    weight = _rank_weights(measure, int(ranked.rank.max(initial=0)) + 1)
    return ranked.per_query_sum(gain(measure, ranked.label) * weight[ranked.rank])


for _name in ('RBP', 'SDCG', 'INSQ'):
    kernel(_name, prepare=check_params, expected=_expected_linear, credit=gain)(linear)


class _GainRows:
    """The rows of positive gain ranked within CWL_DEPTH, grouped by query in rank order: their query, rank
    and gain, and the running sums and products of the rows above each, in rank order (cwl_eval's np.cumsum
    order: BPM compares the gain so far with T to the last bit)."""

    def __init__(self, measure: irm.Measure, ranked: RankedRun) -> None:
        row_gain = gain(measure, ranked.label)
        keep = (row_gain > 0) & (ranked.rank <= CWL_DEPTH)
        self.query, self.rank, self.gain = ranked.query[keep], ranked.rank[keep], row_gain[keep]
        self.n_queries = ranked.n_queries
        starts = np.searchsorted(self.query, np.arange(self.n_queries))
        self.offset = np.arange(len(self.query)) - starts[self.query]
        order = np.argsort(self.offset, kind='stable')
        self._by_offset = np.split(order, np.searchsorted(self.offset[order], np.arange(1, self.offset.max(initial=0)
                                                                                         + 1)))

    def running(self, values: np.ndarray, combine: np.ufunc) -> np.ndarray:
        """``combine`` accumulated down each query's rows, the row itself included (one rank offset at a time,
        every query at once: the exact sequential sums and products)."""
        total = values.astype(np.float64, copy=True)
        for rows in self._by_offset[1:]:
            total[rows] = combine(total[rows - 1], total[rows])
        return total

    def before(self, running: np.ndarray, identity: float | bool) -> np.ndarray:
        """The running values of the rows above each row (``identity`` for a query's first row)."""
        shifted = np.concatenate(([identity], running[:-1]))
        return np.where(self.offset == 0, identity, shifted)

    def final(self, running: np.ndarray, identity: float) -> np.ndarray:
        """Each query's running value after its last row (``identity`` for a query without rows)."""
        value = np.full(self.n_queries, identity)
        last = np.concatenate((self.query[1:] != self.query[:-1], [True]))[:len(self.query)]
        value[self.query[last]] = running[last]
        return value

    def per_query_sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.query, weights=values, minlength=self.n_queries).astype(np.float64, copy=False)

    def over_runs(self, kept_after: np.ndarray, state_after: np.ndarray, run_sum: RunSum) -> np.ndarray:
        """Σ_i P(i) over ranks 1 .. CWL_DEPTH per query, where P is a factor (``kept``: 1 down to the first row,
        then the running ``kept_after`` of the rows above) times a function of the rank and a state that both
        change at the rows only: per run of ranks (a, b] between rows, and after the last row down to
        CWL_DEPTH, its factor times ``run_sum(a, b, state)``, the state 0 down to the first row."""
        before = self.per_query_sum(self.before(kept_after, 1.0) * run_sum(
            self.before(self.rank, 0), self.rank, self.before(state_after, 0.0)))
        tail = run_sum(self.final(self.rank, 0), np.full(self.n_queries, CWL_DEPTH), self.final(state_after, 0.0))
        return before + self.final(kept_after, 1.0) * tail


def stopping_cascade(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """NERR8–NERR11: C(i) = base(i)·(1 − g(i)), so P(i) = B(i)·Q(i), B the base's reach and Q(i) =
    Π_{j<i} (1 − g(j)) over the rows above: Σ P·g = Σ_rows B(r)·Q_before·g, and Σ P sums B's cumulative
    sums CB over the runs of ranks between rows, each at its Q."""
    rows = _GainRows(measure, ranked)
    reach = _reach(measure)
    cumulative_reach = np.cumsum(reach)  # (index 0: 0)
    kept_after = rows.running(1 - rows.gain, np.multiply)
    utility = rows.per_query_sum(reach[rows.rank] * rows.before(kept_after, 1.0) * rows.gain)
    return utility / rows.over_runs(kept_after, np.zeros(len(rows.rank)),
                                    lambda start, end, _: cumulative_reach[end] - cumulative_reach[start])


for _name in ('NERR8', 'NERR9', 'NERR10', 'NERR11'):
    kernel(_name, prepare=check_params, credit=gain)(stopping_cascade)


def _never(measure: irm.Measure) -> bool:
    """For ``bounded_by_credit``: BPM and INST (a doc of less gain tied before one of more can raise them)."""
    return False


@kernel('INST', prepare=check_params, bounded_by_credit=_never)
def inst(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """INST: C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − CG(i), CG(i) the gain down to rank i.

    With y(i) = i − 1 + 2T − CG(i − 1) (> 0, as gains are at most 1) the product telescopes between rows:
    P(i) = (2T / y(i))² · Q(i), Q(i) = Π over the rows above of (1 − g/y)². Between rows, CG is constant,
    so Σ_i P(i) sums 1/(i − 1 + d)², d = 2T − CG, over the runs of ranks (a, b] between rows: trigamma
    differences ψ1(a + d) − ψ1(b + d). (2T)² cancels in the ratio."""
    rows = _GainRows(measure, ranked)
    twice_target = 2.0 * measure['T']
    gain_after = rows.running(rows.gain, np.add)
    y = rows.rank - 1 + twice_target - rows.before(gain_after, 0.0)
    kept_after = rows.running((1 - rows.gain / y) ** 2, np.multiply)
    utility = rows.per_query_sum(rows.before(kept_after, 1.0) * rows.gain / y ** 2)
    return utility / rows.over_runs(kept_after, gain_after, lambda start, end, gain_so_far: (
        trigamma(start + twice_target - gain_so_far) - trigamma(end + twice_target - gain_so_far)))


@kernel('BPM', prepare=check_params, bounded_by_credit=_never)
def bpm(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """BPM@K (static): the user reads on while the gain so far is below T and fewer than K docs are read:
    the mean gain of the first m = min(K, CWL_DEPTH, first rank where CG >= T) ranks."""
    depth = min(measure['cutoff'], CWL_DEPTH)
    rows = _GainRows(measure, ranked)
    within = rows.rank <= depth
    cumulative = rows.running(rows.gain, np.add)
    reached = within & (cumulative >= measure['T'])
    read = np.full(rows.n_queries, float(depth))
    first = reached & ~rows.before(reached, False)  # (the gain so far only grows down a query)
    read[rows.query[first]] = rows.rank[first]
    return rows.per_query_sum(np.where(rows.rank <= read[rows.query], rows.gain, 0.0)) / read


#: ψ1's asymptotic series for x >= _ASYMPTOTIC: 1/x + 1/(2x²) + Σ_k B_2k / x^(2k+1) (Bernoulli numbers).
_ASYMPTOTIC = 20.0
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66)


def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ1(x) = Σ_{t>=0} 1/(x + t)² for x > 0: the recurrence ψ1(x) = 1/x² + ψ1(x + 1) up to x >= 20, then
    the asymptotic series (its next term, 691/2730/x^13, is below 1e-17 there)."""
    x = np.asarray(x, dtype=np.float64).copy()
    total = np.zeros(x.shape)
    while (small := x < _ASYMPTOTIC).any():
        total[small] += 1 / x[small] ** 2
        x[small] += 1
    inverse = 1 / x
    series = sum(b * inverse ** (2 * k + 3) for k, b in enumerate(_BERNOULLI))
    return total + inverse + inverse ** 2 / 2 + series

