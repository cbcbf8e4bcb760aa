"""File paths wherever the README gives one (issue 39 §3): ``ir_measures.calc_aggregate``, ``iter_calc`` and
``evaluator`` with a qrels or run path, for lists of our measures, ir_measures' own and both mixed, give the
values of the same data loaded (ir_measures' converters handed the path's characters to its providers)."""
import ir_measures
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

