"""pandas in and out (irmeasures_ext.frames) and PyTerrier's pt.Experiment / pt.Evaluate with our measures."""
import itertools
import statistics

import ir_measures
import pandas as pd
import pytest
import reference
from ir_measures import RR

from irmeasures_ext import InputError, MeasureParamError, MedianRank, Q, nDCG_Z1
from irmeasures_ext.frames import evaluate_frame, iter_calc

MEASURES = [Q @ 10, nDCG_Z1 @ 5, RR @ 100, MedianRank]

# PyTerrier column names; q3 is judged but not retrieved, q9 retrieved but not judged.
TOPICS = pd.DataFrame({'qid': ['q1', 'q2', 'q3'], 'query': ['first', 'second', 'third']})
QRELS = pd.DataFrame({'qid': ['q1', 'q1', 'q1', 'q2', 'q3'], 'docno': ['d1', 'd2', 'd3', 'd4', 'd9'],
                      'label': [1, 2, 0, 1, 1]})
RES_A = pd.DataFrame({'qid': ['q1', 'q1', 'q1', 'q2', 'q2', 'q9'], 'docno': ['d2', 'd1', 'd0', 'd4', 'd5', 'd1'],
                      'score': [3.0, 2.0, 1.0, 2.0, 1.0, 1.0], 'rank': [0, 1, 2, 0, 1, 0]})
# The same docs scored the other way round, ranked and listed as PyTerrier lists them (by score).
RES_B = pd.DataFrame({'qid': ['q1', 'q1', 'q1', 'q2', 'q2', 'q9'], 'docno': ['d0', 'd1', 'd2', 'd5', 'd4', 'd1'],
                      'score': [3.0, 2.0, 1.0, 2.0, 1.0, 1.0], 'rank': [0, 1, 2, 0, 1, 0]})

LOG2_3 = 1.5849625007211562
#: Per-query values worked out by hand (R, ideal gains and ranks from QRELS above; q3 is absent from
#: both runs, so its MedianRank is 1 + the run's depth of 3 docs, and every other measure is 0).
EXPECTED = {
    # RES_A ranks q1: d2 (2), d1 (1), d0; q2: d4 (1), d5. Every relevant doc comes first: Q = 1.
    'a': {('Q@10', 'q1'): 1.0, ('nDCG_Z1@5', 'q1'): 3 + 1 / LOG2_3, ('RR@100', 'q1'): 1.0, ('MedianRank', 'q1'): 1.0,
          ('Q@10', 'q2'): 1.0, ('nDCG_Z1@5', 'q2'): 1.0, ('RR@100', 'q2'): 1.0, ('MedianRank', 'q2'): 1.0},
    # RES_B ranks q1: d0, d1 (1), d2 (2): Q = ((1+1)/(2+3) + (2+3)/(3+3)) / 2; q2: d5, d4 (1): Q = (1+1)/(2+1).
    'b': {('Q@10', 'q1'): (2 / 5 + 5 / 6) / 2, ('nDCG_Z1@5', 'q1'): 1 / LOG2_3 + 3 / 2, ('RR@100', 'q1'): 0.5,
          ('MedianRank', 'q1'): 2.0, ('Q@10', 'q2'): 2 / 3, ('nDCG_Z1@5', 'q2'): 1 / LOG2_3, ('RR@100', 'q2'): 0.5,
          ('MedianRank', 'q2'): 2.0},
}
for values in EXPECTED.values():
    values.update({('Q@10', 'q3'): 0.0, ('nDCG_Z1@5', 'q3'): 0.0, ('RR@100', 'q3'): 0.0, ('MedianRank', 'q3'): 4.0})


def as_ir_measures_names(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns={'qid': 'query_id', 'docno': 'doc_id', 'label': 'relevance'})


def per_query(run: pd.DataFrame) -> dict:
    """The hand-worked values of RES_A or RES_B."""
    return EXPECTED['a' if run is RES_A else 'b']


# --- irmeasures_ext.frames ------------------------------------------------------------------------

@pytest.mark.parametrize('names', ['pyterrier', 'ir_measures'])
def test_evaluate_frame_with_either_column_names(names):
    run, qrels = (RES_A, QRELS) if names == 'pyterrier' else (as_ir_measures_names(RES_A), as_ir_measures_names(QRELS))
    frame = evaluate_frame(MEASURES, qrels, run)
    assert list(frame.columns) == ['query_id', 'measure', 'value']
    assert list(zip(frame['measure'], frame['query_id'], strict=True)) == [
        (str(m), q) for m in MEASURES for q in ['q1', 'q2', 'q3']]
    assert dict(zip(zip(frame['measure'], frame['query_id'], strict=True), frame['value'], strict=True)) == \
        pytest.approx(per_query(RES_A))


def test_evaluate_frame_falls_back_for_measures_we_lack():
    other = ir_measures.nDCG(gains={1: 2}, judged_only=True)  # our provider leaves it to pytrec_eval
    frame = evaluate_frame([other, Q @ 10], QRELS, RES_A)
    assert list(frame['measure'].unique()) == [str(other), 'Q@10']
    theirs = ir_measures.providers.registry['pytrec_eval'].iter_calc(
        [other], as_ir_measures_names(QRELS), as_ir_measures_names(RES_A).drop(columns='rank'))
    assert frame[frame['measure'] == str(other)].set_index('query_id')['value'].to_dict() == \
        pytest.approx({m.query_id: m.value for m in theirs})


def test_iter_calc_with_named_providers():
    ours = {(str(m.measure), m.query_id): m.value for m in iter_calc([RR @ 100], QRELS, RES_B, 'irmeasures_ext')}
    theirs = {(str(m.measure), m.query_id): m.value for m in iter_calc([RR @ 100], QRELS, RES_B, 'msmarco')}
    assert ours == theirs == {('RR@100', 'q1'): 0.5, ('RR@100', 'q2'): 0.5, ('RR@100', 'q3'): 0.0}
    with pytest.raises(MeasureParamError, match='provider pytrec_eval does not support measure'):
        list(iter_calc([Q @ 10], QRELS, RES_B, 'pytrec_eval'))
    with pytest.raises(ValueError, match="unknown provider 'nope'"):
        list(iter_calc([RR], QRELS, RES_B, 'nope'))


def test_frames_check_their_input():
    with pytest.raises(InputError, match="duplicate doc 'd2' in query 'q1'"):
        evaluate_frame([RR], QRELS, pd.concat([RES_A, RES_A.head(2)]))
    with pytest.raises(MeasureParamError, match='cutoff'):
        evaluate_frame([nDCG_Z1], QRELS, RES_A)


@pytest.mark.parametrize('measures', [[Q @ 10, ir_measures.nDCG @ 10], [ir_measures.nDCG @ 10, ir_measures.AP],
                                      [Q @ 10, RR @ 100]], ids=['mixed', 'ir_measures', 'ours'])
def test_ir_measures_takes_pyterrier_names_for_every_measure(measures):
    """ir_measures' functions with DataFrames of PyTerrier's names (``qid, docno, label|score``), as the README says
    they are taken: another provider's measures beside ours gave "DataFrame missing columns"; now every list of
    measures gives the values of the same frames with ir_measures' names."""
    theirs = as_ir_measures_names(QRELS), as_ir_measures_names(RES_A)
    want = ir_measures.calc_aggregate(measures, *theirs)
    assert ir_measures.calc_aggregate(measures, QRELS, RES_A) == want
    assert ir_measures.evaluator(measures, QRELS).calc_aggregate(RES_A) == want
    assert {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, QRELS, RES_A)} == {
        (str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, *theirs)}
    assert ir_measures.calc_aggregate(measures, QRELS, theirs[1]) == ir_measures.calc_aggregate(
        measures, theirs[0], RES_A) == want
    with pytest.raises(InputError, match="duplicate doc 'd2' in query 'q1'"):  # (checked as ours checks it)
        ir_measures.calc_aggregate(measures, QRELS, pd.concat([RES_A, RES_A.head(2)]))


# --- PyTerrier ------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def pt():
    import pyterrier
    return pyterrier


@pytest.fixture(scope='module')
def systems(pt):
    return [pt.Transformer.from_df(RES_A), pt.Transformer.from_df(RES_B)]


def test_experiment_with_baseline(pt, systems):
    table = pt.Experiment(systems, TOPICS, QRELS, eval_metrics=MEASURES, baseline=0, names=['a', 'b'])
    assert list(table['name']) == ['a', 'b']
    for name, res in (('a', RES_A), ('b', RES_B)):
        reference = per_query(res)
        row = table.set_index('name').loc[name]
        for measure in MEASURES:
            values = [reference[str(measure), q] for q in ['q1', 'q2', 'q3']]
            # pt.Experiment averages every measure itself: MedianRank comes out as the *mean* rank.
            assert row[str(measure)] == pytest.approx(statistics.mean(values))
    b = table.set_index('name').loc['b']
    assert (b['Q@10 +'], b['Q@10 -']) == (0, 2)
    assert 0 <= b['Q@10 p-value'] <= 1


def test_experiment_per_query(pt, systems):
    table = pt.Experiment(systems, TOPICS, QRELS, eval_metrics=MEASURES, perquery=True, names=['a', 'b'])
    assert list(table.columns) == ['name', 'qid', 'measure', 'value']
    for name, res in (('a', RES_A), ('b', RES_B)):
        rows = table[table['name'] == name]
        assert dict(zip(zip(rows['measure'], rows['qid'], strict=True), rows['value'], strict=True)) == \
            pytest.approx(per_query(res))


def test_evaluate_uses_each_measures_aggregator(pt):
    values = pt.Evaluate(RES_B, QRELS, metrics=MEASURES)
    reference = per_query(RES_B)
    assert values['MedianRank'] == statistics.median(reference['MedianRank', q] for q in ['q1', 'q2', 'q3'])
    assert values['Q@10'] == pytest.approx(statistics.mean(reference['Q@10', q] for q in ['q1', 'q2', 'q3']))
    by_query = pt.Evaluate(RES_B, QRELS, metrics=MEASURES, perquery=True)
    assert {(m, q): v for q, row in by_query.items() for m, v in row.items()} == pytest.approx(reference)


def test_pyterrier_needs_measure_objects_and_no_java(pt):
    """PyTerrier parses measure *strings* as trec_eval names only."""
    with pytest.raises((KeyError, ValueError), match='Q@10'):
        pt.Evaluate(RES_A, QRELS, metrics=['Q@10'])
    assert not pt.java.started()


# --- tie policies -----------------------------------------------------------------------------------

#: q1's three docs tie; q2 ranks d4 (relevant) above d5.
RES_TIED = RES_A.assign(score=[1.0, 1.0, 1.0, 2.0, 1.0, 1.0])
Q1_ORDERINGS = list(itertools.permutations(['d0', 'd1', 'd2']))
Q1_JUDGED = {'d1': 1, 'd2': 2, 'd0': None}


def tied_q1(ordering: tuple[str, ...]) -> float:
    """Q@10 of q1 ranked in ``ordering``, from the plain definition."""
    return reference.q_measure(ordering, {d: label for d, label in Q1_JUDGED.items() if label is not None}, cutoff=10)


@pytest.mark.parametrize(('ties', 'q1'), [
    ('trec_eval', lambda: tied_q1(('d2', 'd1', 'd0'))),  # doc_id descending
    ('optimistic', lambda: tied_q1(('d2', 'd1', 'd0'))),
    ('pessimistic', lambda: tied_q1(('d0', 'd1', 'd2'))),
    ('expected', lambda: statistics.mean(map(tied_q1, Q1_ORDERINGS))),
])
def test_experiment_with_a_tie_policy_as_measure_parameter(pt, ties, q1):
    measure = Q(ties=ties) @ 10
    table = pt.Experiment([pt.Transformer.from_df(RES_TIED)], TOPICS, QRELS, eval_metrics=[measure], perquery=True)
    values = dict(zip(table['qid'], table['value'], strict=True))
    assert values == pytest.approx({'q1': q1(), 'q2': 1.0, 'q3': 0.0}, abs=1e-12)


def test_frames_apply_a_tie_policy_to_built_in_measures_too():
    frame = evaluate_frame([RR, Q @ 10], QRELS, RES_TIED, ties='pessimistic')
    values = dict(zip(zip(frame['measure'], frame['query_id'], strict=True), frame['value'], strict=True))
    assert values[('RR', 'q1')] == 0.5 and values[('Q@10', 'q1')] == pytest.approx(tied_q1(('d0', 'd1', 'd2')))
    with pytest.raises(MeasureParamError, match='ties must be one of'):
        evaluate_frame([RR], QRELS, RES_TIED, ties='random')
    refused = ('^ties, score precision, depth and rel choose how the irmeasures_ext provider ranks; provider '
               'pytrec_eval '
               'ranks its own way: give none of them with it$')
    with pytest.raises(MeasureParamError, match=refused):
        evaluate_frame([RR], QRELS, RES_TIED, provider='pytrec_eval', ties='optimistic')
    # the default ranking is pytrec_eval's too: it may be named
    by_trec_eval = evaluate_frame([RR], QRELS, RES_TIED, provider='pytrec_eval', ties='trec_eval')
    assert by_trec_eval['value'].tolist() == [1, 1, 0]
    with pytest.raises(MeasureParamError, match=r"^unknown measure 'qid'.*\(the measures come first"):
        evaluate_frame(QRELS, RES_TIED, [RR])
    assert evaluate_frame(['RR', 'Q@10'], QRELS, RES_TIED, ties='pessimistic').equals(frame)
    by_name = evaluate_frame([RR, Q @ 10], QRELS, RES_TIED, provider='irmeasures_ext', ties='pessimistic')
    assert by_name.equals(frame)
