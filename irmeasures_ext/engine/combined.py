"""Per-query values of any measures: ours from our engine, the others from ir_measures' providers.

Used by the command line and :mod:`irmeasures_ext.frames`. Either way the inputs are read and
checked by our readers and engine (duplicate docs, conflicting qrels labels, non-finite scores).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ir_measures
import numpy as np
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext.engine.evaluator import aggregate, evaluator_and_run
from irmeasures_ext.engine.ties import DEFAULT_RANKING, Ranking
from irmeasures_ext.errors import IrMeasuresExtError, MeasureParamError
from irmeasures_ext.measures.base import check_measure
from irmeasures_ext.plugin import provider as ext_provider


@dataclass(frozen=True)
class Results:
    """Per-query values of each measure, aligned with ``query_ids`` (the qrels queries, sorted)."""

    query_ids: pa.Array
    values: dict[Measure, np.ndarray]

    def aggregates(self) -> dict[Measure, float]:
        """Each measure's aggregate (mean, median, sum: its own aggregator)."""
        return {measure: aggregate(measure, values) for measure, values in self.values.items()}


def evaluate(measures: list[Measure], qrels: Any, run: Any, provider: str | None = None,
             ranking: Ranking = DEFAULT_RANKING) -> Results:
    """Per-query values of ``measures`` for every qrels query.

    With ``provider=None`` our provider computes the measures it supports, ranking runs by
    ``ranking``, and ir_measures' ``DefaultPipeline`` the rest; otherwise the named ir_measures
    provider computes all of them.
    Raises :class:`~irmeasures_ext.errors.InputError` for bad input and
    :class:`~irmeasures_ext.errors.MeasureParamError` for invalid measures.
    """
    measures = list(dict.fromkeys(measures))
    for measure in measures:
        check_measure(measure)
    if provider is None:
        ours = [m for m in measures if ext_provider.supports(m)]
        other = ir_measures.DefaultPipeline
    else:
        other = named_provider(provider, measures)
        ours = measures if other is ext_provider else []
    others = [m for m in measures if m not in ours]
    # Runs even without measures of ours: building and evaluating it checks both inputs.
    built, run = evaluator_and_run(ours, qrels, run, ranking)
    values = built.values(run)
    if others:
        position = {query_id: i for i, query_id in enumerate(built.qrel_qids)}
        theirs = {measure: np.full(len(position), float(measure.DEFAULT)) for measure in others}
        for metric in other.evaluator(others, built.qrels.to_pandas()).iter_calc(run.table.to_pandas()):
            theirs[metric.measure][position[metric.query_id]] = metric.value
        values.update(theirs)
    return Results(built.judgments.query_ids, {measure: values[measure] for measure in measures})


def named_provider(name: str, measures: list[Measure]) -> ir_measures.providers.Provider:
    """The ir_measures provider called ``name``, checked to be available and to support ``measures``."""
    known = ir_measures.providers.registry
    if name not in known:
        raise IrMeasuresExtError(f'unknown provider {name!r}; known: {", ".join(sorted(known))}')
    provider = known[name]
    if not provider.is_available():
        raise IrMeasuresExtError(f'provider {name} is not available: {provider.install_instructions() or "?"}')
    unsupported = [str(m) for m in measures if not provider.supports(m)]
    if unsupported:
        raise MeasureParamError(f'provider {name} does not support measure(s) {" ".join(unsupported)}')
    return provider
