"""Turns every run/qrels form ir_measures accepts into Arrow tables with fixed columns.

Runs become ``(query_id: string, doc_id: string, score: float64)`` and qrels
``(query_id: string, doc_id: string, relevance: int64)``, or ``relevance: float64`` for real-valued labels
(:func:`~irmeasures_ext.readers.schemas.labels_of`), with ``equivalence_class: int64`` beside for
qrels with equivalence classes: a fifth field on every line of a TREC file, an ``equivalence_class``
column of a DataFrame or Arrow table, or ``(relevance, class)`` values of a dict-of-dict
(``{qid: {docid: (rel, class)}}``); records carry none. Accepted forms: Arrow tables,
pandas DataFrames (ir_measures or PyTerrier column names), dict-of-dict, iterables of
namedtuples (``ir_measures.ScoredDoc``/``Qrel``, ir_datasets records), file paths (TREC, Parquet
or Arrow IPC files, folders of Parquet files: :func:`~irmeasures_ext.readers.columnar.open_file`),
``pyarrow.dataset.Dataset`` objects and the sources of :mod:`.trec` and :mod:`.columnar`. Parquet and
Arrow data is checked as an Arrow table is (:func:`_from_source`). In every form an id is a string or an
integer (bools too), read as ``str()`` writes it; any other type is an InputError (:func:`_as_ids`).
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import first_null, from_numpy, numbers_of, strings_of, to_numpy
from irmeasures_ext.errors import InputError, ReversedScoresWarning, RowError, warn_at_caller
from irmeasures_ext.readers import columnar, trec
from irmeasures_ext.readers.schemas import CLASS_COLUMN, QRELS_EC_SCHEMA, labels_of, with_labels_of

# PyTerrier's column names, and the names ir_measures uses for the same data.
_COLUMN_ALIASES = {'qid': 'query_id', 'docno': 'doc_id', 'label': 'relevance'}
_PYTERRIER_NAME = {ours: theirs for theirs, ours in _COLUMN_ALIASES.items()}


@dataclass(frozen=True)
class Input:
    """A run or qrels read into a table, and the file or dataset it was read from (None for other forms).

    ``query_starts`` is what a form guarantees, where it does (a dict-of-dict): the first row of each query,
    its rows grouped by query, each query once and no doc twice within it; None: to be found from the rows."""

    table: pa.Table
    source: trec.TrecSource | columnar.ColumnarSource | None
    query_starts: np.ndarray | None = None

    def describe(self, problem: RowError) -> str:
        """``problem`` as an error would say it: naming the file it concerns (and for a TREC file, the lines)."""
        return str(problem if self.source is None else self.source.locate(problem))

    @contextlib.contextmanager
    def located(self) -> Iterator[None]:
        """Re-raises a check's RowError on the table naming the file it concerns (and for a TREC file, the line)."""
        try:
            yield
        except RowError as error:
            if self.source is None:
                raise
            raise self.source.locate(error) from None


class InputDict(dict):
    """An :class:`Input` as the dict-of-dict every ir_measures provider reads, which keeps the Input, so that our
    provider reads it as it was read (the file of a problem named, ranks kept)."""

    def __init__(self, read: Input, value_column: str) -> None:
        super().__init__(as_dict_of_dict(read.table, value_column))
        self.input = read


def read_input(data: Any, kind: str, with_rank: bool = False) -> Input:
    """``data``, a run or qrels (``kind``) in any accepted form, read into a table; ``with_rank`` keeps a
    run's rank column (tie policy ``rank``)."""
    if isinstance(data, InputDict):
        data = data.input
    if isinstance(data, Input) and (not with_rank or 'rank' in data.table.column_names):
        return data
    if isinstance(data, Input):
        data = data.source if data.source is not None else data.table
    if isinstance(data, (str, os.PathLike)):
        data = columnar.open_file(data)
    elif is_dataset(data):
        data = columnar.ColumnarSource.of_dataset(data)
    layout = trec.QRELS if kind == 'qrels' else trec.RANKED_RUN if with_rank else trec.RUN
    if isinstance(data, trec.TrecSource):
        read, name = Input(data.read(trec.qrels_layout(data) if kind == 'qrels' else layout), data), data.name
    elif isinstance(data, columnar.ColumnarSource):
        schema = QRELS_EC_SCHEMA if kind == 'qrels' and CLASS_COLUMN in data.column_names else layout.schema
        name = kind if data.name is None else data.name
        read = Input(_from_source(data, schema, _what(data, kind)), data)
    else:
        schema = QRELS_EC_SCHEMA if kind == 'qrels' and _has_classes(data) else layout.schema
        read, name = Input(_as_table(data, schema, kind), None, _dict_query_starts(data)), kind
    if kind == 'run' and not with_rank and (isinstance(data, trec.TrecSource) or _has_rank_column(data)):
        warn_if_listed_by_ascending_score(queries_listed_by_ascending_score(read.table), name)
    if kind == 'qrels' and not read.table.num_rows:  # (a TREC file of blank lines is refused as it is read)
        raise InputError(f'{name}: {_emptiness(data)}, so every measure would be undefined: give judgments')
    return read


def _emptiness(data: Any) -> str:
    """How qrels ``data`` (of no judgment) are empty, in its form's terms."""
    if isinstance(data, columnar.ColumnarSource):
        return 'no rows'
    if isinstance(data, Mapping):
        return 'an empty dict-of-dict'
    if isinstance(data, pa.Table) or hasattr(data, 'itertuples'):
        return 'an empty table'
    return ('no records (an empty iterable, or a generator such as read_trec_qrels(...) already read: it is read '
            'once; keep list(...) of it to read it again)')


def _dict_query_starts(data: Any) -> np.ndarray | None:
    """The first row of each query of a dict-of-dict read into a table (its queries with docs, in its order);
    None for other forms."""
    if not isinstance(data, Mapping):
        return None
    sizes = np.fromiter(map(len, data.values()), np.int64, len(data))
    sizes = sizes[sizes > 0]
    return np.cumsum(sizes) - sizes


def _has_classes(qrels: Any) -> bool:
    """Whether ``qrels`` (not a file) carry equivalence classes: an ``equivalence_class`` column, or a
    dict-of-dict whose first value is a ``(relevance, class)`` pair."""
    if isinstance(qrels, Mapping):
        first = next((docs for docs in qrels.values() if isinstance(docs, Mapping) and docs), {})
        return isinstance(next(iter(first.values()), None), (tuple, list))
    columns = qrels.column_names if isinstance(qrels, pa.Table) else getattr(qrels, 'columns', ())
    return CLASS_COLUMN in columns


def is_dataset(data: Any) -> bool:
    """Whether ``data`` is a ``pyarrow.dataset.Dataset`` (whose module is then loaded: not loaded for other data).
    While another thread imports the module, it is in ``sys.modules`` without its classes yet: no Dataset can
    exist then."""
    dataset_class = getattr(sys.modules.get('pyarrow.dataset'), 'Dataset', None)
    return dataset_class is not None and isinstance(data, dataset_class)


def _has_rank_column(data: Any) -> bool:
    """Whether ``data`` is a DataFrame, an Arrow table or a Parquet/Arrow source with a ``rank`` column."""
    if isinstance(data, (pa.Table, columnar.ColumnarSource)):
        return 'rank' in data.column_names
    return 'rank' in getattr(data, 'columns', ())


#: Rows of a run compared at once by :func:`queries_listed_by_ascending_score`.
_ORDER_PIECE = 1 << 16


def warn_if_listed_by_ascending_score(queries: int | None, name: str) -> None:
    """ReversedScoresWarning if every query of the run ``name`` (``queries`` of two or more docs, None if
    one of them does not: :func:`queries_listed_by_ascending_score`) lists its docs by ascending score.

    Only runs with a rank column (TREC files, DataFrames and Arrow tables with one) are checked: their
    rows are meant to be listed by rank (and not when read for tie policy ``rank``, which trusts the
    ranks). Swapping a run's rank and score fields keeps the two columns ordered alike (each one
    descends as the other ascends), so the rank values cannot tell; the listing does: ranking by score
    then reverses it."""
    if queries:
        where = 'in its one query' if queries == 1 else f'in all {queries} queries'
        warn_at_caller(f'{name}: {where} with two or more docs the scores increase down the listed docs, so '
                       'ranking by score (as trec_eval does) reverses the order the run lists them in: are the rank '
                       'and score fields swapped, or are lower scores better?', ReversedScoresWarning)


def queries_listed_by_ascending_score(run: pa.Table) -> int | None:
    """The number of queries of ``run`` with two or more rows if in every one of them the scores strictly
    increase down its rows (a query's rows in a row), else None. Compared ``_ORDER_PIECE`` rows at a time,
    stopping at the first pair of rows of one query whose scores do not increase: for a run listed by
    rank, in the first piece. (Tables of whole queries, in file order, add up to the whole run's count.)"""
    queries, continued = 0, False  # continued: the piece's first row belongs to the query of the row before
    for start in range(0, run.num_rows - 1, _ORDER_PIECE):
        piece = run.slice(start, _ORDER_PIECE + 1)  # one row more: the pair across pieces
        query_ids, scores = piece['query_id'], to_numpy(piece['score'])
        same_query = to_numpy(ac.equal(query_ids[1:], query_ids[:-1]))
        if not np.all(scores[1:][same_query] > scores[:-1][same_query]):
            return None
        first_pairs = same_query.copy()  # the first pair of rows of each query
        first_pairs[1:] &= ~same_query[:-1]
        first_pairs[0] &= not continued
        queries += int(np.count_nonzero(first_pairs))
        continued = bool(same_query[-1])
    return queries


def _as_table(data: Any, schema: pa.Schema, what: str) -> pa.Table:
    if isinstance(data, pa.Table):
        return _from_columns(data.column_names, data.column, schema, what)
    if hasattr(data, 'columns') and hasattr(data, 'itertuples'):  # pandas DataFrame
        return _from_columns([str(c) for c in data.columns], lambda name: data[name], schema, what)
    if isinstance(data, Mapping):
        if 'rank' in schema.names:
            raise _no_ranks('a dict-of-dict')
        return _from_dict_of_dict(data, schema, what)
    if isinstance(data, Iterable):
        return _from_records(data, schema, what)
    raise InputError(f'unsupported {what} type {type(data).__name__}: expected a file path (TREC, Parquet or '
                     f'Arrow), a pandas DataFrame, an Arrow table or dataset, a dict-of-dict or an iterable of '
                     f'namedtuples')


def _what(source: columnar.ColumnarSource, kind: str) -> str:
    """How messages name the ``kind`` read from ``source``: with the file's name, if it has one."""
    return kind if source.name is None else f'{source.name}: {kind}'


def _from_source(source: columnar.ColumnarSource, schema: pa.Schema, what: str) -> pa.Table:
    """A Parquet/Arrow file's or dataset's table, its columns checked as a table's: only the columns the
    schema needs are read, and only once the column names pass."""
    table = functools.cache(lambda: source.read(_needed_columns(source, schema)))
    return _from_columns(source.column_names, lambda name: table()[name], schema, what)


def run_batches(source: columnar.ColumnarSource, with_rank: bool, rows: int) -> Iterator[pa.Table]:
    """The run ``source``'s rows in stored order, at most ``rows`` at a time, each batch's columns checked
    and converted as :func:`_from_source` does the whole data's; the column names are checked before
    anything is read, and a problem of a batch's values names its rows (numbered from 0, in stored order)."""
    schema = (trec.RANKED_RUN if with_rank else trec.RUN).schema
    what = _what(source, 'run')
    _named_columns(source.column_names, schema, what)
    first = 0
    for batch in source.batches(_needed_columns(source, schema), rows):
        yield _from_columns(source.column_names, batch.column, schema,
                            f'{what} (rows {first} to {first + batch.num_rows - 1})', first)
        first += batch.num_rows


def _needed_columns(source: columnar.ColumnarSource, schema: pa.Schema) -> list[str]:
    """The columns of ``source`` holding a field of ``schema`` (ours or PyTerrier's name), in stored order."""
    return [name for name in source.column_names if _COLUMN_ALIASES.get(name, name) in schema.names]


def read_columns(names: list[str], kind: str, with_rank: bool = False) -> list[str]:
    """Which of the columns ``names`` of a table :func:`read_input` reads for a ``kind`` (``with_rank``: see
    there), in its fields' order; InputError for missing or ambiguous columns, as :func:`read_input` gives."""
    layout = trec.QRELS if kind == 'qrels' else trec.RANKED_RUN if with_rank else trec.RUN
    return list(_named_columns(names, layout.schema, kind).values())


def _from_columns(names: list[str], get_column, schema: pa.Schema, what: str, first_row: int = 0) -> pa.Table:
    """The columns of ``names`` (read by ``get_column``) holding ``schema``'s fields, checked and converted to
    its types; ``first_row``: the number of the first row in messages."""
    available = _named_columns(names, schema, what)
    columns = [_cast(_as_arrow(get_column(available[field.name]), field, what), field, what, first_row)
               for field in schema]
    return pa.Table.from_arrays(columns, schema=with_labels_of(schema, columns))


def _named_columns(names: list[str], schema: pa.Schema, what: str) -> dict[str, str]:
    """The column of ``names`` holding each field of ``schema`` (ours or PyTerrier's name), by field."""
    available: dict[str, str] = {}
    for name in names:
        field = _COLUMN_ALIASES.get(name, name)
        if field in available:
            raise InputError(f'{what} has ambiguous columns {available[field]!r} and {name!r} (both are '
                             f'{field}); keep one')
        available[field] = name
    missing = [field.name for field in schema if field.name not in available]
    if missing == ['rank']:
        raise _no_ranks(f'a table without a rank column (columns {names})')
    if missing:
        pyterrier = [_PYTERRIER_NAME.get(field, field) for field in schema.names]
        raise InputError(f'{what} is missing column(s) {missing} (found {names}); expected {schema.names} or '
                         f"PyTerrier's {pyterrier}")
    return {field.name: available[field.name] for field in schema}


def _as_arrow(column: Any, field: pa.Field, what: str) -> pa.Array | pa.ChunkedArray:
    """An Arrow column as is (no copy), anything else (a pandas Series) converted by pyarrow."""
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        return column
    return _to_array(column if len(column) else [], field, what)


def _from_dict_of_dict(data: Mapping, schema: pa.Schema, what: str) -> pa.Table:
    """The rows of ``{query_id: {doc_id: value}}``; the query ids are converted once each, then repeated."""
    try:
        doc_ids = list(itertools.chain.from_iterable(data.values()))
        values = list(itertools.chain.from_iterable(docs.values() for docs in data.values()))
    except (TypeError, AttributeError):  # (a query's value is not a mapping: found only then, one check a query)
        query_id = next((query_id for query_id, docs in data.items() if not isinstance(docs, Mapping)), None)
        if query_id is None:
            raise
        raise InputError(f'{what} dict-of-dict: value for query {query_id!r} is not a dict of doc_id -> value') \
            from None
    query_field = schema.field('query_id')
    queries = _cast(_to_array(list(data), query_field, what), query_field, what)
    counts = np.fromiter(map(len, data.values()), np.int64, len(data))
    query_ids = ac.take(queries, from_numpy(np.repeat(np.arange(len(data)), counts)))
    if CLASS_COLUMN in schema.names:
        return _from_lists(query_ids, doc_ids, *_class_pairs(data, values, what), schema=schema, what=what)
    return _from_lists(query_ids, doc_ids, values, schema=schema, what=what)


def _class_pairs(data: Mapping, values: list[Any], what: str) -> tuple[list[Any], list[Any]]:
    """The labels and the class ids of the ``(relevance, class)`` values of a dict-of-dict ``data``;
    InputError naming the query and doc of a value that is not such a pair."""
    def is_pair(value: Any) -> bool:
        return isinstance(value, (tuple, list)) and len(value) == 2

    if not all(map(is_pair, values)):
        query_id, doc_id = next((query_id, doc_id) for query_id, docs in data.items() for doc_id, value in docs.items()
                                if not is_pair(value))
        raise InputError(f'{what} dict-of-dict with equivalence classes: value {data[query_id][doc_id]!r} for doc '
                         f'{doc_id!r} in query {query_id!r} is not a (relevance, class) pair (every value must be '
                         'one)')
    return [value[0] for value in values], [value[1] for value in values]


def _from_records(records: Iterable, schema: pa.Schema, what: str) -> pa.Table:
    columns: tuple[list, ...] = tuple([] for _ in schema)
    try:
        for record in records:
            for column, name in zip(columns, schema.names, strict=True):
                column.append(getattr(record, name))
    except AttributeError as error:
        if error.name == 'rank':
            raise _no_ranks(f'{type(error.obj).__name__} records (no rank field)') from None
        raise InputError(f'{what} records must have fields {", ".join(schema.names)}: {error}') from None
    return _from_lists(*columns, schema=schema, what=what)


def _no_ranks(form: str) -> InputError:
    """The error for a run read with its ranks (tie policy ``rank``) given in a ``form`` that carries none."""
    return InputError(f'tie policy "rank" needs the run\'s ranks, which {form} does not carry: give the run as a '
                      'TREC file (its path), or as a DataFrame, Arrow table or Parquet/Arrow file with a rank column')


def _from_lists(*columns: list | pa.Array, schema: pa.Schema, what: str) -> pa.Table:
    """The table of ``columns``, Python lists (converted) or Arrow arrays (as they are), checked."""
    arrays = [_cast(column if isinstance(column, pa.Array) else _to_array(column, field, what), field, what)
              for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=with_labels_of(schema, arrays))


def _to_array(values: Any, field: pa.Field, what: str) -> pa.Array:
    """Python values (a list or a pandas Series) as an Arrow array; ids of mixed types (``1`` and ``'a'``)
    become strings, unless two of them would read the same (``1`` and ``'1'``): never merged silently. Lists of
    strings and of numbers are built without ``pa.array`` (:func:`strings_of`)."""
    if isinstance(values, list):
        built = strings_of(values) if field.type == pa.string() else numbers_of(values, field.type == pa.int64())
        if built is not None:
            return built
    try:
        return pa.array(values)
    except OverflowError:
        raise InputError(f'{what} column {field.name!r} holds an integer beyond 64 bits') from None
    except UnicodeEncodeError as error:
        raise _not_unicode(error, field, what) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        if field.type != pa.string():
            raise InputError(f'{what} column {field.name!r}: values must be numbers') from None
    for value in values:
        if not isinstance(value, _ID_TYPES):
            raise _not_an_id(value, type(value).__name__, field, what)
    as_text: dict[str, object] = {}
    for value in dict.fromkeys(values):
        text = str(value)
        if as_text.setdefault(text, value) is not value and as_text[text] != value:
            raise InputError(f'{what} column {field.name!r} holds both {as_text[text]!r} and {value!r}, the same '
                             f'id once read as text: make the ids one type')
    try:
        return pa.array([str(value) for value in values], pa.string())
    except UnicodeEncodeError as error:
        raise _not_unicode(error, field, what) from None


#: The Python types an id may have (read as ``str()`` writes them): ``bool`` and numpy's integers included.
_ID_TYPES = (str, int, np.integer, np.bool_)


def _as_ids(array: pa.Array | pa.ChunkedArray, field: pa.Field, what: str) -> pa.Array | pa.ChunkedArray:
    """An id column (non-empty) as strings, as ``str()`` writes each id: strings as they are, integers
    in decimal, booleans ``'True'``/``'False'`` (Arrow's cast writes ``'true'``). Any other type is
    refused, whatever the form: a float id (``1.0``, pandas' integer ids with a gap) would silently
    miss ``'1'``, and Arrow writes dates, times and bytes otherwise than ``str()``."""
    if pa.types.is_dictionary(array.type):  # a pandas Categorical
        array = ac.cast(array, array.type.value_type)
    kind = array.type
    if kind == pa.string():
        return array
    if pa.types.is_integer(kind) or pa.types.is_large_string(kind) or str(kind) == 'string_view':  # (pyarrow 16+)
        return ac.cast(array, pa.string())
    if pa.types.is_boolean(kind):
        return ac.take(pa.array(['False', 'True']), ac.cast(array, pa.int8()))
    raise _not_an_id(array[0].as_py(), str(kind), field, what)


def _not_an_id(value: object, kind: str, field: pa.Field, what: str) -> InputError:
    return InputError(f'{what} column {field.name!r} holds {value!r} ({kind}): ids must be strings or integers '
                      '(convert them to the strings the other side uses)')


def _not_unicode(error: UnicodeEncodeError, field: pa.Field, what: str) -> InputError:
    return InputError(f'{what} column {field.name!r} holds {error.object!r}, not valid Unicode ({error.reason}): '
                      'ids must encode as UTF-8')


def _cast(array: pa.Array | pa.ChunkedArray, field: pa.Field, what: str,
          first_row: int = 0) -> pa.Array | pa.ChunkedArray:
    if array.null_count:
        raise InputError(f'{what} column {field.name!r} has {array.null_count} missing value(s), the first at row '
                         f'{first_row + first_null(array)}')
    if array.type == field.type:
        return array
    if not len(array) or pa.types.is_null(array.type):  # empty (pandas makes empty columns float or object)
        return ac.cast(array, field.type)
    if field.name == 'relevance' and (pa.types.is_floating(array.type) or pa.types.is_decimal(array.type)):
        labels = labels_of(array)
        if isinstance(labels, int):
            raise InputError(f'{what} column {field.name!r}: label {array[labels].as_py()!r} at row '
                             f'{first_row + labels} is not finite')
        return labels
    if field.type == pa.int64() and pa.types.is_floating(array.type):
        values = to_numpy(array)
        whole = np.floor(values) == values
        if not whole.all():
            bad = int(np.argmin(whole))
            raise InputError(f'{what} column {field.name!r}: {field.name} must be an integer, '
                             f'got {array[bad].as_py()!r} at row {first_row + bad}')
    if field.type == pa.string():
        return _as_ids(array, field, what)
    try:
        return ac.cast(array, field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise InputError(f'{what} column {field.name!r}: cannot read values as {field.type}: {error}') from None


def as_dict_of_dict(table: pa.Table, value_column: str) -> dict[str, dict[str, Any]]:
    """``{query_id: {doc_id: value}}`` of a run or qrels table, the form every ir_measures provider reads
    as it is: built from whole columns (ir_measures' own conversion of a DataFrame walks it row by row,
    about 10 µs a row). A (query, doc) listed twice keeps its last value, as ir_measures' conversion does."""
    queries = ac.sorted_unique(table['query_id'])
    query = to_numpy(ac.index_in(table['query_id'], queries))
    order = np.argsort(query, kind='stable')
    bounds = np.searchsorted(query[order], np.arange(len(queries) + 1)).tolist()
    rows = pa.array(order)
    docs, values = (ac.take(table[name], rows).to_pylist() for name in ('doc_id', value_column))
    return {query_id: dict(zip(docs[start:end], values[start:end], strict=True))
            for query_id, start, end in zip(queries.to_pylist(), bounds[:-1], bounds[1:], strict=True)}
