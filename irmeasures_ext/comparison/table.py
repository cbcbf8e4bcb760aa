"""Runs evaluated against one qrels, and the comparison table built from their per-query values."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from ir_measures.measures import Measure

from irmeasures_ext._arrow.memory import release_freed_memory
from irmeasures_ext.comparison import stats
from irmeasures_ext.comparison.choices import CORRECTIONS, INTERVALS, TESTS
from irmeasures_ext.engine.aggregates import MEAN, VARIANCE, Aggregate, aggregate_of
from irmeasures_ext.errors import ComparisonError, DeferredWarnings
from irmeasures_ext.evaluation import Evaluation, Results
from irmeasures_ext.measures.base import lower_is_better
from irmeasures_ext.plugin import measures_of
from irmeasures_ext.plugin import provider as ext_provider

COLUMNS = ['run', 'measure', 'mean', 'ci_low', 'ci_high', 'baseline', 'diff', 'p_value', 'p_adjusted',
           'effect_size', 'wins', 'losses', 'ties']
COMPRESSED = ('.gz', '.bz2', '.xz', '.zst')
#: Runs evaluated at once by default. Arrow's reader already uses every core; a second run at once
#: saved ~5% of the time of 20 1M-line runs on 2 cores and cost 50% more peak memory.
WORKERS = 1


@dataclass(frozen=True)
class RunValues:
    """Per-query values of several runs: ``values[measure]`` is a (queries × runs) array, queries
    in ``query_ids`` order (the qrels queries, sorted), runs in ``names`` order."""

    names: list[str]
    measures: list[Measure]
    query_ids: list[str]
    values: dict[Measure, np.ndarray]

    def complete(self, measure: Measure) -> np.ndarray:
        """The measure's values without the queries where a run has none (NaN: ``MeanRank`` of a run
        that retrieves nothing)."""
        values = self.values[measure]
        return values[~np.isnan(values).any(axis=1)]


def run_names(runs: Any, names: Iterable[str] | None, at_least: int = 2) -> tuple[list[str], list[Any]]:
    """(names, runs) of ``runs``: a mapping name → run, or runs in a list named by ``names``, else by
    their file stems (``bm25.txt.gz`` → ``bm25``) or ``run1``, ``run2``, ...; ComparisonError for fewer than
    ``at_least`` runs, repeated names, or names not one per run."""
    if isinstance(runs, Mapping):
        if names is not None:
            raise ComparisonError('runs given as a mapping are named by its keys: give no names')
        names, runs = [str(name) for name in runs], list(runs.values())
    else:
        runs = list(runs)
        names = [default_run_name(run, i) for i, run in enumerate(runs)] if names is None else list(names)
    if len(names) != len(runs):
        raise ComparisonError(f'{len(names)} names for {len(runs)} runs')
    if len(runs) < at_least:
        raise ComparisonError(f'a comparison needs at least {at_least} run{"s" * (at_least > 1)}; got {len(runs)}')
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ComparisonError(f'runs must have distinct names; repeated: {", ".join(repeated)} (give names)')
    return names, runs


def default_run_name(run: Any, index: int) -> str:
    """A path's file name without its suffixes (compression and one more), else ``run<index + 1>``."""
    if isinstance(run, (str, os.PathLike)):
        path = Path(run)
        return (path.with_suffix('') if path.suffix in COMPRESSED else path).stem or f'run{index + 1}'
    return f'run{index + 1}'


def evaluate_runs(qrels: Any, runs: Any, measures: Iterable[Measure | str], names: Iterable[str] | None = None,
                  ties: str | None = None, score_precision: str | None = None,
                  workers: int | None = None, rel: float | None = None) -> RunValues:
    """Per-query values of every run: the qrels are read once, the runs evaluated ``workers`` at a
    time (default :data:`WORKERS`) by our provider (its tie policy, score precision and relevance threshold ``rel``:
    ``configured``) for the measures it supports and ir_measures'
    default pipeline for the others; the memory of each run is given back before the next. The warnings of our
    provider about a run (raised on a worker thread) are re-issued from this call's caller, once its runs are
    evaluated."""
    names, runs = run_names(runs, names)
    evaluation = Evaluation(measures_of(measures), ext_provider.configured(ties, score_precision, rel=rel))
    if not evaluation.measures:
        raise ComparisonError('give at least one measure')
    evaluation.read_qrels(qrels)  # (InputError for qrels without a judgment)

    def results_of(run: Any) -> Results:
        try:
            return evaluation.results(run)
        finally:
            release_freed_memory()
    deferred = DeferredWarnings()
    try:
        with ThreadPoolExecutor(workers or WORKERS) as pool:
            results = list(pool.map(deferred.running(results_of), runs))
    finally:
        deferred.reissue()
    values = {m: np.column_stack([r.values[m].astype(np.float64) for r in results]) for m in evaluation.measures}
    return RunValues(names, evaluation.measures, results[0].query_ids.to_pylist(), values)


#: The columns :func:`with_holes` adds.
ADDED_HOLES_COLUMNS = ['unjudged', 'condensed', 'low', 'high']


def with_holes(table: pd.DataFrame, holes: pd.DataFrame) -> pd.DataFrame:
    """The comparison ``table`` with the holes of each run's measure (a table of
    :func:`irmeasures_ext.comparison.holes.run_holes`) in :data:`ADDED_HOLES_COLUMNS`."""
    by_run = holes.set_index(['run', 'measure'])[ADDED_HOLES_COLUMNS]
    joined = table.join(by_run, on=['run', 'measure'])
    joined.attrs.update(table.attrs, holes_at=holes.attrs.get('k'))
    return joined


def check_options(test: str, correction: str, ci: str, alpha: float, samples: int) -> None:
    """ComparisonError for an unknown test, correction or interval, alpha outside (0, 1), samples < 1."""
    for name, value, choices in (('test', test, TESTS), ('correction', correction, CORRECTIONS),
                                 ('ci', ci, INTERVALS)):
        if value not in choices:
            raise ComparisonError(f'{name} must be one of {", ".join(choices)}; got {value!r}')
    if test == 'tukey-hsd' and correction != 'none':
        raise ComparisonError('tukey-hsd controls the family-wise error itself: use correction none')
    if not 0 < alpha < 1:
        raise ComparisonError(f'alpha must be between 0 and 1; got {alpha}')
    if samples < 1:
        raise ComparisonError(f'samples must be at least 1; got {samples}')


def baseline_index(names: list[str], baseline: str | int | None) -> int:
    """The index of the baseline run, given by name or index (default: the first run)."""
    if baseline is None:
        return 0
    if isinstance(baseline, str) and baseline in names:
        return names.index(baseline)
    if isinstance(baseline, str) and baseline.lstrip('-').isdigit() or isinstance(baseline, int):
        index = int(baseline)
        if -len(names) <= index < len(names):
            return index % len(names)
    raise ComparisonError(f'baseline {baseline!r} is neither a run name ({", ".join(names)}) nor an index '
                          f'below {len(names)}')


def comparison_pairs(n_runs: int, baseline: int | None) -> list[tuple[int, int]]:
    """(reference run, compared run) index pairs: every run against ``baseline``, or all pairs (None)."""
    if baseline is None:
        return [(a, b) for a in range(n_runs) for b in range(a + 1, n_runs)]
    return [(baseline, run) for run in range(n_runs) if run != baseline]


def pair_differences(values: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Per-query differences (compared − reference) of each pair of runs: pairs × queries."""
    return np.array([values[:, b] - values[:, a] for a, b in pairs]).reshape(len(pairs), len(values))


#: The p-values of each test of :data:`~irmeasures_ext.comparison.TESTS`, one per pair of runs, from (``values``,
#: ``pairs``, ``differences``, ``samples``, ``seed``): see :func:`p_values`.
P_VALUES: dict[str, Callable[[np.ndarray, list[tuple[int, int]], np.ndarray, int, int], np.ndarray]] = {
    't': lambda values, pairs, differences, samples, seed: stats.paired_t(differences),
    'wilcoxon': lambda values, pairs, differences, samples, seed: stats.wilcoxon(differences),
    'randomization': lambda values, pairs, differences, samples, seed: stats.randomization(differences, samples,
                                                                                           seed),
    'tukey-hsd': lambda values, pairs, differences, samples, seed: stats.tukey_hsd(values, pairs, samples, seed),
}


def p_values(values: np.ndarray, pairs: list[tuple[int, int]], differences: np.ndarray, test: str, samples: int,
             seed: int) -> np.ndarray:
    """One p-value per pair of runs (columns of ``values``; ``differences``: compared − reference,
    one row per pair) under ``test`` (a name of :data:`P_VALUES`)."""
    return P_VALUES[test](values, pairs, differences, samples, seed)


def aggregate_function(measure: Measure) -> Aggregate:
    """The measure's own aggregator over arrays: the mean for most, the median for MedianRank, the
    variance for RankVariance, the sum for NumRet/NumRel."""
    kind = aggregate_of(measure)
    if kind is None:
        raise ComparisonError(f'{measure}: its aggregator {type(measure.aggregator()).__name__} is not one compare '
                              'knows (mean, median, variance, sum)')
    return kind


def _rows_of_measure(measure: Measure, values: np.ndarray, names: list[str], pairs: list[tuple[int, int]],
                     options: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """(each run alone, each pair compared) for one measure; ``values`` is queries × runs."""
    test, ci, alpha, samples, seed = (options[k] for k in ('test', 'ci', 'alpha', 'samples', 'seed'))
    statistic = aggregate_function(measure)
    aggregates = statistic.of(values.T) if len(values) else np.full(len(names), np.nan)
    if statistic is MEAN and ci == 't':
        low, high = stats.t_interval(values.T, alpha)
    else:
        low, high = stats.bootstrap_interval(values.T, alpha, samples, seed, statistic)
    alone = [{'run': name, 'measure': str(measure), 'mean': aggregates[i], 'ci_low': low[i], 'ci_high': high[i]}
             for i, name in enumerate(names)]
    differences = pair_differences(values, pairs)
    if statistic is VARIANCE:  # a spread, not a location: no paired test or per-query wins apply
        p = effects = np.full(len(pairs), np.nan)
        better = None
    else:
        p = p_values(values, pairs, differences, test, samples, seed)
        effects = stats.effect_size(differences)
        better = -differences if lower_is_better(measure) else differences
    adjusted = stats.adjust(p, options['correction'])
    compared = []
    for k, (a, b) in enumerate(pairs):
        counts = (None, None, None) if better is None else (
            int((better[k] > 0).sum()), int((better[k] < 0).sum()), int((better[k] == 0).sum()))
        compared.append({**alone[b], 'baseline': names[a], 'diff': aggregates[b] - aggregates[a], 'p_value': p[k],
                         'p_adjusted': adjusted[k], 'effect_size': effects[k],
                         **dict(zip(('wins', 'losses', 'ties'), counts, strict=True))})
    return alone, compared


def comparison_table(run_values: RunValues, baseline: str | int | None = None, all_pairs: bool = False,
                     test: str = 't', correction: str = 'none', ci: str = 't', alpha: float = 0.05,
                     samples: int = 10_000, seed: int = 42) -> pd.DataFrame:
    """The comparison of every run with the baseline (or of all pairs), measure by measure: columns
    :data:`COLUMNS`. Rows without a ``baseline`` describe a run alone (its value and interval).

    ``mean`` is the measure's own aggregate over the queries (the mean; the median for MedianRank,
    the variance for RankVariance) and ``diff`` the difference of those; the tests, effect sizes
    and wins compare per-query values (for the rank measures, the gold ranks). Intervals of other
    aggregates than the mean are percentile bootstrap intervals whatever ``ci`` says; RankVariance
    gets no test or wins. The options, the number of queries, the lower-is-better measures and the
    measures not aggregated by the mean are kept in ``frame.attrs``.
    """
    check_options(test, correction, ci, alpha, samples)
    if all_pairs and baseline is not None:
        raise ComparisonError('give either a baseline or all pairs')
    names = run_values.names
    reference = None if all_pairs else baseline_index(names, baseline)
    pairs = comparison_pairs(len(names), reference)
    options = {'test': test, 'correction': correction, 'ci': ci, 'alpha': alpha, 'samples': samples, 'seed': seed}
    alone, compared = [], []
    for measure in run_values.measures:
        measure_alone, measure_compared = _rows_of_measure(measure, run_values.complete(measure), names, pairs,
                                                           options)
        alone += [row for i, row in enumerate(measure_alone) if reference is None or i == reference]
        compared += measure_compared
    order = {name: i for i, name in enumerate(names)}
    if reference is None:  # each run alone, then the pairs
        rows = sorted(alone, key=lambda row: order[row['run']]) + sorted(
            compared, key=lambda row: (order[row['baseline']], order[row['run']]))
    else:  # run by run, the baseline where it is
        rows = sorted(alone + compared, key=lambda row: order[row['run']])
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column in ('wins', 'losses', 'ties'):
        frame[column] = frame[column].astype('Int64')
    frame.attrs.update(options, all_pairs=reference is None, queries=len(run_values.query_ids),
                       lower_is_better=[str(m) for m in run_values.measures if lower_is_better(m)],
                       aggregates={str(m): aggregate_function(m).name for m in run_values.measures
                                   if aggregate_function(m) is not MEAN})
    return frame
