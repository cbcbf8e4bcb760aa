"""The measure kernels at their edges, against hand-computed values or the plain references: the gains of
nDCG under ties=expected, Q with huge gains and 1 < β <= 2, Q under ties=expected for a tie group of two
relevant docs, E[AP] deep in a ranking, the rank statistics of qrels without queries, and the per-query running sums."""
from __future__ import annotations

import math

import ir_measures
import numpy as np
import pytest
import reference

import irmeasures_ext
from irmeasures_ext import MeanRank, MedianRank, Q

EXPECTED = irmeasures_ext.provider.configured(ties='expected')


def test_expected_ndcg_maps_the_run_labels_through_gains():
    """a (label 1) and b (label 2) tie; gains {1: 3, 2: 1}: ideal DCG = 3/log2(2) + 1/log2(3).
    Order a, b is the ideal (nDCG 1); order b, a: (1/log2(2) + 3/log2(3)) / ideal. E[nDCG] is their mean."""
    measure = ir_measures.nDCG(gains={1: 3, 2: 1})
    ideal = 3 + 1 / math.log2(3)
    want = (1 + (1 + 3 / math.log2(3)) / ideal) / 2  # 0.8983...; the labels as gains would give 0.6738
    qrels, run = {'q': {'a': 1, 'b': 2}}, {'q': {'a': 1.0, 'b': 1.0}}
    assert EXPECTED.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(want, abs=1e-12)


def test_expected_q_is_finite_for_huge_gains_when_beta_is_between_1_and_2():
    """One relevant doc at rank 1 of gain G = 1e308: BR(1) = (1 + βG) / (1 + βG) = 1, so Q = 1 / R = 1.
    β·G = 2e308 overflows: the kernel must divide through by β for every β > 1, as q_measure does."""
    measure = Q(beta=2.0, gains={1: 1e308})
    qrels, run = {'q': {'a': 1}}, {'q': {'a': 1.0}}
    assert EXPECTED.calc_aggregate([measure], qrels, run)[measure] == 1.0


@pytest.mark.parametrize('measure', [Q, Q(beta=0.5, gains={1: 2, 3: 5})])
def test_expected_q_of_a_tie_group_of_two_relevant_docs(measure):
    """x, then a and b (both relevant) tied: the second of the pair has the first before it in either
    order (the (g-1) = 1 share of the other relevant doc, which a group of 2 is the smallest case of).
    The random tie cases reach this group only by chance."""
    judged, run = {'a': 3, 'b': 1}, {'x': 2.0, 'a': 1.0, 'b': 1.0}
    params = {'beta': measure['beta'], 'gains': measure.params.get('gains')}
    want = (reference.q_measure(['x', 'a', 'b'], judged, **params)
            + reference.q_measure(['x', 'b', 'a'], judged, **params)) / 2
    assert EXPECTED.calc_aggregate([measure], {'q': judged}, {'q': run})[measure] == pytest.approx(want, abs=1e-12)


def test_expected_ap_is_exact_for_a_lone_relevant_doc_deep_in_the_ranking():
    """19960 tied unjudged docs, then the only relevant doc alone at rank s = 19961: AP = 1/s in every
    ordering. Its group's Σ_j j/(s+j) (j = 0 only) is 0; computed as 1 - s·(H(s) - H(s-1)) it would carry
    a rounding error of about s·ulp(H(s)) = 2e-11, that is 3e-7 of the value."""
    judged = {'a': 1}
    scores = {f'u{i:05d}': 2.0 for i in range(19960)} | {'a': 1.0}
    want = reference.average_precision(reference.trec_ranking(scores), judged)
    assert want == 1 / 19961
    got = EXPECTED.calc_aggregate([ir_measures.AP], {'q': judged}, {'q': scores})[ir_measures.AP]
    assert got == pytest.approx(want, rel=1e-9, abs=0)


def test_rank_statistics_of_qrels_without_queries_are_refused():
    """No qrels query: no candidate count to take the largest of (and no value to aggregate); such qrels are
    refused on every entry point (tests/readers/test_silent_numbers.py), here too rather than NaN."""
    with pytest.raises(irmeasures_ext.InputError, match='^qrels: an empty dict-of-dict'):
        irmeasures_ext.provider.calc_aggregate([MeanRank, MedianRank], {}, {'q': {'a': 1.0}})


def test_run_starts_and_expand_by_hand():
    from irmeasures_ext.engine.segments import expand, run_starts
    assert run_starts(np.array([], dtype=np.int64)).tolist() == []
    assert run_starts(np.array([4])).tolist() == [True]
    assert run_starts(np.array([1, 1, 2, 2, 2, 5])).tolist() == [True, False, True, False, False, True]
    # a new run where either key changes
    assert run_starts(np.array([1, 1, 1, 2, 2]), np.array([7, 7, 8, 8, 8])).tolist() == [True, False, True, True, False]
    owner, offset = expand(np.array([2, 0, 3, -1]))  # a negative count: no items
    assert owner.tolist() == [0, 0, 2, 2, 2] and offset.tolist() == [0, 1, 0, 1, 2]
    owner, index = expand(np.array([2, 0, 3]), np.array([5, 9, 1]))  # from each start
    assert owner.tolist() == [0, 0, 2, 2, 2] and index.tolist() == [5, 6, 1, 2, 3]


@pytest.mark.parametrize('values', [[1.0, 2.0, 3.0, 0.0, 7.0, -2.0, 5.0],  # whole numbers: summed as integers
                                    [2.0 ** 51] * 7,  # whole, but their sums pass 2**52: summed as floats
                                    [1.0, 2.5, 3.0, 0.0, 7.0, -2.0, 5.0],  # not whole: summed as floats
                                    [1e17, 1.0, 1.0, 0.1, 0.2, 0.3, 0.4]])  # one running sum would lose 0.1
def test_segment_cumsum_restarts_at_each_segment_with_each_segments_own_sums(values):
    """Whole floats take the integer path, other floats the scan: both give each segment's own running
    sums (a plain per-segment loop), and a segment's sums do not depend on the segments before it."""
    from irmeasures_ext.engine.segments import segment_cumsum
    values, segment = np.array(values), np.array([0, 0, 0, 1, 2, 2, 2])
    got = segment_cumsum(values, segment, np.array([0, 3, 4]))
    expected = [sum(values[start:row + 1].tolist()) for start, row in zip([0, 0, 0, 3, 4, 4, 4], range(7), strict=True)]
    assert got.dtype == np.float64 and got.tolist() == pytest.approx(expected, rel=1e-15, abs=0)
    assert segment_cumsum(values[4:], segment[4:] - 2, np.array([0])).tolist() == got[4:].tolist()
