"""The measures and provider through ir_measures' public API, with every input form, against the
plain reference (tests/reference.py) and pytrec_eval."""
import importlib.metadata
import re

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
import reference

import irmeasures_ext
from irmeasures_ext import MeanRank, MedianRank, Q, nDCG_Z1
from irmeasures_ext.sample import QRELS, RUN

PROVIDER = ir_measures.providers.registry['irmeasures_ext']
SAMPLE_QRELS = reference.read_trec_qrels(QRELS)
SAMPLE_RUN = reference.read_trec_run(RUN)
RANKED = {qid: reference.trec_ranking(scores) for qid, scores in SAMPLE_RUN.items()}
DEPTH = max(len(docs) for docs in SAMPLE_RUN.values())


def sample_qrels():
    return list(ir_measures.read_trec_qrels(str(QRELS)))


def sample_run():
    return list(ir_measures.read_trec_run(str(RUN)))


def reference_values(measure) -> dict[str, float]:
    """Per-query reference values of one of our measures on the bundled sample."""
    functions = {
        'Q': lambda r, j: reference.q_measure(r, j, measure['beta'], measure.params.get('gains'), measure['rel'],
                                              measure['cutoff'] if 'cutoff' in measure.params else None),
        'nDCG_Z1': lambda r, j: reference.ndcg_z1(r, j, measure['cutoff'], measure.params.get('gains'), measure['rel']),
        'MeanRank': lambda r, j: reference.first_relevant_rank(r, j, DEPTH, measure['rel']),
        'MedianRank': lambda r, j: reference.first_relevant_rank(r, j, DEPTH, measure['rel']),
    }
    return {qid: functions[measure.NAME](RANKED.get(qid, []), judged) for qid, judged in SAMPLE_QRELS.items()}


def reference_aggregate(measure) -> float:
    values = reference_values(measure)
    if measure.NAME == 'MedianRank':
        return reference.median(values.values())
    return sum(values.values()) / len(values)


OURS = [Q @ 10, Q(beta=0.5, gains={1: 1, 2: 3, 3: 7}) @ 5, nDCG_Z1 @ 5, MeanRank, MedianRank]


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


def test_every_entry_point_gives_the_reference_values():
    """calc_aggregate, iter_calc and a reusable evaluator, each against the reference on the sample."""
    qrels, run = sample_qrels(), sample_run()
    evaluator = ir_measures.evaluator(OURS, qrels)
    for aggregates in (ir_measures.calc_aggregate(OURS, qrels, run), evaluator.calc_aggregate(run),
                       evaluator.calc_aggregate(iter(run))):
        assert aggregates == {m: pytest.approx(reference_aggregate(m), abs=1e-12) for m in OURS}
    per_query = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(OURS, qrels, run)}
    assert per_query == {(m, qid): pytest.approx(v, abs=1e-12) for m in OURS for qid, v in reference_values(m).items()}
    assert len(SAMPLE_QRELS) == 20 and reference_aggregate(MedianRank) != reference_aggregate(MeanRank)


def test_trec_eval_measures_asked_by_name_equal_pytrec_eval():
    shared = [ir_measures.AP, ir_measures.AP @ 10, ir_measures.P @ 5, ir_measures.R @ 10, ir_measures.Rprec,
              ir_measures.nDCG @ 10, ir_measures.Success @ 1, ir_measures.RR]
    qrels, run = sample_qrels(), sample_run()
    ours = PROVIDER.calc_aggregate(shared, qrels, run)
    theirs = ir_measures.pytrec_eval.calc_aggregate(shared, qrels, run)
    assert ours == {measure: pytest.approx(theirs[measure], abs=1e-9) for measure in shared}


@pytest.mark.parametrize('form', ['namedtuples', 'dict', 'dataframe', 'pyterrier_dataframe', 'arrow', 'path'])
def test_every_input_form_gives_the_reference_values(form):
    qrels_df = pd.DataFrame(sample_qrels()).drop(columns='iteration')
    run_df = pd.DataFrame(sample_run())
    qrels, run = {
        'namedtuples': (iter(sample_qrels()), iter(sample_run())),
        'dict': (SAMPLE_QRELS, SAMPLE_RUN),
        'dataframe': (qrels_df, run_df),
        'pyterrier_dataframe': (qrels_df.rename(columns={'query_id': 'qid', 'doc_id': 'docno', 'relevance': 'label'}),
                                run_df.rename(columns={'query_id': 'qid', 'doc_id': 'docno'})),
        'arrow': (pa.Table.from_pandas(qrels_df), pa.Table.from_pandas(run_df)),
        'path': (str(QRELS), RUN),
    }[form]
    assert PROVIDER.calc_aggregate(OURS, qrels, run) == {m: pytest.approx(reference_aggregate(m), abs=1e-12)
                                                        for m in OURS}


def test_mixing_with_built_ins_in_one_call_keeps_their_providers():
    measures = [Q @ 10, ir_measures.P @ 10, ir_measures.Bpref, ir_measures.Judged @ 10]
    results = ir_measures.calc_aggregate(measures, sample_qrels(), sample_run())
    assert set(results) == set(measures)
    assert results[Q @ 10] == pytest.approx(reference_aggregate(Q @ 10), abs=1e-12)
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
    assert ranks == {'found': 2.0, 'missed': 4.0, 'absent': 4.0}  # 3 candidates: the missed doc is 4th


def test_nDCG_Z1_is_not_normalised_for_graded_qrels():
    qrels = {'q': {'a': 3, 'b': 2}}
    run = {'q': {'a': 2.0, 'b': 1.0}}
    value = PROVIDER.calc_aggregate([nDCG_Z1 @ 5], qrels, run)[nDCG_Z1 @ 5]
    assert value == pytest.approx(7 / 1 + 3 / 1.5849625007211562)


def test_version_is_the_installed_distributions():
    assert irmeasures_ext.__version__ == importlib.metadata.version('irmeasures-ext')


@pytest.mark.parametrize('integer', ['int64', 'int32', 'uint8'])
def test_a_numpy_integer_is_an_integer(integer):
    """``depth=np.int64(3)`` (e.g. from an array of depths) is 3; a numpy bool or a float is still no integer."""
    import numpy as np
    provider = irmeasures_ext.provider.configured(depth=np.dtype(integer).type(3))
    assert provider.depth == 3 and type(provider.depth) is int
    assert (Q @ np.dtype(integer).type(5)) == Q @ 5 and str(Q @ np.dtype(integer).type(5)) == 'Q@5'
    for value in (np.True_, True, np.float64(3.0), np.int64(0)):
        message = f'irmeasures_ext: depth must be an integer from 1 to 9223372036854775807, got {value!r}'
        with pytest.raises(irmeasures_ext.MeasureParamError, match=f'^{re.escape(message)}$'):
            irmeasures_ext.provider.configured(depth=value)


# ----------------------------------------------------------------- measures by name (issue 45 §2)

def test_our_provider_and_compare_take_measures_by_name():
    """ir_measures parses names (``parse_measure``, ``parse_trec_measure``): our provider's ``calc_aggregate``,
    ``evaluator`` and ``iter_calc`` and ``irmeasures_ext.compare`` take them as the command line does, where they
    raised ``AttributeError: 'str' object has no attribute 'NAME'``."""
    names = ['nDCG@10', 'Q(beta=0.5)@10', 'P.5,10']  # (the last: trec_eval's name of P@5 and P@10)
    objects = [ir_measures.nDCG @ 10, Q(beta=0.5) @ 10, ir_measures.P @ 5, ir_measures.P @ 10]
    want = PROVIDER.calc_aggregate(objects, str(QRELS), str(RUN))
    assert PROVIDER.calc_aggregate(names, str(QRELS), str(RUN)) == want
    assert PROVIDER.evaluator(names, str(QRELS)).calc_aggregate(str(RUN)) == want
    assert list(PROVIDER.iter_calc(names, str(QRELS), str(RUN))) == list(PROVIDER.iter_calc(objects, str(QRELS),
                                                                                             str(RUN)))
    assert PROVIDER.calc_aggregate([names[0], objects[1]], str(QRELS), str(RUN)) == {
        measure: want[measure] for measure in objects[:2]}
    compared = irmeasures_ext.compare(str(QRELS), [str(RUN), str(RUN)], names, names=['a', 'b'])
    assert compared.equals(irmeasures_ext.compare(str(QRELS), [str(RUN), str(RUN)], objects, names=['a', 'b']))


@pytest.mark.parametrize('name, message', [
    ('nDCG@1O', r"^bad measure 'nDCG@1O': expected Name"),
    ('NDCGG@10', r"^unknown measure 'NDCGG'"),
    ('Q(beta=-1)@10', r"^bad measure 'Q\(beta=-1\)@10': Q: beta must be"),
])
def test_a_name_that_names_no_measure_is_a_measure_error(name, message):
    from irmeasures_ext import MeasureParamError
    for call in (lambda: PROVIDER.calc_aggregate([name], str(QRELS), str(RUN)),
                 lambda: PROVIDER.evaluator([name], str(QRELS)),
                 lambda: list(PROVIDER.iter_calc([name], str(QRELS), str(RUN))),
                 lambda: irmeasures_ext.compare(str(QRELS), [str(RUN), str(RUN)], [name], names=['a', 'b'])):
        with pytest.raises(MeasureParamError, match=message):
            call()
    with pytest.raises(MeasureParamError, match=r'^expected a measure .* got int 10$'):
        PROVIDER.calc_aggregate([10], str(QRELS), str(RUN))
