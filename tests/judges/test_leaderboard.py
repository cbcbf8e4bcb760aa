"""Leaderboard agreement (``irmeasures_ext.judges.leaderboard``): Kendall's τ_b, Spearman's ρ and Pearson's r
against scipy on score vectors with ties; τ_a, τ_AP, τ_AP_a, τ_AP_b, RBO (its three treatments of ties), swapped
pairs, top-k overlap and the largest rank change against the plain references of tests/reference_leaderboard.py
(τ_AP_a, RBO^a and the top-k overlap there by brute force over every way of breaking the ties); the examples the
coefficients' authors document; ties at printed precision and within a tolerance; the undefined cases; the tables
end to end; the bootstrap."""
from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import reference_leaderboard as ref
import scipy.stats
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irmeasures_ext.errors import InputError, MeasureParamError, UndefinedLeaderboardAgreementWarning
from irmeasures_ext.judges import leaderboard as lb

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Scores on a coarse grid: ties are frequent.
GRID = st.sampled_from([0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 1.0])


@st.composite
def score_pairs(draw, min_size=2, max_size=30, values=GRID):
    """Two score vectors of the same systems (ties likely)."""
    n = draw(st.integers(min_size, max_size))
    return draw(st.lists(values, min_size=n, max_size=n)), draw(st.lists(values, min_size=n, max_size=n))


@st.composite
def small_pairs(draw, untied_x=False, untied_y=False, max_size=7):
    """Small score vectors, each either untied (a permutation of distinct scores) or on a 4-value grid, with few
    enough tie-breakings for the brute-force references."""
    n = draw(st.integers(2, max_size))

    def vector(untied: bool) -> list[float]:
        if untied or draw(st.booleans()):
            return [float(value) for value in draw(st.permutations(range(n)))]
        return draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
    x, y = vector(untied_x), vector(untied_y)
    assume(ref.tie_breaking_count(x) * ref.tie_breaking_count(y) <= 1000)
    return x, y


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with our undefined-statistic warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UndefinedLeaderboardAgreementWarning)
        return function(*args, **kwargs)


def constant(values) -> bool:
    return len(set(values)) == 1


# Against scipy --------------------------------------------------------------------------------------------------


@SETTINGS
@given(score_pairs())
def test_tau_b_spearman_pearson_are_scipys(pair):
    x, y = pair
    assume(not constant(x) and not constant(y))
    assert lb.tau_b(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    assert lb.spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
    assert lb.pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y).statistic, abs=1e-12)


@SETTINGS
@given(score_pairs(values=st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)
                   .map(lambda value: round(value, 3))))
def test_pearson_on_spread_scores_is_scipys(pair):
    x, y = pair
    assume(not constant(x) and not constant(y))
    assert lb.pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y).statistic, abs=1e-12)
    assert lb.tau_b(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


# Against the references -----------------------------------------------------------------------------------------


@SETTINGS
@given(score_pairs(max_size=12))
def test_tau_a_swapped_pairs_and_rank_change_are_the_references(pair):
    x, y = pair
    assert lb.tau_a(x, y) == pytest.approx(ref.tau_a(x, y), abs=1e-12)
    assert lb.swapped_pairs(x, y) == ref.swapped_pairs(x, y)
    assert lb.largest_rank_change(x, y) == ref.largest_rank_change(x, y)
    assert lb.mid_ranks(x).tolist() == ref.mid_ranks(x)


@SETTINGS
@given(small_pairs(untied_x=True, untied_y=True))
def test_tau_ap_is_the_reference_and_tau_ap_a_equals_it_without_ties(pair):
    x, y = pair
    expected = ref.tau_ap(x, y)
    assert lb.tau_ap(x, y) == pytest.approx(expected, abs=1e-12)
    assert lb.tau_ap_a(x, y) == pytest.approx(expected, abs=1e-12)
    # τ_AP_b without ties is the symmetric τ_AP, the mean of both directions (Urbano and Marrero)
    assert lb.tau_ap_b(x, y) == pytest.approx((expected + ref.tau_ap(y, x)) / 2, abs=1e-12)


@SETTINGS
@given(small_pairs(untied_x=True))
def test_tau_ap_a_is_the_mean_tau_ap_over_the_tie_breakings(pair):
    x, y = pair
    assert lb.tau_ap_a(x, y) == pytest.approx(ref.tau_ap_a(x, y), abs=1e-12)


@SETTINGS
@given(small_pairs())
def test_tau_ap_b_is_the_reference(pair):
    x, y = pair
    assume(not constant(x) and not constant(y))
    assert lb.tau_ap_b(x, y) == pytest.approx(ref.tau_ap_b(x, y), abs=1e-12)
    assert lb.tau_ap_b(x, y) == pytest.approx(lb.tau_ap_b(y, x), abs=1e-12)


@SETTINGS
@given(small_pairs(), st.sampled_from(['a', 'b', 'w']), st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_rbo_is_the_reference(pair, ties, p):
    x, y = pair
    assert lb.rbo(x, y, p, ties) == pytest.approx(ref.rbo(x, y, p, ties), abs=1e-12)
    assert lb.rbo(x, y, p, ties) == pytest.approx(lb.rbo(y, x, p, ties), abs=1e-12)


@SETTINGS
@given(small_pairs(), st.integers(1, 9))
def test_top_k_overlap_is_the_mean_over_the_tie_breakings(pair, k):
    x, y = pair
    assert lb.top_k_overlap(x, y, k) == pytest.approx(ref.top_k_overlap(x, y, k), abs=1e-12)


@SETTINGS
@given(small_pairs(untied_x=True, untied_y=True), st.sampled_from([0.5, 0.9]))
def test_rbo_variants_agree_without_ties(pair, p):
    x, y = pair
    values = [lb.rbo(x, y, p, ties) for ties in ('a', 'b', 'w')]
    assert values == pytest.approx([values[0]] * 3, abs=1e-12)
    assert lb.rbo(x, x, p) == pytest.approx(1.0)


def test_rbo_of_a_ranking_with_ties_against_itself():
    x = [3.0, 2.0, 2.0, 1.0]
    assert lb.rbo(x, x, 0.9, 'b') == pytest.approx(1.0)
    assert lb.rbo(x, x, 0.9, 'w') == pytest.approx(1.0)
    assert lb.rbo(x, x, 0.9, 'a') < 1  # (the expected RBO of two independent tie-breakings)
    assert lb.rbo(x, x, 0.9, 'a') == pytest.approx(ref.rbo(x, x, 0.9, 'a'), abs=1e-12)


def test_rbo_is_exact_for_complete_rankings():
    """Two complete rankings of the same systems: (1 − p)·Σ_{d≤n} p^{d−1}·A_d + p^n, by hand: x = a b c,
    y = b a c: A_1 = 0, A_2 = 1, A_3 = 1."""
    x, y = [3, 2, 1], [2, 3, 1]
    p = 0.9
    assert lb.rbo(x, y, p) == pytest.approx((1 - p) * (0 + p * 1 + p ** 2 * 1) + p ** 3, abs=1e-15)


def test_asymmetry_of_tau_ap():
    """x is the truth: swapping the vectors changes τ_AP (ircor's README example)."""
    x, y = IRCOR_README_X, IRCOR_README_Y
    assert lb.tau_ap(x, y) != pytest.approx(lb.tau_ap(y, x), abs=1e-6)
    assert lb.tau_ap(x, y) == pytest.approx(ref.tau_ap(x, y), abs=1e-12)


# The authors' numbers -------------------------------------------------------------------------------------------
# The ICTIR 2017 paper's coefficients as its authors' R package ircor (github.com/julian-urbano/ircor) documents and
# tests them, rounded as printed there (7 digits in README.md and man/tauAP.Rd, 4 in tests/testthat).

IRCOR_README_X = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
IRCOR_README_Y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
# round(v*5)/5 in R (halves to even: 0.9 → 0.8)
IRCOR_README_X5 = [0.0, 0.2, 0.2, 0.4, 0.6, 0.6, 0.6, 0.8, 1.0, 1.0]
IRCOR_README_Y5 = [0.4, 0.0, 0.2, 0.2, 0.6, 0.6, 0.6, 1.0, 0.8, 1.0]


def test_ircor_readme():
    x, y, x5, y5 = IRCOR_README_X, IRCOR_README_Y, IRCOR_README_X5, IRCOR_README_Y5
    assert lb.tau_a(x, y) == pytest.approx(0.7777778, abs=5e-8)
    assert lb.tau_ap(x, y) == pytest.approx(0.7491182, abs=5e-8)
    assert lb.tau_a(x, y5) == pytest.approx(0.7111111, abs=5e-8)
    assert lb.tau_ap_a(x, y5) == pytest.approx(0.6074515, abs=5e-8)
    assert lb.tau_b(x5, y5) == pytest.approx(0.75, abs=5e-8)
    assert lb.tau_ap_b(x5, y5) == pytest.approx(0.6269841, abs=5e-8)


def test_ircor_manual_example():
    """man/tauAP.Rd: tauAP and tauAP_a without ties, then y rounded to 1 place, then x too (R 3's round gave 0.4
    for 0.45 there), then the same as ranks."""
    x = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
    y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
    assert lb.tau_ap(x, y) == pytest.approx(0.3928571, abs=5e-8)
    assert lb.tau_ap_a(x, y) == pytest.approx(0.3928571, abs=5e-8)
    y1 = [0.5, 0.7, 0.3, 0.1, 0.1, 0.6, 0.9, 0.2, 0.4, 0.8]
    assert lb.tau_ap_a(x, y1) == pytest.approx(0.39903, abs=5e-6)
    assert lb.tau_ap_b(x, y1) == pytest.approx(0.3317019, abs=5e-8)
    x1 = [0.7, 0.4, 0.3, 0.1, 0.6, 0.2, 0.9, 0.8, 0.1, 0.5]
    assert lb.tau_ap_b(x1, y1) == pytest.approx(0.339418, abs=5e-7)
    assert lb.tau_ap_b(-lb.mid_ranks(x1), -lb.mid_ranks(y1)) == pytest.approx(0.339418, abs=5e-7)


# Ties -----------------------------------------------------------------------------------------------------------


@SETTINGS
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False) | st.sampled_from([0.125, 2.675, 0.45, -0.005, 1e-9, 0.5]),
                min_size=1, max_size=20), st.integers(0, 6))
def test_tied_decimals_is_the_printed_value(scores, decimals):
    assert lb.tied(scores, decimals=decimals).tolist() == ref.tied_decimals(scores, decimals)


def test_tied_decimals_at_halves_and_extremes():
    scores = [0.125, 0.375, 2.675, 1.005, -0.0001, 1e300, -1e300, 5e-324]
    assert lb.tied(scores, decimals=2).tolist() == ref.tied_decimals(scores, 2)
    assert lb.tied(scores, decimals=20).tolist() == ref.tied_decimals(scores, 20)
    assert lb.tied([0.1234, 0.1226], decimals=3).tolist() == [0.123, 0.123]
    assert math.copysign(1, lb.tied([-0.0001], decimals=2)[0]) == 1  # (no negative zero)


@SETTINGS
@given(st.lists(st.integers(0, 40).map(lambda value: value / 40), min_size=1, max_size=20),
       st.sampled_from([0.0, 0.01, 0.025, 0.05, 0.2]))
def test_tied_tolerance_is_the_reference_and_ignores_the_order(scores, tolerance):
    expected = ref.tied_tolerance(scores, tolerance)
    assert lb.tied(scores, tolerance=tolerance).tolist() == expected
    order = np.random.default_rng(len(scores)).permutation(len(scores))
    assert lb.tied(np.array(scores)[order], tolerance=tolerance).tolist() == list(np.array(expected)[order])


def test_tied_tolerance_does_not_chain_past_the_groups_first():
    # 0.295 and 0.29 are within 0.01 of 0.30; 0.285 is within 0.01 of 0.29 but not of 0.30: a new group
    assert lb.tied([0.285, 0.30, 0.29, 0.295], tolerance=0.01).tolist() == [0.285, 0.30, 0.30, 0.30]
    assert lb.tied([1.0, 2.0, 3.0], tolerance=0).tolist() == [1.0, 2.0, 3.0]
    assert lb.tied([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_ties_never_order_by_input():
    x = [0.5, 0.5, 0.2]
    assert lb.mid_ranks(x).tolist() == [1.5, 1.5, 3.0]
    assert lb.swapped_pairs(x, [0.4, 0.6, 0.1]) == 0
    assert lb.tau_b([0.50001, 0.5, 0.2], [0.5, 0.50001, 0.2]) < 1
    assert lb.tau_b(lb.tied([0.50001, 0.5, 0.2], decimals=3), lb.tied([0.5, 0.50001, 0.2], decimals=3)) == 1


@pytest.mark.parametrize('options', [{'decimals': 2, 'tolerance': 0.1}, {'decimals': -1}, {'decimals': 1.5},
                                     {'tolerance': -0.1}, {'tolerance': math.inf}, {'decimals': True}])
def test_tied_refuses_bad_options(options):
    with pytest.raises(MeasureParamError):
        lb.tied([0.1, 0.2], **options)


# Undefined cases and bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize('statistic', ['tau_a', 'tau_b', 'spearman', 'pearson', 'tau_ap', 'tau_ap_a', 'tau_ap_b'])
def test_one_system_is_nan_with_a_warning(statistic):
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match=f'^{statistic} is undefined.*two or more') as seen:
        assert math.isnan(getattr(lb, statistic)([0.3], [0.4]))
    assert len(seen) == 1


def test_one_system_for_the_rest():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert lb.rbo([0.3], [0.4]) == 1.0
        assert lb.swapped_pairs([0.3], [0.4]) == 0
        assert lb.top_k_overlap([0.3], [0.4], 10) == 1.0
        assert lb.largest_rank_change([0.3], [0.4]) == 0.0
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match='no systems'):
        assert math.isnan(lb.rbo([], []))


@pytest.mark.parametrize('statistic', ['tau_b', 'spearman', 'pearson', 'tau_ap_b'])
def test_a_constant_ranking_is_nan_with_a_warning(statistic):
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match=f'^{statistic} .*every system ties.* of y'):
        assert math.isnan(getattr(lb, statistic)([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]))
    with pytest.warns(UndefinedLeaderboardAgreementWarning) as seen:
        assert math.isnan(getattr(lb, statistic)([0.5, 0.5], [0.5, 0.5]))
    assert len(seen) == 1 and 'of x' in str(seen[0].message) and 'of y' in str(seen[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert lb.tau_a([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]) == 0


def test_tau_ap_with_ties():
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match='^tau_ap is undefined.*ranking of y has ties'):
        assert math.isnan(lb.tau_ap([0.1, 0.2, 0.3], [0.5, 0.5, 0.6]))
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match='^tau_ap_a is undefined.*of x, the reference'):
        assert math.isnan(lb.tau_ap_a([0.5, 0.5, 0.6], [0.1, 0.2, 0.3]))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert not math.isnan(lb.tau_ap_a([0.1, 0.2, 0.3], [0.5, 0.5, 0.6]))  # (ties in y only: defined)
        assert not math.isnan(lb.tau_ap_b([0.5, 0.5, 0.6], [0.5, 0.6, 0.6]))


@pytest.mark.parametrize('x, y', [([0.1, 0.2], [0.1]), ([0.1, math.nan], [0.1, 0.2]), ([[0.1]], [[0.2]]),
                                  (['a', 'b'], [0.1, 0.2])])
def test_bad_vectors(x, y):
    with pytest.raises(InputError):
        lb.tau_b(x, y)


@pytest.mark.parametrize('call', [lambda: lb.rbo([1, 2], [2, 1], p=1), lambda: lb.rbo([1, 2], [2, 1], p=0),
                                  lambda: lb.rbo([1, 2], [2, 1], ties='x'), lambda: lb.top_k_overlap([1], [1], 0)])
def test_bad_options(call):
    with pytest.raises(MeasureParamError):
        call()


# Tables ---------------------------------------------------------------------------------------------------------

SCORES = {  # judge → measure → run → value
    'crowd': {'P@10': {'r1': 0.52, 'r2': 0.41, 'r3': 0.41, 'r4': 0.30, 'r5': 0.66, 'r6': 0.25},
              'AP': {'r1': 0.312, 'r2': 0.2999, 'r3': 0.297, 'r4': 0.180, 'r5': 0.350, 'r6': 0.101}},
    'nist': {'P@10': {'r6': 0.21, 'r5': 0.70, 'r4': 0.33, 'r3': 0.47, 'r2': 0.40, 'r1': 0.55},
             'AP': {'r6': 0.120, 'r5': 0.301, 'r4': 0.185, 'r3': 0.3001, 'r2': 0.290, 'r1': 0.331}},
    'llm': {'P@10': {'r3': 0.60, 'r1': 0.60, 'r5': 0.60, 'r2': 0.35, 'r4': 0.45, 'r6': 0.20},
            'AP': {'r3': 0.250, 'r1': 0.300, 'r5': 0.330, 'r2': 0.240, 'r4': 0.210, 'r6': 0.150}},
}
RUNS = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']


def scores_frame(scores=SCORES) -> pd.DataFrame:
    return pd.DataFrame([(judge, run, measure, value) for judge, measures in scores.items()
                         for measure, runs in measures.items() for run, value in runs.items()],
                        columns=['judge', 'run', 'measure', 'value'])


def expected_row(measure, a, b, decimals, top_k=3, p=0.8):
    x = ref.tied_decimals([SCORES[a][measure][run] for run in RUNS], decimals)
    y = ref.tied_decimals([SCORES[b][measure][run] for run in RUNS], decimals)
    expected = {'tau_a': ref.tau_a(x, y), 'tau_b': scipy.stats.kendalltau(x, y).statistic,
                'spearman': scipy.stats.spearmanr(x, y).statistic, 'pearson': scipy.stats.pearsonr(x, y).statistic,
                'tau_ap': ref.tau_ap(x, y) if not ref.has_ties(x) and not ref.has_ties(y) else math.nan,
                'tau_ap_a': ref.tau_ap_a(x, y) if not ref.has_ties(x) else math.nan,
                'tau_ap_b': ref.tau_ap_b(x, y), 'rbo': ref.rbo(x, y, p, 'a'), 'swapped_pairs': ref.swapped_pairs(x, y),
                'top_k_overlap': ref.top_k_overlap(x, y, top_k), 'largest_rank_change': ref.largest_rank_change(x, y)}
    return {'measure': measure, 'judge_a': a, 'judge_b': b, 'systems': len(RUNS), **expected}


@pytest.mark.parametrize('reference, pairs', [(None, [('crowd', 'nist'), ('crowd', 'llm'), ('nist', 'llm')]),
                                              ('llm', [('llm', 'crowd'), ('llm', 'nist')])])
def test_leaderboard_agreement_end_to_end(reference, pairs):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        table = lb.leaderboard_agreement(scores_frame(), reference=reference, decimals=2, top_k=3, p=0.8)
    assert list(table.columns) == lb.AGREEMENT_COLUMNS
    expected = pd.DataFrame([expected_row(measure, a, b, 2) for measure in ('P@10', 'AP') for a, b in pairs])
    pd.testing.assert_frame_equal(table, expected, check_dtype=False, atol=1e-12, rtol=0)
    assert table['systems'].dtype == np.int64 and table['swapped_pairs'].dtype == np.int64
    # one warning per statistic and reason, naming the cases
    messages = [str(warning.message) for warning in seen if warning.category is UndefinedLeaderboardAgreementWarning]
    assert len(messages) == len(set(messages))
    assert all(message.startswith('leaderboard_agreement: tau_ap') for message in messages)
    assert any('P@10: ' in message for message in messages)


def test_leaderboard_agreement_ties_by_tolerance_and_without():
    frame = scores_frame()
    exact = quiet(lb.leaderboard_agreement, frame)
    assert exact.loc[(exact.measure == 'AP') & (exact.judge_b == 'nist'), 'tau_ap'].notna().all()  # (no AP ties)
    within = quiet(lb.leaderboard_agreement, frame, tolerance=0.0035)
    row = within[(within.measure == 'AP') & (within.judge_a == 'crowd') & (within.judge_b == 'nist')].iloc[0]
    # crowd's 0.2999 and 0.297 tie within 0.0035 of 0.2999; nist's 0.3001 and 0.301 (and 0.290 no: 0.011 below)
    x = ref.tied_tolerance([SCORES['crowd']['AP'][run] for run in RUNS], 0.0035)
    y = ref.tied_tolerance([SCORES['nist']['AP'][run] for run in RUNS], 0.0035)
    assert x.count(0.2999) == 2 and y.count(0.301) == 2
    assert row['tau_b'] == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    assert row['tau_ap_b'] == pytest.approx(ref.tau_ap_b(x, y), abs=1e-12)


def test_leaderboard_agreement_rbo_options():
    frame = scores_frame()
    table = quiet(lb.leaderboard_agreement, frame, decimals=1, p=0.5, rbo_ties='w', top_k=2)
    x = ref.tied_decimals([SCORES['crowd']['P@10'][run] for run in RUNS], 1)
    y = ref.tied_decimals([SCORES['nist']['P@10'][run] for run in RUNS], 1)
    assert table.loc[0, 'rbo'] == pytest.approx(ref.rbo(x, y, 0.5, 'w'), abs=1e-12)
    assert table.loc[0, 'top_k_overlap'] == pytest.approx(ref.top_k_overlap(x, y, 2), abs=1e-12)


def test_leaderboard_agreement_names_missing_runs():
    frame = scores_frame()
    frame = frame[~((frame.judge == 'nist') & (frame.measure == 'AP') & frame.run.isin(['r2', 'r5']))]
    with pytest.raises(InputError, match='AP: run.s. missing under judge nist: r2, r5 .every judge'):
        lb.leaderboard_agreement(frame)
    frame = frame[~((frame.judge == 'crowd') & (frame.measure == 'AP') & (frame.run == 'r6'))]
    with pytest.raises(InputError, match='missing under judge crowd: r6; under judge nist: r2, r5 '):
        lb.leaderboard_agreement(frame, reference='llm')


@pytest.mark.parametrize('change, message', [
    (lambda frame: frame[frame.judge == 'nist'], 'two or more judges'),
    (lambda frame: pd.concat([frame, frame.head(1)]), 'two values for judge crowd, run r1, measure P@10'),
    (lambda frame: frame.drop(columns='value'), 'lacks the column.s. value'),
    (lambda frame: frame.assign(value=frame.value.where(frame.index != 3, math.nan)), 'finite'),
])
def test_leaderboard_agreement_bad_frames(change, message):
    with pytest.raises(InputError, match=message):
        lb.leaderboard_agreement(change(scores_frame()))


def test_leaderboard_agreement_of_per_query_values():
    with pytest.raises(InputError, match='two values for judge a, run r0, measure nDCG@10; per-query values'):
        lb.leaderboard_agreement(per_query_frame(topics=2, runs=2))


def test_leaderboard_agreement_unknown_reference():
    with pytest.raises(InputError, match="reference 'trec' is not a judge"):
        lb.leaderboard_agreement(scores_frame(), reference='trec')


def test_rankings():
    table = lb.rankings(scores_frame(), decimals=1)
    assert list(table.columns) == lb.RANKINGS_COLUMNS
    llm = table[(table.measure == 'P@10') & (table.judge == 'llm')]
    assert llm['run'].tolist() == ['r1', 'r3', 'r5', 'r4', 'r2', 'r6']  # (the tied three as the frame first has them)
    assert llm['rank'].tolist() == [2.0, 2.0, 2.0, 4.0, 5.0, 6.0]
    assert llm['min_rank'].tolist() == [1, 1, 1, 4, 5, 6]
    assert llm['value'].tolist() == [0.6, 0.6, 0.6, 0.5, 0.3, 0.2]  # (0.45 and 0.35 printed: 0.5 and 0.3)
    assert len(table) == 3 * 2 * 6
    frame = scores_frame()
    partial = lb.rankings(frame[~((frame.judge == 'nist') & (frame.run == 'r5'))])  # (each judge ranks its runs)
    nist = partial[(partial.measure == 'AP') & (partial.judge == 'nist')]
    assert nist['run'].tolist() == ['r1', 'r3', 'r2', 'r4', 'r6'] and nist['rank'].tolist() == [1, 2, 3, 4, 5]
    for (measure, judge), group in table.groupby(['measure', 'judge'], sort=False):
        values = ref.tied_decimals([SCORES[judge][measure][run] for run in group['run']], 1)
        assert group['rank'].tolist() == ref.mid_ranks(values)


# Bootstrap ------------------------------------------------------------------------------------------------------


def per_query_frame(topics=30, runs=8, noise=0.15, seed=1) -> pd.DataFrame:
    """Two judges whose per-query values share each run's level, with independent noise."""
    rng = np.random.default_rng(seed)
    level = np.linspace(0.2, 0.8, runs)
    rows = [(judge, f'r{run}', 'nDCG@10', f'q{topic}', float(np.clip(level[run] + rng.normal(0, noise), 0, 1)))
            for judge in ('a', 'b') for run in range(runs) for topic in range(topics)]
    return pd.DataFrame(rows, columns=['judge', 'run', 'measure', 'query_id', 'value'])


def test_bootstrap_is_reproducible_and_contains_the_estimate():
    frame = per_query_frame()
    first = lb.bootstrap(frame, 'tau_b', n=500, seed=7)
    assert list(first.columns) == lb.BOOTSTRAP_COLUMNS
    pd.testing.assert_frame_equal(first, lb.bootstrap(frame, 'tau_b', n=500, seed=7))
    other = lb.bootstrap(frame, 'pearson', n=500, seed=8)
    assert not other.equals(lb.bootstrap(frame, 'pearson', n=500, seed=7))
    row = first.iloc[0]
    means = frame.groupby(['judge', 'run'], sort=False)['value'].mean()
    assert row['estimate'] == pytest.approx(scipy.stats.kendalltau(means['a'], means['b']).statistic, abs=1e-12)
    assert row['lower'] <= row['estimate'] <= row['upper'] <= 1
    assert (row['systems'], row['topics'], row['replicates'], row['undefined']) == (8, 30, 500, 0)


@pytest.mark.parametrize('statistic', lb.STATISTICS)
def test_bootstrap_of_identical_judges(statistic):
    frame = per_query_frame(runs=5)
    frame.loc[frame.judge == 'b', 'value'] = frame.loc[frame.judge == 'a', 'value'].to_numpy()
    table = quiet(lb.bootstrap, frame, statistic, n=50)
    row = table.iloc[0]
    if statistic not in ('tau_ap', 'tau_ap_a'):  # (those two may meet ties in a replicate)
        assert row['lower'] == pytest.approx(row['upper']) and row['lower'] == pytest.approx(row['estimate'])


def test_bootstrap_replicate_is_the_documented_resample():
    """One replicate: the topics drawn by numpy's generator from the seed, each run's mean over them."""
    frame = per_query_frame(topics=12, runs=6, noise=0.3)
    table = lb.bootstrap(frame, 'tau_ap_b', n=1, seed=3, decimals=2)
    draw = np.random.default_rng(3).integers(0, 12, size=(1, 12))[0]
    means = {judge: [float(np.mean([frame[(frame.judge == judge) & (frame.run == f'r{run}')
                                          & (frame.query_id == f'q{topic}')]['value'].iloc[0] for topic in draw]))
                     for run in range(6)] for judge in ('a', 'b')}
    expected = ref.tau_ap_b(*(ref.tied_decimals(means[judge], 2) for judge in ('a', 'b')))
    assert table.loc[0, 'lower'] == pytest.approx(expected, abs=1e-12)
    assert table.loc[0, 'upper'] == pytest.approx(expected, abs=1e-12)


def test_bootstrap_warns_about_undefined_replicates():
    # two runs, two topics: a replicate drawing both topics ties the runs (τ_b undefined), as does the estimate
    rows = [(judge, run, 'P@5', topic, value) for judge in ('a', 'b')
            for run, values in (('r1', (1.0, 0.0)), ('r2', (0.0, 1.0))) for topic, value in zip(('q1', 'q2'), values,
                                                                                                 strict=True)]
    frame = pd.DataFrame(rows, columns=['judge', 'run', 'measure', 'query_id', 'value'])
    with pytest.warns(UndefinedLeaderboardAgreementWarning) as seen:
        table = lb.bootstrap(frame, 'tau_b', n=200)
    messages = ' '.join(str(warning.message) for warning in seen)
    assert 'every system ties' in messages and 'undefined in some replicates' in messages
    row = table.iloc[0]
    assert math.isnan(row['estimate']) and 0 < row['undefined'] < 200
    assert row['lower'] == row['upper'] == 1.0  # (the defined replicates: the same topic drawn twice)


def test_bootstrap_names_missing_topics():
    frame = per_query_frame(topics=5, runs=3)
    frame = frame[~((frame.judge == 'b') & (frame.run == 'r1') & frame.query_id.isin(['q2', 'q4']))]
    with pytest.raises(InputError, match='judge b, run r1 has no value for topic.s. q2, q4'):
        lb.bootstrap(frame)


@pytest.mark.parametrize('options', [{'statistic': 'kendall'}, {'n': 0}, {'level': 1.0}, {'p': 1.5}])
def test_bootstrap_bad_options(options):
    with pytest.raises(MeasureParamError):
        lb.bootstrap(per_query_frame(topics=3, runs=3), **options)


def test_pairs_in_order_of_appearance():
    frame = scores_frame()
    table = quiet(lb.leaderboard_agreement, frame)
    assert list(zip(table.judge_a, table.judge_b, strict=True)) == list(itertools.chain.from_iterable(
        [[('crowd', 'nist'), ('crowd', 'llm'), ('nist', 'llm')]] * 2))
    assert table.measure.tolist() == ['P@10'] * 3 + ['AP'] * 3


# Found by mutation testing (tests/MUTANTS.md, issue 46's kernels) -----------------------------------------------


def test_tied_and_mid_ranks_refusals_say_what_is_wrong_whole():
    with pytest.raises(InputError, match=r'^tied: expected a vector of scores; got array\(3\.\)$'):
        lb.tied(3.0)
    for function in (lb.tied, lb.mid_ranks):
        with pytest.raises(InputError, match=r'^scores: expected numbers \('):
            function(['a', 'b'])
    with pytest.raises(MeasureParamError, match='^tied: give decimals or tolerance, not both$'):
        lb.tied([0.1, 0.2], decimals=2, tolerance=0.1)
    with pytest.raises(MeasureParamError, match='^tied: decimals must be an integer from 0; got -1$'):
        lb.tied([0.1, 0.2], decimals=-1)
    for tolerance in (-0.1, '0.1'):  # (a string is refused as such, not compared)
        with pytest.raises(MeasureParamError, match=f'^tied: tolerance must be a finite number from 0; got '
                                                    f'{re.escape(repr(tolerance))}$'):
            lb.tied([0.1, 0.2], tolerance=tolerance)


def test_tied_tolerance_takes_exactly_four_units_in_the_last_place():
    # the unit in the last place of 1.0 is 2**-52; below 1.0 the doubles are 2**-53 apart
    four_units_below, four_and_a_half_below = 1 - 8 * 2 ** -53, 1 - 9 * 2 ** -53
    assert lb.tied([four_units_below, 1.0], tolerance=0).tolist() == [1.0, 1.0]
    assert lb.tied([four_and_a_half_below, 1.0], tolerance=0).tolist() == [four_and_a_half_below, 1.0]


def test_largest_rank_change_without_systems_is_nan_with_a_warning():
    with pytest.warns(UndefinedLeaderboardAgreementWarning, match='^largest_rank_change is undefined.*no systems'):
        assert math.isnan(lb.largest_rank_change([], []))


@pytest.mark.parametrize('statistic', ['tau_ap_a', 'largest_rank_change'])
def test_bootstrap_replicates_are_each_their_own(statistic):
    """Three replicates, each the reference statistic on its own draw's means: the interval is their quantiles."""
    frame = per_query_frame(topics=10, runs=6, noise=0.6)
    values = np.array([[[frame[(frame.judge == judge) & (frame.run == f'r{run}') & (frame.query_id == f'q{topic}')]
                         ['value'].iloc[0] for topic in range(10)] for run in range(6)] for judge in ('a', 'b')])
    draws = np.random.default_rng(5).integers(0, 10, size=(3, 10))
    replicates = [getattr(ref, statistic)(*(values[judge][:, draw].mean(axis=1).tolist() for judge in (0, 1)))
                  for draw in draws]
    assert len(set(replicates)) > 1
    row = lb.bootstrap(frame, statistic, n=3, seed=5, level=0.5).iloc[0]
    assert [row['lower'], row['upper']] == pytest.approx(np.quantile(replicates, [0.25, 0.75]).tolist(), abs=1e-12)


def test_a_ranking_with_every_system_tied_is_named():
    for statistic in ('tau_b', 'spearman', 'pearson', 'tau_ap_b'):
        with pytest.warns(UndefinedLeaderboardAgreementWarning) as seen:
            assert math.isnan(getattr(lb, statistic)([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]))
        assert [str(warning.message) for warning in seen] == [
            f'{statistic} is undefined (NaN): every system ties in the ranking of x']


def test_pearson_stays_within_minus_one_and_one():
    # y is x scaled and shifted (rounded): unclipped, the rounding of the sums makes r 1 + 2**-52
    x = [1.3203609870818391, 0.6333526228249152, -2.2035098806466507]
    y = [9.342526909572873, 4.533468359774406, -15.324569164526554]
    assert scipy.stats.pearsonr(x, y).statistic == pytest.approx(1, abs=1e-12)
    assert lb.pearson(x, y) == 1.0
    assert lb.pearson(x, [-value for value in y]) == -1.0


def test_bootstrap_scales_each_replicate_on_its_own():
    """Values 1e200 apart between topics: a replicate drawing only the small topic has means ~1e-200, still
    ranked and correlated (scaled by the largest of all replicates, their squares would underflow to 0)."""
    values = {'r0': (1e200, 1e-200), 'r1': (2e200, 3e-200), 'r2': (3e200, 2e-200)}
    frame = pd.DataFrame([(judge, run, 'm', f'q{topic}', pair[topic]) for judge in ('a', 'b')
                          for run, pair in values.items() for topic in (0, 1)],
                         columns=['judge', 'run', 'measure', 'query_id', 'value'])
    draws = np.random.default_rng(0).integers(0, 2, size=(40, 2))
    assert (draws == 1).all(axis=1).any()  # (a replicate of the small topic only)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        row = lb.bootstrap(frame, 'pearson', n=40).iloc[0]
    assert (row['undefined'], row['lower'], row['upper']) == (0, 1.0, 1.0)
