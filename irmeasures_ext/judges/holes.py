"""The holes each judgement set leaves in runs: :func:`irmeasures_ext.comparison.holes.run_holes`
under every set, each run read once."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ir_measures.measures import Measure

from irmeasures_ext.comparison.holes import DEFAULT_DEPTH, HOLES_COLUMNS, run_holes
from irmeasures_ext.judges.sets import JUDGE, judgement_sets, runs_in

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import JudgementsLike, RunsLike


def holes(judgements: JudgementsLike, runs: RunsLike, measures: Iterable[Measure | str], *, k: int = DEFAULT_DEPTH,
          names: Iterable[str] | None = None, highest: float | None = None, ties: str | None = None,
          score_precision: str | None = None, rel: float | None = None) -> pd.DataFrame:
    """For every judgement set (see :func:`~irmeasures_ext.judges.sets.judgement_sets`: for one qrels,
    ``{'name': qrels}``), run (a list, named by ``names`` or file stems, a mapping name → run, or a folder) and
    measure, the row of :func:`~irmeasures_ext.comparison.holes.run_holes` (``value``, ``condensed``,
    ``if_relevant``, ``low``, ``high``, ``unjudged`` at depth ``k``; ``highest``: the label of every hole, default
    each set's highest) with the set's name in a ``judge`` column. Our provider (``configured(ties,
    score_precision, rel=rel)``) computes the measures it supports, ir_measures' default pipeline the others."""
    import pandas as pd

    from irmeasures_ext.comparison.table import run_names
    from irmeasures_ext.plugin import measures_of
    from irmeasures_ext.plugin import provider as ext_provider
    from irmeasures_ext.readers.inputs import read_input
    measures = measures_of(measures)
    provider = ext_provider.configured(ties, score_precision, rel=rel)
    run_list_names, run_list = run_names(runs_in(runs), names, at_least=1)
    reads = {name: read_input(run, 'run') for name, run in zip(run_list_names, run_list, strict=True)}
    frames = [run_holes(qrels, reads, measures, provider, k, highest).assign(**{JUDGE: judge})
              for judge, qrels in judgement_sets(judgements).items()]
    frame = pd.concat(frames, ignore_index=True)[[JUDGE, *HOLES_COLUMNS]]
    frame.attrs.update(k=k)
    return frame
