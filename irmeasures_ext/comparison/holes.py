"""The holes a qrels leaves in runs: the share of each run's top k that the qrels do not judge,
and how far that could move each measure: its value when the unjudged docs are all non-relevant (the usual value),
when they all have the qrels' highest label (RBP's residual, generalised to any measure), and on the condensed list
(the run without its unjudged docs; Sakai, SIGIR 2007). ``compare(holes_at=k)`` adds them to its table;
:func:`irmeasures_ext.judges.holes.holes` gives them under several judgement sets."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures.measures import Measure

from irmeasures_ext.errors import MeasureParamError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from irmeasures_ext.plugin import IrMeasuresExtProvider

#: The columns of :func:`run_holes`' table.
HOLES_COLUMNS = ['run', 'measure', 'value', 'condensed', 'if_relevant', 'low', 'high', 'unjudged']
#: The depth of the unjudged share by default (the top 10).
DEFAULT_DEPTH = 10


def run_holes(qrels: Any, runs: Mapping[str, Any], measures: list[Measure], provider: IrMeasuresExtProvider,
              k: int = DEFAULT_DEPTH, highest: float | None = None) -> pd.DataFrame:
    """For every run (name → run, any form; an Input read already is not read again) and measure, a row of
    :data:`HOLES_COLUMNS`:

    - ``value``: the measure as usual (an unjudged doc is non-relevant);
    - ``condensed``: on the condensed list, the run without the docs the qrels do not judge;
    - ``if_relevant``: with every unjudged doc the run retrieves for a query of the qrels judged at ``highest``
      (default: the qrels' highest label), the ideal list growing with them;
    - ``low``, ``high``: the smaller and larger of ``value`` and ``if_relevant``, the interval the measure spans
      between the two extremes of the holes (for a measure normalised by its ideal list, the values at these
      two extremes, not bounds over every labelling of the holes);
    - ``unjudged``: the mean, over the qrels' queries the run retrieves docs for, of the share of its top ``k``
      (or of all it retrieves, if fewer) that the qrels do not judge, ranked as the measures rank
      (``1 − Judged@k``: ir_measures' Judged divides by min(k, retrieved)).

    ``provider`` (ours, configured) computes the measures it supports, ir_measures' default pipeline the others;
    diversity measures are refused (an unjudged doc has no intent to be judged for)."""
    import pandas as pd

    from irmeasures_ext.engine.kernels import kernel_of
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.readers.inputs import read_input
    refused = [str(measure) for measure in measures if provider.supports(measure) and kernel_of(measure).needs_intents]
    if refused:
        raise MeasureParamError(f'holes: {" ".join(refused)} need intents, and an unjudged doc has none to be '
                                'judged for: give ad hoc measures')
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise MeasureParamError(f'holes: k must be an integer from 1; got {k!r}')
    judged_at_k = ir_measures.Judged @ k
    evaluation = Evaluation([*measures, judged_at_k], provider)
    evaluation.read_qrels(qrels)
    assert evaluation.built is not None  # (read_qrels builds it)
    table = evaluation.built.qrels
    top = float(highest_label(table)) if highest is None else float(highest)
    rows = []
    for name, run in runs.items():
        read = read_input(run, 'run')
        usual = evaluation.results(read)
        condensed = evaluation.results(judged_only(read.table, table)).aggregates()
        filled = Evaluation(measures, provider)
        filled.read_qrels(with_holes_judged(table, read.table, top))
        if_relevant = filled.results(read).aggregates()
        share = unjudged_share(usual.values[judged_at_k], usual.query_ids, read.table)
        values = usual.aggregates()
        rows += [{'run': name, 'measure': str(measure), 'value': values[measure], 'condensed': condensed[measure],
                  'if_relevant': if_relevant[measure], 'low': min(values[measure], if_relevant[measure]),
                  'high': max(values[measure], if_relevant[measure]), 'unjudged': share} for measure in measures]
    frame = pd.DataFrame(rows, columns=HOLES_COLUMNS)
    frame.attrs.update(k=k)
    return frame


def highest_label(qrels: pa.Table) -> float:
    """The highest label of the qrels."""
    import pyarrow.compute as pc
    return pc.max(qrels['relevance']).as_py()


def _keys(table: pa.Table) -> pa.ChunkedArray:
    """One key per row of a run or qrels table: its query id and doc id."""
    import pyarrow.compute as pc
    return pc.binary_join_element_wise(table['query_id'], table['doc_id'], '\x1f')


def judged_only(run: pa.Table, qrels: pa.Table) -> pa.Table:
    """The run's rows whose doc the qrels judge for its query (the condensed list)."""
    import pyarrow.compute as pc
    return run.filter(pc.is_in(_keys(run), value_set=_keys(qrels).combine_chunks()))


def with_holes_judged(qrels: pa.Table, run: pa.Table, label: float) -> pa.Table:
    """The qrels plus every doc the run retrieves for a query of the qrels and they do not judge, at ``label``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    qrels = qrels.select(['query_id', 'doc_id', 'relevance'])
    unjudged = run.filter(pc.and_(pc.is_in(run['query_id'], value_set=pc.unique(qrels['query_id'])),
                                  pc.invert(pc.is_in(_keys(run), value_set=_keys(qrels).combine_chunks()))))
    added = pa.table({'query_id': unjudged['query_id'], 'doc_id': unjudged['doc_id'],
                      'relevance': pa.array([label] * unjudged.num_rows, pa.float64())})
    return pa.concat_tables([qrels.cast(added.schema), added])


def unjudged_share(judged_at_k: Any, query_ids: pa.Array, run: pa.Table) -> float:
    """The mean of ``1 − Judged@k`` (``judged_at_k``, in ``query_ids``' order) over the queries the run retrieves
    docs for; NaN if it retrieves none."""
    import numpy as np
    import pyarrow.compute as pc
    answered = pc.is_in(query_ids, value_set=pc.unique(run['query_id'])).to_numpy(zero_copy_only=False)
    if not answered.any():
        return float('nan')
    return float(np.mean(1 - np.asarray(judged_at_k, dtype=float)[answered]))
