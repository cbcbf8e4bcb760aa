"""Result lines as the ``ir_measures`` command prints them: ``[query_id \\t] measure \\t value``
(tsv, ``format(value, '.{places}f')``) or one JSON object per line, summary rows (query id
``all``) last.

Per-query tsv rows are assembled in Arrow, not line by line in Python: a run of a million
queries prints millions of rows.
"""
from __future__ import annotations

import json
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TextIO

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import string_array, string_scalar
from irmeasures_ext.cli.common import SUMMARY_QID
from irmeasures_ext.engine.combined import Results

#: Queries whose rows are assembled at once (bounds the memory of ``-q``, and its strings below 2 GB).
_QUERIES_PER_WRITE = 1 << 16
#: Chunks of rows assembled at once, while the previous ones are written.
_THREADS = 2

def write_tsv(out: TextIO, results: Results, places: int, by_query: bool, summary: bool) -> None:
    """Writes tsv rows; ``places`` decimals (-1: Python's shortest repr)."""
    spec = '' if places == -1 else f'.{places}f'
    if by_query:
        out.flush()
        write = out.buffer.write if hasattr(out, 'buffer') else lambda data: out.write(bytes(data).decode())
        with ThreadPoolExecutor(_THREADS) as pool:  # Arrow's string kernels release the GIL
            pending: deque[Future] = deque()
            for start in range(0, len(results.query_ids), _QUERIES_PER_WRITE):
                pending.append(pool.submit(_query_lines, results, spec, slice(start, start + _QUERIES_PER_WRITE)))
                if len(pending) > _THREADS:
                    write(pending.popleft().result())
            while pending:
                write(pending.popleft().result())
        out.flush()
    if summary:
        prefix = f'{SUMMARY_QID}\t' if by_query else ''
        out.write(''.join(f'{prefix}{measure}\t{format(value, spec)}\n' for measure, value in
                          results.aggregates().items()))


def _query_lines(results: Results, spec: str, queries: slice) -> memoryview:
    """The rows of some queries: for each, one line per measure, values formatted with ``spec``."""
    return query_lines(results.query_ids[queries],
                       [(f'\t{measure}\t', values[queries]) for measure, values in results.values.items()], spec)


def query_lines(query_ids: pa.Array, columns: list[tuple[str, np.ndarray]], spec: str) -> memoryview:
    """For each query of ``query_ids`` (at least one), its lines, one per (text, values) of ``columns`` (at
    least one): the query id, the text, the query's value formatted with ``spec``; as UTF-8 bytes."""
    pieces = []
    for text, values in columns:
        formatted = string_array([format(value, spec) for value in values.tolist()])
        pieces += [query_ids, string_scalar(text), formatted, string_scalar('\n')]
    lines = ac.binary_join_element_wise(*pieces, string_scalar(''))  # per query: its lines, one per column
    offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
    return memoryview(lines.buffers()[2])[int(offsets[0]):int(offsets[-1])]


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
