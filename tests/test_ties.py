"""Tie policies against brute force: every ordering of every tie group enumerated (expected: the exact
mean; optimistic/pessimistic: the orderings they define), the rank policy against the same run with
scores replaced by -rank, and the score precision."""
from __future__ import annotations

import itertools
import math
import statistics

import ir_measures
import pandas as pd
import pytest
import pytrec_eval
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeasures_ext
from irmeasures_ext import InputError, MeanRank, MeasureParamError, MedianRank, MSnDCG, Q, nDCG_JK, nDCG_Z1, nERR

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

LABELS = {'a': 3, 'b': 1, 'c': 0, 'd': 2, 'e': 1, 'f': -1}  # docs x, y, z are unjudged


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
    ]
    return listed


CASES = cases()
MEASURES = [measure for measure, _ in CASES]


@st.composite
def tied_runs(draw):
    """Runs of 2-3 queries over a few docs, scores from {1, 2, 3}: many ties."""
    qrels, run = {}, {}
    for query_id in draw(st.lists(st.sampled_from(['q1', 'q2', 'q3']), min_size=1, max_size=3, unique=True)):
        judged = draw(st.lists(st.sampled_from(sorted(LABELS)), min_size=1, max_size=5, unique=True))
        qrels[query_id] = {doc: LABELS[doc] for doc in judged}
        docs = draw(st.lists(st.sampled_from([*LABELS, 'x', 'y', 'z']), max_size=6, unique=True))
        run[query_id] = {doc: draw(st.sampled_from([1.0, 2.0, 3.0])) for doc in docs}
    return qrels, run


def orderings(scores: dict[str, float]):
    """Every ranking of the docs, score descending, any order within equal scores."""
    groups = [sorted(doc for doc in scores if scores[doc] == score) for score in sorted(set(scores.values()),
                                                                                        reverse=True)]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [doc for group in choice for doc in group]


def per_query(provider, measures, qrels, run):
    return {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_expected_is_the_exact_mean_over_all_orderings(data):
    qrels, run = data
    ours = per_query(irmeasures_ext.provider.configured(ties='expected'), MEASURES, qrels, run)
    depth = max((len(docs) for docs in run.values()), default=0)
    for measure, function in CASES:
        for qid, judged in qrels.items():
            values = [function(ranking, judged, depth) for ranking in orderings(run.get(qid, {}))]
            want = statistics.fmean(values) if values else function([], judged, depth)
            got = ours[str(measure), qid]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12), (measure, qid)


def policy_ranking(scores: dict[str, float], judged: dict[str, int], policy: str) -> list[str]:
    """The ranking optimistic (higher labels first) or pessimistic (lower first, unjudged lowest) defines."""
    def label(doc):
        return judged.get(doc, -math.inf)
    sign = -1 if policy == 'optimistic' else 1
    return sorted(scores, key=lambda doc: (-scores[doc], sign * label(doc)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(), st.sampled_from(['optimistic', 'pessimistic']))
def test_optimistic_and_pessimistic_are_the_orderings_they_define(data, policy):
    qrels, run = data
    ours = per_query(irmeasures_ext.provider.configured(ties=policy), MEASURES, qrels, run)
    depth = max((len(docs) for docs in run.values()), default=0)
    for measure, function in CASES:
        for qid, judged in qrels.items():
            want = function(policy_ranking(run.get(qid, {}), judged, policy), judged, depth)
            got = ours[str(measure), qid]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12), (measure, qid)
            values = [function(r, judged, depth) for r in orderings(run.get(qid, {}))] or [want]
            best, worst = (max, min) if measure.NAME not in ('MeanRank',) else (min, max)
            if not math.isnan(want):  # and it is the best / worst of all orderings
                assert want == pytest.approx((best if policy == 'optimistic' else worst)(values), abs=1e-12)


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


def test_rank_policy_reads_the_rank_column_of_trec_files(tmp_path):
    (tmp_path / 'qrels').write_text('q 0 a 1\n')
    (tmp_path / 'run').write_text('q Q0 a 2 9 t\nq Q0 b 1 1 t\n')  # by score a first; by rank b first
    ours = irmeasures_ext.provider.configured(ties='rank')
    assert ours.calc_aggregate([ir_measures.RR], tmp_path / 'qrels', tmp_path / 'run')[ir_measures.RR] == 0.5
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR], tmp_path / 'qrels',
                                                  tmp_path / 'run')[ir_measures.RR] == 1.0


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


def test_expected_refuses_nerr_by_name():
    with pytest.raises(MeasureParamError, match=r'nERR\(ties=.expected.\)@5 is not supported under ties=expected'):
        irmeasures_ext.provider.calc_aggregate([nERR(ties='expected') @ 5], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert irmeasures_ext.provider.calc_aggregate([nERR(ties='optimistic') @ 5], {'q': {'a': 1}}, {'q': {'a': 1.0}})


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
