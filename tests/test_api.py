"""The measures and provider through ir_measures' public API, with every input form."""
import collections

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest

import irmeasures_ext
from irmeasures_ext import MeanRank, MedianRank, Q, nDCG_Z1
from irmeasures_ext.sample import QRELS, RUN

PROVIDER = ir_measures.providers.registry['irmeasures_ext']


def sample_qrels():
    return list(ir_measures.read_trec_qrels(str(QRELS)))


def sample_run():
    return list(ir_measures.read_trec_run(str(RUN)))


def test_parse_measure_builds_our_measures():
    measure = ir_measures.parse_measure('Q(beta=0.5,gains={1:1,2:3,3:7})@10')
    assert measure == Q(beta=0.5, gains={1: 1, 2: 3, 3: 7}) @ 10
    assert measure['beta'] == 0.5 and measure['cutoff'] == 10
    assert ir_measures.parse_measure('Q(beta=1)') == ir_measures.parse_measure('Q(beta=1.0)') == Q
    assert ir_measures.parse_measure('Q(beta=2)') == Q(beta=2.0)
    assert hash(Q(beta=2)) == hash(Q(beta=2.0))
    assert ir_measures.parse_measure('nDCG_Z1@5') == nDCG_Z1 @ 5
    assert str(ir_measures.parse_measure('Q(gains={1:1,2:3,3:7})@5')) == 'Q(gains={1:1.0,2:3.0,3:7.0})@5'
    assert ir_measures.parse_measure(str(Q(beta=0.5, gains={2: 3}) @ 10)) == Q(beta=0.5, gains={2: 3}) @ 10


def test_public_api_entry_points_agree():
    measures = [Q @ 10, nDCG_Z1 @ 5, MeanRank, MedianRank, ir_measures.RR @ 100, ir_measures.AP, ir_measures.nDCG @ 10]
    qrels, run = sample_qrels(), sample_run()
    aggregate = ir_measures.calc_aggregate(measures, qrels, run)
    per_query = collections.defaultdict(list)
    for metric in ir_measures.iter_calc(measures, qrels, run):
        per_query[metric.measure].append(metric.value)
    evaluator = ir_measures.evaluator(measures, qrels)
    assert evaluator.calc_aggregate(run) == evaluator.calc_aggregate(iter(run)) == aggregate  # reusable
    for measure in measures:
        assert len(per_query[measure]) == 20
    assert aggregate[Q @ 10] == pytest.approx(sum(per_query[Q @ 10]) / 20, abs=1e-12)
    values = sorted(per_query[MedianRank])
    assert aggregate[MedianRank] == pytest.approx((values[9] + values[10]) / 2)
    assert aggregate[MeanRank] == pytest.approx(sum(values) / 20)
    assert 0 < aggregate[Q @ 10] < 1 and aggregate[MeanRank] >= 1


def test_shared_measures_asked_by_name_equal_pytrec_eval():
    shared = [ir_measures.AP, ir_measures.AP @ 10, ir_measures.P @ 5, ir_measures.R @ 10, ir_measures.Rprec,
              ir_measures.nDCG @ 10, ir_measures.Success @ 1, ir_measures.RR]
    qrels, run = sample_qrels(), sample_run()
    ours = PROVIDER.calc_aggregate(shared, qrels, run)
    by_name = ir_measures.providers.registry['irmeasures_ext'].evaluator(shared, qrels).calc_aggregate(run)
    reference = ir_measures.pytrec_eval.calc_aggregate(shared, qrels, run)
    for measure in shared:
        assert ours[measure] == by_name[measure] == pytest.approx(reference[measure], abs=1e-9)


@pytest.mark.parametrize('form', ['namedtuples', 'dict', 'dataframe', 'pyterrier_dataframe', 'arrow', 'path'])
def test_every_input_form_gives_the_same_numbers(form):
    measures = [Q @ 20, Q(beta=0, gains={3: 10}), nDCG_Z1 @ 5, MedianRank, ir_measures.RR @ 100, ir_measures.NumRet]
    expected = PROVIDER.calc_aggregate(measures, sample_qrels(), sample_run())
    qrels_df = pd.DataFrame(sample_qrels()).drop(columns='iteration')
    run_df = pd.DataFrame(sample_run())
    qrels, run = {
        'namedtuples': (iter(sample_qrels()), iter(sample_run())),
        'dict': (ir_measures.util.QrelsConverter(sample_qrels()).as_dict_of_dict(),
                 ir_measures.util.RunConverter(sample_run()).as_dict_of_dict()),
        'dataframe': (qrels_df, run_df),
        'pyterrier_dataframe': (qrels_df.rename(columns={'query_id': 'qid', 'doc_id': 'docno', 'relevance': 'label'}),
                                run_df.rename(columns={'query_id': 'qid', 'doc_id': 'docno'})),
        'arrow': (pa.Table.from_pandas(qrels_df), pa.Table.from_pandas(run_df)),
        'path': (str(QRELS), RUN),
    }[form]
    assert PROVIDER.calc_aggregate(measures, qrels, run) == expected


def test_mixing_with_built_ins_in_one_call_keeps_their_providers():
    measures = [Q @ 10, ir_measures.P @ 10, ir_measures.Bpref, ir_measures.Judged @ 10]
    results = ir_measures.calc_aggregate(measures, sample_qrels(), sample_run())
    assert set(results) == set(measures)
    assert results[ir_measures.P @ 10] == ir_measures.pytrec_eval.calc_aggregate(
        [ir_measures.P @ 10], sample_qrels(), sample_run())[ir_measures.P @ 10]


def test_integer_query_ids_in_dataframes_match_string_ids_in_qrels():
    qrels = pd.DataFrame({'query_id': ['1', '1'], 'doc_id': ['a', 'b'], 'relevance': [1, 0]})
    run = pd.DataFrame({'query_id': [1, 1], 'doc_id': ['a', 'b'], 'score': [1.0, 2.0]})
    assert PROVIDER.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == 0.5


def test_unretrieved_and_absent_queries_for_rank_statistics():
    qrels = {'found': {'a': 1}, 'missed': {'z': 1}, 'absent': {'a': 1}}
    run = {'found': {'x': 3.0, 'a': 2.0}, 'missed': {'x': 1.0, 'y': 2.0, 'w': 0.0}}
    ranks = {m.query_id: m.value for m in PROVIDER.iter_calc([MeanRank], qrels, run)}
    assert ranks == {'found': 2.0, 'missed': 4.0, 'absent': 4.0}


def test_nDCG_Z1_is_not_normalised_for_graded_qrels():
    qrels = {'q': {'a': 3, 'b': 2}}
    run = {'q': {'a': 2.0, 'b': 1.0}}
    value = PROVIDER.calc_aggregate([nDCG_Z1 @ 5], qrels, run)[nDCG_Z1 @ 5]
    assert value == pytest.approx(7 / 1 + 3 / 1.5849625007211562)


def test_version_is_exposed():
    assert irmeasures_ext.__version__
