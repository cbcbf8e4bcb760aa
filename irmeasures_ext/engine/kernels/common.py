"""What the kernels share: the kernel registry, the gain and DCG helpers and NTCIREVAL's cascade."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import IdealList, Judgments
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts, segment_cumsum, segment_sum
from irmeasures_ext.engine.ties import expected_position_weight, positions
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import name_of, optional_param

KernelFunction = Callable[[irm.Measure, RankedRun], np.ndarray]
PrepareFunction = Callable[[irm.Measure, Judgments], Any]
CreditFunction = Callable[[irm.Measure, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Kernel:
    """Computes one measure family for every query of a ranked run at once."""

    compute: KernelFunction    # (measure, ranked run) -> one value per query
    #: Computes the measure's qrels-side values (cached on the judgments, which ``compute`` then
    #: reuses) when the evaluator is built, so once per qrels, and while a run file is read.
    prepare: PrepareFunction | None = None
    #: Whether a value may be NaN by definition (else any non-finite value is an overflow error).
    may_be_nan: bool = False
    #: The exact expected value over all orderings of each tie group (tie policy ``expected``);
    #: None if the measure has no such kernel (a measure that ignores the order reuses ``compute``).
    expected: KernelFunction | None = None
    #: The credit the measure gives a judged doc of each label (higher is better): tie policies
    #: ``optimistic``/``pessimistic`` put the tied docs of most credit first/last, which must give the
    #: measure's largest/smallest value over the orderings of each tie group. None: the label itself, which
    #: serves every measure whose credit does not decrease as the label grows (binary relevance).
    credit: CreditFunction | None = None
    #: Whether tied docs ordered by ``credit`` give the measure's largest/smallest value, for a measure of the
    #: family; None: for every one. Where not, ``optimistic``/``pessimistic`` are refused naming the measure.
    bounded_by_credit: Callable[[irm.Measure], bool] | None = None
    #: Whether the measure is defined with equivalence classes (``classes=True``); where not, they are refused
    #: naming the measure (:func:`irmeasures_ext.engine.transforms.transforms_of`).
    takes_classes: bool = True
    #: Whether the measure reads the intent of each judgment (the diversity measures): the qrels are then read
    #: with their intents (:func:`irmeasures_ext.engine.intents.judgments_of_intents`).
    needs_intents: bool = False

    def function(self, measure: irm.Measure, ties: str) -> KernelFunction:
        """The function computing ``measure`` under tie policy ``ties``: MeasureParamError for ``expected``
        where the measure has no exact expected value, and for ``optimistic``/``pessimistic`` where ordering
        by credit does not give its best/worst value."""
        bounded = self.bounded_by_credit is None or self.bounded_by_credit(measure)
        if ties in ('optimistic', 'pessimistic') and not bounded:
            raise MeasureParamError(f'{measure} is not supported under ties={ties} (no order of tied docs by a '
                                    f'credit per doc gives its {"best" if ties == "optimistic" else "worst"} value '
                                    'over their orderings); its policies: ties=trec_eval and ties=rank')
        if ties != 'expected':
            return self.compute
        if self.expected is None:
            others = ('its range: ties=optimistic and ties=pessimistic' if bounded else
                      'its policies: ties=trec_eval and ties=rank')
            raise MeasureParamError(f'{measure} is not supported under ties=expected (no closed form for its mean '
                                    f'over the orderings of tied docs); {others}')
        return self.expected


#: Kernels by measure NAME; filled by the kernel modules on import.
KERNELS: dict[str, Kernel] = {}
#: Kernels of the measures called NAME whose parameter has a given value (e.g. ir_measures' nDCG with
#: ``dcg='exp-log2'``, gdeval's, beside trec_eval's): NAME -> (parameter, {value: kernel}); they take precedence
#: over ``KERNELS[NAME]``.
VARIANTS: dict[str, tuple[str, dict[Any, Kernel]]] = {}


def kernel_of(measure: irm.Measure) -> Kernel:
    """The kernel of ``measure``, one our provider computes: its variant's (:data:`VARIANTS`) if it has one."""
    name = name_of(measure)
    if name in VARIANTS:
        parameter, by_value = VARIANTS[name]
        if (variant := by_value.get(measure[parameter])) is not None:
            return variant
    return KERNELS[name]


def kernel(name: str, prepare: PrepareFunction | None = None, may_be_nan: bool = False,
           expected: KernelFunction | None = None, credit: CreditFunction | None = None,
           bounded_by_credit: Callable[[irm.Measure], bool] | None = None, takes_classes: bool = True,
           variant: tuple[str, Any] | None = None,
           needs_intents: bool = False) -> Callable[[KernelFunction], KernelFunction]:
    """Registers the decorated function as the kernel of the measures called ``name`` or, given ``variant``
    (parameter, value), of those among them whose parameter has that value."""
    def register(compute: KernelFunction) -> KernelFunction:
        built = Kernel(compute, prepare, may_be_nan, expected, credit, bounded_by_credit, takes_classes,
                       needs_intents)
        if variant is None:
            KERNELS[name] = built
        else:
            parameter, value = variant
            VARIANTS.setdefault(name, (parameter, {}))[1][value] = built
        return compute
    return register


def expected_dcg(ranked: RankedRun, gain: np.ndarray, discount: Callable[[np.ndarray], np.ndarray],
                 cutoff: int | None) -> np.ndarray:
    """E[DCG@cutoff] per query over the orderings of each tie group: each judged doc's gain times the
    mean of 1 / discount over its group's positions (DCG is linear in the documents' positions)."""
    position = positions(ranked)
    weight = np.zeros(len(position))
    weight[1:] = 1 / discount(position[1:])
    return ranked.per_query_sum(gain * expected_position_weight(ranked, weight, cutoff))


def mapped_gain(labels: np.ndarray, relevant: np.ndarray, gains: dict[float, float] | None,
                default: np.ndarray) -> np.ndarray:
    """Gain per label: ``gains[label]`` if given, else ``default``; 0 where not ``relevant``."""
    gain = np.where(relevant, default, 0.0).astype(np.float64)
    for label, value in (gains or {}).items():
        gain[relevant & (labels == label)] = value
    return gain


def graded_gain(labels: np.ndarray, rel: float, gains: dict[float, float] | None) -> np.ndarray:
    """NTCIREVAL-style gain per label: the label (or ``gains[label]``) if label >= rel, else 0."""
    relevant = labels >= rel
    return mapped_gain(labels, relevant, gains, np.where(relevant, labels, 0))


def graded_credit(measure: irm.Measure, labels: np.ndarray) -> np.ndarray:
    """The credit of NTCIREVAL's measures (Q, nDCG_JK, MSnDCG, nERR) for a doc of each label: relevant
    docs (label >= rel) by :func:`graded_gain`, then the others (-1). By gain maximises a DCG (the
    rearrangement inequality) and ERR (swapping two adjacent docs moves (p_a - p_b)(1/r - 1/(r + 1)));
    Q also needs a relevant doc of gain 0 before a non-relevant one, since it counts toward C(r)."""
    rel = measure['rel']
    return np.where(labels >= rel, graded_gain(labels, rel, optional_param(measure, 'gains')), -1.0)


def graded_ideal(measure: irm.Measure, judgments: Judgments) -> IdealList:
    """NTCIREVAL's ideal list for ``measure``: the docs with label >= rel by :func:`graded_gain`."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    return judgments.cached(('graded ideal', rel, gains_key(gains)), lambda: judgments.ideal(
        lambda labels: graded_gain(labels, rel, gains), judgments.label >= rel))


def discounted_gain(query: np.ndarray, rank: np.ndarray, gain: np.ndarray, cutoff: int | None,
                    discount: Callable[[np.ndarray], np.ndarray], n_queries: int) -> np.ndarray:
    """Σ gain / discount(rank) over the rows ranked ``cutoff`` or better, per query (DCG@k)."""
    if cutoff is not None:
        top = rank <= cutoff
        query, rank, gain = query[top], rank[top], gain[top]
    return segment_sum(gain / discount(rank), query, n_queries)


def ideal_dcg(measure: irm.Measure, judgments: Judgments, ideal: Callable[[], IdealList], cutoff: int | None,
              discount: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The DCG@cutoff of the ideal list ``ideal()`` per query, computed once per measure and qrels."""
    def compute() -> np.ndarray:
        best = ideal()
        return discounted_gain(best.query, best.rank, best.gain, cutoff, discount, judgments.n_queries)
    return judgments.cached(('ideal DCG', measure), compute)


def top_gain(measure: irm.Measure, judgments: Judgments) -> float:
    """g_max of NTCIREVAL's cascade measures (nERR, ERR_NTCIR, RBP_NTCIR, iRBU, rpref): the gain of
    ``max_level`` (default: the largest label of ``gains`` if given, else of the qrels). InputError
    for a qrels label above it or a label of greater gain (whose stop probability would exceed 1)."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    max_level = optional_param(measure, 'max_level') or max(gains or [judgments.label.max(initial=1)])
    if judgments.label.max(initial=0) > max_level:
        highest = int(np.argmax(judgments.label))
        raise judgments.judgment_error(highest, f'{measure}: qrels label {judgments.label[highest]} exceeds '
                                                f'max_level {max_level}')
    top = graded_gain(np.array([max_level]), rel, gains)[0]
    label_gain = graded_gain(judgments.label, rel, gains)
    if np.any(label_gain > top):
        worst = int(np.argmax(label_gain))
        raise judgments.judgment_error(worst, f'{measure}: the gain of label {judgments.label[worst]} '
                                              f'({label_gain[worst]:g}) exceeds that of max_level {max_level} '
                                              f'({top:g}), so its stop probability would exceed 1')
    return float(top)


def cascade(query: np.ndarray, stop: np.ndarray, utility: np.ndarray, n_queries: int) -> np.ndarray:
    """Σ_r utility(r) · stop(r) · Π_{i<r} (1 − stop(i)) per query, over rows grouped by query in rank order
    (NTCIREVAL's cascade: ERR with utility 1/r, iRBU with u^r); rows of stop 0 (e.g. unjudged docs)
    may be left out."""
    log_continue = np.log1p(-stop)
    running = segment_cumsum(log_continue, query, np.searchsorted(query, np.arange(n_queries)))
    continue_before = np.exp(running - log_continue)  # Π_{i<r}(1 - stop(i))
    return segment_sum(utility * stop * continue_before, query, n_queries)


def threshold_sum(ranked: RankedRun, value: np.ndarray, weight_of: Callable[[np.ndarray], np.ndarray],
                  at_least: bool) -> np.ndarray:
    """Per row r: Σ over the distinct positive values v_1 < v_2 < ... of ``value`` with v_t <= value[r] of
    (weight_of(v_t) − weight_of(v_{t−1})) · #{rows i <= r of its query: value[i] >= v_t} (``at_least``)
    or value[i] < v_t (weight_of(v_0) = 0). With ``at_least``, it is Σ_{i<=r} w(min(value[r], value[i])),
    as GAP's grade sums need; else Σ_{i<r} (w(value[r]) − w(value[i]))_+ for increasing w, as rpref's
    penalties need."""
    total = np.zeros(len(value))
    previous = 0.0
    levels = np.sort(value[value > 0])
    for level in levels[run_starts(levels)]:
        reached = value >= level
        counted = ranked.cumulative((reached if at_least else ~reached).astype(np.int64))
        weight = float(weight_of(np.array([level]))[0])
        total += np.where(reached, (weight - previous) * counted, 0.0)
        previous = weight
    return total


def gains_key(gains: dict[float, float] | None) -> tuple | None:
    """A hashable form of a gains mapping, for cache keys."""
    return None if gains is None else tuple(sorted(gains.items()))
