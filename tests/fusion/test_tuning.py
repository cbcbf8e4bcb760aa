"""irmeasures_ext.fusion's grid search and cross-validation (issue 51, part 2), proven by independent means: a plain
slow loop (the public ``fuse``/``train`` per setting, evaluated by ir_measures' ``calc_aggregate`` with our provider),
ranx 0.3.21's recorded ``optimize_fusion`` (tests/data/ranx_fusion/optimize_fusion.json) and hand-checked cases."""
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from conftest import DATA

from irmeasures_ext.fusion import (
    FusionError,
    Optimized,
    cross_validate,
    default_grid,
    fuse,
    optimize,
    train,
    weight_grid,
)
from irmeasures_ext.plugin import provider

FOLDER = DATA / 'ranx_fusion'
QRELS = FOLDER / 'qrels_train.txt'
RUNS = [FOLDER / f'train_{name}.txt' for name in 'abcd']
RANX = json.loads((FOLDER / 'optimize_fusion.json').read_text())
#: ranx's metric names as ours.
METRIC = {'map': 'AP', 'ndcg@10': 'nDCG@10', 'ndcg': 'nDCG'}
LABELS = pd.read_csv(QRELS, sep=' ', names=['query_id', 'iteration', 'doc_id', 'relevance'], dtype=str).astype(
    {'relevance': int})
QUERIES = sorted(LABELS['query_id'].unique())


def slow_score(method, measure, params, queries=QUERIES, training=None):
    """The measure of ``fuse`` with ``params`` (a supervised method trained first on ``queries``), over ``queries``."""
    qrels = LABELS[LABELS['query_id'].isin(queries)][['query_id', 'doc_id', 'relevance']]
    if training is not None:
        params = train(qrels, RUNS, method, params=training) | params
    fused = fuse(RUNS, method, params=params)
    return next(iter(provider.calc_aggregate([measure], qrels, fused).values()))


def ranx_case(method):
    """ranx's report of ``method`` as {setting: score} and its best setting."""
    case = RANX['cases'][method]
    return {tuple(c) if isinstance(c, list) else c: score for c, score in case['report']}, case['best_params']


def has_mixed_tie(fused):
    """Whether some query's tied fused scores hold docs of different labels (where tie order changes measures)."""
    labelled = fused.merge(LABELS, how='left', on=['query_id', 'doc_id']).fillna({'relevance': 0})
    return bool((labelled.groupby(['query_id', 'score'])['relevance'].nunique() > 1).any())


# -- equal to a plain slow loop ----------------------------------------------------------------------------------

@pytest.mark.parametrize('method, measure, grid, training', [
    ('rrf', 'nDCG@10', None, None),
    ('gmnz', 'AP', {'gamma': [0.0, 0.5, 1.0, 2.0]}, None),
    ('wsum', 'P@5', {'weights': [(0.4, 0.3, 0.2, 0.1), (0.1, 0.2, 0.3, 0.4), (0.25, 0.25, 0.25, 0.25)]}, None),
    ('rbc', 'RR', {'phi': [0.5, 0.8, 0.95]}, None),
    ('probfuse', 'nDCG', {'n_segments': [1, 2, 3, 5]}, 'n_segments'),
    ('slidefuse', 'AP', {'w': [0, 1, 3]}, 'w'),
])
def test_every_setting_scores_as_the_slow_loop(method, measure, grid, training):
    queries = QUERIES[:7]
    result = optimize(QRELS, RUNS, method, measure, grid=grid, queries=queries)
    expanded = grid or {'k': list(range(10, 101, 10))}
    settings = [dict(zip(expanded, values, strict=True)) for values in itertools.product(*expanded.values())]
    expected = [slow_score(method, measure, {} if training else s, queries, s if training else None)
                for s in settings]
    assert result.report.drop(columns='score').to_dict('records') == settings
    np.testing.assert_allclose(result.report['score'], expected, rtol=0, atol=1e-12)
    best = int(np.argmax(expected))
    assert result.params == settings[best] and result.score == pytest.approx(expected[best], abs=1e-12)
    assert result.queries == tuple(queries)


def test_supervised_params_are_trained_on_the_training_queries_only():
    result = optimize(QRELS, RUNS, 'probfuse', 'nDCG', grid={'n_segments': [2, 4]}, queries=QUERIES[:5])
    qrels = LABELS[LABELS['query_id'].isin(QUERIES[:5])][['query_id', 'doc_id', 'relevance']]
    assert result.fusion_params == train(qrels, RUNS, 'probfuse', params=result.params)


# -- against ranx's optimize_fusion ---------------------------------------------------------------------------------

def test_rrf_equals_ranx():
    report, best = ranx_case('rrf')
    result = optimize(QRELS, RUNS, 'rrf', METRIC['ndcg@10'])
    assert result.report['k'].tolist() == list(report) and result.params == best
    np.testing.assert_allclose(result.report['score'], list(report.values()), rtol=0, atol=1e-9)


def test_wsum_equals_ranx_where_comparable_and_keeps_what_ranx_rounds_away():
    report, best = ranx_case('wsum')
    result = optimize(QRELS, RUNS, 'wsum', METRIC['map'])
    ours = dict(zip(result.report['weights'], result.report['score'], strict=True))
    # ranx's float sum == 1.0 drops 30 of the 286 vectors; ours are all 286, in ranx's order
    assert len(ours) == 286 and len(report) == RANX['cases']['wsum']['configs_tried'] == 256
    dropped = set(ours) - set(report)
    assert len(dropped) == RANX['weight_grid']['tuples_dropped_by_float_rounding'] == 30
    assert {tuple(w) for w in RANX['weight_grid']['examples_dropped']} <= dropped
    assert [w for w in ours if w in report] == list(report)
    # same scores wherever the order of tied docs cannot change AP (ranx orders ties otherwise)
    comparable = [w for w in report if not has_mixed_tie(fuse(RUNS, 'wsum', params={'weights': w}))]
    assert len(comparable) == 31
    np.testing.assert_allclose([ours[w] for w in comparable], [report[w] for w in comparable], rtol=0, atol=1e-9)
    assert result.params == {'weights': tuple(best['weights'])}
    assert result.score == pytest.approx(report[tuple(best['weights'])], abs=1e-9)


def test_probfuse_picks_ranx_best_and_trains_its_probabilities():
    report, best = ranx_case('probfuse')
    result = optimize(QRELS, RUNS, 'probfuse', METRIC['ndcg'])
    assert result.report['n_segments'].tolist() == list(range(1, 101)) == [int(n) for n in report]
    assert len(best['probs'][0]) == 11 and result.params == {'n_segments': 11}
    np.testing.assert_allclose(np.array(result.fusion_params['probs']), np.array(best['probs']), rtol=0, atol=1e-9)


def test_ties_go_to_the_first_setting_where_ranx_keeps_the_last():
    # two runs ranking alike: every k gives the same ranking, hence the same score
    run = pd.DataFrame({'query_id': ['q1'] * 3, 'doc_id': ['a', 'b', 'c'], 'score': [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({'query_id': ['q1'], 'doc_id': ['b'], 'relevance': [1]})
    result = optimize(qrels, [run, run], 'rrf', 'RR', grid={'k': [30, 10, 20]})
    assert result.report['score'].tolist() == [0.5, 0.5, 0.5]
    assert result.params == {'k': 30}  # ranx (score >= best) would keep k = 20


def test_default_grids():
    assert default_grid('rrf', 2) == {'k': [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]}
    for method, name in (('gmnz', 'gamma'), ('rbc', 'phi'), ('logn_isr', 'sigma')):
        values = default_grid(method, 3)[name]
        assert len(values) == 100 and values[0] == 0.01 and values[-1] == 1.0 and values[6] == 0.07
    assert default_grid('probfuse', 2) == {'n_segments': list(range(1, 101))}
    assert default_grid('sum', 2) == {} and default_grid('posfuse', 2) == {}
    assert default_grid('mixed', 3) == {'weights': weight_grid(3)}
    assert weight_grid(2) == [(i / 10, (10 - i) / 10) for i in range(11)]
    assert len(weight_grid(5)) == 1001 and weight_grid(3, steps=2) == [
        (0.0, 0.0, 1.0), (0.0, 0.5, 0.5), (0.0, 1.0, 0.0), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0), (1.0, 0.0, 0.0)]


# -- cross-validation ---------------------------------------------------------------------------------------------

def test_folds_are_a_reproducible_partition():
    first = cross_validate(QRELS, RUNS, 'rrf', 'nDCG@10', folds=3, seed=7)
    again = cross_validate(QRELS, RUNS, 'rrf', 'nDCG@10', folds=3, seed=7)
    other = cross_validate(QRELS, RUNS, 'rrf', 'nDCG@10', folds=3, seed=8)
    assert first.folds == again.folds != other.folds
    pd.testing.assert_frame_equal(first.report, again.report)
    pd.testing.assert_frame_equal(first.run, again.run)
    assert sorted(q for fold in first.folds for q in fold) == QUERIES
    assert sorted(map(len, first.folds)) == [3, 3, 4]
    order = np.random.default_rng(7).permutation(len(QUERIES))
    assert first.folds == tuple(tuple(sorted(QUERIES[i] for i in part)) for part in np.array_split(order, 3))


def test_each_fold_is_fused_with_its_own_parameters():
    result = cross_validate(QRELS, RUNS, 'rrf', 'nDCG@10', grid={'k': [1, 10, 100]}, folds=4, seed=1)
    for row, test in zip(result.report.to_dict('records'), result.folds, strict=True):
        training = [q for q in QUERIES if q not in test]
        scores = [slow_score('rrf', 'nDCG@10', {'k': k}, training) for k in (1, 10, 100)]
        assert row['k'] == (1, 10, 100)[int(np.argmax(scores))]
        assert row['train_score'] == pytest.approx(max(scores), abs=1e-12)
        assert row['test_score'] == pytest.approx(slow_score('rrf', 'nDCG@10', {'k': row['k']}, list(test)), abs=1e-12)
        expected = fuse(RUNS, 'rrf', params={'k': row['k']})
        mine = result.run[result.run['query_id'].isin(test)].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, expected[expected['query_id'].isin(test)].reset_index(drop=True))
    assert result.run['query_id'].tolist() == sorted(result.run['query_id'])
    assert set(result.run['query_id']) == set(QUERIES)


def test_fold_report_on_a_hand_checked_case():
    # run a's top doc is relevant in q1..q3, run b's in q4 only; P@1 of weights (1, 0) is a's, of (0, 1) b's
    rows_a = [(q, d, s) for q in ('q1', 'q2', 'q3', 'q4') for d, s in ((f'{q}a', 2.0), (f'{q}b', 1.0))]
    rows_b = [(q, d, s) for q in ('q1', 'q2', 'q3', 'q4') for d, s in ((f'{q}b', 2.0), (f'{q}a', 1.0))]
    run_a, run_b = (pd.DataFrame(rows, columns=['query_id', 'doc_id', 'score']) for rows in (rows_a, rows_b))
    qrels = pd.DataFrame({'query_id': ['q1', 'q2', 'q3', 'q4'], 'doc_id': ['q1a', 'q2a', 'q3a', 'q4b'],
                          'relevance': [1, 1, 1, 1]})
    result = cross_validate(qrels, {'a': run_a, 'b': run_b}, 'wsum', 'P@1', grid={'weights': [(1, 0), (0, 1)]},
                            folds=2, seed=3)
    assert list(result.report.columns) == ['fold', 'train_queries', 'test_queries', 'weights', 'train_score',
                                           'test_score']
    for row, test in zip(result.report.to_dict('records'), result.folds, strict=True):
        # trained on two queries: a is right on both (q4 tested), or each run on one, a tie the first setting wins
        assert (row['train_queries'], row['test_queries'], row['weights']) == (2, 2, (1, 0))
        assert (row['train_score'], row['test_score']) == ((1.0, 0.5) if 'q4' in test else (0.5, 1.0))
    assert result.report['fold'].tolist() == [1, 2]
    assert result.run.groupby('query_id')['doc_id'].first().tolist() == ['q1a', 'q2a', 'q3a', 'q4a']


def test_comparison_is_holm_corrected_against_the_fused_run():
    result = cross_validate(QRELS, RUNS, 'rrf', 'nDCG@10', folds=5)
    table = result.comparison()
    assert table['run'].tolist() == ['fused', 'train_a', 'train_b', 'train_c', 'train_d']
    assert table['baseline'].iloc[1:].eq('fused').all()
    rows = table.iloc[1:]
    assert (rows['p_adjusted'] >= rows['p_value']).all()
    p = rows['p_value'].to_numpy()  # Holm by hand: the i-th smallest times (m − i), running maximum, at most 1
    order = np.argsort(p)
    holm = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    np.testing.assert_allclose(rows['p_adjusted'].to_numpy()[order], holm)
    fused_mean = provider.calc_aggregate(['nDCG@10'], LABELS[['query_id', 'doc_id', 'relevance']], result.run)
    assert table['mean'].iloc[0] == pytest.approx(next(iter(fused_mean.values())), abs=1e-12)
    two = result.comparison(['train_b'], correction='bonferroni')
    assert two['run'].tolist() == ['fused', 'train_b']
    with pytest.raises(FusionError, match="no run named 'nope'"):
        result.comparison(['nope'])


# -- the overlap refusal ----------------------------------------------------------------------------------------

def synthetic(n_queries=15, seed=0):
    """Two random runs and qrels of ``n_queries`` queries."""
    rng = np.random.default_rng(seed)
    queries = [f'q{i:02d}' for i in range(n_queries)]
    runs = [pd.DataFrame([(q, f'd{d}', float(rng.random())) for q in queries for d in rng.choice(20, 8, replace=False)],
                         columns=['query_id', 'doc_id', 'score']) for _ in range(2)]
    qrels = pd.DataFrame([(q, f'd{d}', 1) for q in queries for d in range(0, 20, 3)],
                         columns=['query_id', 'doc_id', 'relevance'])
    return queries, runs, qrels


def test_tuned_parameters_refuse_the_training_queries():
    queries, runs, qrels = synthetic()
    tuned = optimize(qrels, runs, 'rrf', 'AP', grid={'k': [5, 60]}, queries=queries[:12])
    with pytest.raises(FusionError, match=r'12 of the queries to fuse are training queries .*\(q00 q01 q02 q03 q04 q05 '
                                          r'q06 q07 q08 q09 and 2 more\)'):
        tuned.fuse(queries)
    with pytest.raises(FusionError, match=r'1 of the queries to fuse are training queries .*\(q11\)'):
        tuned.fuse(['q11', 'q12'])
    pd.testing.assert_frame_equal(tuned.fuse(), tuned.fuse(queries[12:]))
    expected = fuse(runs, 'rrf', params=tuned.params)
    pd.testing.assert_frame_equal(tuned.fuse(['q13']), expected[expected['query_id'] == 'q13'].reset_index(drop=True))


def test_cross_validation_fuses_through_the_refusing_path(monkeypatch):
    queries, runs, qrels = synthetic(6)
    calls = []
    original = Optimized.fuse

    def spy(self, test=None):
        calls.append((self.queries, tuple(test)))
        return original(self, test)
    monkeypatch.setattr(Optimized, 'fuse', spy)
    result = cross_validate(qrels, runs, 'rrf', 'AP', grid={'k': [5, 60]}, folds=3)
    assert [test for _, test in calls] == list(result.folds)
    assert all(not set(training) & set(test) and set(training) | set(test) == set(queries) for training, test in calls)


# -- bad input ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('call, message', [
    (lambda: optimize(QRELS, RUNS, 'nope', 'AP'), r"unknown fusion method 'nope'"),
    (lambda: optimize(QRELS, RUNS, 'rrf', 'bogus'), r"cannot tune for the measure 'bogus': unknown measure"),
    (lambda: optimize(QRELS, RUNS, 'rrf', 'AP', grid={'phi': [0.5]}), r'rrf takes no parameter phi'),
    (lambda: optimize(QRELS, RUNS, 'probfuse', 'AP', grid={'w': [1]}),
     r"a grid for probfuse takes the parameters \['n_segments'\]"),
    (lambda: optimize(QRELS, RUNS, 'posfuse', 'AP', grid={'w': [1]}), r'a grid for posfuse takes the parameters none'),
    (lambda: optimize(QRELS, RUNS, 'probfuse', 'AP', grid={'n_segments': [0]}), r'n_segments must be a whole number'),
    (lambda: optimize(QRELS, RUNS, 'rrf', 'AP', grid={'k': []}), r'non-empty list'),
    (lambda: optimize(QRELS, RUNS, 'rrf', 'AP', grid={'k': [-1]}), r'k must be a number ≥ 0'),
    (lambda: optimize(QRELS, RUNS, 'wsum', 'AP', grid={'weights': [(1, 0)]}), r'weights must be 4 finite numbers'),
    (lambda: optimize(QRELS, RUNS, 'rrf', 'AP', queries=['t01', 'x']), r"1 of the queries to tune on are not in the "
                                                                       r'qrels \(x\)'),
    (lambda: optimize(QRELS, RUNS[:1], 'rrf', 'AP'), r'at least two runs'),
    (lambda: cross_validate(QRELS, RUNS, 'rrf', 'AP', folds=1), r'folds must be a whole number from 2 to the number '
                                                                r'of qrels queries \(10\), got 1'),
    (lambda: cross_validate(QRELS, RUNS, 'rrf', 'AP', folds=11), r'got 11'),
    (lambda: cross_validate(QRELS, RUNS, 'rrf', 'AP', folds=2.0), r'got 2.0'),
])
def test_bad_input_is_a_clear_fusion_error(call, message):
    with pytest.raises(FusionError, match=message):
        call()
