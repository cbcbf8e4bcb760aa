"""Every measure this package defines equals its plain reference (tests/reference.py) on random data,
through every public path (ir_measures, our provider by name, the command line).

The data have score ties (some only beyond float32 precision), unjudged and negatively judged
docs, integer or real-valued labels (0.35, 2.5: read as float64), queries with R = 0, qrels queries
absent from the run or with an empty ranking, run-only queries, and the parameters vary: β, gains maps
(not always increasing), ``rel`` thresholds and cutoffs below and above R.
"""
from __future__ import annotations

import math
import statistics

import ir_measures
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st
from public_paths import CommandError, via_cli, via_ir_measures, via_provider
from reference_checks import CUTOFFS, SETTINGS, assert_matches, gains_maps, rankings, with_gains
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run

from irmeasures_ext import (
    DECLARED,
    EBR,
    ERR_NTCIR,
    GAP,
    NCU,
    RBP_NTCIR,
    InputError,
    MeanRank,
    MedianRank,
    MSnDCG,
    O_measure,
    P_measure,
    P_plus,
    Q,
    RankVariance,
    iRBU,
    nDCG_JK,
    nDCG_Z1,
    nERR,
)
from irmeasures_ext.measures.rank_stats import MedianAgg, VarianceAgg

# Generated data often has no query in common between qrels and run, or no label reaching a threshold: those
# warnings are expected here.
pytestmark = [pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning'),
              pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.UnreachedThresholdWarning')]


PATHS = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}


@st.composite
def measure_params(draw) -> dict:
    return {'beta': draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7])), 'gains': draw(gains_maps()),
            'rel': draw(st.sampled_from([1, 2, 3, 0.3, 0.5, 2.5])), 'cutoff': draw(st.sampled_from([None, *CUTOFFS])),
            'k': draw(st.sampled_from(CUTOFFS)), 'logb': draw(st.sampled_from([2.0, 0.0, 10.0, 1.5, math.e]))}


def expected_values(qrels: dict, run: dict, p: dict) -> dict[str, dict[str, float]]:
    """Reference values of Q, nDCG_Z1, MeanRank/MedianRank/RankVariance, MSnDCG, nDCG_JK and GAP, per measure
    string and query."""
    ranked = rankings(run)
    depth = reference.run_depth(qrels, run)
    gains, rel, k, t = p['gains'], p['rel'], p['k'], reference.threshold(p['rel'], qrels)
    q = Q(beta=p['beta'], rel=rel, **with_gains(gains))
    functions = {
        q if p['cutoff'] is None else q @ p['cutoff']:
            lambda r, j: reference.q_measure(r, j, p['beta'], gains, t, p['cutoff']),
        nDCG_Z1(rel=rel, **with_gains(gains)) @ k: lambda r, j: reference.ndcg_z1(r, j, k, gains, t),
        MeanRank(rel=rel): lambda r, j: reference.first_relevant_rank(r, j, depth, t),
        MedianRank(rel=rel): lambda r, j: reference.first_relevant_rank(r, j, depth, t),
        RankVariance(rel=rel): lambda r, j: reference.first_relevant_rank(r, j, depth, t),
        MSnDCG(rel=rel, **with_gains(gains)) @ k: lambda r, j: reference.msndcg(r, j, k, gains, t),
        nDCG_JK(rel=rel, **with_gains(gains)) @ k: lambda r, j: reference.ndcg_jk(r, j, k, gains, t),
        nDCG_JK(rel=rel, logb=p['logb'], **with_gains(gains)) @ k:
            lambda r, j: reference.ndcg_jk(r, j, k, gains, t, p['logb']),
        GAP(rel=rel) if p['cutoff'] is None else GAP(rel=rel) @ p['cutoff']:
            lambda r, j: reference.gap(r, j, t, p['cutoff']),
    }
    return {measure: {qid: f(ranked.get(qid, []), judged) for qid, judged in qrels.items()}
            for measure, f in functions.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from(sorted(PATHS)))
def test_measures_equal_their_reference(data, params, path):
    qrels, run = data
    expected = expected_values(qrels, run, params)
    if path == 'cli' and not any(run.values()):
        return  # a TREC file needs a line; the other paths cover empty runs
    assert_matches(expected, *PATHS[path](list(expected), qrels, run), path)


def top_gain_or_none(qrels: dict, gains: dict | None, rel: int, max_level: int | None) -> float | None:
    """g_max of NTCIREVAL's cascade measures, or None where our provider must refuse the measure: a qrels
    label above max_level, or a relevant label whose gain exceeds max_level's."""
    labels = [label for judged in qrels.values() for label in judged.values()]
    level = max_level if max_level is not None else max(gains) if gains else max([1, *labels])
    top_gain = reference.graded_gain(level, gains, rel)
    if max(labels) > level or any(reference.graded_gain(label, gains, rel) > top_gain for label in labels):
        return None
    return top_gain


def with_max_level(max_level: int | None) -> dict:
    return {} if max_level is None else {'max_level': max_level}


def nerr_expectation(qrels: dict, run: dict, p: dict, max_level: int | None) -> tuple[object, dict | None]:
    """The nERR measure for ``p`` and its reference values, or None where our provider must refuse it."""
    gains, rel, k = p['gains'], p['rel'], p['k']
    t = reference.threshold(rel, qrels)
    measure = nERR(rel=rel, **with_gains(gains), **with_max_level(max_level)) @ k
    top_gain = top_gain_or_none(qrels, gains, t, max_level)
    if top_gain is None:
        return measure, None
    ranked = rankings(run)
    return measure, {qid: reference.nerr(ranked.get(qid, []), judged, k, top_gain, gains, t)
                     for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from([None, 2, 3, 4, 6]),
       st.sampled_from(sorted(PATHS)))
def test_nerr_equals_its_reference_or_refuses(data, params, max_level, path):
    qrels, run = data
    measure, values = nerr_expectation(qrels, run, params, max_level)
    if path == 'cli' and not any(run.values()):
        return
    if values is None:
        with pytest.raises((InputError, CommandError), match='max_level'):
            PATHS[path]([measure], qrels, run)
    else:
        assert_matches({measure: values}, *PATHS[path]([measure], qrels, run), path)


def cascade_expectation(qrels: dict, run: dict, p: dict, max_level: int | None,
                        persistence: float) -> tuple[list, dict | None]:
    """RBP_NTCIR, ERR_NTCIR (at the cutoff of ``p``, or none) and iRBU@k with their reference values, or None
    where our provider must refuse them."""
    gains, rel, cutoff, k = p['gains'], p['rel'], p['cutoff'], p['k']
    t = reference.threshold(rel, qrels)
    params = {'rel': rel, **with_gains(gains), **with_max_level(max_level)}
    at_cutoff = (lambda m: m) if cutoff is None else (lambda m: m @ cutoff)
    rbp_p = min(persistence, 0.99)  # (RBP's p is below 1)
    rbp, err = at_cutoff(RBP_NTCIR(p=rbp_p, **params)), at_cutoff(ERR_NTCIR(**params))
    irbu = iRBU(u=persistence, **params) @ k
    top_gain = top_gain_or_none(qrels, gains, t, max_level)
    if top_gain is None:
        return [rbp, err, irbu], None
    ranked = rankings(run)
    functions = {rbp: lambda r, j: reference.rbp_ntcir(r, j, top_gain, rbp_p, gains, t, cutoff),
                 err: lambda r, j: reference.err_ntcir(r, j, top_gain, gains, t, cutoff),
                 irbu: lambda r, j: reference.irbu(r, j, k, top_gain, persistence, gains, t)}
    return list(functions), {measure: {qid: f(ranked.get(qid, []), judged) for qid, judged in qrels.items()}
                             for measure, f in functions.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from([None, 2, 3, 4, 6]),
       st.sampled_from([0.0, 0.5, 0.95, 1.0]),
       st.sampled_from(sorted(PATHS)))
def test_cascade_measures_equal_their_reference_or_refuse(data, params, max_level, persistence, path):
    """RBP_NTCIR (p = persistence, or 0.99 for 1), ERR_NTCIR and iRBU (u = persistence)."""
    qrels, run = data
    measures, values = cascade_expectation(qrels, run, params, max_level, persistence)
    if path == 'cli' and not any(run.values()):
        return
    if values is None:
        for measure in measures:
            with pytest.raises((InputError, CommandError), match='max_level'):
                PATHS[path]([measure], qrels, run)
    else:
        assert_matches(values, *PATHS[path](measures, qrels, run), path)


BPREF_FAMILY = ['bpref_NTCIR', 'bpref_R', 'bpref_N', 'bpref_relative', 'rpref_N', 'rpref_relative', 'rpref_relative2']


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from([None, 3, 6]),
       st.sampled_from(sorted(PATHS)))
def test_bpref_family_equals_its_reference_or_refuses(data, params, max_level, path):
    qrels, run = data
    gains, rel = params['gains'], params['rel']
    t = reference.threshold(rel, qrels)
    graded = {**with_gains(gains), **with_max_level(max_level)}
    measures = {name: DECLARED[name](rel=rel, **(graded if name.startswith('rpref') else {})) for name in BPREF_FAMILY}
    top_gain = top_gain_or_none(qrels, gains, t, max_level)
    if path == 'cli' and not any(run.values()):
        return
    if top_gain is None:
        with pytest.raises((InputError, CommandError), match='max_level'):
            PATHS[path]([measures['rpref_N']], qrels, run)
        del measures['rpref_N'], measures['rpref_relative'], measures['rpref_relative2']
    ranked = rankings(run)
    expected = {measure: {qid: reference.sakai_bpref(name, ranked.get(qid, []), judged, t, gains, top_gain or 1.0)
                          for qid, judged in qrels.items()} for name, measure in measures.items()}
    assert_matches(expected, *PATHS[path](list(measures.values()), qrels, run), path)


@settings(max_examples=100, deadline=None)
@given(qrels_and_run(INTEGER_OR_REAL_LABELS))
def test_measures_of_several_rel_in_one_evaluation_equal_their_reference(data):
    """The qrels-side values the kernels keep per judgments (N, R, the ideal grades) are kept per rel: each of
    bpref_NTCIR, bpref_N and GAP at rel 1, 2 and 3, computed together, equals its reference."""
    qrels, run = data
    ranked = rankings(run)
    references = {'bpref_NTCIR': lambda *args: reference.sakai_bpref('bpref_NTCIR', *args),
                  'bpref_N': lambda *args: reference.sakai_bpref('bpref_N', *args), 'GAP': reference.gap}
    expected = {DECLARED[name](rel=rel): {qid: value_of(ranked.get(qid, []), judged, reference.threshold(rel, qrels))
                                          for qid, judged in qrels.items()}
                for name, value_of in references.items() for rel in (1, 2, 3, 0.5)}
    assert_matches(expected, *via_provider(list(expected), qrels, run), 'provider')


def test_bpref_family_references_on_the_hand_computed_golden_case():
    """tests/data/ntcireval_full/README.md, q123 in condensed_bpref: L0, L1, L2, L0 (with an unjudged doc,
    removed); R = 3 (an L3 doc not retrieved), N = 2; gains 1:2:3."""
    judged = {'n1': 0, 'a': 1, 'b': 2, 'n2': 0, 'c': 3}
    ranking = ['n1', 'a', 'x', 'b', 'n2']
    want = {'bpref_NTCIR': 1 / 3, 'bpref_R': 4 / 9, 'bpref_relative': 1 / 6, 'rpref_N': 5 / 18,
            'rpref_relative': 1 / 12, 'rpref_relative2': 0.25, 'bpref_N': 2 * (1 - 1 / 2) / 3}
    for name, value in want.items():
        assert reference.sakai_bpref(name, ranking, judged, top_gain=3) == pytest.approx(value, abs=1e-15), name
    assert reference.sakai_bpref('bpref_R', ranking, {'a': 1}) == 0.0  # N = 0


@st.composite
def ncu_params(draw) -> dict:
    """NCU's stopping and utility, with stop values (gu; not always increasing) or γ (rb) drawn."""
    params = {'stopping': draw(st.sampled_from(['gu', 'rb'])), 'utility': draw(st.sampled_from(['BR', 'P']))}
    if params['stopping'] == 'gu' and draw(st.booleans()):
        params['stops'] = draw(gains_maps()) or {2: 0.0}
    elif params['stopping'] == 'rb':
        params['gamma'] = draw(st.sampled_from([0.0, 0.5, 0.95, 1.0]))
    return params


def blended_ratio_expectation(qrels: dict, run: dict, p: dict, ncu_choice: dict,
                              max_level: int | None) -> tuple[dict, object, dict | None]:
    """Reference values of O_measure, P_measure, P_plus and NCU; EBR (at the drawn cutoff) and its values, or
    None where our provider must refuse it (as nERR)."""
    ranked = rankings(run)
    beta, gains, rel, cutoff = p['beta'], p['gains'], p['rel'], p['cutoff']
    t = reference.threshold(rel, qrels)
    common = {'rel': rel, **with_gains(gains)}
    ncu_beta = {'beta': beta} if ncu_choice['utility'] == 'BR' else {}
    functions = {
        O_measure(beta=beta, **common): lambda r, j: reference.o_measure(r, j, beta, gains, t),
        P_measure(beta=beta, **common): lambda r, j: reference.p_measure(r, j, beta, gains, t),
        P_plus(beta=beta, **common): lambda r, j: reference.p_plus(r, j, beta, gains, t),
        NCU(**ncu_choice, **ncu_beta, **common): lambda r, j: reference.ncu(
            r, j, ncu_choice['stopping'], ncu_choice['utility'], beta, gains, ncu_choice.get('stops'),
            ncu_choice.get('gamma', 0.95), t),
    }
    expected = {measure: {qid: f(ranked.get(qid, []), judged) for qid, judged in qrels.items()}
                for measure, f in functions.items()}
    ebr = EBR(beta=beta, **common, **with_max_level(max_level))
    ebr = ebr if cutoff is None else ebr @ cutoff
    top_gain = top_gain_or_none(qrels, gains, t, max_level)
    if top_gain is None:
        return expected, ebr, None
    return expected, ebr, {qid: reference.ebr(ranked.get(qid, []), judged, top_gain, beta, gains, t, cutoff)
                           for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), ncu_params(), st.sampled_from([None, 2, 3, 4, 6]),
       st.sampled_from(sorted(PATHS)))
def test_blended_ratio_measures_equal_their_reference(data, params, ncu_choice, max_level, path):
    """O_measure, P_measure, P_plus, NCU and EBR (which refuses labels above max_level, as nERR)."""
    qrels, run = data
    if path == 'cli' and not any(run.values()):
        return
    expected, ebr, ebr_values = blended_ratio_expectation(qrels, run, params, ncu_choice, max_level)
    if ebr_values is None:
        with pytest.raises((InputError, CommandError), match='max_level'):
            PATHS[path]([ebr], qrels, run)
    else:
        expected[ebr] = ebr_values
    assert_matches(expected, *PATHS[path](list(expected), qrels, run), path)


def test_blended_ratio_references_on_hand_computed_cases():
    """README's q119 (L1, L0, L2, unjudged, L3, L0, L1; R = 4) and q123, and an NCU and EBR case by hand."""
    judged = {'a': 1, 'b': 0, 'c': 2, 'e': 3, 'f': 0, 'g': 1}
    ranking = ['a', 'b', 'c', 'x', 'e', 'f', 'g']
    assert reference.o_measure(ranking, judged) == pytest.approx(0.5, abs=1e-15)
    assert reference.p_measure(ranking, judged) == pytest.approx(0.75, abs=1e-15)
    assert reference.p_plus(ranking, judged) == pytest.approx(65 / 108, abs=1e-15)
    exponential = {1: 1, 2: 3, 3: 7}
    assert reference.p_plus(ranking, judged, 2.0, exponential) == pytest.approx(0.487356321839, abs=1e-12)
    q123 = {'a': 0, 'b': 1, 'c': 2, 'd': 0, 'e': 3}  # e (L3) not retrieved: rp is the L2 doc
    assert reference.p_measure(['a', 'b', 'x', 'c', 'd'], q123) == pytest.approx(0.5, abs=1e-15)
    assert reference.p_plus(['a', 'b', 'x', 'c', 'd'], q123) == pytest.approx(11 / 28, abs=1e-15)
    # [b (L1), a (L2)], R = 2 (ideal 2, 1): BR(1) = 2/3, BR(2) = 5/5; precision 1, 1
    pair = {'a': 2, 'b': 1}
    assert reference.ncu(['b', 'a'], pair) == pytest.approx((2 / 3 * 1 + 1 * 2) / 3, abs=1e-15)
    assert reference.ncu(['b', 'a'], pair, stops={1: 3}) == pytest.approx((2 / 3 * 3 + 1 * 2) / 5, abs=1e-15)
    assert reference.ncu(['b', 'a'], pair, 'rb', gamma=0.5) == pytest.approx((2 / 3 + 0.5) / 1.5, abs=1e-15)
    assert reference.ncu(['x', 'a'], pair, 'rb', 'P', gamma=0.5) == pytest.approx(0.5 / 1.5, abs=1e-15)
    # EBR, g_max 2: π(b) = 1/3, π(a) = 2/3; 1/3·2/3 + (2/3)(2/3)·1
    assert reference.ebr(['b', 'a'], pair, 2) == pytest.approx(2 / 9 + 4 / 9, abs=1e-15)
    assert reference.ebr(['b', 'a'], pair, 2, cutoff=1) == pytest.approx(2 / 9, abs=1e-15)


def test_reference_ranking_and_first_relevant_rank_by_hand():
    """The reference itself, on a case worked out by hand."""
    scores = {'d9': 1.0, 'd10': 1.0, 'D99': 1.0, 'a': 1.00000001, 'b': 2.0}
    assert reference.trec_ranking(scores) == ['b', 'd9', 'd10', 'a', 'D99']  # a ties with 1.0 in float32
    assert reference.first_relevant_rank(['x', 'y'], {'y': 1}, 7) == 2
    assert reference.first_relevant_rank(['x', 'y'], {'z': 1}, 7) == 3
    assert reference.first_relevant_rank([], {'z': 1}, 7) == 8


def test_q_measure_reference_on_a_hand_computed_case():
    # Ranking: a (label 2), x (unjudged), b (label 1); R = 2, ideal gains [2, 1], β = 1.
    # r=1: BR = (1 + 2) / (1 + 2) = 1; r=3: BR = (2 + 3) / (3 + 3) = 5/6; Q = (1 + 5/6) / 2.
    judged = {'a': 2, 'b': 1, 'c': 0}
    assert reference.q_measure(['a', 'x', 'b'], judged) == pytest.approx((1 + 5 / 6) / 2, abs=1e-15)
    assert reference.q_measure(['a', 'x', 'b'], judged, cutoff=1) == pytest.approx(1 / 1, abs=1e-15)
    assert reference.q_measure(['a', 'x', 'b'], judged, beta=0) == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)


def test_ndcg_family_references_on_hand_computed_cases():
    judged = {'a': 3, 'b': 1}
    # nDCG_Z1@2 of [b, a] = (2^1 - 1)/log2(2) + (2^3 - 1)/log2(3)
    assert reference.ndcg_z1(['b', 'a'], judged, 2) == pytest.approx(1 + 7 / math.log2(3), abs=1e-15)
    # MSnDCG@2 of [b, a]: (1 + 3/log2 3) / (3 + 1/log2 3); nDCG_JK@2: (1 + 3) / (3 + 1) = 1
    assert reference.msndcg(['b', 'a'], judged, 2) == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    assert reference.ndcg_jk(['b', 'a'], judged, 2) == pytest.approx(1.0, abs=1e-15)
    # nDCG_JK@2 with ln (logb=0): (1 + 3/ln 2) / (3 + 1/ln 2); with logb=10 nothing is discounted below rank 11
    assert reference.ndcg_jk(['b', 'a'], judged, 2, logb=0) == pytest.approx(
        (1 + 3 / math.log(2)) / (3 + 1 / math.log(2)))
    assert reference.ndcg_jk(['x'] * 9 + ['b', 'x', 'a'], judged, 12, logb=10) == pytest.approx(
        (1 + 3 / math.log10(12)) / 4)
    # nERR@2 with g_max = 3: p(b) = 1/4, p(a) = 3/4; ERR = 1/4 + (3/4)(3/4)/2; ideal = 3/4 + (1/4)(1/4)/2
    assert reference.nerr(['b', 'a'], judged, 2, top_gain=3) == pytest.approx((1 / 4 + 9 / 32) / (3 / 4 + 1 / 32))


def test_cascade_references_on_a_hand_computed_case():
    # [b (label 1), a (label 3)], g_max = 3: stop probabilities 1/4 and 3/4.
    judged = {'a': 3, 'b': 1}
    assert reference.rbp_ntcir(['b', 'a'], judged, 3) == pytest.approx(0.05 * (1 + 3 * 0.95) / 3, abs=1e-15)
    assert reference.rbp_ntcir(['b', 'a'], judged, 3, p=0.8, cutoff=1) == pytest.approx(0.2 / 3, abs=1e-15)
    assert reference.err_ntcir(['b', 'a'], judged, 3) == pytest.approx(1 / 4 + (3 / 4) * (3 / 4) / 2, abs=1e-15)
    assert reference.irbu(['b', 'a'], judged, 5, 3, 0.9) == pytest.approx(0.9 / 4 + 0.81 * (3 / 4) ** 2, abs=1e-15)


def test_gap_reference_on_a_hand_computed_case():
    # [b (1), x (unjudged), a (3), c (0)]: GS(1) = 1·2, GS(3) = 1·2 + 0 + 3·4; ideal [3, 1]: GI = 12 + 2.
    judged = {'a': 3, 'b': 1, 'c': 0}
    assert reference.gap(['b', 'x', 'a', 'c'], judged) == pytest.approx((2 / 1 + 14 / 3) / 14, abs=1e-15)
    assert reference.gap(['b', 'x', 'a', 'c'], judged, cutoff=1) == pytest.approx(2 / 12, abs=1e-15)
    assert reference.gap(['b', 'x', 'a', 'c'], judged, rel=2) == pytest.approx((12 / 3) / 12, abs=1e-15)


def test_median_rank_aggregates_by_median_and_mean_rank_by_mean():
    qrels = {'1': {'a': 1}, '2': {'a': 1}, '3': {'a': 1}}
    run = {'1': {'a': 3.0}, '2': {'x': 2.0, 'a': 1.0}, '3': {'x': 3.0, 'y': 2.0, 'z': 1.0, 'a': 0.5}}
    results = ir_measures.calc_aggregate([MeanRank, MedianRank, RankVariance], qrels, run)  # ranks 1, 2, 4
    # variance: ((1 - 7/3)² + (2 - 7/3)² + (4 - 7/3)²) / 3 = (16 + 1 + 25) / 27
    assert results == {MeanRank: pytest.approx(7 / 3), MedianRank: 2.0, RankVariance: pytest.approx(42 / 27)}


@given(st.lists(st.lists(st.floats(-1e6, 1e6) | st.integers(-3, 3), min_size=1, max_size=9),
                min_size=1, max_size=4))
def test_the_median_aggregate_is_the_middle_value_or_the_mean_of_the_two_middle_ones(rows):
    """Against ``statistics.median``, row by row (each row one run's per-query values)."""
    import numpy as np

    width = min(map(len, rows))
    table = np.array([row[:width] for row in rows], dtype=np.float64)
    expected = [statistics.median(row.tolist()) for row in table]
    assert MedianAgg.of(table).tolist() == expected
    assert MedianAgg.of(table[0]) == expected[0] and np.ndim(MedianAgg.of(table[0])) == 0


@pytest.mark.parametrize('count', [1000, 1001])
def test_the_median_and_variance_of_many_values_as_the_statistics_module(count):
    """Many long rows of distinct values (each a shuffled 0..count-1): numpy's selection leaves the value
    before the middle one in its place in only some of them unless asked for it."""
    import numpy as np

    rows = np.argsort(np.random.default_rng(count).random((2000, count)), axis=1).astype(np.float64)
    assert MedianAgg.of(rows).tolist() == [statistics.median(row) for row in rows.tolist()]
    assert VarianceAgg.of(rows[:20]) == pytest.approx([statistics.pvariance(row) for row in rows[:20].tolist()],
                                                      rel=1e-12)


def test_the_aggregators_fed_value_by_value_as_ir_measures_feeds_them():
    for measure, expected in ((MedianRank, 2.5), (RankVariance, statistics.pvariance([1.0, 2.0, 3.0, 10.0]))):
        aggregator = measure.aggregator()
        for value in (3.0, 1.0, 10.0, 2.0):
            aggregator.add(value)
        assert aggregator.result() == pytest.approx(expected, rel=1e-15), measure
        assert math.isnan(measure.aggregator().result()), measure


def test_the_median_and_variance_are_nan_where_a_value_is_or_none_are():
    import numpy as np

    for aggregate in (MedianAgg, VarianceAgg):
        assert np.isnan(aggregate.of(np.array([], dtype=np.float64))) and np.ndim(aggregate.of(np.array([]))) == 0
        assert aggregate.of(np.zeros((2, 0))).shape == (2,) and np.isnan(aggregate.of(np.zeros((2, 0)))).all()
    values = MedianAgg.of(np.array([[3.0, math.nan, 1.0], [3.0, 2.0, 1.0]]))
    assert math.isnan(values[0]) and values[1] == 2.0


def test_the_median_does_not_load_numpy_ma():
    """numpy 2's ``np.median`` imports numpy.ma (~6 ms) on first use; the engine's median must not (numpy 1
    imports numpy.ma with numpy)."""
    import subprocess
    import sys

    code = ('import sys, numpy as np; from irmeasures_ext.measures.rank_stats import MedianAgg; '
            'before = "numpy.ma" in sys.modules; MedianAgg.of(np.array([1.0, 2.0])); '
            'print(not before and "numpy.ma" in sys.modules)')
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout == 'False\n'


@pytest.mark.parametrize('path', sorted(PATHS))
def test_queries_only_in_the_run_do_not_move_the_rank_statistics(path):
    """The issue's case: q2 is unanswered, so its rank is 1 + the most docs a qrels query retrieved (q1: 1),
    whatever a query the qrels do not have (zz, 50 docs) retrieved; a run answering only such queries
    gives NaN, never a best rank."""
    measures = [MeanRank, MedianRank, RankVariance]
    qrels, run = {'q1': {'d1': 1}, 'q2': {'d1': 1}}, {'q1': {'d1': 1.0}}
    run_only = {'zz': {f'x{i}': 1.0 for i in range(50)}}
    per_query, aggregates = PATHS[path](measures, qrels, {**run, **run_only})
    assert (per_query, aggregates) == PATHS[path](measures, qrels, run)
    assert per_query == {(str(m), 'q1'): 1.0 for m in measures} | {(str(m), 'q2'): 2.0 for m in measures}
    assert aggregates == {'MeanRank': 1.5, 'MedianRank': 1.5, 'RankVariance': 0.25}
    per_query, aggregates = PATHS[path](measures, qrels, run_only)
    assert all(math.isnan(value) for value in [*per_query.values(), *aggregates.values()]), (per_query, aggregates)
