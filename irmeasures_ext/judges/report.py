"""``judges``: two or more judgement sets and runs → how far the sets agree label by label, how far the system
rankings they give agree per measure, each run's scores under each set (and its holes), and a plot of the
systems' scores under two sets."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_measures.measures import Measure

from irmeasures_ext.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import JudgementsLike, RunsLike


@dataclass(frozen=True)
class JudgesReport:
    """The tables of :func:`judges`: ``agreement`` (:func:`~irmeasures_ext.judges.agreement.agreement`),
    ``leaderboard`` (:func:`~irmeasures_ext.judges.leaderboard.leaderboard_agreement`), ``scores`` (a scores frame:
    judge, run, measure, value) and ``holes`` (:func:`~irmeasures_ext.judges.holes.holes`, or None)."""

    agreement: pd.DataFrame
    leaderboard: pd.DataFrame
    scores: pd.DataFrame
    holes: pd.DataFrame | None

    def plot(self, path: str | Path, measure: str | None = None, judges: Sequence[str] | None = None,
             overwrite: bool = False) -> Path:
        """Draws each system's score under one set against another (``judges``: two names; default the first two)
        for ``measure`` (default the first) into ``path`` (.png, .svg, .pdf...), with Kendall's τ_b and τ_AP of
        the two rankings written on it; returns the path. An existing file is replaced only with ``overwrite``."""
        from irmeasures_ext.comparison.plot import check_plot_path, save_beside
        path = check_plot_path(path, overwrite)
        save_beside(self._figure(measure, judges), path, overwrite)
        return path

    def _figure(self, measure: str | None, judges: Sequence[str] | None) -> Any:
        import numpy as np
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from irmeasures_ext.comparison.plot import literal
        names = list(dict.fromkeys(self.scores['judge']))
        first, second = judges if judges is not None else names[:2]
        measure = measure if measure is not None else str(self.scores['measure'].iloc[0])
        for judge in (first, second):
            if judge not in names:
                raise InputError(f'no judgement set {judge!r}; the sets are {", ".join(names)}')
        scores = self.scores[self.scores['measure'] == measure].pivot(index='run', columns='judge', values='value')
        if scores.empty:
            known = ', '.join(dict.fromkeys(self.scores['measure']))
            raise InputError(f'no scores of {measure}; the measures are {known}')
        row = self.leaderboard[(self.leaderboard['measure'] == measure)
                               & (self.leaderboard['judge_a'].isin([first, second]))
                               & (self.leaderboard['judge_b'].isin([first, second]))]
        figure = Figure(figsize=(5.5, 5))
        FigureCanvasAgg(figure)
        axes = figure.subplots()
        x, y = scores[first].to_numpy(np.float64), scores[second].to_numpy(np.float64)
        axes.scatter(x, y)
        for run, x_value, y_value in zip(scores.index, x, y, strict=True):
            axes.annotate(literal(run), (x_value, y_value), fontsize='x-small', xytext=(3, 3),
                          textcoords='offset points')
        low, high = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
        axes.plot([low, high], [low, high], color='grey', linewidth=0.8)
        axes.set_xlabel(f'{literal(measure)} under {literal(first)}')
        axes.set_ylabel(f'{literal(measure)} under {literal(second)}')
        if len(row):  # (τ_AP is undefined where systems tie: its tie-aware τ_AP_b then)
            tau_ap = ('τ_AP', row['tau_ap'].iloc[0]) if np.isfinite(row['tau_ap'].iloc[0]) else ('τ_AP_b',
                                                                                            row['tau_ap_b'].iloc[0])
            axes.set_title(f"{literal(measure)}: Kendall's τ_b {row['tau_b'].iloc[0]:.3f}, {tau_ap[0]} {tau_ap[1]:.3f}")
        figure.tight_layout()
        return figure


def judges(judgements: JudgementsLike, runs: RunsLike, measures: Iterable[Measure | str], *,
           names: Iterable[str] | None = None, reference: str | None = None, binning: Any = None,
           decimals: int | None = None,
           tolerance: float | None = None, holes_at: int | None = None, ties: str | None = None,
           score_precision: str | None = None, rel: float | None = None) -> JudgesReport:
    """Compares two or more judgement sets of one collection (``judgements``: a mapping name → qrels, or a table
    with a judge column) on ``runs`` (a list, a mapping name → run, or a folder of run files) and ``measures``:
    the label agreement (``binning``: how real-valued labels become categories for κ), each measure's
    leaderboard agreement (each set against ``reference``, else every pair; systems tie at ``decimals`` places
    or within ``tolerance``), every run's scores under every set (each run read once) and, with ``holes_at=k``,
    the holes table at depth k."""
    from irmeasures_ext.judges.agreement import agreement
    from irmeasures_ext.judges.holes import holes
    from irmeasures_ext.judges.leaderboard import leaderboard_agreement
    from irmeasures_ext.judges.sets import evaluate_under, judgement_sets, judgements_frame, runs_in
    sets = judgement_sets(judgements)
    if len(sets) < 2:
        raise InputError(f'judges compares two or more judgement sets; got {len(sets)}: {", ".join(sets)}')
    if reference is not None and reference not in sets:
        raise InputError(f'reference {reference!r} is not a judgement set; the sets are {", ".join(sets)}')
    from irmeasures_ext.comparison.table import run_names
    from irmeasures_ext.readers.inputs import read_input
    read = {name: read_input(run, 'run') for name, run in zip(*run_names(runs_in(runs), names, at_least=1),
                                                              strict=True)}  # (read once, for scores and holes)
    scores = evaluate_under(sets, read, measures, ties=ties, score_precision=score_precision, rel=rel)
    return JudgesReport(
        agreement=agreement(judgements_frame(sets), binning=binning),
        leaderboard=leaderboard_agreement(scores, reference=reference, decimals=decimals, tolerance=tolerance),
        scores=scores,
        holes=None if holes_at is None else holes(sets, read, measures, k=holes_at, ties=ties,
                                                  score_precision=score_precision, rel=rel))
