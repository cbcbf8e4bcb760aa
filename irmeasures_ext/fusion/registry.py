"""The fusion methods by name, the check of their parameters, and the fused run as a DataFrame: what
:func:`~irmeasures_ext.fusion.fuse` and the tuning (:mod:`~irmeasures_ext.fusion.tuning`) share."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeasures_ext._arrow.arrays import from_numpy
from irmeasures_ext.fusion import methods
from irmeasures_ext.fusion.pool import FusionError, Rows
from irmeasures_ext.fusion.trained import SUPERVISED

#: The unsupervised methods by their ranx names.
METHODS: dict[str, Callable[..., np.ndarray]] = {
    'min': methods.comb_min, 'max': methods.comb_max, 'med': methods.comb_med, 'sum': methods.comb_sum,
    'anz': methods.comb_anz, 'mnz': methods.comb_mnz, 'gmnz': methods.comb_gmnz, 'isr': methods.isr,
    'log_isr': methods.log_isr, 'logn_isr': methods.logn_isr, 'rrf': methods.rrf, 'rbc': methods.rbc,
    'bordafuse': methods.bordafuse, 'w_bordafuse': methods.w_bordafuse, 'condorcet': methods.condorcet,
    'w_condorcet': methods.w_condorcet, 'mixed': methods.mixed, 'wmnz': methods.wmnz, 'wsum': methods.wsum,
}
#: Every method, unsupervised and supervised, by its ranx name.
EVERY_METHOD = METHODS | SUPERVISED


def as_frame(rows: Rows, query: np.ndarray, doc: np.ndarray, score: np.ndarray) -> pd.DataFrame:
    """Query and doc codes of ``rows`` with their scores, as a DataFrame of ids ordered by query id, descending
    score, descending doc id."""
    step_query, step_doc = np.diff(query), np.diff(doc)
    in_doc_order = np.all((step_query > 0) | ((step_query == 0) & (step_doc > 0)))  # (as candidates are)
    by_doc = np.arange(len(query)) if in_doc_order else np.lexsort((doc, query))
    by_score = by_doc[::-1][np.argsort(-score[by_doc[::-1]], kind='stable')]  # (ties: descending doc id)
    order = by_score[np.argsort(query[by_score], kind='stable')]
    return pa.table({
        'query_id': rows.query_ids.take(from_numpy(query[order])),
        'doc_id': rows.doc_ids.take(from_numpy(doc[order])),
        'score': from_numpy(score[order]),
    }).to_pandas()


#: What each parameter accepts: a check and its statement.
_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    'gamma': (lambda x: True, 'a number'), 'k': (lambda x: x >= 0, 'a number ≥ 0'),
    'sigma': (lambda x: 0 <= x <= 1, 'in [0, 1]'), 'phi': (lambda x: 0 <= x <= 1, 'in [0, 1]'),
    'w': (lambda x: x >= 0 and x == int(x), 'a whole number ≥ 0'),
}
#: Parameters of one number a run, and of one table of numbers a run.
_PER_RUN, _TABLES = {'weights', 'map_scores'}, {'probs', 'log_odds'}


def checked_fusion(method: str, params: Mapping[str, Any] | None, n_runs: int) \
        -> tuple[Callable[..., np.ndarray], dict[str, Any]]:
    """The function of ``method`` (a key of :data:`EVERY_METHOD`) and its ``params`` checked for ``n_runs`` runs
    (two or more): FusionError otherwise."""
    if n_runs < 2:
        raise FusionError(f'fuse needs at least two runs, got {n_runs}')
    if method not in EVERY_METHOD:
        raise FusionError(f'unknown fusion method {method!r}: use one of {sorted(EVERY_METHOD)}')
    function = EVERY_METHOD[method]
    return function, checked_params(function, method, dict(params or {}), n_runs)


def checked_params(function: Callable[..., np.ndarray], method: str, params: dict[str, Any], n_runs: int) \
        -> dict[str, Any]:
    """``params`` checked against ``function``'s signature, with arrays for what is given per run."""
    signature = list(inspect.signature(function).parameters.values())[1:]
    accepted = {parameter.name for parameter in signature}
    if unknown := sorted(set(params) - accepted):
        raise FusionError(f'{method} takes no parameter {", ".join(unknown)} (it takes: {sorted(accepted) or "none"})')
    if missing := [p.name for p in signature if p.default is inspect.Parameter.empty and p.name not in params]:
        raise FusionError(f'{method} needs the parameter {", ".join(missing)}')
    arguments: dict[str, Any] = {}
    for name, value in params.items():
        if name in _PER_RUN:
            numbers = np.asarray(value, dtype=np.float64) if _numbers(value) else None
            if numbers is None or numbers.shape != (n_runs,) or not np.isfinite(numbers).all():
                raise FusionError(f'{method}: {name} must be {n_runs} finite numbers, one a run, got {value!r}')
            arguments[name] = numbers
        elif name in _TABLES:
            tables = [np.asarray(table, dtype=np.float64) if _numbers(table) else None for table in value] \
                if isinstance(value, (list, tuple)) else []
            if len(tables) != n_runs or any(t is None or not len(t) or not np.isfinite(t).all() for t in tables):
                raise FusionError(f'{method}: {name} must be {n_runs} lists of finite numbers, one a run')
            arguments[name] = tables
        else:
            check, statement = _RANGES[name]
            if not (isinstance(value, (int, float)) and np.isfinite(value) and check(value)):
                raise FusionError(f'{method}: {name} must be {statement}, got {value!r}')
            arguments[name] = value
    return arguments


def _numbers(value: Any) -> bool:
    """Whether ``value`` is a sequence of real numbers (not strings or bools)."""
    return isinstance(value, (list, tuple, np.ndarray)) and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in value)
