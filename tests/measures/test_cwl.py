"""ir_measures' C/W/L measures (cwl_eval's RBP with ``rel``, BPM, SDCG, NERR8–NERR11, INST, INSQ) and trectools'
RBP (``RBP`` without ``rel``), computed by our provider: against their plain references (tests/reference.py)
through every public path on data with ties; against the tools themselves (ir_measures' cwl_eval and
trectools providers) on runs whose scores are all distinct, so that no tie rule can order them differently;
the tie policies by brute force over the orderings of tied docs; the depth cut and equivalence classes;
refusals and bad parameters by name."""
from __future__ import annotations

import functools
import itertools
import math
import re
import statistics

import ir_measures
import numpy as np
import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import BPM, INSQ, INST, NERR8, NERR9, NERR10, NERR11, RBP, SDCG
from public_paths import via_cli, via_ir_measures, via_provider
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run

import irmeasures_ext
from irmeasures_ext import MeasureParamError
from irmeasures_ext.engine.kernels.cwl import trigamma

pytestmark = [pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning'),
              # ir_measures' trectools provider sorts its run in place, which pandas 3 deprecates
              pytest.mark.filterwarnings('ignore:The inplace keyword in DataFrame.sort_values')]

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cwl_params(draw) -> dict:
    """Parameters of the family: gains scaled from [min_rel, max_rel] (min_rel negative too, so that a label 0
    gains), thresholds, persistences 0 and 1 included, targets, cutoffs beyond cwl_eval's 1000 ranks."""
    min_rel = draw(st.sampled_from([-1, 0, 1]))
    return {'min_rel': min_rel, 'max_rel': draw(st.integers(min_rel + 1, 4)), 'rel': draw(st.integers(0, 3)),
            'p': draw(st.sampled_from([0.0, 0.5, 0.8, 0.95, 1.0])),
            'T': draw(st.sampled_from([0.25, 0.5, 1.0, 2.5])),
            'k': draw(st.sampled_from([1, 2, 3, 5, 10, 2000])),
            'cutoff': draw(st.sampled_from([None, 1, 3, 10]))}


def cases(p: dict) -> dict:
    """Each measure of the family for parameters ``p``, with its reference of (ranking, judged)."""
    graded = {'min_rel': p['min_rel'], 'max_rel': p['max_rel']}
    low, high, k, target, persistence = p['min_rel'], p['max_rel'], p['k'], p['T'], p['p']
    trectools_rbp = RBP(p=persistence) if p['cutoff'] is None else RBP(p=persistence) @ p['cutoff']
    return {
        RBP(p=persistence, rel=p['rel']): lambda r, j: reference.cwl_rbp(r, j, persistence, p['rel']),
        trectools_rbp: lambda r, j: reference.trectools_rbp(r, j, persistence, p['cutoff']),
        BPM(T=target, **graded) @ k: lambda r, j: reference.bpm(r, j, k, target, low, high),
        SDCG(**graded) @ k: lambda r, j: reference.sdcg(r, j, k, low, high),
        NERR8(**graded) @ k: lambda r, j: reference.cwl_nerr(r, j, 8, low, high, cutoff=k),
        NERR9(**graded) @ k: lambda r, j: reference.cwl_nerr(r, j, 9, low, high, cutoff=k),
        NERR10(p=persistence, **graded): lambda r, j: reference.cwl_nerr(r, j, 10, low, high, p=persistence),
        NERR11(T=target, **graded): lambda r, j: reference.cwl_nerr(r, j, 11, low, high, target=target),
        INST(T=target, **graded): lambda r, j: reference.inst(r, j, target, low, high),
        INSQ(T=target, **graded): lambda r, j: reference.insq(r, j, target, low, high),
    }


def trectools_measure(measure) -> bool:
    """Whether ``measure`` is trectools' RBP (which ir_measures' default pipeline gives to our provider)."""
    return measure.NAME == 'RBP' and measure['rel'] is ir_measures.measures.base._NOT_PROVIDED


def reference_values(functions: dict, qrels: dict, run: dict) -> dict:
    """{measure: {query: reference value}} on trec_eval's ranking of each query."""
    ranked = {qid: reference.trec_ranking(scores) for qid, scores in run.items()}
    return {measure: {qid: f(ranked.get(qid, []), judged) for qid, judged in qrels.items()}
            for measure, f in functions.items()}


def assert_matches(expected: dict, per_query: dict, aggregates: dict, path: str, tolerance: float = 1e-12) -> None:
    """Each value per query and each mean (every qrels query, nothing else) as ``expected``."""
    for measure, values in expected.items():
        for qid, value in values.items():
            got = per_query[str(measure), qid]
            assert math.isclose(got, value, rel_tol=tolerance, abs_tol=tolerance), (path, str(measure), qid, got,
                                                                                    value)
        assert math.isclose(aggregates[str(measure)], statistics.fmean(values.values()), rel_tol=tolerance,
                            abs_tol=tolerance), (path, str(measure))
    assert {qid for _, qid in per_query} == {qid for values in expected.values() for qid in values}, path


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), cwl_params(), st.sampled_from(['ir_measures', 'provider', 'cli']))
def test_measures_equal_their_reference(data, params, path):
    """On data with ties, unjudged and negative labels, R = 0 and queries absent from either side. The default
    pipeline gives trectools' RBP to our provider (no provider of it comes before ours), the others to
    cwl_eval: they are checked through our provider by name and the command line."""
    qrels, run = data
    functions = cases(params)
    if path == 'ir_measures':
        functions = {measure: f for measure, f in functions.items() if trectools_measure(measure)}
    elif path == 'cli' and not any(run.values()):
        return  # a TREC file needs a line; the other paths cover empty runs
    expected = reference_values(functions, qrels, run)
    via = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}[path]
    assert_matches(expected, *via(list(expected), qrels, run), path)


@st.composite
def distinct_scores(draw):
    """qrels_and_run()'s data with every score of the run distinct, as float32 too (integers): trectools
    averages RBP over runs of equal scores, even across queries, and cwl_eval ranks tied docs in the run's
    order, so only a run without ties is ranked alike by both and by trec_eval's rule."""
    qrels, run = draw(qrels_and_run(INTEGER_OR_REAL_LABELS))
    pairs = [(qid, doc) for qid, docs in run.items() for doc in docs]
    scores = draw(st.permutations(range(len(pairs))))
    distinct = {qid: {} for qid in run}
    for (qid, doc), score in zip(pairs, scores, strict=True):
        distinct[qid][doc] = float(score)
    return qrels, distinct


def assert_equal_to_the_tools(measures: list, qrels: dict, run: dict) -> None:
    """Our provider's value of each measure for each qrels query is the tool's, to 1e-9."""
    ours = {(str(m.measure), m.query_id): m.value for m in irmeasures_ext.provider.iter_calc(measures, qrels, run)}
    tools = tools_per_query(measures, qrels, run)
    assert ours.keys() == tools.keys()
    for key, value in tools.items():
        assert math.isclose(ours[key], value, rel_tol=1e-9, abs_tol=1e-9), (key, ours[key], value)


def tools_per_query(measures: list, qrels: dict, run: dict) -> dict:
    """Per-query values from the tools: ir_measures' trectools provider for RBP without rel, one measure at a
    time (given several RBP measures, ir_measures 0.4.3's provider computes each with the last one's p and
    cutoff: its RBP function reads the loop variable), cwl_eval for the others."""
    calls = [(ir_measures.trectools, [m]) for m in measures if trectools_measure(m)]
    calls.append((ir_measures.cwl_eval, [m for m in measures if not trectools_measure(m)]))
    return {(str(m.measure), m.query_id): m.value for provider, asked in calls
            for m in provider.iter_calc(asked, qrels, run)}


@SETTINGS
@given(distinct_scores(), cwl_params())
def test_measures_equal_the_tools_that_define_them(data, params):
    qrels, run = data
    assert_equal_to_the_tools(list(cases(params)), qrels, run)


def test_long_rankings_equal_the_tools_beyond_cwl_evals_1000_ranks():
    """cwl_eval looks at 1000 ranks (ir_measures' max_n): with 1,500 docs a query and persistences near 1, the
    ranks past 1000 would count if we did not stop there; trectools' RBP has no such limit."""
    generator = np.random.default_rng(35)
    qrels, run = {}, {}
    for qid in ('a', 'b', 'c'):
        docs = [f'{qid}{i}' for i in range(1500)]
        labels, scores = generator.integers(-1, 4, 1500), generator.permutation(1500) + 1500 * ord(qid)
        qrels[qid] = {doc: int(label) for doc, label in zip(docs, labels, strict=True) if label != 3}  # 3: unjudged
        run[qid] = {doc: float(score) for doc, score in zip(docs, scores, strict=True)}
    graded = {'min_rel': 0, 'max_rel': 2}
    measures = [RBP(p=0.999, rel=1), RBP(p=0.999), RBP(p=0.999) @ 1200, SDCG(**graded) @ 1200,
                BPM(T=300.0, **graded) @ 1200, NERR8(**graded) @ 1200, NERR9(**graded) @ 1200,
                NERR10(p=0.999, **graded), NERR11(T=400.0, **graded), INST(T=400.0, **graded),
                INSQ(T=400.0, **graded)]
    assert_equal_to_the_tools(measures, qrels, run)


def test_values_computed_by_hand():
    """q ranks a (label 2), b (0), c (1), then x (unjudged); d (label 2) is not retrieved."""
    qrels, run = {'q': {'a': 2, 'b': 0, 'c': 1, 'd': 2}}, {'q': {'a': 4.0, 'b': 3.0, 'c': 2.0, 'x': 1.0}}
    total_reach = 2 * (1 - 0.5 ** 1000)  # Σ_{i<1000} 0.5^i: cwl_eval normalises over its 1000 ranks
    inverse_squares = math.fsum(1 / i ** 2 for i in range(1, 1001))
    want = {
        RBP(p=0.5, rel=1): (1 + 0.25) / total_reach,                  # a and c relevant: reach 1 and 1/4
        RBP(p=0.5, rel=2): 1 / total_reach,
        RBP(p=0.5): 0.5 * 2 + 0.5 * 0.25 * 1,                       # (1 − p)·p^(r−1)·label
        RBP(p=0.5) @ 2: 0.5 * 2,
        # gains 1, 0, 0.5: the gain so far reaches T = 1 at rank 1
        BPM(T=1.0, max_rel=2) @ 5: 1.0,
        # T = 1.5 is reached at rank 3: the mean gain of ranks 1-3
        BPM(T=1.5, max_rel=2) @ 5: 1.5 / 3,
        # K = 2 stops first: ranks 1-2
        BPM(T=1.5, max_rel=2) @ 2: 1 / 2,
        # gain 1 at rank 1 stops every NERR user there
        NERR8(max_rel=2) @ 3: 1.0,
        # with max_rel 4: gains 0.5, 0, 0.25; reach 1, 0.5, 0.5 (rank 3 is the cutoff): (0.5 + 0.125) / 2
        NERR8(max_rel=4) @ 3: (0.5 + 0.5 * 0.25) / 2,
        SDCG(max_rel=2) @ 2: 1 / (1 + 1 / math.log2(3)),             # gain 1 at rank 1, 0 at rank 2
    }
    got = irmeasures_ext.provider.calc_aggregate(list(want), qrels, run)
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=1e-12), str(measure)
    one = irmeasures_ext.provider.calc_aggregate([INST(T=1.0, max_rel=1)], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    # C(1) = ((1 + 1 + 0 − 1)/(1 + 1 + 0))² = 1/4, C(i) = (i/(i + 1))² after: P(i) = 1/i², INST = 1 / Σ 1/i²
    assert one[INST(T=1.0, max_rel=1)] == pytest.approx(1 / inverse_squares, abs=1e-12)


# Tie policies, by brute force over the orderings of each tie group.

LINEAR = ('RBP', 'SDCG', 'INSQ')                  # linear in the gains with weights by rank: every policy
BOUNDED = (*LINEAR, 'NERR8', 'NERR9', 'NERR10', 'NERR11')  # ordered by gain: the best and worst orderings
LABELS = {'a': 4, 'b': 3, 'c': 2, 'd': 1, 'e': 0, 'f': -1}  # docs x, y are unjudged
REAL_LABELS = {'a': 4, 'b': 2.5, 'c': 2, 'd': 0.35, 'e': 0, 'f': -1.5}


@st.composite
def tied_runs(draw):
    """One or two queries of up to five docs, scores from {1, 2, 3}: tie groups of every size; integer labels
    or, in half of the examples, real-valued ones."""
    qrels, run = {}, {}
    labels = draw(st.sampled_from([LABELS, REAL_LABELS]))
    for qid in draw(st.lists(st.sampled_from(['q1', 'q2']), min_size=1, max_size=2, unique=True)):
        qrels[qid] = {doc: labels[doc] for doc in draw(st.lists(st.sampled_from(sorted(LABELS)), min_size=1,
                                                                  unique=True))}
        docs = draw(st.lists(st.sampled_from([*LABELS, 'x', 'y']), max_size=5, unique=True))
        run[qid] = {doc: draw(st.sampled_from([1.0, 2.0, 3.0])) for doc in docs}
    return qrels, run


def orderings(scores: dict[str, float]):
    """Every ranking of the docs by score, tied docs in any order."""
    groups = [[doc for doc in scores if scores[doc] == score] for score in sorted(set(scores.values()), reverse=True)]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [doc for group in choice for doc in group]


def values_over_orderings(function, scores: dict[str, float], judged: dict[str, int]) -> list[float]:
    """The reference over every ordering, computed once per sequence of labels (docs of one label are alike)."""
    @functools.cache
    def of_labels(labels: tuple) -> float:
        names = [f'doc{i}' for i in range(len(labels))]
        return function(names, {name: label for name, label in zip(names, labels, strict=True) if label is not None})
    return [of_labels(tuple(judged.get(doc) for doc in ranking)) for ranking in orderings(scores)]


def policy_values(measure, policy: str, qrels: dict, run: dict, score_precision: str = 'float32') -> dict[str, float]:
    provider = irmeasures_ext.provider.configured(ties=policy, score_precision=score_precision)
    return {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs(), cwl_params(), st.integers(0, 9))
def test_tie_policies_are_the_orderings_they_define(data, params, which):
    """optimistic/pessimistic: the best/worst value over the orderings of each tie group (every measure ordered
    by gain: those linear in the gains by the rearrangement inequality, NERR since swapping two adjacent docs
    into gain order raises its utility and lowers its normaliser); expected: the mean over the orderings (the
    linear ones; the others are refused by name, as BPM and INST are under optimistic/pessimistic)."""
    qrels, run = data
    measure, function = list(cases(params).items())[which]
    for policy in ('optimistic', 'pessimistic', 'expected'):
        if measure.NAME not in (LINEAR if policy == 'expected' else BOUNDED):
            with pytest.raises(MeasureParamError, match=f'{measure.NAME}.*ties={policy}'):
                policy_values(measure, policy, qrels, run)
            continue
        got = policy_values(measure, policy, qrels, run)
        for qid, judged in qrels.items():
            values = values_over_orderings(function, run.get(qid, {}), judged)
            want = {'optimistic': max, 'pessimistic': min, 'expected': statistics.fmean}[policy](values)
            assert got[qid] == pytest.approx(want, abs=1e-12), (str(measure), policy, qid)


def test_bpm_and_inst_are_refused_optimistic_and_pessimistic_as_gain_order_is_not_their_best():
    """By the references alone: five unjudged docs, then a tie of labels 5 (gain 1) and 3 (0.6): BPM(T=1)
    stops at rank 6 with the gain 1 first (1/6), at rank 7 with it second (1.6/7). INST with T = 0.2 after
    two docs of gain 1: a tie of gains 1 and 0.8 is worth more with 0.8 first."""
    unjudged = [f'u{i}' for i in range(5)]
    judged = {'a': 5, 'b': 3}
    bpm = [reference.bpm(unjudged + order, judged, 10, 1.0, 0, 5) for order in (['a', 'b'], ['b', 'a'])]
    assert bpm == pytest.approx([1 / 6, 1.6 / 7])
    judged = {'h': 5, 'i': 5, 'a': 5, 'b': 4}
    inst = [reference.inst(['h', 'i', *order], judged, 0.2, 0, 5) for order in (['a', 'b'], ['b', 'a'])]
    assert inst[0] < inst[1]
    for measure in (BPM(T=1.0, max_rel=5) @ 10, INST(T=0.2, max_rel=5)):
        for policy in ('optimistic', 'pessimistic'):
            with pytest.raises(MeasureParamError, match=f'{measure.NAME}.*ties={policy}'):
                policy_values(measure, policy, {'q': judged}, {'q': {'a': 1.0, 'b': 1.0}})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), cwl_params(), st.integers(1, 12))
def test_depth_cut_is_the_tools_on_the_truncated_run(data, params, depth):
    """provider.configured(depth=N): each measure on the first N ranked docs (a cwl_eval user still reads
    1000 ranks, the missing ones gaining 0)."""
    qrels, run = data
    ranked = {qid: reference.trec_ranking(scores)[:depth] for qid, scores in run.items()}
    functions = cases(params)
    got = {(m.measure, m.query_id): m.value for m in irmeasures_ext.provider.configured(depth=depth).iter_calc(
        list(functions), qrels, run)}
    for measure, function in functions.items():
        for qid, judged in qrels.items():
            assert got[measure, qid] == pytest.approx(function(ranked.get(qid, []), judged), abs=1e-12)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), cwl_params(), st.data())
def test_equivalence_classes_count_the_first_retrieved_member_of_each_class(data, params, draw):
    """provider.configured(classes=True): the first retrieved member of each class keeps its label, the later
    ones are judged non-relevant (a negative label stays), as for every measure of our provider."""
    qrels, run = data
    classes = {qid: {doc: draw.draw(st.integers(0, 2)) for doc in judged} for qid, judged in qrels.items()}
    with_classes = {qid: {doc: (label, classes[qid][doc]) for doc, label in judged.items()}
                    for qid, judged in qrels.items()}
    functions = cases(params)
    got = {(m.measure, m.query_id): m.value for m in irmeasures_ext.provider.configured(classes=True).iter_calc(
        list(functions), with_classes, run)}
    for qid, judged in qrels.items():
        ranking = reference.trec_ranking(run.get(qid, {}))
        seen, relabelled = set(), dict(judged)
        for doc in (doc for doc in ranking if doc in judged):
            if classes[qid][doc] in seen:
                relabelled[doc] = min(judged[doc], 0)
            seen.add(classes[qid][doc])
        for measure, function in functions.items():
            assert got[measure, qid] == pytest.approx(function(ranking, relabelled), abs=1e-12), (str(measure), qid)


@pytest.mark.parametrize(('measure', 'message'), [
    (RBP(p=1.5), 'RBP: p must be a number with 0 <= p <= 1, got 1.5'),
    (RBP(p=-0.1, rel=1), 'RBP: p must be a number with 0 <= p <= 1, got -0.1'),
    (NERR10(p=float('nan'), max_rel=3), 'NERR10: p must be a number with 0 <= p <= 1, got nan'),
    (INST(T=0.0, max_rel=3), 'INST: T must be a finite number > 0, got 0.0'),
    (INSQ(T=float('inf'), max_rel=3), 'INSQ: T must be a finite number > 0, got inf'),
    (NERR11(T=-1.0, max_rel=3), 'NERR11: T must be a finite number > 0, got -1.0'),
    (BPM(T=0.0, max_rel=3) @ 10, 'BPM: T must be a finite number > 0, got 0.0'),
    (SDCG(min_rel=2, max_rel=2) @ 10, 'SDCG: min_rel must be below max_rel, got min_rel=2, max_rel=2'),
    (NERR8(min_rel=3, max_rel=1) @ 10, 'NERR8: min_rel must be below max_rel, got min_rel=3, max_rel=1'),
    (INST(max_rel=2 ** 63), 'INST: max_rel must be an integer from'),
    (SDCG(min_rel=-2 ** 63 - 1, max_rel=3) @ 10,
     f'SDCG: min_rel must be an integer from {-2 ** 63} to {2 ** 63 - 1}, got {-2 ** 63 - 1}'),
    (RBP(p=0.5, rel=1) @ 10, 'provider irmeasures_ext does not support measure RBP'),  # neither tool's
    (BPM(max_rel=3), "BPM: parameter 'cutoff' is required, e.g. BPM@10"),
    (INST(T=1.0), "INST: parameter 'max_rel' is required, e.g. INST(max_rel=...)"),
])
def test_bad_parameters_are_refused_by_name(measure, message):
    with pytest.raises(MeasureParamError, match=re.escape(message)):
        irmeasures_ext.provider.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def test_the_lowest_int64_is_a_min_rel():
    """min_rel = -2**63 (the int64 range's lowest) is taken: with max_rel=0 every judged label clips to 0 and gains
    (0 + 2**63)/2**63 = 1 (reference.sdcg), so SDCG@2 of two judged docs is 1."""
    measure = SDCG(min_rel=-2 ** 63, max_rel=0) @ 2
    judged = {'a': 1, 'b': 0}
    want = reference.sdcg(['a', 'b'], judged, 2, -2 ** 63, 0)
    assert want == pytest.approx(1.0, abs=1e-15)
    got = irmeasures_ext.provider.calc_aggregate([measure], {'q': judged}, {'q': {'a': 2.0, 'b': 1.0}})
    assert got[measure] == pytest.approx(want, abs=1e-15)


@st.composite
def tied_within_queries(draw):
    """Runs with ties within each query only (each query's scores in its own range), cutoffs beyond every
    ranking: where trectools' averaging of RBP over tied docs is exactly a mean over their orderings."""
    qrels, run = draw(qrels_and_run(INTEGER_OR_REAL_LABELS))
    return qrels, {qid: {doc: 100.0 * index + score for doc, score in docs.items()}
                   for index, (qid, docs) in enumerate(run.items())}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_within_queries(), st.sampled_from([0.0, 0.5, 0.8, 1.0]), st.sampled_from([None, 100]))
def test_trectools_averaging_of_ties_is_our_expected_policy_at_float64(data, persistence, cutoff):
    qrels, run = data
    measure = RBP(p=persistence) if cutoff is None else RBP(p=persistence) @ cutoff
    ours = policy_values(measure, 'expected', qrels, run, score_precision='float64')
    trectools = {m.query_id: m.value for m in ir_measures.trectools.iter_calc([measure], qrels, run)}
    assert ours.keys() == trectools.keys()
    for qid, value in trectools.items():
        assert ours[qid] == pytest.approx(value, abs=1e-12), qid


def test_trigamma_is_the_sum_of_inverse_squares():
    """ψ1(1) = π²/6, ψ1(1/2) = π²/2, and ψ1(x) − ψ1(x + n) = Σ_{t<n} 1/(x + t)² across the switch to the
    asymptotic series at 20 (INST's sums over runs of ranks)."""
    assert trigamma(np.array([1.0, 0.5])) == pytest.approx([math.pi ** 2 / 6, math.pi ** 2 / 2], rel=1e-15)
    for x in (1e-3, 0.4, 3.7, 19.5, 20.0, 250.25):
        for n in (1, 7, 40, 1000):
            direct = math.fsum(1 / (x + t) ** 2 for t in range(n))
            difference = trigamma(np.array([x]))[0] - trigamma(np.array([x + n]))[0]
            assert difference == pytest.approx(direct, rel=1e-13, abs=1e-18), (x, n)
