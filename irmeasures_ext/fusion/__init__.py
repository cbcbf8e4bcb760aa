"""Rank fusion: :func:`fuse` combines runs into one, with the methods and normalisations of ranx 0.3.21 (Bassani &
Romelli, "ranx.fuse: A Python library for metasearch", CIKM 2022) and its values, without its defects.

Semantics (issue 51; tests/fusion, against tests/data/ranx_fusion):

* **Input.** Runs in any form :func:`~irmeasures_ext.readers.inputs.read_input` reads (paths, DataFrames,
  dict-of-dict, Arrow tables, ...), as a list or a dict name -> run (weights then follow its order). A
  non-finite score or a doc twice in a query is an InputError, as for evaluation.
* **Queries.** The fused run answers the union of the runs' queries; a run that does not answer a query takes no
  part in its fusion (ranx refuses runs with different query sets; this is what it gives after its remedy,
  ``Run.make_comparable``, for every method but the ones below). An empty list cannot be told from no list: both
  are "does not answer". So, unlike ranx after ``make_comparable``, such a run gives BordaFuse no points (ranx
  gives every candidate (``|C|`` + 1)/2: a shift of the query's scores) and BayesFuse no log-odds (ranx: ln(0.001/0.999)
  to every doc), gets no Borda-normalised list (ranx gives it one, which makes it count in CombMNZ's n(d) and the
  like) and abstains in Condorcet.
* **Supervised methods** (PosFuse, ProbFuse, SegFuse, SlideFuse, MAPFuse, BayesFuse: :mod:`.trained`) take their
  trained parameters in ``params`` (``probs``/``log_odds``: one table a run; ``map_scores``; ``w``), as
  :func:`train` gives them from training runs and qrels (:mod:`~irmeasures_ext.fusion.training`: ranx's training,
  pairing queries by id where ranx pairs them by position). ``optimize_fusion``'s grid searches are not built.
* **Normalisation** (:mod:`.normalize`) is per (run, query) list: one run's empty query never affects another
  query (ranx's zmuv loses a run's later queries after an empty one, depending on numba's threads).
* **Ranks.** Rank-based methods rank each list by descending score as given, tied docs by descending doc id (as
  trec_eval; ranx takes its quicksort's order beyond 15 docs). Normalisations keep these ranks (where rounding makes
  two scores equal too); ``min-max-inverted`` reverses them (tied docs still by descending doc id), ``borda`` ranks
  the list's docs, then the candidates it misses by descending doc id (ranx: its set order, seed-dependent).
* **Output.** A pandas DataFrame (query_id, doc_id, score) ordered by query id, descending fused score, and
  descending doc id among tied scores (trec_eval's rule, so the order is reproducible and
  :func:`~irmeasures_ext.ir_metadata.write_run` writes it as it would be evaluated); ranx orders ties by an
  unstable sort.
* **Condorcet** is Copeland's rule (:func:`.methods.condorcet`): independent of hash seeds and set order; it
  equals ranx wherever ranx's output does not depend on ``PYTHONHASHSEED`` (a total majority order).
* **CombMIN/CombMAX** take the extreme of the scores present; ranx counts a missing doc as +1e9/−1e9, which wins
  when the present scores are beyond ±1e9 (``max`` norm of negative runs).
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeasures_ext._arrow.arrays import from_numpy
from irmeasures_ext.fusion import methods
from irmeasures_ext.fusion.normalize import NORMS, normalize
from irmeasures_ext.fusion.pool import FusionError, Pool, Rows
from irmeasures_ext.fusion.trained import SUPERVISED
from irmeasures_ext.fusion.training import train

__all__ = ['METHODS', 'NORMS', 'SUPERVISED', 'FusionError', 'fuse', 'normalized', 'train']

#: The unsupervised methods by their ranx names.
METHODS: dict[str, Callable[..., np.ndarray]] = {
    'min': methods.comb_min, 'max': methods.comb_max, 'med': methods.comb_med, 'sum': methods.comb_sum,
    'anz': methods.comb_anz, 'mnz': methods.comb_mnz, 'gmnz': methods.comb_gmnz, 'isr': methods.isr,
    'log_isr': methods.log_isr, 'logn_isr': methods.logn_isr, 'rrf': methods.rrf, 'rbc': methods.rbc,
    'bordafuse': methods.bordafuse, 'w_bordafuse': methods.w_bordafuse, 'condorcet': methods.condorcet,
    'w_condorcet': methods.w_condorcet, 'mixed': methods.mixed, 'wmnz': methods.wmnz, 'wsum': methods.wsum,
}
_EVERY_METHOD = METHODS | SUPERVISED


def fuse(runs: list[Any] | Mapping[str, Any], method: str = 'rrf', norm: str | None = 'min-max',
         params: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The fusion of ``runs`` (two or more) by ``method`` (a key of :data:`METHODS` or
    :data:`~irmeasures_ext.fusion.trained.SUPERVISED`) after normalising each by ``norm`` (a key of
    :data:`~irmeasures_ext.fusion.normalize.NORMS`, or None; ranx's default ``'min-max'``), with the method's
    ``params`` (``weights``: one a run; ``gamma``, ``phi``, ``k``, ``sigma``; the supervised methods' trained
    ``probs``, ``log_odds``, ``map_scores`` and ``w``): see the package's docstring."""
    runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if len(runs) < 2:
        raise FusionError(f'fuse needs at least two runs, got {len(runs)}')
    if method not in _EVERY_METHOD:
        raise FusionError(f'unknown fusion method {method!r}: use one of {sorted(_EVERY_METHOD)}')
    function = _EVERY_METHOD[method]
    arguments = _arguments(function, method, dict(params or {}), len(runs))
    pool = normalize(Pool.read(runs), norm)
    return _frame(pool.rows, pool.rows.candidate_query, pool.rows.candidate_doc, function(pool, **arguments))


def normalized(runs: list[Any] | Mapping[str, Any], norm: str | None = 'min-max') -> list[pd.DataFrame]:
    """Each of ``runs`` normalised as :func:`fuse` normalises it (``borda`` reads them all), as a DataFrame in
    the order :func:`fuse` gives."""
    runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    pool = normalize(Pool.read(runs), norm)
    rows = pool.rows
    return [_frame(rows, rows.query[mine], rows.doc[mine], pool.score[mine])
            for mine in (rows.run == i for i in range(len(runs)))]


def _frame(rows: Rows, query: np.ndarray, doc: np.ndarray, score: np.ndarray) -> pd.DataFrame:
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


def _arguments(function: Callable[..., np.ndarray], method: str, params: dict[str, Any], n_runs: int) \
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
