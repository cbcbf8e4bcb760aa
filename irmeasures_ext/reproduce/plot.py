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

from irmeasures_ext.errors import InputError, extra_install
from irmeasures_ext.reproduce.statistics import PAIRED_COLUMNS, Experiment, rmse

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
                        measures: Iterable[Measure | str]) -> pd.DataFrame:
    """The per-topic scores of a reproduction side by side: a DataFrame ``measure, run, query_id, original,
    reproduced`` (``run``: ``baseline`` or ``advanced``), over the qrels' topics (sorted), by measure in the order
    given (:meth:`~irmeasures_ext.reproduce.statistics.Experiment.paired_topic_scores`: 0 for an unanswered topic,
    with an :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`)."""
    return Experiment(qrels, original_baseline, original_advanced, measures).paired_topic_scores(
        reproduced_baseline, reproduced_advanced)


def plot_topic_scores(scores: pd.DataFrame, path: str | Path | None = None, overwrite: bool = False) -> Figure:
    """Draws, per measure, each topic's reproduced score (y) against its original score (x), the baseline and the
    advanced run with two markers, the diagonal y = x (a perfect reproduction) and each run's RMSE in the title;
    the axes span [0, 1] when the scores are in [0, 1]. ``scores``: :func:`paired_topic_scores`' table. With a
    ``path`` (.png, .svg, .pdf, ...; checked before drawing), also writes the figure there, replacing an existing
    file only with ``overwrite`` and only by a complete figure. Returns the figure."""
    missing = [column for column in COLUMNS if column not in scores.columns]
    if missing:
        raise InputError(f'the per-topic scores have no column {", ".join(missing)}; expected the columns '
                         f'{", ".join(COLUMNS)} (paired_topic_scores)')
    if scores.empty:
        raise InputError('no per-topic scores to plot')
    if path is not None:
        from irmeasures_ext.comparison.plot import check_plot_path, save_beside
        path = check_plot_path(path, overwrite)
    figure = _figure(scores)
    if path is not None:
        save_beside(figure, path, overwrite)
    return figure


def _figure(scores: pd.DataFrame) -> Figure:
    """The figure: a square panel per measure, three to a row."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(f'plot_topic_scores needs matplotlib: {extra_install("plot")}',
                                  name=missing.name) from None
    measures = list(dict.fromkeys(scores['measure']))
    columns = min(3, len(measures))
    rows = math.ceil(len(measures) / columns)
    figure = Figure(figsize=(4.3 * columns, 4.3 * rows))
    FigureCanvasAgg(figure)
    panels = figure.subplots(rows, columns, squeeze=False).ravel()
    for axes, measure in zip(panels, measures, strict=False):
        of_measure = scores[scores['measure'] == measure]
        errors = []
        for run, marker in MARKERS.items():
            of_run = of_measure[of_measure['run'] == run]
            original, reproduced = (of_run[c].to_numpy(np.float64) for c in ('original', 'reproduced'))
            axes.scatter(original, reproduced, marker=marker, label=run, alpha=0.7, clip_on=False)
            if len(of_run):
                errors.append(f'{run} {rmse(original, reproduced):.3f}')
        values = of_measure[['original', 'reproduced']].to_numpy(np.float64)
        low, high = _limits(float(values.min()), float(values.max()))
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect('equal')
        axes.axline((low, low), slope=1, color='grey', linewidth=0.8, label='y = x')
        axes.set_title(f'{measure}\nRMSE: {", ".join(errors)}', fontsize='medium')
        axes.set_xlabel('original')
        axes.set_ylabel('reproduced')
        axes.legend(fontsize='small', loc='upper left')
    for unused in panels[len(measures):]:
        figure.delaxes(unused)
    figure.tight_layout()
    return figure


def _limits(low: float, high: float) -> tuple[float, float]:
    """The axes' span: [0, 1] for scores in [0, 1], else the scores' range with a margin."""
    if 0 <= low and high <= 1:
        return 0.0, 1.0
    margin = 0.05 * (high - low) or 0.5
    return low - margin, high + margin
