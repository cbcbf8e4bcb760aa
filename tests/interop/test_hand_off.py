"""Measures computed by another ir_measures provider beside ours (the command, ``evaluate_frame``): the
inputs our readers read are handed to it as dict-of-dicts built from whole Arrow columns, equal to
ir_measures' own conversion (which walks a DataFrame row by row: the 8 s of issue 35's ``+ Bpref``)."""
import re
import shutil

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import write_trec_files
from strategies import qrels_and_run

import irmeasures_ext
from irmeasures_ext import InputError
from irmeasures_ext.cli import main
from irmeasures_ext.readers.inputs import as_dict_of_dict, read_input

pytestmark = [pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning'),
              pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.ReversedScoresWarning')]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(), st.randoms())
def test_as_dict_of_dict_equals_ir_measures_conversion_of_any_row_order(data, random):
    """Rows of queries interleaved in any order; a (query, doc) listed twice keeps its last value in both."""
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.shuffle(rows)
    rows += rows[:2]  # repeated pairs, last value kept
    frame = pd.DataFrame(rows, columns=['query_id', 'doc_id', 'score'])
    ours = as_dict_of_dict(pa.Table.from_pandas(frame, preserve_index=False), 'score')
    theirs = ir_measures.util.RunConverter(frame).as_dict_of_dict()
    assert ours == theirs and list(ours) == sorted(theirs)
    qrels_table = read_input(qrels, 'qrels').table
    assert as_dict_of_dict(qrels_table, 'relevance') == qrels


def test_as_dict_of_dict_of_an_empty_table():
    empty = pa.table({'query_id': pa.array([], pa.string()), 'doc_id': pa.array([], pa.string()),
                      'score': pa.array([], pa.float64())})
    assert as_dict_of_dict(empty, 'score') == {}


#: trec_eval measures and their pytrec_eval names, all computed by pytrec_eval when it is named.
MEASURES = {'AP': 'map', 'P@5': 'P_5', 'nDCG@10': 'ndcg_cut_10', 'Bpref': 'bpref', 'RR': 'recip_rank'}


def test_a_named_provider_gets_the_inputs_our_readers_read(tmp_path, capsys):
    """``--provider pytrec_eval``: every measure handed off, per query equal to pytrec_eval on the same data."""
    qrels = {'1': {'a': 1, 'b': 0, 'c': 2}, '2': {'a': 0, 'x': 1}, '3': {'z': 1}}
    run = {'1': {'a': 1.5, 'b': 2.0, 'd': 0.5, 'c': 0.25}, '2': {'x': 3.0, 'a': 1.0, 'y': 2.0}}
    files = write_trec_files(tmp_path, qrels, run)
    assert main([*files, *MEASURES, '-q', '-n', '-p', '-1', '--provider', 'pytrec_eval']) == 0
    got = {(q, m): float(v) for q, m, v in (line.split('\t') for line in capsys.readouterr().out.splitlines())}
    want = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
    for (query_id, measure), value in got.items():
        assert value == pytest.approx(want[query_id][MEASURES[measure]] if query_id in want else 0.0, abs=1e-12)
    assert {q for q, _ in got} == set(qrels)


# ------------------------------------------- another provider that cannot take an input ours can (issue 45 §2)

def refusal(measures: str, provider: str) -> str:
    """The start and end of the one-line error naming ``measures`` (as printed) and ``provider``."""
    return (rf"^{re.escape(measures)}: ir_measures' {provider} provider .*; the irmeasures_ext provider computes "
            r'(it|them) from these inputs: irmeasures_ext\.provider\.calc_aggregate\(\[.*\], qrels, run\) '
            r'\(also ir_measures\.irmeasures_ext; on the command line, irmeasures-ext without '
            rf'--provider {provider}\)$')


@pytest.mark.skipif(shutil.which('perl') is None, reason="gdeval's provider needs perl")
def test_gdeval_on_ids_it_cannot_read_is_one_line_naming_our_provider(capfd):
    """gdeval.pl reads numeric query ids only: ERR@10 on the bundled sample (ids q01...) printed perl's "format
    error" and a CalledProcessError. Now one line, before perl runs, naming the measure and our provider, whose
    call it gives computes the measure; where gdeval can read the input, gdeval still computes it."""
    qrels, run = str(irmeasures_ext.sample.QRELS), str(irmeasures_ext.sample.RUN)
    measures = [ir_measures.ERR @ 10, ir_measures.nDCG(dcg='exp-log2') @ 10]
    with pytest.raises(InputError, match=refusal("ERR@10 nDCG(dcg='exp-log2')@10", 'gdeval')) as error:
        ir_measures.calc_aggregate(measures, qrels, run)
    assert "cannot read these qrels: query id 'q01' is not a number" in str(error.value)
    assert 'format error' not in capfd.readouterr().err
    assert irmeasures_ext.provider.calc_aggregate(["ERR@10", "nDCG(dcg='exp-log2')@10"], qrels, run)
    numeric = {'1': {'a': 2, 'b': 0, 'c': 1}, '2': {'x': 1}}
    numeric_run = {'1': {'a': 1.0, 'b': 3.0, 'c': 2.0}, '2': {'x': 1.0, 'y': 2.0}}
    assert ir_measures.calc_aggregate(measures, numeric, numeric_run) == ir_measures.gdeval.calc_aggregate(
        measures, numeric, numeric_run)
    with pytest.raises(InputError, match=refusal('ERR@10', 'gdeval')):  # (a run id gdeval.pl cannot read: it stops)
        ir_measures.calc_aggregate([ir_measures.ERR @ 10], numeric, {'1': {'a': 1.0}, 'q-x': {'a': 1.0}})
    above_4 = {'q1': {'a': 5, 'b': 7}}  # (which ours refuses too: the same error, not a pointer to ours)
    with pytest.raises(InputError) as ours:
        irmeasures_ext.provider.calc_aggregate([ir_measures.ERR @ 10], above_4, numeric_run)
    with pytest.raises(InputError) as theirs:
        ir_measures.calc_aggregate([ir_measures.ERR @ 10], above_4, numeric_run)
    assert str(theirs.value) == str(ours.value) == (
        "qrels: ERR@10: qrels label 7 exceeds gdeval's maximum grade 4 (doc 'b' in query 'q1')")


def test_pytrec_eval_on_real_labels_is_one_line_naming_our_provider():
    """pytrec_eval refuses labels that are not integers ("Expected relevance to be integer."): said with the
    measures and our provider, which computes them; integer labels still go to pytrec_eval."""
    qrels = [ir_measures.Qrel('1', 'a', 0.5), ir_measures.Qrel('1', 'b', 1), ir_measures.Qrel('2', 'a', 2)]
    run = [ir_measures.ScoredDoc(query_id, doc_id, score) for query_id, doc_id, score in (
        ('1', 'a', 1.0), ('1', 'b', 2.0), ('2', 'a', 1.0))]
    measures = [ir_measures.nDCG @ 10, ir_measures.AP]
    with pytest.raises(InputError, match=refusal('AP nDCG@10', 'pytrec_eval')):
        ir_measures.calc_aggregate(measures, qrels, run)
    with pytest.raises(InputError, match=refusal('AP nDCG@10', 'pytrec_eval')):
        ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)
    assert irmeasures_ext.provider.calc_aggregate(['nDCG@10', 'AP'], qrels, run)
    whole = [qrel._replace(relevance=int(qrel.relevance + 0.5)) for qrel in qrels]
    assert ir_measures.calc_aggregate(measures, whole, run) == ir_measures.pytrec_eval.calc_aggregate(
        measures, whole, run)


def test_the_pipeline_hands_our_measures_to_our_evaluator_which_reads_each_input_once(tmp_path, monkeypatch):
    """``ir_measures.calc_aggregate`` with only measures of ours: the pipeline's evaluator is ours, which reads the
    files itself (no dict-of-dict of the run or qrels, no second reading of the qrels) and aggregates them; with a
    measure of pytrec_eval's too, that provider gets its dict-of-dicts (built once per input); the values are the
    provider's either way."""
    from irmeasures_ext.engine.evaluator import ExtEvaluator
    from irmeasures_ext.readers import inputs
    from irmeasures_ext.readers.trec import TrecSource
    qrels, run = write_trec_files(tmp_path, {'q1': {'a': 2, 'b': 0, 'c': 1}, 'q2': {'d': 1}},
                                  {'q1': {'a': 3.0, 'b': 2.0, 'c': 1.0}, 'q2': {'e': 1.0, 'd': 0.0}})
    ours = [irmeasures_ext.Q @ 10, irmeasures_ext.nDCG_Z1 @ 5]
    expected = irmeasures_ext.provider.calc_aggregate(ours + [ir_measures.AP, ir_measures.nDCG @ 10], qrels, run)
    assert isinstance(ir_measures.DefaultPipeline.evaluator(ours, qrels), ExtEvaluator)
    converted, reads = [], []
    monkeypatch.setattr(inputs, 'as_dict_of_dict', lambda *args: converted.append(args[1]) or as_dict_of_dict(*args))
    read = TrecSource.read
    monkeypatch.setattr(TrecSource, 'read', lambda source, layout: reads.append(source.name) or read(source, layout))
    assert ir_measures.calc_aggregate(ours, qrels, run) == pytest.approx({m: expected[m] for m in ours})
    assert converted == [] and sorted(reads) == sorted([qrels, run])
    converted.clear(), reads.clear()
    made = judgments_made(monkeypatch)
    mixed = ir_measures.calc_aggregate(ours + [ir_measures.AP, ir_measures.nDCG @ 10], qrels, run)
    assert mixed == pytest.approx(expected) and sorted(converted) == ['relevance', 'score']
    assert sorted(reads) == sorted([qrels, run]) and made == [2]  # (the qrels converted once: the check is ours)
    monkeypatch.setattr(ExtEvaluator, '_iter_calc', lambda *_: pytest.fail('ours aggregated by ir_measures'))
    mixed = ir_measures.calc_aggregate(ours + [ir_measures.AP, ir_measures.nDCG @ 10], qrels, run)
    assert mixed == pytest.approx(expected)  # (our measures aggregated by our evaluator, pytrec_eval's by it)
    aggregated, per_query = ir_measures.calc(ours + [ir_measures.AP, ir_measures.nDCG @ 10], qrels, run)
    assert aggregated == pytest.approx(expected) and len(per_query) == 4 * 2


def judgments_made(monkeypatch) -> list[int]:
    """The number of qrels judgments made from now on, by the size of their qrels (Judgments patched)."""
    from irmeasures_ext.engine.judgments import Judgments
    made = []
    init = Judgments.__init__

    def counted(self, table, *args, **kwargs):
        made.append(len({query_id for query_id in table['query_id'].to_pylist()}))
        init(self, table, *args, **kwargs)
    monkeypatch.setattr(Judgments, '__init__', counted)
    return made


def test_qrels_judgments_are_made_once_per_read_and_a_lenient_check_never_serves_a_strict_one(tmp_path):
    """Judgments of intents are made once per read qrels: judgments checked for one label per doc (for measures
    that ignore intents) serve a diversity measure alone, but not the other way round: a doc labelled
    differently for two intents is still refused for a measure that ignores intents."""
    from irmeasures_ext.engine.intents import judgments_of
    path = tmp_path / 'qrels.txt'
    path.write_text('q1 i1 a 1\nq1 i2 a 2\nq1 i1 b 1\n', encoding='utf-8')
    read = read_input(str(path), 'qrels', with_intents=True)
    lenient = judgments_of(read, True)
    assert judgments_of(read, True) is lenient
    with pytest.raises(InputError, match="conflicting labels for doc 'a' in query 'q1'"):
        judgments_of(read, True, ['AP'])
    agreeing = tmp_path / 'agreeing.txt'
    agreeing.write_text('q1 i1 a 1\nq1 i2 a 1\nq1 i1 b 1\n', encoding='utf-8')
    read = read_input(str(agreeing), 'qrels', with_intents=True)
    strict = judgments_of(read, True, ['AP'])
    assert judgments_of(read, True) is strict and judgments_of(read, True, ['P@5']) is strict
    assert judgments_of(read_input(str(agreeing), 'qrels', with_intents=True), True) is not strict  # (per Input)
