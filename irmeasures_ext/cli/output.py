"""Result lines as the ``ir_measures`` command prints them: ``[query_id \\t] measure \\t value``
(tsv, ``format(value, '.{places}f')``) or one JSON object per line, summary rows (query id
``all``) last.

Per-query tsv rows are assembled in Arrow, not line by line in Python: a run of a million
queries prints millions of rows. Values get exactly the digits ``format`` gives them (see
:func:`fixed`).
"""
from __future__ import annotations

import functools
import json
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TextIO

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import bool_array, from_numpy, string_array, string_scalar
from irmeasures_ext.cli.common import SUMMARY_QID
from irmeasures_ext.engine.combined import Results

#: Queries whose rows are assembled at once (bounds the memory of ``-q``, and its strings below 2 GB).
_QUERIES_PER_WRITE = 1 << 16
#: Chunks of rows assembled at once, while the previous ones are written.
_THREADS = 2
#: Rounded scaled values with a string in a table, at most (with 4 places: values below 104.8576). Below
#: 2**31, scaled values carry their fraction to within 2**-22, far finer than _TIE_MARGIN.
_TABLE_SIZE = 1 << 20
#: The smallest table: tables grow by powers of two to the largest value to be formatted.
_MIN_TABLE_SIZE = 1 << 10
#: Scaled values whose fraction is this close to .5 are formatted by ``format`` (round half even).
_TIE_MARGIN = 1e-6


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
    """The rows of some queries: for each, one line per measure."""
    query_ids = results.query_ids[queries]
    pieces = []
    for measure, values in results.values.items():
        values = values[queries]
        formatted = fixed(values, places) if places >= 0 else string_array([format(v) for v in values.tolist()])
        pieces += [query_ids, string_scalar(f'\t{measure}\t'), formatted, string_scalar('\n')]
    lines = ac.binary_join_element_wise(*pieces, string_scalar(''))  # per query: its lines, one per measure
    offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
    return memoryview(lines.buffers()[2])[int(offsets[0]):int(offsets[-1])]


def fixed(values: np.ndarray, places: int) -> pa.Array:
    """``format(value, f'.{places}f')`` of each value, as an Arrow string array.

    The rounded scaled value (``round(value * 10**places)``) of most values picks the string from a
    table of every such string up to the largest (at most ``_TABLE_SIZE``): one gather, where
    formatting each value costs five string passes (or a Python call). The rest are formatted by
    ``format`` itself: values near a rounding tie (where the scaled product's rounding could differ
    from ``format``'s exact decimal rounding), negative, not finite or beyond the table.
    """
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid='ignore', over='ignore'):  # inf, nan and huge values are left to format
        scaled = values * 10.0 ** places
        rounded = np.rint(scaled)
        exact = (scaled >= 0) & (rounded < _TABLE_SIZE) & (np.abs(np.abs(scaled - rounded) - 0.5) > _TIE_MARGIN)
        exact &= ~np.signbit(values)
    index = np.where(exact, rounded, 0).astype(np.int64)
    table_size = max(_MIN_TABLE_SIZE, 1 << int(index.max(initial=0)).bit_length())
    strings = ac.take(_fixed_table(places, table_size), from_numpy(index))
    inexact = np.flatnonzero(~exact)
    if not len(inexact):
        return strings
    spec = f'.{places}f'
    replacement = string_array([format(value, spec) for value in values[inexact].tolist()])
    return ac.replace_with_mask(strings, bool_array(~exact), replacement)


@functools.cache
def _fixed_table(places: int, size: int) -> pa.Array:
    """The strings of i / 10**places with ``places`` decimals, for i from 0 to ``size - 1``.

    Sized to the values at hand: measures between 0 and 1 with 4 places need 16K strings, built in a
    few ms, where the largest table takes about 0.4 s (a third of what ``-q`` adds on 1M queries)."""
    digits = ac.cast(from_numpy(np.arange(size, dtype=np.int64)), pa.string())
    if not places:
        return digits
    padded = ac.utf8_lpad(digits, places + 1, '0')
    return ac.binary_join_element_wise(ac.utf8_slice_codeunits(padded, 0, -places),
                                       ac.utf8_slice_codeunits(padded, -places), string_scalar('.'))


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
