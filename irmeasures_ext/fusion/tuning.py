"""Tuning a fusion method's parameters for a measure: a grid search (:func:`optimize`) and k-fold cross-validation
over queries (:func:`cross_validate`), in-process.

* **Once.** The runs and the qrels are read once, the runs pooled once and normalised once per set of queries; each
  parameter setting only recomputes the method's scores and evaluates them with one
  :class:`~irmeasures_ext.evaluation.Evaluation` built once for the training queries: no fused run is written.
  A supervised method is trained once per set of training queries (ProbFuse once per ``n_segments``).
* **Grids.** ``grid`` maps each parameter to its values, expanded as a product in the order given (``weights``: a
  list of weight vectors); a parameter left out takes :func:`~irmeasures_ext.fusion.fuse`'s default.
  ``grid=None`` is :func:`default_grid`, ranx 0.3.21's ``optimize_fusion`` grid, except that the weight vectors'
  sum is tested on whole tenths, so none is lost to rounding (ranx tests the float sum == 1.0 and drops 30 of the
  286 vectors of four runs).
* **Ties.** Of the settings reaching the best score the first in grid order wins (ranx keeps the last). The score
  is the measure's aggregate over the training queries; lower is better for ``MeanRank``, ``MedianRank`` and
  ``RankVariance``.
* **No leak.** Tuned parameters are applied only to other queries than those tuned on (:meth:`Optimized.fuse`
  refuses an overlap), which is how :func:`cross_validate` fuses each fold's test queries.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from ir_measures.measures import Measure

from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext.errors import IrMeasuresExtError
from irmeasures_ext.evaluation import Evaluation, listed
from irmeasures_ext.fusion.normalize import normalize
from irmeasures_ext.fusion.pool import FusionError, Pool
from irmeasures_ext.fusion.registry import EVERY_METHOD, as_frame, checked_params
from irmeasures_ext.fusion.trained import SUPERVISED
from irmeasures_ext.fusion.training import (
    Training,
    bayesfuse_params,
    mapfuse_params,
    posfuse_params,
    probfuse_params,
    segfuse_params,
)
from irmeasures_ext.measures.base import lower_is_better
from irmeasures_ext.plugin import measures_of, provider
from irmeasures_ext.readers.inputs import read_input

#: The methods weighting each run; their default grid is :func:`weight_grid`'s.
WEIGHTED = ('wsum', 'mixed', 'wmnz', 'w_bordafuse', 'w_condorcet')
_HUNDREDTHS = [i / 100 for i in range(1, 101)]
#: ranx's ``optimize_fusion`` grids of the other methods with a parameter (the supervised ones: of their training).
GRIDS: dict[str, dict[str, list[Any]]] = {
    'rrf': {'k': list(range(10, 101, 10))}, 'gmnz': {'gamma': _HUNDREDTHS}, 'rbc': {'phi': _HUNDREDTHS},
    'logn_isr': {'sigma': _HUNDREDTHS}, 'probfuse': {'n_segments': list(range(1, 101))},
    'slidefuse': {'w': list(range(1, 101))},
}
#: The parameters a supervised method's grid takes (its training's, all required): a check and its statement.
_TRAINING_PARAMS: dict[str, dict[str, tuple[Callable[[Any], bool], str]]] = {
    'probfuse': {'n_segments': (lambda x: _whole(x) and x >= 1, 'a whole number ≥ 1')},
    'slidefuse': {'w': (lambda x: _whole(x) and x >= 0, 'a whole number ≥ 0')},
}
#: The name of the fused run in :meth:`CrossValidated.comparison`.
FUSED = 'fused'


def weight_grid(n_runs: int, steps: int = 10) -> list[tuple[float, ...]]:
    """Every vector of ``n_runs`` weights in 0, 1/``steps``, ..., 1 summing to 1, in lexicographic order (ranx's);
    the sum is tested on whole numbers of steps, so no vector is lost to rounding."""
    def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
        if parts == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in compositions(total - first, parts - 1):
                yield first, *rest
    return [tuple(step / steps for step in vector) for vector in compositions(steps, n_runs)]


def default_grid(method: str, n_runs: int) -> dict[str, list[Any]]:
    """The grid :func:`optimize` searches for ``method`` with ``n_runs`` runs when given none: ranx's (weights:
    :func:`weight_grid`; ``k`` 10, 20, ..., 100; ``gamma``, ``phi``, ``sigma`` 0.01, 0.02, ..., 1.0;
    ``n_segments`` and ``w`` 1, ..., 100); a method without parameters has one setting, ``{}``."""
    if method in WEIGHTED:
        return {'weights': list(weight_grid(n_runs))}
    return GRIDS.get(method, {})


@dataclass(frozen=True, eq=False)
class Optimized:
    """The best setting of a grid search: ``params`` (the setting, e.g. ``{'k': 10}``), its ``score`` of
    ``measure`` over the training ``queries``, the ``report`` (one row per setting in grid order: its parameters
    and ``score``) and ``fusion_params``, the parameters :func:`~irmeasures_ext.fusion.fuse` takes (with a
    supervised method's trained ones)."""

    method: str
    norm: str | None
    measure: Measure
    params: dict[str, Any]
    score: float
    report: pd.DataFrame
    queries: tuple[str, ...]
    fusion_params: dict[str, Any]
    _tuning: Any = field(repr=False)  # (a _Tuning: what the search read)

    def fuse(self, queries: Sequence[str] | None = None) -> pd.DataFrame:
        """The runs tuned on fused with ``fusion_params`` on ``queries`` (default: every query they answer but the
        training ones), as :func:`~irmeasures_ext.fusion.fuse` gives it; FusionError when ``queries`` holds
        training queries."""
        tuning: _Tuning = self._tuning
        training = set(self.queries)
        if queries is None:
            queries = [query for query in tuning.pool.rows.query_ids.to_pylist() if query not in training]
        if overlap := sorted(training.intersection(queries)):
            raise FusionError(f'{len(overlap)} of the queries to fuse are training queries the parameters were tuned '
                              f'on ({listed(overlap)}): apply tuned parameters to other queries only')
        pool = normalize(tuning.restricted(queries), self.norm)
        rows = pool.rows
        return as_frame(rows, rows.candidate_query, rows.candidate_doc, tuning.scores(pool, self.fusion_params))


@dataclass(frozen=True, eq=False)
class CrossValidated:
    """A k-fold cross-validation: ``folds`` (each fold's test queries, sorted), the ``report`` (one row per fold:
    ``fold`` from 1, the numbers of ``train_queries`` and ``test_queries``, the best setting's parameters, its
    ``train_score`` and the ``test_score`` of the fold's fused run) and the cross-validated fused ``run`` (each
    query fused with the parameters tuned without it)."""

    measure: Measure
    folds: tuple[tuple[str, ...], ...]
    report: pd.DataFrame
    run: pd.DataFrame
    _qrels: Any = field(repr=False)
    _runs: Any = field(repr=False)

    def comparison(self, components: Sequence[str] | None = None, test: str = 't',
                   correction: str = 'holm') -> pd.DataFrame:
        """:func:`~irmeasures_ext.comparison.compare`'s table of ``measure`` over the qrels' queries, the baseline
        the fused run (named ``'fused'``) and a row for each of ``components`` (names of the runs fused, as ``compare``
        names them; default all): ``diff`` is the component's mean minus the fused run's, ``p_adjusted`` by
        ``correction`` over the components."""
        from irmeasures_ext.comparison import compare
        from irmeasures_ext.comparison.table import run_names
        named = dict(zip(*run_names(self._runs, None), strict=True))
        chosen = list(named) if components is None else list(components)
        if unknown := [name for name in chosen if name not in named]:
            raise FusionError(f'no run named {", ".join(map(repr, unknown))} was fused; the runs: {list(named)}')
        if FUSED in chosen or not chosen:
            raise FusionError(f'compare the fused run with one or more runs, none named {FUSED!r}; got {chosen}')
        return compare(self._qrels, {FUSED: self.run} | {name: named[name] for name in chosen}, [self.measure],
                       baseline=FUSED, test=test, correction=correction)


class _Tuning:
    """What a search reads once: the runs (as tables and pooled), the qrels, the method, measure and norm."""

    def __init__(self, qrels: Any, runs: list[Any] | Mapping[str, Any], method: str, measure: Measure | str,
                 norm: str | None) -> None:
        if method not in EVERY_METHOD:
            raise FusionError(f'unknown fusion method {method!r}: use one of {sorted(EVERY_METHOD)}')
        try:
            self.measure = measures_of([measure])[0]
            Evaluation([self.measure], provider)
        except IrMeasuresExtError as error:
            raise FusionError(f'cannot tune for the measure {measure!r}: {error}') from error
        self.method, self.norm, self.function = method, norm, EVERY_METHOD[method]
        self.tables = [read_input(run, 'run').table for run in (runs.values() if isinstance(runs, Mapping) else runs)]
        if len(self.tables) < 2:
            raise FusionError(f'fusion needs at least two runs, got {len(self.tables)}')
        self.pool = Pool.read(self.tables)
        self.labels = read_input(qrels, 'qrels').table
        #: The qrels' queries, sorted.
        self.query_ids: list[str] = sorted(pc.unique(self.labels['query_id']).to_pylist())

    def settings(self, grid: Mapping[str, Sequence[Any]] | None) -> list[dict[str, Any]]:
        """``grid`` (None: :func:`default_grid`) expanded, each setting's parameters checked."""
        n_runs = self.pool.rows.n_runs
        grid = default_grid(self.method, n_runs) if grid is None else grid
        if not isinstance(grid, Mapping) or any(isinstance(values, str) or not isinstance(values, Sequence | np.ndarray)
                                                or not len(values) for values in grid.values()):
            raise FusionError(f'a grid maps each parameter to a non-empty list of its values, got {grid!r}')
        settings = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
        if self.method in SUPERVISED:
            taken = _TRAINING_PARAMS.get(self.method, {})
            if set(grid) != set(taken):
                raise FusionError(f'a grid for {self.method} takes the parameters {list(taken) or "none"} (those of '
                                  f'its training), got {list(grid)}')
            for setting in settings:  # (the trained parameters are checked once trained)
                for name, value in setting.items():
                    check, statement = taken[name]
                    if not check(value):
                        raise FusionError(f'{self.method}: {name} must be {statement}, got {value!r}')
        else:
            for setting in settings:
                checked_params(self.function, self.method, setting, n_runs)
        return settings

    def training_queries(self, queries: Sequence[str] | None) -> list[str]:
        """``queries`` (default: the qrels' queries), checked to be some of the qrels' queries."""
        if queries is None:
            return self.query_ids
        chosen = sorted(set(queries))
        if unknown := sorted(set(chosen) - set(self.query_ids)):
            raise FusionError(f'{len(unknown)} of the queries to tune on are not in the qrels ({listed(unknown)})')
        if not chosen:
            raise FusionError('no queries to tune on')
        return chosen

    def restricted(self, queries: Sequence[str]) -> Pool:
        """The pool (not normalised) of ``queries`` alone."""
        rows, wanted = self.pool.rows, pa.array(list(queries), type=self.pool.rows.query_ids.type)
        keep = to_numpy(pc.is_in(rows.query_ids, wanted)).astype(bool)[rows.query]
        return Pool.ranked(rows.run[keep], rows.query[keep], rows.doc[keep], self.pool.score[keep], rows.n_runs,
                           rows.query_ids, rows.doc_ids)

    def labels_of(self, queries: Sequence[str]) -> pa.Table:
        """The qrels of ``queries``."""
        return self.labels.filter(pc.is_in(self.labels['query_id'],
                                           pa.array(list(queries), type=self.labels['query_id'].type)))

    def score(self, evaluation: Evaluation, run: Any) -> float:
        """The measure's aggregate of ``run`` by ``evaluation``."""
        return float(evaluation.results(run).aggregates()[self.measure])

    def evaluation(self, queries: Sequence[str]) -> Evaluation:
        """An evaluation of the measure over ``queries``, their qrels read."""
        evaluation = Evaluation([self.measure], provider)
        evaluation.read_qrels(self.labels_of(queries))
        return evaluation

    def scores(self, pool: Pool, params: Mapping[str, Any]) -> np.ndarray:
        """The method's fused score of each candidate of (normalised) ``pool`` with ``params``."""
        return self.function(pool, **checked_params(self.function, self.method, dict(params), pool.rows.n_runs))

    def trainer(self, queries: Sequence[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """The fusion parameters of a setting: itself, or a supervised method's trained on ``queries``."""
        if self.method not in SUPERVISED:
            return dict
        training = Training(self.labels_of(queries), self.tables, self.norm)
        if self.method == 'probfuse':
            return lambda setting: probfuse_params(training, int(setting['n_segments']))
        trained = {'posfuse': posfuse_params, 'slidefuse': posfuse_params, 'segfuse': segfuse_params,
                   'mapfuse': mapfuse_params, 'bayesfuse': bayesfuse_params}[self.method](training)
        return lambda setting: trained | setting

    def optimize(self, settings: list[dict[str, Any]], queries: list[str]) -> Optimized:
        """The best of ``settings`` on ``queries`` (the first in order of the best)."""
        pool = normalize(self.restricted(queries), self.norm)
        evaluation, trainer = self.evaluation(queries), self.trainer(queries)
        rows = pool.rows
        ids = {'query_id': rows.query_ids.take(from_numpy(rows.candidate_query)),
               'doc_id': rows.doc_ids.take(from_numpy(rows.candidate_doc))}
        scores = np.array([self.score(evaluation, pa.table(ids | {'score': from_numpy(self.scores(pool, trainer(s)))}))
                           for s in settings])
        ranked = np.nan_to_num(-scores if lower_is_better(self.measure) else scores, nan=-np.inf)
        best = int(np.argmax(ranked))  # (the first of the best)
        report = pd.DataFrame([setting | {'score': score} for setting, score in zip(settings, scores, strict=True)])
        return Optimized(self.method, self.norm, self.measure, settings[best], float(scores[best]), report,
                         tuple(queries), trainer(settings[best]), self)


def _whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def optimize(qrels: Any, runs: list[Any] | Mapping[str, Any], method: str, measure: Measure | str,
             grid: Mapping[str, Sequence[Any]] | None = None, norm: str | None = 'min-max',
             queries: Sequence[str] | None = None) -> Optimized:
    """The setting of ``grid`` (param -> values; None: :func:`default_grid`) with which ``method`` fuses ``runs``
    (normalised by ``norm``) best for ``measure`` (a measure or its name) over ``queries`` (default: the qrels'
    queries; else some of them); the first in grid order of those reaching the best score. See the module's
    docstring."""
    tuning = _Tuning(qrels, runs, method, measure, norm)
    return tuning.optimize(tuning.settings(grid), tuning.training_queries(queries))


def cross_validate(qrels: Any, runs: list[Any] | Mapping[str, Any], method: str, measure: Measure | str,
                   grid: Mapping[str, Sequence[Any]] | None = None, folds: int = 5, seed: int = 0,
                   norm: str | None = 'min-max') -> CrossValidated:
    """k-fold cross-validation of :func:`optimize` over the qrels' queries: the sorted queries permuted by
    ``numpy.random.default_rng(seed)`` and cut into ``folds`` folds of consecutive queries (sizes differing by one
    at most; the same seed, the same folds); each fold's queries fused with the setting best on the other folds'
    (through :meth:`Optimized.fuse`, which refuses an overlap)."""
    tuning = _Tuning(qrels, runs, method, measure, norm)
    settings, ids = tuning.settings(grid), tuning.query_ids
    if not _whole(folds) or not 2 <= folds <= len(ids):
        raise FusionError(f'folds must be a whole number from 2 to the number of qrels queries ({len(ids)}), '
                          f'got {folds!r}')
    order = np.random.default_rng(seed).permutation(len(ids))
    tests = [tuple(sorted(ids[i] for i in part)) for part in np.array_split(order, folds)]
    report, fused = [], []
    for fold, test in enumerate(tests, start=1):
        tuned = tuning.optimize(settings, [query for query in ids if query not in set(test)])
        run = tuned.fuse(test)
        report.append({'fold': fold, 'train_queries': len(tuned.queries), 'test_queries': len(test)} | tuned.params
                      | {'train_score': tuned.score, 'test_score': tuning.score(tuning.evaluation(test), run)})
        fused.append(run)
    run = pd.concat(fused, ignore_index=True).sort_values('query_id', kind='stable', ignore_index=True)
    return CrossValidated(tuning.measure, tuple(tests), pd.DataFrame(report), run, qrels, runs)
