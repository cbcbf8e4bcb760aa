"""Turns every run/qrels form ir_measures accepts into Arrow tables with fixed columns.

Runs become ``(query_id: string, doc_id: string, score: float64)`` and qrels
``(query_id: string, doc_id: string, relevance: int64)``. Accepted forms: Arrow tables,
pandas DataFrames (ir_measures or PyTerrier column names), dict-of-dict, iterables of
namedtuples (``ir_measures.ScoredDoc``/``Qrel``, ir_datasets records), TREC file paths and
:class:`~irmeasures_ext.readers.trec.TrecSource` objects.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.errors import InputError, RowError
from irmeasures_ext.readers import trec
from irmeasures_ext.readers.schemas import QRELS_SCHEMA, RUN_SCHEMA

# PyTerrier's column names, and the names ir_measures uses for the same data.
_COLUMN_ALIASES = {'qid': 'query_id', 'docno': 'doc_id', 'label': 'relevance'}


def as_run_table(run: Any) -> pa.Table:
    """Returns ``run`` as an Arrow table with :data:`RUN_SCHEMA`."""
    return read_input(run, 'run').table


def as_qrels_table(qrels: Any) -> pa.Table:
    """Returns ``qrels`` as an Arrow table with :data:`QRELS_SCHEMA`."""
    return read_input(qrels, 'qrels').table


@dataclass(frozen=True)
class Input:
    """A run or qrels read into a table, and the TREC file it was read from (None for other forms)."""

    table: pa.Table
    source: trec.TrecSource | None

    @contextlib.contextmanager
    def located(self) -> Iterator[None]:
        """Re-raises a check's RowError on the table naming the line(s) of the file it concerns."""
        try:
            yield
        except RowError as error:
            if self.source is None:
                raise
            raise self.source.locate(error) from None


def read_input(data: Any, kind: str) -> Input:
    """``data``, a run or qrels (``kind``) in any accepted form, read into a table."""
    if isinstance(data, Input):
        return data
    if isinstance(data, (str, os.PathLike)):
        data = trec.TrecSource(data)
    if isinstance(data, trec.TrecSource):
        return Input(data.read(trec.RUN if kind == 'run' else trec.QRELS), data)
    return Input(_as_table(data, RUN_SCHEMA if kind == 'run' else QRELS_SCHEMA, kind), None)


def _as_table(data: Any, schema: pa.Schema, what: str) -> pa.Table:
    if isinstance(data, pa.Table):
        return _from_columns(data.column_names, data.column, schema, what)
    if hasattr(data, 'columns') and hasattr(data, 'itertuples'):  # pandas DataFrame
        return _from_columns([str(c) for c in data.columns], lambda name: data[name], schema, what)
    if isinstance(data, Mapping):
        return _from_dict_of_dict(data, schema, what)
    if isinstance(data, Iterable):
        return _from_records(data, schema, what)
    raise InputError(f'unsupported {what} type {type(data).__name__}: expected a TREC file path, a pandas '
                     f'DataFrame, an Arrow table, a dict-of-dict or an iterable of namedtuples')


def _from_columns(names: list[str], get_column, schema: pa.Schema, what: str) -> pa.Table:
    available = {_COLUMN_ALIASES.get(name, name): name for name in names}
    missing = [field.name for field in schema if field.name not in available]
    if missing:
        raise InputError(f'{what} is missing column(s) {missing} (found {names}); expected '
                         f'{schema.names} or PyTerrier names {sorted(_COLUMN_ALIASES)}')
    columns = [_cast(_as_arrow(get_column(available[field.name])), field, what) for field in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _as_arrow(column: Any) -> pa.Array | pa.ChunkedArray:
    """An Arrow column as is (no copy), anything else (a pandas Series) converted by pyarrow."""
    return column if isinstance(column, (pa.Array, pa.ChunkedArray)) else pa.array(column)


def _from_dict_of_dict(data: Mapping, schema: pa.Schema, what: str) -> pa.Table:
    query_ids, doc_ids, values = [], [], []
    for query_id, docs in data.items():
        if not isinstance(docs, Mapping):
            raise InputError(f'{what} dict-of-dict: value for query {query_id!r} is not a dict of doc_id -> value')
        query_ids.extend([query_id] * len(docs))
        doc_ids.extend(docs.keys())
        values.extend(docs.values())
    return _from_lists(query_ids, doc_ids, values, schema, what)


def _from_records(records: Iterable, schema: pa.Schema, what: str) -> pa.Table:
    value_field = schema.names[2]
    query_ids, doc_ids, values = [], [], []
    try:
        for record in records:
            query_ids.append(record.query_id)
            doc_ids.append(record.doc_id)
            values.append(getattr(record, value_field))
    except AttributeError as error:
        raise InputError(f'{what} records must have fields query_id, doc_id, {value_field}: {error}') from None
    return _from_lists(query_ids, doc_ids, values, schema, what)


def _from_lists(query_ids: list, doc_ids: list, values: list, schema: pa.Schema, what: str) -> pa.Table:
    columns = []
    for column, field in zip((query_ids, doc_ids, values), schema, strict=True):
        try:
            array = pa.array(column)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            if field.type != pa.string():
                raise InputError(f'{what} {field.name} values must be numbers') from None
            array = pa.array([str(value) for value in column])  # mixed int/str ids
        columns.append(_cast(array, field, what))
    return pa.Table.from_arrays(columns, schema=schema)


def _cast(array: pa.Array | pa.ChunkedArray, field: pa.Field, what: str) -> pa.Array | pa.ChunkedArray:
    if array.null_count:
        raise InputError(f'{what} column {field.name!r} has {array.null_count} missing value(s)')
    if array.type == field.type:
        return array
    if field.type == pa.int64() and pa.types.is_floating(array.type):
        whole = pc.equal(pc.floor(array), array)
        if not pc.all(whole).as_py():
            bad = pc.index(whole, False).as_py()
            raise InputError(f'{what} column {field.name!r}: relevance must be an integer, '
                             f'got {array[bad].as_py()!r} at row {bad}')
    if field.type == pa.string() and pa.types.is_floating(array.type):
        raise InputError(f'{what} column {field.name!r} holds floats; ids must be strings or integers')
    try:
        return pc.cast(array, field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise InputError(f'{what} column {field.name!r}: cannot read values as {field.type}: {error}') from None
