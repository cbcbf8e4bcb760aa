"""The command's value formatting gives exactly Python's ``format(value, '.{places}f')`` digits."""
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeasures_ext.cli.output import fixed

# Values near rounding ties at 4 places (x.xxxx5), beyond the lookup table, negative, not finite.
SPECIAL = [0.00005, 0.12345, 0.5, 2.5, 1.00005, 0.99995, 104.8576, 1e6 + 0.5, 123456.78915, -0.0, -1e-9, -0.12345,
           math.nan, math.inf, -math.inf, 1e300, 5e-324, 0.1 + 0.2, 1 / 3]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(SPECIAL),
                          st.integers(0, 10 ** 7).map(lambda k: k / 10 ** 5)), min_size=1, max_size=40),
       st.integers(0, 6))
def test_fixed_equals_python_format(values, places):
    assert fixed(np.array(values), places).to_pylist() == [format(v, f'.{places}f') for v in values]


def test_integers_format_like_floats():
    assert fixed(np.array([0, 3, 12]), 2).to_pylist() == ['0.00', '3.00', '12.00']
