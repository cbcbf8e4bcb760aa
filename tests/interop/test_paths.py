"""File paths wherever the README gives one (issue 39 §3): ``ir_measures.calc_aggregate``, ``iter_calc`` and
``evaluator`` with a qrels or run path, for lists of our measures, ir_measures' own and both mixed, give the
values of the same data loaded (ir_measures' converters handed the path's characters to its providers)."""
import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import irmeasures_ext
from irmeasures_ext import InputError, Q, nDCG_Z1

SAMPLE_QRELS, SAMPLE_RUN = str(irmeasures_ext.sample.QRELS), str(irmeasures_ext.sample.RUN)
MEASURE_LISTS = {'ours': [Q @ 10, nDCG_Z1 @ 5], 'ir_measures': [ir_measures.AP, ir_measures.nDCG @ 10],
                 'mixed': [Q @ 10, ir_measures.AP, ir_measures.RR @ 10, ir_measures.P @ 5]}


def loaded():
    return list(ir_measures.read_trec_qrels(SAMPLE_QRELS)), list(ir_measures.read_trec_run(SAMPLE_RUN))


def as_parquet(tmp_path, records, name):
    table = pa.table({field: [getattr(record, field) for record in records] for field in records[0]._fields})
    pq.write_table(table, tmp_path / f'{name}.parquet')
    return str(tmp_path / f'{name}.parquet')


def inputs(tmp_path, form):
    qrels, run = loaded()
    if form == 'TREC paths':
        return SAMPLE_QRELS, SAMPLE_RUN
    if form == 'pathlib paths':
        return irmeasures_ext.sample.QRELS, irmeasures_ext.sample.RUN
    if form == 'a run path':
        return qrels, SAMPLE_RUN
    if form == 'a qrels path':
        return SAMPLE_QRELS, run
    return as_parquet(tmp_path, qrels, 'qrels'), as_parquet(tmp_path, run, 'run')


@pytest.mark.parametrize('form', ['TREC paths', 'pathlib paths', 'a run path', 'a qrels path', 'Parquet paths'])
@pytest.mark.parametrize('measures', sorted(MEASURE_LISTS))
def test_paths_give_the_values_of_the_loaded_data_through_ir_measures(tmp_path, form, measures):
    measures = MEASURE_LISTS[measures]
    want = ir_measures.calc_aggregate(measures, *loaded())
    qrels, run = inputs(tmp_path, form)
    assert ir_measures.calc_aggregate(measures, qrels, run) == pytest.approx(want, abs=1e-12)
    per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    assert per_query == pytest.approx({(str(m.measure), m.query_id): m.value
                                       for m in ir_measures.iter_calc(measures, *loaded())}, abs=1e-12)
    assert ir_measures.evaluator(measures, qrels).calc_aggregate(run) == pytest.approx(want, abs=1e-12)


def test_a_named_provider_takes_paths_too():
    want = ir_measures.pytrec_eval.calc_aggregate([ir_measures.AP], *loaded())
    assert ir_measures.pytrec_eval.calc_aggregate([ir_measures.AP], SAMPLE_QRELS, SAMPLE_RUN) == want


def test_a_bad_file_given_by_path_to_ir_measures_names_its_lines(tmp_path):
    (tmp_path / 'qrels.txt').write_text('q 0 a 1\nq 0 b 0\nq 0 a 2\n')
    with pytest.raises(InputError, match=r"qrels.txt:3: conflicting labels for doc 'a' in query 'q': 2 here, 1 at "
                                         'line 1'):
        ir_measures.calc_aggregate([ir_measures.AP, Q], str(tmp_path / 'qrels.txt'), SAMPLE_RUN)



# ----------------------------------------------------------------------------- the same error (issue 45 §2)

@pytest.mark.parametrize('measures', sorted(MEASURE_LISTS))
@pytest.mark.parametrize('which', ['qrels', 'run'])
@pytest.mark.parametrize('mistyped', ['qrels.txtt', 'some/folder/qrels.txt', 'qrels'])
def test_a_mistyped_path_is_no_such_file_on_every_entry_point(measures, which, mistyped):
    """A ``str`` that names no file was handed to ir_measures' providers as an iterable of characters ("unknown
    qrels format: iterable not a namedtuple iterator"); it is our "no such file", naming it, as ours says."""
    measures = MEASURE_LISTS[measures]
    qrels, run = (mistyped, SAMPLE_RUN) if which == 'qrels' else (SAMPLE_QRELS, mistyped)
    for call in (lambda: ir_measures.calc_aggregate(measures, qrels, run),
                 lambda: list(ir_measures.iter_calc(measures, qrels, run)),
                 lambda: ir_measures.evaluator(measures, qrels).calc_aggregate(run),
                 lambda: irmeasures_ext.provider.calc_aggregate([Q @ 10], qrels, run)):
        with pytest.raises(InputError, match=f'^{mistyped}: no such file$'):
            call()


def empty_qrels():
    """Qrels without a judgment, in each form, with the error our reader gives for each."""
    records = ir_measures.read_trec_qrels(SAMPLE_QRELS)
    list(records)  # (read once: a generator already read)
    no_records = r'^qrels: no records \(an empty iterable, or a generator .* give judgments$'
    return {'[]': ([], no_records), 'a generator already read': (records, no_records),
            'an exhausted iterator': (iter(()), no_records), '{}': ({}, r'^qrels: an empty dict-of-dict, ')}


@pytest.mark.parametrize('form', sorted(empty_qrels()))
@pytest.mark.parametrize('measures', sorted(MEASURE_LISTS))
def test_empty_qrels_are_our_error_whoever_computes_the_measures(form, measures):
    """ir_measures' own measures alone gave every measure NaN (``{nDCG@10: nan}``); with one of ours, our error: now
    the error for every list of measures, in every entry point."""
    measures = MEASURE_LISTS[measures]
    for call in (lambda qrels: ir_measures.calc_aggregate(measures, qrels, SAMPLE_RUN),
                 lambda qrels: list(ir_measures.iter_calc(measures, qrels, SAMPLE_RUN)),
                 lambda qrels: ir_measures.evaluator(measures, qrels)):
        qrels, message = empty_qrels()[form]
        with pytest.raises(InputError, match=message):
            call(qrels)


def test_an_empty_dataframe_of_qrels_stays_ir_measures_for_its_measures():
    """PyTerrier's batched ``pt.Experiment`` hands ir_measures each batch's qrels, which may be an empty frame: its
    own measures give no per-query value there, as before (our measures refuse it: every value would be
    undefined)."""
    empty = pd.DataFrame({'query_id': [], 'doc_id': [], 'relevance': []})
    assert list(ir_measures.iter_calc(MEASURE_LISTS['ir_measures'], empty, SAMPLE_RUN)) == []
    with pytest.raises(InputError, match=r'^qrels: an empty table, '):
        list(ir_measures.iter_calc(MEASURE_LISTS['mixed'], empty, SAMPLE_RUN))


@pytest.mark.parametrize('measures', sorted(MEASURE_LISTS))
def test_a_bad_run_given_by_path_to_ir_measures_names_its_lines(tmp_path, measures):
    """A run path is checked as our provider checks a run, whichever provider computes the measures (ir_measures'
    own dict-of-dict kept one score of a doc listed twice)."""
    (tmp_path / 'run.txt').write_text('q01 Q0 a 1 2.0 r\nq01 Q0 b 2 1.5 r\nq01 Q0 a 3 1.0 r\n')
    with pytest.raises(InputError, match=r"run.txt:3: duplicate doc 'a' in query 'q01'"):
        ir_measures.calc_aggregate(MEASURE_LISTS[measures], SAMPLE_QRELS, str(tmp_path / 'run.txt'))
