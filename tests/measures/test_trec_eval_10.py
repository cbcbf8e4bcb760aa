"""trec_eval 10.0's ``rbp``, ``rbp_resid`` and ``unj`` (ours, under its names): every value trec_eval 10.0 printed
on this project's data (tests/data/trec_eval_10) reproduced, the plain references (tests/reference.py) through
every public path, the tie policies by brute force, the modes, and the refusals by name."""
from __future__ import annotations

import math
import re
import statistics

import ir_measures
import pytest
import reference
from class_qrels import qrels_with_classes, split
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run
from ties_brute_force import orderings, tied_runs
from tool_checks import PATHS, check_path, ours

import irmeasures_ext
from irmeasures_ext import MeasureParamError, rbp, rbp_resid, unj

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

FOLDER = DATA / 'trec_eval_10'
#: Each output file and how our provider is configured for it (trec_eval 10.0 compares scores as doubles).
OUTPUTS = {'out.default.q.c': {}, 'out.p.q.c': {}, 'out.gains_exp.q.c': {}, 'out.gains_mixed.q.c': {},
           'out.M10.q.c': {'depth': 10}, 'out.J.q.c': {}}
#: Each output file's tolerance: trec_eval prints 4 decimals; the ``.17g`` files, of a build printing 17
#: significant digits (tests/data/trec_eval_10/README.md), every digit.
DIGITS = {'': 5e-5 + 1e-12, '.17g': 1e-12}


def measure_of(name: str, judged_only: bool = False) -> ir_measures.Measure:
    """Our measure for a trec_eval 10.0 output name: ``unj_5``, ``rbp``, ``rbp_resid_p=0.5``, ``rbp_p=0.5,1=2``."""
    if name.startswith('unj_'):
        return unj @ int(name[len('unj_'):])
    found = re.fullmatch(r'(rbp_resid|rbp)(?:_(p=.*))?', name)
    assert found, name
    params: dict = {'judged_only': True} if judged_only else {}
    for pair in (found[2] or '').split(',') if found[2] else []:
        key, value = pair.split('=')
        if key == 'p':
            params['p'] = float(value)
        else:
            params.setdefault('gains', {})[int(key)] = float(value)
    return {'rbp': rbp, 'rbp_resid': rbp_resid}[found[1]](**params)


def printed(name: str) -> dict[tuple[str, str], float]:
    """{(trec_eval's measure name, query id or 'all'): value} of one output file."""
    values = {}
    for line in (FOLDER / name).read_text().splitlines():
        measure, qid, value = line.split()
        values[measure, qid] = float(value)
    return values


def vendored() -> tuple[dict, dict]:
    return reference.read_trec_qrels(FOLDER / 'qrels.txt'), reference.read_trec_run(FOLDER / 'run.txt')


@pytest.mark.parametrize('digits', sorted(DIGITS))
@pytest.mark.parametrize('output', sorted(set(OUTPUTS) - {'out.J.q.c'}))
def test_every_value_trec_eval_10_printed_is_reproduced(output, digits):
    """Per query and the means ('all', over every qrels query: -c), to the 4 decimals printed and to every digit of
    the 17-digit build. One difference, by design: for a qrels query the run does not answer, trec_eval 10.0 scores
    a one-doc placeholder ranking and clears rbp_resid's value only under its plain name, so that rbp_resid.p=...
    prints p + (1 - p) = 1 there; we give 0, as it does for rbp_resid."""
    qrels, run = vendored()
    values = printed(output + digits)
    tolerance = DIGITS[digits]
    names = sorted({name for name, _ in values})
    measures = {name: measure_of(name) for name in names}
    got = ours(list(measures.values()), str(FOLDER / 'qrels.txt'), str(FOLDER / 'run.txt'), score_precision='float64',
               **OUTPUTS[output])
    unanswered = set(qrels) - set(run)
    assert unanswered and set(run) - set(qrels)  # the data have both kinds of query
    for name, measure in measures.items():
        assert {qid for key, qid in values if key == name} == {*qrels, 'all'}, name  # -c: every qrels query
        placeholder = name.startswith('rbp_resid_')
        for qid in qrels:
            if placeholder and qid in unanswered:
                assert values[name, qid] == pytest.approx(1.0, abs=tolerance) and got[str(measure), qid] == 0.0
            else:
                assert got[str(measure), qid] == pytest.approx(values[name, qid], abs=tolerance), (name, qid)
        mean = statistics.fmean(got[str(measure), qid] for qid in qrels)
        shift = len(unanswered) / len(qrels) if placeholder else 0.0
        assert mean + shift == pytest.approx(values[name, 'all'], abs=tolerance), name


@pytest.mark.parametrize('digits', sorted(DIGITS))
def test_trec_eval_10s_condensed_list_where_it_is_ours(digits):
    """-J: trec_eval drops unjudged docs and those labelled below 0; rbp(judged_only=True) drops the unjudged ones
    only (this package's condensed list keeps every qrels doc): equal on the queries retrieving no doc labelled
    below 0. rbp_resid and unj count unjudged docs, of which -J leaves none (0 everywhere): refused."""
    qrels, run = vendored()
    values = printed('out.J.q.c' + digits)
    assert all(value == 0 for (name, _), value in values.items() if name != 'rbp')
    got = ours([rbp(judged_only=True)], str(FOLDER / 'qrels.txt'), str(FOLDER / 'run.txt'), score_precision='float64')
    alike = [qid for qid in qrels if all(qrels[qid].get(doc, 0) >= 0 for doc in run.get(qid, {}))]
    assert len(alike) >= 15
    for qid in alike:
        assert got['rbp(judged_only=True)', qid] == pytest.approx(values['rbp', qid], abs=DIGITS[digits]), qid
    for measure in (rbp_resid, unj):
        with pytest.raises(MeasureParamError, match=f'^{measure.NAME}: judged_only=True is refused'):
            measure(judged_only=True)


@pytest.mark.parametrize('output', sorted(set(OUTPUTS) - {'out.J.q.c'}))
def test_the_references_give_our_values_on_the_vendored_data(output):
    """Every digit: our values on the vendored data equal the plain references (ranked as trec_eval 10.0 ranks)."""
    qrels, run = vendored()
    measures = [measure_of(name) for name in sorted({name for name, _ in printed(output)})]
    depth = OUTPUTS[output].get('depth')
    got = ours(measures, qrels, run, score_precision='float64', **OUTPUTS[output])
    for qid, judged in qrels.items():
        ranking = float64_ranking(run.get(qid, {}))[:depth]
        for measure in measures:
            assert got[str(measure), qid] == pytest.approx(reference_of(measure, ranking, judged), rel=1e-12,
                                                           abs=1e-12), (str(measure), qid)


def float64_ranking(scores: dict[str, float]) -> list[str]:
    """trec_eval 10.0's ranking: score (as a double) descending, then doc_id descending byte-wise."""
    return sorted(scores, key=lambda doc: (scores[doc], doc.encode('utf-8')), reverse=True)


def test_the_data_tell_the_two_score_precisions_apart():
    """Pairs of scores equal as float32 only: trec_eval 9's ranking (our default) differs from 10.0's there."""
    measures = [rbp, unj @ 1]
    float64 = ours(measures, str(FOLDER / 'qrels.txt'), str(FOLDER / 'run.txt'), score_precision='float64')
    float32 = ours(measures, str(FOLDER / 'qrels.txt'), str(FOLDER / 'run.txt'))
    assert sum(abs(float64[key] - float32[key]) > 1e-3 for key in float64) >= 3


def reference_of(measure: ir_measures.Measure, ranking: list[str], judged) -> float:
    if measure.NAME == 'rbp':
        return reference.trec_rbp(ranking, judged, measure['p'], measure.params.get('gains'))
    if measure.NAME == 'rbp_resid':
        return reference.trec_rbp_resid(ranking, judged, measure['p'])
    return reference.trec_unj(ranking, judged, measure['cutoff'])


GAIN_VALUES = [0, 0.2, 0.5, 1, 2, 3, 7]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def trec_eval_10_measures(draw) -> list:
    """rbp with a drawn persistence and gains (often not growing with the label, label 0 gaining too), rbp_resid,
    and unj at drawn cutoffs."""
    p = draw(st.sampled_from([0.0, 0.5, 0.8, 0.9, 0.95]))
    gains = draw(st.none() | st.dictionaries(st.integers(0, 4), st.sampled_from(GAIN_VALUES), min_size=1,
                                             max_size=4))
    cutoffs = draw(st.lists(st.integers(1, 50), min_size=1, max_size=3, unique=True))
    return [rbp(p=p, **({} if gains is None else {'gains': gains})), rbp, rbp_resid(p=p), rbp_resid,
            *(unj @ k for k in cutoffs)]


def expected_values(measures: list, qrels: dict, run: dict, depth: int | None = None) -> dict:
    return {(str(m), qid): reference_of(m, reference.trec_ranking(run.get(qid, {}))[:depth], judged)
            for m in measures for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), trec_eval_10_measures(), st.sampled_from(sorted(PATHS)))
def test_measures_equal_their_references_through_every_path(data, measures, path):
    """Ties (doc_id descending, float32), negative labels, unjudged docs, queries without a relevant doc, absent
    and run-only queries, from the generated data."""
    qrels, run = data
    check_path(path, measures, qrels, run, expected_values(measures, qrels, run))


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), trec_eval_10_measures(), st.sampled_from([1, 3, 10]))
def test_a_depth_cut_is_the_measure_of_the_ranking_cut_there(data, measures, depth):
    qrels, run = data
    assert ours(measures, qrels, run, depth=depth) == pytest.approx(expected_values(measures, qrels, run, depth),
                                                                    rel=1e-12, abs=1e-12)


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.sampled_from([0.5, 0.9]))
def test_rbp_on_the_condensed_list_is_rbp_of_the_judged_docs(data, p):
    """judged_only=True: the ranking without its unjudged docs (labels below 0 kept, as for every measure of ours)."""
    qrels, run = data
    got = ours([rbp(p=p, judged_only=True)], qrels, run)
    for qid, judged in qrels.items():
        ranking = reference.condensed(reference.trec_ranking(run.get(qid, {})), judged)
        assert got[str(rbp(p=p, judged_only=True)), qid] == pytest.approx(reference.trec_rbp(ranking, judged, p),
                                                                          rel=1e-12, abs=1e-12)


@SETTINGS
@given(qrels_with_classes(), trec_eval_10_measures())
def test_equivalence_classes_are_those_of_every_measure_of_ours(data, measures):
    """classes=True: a later member of a class is judged non-relevant (a label below 0 stays), the query's levels
    are its classes' (reference.ClassJudged)."""
    qrels, run = data
    labels, classes = split(qrels)
    with_classes = [m(classes=True) for m in measures]
    got = ours(with_classes, qrels, run)
    for qid, judged in labels.items():
        ranking = reference.trec_ranking(run.get(qid, {}))
        view = reference.ClassJudged(ranking, judged, classes[qid])
        for measure in with_classes:
            assert got[str(measure), qid] == pytest.approx(reference_of(measure, ranking, view), rel=1e-12,
                                                           abs=1e-12), (str(measure), qid)


TIED_MEASURES = [rbp, rbp(p=0.5, gains={1: 3, 2: 1, 3: 0.5, 0: 0.2}), rbp_resid, rbp_resid(p=0.5), unj @ 1, unj @ 2,
                 unj @ 4]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_tie_policies_are_the_mean_best_and_worst_over_the_orderings(data):
    """expected: the exact mean over every ordering of every tie group; optimistic/pessimistic: the best and worst
    value over them (rbp_resid and unj: lower is better, so the smallest and largest)."""
    qrels, run = data
    policies = {policy: ours(TIED_MEASURES, qrels, run, ties=policy)
                for policy in ('expected', 'optimistic', 'pessimistic')}
    for measure in TIED_MEASURES:
        best, worst = (min, max) if measure.LOWER_IS_BETTER else (max, min)
        for qid, judged in qrels.items():
            values = [reference_of(measure, ranking, judged) for ranking in orderings(run.get(qid, {}))]
            values = values or [reference_of(measure, [], judged)]
            key = str(measure), qid
            assert policies['expected'][key] == pytest.approx(statistics.fmean(values), abs=1e-12), key
            assert policies['optimistic'][key] == pytest.approx(best(values), abs=1e-12), key
            assert policies['pessimistic'][key] == pytest.approx(worst(values), abs=1e-12), key


def test_by_hand():
    """a (3), u (unjudged), b (1), e (-1), d (2) with labels 0-3 judged: gains divided by 3; p = 0.9:
    rbp = 0.1·(1 + 0.81/3 + 0.6561·2/3); rbp_resid = 0.9^5 + 0.1·(0.9 + 0.729); unj@5 = 2/5, unj@10 = 2/10."""
    qrels = {'1': {'a': 3, 'b': 1, 'c': 0, 'd': 2, 'e': -1}, '2': {'a': 1}}
    run = {'1': {'a': 5.0, 'u': 4.0, 'b': 3.0, 'e': 2.0, 'd': 1.0}}
    got = ours([rbp, rbp_resid, unj @ 5, unj @ 10], qrels, run)
    assert got == pytest.approx({('rbp', '1'): 0.1 * (1 + 0.81 / 3 + 0.6561 * 2 / 3),
                                 ('rbp_resid', '1'): 0.9 ** 5 + 0.1 * (0.9 + 0.729), ('unj@5', '1'): 0.4,
                                 ('unj@10', '1'): 0.2, **{(name, '2'): 0.0 for name in ('rbp', 'rbp_resid',
                                                                                          'unj@5', 'unj@10')}},
                                abs=1e-15)


def test_names_are_trec_evals_and_collide_with_nothing_of_ir_measures():
    """ir_measures' registry is case-sensitive: its RBP stays its own."""
    registry = ir_measures.measures.registry
    assert registry['rbp'] is rbp and registry['rbp_resid'] is rbp_resid and registry['unj'] is unj
    assert type(registry['RBP']).__module__.startswith('ir_measures.')
    assert ir_measures.parse_measure('rbp(p=0.8)') == rbp(p=0.8) and ir_measures.parse_measure('unj@5') == unj @ 5


@pytest.mark.parametrize('build, message', [
    (lambda: rbp(p=1.0), 'rbp: p must be a number with 0 <= p < 1, got 1.0'),
    (lambda: rbp_resid(p=-0.5), 'rbp_resid: p must be a number with 0 <= p < 1, got -0.5'),
    (lambda: rbp(gains={-1: 1.0}), 'rbp: gains keys must be labels >= 0, got [-1]'),
    (lambda: rbp(gains={1: -1.0}), 'rbp: gain for label 1 must be a finite number >= 0, got -1.0'),
    (lambda: unj(judged_only=True), 'unj: judged_only=True is refused'),
    (lambda: rbp_resid(judged_only=True), 'rbp_resid: judged_only=True is refused'),
    (lambda: unj(cutoff=0), 'unj: cutoff must be an integer from 1'),
])
def test_bad_parameters_are_refused_by_name(build, message):
    with pytest.raises(MeasureParamError) as refused:
        build()
    assert str(refused.value).startswith(message)


def test_unj_requires_a_cutoff():
    with pytest.raises(MeasureParamError, match="unj: parameter 'cutoff' is required, e.g. unj@10"):
        irmeasures_ext.provider.calc_aggregate([unj], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert math.isclose(irmeasures_ext.provider.calc_aggregate([unj @ 2], {'q': {'a': 1}}, {'q': {'a': 1.0}})[unj @ 2],
                        0.0)


def test_a_real_valued_label_is_a_level_of_its_own():
    """Levels 0 .. 3 with gains {3: 1}: 0, 1, 2, 1; the label 2.5 gains itself, so the gains are divided by 2.5
    (not 2): a at rank 1 gains 1, rbp = 0.1."""
    qrels = {'q': {'a': 2.5, 'b': 1, 'c': 3}}
    measure = rbp(gains={3: 1})
    assert ours([measure], qrels, {'q': {'a': 1.0}}) == {(str(measure), 'q'): pytest.approx(0.1, abs=1e-15)}


def test_rbp_with_other_gains_in_one_evaluation_keeps_its_own_scale():
    """rbp, rbp(gains={1: 4}) and rbp(gains={2: 8}) on the same qrels in one evaluation, each its reference: the
    gains are divided by 2, 4 and 8 (the largest gain of levels 0 .. 2), so no measure may take another's scale."""
    judged, ranking = {'a': 2, 'b': 1, 'c': 0}, ['a', 'b', 'c']
    qrels, run = {'q': judged}, {'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}}
    measures = {rbp: None, rbp(gains={1: 4}): {1: 4}, rbp(gains={2: 8}): {2: 8}}
    for order in (list(measures), list(reversed(measures))):
        got = ours(order, qrels, run)
        for measure, gains in measures.items():
            assert got[str(measure), 'q'] == pytest.approx(reference.trec_rbp(ranking, judged, 0.9, gains), abs=1e-15)
    assert reference.trec_rbp(ranking, judged, 0.9, None) == pytest.approx(0.1 * (1 + 0.9 / 2), abs=1e-15)


def test_the_scale_is_the_highest_level_below_a_named_top_gaining_itself():
    """Labels 3 and 0 with gains {3: 0.5}: levels 0 .. 3 gain 0, 1, 2, 0.5, so the scale is level 2's gain, 2 (no
    doc is labelled 2): a (label 3) at rank 1, rbp = 0.1·0.5/2."""
    judged = {'a': 3, 'c': 0}
    measure = rbp(gains={3: 0.5})
    want = reference.trec_rbp(['a'], judged, 0.9, {3: 0.5})
    assert want == pytest.approx(0.1 * 0.5 / 2, abs=1e-15)
    assert ours([measure], {'q': judged}, {'q': {'a': 1.0}}) == {(str(measure), 'q'): pytest.approx(want, abs=1e-15)}
