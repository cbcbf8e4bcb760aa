"""Turns every run/qrels form ir_measures accepts into Arrow tables with fixed columns.

Runs become ``(query_id: string, doc_id: string, score: float64)`` and qrels
``(query_id: string, doc_id: string, relevance: int64)``, or ``relevance: float64`` for real-valued labels
(:func:`~irmeasures_ext.readers.schemas.labels_of`), with ``equivalence_class: int64`` beside for
qrels with equivalence classes: a fifth field on every line of a TREC file, an ``equivalence_class``
column of a DataFrame or Arrow table, or ``(relevance, class)`` values of a dict-of-dict
(``{qid: {docid: (rel, class)}}``); records carry none. Accepted forms: Arrow tables,
pandas DataFrames (ir_measures or PyTerrier column names), dict-of-dict, iterables of
namedtuples (``ir_measures.ScoredDoc``/``Qrel``, ir_datasets records), file paths (TREC, Parquet
or Arrow IPC files, folders of Parquet files: :func:`~irmeasures_ext.readers.source.open_file`),
``pyarrow.dataset.Dataset`` objects and every :class:`~.source.Source`; data in memory is read through a
:class:`TableSource`. Every table-like form is checked and converted by :mod:`.conversion`: an id is a string
or an integer (bools too), read as ``str()`` writes it; any other type is an InputError.
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
from irmeasures_ext._arrow.arrays import from_numpy, string_array, to_numpy
from irmeasures_ext.errors import InputError, ReversedScoresWarning, RowError, warn_at_caller
from irmeasures_ext.readers import columnar
from irmeasures_ext.readers.conversion import cast_column, from_columns, from_lists, no_ranks, to_array
from irmeasures_ext.readers.schemas import CLASS_COLUMN, INTENT_COLUMN, RUN_SCHEMA, Layout, layout_of
from irmeasures_ext.readers.source import Source, open_file


class Input:
    """A run or qrels read into a table, and the file or dataset it was read from (None for other forms).

    ``query_starts`` is what a form guarantees, where it does (a dict-of-dict): the first row of each query,
    its rows grouped by query, each query once and no doc twice within it; None: to be found from the rows.
    ``dict_run``: a small dict-of-dict run kept as it is (:class:`DictRun`, read so by ``read_input(...,
    dict_run=True)``), which the ranking reads directly; its :attr:`table` is then read when first asked for (and
    its problems reported then). ``checked``: whether the engine has checked its table whole as it ranked
    it (:func:`~irmeasures_ext.engine.ranking.rank_input`): no doc twice in a query, every score a finite number."""

    def __init__(self, table: pa.Table | None, source: Source | None, query_starts: np.ndarray | None = None,
                 dict_run: DictRun | None = None) -> None:
        if table is not None:
            self.table = table
        self.source = source
        self.query_starts = query_starts
        self.dict_run = dict_run
        self.checked = False

    @functools.cached_property
    def table(self) -> pa.Table:
        """The rows, in the fixed columns (given, or, for a :attr:`dict_run`, built now)."""
        if self.dict_run is None:
            raise AttributeError('table')  # (never: an Input is given its table, or a dict_run)
        return self.dict_run.table()

    @property
    def column_names(self) -> list[str]:
        """The table's columns (known without building it)."""
        return RUN_SCHEMA.names if self.dict_run is not None else self.table.column_names

    def query_ids(self) -> pa.Array | pa.ChunkedArray:
        """The query id of each row, or, for a :attr:`dict_run`, of each of its queries with docs: the same ids
        in the same order of first appearance."""
        return self.table['query_id'] if self.dict_run is None else string_array(self.dict_run.query_ids)

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


#: Runs given as a dict-of-dict of fewer docs may be kept as they are (:class:`DictRun`); larger ones are read into
#: a table, whose ranking is vectorised throughout and threaded (the lookups and the doc ids compared for ties of a
#: DictRun are not: on the 1M-line run, 0.33 s against 0.23 s, benchmarks/every_measure.py, part ``inprocess``).
DICT_RUN_ROWS = 1 << 14


@dataclass(frozen=True, eq=False)
class DictRun:
    """A small run given as a dict-of-dict ``{query_id: {doc_id: score}}``, as it is: its queries' dicts, their
    ids (strings) and sizes; every doc id and score, read when first asked for (:attr:`columns`).

    The ranking reads it directly (:func:`~irmeasures_ext.engine.ranking.rank_dict_run`): the qrels' judged docs
    of each query are looked up in its dict, and the run's doc ids are not copied into a table, hashed and looked
    up in the qrels. On runs of 100 queries x 100 docs, reading them into a table took as long as evaluating the
    table, and the runs were evaluated no faster than pytrec_eval evaluates them (benchmarks/small_runs.py).

    Its doc ids are checked to be strings as a join checks them: a ``str`` subclass counts as its text, and is
    looked up with its own hash and equality (as the dict holding it does)."""

    data: dict             # the run as given
    queries: list[dict]    # the dict of each query with docs, in order
    query_ids: list[str]   # their ids
    sizes: np.ndarray      # their numbers of docs

    @classmethod
    def of(cls, data: Any) -> DictRun | None:
        """``data`` as a DictRun if it is a dict of dicts with docs, fewer than :data:`DICT_RUN_ROWS` of them, whose
        query ids are strings that encode as UTF-8; else None."""
        if type(data) is not dict or set(map(type, data.values())) != {dict}:
            return None
        query_ids, queries = list(data), list(data.values())
        sizes = np.fromiter(map(len, queries), np.int64, len(queries))
        if sizes.sum() >= DICT_RUN_ROWS:
            return None
        if not sizes.all():  # (a query without docs has no row)
            query_ids, queries = ([item for item, size in zip(items, sizes.tolist(), strict=True) if size]
                                  for items in (query_ids, queries))
            sizes = sizes[sizes > 0]
        if set(map(type, query_ids)) != {str} or not _encodes(query_ids):
            return None
        return cls(data, queries, query_ids, sizes)

    @functools.cached_property
    def columns(self) -> tuple[list[str], np.ndarray] | None:
        """Every doc id and score (float64), query after query, if every doc id is a string that encodes as UTF-8
        and every score reads as a number other than NaN: what reading the run into a table
        (:func:`_from_dict_of_dict`) reads as it is; else None (read it into a table: the same checks, and their
        errors)."""
        doc_ids = list(itertools.chain.from_iterable(self.queries))
        if not _encodes(doc_ids):
            return None
        try:  # (as numbers_of reads them)
            scores = np.fromiter(itertools.chain.from_iterable(map(dict.values, self.queries)), np.float64,
                                 len(doc_ids))
        except Exception:  # (anything the table's reading would report, or read otherwise)
            return None
        return None if np.isnan(scores).any() else (doc_ids, scores)

    @property
    def query_starts(self) -> np.ndarray:
        """The first row of each query in :meth:`table` (:attr:`Input.query_starts`)."""
        return np.cumsum(self.sizes) - self.sizes

    def table(self) -> pa.Table:
        """The run read into a table, as any dict-of-dict is."""
        return _from_dict_of_dict(self.data, RUN_SCHEMA, 'run')


def _encodes(strings: list[Any]) -> bool:
    """Whether every one of ``strings`` is a ``str`` that encodes as UTF-8 (one pass, by a join)."""
    try:
        joined = ''.join(strings)
        if not joined.isascii():
            joined.encode('utf-8')
    except (TypeError, UnicodeEncodeError):
        return False
    return True


class InputDict(dict):
    """An :class:`Input` as the dict-of-dict every ir_measures provider reads, which keeps the Input, so that our
    provider reads it as it was read (the file of a problem named, ranks kept)."""

    def __init__(self, read: Input, value_column: str) -> None:
        super().__init__(as_dict_of_dict(read.table, value_column))
        self.input = read


def read_input(data: Any, kind: str, with_rank: bool = False, with_intents: bool = False,
               dict_run: bool = False) -> Input:
    """``data``, a run or qrels (``kind``) in any accepted form, read into a table; ``with_rank`` keeps a
    run's rank column (tie policy ``rank``), ``with_intents`` the intent of each qrels line (the diversity
    measures); ``dict_run``: a small dict-of-dict run is kept as it is (:class:`DictRun`), for a caller that ranks
    it at once (its problems are found then: :attr:`Input.table`)."""
    if isinstance(data, InputDict):
        data = data.input
    if isinstance(data, Input) and (not with_rank or 'rank' in data.column_names) and (
            with_intents == (INTENT_COLUMN in data.column_names)):  # (read with intents: again without)
        return data
    if isinstance(data, Input) and kind == 'qrels' and not with_intents and INTENT_COLUMN in data.column_names \
            and not (data.source is not None and data.source.has_classes()):
        # (read with intents, wanted without: the same lines without their intents, not read again: the source may
        # be read once only, e.g. intent_qrels(a generator) that ir_measures' pipeline read for pyndeval and ours)
        return Input(data.table.drop_columns([INTENT_COLUMN]), data.source, data.query_starts)
    if isinstance(data, Input):
        data = data.source if data.source is not None else data.table
    source = as_source(data)
    if dict_run and kind == 'run' and not with_rank and isinstance(source, TableSource) and (
            kept := DictRun.of(source.data)) is not None:
        return Input(None, source, kept.query_starts, kept)
    layout = layout_of(kind, with_rank, kind == 'qrels' and not with_intents and source.has_classes(), with_intents)
    read = Input(source.read(layout), source, source.query_starts())
    name = kind if source.name is None else source.name
    if kind == 'run' and not with_rank and source.lists_ranks():
        warn_if_listed_by_ascending_score(queries_listed_by_ascending_score(read.table), name)
    if kind == 'qrels' and not read.table.num_rows:  # (a TREC file of blank lines is refused as it is read)
        raise InputError(f'{name}: {source.emptiness()}, so every measure would be undefined: give judgments')
    return read


def as_source(data: Any) -> Source:
    """The source of ``data``: itself, a path's (:func:`~.source.open_file`), a ``pyarrow.dataset.Dataset``'s, or
    a :class:`TableSource` of data in memory."""
    if isinstance(data, Source):
        return data
    if isinstance(data, (str, os.PathLike)):
        return open_file(data)
    if is_dataset(data):
        return columnar.ColumnarSource.of_dataset(data)
    return TableSource(data)


class TableSource(Source):
    """Data in memory: an Arrow table, a pandas DataFrame, a dict-of-dict or an iterable of records (read once)."""

    name = None

    def __init__(self, data: Any) -> None:
        self.data = data

    def read(self, layout: Layout) -> pa.Table:
        return _as_table(self.data, layout.schema, layout.kind)

    def batches(self, layout: Layout, block_bytes: int) -> Iterator[pa.Table]:
        yield self.read(layout)

    def has_classes(self) -> bool:
        return _has_classes(self.data)

    def lists_ranks(self) -> bool:
        return _has_rank_column(self.data)

    def query_starts(self) -> np.ndarray | None:
        return _dict_query_starts(self.data)

    def emptiness(self) -> str:
        return _emptiness(self.data)


def _emptiness(data: Any) -> str:
    """How qrels ``data`` in memory (of no judgment) are empty, in its form's terms."""
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
    """Whether ``data`` is a DataFrame or an Arrow table with a ``rank`` column."""
    if isinstance(data, pa.Table):
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
        return from_columns(data.column_names, data.column, schema, what)
    if hasattr(data, 'columns') and hasattr(data, 'itertuples'):  # pandas DataFrame
        return from_columns([str(c) for c in data.columns], lambda name: data[name], schema, what)
    if isinstance(data, Mapping):
        if 'rank' in schema.names:
            raise no_ranks('a dict-of-dict')
        if INTENT_COLUMN in schema.names:
            raise InputError(f'the diversity measures need the intent (subtopic) of each judgment, which a '
                             f'dict-of-dict {what} does not carry: give the qrels as a TREC file (qid intent docid '
                             f'relevance), a table with an {INTENT_COLUMN} (or iteration) column, or records with an '
                             'iteration field (ir_measures.Qrel)')
        return _from_dict_of_dict(data, schema, what)
    if isinstance(data, Iterable):
        return _from_records(data, schema, what)
    raise InputError(f'unsupported {what} type {type(data).__name__}: expected a file path (TREC, Parquet or '
                     f'Arrow), a pandas DataFrame, an Arrow table or dataset, a dict-of-dict or an iterable of '
                     f'namedtuples')


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
    queries = cast_column(to_array(list(data), query_field, what), query_field, what)
    counts = np.fromiter(map(len, data.values()), np.int64, len(data))
    query_ids = ac.take(queries, from_numpy(np.repeat(np.arange(len(data)), counts)))
    if CLASS_COLUMN in schema.names:
        return from_lists(query_ids, doc_ids, *_class_pairs(data, values, what), schema=schema, what=what)
    return from_lists(query_ids, doc_ids, values, schema=schema, what=what)


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


#: The fields of records (ir_measures' Qrel, ir_datasets' qrels) holding a column of ours by another name.
_RECORD_FIELDS = {INTENT_COLUMN: 'iteration'}


def _from_records(records: Iterable, schema: pa.Schema, what: str) -> pa.Table:
    columns: tuple[list, ...] = tuple([] for _ in schema)
    fields = [_RECORD_FIELDS.get(name, name) for name in schema.names]
    try:
        for record in records:
            for column, name in zip(columns, fields, strict=True):
                column.append(getattr(record, name))
    except AttributeError as error:
        if error.name == 'rank':
            raise no_ranks(f'{type(error.obj).__name__} records (no rank field)') from None
        raise InputError(f'{what} records must have fields {", ".join(fields)}: {error}') from None
    return from_lists(*columns, schema=schema, what=what)


def as_intent_qrels(table: pa.Table) -> list[Any]:
    """The records of qrels read with their intents (``INTENT_COLUMN``), each line's intent its ``iteration``: the
    form ir_measures' pyndeval provider reads diversity qrels in (a dict-of-dict has no intents)."""
    import ir_measures
    columns = (table[name].to_pylist() for name in ('query_id', 'doc_id', 'relevance', INTENT_COLUMN))
    return [ir_measures.Qrel(*row) for row in zip(*columns, strict=True)]


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
