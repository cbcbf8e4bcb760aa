"""Several judgement sets of one collection: read and checked each, merged with a precedence, and runs evaluated
under every set in one call, each run read once."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_measures.measures import Measure

from irmeasures_ext.errors import InputError, check_flag

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import JudgementsLike, RunsLike

#: The column of a judgements or scores frame naming the judgement set.
JUDGE = 'judge'
#: The columns of a judgements frame.
JUDGEMENT_COLUMNS = [JUDGE, 'query_id', 'doc_id', 'relevance']


def judgement_sets(judgements: JudgementsLike) -> dict[str, Any]:
    """name → qrels of ``judgements``: a mapping name → qrels (any form our provider reads: a path, records,
    a DataFrame...), or a table (pandas or Arrow) with a ``judge`` column, one set per judge in order of first
    appearance. InputError for fewer than one set, or a set without a name."""
    if isinstance(judgements, Mapping):
        sets = {str(name): qrels for name, qrels in judgements.items()}
        if any(name == '' for name in sets):
            raise InputError('every judgement set needs a name: got an empty one')
    else:
        frame = _as_pandas(judgements)
        if frame is None or JUDGE not in frame.columns:
            raise InputError('judgement sets are a mapping name → qrels, or a table with a judge column (judge, '
                             f'query_id, doc_id, relevance); got {type(judgements).__name__}')
        sets = {str(name): rows.drop(columns=JUDGE) for name, rows in frame.groupby(JUDGE, sort=False)}
    if not sets:
        raise InputError('no judgement set given')
    return sets


def _as_pandas(table: Any) -> pd.DataFrame | None:
    """A pandas DataFrame of a pandas or Arrow table, else None."""
    if hasattr(table, 'columns') and hasattr(table, 'itertuples'):
        return table
    if hasattr(table, 'to_pandas') and hasattr(table, 'column_names'):
        return table.to_pandas()
    return None


def judgements_frame(judgements: JudgementsLike) -> pd.DataFrame:
    """The judgements frame of the sets (columns ``judge, query_id, doc_id, relevance``): each set read and
    checked as our provider reads qrels (a doc judged twice with two labels is an error naming the lines)."""
    import pandas as pd

    from irmeasures_ext.interop import read_qrels
    frames = []
    for name, qrels in judgement_sets(judgements).items():
        try:
            table = read_qrels(qrels, None).table
        except InputError as error:
            raise InputError(f'judge {name!r}: {error}') from None
        frame = pd.DataFrame({column: table[column].to_numpy(zero_copy_only=False)
                              for column in ('query_id', 'doc_id', 'relevance')})
        frames.append(frame.drop_duplicates(['query_id', 'doc_id']).assign(**{JUDGE: name}))
    return pd.concat(frames, ignore_index=True)[JUDGEMENT_COLUMNS]


def filled(judgements: JudgementsLike, precedence: Sequence[str] | None = None,
           all_queries: bool = False) -> pd.DataFrame:
    """One qrels from several sets: each (query, doc) labelled by the first set in ``precedence`` (default: the
    sets' order) that judges it, as "the assessors first, the LLM fills the holes" (UMBRELA's filled qrels).
    Only the first set's queries, unless ``all_queries``. Columns ``query_id, doc_id, relevance`` and ``judge``
    (the set each label comes from): a qrels our provider reads as it is."""
    check_flag('all_queries', all_queries)
    frame = judgements_frame(judgements)
    names = list(dict.fromkeys(frame[JUDGE]))
    order = list(names if precedence is None else precedence)
    unknown = [name for name in order if name not in names]
    if unknown or len(set(order)) != len(order):
        raise InputError(f'precedence {order} must name each judgement set at most once; the sets are {names}')
    frame = frame[frame[JUDGE].isin(order)]
    if not all_queries:
        frame = frame[frame['query_id'].isin(set(frame.loc[frame[JUDGE] == order[0], 'query_id']))]
    rank = frame[JUDGE].map({name: i for i, name in enumerate(order)})
    first = frame.assign(_rank=rank).sort_values('_rank', kind='stable').drop_duplicates(['query_id', 'doc_id'])
    return first.drop(columns='_rank')[['query_id', 'doc_id', 'relevance', JUDGE]].reset_index(drop=True)


def evaluate_under(judgements: JudgementsLike, runs: RunsLike, measures: Iterable[Measure | str], *,
                   names: Iterable[str] | None = None, per_query: bool = False, ties: str | None = None,
                   score_precision: str | None = None, rel: float | None = None) -> pd.DataFrame:
    """Every run under every judgement set: a scores frame (columns ``judge, run, measure, value``; with
    ``per_query``, ``query_id`` too, every query of each set). Each set is read once and each run once
    (``runs``: a list, named by ``names`` or file stems, or a mapping name → run, in any form our provider
    reads, or a folder of run files). Our provider (as ``configured(ties, score_precision, rel=rel)``) computes
    the measures it supports, ir_measures' default pipeline the others; each value is the measure's own aggregate
    over the set's queries."""
    check_flag('per_query', per_query)
    import pandas as pd

    from irmeasures_ext._arrow.memory import release_freed_memory
    from irmeasures_ext.comparison.table import run_names
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.plugin import measures_of
    from irmeasures_ext.plugin import provider as ext_provider
    from irmeasures_ext.readers.inputs import read_input
    run_list_names, run_list = run_names(runs_in(runs), names, at_least=1)
    configured = ext_provider.configured(ties, score_precision, rel=rel)
    evaluations = {}
    for judge, qrels in judgement_sets(judgements).items():
        evaluation = Evaluation(measures_of(measures), configured)
        evaluation.read_qrels(qrels)
        evaluations[judge] = evaluation
    with_rank = any(evaluation.built is not None and evaluation.built.reads_rank
                    for evaluation in evaluations.values())
    frames = []
    for run_name, run in zip(run_list_names, run_list, strict=True):
        read = read_input(run, 'run', with_rank=with_rank)
        for judge, evaluation in evaluations.items():
            results = evaluation.results(read)
            if per_query:
                query_ids = results.query_ids.to_pylist()
                frames += [pd.DataFrame({JUDGE: judge, 'run': run_name, 'measure': str(measure),
                                         'query_id': query_ids, 'value': values.astype(float)})
                           for measure, values in results.values.items()]
            else:
                frames.append(pd.DataFrame({JUDGE: judge, 'run': run_name,
                                            'measure': [str(measure) for measure in results.values],
                                            'value': [float(value) for value in results.aggregates().values()]}))
        del read
        release_freed_memory()
    return pd.concat(frames, ignore_index=True)


def runs_in(runs: Any) -> Any:
    """``runs`` with a folder (a path; alone, or in a list) given as its files, sorted by name (hidden files left
    out), named by their file stems as other run files are."""
    def is_folder(run: Any) -> bool:
        return isinstance(run, (str, os.PathLike)) and Path(run).is_dir()
    if is_folder(runs):
        return files_in(Path(runs))
    if isinstance(runs, (list, tuple)):
        return [file for run in runs for file in (files_in(Path(run)) if is_folder(run) else [run])]
    return runs


def files_in(folder: Path) -> list[str]:
    """The files of ``folder`` (not hidden), sorted by name; InputError for a folder without one."""
    files = sorted(str(path) for path in folder.iterdir() if path.is_file() and not path.name.startswith('.'))
    if not files:
        raise InputError(f'{folder}: a folder of runs without a file')
    return files
