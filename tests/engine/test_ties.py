"""Tie policies against brute force: every ordering of every tie group enumerated (expected: the exact
mean; optimistic/pessimistic: the orderings they define), the rank policy against the same run with
scores replaced by -rank, and the score precision; and at the edges the brute force does not reach:
labels near the int64 limits under optimistic/pessimistic, the rank policy's errors and ranks beyond
float32 precision, and the helpers that find the order of tied docs a measure needs."""
from __future__ import annotations

import itertools
import math
import statistics
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
import reference
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ties_brute_force import LABELS, orderings, tied_runs

import irmeasures_ext
from irmeasures_ext import (
    EBR,
    ERR_NTCIR,
    GAP,
    NCU,
    RBP_NTCIR,
    InputError,
    MeanRank,
    MeasureParamError,
    MedianRank,
    MSnDCG,
    O_measure,
    P_measure,
    P_plus,
    Q,
    iRBU,
    nDCG_JK,
    nDCG_Z1,
    nERR,
)
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.transforms import qrels_labels, rank_labels_by_credit
from irmeasures_ext.errors import EqualRankError
from irmeasures_ext.measures import DECLARED
from irmeasures_ext.measures.base import REL_PARAM, SCORE_PRECISIONS, TIE_POLICIES, ExtMeasure

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')


def cases():
    """(measure, reference function of (ranking, judged, run_depth)) for every measure with an expected kernel."""
    def our(function):
        return lambda ranking, judged, depth: function(ranking, judged)
    listed = [
        (Q @ 3, our(lambda r, j: reference.q_measure(r, j, cutoff=3))),
        (Q(beta=0.5, gains={1: 1, 2: 3, 3: 7}), our(lambda r, j: reference.q_measure(r, j, 0.5, {1: 1, 2: 3, 3: 7}))),
        (Q(beta=3.0, rel=2), our(lambda r, j: reference.q_measure(r, j, 3.0, None, 2))),
        (nDCG_Z1 @ 2, our(lambda r, j: reference.ndcg_z1(r, j, 2))),
        (MSnDCG @ 3, our(lambda r, j: reference.msndcg(r, j, 3))),
        (nDCG_JK(gains={1: 2, 3: 5}) @ 4, our(lambda r, j: reference.ndcg_jk(r, j, 4, {1: 2, 3: 5}))),
        (RBP_NTCIR(max_level=3) @ 3, our(lambda r, j: reference.rbp_ntcir(r, j, 3, cutoff=3))),
        (RBP_NTCIR(p=0.5, gains={1: 2, 3: 5}), our(lambda r, j: reference.rbp_ntcir(r, j, 5, 0.5, {1: 2, 3: 5}))),
        (MeanRank, lambda r, j, depth: reference.first_relevant_rank(r, j, depth)),
        (MeanRank(rel=3), lambda r, j, depth: reference.first_relevant_rank(r, j, depth, 3)),
        (ir_measures.AP, our(reference.average_precision)),
        (ir_measures.AP(rel=2) @ 2, our(lambda r, j: reference.average_precision(r, j, 2, 2))),
        (ir_measures.P @ 2, our(lambda r, j: reference.precision(r, j, 2))),
        (ir_measures.R(rel=2) @ 3, our(lambda r, j: reference.recall(r, j, 3, 2))),
        (ir_measures.Success @ 1, our(lambda r, j: reference.success(r, j, 1))),
        (ir_measures.Success(rel=3) @ 2, our(lambda r, j: reference.success(r, j, 2, 3))),
        (ir_measures.RR, our(reference.reciprocal_rank)),
        (ir_measures.RR @ 2, our(lambda r, j: reference.reciprocal_rank(r, j, cutoff=2))),
        (ir_measures.Rprec, our(reference.r_precision)),
        (ir_measures.nDCG, our(reference.trec_ndcg)),
        (ir_measures.nDCG @ 3, our(lambda r, j: reference.trec_ndcg(r, j, 3))),
        (O_measure, our(reference.o_measure)),
        (O_measure(beta=0.5, gains={1: 1, 2: 3, 3: 7}),
         our(lambda r, j: reference.o_measure(r, j, 0.5, {1: 1, 2: 3, 3: 7}))),
        (O_measure(beta=3.0, rel=2), our(lambda r, j: reference.o_measure(r, j, 3.0, None, 2))),
    ]
    return listed


CASES = cases()
MEASURES = [measure for measure, _ in CASES]


def per_query(provider, measures, qrels, run):
    return {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_expected_is_the_exact_mean_over_all_orderings(data):
    qrels, run = data
    # (the references' threshold is rel=1, given to the provider for real-valued labels, whose default is every
    # label above 0; test_optimistic_and_pessimistic... draws the thresholds)
    ours = per_query(irmeasures_ext.provider.configured(ties='expected', rel=1), MEASURES, qrels, run)
    depth = reference.run_depth(qrels, run)
    for measure, function in CASES:
        for qid, judged in qrels.items():
            values = [function(ranking, judged, depth) for ranking in orderings(run.get(qid, {}))]
            want = statistics.fmean(values) if values else function([], judged, depth)
            got = ours[str(measure), qid]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12), (measure, qid)


def policy_ranking(scores: dict[str, float], judged: dict[str, int], policy: str) -> list[str]:
    """The ranking optimistic (higher labels first) or pessimistic (lower first, unjudged lowest) defines for
    the measures of CASES, whose gains grow with the label."""
    def label(doc):
        return judged.get(doc, -math.inf)
    sign = -1 if policy == 'optimistic' else 1
    return sorted(scores, key=lambda doc: (-scores[doc], sign * label(doc)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(LABELS), st.sampled_from(['optimistic', 'pessimistic']))
def test_optimistic_and_pessimistic_are_the_orderings_they_define(data, policy):
    qrels, run = data
    ours = per_query(irmeasures_ext.provider.configured(ties=policy), MEASURES, qrels, run)
    depth = reference.run_depth(qrels, run)
    for measure, function in CASES:
        for qid, judged in qrels.items():
            want = function(policy_ranking(run.get(qid, {}), judged, policy), judged, depth)
            got = ours[str(measure), qid]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12), (measure, qid)
            values = [function(r, judged, depth) for r in orderings(run.get(qid, {}))] or [want]
            best, worst = (max, min) if measure.NAME not in ('MeanRank',) else (min, max)
            if not math.isnan(want):  # and it is the best / worst of all orderings
                assert want == pytest.approx((best if policy == 'optimistic' else worst)(values), abs=1e-12)


@st.composite
def gains_maps(draw) -> dict[int, float] | None:
    """None (gain = label) or gains for some labels, often not increasing with the label (0 included)."""
    if draw(st.booleans()):
        return None
    labels = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3, unique=True))
    return {label: draw(st.sampled_from([0, 0, 0.5, 1, 2, 3, 5, 7])) for label in labels}  # gain 0 often


def cases_with_gains(gains: dict[int, float] | None, rel: int, beta: float, k: int, cutoff: int | None, t: float):
    """(measure, reference of (ranking, judged, run_depth), lower is better) for every measure our provider
    computes whose value depends on the order, with the drawn gains, threshold and cutoffs."""
    def our(function):
        return lambda ranking, judged, depth: function(ranking, judged)
    with_gains = {} if gains is None else {'gains': gains}
    top = max([3, *(gains or {}).values()])  # nERR: max_level 3 (the largest label) gets the largest gain
    q = Q(beta=beta, rel=rel, **with_gains)
    return [
        (q if cutoff is None else q @ cutoff, our(lambda r, j: reference.q_measure(r, j, beta, gains, t, cutoff))),
        (nDCG_Z1(rel=rel, **with_gains) @ k, our(lambda r, j: reference.ndcg_z1(r, j, k, gains, t))),
        (MSnDCG(rel=rel, **with_gains) @ k, our(lambda r, j: reference.msndcg(r, j, k, gains, t))),
        (nDCG_JK(rel=rel, **with_gains) @ k, our(lambda r, j: reference.ndcg_jk(r, j, k, gains, t))),
        (nERR(rel=rel, max_level=3, gains={**(gains or {}), 3: top}) @ k,
         our(lambda r, j: reference.nerr(r, j, k, reference.graded_gain(3, {3: top}, t), {**(gains or {}), 3: top},
                                         t))),
        *cascade_cases(gains, rel, k, cutoff, t),
        (GAP(rel=rel) if cutoff is None else GAP(rel=rel) @ cutoff, our(lambda r, j: reference.gap(r, j, t, cutoff))),
        *bpref_cases(gains, rel, t),
        (ir_measures.nDCG(**with_gains) @ k, our(lambda r, j: reference.trec_ndcg(r, j, k, gains))),
        (ir_measures.nDCG(**with_gains), our(lambda r, j: reference.trec_ndcg(r, j, None, gains))),
        (MeanRank(rel=rel), lambda r, j, depth: reference.first_relevant_rank(r, j, depth, t)),
        (ir_measures.AP(rel=rel), our(lambda r, j: reference.average_precision(r, j, t))),
        (ir_measures.AP(rel=rel) @ k, our(lambda r, j: reference.average_precision(r, j, t, k))),
        (ir_measures.P(rel=rel) @ k, our(lambda r, j: reference.precision(r, j, k, t))),
        (ir_measures.R(rel=rel) @ k, our(lambda r, j: reference.recall(r, j, k, t))),
        (ir_measures.Success(rel=rel) @ k, our(lambda r, j: reference.success(r, j, k, t))),
        (ir_measures.RR(rel=rel), our(lambda r, j: reference.reciprocal_rank(r, j, t))),
        (ir_measures.RR(rel=rel) @ k, our(lambda r, j: reference.reciprocal_rank(r, j, t, k))),
        (ir_measures.Rprec(rel=rel), our(lambda r, j: reference.r_precision(r, j, t))),
        (O_measure(beta=beta, rel=rel, **with_gains), our(lambda r, j: reference.o_measure(r, j, beta, gains, t))),
        (NCU(stopping='rb', beta=beta, rel=rel, gamma=0.5, **with_gains),
         our(lambda r, j: reference.ncu(r, j, 'rb', 'BR', beta, gains, None, 0.5, t))),
        (NCU(stopping='rb', utility='P', rel=rel, **with_gains),
         our(lambda r, j: reference.ncu(r, j, 'rb', 'P', beta, gains, None, 0.95, t))),
    ]


def cascade_cases(gains: dict[int, float] | None, rel: int, k: int, cutoff: int | None, t: float):
    """(measure, reference) of RBP_NTCIR, ERR_NTCIR and iRBU, max_level 3 getting the largest gain."""
    top = max([3, *(gains or {}).values()])
    params = {'rel': rel, 'max_level': 3, 'gains': {**(gains or {}), 3: top}}
    top_gain = reference.graded_gain(3, {3: top}, t)
    at_cutoff = (lambda m: m) if cutoff is None else (lambda m: m @ cutoff)
    return [
        (at_cutoff(RBP_NTCIR(p=0.8, **params)),
         lambda r, j, depth: reference.rbp_ntcir(r, j, top_gain, 0.8, params['gains'], t, cutoff)),
        (at_cutoff(ERR_NTCIR(**params)),
         lambda r, j, depth: reference.err_ntcir(r, j, top_gain, params['gains'], t, cutoff)),
        (iRBU(u=0.9, **params) @ k, lambda r, j, depth: reference.irbu(r, j, k, top_gain, 0.9, params['gains'], t)),
    ]


BPREF_FAMILY = ['bpref_NTCIR', 'bpref_R', 'bpref_N', 'bpref_relative', 'rpref_N', 'rpref_relative', 'rpref_relative2']


def bpref_cases(gains: dict[int, float] | None, rel: int, t: float):
    """(measure, reference) of Sakai's bpref family, max_level 3 getting the largest gain."""
    top = max([3, *(gains or {}).values()])
    graded = {'max_level': 3, 'gains': {**(gains or {}), 3: top}}
    top_gain = reference.graded_gain(3, {3: top}, t)

    def case(name):
        params = graded if name.startswith('rpref') else {}
        return (DECLARED[name](rel=rel, **params), lambda r, j, depth: reference.sakai_bpref(
            name, r, j, t, params.get('gains'), top_gain))
    return [case(name) for name in BPREF_FAMILY]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(), gains_maps(), st.integers(1, 3), st.sampled_from([0.0, 0.5, 1.0, 3.0]), st.integers(1, 4),
       st.sampled_from([None, 1, 2, 4]))
# the issue's case (d17's label 2 has the larger gain), and a relevant doc of gain 0 (b) tied with a
# non-relevant one (c, first by doc_id) under gains that do not grow with the label: Q counts b, so it
# must come first
@example(data=({'q5': {'d17': 2, 'd8': 3, 'd26': 0, 'd15': 1, 'd31': 2}}, {'q5': {'d8': 1.0, 'd17': 1.0, 'd26': 0.0}}),
         gains={2: 5}, rel=1, beta=0.5, k=2, cutoff=None)
@example(data=({'q1': {'a': 3, 'b': 1, 'c': 0, 'd': 2}}, {'q1': {'b': 1.0, 'c': 1.0}}), gains={1: 0, 2: 5}, rel=1,
         beta=1.0, k=2, cutoff=None)
def test_optimistic_and_pessimistic_are_the_best_and_worst_orderings_for_any_gains(data, gains, rel, beta, k,
                                                                                     cutoff):
    """Brute force: optimistic is the best value over every ordering of every tie group, pessimistic the
    worst (for MeanRank the smallest and largest rank), for gains that need not grow with the label;
    every measure is evaluated in one call, so measures needing different orders share one run."""
    qrels, run = data
    cases = cases_with_gains(gains, rel, beta, k, cutoff, reference.threshold(rel, qrels))
    measures = [measure for measure, _ in cases]
    optimistic = per_query(irmeasures_ext.provider.configured(ties='optimistic'), measures, qrels, run)
    pessimistic = per_query(irmeasures_ext.provider.configured(ties='pessimistic'), measures, qrels, run)
    depth = reference.run_depth(qrels, run)
    for measure, function in cases:
        best, worst = (min, max) if measure.NAME == 'MeanRank' else (max, min)
        for qid, judged in qrels.items():
            values = [function(ranking, judged, depth) for ranking in orderings(run.get(qid, {}))]
            assert same(optimistic[str(measure), qid], best(values)), (str(measure), qid)
            assert same(pessimistic[str(measure), qid], worst(values)), (str(measure), qid)


def same(got: float, want: float) -> bool:
    return (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_optimistic_orders_tied_docs_by_the_measures_gain():
    """The issue's case: d8 (label 3, gain 3) and d17 (label 2, gain 5) tie. By hand, with R = 4 and ideal
    gains 5, 5, 3, 1 (cg* 5, 10, 13): d17 first gives BR 3.5/3.5 and (2 + 4)/(2 + 5), Q = (1 + 6/7)/4 = 13/28;
    d8 first gives BR 2.5/3.5 and 6/7, Q = 11/28. Q without gains (label order) is alongside."""
    qrels = {'q5': {'d17': 2, 'd8': 3, 'd26': 0, 'd15': 1, 'd31': 2}}
    run = {'q5': {'d8': 1.0, 'd17': 1.0, 'd26': 0.0}}
    measures = [Q(beta=0.5, gains={2: 5}), Q(beta=0.5)]
    # Q(beta=0.5): d8 first: BR (1 + 1.5)/(1 + 1.5) = 1, (2 + 2.5)/(2 + 2.5) = 1 with ideal 3, 2, 2, 1; Q = 2/4
    # d17 first: (1 + 1)/(1 + 1.5) = 0.8, (2 + 2.5)/(2 + 2.5) = 1; Q = 1.8/4
    assert irmeasures_ext.provider.configured(ties='optimistic').calc_aggregate(measures, qrels, run) == {
        measures[0]: pytest.approx(13 / 28), measures[1]: pytest.approx(2 / 4)}
    assert irmeasures_ext.provider.configured(ties='pessimistic').calc_aggregate(measures, qrels, run) == {
        measures[0]: pytest.approx(11 / 28), measures[1]: pytest.approx(1.8 / 4)}


BIG = 2 ** 62 + 1  # 2 * BIG > 2**63 - 1: a label past which any doubled label would wrap around in int64
EXTREME_JUDGED = {'a': BIG, 'b': 1, 'c': 0, 'd': -BIG}  # every int64 label is valid input
EXTREME_RUN = {'q': {doc: 1.0 for doc in EXTREME_JUDGED} | {'x': 1.0}}  # one tie group of five docs (x unjudged)


@pytest.mark.parametrize('policy', ['optimistic', 'pessimistic'])
def test_optimistic_and_pessimistic_order_extreme_labels(policy):
    """Against every ordering of the tie group: the best (optimistic) or worst (pessimistic) RR and
    P@1 for each threshold, which holds only if labels near ±2**62 are compared without overflow."""
    rels = [BIG, 1, 0]  # rel must be >= 0; d (label -BIG) is never relevant
    measures = [m for rel in rels for m in (ir_measures.RR(rel=rel), ir_measures.P(rel=rel) @ 1)]
    provider = irmeasures_ext.provider.configured(ties=policy)
    got = {str(m.measure): m.value for m in provider.iter_calc(measures, {'q': EXTREME_JUDGED}, EXTREME_RUN)}
    choose = max if policy == 'optimistic' else min
    for rel in rels:
        rankings = list(itertools.permutations(EXTREME_RUN['q']))
        rr = choose(reference.reciprocal_rank(r, EXTREME_JUDGED, rel) for r in rankings)
        p1 = choose(reference.precision(r, EXTREME_JUDGED, 1, rel) for r in rankings)
        assert got[str(ir_measures.RR(rel=rel))] == pytest.approx(rr), rel
        assert got[str(ir_measures.P(rel=rel) @ 1)] == pytest.approx(p1), rel
    # by hand: optimistic ranks a (label 2**62 + 1) first, so RR(rel=2**62+1) = 1; pessimistic ranks
    # x (unjudged), d, c, b, a: a is 5th, RR = 1/5.
    assert got[str(ir_measures.RR(rel=BIG))] == (1.0 if policy == 'optimistic' else 0.2)


def test_qrels_labels_are_the_distinct_labels_ascending():
    judgments = Judgments(pa.table({'query_id': ['q', 'q', 'q', 'q', 'p'], 'doc_id': ['a', 'b', 'c', 'd', 'a'],
                                    'relevance': [0, 2, 2, 1, 1]}))
    assert qrels_labels(judgments).tolist() == [0, 1, 2]


def test_labels_are_ranked_by_credit_only_where_the_label_order_does_not_follow_it():
    """None (the label order, shared with every such measure) when the credit never decreases, equal
    neighbours included; else each label's dense rank by credit."""
    assert rank_labels_by_credit(np.array([-1.0, -1.0, 1.0, 3.0])) is None
    assert rank_labels_by_credit(np.array([-1.0, 5.0, 0.5, 5.0])) == (0, 2, 1, 2)


def test_an_overflowing_credit_is_the_kernels_error_without_numpy_warnings():
    """2^5000 - 1 overflows while optimistic finds nDCG_Z1's order of tied docs: numpy's warning is not
    shown; the kernel reports the overflow."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with pytest.raises(InputError, match='values overflow'):
            irmeasures_ext.provider.configured(ties='optimistic').calc_aggregate(
                [nDCG_Z1 @ 3], {'q': {'a': 5000, 'b': 1}}, {'q': {'a': 1.0, 'b': 1.0}})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(), st.randoms(use_true_random=False))
def test_rank_policy_equals_scores_replaced_by_minus_rank(data, random):
    qrels, run = data
    rows = [(qid, doc) for qid, docs in run.items() for doc in docs]
    ranks = {row: rank for rank, row in enumerate(random.sample(rows, len(rows)))}  # distinct, any order
    frame = pd.DataFrame([{'query_id': q, 'doc_id': d, 'score': run[q][d], 'rank': ranks[q, d]} for q, d in rows],
                         columns=['query_id', 'doc_id', 'score', 'rank'])
    by_rank = per_query(irmeasures_ext.provider.configured(ties='rank'), MEASURES, qrels, frame)
    minus_rank = {q: {d: -float(ranks[q, d]) for d in docs} for q, docs in run.items()}
    by_score = per_query(irmeasures_ext.provider, MEASURES, qrels, minus_rank)
    assert by_rank.keys() == by_score.keys()
    assert all(by_rank[key] == by_score[key] or math.isnan(by_rank[key]) and math.isnan(by_score[key])
               for key in by_rank)


def test_rank_policy_refuses_equal_ranks_naming_query_and_line(tmp_path):
    (tmp_path / 'qrels').write_text('q 0 a 1\n')
    (tmp_path / 'run').write_text('q Q0 a 1 5 t\nq Q0 b 2 4 t\nq Q0 c 2 3 t\n')
    with pytest.raises(InputError, match=f"{tmp_path / 'run'}:3: docs 'b' and 'c' of query 'q' have the same rank 2"):
        irmeasures_ext.provider.configured(ties='rank').calc_aggregate([ir_measures.RR], tmp_path / 'qrels',
                                                                       tmp_path / 'run')
    with pytest.raises(InputError, match='which a dict-of-dict does not carry'):
        irmeasures_ext.provider.configured(ties='rank').calc_aggregate([ir_measures.RR], {'q': {'a': 1}},
                                                                       {'q': {'a': 1.0}})


def test_rank_policy_equal_ranks_error_of_a_table_run():
    """A DataFrame run has no file to locate the error in: the EqualRankError itself reaches the user,
    its message prefixed by the input kind, naming the second doc of the repeated rank."""
    run = pd.DataFrame({'query_id': ['q', 'q', 'q', 'p'], 'doc_id': ['a', 'b', 'c', 'z'],
                        'score': [3.0, 2.0, 1.0, 1.0], 'rank': [1, 2, 2, 2]})
    with pytest.raises(EqualRankError) as caught:
        irmeasures_ext.provider.configured(ties='rank').calc_aggregate([ir_measures.RR], {'q': {'a': 1}}, run)
    error = caught.value
    assert str(error) == ("run: docs 'b' and 'c' of query 'q' have the same rank 2: tie policy \"rank\" needs "
                          'distinct ranks')
    assert (error.kind, error.query_id, error.doc_id) == ('run', 'q', 'c')


def test_rank_policy_reads_the_rank_column_of_trec_files(tmp_path):
    (tmp_path / 'qrels').write_text('q 0 a 1\n')
    (tmp_path / 'run').write_text('q Q0 a 2 9 t\nq Q0 b 1 1 t\n')  # by score a first; by rank b first
    ours = irmeasures_ext.provider.configured(ties='rank')
    assert ours.calc_aggregate([ir_measures.RR], tmp_path / 'qrels', tmp_path / 'run')[ir_measures.RR] == 0.5
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR], tmp_path / 'qrels',
                                                  tmp_path / 'run')[ir_measures.RR] == 1.0


def test_rank_policy_compares_ranks_beyond_float32_precision():
    """Ranks 2**24 and 2**24 + 1 are equal as float32: the rank policy must rank by them as float64 (a
    tie would put b first, doc_id descending)."""
    run = pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'b'], 'score': [0.0, 0.0],
                        'rank': [2 ** 24, 2 ** 24 + 1]})
    ranked = irmeasures_ext.provider.configured(ties='rank')
    assert ranked.calc_aggregate([ir_measures.RR], {'q': {'a': 1}}, run) == {ir_measures.RR: 1.0}


def test_score_precision_decides_which_scores_tie():
    """The issue's example: a 1.00000001 and b 1.0 tie as float32 (b first: doc_id descending)."""
    qrels, run = {'q': {'a': 1, 'b': 0}}, {'q': {'a': 1.00000001, 'b': 1.0}}
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == 0.5
    float64 = irmeasures_ext.provider.configured(score_precision='float64')
    assert float64.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == 1.0
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR(rel=1) @ 5, Q(score_precision='float64')], qrels,
                                                  run) == {ir_measures.RR(rel=1) @ 5: 0.5,
                                                           Q(score_precision='float64'): 1.0}


def test_measures_choose_their_own_policy():
    """A measure parameter (for PyTerrier, which takes measure objects): one run, two rankings."""
    qrels, run = {'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 1.0, 'c': 1.0}}
    values = irmeasures_ext.provider.calc_aggregate(
        [MeanRank, MeanRank(ties='optimistic'), MeanRank(ties='pessimistic'), MeanRank(ties='expected')], qrels, run)
    assert list(values.values()) == [3.0, 1.0, 3.0, 2.0]  # doc_id descending puts a last; expected: (1+2+3)/3


#: One query, one relevant doc a (label 1) tied with two unjudged docs: b scores 1.00000001 (a tie as
#: float32, strictly first as float64), c 1.0; the rank column ranks b, a, c. The positions a can take
#: under each (policy, precision), by hand (doc_id descending puts c, b, a):
TIED = pd.DataFrame({'query_id': ['q'] * 3, 'doc_id': ['a', 'b', 'c'], 'score': [1.0, 1.00000001, 1.0],
                     'rank': [2, 1, 3]})
POSITIONS_OF_A = {('trec_eval', 'float32'): [3], ('optimistic', 'float32'): [1], ('pessimistic', 'float32'): [3],
                  ('expected', 'float32'): [1, 2, 3], ('rank', 'float32'): [2],
                  ('trec_eval', 'float64'): [3], ('optimistic', 'float64'): [2], ('pessimistic', 'float64'): [3],
                  ('expected', 'float64'): [2, 3], ('rank', 'float64'): [2]}
#: Each declared measure (@3 where it takes a cutoff) as a function of a's position p, by hand (R = 1).
VALUE_AT = {'Q': lambda p: 2 / (p + 1),  # BR(p) = (1 + β·1) / (p + β·1), β = 1
            'nDCG_Z1': lambda p: 1 / math.log2(p + 1),  # gain 2^1 - 1
            'MSnDCG': lambda p: 1 / math.log2(p + 1),  # ideal DCG 1
            'nDCG_JK': lambda p: 1 / max(1.0, math.log2(p)),
            'nERR': lambda p: 1 / p,  # stop probability 1/(1 + 1): ERR 1/(2p), ideal 1/2
            'RBP_NTCIR': lambda p: 0.05 * 0.95 ** (p - 1),  # g_max 1
            'ERR_NTCIR': lambda p: 1 / (2 * p),
            'iRBU': lambda p: 0.9 ** p / 2,  # u = 0.9 (REQUIRED)
            'GAP': lambda p: 1 / p,  # GS = 1·2 at rank p, GI(1) = 2
            # the bpref family, with z (label 0, not retrieved) judged too: a is first in the condensed list
            'bpref_NTCIR': lambda p: 1.0, 'bpref_R': lambda p: 1.0, 'bpref_N': lambda p: 1.0,
            'bpref_relative': lambda p: 0.0, 'rpref_N': lambda p: 1.0, 'rpref_relative': lambda p: 0.0,
            'rpref_relative2': lambda p: 1.0,
            'MeanRank': float, 'MedianRank': float, 'RankVariance': float,  # the query's rank
            'O_measure': lambda p: 2 / (p + 1), 'P_measure': lambda p: 2 / (p + 1), 'P_plus': lambda p: 2 / (p + 1),
            'NCU': lambda p: 2 / (p + 1),  # BR(p), stop value 1 of 1
            'EBR': lambda p: 1 / (p + 1),  # BR(p) times the stop probability 1/(1 + 1)
            # trec_eval's measures (R = 1, a the only judged doc, three docs retrieved)
            'gm_map': lambda p: 1 / p, 'gm_bpref': lambda p: 1.0,  # (per query: AP and bpref, no judged non-relevant)
            'Rndcg': lambda p: ((p == 1) + 1 / math.log2(p + 1)) / 2,  # points: rank 1 and n = 3 >= L + 2
            'eleven_pt_avg': lambda p: 1 / p, 'binG': lambda p: 1 / math.log2(p + 1),
            'G': lambda p: 1 / math.log2(p + 1),  # cost p, gain 1 at rank p
            'utility': lambda p: -1.0,  # 1 relevant and 2 other docs retrieved
            'Rprec_mult': lambda p: float(p == 1),  # mult 1: rank int(1 + 0.9) = 1
            'ndcg_rel': lambda p: 1 / math.log2(p + 1), 'relative_P': lambda p: 1.0,  # @3: 1 / min(3, 1)
            'num_nonrel_judged_ret': lambda p: 0.0,
            # trec_eval 10.0's: levels 0 and 1 (gains not divided), p = 0.9; b and c unjudged, 3 docs retrieved
            'rbp': lambda p: 0.1 * 0.9 ** (p - 1), 'rbp_resid': lambda p: 1 - 0.1 * 0.9 ** (p - 1),
            'unj': lambda p: 2 / 3,
            # NTCIREVAL's intent-aware measures: a relevant (level 1) to the query's one intent, of probability 1
            'I_rec': lambda p: 1.0, 'D_nDCG': lambda p: 1 / math.log2(p + 1), 'D_Q': lambda p: 2 / (p + 1),
            'D_nERR': lambda p: 1 / p, 'D_sharp_nDCG': lambda p: 0.5 + 0.5 / math.log2(p + 1),
            'D_sharp_Q': lambda p: 0.5 + 1 / (p + 1), 'DIN_nDCG': lambda p: 1 / math.log2(p + 1),
            'DIN_Q': lambda p: 2 / (p + 1), 'DIN_sharp_nDCG': lambda p: 0.5 + 0.5 / math.log2(p + 1),
            'DIN_sharp_Q': lambda p: 0.5 + 1 / (p + 1), 'IA_MSnDCG': lambda p: 1 / math.log2(p + 1),
            'IA_nERR': lambda p: 1 / p, 'IA_Q': lambda p: 2 / (p + 1), 'PplusQ': lambda p: 2 / (p + 1),
            'PplusQ_sharp': lambda p: 0.5 + 1 / (p + 1), 'D_ERR': lambda p: 1 / (2 * p),
            'D_RBP': lambda p: 0.05 * 0.95 ** (p - 1), 'D_EBR': lambda p: 1 / (p + 1),  # (BR(p) = 2/(p + 1), stop 1/2)
            'D_sharp_ERR': lambda p: 0.5 + 1 / (4 * p), 'D_sharp_RBP': lambda p: 0.5 + 0.025 * 0.95 ** (p - 1),
            'D_sharp_EBR': lambda p: 0.5 + 0.5 / (p + 1), 'IA_ERR': lambda p: 1 / (2 * p),
            'IA_RBP': lambda p: 0.05 * 0.95 ** (p - 1), 'IA_EBR': lambda p: 1 / (p + 1), 'D_AP': lambda p: 1 / p,
            'D_P': lambda p: 1 / 3, 'D_Hit': lambda p: 1.0, 'D_nDCG_JK': lambda p: 1 / max(1.0, math.log2(p)),
            'I_rec_n': lambda p: float(p == 1),  # n = |I| = 1
            'SUMp': lambda p: 1.0,  # (the one intent, relevant, of probability 1: whatever the ranking)
            'D_RR': lambda p: 1 / p, 'D_O_measure': lambda p: 2 / (p + 1), 'D_P_measure': lambda p: 2 / (p + 1),
            'D_P_plus': lambda p: 2 / (p + 1), 'D_NCU': lambda p: 2 / (p + 1),  # BR(p)·γ^0 / 1
            'D_GAP': lambda p: 1 / p}  # GS = 1·2 at rank p, GI(1) = 2
#: DIN-NTCIR-eval's other lines: the one intent is informational, so each DIN-measure is its D-measure.
DIN_OF_D = ('DIN_nERR', 'DIN_ERR', 'DIN_RBP', 'DIN_EBR', 'DIN_AP', 'DIN_P', 'DIN_Hit', 'DIN_nDCG_JK', 'DIN_RR',
            'DIN_O_measure', 'DIN_P_measure', 'DIN_P_plus', 'DIN_NCU')
VALUE_AT.update({name: VALUE_AT[f'D_{name[4:]}'] for name in DIN_OF_D})
#: NTCIREVAL's intent-aware measures (they read the intents, and refuse the range and the expected value).
INTENT_AWARE = ('I_rec', 'D_nDCG', 'D_Q', 'D_nERR', 'D_sharp_nDCG', 'D_sharp_Q', 'DIN_nDCG', 'DIN_Q',
                'DIN_sharp_nDCG', 'DIN_sharp_Q', 'IA_MSnDCG', 'IA_nERR', 'IA_Q', 'PplusQ', 'PplusQ_sharp', 'D_ERR',
                'D_RBP', 'D_EBR', 'D_sharp_ERR', 'D_sharp_RBP', 'D_sharp_EBR', 'IA_ERR', 'IA_RBP', 'IA_EBR', 'D_AP',
                'D_P', 'D_Hit', 'D_nDCG_JK', 'I_rec_n', 'SUMp', 'D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus',
                'D_NCU', 'D_GAP', *DIN_OF_D)


#: The parameters other than the cutoff that a measure requires, as VALUE_AT takes them.
REQUIRED = {'iRBU': {'u': 0.9}, 'Rprec_mult': {'mult': 1.0}}
#: The measures refused under ties=expected (no closed form), by design.
NO_EXPECTED = {'nERR', 'ERR_NTCIR', 'iRBU', 'GAP', *BPREF_FAMILY, 'gm_bpref', 'eleven_pt_avg', 'ndcg_rel'}
#: The qrels of the tied query, by measure: a alone, or a and z (label 0, not retrieved) for the bpref
#: family, which scores 0 without a judged non-relevant doc.
QRELS_OF_TIED = {**{name: {'q': {'a': 1, 'z': 0}} for name in BPREF_FAMILY},
                 **{name: irmeasures_ext.intent_qrels([ir_measures.Qrel('q', 'a', 1, '1')], {'q': {'1': 1.0}})
                    for name in INTENT_AWARE}}
#: The tie policies each measure of ours refuses (as declared: NCU's default is stopping='gu'): no exact
#: expected value, or no order by credit giving its best/worst value.
REFUSED = {**{name: {'expected'} for name in NO_EXPECTED},
           **{name: {'expected', 'optimistic', 'pessimistic'}
              for name in ('P_measure', 'P_plus', 'NCU', 'EBR', 'G', *INTENT_AWARE)}}


@pytest.mark.parametrize('name', sorted(DECLARED))
def test_every_measure_of_ours_takes_every_tie_policy_and_precision(name):
    """Each declared measure, built with ties= and score_precision=, ranks by them (or refuses the policies
    REFUSED lists, by design): its value on the tied query is the hand-computed one."""
    assert set(VALUE_AT) == set(DECLARED)  # a new measure needs its row here
    prototype = DECLARED[name]
    for policy, precision in itertools.product(TIE_POLICIES, SCORE_PRECISIONS):
        measure = prototype(ties=policy, score_precision=precision, **REQUIRED.get(name, {}))
        if 'cutoff' in measure.SUPPORTED_PARAMS:
            measure = measure @ 3
        qrels = QRELS_OF_TIED.get(name, {'q': {'a': 1}})
        if policy in REFUSED.get(name, ()):
            with pytest.raises(MeasureParamError, match=f'not supported under ties={policy}'):
                irmeasures_ext.provider.iter_calc([measure], qrels, TIED)
            continue
        [got] = [m.value for m in irmeasures_ext.provider.iter_calc([measure], qrels, TIED)]
        want = statistics.fmean(map(VALUE_AT[name], POSITIONS_OF_A[policy, precision]))
        assert got == pytest.approx(want, abs=1e-12), (str(measure), policy, precision)


def test_a_new_measure_takes_the_ranking_parameters_without_declaring_them():
    class _Probe(ExtMeasure):
        NAME = 'Probe'
        SUPPORTED_PARAMS = {'rel': REL_PARAM}

    assert _Probe(ties='optimistic', score_precision='float64').params == {'ties': 'optimistic',
                                                                           'score_precision': 'float64'}
    assert sorted(_Probe.SUPPORTED_PARAMS) == ['classes', 'judged_only', 'rel', 'score_precision', 'ties']
    with pytest.raises(MeasureParamError, match="ties must be one of"):
        _Probe(ties='random')


@pytest.mark.parametrize('name', sorted(NO_EXPECTED))
def test_expected_refuses_the_measures_without_a_closed_form_by_name(name):
    measure = DECLARED[name](**REQUIRED.get(name, {}))
    measure = measure @ 5 if 'cutoff' in measure.SUPPORTED_PARAMS else measure
    with pytest.raises(MeasureParamError) as refused:
        irmeasures_ext.provider.configured(ties='expected').calc_aggregate([measure], {'q': {'a': 1}},
                                                                           {'q': {'a': 1.0}})
    assert str(refused.value) == (f'{measure} is not supported under ties=expected (no closed form for '
                                  'its mean over the orderings of tied docs); its range: ties=optimistic and '
                                  'ties=pessimistic')
    assert str(measure).startswith(name)
    assert irmeasures_ext.provider.configured(ties='optimistic').calc_aggregate([measure], {'q': {'a': 1}},
                                                                                {'q': {'a': 1.0}})


def test_expected_refuses_nerr_by_name():
    with pytest.raises(MeasureParamError) as refused:
        irmeasures_ext.provider.calc_aggregate([nERR(ties='expected') @ 5], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert str(refused.value) == ("nERR(ties='expected')@5 is not supported under ties=expected (no closed form for "
                                  'its mean over the orderings of tied docs); its range: ties=optimistic and '
                                  'ties=pessimistic')
    assert irmeasures_ext.provider.calc_aggregate([nERR(ties='optimistic') @ 5], {'q': {'a': 1}}, {'q': {'a': 1.0}})


@pytest.mark.parametrize('measure,policy', [
    *((measure, policy) for measure in (P_measure, P_plus(beta=2.0), NCU, NCU(utility='P'), EBR @ 5)
      for policy in ('optimistic', 'pessimistic', 'expected')),
    (NCU(stopping='rb'), 'expected'), (NCU(stopping='rb', utility='P'), 'expected')])
def test_refused_policies_name_the_measure(measure, policy):
    """A policy a measure cannot honour exactly is refused with the measure's name and the policy; the same
    measure under trec_eval is computed."""
    qrels, run = {'q': {'a': 1, 'b': 2}}, {'q': {'a': 1.0, 'b': 1.0}}
    with pytest.raises(MeasureParamError) as refused:
        irmeasures_ext.provider.configured(ties=policy).calc_aggregate([measure], qrels, run)
    assert str(refused.value).startswith(f'{measure} is not supported under ties={policy} (')
    if policy != 'expected':
        assert str(refused.value).endswith(f'gives its {"best" if policy == "optimistic" else "worst"} value over '
                                           'their orderings); its policies: ties=trec_eval and ties=rank')
    else:  # the policies it points to are those the measure takes
        takes_extremes = measure.params.get('stopping') == 'rb'
        assert str(refused.value).endswith('its range: ties=optimistic and ties=pessimistic' if takes_extremes
                                           else 'its policies: ties=trec_eval and ties=rank')
    assert irmeasures_ext.provider.calc_aggregate([measure], qrels, run)[measure] > 0


def test_ordering_by_gain_is_not_the_best_for_the_measures_refusing_optimistic():
    """Why P_measure, P_plus, NCU (gu) and EBR refuse optimistic/pessimistic: after a non-relevant doc, a tie of
    an L3 and a lower doc scores more with the lower doc first (the reference, so the brute force's orderings)."""
    judged = {'c': 0, 'a': 3, 'd': 2}
    for function in (reference.p_measure, reference.p_plus, reference.ncu,
                     lambda r, j: reference.ncu(r, j, utility='P'), lambda r, j: reference.ebr(r, j, 3),
                     lambda r, j: reference.ebr(r, j, 3, beta=0.0)):
        assert function(['c', 'a', 'd'], judged) < function(['c', 'd', 'a'], judged)
    assert reference.p_measure(['c', 'a', 'd'], judged) == pytest.approx(4 / 7)  # BR(2) = (1 + 3) / (2 + 5)
    assert reference.p_measure(['c', 'd', 'a'], judged) == pytest.approx(7 / 8)  # BR(3) = (2 + 5) / (3 + 5)


def test_invalid_policies_are_refused():
    with pytest.raises(MeasureParamError, match='ties must be one of trec_eval, optimistic, pessimistic, expected, '
                                                "rank; got 'random'"):
        irmeasures_ext.provider.configured(ties='random')
    with pytest.raises(MeasureParamError, match='score_precision must be one of float32, float64'):
        Q(score_precision='float16')


def test_trec_references_equal_pytrec_eval():
    """The plain trec_eval references used above, checked once against pytrec_eval."""
    judged = {'a': 3, 'b': 1, 'c': 0, 'd': 2}
    scores = {'x': 5.0, 'a': 4.0, 'c': 3.0, 'b': 2.0, 'y': 1.0}
    ranking = reference.trec_ranking(scores)
    values = pytrec_eval.RelevanceEvaluator({'q': judged}, {'map', 'P.2', 'recall.3', 'success.1', 'recip_rank',
                                                            'Rprec', 'ndcg', 'ndcg_cut.3'}).evaluate({'q': scores})['q']
    assert values['map'] == pytest.approx(reference.average_precision(ranking, judged))
    assert values['P_2'] == pytest.approx(reference.precision(ranking, judged, 2))
    assert values['recall_3'] == pytest.approx(reference.recall(ranking, judged, 3))
    assert values['success_1'] == pytest.approx(reference.success(ranking, judged, 1))
    assert values['recip_rank'] == pytest.approx(reference.reciprocal_rank(ranking, judged))
    assert values['Rprec'] == pytest.approx(reference.r_precision(ranking, judged))
    assert values['ndcg'] == pytest.approx(reference.trec_ndcg(ranking, judged))
    assert values['ndcg_cut_3'] == pytest.approx(reference.trec_ndcg(ranking, judged, 3))


def test_median_rank_under_expected_is_the_median_of_expected_ranks():
    qrels = {'1': {'a': 1}, '2': {'a': 1}, '3': {'a': 1}}
    run = {'1': {'a': 1.0, 'b': 1.0}, '2': {'a': 2.0}, '3': {'x': 3.0, 'a': 1.0, 'y': 1.0, 'z': 1.0}}
    values = irmeasures_ext.provider.configured(ties='expected').calc_aggregate([MedianRank], qrels, run)
    assert values[MedianRank] == 1.5  # expected ranks 1.5, 1 and 1 + 2.5: median 1.5
