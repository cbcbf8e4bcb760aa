"""Choosing between measures (Sakai): how alike the system rankings of every two measures are
(Kendall's τ-b over the runs' means), and each measure's discriminative power (the share of run
pairs it finds significantly different at alpha under the chosen test and correction)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeasures_ext.comparison import stats
from irmeasures_ext.comparison.table import (
    RunValues,
    aggregate_function,
    check_options,
    comparison_pairs,
    p_values,
    pair_differences,
)
from irmeasures_ext.engine.aggregates import VARIANCE
from irmeasures_ext.measures.base import lower_is_better


@dataclass(frozen=True)
class MeasuresReport:
    """``kendall_tau``: a square DataFrame (measures × measures); ``discriminative_power``: a row per
    measure with ``significant_pairs``, ``pairs`` and ``discriminative_power``; ``tied``: the measures on which
    every run has the same value, so that τ with them is undefined (NaN: they rank no run above another)."""

    kendall_tau: pd.DataFrame
    discriminative_power: pd.DataFrame
    tied: tuple[str, ...] = ()


def measures_report(run_values: RunValues, test: str = 't', correction: str = 'none', alpha: float = 0.05,
                    samples: int = 10_000, seed: int = 42) -> MeasuresReport:
    """The report for the runs and measures of ``run_values``: systems are ranked by each measure's
    own aggregate, turned around for lower-is-better measures (MeanRank, ...) so that τ compares
    which run each measure calls better; RankVariance has no discriminative power (no paired test)."""
    check_options(test, correction, 't', alpha, samples)
    names = [str(m) for m in run_values.measures]
    oriented = {}
    power = []
    pairs = comparison_pairs(len(run_values.names), None)
    for measure, name in zip(run_values.measures, names, strict=True):
        values = run_values.complete(measure)
        statistic = aggregate_function(measure)
        aggregates = statistic.of(values.T) if len(values) else np.full(len(run_values.names), np.nan)
        oriented[name] = -aggregates if lower_is_better(measure) else aggregates
        if statistic is VARIANCE:  # no paired test of a spread (see comparison_table)
            power.append({'measure': name, 'significant_pairs': None, 'pairs': len(pairs),
                          'discriminative_power': np.nan})
            continue
        differences = pair_differences(values, pairs)
        adjusted = stats.adjust(p_values(values, pairs, differences, test, samples, seed), correction)
        significant = int(np.sum(adjusted < alpha))
        power.append({'measure': name, 'significant_pairs': significant, 'pairs': len(pairs),
                      'discriminative_power': significant / len(pairs)})
    tau = pd.DataFrame([[stats.kendall_tau(oriented[a], oriented[b]) for b in names] for a in names],
                       index=names, columns=names)
    power = pd.DataFrame(power, columns=['measure', 'significant_pairs', 'pairs', 'discriminative_power'])
    power['significant_pairs'] = power['significant_pairs'].astype('Int64')
    tied = tuple(name for name in names if not np.count_nonzero(oriented[name] - oriented[name][0]))
    return MeasuresReport(tau, power, tied)
