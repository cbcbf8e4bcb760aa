"""irmeasures_ext._arrow.compute against pyarrow.compute, the public API it stands in for."""
import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from irmeasures_ext._arrow import compute as ac

STRINGS = pa.chunked_array([['b', 'a', '', 'ccc'], ['a', 'dd']])


@pytest.mark.parametrize('name', ['call_function', 'CastOptions', 'PadOptions', 'SetLookupOptions', 'SliceOptions',
                                  'SortOptions'])
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


def test_string_functions():
    digits = pa.array(['5', '123', '45678'])
    assert ac.utf8_lpad(digits, 4, '0').to_pylist() == ['0005', '0123', '45678']
    assert ac.utf8_slice_codeunits(digits, 0, -2).to_pylist() == ['', '1', '456']
    assert ac.utf8_slice_codeunits(digits, -2).to_pylist() == ['5', '23', '78']
    assert ac.binary_join_element_wise(digits, pa.array(['x', 'y', 'z']), '-').to_pylist() == ['5-x', '123-y',
                                                                                              '45678-z']
    mask = pa.array([True, False, True])
    assert ac.replace_with_mask(digits, mask, pa.array(['p', 'q'])).to_pylist() == ['p', '123', 'q']
