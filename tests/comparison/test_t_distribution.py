"""Student's t two-sided p-value (comparison.stats.t_two_sided), computed without scipy, against closed forms of
the distribution (1 and 2 degrees of freedom; the normal's limit) and scipy.special.stdtr."""
from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import stdtr

from irmeasures_ext.comparison import stats

T_VALUES = np.r_[0.0, 1e-12, 1e-6, 0.01, 0.3, 1.0, 1.5, 1.7, 1.8, 2.0, 2.5, 3.0, 5.0, 10.0, 37.0, 100.0, 1e4, 1e8]


def test_one_degree_is_the_cauchy_tail():
    """ν = 1: P(|T| ≥ t) = 1 - 2 atan(t) / π."""
    expected = [1 - 2 * math.atan(t) / math.pi for t in T_VALUES]
    assert stats.t_two_sided(T_VALUES, 1) == pytest.approx(expected, rel=1e-13, abs=1e-16)
    assert stats.t_two_sided(-T_VALUES, 1) == pytest.approx(expected, rel=1e-13, abs=1e-16)


def test_two_degrees_closed_form():
    """ν = 2: P(|T| ≥ t) = 1 - t / √(2 + t²) (in the tail written as 2 / (√(2 + t²) (√(2 + t²) + t)))."""
    expected = [2 / (math.sqrt(2 + t * t) * (math.sqrt(2 + t * t) + t)) for t in T_VALUES]
    assert stats.t_two_sided(T_VALUES, 2) == pytest.approx(expected, rel=1e-13, abs=1e-16)


def test_many_degrees_near_the_normal():
    """ν = 10^7: the normal's 2 Φ(-t) = erfc(t / √2) and the first term in 1/ν of the expansion (Abramowitz &
    Stegun 26.7.5: + 2 φ(t) (t³ + t) / (4ν)), whose next term is below 1e-12 here."""
    freedom, t = 10 ** 7, T_VALUES[T_VALUES < 10]
    expected = [math.erfc(v / math.sqrt(2)) + 2 * math.exp(-v * v / 2) / math.sqrt(2 * math.pi) * (v ** 3 + v)
                / (4 * freedom) for v in t]
    assert stats.t_two_sided(t, freedom) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize('freedom', [1, 2, 3, 4, 5, 7, 9, 10, 29, 30, 49, 99, 100, 101, 999, 1000, 9999, 10 ** 4,
                                     3 * 10 ** 4, 10 ** 5])
def test_equals_scipy(freedom):
    rng = np.random.default_rng(freedom)
    # (the fraction is least accurate just past its switch, t² ≈ 3 for many degrees: t from 1.70 to 1.86 densely)
    t = np.r_[T_VALUES, np.linspace(1.70, 1.86, 161), rng.standard_normal(40) * 3, rng.standard_normal(10) * 30]
    expected = 2 * stdtr(freedom, -np.abs(t))
    tolerance = 2e-12 if freedom <= 10 ** 4 else 1.5e-11
    # (abs at ν = 1: scipy's own error, 2.8e-11 at t = 1e-6, where the Cauchy test above holds ours to 1e-16)
    assert stats.t_two_sided(t, freedom) == pytest.approx(expected, rel=tolerance, abs=5e-11 if freedom == 1 else 0)


def test_beyond_the_largest_freedom_scipy_s():
    # (ν = 10^15: the normal's erfc(t / √2), the 1/ν term far below a float's precision; the fraction gave 0.0470)
    t = np.array([0.5, 2.0, 5.0])
    assert stats.t_two_sided(t, 10 ** 15) == pytest.approx([math.erfc(v / math.sqrt(2)) for v in t], rel=1e-13)
    assert stats.t_two_sided(2.0, stats.LARGEST_FREEDOM + 1) == 2 * stdtr(stats.LARGEST_FREEDOM + 1, -2.0)
    both = stats.t_two_sided(2.0, np.array([10, 10 ** 15]))  # (each degree on its own path)
    assert both[0] == pytest.approx(2 * stdtr(10, -2.0), rel=1e-14) and both[1] == 2 * stdtr(10 ** 15, -2.0)


def test_extreme_t_without_a_warning_and_degrees_as_float32():
    # (RuntimeWarnings are errors in this suite: t² overflowing, ν / t² overflowing)
    assert stats.t_two_sided(np.array([1e200, -1e200, 1e-200, 1e-160]), 10).tolist() == [0.0, 0.0, 1.0, 1.0]
    assert stats.t_two_sided(2.0, np.float32(99_999)) == pytest.approx(2 * stdtr(99_999, -2.0), rel=1e-11)


def test_integers_are_squared_as_floats():
    # (10^10 squared overflows int64; ν = 1: P(|T| ≥ t) = 2 atan(1 / t) / π)
    assert stats.t_two_sided(np.array([10 ** 10]), np.array([1])) == pytest.approx([2 * math.atan(1e-10) / math.pi],
                                                                                    rel=1e-14)


@pytest.mark.parametrize('a', [1, 2, 3, 10, 49, 50, 51, 64, 100, 1000, 10 ** 4])
def test_log_gamma_ratio_against_factorials(a):
    """log Γ(a) - log Γ(a + ½) for whole a, from Γ(a + ½) = (2a)! √π / (4^a a!) in exact integers: the series
    (a ≥ 50) and math.lgamma (below) to 5e-15 (lgamma's difference is off by 2.6e-14 at 50)."""
    exact = math.log(Fraction(math.factorial(a - 1) * 4 ** a * math.factorial(a), math.factorial(2 * a))) \
        - math.log(math.pi) / 2
    ratio = stats._log_gamma_ratio(np.array([[float(a)]]), 0.5)
    assert ratio.shape == (1, 1) and ratio[0, 0] == pytest.approx(exact, rel=0, abs=5e-15)


def test_arrays_of_both_and_edges():
    t = np.array([[0.0, 2.0, np.inf], [-np.inf, np.nan, -2.0]])
    freedom = np.array([[1], [40]])
    p = stats.t_two_sided(t, freedom)
    assert p.shape == (2, 3)
    assert p[0, 0] == 1.0 and p[0, 2] == 0.0 and p[1, 0] == 0.0 and math.isnan(p[1, 1])
    assert p[0, 1] == pytest.approx(1 - 2 * math.atan(2) / math.pi, rel=1e-14)
    assert p[1, 2] == pytest.approx(2 * stdtr(40, -2.0), rel=1e-13)


def test_a_fraction_that_does_not_converge_is_an_error(monkeypatch):
    monkeypatch.setattr(stats, 'FRACTION_STEPS', 3)
    with pytest.raises(ArithmeticError, match='did not converge in 3 steps'):
        stats.t_two_sided(2.0, 1000)


def test_paired_t_and_reproducibility_do_not_import_scipy():
    code = ('import sys, numpy as np; '
            'from irmeasures_ext.comparison.stats import LARGEST_FREEDOM, paired_t, t_two_sided; '
            't_two_sided(2.0, LARGEST_FREEDOM); '
            'from irmeasures_ext.reproduce import t_test_p; '
            'paired_t(np.array([[0.1, 0.3, 0.2]])); t_test_p(np.array([0.1, 0.5]), np.array([0.2, 0.3]), True); '
            't_test_p(np.array([0.1, 0.5]), np.array([0.2, 0.3]), False); '
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))")
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          check=True).stdout.strip() == '[]'


@pytest.mark.parametrize('queries', [2, 3, 25])
def test_paired_t_of_every_row_of_a_3d_array_equals_scipy(queries):
    from scipy.stats import ttest_1samp
    differences = np.random.default_rng(queries).normal(0.05, 0.2, size=(2, 3, queries))
    differences[1, 2] = 0.25  # (constant: p 0)
    differences[0, 1] = 0.0  # (no difference: p 1, where scipy answers NaN)
    p = stats.paired_t(differences)
    assert p.shape == (2, 3) and p[1, 2] == 0.0 and p[0, 1] == 1.0
    for row in [(0, 0), (0, 2), (1, 0), (1, 1)]:
        assert p[row] == pytest.approx(ttest_1samp(differences[row], 0.0).pvalue, rel=1e-12), row


def test_paired_t_of_one_query_is_nan_in_the_rows_shape():
    p = stats.paired_t(np.ones((2, 3, 1)))
    assert p.shape == (2, 3) and np.isnan(p).all()
