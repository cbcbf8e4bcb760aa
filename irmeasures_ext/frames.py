"""Evaluation with pandas in and out, our provider first.

:func:`iter_calc` computes every measure our provider supports with it (the fast, columnar
path) and the others with ir_measures' ``DefaultPipeline``; :func:`evaluate_frame` returns the
per-query values as a long DataFrame. Like ``ir_measures.iter_calc``, both take the measures, then
the qrels, then the run; qrels and run may each be a DataFrame with ir_measures column names (``query_id, doc_id,
relevance|score``) or PyTerrier's (``qid, docno, label|score``), or any other form
:mod:`irmeasures_ext.readers.inputs` accepts (TREC file paths, dict-of-dict, ...).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ir_measures import Metric
from ir_measures.measures import Measure

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import QrelsLike, RunLike


def iter_calc(measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike, provider: str | None = None,
              ties: str | None = None, score_precision: str | None = None) -> Iterator[Metric]:
    """Per-query values of ``measures`` for every qrels query, measure by measure.

    With ``provider=None`` our provider computes the measures it supports and ir_measures'
    ``DefaultPipeline`` the rest; otherwise the named ir_measures provider computes all of them.
    Either way the inputs are checked as our provider checks them (duplicate docs, conflicting
    qrels labels, non-finite scores raise :class:`~irmeasures_ext.errors.InputError`).
    ``ties`` and ``score_precision`` choose the tie policy of every measure our provider computes
    (built-in ones such as ``RR@10`` included; see :mod:`irmeasures_ext.engine.ties`); another
    provider breaks ties its own way, so they are refused with ``provider``.
    Raises :class:`~irmeasures_ext.errors.MeasureParamError` for invalid measure parameters.
    """
    results = _evaluate(measures, qrels, run, provider, ties, score_precision)
    for measure, values in results.values.items():
        yield from map(Metric, results.query_ids.to_pylist(), repeat(measure), values.tolist())


def evaluate_frame(measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike, provider: str | None = None,
                   ties: str | None = None, score_precision: str | None = None) -> pd.DataFrame:
    """Per-query values as a DataFrame with columns ``query_id``, ``measure`` (its name, e.g.
    ``'nDCG_Z1@5'``) and ``value``: one row per (measure, qrels query), measures in the order given,
    queries sorted. See :func:`iter_calc` for ``provider``, ``ties``, ``score_precision`` and the checks.
    """
    results = _evaluate(measures, qrels, run, provider, ties, score_precision)
    return long_frame(results.query_ids, results.values)


def long_frame(query_ids: Any, values: dict[Measure, Any]) -> pd.DataFrame:
    """Per-query values (each measure's array aligned with ``query_ids``, an Arrow array) as a DataFrame
    with columns ``query_id``, ``measure`` (its name) and ``value`` (float64), measure by measure."""
    import numpy as np
    import pandas as pd

    n_queries = len(query_ids)
    names = [str(measure) for measure in values]
    return pd.DataFrame({
        'query_id': np.tile(np.array(query_ids.to_pylist(), dtype=object), len(names)),
        'measure': np.repeat(np.array(names, dtype=object), n_queries),
        'value': np.concatenate([np.empty(0), *(v.astype(np.float64) for v in values.values())]),
    })


def _evaluate(measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike, provider: str | None, ties: str | None,
              score_precision: str | None) -> Any:
    from irmeasures_ext.errors import MeasureParamError
    from irmeasures_ext.evaluation import evaluate
    from irmeasures_ext.plugin import measures_of
    from irmeasures_ext.plugin import provider as ext_provider
    try:
        parsed = measures_of(measures)
    except MeasureParamError as error:
        raise MeasureParamError(f'{error} (the measures come first, then the qrels and the run, as in '
                                'ir_measures.iter_calc)') from None
    return evaluate(parsed, qrels, run, ext_provider.for_provider(provider, ties, score_precision), provider)
