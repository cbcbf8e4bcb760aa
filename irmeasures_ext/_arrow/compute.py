"""The Arrow compute functions an evaluation uses, called without ``import pyarrow.compute``.

``import pyarrow.compute`` builds a documented Python wrapper for each of Arrow's ~300 compute
functions, where ``pyarrow._compute`` holds the functions and their option classes: importing it
instead makes the whole command 8-12% faster (benchmarks/results/tricks-2026-12-02-2.md). The
evaluation path calls the functions it needs by name through ``call_function`` instead, also in
place of the array and table methods that compute (``cast``, ``take``, ``sort``, ``filter``...),
which import pyarrow.compute on first use. Paths off the default evaluation (error reports, the
``rank`` tie policy's check, the other subcommands) may import it. ``pyarrow._compute`` is internal
to pyarrow: should it move, the same objects come from ``pyarrow.compute``, which re-exports them
(tests/arrow/test_compute.py tests that fallback; .ci/run tests the oldest pyarrow allowed, 14).
"""
from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa

try:
    from pyarrow._compute import CastOptions, SetLookupOptions, SliceOptions, SortOptions, call_function
except ImportError:  # (pyarrow moved its internals)
    from pyarrow.compute import CastOptions, SetLookupOptions, SliceOptions, SortOptions, call_function

from irmeasures_ext._arrow.arrays import from_numpy, string_scalar

Column: TypeAlias = pa.Array | pa.ChunkedArray


def cast(values: Column, target_type: pa.DataType, safe: bool = True) -> Column:
    """``values`` as ``target_type``; ``safe=False`` allows lossy casts (e.g. float64 to float32)."""
    options = CastOptions.safe(target_type) if safe else CastOptions.unsafe(target_type)
    return call_function('cast', [values], options)


def cast_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """The columns of ``schema`` from ``table``, cast to its types."""
    return pa.Table.from_arrays([cast(table[field.name], field.type) for field in schema], schema=schema)


def take(data: Column | pa.Table, indices: pa.Array) -> Any:
    """The rows of ``data`` at ``indices``, in that order."""
    return call_function('take', [data, indices])


def unique(values: Column) -> pa.Array:
    """The distinct values, in order of first appearance."""
    return call_function('unique', [values])


def sorted_unique(values: Column) -> pa.Array:
    """The distinct values, ascending."""
    distinct = unique(values)
    return take(distinct, call_function('array_sort_indices', [distinct]))


def count_distinct(values: Column) -> int:
    return call_function('count_distinct', [values]).as_py()


def index_in(values: Column, value_set: pa.Array) -> Column:
    """The position of each value in ``value_set`` (null where absent)."""
    return call_function('index_in', [values], SetLookupOptions(value_set))


def indices_nonzero(values: Column) -> pa.Array:
    """The positions (uint64) of the true values."""
    if isinstance(values, pa.ChunkedArray) and not values.num_chunks:  # pyarrow 14 crashes on it
        return pa.array([], pa.uint64())
    return call_function('indices_nonzero', [values])


def sort_indices(table: pa.Table, sort_keys: list[tuple[str, str]]) -> pa.Array:
    """The row order sorting ``table`` by ``sort_keys`` ((column, 'ascending' | 'descending') pairs)."""
    return call_function('sort_indices', [table], SortOptions(sort_keys))


def _arrow_value(value: Any) -> Any:
    """``value`` as an Arrow object; a string or number without pyarrow's own conversion of a Python value
    (``pa.scalar``, ``pa.array``), which first asks whether it is a pandas object, importing pandas."""
    if isinstance(value, (pa.Array, pa.ChunkedArray, pa.Scalar)):
        return value
    if isinstance(value, str):
        return string_scalar(value)
    number = np.asarray([value])
    if number.dtype.kind in 'iuf':
        return from_numpy(number)[0]
    return pa.scalar(value)


def equal(left: Any, right: Any) -> Column:
    return call_function('equal', [left, _arrow_value(right)])


def not_equal(left: Any, right: Any) -> Column:
    return call_function('not_equal', [left, _arrow_value(right)])


def greater(left: Any, right: Any) -> Column:
    return call_function('greater', [left, _arrow_value(right)])


def greater_equal(left: Any, right: Any) -> Column:
    return call_function('greater_equal', [left, _arrow_value(right)])


def less(left: Any, right: Any) -> Column:
    return call_function('less', [left, _arrow_value(right)])


def is_in(values: Column, value_set: pa.Array) -> Column:
    """Whether each of ``values`` is in ``value_set``."""
    return call_function('is_in', [values], SetLookupOptions(value_set))


def and_(left: Any, right: Any) -> Column:
    return call_function('and', [left, right])


def negate(values: Column) -> Column:
    return call_function('negate', [values])


def min_length(strings: pa.Array) -> int:
    """The length in bytes of the shortest string (of a non-empty array)."""
    return call_function('min', [call_function('binary_length', [strings])]).as_py()


def binary_join_element_wise(*strings: Any) -> Column:
    """Row by row, the strings joined by the last argument (a separator)."""
    return call_function('binary_join_element_wise', list(strings))



def slice_from(strings: Column, start: int) -> Column:
    """Each string from its ``start``-th character (UTF-8 code units) on."""
    return call_function('utf8_slice_codeunits', [strings], SliceOptions(start))
