"""Tests found by mutation testing of the reproducibility kernels (`reproduce/agreement.py`, `reproduce/statistics.py`;
tests/MUTANTS.md, "Issue 50's reproducibility kernels"): each expected value is computed by hand (or counted from the
definitions in the comments), never by our code."""
import math
import warnings

import numpy as np
import pytest

from irmeasures_ext import reproduce
from irmeasures_ext.errors import InputError, MeasureParamError, ReversedScoresWarning, UnansweredTopicsWarning
from irmeasures_ext.reproduce.agreement import RankedLists


def run_of(lists):
    """A run ranking each topic's docs in the order given (scores descending)."""
    return {topic: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for topic, docs in lists.items()}


# --- the ranked lists ---

def test_ranked_lists_default_to_the_provider_s_order():
    run = {'1': {'a': 1.0, 'b': 3.0, 'c': 2.0}}
    assert RankedLists.of(run).as_dict() == {'1': ['b', 'c', 'a']}


def test_scores_equal_as_float32_are_tied_and_ordered_by_docid_descending():
    # (1 + 1e-9 and 1 are one float32: a tie, so e before a, though a's float64 score is the higher)
    assert reproduce.ranked_lists({'1': {'a': 1.0 + 1e-9, 'e': 1.0}}) == {'1': ['e', 'a']}


def test_file_order_keeps_each_topic_s_rows_in_file_order_when_topics_interleave(tmp_path):
    rng = np.random.default_rng(5)
    scores = {topic: rng.permutation(60).tolist() for topic in ('1', '2')}
    lines = [f'{topic} Q0 {topic}-{i:02d} {i + 1} {scores[topic][i]} r' for i in range(60) for topic in ('1', '2')]
    path = tmp_path / 'run.txt'
    path.write_text('\n'.join(lines) + '\n')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', ReversedScoresWarning)
        lists = reproduce.ranked_lists(path, order='file')
    assert lists == {topic: [f'{topic}-{i:02d}' for i in range(60)] for topic in ('1', '2')}


def test_file_order_sorts_adjacent_ties_by_docid_descending_in_every_topic(tmp_path):
    path = tmp_path / 'run.txt'
    path.write_text('1 Q0 x 1 9 r\n2 Q0 a 1 3 r\n2 Q0 b 2 3 r\n2 Q0 c 3 1 r\n2 Q0 d 4 1 r\n')
    assert reproduce.ranked_lists(path, order='file') == {'1': ['x'], '2': ['b', 'a', 'd', 'c']}


def test_lists_of_several_topics_are_cut_at_the_length():
    run = run_of({'1': ['a', 'b', 'c'], '2': ['d', 'e', 'f']})
    assert reproduce.ranked_lists(run, length=2) == {'1': ['a', 'b'], '2': ['d', 'e']}


def test_a_run_listed_by_ascending_score_is_warned_of_as_a_run(tmp_path):
    path = tmp_path / 'run.txt'
    path.write_text('1 Q0 a 1 1.0 r\n1 Q0 b 2 2.0 r\n')
    with pytest.warns(ReversedScoresWarning, match='scores increase down the listed docs'):
        assert reproduce.ranked_lists(path) == {'1': ['b', 'a']}
    with pytest.warns(ReversedScoresWarning, match='scores increase down the listed docs'):
        reproduce.Experiment({'1': {'a': 1}}, path, {'1': {'a': 1.0}}, ['P@1'])


# --- refusals and warnings, whole ---

def test_the_refusals_whole():
    run = {'1': {'a': 1.0}}
    with pytest.raises(InputError, match=r"^topics must be one of original, repro_eval, got 'all'$"):
        reproduce.ranked_list_agreement(run, run, topics='all')
    with pytest.raises(InputError, match=r'^the original run does not answer topics 2 3 of the reproduced run$'):
        reproduce.ranked_list_agreement(run, run_of({'1': ['a'], '2': ['b'], '3': ['c']}), topics='repro_eval')
    with pytest.raises(InputError, match=r'^a doc appears twice in the original list$'):
        reproduce.ktu(['a', 'a'], ['a'])
    with pytest.raises(InputError, match=r'^a doc appears twice in the reproduced list$'):
        reproduce.ktu(['a'], ('b', 'b'))


def test_the_unanswered_topics_warning_names_each_topic():
    original = run_of({'1': ['a'], '2': ['b'], '3': ['c']})
    with pytest.warns(UnansweredTopicsWarning, match=r'\(reproduced: 2 3\)'):
        reproduce.ranked_list_agreement(original, run_of({'1': ['a']}))


def test_docs_are_paired_by_their_strings_when_their_hashes_cannot_pair_them(monkeypatch):
    """As where two docs of a topic share a hash: no table of the original's (topic, doc hash) keys, the docs joined
    by their strings."""
    import irmeasures_ext.reproduce.agreement as agreement
    tables = []
    monkeypatch.setattr(agreement.GroupedHashes, 'of', classmethod(lambda cls, *keys: tables.append(keys)))
    # (a against b: no doc shared, KTU -1 (each list ranks the other's doc below its own), RBO_ext 0; a b against a:
    # KTU 1 (b below a in both), RBO_ext (eq. 32, s = 1, l = 2, X_1 = X_2 = 1): 0.05/0.95 (0.95 + 0.9025) + 0.9025 = 1;
    # a b c against c a b: one concordant pair of three, τ_b -1/3; x y against y x: -1)
    frame = reproduce.ranked_list_agreement(run_of({'1': ['a']}), run_of({'1': ['b']}))
    assert frame[['ktu', 'rbo_ext']].iloc[0].tolist() == [-1.0, 0.0]
    frame = reproduce.ranked_list_agreement(run_of({'1': ['a', 'b']}), run_of({'1': ['a']}))  # (within a side)
    assert frame[['ktu', 'rbo_ext']].iloc[0].tolist() == pytest.approx([1.0, 1.0], abs=1e-15)
    frame = reproduce.ranked_list_agreement(run_of({'1': list('abc'), '2': list('xy')}),
                                            run_of({'1': list('cab'), '2': list('yx')}))
    assert frame.ktu.tolist()[:2] == pytest.approx([-1 / 3, -1.0], abs=1e-15)
    assert len(tables) == 3  # (one original's table asked for per call, none made)


# --- the statistics ---

def test_rbo_repro_eval_to_a_depth_above_a_shared_doc():
    # (a b c against c b a, depth 2: X_1 = 0, X_2 = 1 (b); c, shared at depth 3, is beyond:
    # (0/1 + p 1/2) / (1 + p) with p = 0.5: 1/6)
    assert reproduce.rbo_repro_eval(list('abc'), list('cba'), 0.5, depth=2) == pytest.approx(1 / 6, abs=1e-15)
    frame = reproduce.ranked_list_agreement(run_of({'1': list('abc'), '2': list('abc')}),
                                            run_of({'1': list('cba'), '2': list('abc')}), p=0.5, depth=2)
    # (topic 2: X_1 = 1, X_2 = 2: (1 + 0.5 2/2) / 1.5 = 1)
    assert frame.rbo_repro_eval.tolist()[:2] == pytest.approx([1 / 6, 1.0], abs=1e-15)


@pytest.mark.parametrize('cells, blocks', [(7, [(0, 2), (2, 4), (4, 5)]), (2, [(t, t + 1) for t in range(5)])])
def test_the_rbo_matrices_are_made_for_blocks_of_topics_of_at_most_the_cells_asked(cells, blocks, monkeypatch):
    # (5 topics, the longest list 3 docs: 7 cells hold 2 topics a block, the last block the 1 left; 2 cells hold
    # none, still a topic a block. Each RBO asks for every block once, in order)
    import irmeasures_ext.reproduce.agreement as agreement
    monkeypatch.setattr(agreement, '_BLOCK_CELLS', cells)
    asked, overlaps = [], agreement._Pair.overlaps
    monkeypatch.setattr(agreement._Pair, 'overlaps', lambda pair, topics: asked.append(
        (topics.start, topics.stop)) or overlaps(pair, topics))
    lists = {str(t): list('abc') for t in range(5)}
    frame = reproduce.ranked_list_agreement(run_of(lists), run_of({**lists, '0': list('cba')}))
    assert asked == blocks * 2
    # (topic 0, a b c against c b a: X = 0, 1, 3; RBO_ext (eq. 30) 0.05/0.95 (0 + 0.9025/2 + 0.857375) + 0.857375
    # = 0.92625; the other topics identical: 1)
    assert frame.rbo_ext.tolist()[:5] == pytest.approx([0.92625, 1.0, 1.0, 1.0, 1.0], abs=1e-15)


def test_every_statistic_column_is_float64():
    with pytest.warns(UnansweredTopicsWarning):
        frame = reproduce.ranked_list_agreement(run_of({'1': list('ab'), '2': ['c']}), run_of({'1': list('ba')}))
    assert [str(frame[name].dtype) for name in reproduce.STATISTICS] == ['float64'] * 4


def test_ktu_of_a_topic_after_a_topic_ending_in_a_shared_doc():
    # (topic 2: x and y, each in one list, each list ranking the other's doc below its own: one discordant pair)
    frame = reproduce.ranked_list_agreement(run_of({'1': ['a'], '2': ['x']}), run_of({'1': ['a'], '2': ['y']}))
    assert frame.ktu.tolist()[1] == -1.0
    # (the reproduction has one row in all: topic 2 unanswered, 0; topic 1 a list of one doc, tau NaN)
    with pytest.warns(UnansweredTopicsWarning):
        frame = reproduce.ranked_list_agreement(run_of({'1': ['a'], '2': ['c']}), run_of({'1': ['a']}))
    assert math.isnan(frame.ktu[0]) and frame.ktu[1] == 0.0 and frame.rbo_ext.tolist()[:2] == [1.0, 0.0]


@pytest.mark.parametrize('lacking', ['original', 'reproduced'])
@pytest.mark.parametrize('n', [12000, 16384])
def test_ktu_of_long_lists_near_the_int16_bound_of_the_merge_keys(n, lacking):
    # (one list holds n docs in order, the other lacks the 6th (rank 5): the union is the n docs, the shorter list
    # ranks the missing one last, after the n - 6 docs the other ranks below it: those are the discordant pairs, no
    # pair is tied: tau = (P - 2 D) / P, P = n (n - 1) / 2. The merge sort's values are the original's ranks of the
    # n - 1 shared docs, in a row of the next power of two: with the original whole they reach n - 1: 11999, within
    # int16 keys (2 (n + 1) <= 2^15), and 16383, one past, the row padded by one key above all, 2 n)
    docs = [f'd{i:05d}' for i in range(n)]
    short, whole = (RankedLists.of(run_of({'1': listed}), length=n) for listed in (docs[:5] + docs[6:], docs))
    original, reproduced = (short, whole) if lacking == 'original' else (whole, short)
    pairs = n * (n - 1) // 2
    expected = (pairs - 2 * (n - 6)) / pairs
    assert reproduce.ranked_list_agreement(original, reproduced).ktu[0] == pytest.approx(expected, rel=1e-14)


def test_ktu_repro_eval_is_rounded_to_14_decimals():
    # (docid positions a 0, b 1, c 2: x = 0 1 2, y = 0 2 1: 2 concordant pairs, 1 discordant: 1/3)
    assert reproduce.ktu_repro_eval(list('abc'), list('acb')) == round(1 / 3, 14)


def test_delta_ri_keeps_an_improvement_below_the_spacing_of_2():
    # (RI = (0.5 + 2^-53 - 0.5) / 0.5 = 2^-52, exact; the reproduction's 0)
    base, improved = np.array([0.5]), np.array([0.5 + 2.0 ** -53])
    assert reproduce.delta_relative_improvement(base, improved, base, base) == 2.0 ** -52


QRELS = {'1': {'a': 1, 'b': 0}, '2': {'c': 1, 'd': 0}}
BASELINE = {'1': {'a': 2.0, 'b': 1.0}, '2': {'d': 2.0, 'c': 1.0}}  # (P@1: 1, 0)
ADVANCED = {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 2.0, 'd': 1.0}}  # (P@1: 1, 1)


def test_a_reproduction_equal_to_the_original_has_p_values_1_and_rows_named_by_measure():
    frame = reproduce.reproducibility(QRELS, BASELINE, ADVANCED, BASELINE, ADVANCED, ['P@1', 'AP'])
    rows = {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}
    expected = {(m, s, r) for m in ('P@1', 'AP') for s in ('rmse', 'nrmse', 'p_value')
                for r in ('baseline', 'advanced')}
    expected |= {(m, s, reproduce.BOTH) for m in ('P@1', 'AP') for s in ('er', 'delta_ri')}
    assert set(rows) == expected and len(frame) == len(expected)  # (no ranked-list rows unless asked)
    assert all(rows[m, 'p_value', r] == 1.0 for m in ('P@1', 'AP') for r in ('baseline', 'advanced'))
    # (P@1 by topic: baseline 1 0, advanced 1 1. ER of equal improvements: 1; both RIs (1 - 1/2) / (1/2): ΔRI 0)
    assert rows['P@1', 'er', reproduce.BOTH] == 1.0 and rows['P@1', 'delta_ri', reproduce.BOTH] == 0.0
    experiment = reproduce.Experiment(QRELS, BASELINE, ADVANCED, ['P@1'])
    assert reproduce.RANKED_LISTS not in set(experiment.reproducibility(BASELINE, ADVANCED).measure)


def test_one_topic_scored_differently_has_an_undefined_paired_p_value():
    # (one difference: no variance, 0 degrees of freedom; the scores differ, so not repro_eval's 1.0 either)
    qrels, original = {'1': {'a': 1}}, {'1': {'a': 1.0}}
    frame = reproduce.reproducibility(qrels, original, original, {'1': {'b': 1.0}}, original, ['P@1'])
    p = frame.set_index(['statistic', 'run']).value
    assert math.isnan(p['p_value', 'baseline']) and p['p_value', 'advanced'] == 1.0


def test_replicability_rows_of_both_runs_named_by_measure():
    frame = reproduce.replicability(QRELS, BASELINE, ADVANCED, QRELS, BASELINE, ADVANCED, ['P@1'])
    assert [(row.measure, row.statistic, row.run) for row in frame.itertuples()] == [
        ('P@1', 'p_value', 'baseline'), ('P@1', 'p_value', 'advanced'), ('P@1', 'er', reproduce.BOTH),
        ('P@1', 'delta_ri', reproduce.BOTH)]
    # (the same scores: t = 0, p = 1)
    assert frame.value.tolist()[:2] == [1.0, 1.0]


def test_a_replication_on_other_topics_with_the_same_scores_keeps_its_undefined_p_values():
    # (repro_eval's 1.0 is for runs scoring the same topics the same: its score dicts, keyed by topic, are equal;
    # here topic '1' against topic '2', P@1 0 and AP 0 on both sides (the relevant doc not retrieved): NaN)
    qrels, qrels_b = {'1': {'a': 1, 'b': 0}}, {'2': {'c': 1, 'd': 0}}
    original, replicated = {'1': {'b': 2.0, 'x': 1.0}}, {'2': {'d': 2.0, 'y': 1.0}}
    frame = reproduce.replicability(qrels, original, original, qrels_b, replicated, replicated, ['P@1', 'AP'])
    p_values = frame[frame.statistic == 'p_value'].value
    assert len(p_values) == 4 and p_values.isna().all()


def test_experiment_agreement_defaults_to_the_baseline_and_reads_both_runs_in_the_order_asked(tmp_path):
    # (in file order a b c against a c b: (b, c) the one discordant pair of 3: tau 1/3; by score both lists are
    # reversed: c b a against b c a, tau 1/3 too, but each read in the other order gives -1/3)
    original, reproduced = tmp_path / 'original.txt', tmp_path / 'reproduced.txt'
    original.write_text('1 Q0 a 1 1 r\n1 Q0 b 2 2 r\n1 Q0 c 3 3 r\n')
    reproduced.write_text('1 Q0 a 1 1 r\n1 Q0 c 2 2 r\n1 Q0 b 3 3 r\n')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', ReversedScoresWarning)
        experiment = reproduce.Experiment({'1': {'a': 1}}, original, {'1': {'x': 1.0}}, ['P@1'])
        assert experiment.agreement(reproduced, order='file').ktu[0] == pytest.approx(1 / 3, abs=1e-15)
        assert experiment.agreement(reproduced).ktu[0] == pytest.approx(1 / 3, abs=1e-15)


def test_topic_scores_frame_whole():
    with pytest.warns(UnansweredTopicsWarning):
        frame = reproduce.topic_scores(QRELS, {'b': BASELINE, 'x': {'1': {'a': 1.0}}}, ['P@1'])
    assert list(frame.columns) == ['run', 'measure', 'query_id', 'value']
    assert list(frame.index) == [0, 1, 2, 3]
    assert frame.values.tolist() == [['b', 'P@1', '1', 1.0], ['b', 'P@1', '2', 0.0], ['x', 'P@1', '1', 1.0],
                                     ['x', 'P@1', '2', 0.0]]


def inversions_by_merging(values):
    """The pairs i < j with values[i] > values[j], counted by a plain merge sort."""
    if len(values) < 2:
        return list(values), 0
    middle = len(values) // 2
    (left, in_left), (right, in_right) = inversions_by_merging(values[:middle]), inversions_by_merging(values[middle:])
    merged, count, i, j = [], in_left + in_right, 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
            count += len(left) - i
    return merged + left[i:] + right[j:], count


@pytest.mark.parametrize('kind', ['quicksort', 'stable'])  # (whichever sorts long rows faster on this CPU)
@pytest.mark.parametrize('lengths, top', [([40_000, 3, 0, 1, 70], 100), ([33_000, 5], 20_000),
                                          ([1000] * 3 + [2, 17], 1000), ([3000, 1500, 9], 1000),
                                          ([2, 3, 4, 5, 8, 9, 16] * 20, 6)])
def test_inversions_of_segments_long_and_short_equal_a_plain_count(lengths, top, kind, monkeypatch):
    # (repeated values; a segment longer than 2^15 of values that would fit 16-bit keys, whose positions do not)
    from irmeasures_ext.reproduce import agreement
    from irmeasures_ext.reproduce.agreement import _inversions
    monkeypatch.setattr(agreement, '_long_rows_sort', lambda: kind)
    rng = np.random.default_rng(top)
    values = [rng.integers(0, top, length) for length in lengths]
    counts = _inversions(np.repeat(np.arange(len(lengths)), lengths), np.concatenate(values), len(lengths))
    assert counts.tolist() == [inversions_by_merging(v.tolist())[1] for v in values]


def test_inversions_of_segments_in_order_or_nearly_equal_a_plain_count():
    # (segments in order, repeated values included, count 0 unsorted; one swapped pair at a segment's start or end
    # must be counted; a descent from one segment's last value to the next one's first is no inversion)
    from irmeasures_ext.reproduce.agreement import _inversions
    rng = np.random.default_rng(5)
    in_order = [np.arange(1000), np.sort(rng.integers(0, 50, 300)), np.array([7]), np.array([3, 3])]
    swapped_last, swapped_first = np.arange(40), np.arange(33)
    swapped_last[[-2, -1]] = swapped_last[[-1, -2]]
    swapped_first[[0, 1]] = swapped_first[[1, 0]]
    values = [*in_order, swapped_last, np.arange(500)[::-1].copy(), swapped_first, rng.integers(0, 9, 70),
              np.arange(5) + 100, np.arange(2)]
    counts = _inversions(np.repeat(np.arange(len(values)), [len(v) for v in values]), np.concatenate(values),
                         len(values))
    assert counts.tolist() == [inversions_by_merging(v.tolist())[1] for v in values]
    assert counts.tolist()[:4] == [0, 0, 0, 0] and counts.tolist()[4:6] == [1, 500 * 499 // 2]


def test_a_real_valued_threshold_reaches_every_statistic():
    # (rel=0.5: topic 1 judges a 0.5 and b 1.7 relevant, c 0.2 not; topic 2 d 0.6 only. The reproduction ranks
    # c b a (AP (1/2 + 2/3)/2, P@1 0) and e d (AP 1/2, P@1 0); the original ranks the relevant docs first (1, 1))
    qrels = {'1': {'a': 0.5, 'b': 1.7, 'c': 0.2}, '2': {'d': 0.6, 'e': 0.1}}
    original = {'1': {'a': 3.0, 'b': 2.0, 'c': 1.0}, '2': {'d': 2.0, 'e': 1.0}}
    reproduced = {'1': {'c': 3.0, 'b': 2.0, 'a': 1.0}, '2': {'e': 2.0, 'd': 1.0}}
    scores = reproduce.topic_scores(qrels, {'o': original, 'r': reproduced}, ['AP', 'P@1'], rel=0.5)
    assert scores.value.tolist() == pytest.approx([1, 1, 1, 1, 7 / 12, 1 / 2, 0, 0], abs=1e-15)
    frame = reproduce.reproducibility(qrels, original, original, reproduced, reproduced, ['AP'], rel=0.5)
    rmse = frame.set_index(['statistic', 'run']).value['rmse', 'baseline']
    assert rmse == pytest.approx(math.sqrt(((5 / 12) ** 2 + (1 / 2) ** 2) / 2), abs=1e-15)
    frame = reproduce.replicability(qrels, original, original, qrels, reproduced, reproduced, ['P@1'], rel=0.5)
    assert frame.set_index(['statistic', 'run']).value['p_value', 'baseline'] == 0.0  # (1 1 against 0 0)
    with pytest.raises(MeasureParamError, match='rel must be a number above 0'):
        reproduce.Experiment(qrels, original, original, ['AP'], rel=0)


def test_the_merge_levels_sort_long_rows_with_one_of_numpy_s_sorts_timed_once_by_two_threads_at_once():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from irmeasures_ext.reproduce.agreement import _long_rows_sort, _timed_long_rows_sort
    _timed_long_rows_sort.cache_clear()
    both = threading.Barrier(2)  # (the two threads ask at once)

    def asked(_):
        both.wait(timeout=30)
        return _long_rows_sort()

    with ThreadPoolExecutor(2) as threads:
        kinds = set(threads.map(asked, range(2)))
    assert len(kinds) == 1 and kinds <= {'quicksort', 'stable'} and _timed_long_rows_sort.cache_info().misses == 1
