"""A check of the run's query ids against the qrels': ids written another way (``01`` for ``1``) silently
count the qrels query as unanswered."""
from __future__ import annotations

import numpy as np

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.errors import QueryIdFormWarning, warn_at_caller
from irmeasures_ext.readers.inputs import Input

#: How many pairs of ids the warning shows.
_SHOWN = 3


def normal_form(query_id: str) -> str:
    """The id as compared across forms: without surrounding white space, in lower case, without leading zeros."""
    return query_id.strip().lower().lstrip('0') or '0'


def run_only_ids(judgments: Judgments, run: Input, n_retrieved: np.ndarray, run_queries: int) -> tuple[str, ...]:
    """The query ids of the ``run`` read that the qrels do not have; nothing is read unless the run has such queries
    (its ``run_queries`` outnumber the qrels queries it retrieves for, ``n_retrieved`` above 0)."""
    if run_queries == np.count_nonzero(n_retrieved):
        return ()
    run_ids = ac.unique(run.query_ids())
    return tuple(query_id for query_id, position in zip(run_ids.to_pylist(), judgments.query_index(run_ids).tolist(),
                                                        strict=True) if position < 0)


def warn_if_written_otherwise(judgments: Judgments, run_only: tuple[str, ...], held: np.ndarray) -> None:
    """QueryIdFormWarning where the run's queries ``run_only`` (:func:`run_only_ids`) match qrels queries the run
    does not retrieve for (not in ``held``, the qrels query indices it has rows of) once both are put in
    :func:`normal_form`."""
    if not run_only:
        return
    unanswered = np.setdiff1d(np.arange(judgments.n_queries), held)
    qrels_ids = {normal_form(query_id): query_id
                 for query_id in ac.take(judgments.query_ids, from_numpy(unanswered)).to_pylist()}
    pairs = [(query_id, qrels_ids[normal_form(query_id)]) for query_id in run_only
             if normal_form(query_id) in qrels_ids]
    if not pairs:
        return
    shown = ', '.join(f'run {run_id!r} ~ qrels {qrels_id!r}' for run_id, qrels_id in pairs[:_SHOWN])
    more = f' and {len(pairs) - _SHOWN} more' if len(pairs) > _SHOWN else ''
    warn_at_caller(f'{len(pairs)} of the run\'s queries are not in the qrels but match qrels queries written another '
                   f'way (zero-padded, in another case or with white space: {shown}{more}); those qrels queries '
                   'count as unanswered: write the ids alike', QueryIdFormWarning)
