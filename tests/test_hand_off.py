"""Measures computed by another ir_measures provider beside ours (the command, ``evaluate_frame``): the
inputs our readers read are handed to it as dict-of-dicts built from whole Arrow columns, equal to
ir_measures' own conversion (which walks a DataFrame row by row: the 8 s of issue 35's ``+ Bpref``)."""
import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import write_trec_files
from strategies import qrels_and_run

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
