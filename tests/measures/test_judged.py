"""ir_measures' ``Judged@k`` and ``Judged`` on our provider: against the plain reference (tests/reference.py)
through our provider and the command line, against ir_measures' judged provider (the tool that defines the
measure) on runs whose scores are distinct, under every tie policy by brute force over the orderings of the
tie groups, and with the depth cut and equivalence classes; ``judged_only`` is refused by name."""
from __future__ import annotations

import math
import statistics

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

Judged = ir_measures.Judged
CUTOFFS = [None, 1, 2, 3, 5, 10, 50]
MEASURES = [Judged if k is None else Judged @ k for k in CUTOFFS]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_values(qrels: dict, run: dict, depth: int | None = None) -> dict[tuple[str, str], float]:
    """The reference of every measure of MEASURES per qrels query, on the ranking cut at ``depth``."""
    return {(str(measure), qid): reference.judged_rate(reference.trec_ranking(run.get(qid, {}))[:depth], judged,
                                                       measure.params.get('cutoff'))
            for measure in MEASURES for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.sampled_from(['provider', 'cli']))
def test_judged_equals_its_reference_through_every_path(data, path):
    """(ir_measures' pipeline gives Judged to its judged provider.)"""
    qrels, run = data
    check_path(path, MEASURES, qrels, run, reference_values(qrels, run))


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.sampled_from([1, 2, 4, 20]))
def test_judged_with_a_depth_cut_is_judged_of_the_ranking_cut_there(data, depth):
    qrels, run = data
    assert ours(MEASURES, qrels, run, depth=depth) == pytest.approx(reference_values(qrels, run, depth), abs=1e-12)


@SETTINGS
@given(distinct_scores())
def test_judged_equals_ir_measures_judged_provider_on_distinct_scores(data):
    """The judged provider ranks ties by doc_id ascending and compares scores as float64; on distinct scores its
    ranking is ours."""
    check_against_provider(ir_measures.judged, MEASURES, *data)


TIED_MEASURES = [Judged, Judged @ 1, Judged @ 2, Judged @ 4]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_tie_policies_are_the_mean_best_and_worst_over_the_orderings(data):
    """expected: the exact mean over every ordering of every tie group; optimistic/pessimistic: the largest and
    smallest rate over them (judged docs first / last in each group)."""
    qrels, run = data
    policies = {policy: ours(TIED_MEASURES, qrels, run, ties=policy)
                for policy in ('expected', 'optimistic', 'pessimistic')}
    for measure in TIED_MEASURES:
        for qid, judged in qrels.items():
            values = [reference.judged_rate(ranking, judged, measure.params.get('cutoff'))
                      for ranking in orderings(run.get(qid, {}))] or [0.0]
            key = str(measure), qid
            assert policies['expected'][key] == pytest.approx(statistics.fmean(values), abs=1e-12), key
            assert policies['optimistic'][key] == pytest.approx(max(values), abs=1e-12), key
            assert policies['pessimistic'][key] == pytest.approx(min(values), abs=1e-12), key


def test_judged_by_hand():
    """a (label 1) and c (label -1, judged: it has a qrels entry) among four ranked docs a, u, c, v; query 2
    retrieves nothing; query 3 is not in the qrels."""
    qrels = {'1': {'a': 1, 'b': 0, 'c': -1}, '2': {'x': 1}}
    run = {'1': {'a': 3.0, 'u': 2.0, 'c': 1.0, 'v': 0.5}, '3': {'a': 1.0}}
    got = ours([Judged @ 1, Judged @ 2, Judged @ 3, Judged @ 10, Judged], qrels, run)
    assert got == {('Judged@1', '1'): 1.0, ('Judged@2', '1'): 0.5, ('Judged@3', '1'): pytest.approx(2 / 3),
                   ('Judged@10', '1'): 0.5, ('Judged', '1'): 0.5,
                   **{(name, '2'): 0.0 for name in ('Judged@1', 'Judged@2', 'Judged@3', 'Judged@10', 'Judged')}}


def test_judged_only_is_refused_by_name():
    """Every doc of the condensed list is judged: judged_only would make the rate 1 and is not a parameter of
    ir_measures' Judged."""
    with pytest.raises(MeasureParamError, match=r"^Judged: unknown parameter\(s\) \['judged_only'\]"):
        irmeasures_ext.provider.calc_aggregate([Judged(judged_only=True) @ 5], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def test_classes_leave_the_judged_rate_as_it_is():
    """With equivalence classes a later member of a class is judged non-relevant: still judged."""
    qrels = {'q': {'a': (1, 7), 'b': (2, 7), 'c': (0, 8)}}
    run = {'q': {'a': 3.0, 'u': 2.5, 'b': 2.0, 'c': 1.0}}
    with_classes = irmeasures_ext.provider.configured(classes=True).calc_aggregate([Judged @ 3, Judged], qrels, run)
    assert with_classes == {Judged @ 3: pytest.approx(2 / 3), Judged: 0.75}


def test_the_default_pipeline_keeps_ir_measures_judged_provider():
    """Judged is ir_measures' own: by default its judged provider answers it (doc_id ascending on ties), ours
    when asked by name (doc_id descending): a tied with unjudged z."""
    qrels, run = {'q': {'a': 1}}, {'q': {'a': 1.0, 'z': 1.0}}
    assert ir_measures.calc_aggregate([Judged @ 1], qrels, run)[Judged @ 1] == 1.0
    assert irmeasures_ext.provider.calc_aggregate([Judged @ 1], qrels, run)[Judged @ 1] == 0.0
    assert math.isclose(irmeasures_ext.provider.configured(ties='expected').calc_aggregate(
        [Judged @ 1], qrels, run)[Judged @ 1], 0.5)
