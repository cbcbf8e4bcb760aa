"""The fixed columns every run and qrels input becomes, whatever its form."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import from_numpy, to_numpy

RUN_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('score', pa.float64())])
QRELS_SCHEMA = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('relevance', pa.int64())])
#: A run that keeps its rank column (tie policy ``rank``).
RANKED_RUN_SCHEMA = RUN_SCHEMA.append(pa.field('rank', pa.int64()))
#: Qrels with equivalence classes: a class id per judged doc (NTCIREVAL's ``label -ec``/``compute -ec``).
CLASS_COLUMN = 'equivalence_class'
QRELS_EC_SCHEMA = QRELS_SCHEMA.append(pa.field(CLASS_COLUMN, pa.int64()))
#: Qrels of intents (subtopics) for the diversity measures: the intent each line judges the doc for, in a TREC
#: file's second field (TREC's diversity qrels; ir_measures' ``iteration``), and a table's ``intent`` column.
INTENT_COLUMN = 'intent'
QRELS_INTENTS_SCHEMA = QRELS_SCHEMA.append(pa.field(INTENT_COLUMN, pa.string()))
#: The type of real-valued relevance labels (e.g. an LLM's 0.35 or 2.5): the ``relevance`` column is float64
#: when some label is not a whole number, int64 otherwise (:func:`labels_of`).
REAL_LABEL = pa.float64()
#: Whole labels beyond this magnitude stay real: an int64 holds every integer below it exactly.
_WHOLE_LIMIT = 2.0 ** 63


class Layout(NamedTuple):
    """What is read for one kind of input: its ``schema`` (the fixed columns), and the fields of its TREC lines."""

    kind: str                  # 'run' or 'qrels'
    fields: tuple[str, ...]
    value: str                 # the value column: 'score' or 'relevance'
    extra_fields: bool         # whether fields after the last are ignored
    schema: pa.Schema

    @property
    def description(self) -> str:
        names = ' '.join(self.fields).replace('query_id', 'qid').replace('doc_id', 'docid')
        return names.replace(CLASS_COLUMN, 'class')


RUN = Layout('run', ('query_id', 'Q0', 'doc_id', 'rank', 'score', 'tag'), 'score', True, RUN_SCHEMA)
#: A run with its rank column (an integer, as trec_eval would need to order by it).
RANKED_RUN = Layout('run', RUN.fields, 'score', True, RANKED_RUN_SCHEMA)
QRELS = Layout('qrels', ('query_id', 'iteration', 'doc_id', 'relevance'), 'relevance', False, QRELS_SCHEMA)
#: Qrels with an equivalence class id per line (``qid iteration docid relevance class``).
QRELS_EC = Layout('qrels', (*QRELS.fields, CLASS_COLUMN), 'relevance', False, QRELS_EC_SCHEMA)


#: Qrels of intents (``qid intent docid relevance``).
QRELS_INTENTS = Layout('qrels', ('query_id', INTENT_COLUMN, 'doc_id', 'relevance'), 'relevance', False,
                       QRELS_INTENTS_SCHEMA)


def layout_of(kind: str, with_rank: bool = False, has_classes: bool = False, with_intents: bool = False) -> Layout:
    """The layout of a ``kind`` of input ('run' or 'qrels'): a run with its ranks (``with_rank``: tie policy
    ``rank``), qrels with equivalence classes (``has_classes``) or with the intent of each line
    (``with_intents``: the diversity measures)."""
    if kind == 'qrels':
        return QRELS_INTENTS if with_intents else QRELS_EC if has_classes else QRELS
    return RANKED_RUN if with_rank else RUN


def labels_of(numbers: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray | int:
    """Relevance labels read as floating-point numbers: int64 if all are whole (``2.0`` is label 2), else
    float64 as they are; the index of the first that is not finite (NaN, ±inf) instead, for its reader to
    name."""
    values = to_numpy(ac.cast(numbers, pa.float64()))
    finite = np.isfinite(values)
    if not finite.all():
        return int(np.argmin(finite))
    if np.array_equal(np.floor(values), values) and np.all(np.abs(values) < _WHOLE_LIMIT):
        return from_numpy(values.astype(np.int64))
    return from_numpy(values)


def with_labels_of(schema: pa.Schema, table_or_columns: pa.Table | list) -> pa.Schema:
    """``schema`` with the type its ``relevance`` field has in ``table_or_columns`` (a table, or columns in
    the schema's order): int64 or :data:`REAL_LABEL`."""
    if 'relevance' not in schema.names:
        return schema
    index = schema.get_field_index('relevance')
    column = table_or_columns[index] if isinstance(table_or_columns, list) else table_or_columns['relevance']
    return schema.set(index, pa.field('relevance', REAL_LABEL if column.type == REAL_LABEL else pa.int64()))
