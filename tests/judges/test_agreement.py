"""Agreement between judgement sets (irmeasures_ext.judges.agreement; issue 46, part 2).

Each kernel against its oracle on drawn labels with ties and missing judgements (NaN): Cohen's κ against
scikit-learn's ``cohen_kappa_score``, Fleiss' κ against statsmodels, Krippendorff's α against the ``krippendorff``
package, Pearson and Spearman against scipy; small cases worked by hand; the undefined cases (NaN with an
UndefinedAgreementWarning) and bad input (InputError). Then ``agreement()`` and ``confusion()`` end to end, against
the oracles applied to the pairs as the module defines them, aligned here plainly with dicts.
"""
import math
import re
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sklearn_confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from irmeasures_ext.errors import InputError, IrMeasuresExtWarning, UndefinedAgreementWarning
from irmeasures_ext.judges.agreement import (
    agreement,
    cohen_kappa,
    confusion,
    confusion_matrix,
    fleiss_kappa,
    krippendorff_alpha,
    pearson,
    spearman,
)

NAN = math.nan
WEIGHTS = [None, 'linear', 'quadratic']
LEVELS = ['nominal', 'ordinal', 'interval']
STATISTICS = ['kappa', 'kappa_linear', 'kappa_quadratic', 'fleiss_kappa', 'alpha_nominal', 'alpha_ordinal',
              'alpha_interval', 'pearson', 'spearman']

# Few values, so that ties are frequent; whole numbers only, or real ones too; NaN: not judged.
WHOLE = st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.0])
REAL = st.sampled_from([0.0, 1.0, 2.0, 0.35, 0.5, 2.5, -1.5])
LABELS = st.sampled_from([WHOLE, REAL])


def maybe(labels):
    return st.one_of(labels, labels, labels, st.just(NAN))


def same(ours, theirs):
    """Both undefined (NaN), or equal to 1e-12."""
    if math.isnan(theirs):
        return math.isnan(ours)
    return abs(ours - theirs) <= 1e-12


def quietly(function, *args, **kwargs):
    """An oracle's value, NaN where it has none (it raises, or warns and returns NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            return float(function(*args, **kwargs))
        except (ValueError, AssertionError):
            return NAN


def with_both(a, b):
    """The pairs of labels both given, as two lists."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not (math.isnan(x) or math.isnan(y))]
    return [x for x, _ in pairs], [y for _, y in pairs]


def as_classes(a, b):
    """The pairs of labels both given; real labels as their index among the sorted labels (scikit-learn takes
    them for a regression's targets; κ's weights use the indices anyway)."""
    a, b = with_both(a, b)
    if any(not float(label).is_integer() for label in a + b):
        categories = sorted(set(a) | set(b))
        a, b = [categories.index(x) for x in a], [categories.index(y) for y in b]
    return a, b


def sklearn_kappa(a, b, weights=None):
    a, b = as_classes(a, b)
    return quietly(cohen_kappa_score, a, b, weights=weights) if a else NAN


def statsmodels_fleiss(items):
    """statsmodels' Fleiss' κ of the items (rows) every rater labelled."""
    complete = [row for row in items if not any(math.isnan(label) for label in row)]
    if not complete or len(complete[0]) < 2:
        return NAN
    return quietly(lambda: statsmodels_fleiss_kappa(aggregate_raters(np.array(complete))[0]))


def sklearn_table(a, b, labels):
    """scikit-learn's confusion matrix (which warns of a table of one label, asked for here)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        return sklearn_confusion_matrix(a, b, labels=labels).tolist()


def krippendorff_oracle(rows, level):
    return quietly(krippendorff.alpha, reliability_data=np.array(rows, dtype=float), level_of_measurement=level)


def scipy_correlation(test, a, b):
    a, b = with_both(a, b)
    return quietly(lambda: test(a, b).statistic)


def undefined_or_value(compute):
    """``compute()``, and whether it warned UndefinedAgreementWarning (exactly when it is NaN)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        value = compute()
    assert all(issubclass(warning.category, UndefinedAgreementWarning) for warning in caught), caught
    assert len(caught) == math.isnan(value), (value, [str(warning.message) for warning in caught])
    return value


# The kernels against their oracles.

pairs_of_labels = LABELS.flatmap(lambda labels: st.lists(st.tuples(maybe(labels), maybe(labels)), max_size=40))


@given(pairs_of_labels)
def test_cohen_kappa_is_scikit_learns(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    for weights in WEIGHTS:
        ours = undefined_or_value(lambda weights=weights: cohen_kappa(a, b, weights))
        assert same(ours, sklearn_kappa(a, b, weights)), weights


@given(pairs_of_labels)
def test_confusion_matrix_is_scikit_learns(pairs):
    categories, counts = confusion_matrix([x for x, _ in pairs], [y for _, y in pairs])
    a, b = with_both([x for x, _ in pairs], [y for _, y in pairs])
    assert categories.tolist() == sorted(set(a) | set(b))
    a, b = as_classes(a, b)
    if a:
        classes = sorted(set(a) | set(b))
        assert counts.tolist() == sklearn_table(a, b, classes)
    else:
        assert counts.shape == (0, 0)


@st.composite
def label_matrices(draw):
    """Raters × items, NaN where a rater gave no label."""
    labels, raters, items = draw(LABELS), draw(st.integers(1, 4)), draw(st.integers(0, 25))
    return np.array([[draw(maybe(labels)) for _ in range(items)] for _ in range(raters)]).reshape(raters, items)


@given(label_matrices())
def test_fleiss_kappa_is_statsmodels(labels):
    items = labels.T.tolist()
    assert same(undefined_or_value(lambda: fleiss_kappa(labels.T)), statsmodels_fleiss(items))


@given(label_matrices(), st.sampled_from(LEVELS))
def test_krippendorff_alpha_is_the_krippendorff_packages(labels, level):
    ours = undefined_or_value(lambda: krippendorff_alpha(labels, level))
    assert same(ours, krippendorff_oracle(labels.tolist(), level))


@pytest.mark.parametrize('seed', range(4))
@pytest.mark.parametrize('level', LEVELS)
def test_krippendorff_alpha_on_many_distinct_real_labels(seed, level):
    """Real labels, about as many values as labels (the counts of a label per item are not tabulated)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(80)
    rows = np.vstack([truth + rng.normal(0, 0.2, 80) for _ in range(3)]).round(3)
    rows[rng.random(rows.shape) < 0.2] = np.nan
    assert same(krippendorff_alpha(rows, level), krippendorff_oracle(rows, level))


@given(pairs_of_labels)
def test_pearson_and_spearman_are_scipys(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    assert same(undefined_or_value(lambda: pearson(a, b)), scipy_correlation(scipy.stats.pearsonr, a, b))
    assert same(undefined_or_value(lambda: spearman(a, b)), scipy_correlation(scipy.stats.spearmanr, a, b))


@given(label_matrices(), st.data())
def test_counts_stand_for_repeated_items(labels, data):
    """A kernel's value with ``counts`` is its value on the items repeated so many times."""
    counts = np.array(data.draw(st.lists(st.integers(1, 3), min_size=labels.shape[1], max_size=labels.shape[1])),
                      dtype=int)

    def both(kernel, *args):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UndefinedAgreementWarning)
            return kernel(*args, counts=counts), kernel(*(np.repeat(arg, counts, axis=-1) if isinstance(arg, np.ndarray)
                                                           else arg for arg in args))

    for level in LEVELS:
        assert same(*both(krippendorff_alpha, labels, level))
    assert same(*both(lambda labels, counts=None: fleiss_kappa(labels.T, counts), labels))
    if len(labels) >= 2:
        for weights in WEIGHTS:
            assert same(*both(cohen_kappa, labels[0], labels[1], weights))
        assert same(*both(pearson, labels[0], labels[1]))
        assert same(*both(spearman, labels[0], labels[1]))
        (_, weighted), (_, plain) = both(confusion_matrix, labels[0], labels[1])
        assert weighted.tolist() == plain.tolist()


# Small cases worked by hand.

def test_cohen_kappa_of_a_two_by_two_table():
    # Rows a, columns b: [[4, 1], [2, 3]] of 10 items. p_o = 7/10; a's margins 5, 5, b's 6, 4:
    # p_e = (5·6 + 5·4)/100 = 1/2; κ = (7/10 − 1/2)/(1 − 1/2) = 2/5.
    a = [0] * 4 + [0] + [1] * 2 + [1] * 3
    b = [0] * 4 + [1] + [0] * 2 + [1] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-15)
    categories, counts = confusion_matrix(a, b)
    assert categories.tolist() == [0, 1] and counts.tolist() == [[4, 1], [2, 3]]


def test_weighted_cohen_kappa_by_hand_and_on_category_indices():
    # Pairs (0, 0), (1, 2), (2, 1), (2, 2): o = [[1,0,0],[0,0,1],[0,1,1]], both margins (1, 1, 2), N = 4,
    # e_ij = r_i·c_j/4 = [[1,1,2],[1,1,2],[2,2,4]]/4.
    # unweighted: Σ w·o = 2, Σ w·e = 4 − (1 + 1 + 4)/4 = 5/2: κ = 1 − 2/(5/2) = 1/5;
    # linear |i − j|: Σ w·o = 2, Σ w·e = 2·(1/4 + 2·2/4 + 2/4) = 7/2: κ = 1 − 4/7 = 3/7;
    # quadratic (i − j)²: Σ w·o = 2, Σ w·e = 2·(1/4 + 4·2/4 + 2/4) = 11/2: κ = 1 − 4/11 = 7/11.
    a, b = [0, 1, 2, 2], [0, 2, 1, 2]
    for weights, value in [(None, 1 / 5), ('linear', 3 / 7), ('quadratic', 7 / 11)]:
        assert cohen_kappa(a, b, weights) == pytest.approx(value, abs=1e-15)
        # The weights use the indices of the categories: labels 0, 1, 5 are one step apart each.
        assert cohen_kappa([0, 1, 5, 5], [0, 5, 1, 5], weights) == pytest.approx(value, abs=1e-15)
        assert cohen_kappa_score([0, 1, 5, 5], [0, 5, 1, 5], weights=weights) == pytest.approx(value, abs=1e-15)


def test_fleiss_kappa_by_hand():
    # Items × raters [[0, 0], [1, 1], [0, 1]]: P_i = 1, 1, 0, P̄ = 2/3; p = (1/2, 1/2), P_e = 1/2;
    # κ = (2/3 − 1/2)/(1 − 1/2) = 1/3. An item a rater did not label (NaN) is left out.
    assert fleiss_kappa([[0, 0], [1, 1], [0, 1]]) == pytest.approx(1 / 3, abs=1e-15)
    assert fleiss_kappa([[0, 0], [1, 1], [0, 1], [1, NAN]]) == pytest.approx(1 / 3, abs=1e-15)


def test_krippendorff_alpha_by_hand():
    # Two sets, items (0, 0), (1, 1), (1, 0): n = 6 pairable labels, three 0s and three 1s.
    # D_o = (o_01 + o_10)/n = 2/6; D_e = 2·3·3/(6·5) = 3/5; α = 1 − (1/3)/(3/5) = 4/9, at every level (two values).
    # A fourth item labelled by one set only has no pair: it changes nothing.
    for level in LEVELS:
        assert krippendorff_alpha([[0, 1, 1], [0, 1, 0]], level) == pytest.approx(4 / 9, abs=1e-15)
        assert krippendorff_alpha([[0, 1, 1, 3], [0, 1, 0, NAN]], level) == pytest.approx(4 / 9, abs=1e-15)
    # Items (0, 0), (1, 2), (2, 2): labels 0, 0, 1, 2, 2, 2.
    # interval: D_o = (1/6)·(2·1²/1) = 1/3; Σ_{i≠j} (v_i − v_j)² = 2·(2·1 + 6·4 + 3·1) = 58, D_e = 58/30:
    #   α = 1 − 10/58 = 24/29.
    # nominal: D_o = (1/6)·2 = 1/3; D_e = (6² − (2² + 1² + 3²))/30 = 22/30: α = 1 − 10/22 = 6/11.
    # ordinal: δ(0, 1) = (2 + 1 − (2 + 1)/2)² = 1.5², δ(1, 2) = (1 + 3 − 2)² = 2², δ(0, 2) = (2 + 1 + 3 − 2.5)² = 3.5²
    #   (the average ranks 1.5, 3, 5 apart): D_o = (1/6)·2·4 = 4/3; Σ_{i≠j} δ = 2·(2·2.25 + 6·12.25 + 3·4) = 180,
    #   D_e = 180/30 = 6: α = 1 − (4/3)/6 = 7/9.
    labels = [[0, 1, 2], [0, 2, 2]]
    for level, value in [('interval', 24 / 29), ('nominal', 6 / 11), ('ordinal', 7 / 9)]:
        assert krippendorff_alpha(labels, level) == pytest.approx(value, abs=1e-15)


def test_correlations_by_hand():
    # a − ā = (−1, 0, 1), b − b̄ = (−1, 1, 0): r = 1/(√2·√2) = 1/2 (the labels are their own ranks).
    assert pearson([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5, abs=1e-15)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5, abs=1e-15)
    # Tied labels take their average rank: a's ranks 1.5, 1.5, 3 (− mean: −.5, −.5, 1), b's 1, 2, 3 (−1, 0, 1):
    # ρ = 1.5/√(1.5·2) = √3/2. A pair with a NaN is left out.
    assert spearman([1, 1, 2, NAN], [10, 20, 30, 40]) == pytest.approx(math.sqrt(3) / 2, abs=1e-15)


# Undefined values and bad input.

@pytest.mark.parametrize('compute, statistic, reason', [
    (lambda: cohen_kappa([], []), "Cohen's κ", 'no item has labels of both sets'),
    (lambda: cohen_kappa([1, NAN], [NAN, 2]), "Cohen's κ", 'no item has labels of both sets'),
    (lambda: cohen_kappa([2, 2, NAN], [2, 2, 1], 'linear'), "Cohen's κ", 'every label is the same'),
    (lambda: fleiss_kappa([[1], [2]]), "Fleiss' κ", 'two raters or more'),
    (lambda: fleiss_kappa([[1, NAN], [NAN, 2]]), "Fleiss' κ", 'no item has labels of every set'),
    (lambda: fleiss_kappa([[1, 1], [1, 1]]), "Fleiss' κ", 'every label is the same'),
    (lambda: krippendorff_alpha([[1, NAN], [NAN, 2]], 'interval'), "Krippendorff's α", 'no item has labels of two'),
    (lambda: krippendorff_alpha([[1, 1, 5], [1, 1, NAN]], 'nominal'), "Krippendorff's α", 'every label is the same'),
    (lambda: krippendorff_alpha([[0.5, 0.5], [0.5, 0.5]], 'ordinal'), "Krippendorff's α", 'every label is the same'),
    (lambda: pearson([1], [2]), "Pearson's r", 'fewer than two items'),
    (lambda: pearson([0.1, 0.1, 0.1], [1, 2, 3]), "Pearson's r", 'all the same'),
    (lambda: spearman([1, 2, 3], [4, 4, 4]), "Spearman's ρ", 'all the same'),
    (lambda: spearman([1, NAN, 3], [4, 5, NAN]), "Spearman's ρ", 'fewer than two items'),
])
def test_an_undefined_value_is_nan_with_a_warning_naming_the_statistic_and_why(compute, statistic, reason):
    with pytest.warns(UndefinedAgreementWarning, match=f'^{statistic} is undefined: .*{reason}') as caught:
        assert math.isnan(compute())
    assert len(caught) == 1 and caught[0].filename == __file__  # (it points at the call)


@pytest.mark.parametrize('compute, message', [
    (lambda: cohen_kappa([1], [1], 'cubic'), 'weights must be'),
    (lambda: krippendorff_alpha([[1, 2]], 'ratio'), 'level must be'),
    (lambda: cohen_kappa([1, 2], [1]), 'the same items'),
    (lambda: pearson([[1, 2]], [[1, 2]]), '1-dimensional'),
    (lambda: fleiss_kappa([1, 2]), '2-dimensional'),
    (lambda: spearman(['a', 'b'], [1, 2]), 'must be numbers'),
    (lambda: krippendorff_alpha([[1, math.inf], [1, 2]]), 'infinite'),
    (lambda: pearson([1, 2], [1, 2], counts=[1, 0]), 'counts must be whole numbers >= 1'),
    (lambda: fleiss_kappa([[1, 2]], counts=[1.5]), 'counts must be whole numbers >= 1'),
    (lambda: krippendorff_alpha([[1, 2]], counts=[1]), 'one per item'),
])
def test_bad_input_is_an_input_error(compute, message):
    with pytest.raises(InputError, match=message):
        compute()


# agreement() and confusion(), against the oracles on pairs aligned here with dicts.

def judged_by_judge(frame):
    """{judge: {(query_id, doc_id): label}}, judges in the order they first appear."""
    judged = {}
    for judge, query_id, doc_id, label in frame[['judge', 'query_id', 'doc_id', 'relevance']].itertuples(index=False):
        judged.setdefault(str(judge), {})[(str(query_id), str(doc_id))] = float(label)
    return judged


def expected_row(judged, judges, query=None, binned=None):
    """The counts and statistics of the sets ``judges`` as the module defines them: on the queries every one of
    them judged (or ``query`` alone), the docs all judged (shared), the docs one judged and not the other, α over
    every doc of those queries some set judged. ``binned``: {judge: {unit: category}} for the categorical ones."""
    queries = set.intersection(*({q for q, _ in judged[judge]} for judge in judges))
    if query is not None:
        queries &= {query}
    units = sorted({unit for judge in judges for unit in judged[judge] if unit[0] in queries})
    shared = [unit for unit in units if all(unit in judged[judge] for judge in judges)]
    categories = binned if binned is not None else judged
    categorical = all(float(label).is_integer() for judge in judges for label in categories[judge].values())
    row = dict.fromkeys(STATISTICS, NAN)
    row['shared'] = len(shared)
    pair = len(judges) == 2
    if pair:
        a, b = judges
        row['only_a'] = sum(unit in judged[a] and unit not in judged[b] for unit in units)
        row['only_b'] = sum(unit in judged[b] and unit not in judged[a] for unit in units)
        raw_a, raw_b = [judged[a][unit] for unit in shared], [judged[b][unit] for unit in shared]
        row['pearson'] = scipy_correlation(scipy.stats.pearsonr, raw_a, raw_b)
        row['spearman'] = scipy_correlation(scipy.stats.spearmanr, raw_a, raw_b)
    if categorical:
        if pair:
            cat_a, cat_b = [categories[a][unit] for unit in shared], [categories[b][unit] for unit in shared]
            for column, weights in zip(STATISTICS[:3], WEIGHTS, strict=True):
                row[column] = sklearn_kappa(cat_a, cat_b, weights)
        row['fleiss_kappa'] = statsmodels_fleiss([[categories[judge][unit] for judge in judges] for unit in shared])
        row['alpha_nominal'] = krippendorff_oracle(
            [[categories[judge].get(unit, NAN) for unit in units] for judge in judges], 'nominal')
    for level in ('ordinal', 'interval'):
        row[f'alpha_{level}'] = krippendorff_oracle(
            [[judged[judge].get(unit, NAN) for unit in units] for judge in judges], level)
    return row


def expected_rows(frame, per_query=False, binned=None):
    judged = judged_by_judge(frame)
    names = list(judged)
    members = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]] + ([tuple(names)] if len(names) > 2 else [])
    query_order = list(dict.fromkeys(frame['query_id'].astype(str)))
    rows = []
    for judges in members:
        label = judges if len(judges) == 2 else ('all', 'all')
        if not per_query:
            rows.append({'judge_a': label[0], 'judge_b': label[1], **expected_row(judged, judges, binned=binned)})
            continue
        common = set.intersection(*({q for q, _ in judged[judge]} for judge in judges))
        for query in (q for q in query_order if q in common):
            rows.append({'judge_a': label[0], 'judge_b': label[1], 'query_id': query,
                         **expected_row(judged, judges, query, binned)})
    return rows


def assert_rows(got, expected):
    assert len(got) == len(expected)
    for (_, row), wanted in zip(got.iterrows(), expected, strict=True):
        for column in ['judge_a', 'judge_b', 'query_id']:
            if column in wanted:
                assert row[column] == wanted[column]
        assert row['shared'] == wanted['shared']
        for column in ['only_a', 'only_b']:
            assert row[column] == wanted[column] if column in wanted else row[column] is pd.NA
        for column in STATISTICS:
            assert same(row[column], wanted[column]), (column, row[column], wanted[column], wanted)


def frame_of(judgements):
    """A judgements frame of {judge: {query_id: {doc_id: label}}}."""
    return pd.DataFrame([(judge, query_id, doc_id, label) for judge, queries in judgements.items()
                         for query_id, docs in queries.items() for doc_id, label in docs.items()],
                        columns=['judge', 'query_id', 'doc_id', 'relevance'])


# Three sets: 'c' did not judge query 3, 'a' judged doc e of query 1 alone, query 4 is a's alone.
SMALL = frame_of({
    'a': {'1': {'a': 0, 'b': 1, 'c': 2, 'd': 3, 'e': 1}, '2': {'f': 0, 'g': 2, 'h': 1}, '3': {'i': 3, 'j': 0},
          '4': {'k': 1}},
    'b': {'1': {'a': 0, 'b': 2, 'c': 2, 'd': 3}, '2': {'f': 1, 'g': 2, 'h': 0, 'x': 3}, '3': {'i': 2, 'j': 0}},
    'c': {'1': {'a': 1, 'b': 1, 'c': 3, 'd': 3}, '2': {'f': 0, 'g': 1, 'h': 1}},
})


def test_agreement_of_three_sets():
    got = agreement(SMALL)
    assert list(got.columns) == ['judge_a', 'judge_b', 'shared', 'only_a', 'only_b', *STATISTICS]
    assert [tuple(pair) for pair in got[['judge_a', 'judge_b']].to_numpy()] == [
        ('a', 'b'), ('a', 'c'), ('b', 'c'), ('all', 'all')]
    assert got[['shared', 'only_a', 'only_b']].iloc[0].tolist() == [9, 1, 1]  # (query 4 is not b's)
    assert got[['shared', 'only_a', 'only_b']].iloc[1].tolist() == [7, 1, 0]  # (query 3 is not c's)
    assert_rows(got, expected_rows(SMALL))
    assert not got.loc[got['judge_a'] != 'all', STATISTICS].isna().any().any()


def test_agreement_per_query():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        got = agreement(SMALL, per_query=True)
    assert list(got.columns) == ['judge_a', 'judge_b', 'query_id', 'shared', 'only_a', 'only_b', *STATISTICS]
    assert_rows(got, expected_rows(SMALL, per_query=True))
    # One warning per statistic and reason, naming the rows: query 3's labels 0 and 2 | 0 and 3 for a and b.
    messages = [str(warning.message) for warning in caught]
    assert all(issubclass(warning.category, UndefinedAgreementWarning) for warning in caught)
    assert len(messages) == len(set(messages))


def test_the_mapping_form_is_the_frame_form():
    judgements = {judge: part[['query_id', 'doc_id', 'relevance']] for judge, part in SMALL.groupby('judge')}
    pd.testing.assert_frame_equal(agreement(judgements), agreement(SMALL))


def test_agreement_of_many_docs_with_few_labels():
    """Few distinct labels over many docs (the statistics then take each distinct combination of labels once, with
    its count): the same values."""
    rng = np.random.default_rng(46)
    truth = rng.integers(0, 3, 300)
    frame = pd.concat([pd.DataFrame({'judge': judge, 'query_id': [f'q{i % 7}' for i in range(300)],
                                     'doc_id': [f'd{i}' for i in range(300)],
                                     'relevance': np.where(rng.random(300) < 0.7, truth, rng.integers(0, 3, 300))})
                       .sample(frac=0.9, random_state=seed) for seed, judge in enumerate(['x', 'y', 'z'])])
    assert_rows(agreement(frame), expected_rows(frame))
    assert_rows(agreement(frame, per_query=True), expected_rows(frame, per_query=True))
    # z's labels real-valued, binned by cut points 0.5 and 1.5 (the binned labels are taken once per combination).
    frame['relevance'] = frame['relevance'].astype(float)
    frame.loc[frame['judge'] == 'z', 'relevance'] += np.round(rng.normal(0, 0.3, (frame['judge'] == 'z').sum()), 2)
    judged = judged_by_judge(frame)
    binned = {judge: {unit: float(sum(label >= cut for cut in (0.5, 1.5))) if judge == 'z' else label
                      for unit, label in units.items()} for judge, units in judged.items()}
    assert_rows(agreement(frame, binning={'z': [0.5, 1.5]}), expected_rows(frame, binned=binned))


@st.composite
def judgement_frames(draw):
    labels = draw(LABELS)
    judges = draw(st.lists(st.sampled_from(['trec', 'llm', 'x', '7']), min_size=2, max_size=4, unique=True))
    rows = []
    for judge in judges:
        for query in draw(st.lists(st.sampled_from(['1', '2', '10']), min_size=1, max_size=3, unique=True)):
            for doc in draw(st.lists(st.sampled_from('abcdef'), min_size=1, max_size=6, unique=True)):
                rows.append((judge, query, doc, draw(labels)))
    return pd.DataFrame(rows, columns=['judge', 'query_id', 'doc_id', 'relevance'])


@settings(max_examples=30, deadline=None)
@given(judgement_frames(), st.booleans())
def test_agreement_of_drawn_sets_is_the_oracles(frame, per_query):
    judged = judged_by_judge(frame)
    queries = {judge: {q for q, _ in units} for judge, units in judged.items()}
    if any(not queries[a] & queries[b] for a in queries for b in queries):
        with pytest.raises(InputError, match='share no query'):
            agreement(frame, per_query=per_query)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        got = agreement(frame, per_query=per_query)
    assert_rows(got, expected_rows(frame, per_query))
    undefined = [warning for warning in caught if issubclass(warning.category, UndefinedAgreementWarning)]
    messages = [str(warning.message) for warning in undefined]
    assert len(messages) == len(set(messages))
    if got.loc[got['judge_a'] != 'all', ['alpha_ordinal', 'pearson']].isna().any().any():
        assert any('is undefined in' in message for message in messages)


# Real-valued labels, binning, scales.

REAL_SETS = frame_of({
    'qrels': {'1': {'a': 0, 'b': 1, 'c': 3, 'd': 2}, '2': {'e': 0, 'f': 2, 'g': 1}},
    'llm': {'1': {'a': 0.1, 'b': 0.5, 'c': 0.9, 'd': 0.75}, '2': {'e': 0.2, 'f': 0.6, 'g': 0.3}},
    'llm2': {'1': {'a': 0.3, 'b': 0.25, 'c': 0.8, 'd': 0.7}, '2': {'e': 0.1, 'f': 0.9, 'g': 0.55}},
})


def test_real_labels_without_binning_make_kappa_nan_with_one_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        got = agreement(REAL_SETS)
    undefined = [str(w.message) for w in caught if issubclass(w.category, UndefinedAgreementWarning)]
    assert len(undefined) == 1
    assert "judges 'llm', 'llm2' have real-valued labels" in undefined[0] and 'binning=' in undefined[0]
    assert got[['kappa', 'kappa_linear', 'kappa_quadratic', 'fleiss_kappa', 'alpha_nominal']].isna().all().all()
    assert_rows(got, expected_rows(REAL_SETS))  # (α ordinal, interval, Pearson and Spearman: on the raw labels)


def test_binning_gives_kappa_of_the_binned_labels():
    # A threshold per set: label >= t is 1, else 0.
    thresholds = {'qrels': 2, 'llm': 0.5, 'llm2': 0.5}
    judged = judged_by_judge(REAL_SETS)
    binned = {judge: {unit: float(label >= thresholds[judge]) for unit, label in units.items()}
              for judge, units in judged.items()}
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # (one scale, nothing undefined: no warning)
        got = agreement(REAL_SETS, binning=thresholds)
    assert_rows(got, expected_rows(REAL_SETS, binned=binned))
    assert got.loc[0, 'kappa'] == pytest.approx(
        cohen_kappa_score([binned['qrels'][u] for u in sorted(judged['qrels'])],
                          [binned['llm'][u] for u in sorted(judged['qrels'])]), abs=1e-12)


def test_cut_points_are_closed_on_the_left():
    # Levels: the number of cut points <= the label (np.digitize(label, cuts)): 0.5 is level 2, 0.25 level 1.
    cuts = [0.25, 0.5, 0.75]
    judged = judged_by_judge(REAL_SETS)
    binned = {judge: {unit: float(sum(label >= cut for cut in cuts)) for unit, label in units.items()}
              for judge, units in judged.items()}
    assert binned['llm'][('1', 'b')] == 2 and binned['llm2'][('1', 'b')] == 1
    assert binned['llm2'][('1', 'b')] == np.digitize(0.25, cuts)
    only_llm = REAL_SETS[REAL_SETS['judge'] != 'qrels']
    got = agreement(only_llm, binning=cuts)
    assert_rows(got, expected_rows(only_llm, binned=binned))
    table = confusion(only_llm, 'llm', 'llm2', binning=cuts)
    assert table.index.name == 'llm' and table.columns.name == 'llm2'
    units = sorted(judged['llm'])
    a, b = [binned['llm'][u] for u in units], [binned['llm2'][u] for u in units]
    assert table.index.tolist() == table.columns.tolist() == sorted(set(a) | set(b))
    assert table.to_numpy().tolist() == sklearn_table(a, b, sorted(set(a) | set(b)))


def test_sets_on_different_scales_are_compared_as_they_are_with_a_warning():
    with pytest.warns(IrMeasuresExtWarning) as caught:
        agreement(REAL_SETS[REAL_SETS['judge'] != 'llm2'])
    assert [warning.category for warning in caught] == [IrMeasuresExtWarning, UndefinedAgreementWarning]
    assert re.match(r"the judgement sets label on different scales \('qrels': whole numbers 0–3, 'llm': real values in "
                    r"\[0.1, 0.9\]\); they are compared as they are: .*binning=", str(caught[0].message))
    binary = REAL_SETS[REAL_SETS['judge'] != 'llm2'].assign(
        relevance=lambda frame: np.where(frame['judge'] == 'llm', (frame['relevance'] >= 0.5) * 1.0,
                                         frame['relevance']))
    with pytest.warns(IrMeasuresExtWarning, match=r"different scales \('qrels': whole numbers 0–3, 'llm': 0 and 1\)"):
        got = agreement(binary)
    assert_rows(got, expected_rows(binary))  # (κ of the labels as they are)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        agreement(binary, binning={'qrels': 2})


def test_confusion_table():
    got = confusion(SMALL, 'a', 'b')
    judged = judged_by_judge(SMALL)
    shared = [unit for unit in judged['a'] if unit in judged['b']]
    a, b = [judged['a'][u] for u in shared], [judged['b'][u] for u in shared]
    categories = sorted(set(a) | set(b))
    assert got.index.tolist() == got.columns.tolist() == categories
    assert got.to_numpy().tolist() == sklearn_table(a, b, categories)
    with pytest.raises(InputError, match="judge 'llm' has real-valued labels"):
        confusion(REAL_SETS, 'qrels', 'llm')
    with pytest.raises(InputError, match="no judge 'z'"):
        confusion(SMALL, 'a', 'z')


# Bad judgements.

def test_sets_sharing_no_query_are_an_input_error():
    frame = frame_of({'a': {'1': {'x': 1}}, 'b': {'q1': {'x': 1}}})
    with pytest.raises(InputError, match="judge 'a' and judge 'b' share no query: judgement sets of different "
                                         r"collections\? \(queries '1' and 'q1'\)"):
        agreement(frame)
    with pytest.raises(InputError, match='share no query'):
        confusion(frame, 'a', 'b')


def test_a_doc_judged_twice():
    twice = pd.concat([SMALL, SMALL.iloc[[0]]], ignore_index=True)
    pd.testing.assert_frame_equal(agreement(twice), agreement(SMALL))  # (alike: counted once)
    twice.loc[len(twice) - 1, 'relevance'] = 3
    with pytest.raises(InputError, match="judge 'a' judges doc 'a' of query '1' twice, 0 and 3"):
        agreement(twice)


@pytest.mark.parametrize('judgements, binning, message', [
    (SMALL.drop(columns='judge'), None, 'has no column judge'),
    (SMALL[SMALL['judge'] == 'a'], None, 'two judgement sets or more'),
    (SMALL.iloc[:0], None, 'empty'),
    (SMALL.assign(relevance=SMALL['relevance'].where(SMALL.index != 3)), None, 'not a finite number'),
    (SMALL.assign(relevance='x'), None, 'must be numbers'),
    ([1, 2], None, 'expected a judgements frame'),
    ({'a': SMALL.iloc[:0][['query_id', 'doc_id', 'relevance']]}, None, "judge 'a': qrels: an empty table"),
    (SMALL, {'z': 1}, "binning names no judge 'z'"),
    (SMALL, [2, 1], 'increasing'),
    (SMALL, True, 'threshold or increasing cut points'),
])
def test_bad_judgements_are_an_input_error(judgements, binning, message):
    with pytest.raises(InputError, match=message):
        agreement(judgements, binning=binning)


def test_the_kernels_warn_again_after_agreement():
    agreement(SMALL)
    with pytest.warns(UndefinedAgreementWarning):
        cohen_kappa([1], [1])


# Found by mutation testing (tests/MUTANTS.md, issue 46's kernels) -----------------------------------------------


@pytest.mark.parametrize('labels, reason', [([[1], [2]], 'it needs two raters or more'),
                                            ([[1, NAN], [NAN, 2]], 'no item has labels of every set')])
def test_fleiss_kappa_says_why_it_is_undefined_whole(labels, reason):
    with pytest.warns(UndefinedAgreementWarning, match=f"^Fleiss' κ is undefined: {reason}; its value is NaN$"):
        assert math.isnan(fleiss_kappa(labels))


def test_fleiss_kappa_refusals_name_it():
    with pytest.raises(InputError, match='^fleiss_kappa: expected a 2-dimensional array of labels, got 1 dimensions$'):
        fleiss_kappa([1, 2])
    with pytest.raises(InputError, match=r'^fleiss_kappa: counts must be whole numbers >= 1, one per item \(2\)$'):
        fleiss_kappa([[1, 2], [2, 2]], counts=[1, 0])


def test_krippendorff_alpha_refusals_name_it():
    with pytest.raises(InputError, match='^krippendorff_alpha: expected a 2-dimensional array of labels, got 1 '
                                         'dimensions$'):
        krippendorff_alpha([1, 2])
    with pytest.raises(InputError, match=r'^krippendorff_alpha: counts must be whole numbers >= 1, one per item '
                                         r'\(2\)$'):
        krippendorff_alpha([[1, 2], [2, 2]], counts=[1, 0])


@pytest.mark.parametrize('compute, name', [(pearson, 'pearson'), (spearman, 'spearman'),
                                           (confusion_matrix, 'confusion_matrix')])
def test_correlation_refusals_name_the_function(compute, name):
    with pytest.raises(InputError, match=f"^{name}: a and b must hold the two sets' labels of the same items, one per "
                                         f'item: they have 2 and 1$'):
        compute([1, 2], [1])


@pytest.mark.parametrize('compute, labels, message', [
    (pearson, ([1, NAN], [2, 3]), "Pearson's r is undefined: fewer than two items have labels of both sets; its "
                                  'value is NaN'),
    (spearman, ([1, 2, 3], [4, 4, 4]), "Spearman's ρ is undefined: one set's labels are all the same (no variance); "
                                       'its value is NaN')])
def test_a_correlation_says_why_it_is_undefined_whole(compute, labels, message):
    with pytest.warns(UndefinedAgreementWarning) as caught:
        assert math.isnan(compute(*labels))
    assert [str(warning.message) for warning in caught] == [message]


def test_pearson_of_huge_labels_and_within_minus_one_and_one():
    assert pearson([1e200, 2e200, 4e200], [1e250, 3e250, 2e250]) == pytest.approx(
        scipy.stats.pearsonr([1, 2, 4], [1, 3, 2]).statistic, abs=1e-12)
    # y is x scaled and shifted (rounded): unclipped, the rounding of the sums makes r 1 + 2**-52
    x = [1.3203609870818391, 0.6333526228249152, -2.2035098806466507]
    y = [9.342526909572873, 4.533468359774406, -15.324569164526554]
    assert scipy.stats.pearsonr(x, y).statistic == pytest.approx(1, abs=1e-12)
    assert pearson(x, y) == 1.0
    assert pearson(x, [-value for value in y]) == -1.0


def test_interval_alpha_depends_on_the_differences_only():
    labels = np.array([[0, 1, 2, 3], [0, 1, 3, 3], [1, 1, 2, NAN]])
    expected = krippendorff.alpha(reliability_data=labels, level_of_measurement='interval')
    for moved in (labels * 1e160, labels + 5e15):  # (squares beyond the largest float; labels 1 apart near 2**53)
        assert krippendorff_alpha(moved, 'interval') == pytest.approx(expected, abs=1e-12)


def test_krippendorff_alpha_says_why_it_is_undefined_whole():
    with pytest.warns(UndefinedAgreementWarning) as caught:
        assert math.isnan(krippendorff_alpha([[1, NAN], [NAN, 2]]))
    assert [str(warning.message) for warning in caught] == [
        "Krippendorff's α is undefined: no item has labels of two sets or more; its value is NaN"]


def test_many_categories_with_repeated_labels_in_an_item():
    """More distinct labels than four per item (the sparse count of each item's categories), some items labelled
    alike by two sets: against the krippendorff package and statsmodels."""
    labels = np.array([[0.5, 1.5, 2.5, 3.5, 4.5, 5.5], [0.5, 1.5, 6.5, 7.5, 8.5, 9.5]])  # (10 values, 6 items)
    expected = krippendorff.alpha(reliability_data=labels, level_of_measurement='nominal')
    assert krippendorff_alpha(labels, 'nominal') == pytest.approx(expected, abs=1e-12)
    table, _ = aggregate_raters(labels.T)
    assert fleiss_kappa(labels.T) == pytest.approx(statsmodels_fleiss_kappa(table, method='fleiss'), abs=1e-12)


def test_confusion_matrix_counts_are_whole_numbers_weighted_by_the_counts():
    categories, table = confusion_matrix([1, 2, 2, NAN], [1, 2, 1, 3], counts=[2, 1, 3, 1])
    expected = sklearn_confusion_matrix([1, 2, 2], [1, 2, 1], labels=[1, 2], sample_weight=[2, 1, 3])
    assert categories.tolist() == [1.0, 2.0] and table.tolist() == expected.tolist() == [[2, 0], [3, 1]]
    assert table.dtype == np.int64
