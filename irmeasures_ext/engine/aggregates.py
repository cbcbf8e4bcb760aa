"""The aggregators' computations over arrays: each aggregator a measure can have (ir_measures' mean and
sum, our median and variance, trec_eval's geometric mean) with one vectorised function of the per-query
values, used by the evaluator (a measure's aggregate) and by run comparisons (each run's aggregate,
bootstrap intervals)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from ir_measures.measures import Measure
from ir_measures.measures.base import MeanAgg, SumAgg

from irmeasures_ext.measures.rank_stats import GeometricMeanAgg, MedianAgg, VarianceAgg


def mean_of(values: np.ndarray) -> Any:
    """The mean along the last axis (the queries); NaN for none."""
    return values.mean(axis=-1) if values.shape[-1] else np.full(values.shape[:-1], np.nan)[()]


def sum_of(values: np.ndarray) -> Any:
    """The sum along the last axis (the queries)."""
    return values.sum(axis=-1)


@dataclass(frozen=True)
class Aggregate:
    """How an aggregator's value is computed from an array of per-query values."""

    name: str  # 'mean', 'sum', 'median', 'variance', 'geometric mean'
    of: Callable[[np.ndarray], Any]  # along the last axis: a scalar for one row of values, an array for more


MEAN = Aggregate('mean', mean_of)
SUM = Aggregate('sum', sum_of)
MEDIAN = Aggregate('median', MedianAgg.of)
VARIANCE = Aggregate('variance', VarianceAgg.of)
GEOMETRIC_MEAN = Aggregate('geometric mean', GeometricMeanAgg.of)
#: The aggregators computed over arrays, by type.
AGGREGATES: dict[type, Aggregate] = {MeanAgg: MEAN, SumAgg: SUM, MedianAgg: MEDIAN, VarianceAgg: VARIANCE,
                                     GeometricMeanAgg: GEOMETRIC_MEAN}


def aggregate_of(measure: Measure) -> Aggregate | None:
    """The array computation of ``measure``'s aggregator; None for an aggregator of another kind."""
    return AGGREGATES.get(type(measure.aggregator()))


def aggregate(measure: Measure, values: np.ndarray) -> float:
    """The measure's aggregate of its per-query values: vectorised for the aggregators of
    :data:`AGGREGATES`; with no values, or for another aggregator, the aggregator's own (fed value by
    value: e.g. ir_measures' mean of nothing is its ``default``)."""
    kind = aggregate_of(measure)
    if kind is not None and len(values):
        return kind.of(values).item()
    aggregator = measure.aggregator()
    for value in values.tolist():
        aggregator.add(value)
    return aggregator.result()
