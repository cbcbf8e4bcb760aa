"""ir_measures' ``Compat(p, normalize)`` on our provider: against the plain reference (tests/reference.py) through
our provider and the command line, against ir_measures' compat provider (the tool that defines it) on runs of
distinct positive scores, by hand where the provider's tie handling differs from ours, under the tie policies
by brute force, with the depth cut; what it does not take is refused by name."""
from __future__ import annotations

import math

import ir_measures
import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run
from ties_brute_force import orderings, tied_runs
from tool_checks import check_against_provider, check_path, distinct_scores, ours

import irmeasures_ext
from irmeasures_ext import MeasureParamError

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

Compat = ir_measures.Compat
PERSISTENCES = [0.0, 0.5, 0.8, 0.95, 1.0]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def compat_measures(draw) -> list:
    return [Compat(p=p, normalize=normalize) for p in draw(st.lists(st.sampled_from(PERSISTENCES), min_size=1,
                                                                      max_size=2, unique=True))
            for normalize in (True, False)] + [Compat]


def reference_values(measures: list, qrels: dict, run: dict, depth: int | None = None) -> dict:
    return {(str(m), qid): reference.compat(reference.trec_ranking(run.get(qid, {}))[:depth], judged, m['p'],
                                            m['normalize'])
            for m in measures for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), compat_measures(), st.sampled_from(['provider', 'cli']))
def test_compat_equals_its_reference_through_every_path(data, measures, path):
    """Ties (doc_id descending), negative labels, unjudged docs, queries without a label above 0, absent and
    run-only queries, from the generated data. (ir_measures' pipeline gives Compat to its compat provider.)"""
    qrels, run = data
    check_path(path, measures, qrels, run, reference_values(measures, qrels, run))


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), compat_measures(), st.sampled_from([1, 2, 5, 20]))
def test_compat_with_a_depth_cut_is_compat_of_the_ranking_cut_there(data, measures, depth):
    qrels, run = data
    want = reference_values(measures, qrels, run, depth)
    assert ours(measures, qrels, run, depth=depth) == pytest.approx(want, rel=1e-12, abs=1e-12)


@SETTINGS
@given(distinct_scores(positive=True), compat_measures())
def test_compat_equals_ir_measures_compat_provider_on_distinct_positive_scores(data, measures):
    """The compat provider ranks ties by doc_id ascending and puts an unretrieved doc in the ideal ranking as if
    it scored 0: on distinct positive scores both are ours."""
    check_against_provider(ir_measures.compat, measures, *data)


def test_where_the_compat_providers_tie_handling_differs():
    """By hand. Ties: the provider ranks a tie by doc_id ascending (a, b), we by doc_id descending (b, a):
    with a relevant, the overlap is 1/1 and 1/2 at depths 1 and 2, or 0 and 1/2. Scores below 0: the provider
    places an unretrieved relevant doc (u, 'score 0') before a retrieved one of its label scored below 0 (a), we
    after it: p = 0.5, ideal (u, a) or (a, u), run (a)."""
    measure = Compat(p=0.5, normalize=False)
    qrels, tied = {'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 1.0}}
    assert ir_measures.compat.calc_aggregate([measure], qrels, tied)[measure] == pytest.approx((1 + 0.5 / 2) / 1.5)
    assert irmeasures_ext.provider.calc_aggregate([measure], qrels, tied)[measure] == pytest.approx((0.5 / 2) / 1.5)
    qrels, negative = {'q': {'a': 1, 'u': 1}}, {'q': {'a': -1.0}}
    assert ir_measures.compat.calc_aggregate([measure], qrels, negative)[measure] == pytest.approx((0.5 / 2) / 1.5)
    assert irmeasures_ext.provider.calc_aggregate([measure], qrels, negative)[measure] == pytest.approx(
        (1 + 0.5 / 2) / 1.5)


def test_compat_by_hand():
    """Run a (3), u, c (2), b (1); ideal a (3), c (2), d (2, unretrieved), b (1); depth 4, p = 0.5: overlaps 1, 1,
    2, 3 at depths 1-4, so RBO = (1 + 0.5/2 + 0.25·2/3 + 0.125·3/4) / 1.875; normalised by the ideal's
    (1 + 0.5 + 0.25 + 0.125) / 1.875."""
    qrels = {'q': {'a': 3, 'b': 1, 'c': 2, 'd': 2, 'e': 0}}
    run = {'q': {'a': 4.0, 'u': 3.0, 'c': 2.0, 'b': 1.0}}
    overlap = 1 + 0.5 / 2 + 0.25 * 2 / 3 + 0.125 * 3 / 4
    got = irmeasures_ext.provider.calc_aggregate([Compat(p=0.5), Compat(p=0.5, normalize=False)], qrels, run)
    assert got == {Compat(p=0.5): pytest.approx(overlap / 1.875), Compat(p=0.5, normalize=False):
                   pytest.approx(overlap / 1.875)}


TIED_MEASURES = [Compat, Compat(p=0.5), Compat(p=0.8, normalize=False)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_optimistic_and_pessimistic_are_the_best_and_worst_orderings(data):
    """Brute force over every ordering of every tie group (the ideal ranking follows each ordering)."""
    qrels, run = data
    optimistic = ours(TIED_MEASURES, qrels, run, ties='optimistic')
    pessimistic = ours(TIED_MEASURES, qrels, run, ties='pessimistic')
    for measure in TIED_MEASURES:
        for qid, judged in qrels.items():
            values = [reference.compat(ranking, judged, measure['p'], measure['normalize'])
                      for ranking in orderings(run.get(qid, {}))] or [0.0]
            assert optimistic[str(measure), qid] == pytest.approx(max(values), abs=1e-12), (measure, qid)
            assert pessimistic[str(measure), qid] == pytest.approx(min(values), abs=1e-12), (measure, qid)


def test_expected_and_classes_are_refused_by_name():
    qrels, run = {'q': {'a': (1, 1), 'b': (1, 1)}}, {'q': {'a': 1.0, 'b': 1.0}}
    with pytest.raises(MeasureParamError, match=r'^Compat is not supported under ties=expected \(no closed form'):
        irmeasures_ext.provider.configured(ties='expected').calc_aggregate([Compat], qrels, run)
    with pytest.raises(MeasureParamError, match=r'^Compat is not defined with equivalence classes \(classes=True\)'):
        irmeasures_ext.provider.configured(classes=True).calc_aggregate([Compat, ir_measures.P @ 1], qrels, run)
    assert irmeasures_ext.provider.configured(classes=True).calc_aggregate([ir_measures.P @ 1], qrels, run)


@pytest.mark.parametrize('measure, message', [
    (Compat(p=1.5), 'Compat(p=1.5): p must be a number with 0 <= p <= 1, got 1.5'),
    (Compat(p=-0.1), 'Compat(p=-0.1): p must be a number with 0 <= p <= 1, got -0.1'),
    (Compat(p=math.nan), 'Compat(p=nan): p must be a number with 0 <= p <= 1, got nan'),
    (Compat(p=1), 'Compat: invalid param p=1'),
    (Compat(normalize='yes'), "Compat: invalid param normalize='yes'"),
])
def test_bad_parameters_are_refused_by_name(measure, message):
    with pytest.raises(MeasureParamError) as refused:
        irmeasures_ext.provider.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert str(refused.value) == message
