"""Evaluation with pandas in and out, our provider first.

:func:`iter_calc` computes every measure our provider supports with it (the fast, columnar
path) and the others with ir_measures' ``DefaultPipeline``; :func:`evaluate_frame` returns the
per-query values as a long DataFrame. Runs and qrels may be DataFrames with ir_measures column
names (``query_id, doc_id, score|relevance``) or PyTerrier's (``qid, docno, score|label``),
or any other form :mod:`irmeasures_ext.tables` accepts (TREC file paths, dict-of-dict, ...).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
import pandas as pd
from ir_measures import Metric
from ir_measures.measures import Measure

from irmeasures_ext.errors import IrMeasuresExtError, MeasureParamError
from irmeasures_ext.provider import provider as ext_provider
from irmeasures_ext.tables import as_qrels_table, as_run_table


def iter_calc(measures: Iterable[Measure], qrels: Any, run: Any, provider: str | None = None) -> Iterator[Metric]:
    """Per-query values of ``measures`` for every qrels query.

    With ``provider=None`` our provider computes the measures it supports and ir_measures'
    ``DefaultPipeline`` the rest; otherwise the named ir_measures provider computes all of them.
    Either way the inputs are checked as our provider checks them (duplicate docs, conflicting
    qrels labels, non-finite scores raise :class:`~irmeasures_ext.errors.InputError`).
    Raises :class:`~irmeasures_ext.errors.MeasureParamError` for invalid measure parameters.
    """
    measures = list(dict.fromkeys(measures))
    for measure in measures:
        measure.validate_params()
    if provider is None:
        ours = [m for m in measures if ext_provider.supports(m)]
    else:
        ours = measures if provider == ext_provider.NAME else []
    others = [m for m in measures if m not in ours]
    qrels, run = as_qrels_table(qrels), as_run_table(run)
    # Runs even without measures of ours: building and evaluating it checks both inputs.
    yield from ext_provider.evaluator(ours, qrels).iter_calc(run)
    if others:
        other = ir_measures.DefaultPipeline if provider is None else _named_provider(provider, others)
        yield from other.evaluator(others, qrels.to_pandas()).iter_calc(run.to_pandas())


def evaluate_frame(run_df: Any, qrels_df: Any, measures: Iterable[Measure], provider: str | None = None
                   ) -> pd.DataFrame:
    """Per-query values as a DataFrame with columns ``query_id``, ``measure`` (its name, e.g.
    ``'nDCG_Z1@5'``) and ``value``, one row per (measure, qrels query), in the order of ``measures``.
    See :func:`iter_calc` for ``provider`` and the checks.
    """
    measures = list(dict.fromkeys(measures))
    position = {measure: i for i, measure in enumerate(measures)}
    metrics = sorted(iter_calc(measures, qrels_df, run_df, provider),
                     key=lambda metric: (position[metric.measure], metric.query_id))
    return pd.DataFrame({'query_id': [m.query_id for m in metrics], 'measure': [str(m.measure) for m in metrics],
                         'value': [float(m.value) for m in metrics]})


def _named_provider(name: str, measures: list[Measure]) -> ir_measures.providers.Provider:
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
