"""Comparing runs: significance tests, corrections, confidence intervals, effect sizes, tables and
plots (``irmeasures-ext compare``). Imports numpy, pandas and scipy only when called."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ir_measures.measures import Measure

from irmeasures_ext.comparison.choices import CORRECTIONS, INTERVALS, TESTS
from irmeasures_ext.errors import ComparisonError, check_flag

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import QrelsLike, RunsLike



def compare(qrels: QrelsLike, runs: RunsLike, measures: Iterable[Measure | str], *, names: Iterable[str] | None = None,
            baseline: str | int | None = None, all_pairs: bool = False, test: str = 't', correction: str = 'none',
            ci: str = 't', alpha: float = 0.05, samples: int = 10_000, seed: int = 42, ties: str | None = None,
            score_precision: str | None = None, rel: float | None = None, holes_at: int | None = None) -> pd.DataFrame:
    """Compares runs measure by measure, as the results table of a paper.

    ``measures``: measures, or their names as the command line takes them (``'nDCG@10'``, ``'ndcg_cut.10'``).
    ``runs``: a list of runs (TREC files, DataFrames with ir_measures or PyTerrier columns, any
    form ir_measures accepts; named by ``names``, else file stems or ``run1``...) or a dict name →
    run. Every run is compared with ``baseline`` (a name or index; default the first run), or all
    pairs with each other (``all_pairs``), over the qrels' queries, by ``test`` (:data:`TESTS`) with ``correction``
    (:data:`CORRECTIONS`) over each measure's comparisons; intervals by ``ci`` (:data:`INTERVALS`) at level
    1 − ``alpha``; ``samples`` and ``seed`` drive the randomised procedures. ``ties`` and
    ``score_precision`` choose the tie policy of the measures our provider computes, ``rel`` their relevance
    threshold (the provider's: ``irmeasures_ext.provider.configured(rel=...)``). With ``holes_at=k``, each run's
    row also gives its holes (:func:`irmeasures_ext.comparison.holes.run_holes`): ``unjudged`` (the mean share of
    its top k the qrels do not judge), ``condensed``, ``low`` and ``high``.

    Returns a DataFrame with columns ``run, measure, mean, ci_low, ci_high, baseline, diff, p_value,
    p_adjusted, effect_size, wins, losses, ties``: a row per run and measure against its
    ``baseline`` (null for the baseline's own row, and for each run's own row with ``all_pairs``).
    ``wins``/``losses`` count queries where the run is better/worse than the baseline, lower being
    better for ``MeanRank``, ``MedianRank`` and ``RankVariance``. Raises
    :class:`~irmeasures_ext.errors.ComparisonError` for invalid options.
    """
    from irmeasures_ext.comparison.table import check_options, comparison_table, evaluate_runs
    check_options(test, correction, ci, alpha, samples)
    check_flag('all_pairs', all_pairs, ComparisonError)
    values = evaluate_runs(qrels, runs, measures, names, ties, score_precision, rel=rel)
    table = comparison_table(values, baseline, all_pairs, test, correction, ci, alpha, samples, seed)
    if holes_at is None:
        return table
    from irmeasures_ext.comparison.holes import run_holes
    from irmeasures_ext.comparison.table import run_names, with_holes
    from irmeasures_ext.plugin import provider
    return with_holes(table, run_holes(qrels, dict(zip(*run_names(runs, names), strict=True)), values.measures,
                                       provider.configured(ties, score_precision, rel=rel), holes_at))


__all__ = ['compare', 'TESTS', 'CORRECTIONS', 'INTERVALS']
