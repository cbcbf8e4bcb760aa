"""Result lines as the ``ir_measures`` command prints them: ``[query_id \\t] measure \\t value``
(tsv, ``format(value, '.{places}f')``) or one JSON object per line, summary rows (query id
``all``) last.

Per-query tsv rows are assembled in Arrow, not line by line in Python: a run of a million
queries prints millions of rows. Values are formatted to fixed decimals from their rounded
scaled integers, exactly as ``format`` does; the few it cannot do exactly (near a rounding tie,
very large, negative or not finite) are formatted by ``format`` itself.
"""
from __future__ import annotations

import json
from typing import TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.engine.arrays import bool_array, from_numpy, string_array
from irmeasures_ext.engine.combined import Results

SUMMARY_QID = 'all'
#: Scaled values below this (2**31) carry their fraction to within 2**-22, far finer than _TIE_MARGIN.
_EXACT_LIMIT = float(1 << 31)
#: Scaled values whose fraction is this close to .5 are formatted by ``format`` (round half even).
_TIE_MARGIN = 1e-6


def write_tsv(out: TextIO, results: Results, places: int, by_query: bool, summary: bool) -> None:
    """Writes tsv rows; ``places`` decimals (-1: Python's shortest repr)."""
    spec = '' if places == -1 else f'.{places}f'
    if by_query:
        names = [str(measure) for measure in results.values]
        values = [fixed(v, places) if places >= 0 else string_array([format(x, spec) for x in v.tolist()])
                  for v in results.values.values()]
        rows = [pc.binary_join_element_wise(pc.binary_join_element_wise(results.query_ids, name, formatted, '\t'),
                                            '\n', '') for name, formatted in zip(names, values, strict=True)]
        _write_interleaved(out, rows, len(results.query_ids))
    if summary:
        prefix = f'{SUMMARY_QID}\t' if by_query else ''
        out.write(''.join(f'{prefix}{measure}\t{format(value, spec)}\n' for measure, value in
                          results.aggregates().items()))


def _write_interleaved(out: TextIO, rows: list[pa.Array], n_queries: int) -> None:
    """Writes row ``q`` of every array in turn, for each query ``q`` (one line per query and measure)."""
    if not rows or not n_queries:
        return
    order = (np.arange(n_queries)[:, None] + np.arange(len(rows))[None, :] * n_queries).ravel()
    lines = pa.chunked_array(rows).combine_chunks().take(from_numpy(order)).cast(pa.large_string())
    offsets = np.frombuffer(lines.buffers()[1], np.int64, len(lines) + 1, lines.offset * 8)
    data = lines.buffers()[2]
    out.flush()
    out.buffer.write(memoryview(data)[int(offsets[0]):int(offsets[-1])])
    out.buffer.flush()


def fixed(values: np.ndarray, places: int) -> pa.Array:
    """``format(value, f'.{places}f')`` of each value, as an Arrow string array."""
    values = np.asarray(values, dtype=np.float64)
    scaled = values * 10.0 ** places
    rounded = np.rint(scaled)
    with np.errstate(invalid='ignore'):
        exact = (scaled >= 0) & (scaled < _EXACT_LIMIT) & (np.abs(np.abs(scaled - rounded) - 0.5) > _TIE_MARGIN)
        exact &= ~np.signbit(values)
    digits = pc.cast(from_numpy(np.where(exact, rounded, 0).astype(np.int64)), pa.string())
    if places:
        padded = pc.utf8_lpad(digits, places + 1, '0')
        digits = pc.binary_join_element_wise(pc.utf8_slice_codeunits(padded, 0, -places),
                                             pc.utf8_slice_codeunits(padded, -places), '.')
    inexact = np.flatnonzero(~exact)
    if not len(inexact):
        return digits
    spec = f'.{places}f'
    replacement = string_array([format(value, spec) for value in values[inexact].tolist()])
    return pc.replace_with_mask(digits, bool_array(~exact), replacement)


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
