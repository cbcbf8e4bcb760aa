"""Per-intent values: each intent of diversity qrels evaluated as ad hoc qrels, as NTCIREVAL's IA and P+Q scripts
(``D-NTCIR-IAeval``, ``DIN-NTCIR-PQeval``) evaluate it before weighting it by P(i|q).

An intent i of a query q is evaluated when a doc is judged ``rel`` (default 1, NTCIREVAL's L1) or above for it
(the intents I of the IA-measures); its qrels are every doc judged for q, labelled with its level for i (0 where
a line judges it for another intent only), and its run is q's. A measure whose top level defaults to the qrels'
largest label (``nERR``, ``RBP_NTCIR``, ``ERR_NTCIR``, ``EBR``, ...) takes the intent's own, as gcompute's H (the
largest gain of the intent's Irelv file) and the IA-measures' H_i. So IA_M@k = Σ_{i∈I} P(i|q)·M_i@k.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.plugin import IrMeasuresExtProvider
    from irmeasures_ext.readers.forms import QrelsLike, RunLike

#: The columns that name an intent in :func:`per_intent_frame`'s table, before ``measure`` and ``value``.
KEY_COLUMNS = ('query_id', 'intent', 'probability', 'type')


class IntentGroup(NamedTuple):
    """The intents of one top label: ``keys`` (a DataFrame of :data:`KEY_COLUMNS`, one row per intent), ad hoc
    ``qrels`` and ``run`` (Arrow tables) whose query id is the intent's row of ``keys`` (``'0'``, ``'1'``, ...)."""

    top: float
    keys: pd.DataFrame
    qrels: pa.Table
    run: pa.Table


def per_intent_frame(measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike, rel: float = 1,
                     ties: str | None = None, score_precision: str | None = None,
                     depth: int | None = None) -> pd.DataFrame:
    """Each evaluated intent's values of ``measures`` (any our provider computes, e.g. ``Q@10``, ``nERR@10``): a
    long DataFrame with columns ``query_id, intent, probability, type`` (``'inf'`` or ``'nav'``), ``measure`` (its
    name) and ``value``, measure by measure, intents by query id, then as the probabilities list them. ``qrels``
    are :func:`irmeasures_ext.intent_qrels`; ``ties``, ``score_precision`` and ``depth`` configure the ranking as
    :meth:`irmeasures_ext.provider.configured` does (``depth=K``: NTCIREVAL's scripts at K)."""
    import pandas as pd

    from irmeasures_ext.measures.base import threshold_check
    from irmeasures_ext.plugin import measures_of
    from irmeasures_ext.plugin import provider as ext_provider
    parsed = measures_of(measures)
    rel = threshold_check('per_intent_frame', 'rel', rel)
    configured = ext_provider.configured(ties, score_precision, depth=depth)
    frames = []
    for group in intent_groups(qrels, run, rel, configured.ranking().ties == 'rank'):
        values = group_values(parsed, group, configured)
        frames += [group.keys.assign(measure=str(measure), value=value) for measure, value in values.items()]
    if not frames:
        return pd.DataFrame({**{column: [] for column in KEY_COLUMNS}, 'measure': [], 'value': []})
    order = {str(measure): position for position, measure in enumerate(parsed)}
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(['measure', 'row'], key=lambda column: column.map(order) if column.name == 'measure'
                              else column, kind='stable')
    return table.drop(columns='row').reset_index(drop=True)


def group_values(measures: list[Measure], group: IntentGroup,
                 configured: IrMeasuresExtProvider) -> dict[Measure, np.ndarray]:
    """``measures``' values of each intent of ``group``, aligned with its keys."""
    from irmeasures_ext.evaluation import evaluate
    results = evaluate(measures, group.qrels, group.run, configured)
    position = np.searchsorted(group.keys['row'].to_numpy(), np.array(results.query_ids.to_pylist(), dtype=np.int64))
    values = {}
    for measure, computed in results.values.items():
        aligned = np.empty(len(group.keys))
        aligned[position] = computed
        values[measure] = aligned
    return values


def intent_groups(qrels: QrelsLike, run: RunLike, rel: float = 1, with_rank: bool = False) -> Iterator[IntentGroup]:
    """The evaluated intents of ``qrels`` (:func:`irmeasures_ext.intent_qrels`), grouped by their top label, with
    their ad hoc qrels and runs (``with_rank``: with the run's ranks, for the tie policy ``rank``). The qrels are
    checked as the diversity measures check them (conflicting labels, a relevant intent without a probability, each
    naming its line); the keys' ``row`` column numbers the intents across the groups in the table's order."""
    from irmeasures_ext.engine.intents import judgments_of
    from irmeasures_ext.readers.inputs import read_input
    from irmeasures_ext.readers.schemas import INTENT_COLUMN
    read = read_input(qrels, 'qrels', with_intents=True)
    probabilities = getattr(read.source, 'probabilities', None)
    if probabilities is None:
        raise InputError('per-intent values need the intents\' probabilities and types: give the qrels as '
                         'irmeasures_ext.intent_qrels(qrels, probabilities)')
    judgments_of(read, True)  # (the checks of the diversity measures; made once for the Input)
    lines = read.table.select(['query_id', 'doc_id', 'relevance', INTENT_COLUMN]).to_pandas()
    lines = lines.rename(columns={INTENT_COLUMN: 'intent'}).drop_duplicates()
    keys = _evaluated_intents(lines, probabilities, rel)
    docs = lines[['query_id', 'doc_id']].drop_duplicates()
    run_columns = ['query_id', 'doc_id', 'score', *(['rank'] if with_rank else [])]
    ran = read_input(run, 'run', with_rank=with_rank).table.select(run_columns).to_pandas()
    for top, group in keys.groupby('top', sort=True):
        group = group.assign(intent_id=group['row'].astype(str))
        judged = group.merge(docs, on='query_id').merge(lines, on=['query_id', 'intent', 'doc_id'], how='left')
        judged['relevance'] = judged['relevance'].fillna(0).astype(lines['relevance'].dtype)
        ranked = group[['query_id', 'intent_id']].merge(ran, on='query_id').drop(columns='query_id')
        yield IntentGroup(float(top), group[[*KEY_COLUMNS, 'row']].reset_index(drop=True),
                          _by_intent(judged[['intent_id', 'doc_id', 'relevance']]), _by_intent(ranked))


def _by_intent(frame: pd.DataFrame) -> pa.Table:
    """``frame`` as an Arrow table whose query id is its ``intent_id``."""
    return pa.Table.from_pandas(frame.rename(columns={'intent_id': 'query_id'}), preserve_index=False)


def _evaluated_intents(lines: pd.DataFrame, probabilities: Any, rel: float) -> pd.DataFrame:
    """The intents with a doc judged ``rel`` or above, with their probability, type, top label and ``row`` (by query
    id, then as ``probabilities`` list them)."""
    import pandas as pd
    listed = pd.DataFrame({'query_id': probabilities.query_id, 'intent': probabilities.intent,
                           'probability': probabilities.probability,
                           'type': np.where(probabilities.navigational, 'nav', 'inf'),
                           'listed': np.arange(len(probabilities.query_id))})
    relevant = lines[lines['relevance'] >= rel].groupby(['query_id', 'intent'], as_index=False)['relevance'].max()
    keys = listed.merge(relevant.rename(columns={'relevance': 'top'}), on=['query_id', 'intent'])
    keys = keys.sort_values(['query_id', 'listed'], kind='stable').reset_index(drop=True)
    return keys.assign(row=np.arange(len(keys))).drop(columns='listed')
