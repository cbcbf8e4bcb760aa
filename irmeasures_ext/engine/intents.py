"""Qrels of intents (subtopics), converted once for the diversity measures.

A diversity qrels line judges a doc for one intent of its query (``qid intent docid relevance``); a doc may be
judged for several intents. The judgments keep one entry per (query, doc), labelled with its highest label
over its intents (what a measure that ignores intents sees), and :class:`~.judgments.Intents` beside: per entry, its
(intent, label) pairs. Each entry also carries its own index as the judgment column :data:`JUDGMENT_COLUMN`,
so that every row of a ranked run (after any transform) finds its pairs.
"""
from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext.engine.judgments import Intents, Judgments, deduplicated_qrels
from irmeasures_ext.engine.segments import run_starts
from irmeasures_ext.errors import ConflictingLabelsError
from irmeasures_ext.readers.schemas import INTENT_COLUMN

if TYPE_CHECKING:
    from irmeasures_ext.readers.inputs import Input
    from irmeasures_ext.readers.intent_probabilities import IntentProbabilities

#: The judgment column holding each (query, doc) entry's own index (:attr:`.RankedRun.judged`).
JUDGMENT_COLUMN = 'judgment'


#: The judgments converted from each qrels Input, by (with intents, checked for measures that ignore intents).
_CONVERTED: weakref.WeakKeyDictionary[Input, dict[tuple[bool, bool], Judgments]] = weakref.WeakKeyDictionary()


def judgments_of(qrels: Input, with_intents: bool, one_label_for: Sequence[str] = ()) -> Judgments:
    """The judgments of the qrels read into ``qrels``: of their intents (:func:`judgments_of_intents`, each doc
    needing one label for all its intents where ``one_label_for`` names measures that ignore intents) or plain;
    a problem names its line. Converted once per Input: where ir_measures' pipeline checks qrels as ours would
    (:mod:`irmeasures_ext.interop`) and then hands ours the same Input, ours takes the judgments made then."""
    key = (with_intents, with_intents and bool(one_label_for))
    converted = _CONVERTED.setdefault(qrels, {})
    for made in (key, (with_intents, True)):  # (judgments checked for one label per doc serve without that check)
        if made in converted:
            return converted[made]
    with qrels.located():
        converted[key] = (judgments_of_intents(qrels.table, list(one_label_for),
                                               getattr(qrels.source, 'probabilities', None))  # (an IntentQrels')
                          if with_intents else Judgments(qrels.table))
    return converted[key]


def earlier_of_same(keys: np.ndarray) -> np.ndarray:
    """For each item, how many items before it have its key."""
    order = np.argsort(keys, kind='stable')
    ordered = keys[order]
    first = np.flatnonzero(run_starts(ordered))
    count = np.empty(len(keys), dtype=np.int64)
    count[order] = np.arange(len(keys)) - np.repeat(first, np.diff(np.append(first, len(keys))))
    return count


def judgments_of_intents(qrels: pa.Table, one_label_for: list[str],
                         probabilities: IntentProbabilities | None = None) -> Judgments:
    """The judgments of qrels with an ``intent`` column (:data:`~irmeasures_ext.readers.schemas.QRELS_INTENTS`):
    one entry per (query, doc), with its highest label, and :class:`~.judgments.Intents` as ``judgments.intents``. Lines
    repeated alike are counted once (``judgments.repeated``); conflicting labels of a (query, intent, doc)
    raise ConflictingLabelsError, and so do a doc's different labels for two intents where measures that
    ignore intents (``one_label_for``, their names) are evaluated too: they need one label per doc. With the
    intents' ``probabilities``, an intent judged relevant (label > 0) that they do not list is a
    MissingProbabilityError (an IntentFileError; its qrels line named as a RowError's).
    """
    qrels, (query, doc, intent) = _sorted(qrels)
    repeated = None
    if not np.all(query | doc | intent):  # (a (query, doc, intent) on two lines: the slow path, for its messages)
        deduplicated, repeated = deduplicated_qrels(qrels)
        qrels, (query, doc, intent) = _sorted(deduplicated)
    first = np.flatnonzero(query | doc)  # (each (query, doc) entry's first row)
    query, intent = np.cumsum(query) - 1, _codes(qrels[INTENT_COLUMN])
    label = to_numpy(qrels['relevance'])
    if one_label_for:
        _check_one_label(qrels, first, label, one_label_for)
    entries = ac.take(qrels.select(['query_id', 'doc_id']), from_numpy(first))
    judgments = Judgments(entries.append_column('relevance', from_numpy(np.maximum.reduceat(label, first)))
                          .append_column(JUDGMENT_COLUMN, from_numpy(np.arange(len(first)))))
    judgments.repeated = repeated
    intent = _dense(query * (int(intent.max(initial=0)) + 1) + intent)  # (query, intent) pairs, numbered
    intent_query = np.zeros(int(intent.max(initial=-1)) + 1, dtype=np.int64)
    intent_query[intent] = query
    intents = Intents(np.append(first, len(label)), intent, label, intent_query)
    if probabilities is not None:
        intents = _with_probabilities(intents, judgments, qrels[INTENT_COLUMN], probabilities, qrels['doc_id'])
    judgments.intents = intents
    return judgments


def _with_probabilities(intents: Intents, judgments: Judgments, intent_ids: pa.ChunkedArray,
                        probabilities: IntentProbabilities, doc_ids: pa.ChunkedArray) -> Intents:
    """``intents`` with each one's probability and type from ``probabilities`` (``intent_ids`` and ``doc_ids``:
    each pair's)."""
    from irmeasures_ext.readers.intent_probabilities import MissingProbabilityError  # (only with probabilities)
    first_pair = np.zeros(len(intents.query), dtype=np.int64)
    first_pair[intents.intent[::-1]] = np.arange(len(intents.intent))[::-1]
    keys = list(zip(ac.take(judgments.query_ids, from_numpy(intents.query)).to_pylist(),
                    ac.take(intent_ids, from_numpy(first_pair)).to_pylist(), strict=True))
    listed = probabilities.of()
    position = np.array([listed.get(key, -1) for key in keys], dtype=np.int64)
    missing = np.flatnonzero((position < 0) & intents.relevant(np.nextafter(0.0, 1.0)))  # (labels above 0)
    if len(missing):
        query_id, intent = keys[int(missing[0])]
        pair = int(np.argmax((intents.intent == missing[0]) & (intents.label > 0)))  # (its first relevant doc)
        raise MissingProbabilityError(query_id, doc_ids[pair].as_py(), intent, len(missing), probabilities.name)
    judged = set(keys)
    unjudged = tuple(where for query_id, intent, where in zip(probabilities.query_id, probabilities.intent,
                                                              probabilities.where, strict=True)
                     if (query_id, intent) not in judged)
    known = position >= 0
    probability = np.where(known, probabilities.probability[np.maximum(position, 0)], np.nan)
    navigational = known & probabilities.navigational[np.maximum(position, 0)]
    return intents._replace(probability=probability, navigational=navigational, unjudged=unjudged)


def _check_one_label(qrels: pa.Table, first: np.ndarray, label: np.ndarray, measures: list[str]) -> None:
    """ConflictingLabelsError for the first doc (of entries starting at rows ``first``) judged with two labels."""
    lowest, highest = np.minimum.reduceat(label, first), np.maximum.reduceat(label, first)
    if np.array_equal(lowest, highest):
        return
    entry = int(np.argmax(lowest != highest))
    query_id, doc_id = (qrels[name][int(first[entry])].as_py() for name in ('query_id', 'doc_id'))
    hint = (f'the measures that ignore intents ({", ".join(measures)}) need one label per doc: evaluate them apart '
            'from the diversity measures, with qrels of one label per doc')
    error = ConflictingLabelsError(f'conflicting labels for doc {doc_id!r} in query {query_id!r} (labels '
                                   f'{lowest[entry]} and {highest[entry]}, for two intents); {hint}', 'qrels',
                                   query_id, doc_id)
    error.hint = hint
    raise error


def _sorted(qrels: pa.Table) -> tuple[pa.Table, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``qrels`` sorted by query, doc and intent (byte-wise), and where each of the three columns starts a new
    value."""
    qrels = ac.take(qrels, ac.sort_indices(qrels, [(name, 'ascending') for name in ('query_id', 'doc_id',
                                                                                     INTENT_COLUMN)]))
    return qrels, (_changes(qrels['query_id']), _changes(qrels['doc_id']), _changes(qrels[INTENT_COLUMN]))


def _changes(values: pa.ChunkedArray) -> np.ndarray:
    """Per row, whether its value differs from the row before's (the first row: True)."""
    changes = np.ones(len(values), dtype=bool)
    if len(values) > 1:
        changes[1:] = to_numpy(ac.not_equal(values[1:], values[:-1]))
    return changes


def _codes(values: pa.ChunkedArray) -> np.ndarray:
    """Each value's position among the distinct values, ascending (a sorted column's codes ascend too)."""
    return to_numpy(ac.index_in(values, ac.sorted_unique(values))).astype(np.int64)


def _dense(keys: np.ndarray) -> np.ndarray:
    """The keys numbered 0, 1, ... in ascending order of their distinct values."""
    order = np.argsort(keys, kind='stable')
    numbers = np.empty(len(keys), dtype=np.int64)
    numbers[order] = np.cumsum(run_starts(keys[order])) - 1
    return numbers
