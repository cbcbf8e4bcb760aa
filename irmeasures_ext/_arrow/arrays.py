"""Arrow columns as numpy arrays and back, built from and read from the Arrow buffers.

Arrow's own ``to_numpy`` and ``pa.array`` (of an ndarray, and even of a list) import pandas on
first use, which an evaluation does not otherwise need.
"""
from __future__ import annotations

import array
from typing import Any

import numpy as np
import pyarrow as pa


def to_numpy(array: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A fixed-width or boolean Arrow array as numpy (nulls become -1)."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    if len(chunks) == 1:
        return _chunk_to_numpy(chunks[0])
    return np.concatenate([np.empty(0, dtype=numpy_dtype(array.type))]
                          + [_chunk_to_numpy(chunk) for chunk in chunks])


def _chunk_to_numpy(chunk: pa.Array) -> np.ndarray:
    n, offset = len(chunk), chunk.offset
    if not n:
        return np.empty(0, dtype=numpy_dtype(chunk.type))
    validity, data = chunk.buffers()[:2]
    if chunk.type == pa.bool_():
        values = _bits(data, offset, n)
    else:
        dtype = numpy_dtype(chunk.type)
        values = np.frombuffer(data, dtype, n, offset * dtype.itemsize)
    if chunk.null_count:
        values = values.copy()
        values[~_bits(validity, offset, n)] = -1
    return values


#: Arrow's names of its float types that are not numpy's.
_FLOAT_NAMES = {'halffloat': 'float16', 'float': 'float32', 'double': 'float64'}


def numpy_dtype(kind: pa.DataType) -> np.dtype:
    """The numpy dtype of a fixed-width Arrow type (``to_pandas_dtype`` imports pandas in pyarrow 14)."""
    return np.dtype(bool) if kind == pa.bool_() else np.dtype(_FLOAT_NAMES.get(str(kind), str(kind)))


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """An Arrow bitmap as a numpy bool array."""
    return np.unpackbits(np.frombuffer(buffer, np.uint8), count=offset + n, bitorder='little')[offset:].view(np.bool_)


def from_numpy(values: np.ndarray) -> pa.Array:
    """A zero-copy Arrow array of a 1-d numpy integer or float array."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def strings_of(values: list[Any]) -> pa.Array | None:
    """A string array of ``values`` when each is a ``str`` that encodes as UTF-8 and holds no NUL (else None),
    built from their NUL-separated concatenation: ``pa.array`` of Python objects imports pandas on its first use
    (a quarter of a second at every start of a process that evaluates a dict-of-dict)."""
    try:
        data = np.frombuffer('\x00'.join(values).encode('utf-8'), np.uint8)
    except (TypeError, UnicodeEncodeError):
        return None
    is_separator = data == 0
    separators = np.flatnonzero(is_separator)
    if len(separators) != max(len(values) - 1, 0) or len(data) >= 1 << 31:  # (a NUL in an id; beyond 32 bits)
        return None
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    offsets[1:-1] = separators - np.arange(len(separators))  # (each string's end, the separators before it gone)
    offsets[-1:] = len(data) - len(separators)
    return pa.Array.from_buffers(pa.string(), len(values),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data[~is_separator])])


def numbers_of(values: list[Any], integers: bool = True) -> pa.Array | None:
    """Numbers without ``pa.array`` (see :func:`strings_of`): an int64 array when ``integers`` are wanted and each
    value is an integer within 64 bits (the standard library's typed array checks them), else a float64 one
    when each reads as a number as a float64 cast would (numbers, bools, numeric text, as a cast of a text column
    reads them); None (to pa.array, and its messages) for anything else, None or NaN among them."""
    if integers:
        try:
            return from_numpy(np.frombuffer(array.array('q', values), np.int64))
        except OverflowError:  # (an integer beyond 64 bits: pa.array says so)
            return None
        except TypeError:  # (a float, text or None)
            pass
    try:
        floats = np.fromiter(values, np.float64, len(values))
    except (TypeError, ValueError, OverflowError):  # (OverflowError: an integer beyond float64's range)
        return None
    return None if np.isnan(floats).any() else from_numpy(floats)


def string_scalar(text: str) -> pa.Scalar:
    """An Arrow string scalar (``pa.scalar`` of a Python string imports pandas too)."""
    return string_array([text])[0]


def string_array(strings: list[str]) -> pa.Array:
    """An Arrow string array of Python strings."""
    encoded = [string.encode('utf-8') for string in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(item) for item in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets),
                                                             pa.py_buffer(b''.join(encoded))])


def first_null(array: pa.ChunkedArray | pa.Array) -> int:
    """The position of the first null of ``array`` (-1 if none), from its chunks' validity bitmaps."""
    start = 0
    for chunk in (array.chunks if isinstance(array, pa.ChunkedArray) else [array]):
        if chunk.null_count:
            if pa.types.is_null(chunk.type):
                return start
            return start + int(np.argmin(_bits(chunk.buffers()[0], chunk.offset, len(chunk))))
        start += len(chunk)
    return -1
