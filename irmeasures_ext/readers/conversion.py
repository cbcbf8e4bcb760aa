"""Columns of any table-like input (an Arrow table, a DataFrame, Parquet/Arrow data, Python lists) checked and
converted to the fixed columns of a :class:`~irmeasures_ext.readers.schemas.Layout`: ours or PyTerrier's
names, ids as text (``str()`` of each), numbers as the schema's types; a problem names its column and row."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import first_null, numbers_of, strings_of, to_numpy
from irmeasures_ext.errors import InputError
from irmeasures_ext.readers.schemas import labels_of, layout_of, with_labels_of

# PyTerrier's column names, and the names ir_measures uses for the same data (its ``iteration``: the intent of a
# diversity qrels line).
_COLUMN_ALIASES = {'qid': 'query_id', 'docno': 'doc_id', 'label': 'relevance', 'iteration': 'intent'}
_PYTERRIER_NAME = {ours: theirs for theirs, ours in _COLUMN_ALIASES.items()}


def read_columns(names: list[str], kind: str, with_rank: bool = False) -> list[str]:
    """Which of the columns ``names`` of a table :func:`~.inputs.read_input` reads for a ``kind`` (``with_rank``:
    see there), in its fields' order; InputError for missing or ambiguous columns, as ``read_input`` gives."""
    return list(named_columns(names, layout_of(kind, with_rank).schema, kind).values())


def from_columns(names: list[str], get_column, schema: pa.Schema, what: str, first_row: int = 0) -> pa.Table:
    """The columns of ``names`` (read by ``get_column``) holding ``schema``'s fields, checked and converted to
    its types; ``first_row``: the number of the first row in messages."""
    available = named_columns(names, schema, what)
    columns = [cast_column(_as_arrow(get_column(available[field.name]), field, what), field, what, first_row)
               for field in schema]
    return pa.Table.from_arrays(columns, schema=with_labels_of(schema, columns))


def named_columns(names: list[str], schema: pa.Schema, what: str) -> dict[str, str]:
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
        raise no_ranks(f'a table without a rank column (columns {names})')
    if missing:
        pyterrier = [_PYTERRIER_NAME.get(field, field) for field in schema.names]
        raise InputError(f'{what} is missing column(s) {missing} (found {names}); expected {schema.names} or '
                         f"PyTerrier's {pyterrier}")
    return {field.name: available[field.name] for field in schema}


def _as_arrow(column: Any, field: pa.Field, what: str) -> pa.Array | pa.ChunkedArray:
    """An Arrow column as is (no copy), anything else (a pandas Series) converted by pyarrow."""
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        return column
    return to_array(column if len(column) else [], field, what)


def no_ranks(form: str) -> InputError:
    """The error for a run read with its ranks (tie policy ``rank``) given in a ``form`` that carries none."""
    return InputError(f'tie policy "rank" needs the run\'s ranks, which {form} does not carry: give the run as a '
                      'TREC file (its path), or as a DataFrame, Arrow table or Parquet/Arrow file with a rank column')


def _beyond_float64(values: Any, field: pa.Field, what: str) -> InputError | None:
    """The error for an integer beyond float64's range among the ``values`` of a float column (it is no finite
    number, as a TREC file's 1e400 is not), if there is one."""
    if not pa.types.is_floating(field.type):
        return None
    huge = next((value for value in values if isinstance(value, int) and abs(value) > sys.float_info.max), None)
    return None if huge is None else InputError(
        f"{what} column {field.name!r} holds an integer of {huge.bit_length()} bits, beyond float64's range: not a "
        'finite number')


def from_lists(*columns: list | pa.Array, schema: pa.Schema, what: str) -> pa.Table:
    """The table of ``columns``, Python lists (converted) or Arrow arrays (as they are), checked."""
    arrays = [cast_column(column if isinstance(column, pa.Array) else to_array(column, field, what), field, what)
              for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=with_labels_of(schema, arrays))


def to_array(values: Any, field: pa.Field, what: str) -> pa.Array:
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
        raise _beyond_float64(values, field, what) or InputError(
            f'{what} column {field.name!r} holds an integer beyond 64 bits') from None
    except UnicodeEncodeError as error:
        raise _not_unicode(error, field, what) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        if field.type != pa.string():
            raise _beyond_float64(values, field, what) or InputError(
                f'{what} column {field.name!r}: values must be numbers') from None
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


def cast_column(array: pa.Array | pa.ChunkedArray, field: pa.Field, what: str,
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


def needed_columns(names: list[str], schema: pa.Schema) -> list[str]:
    """The columns of ``names`` holding a field of ``schema`` (ours or PyTerrier's name), in their order."""
    return [name for name in names if _COLUMN_ALIASES.get(name, name) in schema.names]
