"""Result lines as the ``ir_measures`` command prints them: ``[query_id \\t] measure \\t value``
(tsv, ``format(value, '.{places}f')``) or one JSON object per line, summary rows (query id
``all``) last.

Per-query tsv rows are assembled in Arrow, not line by line in Python: a run of a million
queries prints millions of rows.
"""
from __future__ import annotations

import datetime
import itertools
import json
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TextIO

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import string_array, string_scalar
from irmeasures_ext.cli.common import SUMMARY_QID
from irmeasures_ext.errors import MetadataError
from irmeasures_ext.evaluation import Results

#: Queries whose rows are assembled at once (bounds the memory of ``-q``, and its strings below 2 GB).
_QUERIES_PER_WRITE = 1 << 16
#: Decimals up to which values are formatted in numpy (10**places is exact, the digits fit an int64).
_MOST_PLACES = 15
#: Chunks of rows assembled at once, while the previous ones are written.
_THREADS = 2

def metadata_header(path: str | None, output_format: str) -> str:
    """What ``--metadata FILE`` puts at the top of a report in ``output_format``: the ir_metadata block of the YAML
    file ``path`` (:func:`~irmeasures_ext.ir_metadata.metadata_block`) as ``#`` lines (tsv; markdown: inside an HTML
    comment, not headings: :func:`~irmeasures_ext.ir_metadata.metadata_comment`) or ``%`` lines (LaTeX), or a first
    line ``{"ir_metadata": {...}}`` (jsonl; dates in ISO 8601: :func:`_json_text`); nothing without a file.
    MetadataError names the file and line of a problem."""
    if path is None:
        return ''
    from irmeasures_ext.ir_metadata import load_metadata, metadata_block, metadata_comment
    metadata = load_metadata(path)
    if output_format == 'jsonl':
        try:
            _check_json_keys(metadata)
            return json.dumps({'ir_metadata': metadata}, default=_json_text, allow_nan=False) + '\n'
        except (TypeError, ValueError) as error:  # (a value or key JSON has no form for: a set, bytes, a list as a
            raise MetadataError(f'{path}: cannot be written as JSON: {error}') from None  # key, NaN, infinity)
    if output_format == 'markdown':
        return metadata_comment(metadata)
    return metadata_block(metadata, '%' if output_format == 'latex' else '#')


def _check_json_keys(metadata: dict) -> None:
    """ValueError where two keys of a mapping of ``metadata`` are one key in JSON (``1`` and ``'1'``: JSON's keys are
    texts) or where ``metadata`` holds over :data:`_JSON_VALUES` values, its aliases expanded (YAML's anchors let a
    small file stand for a value too large to write, or for one that holds itself)."""
    pending: list[object] = [metadata]
    for count in itertools.count():
        if not pending:
            return
        if count == _JSON_VALUES:
            raise ValueError(f'it holds over {_JSON_VALUES:,} values once its aliases are expanded, or holds itself')
        value = pending.pop()
        if isinstance(value, dict):
            texts: dict[str, object] = {}
            for key in value:
                # (json.dumps' texts; a key of infinity or NaN, whose text differs, it refuses)
                text = _JSON_KEYS[key] if key is None or isinstance(key, bool) else str(key)
                if text in texts:
                    raise ValueError(f'the keys {texts[text]!r} and {key!r} of a mapping are both "{text}" in JSON')
                texts[text] = key
            pending.extend(value.values())
        elif isinstance(value, (list, tuple)):  # (a YAML !!omap or !!pairs: a list of tuples)
            pending.extend(value)


#: The JSON keys of YAML's null and booleans.
_JSON_KEYS: dict[object, str] = {None: 'null', True: 'true', False: 'false'}
#: The values a jsonl metadata line holds at most (mappings, lists and scalars, its aliases expanded).
_JSON_VALUES = 1_000_000


def _json_text(value: object) -> str:
    """The text jsonl writes for a date or date and time of the YAML: ISO 8601 (``2022-07-01T10:00:00+00:00``);
    TypeError for the other values JSON has no form for (a YAML ``!!set``, ``!!binary``), not a text that would
    read back as another value."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise TypeError(f'{value!r} is a {type(value).__name__}, which JSON has no form for')


def write_tsv(out: TextIO, results: Results, places: int, by_query: bool, summary: bool) -> None:
    """Writes tsv rows; ``places`` decimals (-1: Python's shortest repr)."""
    spec = '' if places == -1 else f'.{places}f'
    if by_query:
        out.flush()
        write = out.buffer.write if hasattr(out, 'buffer') else lambda data: out.write(bytes(data).decode())
        with ThreadPoolExecutor(_THREADS) as pool:  # Arrow's string kernels release the GIL
            pending: deque[Future] = deque()
            for start in range(0, len(results.query_ids), _QUERIES_PER_WRITE):
                pending.append(pool.submit(_query_lines, results, places, slice(start, start + _QUERIES_PER_WRITE)))
                if len(pending) > _THREADS:
                    write(pending.popleft().result())
            while pending:
                write(pending.popleft().result())
        out.flush()
    if summary:
        prefix = f'{SUMMARY_QID}\t' if by_query else ''
        out.write(''.join(f'{prefix}{measure}\t{format(value, spec)}\n' for measure, value in
                          results.aggregates().items()))


def _query_lines(results: Results, places: int, queries: slice) -> memoryview:
    """The rows of some queries: for each, one line per measure, values with ``places`` decimals."""
    return query_lines(results.query_ids[queries],
                       [(f'\t{measure}\t', values[queries]) for measure, values in results.values.items()], places)


def query_lines(query_ids: pa.Array, columns: list[tuple[str, np.ndarray]], places: int) -> memoryview:
    """For each query of ``query_ids`` (at least one), its lines, one per (text, values) of ``columns`` (at
    least one): the query id, the text, the query's value with ``places`` decimals (-1: Python's shortest
    repr); as UTF-8 bytes."""
    pieces = []
    for text, values in columns:
        pieces += [query_ids, string_scalar(text), formatted(values, places), string_scalar('\n')]
    lines = ac.binary_join_element_wise(*pieces, string_scalar(''))  # per query: its lines, one per column
    offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
    return memoryview(lines.buffers()[2])[int(offsets[0]):int(offsets[-1])]


def formatted(values: np.ndarray, places: int) -> pa.Array:
    """Each float of ``values`` as ``format(value, f'.{places}f')`` writes it (``str`` for ``places`` -1).

    Vectorised: ``round(value * 10**places)`` is the correctly rounded decimal unless the product lies
    within its own rounding error of a half (or is too large to be exact, or not finite); those values
    alone are formatted by Python.
    """
    spec = '' if places < 0 else f'.{places}f'
    if not 0 <= places <= _MOST_PLACES:
        return string_array([format(value, spec) for value in values.tolist()])
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over='ignore', invalid='ignore'):
        scaled = np.abs(values) * 10.0 ** places
        distance_to_half = np.abs(scaled - np.floor(scaled) - 0.5)
        exact = (scaled < 2.0 ** 52) & (distance_to_half > scaled * 2.0 ** -50 + 2.0 ** -60)
    characters, present, lengths = _decimal_characters(np.rint(np.where(exact, scaled, 0)).astype(np.int64), places)
    present[:, 0] = negative = np.signbit(values) & exact
    present[~exact] = False
    strings = _strings(characters, present, np.where(exact, lengths + negative, 0))
    (inexact,) = np.nonzero(~exact)
    if not len(inexact):
        return strings
    positions = np.arange(len(values))
    positions[inexact] = len(values) + np.arange(len(inexact))
    python_strings = string_array([format(value, spec) for value in values[inexact].tolist()])
    return ac.take(pa.concat_arrays([strings, python_strings]), pa.array(positions))


def _decimal_characters(digits: np.ndarray, places: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ASCII characters of each ``digits / 10**places`` (non-negative) in columns '-', the whole
    digits, '.', the ``places`` decimals (no '.' for none); which are written (every one but the sign and
    the whole part's leading zeros); and how many per row."""
    whole = digits // 10 ** places
    whole_width = len(str(int(whole.max(initial=0))))
    point = [whole_width + 1] if places else []
    width = 1 + whole_width + len(point) + places
    characters = np.empty((len(digits), width), dtype=np.uint8)
    characters[:, 0] = ord('-')
    characters[:, point] = ord('.')
    rest = digits
    for column in [column for column in range(width - 1, 0, -1) if column not in point]:
        rest, digit = np.divmod(rest, 10)
        characters[:, column] = digit + ord('0')
    present = np.ones((len(digits), width), dtype=bool)
    lengths = np.full(len(digits), width - 1, dtype=np.int32)
    for column in range(1, whole_width):
        present[:, column] = whole >= 10 ** (whole_width - column)
        lengths -= ~present[:, column]
    return characters, present, lengths


def _strings(characters: np.ndarray, present: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """Strings from a (rows, width) array of ASCII codes: row i of the characters where ``present``, of
    ``lengths[i]`` (its count)."""
    offsets = np.zeros(len(characters) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(characters), [None, pa.py_buffer(offsets),
                                                                pa.py_buffer(characters[present].tobytes())])


def write_jsonl(out: TextIO, results: Results, places: int, by_query: bool, summary: bool) -> None:
    """Writes one JSON object per row (``places`` does not apply: values are printed in full)."""
    if by_query:
        names = [str(measure) for measure in results.values]
        columns = [values.tolist() for values in results.values.values()]
        for position, query_id in enumerate(results.query_ids.to_pylist()):
            out.write(''.join(json.dumps({'query_id': query_id, 'measure': name, 'value': column[position]}) + '\n'
                              for name, column in zip(names, columns, strict=True)))
    if summary:
        for measure, value in results.aggregates().items():
            record = {'query_id': SUMMARY_QID, 'measure': str(measure), 'value': value}
            if not by_query:
                del record['query_id']
            out.write(json.dumps(record) + '\n')
