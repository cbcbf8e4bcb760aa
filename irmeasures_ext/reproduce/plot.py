"""Per-topic scores of a reproduction, original against reproduced: the table (:func:`paired_topic_scores`) and its
plot (:func:`plot_topic_scores`, ``irmeasures-ext reproduce --plot``). The plot needs matplotlib (the ``plot``
extra); it is drawn without pyplot (a notebook's backend is left as it is) and written as ``irmeasures-ext compare
--plot`` writes its own: into a new file beside the target, then renamed onto it.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from ir_measures.measures import Measure

from irmeasures_ext.errors import InputError, check_flag, extra_install
from irmeasures_ext.reproduce.statistics import PAIRED_COLUMNS, Experiment, _rmse

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from irmeasures_ext.readers.forms import QrelsLike, RunLike

#: The runs of a reproduction, in the order the tables and the plot give them, with the plot's markers.
MARKERS = {'baseline': 'o', 'advanced': '^'}
#: The columns of :func:`paired_topic_scores`.
COLUMNS = list(PAIRED_COLUMNS)


def paired_topic_scores(qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                        reproduced_baseline: RunLike, reproduced_advanced: RunLike,
                        measures: Iterable[Measure | str], rel: float | None = None) -> pd.DataFrame:
    """The per-topic scores of a reproduction side by side: a DataFrame ``measure, run, query_id, original,
    reproduced`` (``run``: ``baseline`` or ``advanced``), over the qrels' topics (sorted), by measure in the order
    given (:meth:`~irmeasures_ext.reproduce.statistics.Experiment.paired_topic_scores`: an unanswered topic
    evaluated as a ranking of no documents, with an :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`);
    ``rel`` as :class:`~irmeasures_ext.reproduce.statistics.Experiment`'s."""
    return Experiment(qrels, original_baseline, original_advanced, measures, rel).paired_topic_scores(
        reproduced_baseline, reproduced_advanced)


def plot_topic_scores(scores: pd.DataFrame, path: str | Path | None = None, overwrite: bool = False) -> Figure:
    """Draws, per measure, each topic's reproduced score (y) against its original score (x), the baseline and the
    advanced run with two markers, the diagonal y = x (a perfect reproduction) and each run's RMSE in the title;
    the axes span [0, 1] when the scores are in [0, 1]. ``scores``: :func:`paired_topic_scores`' table. With a
    ``path`` (.png, .svg, .pdf, ...; checked before drawing), also writes the figure there, replacing an existing
    file only with ``overwrite`` and only by a complete figure. Returns the figure."""
    check_flag('overwrite', overwrite)
    _check_scores(scores)
    if path is not None:
        from irmeasures_ext.comparison.plot import check_plot_path, save_beside
        path = check_plot_path(path, overwrite)
    figure = _figure(scores)
    if path is not None:
        save_beside(figure, path, overwrite)
    return figure


def _check_scores(scores: pd.DataFrame) -> None:
    """InputError unless ``scores`` is a table as :func:`paired_topic_scores` makes: a DataFrame with its columns
    (once each), not empty, every row naming its measure, run and topic, runs ``baseline`` and ``advanced`` only,
    each topic once per measure and run, scores numbers (NaN where a measure is undefined, never infinite)."""
    import pandas as pd
    expected = f'expected paired_topic_scores\' table (a DataFrame with the columns {", ".join(COLUMNS)})'
    if not isinstance(scores, pd.DataFrame):
        raise InputError(f'the per-topic scores are a {type(scores).__name__}; {expected}')
    columns = list(scores.columns)
    missing = [column for column in COLUMNS if column not in columns]
    if missing:
        raise InputError(f'the per-topic scores have no column {", ".join(missing)}; {expected}')
    for column in COLUMNS:
        if columns.count(column) > 1:
            raise InputError(f'the per-topic scores have {columns.count(column)} columns named {column}')
    if scores.empty:
        raise InputError('no per-topic scores to plot')
    for column in ('measure', 'run', 'query_id'):
        if scores[column].isna().any():
            raise InputError(f'the per-topic scores have a row without its {column}')
    others = [run for run in dict.fromkeys(scores['run']) if run not in MARKERS]
    if others:
        raise InputError(f'the per-topic scores hold run {others[0]!r}: the runs of a reproduction are '
                         f'{" and ".join(MARKERS)} ({expected})')
    twice = scores.duplicated(['measure', 'run', 'query_id'])
    if twice.any():
        measure, run, topic = scores[twice].iloc[0][['measure', 'run', 'query_id']]
        raise InputError(f'the per-topic scores hold topic {topic!r} twice for {measure} ({run})')
    for column in ('original', 'reproduced'):
        if not _numbers(scores[column]):
            raise InputError(f'the per-topic scores\' column {column} holds something other than numbers '
                             f'({scores[column].dtype} values)')
        values = _values(scores[column])
        if np.isinf(values).any():
            first = int(np.argmax(np.isinf(values)))
            row = scores.iloc[first]
            raise InputError(f'the per-topic scores hold {column} score {float(values[first])} for topic '
                             f'{row["query_id"]!r} of {row["measure"]} ({row["run"]}): not a finite number')


def _numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds real numbers (or missing values): not booleans, complex numbers, texts or dates."""
    from pandas.api import types
    if types.is_bool_dtype(column) or types.is_complex_dtype(column):
        return False
    if types.is_object_dtype(column):
        return types.infer_dtype(column, skipna=True) in ('integer', 'floating', 'mixed-integer-float', 'empty')
    return types.is_numeric_dtype(column)


def _values(column: pd.Series) -> np.ndarray:
    """A column of scores as float64 (a missing value NaN)."""
    return column.to_numpy(np.float64, na_value=np.nan)


def _figure(scores: pd.DataFrame) -> Figure:
    """The figure: a panel per measure, three to a row, each 4.3 inches wide and 4.6 high (a square plot with its
    two-line title and its x label: 4.3 high cut them where one row of two or three panels)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(f'plot_topic_scores needs matplotlib: {extra_install("plot")}',
                                  name=missing.name) from None
    from irmeasures_ext.comparison.plot import literal
    measures = list(dict.fromkeys(scores['measure']))
    columns = min(3, len(measures))
    rows = math.ceil(len(measures) / columns)
    # (constrained: room for titles and labels beside square panels, which tight_layout did not always leave)
    figure = Figure(figsize=(4.3 * columns, 4.6 * rows), layout='constrained')
    FigureCanvasAgg(figure)
    panels = figure.subplots(rows, columns, squeeze=False).ravel()
    for axes, measure in zip(panels, measures, strict=False):
        of_measure = scores[scores['measure'] == measure]
        errors = []
        for run, marker in MARKERS.items():
            of_run = of_measure[of_measure['run'] == run]
            original, reproduced = _values(of_run['original']), _values(of_run['reproduced'])
            axes.scatter(original, reproduced, marker=marker, label=run, alpha=0.7, clip_on=False)  # (NaN: not drawn)
            if len(of_run):
                errors.append(f'{run} {_rmse(original, reproduced):.3f}')
        values = np.concatenate([_values(of_measure['original']), _values(of_measure['reproduced'])])
        values = values[~np.isnan(values)]
        low, high = _limits(float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect('equal')
        axes.axline((low, low), slope=1, color='grey', linewidth=0.8, label='y = x')
        axes.set_title(f'{literal(measure)}\nRMSE: {", ".join(errors)}', fontsize='medium')
        axes.set_xlabel('original')
        axes.set_ylabel('reproduced')
        axes.legend(fontsize='small', loc='upper left')
    for unused in panels[len(measures):]:
        figure.delaxes(unused)
    return figure


def _limits(low: float, high: float) -> tuple[float, float]:
    """The axes' span: [0, 1] for scores in [0, 1], else the scores' range with a margin."""
    if 0 <= low and high <= 1:
        return 0.0, 1.0
    margin = 0.05 * (high - low) or 0.5
    return low - margin, high + margin
