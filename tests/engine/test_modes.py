"""The modes every measure takes: ``judged_only=True`` (the condensed list) and the provider's depth cut
(``provider.configured(depth=N)``, ``--depth N``), against pytrec_eval's ``judged_docs_only_flag`` (trec_eval
-J) and a run cut at N by hand (trec_eval -M), against the plain references, and by hand."""
import math

import ir_measures
import pytest
import pytrec_eval
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import via_cli, write_trec_files
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run

import irmeasures_ext
from irmeasures_ext import MSnDCG, Q, nDCG_JK, nERR
from irmeasures_ext.cli import main
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures import DECLARED

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

CUTOFFS = [1, 3, 10]
# (ir_measures' measure, pytrec_eval's name, relevance level): judged_only=True is added to each.
TREC_MEASURES = [(ir_measures.AP, 'map', 1), (ir_measures.AP(rel=2), 'map', 2), (ir_measures.RR, 'recip_rank', 1),
                 (ir_measures.RR(rel=3), 'recip_rank', 3), (ir_measures.Rprec, 'Rprec', 1),
                 (ir_measures.Rprec(rel=2), 'Rprec', 2), (ir_measures.nDCG, 'ndcg', 1)]
for _k in CUTOFFS:
    TREC_MEASURES += [(ir_measures.AP @ _k, f'map_cut_{_k}', 1), (ir_measures.P @ _k, f'P_{_k}', 1),
                      (ir_measures.P(rel=2) @ _k, f'P_{_k}', 2), (ir_measures.R @ _k, f'recall_{_k}', 1),
                      (ir_measures.Success @ _k, f'success_{_k}', 1), (ir_measures.nDCG @ _k, f'ndcg_cut_{_k}', 1)]


def pytrec_eval_values(qrels: dict, run: dict, judged_only: bool) -> dict[tuple[str, str], float]:
    """pytrec_eval's value of each TREC_MEASURES measure (with ``judged_only``) per query, one query at a time
    (pytrec_eval 0.5.11 can crash on a run with an empty query beside others). Queries judged only with
    negative labels are left out: pytrec_eval hangs on them (the references check those)."""
    values = {}
    for qid in set(qrels) & {q for q, docs in run.items() if docs}:
        if max(qrels[qid].values()) < 0:
            continue
        for level in {level for _, _, level in TREC_MEASURES}:
            names = {name for _, name, lvl in TREC_MEASURES if lvl == level}
            requested = {name.rsplit('_', 1)[0] if name[-1].isdigit() else name for name in names}
            requested = {f'{n}.{",".join(map(str, CUTOFFS))}' if n in ('map_cut', 'P', 'recall', 'success', 'ndcg_cut')
                         else n for n in requested}
            evaluator = pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, requested, relevance_level=level,
                                                       judged_docs_only_flag=judged_only)
            result = evaluator.evaluate({qid: run[qid]})[qid]
            values.update(((str(m(judged_only=True)), qid), result[name]) for m, name, lvl in TREC_MEASURES
                          if lvl == level)
    return values


def cut_at(run: dict, depth: int) -> dict:
    """The run with each query's first ``depth`` docs only, in trec_eval's order (trec_eval -M)."""
    return {qid: {doc: scores[doc] for doc in reference.trec_ranking(scores)[:depth]} for qid, scores in run.items()}


def ours(measures: list, qrels: dict, run: dict, **configured) -> dict[tuple[str, str], float]:
    provider = irmeasures_ext.provider.configured(**configured)
    return {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}


def trec_reference(measure: ir_measures.Measure, ranking: list[str], judged: dict[str, int]) -> float:
    """The plain reference of one of TREC_MEASURES on a ranked list."""
    rel, cutoff = measure.params.get('rel', 1), measure.params.get('cutoff')
    by_name = {'AP': lambda: reference.average_precision(ranking, judged, rel, cutoff),
               'RR': lambda: reference.reciprocal_rank(ranking, judged, rel, cutoff),
               'Rprec': lambda: reference.r_precision(ranking, judged, rel),
               'P': lambda: reference.precision(ranking, judged, cutoff, rel),
               'R': lambda: reference.recall(ranking, judged, cutoff, rel),
               'Success': lambda: reference.success(ranking, judged, cutoff, rel),
               'nDCG': lambda: reference.trec_ndcg(ranking, judged, cutoff)}
    return by_name[measure.NAME]()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(), st.sampled_from([None, 1, 4]))
def test_ir_measures_judged_only_equals_pytrec_eval_judged_docs_only(data, depth):
    """judged_only=True on ir_measures' measures, answered by our provider, is trec_eval's -J (pytrec_eval's
    judged_docs_only_flag: unjudged and negative-label docs dropped; R from the qrels), with and without a depth
    cut counted before condensing (pytrec_eval given the run cut at the depth); unjudged docs, negative labels,
    ties and R = 0 come from the generated data. pytrec_eval's values without the flag differ on many of them."""
    qrels, run = data
    measures = [m(judged_only=True) for m, _, _ in TREC_MEASURES]
    assert all(irmeasures_ext.provider.supports(m) for m in measures)
    got = ours(measures, qrels, run, depth=depth)
    cut = run if depth is None else cut_at(run, depth)
    for key, value in pytrec_eval_values(qrels, cut, judged_only=True).items():
        assert math.isclose(got[key], value, abs_tol=1e-9), (key, got[key], value)
    for qid, judged in qrels.items():
        kept = reference.condensed(reference.trec_ranking(cut.get(qid, {})), judged, 0)
        for measure in measures:
            assert got[str(measure), qid] == pytest.approx(trec_reference(measure, kept, judged), abs=1e-12)


def test_the_flag_changes_the_values_pytrec_eval_gives():
    """The data of the test above would not tell the two apart if pytrec_eval ignored the flag."""
    qrels = {'q': {'a': 1, 'b': -1, 'c': 0}}
    run = {'q': {'x': 3.0, 'b': 2.0, 'a': 1.0}}
    assert pytrec_eval_values(qrels, run, judged_only=True)['AP(judged_only=True)', 'q'] == 1.0
    assert pytrec_eval_values(qrels, run, judged_only=False)['AP(judged_only=True)', 'q'] == pytest.approx(1 / 3)
    assert ours([ir_measures.AP(judged_only=True), ir_measures.AP], qrels, run) == {
        ('AP(judged_only=True)', 'q'): 1.0, ('AP', 'q'): pytest.approx(1 / 3)}


def test_our_measures_keep_negative_labels_where_ir_measures_drop_them():
    """b, labelled -1, is judged non-relevant for our measures (NTCIREVAL's label -j keeps every qrels doc),
    and out of the list for ir_measures' (trec_eval's -J): a is at rank 2, or 1."""
    qrels = {'q': {'a': 1, 'b': -1}}
    run = {'q': {'x': 3.0, 'b': 2.0, 'a': 1.0}}
    got = ours([Q(beta=0, judged_only=True), ir_measures.AP(judged_only=True), ir_measures.RR(judged_only=True)],
               qrels, run)
    assert got == {('Q(beta=0.0,judged_only=True)', 'q'): 0.5, ('AP(judged_only=True)', 'q'): 1.0,
                   ('RR(judged_only=True)', 'q'): 1.0}


def test_ndcg_with_gains_and_judged_only_is_left_to_other_providers():
    """ir_measures maps nDCG's labels by the gains before trec_eval drops the negative ones (a gain for a
    negative label keeps its docs): our provider does not answer that case, and ir_measures' pipeline does."""
    measure = ir_measures.nDCG(gains={-1: 2, 1: 1}, judged_only=True)
    assert not irmeasures_ext.provider.supports(measure)
    assert irmeasures_ext.provider.supports(ir_measures.nDCG(gains={1: 3}, judged_only=False))
    with pytest.raises(MeasureParamError, match='does not support measure'):
        irmeasures_ext.provider.evaluator([measure], {'q': {'a': 1}})


#: A value for each parameter some measure of ours requires.
REQUIRED_EXAMPLES = {'cutoff': 5, 'u': 0.9, 'mult': 1.5}


def every_measure_of_ours() -> list[ir_measures.Measure]:
    """Each declared measure of ours, with a value for each parameter it requires (a cutoff, iRBU's u)."""
    return [spec(**{name: REQUIRED_EXAMPLES[name] for name, info in spec.SUPPORTED_PARAMS.items() if info.required})
            for spec in DECLARED.values()]


def takes(measure: ir_measures.Measure, ties: str) -> bool:
    """Whether ``measure`` is defined under tie policy ``ties`` (some have no expected value, some no
    optimistic/pessimistic order)."""
    try:
        kernel_of(measure).function(measure, ties)
    except MeasureParamError:
        return False
    return True


def takes_judged_only(measure: ir_measures.Measure) -> bool:
    """Whether ``measure`` takes judged_only=True (trec_eval 10.0's unj and rbp_resid, which count unjudged docs,
    refuse it)."""
    try:
        measure(judged_only=True)
    except MeasureParamError:
        return False
    return True


def without(run: dict, dropped) -> dict:
    """The run without the docs ``dropped(qid, doc)`` says, scores kept (so ties stay ties)."""
    return {qid: {doc: score for doc, score in docs.items() if not dropped(qid, doc)} for qid, docs in run.items()}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.sampled_from(['trec_eval', 'optimistic', 'pessimistic', 'expected']))
def test_judged_only_on_every_measure_of_ours_is_the_measure_on_the_run_without_its_unjudged_docs(data, ties):
    """For every declared measure (new ones included as they are declared), under each tie policy:
    judged_only=True equals the plain measure on a run from which the unjudged docs were removed (negative
    labels kept: they are in the qrels); ir_measures' measures, and ours named after trec_eval's
    (TREC_EVAL_JUDGED_ONLY: trec_eval's -J), drop the negative labels too. (Under 'expected', the measures that
    have an expected value.)"""
    qrels, run = data
    every = [m(ties=ties) for m in every_measure_of_ours()
             if takes(m, ties) and takes_judged_only(m) and not kernel_of(m).needs_intents]  # (test_ntcir_diversity)
    ext = [m for m in every if not getattr(m, 'TREC_EVAL_JUDGED_ONLY', False)]
    trec = [m for m, _, _ in TREC_MEASURES] + [m for m in every if getattr(m, 'TREC_EVAL_JUDGED_ONLY', False)]
    assert len(ext) >= 6
    unjudged = without(run, lambda qid, doc: doc not in qrels.get(qid, {}))
    trec_judged = without(run, lambda qid, doc: qrels.get(qid, {}).get(doc, -1) < 0)
    provider = irmeasures_ext.provider.configured(ties=ties)
    condensed = ours([m(judged_only=True) for m in ext + trec], qrels, run, ties=ties)
    assert len(condensed) == len(qrels) * len(ext + trec)
    for measures, filtered in ((ext, unjudged), (trec, trec_judged)):
        plain = {(str(m.measure(judged_only=True)), m.query_id): m.value
                 for m in provider.iter_calc(measures, qrels, filtered)}
        for key, value in plain.items():
            assert condensed[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key


@settings(max_examples=200, deadline=None)
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.sampled_from([1, 2, 5]), st.booleans())
def test_q_family_under_the_modes_equals_the_references(data, depth, judged_only):
    """Q, Q@k, nERR@k, nDCG_JK@k and MSnDCG@k with a depth cut and/or judged_only against the plain
    references on the list cut at the depth, then condensed (R and the ideal list from the whole qrels)."""
    qrels, run = data
    t = reference.threshold(1, qrels)  # (every label above 0)
    measures = {Q(judged_only=judged_only): lambda ranking, judged: reference.q_measure(ranking, judged, rel=t),
                Q(beta=0.5, judged_only=judged_only) @ 3:
                    lambda ranking, judged: reference.q_measure(ranking, judged, beta=0.5, rel=t, cutoff=3),
                nERR(max_level=4, judged_only=judged_only) @ 5: lambda ranking, judged: reference.nerr(
                    ranking, judged, 5, reference.graded_gain(4, None, t), rel=t),
                nDCG_JK(judged_only=judged_only) @ 5: lambda ranking, judged: reference.ndcg_jk(ranking, judged, 5,
                                                                                                rel=t),
                MSnDCG(judged_only=judged_only) @ 10: lambda ranking, judged: reference.msndcg(ranking, judged, 10,
                                                                                              rel=t)}
    got = ours(list(measures), qrels, run, depth=depth)
    for qid, judged in qrels.items():
        ranking = reference.trec_ranking(run.get(qid, {}))[:depth]
        if judged_only:
            ranking = reference.condensed(ranking, judged)
        for measure, value_of in measures.items():
            assert got[str(measure), qid] == pytest.approx(value_of(ranking, judged), abs=1e-12), (measure, qid)


QRELS = {'q': {'a': 1, 'b': 1, 'c': 1, 'd': 0}}
RUN = {'q': {'a': 5.0, 'x': 4.0, 'd': 3.0, 'b': 2.0, 'c': 1.0}}


def test_a_depth_cut_by_hand_keeps_r_and_the_ideal_list():
    """Depth 1 keeps a (R = 3 still): AP = 1/3; nDCG = 1 / (1 + 1/log2 3 + 1/2), the ideal DCG of all three
    relevant docs; P@5 = 1/5; NumRet counts the docs kept, NumRel the qrels'. Depth 4 keeps a, x, d, b:
    AP = (1 + 2/4) / 3; with judged_only (counted before condensing, so c stays cut) a, d, b: (1 + 2/3) / 3."""
    measures = [ir_measures.AP, ir_measures.nDCG, ir_measures.P @ 5, ir_measures.NumRet, ir_measures.NumRel,
                ir_measures.AP(judged_only=True), Q(beta=0, judged_only=True)]
    got = irmeasures_ext.provider.configured(depth=1).calc_aggregate(measures, QRELS, RUN)
    assert got == pytest.approx({ir_measures.AP: 1 / 3, ir_measures.nDCG: 1 / (1 + 1 / math.log2(3) + 1 / 2),
                                 ir_measures.P @ 5: 1 / 5, ir_measures.NumRet: 1, ir_measures.NumRel: 3,
                                 ir_measures.AP(judged_only=True): 1 / 3, Q(beta=0, judged_only=True): 1 / 3})
    got = irmeasures_ext.provider.configured(depth=4).calc_aggregate(measures, QRELS, RUN)
    assert got[ir_measures.AP] == pytest.approx(1.5 / 3)
    assert got[ir_measures.AP(judged_only=True)] == got[Q(beta=0, judged_only=True)] == pytest.approx(5 / 9)
    assert got[ir_measures.NumRet] == 4


@pytest.mark.parametrize('ties, rr', [('trec_eval', 0.0), ('optimistic', 1.0), ('pessimistic', 0.0)])
def test_the_depth_cut_comes_after_the_tie_reordering(ties, rr):
    """x and a tie, x first by trec_eval's rule (doc_id descending): at depth 1 the optimistic list keeps a."""
    qrels, run = {'q': {'a': 1}}, {'q': {'x': 1.0, 'a': 1.0}}
    provider = irmeasures_ext.provider.configured(ties=ties, depth=1)
    assert provider.calc_aggregate([ir_measures.RR, Q], qrels, run) == {ir_measures.RR: rr, Q: rr}


def test_the_depth_is_checked_and_refused_where_it_cannot_apply():
    with pytest.raises(MeasureParamError, match='depth must be an integer from 1'):
        irmeasures_ext.provider.configured(depth=0)
    with pytest.raises(MeasureParamError, match="ties='expected' cannot be combined with a depth cut"):
        irmeasures_ext.provider.configured(ties='expected', depth=3).evaluator([ir_measures.AP], QRELS)
    with pytest.raises(MeasureParamError, match="Q\\(ties='expected'\\): ties='expected' cannot"):
        irmeasures_ext.provider.configured(depth=3).evaluator([Q(ties='expected')], QRELS)
    with pytest.raises(MeasureParamError, match='provider pytrec_eval ranks its own way'):
        irmeasures_ext.provider.for_provider('pytrec_eval', depth=3)
    assert irmeasures_ext.provider.configured(depth=3).configured(ties='optimistic').depth == 3


def test_judged_only_is_a_checked_parameter_of_every_measure_of_ours():
    for spec in DECLARED.values():
        assert spec.SUPPORTED_PARAMS['judged_only'].default is False, spec
        with pytest.raises(MeasureParamError, match='judged_only must be True or False'):
            spec(judged_only='yes')
    assert str(ir_measures.parse_measure('Q(judged_only=True)@5')) == 'Q(judged_only=True)@5'


def test_command_line_depth(tmp_path, capsys):
    """--depth N gives the provider's depth cut; a bad N, a measure another provider computes and a named
    provider are refused with one line and exit status 2."""
    files = write_trec_files(tmp_path, QRELS, RUN)
    assert main([*files, 'AP', 'P@5', 'Q(judged_only=True)', '--depth', '1']) == 0
    assert capsys.readouterr().out.splitlines() == ['AP\t0.3333', 'P@5\t0.2000', 'Q(judged_only=True)\t0.3333']
    values, _ = via_cli([ir_measures.AP(judged_only=True)], QRELS, RUN)
    assert values['AP(judged_only=True)', 'q'] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)  # a, d, b, c
    for argv, message in [(['--depth', '0'], "argument --depth: expected an integer from 1 to 9223372036854775807, "
                                                  "got '0'"),
                          (['--depth', 'x'], "argument --depth: expected an integer from 1 to 9223372036854775807, "
                                                  "got 'x'"),
                          (['nDCG(gains={1:2},judged_only=True)@5', '--depth', '2'],  # left to others
                           'the depth cut (depth=2) applies to the measures the irmeasures_ext provider computes; '
                           'not to nDCG(gains={1:2},judged_only=True)@5'),
                          (['--provider', 'pytrec_eval', '--depth', '2'], 'provider pytrec_eval ranks its own way')]:
        assert main([*files, 'AP', *argv]) == 2
        assert message in capsys.readouterr().err
