"""trec_eval 9.0.8's remaining measures on our provider: ir_measures' Bpref, infAP, IPrec, NumQ, SetP, SetR, SetF
and SetAP, and ours named after trec_eval's (gm_map, gm_bpref, Rndcg, eleven_pt_avg, binG, G, utility, Rprec_mult,
ndcg_rel, relative_P, num_nonrel_judged_ret).

Against the plain references of tests/reference.py (loops written from trec_eval's m_<name>.c) through every
public path, with the depth cut (trec_eval -M), judged_only (trec_eval -J) and equivalence classes; against
pytrec_eval (which embeds trec_eval 9.0.8) on generated data; the tie policies against brute force over the
orderings of tied docs; and the refusals and parameter checks by name. (trec_eval's own outputs on our data:
tests/measures/test_trec_eval_conformance.py.)
"""
from __future__ import annotations

import itertools
import math
import re
import statistics

import ir_measures
import pytest
import pytrec_eval
import reference
from class_qrels import qrels_with_classes, split
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import CommandError, via_cli, via_ir_measures, via_provider
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run
from stream_checks import assert_streams_as_in_memory, write_files

import irmeasures_ext
from irmeasures_ext import (
    G,
    MeasureParamError,
    Rndcg,
    Rprec_mult,
    binG,
    eleven_pt_avg,
    gm_bpref,
    gm_map,
    ndcg_rel,
    num_nonrel_judged_ret,
    relative_P,
    utility,
)
from irmeasures_ext.measures.base import Ranking
from irmeasures_ext.measures.rank_stats import GeometricMeanAgg

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Aggregated by trec_eval's geometric mean and by sums; the others by the mean.
GEOMETRIC = {'gm_map', 'gm_bpref'}
SUMS = {'NumQ', 'num_nonrel_judged_ret'}


@st.composite
def measure_params(draw) -> dict:
    gains = None if draw(st.booleans()) else {label: draw(st.sampled_from([0, 0.5, 1, 2, 3, 7])) for label in
                                               draw(st.lists(st.integers(1, 4), min_size=1, max_size=4, unique=True))}
    return {'rel': draw(st.integers(1, 3)), 'gains': gains,
            'recall': draw(st.sampled_from([0.0, 0.1, 0.15, 0.3, 0.5, 0.7, 0.9, 1.0])),
            'mult': draw(st.sampled_from([0.05, 0.2, 0.5, 1.0, 1.5, 2.0])),
            'cutoff': draw(st.sampled_from([1, 2, 3, 5, 10, 50])), 'beta': draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])),
            'relative': draw(st.booleans()),
            'weights': tuple(draw(st.sampled_from([1.0, -1.0, 0.0, 0.5, -2.0])) for _ in range(4)),
            'num_docs': draw(st.sampled_from([0, 100]))}


def ours(p: dict, **extra) -> dict:
    """Our measures with the drawn parameters (and ``extra``: judged_only, classes) -> their references."""
    rel, gains = p['rel'], p['gains']
    graded = {} if gains is None else {'gains': gains}
    a, b, c, d = p['weights']
    return {
        gm_map(rel=rel, **extra): lambda r, j: reference.average_precision(r, j, p['t']),
        gm_bpref(rel=rel, **extra): lambda r, j: reference.bpref(r, j, p['t']),
        Rndcg(rel=rel, **graded, **extra): lambda r, j: reference.rndcg(r, j, gains, p['t']),
        eleven_pt_avg(rel=rel, **extra): lambda r, j: reference.eleven_pt_avg(r, j, p['t']),
        binG(rel=rel, **extra): lambda r, j: reference.bin_g(r, j, p['t']),
        G(**graded, **extra): lambda r, j: reference.normalised_gain(r, j, gains),
        utility(rel=rel, rel_ret=a, nonrel_ret=b, rel_missed=c, nonrel_missed=d, num_docs=p['num_docs'], **extra):
            lambda r, j: reference.utility(r, j, p['weights'], p['num_docs'], p['t']),
        Rprec_mult(rel=rel, **extra) @ p['mult']: lambda r, j: reference.rprec_mult(r, j, p['mult'], p['t']),
        ndcg_rel(**graded, **extra): lambda r, j: reference.ndcg_rel(r, j, gains),
        relative_P(rel=rel, **extra) @ p['cutoff']:
            lambda r, j: reference.relative_precision(r, j, p['cutoff'], p['t']),
        num_nonrel_judged_ret(rel=rel, **extra): lambda r, j: reference.num_nonrel_judged_ret(r, j, p['t']),
    }


def ir_measures_own(p: dict, judged_only: bool | None = None) -> dict:
    """ir_measures' measures (with ``judged_only`` where their spec has it; None: without it) -> references."""
    rel, flag = p['rel'], {} if judged_only is None else {'judged_only': judged_only}
    name = 'set_relative_P' if p['relative'] else 'set_P'
    measures = {
        ir_measures.IPrec(rel=rel, **flag) @ p['recall']:
            lambda r, j: reference.iprec_at_recall(r, j, p['recall'], p['t']),
        ir_measures.SetP(rel=rel, relative=p['relative'], **flag):
            lambda r, j: reference.set_measure(name, r, j, p['t']),
        ir_measures.SetF(rel=rel, beta=p['beta'], **flag):
            lambda r, j: reference.set_measure('set_F', r, j, p['t'], p['beta']),
        ir_measures.SetAP(rel=rel, **flag): lambda r, j: reference.set_measure('set_map', r, j, p['t']),
    }
    if judged_only is None:
        measures.update({
            ir_measures.Bpref(rel=rel): lambda r, j: reference.bpref(r, j, p['t']),
            ir_measures.infAP(rel=rel): lambda r, j: reference.inferred_ap(r, j, p['t']),
            ir_measures.SetR(rel=rel): lambda r, j: reference.set_measure('set_recall', r, j, p['t']),
            ir_measures.NumQ: lambda r, j: 1,
        })
    return measures


def rankings(run: dict) -> dict[str, list[str]]:
    return {query_id: reference.trec_ranking(scores) for query_id, scores in run.items()}


def aggregate(measure, values: list[float]) -> float:
    if measure.NAME in GEOMETRIC:
        return reference.geometric_mean(values)
    return sum(values) if measure.NAME in SUMS else sum(values) / len(values)


def same(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


def assert_paths_match(functions: dict, qrels: dict, run: dict, path, lists=None, view=None) -> None:
    """Per query and aggregate: the measures through ``path`` against their references on each qrels query's
    ranking (``lists`` turns it into the list the measure is defined on; ``view`` its judgments)."""
    ranked = rankings(run)
    per_query, aggregates = path(list(functions), qrels, run)
    for measure, function in functions.items():
        values = []
        for qid, judged in qrels.items():
            ranking = ranked.get(qid, [])
            seen = judged if view is None else view(qid, ranking)
            want = function(ranking if lists is None else lists(ranking, seen), seen)
            got = per_query[str(measure), qid]
            assert same(got, want), (path.__name__, str(measure), qid, got, want)
            values.append(want)
        assert same(aggregates[str(measure)], aggregate(measure, values)), (path.__name__, str(measure))
    assert {qid for _, qid in per_query} == set(qrels)


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from(['ir_measures', 'provider', 'cli']))
def test_our_measures_equal_their_reference(data, params, path):
    qrels, run = data
    params = {**params, 't': reference.threshold(params['rel'], qrels)}
    if path == 'cli' and not any(run.values()):
        return  # a TREC file needs a line; the other paths cover empty runs
    paths = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}
    assert_paths_match(ours(params), qrels, run, paths[path])


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from(['provider', 'cli']))
def test_ir_measures_own_equal_their_reference(data, params, path):
    """Bpref, infAP, IPrec, NumQ and the set measures: ours through our provider by name and the command line
    (the default pipeline gives them to pytrec_eval)."""
    qrels, run = data
    params = {**params, 't': reference.threshold(params['rel'], qrels)}
    if path == 'cli' and not any(run.values()):
        return
    assert_paths_match(ir_measures_own(params), qrels, run, via_provider if path == 'provider' else via_cli)


def via_depth(depth: int):
    def path(measures, qrels, run):
        provider = irmeasures_ext.provider.configured(depth=depth)
        return ({(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)},
                {str(m): v for m, v in provider.calc_aggregate(measures, qrels, run).items()})
    path.__name__ = f'depth {depth}'
    return path


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from([1, 2, 3, 10]))
def test_depth_cut_is_the_reference_on_the_top_of_the_ranking(data, params, depth):
    """trec_eval -M: every measure as on the run's first ``depth`` ranked docs (R and N from the whole qrels)."""
    qrels, run = data
    params = {**params, 't': reference.threshold(params['rel'], qrels)}
    assert_paths_match({**ours(params), **ir_measures_own(params)}, qrels, run, via_depth(depth),
                       lists=lambda ranking, judged: ranking[:depth])


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), measure_params(), st.sampled_from(['provider', 'cli']))
def test_judged_only_is_trec_eval_minus_j(data, params, path):
    """judged_only=True: the retrieved docs with a label >= 0 only, ranks closed up (trec_eval -J), for ours and
    for ir_measures' IPrec, SetP, SetF and SetAP."""
    qrels, run = data
    params = {**params, 't': reference.threshold(params['rel'], qrels)}
    if path == 'cli' and not any(run.values()):
        return
    functions = {**ours(params, judged_only=True), **ir_measures_own(params, judged_only=True)}
    assert_paths_match(functions, qrels, run, via_provider if path == 'provider' else via_cli,
                       lists=lambda ranking, judged: reference.condensed(ranking, judged, 0))


@SETTINGS
@given(qrels_with_classes(), measure_params())
def test_equivalence_classes_are_the_reference_on_the_class_view(data, params):
    """classes=True (NTCIREVAL's -ec; trec_eval has none): each measure on reference.ClassJudged's view; ours by
    their parameter, ir_measures' by the provider's setting."""
    qrels, run = data
    labels, classes = split(qrels)
    params = {**params, 't': reference.threshold(params['rel'], labels)}
    functions = {**ours(params, classes=True), **ir_measures_own(params)}
    ranked = rankings(run)
    provider = irmeasures_ext.provider.configured(classes=True)
    per_query = {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(list(functions), qrels, run)}
    for measure, function in functions.items():
        for qid, judged in labels.items():
            ranking = ranked.get(qid, [])
            want = function(ranking, reference.ClassJudged(ranking, judged, classes[qid]))
            assert same(per_query[str(measure), qid], want), (str(measure), qid)


# --- against pytrec_eval (trec_eval 9.0.8) ---------------------------------------------------------------------

def pytrec_eval_cases(p: dict) -> list[tuple[object, str, str, int, bool]]:
    """(our measure, pytrec_eval's measure, its key in the results, relevance_level, judged_docs_only_flag).
    pytrec_eval cannot take gains pairs (G.1=3 aborts it) nor utility weights (it gives 0): those are checked
    against trec_eval's own outputs (tests/data/trec_eval_ours)."""
    rel, recall, mult, k, beta = p['rel'], p['recall'], p['mult'], p['cutoff'], p['beta']
    cases = []
    for judged_only in (False, True):
        flag = {'judged_only': True} if judged_only else {}
        cases += [
            (ir_measures.IPrec(rel=rel, **flag) @ recall, f'iprec_at_recall.{recall}', f'iprec_at_recall_{recall:.2f}'),
            (ir_measures.SetP(rel=rel, **flag), 'set_P', 'set_P'),
            (ir_measures.SetP(rel=rel, relative=True, **flag), 'set_relative_P', 'set_relative_P'),
            (ir_measures.SetF(rel=rel, beta=beta, **flag), f'set_F.{beta}', 'set_F'),
            (ir_measures.SetAP(rel=rel, **flag), 'set_map', 'set_map'),
            (gm_map(rel=rel, **flag), 'gm_map', 'gm_map'), (gm_bpref(rel=rel, **flag), 'gm_bpref', 'gm_bpref'),
            (Rndcg(rel=rel, **flag), 'Rndcg', 'Rndcg'), (eleven_pt_avg(rel=rel, **flag), '11pt_avg', '11pt_avg'),
            (binG(rel=rel, **flag), 'binG', 'binG'), (G(**flag), 'G', 'G'),
            (utility(rel=rel, **flag), 'utility', 'utility'),
            (Rprec_mult(rel=rel, **flag) @ mult, f'Rprec_mult.{mult}', f'Rprec_mult_{mult:.2f}'),
            (ndcg_rel(**flag), 'ndcg_rel', 'ndcg_rel'), (relative_P(rel=rel, **flag) @ k, f'relative_P.{k}',
                                                          f'relative_P_{k}'),
            (num_nonrel_judged_ret(rel=rel, **flag), 'num_nonrel_judged_ret', 'num_nonrel_judged_ret'),
        ]
    both = [(ir_measures.Bpref(rel=rel), 'bpref', 'bpref'), (ir_measures.infAP(rel=rel), 'infAP', 'infAP'),
            (ir_measures.SetR(rel=rel), 'set_recall', 'set_recall'), (ir_measures.NumQ, 'num_q', 'num_q')]
    return [(m, name, key, rel, bool(m.params.get('judged_only'))) for m, name, key in cases + both]


def pytrec_eval_values(qrels: dict, run: dict, cases: list) -> dict[tuple[str, str], float]:
    """pytrec_eval's values, one query at a time (it can crash on a run dict with an empty query beside others),
    for the queries that retrieve docs and have a label >= 0 (it hangs on a query whose labels are all negative);
    negative labels are passed as they are: they are trec_eval's "in the pool, not judged"."""
    expected = {}
    groups: dict[tuple[int, bool], list] = {}
    for case in cases:
        groups.setdefault(case[3:], []).append(case)
    for qid in set(qrels) & {q for q, docs in run.items() if docs}:
        if max(qrels[qid].values()) < 0:
            continue
        for (level, judged_only), group in groups.items():
            evaluator = pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, {name for _, name, *_ in group},
                                                       relevance_level=level, judged_docs_only_flag=judged_only)
            values = evaluator.evaluate({qid: run[qid]})[qid]
            expected.update(((str(measure), qid), values[key]) for measure, _, key, *_ in group)
    return expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(), measure_params())
def test_equal_to_pytrec_eval(data, params):
    qrels, run = data
    cases = pytrec_eval_cases(params)
    ours_, _ = via_provider([case[0] for case in cases], qrels, run)
    for (name, qid), value in pytrec_eval_values(qrels, run, cases).items():
        got = ours_[name, qid]
        if name.startswith('gm_'):  # trec_eval accumulates log(max(value, 1e-5)) per query
            got, value = max(got, reference.MIN_GEO_MEAN), math.exp(value)
        if math.isnan(value):  # trec_eval -J divides 0 by 0 for a query retrieving no judged doc: ours 0
            assert name.startswith(('IPrec', 'eleven_pt_avg')) and got == 0, (name, qid, got)
            continue
        assert math.isclose(got, value, rel_tol=1e-12, abs_tol=1e-9), (name, qid, got, value)


# --- tie policies ---------------------------------------------------------------------------------------------

LABELS = {'a': 3, 'b': 1, 'c': 0, 'd': 2, 'e': 1, 'f': -1, 'g': 0, 'h': -2, 'i': 2.5, 'j': 0.35, 'k': -1.5}
# (docs x, y, z are not judged; i, j and k have real-valued labels)


@st.composite
def tied_runs(draw):
    """One query over a few docs, scores from {1, 2, 3}: many ties."""
    judged = {doc: LABELS[doc] for doc in draw(st.lists(st.sampled_from(sorted(LABELS)), min_size=1, max_size=6,
                                                       unique=True))}
    docs = draw(st.lists(st.sampled_from([*LABELS, 'x', 'y', 'z']), max_size=7, unique=True))
    return {'q': judged}, {'q': {doc: draw(st.sampled_from([1.0, 2.0, 3.0])) for doc in docs}}


def orderings(scores: dict[str, float]):
    groups = [sorted(doc for doc in scores if scores[doc] == score) for score in sorted(set(scores.values()),
                                                                                        reverse=True)]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [doc for group in choice for doc in group]


#: What each measure refuses under each policy (no exact expected value, or no order by credit that gives the
#: best/worst value).
NO_EXPECTED = {'Bpref', 'infAP', 'IPrec', 'gm_bpref', 'eleven_pt_avg', 'G', 'ndcg_rel'}
NOT_BOUNDED = {'infAP', 'G'}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(), measure_params())
def test_tie_policies_are_the_best_worst_and_mean_over_the_orderings(data, params):
    qrels, run = data
    params = {**params, 't': reference.threshold(params['rel'], qrels)}
    functions = {**ours(params), **ir_measures_own(params)}
    judged, scores = qrels['q'], run['q']
    all_values = {measure: [function(ranking, judged) for ranking in orderings(scores)]
                  for measure, function in functions.items()}
    for policy in ('optimistic', 'pessimistic', 'expected'):
        provider = irmeasures_ext.provider.configured(ties=policy)
        refused = NO_EXPECTED if policy == 'expected' else NOT_BOUNDED
        taken = [measure for measure in functions if measure.NAME not in refused]
        got = {m.measure: m.value for m in provider.iter_calc(taken, qrels, run)}
        for measure in taken:
            want = {'optimistic': max, 'pessimistic': min, 'expected': statistics.fmean}[policy](all_values[measure])
            assert math.isclose(got[measure], want, rel_tol=1e-12, abs_tol=1e-12), (str(measure), policy)
        for measure in set(functions) - set(taken):
            with pytest.raises(MeasureParamError, match=f'^{re.escape(str(measure))} is not supported under '
                                                        f'ties={policy}'):
                provider.calc_aggregate([measure], qrels, run)


def test_ordering_by_credit_is_not_the_best_for_infap_and_g():
    """Why infAP and G refuse optimistic/pessimistic. infAP: a doc in the pool but not judged (label −1) above a
    relevant doc raises its term, so the relevant doc first is not the best: with two unjudged docs above,
    1/3 (b at rank 3) against 1/4 + (3/4)·(1/3)·(ε/2ε) = 3/8 (b at rank 4). G: after a gain-1 doc (ideal gains 3, 2,
    1), the gain-2 doc before the gain-3 one scores 1/log2(4) + 3/log2(2) = 4.5 (/6), the other order 3/log2(3) + 2
    = 4.39 (/6)."""
    judged = {'h': -1, 'b': 1}
    assert reference.inferred_ap(['x', 'y', 'b', 'h'], judged) == pytest.approx(1 / 3)
    assert reference.inferred_ap(['x', 'y', 'h', 'b'], judged) == pytest.approx(3 / 8, abs=1e-5)
    judged = {'a': 3, 'd': 2, 'e': 1, 'c': 0}
    assert reference.normalised_gain(['e', 'd', 'a', 'x'], judged) == pytest.approx((0.5 + 1 + 3) / 6)
    assert reference.normalised_gain(['e', 'a', 'd', 'x'], judged) == pytest.approx((0.5 + 3 / math.log2(3) + 2) / 6)
    for measure in (ir_measures.infAP, G):
        for policy in ('optimistic', 'pessimistic'):
            with pytest.raises(MeasureParamError, match=f'not supported under ties={policy}'):
                irmeasures_ext.provider.configured(ties=policy).calc_aggregate([measure], {'q': judged}, {'q': {}})


# --- by hand ----------------------------------------------------------------------------------------------------

def test_geometric_mean_by_hand():
    """exp(mean log(max(v, 1e-5))): (1 · 1e-5 · 0.01)^(1/3) = 10^(-7/3)."""
    aggregator = GeometricMeanAgg()
    for value in (1.0, 0.0, 0.01):
        aggregator.add(value)
    assert aggregator.result() == pytest.approx(10 ** (-7 / 3), rel=1e-12)
    assert math.isnan(GeometricMeanAgg().result())
    qrels = {'1': {'a': 1}, '2': {'a': 1}, '3': {'a': 1}}
    run = {'1': {'a': 1.0}, '2': {'x': 2.0, 'a': 1.0}}  # AP 1, 1/2, and 0 (absent): counted as 1e-5
    values = irmeasures_ext.provider.calc_aggregate([gm_map, gm_bpref, ir_measures.AP], qrels, run)
    assert values[gm_map] == pytest.approx((1 * 0.5 * 1e-5) ** (1 / 3), rel=1e-12)
    assert values[gm_bpref] == pytest.approx((1 * 1 * 1e-5) ** (1 / 3), rel=1e-12)  # no judged non-relevant doc
    assert values[ir_measures.AP] == pytest.approx(0.5)


def test_num_q_counts_every_qrels_query_as_trec_eval_c():
    """NumQ: 1 per qrels query, summed: 3 here (trec_eval -c; pytrec_eval and trec_eval without -c: 2)."""
    qrels = {'1': {'a': 1}, '2': {'a': 0}, '3': {'b': 2}}
    run = {'1': {'a': 1.0}, '2': {'a': 1.0}, '9': {'a': 1.0}}
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.NumQ], qrels, run)[ir_measures.NumQ] == 3
    assert ir_measures.pytrec_eval.calc_aggregate([ir_measures.NumQ], qrels, run)[ir_measures.NumQ] == 2


def test_counts_are_integers_per_query():
    """NumQ and num_nonrel_judged_ret are counts, integers per query as trec_eval prints them (m_num_q.c,
    m_num_nonrel_judged_ret.c: "%ld"), like NumRet: q retrieves one judged non-relevant doc (b), r none."""
    qrels, run = {'q': {'a': 1, 'b': 0}, 'r': {'c': 1}}, {'q': {'a': 2.0, 'b': 1.0}}
    values = [(str(m.measure), m.query_id, m.value) for m in
              irmeasures_ext.provider.iter_calc([ir_measures.NumQ, num_nonrel_judged_ret], qrels, run)]
    assert sorted(values) == [('NumQ', 'q', 1), ('NumQ', 'r', 1), ('num_nonrel_judged_ret', 'q', 1),
                              ('num_nonrel_judged_ret', 'r', 0)]
    assert all(type(value) is int for _, _, value in values)


def test_bpref_at_two_relevance_levels_in_one_evaluation():
    """Bpref(rel=1) and Bpref(rel=2) in one evaluation, each its reference value: N, the judged non-relevant docs,
    is 1 (c) at rel=1 and 3 (c, a, x) at rel=2, so neither may take the other's. rel=1: only x has c above, 1 − 1/1:
    (1 + 1 + 1 + 0)/4; rel=2: z has a above, 1 − 1/min(3, 2): (1 + 1/2)/2."""
    judged, ranking = {'c': 0, 'a': 1, 'b': 2, 'x': 1, 'z': 2}, ['b', 'a', 'z', 'c', 'x']
    qrels, run = {'q': judged}, {'q': {doc: 5.0 - rank for rank, doc in enumerate(ranking)}}
    measures = [ir_measures.Bpref(rel=1), ir_measures.Bpref(rel=2)]
    for order in (measures, measures[::-1]):
        values = irmeasures_ext.provider.calc_aggregate(order, qrels, run)
        assert values[measures[0]] == pytest.approx(reference.bpref(ranking, judged, 1), rel=1e-12)
        assert values[measures[1]] == pytest.approx(reference.bpref(ranking, judged, 2), rel=1e-12)
        assert (values[measures[0]], values[measures[1]]) == (0.75, 0.75)


def test_negative_labels_are_in_the_pool_but_not_judged():
    """bpref skips a doc labelled −1 (no judged non-relevant above b: 1), infAP counts it above the relevant doc
    (1/2 + (1/2)·(1/1)·(ε/(0 + 0 + 2ε)) = 3/4), num_nonrel_judged_ret does not count it, and judged_only drops it
    (binG: 1/log2(2) with b first, against 1/log2(3))."""
    qrels, run = {'q': {'h': -1, 'b': 1, 'c': 0}}, {'q': {'h': 2.0, 'b': 1.0}}
    values = irmeasures_ext.provider.calc_aggregate(
        [ir_measures.Bpref, ir_measures.infAP, num_nonrel_judged_ret, binG, binG(judged_only=True)], qrels, run)
    assert values[ir_measures.Bpref] == 1.0
    assert values[ir_measures.infAP] == pytest.approx(0.75, abs=1e-5)
    assert values[num_nonrel_judged_ret] == 0
    assert values[binG] == pytest.approx(1 / math.log2(3)) and values[binG(judged_only=True)] == 1.0


def test_g_of_a_query_whose_ideal_list_is_empty_is_0_beside_others():
    """G under classes with gains that do not grow with the label: query 2's class of labels 2 and 1 has the
    highest label 2, of gain 0, so its ideal list is empty (total ideal gain 0: G is 0, reference.normalised_gain),
    though its retrieved member y keeps its own label 1 (gain 1). Query 1 (ideal gain 1) must not lend it its
    ideal list: neither its total ideal gain as the denominator nor its ideal cost to y's rank."""
    qrels = {'1': {'a': (1, 0)}, '2': {'x': (2, 0), 'y': (1, 0)}}
    run = {'1': {'a': 1.0}, '2': {'y': 2.0, 'x': 1.0}}
    provider = irmeasures_ext.provider.configured(classes=True)
    measure = G(gains={2: 0}, classes=True)
    per_query = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
    assert per_query == {'1': 1.0, '2': 0.0}


def test_gain_measures_with_other_gains_in_one_evaluation_keep_their_own_ideal_list():
    """G, ndcg_rel and Rndcg with and without gains in one evaluation of the same qrels: each its reference value
    (the ideal lists, [2, 1] by the labels and [3, 2] with gains={1: 3}, are not shared)."""
    judged, ranking = {'a': 1, 'b': 2, 'c': 0}, ['c', 'a', 'b']
    qrels, run = {'q': judged}, {'q': {'c': 3.0, 'a': 2.0, 'b': 1.0}}
    functions = {}
    for gains in (None, {1: 3}):
        graded = {} if gains is None else {'gains': gains}
        functions[G(**graded)] = reference.normalised_gain(ranking, judged, gains)
        functions[ndcg_rel(**graded)] = reference.ndcg_rel(ranking, judged, gains)
        functions[Rndcg(**graded)] = reference.rndcg(ranking, judged, gains)
    for order in (list(functions), list(reversed(functions))):
        values = irmeasures_ext.provider.calc_aggregate(order, qrels, run)
        for measure, want in functions.items():
            assert values[measure] == pytest.approx(want, rel=1e-12), str(measure)
    assert functions[G()] != functions[G(gains={1: 3})]


@pytest.mark.parametrize('make, message', [
    (lambda: Rndcg(gains={-1: 2.0}), r'Rndcg: gains keys must be labels >= 1'),
    (lambda: ndcg_rel(gains={0: 1.0}), r'ndcg_rel: gains keys must be labels >= 1'),
    (lambda: G(gains={1: -2.0}), r'G: gain for label 1 must be a finite number >= 0'),
    (lambda: utility(rel_ret=math.inf), r'utility: rel_ret must be a finite number'),
    (lambda: utility(num_docs=-1), r'utility: num_docs must be an integer from 0'),
    (lambda: Rprec_mult(mult=-0.5), r'Rprec_mult: mult must be a finite number >= 0'),
    (lambda: binG(rel=0), r'binG: rel must be a number above 0'),
    (lambda: ndcg_rel(rel=1), r"ndcg_rel: unknown parameter\(s\) \['rel'\]"),
])
def test_bad_parameters_name_the_measure(make, message):
    with pytest.raises(MeasureParamError, match=message):
        make()


@pytest.mark.parametrize('measure, message', [(Rprec_mult, "Rprec_mult: parameter 'mult' is required"),
                                              (relative_P, "relative_P: parameter 'cutoff' is required")])
def test_required_parameters_name_the_measure(measure, message):
    with pytest.raises(MeasureParamError, match=message):
        irmeasures_ext.provider.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def test_names_do_not_collide_with_ir_measures():
    """Each is registered under its own name, which no measure of ir_measures had."""
    for measure in (gm_map, gm_bpref, Rndcg, eleven_pt_avg, binG, G, utility, Rprec_mult, ndcg_rel, relative_P,
                    num_nonrel_judged_ret):
        assert ir_measures.measures.registry[measure.NAME] is measure
        assert measure.NAME not in IR_MEASURES_NAMES


#: ir_measures 0.4.3's own measure names (its registry before this package registers anything).
IR_MEASURES_NAMES = {'AP', 'AP_IA', 'Accuracy', 'BPM', 'BPref', 'Bpref', 'Compat', 'ERR', 'ERR_IA', 'INSQ', 'INST',
                     'IPrec', 'Judged', 'MAP', 'MAP_IA', 'MRR', 'NDCG', 'NERR10', 'NERR11', 'NERR8', 'NERR9', 'NRBP',
                     'NumQ', 'NumRel', 'NumRelRet', 'NumRet', 'P', 'P_IA', 'Precision', 'R', 'RBP', 'RPrec', 'RR',
                     'Recall', 'Rprec', 'SDCG', 'SetAP', 'SetF', 'SetP', 'SetR', 'SetRelP', 'StRecall', 'Success',
                     'alpha_DCG', 'alpha_nDCG', 'infAP', 'nDCG', 'nERR_IA', 'nNRBP', 'α_DCG', 'α_nDCG'}


def test_command_line_reads_trec_eval_names(capsys):
    """trec_eval's spellings (its -m names, with its parameters) name the same measures as ours."""
    from irmeasures_ext.names import parse_measures
    assert parse_measures(['bpref', 'infAP', 'num_q', 'gm_map', '11pt_avg', 'relative_P.5,10', 'Rprec_mult_0.20',
                           'iprec_at_recall.0.1', 'set_F.0.5', 'set_relative_P', 'utility.2,-1,0.5,0',
                           'G.1=3,2=9', 'Rndcg', 'ndcg_rel.4=1']) == [
        ir_measures.Bpref, ir_measures.infAP, ir_measures.NumQ, gm_map, eleven_pt_avg, relative_P @ 5, relative_P @ 10,
        Rprec_mult @ 0.2, ir_measures.IPrec @ 0.1, ir_measures.SetF(beta=0.5), ir_measures.SetP(relative=True),
        utility(rel_ret=2.0, nonrel_ret=-1.0, rel_missed=0.5, nonrel_missed=0.0), G(gains={1: 3.0, 2: 9.0}), Rndcg,
        ndcg_rel(gains={4: 1.0})]
    assert len(parse_measures(['official'])) == 4 + 3 + 2 + 11 + 9  # counts, map, gm_map, Rprec, bpref, RR, ...
    assert str(parse_measures(['Rprec_mult'])[-1]) == 'Rprec_mult@2.0'


@pytest.mark.parametrize('text, message', [
    ('utility.1,2', "utility: takes four weights"), ('map.5', "trec_eval measure 'map' takes no parameters"),
    ('set_F.1,2', 'set_F: takes one value'), ('P.2.5', 'P: cutoffs must be whole numbers'),
    ('G.1=2=3', 'G: parameters must be label=gain pairs'), ('Rprec_mult.-1', 'Rprec_mult: mult must be a finite'),
])
def test_command_line_refuses_bad_trec_eval_parameters(text, message):
    from irmeasures_ext.names import parse_measures
    with pytest.raises(MeasureParamError, match=re.escape(message)):
        parse_measures([text])


def test_cli_paths_raise_command_errors():
    """(public_paths.via_cli raises CommandError on a non-zero status: the refusals above reach users so.)"""
    with pytest.raises(CommandError, match='not supported under ties=optimistic'):
        via_cli([G(ties='optimistic')], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def test_crosscheck_notes_num_q_of_absent_queries(tmp_path, capsys):
    """crosscheck: NumQ is 1 for a qrels query absent from the run (trec_eval -c), where ir_measures' pytrec_eval
    wrapper fills 0: noted, not reported as a difference."""
    from irmeasures_ext.cli import main
    qrels, run = tmp_path / 'qrels.txt', tmp_path / 'run.txt'
    qrels.write_text('q1 0 a 1\nq2 0 b 0\n', encoding='utf-8')
    run.write_text('q1 Q0 a 1 1.0 r\n', encoding='utf-8')
    assert main(['crosscheck', str(qrels), str(run), 'num_q', 'bpref']) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["note: NumQ of the 1 qrels queries absent from the run is 1 (trec_eval -c), where ir_measures' "
                   'pytrec_eval wrapper gives 0; those are not compared']


def test_ties_subcommand_shows_the_policies_a_measure_refuses_as_dashes(tmp_path, capsys):
    """``irmeasures-ext ties``: G refuses every policy but trec_eval and rank, Bpref only expected (trec_eval ranks
    b above a: G = 1/log2(3))."""
    from irmeasures_ext.cli import main
    qrels, run = tmp_path / 'qrels.txt', tmp_path / 'run.txt'
    qrels.write_text('q 0 a 1\nq 0 b 0\n', encoding='utf-8')
    run.write_text('q Q0 a 1 1.0 r\nq Q0 b 2 1.0 r\n', encoding='utf-8')
    assert main(['ties', str(qrels), str(run), 'G', 'bpref']) == 0
    rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()[1:]]  # Bpref: b above a, or a first
    assert rows == [['G', '0.6309', '—', '—', '—', '—', '—', '1', 'pessimistic,expected,optimistic'],
                    ['Bpref', '0.0000', '0.0000', '—', '1.0000', '1.0000', '—', '1', 'expected']]


#: Every measure of this family, with parameters.
STREAMED = [ir_measures.Bpref, ir_measures.infAP(rel=2), ir_measures.IPrec @ 0.3, ir_measures.NumQ, ir_measures.SetP,
            ir_measures.SetP(relative=True, judged_only=True), ir_measures.SetR, ir_measures.SetF(beta=0.5),
            ir_measures.SetAP, gm_map, gm_bpref, Rndcg(gains={1: 3, 2: 9}), eleven_pt_avg, binG, G, utility,
            Rprec_mult @ 1.5, ndcg_rel(judged_only=True), relative_P @ 5, num_nonrel_judged_ret]


@pytest.mark.parametrize('ties', ['trec_eval', 'optimistic', 'expected'])
def test_streamed_values_are_the_in_memory_bits(tmp_path, ties):
    """A run file evaluated block by block (queries straddling blocks, interleaved lines) gives the in-memory
    bits (the measures that take the policy)."""
    qrels, run = write_files(tmp_path, seed=7, interleave=ties == 'optimistic')
    assert_streams_as_in_memory(STREAMED, qrels, run, Ranking(ties=ties))
