"""``--plot``: per measure, the sorted per-query differences of each run against the baseline (left),
and each run's mean with its confidence interval (right). Needs matplotlib
(``pip install 'irmeasures-ext[plot]'``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from irmeasures_ext.comparison.table import RunValues, baseline_index
from irmeasures_ext.errors import ComparisonError
from irmeasures_ext.measures.base import lower_is_better

FORMATS = ('.png', '.svg', '.pdf')


def plot_comparison(run_values: RunValues, table: pd.DataFrame, path: str | Path,
                    baseline: str | int | None = None, overwrite: bool = False) -> Path:
    """Draws the figure into ``path`` (its suffix picks the format: png, svg or pdf) and returns it.
    With all pairs compared (no baseline), differences are taken against the first run. An existing
    file is replaced only with ``overwrite``."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ComparisonError(f'{path}: the plot is written as {", ".join(FORMATS)}; give a file name ending so')
    if path.is_dir() or (path.exists() and not overwrite):
        raise ComparisonError(f'{path}: exists; give another file name{"" if path.is_dir() else " or overwrite it"}')
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        raise ComparisonError("--plot needs matplotlib: pip install 'irmeasures-ext[plot]'") from None
    names, measures = run_values.names, run_values.measures
    reference = baseline_index(names, None if table.attrs.get('all_pairs') else baseline)
    figure, axes = plt.subplots(len(measures), 2, figsize=(11, 3.2 * len(measures)), squeeze=False)
    for (left, right), measure in zip(axes, measures, strict=True):
        values = run_values.complete(measure)
        for index, name in enumerate(names):
            if index != reference:
                left.plot(np.sort(values[:, index] - values[:, reference]), label=name)
        left.axhline(0, color='grey', linewidth=0.8)
        direction = ' (lower is better)' if lower_is_better(measure) else ''
        left.set_title(f'{measure}{direction}: per-query difference against {names[reference]}, sorted')
        left.set_xlabel('queries')
        left.legend(fontsize='small')
        rows = table[table['measure'] == str(measure)].drop_duplicates('run').set_index('run').loc[names]
        positions = np.arange(len(names))
        errors = np.array([rows['mean'] - rows['ci_low'], rows['ci_high'] - rows['mean']], dtype=np.float64)
        right.errorbar(rows['mean'].to_numpy(np.float64), positions, xerr=errors, fmt='o', capsize=4)
        right.set_yticks(positions, names)
        right.invert_yaxis()
        right.set_title(f'{measure}: mean and {1 - table.attrs.get("alpha", 0.05):.0%} interval')
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
