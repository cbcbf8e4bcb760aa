"""Bad input, in one place: a ValueError subclass (``InputError``, ``MeasureParamError``) naming the file
and line, or the query, doc, column or parameter, or a warning; never a bare traceback or a silently
wrong number. In four parts: TREC files (the catalogue), Python inputs, measure parameters, and the
command line's inputs.

The catalogue of malformed and pathological inputs: no input gives a number that differs from
trec_eval's reading of the same files without an error or a warning.

Each file case records what trec_eval printed for it (``trec_eval -c -q -m MEASURE``, versions 9.0.7
and 10.0-rc3 built from usnistgov/trec_eval, 2026-11-30; both agree unless noted): a value, or
"error" when trec_eval stops. Where trec_eval reads a value, we read the same value or refuse with
the file and line; where it stops, we refuse or compute from the documented reading.
"""
import contextlib
import datetime
import gzip
import io
import itertools
import math
import os
import pickle
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest

import irmeasures_ext
from irmeasures_ext import (
    ERR_NTCIR,
    InputError,
    MeanRank,
    MeasureParamError,
    NoOverlapWarning,
    Q,
    ReversedScoresWarning,
    nDCG_Z1,
    nERR,
)
from irmeasures_ext.cli import main
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.ranking import rank_run
from irmeasures_ext.errors import ConflictingLabelsError, DuplicateDocError, RepeatedJudgmentWarning
from irmeasures_ext.readers import inputs
from irmeasures_ext.sample import QRELS as SAMPLE_QRELS
from irmeasures_ext.sample import RUN as SAMPLE_RUN

PROVIDER = ir_measures.providers.registry['irmeasures_ext']
QRELS = {'q1': {'a': 1, 'b': 0}}
GRADED_QRELS = {'q1': {'a': 1, 'b': 2}}  # a and b relevant, b of the higher label


# --- TREC files: the catalogue ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    qrels: bytes
    run: bytes
    measure: str
    trec_eval: float | str      # trec_eval's value for the first query, 'error', or a value it reads otherwise
    ours: float | str           # our value, or a fragment of our one-line error naming file:line


CASES = {
    'U+00A0 inside a doc id, a tab elsewhere in the file': Case(
        b'q1 0 a\xc2\xa0b 1\n', b'q1 Q0 a\xc2\xa0b 1 9 t\nq1\tQ0 c 2 5 t\n', 'RR', 1.0, 1.0),
    'score 1_000 (trec_eval reads 1)': Case(
        b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 1_000 t\nq1 Q0 b 2 5 t\nq1 Q0 c 3 2 t\nq1 Q0 d 4 3 t\n', 'RR', 0.25,
        "run:1: score '1_000' is not a number"),
    'score 0x10 (a hex float to strtod)': Case(b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 0x10 t\nq1 Q0 b 2 5 t\n', 'RR',
                                               1.0, "run:1: score '0x10' is not a number"),
    'score inf': Case(b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 inf t\nq1 Q0 b 2 5 t\n', 'RR', 1.0,
                      "run:1: score 'inf' is not finite"),
    'score nan': Case(b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 nan t\nq1 Q0 b 2 5 t\n', 'RR', 0.5,
                      "run:1: score 'nan' is not finite"),
    'score 1e400 (overflows to inf)': Case(b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 1e400 t\nq1 Q0 b 2 5 t\n', 'RR', 1.0,
                                           "run:1: score '1e400' is not finite"),
    'score .5': Case(b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a 1 .5 t\nq1 Q0 b 2 0.4 t\n', 'RR', 1.0, 1.0),
    'label 0x1F (atol reads 0)': Case(b'q1 0 a 0x1F\n', b'q1 Q0 a 1 1 t\n', 'NumRel', 0.0,
                                      "qrels:1: relevance '0x1F' is not a number"),
    'label +1 (a number as strtod reads it)': Case(b'q1 0 a +1\n', b'q1 Q0 a 1 1 t\n', 'NumRel', 1.0, 1.0),
    # (atol reads 0; ours a real-valued label, relevant as every label above 0: irmeasures_ext/engine/relevance.py)
    'label 0.5 (a real-valued label)': Case(b'q1 0 a 0.5\nq1 0 b 1\n', b'q1 Q0 a 1 1 t\n', 'NumRel',
                                            '1 (atol reads 0: not relevant)', 2.0),
    'label in full-width digits (atol reads 0)': Case('q1 0 a \uff11\n'.encode(), b'q1 Q0 a 1 1 t\n', 'NumRel', 0.0,
                                                      "qrels:1: relevance '\uff11' is not a number"),
    'label past int64': Case(b'q1 0 a 9223372036854775808\n', b'q1 Q0 a 1 1 t\n', 'NumRel', 'error',
                             "qrels:1: relevance '9223372036854775808' is out of range"),
    'a qrels line of spaces': Case(b'q1 0 a 1\n   \nq2 0 b 1\n', b'q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n', 'RR', 'error', 1.0),
    'a missing rank hidden by a double space': Case(
        b'q1 0 a 1\nq1 0 b 0\n', b'q1 Q0 a  1.5 t\nq1 Q0 b 2 5 t\n', 'RR', 'error',
        'run:1: expected 6 fields (qid Q0 docid rank score tag), got 5'),
    'a tab inside the Q0 field': Case(b'q1 0 d 1\n', b'q1 Q0\tx d 1 1.5 t\n', 'RR', 0.0, 0.0),
    'CRLF line ends': Case(b'q1 0 a 1\r\n', b'q1 Q0 a 1 1 t\r\nq1 Q0 b 2 2 t\r\n', 'RR', 0.5, 0.5),
    'a query whose labels are all negative': Case(b'q1 0 a -1\nq1 0 b -2\n', b'q1 Q0 a 1 3 t\n', 'RR', 'error', 0.0),
    'a duplicate doc in the run': Case(b'q1 0 a 1\n', b'q1 Q0 a 1 1 t\nq1 Q0 a 2 2 t\n', 'RR', 'error',
                                       "run:2: duplicate doc 'a' in query 'q1' (first at line 1)"),
    'conflicting qrels labels': Case(b'q1 0 a 1\nq1 0 a 0\n', b'q1 Q0 a 1 1 t\n', 'RR', 'error',
                                     "qrels:2: conflicting labels for doc 'a' in query 'q1': 0 here, 1 at line 1"),
    'a label whose 2^l - 1 gain overflows': Case(
        b'q1 0 a 1\nq1 0 b 99999999999\nq1 0 c 2\n', b'q1 Q0 b 1 1 t\n', 'nDCG_Z1@5', 'error',
        "qrels:2: nDCG_Z1@5: values overflow 64-bit floats in query 'q1' (labels, gains or beta too large; its "
        "highest label: 99999999999 for doc 'b')"),
    'a label of 5000 in a tab-separated file, nDCG_Z1@3': Case(
        b'q0 0 a 1\nq1\t0\ta\t1\nq1 0 b 5000\n', b'q0 Q0 a 1 1 t\nq1 Q0 b 1 1 t\n', 'nDCG_Z1@3', 'error',
        "qrels:3: nDCG_Z1@3: values overflow 64-bit floats in query 'q1'"),
    'qrels and run share no query (trec_eval 9: error; 10: 0)': Case(b'q1 0 d1 1\n', b'zz Q0 x 1 1 t\n', 'RR', 0.0,
                                                                     0.0),
}


def run_cli(tmp_path, case: Case) -> tuple[int, str, str]:
    (tmp_path / 'qrels').write_bytes(case.qrels)
    (tmp_path / 'run').write_bytes(case.run)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # relative names, so that messages read 'run:1: ...'
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(['qrels', 'run', case.measure, '-q', '-n', '-p', '-1'])
    finally:
        os.chdir(cwd)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize('name', CASES)
def test_catalogue(tmp_path, name):
    case = CASES[name]
    status, out, err = run_cli(tmp_path, case)
    if isinstance(case.ours, str):
        assert status == 2 and out == '' and len(err.splitlines()) == 1, (out, err)
        assert err.startswith('irmeasures-ext: error: ') and case.ours in err, err
        return
    assert status == 0, err
    value = float(out.splitlines()[0].split('\t')[2])
    assert value == case.ours
    if isinstance(case.trec_eval, float):
        assert value == case.trec_eval  # a value trec_eval reads too: the same one


def test_no_shared_query_warns_on_stderr_and_in_python(tmp_path):
    _, _, err = run_cli(tmp_path, CASES['qrels and run share no query (trec_eval 9: error; 10: 0)'])
    assert err == ("irmeasures-ext: warning: run: the run retrieves nothing for any of the 1 qrels queries (none of "
                   'its 1 queries is in the qrels: check the query ids); every measure takes its value for an '
                   'unanswered query\n')
    with pytest.warns(NoOverlapWarning, match='the run is empty'):
        PROVIDER.calc_aggregate([ir_measures.RR], {'q1': {'d1': 1}}, [])


def test_no_overlap_warning_only_when_the_run_answers_no_qrels_query():
    with warnings.catch_warnings():
        warnings.simplefilter('error', NoOverlapWarning)
        irmeasures_ext.provider.calc_aggregate([MeanRank], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    with pytest.warns(NoOverlapWarning, match='none of its 1 queries is in the qrels'):
        irmeasures_ext.provider.calc_aggregate([MeanRank], {'q': {'a': 1}}, {'p': {'a': 1.0}})


def swap_rank_and_score(lines: list[str], queries: set[str] | None = None) -> str:
    """The run's lines with their 4th and 5th fields swapped (in ``queries`` only, when given)."""
    swapped = []
    for line in lines:
        fields = line.split()
        if queries is None or fields[0] in queries:
            fields[3], fields[4] = fields[4], fields[3]
        swapped.append(' '.join(fields) + '\n')
    return ''.join(swapped)


def test_swapped_rank_and_score_fields_warn_in_one_line(tmp_path, monkeypatch):
    """The issue's case: the sample run with its rank and score fields swapped. trec_eval ranks by the score
    field whatever the rank field says: the value is pytrec_eval's for the file as written, with a warning."""
    (tmp_path / 'run').write_text(swap_rank_and_score(SAMPLE_RUN.read_text().splitlines()))
    shutil.copy(SAMPLE_QRELS, tmp_path / 'qrels')
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.chdir(tmp_path)  # relative names, so that the message reads 'run: ...'
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(['qrels', 'run', 'AP']) == 0
    reference = ir_measures.pytrec_eval.calc_aggregate([ir_measures.AP], ir_measures.read_trec_qrels(str(SAMPLE_QRELS)),
                                                       ir_measures.read_trec_run(str(tmp_path / 'run')))
    assert out.getvalue() == f'AP\t{reference[ir_measures.AP]:.4f}\n' == 'AP\t0.1689\n'  # 0.5325 unswapped
    err = err.getvalue()
    assert err == ('irmeasures-ext: warning: run: in all 20 queries with two or more docs the scores increase down '
                   'the listed docs, so ranking by score (as trec_eval does) reverses the order the run lists them '
                   'in: are the rank and score fields swapped, or are lower scores better?\n')


def run_frame(text: str, with_rank: bool = True) -> pd.DataFrame:
    frame = pd.read_csv(io.StringIO(text), sep=' ', names=['qid', 'Q0', 'docno', 'rank', 'score', 'tag'],
                        dtype={'qid': str, 'docno': str})
    return frame if with_rank else frame.drop(columns='rank')


def test_swapped_rank_and_score_warn_in_python_for_files_and_frames_with_a_rank_column(tmp_path):
    swapped = swap_rank_and_score(SAMPLE_RUN.read_text().splitlines())
    (tmp_path / 'run').write_text(swapped)
    for run in (tmp_path / 'run', str(tmp_path / 'run'), run_frame(swapped),
                pa.Table.from_pandas(run_frame(swapped), preserve_index=False)):
        with pytest.warns(ReversedScoresWarning, match='in all 20 queries with two or more docs the scores increase'):
            PROVIDER.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, run)


def test_no_score_order_warning_for_runs_listed_by_rank_or_reversed_in_some_queries_only(tmp_path):
    lines = SAMPLE_RUN.read_text().splitlines()
    query_ids = sorted({line.split()[0] for line in lines})
    runs = {'as shipped': SAMPLE_RUN.read_text(), 'swapped in half the queries': swap_rank_and_score(
        lines, set(query_ids[::2])), 'swapped in all but one query': swap_rank_and_score(lines, set(query_ids[1:]))}
    for text in runs.values():
        (tmp_path / 'run').write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter('error', ReversedScoresWarning)
            PROVIDER.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, tmp_path / 'run')
            PROVIDER.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, run_frame(text))
    with warnings.catch_warnings():  # forms without a rank column are not checked: their order means nothing
        warnings.simplefilter('error', ReversedScoresWarning)
        swapped = swap_rank_and_score(lines)
        PROVIDER.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, run_frame(swapped, with_rank=False))
        PROVIDER.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, ir_measures.read_trec_run(str(SAMPLE_RUN)))


def test_lower_is_better_scores_warn_unless_ranked_by_the_rank_column(tmp_path):
    (tmp_path / 'run').write_text('q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.7 t\nq2 Q0 c 1 3 t\nq3 Q0 a 1 1 t\nq3 Q0 c 2 4 t\n')
    with pytest.warns(ReversedScoresWarning, match='in all 2 queries with two or more docs'):
        assert PROVIDER.calc_aggregate([ir_measures.RR], QRELS, tmp_path / 'run')[ir_measures.RR] == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter('error', ReversedScoresWarning)
        assert PROVIDER.configured(ties='rank').calc_aggregate([ir_measures.RR], QRELS,
                                                               tmp_path / 'run')[ir_measures.RR] == 1.0


def test_the_swapped_fields_warning_of_a_one_query_run_says_so(tmp_path):
    (tmp_path / 'run').write_text('q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.7 t\n')
    with pytest.warns(ReversedScoresWarning, match=r'^\S+run: in its one query with two or more docs the scores'):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, tmp_path / 'run')


def queries_listed_by_ascending_score(query_ids: list[str], scores: list[float]) -> int | None:
    """The definition, query by query (a query's rows in a row); None if some query does not ascend."""
    groups: list[list[float]] = []
    for position, (query_id, score) in enumerate(zip(query_ids, scores, strict=True)):
        if position and query_ids[position - 1] == query_id:
            groups[-1].append(score)
        else:
            groups.append([score])
    listed = [group for group in groups if len(group) > 1]
    return len(listed) if all(all(a < b for a, b in itertools.pairwise(group)) for group in listed) else None


@pytest.mark.parametrize('piece', [1, 2, 3, 5, 1 << 16])
def test_score_order_check_equals_its_definition_across_pieces(monkeypatch, piece):
    monkeypatch.setattr(inputs, '_ORDER_PIECE', piece)
    generator = random.Random(piece)
    for _ in range(400):
        sizes = [generator.choice([1, 1, 2, 3, 5]) for _ in range(generator.randint(0, 5))]
        query_ids = [f'q{query}' for query, size in enumerate(sizes) for _ in range(size)]
        increasing = generator.random() < 0.7
        scores = [float(row if increasing else generator.randint(0, 3)) for row in range(len(query_ids))]
        if increasing and len(scores) > 1 and generator.random() < 0.3:
            row = generator.randrange(1, len(scores))
            scores[row] = scores[row - 1]  # a tie: not increasing
        table = pa.table({'query_id': pa.array(query_ids, pa.string()), 'doc_id': ['d'] * len(scores),
                          'score': pa.array(scores, pa.float64())})
        assert inputs.queries_listed_by_ascending_score(table) == queries_listed_by_ascending_score(query_ids,
                                                                                                   scores)


def test_mean_rank_of_an_unanswered_query_is_never_the_best_rank():
    with pytest.warns(NoOverlapWarning):
        ranks = PROVIDER.calc_aggregate([MeanRank], {'q1': {'d1': 1}}, {'zz': {'x': 1.0, 'y': 0.5}})
    assert math.isnan(ranks[MeanRank])  # zz is not in the qrels: no qrels query retrieved anything
    with pytest.warns(NoOverlapWarning):
        assert math.isnan(PROVIDER.calc_aggregate([MeanRank], {'q1': {'d1': 1}}, [])[MeanRank])


# --- Python inputs ----------------------------------------------------------------------------------------------------

def test_duplicate_doc_in_run_is_rejected():
    run = [ir_measures.ScoredDoc('q1', 'a', 1.0), ir_measures.ScoredDoc('q1', 'b', 0.5),
           ir_measures.ScoredDoc('q1', 'a', 0.2)]
    with pytest.raises(InputError, match=r"duplicate doc 'a' in query 'q1' \(2 times\)"):
        PROVIDER.calc_aggregate([Q], GRADED_QRELS, run)


def test_conflicting_qrels_are_rejected_and_identical_repeats_accepted():
    conflicting = [ir_measures.Qrel('q1', 'a', 1), ir_measures.Qrel('q1', 'a', 2)]
    with pytest.raises(InputError, match=r"conflicting labels for doc 'a' in query 'q1' \(labels 1 and 2\)"):
        PROVIDER.evaluator([Q], conflicting)
    repeated = [ir_measures.Qrel('q1', 'a', 2), ir_measures.Qrel('q1', 'a', 2)]
    with pytest.warns(RepeatedJudgmentWarning, match="^qrels: doc 'a' in query 'q1' is judged on 2 lines with the "
                                                     'same label: counted once$'):
        assert PROVIDER.calc_aggregate([ir_measures.NumRel], repeated, {'q1': {'a': 1.0}})[ir_measures.NumRel] == 1


def test_conflicting_labels_error_names_the_pair_and_the_qrels():
    qrels = [ir_measures.Qrel('q1', 'a', 1), ir_measures.Qrel('q2', 'b', 0), ir_measures.Qrel('q2', 'b', 3)]
    with pytest.raises(ConflictingLabelsError) as caught:
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], qrels, {'q2': {'b': 1.0}})
    error = caught.value
    assert str(error) == "qrels: conflicting labels for doc 'b' in query 'q2' (labels 0 and 3); 1 such pair(s)"
    assert (error.kind, error.query_id, error.doc_id) == ('qrels', 'q2', 'b')


@pytest.mark.parametrize('score', [math.nan, math.inf, -math.inf])
def test_non_finite_scores_are_rejected(score):
    with pytest.raises(InputError, match=r"for doc 'b' in query 'q1' is not a finite number"):
        PROVIDER.calc_aggregate([Q], GRADED_QRELS, {'q1': {'a': 1.0, 'b': score}})


def test_non_finite_score_error_names_the_first_bad_row():
    run = [ir_measures.ScoredDoc('q1', 'a', 1.0), ir_measures.ScoredDoc('q2', 'b', float('nan')),
           ir_measures.ScoredDoc('q2', 'c', float('-inf'))]
    with pytest.raises(irmeasures_ext.InputError) as caught:
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {'q1': {'a': 1}}, run)
    error = caught.value
    assert str(error) == "run: score nan for doc 'b' in query 'q2' is not a finite number"
    assert (error.kind, error.query_id, error.doc_id) == ('run', 'q2', 'b')


def test_non_finite_score_error_names_the_row_in_a_later_chunk():
    """Scores are checked chunk by chunk: the row named is counted across chunks of unequal lengths."""
    chunks = [pa.table({'query_id': ['q1'] * 2, 'doc_id': ['a', 'b'], 'score': [2.0, 1.0]}),
              pa.table({'query_id': ['q2'] * 3, 'doc_id': ['c', 'd', 'e'], 'score': [3.0, 2.0, 1.0]}),
              pa.table({'query_id': ['q3'] * 2, 'doc_id': ['f', 'g'], 'score': [float('inf'), 1.0]})]
    run = pa.concat_tables(chunks)
    assert run['score'].num_chunks == 3
    with pytest.raises(irmeasures_ext.InputError) as caught:
        rank_run(run, Judgments(pa.table({'query_id': ['q1'], 'doc_id': ['a'], 'relevance': [1]})))
    assert (caught.value.query_id, caught.value.doc_id) == ('q3', 'f')


@pytest.mark.parametrize('run, message', [
    (pd.DataFrame({'query_id': ['q1'], 'qid': ['q1'], 'doc_id': ['a'], 'score': [1.0]}),
     "run has ambiguous columns 'query_id' and 'qid' (both are query_id)"),
    (pd.DataFrame([['q1', 'a', 1.0, 2.0]], columns=['query_id', 'doc_id', 'score', 'score']),
     "run has ambiguous columns 'score' and 'score'"),
    ({1: {'a': 1.0}, '1': {'b': 2.0}}, "run column 'query_id' holds both 1 and '1', the same id once read as text"),
])
def test_python_inputs_that_would_merge_or_overflow_are_refused(run, message):
    with pytest.raises(InputError, match=message.replace('(', r'\(').replace(')', r'\)')):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, run)


def test_a_score_past_int64_is_read_as_a_float_as_in_a_trec_file():
    """A Python integer score beyond 64 bits: the float64 it is (a TREC file's score reads as one too)."""
    values = PROVIDER.calc_aggregate([ir_measures.RR], QRELS, [ir_measures.ScoredDoc('q1', 'a', 2 ** 70)])
    assert values == PROVIDER.calc_aggregate([ir_measures.RR], QRELS, [ir_measures.ScoredDoc('q1', 'a', 2.0 ** 70)])


@pytest.mark.parametrize('run', [
    {'q1': {'a': 10 ** 400, 'b': 1.0}}, [ir_measures.ScoredDoc('q1', 'a', -10 ** 400)],
    pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', 'b'], 'score': pd.Series([10 ** 400, 1.0], dtype=object)})])
def test_a_score_past_float64_s_range_is_refused_as_not_finite(run):
    # (float(10 ** 400) overflows: a TREC file's 1e400 is infinite, refused as not finite; it was a bare
    # OverflowError from a dict run)
    with pytest.raises(InputError, match="^run column 'score' holds an integer of 1329 bits, beyond float64's "
                                         'range: not a finite number$'):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, run)


def test_a_score_of_the_largest_float64_as_an_integer_is_taken():
    largest = int(sys.float_info.max)
    assert PROVIDER.calc_aggregate([ir_measures.RR], QRELS, {'q1': {'a': largest, 'b': 1.0}}) == \
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, {'q1': {'a': sys.float_info.max, 'b': 1.0}})


def test_a_score_past_python_s_digit_limit_is_refused_by_its_bits():
    # (str() of an int of over 4300 digits raises ValueError in Python 3.11: the message counts bits)
    with pytest.raises(InputError, match="^run column 'score' holds an integer of 16610 bits"):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, {'q1': {'a': 10 ** 5000, 'b': 1.0}})


def test_qrels_label_past_int64_in_a_dict_is_refused():
    with pytest.raises(InputError, match="qrels column 'relevance' holds an integer beyond 64 bits"):
        PROVIDER.calc_aggregate([ir_measures.RR], {'q1': {'a': 2 ** 70}}, {'q1': {'a': 1.0}})


def test_ids_of_mixed_types_are_read_as_strings():
    run = pd.DataFrame({'query_id': ['q1', 7], 'doc_id': ['a', 'x'], 'score': [1.0, 2.0]})
    assert PROVIDER.calc_aggregate([ir_measures.RR], {**QRELS, '7': {'x': 1}}, run)[ir_measures.RR] == 1.0


def as_dataframe(query_ids: list, doc_ids: list, column: str) -> pd.DataFrame:
    return pd.DataFrame({'query_id': query_ids, 'doc_id': pd.Series(doc_ids, dtype=object),
                         column: [1] * len(query_ids)})


def as_arrow(query_ids: list, doc_ids: list, column: str) -> pa.Table:
    return pa.table({'query_id': pa.array(query_ids), 'doc_id': pa.array(doc_ids), column: [1] * len(query_ids)})


def as_records(query_ids: list, doc_ids: list, column: str) -> list:
    record = ir_measures.ScoredDoc if column == 'score' else ir_measures.Qrel
    return [record(query_id, doc_id, 1) for query_id, doc_id in zip(query_ids, doc_ids, strict=True)]


def as_dict_of_dict(query_ids: list, doc_ids: list, column: str) -> dict:
    return {query_id: {doc_id: 1} for query_id, doc_id in zip(query_ids, doc_ids, strict=True)}


ID_FORMS = [as_dataframe, as_arrow, as_records, as_dict_of_dict]


@pytest.mark.parametrize('form', ID_FORMS)
@pytest.mark.parametrize('kind', ['run', 'qrels'])
def test_bool_ids_are_what_str_writes_in_every_form(form, kind):
    """True is 'True' (str(), and a dict key beside others), never Arrow's 'true': a run keyed 'True' matches."""
    ids = form([True, False], ['a', 'b'], 'score' if kind == 'run' else 'relevance')
    qrels, run = ({'True': {'a': 1}, 'False': {'b': 1}}, ids) if kind == 'run' else (
        ids, {'True': {'a': 1.0}, 'False': {'b': 1.0}})
    values = {metric.query_id: metric.value for metric in PROVIDER.iter_calc([ir_measures.RR], qrels, run)}
    assert values == {'True': 1.0, 'False': 1.0}


@pytest.mark.parametrize('run', [
    pd.DataFrame({'query_id': pd.Categorical([7, 8]), 'doc_id': pd.Categorical(['a', 'b']), 'score': [1.0, 2.0]}),
    pa.table({'query_id': pa.array([7, 8], pa.uint8()), 'doc_id': pa.array(['a', 'b'], pa.large_string()),
              'score': [1.0, 2.0]}),
    *([pa.table({'query_id': pa.array(['7', '8'], pa.string_view()),  # (pyarrow 16+: .ci/run also tests pyarrow 14)
                 'doc_id': pa.array(['a', 'b']).dictionary_encode(), 'score': [1.0, 2.0]})]
      if hasattr(pa, 'string_view') else []),
    pa.table({'query_id': pa.array(['7', '8']), 'doc_id': pa.array(['a', 'b']).dictionary_encode(),
              'score': [1.0, 2.0]}),
])
def test_categorical_and_other_string_or_integer_columns_are_their_values_as_text(run):
    values = {metric.query_id: metric.value
              for metric in PROVIDER.iter_calc([ir_measures.RR], {'7': {'a': 1}, '8': {'a': 1}}, run)}
    assert values == {'7': 1.0, '8': 0.0}


REFUSED_IDS = {  # query ids, how the message shows the first refused one and its type; Arrow holds one type
    'floats': ([1.0, 2.0], '1.0 (double)', ID_FORMS),
    'floats, not whole': ([1.5, 2.0], '1.5 (double)', ID_FORMS),
    'a float beside a string (all floats are refused too)': ([1.0, 'q2'], '1.0 (float)',
                                                             [as_dataframe, as_records, as_dict_of_dict]),
    'datetimes (Arrow writes 2024-01-01 00:00:00.000000)': (
        [datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 2)],
        'datetime.datetime(2024, 1, 1, 0, 0) (timestamp[us])', ID_FORMS),
    'a Timestamp beside a string': ([pd.Timestamp('2024-01-01'), 'q2'], "Timestamp('2024-01-01 00:00:00') (Timestamp)",
                                    [as_dataframe, as_records, as_dict_of_dict]),
    'dates': ([datetime.date(2024, 1, 1), datetime.date(2024, 1, 2)], 'datetime.date(2024, 1, 1) (date32[day])',
              ID_FORMS),
    'bytes': ([b'q1', b'q2'], "b'q1' (binary)", ID_FORMS),
}


@pytest.mark.parametrize(('name', 'form'), [(name, form) for name, (_, _, forms) in REFUSED_IDS.items()
                                            for form in forms])
@pytest.mark.parametrize('kind', ['run', 'qrels'])
def test_ids_of_other_types_are_refused_naming_column_and_value(name, form, kind):
    query_ids, shown, _ = REFUSED_IDS[name]
    if form is as_dataframe and pd.Series(query_ids).dtype == 'datetime64[ns]':  # pandas < 3 holds nanoseconds
        shown = "Timestamp('2024-01-01 00:00:00') (timestamp[ns])"
    ids = form(query_ids, ['a', 'b'], 'score' if kind == 'run' else 'relevance')
    qrels, run = (QRELS, ids) if kind == 'run' else (ids, {'q1': {'a': 1.0}})
    with pytest.raises(InputError, match=re.escape(f"{kind} column 'query_id' holds {shown}: ids must be strings or "
                                                   'integers (convert them to the strings the other side uses)')):
        PROVIDER.calc_aggregate([ir_measures.RR], qrels, run)


@pytest.mark.parametrize('form', [as_dataframe, as_records, as_dict_of_dict])  # (Arrow strings are UTF-8)
@pytest.mark.parametrize('doc_ids', [['a', 'b\udc80'], [7, 'b\udc80']])  # one type, or read one by one
def test_a_lone_surrogate_in_an_id_is_refused_naming_the_column(form, doc_ids):
    run = form(['q1', 'q2'], doc_ids, 'score')
    with pytest.raises(InputError, match=re.escape(r"run column 'doc_id' holds 'b\udc80', not valid Unicode "
                                                   "(surrogates not allowed): ids must encode as UTF-8")):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, run)


@pytest.mark.parametrize('run,message', [
    (42, 'unsupported run type int'),
    ([('q1', 'a', 1.0)], 'run records must have fields query_id, doc_id, score'),
    ({'q1': [('a', 1.0)]}, "value for query 'q1' is not a dict"),
    ({'q1': {'a': 'high'}}, "run column 'score': cannot read values as double"),
])
def test_malformed_run_objects_are_rejected(run, message):
    with pytest.raises(InputError, match=message):
        PROVIDER.calc_aggregate([Q], GRADED_QRELS, run)


@pytest.mark.parametrize('run, message', [
    (pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', None], 'score': [1.0, 2.0]}),
     "run column 'doc_id' has 1 missing value(s), the first at row 1"),
    ({'q1': {'a': 1.0, 'b': 'x'}}, "run column 'score': values must be numbers"),
    (type('ColumnsOnly', (), {'columns': ['query_id', 'doc_id', 'score']})(), 'unsupported run type ColumnsOnly'),
])
def test_more_malformed_python_runs_name_the_column_or_type(run, message):
    with pytest.raises(InputError, match=re.escape(message)):
        PROVIDER.calc_aggregate([ir_measures.RR], QRELS, run)


def test_a_row_error_pickles_whole_as_it_travels_from_another_process():
    """A Dask worker's (or a multiprocessing pool's) error reaches the caller pickled: same type, message
    and fields."""
    with pytest.raises(DuplicateDocError) as raised:
        PROVIDER.calc_aggregate([Q], GRADED_QRELS, pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', 'a'],
                                                                 'score': [1.0, 2.0]}))
    copy = pickle.loads(pickle.dumps(raised.value))
    assert type(copy) is DuplicateDocError and str(copy) == str(raised.value)
    assert (copy.kind, copy.query_id, copy.doc_id, copy.problem) == ('run', 'q1', 'a', raised.value.problem)


def test_qrels_without_relevance_are_rejected():
    missing = pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a']})
    with pytest.raises(InputError, match=r"missing column\(s\) \['relevance'\]"):
        PROVIDER.evaluator([Q], missing)


def test_real_valued_relevance_is_a_label_not_an_error():
    """(Refused before issue 35 §4; tests/measures/test_real_labels.py tests them in every form.)"""
    qrels = pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', 'b'], 'relevance': [0.5, 1.5]})
    run = {'q1': {'a': 2.0, 'b': 1.0}}
    assert PROVIDER.calc_aggregate([ir_measures.RR], qrels, run) == {ir_measures.RR: 1.0}  # (every label above 0)
    assert PROVIDER.configured(rel=1).calc_aggregate([ir_measures.RR], qrels, run) == {ir_measures.RR: 0.5}


def test_an_empty_arrow_run_of_any_column_types_is_an_empty_run():
    empty = pa.table({'query_id': pa.array([], pa.float64()), 'doc_id': pa.array([], pa.int32()),
                      'score': pa.array([], pa.float32())})
    with pytest.warns(NoOverlapWarning, match='the run is empty'):
        assert PROVIDER.calc_aggregate([ir_measures.RR], QRELS, empty)[ir_measures.RR] == 0.0


def test_an_empty_run_dataframe_is_an_empty_run():
    empty = pd.DataFrame({'query_id': [], 'doc_id': [], 'score': []})
    with pytest.warns(NoOverlapWarning, match='the run is empty'):
        assert PROVIDER.calc_aggregate([ir_measures.RR], QRELS, empty)[ir_measures.RR] == 0.0


RANK_NEEDED = ('tie policy "rank" needs the run\'s ranks, which {form} does not carry: give the run as a TREC file '
               '(its path), or as a DataFrame, Arrow table or Parquet/Arrow file with a rank column')


@pytest.mark.parametrize('run, form', [
    (lambda path: ir_measures.read_trec_run(str(path)), 'ScoredDoc records (no rank field)'),
    (lambda path: [ir_measures.ScoredDoc('q1', 'a', 1.0)], 'ScoredDoc records (no rank field)'),
    (lambda path: {'q1': {'a': 1.0}}, 'a dict-of-dict'),
    (lambda path: pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'score': [1.0]}),
     "a table without a rank column (columns ['query_id', 'doc_id', 'score'])"),
    (lambda path: pd.DataFrame({'qid': ['q1'], 'docno': ['a'], 'score': [1.0]}),
     "a table without a rank column (columns ['qid', 'docno', 'score'])"),
])
def test_the_rank_policy_on_a_run_without_ranks_says_what_carries_them(tmp_path, run, form):
    """The README's case: ir_measures.read_trec_run's records have no rank, nor have dicts or rank-less frames."""
    path = tmp_path / 'run'
    path.write_text('q1 Q0 a 1 1.0 t\n')
    with pytest.raises(InputError, match=re.escape(RANK_NEEDED.format(form=form))):
        ir_measures.calc_aggregate([nDCG_Z1(ties='rank') @ 5], GRADED_QRELS, run(path))
    with pytest.raises(InputError, match=re.escape(RANK_NEEDED.format(form=form))):
        PROVIDER.configured(ties='rank').calc_aggregate([ir_measures.RR], GRADED_QRELS, run(path))
    ranked = pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', 'b'], 'score': [1.0, 2.0], 'rank': [1, 2]})
    path.write_text('q1 Q0 a 1 1.0 t\nq1 Q0 b 2 2.0 t\n')
    for given in (path, ranked):  # what carries ranks: by rank 'a' (gain 2^1 - 1) first, by score 'b' (2^2 - 1)
        assert ir_measures.calc_aggregate([nDCG_Z1(ties='rank') @ 5, nDCG_Z1 @ 5], GRADED_QRELS,
                                          given) == pytest.approx(
            {nDCG_Z1(ties='rank') @ 5: 1 + 3 / math.log2(3), nDCG_Z1 @ 5: 3 + 1 / math.log2(3)})


def test_read_input_keeps_the_rank_column_only_when_asked_and_reads_an_input_again_for_it(tmp_path):
    (tmp_path / 'run').write_text('q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\n')
    plain = inputs.read_input(tmp_path / 'run', 'run')
    assert plain.table.column_names == ['query_id', 'doc_id', 'score']
    ranked = inputs.read_input(plain, 'run', with_rank=True)
    assert ranked.table.column_names == ['query_id', 'doc_id', 'score', 'rank']
    assert ranked.table['rank'].to_pylist() == [1, 2] and ranked.source is plain.source
    assert inputs.read_input(ranked, 'run', with_rank=True) is ranked
    frame = inputs.read_input(pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'score': [1.0]}), 'run')
    with pytest.raises(InputError, match='needs the run\'s ranks, which a table without a rank column'):
        inputs.read_input(frame, 'run', with_rank=True)


def test_huge_beta_gives_a_finite_q_and_huge_labels_a_clear_error():
    value = PROVIDER.calc_aggregate([Q(beta=1e308) @ 5], {'q': {'a': 2, 'b': 1}}, {'q': {'b': 2.0, 'a': 1.0}})
    # As beta grows, BR(r) -> cg(r) / cg*(r): r=1: 1/2, r=2: 3/3; Q@5 = (1/2 + 1) / 2.
    assert value[Q(beta=1e308) @ 5] == pytest.approx(0.75)
    with pytest.raises(InputError, match=r"nDCG_Z1@5: values overflow 64-bit floats in query 'q' \(labels, gains or "
                                         r"beta too large; its highest label: 5000 for doc 'a'\)"):
        PROVIDER.calc_aggregate([nDCG_Z1 @ 5], {'p': {'a': 1}, 'q': {'b': 3, 'a': 5000, 'c': 4}}, {'q': {'a': 1.0}})


@pytest.mark.parametrize('ties', ['trec_eval', 'expected', 'optimistic'])
def test_an_overflow_names_the_qrels_line_under_every_policy_and_in_the_ties_command(tmp_path, ties):
    (tmp_path / 'qrels').write_text('q1 0 a 1\nq2 0 x 0\nq2 0 b 5000\n')
    (tmp_path / 'run').write_text('q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n')
    with pytest.raises(InputError, match=f"{tmp_path / 'qrels'}:3: nDCG_Z1@3: values overflow 64-bit floats in "
                                         "query 'q2'"):
        PROVIDER.configured(ties=ties).calc_aggregate([nDCG_Z1 @ 3], tmp_path / 'qrels', tmp_path / 'run')
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(['ties', str(tmp_path / 'qrels'), str(tmp_path / 'run'), 'nDCG_Z1@3']) == 2
    assert f"{tmp_path / 'qrels'}:3: nDCG_Z1@3: values overflow" in err.getvalue()


def test_numpy_prints_no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter('error', RuntimeWarning)
        with pytest.raises(InputError):
            PROVIDER.calc_aggregate([nDCG_Z1 @ 5], {'q': {'a': 5000}}, {'q': {'a': 1.0}})


# --- measure parameters -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize('text,message', [
    ('Q(beta="x")', 'beta must be'),
    ('Q(gains={1:"x"})', 'gain for label 1'),
    ('Q(gains=5)', 'gains must be a dict'),
    ('Q(patience=2)', "unknown parameter(s) ['patience']"),
    ('Q@0', 'cutoff must be an integer from 1 to'),
    ('nDCG_Z1(rel=0)@5', 'nDCG_Z1: rel must be a number above 0 (a real one for real-valued labels, e.g. rel=0.5), '
                         'got 0'),
    ("nDCG_Z1(rel='1')@5", 'nDCG_Z1: rel must be a number above 0'),
    ("NCU(stopping='x')", "NCU: stopping must be one of gu, rb; got 'x'"),
    ("NCU(utility='AP')", "NCU: utility must be one of BR, P; got 'AP'"),
    ("NCU(stopping='rb',stops={1:1})", "NCU: stops applies only with stopping='gu', not stopping='rb'"),
    ('NCU(gamma=0.5)', "NCU: gamma applies only with stopping='rb', not stopping='gu'"),
    ("NCU(utility='P',beta=2)", "NCU: beta applies only with utility='BR', not utility='P'"),
    ("NCU(stopping='rb',gamma=1.5)", 'NCU: gamma must be a number from 0 to 1, got 1.5'),
    ('NCU(stops={1:"x"})', 'NCU: stop value for label 1 must be a finite number >= 0'),
    ('NCU(stops=2)', 'NCU: stops must be a dict {label: stop value}'),
    ('P_plus(beta="x")', 'P_plus: beta must be'),
    ('EBR(max_level=0)@5', 'EBR: max_level must be an integer from 1 to'),
])
def test_invalid_params_fail_when_the_measure_is_built(text, message):
    with pytest.raises(MeasureParamError, match=message.replace('(', r'\(').replace(')', r'\)').replace('[', r'\[')):
        ir_measures.parse_measure(text)


def test_negative_values_fail_when_built_in_python():
    # ir_measures' measure-string parser rejects negative literals itself (a ValueError too).
    with pytest.raises(MeasureParamError, match='beta must be a finite number >= 0, got -1'):
        Q(beta=-1)
    with pytest.raises(MeasureParamError, match='gain for label 1 must be a finite number >= 0'):
        Q(gains={1: -3})
    with pytest.raises(ValueError):
        ir_measures.parse_measure('Q(beta=-1)')


def test_our_measures_need_rel_above_zero():
    for rel in (0, -0.5, math.nan, math.inf, True):
        with pytest.raises(MeasureParamError, match='Q: rel must be a number above 0'):
            Q(rel=rel)
    assert Q(rel=2.0) == Q(rel=2) and str(Q(rel=0.25)) == 'Q(rel=0.25)'


def test_missing_required_cutoff_fails_on_evaluation_through_every_entry_point():
    with pytest.raises(MeasureParamError, match="nDCG_Z1: parameter 'cutoff' is required"):
        ir_measures.calc_aggregate([nDCG_Z1], GRADED_QRELS, {'q1': {'a': 1.0}})
    with pytest.raises(MeasureParamError, match='required'):
        PROVIDER.evaluator([nDCG_Z1], GRADED_QRELS)
    assert issubclass(MeasureParamError, ValueError)


def test_unsupported_built_in_variant_is_refused_by_name():
    with pytest.raises(MeasureParamError, match='does not support measure'):
        PROVIDER.evaluator([ir_measures.nDCG(gains={1: 3}, judged_only=True)], GRADED_QRELS)


@pytest.mark.parametrize('measure, message', [
    (ir_measures.RR(rel=2.5), r'RR: ir_measures declares rel an integer, got 2.5; for a real-valued threshold, set it '
                              r'on our provider, which gives it to every measure whose rel is 1 \(the default\): '
                              r'irmeasures_ext.provider.configured\(rel=2.5\) \(irmeasures-ext --rel 2.5\)'),
    (ir_measures.RR(rel=math.inf), 'RR: rel must be an integer from 0 to'),
    (ir_measures.P(rel=-1) @ 3, 'P: rel must be an integer from 0 to'),
    (ir_measures.RR @ 10 ** 21, 'RR: cutoff must be an integer from 1 to'),
    (ir_measures.nDCG(judged_only=1), 'nDCG: judged_only must be True or False'),
])
def test_built_in_parameters_are_checked_without_assert(measure, message):
    with pytest.raises(MeasureParamError, match=message):
        PROVIDER.calc_aggregate([measure], QRELS, {'q1': {'a': 1.0}})


def test_checks_hold_under_python_O():
    """ir_measures checks parameters with assert, which -O removes; ours do not."""
    script = ('import ir_measures, irmeasures_ext\n'
              'try:\n    irmeasures_ext.provider.calc_aggregate([ir_measures.RR(rel=2.5)], {"q": {"a": 1}}, '
              '{"q": {"a": 1.0}})\nexcept irmeasures_ext.MeasureParamError as e:\n    print("refused:", e)\n')
    result = subprocess.run([sys.executable, '-O', '-c', script], capture_output=True, text=True, timeout=120)
    assert result.stdout.startswith('refused: RR: ir_measures declares rel an integer'), result.stderr


def test_nerr_max_level_defaults_and_rejects_labels_above_it():
    qrels = {'q1': {'a': 1, 'b': 3}}
    run = {'q1': {'b': 1.0, 'a': 2.0}}
    default = PROVIDER.calc_aggregate([nERR @ 5], qrels, run)[nERR @ 5]
    assert default == PROVIDER.calc_aggregate([nERR(max_level=3) @ 5], qrels, run)[nERR(max_level=3) @ 5]
    with pytest.raises(InputError, match='qrels label 3 exceeds max_level 2'):
        PROVIDER.calc_aggregate([nERR(max_level=2) @ 5], qrels, run)
    with pytest.raises(MeasureParamError, match='max_level must be an integer from 1 to'):
        nERR(max_level=0)


def test_a_gain_above_max_levels_names_the_label_of_the_largest_gain():
    """max_level 2 of gain 1: label 1's gain 3 exceeds it, though the first entry (a, label 2) does not."""
    measure = nERR(gains={1: 3, 2: 1}, max_level=2) @ 5
    with pytest.raises(InputError) as refused:
        PROVIDER.calc_aggregate([measure], {'q': {'a': 2, 'b': 1, 'c': 0}}, {'q': {'a': 1.0}})
    assert str(refused.value) == (f'qrels: {measure}: the gain of label 1 (3) exceeds that of max_level 2 (1), so '
                                  "its stop probability would exceed 1 (doc 'b' in query 'q')")


@pytest.mark.parametrize('measure', ['nERR(max_level=2)@5', 'ERR_NTCIR(max_level=2)', 'ERR@5'])
def test_a_label_a_measure_cannot_take_names_its_line(tmp_path, capsys, measure):
    """Labels above max_level, or above gdeval's grade 4: the line of the first such label (was no file or line)."""
    (tmp_path / 'qrels.txt').write_text('q 0 a 1\nq 0 b 9\nq 0 c 2\n')
    (tmp_path / 'run.txt').write_text('q Q0 a 1 1.0 r\n')
    assert main([str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), measure]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irmeasures-ext: error: {tmp_path / 'qrels.txt'}:2: {measure}: qrels label 9 exceeds ")
    assert err.endswith(" (doc 'b' in query 'q')\n")


def test_max_level_of_gains_of_labels_up_to_0_takes_qrels_of_labels_up_to_0():
    """gains {0: 1} make max_level 0; the qrels' labels 0 and -1 do not exceed it, and with rel 1 no doc is
    relevant, so each document's stop probability is 0 and ERR is 0."""
    measure = ERR_NTCIR(gains={0: 1}) @ 5
    qrels, run = {'q': {'a': 0, 'b': -1}}, {'q': {'a': 2.0, 'b': 1.0}}
    assert [(m.query_id, m.value) for m in PROVIDER.iter_calc([measure], qrels, run)] == [('q', 0.0)]


# --- the command line's inputs ----------------------------------------------------------------------------------------

def test_process_substitution_and_named_pipes(tmp_path):
    """Each input is read once: `<(...)` works as a RUN and as QRELS."""
    command = (f'{sys.executable} -m irmeasures_ext <(printf "q1 0 a 1\\n") '
               '<(printf "q1 Q0 b 1 2 t\\nq1 Q0 a 2 1 t\\n") RR')
    result = subprocess.run(['bash', '-c', command], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, 'RR\t0.5000\n'), result.stderr


def test_closed_stdin_is_one_clear_line(tmp_path):
    (tmp_path / 'qrels').write_text('q1 0 a 1\n')
    result = subprocess.run(['bash', '-c', f'{sys.executable} -m irmeasures_ext qrels - RR <&-'], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ['irmeasures-ext: error: RUN is "-" but standard input is closed']


def test_nothing_is_left_behind_when_terminated_while_reading_stdin(tmp_path):
    (tmp_path / 'qrels').write_text('q1 0 a 1\n')
    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    child = subprocess.Popen([sys.executable, '-m', 'irmeasures_ext', 'qrels', '-', 'RR'], cwd=tmp_path,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, 'TMPDIR': str(scratch)})
    child.stdin.write(b'q1 Q0 a 1 1 t\n' * 1000)
    child.stdin.flush()
    time.sleep(1.0)  # the command is now reading standard input
    child.send_signal(signal.SIGTERM)
    child.communicate(timeout=60)
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize('module, missing, extra', [('irmeasures_ext.dask', 'dask', 'dask'),
                                                    ('irmeasures_ext.dask', 'dask.dataframe', 'dask')])
def test_a_missing_extra_names_the_install_command_that_works_from_a_clone(module, missing, extra):
    """The package is not on an index, so ``pip install 'irmeasures-ext[dask]'`` fails: the message gives the
    command that works (in a fresh process, with the dependency hidden)."""
    import subprocess
    import sys
    hide = (f'import sys; sys.modules[{missing!r}] = None; import {module}')
    result = subprocess.run([sys.executable, '-c', hide], capture_output=True, text=True, timeout=120)
    assert result.stderr.splitlines()[-1] == (
        f"ModuleNotFoundError: irmeasures_ext.dask needs {missing}: pip install '.[{extra}]' in a clone of "
        'irmeasures_ext (the package is not on a package index)')


def test_citing_paper_filter_without_pyterrier_names_the_install_command(monkeypatch):
    """Not a bare ``No module named 'pyterrier'``: the extra that installs it, from the clone."""
    import sys

    from irmeasures_ext.datasets import citing_paper_filter
    monkeypatch.setitem(sys.modules, 'pyterrier', None)
    with pytest.raises(ModuleNotFoundError) as raised:
        citing_paper_filter({'C1': 'P0'})
    assert str(raised.value) == ("citing_paper_filter needs python-terrier (no module 'pyterrier'): pip install "
                                 "'.[pyterrier]' in a clone of irmeasures_ext (the package is not on a package index)")
    assert raised.value.name == 'pyterrier' and raised.value.__suppress_context__


def test_the_plot_option_without_matplotlib_names_the_install_command(monkeypatch):
    import sys

    from irmeasures_ext.comparison.plot import plot_formats
    monkeypatch.setitem(sys.modules, 'matplotlib.backends.backend_agg', None)
    with pytest.raises(irmeasures_ext.ComparisonError, match=r"^--plot needs matplotlib: pip install '\.\[plot\]' in "
                                                             'a clone of irmeasures_ext'):
        plot_formats()


@pytest.mark.parametrize('kind, frame, message', [
    ('run', pd.DataFrame({'qid': ['q'], 'docno': ['a']}),
     "run is missing column(s) ['score'] (found ['qid', 'docno']); expected ['query_id', 'doc_id', 'score'] or "
     "PyTerrier's ['qid', 'docno', 'score']"),
    ('qrels', pd.DataFrame({'qid': ['q'], 'docno': ['a']}),
     "qrels is missing column(s) ['relevance'] (found ['qid', 'docno']); expected ['query_id', 'doc_id', "
     "'relevance'] or PyTerrier's ['qid', 'docno', 'label']"),
])
def test_a_missing_column_names_the_columns_of_its_kind(kind, frame, message):
    """A run is told a run's names (PyTerrier's qid, docno, score), not the qrels' (docno, label, qid)."""
    qrels, run = (frame, {'q': {'a': 1.0}}) if kind == 'qrels' else ({'q': {'a': 1}}, frame)
    with pytest.raises(InputError) as raised:
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, run)
    assert str(raised.value) == message


# --- every error names file, line and problem (issue 45 §3) -----------------------------------------------------------

NOT_FINITE = ['nan', 'NaN', '-nan', 'nan()', 'NaN(123)', 'nan(0x1)', 'inf', '-Infinity']


def cli_in(folder, *argv: str) -> tuple[int, str, str]:
    """The command run in ``folder`` (so that messages name files as given): its status, output and error output."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
    finally:
        os.chdir(cwd)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize('label', NOT_FINITE)
def test_a_nan_or_infinite_label_is_an_error_naming_file_and_line(tmp_path, label):
    """``nan()``/``NaN(123)`` (strtod's NaN with a payload) gave a bare "could not convert string to float"."""
    (tmp_path / 'qrels').write_text(f'q1 0 a 1\nq1 0 b {label}\n')
    (tmp_path / 'run').write_text('q1 Q0 a 1 2 t\n')
    rule = 'a label must be a finite number'
    problem = f'NaN is not a label ({rule})' if math.isnan(float(label.split('(')[0])) else rule
    assert cli_in(tmp_path, 'qrels', 'run', 'RR') == (
        2, '', f"irmeasures-ext: error: qrels:2: relevance '{label}' is not finite: {problem}\n")
    with pytest.raises(InputError) as raised:
        PROVIDER.calc_aggregate([ir_measures.RR], str(tmp_path / 'qrels'), {'q1': {'a': 1.0}})
    assert str(raised.value) == f"{tmp_path / 'qrels'}:2: relevance '{label}' is not finite: {problem}"


@pytest.mark.parametrize('score', NOT_FINITE)
def test_a_nan_or_infinite_score_names_file_and_line_read_whole_or_streamed(tmp_path, score):
    """Every spelling is read (as strtod reads it) and refused as NonFiniteScoreError is: located in the file."""
    from irmeasures_ext.engine import evaluator as evaluators
    from irmeasures_ext.readers import pieces
    from irmeasures_ext.readers.trec import TrecSource
    (tmp_path / 'qrels').write_text('q1 0 a 1\n')
    (tmp_path / 'run').write_text(f'q1 Q0 a 1 2 t\nq1 Q0 b 2 {score} t\n')
    assert cli_in(tmp_path, 'qrels', 'run', 'RR') == (2, '', f"irmeasures-ext: error: run:2: score '{score}' is not "
                                                             'finite\n')
    built = evaluators.evaluator([ir_measures.RR], str(tmp_path / 'qrels'))
    for run in (str(tmp_path / 'run'), pieces.RunStream(TrecSource(tmp_path / 'run'), False, 16, 200)):
        with pytest.raises(InputError) as raised:
            built.values(run)
        assert str(raised.value) == f"{tmp_path / 'run'}:2: score '{score}' is not finite"


DQRELS = 'q1 1 a L1\nq1 2 b L2\nq2 7 c L0\nq2 7 d L1\n'
DIVERSITY_RUN = 'q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 d 1 1 t\n'


def read_probabilities(path, data: bytes):
    from irmeasures_ext.readers.intent_probabilities import read_intent_probabilities
    path.write_bytes(data)
    return read_intent_probabilities(str(path))


@pytest.mark.parametrize('data', [
    b'q1 1 0.5\nq1 2 0.5\nq2 7 1\n',
    b'\xef\xbb\xbfq1 1 0.5\nq1 2 0.5\nq2 7 1\n',  # a BOM (was kept: query '\ufeffq1', whose probabilities sum to 0.5)
    b'q1 1 0.5\r\nq1\t2\t0.5\rq2\x0b7 \x0c1 \n\n \n',  # any line end, separators, blank lines
    gzip.compress(b'q1 1 0.5\nq1 2 0.5\nq2 7 1\n'),  # compressed, as a TREC file may be
])
def test_intent_probabilities_are_read_in_the_grammar_of_trec_files(tmp_path, data):
    read = read_probabilities(tmp_path / 'Iprob', data)
    assert (read.query_id, read.intent, read.probability.tolist()) == (['q1', 'q1', 'q2'], ['1', '2', '7'],
                                                                       [0.5, 0.5, 1.0])


def test_an_intent_id_keeps_what_trec_files_keep_in_an_id(tmp_path):
    """U+3000, U+00A0, U+2028 and \\x85 belong to an id (str.split and str.splitlines split at them)."""
    read = read_probabilities(tmp_path / 'Iprob', 'q\u00a01 a\u3000b 0.5\nq\u00a01 c\u2028d\x85 0.5\n'.encode())
    assert (read.query_id, read.intent) == (['q\u00a01', 'q\u00a01'], ['a\u3000b', 'c\u2028d\x85'])


@pytest.mark.parametrize('data, problem', [
    # a form feed separates fields, as in a TREC file (str.splitlines ended a line there: every later line's number
    # was one too high)
    (b'q1 1 0.5\fq1 2 0.5\n', '1: expected 3 or 4 fields (qid intent prob, as Iprob, or qid intent prob type, as '
                              'DINprob), got 6'),
    (b'q1 1 0.5\nq1 2 0.5\f\nq2 7 x\n', "3: probability 'x' of intent '7' is not a number from 0 to 1"),
    ('q1 1 \uff10.\uff15\nq1 2 0.5\n'.encode(), "1: probability '\uff10.\uff15' of intent '1' is not a number from 0 "
                                                'to 1'),  # full-width digits (float() reads them)
    (b'q1 1 0.2_5\nq1 2 0.75\n', "1: probability '0.2_5' of intent '1' is not a number from 0 to 1"),
    (b'q1 1 0.5\nq1 2 nan()\n', "2: probability 'nan()' of intent '2' is not a number from 0 to 1"),
    (b'q1 1 0.5\nq1 \xff 0.5\n', '2: not valid UTF-8 (invalid start byte)'),
    (b'\n\n', ': no intent probabilities (the file is empty)'),
])
def test_a_bad_intent_probability_file_names_its_line_as_a_trec_file_would(tmp_path, data, problem):
    from irmeasures_ext.readers.intent_probabilities import IntentFileError
    with pytest.raises(IntentFileError) as raised:
        read_probabilities(tmp_path / 'Iprob', data)
    assert str(raised.value) == f"{tmp_path / 'Iprob'}{'' if problem.startswith(':') else ':'}{problem}"


def test_an_intent_probability_file_that_is_not_text_says_so(tmp_path):
    import pyarrow.parquet as pq

    from irmeasures_ext.readers.intent_probabilities import IntentFileError, read_intent_probabilities
    path = tmp_path / 'Iprob.txt'
    pq.write_table(pa.table({'query_id': ['q1'], 'intent': ['1'], 'probability': [1.0]}), path)
    with pytest.raises(IntentFileError) as raised:
        read_intent_probabilities(str(path))
    assert str(raised.value) == f'{path}: this is a Parquet file, not text (an Iprob or DINprob file): name it .parquet'
    with pytest.raises(IntentFileError) as raised:
        read_intent_probabilities(str(tmp_path / 'none'))
    assert str(raised.value) == f"{tmp_path / 'none'}: no such file"


def test_a_relevant_intent_without_probability_names_the_qrels_line_and_the_probability_file(tmp_path):
    """"intent 7 of query q2 has relevant judgments but no probability" named no file or line: it names the line
    judging the intent relevant (the first by doc id) and the file without its probability."""
    import pyarrow.parquet as pq

    from irmeasures_ext.readers.intent_probabilities import IntentFileError
    (tmp_path / 'Dqrels').write_text(DQRELS)
    (tmp_path / 'run').write_text(DIVERSITY_RUN)
    (tmp_path / 'Iprob').write_text('q1 1 0.5\nq1 2 0.5\n')
    rest = ("intent '7' of query 'q2' has relevant judgments but no probability in {} (1 such intent(s)): list each "
            'intent of the qrels with its probability')
    assert cli_in(tmp_path, 'Dqrels', 'run', 'D_nDCG@10', '--intents', 'Iprob') == (
        2, '', f"irmeasures-ext: error: Dqrels:4: {rest.format('Iprob')}\n")
    measure = ir_measures.parse_measure('D_nDCG@10')
    frame = pd.DataFrame([line.split() for line in DQRELS.splitlines()], columns=['query_id', 'intent', 'doc_id',
                                                                                  'relevance'])
    pq.write_table(pa.Table.from_pandas(frame.assign(relevance=frame.relevance.str[1:].astype(int))),
                   tmp_path / 'Dqrels.parquet')
    for qrels, probabilities, message in [
            ('Dqrels', 'Iprob', f"{tmp_path / 'Dqrels'}:4: {rest.format(tmp_path / 'Iprob')}"),
            ('Dqrels', {'q1': {'1': 0.5, '2': 0.5}},
             f"{tmp_path / 'Dqrels'}:4: {rest.format('the intent probabilities')}"),
            ('Dqrels.parquet', 'Iprob', f"{tmp_path / 'Dqrels.parquet'}: {rest.format(tmp_path / 'Iprob')}")]:
        if isinstance(probabilities, str):
            probabilities = str(tmp_path / probabilities)
        with pytest.raises(IntentFileError) as raised:
            PROVIDER.calc_aggregate([measure], irmeasures_ext.intent_qrels(str(tmp_path / qrels), probabilities),
                                    str(tmp_path / 'run'))
        assert str(raised.value) == message


def test_the_no_overlap_warning_names_the_run_file(tmp_path):
    """"the run is empty" did not say which run; a run from a file is named (whole or streamed), data in memory
    is not."""
    from irmeasures_ext.engine import evaluator as evaluators
    from irmeasures_ext.readers import pieces
    from irmeasures_ext.readers.trec import TrecSource
    (tmp_path / 'qrels').write_text('q1 0 a 1\n')
    (tmp_path / 'run.txt').write_text('\n \n')
    (tmp_path / 'other.txt').write_text('zz Q0 a 1 1 t\n')
    empty = 'the run retrieves nothing for any of the 1 qrels queries (the run is empty); every measure takes its ' \
            'value for an unanswered query'
    other = empty.replace('the run is empty', 'none of its 1 queries is in the qrels: check the query ids')
    assert cli_in(tmp_path, 'qrels', 'run.txt', 'RR') == (0, 'RR\t0.0000\n',
                                                          f'irmeasures-ext: warning: run.txt: {empty}\n')
    assert cli_in(tmp_path, 'qrels', 'other.txt', 'RR')[2] == f'irmeasures-ext: warning: other.txt: {other}\n'
    run = tmp_path / 'run.txt'
    built = evaluators.evaluator([ir_measures.RR], str(tmp_path / 'qrels'))
    for data, message in [(str(run), f'{run}: {empty}'), (pieces.RunStream(TrecSource(run), False, 16, 200),
                                                          f'{run}: {empty}'), ({}, empty)]:
        with pytest.warns(NoOverlapWarning) as warned:
            built.values(data)
        assert [str(warning.message) for warning in warned] == [message]
