"""irmeasures_ext.reproduce against repro_eval 0.5.0's outputs (tests/data/repro_eval, see its README), abs 1e-9."""
import inspect
import json
import math
import re
import warnings

import ir_measures
import numpy as np
import pytest
from conftest import DATA

from irmeasures_ext import reproduce
from irmeasures_ext.errors import InputError, MeasureParamError, NoOverlapWarning, UnansweredTopicsWarning

REF = DATA / 'repro_eval'
RPD = json.loads((REF / 'ref_rpd.json').read_text())
RPL = json.loads((REF / 'ref_rpl.json').read_text())
EDGE = json.loads((REF / 'ref_edge.json').read_text())
TOPIC_SCORES = json.loads((REF / 'ref_rpd_topic_scores.json').read_text())
MEASURES = list(RPD['er'])
RUNS = {name: REF / f'{name}.txt' for name in ('orig_b', 'orig_a', 'rpd_b', 'rpd_a', 'rpl_b', 'rpl_a')}


def close(ours: float, theirs: float) -> bool:
    """Equal to 1e-9, NaN to NaN and infinities to themselves."""
    if math.isnan(theirs) or math.isinf(theirs):
        return ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    return abs(ours - theirs) <= 1e-9


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnansweredTopicsWarning)
        return function(*args, **kwargs)


@pytest.fixture(scope='module')
def rpd():
    frame = quietly(reproduce.reproducibility, REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'],
                    RUNS['rpd_b'], RUNS['rpd_a'], MEASURES)
    return {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}


@pytest.fixture(scope='module')
def rpl():
    frame = quietly(reproduce.replicability, REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'],
                    REF / 'qrels_rpl.txt', RUNS['rpl_b'], RUNS['rpl_a'], MEASURES)
    return {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}


@pytest.mark.parametrize('scores,run,path,qrels', [
    (TOPIC_SCORES, 'orig_b', 'orig_b', 'qrels_orig'), (TOPIC_SCORES, 'orig_a', 'orig_a', 'qrels_orig'),
    (TOPIC_SCORES, 'rep_b', 'rpd_b', 'qrels_orig'), (TOPIC_SCORES, 'rep_a', 'rpd_a', 'qrels_orig'),
    (RPL['rep_topic_scores'], 'rep_b', 'rpl_b', 'qrels_rpl'), (RPL['rep_topic_scores'], 'rep_a', 'rpl_a', 'qrels_rpl'),
])
def test_the_provider_gives_repro_eval_s_per_topic_scores(scores, run, path, qrels):
    from irmeasures_ext.plugin import provider
    ours = {(m.query_id, str(m.measure)): m.value
            for m in provider.iter_calc(MEASURES, str(REF / f'{qrels}.txt'), str(RUNS[path]))}
    for topic, values in scores[run].items():
        for measure, value in values.items():
            assert close(ours.get((topic, measure), 0.0), value), (run, topic, measure)


@pytest.mark.parametrize('statistic,key', [('rmse', 'rmse'), ('nrmse', 'nrmse'), ('p_value', 'ttest_paired_pvalue')])
def test_reproducibility_per_run_statistics(rpd, statistic, key):
    for run in ('baseline', 'advanced'):
        for measure, value in RPD[key][run].items():
            assert close(rpd[measure, statistic, run], value), (measure, run, rpd[measure, statistic, run], value)


@pytest.mark.parametrize('statistic,key', [('er', 'er'), ('delta_ri', 'dri')])
@pytest.mark.parametrize('which', ['rpd', 'rpl'])
def test_er_and_delta_ri(rpd, rpl, statistic, key, which):
    ours, ref = (rpd, RPD) if which == 'rpd' else (rpl, RPL)
    for measure, value in ref[key].items():
        assert close(ours[measure, statistic, reproduce.BOTH], value), (measure, value)


def test_replicability_unpaired_p_values(rpl):
    for run in ('baseline', 'advanced'):
        for measure, value in RPL['ttest_unpaired_pvalue'][run].items():
            assert close(rpl[measure, 'p_value', run], value), (measure, run)


@pytest.mark.parametrize('run,path', [('baseline', 'rpd_b'), ('advanced', 'rpd_a')])
def test_ktu_and_rbo_per_topic_and_mean_on_repro_eval_s_topics(run, path):
    frame = reproduce.ranked_list_agreement(RUNS['orig_' + path[-1]], RUNS[path], topics='repro_eval')
    per_topic = frame.set_index('query_id')
    for ours, key in (('ktu_repro_eval', 'ktu'), ('rbo_repro_eval', 'rbo')):
        reference = RPD[f'{key}_per_topic'][run]
        assert sorted(reference) == sorted(set(per_topic.index) - {'all'})
        for topic, value in reference.items():
            assert close(per_topic.loc[topic, ours], value), (ours, topic)
        assert close(per_topic.loc['all', ours], RPD[f'{key}_mean'][run])


def test_an_unanswered_topic_counts_0_in_ktu_and_rbo_with_a_warning():
    with pytest.warns(UnansweredTopicsWarning, match='reproduced: 104'):
        frame = reproduce.ranked_list_agreement(RUNS['orig_a'], RUNS['rpd_a'])
    per_topic = frame.set_index('query_id')
    assert per_topic.loc['104'].tolist() == [0.0, 0.0, 0.0, 0.0]
    answered = per_topic.drop(['104', 'all'])
    assert close(per_topic.loc['all', 'ktu_repro_eval'], answered['ktu_repro_eval'].sum() / 11)


def test_the_missing_topic_warning_names_the_run_and_topics_once_at_the_caller():
    with pytest.warns(UnansweredTopicsWarning, match=r'\(reproduced advanced: 104\)') as caught:
        reproduce.reproducibility(REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'], RUNS['rpd_b'],
                                  RUNS['rpd_a'], ['AP'])
    assert len(caught) == 1 and caught[0].filename == __file__
    with pytest.warns(UnansweredTopicsWarning, match=r'\(replicated baseline: 205\)') as caught:
        reproduce.replicability(REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'], REF / 'qrels_rpl.txt',
                                RUNS['rpl_b'], RUNS['rpl_a'], ['AP'])
    assert len(caught) == 1
    with pytest.warns(UnansweredTopicsWarning, match=r'\(original baseline: 104; replicated baseline: 205\)'):
        reproduce.replicability(REF / 'qrels_orig.txt', REF / 'rpd_a.txt', RUNS['orig_a'], REF / 'qrels_rpl.txt',
                                RUNS['rpl_b'], RUNS['rpl_a'], ['AP'])


def test_unanswered_topics_of_an_empty_run_and_of_interleaved_lines(tmp_path):
    qrels = {'1': {'a': 1, 'b': 0}, '2': {'c': 1}, '3': {'d': 1}}
    original = {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 1.0}, '3': {'d': 1.0}}
    interleaved = tmp_path / 'interleaved.txt'  # (topics 3 and 1 alternate; 2 is missing)
    interleaved.write_text('3 Q0 d 1 3.0 r\n1 Q0 a 1 2.0 r\n3 Q0 x 2 1.0 r\n1 Q0 b 2 1.0 r\n')
    with pytest.warns(NoOverlapWarning, match='the run is empty'), pytest.warns(
            UnansweredTopicsWarning, match=r'\(reproduced baseline: 1 2 3; reproduced advanced: 2\)'):
        frame = reproduce.reproducibility(qrels, original, original, {}, interleaved, ['P@1'])
    values = frame.set_index(['statistic', 'run']).value
    assert values['rmse', 'baseline'] == 1.0 and values['rmse', 'advanced'] == pytest.approx(math.sqrt(1 / 3))


def test_edge_unsorted_file_order_as_repro_eval():
    frame = reproduce.ranked_list_agreement(REF / 'edge_orig.txt', REF / 'edge_rep_unsorted.txt',
                                            order='file').set_index('query_id')
    reference = EDGE['edge_rep_unsorted.txt']
    for ours, key in (('ktu_repro_eval', 'ktu_per_topic'), ('rbo_repro_eval', 'rbo_per_topic')):
        for topic, value in reference[key].items():
            assert close(frame.loc[topic, ours], value)
    assert frame.loc['1', 'rbo_ext'] == pytest.approx(1.0)  # (identical lists: 1, where repro_eval gives 0.526...)


def test_edge_short_list_ktu_is_nan_where_repro_eval_raises():
    frame = reproduce.ranked_list_agreement(REF / 'edge_orig.txt', REF / 'edge_rep_short.txt').set_index('query_id')
    assert 'exception' in EDGE['edge_rep_short.txt']['ktu_per_topic']
    assert math.isnan(frame.loc['1', 'ktu_repro_eval']) and math.isnan(frame.loc['all', 'ktu_repro_eval'])
    assert frame.loc['2', 'ktu_repro_eval'] == pytest.approx(13 / 15)  # (topic 2: equal lengths)
    for topic, value in EDGE['edge_rep_short.txt']['rbo_per_topic'].items():
        assert close(frame.loc[topic, 'rbo_repro_eval'], value)


def test_edge_extra_topic_left_out_where_repro_eval_raises():
    assert 'exception' in EDGE['edge_rep_extra_topic.txt']['rbo_per_topic']
    frame = reproduce.ranked_list_agreement(REF / 'edge_orig.txt', REF / 'edge_rep_extra_topic.txt')
    assert set(frame['query_id']) == {'1', '2', 'all'}
    with pytest.raises(InputError, match='does not answer'):
        reproduce.ranked_list_agreement(REF / 'edge_orig.txt', REF / 'edge_rep_extra_topic.txt', topics='repro_eval')


def test_a_hand_computed_case():
    qrels = {'1': {'a': 1, 'b': 0}, '2': {'c': 1, 'd': 0}}
    orig_b = {'1': {'b': 2.0, 'a': 1.0}, '2': {'c': 2.0, 'd': 1.0}}  # P@1: 0, 1
    orig_a = {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 2.0, 'd': 1.0}}  # 1, 1
    rep_b = {'1': {'b': 2.0, 'a': 1.0}, '2': {'d': 2.0, 'c': 1.0}}  # 0, 0
    rep_a = {'1': {'a': 2.0, 'b': 1.0}, '2': {'d': 2.0, 'c': 1.0}}  # 1, 0
    frame = reproduce.reproducibility(qrels, orig_b, orig_a, rep_b, rep_a, ['P@1'])
    values = {(row.statistic, row.run): row.value for row in frame.itertuples()}
    assert values['rmse', 'baseline'] == pytest.approx(math.sqrt(1 / 2))  # (diffs 0, 1)
    assert values['rmse', 'advanced'] == pytest.approx(math.sqrt(1 / 2))
    assert values['nrmse', 'baseline'] == pytest.approx(math.sqrt(1 / 2))  # (max RMSE 1)
    assert values['er', reproduce.BOTH] == pytest.approx(0.5 / 0.5)  # (mean improvements: rep 0.5, orig 0.5)
    assert values['delta_ri', reproduce.BOTH] == -math.inf  # (RI: orig (1 - 0.5) / 0.5, rep (0.5 - 0) / 0 = inf)
    assert reproduce.effect_ratio(*map(np.array, ([0.2, 0.4], [0.4, 0.6], [0.2, 0.2], [0.3, 0.3]))) \
        == pytest.approx(0.1 / 0.2)
    assert reproduce.rmse(np.array([0.5, 0.5]), np.array([0.5, 0.5])) == 0.0


@pytest.mark.parametrize('original,reproduced,expected', [
    (['a', 'b', 'c'], ['a', 'b', 'c'], 1.0),  # (identical: 1 at any length)
    (['a', 'b'], ['c', 'd'], 0.0),
    (['a'], ['a', 'b'], 1.0),  # (a prefix extrapolates to agreement: eq. 32)
    (['b'], ['a', 'b'], 0.475),  # (X_1 = 0, X_2 = 1: (1-p)/p X_2/2 p² + (X_2 - X_1)/2 p² = p/2)
    ([], ['a'], 0.0),
])
def test_rbo_ext_hand_computed(original, reproduced, expected):
    assert reproduce.rbo_ext(original, reproduced) == pytest.approx(expected, abs=1e-12)
    assert reproduce.rbo_ext(reproduced, original) == pytest.approx(expected, abs=1e-12)


def test_rbo_ext_of_equal_lengths_is_webber_s_eq_30():
    original, reproduced, p = list('abcdef'), list('badcfe'), 0.9
    overlaps = [len(set(original[:d]) & set(reproduced[:d])) for d in range(1, 7)]
    expected = overlaps[-1] / 6 * p ** 6 + (1 - p) / p * sum(x / d * p ** d for d, x in enumerate(overlaps, 1))
    assert reproduce.rbo_ext(original, reproduced, p) == pytest.approx(expected, abs=1e-12)


def test_measure_names_or_objects_and_other_input_forms_give_the_same():
    import ir_measures
    qrels = {'1': {'a': 1, 'b': 0, 'c': 1}}
    runs = [{'1': {'a': 3.0, 'b': 2.0, 'c': 1.0}}, {'1': {'c': 3.0, 'b': 2.0, 'a': 1.0}}]
    by_name = reproduce.reproducibility(qrels, *runs, *runs, ['AP', 'P@2'])
    by_object = reproduce.reproducibility(qrels, *runs, *runs, [ir_measures.AP, ir_measures.P @ 2])
    assert by_name.equals(by_object)
    assert (by_name[by_name.statistic == 'rmse'].value == 0).all()


def records(path):
    """A run as a generator of records: it can be read once only."""
    import ir_measures
    return (record for record in ir_measures.read_trec_run(str(path)))


def test_an_experiment_reads_its_original_runs_once_for_any_number_of_reproductions():
    experiment = quietly(reproduce.Experiment, REF / 'qrels_orig.txt', records(RUNS['orig_b']),
                         records(RUNS['orig_a']), MEASURES)
    for _ in range(2):  # (a generator read twice would give no run the second time)
        frame = quietly(experiment.reproducibility, RUNS['rpd_b'], RUNS['rpd_a'])
        values = {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}
        for measure, value in RPD['rmse']['advanced'].items():
            assert close(values[measure, 'rmse', 'advanced'], value)
        for measure, value in RPD['er'].items():
            assert close(values[measure, 'er', reproduce.BOTH], value)
    agreement = experiment.agreement(RUNS['rpd_b'], 'baseline', topics='repro_eval').set_index('query_id')
    assert close(agreement.loc['all', 'rbo_repro_eval'], RPD['rbo_mean']['baseline'])
    replicated = quietly(experiment.replicability, REF / 'qrels_rpl.txt', RUNS['rpl_b'], RUNS['rpl_a'])
    values = {(row.measure, row.statistic, row.run): row.value for row in replicated.itertuples()}
    assert close(values[MEASURES[0], 'er', reproduce.BOTH], RPL['er'][MEASURES[0]])
    with pytest.raises(InputError, match="run must be 'baseline' or 'advanced'"):
        experiment.agreement(RUNS['rpd_b'], 'base')


def test_ranked_lists_rows_are_the_agreement_means_of_each_run():
    frame = quietly(reproduce.reproducibility, REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'],
                    RUNS['rpd_b'], RUNS['rpd_a'], ['AP'], ranked_lists=True)
    rows = frame[frame.measure == reproduce.RANKED_LISTS].set_index(['statistic', 'run']).value
    for run, path in (('baseline', 'rpd_b'), ('advanced', 'rpd_a')):
        means = quietly(reproduce.ranked_list_agreement, RUNS['orig_' + path[-1]], RUNS[path]).iloc[-1]
        assert [rows[statistic, run] for statistic in reproduce.STATISTICS] == [means[s] for s in
                                                                                reproduce.STATISTICS]
    assert len(frame) == 2 * 3 + 2 + 2 * len(reproduce.STATISTICS)


@pytest.mark.parametrize('paired', [True, False])
def test_t_test_p_values_equal_scipy_stats(paired):
    from scipy import stats
    rng = np.random.default_rng(3)
    cases = [(rng.random(n), rng.random(n)) for n in (2, 3, 10, 50)]
    cases += [(np.array([0.5, 0.5]), np.array([0.5, 0.5])), (np.array([0.5, 0.7]), np.array([0.4, 0.6])),
              (np.array([0.5]), np.array([0.2])), (np.array([0.1, 0.9, 0.4]), np.array([0.1, 0.9, 0.4]))]
    if not paired:  # (replicability: other qrels, other topics)
        cases += [(rng.random(3), rng.random(5)), (rng.random(40), rng.random(7)),
                  (np.array([0.5]), np.array([0.2, 0.4])), (np.array([]), np.array([0.2, 0.4])),
                  (rng.random(3), np.array([]))]
    scipy_test = stats.ttest_rel if paired else stats.ttest_ind
    for original, reproduced in cases:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', RuntimeWarning)
            expected = float(scipy_test(original, reproduced).pvalue)
        with warnings.catch_warnings():
            warnings.simplefilter('error')  # (none)
            assert close(reproduce.t_test_p(original, reproduced, paired), expected), (original, reproduced)


def test_ranked_lists_on_threads_warn_of_unanswered_topics_once_from_the_call():
    qrels = {'1': {'a': 1, 'b': 0}, '2': {'c': 1}}
    original = {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 1.0}}
    experiment = quietly(reproduce.Experiment, qrels, original, original, ['P@1'])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        line = inspect.currentframe().f_lineno + 1
        frame = experiment.reproducibility({'1': {'a': 2.0}}, original, ranked_lists=True)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(UnansweredTopicsWarning, __file__, line)]
    assert 'reproduced baseline: 2' in str(caught[0].message)
    rows = frame[frame.measure == reproduce.RANKED_LISTS].set_index(['statistic', 'run']).value
    assert rows['rbo_ext', 'advanced'] == 1.0  # (topic 2, unanswered by the baseline, is 0 in its mean:)
    assert rows['rbo_ext', 'baseline'] == pytest.approx(reproduce.rbo_ext(['a', 'b'], ['a']) / 2, abs=1e-15)


def test_no_measures_give_empty_tables_and_t_test_p_takes_1d_scores():
    qrels, run = {'1': {'a': 1}}, {'1': {'a': 1.0}}
    assert reproduce.reproducibility(qrels, run, run, run, run, []).empty
    assert reproduce.replicability(qrels, run, run, qrels, run, run, []).empty
    with pytest.raises(InputError, match=r'^t_test_p takes arrays of per-topic scores \(1-d\); got a 2-d one$'):
        reproduce.t_test_p(np.ones((2, 3)), np.ones(3), True)


@pytest.mark.parametrize('function', ['rmse', 'nrmse', 'effect_ratio', 'delta_relative_improvement'])
def test_the_score_statistics_refuse_scores_of_other_topics_or_none_and_take_lists(function):
    statistic = getattr(reproduce, function)
    arity = 2 if function.endswith('rmse') else 4
    pair = 'pairs the scores of the same topics, in one order'
    numbers = 'per-topic scores must be numbers'
    for bad, error in ((([0.5, 0.2], [0.5]), pair), (([], []), pair), ((np.ones((1, 2)), np.ones((1, 2))), '1-d'),
                       ((['a'], [0.5]), numbers), ((['0.5'], [0.5]), numbers), (([0.5, None], [0.5, 0.1]), numbers),
                       (([[0.1], [0.2, 0.3]], [0.5, 0.1]), numbers), (([True], [0.5]), numbers),
                       ((np.ma.masked_array([0.2, 9.0], [0, 1]), [0.2, 0.2]),
                        'per-topic scores must be numbers, not a masked array (give only the topics to compare)'),
                       (([0.5, math.nan], [0.5, 0.1]), 'per-topic score nan is not a finite number'),
                       (([0.5, 0.1], [math.inf, 0.1]), 'per-topic score inf is not a finite number')):
        arguments = bad if arity == 2 else (*bad, *bad)  # (ER and ΔRI: the original pair bad, then both)
        with pytest.raises(InputError, match=rf'^{function}.*{re.escape(error)}'):
            statistic(*arguments)
        if arity == 4:  # (the reproduced pair alone bad)
            with pytest.raises(InputError, match=rf'^{function}.*{re.escape(error)}'):
                statistic([0.1, 0.2], [0.3, 0.4], *bad)
    # (lists as arrays: [0.2, 0.4] against [0.4, 0.4]: RMSE √(0.04 / 2); improvements 0.2, 0 and 0.1, 0.1: ER 0.1 / 0.1)
    assert reproduce.rmse([0.2, 0.4], [0.4, 0.4]) == pytest.approx(math.sqrt(0.02))
    assert reproduce.effect_ratio([0.2, 0.4], [0.4, 0.4], [0.2, 0.3], [0.3, 0.4]) == pytest.approx(1.0)


def test_series_and_mappings_of_scores_are_paired_by_topic_and_arrays_by_position():
    import pandas as pd
    import scipy.stats
    original = pd.Series([0.2, 0.4, 0.9], index=['1', '2', '3'])
    shuffled = pd.Series([0.9, 0.3, 0.2], index=['3', '2', '1'])  # (topic 2: 0.3 against 0.4; the others equal)
    assert reproduce.rmse(original, shuffled) == pytest.approx(math.sqrt(0.01 / 3), abs=1e-15)
    assert reproduce.rmse(original.to_numpy(), shuffled.to_numpy()) == pytest.approx(math.sqrt(0.99 / 3), abs=1e-15)
    assert reproduce.rmse(dict(original), dict(shuffled)) == pytest.approx(math.sqrt(0.01 / 3), abs=1e-15)
    assert reproduce.rmse(original, shuffled.to_list()) == pytest.approx(math.sqrt(0.99 / 3), abs=1e-15)
    # (nRMSE's normaliser, |o - (o < 0.5)|: 0.8, 0.6, 0.9)
    assert reproduce.nrmse(dict(original), shuffled) == pytest.approx(0.1 / math.sqrt(0.64 + 0.36 + 0.81), abs=1e-15)
    # (improvements by topic: original 0.1, 0.1, -0.1; reproduced 0.2, 0.1, 0 (mean 0.1), ER 0.1 / (0.1 / 3) = 3)
    reproduced_baseline = {'3': 0.9, '1': 0.1, '2': 0.3}
    reproduced_advanced = {'1': 0.3, '2': 0.4, '3': 0.9}
    advanced = {'2': 0.5, '3': 0.8, '1': 0.3}
    assert reproduce.effect_ratio(original, advanced, reproduced_baseline, reproduced_advanced) == pytest.approx(3.0)
    # (RI: original 0.1 / 1.5, reproduced 0.3 / 1.3)
    assert reproduce.delta_relative_improvement(original, advanced, reproduced_baseline, reproduced_advanced) == (
        pytest.approx(0.1 / 1.5 - 0.3 / 1.3))
    assert reproduce.t_test_p(original, shuffled, True) == pytest.approx(
        scipy.stats.ttest_rel([0.2, 0.4, 0.9], [0.2, 0.3, 0.9]).pvalue, abs=1e-12)
    other_topics = pd.Series([0.5, 0.7], index=['8', '9'])  # (the unpaired test takes any topics)
    assert reproduce.t_test_p(original, other_topics, False) == pytest.approx(
        scipy.stats.ttest_ind([0.2, 0.4, 0.9], [0.5, 0.7]).pvalue, abs=1e-12)
    hint = r' \(two Series are paired by their index: give their \.to_numpy\(\) to pair them by position\)$'
    for function, arguments in (('rmse', (original, other_topics)), ('the paired t_test_p', (original, other_topics,
                                                                                              True))):
        with pytest.raises(InputError, match=rf"^{function} pairs the scores of the same topics: '1' '2' '3' only in "
                                             rf"the first; '8' '9' only in the second{hint}"):
            getattr(reproduce, function.split()[-1])(*arguments)
    with pytest.raises(InputError, match=rf"^effect_ratio pairs the scores of the same topics: '3' only in the "
                                         rf"second{hint}"):
        reproduce.effect_ratio(original, advanced, {'1': 0.1, '2': 0.2}, reproduced_advanced)
    many = pd.Series(0.5, index=[str(topic) for topic in range(7)])
    with pytest.raises(InputError, match=r"^rmse pairs the scores of the same topics: '0' '4' '5' '6' only in the "
                                         rf"first{hint}"):
        reproduce.rmse(many, many.iloc[1:4])
    with pytest.raises(InputError, match=rf"^rmse pairs .*: '0' '1' '2' '3' '4' only in the second{hint}"):
        reproduce.rmse(many.iloc[5:], many)  # (five named whole, more cut)
    with pytest.raises(InputError, match=r"^rmse pairs .*: '6' only in the first; '0' '1' '2' '3' '4' \.\.\. only in "
                                         rf"the second{hint}"):
        reproduce.rmse(many.iloc[6:], many.iloc[:6])
    with pytest.raises(InputError, match=r"^rmse pairs .*: 301 only in the first; '301' only in the second"):
        reproduce.rmse(pd.Series([0.1], index=[301]), {'301': 0.1})  # (a number and a string: other topics)
    with pytest.raises(InputError, match=r"^rmse: topic '1' is named twice in the per-topic scores$"):
        reproduce.rmse(original, pd.Series([0.1, 0.2, 0.3], index=['2', '1', '1']))
    with pytest.raises(InputError, match=r'^rmse: a Series of per-topic scores must be indexed by topics \(hashable\), '
                                         r'got \[\[1\]\]\.\.\.$'):
        reproduce.rmse(original.iloc[:2], pd.Series([0.1, 0.2], index=pd.Index([[1], [2]], tupleize_cols=False)))
    with pytest.raises(InputError, match=r'^rmse: a Series of per-topic scores must be indexed by topics'):
        reproduce.rmse(pd.Series([0.1], index=pd.Index([[1]], tupleize_cols=False)), original.iloc[:1])
    mapping = (r'pairs a mapping of topic -> score by topic: give the other scores as one too \(or a Series\), or '
               r'both as arrays or lists, in one order$')
    for sides in (({'1': 0.2, '2': 0.4}, [0.2, 0.4]), (np.array([0.2, 0.4]), {'1': 0.2, '2': 0.4})):
        with pytest.raises(InputError, match=f'^rmse {mapping}'):
            reproduce.rmse(*sides)
        with pytest.raises(InputError, match=f'^the paired t_test_p {mapping}'):
            reproduce.t_test_p(*sides, True)
    assert reproduce.t_test_p({'2': 0.4, '1': 0.2}, [0.5, 0.7], False) == pytest.approx(  # (unpaired: any topics)
        scipy.stats.ttest_ind([0.4, 0.2], [0.5, 0.7]).pvalue, abs=1e-12)
    assert reproduce.t_test_p(dict(original), dict(shuffled), True) == reproduce.t_test_p(original, shuffled, True)
    with pytest.raises(InputError, match=r'^rmse: per-topic scores must be numbers \(ints or floats\), got <U'):
        reproduce.rmse({'1': 'high'}, {'1': 0.5})


def test_measures_runs_and_run_names_of_the_wrong_kind_are_refused():
    qrels, run = {'1': {'a': 1}}, {'1': {'a': 1.0}}
    for measures in ('AP', None, ir_measures.AP):
        with pytest.raises(MeasureParamError, match='measures must be a list of measures or names'):
            reproduce.Experiment(qrels, run, run, measures)
    with pytest.raises(MeasureParamError, match=r"^measures must be a list of measures or names, got 'AP' \(one "
                                                r"measure: \['AP'\]\)$"):
        reproduce.topic_scores(qrels, {'r': run}, 'AP')
    with pytest.raises(MeasureParamError, match='^measures must be a list of measures or names, got None$'):
        reproduce.topic_scores(qrels, {'r': run}, None)
    with pytest.raises(InputError, match=r'^runs must be a mapping of names to runs \(a dict\), got list$'):
        reproduce.topic_scores(qrels, [run], ['AP'])
    empty = reproduce.topic_scores(qrels, {'r': run}, [])
    assert empty.empty and list(empty.columns) == ['run', 'measure', 'query_id', 'value']
    with pytest.raises(InputError, match=r"^run must be 'baseline' or 'advanced', got \['baseline'\]$"):
        reproduce.Experiment(qrels, run, run, ['AP']).agreement(run, run=['baseline'])


def test_the_paired_t_test_refuses_scores_of_other_topics_and_the_unpaired_takes_them():
    with pytest.raises(InputError, match='the paired t_test_p pairs the scores of the same topics.*3 and 2 scores'):
        reproduce.t_test_p(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2]), True)
    assert 0 < reproduce.t_test_p(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2]), False) < 1
    for paired in (None, 'no', 1):
        with pytest.raises(InputError, match=r't_test_p: paired must be True \(ttest_rel\) or False'):
            reproduce.t_test_p([0.1, 0.2], [0.2, 0.1], paired)
    for bad in (['0.2', '0.4'], [1j, 0.4], [0.2, math.nan], [[0.1], [0.2, 0.3]]):
        for sides in ((bad, [0.3, 0.4]), ([0.3, 0.4], bad)):
            with pytest.raises(InputError, match='^t_test_p: per-topic score'):
                reproduce.t_test_p(*sides, True)


def test_a_reproduction_read_once_is_scored_once_and_paths_each_time(monkeypatch):
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.readers.inputs import read_input
    experiment = quietly(reproduce.Experiment, REF / 'qrels_orig.txt', RUNS['orig_b'], RUNS['orig_a'], ['AP'])
    evaluated = []
    results = Evaluation.results
    monkeypatch.setattr(Evaluation, 'results', lambda self, run: evaluated.append(run) or results(self, run))
    read = [read_input(RUNS[name], 'run') for name in ('rpd_b', 'rpd_a')]
    table = quietly(experiment.reproducibility, *read)
    scores = quietly(experiment.paired_topic_scores, *read)
    assert len(evaluated) == 2
    assert quietly(experiment.paired_topic_scores, RUNS['rpd_b'], RUNS['rpd_a']).equals(scores)
    assert len(evaluated) == 4
    for _ in range(2):  # (a pair but half read: both scored each time)
        quietly(experiment.reproducibility, read[0], RUNS['rpd_a'])
    assert len(evaluated) == 8
    rmse = table.set_index(['statistic', 'run']).value['rmse', 'advanced']
    advanced = scores[scores.run == 'advanced']
    swapped = quietly(experiment.paired_topic_scores, read[1], read[0])  # (another pair: scored, not the last one's)
    assert len(evaluated) == 10
    assert swapped[swapped.run == 'baseline'].reproduced.tolist() == advanced.reproduced.tolist()
    assert close(rmse, reproduce.rmse(advanced.original.to_numpy(), advanced.reproduced.to_numpy()))
    assert close(rmse, RPD['rmse']['advanced']['AP'])
