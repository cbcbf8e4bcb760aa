"""Reading TREC run and qrels files (plain or gzipped) into Arrow tables.

The fast path reads with ``pyarrow.csv`` (fields separated by single spaces); files with
other whitespace (tabs, aligned columns, trailing fields) are read as lines and split in
Arrow. Whenever neither works (a malformed line, whitespace that only Python's
``str.split`` knows) or the data need checking (non-finite scores), the file is parsed
again line by line, which either succeeds or raises :class:`InputError` naming the file,
the line number and the problem.
"""
from __future__ import annotations

import gzip
import math
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from irmeasures_ext.errors import InputError
from irmeasures_ext.readers.schemas import QRELS_SCHEMA, RUN_SCHEMA

_GZIP_MAGIC = b'\x1f\x8b'
_RUN_COLUMNS = ['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag']
_QRELS_COLUMNS = ['query_id', 'iteration', 'doc_id', 'relevance']
#: Characters that Python's ``str.split()`` treats as whitespace but Arrow's ASCII split does not.
_PYTHON_ONLY_WHITESPACE = (r'[\x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}'
                           r'\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]')


class TrecFileError(InputError):
    """A TREC file cannot be read; the message names the file and line."""


def read_run(path: str | os.PathLike) -> pa.Table:
    """Reads a TREC run (``qid Q0 docid rank score tag``); fields after the sixth are ignored."""
    table = _read_fast(path, _RUN_COLUMNS, 'score', pa.float64(), extra_fields=True)
    if table is None or not pc.all(pc.is_finite(table['score'])).as_py():
        table = _read_slow(path, 'run')
    return table.select(['query_id', 'doc_id', 'score']).cast(RUN_SCHEMA)


def read_qrels(path: str | os.PathLike) -> pa.Table:
    """Reads TREC qrels (``qid iteration docid relevance``)."""
    table = _read_fast(path, _QRELS_COLUMNS, 'relevance', pa.int64(), extra_fields=False)
    if table is None:
        table = _read_slow(path, 'qrels')
    return table.select(['query_id', 'doc_id', 'relevance']).cast(QRELS_SCHEMA)


def find_problem(path: str | os.PathLike, kind: str) -> None:
    """Parses ``path`` line by line, also checking duplicates; raises TrecFileError at the first problem."""
    _read_slow(path, kind, check_duplicates=True)


def _open_checked(path: str | os.PathLike) -> tuple[Path, bool]:
    path = Path(path)
    if not path.exists():
        raise TrecFileError(f'{path}: no such file')
    if path.is_dir():
        raise TrecFileError(f'{path}: is a directory, expected a TREC file')
    with open(path, 'rb') as handle:
        head = handle.read(2)
    if not head:
        raise TrecFileError(f'{path}: file is empty')
    return path, head == _GZIP_MAGIC


def _read_fast(path: str | os.PathLike, names: list[str], value: str, value_type: pa.DataType,
               extra_fields: bool) -> pa.Table | None:
    """query_id, doc_id and ``value`` read with pyarrow; None if the file needs the line-by-line reader."""
    path, gzipped = _open_checked(path)
    # (The parser's scratch memory is left to the pool: releasing it after the qrels slowed the
    # run file read in the other thread, for a few MB of peak RSS.)
    return _read_spaced(path, gzipped, names, value, value_type) or _read_split(
        path, gzipped, names, value, value_type, extra_fields)


def _read_spaced(path: Path, gzipped: bool, names: list[str], value: str, value_type: pa.DataType) -> pa.Table | None:
    """Fields separated by single spaces, read by pyarrow.csv."""
    try:
        with pa.input_stream(str(path), compression='gzip' if gzipped else None) as stream:
            table = pacsv.read_csv(
                stream,
                read_options=pacsv.ReadOptions(column_names=names),
                parse_options=pacsv.ParseOptions(delimiter=' ', quote_char=False),
                convert_options=pacsv.ConvertOptions(
                    column_types={'query_id': pa.string(), 'doc_id': pa.string(), value: value_type},
                    include_columns=['query_id', 'doc_id', value],
                    quoted_strings_can_be_null=False, strings_can_be_null=False))
    except (pa.ArrowInvalid, OSError, EOFError):
        return None
    return table if table.num_rows else None


def _read_split(path: Path, gzipped: bool, names: list[str], value: str, value_type: pa.DataType,
                extra_fields: bool) -> pa.Table | None:
    """Fields separated by any ASCII whitespace: whole lines read by pyarrow.csv, split in Arrow.

    Lines need ``len(names)`` fields, or more if ``extra_fields`` (the rest is ignored); lines
    of whitespace only are skipped, as ``str.split`` does. Lines holding the delimiter given
    to the reader fail the read, which is right: ``str.split`` treats it as whitespace, like
    the characters the regex rejects.
    """
    try:
        with pa.input_stream(str(path), compression='gzip' if gzipped else None) as stream:
            lines = pacsv.read_csv(
                stream, read_options=pacsv.ReadOptions(column_names=['line']),
                parse_options=pacsv.ParseOptions(delimiter='\x1f', quote_char=False),
                convert_options=pacsv.ConvertOptions(column_types={'line': pa.string()},
                                                     strings_can_be_null=False))['line']
        if pc.any(pc.match_substring_regex(lines, _PYTHON_ONLY_WHITESPACE)).as_py():
            return None
        lines = pc.ascii_trim_whitespace(lines)
        nonblank = pc.cast(pc.binary_length(lines), pa.bool_())
        fields = pc.ascii_split_whitespace(lines if pc.all(nonblank).as_py() else lines.filter(nonblank))
        counts = pc.min_max(pc.list_value_length(fields)).as_py()
        if not len(fields) or counts['min'] < len(names) or (counts['max'] > len(names) and not extra_fields):
            return None

        def field(name: str) -> pa.ChunkedArray:  # (pc.list_element would import pandas for its index)
            index = names.index(name)
            return pc.list_flatten(pc.list_slice(fields, index, index + 1))
        return pa.table({'query_id': field('query_id'), 'doc_id': field('doc_id'),
                         value: pc.cast(field(value), value_type)})
    except (pa.ArrowInvalid, OSError, EOFError):
        return None


def _read_slow(path: str | os.PathLike, kind: str, check_duplicates: bool = False) -> pa.Table:
    path, gzipped = _open_checked(path)
    n_fields = 6 if kind == 'run' else 4
    query_ids, doc_ids, values = [], [], []
    seen: dict[tuple[str, str], tuple[int, object]] = {}
    for line_no, fields in _split_lines(path, gzipped):
        if len(fields) < n_fields or (kind == 'qrels' and len(fields) > n_fields):
            expected = 'qid Q0 docid rank score tag' if kind == 'run' else 'qid iteration docid relevance'
            raise TrecFileError(f'{path}:{line_no}: expected {n_fields} fields ({expected}), got {len(fields)}')
        query_id, doc_id = fields[0], fields[2]
        value = _parse_score(fields[4], path, line_no) if kind == 'run' else _parse_label(fields[3], path, line_no)
        if check_duplicates:
            _check_repeat(seen, kind, query_id, doc_id, value, path, line_no)
        query_ids.append(query_id)
        doc_ids.append(doc_id)
        values.append(value)
    if not query_ids:
        raise TrecFileError(f'{path}: no {kind} lines (file has only blank lines)')
    schema = RUN_SCHEMA if kind == 'run' else QRELS_SCHEMA
    return pa.Table.from_arrays([pa.array(query_ids, pa.string()), pa.array(doc_ids, pa.string()),
                                 pa.array(values, schema.field(2).type)], schema=schema)


def _split_lines(path: Path, gzipped: bool) -> Iterator[tuple[int, list[str]]]:
    opener = gzip.open if gzipped else open
    line_no = 0
    try:
        with opener(path, 'rt', encoding='utf-8-sig', newline=None) as handle:
            for line_no, line in enumerate(handle, start=1):
                fields = line.split()
                if fields:
                    yield line_no, fields
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise TrecFileError(f'{path}: corrupt or truncated gzip after line {line_no}: {error}') from None
    except UnicodeDecodeError as error:
        raise TrecFileError(f'{path}:{line_no + 1}: not valid UTF-8 ({error.reason})') from None


def _parse_score(text: str, path: Path, line_no: int) -> float:
    try:
        score = float(text)
    except ValueError:
        raise TrecFileError(f'{path}:{line_no}: score {text!r} is not a number') from None
    if not math.isfinite(score):
        raise TrecFileError(f'{path}:{line_no}: score {text!r} is not finite')
    return score


def _parse_label(text: str, path: Path, line_no: int) -> int:
    try:
        return int(text)
    except ValueError:
        raise TrecFileError(f'{path}:{line_no}: relevance {text!r} is not an integer') from None


def _check_repeat(seen: dict, kind: str, query_id: str, doc_id: str, value: object, path: Path,
                  line_no: int) -> None:
    key = (query_id, doc_id)
    if key not in seen:
        seen[key] = (line_no, value)
        return
    first_line, first_value = seen[key]
    if kind == 'run':
        raise TrecFileError(f'{path}:{line_no}: duplicate doc {doc_id!r} in query {query_id!r} '
                            f'(first at line {first_line})')
    if first_value != value:
        raise TrecFileError(f'{path}:{line_no}: conflicting labels for doc {doc_id!r} in query {query_id!r}: '
                            f'{value} here, {first_value} at line {first_line}')
