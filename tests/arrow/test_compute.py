"""irmeasures_ext._arrow.compute against pyarrow.compute, the public API it stands in for."""
import math
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from irmeasures_ext._arrow import compute as ac

STRINGS = pa.chunked_array([['b', 'a', '', 'ccc'], ['a', 'dd']])


@pytest.mark.parametrize('name', ['call_function', 'CastOptions', 'SetLookupOptions', 'SortOptions'])
def test_internal_names_are_the_objects_pyarrow_compute_exports(name):
    """The fallback import (should pyarrow._compute move) gives the very same objects."""
    assert getattr(ac, name) is getattr(pc, name)


def test_cast_is_safe_unless_told():
    values = pa.array([1.0, 2.5, 1e300])
    with pytest.raises(pa.ArrowInvalid):
        ac.cast(values, pa.int64())
    assert ac.cast(values, pa.float32(), safe=False).equals(pc.cast(values, pa.float32(), safe=False))
    assert ac.cast(values, pa.float32(), safe=False)[2].as_py() == math.inf
    assert ac.cast(pa.array([2.5, -1.5]), pa.int64(), safe=False).to_pylist() == [2, -1]  # truncated


def test_cast_table_takes_the_schema_columns_in_order():
    table = pa.table({'a': pa.array([1, 2], pa.int32()), 'b': ['x', 'y'], 'c': [1.0, 2.0]})
    schema = pa.schema([('c', pa.float32()), ('a', pa.int64())])
    assert ac.cast_table(table, schema).equals(table.select(['c', 'a']).cast(schema))


def test_set_functions():
    assert ac.unique(STRINGS).to_pylist() == ['b', 'a', '', 'ccc', 'dd']
    assert ac.sorted_unique(STRINGS).to_pylist() == ['', 'a', 'b', 'ccc', 'dd']
    assert ac.count_distinct(STRINGS) == 5
    assert ac.index_in(STRINGS, pa.array(['a', 'dd'])).to_pylist() == [None, 0, None, None, 0, 1]
    assert ac.take(STRINGS, pa.array([5, 0])).to_pylist() == ['dd', 'b']
    assert ac.min_length(STRINGS.chunks[0]) == 0 and ac.min_length(STRINGS.chunks[1]) == 1


def test_sort_indices_by_several_keys():
    table = pa.table({'key': [2, 1, 2, 1], 'doc_id': ['a', 'b', 'c', 'a']})
    keys = [('key', 'ascending'), ('doc_id', 'descending')]
    assert ac.sort_indices(table, keys).to_pylist() == [1, 3, 2, 0] == pc.sort_indices(table, keys).to_pylist()


def test_comparisons_and_logic():
    left, right = pa.array([1, 2, 3]), pa.array([3, 2, 1])
    assert ac.equal(left, right).to_pylist() == [False, True, False]
    assert ac.not_equal(left, right).to_pylist() == [True, False, True]
    assert ac.greater(left, right).to_pylist() == [False, False, True]
    assert ac.and_(ac.greater(left, 1), ac.greater(right, 1)).to_pylist() == [False, True, False]
    assert ac.negate(left).to_pylist() == [-1, -2, -3]
    assert ac.greater_equal(left, right).to_pylist() == [False, True, True]
    assert ac.less(left, right).to_pylist() == [True, False, False]
    assert ac.is_in(STRINGS, pa.array(['a', 'dd'])).to_pylist() == [False, True, False, False, True, True]


COLUMNS = {int: pa.array([1, 2, -1, 2 ** 62]), float: pa.array([1.0, 2.5, -1.0]),
           str: pa.chunked_array([['a', 'é', ''], ['b']]), bool: pa.array([True, False, None])}


@pytest.mark.parametrize('value', [2, -1, 2 ** 62, 2.5, 'a', '', 'é', True])
def test_comparisons_with_a_python_value_as_pyarrow_compute(value):
    """Strings and numbers are converted without pyarrow's conversion (which imports pandas); others by it."""
    column = COLUMNS[type(value)]
    for ours, theirs in ((ac.equal, pc.equal), (ac.not_equal, pc.not_equal), (ac.greater, pc.greater),
                         (ac.greater_equal, pc.greater_equal), (ac.less, pc.less)):
        assert ours(column, value).equals(theirs(column, value)), (ours, value)


def test_string_functions():
    digits = pa.array(['5', '123', '45678'])
    assert ac.binary_join_element_wise(digits, pa.array(['x', 'y', 'z']), '-').to_pylist() == ['5-x', '123-y',
                                                                                              '45678-z']


def test_without_pyarrow_internals_the_public_module_serves():
    """Should pyarrow move ``pyarrow._compute``, the module imports its functions from pyarrow.compute and an
    evaluation gives the same values (in a fresh interpreter where importing ``pyarrow._compute`` fails)."""
    script = ('import sys, pyarrow.compute; sys.modules["pyarrow._compute"] = None\n'
              'import irmeasures_ext._arrow.compute\n'
              'from irmeasures_ext import provider, sample\n'
              'import ir_measures\n'
              'print(provider.calc_aggregate('
              '[ir_measures.parse_measure("AP")], str(sample.QRELS), str(sample.RUN))[ir_measures.AP])')
    env = {**os.environ, 'IRMEASURES_EXT_NO_AUTOLOAD': '1'}
    value = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True,
                                   env=env, timeout=120).stdout
    import ir_measures

    from irmeasures_ext import provider, sample
    expected = provider.calc_aggregate([ir_measures.AP], str(sample.QRELS), str(sample.RUN))[ir_measures.AP]
    assert float(value) == pytest.approx(expected, abs=1e-15)


def test_indices_nonzero_of_a_column_without_chunks():
    """A one-row run compares its ids with no ids: a column of no chunks (pyarrow 14 crashed on it)."""
    assert ac.indices_nonzero(pa.chunked_array([], pa.bool_())).to_pylist() == []
    assert ac.indices_nonzero(pa.chunked_array([[False, True], [True]])).to_pylist() == [1, 2]


@pytest.mark.parametrize('kind', [pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
                                  pa.uint32(), pa.uint64(), pa.float16(), pa.float32(), pa.float64()])
def test_numpy_dtype_of_each_fixed_width_type(kind):
    from irmeasures_ext._arrow.arrays import numpy_dtype, to_numpy
    assert numpy_dtype(kind) == np.dtype(kind.to_pandas_dtype())
    dtype = kind.to_pandas_dtype()
    values = pa.chunked_array([pa.array(np.array([1, 0]).astype(dtype), kind),
                               pa.array(np.array([1]).astype(dtype), kind)])
    assert to_numpy(values).dtype == numpy_dtype(kind) and to_numpy(values).tolist() == [1, 0, 1]


@pytest.mark.parametrize('values', [['a', 'bc', ''], ['Ä', 'x', '日本語', ''], [], ['1e3', '007'], ['a' * 1000] * 3,
                                    [''], ['', ''], ['x']])
def test_strings_of_a_list_of_str_is_pa_array_of_it(values):
    from irmeasures_ext._arrow.arrays import strings_of
    built = strings_of(values)
    assert built.type == pa.string() and built.equals(pa.array(values, pa.string())) and built.to_pylist() == values


@pytest.mark.parametrize('values', [['a', 1], [None, 'a'], ['\ud800'], [b'a'], ['a\x00b', 'c'], ['\x00']])
def test_strings_of_anything_else_is_none(values):
    from irmeasures_ext._arrow.arrays import strings_of
    assert strings_of(values) is None


@pytest.mark.parametrize('values, kind', [([1, -2, 3], pa.int64()), ([1.5, 2, -0.0], pa.float64()), ([], pa.int64()),
                                          ([np.int64(3), 4], pa.int64()), ([np.float32(0.5), 1], pa.float64()),
                                          ([2 ** 62, 1], pa.int64())])
def test_numbers_of_a_list_of_numbers_is_pa_array_of_it(values, kind):
    from irmeasures_ext._arrow.arrays import numbers_of
    built = numbers_of(values)
    assert built.type == kind and built.to_pylist() == pa.array(values).cast(kind).to_pylist()


@pytest.mark.parametrize('values', [[1, 'x'], [None, 1.0], [float('nan')], ['abc'], [2 ** 70, 1]])
def test_numbers_of_text_none_nan_or_integers_beyond_64_bits_is_none(values):
    """Left to pa.array, and its messages (an integer label beyond 64 bits: an error, never a float)."""
    from irmeasures_ext._arrow.arrays import numbers_of
    assert numbers_of(values) is None


def test_numbers_of_floats_read_numeric_text_and_big_integers_as_a_cast_does():
    """As a text column cast to float64 (a DataFrame's) and a TREC file's score read them."""
    from irmeasures_ext._arrow.arrays import numbers_of
    assert numbers_of(['1.5', 2, 2 ** 70], integers=False).to_pylist() == [1.5, 2.0, float(2 ** 70)]


@pytest.mark.parametrize('values, kind', [([True, 2], pa.int64()), ([1.5, 2 ** 70], pa.float64()),
                                          ([False, 0.5], pa.float64())])
def test_numbers_of_bools_and_huge_integers_among_floats_are_their_numbers(values, kind):
    """(pa.array refuses these mixes; a bool is the number Python makes it, as pa.array's bools cast are.)"""
    from irmeasures_ext._arrow.arrays import numbers_of
    built = numbers_of(values)
    assert built.type == kind and built.to_pylist() == [kind.to_pandas_dtype()(v) for v in values]


def test_a_dict_of_dict_is_evaluated_without_importing_pandas():
    """pa.array of Python objects imports pandas on first use: a quarter of a second at every start."""
    import subprocess
    import sys
    script = ('import sys, ir_measures, irmeasures_ext; print(irmeasures_ext.provider.calc_aggregate([ir_measures.AP], '
              "{'q': {'a': 1, 'b': 0.5}}, {'q': {'a': 1.0, 'b': 2}}), 'pandas' in sys.modules)")
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ['{AP:', '1.0}', 'False'], result.stderr  # (0.5 is relevant: above 0)
