"""Issue 45 §1: real-valued labels under one rule (irmeasures_ext/engine/relevance.py: a doc is relevant, and gains,
when its label reaches the threshold; without one, every label above 0), a real threshold wherever a measure has
one, a warning where real labels reach no threshold, and the other silent numbers of §1 (IPrec's recall level,
query ids written another way, diversity qrels of one intent a query). Each value is checked against the plain
references of tests/reference.py or by hand."""
from __future__ import annotations

import math
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
import reference
from public_paths import via_cli, via_ir_measures, via_provider

import irmeasures_ext
from irmeasures_ext import GAP, MedianRank, MSnDCG, Q, nDCG_JK, nDCG_Z1, nERR
from irmeasures_ext.cli import main
from irmeasures_ext.errors import MeasureParamError, QueryIdFormWarning, SingleIntentWarning, UnreachedThresholdWarning

PROVIDER = irmeasures_ext.provider
#: The issue's case: an LLM judge's labels, all below 1, and a run a > b > c.
LLM_QRELS = {'q1': {'a': 0.9, 'b': 0.35, 'c': 0.1}, 'q2': {'x': 0.6, 'y': 0.0, 'z': 0.25}}
LLM_RUN = {'q1': {'c': 3.0, 'b': 2.0, 'a': 1.0, 'u': 0.5}, 'q2': {'y': 2.0, 'z': 1.0}}
PATHS = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}


def references(threshold: float) -> dict:
    """Our measures on the issue's case and their plain references at ``threshold``, per query."""
    def at(function):
        return {qid: function(reference.trec_ranking(LLM_RUN.get(qid, {})), judged)
                for qid, judged in LLM_QRELS.items()}
    return {
        Q @ 10: at(lambda r, j: reference.q_measure(r, j, 1.0, None, threshold, 10)),
        Q(beta=0.5): at(lambda r, j: reference.q_measure(r, j, 0.5, None, threshold)),
        MSnDCG @ 10: at(lambda r, j: reference.msndcg(r, j, 10, None, threshold)),
        nDCG_JK @ 3: at(lambda r, j: reference.ndcg_jk(r, j, 3, None, threshold)),
        nDCG_Z1 @ 5: at(lambda r, j: reference.ndcg_z1(r, j, 5, None, threshold)),
        nERR(max_level=1) @ 10: at(lambda r, j: reference.nerr(r, j, 10, reference.graded_gain(1, None, threshold),
                                                               None, threshold)),
        GAP: at(lambda r, j: reference.gap(r, j, threshold)),
        ir_measures.AP: at(lambda r, j: reference.average_precision(r, j, threshold)),
        ir_measures.RR: at(lambda r, j: reference.reciprocal_rank(r, j, threshold)),
        ir_measures.P @ 2: at(lambda r, j: reference.precision(r, j, 2, threshold)),
        ir_measures.Rprec: at(lambda r, j: reference.r_precision(r, j, threshold)),
    }


def check(expected: dict, per_query: dict, path: str) -> None:
    for measure, values in expected.items():
        for qid, value in values.items():
            assert math.isclose(per_query[str(measure), qid], value, abs_tol=1e-12), (path, str(measure), qid)


@pytest.mark.parametrize('path', sorted(PATHS))
def test_labels_below_1_count_on_every_entry_point(path):
    """Every label above 0 is relevant and gains its label: no measure is silently 0 (it was for all but nDCG).
    ir_measures gives its own measures to its own providers, which refuse real labels (pytrec_eval): there it is
    asked for ours only."""
    expected = references(math.ulp(0.0))
    if path == 'ir_measures':
        expected = {measure: values for measure, values in expected.items() if measure.NAME not in ('AP', 'RR', 'P',
                                                                                                     'Rprec')}
    per_query, _ = PATHS[path](list(expected), LLM_QRELS, LLM_RUN)
    check(expected, per_query, path)
    assert per_query['Q@10', 'q1'] > 0.5
    if path != 'ir_measures':
        assert per_query['AP', 'q1'] == pytest.approx((1 / 1 + 2 / 2 + 3 / 3) / 3)
        assert per_query['RR', 'q2'] == 0.5  # (y, labelled 0, is not relevant; z, 0.25, is)


def test_gain_measures_agree_on_a_label_below_1():
    """A label of 0.5 gains 0.5 in trec_eval's nDCG and in MSnDCG (the same discount), by hand: one doc."""
    qrels, run = {'q': {'a': 0.5, 'b': 1}}, {'q': {'a': 2.0, 'b': 1.0}}
    values = PROVIDER.calc_aggregate([ir_measures.nDCG @ 10, MSnDCG @ 10, Q(beta=0) @ 10, ir_measures.AP], qrels, run)
    ideal = 1 + 0.5 / math.log2(3)
    assert values[ir_measures.nDCG @ 10] == pytest.approx((0.5 + 1 / math.log2(3)) / ideal)
    assert values[MSnDCG @ 10] == values[ir_measures.nDCG @ 10]
    assert values[Q(beta=0) @ 10] == values[ir_measures.AP] == 1.0


@pytest.mark.parametrize('threshold', [0.3, 0.5, 0.95])
def test_a_real_threshold_as_a_parameter_the_provider_and_the_command(tmp_path, threshold):
    expected = references(threshold)
    ours = [Q(rel=threshold) @ 10, nDCG_Z1(rel=threshold) @ 5, GAP(rel=threshold)]
    per_query, _ = via_provider(ours, LLM_QRELS, LLM_RUN)
    for measure, defined in zip(ours, (Q @ 10, nDCG_Z1 @ 5, GAP), strict=True):
        for qid, value in expected[defined].items():
            assert per_query[str(measure), qid] == pytest.approx(value, abs=1e-12), (measure, qid)
    configured = PROVIDER.configured(rel=threshold)
    per_query = {(str(m.measure), m.query_id): m.value
                 for m in configured.iter_calc(list(expected), LLM_QRELS, LLM_RUN)}
    check(expected, per_query, f'configured(rel={threshold})')
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text(''.join(f'{q} 0 {d} {label}\n' for q, judged in LLM_QRELS.items() for d, label in judged.items()))
    run.write_text(''.join(f'{q} Q0 {d} 0 {s} t\n' for q, scores in LLM_RUN.items() for d, s in scores.items()))
    lines = run_command(str(qrels), str(run), 'AP', 'Q@10', '-q', '-p', '-1', '--rel', str(threshold))
    assert float(lines[('AP', 'q1')]) == pytest.approx(expected[ir_measures.AP]['q1'], abs=1e-12)
    assert float(lines[('Q@10', 'q2')]) == pytest.approx(expected[Q @ 10]['q2'], abs=1e-12)


def run_command(*args: str) -> dict[tuple[str, str], str]:
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return {(measure, qid): value for qid, measure, value in (line.split('\t') for line in out.getvalue().splitlines())}


def test_the_measures_own_threshold_wins_over_the_providers():
    values = PROVIDER.configured(rel=0.5).calc_aggregate([Q(rel=0.2) @ 10, Q @ 10], LLM_QRELS, LLM_RUN)
    assert values[Q(rel=0.2) @ 10] == pytest.approx(sum(references(0.2)[Q @ 10].values()) / 2)
    assert values[Q @ 10] == pytest.approx(sum(references(0.5)[Q @ 10].values()) / 2)


def test_integer_labels_keep_trec_evals_threshold():
    """Integer labels: every label above 0 is rel=1, trec_eval's; rel=2 given to the provider is -l 2."""
    qrels, run = {'q': {'a': 1, 'b': 2, 'c': 0}}, {'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}}
    assert PROVIDER.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP] == 1.0
    assert PROVIDER.configured(rel=2).calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP] == 0.5
    assert PROVIDER.configured(rel=1.5).calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP] == 0.5


def test_real_labels_reaching_no_threshold_warn_once_naming_it_and_the_way_out():
    with pytest.warns(UnreachedThresholdWarning) as caught:
        values = PROVIDER.configured(rel=1).calc_aggregate([Q @ 10, ir_measures.AP, ir_measures.nDCG @ 10],
                                                           LLM_QRELS, LLM_RUN)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message) == (
        'no judged doc of any query reaches the relevance threshold of some measures, which are therefore 0 (the '
        "real-valued labels range from 0 to 0.9): Q@10, AP: the provider's rel=1: set "
        'irmeasures_ext.provider.configured(rel=...) or irmeasures-ext --rel to at most 0.9')
    assert values[Q @ 10] == values[ir_measures.AP] == 0 and values[ir_measures.nDCG @ 10] > 0  # (no threshold)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        PROVIDER.calc_aggregate([Q @ 10, ir_measures.AP], LLM_QRELS, LLM_RUN)  # (reached: no warning)


def test_the_command_prints_the_threshold_warning(tmp_path, capsys):
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text('q1 0 a 0.9\nq1 0 b 0.35\n')
    run.write_text('q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n')
    assert main([str(qrels), str(run), 'Q(rel=2)@10', 'AP']) == 0
    out, err = capsys.readouterr()
    assert out == 'Q(rel=2)@10\t0.0000\nAP\t1.0000\n'
    assert err == ('irmeasures-ext: warning: no judged doc of any query reaches the relevance threshold of some '
                   'measures, which are therefore 0 (the real-valued labels range from 0.35 to 0.9): Q(rel=2)@10: '
                   'rel=2: '
                   'give the measure a rel of at most 0.9\n')
    assert main([str(qrels), str(run), 'AP', '--rel', '0']) == 2
    assert 'argument --rel: expected a number above 0, got' in capsys.readouterr().err


def test_no_label_above_0_warns_without_advice_and_ones_own_rel_is_named():
    with pytest.warns(UnreachedThresholdWarning, match=r'\(the real-valued labels range from -0.5 to 0\): AP, Q@10: no '
                                                       r'label is above 0$'):
        PROVIDER.calc_aggregate([ir_measures.AP, Q @ 10], {'q': {'a': 0.0, 'b': -0.5}}, {'q': {'a': 1.0}})
    with pytest.warns(UnreachedThresholdWarning, match=r'Q\(rel=2\)@10: rel=2: give the measure a rel of at most '
                                                       r'0.9$'):
        PROVIDER.configured(rel=0.5).calc_aggregate([Q(rel=2) @ 10, Q @ 10], LLM_QRELS, LLM_RUN)


def test_num_rel_ret_follows_the_threshold_and_binary_rbp_binarises_as_cwl_eval():
    """ir_measures' NumRelRet is NumRet(rel=1): the default threshold, as for AP and NumRel. RBP(rel=1) binarises at 1
    as cwl_eval does (it reads real labels itself: tests/measures/test_cwl.py checks it against the tool), with the
    warning where no label reaches 1, naming its own rel."""
    qrels, run = {'q': {'a': 0.9, 'b': 0.35, 'c': 0.0}}, {'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}}
    rbp = ir_measures.RBP(rel=1, p=0.5)
    with pytest.warns(UnreachedThresholdWarning, match=r'RBP\(rel=1,p=0.5\): rel=1: give the measure a rel of at'):
        values = PROVIDER.calc_aggregate([ir_measures.NumRel, ir_measures.NumRelRet, rbp], qrels, run)
    assert values == {ir_measures.NumRel: 2, ir_measures.NumRelRet: 2, rbp: 0.0}
    with pytest.warns(UnreachedThresholdWarning):
        values = PROVIDER.configured(rel=0.5).calc_aggregate([ir_measures.NumRel, ir_measures.NumRelRet, rbp], qrels,
                                                             run)
    assert values == {ir_measures.NumRel: 1, ir_measures.NumRelRet: 1, rbp: 0.0}
    assert PROVIDER.calc_aggregate([ir_measures.RBP(p=0.5)], qrels, run) == {
        ir_measures.RBP(p=0.5): 0.5 * (0.9 + 0.5 * 0.35)}  # (without rel: the labels are gains)
    with pytest.raises(MeasureParamError, match=r'^RBP: ir_measures declares rel an integer, got 0.5 \(it binarises'):
        PROVIDER.calc_aggregate([ir_measures.RBP(rel=0.5)], qrels, run)
    with pytest.raises(MeasureParamError, match=r'\(here NumRet\(rel=1\)\): irmeasures_ext.provider.configured'):
        PROVIDER.calc_aggregate([ir_measures.NumRet(rel=0.5)], qrels, run)


def test_the_tie_report_counts_tied_relevant_docs_by_the_threshold(tmp_path, capsys):
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text('q 0 a 0.5\nq 0 b 0\nq 0 c 0\n')
    run.write_text('q Q0 a 1 1 t\nq Q0 b 2 1 t\nq Q0 c 3 0.5 t\n')
    assert main(['ties', str(qrels), str(run), 'AP']) == 0
    assert capsys.readouterr().out.splitlines()[1].split('\t')[-2] == '1'  # (a, 0.5, is relevant and tied with b)
    assert main(['ties', str(qrels), str(run), 'AP', '--rel', '0.6']) == 0
    assert capsys.readouterr().out.splitlines()[1].split('\t')[-2] == '0'


def test_compare_takes_the_threshold(tmp_path):
    run = {'q1': {'a': 1.0, 'b': 2.0, 'c': 3.0}, 'q2': {'x': 1.0, 'z': 2.0}}
    table = irmeasures_ext.compare(LLM_QRELS, {'one': run, 'two': LLM_RUN}, [ir_measures.AP], rel=0.5)
    assert table.set_index('run').loc['one', 'mean'] == pytest.approx(
        (reference.average_precision(['c', 'b', 'a'], LLM_QRELS['q1'], 0.5)
         + reference.average_precision(['z', 'x'], LLM_QRELS['q2'], 0.5)) / 2)


def test_thresholds_and_gains_of_real_labels_as_parameters():
    assert str(Q(rel=0.5) @ 10) == 'Q(rel=0.5)@10' and Q(rel=3.0) == Q(rel=3)
    measure = MSnDCG(gains={0.35: 2.0, 0.9: 1.0}) @ 10
    values = PROVIDER.calc_aggregate([measure], {'q': {'a': 0.9, 'b': 0.35}}, {'q': {'a': 2.0, 'b': 1.0}})
    assert values[measure] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))  # b gains more
    with pytest.raises(MeasureParamError, match='gains keys must be labels'):
        Q(gains={math.nan: 1.0})
    assert Q(gains={1.0: 2, 0.5: 1}) == Q(gains={1: 2.0, 0.5: 1.0})
    with pytest.raises(MeasureParamError, match=r'configured\(rel=0.5\)'):
        PROVIDER.calc_aggregate([ir_measures.AP(rel=0.5)], LLM_QRELS, LLM_RUN)
    with pytest.raises(MeasureParamError, match='rel must be a number above 0'):
        PROVIDER.configured(rel=-1)
    assert Q(rel=np.int64(2)) == Q(rel=2) and Q(rel=np.float64(0.5)) == Q(rel=0.5)
    big = Q(gains={1e300: 1.0}) @ 10  # (a whole key beyond 64 bits stays a float, accepted again when computed)
    assert PROVIDER.calc_aggregate([big], {'q': {'a': 0.5, 'b': 2.5}}, {'q': {'a': 1.0, 'b': 2.0}})[big] == 1.0


def test_a_recall_level_outside_0_1_is_an_error(tmp_path, capsys):
    for level in (1.5, -0.1):
        with pytest.raises(MeasureParamError, match=f'IPrec: recall must be a number from 0 to 1, got {level}'):
            PROVIDER.calc_aggregate([ir_measures.IPrec @ level], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text('q 0 a 1\n')
    run.write_text('q Q0 a 1 1 t\n')
    assert main([str(qrels), str(run), 'IPrec@1.5']) == 2
    assert 'IPrec: recall must be a number from 0 to 1, got 1.5' in capsys.readouterr().err
    assert PROVIDER.calc_aggregate([ir_measures.IPrec @ 1.0], {'q': {'a': 1}}, {'q': {'a': 1.0}}) == {
        ir_measures.IPrec @ 1.0: 1.0}


@pytest.mark.parametrize('write', [lambda i: f'{i:02d}', lambda i: f'Q{i}', lambda i: f' {i}'])
def test_query_ids_written_another_way_warn(write):
    """Qrels ids 1..20 (q1..q20 for the case test) and run ids written otherwise for some: AP counts them unanswered,
    with a warning naming some pairs."""
    as_qrels = (lambda i: f'q{i}') if write(1) == 'Q1' else str
    qrels = {as_qrels(i): {'a': 1, 'b': 0, 'c': 1} for i in range(1, 21)}
    run = {write(i): {'a': 1.0, 'b': 2.0, 'c': 3.0} for i in range(1, 21)}
    with pytest.warns(QueryIdFormWarning, match=f"of the run's queries are not in the qrels but match qrels queries "
                                                f"written another way .*run '{write(1)}' ~ qrels '{as_qrels(1)}'"):
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, {as_qrels(i): run[write(i)] for i in range(1, 21)})
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, {as_qrels(1): run[write(1)], 'other 2': {'a': 1.0}})


def test_diversity_qrels_of_one_intent_a_query_warn():
    qrels = pd.DataFrame({'query_id': ['q1', 'q1', 'q2'], 'iteration': ['1', '1', '1'], 'doc_id': ['a', 'b', 'c'],
                          'relevance': [1, 0, 1]})
    run = {'q1': {'a': 2.0, 'b': 1.0}, 'q2': {'c': 1.0}}
    with pytest.warns(SingleIntentWarning, match=r'every query of the qrels has one intent \(subtopic\) only, so '
                                                 r'alpha_nDCG@20 measure no diversity'):
        PROVIDER.calc_aggregate([ir_measures.alpha_nDCG @ 20], qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        PROVIDER.calc_aggregate([ir_measures.alpha_nDCG @ 20], qrels.assign(iteration=['1', '2', '1']), run)
        PROVIDER.calc_aggregate([MedianRank], qrels.drop(columns='iteration'), run)  # (ad hoc: no intents)


def test_query_ids_written_another_way_warn_for_runs_in_pieces_and_on_dask():
    qrels = {'1': {'a': 1}, '2': {'a': 1}, '3': {'a': 1}}
    pieces = [pd.DataFrame({'query_id': [query_id], 'doc_id': ['a'], 'score': [1.0]}) for query_id in ('01', '2', '03')]
    evaluator = PROVIDER.evaluator([ir_measures.AP], qrels)
    with pytest.warns(QueryIdFormWarning, match=r"2 of the run's .*run '01' ~ qrels '1', run '03' ~ qrels '3'"):
        evaluator.finished(evaluator.merge(evaluator.partial(piece) for piece in pieces))
    import dask.dataframe as dd

    from irmeasures_ext import dask as on_dask
    with pytest.warns(QueryIdFormWarning, match="run '01' ~ qrels '1'"):
        on_dask.calc_aggregate([ir_measures.AP], qrels, dd.from_pandas(pd.concat(pieces), npartitions=2))


def test_the_query_id_warning_whole_shows_three_pairs_and_counts_the_rest():
    """The whole message, the pairs in the run's order: three shown, the rest counted (three: nothing counted)."""
    qrels = {str(i): {'a': 1} for i in range(1, 7)}

    def message(run_ids: list[str]) -> str:
        with pytest.warns(QueryIdFormWarning) as caught:
            PROVIDER.calc_aggregate([ir_measures.AP], qrels, {query_id: {'a': 1.0} for query_id in [*run_ids, '6']})
        assert len(caught) == 1
        return str(caught[0].message)
    start = ("of the run's queries are not in the qrels but match qrels queries written another way (zero-padded, in "
             'another case or with white space: ')
    end = '); those qrels queries count as unanswered: write the ids alike'
    assert message(['01', ' 2', '003', '4']) == (f"3 {start}run '01' ~ qrels '1', run ' 2' ~ qrels '2', run '003' ~ "
                                                 f"qrels '3'{end}")
    assert message(['05', '01', ' 2', '003', '4 ']) == (f"5 {start}run '05' ~ qrels '5', run '01' ~ qrels '1', "
                                                        f"run ' 2' ~ qrels '2' and 2 more{end}")


def test_only_unanswered_qrels_queries_match_run_ids_written_otherwise():
    """A run of '1' and '01' answers qrels query 1: '01' matches no unanswered query, no warning. The case is folded by
    str.lower: the Kelvin sign (U+212A) is a k."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        PROVIDER.calc_aggregate([ir_measures.AP], {'1': {'a': 1}, '2': {'a': 1}}, {'1': {'a': 1.0}, '01': {'a': 1.0}})
    with pytest.warns(QueryIdFormWarning, match="run '\u212a1' ~ qrels 'k1'"):
        PROVIDER.calc_aggregate([ir_measures.AP], {'k1': {'a': 1}, 'x': {'a': 1}},
                                {'\u212a1': {'a': 1.0}, 'x': {'a': 1.0}})


def test_a_threshold_equal_to_the_highest_label_is_reached():
    """The highest label, 0.9, reaches a threshold of 0.9: no warning, and the doc labelled 0.9 counts."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        values = PROVIDER.configured(rel=0.9).calc_aggregate([Q @ 10, Q(rel=0.9) @ 10], LLM_QRELS, LLM_RUN)
    assert values[Q @ 10] == values[Q(rel=0.9) @ 10] == pytest.approx(sum(references(0.9)[Q @ 10].values()) / 2)
    assert values[Q @ 10] > 0


def test_measures_without_a_threshold_have_none_to_reach_on_real_labels():
    """ir_measures' NumRet and RBP without rel have no threshold: no warning, and RBP gains the labels."""
    qrels, run = {'q': {'a': 0.9, 'b': 0.35, 'c': 0.0}}, {'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}}
    measures = [ir_measures.NumRet, ir_measures.RBP(p=0.5)]
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        values = PROVIDER.configured(rel=1).calc_aggregate(measures, qrels, run)
    assert values == {ir_measures.NumRet: 3, ir_measures.RBP(p=0.5): pytest.approx(0.5 * (0.9 + 0.35 * 0.5))}


def test_the_threshold_warning_names_each_way_out_after_a_measure_without_one():
    """A measure without a threshold (trec_eval's nDCG) listed first; the measure's own rel and the provider's, each
    with its advice, in one warning."""
    with pytest.warns(UnreachedThresholdWarning) as caught:
        PROVIDER.configured(rel=1).calc_aggregate([ir_measures.nDCG @ 10, Q(rel=2) @ 10, Q @ 10], LLM_QRELS, LLM_RUN)
    assert len(caught) == 1 and str(caught[0].message) == (
        'no judged doc of any query reaches the relevance threshold of some measures, which are therefore 0 (the '
        'real-valued labels range from 0 to 0.9): Q(rel=2)@10: rel=2: give the measure a rel of at most 0.9; Q@10: '
        "the provider's rel=1: set irmeasures_ext.provider.configured(rel=...) or irmeasures-ext --rel to at most 0.9")


def test_the_readmes_example_of_real_labels(tmp_path, capsys):
    """README "Real-valued labels": 0.9/0.35/0.1 and a run a > b > c give 1.0 for AP, RR, Q@10, nDCG@10 and
    MSnDCG@10; --rel 0.5 counts only a; --rel 1 warns that no label reaches it."""
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text('q1 0 a 0.9\nq1 0 b 0.35\nq1 0 c 0.1\n')
    run.write_text('q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\n')
    measures = ['AP', 'RR', 'Q@10', 'nDCG@10', 'MSnDCG@10']
    assert main([str(qrels), str(run), *measures]) == 0
    assert capsys.readouterr().out == ''.join(f'{name}\t1.0000\n' for name in measures)
    assert main([str(qrels), str(run), 'NumRelRet', '--rel', '0.5']) == 0
    assert capsys.readouterr().out == 'NumRet(rel=1)\t1.0000\n'
    assert main([str(qrels), str(run), 'AP', '--rel', '1']) == 0
    out, err = capsys.readouterr()
    assert out == 'AP\t0.0000\n' and 'no judged doc of any query reaches the relevance threshold' in err
