"""Shared pieces of this package's measures: checked parameters and the kernel registry."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.ranking import IdealList, Judgments, RankedRun, segment_sum

KernelFunction = Callable[[irm.Measure, RankedRun], np.ndarray]
PrepareFunction = Callable[[irm.Measure, Judgments], Any]


@dataclass(frozen=True)
class Kernel:
    """Computes one measure family for every query of a ranked run at once."""

    spec: irm.Measure          # the parameter specs this kernel supports (ir_measures provider style)
    compute: KernelFunction    # (measure, ranked run) -> one value per query
    #: Computes the measure's qrels-side values (cached on the judgments, which ``compute`` then
    #: reuses) when the evaluator is built, so once per qrels, and while a run file is read.
    prepare: PrepareFunction | None = None


#: Parameter declarations shared by several measures.
REL_PARAM = irm.ParamInfo(dtype=int, default=1, desc='minimum relevance label to be considered relevant (inclusive)')
CUTOFF_PARAM = irm.ParamInfo(dtype=int, required=False, desc='ranking cutoff threshold k')
REQUIRED_CUTOFF_PARAM = irm.ParamInfo(dtype=int, required=True, desc='ranking cutoff threshold k (required)')
GAINS_PARAM = irm.ParamInfo(dtype=dict, desc='gain per relevance label, e.g. {1:1,2:3,3:7}; default gain = label')

#: Kernels by measure NAME; filled by the measure modules on import.
KERNELS: dict[str, Kernel] = {}


def register_measure(measure: irm.Measure) -> None:
    """Adds ``measure`` to ir_measures' registry under its NAME, once (re-imports are no-ops)."""
    irm.registry.setdefault(measure.NAME, measure)


def kernel(spec: irm.Measure, prepare: PrepareFunction | None = None) -> Callable[[KernelFunction], KernelFunction]:
    """Registers the decorated function as the kernel of ``spec.NAME`` (see :class:`Kernel`)."""
    def register(compute: KernelFunction) -> KernelFunction:
        KERNELS[spec.NAME] = Kernel(spec, compute, prepare)
        return compute
    return register


class ExtMeasure(irm.Measure):
    """An ir_measures ``Measure`` whose parameters are checked with :class:`MeasureParamError`.

    Values are checked and normalised when the measure is built (``Q(beta=-1)`` fails at
    once, ``Q(beta=1) == Q(beta=1.0)``); required parameters are checked when it is
    evaluated, since ``nDCG_Z1`` alone is a valid prototype to write ``nDCG_Z1@5``.
    """

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise MeasureParamError(
                f'{self.NAME}: unknown parameter(s) {unknown}; supported: {sorted(self.SUPPORTED_PARAMS)}')
        super().__init__(**{name: self._check_param(name, value) for name, value in params.items()})

    @classmethod
    def spec(cls, **param_specs: Any) -> ExtMeasure:
        """A provider-side spec of this measure (``Any()``/``Choices()`` values, not checked)."""
        prototype = cls.__new__(cls)
        irm.Measure.__init__(prototype, **param_specs)
        return prototype

    def _check_param(self, name: str, value: Any) -> Any:
        """Returns the normalised value of one parameter, or raises MeasureParamError."""
        if name == 'cutoff' and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise MeasureParamError(f'{self.NAME}: cutoff must be a positive integer, got {value!r}')
        if name == 'rel' and (isinstance(value, bool) or not isinstance(value, int)):
            raise MeasureParamError(f'{self.NAME}: rel must be an integer, got {value!r}')
        if name == 'gains':
            return check_gains(self.NAME, value)
        return value

    def validate_params(self) -> None:
        if self.validated:
            return
        for name, info in self.SUPPORTED_PARAMS.items():
            if info.required and name not in self.params:
                raise MeasureParamError(f'{self.NAME}: parameter {name!r} is required, e.g. {self.NAME}@10')
        super().validate_params()

    def _param_repr(self, value: Any) -> str:
        # ir_measures hides identity entries of a gains dict; ours have other defaults, so show all.
        if isinstance(value, dict):
            return '{' + ','.join(f'{k}:{v!r}' for k, v in sorted(value.items())) + '}'
        return repr(value)


def check_gains(measure_name: str, gains: Any) -> dict[int, float]:
    """Checks a ``{label: gain}`` mapping (integer labels, finite gains >= 0); gains become floats."""
    if not isinstance(gains, dict):
        raise MeasureParamError(f'{measure_name}: gains must be a dict {{label: gain}}, got {gains!r}')
    for label, gain in gains.items():
        if isinstance(label, bool) or not isinstance(label, int):
            raise MeasureParamError(f'{measure_name}: gains keys must be integer labels, got {label!r}')
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain) or gain < 0:
            raise MeasureParamError(
                f'{measure_name}: gain for label {label} must be a finite number >= 0, got {gain!r}')
    return {label: float(gain) for label, gain in gains.items()}


def check_non_negative(measure_name: str, name: str, value: Any) -> float:
    """Returns ``value`` as a float if it is a finite number >= 0, else raises MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise MeasureParamError(f'{measure_name}: {name} must be a finite number >= 0, got {value!r}')
    return float(value)


def mapped_gain(labels: np.ndarray, relevant: np.ndarray, gains: dict[int, float] | None,
                default: np.ndarray) -> np.ndarray:
    """Gain per label: ``gains[label]`` if given, else ``default``; 0 where not ``relevant``."""
    gain = np.where(relevant, default, 0.0).astype(np.float64)
    for label, value in (gains or {}).items():
        gain[relevant & (labels == label)] = value
    return gain


def graded_gain(labels: np.ndarray, rel: int, gains: dict[int, float] | None) -> np.ndarray:
    """NTCIREVAL-style gain per label: the label (or ``gains[label]``) if label >= rel, else 0."""
    relevant = labels >= rel
    return mapped_gain(labels, relevant, gains, np.where(relevant, labels, 0))


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


def gains_key(gains: dict[int, float] | None) -> tuple | None:
    """A hashable form of a gains mapping, for cache keys."""
    return None if gains is None else tuple(sorted(gains.items()))


def optional_param(measure: irm.Measure, name: str) -> Any:
    """The value of an optional parameter (such as the cutoff), or None when it is not given."""
    value = measure[name]
    return None if value is irm.base._NOT_PROVIDED else value
