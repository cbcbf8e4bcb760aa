"""``--plot``: per measure, the sorted per-query differences of each run against the baseline (left),
and each run's aggregate (the mean, or the measure's own: median, variance) with its confidence
interval (right). Needs matplotlib (``pip install '.[plot]'`` in a clone).

The figure is drawn on matplotlib's Agg canvas without pyplot (a notebook's backend is left as it
is) and written into a new file beside the target, then renamed onto it: a full disk or an
interrupt leaves the target as it was.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irmeasures_ext.comparison.table import RunValues, baseline_index
from irmeasures_ext.errors import ComparisonError, check_flag, extra_install
from irmeasures_ext.files import check_target, written_beside
from irmeasures_ext.measures.base import lower_is_better


def plot_formats() -> list[str]:
    """The file suffixes matplotlib writes a figure as (``.png``, ``.svg``, ``.pdf``, ...)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        raise ComparisonError(f'--plot needs matplotlib: {extra_install("plot")}') from None
    return sorted(f'.{suffix}' for suffix in FigureCanvasAgg.get_supported_filetypes())


def check_plot_path(path: str | Path, overwrite: bool = False) -> Path:
    """``path`` as a Path if a plot can be written there, else ComparisonError: its suffix is a format
    matplotlib writes, it is not a folder, its folder exists and is writable, and an existing file (or symbolic
    link, even to nothing) is replaced only with ``overwrite``. The command checks this before it evaluates
    anything."""
    check_flag('overwrite', overwrite, ComparisonError)
    if not isinstance(path, (str, os.PathLike)):
        raise ComparisonError(f"the plot's path must be a file name (a str or a path), got {type(path).__name__}")
    path = Path(path)
    formats = plot_formats()
    if path.suffix.lower() not in formats:
        raise ComparisonError(f'{path}: the plot is written as {", ".join(formats)}; give a file name ending so')
    check_target(path, overwrite, ComparisonError, 'the plot', '--overwrite (overwrite=True in Python)')
    return path


def plot_comparison(run_values: RunValues, table: pd.DataFrame, path: str | Path,
                    baseline: str | int | None = None, overwrite: bool = False) -> Path:
    """Draws the figure into ``path`` (its suffix picks the format: png, svg, pdf, ...) and returns it.
    With all pairs compared (no baseline), differences are taken against the first run. An existing
    file is replaced only with ``overwrite``, and only by a complete figure: on any failure ``path``
    is as it was."""
    path = check_plot_path(path, overwrite)
    save_beside(_figure(run_values, table, baseline), path, overwrite)
    return path


def _figure(run_values: RunValues, table: pd.DataFrame, baseline: str | int | None) -> Any:
    """The figure, laid out: a row of two panels per measure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    names, measures = [literal(name) for name in run_values.names], run_values.measures
    reference = baseline_index(names, None if table.attrs.get('all_pairs') else baseline)
    interval = f'{1 - table.attrs.get("alpha", 0.05):.0%} interval'
    figure = Figure(figsize=(11, 3.4 * len(measures)))
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(measures), 2, squeeze=False)
    for (left, right), measure in zip(axes, measures, strict=True):
        heading = f'{literal(measure)} (lower is better)' if lower_is_better(measure) else literal(measure)
        aggregate = table.attrs.get('aggregates', {}).get(str(measure), 'mean')
        values = run_values.complete(measure)
        for index, name in enumerate(names):
            if index != reference:
                left.plot(np.sort(values[:, index] - values[:, reference]), label=name)
        left.axhline(0, color='grey', linewidth=0.8)
        left.set_title(f'{heading}\nper-query difference against {names[reference]}, sorted')
        left.set_xlabel('queries')
        left.legend(fontsize='small')
        rows = table[table['measure'] == str(measure)].drop_duplicates('run').set_index('run').loc[run_values.names]
        positions = np.arange(len(names))
        errors = np.array([rows['mean'] - rows['ci_low'], rows['ci_high'] - rows['mean']], dtype=np.float64)
        right.errorbar(rows['mean'].to_numpy(np.float64), positions, xerr=errors, fmt='o', capsize=4)
        right.set_yticks(positions, names)
        right.invert_yaxis()
        right.set_title(f'{heading}\n{aggregate} and {interval}')
        right.set_xlabel(f'{aggregate} over the queries')
    figure.tight_layout()
    return figure


def literal(text: object) -> str:
    """``text`` as matplotlib draws it as written (a ``$`` would start its math, and ``$\\frac$`` fail)."""
    return str(text).replace('$', r'\$')


def save_beside(figure: Any, path: Path, overwrite: bool) -> None:
    """Writes ``figure`` into a new file beside ``path``, then renames it onto ``path``. On any failure
    (a full disk, an interrupt, a file made at ``path`` meanwhile without ``overwrite``) the new file
    is removed and ``path`` is as it was."""
    with written_beside(path, lambda: check_plot_path(path, overwrite), ComparisonError, 'the plot') as file:
        figure.savefig(file, format=path.suffix[1:].lower())
