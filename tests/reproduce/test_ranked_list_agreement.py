"""The ranked-list statistics against plain implementations written from their definitions (Kendall's τ_b by
counting pairs, RBO and RBO_ext by summing the overlaps depth by depth), hand-computed cases, the tie orders and the
refusals."""
import math
import random
import re
import warnings

import numpy as np
import pytest

from irmeasures_ext import reproduce
from irmeasures_ext.errors import InputError, UnansweredTopicsWarning
from irmeasures_ext.reproduce import agreement


def tau_b_by_pairs(x, y):
    """Kendall's τ_b = (P - Q) / √((P + Q + U)(P + Q + V)), counting every pair: U ties in x only, V in y only."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def ktu_by_definition(original, reproduced):
    """τ_b over the union of the docs, a doc a list lacks ranked at that list's length (tied below its last)."""
    union = sorted(set(original) | set(reproduced))
    rank = [{doc: i for i, doc in enumerate(docs)} for docs in (original, reproduced)]
    return tau_b_by_pairs([rank[0].get(d, len(original)) for d in union],
                          [rank[1].get(d, len(reproduced)) for d in union])


def overlaps(original, reproduced, depth):
    return [len(set(original[:d]) & set(reproduced[:d])) for d in range(1, depth + 1)]


def rbo_repro_eval_by_definition(original, reproduced, p, depth):
    x = overlaps(original, reproduced, depth)
    weights = [p ** (d - 1) for d in range(1, depth + 1)]
    return sum(w * x[d - 1] / d for d, w in enumerate(weights, 1)) / sum(weights)


def rbo_ext_by_definition(original, reproduced, p):
    """Webber et al. eq. 32 (s <= l), summed term by term."""
    short, long = sorted((len(original), len(reproduced)))
    x = overlaps(original, reproduced, long)
    total = sum(x[d - 1] / d * p ** d for d in range(1, long + 1))
    total += sum(x[short - 1] * (d - short) / (short * d) * p ** d for d in range(short + 1, long + 1))
    return (1 - p) / p * total + ((x[long - 1] - x[short - 1]) / long + x[short - 1] / short) * p ** long


def random_pair(rng):
    docs = [f'd{i}' for i in range(rng.randint(2, 30))]
    original = rng.sample(docs, rng.randint(1, len(docs)))
    reproduced = rng.sample(docs, rng.randint(1, len(docs)))
    return original, reproduced


@pytest.mark.parametrize('seed', range(40))
def test_each_statistic_equals_its_definition_on_random_lists(seed):
    rng = random.Random(seed)
    original, reproduced = random_pair(rng)
    p = rng.choice([0.5, 0.9, 0.95])
    expected_ktu = ktu_by_definition(original, reproduced)
    ours = reproduce.ktu(original, reproduced)
    assert (math.isnan(ours) and math.isnan(expected_ktu)) or ours == pytest.approx(expected_ktu, abs=1e-12)
    assert reproduce.rbo_repro_eval(original, reproduced, p, depth=40) == pytest.approx(
        rbo_repro_eval_by_definition(original, reproduced, p, 40), abs=1e-12)
    assert reproduce.rbo_ext(original, reproduced, p) == pytest.approx(
        rbo_ext_by_definition(original, reproduced, p), abs=1e-12)


#: The cells of the RBO matrices' blocks the tests take (:data:`agreement._BLOCK_CELLS`): a topic a block, some
#: topics a block (not dividing the topics), and the default (every topic in one block here).
BLOCK_CELLS = [1, 70, agreement._BLOCK_CELLS]


@pytest.mark.parametrize('block_cells', BLOCK_CELLS)
def test_many_topics_at_once_equal_each_topic_alone(block_cells, monkeypatch):
    monkeypatch.setattr(agreement, '_BLOCK_CELLS', block_cells)
    rng = random.Random(7)
    pairs = {f't{i:02d}': random_pair(rng) for i in range(25)}
    as_run = [{topic: {doc: float(100 - rank) for rank, doc in enumerate(pair[side])} for topic, pair in pairs.items()}
              for side in (0, 1)]
    frame = reproduce.ranked_list_agreement(*as_run).set_index('query_id')
    for topic, (original, reproduced) in pairs.items():
        expected_ktu = ktu_by_definition(original, reproduced)
        assert frame.loc[topic, 'ktu'] == pytest.approx(expected_ktu, abs=1e-12, nan_ok=True)
        expected_rbo_ext = rbo_ext_by_definition(original, reproduced, 0.95)
        assert frame.loc[topic, 'rbo_ext'] == pytest.approx(expected_rbo_ext, abs=1e-12)
        assert frame.loc[topic, 'rbo_repro_eval'] == pytest.approx(
            rbo_repro_eval_by_definition(original, reproduced, 0.95, 1000), abs=1e-12)


def test_ktu_of_topics_holding_the_same_docs_between_topics_that_do_not():
    # (the docs a list lacks are counted only in the topics that have some: here topics of the same docs in another
    # order, of a subset of the other list's docs on either side, and of docs partly shared, interleaved)
    rng = random.Random(23)
    pairs = {}
    for i in range(30):
        original, reproduced = random_pair(rng)
        if i % 4 == 0:
            reproduced = rng.sample(original, len(original))
        elif i % 4 == 1:
            reproduced = rng.sample(original, rng.randint(1, len(original)))
        elif i % 4 == 2:
            original = rng.sample(reproduced, rng.randint(1, len(reproduced)))
        pairs[f't{i:02d}'] = original, reproduced
    as_run = [{topic: {doc: float(100 - rank) for rank, doc in enumerate(pair[side])} for topic, pair in pairs.items()}
              for side in (0, 1)]
    frame = reproduce.ranked_list_agreement(*as_run).set_index('query_id')
    for topic, (original, reproduced) in pairs.items():
        assert frame.loc[topic, 'ktu'] == pytest.approx(ktu_by_definition(original, reproduced), abs=1e-12,
                                                        nan_ok=True)


def ktu_repro_eval_by_definition(original, reproduced):
    """repro_eval's KTU: τ_b between the positions, in the docid-sorted union, of the docs at each rank."""
    position = {doc: i for i, doc in enumerate(sorted(set(original) | set(reproduced)))}
    return round(tau_b_by_pairs([position[d] for d in original], [position[d] for d in reproduced]), 14)


@pytest.mark.parametrize('block_cells', [1, 1000, agreement._BLOCK_CELLS])
@pytest.mark.parametrize('topics', ['original', 'repro_eval'])
def test_long_lists_of_many_topics_equal_their_definitions(topics, block_cells, monkeypatch):
    # (lists of 40 to 300 docs: the merge levels past 32 values; equal lengths in some topics for repro_eval's KTU,
    # ids of several lengths so that doc id order is not numeric order; the same docs in both lists in some of
    # those; a topic the reproduction lacks, and with topics='original' one the original lacks; the RBO matrices in
    # blocks of one topic, of 3 to 25 topics or of all)
    monkeypatch.setattr(agreement, '_BLOCK_CELLS', block_cells)
    rng = random.Random(11)
    pairs = {}
    for i in range(12):
        docs = [f'd{rng.randint(0, 10 ** rng.randint(1, 6))}-{j}' for j in range(rng.randint(40, 300))]
        original = rng.sample(docs, rng.randint(20, len(docs)))
        reproduced = rng.sample(docs, len(original) if i % 2 else rng.randint(20, len(docs)))
        if i % 4 == 3:  # (the same docs in another order)
            reproduced = rng.sample(original, len(original))
        pairs[f't{i:02d}'] = original, reproduced
    lacking = ('t00' if topics == 'original' else None, 't01')
    as_run = [{topic: {doc: float(1000 - rank) for rank, doc in enumerate(pair[side])}
               for topic, pair in pairs.items() if topic != lacking[side]} for side in (0, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnansweredTopicsWarning)
        frame = reproduce.ranked_list_agreement(*as_run, topics=topics).set_index('query_id')
    shown = set(pairs) - {'t00' if topics == 'original' else 't01'}
    assert set(frame.index) == shown | {'all'}
    for topic in shown - {'t01'}:
        original, reproduced = pairs[topic]
        assert frame.loc[topic, 'ktu'] == pytest.approx(ktu_by_definition(original, reproduced), abs=1e-12)
        expected = ktu_repro_eval_by_definition(original, reproduced) if len(original) == len(reproduced) else math.nan
        assert frame.loc[topic, 'ktu_repro_eval'] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        assert frame.loc[topic, 'rbo_ext'] == pytest.approx(rbo_ext_by_definition(original, reproduced, 0.95),
                                                            abs=1e-12)
        assert frame.loc[topic, 'rbo_repro_eval'] == pytest.approx(
            rbo_repro_eval_by_definition(original, reproduced, 0.95, 1000), abs=1e-12)
    if topics == 'original':  # (the topic the reproduction lacks: 0)
        assert frame.loc['t01', ['rbo_ext', 'rbo_repro_eval']].tolist() == [0.0, 0.0]


def test_hand_computed_ktu_one_adjacent_swap():
    # (pairs of b c a d: 6; only (a, d) swapped: (5 - 1) / 6. repro_eval correlates docid positions instead)
    assert reproduce.ktu(list('bcad'), list('bcda')) == pytest.approx(2 / 3)
    assert reproduce.ktu_repro_eval(list('bcad'), list('bcda')) == pytest.approx(-2 / 3)
    assert reproduce.ktu(list('abc'), list('abc')) == 1.0
    assert reproduce.ktu(list('abc'), list('cba')) == -1.0
    # (a b against a c: union a b c; ranks (0, 1, 2) and (0, 2, 1); P = 2, Q = 0, U = 0, V = 1... by pairs:)
    assert reproduce.ktu(list('ab'), list('ac')) == pytest.approx(tau_b_by_pairs([0, 1, 2], [0, 2, 1]))


def test_order_trec_eval_sorts_by_score_then_docid_descending_as_the_provider_ranks():
    run = {'1': {'a': 1.0, 'b': 3.0, 'c': 3.0, 'd': 2.0, 'e': 1.0 + 1e-9}}  # (1 and 1 + 1e-9: equal as float32)
    assert reproduce.ranked_lists(run) == {'1': ['c', 'b', 'd', 'e', 'a']}


def test_order_file_keeps_the_order_given_and_sorts_adjacent_ties_only(tmp_path):
    path = tmp_path / 'run.txt'
    path.write_text('1 Q0 a 1 1.0 r\n1 Q0 b 2 5.0 r\n1 Q0 c 3 5.0 r\n1 Q0 d 4 1.0 r\n2 Q0 x 1 1 r\n')
    assert reproduce.ranked_lists(path, order='file') == {'1': ['a', 'c', 'b', 'd'], '2': ['x']}
    assert reproduce.ranked_lists(path) == {'1': ['c', 'b', 'd', 'a'], '2': ['x']}


def test_the_list_functions_take_the_whole_lists_past_1000_docs():
    rng = random.Random(5)
    docs = [f'd{i}' for i in range(1300)]
    for original, reproduced in ((docs[:1001], docs[:1000] + ['z']), (rng.sample(docs, 1100), rng.sample(docs, 1250)),
                                 (rng.sample(docs, 1200), rng.sample(docs, 1200))):
        assert reproduce.ktu(original, reproduced) == pytest.approx(ktu_by_definition(original, reproduced),
                                                                    abs=1e-12)
        assert reproduce.ktu_repro_eval(original, reproduced) == pytest.approx(
            ktu_repro_eval_by_definition(original, reproduced) if len(original) == len(reproduced) else math.nan,
            abs=1e-12, nan_ok=True)
        assert reproduce.rbo_ext(original, reproduced, 0.999) == pytest.approx(
            rbo_ext_by_definition(original, reproduced, 0.999), abs=1e-12)
        assert reproduce.rbo_repro_eval(original, reproduced, 0.999, 1300) == pytest.approx(
            rbo_repro_eval_by_definition(original, reproduced, 0.999, 1300), abs=1e-12)
    assert reproduce.ktu(docs[:1001], docs[:1000] + ['z']) < 1  # (cut at 1000, both lists would be the same)


#: Two 24-byte ids with one 64-bit hash (chosen by inverting it: tests/engine/test_ranking.py).
SAME_HASH = ('doc-0000uypfwLDIJEu370zG', 'doc-0000iz27P6JBuScLTFIR')


@pytest.mark.parametrize('seed', range(6))
def test_docs_that_share_a_hash_are_told_apart_by_their_strings(seed):
    # (ids read zero-padded: 'a' and 'a\0' share their hash, as do 'a\0' and 'a\0\0'; the doc sets of both lists
    # drawn from those, so that the pairing finds a hash shared by different docs within a list and across them)
    rng = random.Random(seed)
    docs = ['a', 'a\0', 'a\0\0', 'b', 'ccccccccc', 'ccccccccc\0', *SAME_HASH]
    pairs = {f't{i}': (rng.sample(docs, rng.randint(2, len(docs))), rng.sample(docs, rng.randint(2, len(docs))))
             for i in range(4)}
    as_run = [{topic: {doc: float(100 - rank) for rank, doc in enumerate(pair[side])} for topic, pair in pairs.items()}
              for side in (0, 1)]
    frame = reproduce.ranked_list_agreement(*as_run).set_index('query_id')
    for topic, (original, reproduced) in pairs.items():
        assert frame.loc[topic, 'ktu'] == pytest.approx(ktu_by_definition(original, reproduced), abs=1e-12)
        assert frame.loc[topic, 'rbo_ext'] == pytest.approx(rbo_ext_by_definition(original, reproduced, 0.95),
                                                            abs=1e-12)
        assert frame.loc[topic, 'rbo_repro_eval'] == pytest.approx(
            rbo_repro_eval_by_definition(original, reproduced, 0.95, 1000), abs=1e-12)
    assert reproduce.ktu(['a'], ['a\0']) == -1.0 and reproduce.rbo_ext(['a', 'b'], ['a\0', 'b']) == pytest.approx(
        rbo_ext_by_definition(['a', 'b'], ['a\0', 'b'], 0.95))


def test_lists_are_cut_at_the_length():
    run = {'1': {f'd{i:04d}': float(-i) for i in range(1005)}}
    lists = reproduce.ranked_lists(run)
    assert len(lists['1']) == 1000 and lists['1'][-1] == 'd0999'
    assert reproduce.ranked_lists(run, length=3) == {'1': ['d0000', 'd0001', 'd0002']}


def test_a_doc_twice_in_a_topic_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / 'run.txt'
    path.write_text('1 Q0 a 1 2.0 r\n1 Q0 b 2 1.5 r\n1 Q0 a 3 1.0 r\n')
    with pytest.raises(InputError, match=r"run\.txt:3: duplicate doc 'a' in query '1' \(first at line 1\)"):
        reproduce.ranked_list_agreement(path, path)
    with pytest.raises(InputError, match='twice'):
        reproduce.ktu(['a', 'b', 'a'], ['a', 'b'])


def test_bad_options_are_refused():
    run = {'1': {'a': 1.0}}
    with pytest.raises(InputError, match='order must be one of trec_eval, file'):
        reproduce.ranked_lists(run, order='score')
    with pytest.raises(InputError, match='topics must be one of'):
        reproduce.ranked_list_agreement(run, run, topics='all')


@pytest.mark.parametrize('length', [0, -1, 1.5, True, '3', None])
def test_a_length_that_is_not_a_whole_number_of_1_or_more_is_refused(length):
    with pytest.raises(InputError, match=f'length must be a whole number of 1 or more, got {re.escape(repr(length))}'):
        reproduce.ranked_lists({'1': {'a': 1.0}}, length=length)


@pytest.mark.parametrize('p', [0, -0.5, 1.5, math.nan, math.inf, True, '0.9', None])
def test_a_persistence_outside_0_to_1_is_refused(p):
    run = {'1': {'a': 2.0, 'b': 1.0}}
    with pytest.raises(InputError, match=r"p \(RBO's persistence\) must be a number with 0 < p <= 1"):
        reproduce.ranked_list_agreement(run, run, p=p)
    for original in (['a', 'b'], []):
        with pytest.raises(InputError, match="RBO's persistence"):
            reproduce.rbo_ext(original, ['b', 'a'], p=p)


@pytest.mark.parametrize('depth', [0, -2, 2.5, False, None])
def test_a_depth_that_is_not_a_whole_number_of_1_or_more_is_refused(depth):
    with pytest.raises(InputError, match='depth must be a whole number of 1 or more'):
        reproduce.rbo_repro_eval(['a', 'b'], ['b', 'a'], depth=depth)


def test_the_edges_of_the_options_are_taken():
    # (p = 1: every depth weighs alike. a b against b a: X_1 = 0, X_2 = 2; repro_eval's to depth 2: (0/1 + 2/2) / 2;
    # RBO_ext: (1 - p)/p Σ ... = 0, plus X_2/2 · p^2 = 1; a numpy length and depth.)
    assert reproduce.rbo_repro_eval(['a', 'b'], ['b', 'a'], p=1, depth=np.int64(2)) == pytest.approx(0.5)
    assert reproduce.rbo_ext(['a', 'b'], ['b', 'a'], p=1.0) == pytest.approx(1.0)
    assert reproduce.ranked_lists({'1': {'a': 2.0, 'b': 1.0}}, length=np.int32(1)) == {'1': ['a']}


def test_an_unanswered_topic_scores_0_in_every_statistic_and_counts_in_the_means():
    original = {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 1.0}}
    with warnings.catch_warnings(record=True) as caught:  # (that warning only: no numpy one of an empty list)
        warnings.simplefilter('always')
        frame = reproduce.ranked_list_agreement(original, {'1': {'a': 2.0, 'b': 1.0}}).set_index('query_id')
    assert [type(warning.message) for warning in caught] == [UnansweredTopicsWarning]
    assert 'reproduced: 2' in str(caught[0].message)
    assert frame.loc['2'].tolist() == [0.0] * 4
    assert frame.loc['all', 'ktu'] == 0.5 and frame.loc['all', 'rbo_ext'] == pytest.approx(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        repro_eval_topics = reproduce.ranked_list_agreement(original, {'1': {'a': 2.0, 'b': 1.0}}, topics='repro_eval')
    assert list(repro_eval_topics.query_id) == ['1', 'all']


def test_an_original_answering_no_topic_is_refused_and_a_reproduction_of_none_has_nan_means():
    run = {'1': {'a': 1.0}}
    with pytest.raises(InputError, match='the original run answers no topic'):
        reproduce.ranked_list_agreement([], run)
    with warnings.catch_warnings():  # (repro_eval's topics, the reproduced run's: none, so a mean of nothing)
        warnings.simplefilter('error')
        frame = reproduce.ranked_list_agreement(run, [], topics='repro_eval')
    assert frame.query_id.tolist() == ['all'] and frame.iloc[0, 1:].isna().all()


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')  # (the failed reproduction's)
def test_a_reproduction_answering_no_topic_still_has_its_score_statistics_with_repro_eval_topics():
    qrels = {'1': {'a': 1, 'b': 0}, '2': {'c': 1}}
    baseline, advanced = {'1': {'a': 1.0, 'b': 0.5}, '2': {'c': 1.0}}, {'1': {'b': 1.0, 'a': 0.5}, '2': {'c': 1.0}}
    with pytest.warns(UnansweredTopicsWarning, match='reproduced baseline: 1 2'):
        frame = reproduce.reproducibility(qrels, baseline, advanced, [], advanced, ['P@1'], ranked_lists=True,
                                          topics='repro_eval')
    got = {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}
    assert got['P@1', 'rmse', 'baseline'] == 1.0  # (1 and 1 against 0 and 0)
    assert got['P@1', 'rmse', 'advanced'] == 0.0
    assert all(math.isnan(got['ranked lists', statistic, 'baseline']) for statistic in reproduce.STATISTICS)
    assert got['ranked lists', 'rbo_ext', 'advanced'] == pytest.approx(1.0)


def test_the_list_functions_take_any_sequence_of_doc_ids_and_refuse_other_things():
    import pandas as pd
    expected = reproduce.ktu(['a', 'b', 'c'], ['b', 'a', 'c'])
    for original in (('a', 'b', 'c'), np.array(['a', 'b', 'c']), pd.Series(['a', 'b', 'c']), iter('abc')):
        assert reproduce.ktu(original, ['b', 'a', 'c']) == expected
    for bad, error in (('abc', 'got str'), (None, 'got NoneType'), ({'a', 'b'}, 'got set'), ({'a': 1}, 'got dict'),
                       ([1, 2], 'as strings')):
        for statistic in (reproduce.ktu, reproduce.ktu_repro_eval, reproduce.rbo_repro_eval, reproduce.rbo_ext):
            with pytest.raises(InputError, match=f'the original list .*{error}'):
                statistic(bad, ['a'])
            with pytest.raises(InputError, match=f'the reproduced list .*{error}'):
                statistic(['a'], bad)


@pytest.mark.parametrize('statistic', ['ktu', 'ktu_repro_eval', 'rbo_repro_eval', 'rbo_ext'])
def test_an_empty_list_gives_0_in_every_statistic_as_an_unanswered_topic_without_a_warning(statistic):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for original, reproduced in (([], ['a']), (['a'], []), ([], [])):
            assert getattr(reproduce, statistic)(original, reproduced) == 0.0


@pytest.mark.parametrize('n', [5, 50, 1000])
def test_identical_lists_agree_exactly(n):
    # (repro_eval's RBO to the lists' depth sums its weights as its denominator does: 1.0 to the last bit, as
    # repro_eval's loop gives it. RBO_ext is 1 to rounding only: within an ulp, which numpy's sums decide)
    docs = [f'doc{i}' for i in range(n)]
    assert reproduce.rbo_repro_eval(docs, docs, depth=n) == 1.0
    assert reproduce.rbo_ext(docs, docs) == pytest.approx(1.0, rel=0, abs=2.5e-16)
    assert reproduce.ktu_repro_eval(docs, docs) == 1.0  # (rounded to 14 places; ktu is scipy's τ_b, to an ulp)


def test_a_persistence_so_small_that_1_over_p_overflows_is_refused():
    for p in (5e-324, 1e-310):
        with pytest.raises(InputError, match=r'0 < p <= 1 \(1/p finite\)'):
            reproduce.rbo_ext(['a', 'b'], ['a', 'b'], p=p)
    # (a b against b a: X_1 = 0, X_2 = 2, eq. 30: X_2/2 p² + (1 - p)/p (X_2/2) p² = p; identical lists 1)
    assert reproduce.rbo_ext(['a', 'b'], ['b', 'a'], p=1e-300) == pytest.approx(1e-300, rel=1e-12, abs=0)
    # (a b c against b a: s = 2, l = 3, X = 0, 2, 2, eq. 32: w_2 + w_3 (2/3 + 2/6) + p³, w_d = (1 - p) p^(d-1))
    assert reproduce.rbo_ext(['a', 'b', 'c'], ['b', 'a'], p=1e-300) == pytest.approx(1e-300, rel=1e-12, abs=0)
    assert reproduce.rbo_ext(['a', 'b', 'c'], ['b', 'a'], p=0.5) == pytest.approx(0.25 + 0.125 + 0.125, abs=1e-15)
    assert reproduce.rbo_ext(['a', 'b'], ['a', 'b'], p=1e-300) == pytest.approx(1.0)
    assert reproduce.rbo_ext(['a', 'b'], ['a', 'b'], p=1e-308) == pytest.approx(1.0)  # (1/p = 1e308: finite)


def test_rbo_repro_eval_far_past_the_lists_equals_its_definition_and_the_depth_has_a_bound():
    original, reproduced = ['a', 'b', 'c', 'd'], ['b', 'e', 'a']
    for p, depth in ((0.95, 100_000), (1.0, 100_000), (0.5, 3), (0.9, 4), (0.9, 5)):
        assert reproduce.rbo_repro_eval(original, reproduced, p=p, depth=depth) == pytest.approx(
            rbo_repro_eval_by_definition(original, reproduced, p, depth), rel=1e-12)
    assert 0 < reproduce.rbo_repro_eval(original, reproduced, depth=reproduce.RBO_MAX_DEPTH) < 1
    for lists in ((original, reproduced), ([], reproduced)):  # (an empty list's 0 too)
        with pytest.raises(InputError, match=r'^depth must be at most 10,000,000, got 10000001$'):
            reproduce.rbo_repro_eval(*lists, depth=reproduce.RBO_MAX_DEPTH + 1)
    assert reproduce.ranked_lists({'1': {'a': 2.0, 'b': 1.0}}, length=10 ** 30) == {'1': ['a', 'b']}


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')
def test_with_no_measure_the_warning_names_only_the_rankings_a_reproduction_lacks():
    qrels = {'1': {'a': 1}, '2': {'c': 1}, '3': {'x': 1}}
    original, reproduced = {'1': {'a': 1.0, 'b': 0.5}, '2': {'c': 1.0}}, {'1': {'b': 1.0, 'a': 0.5}}
    with_scores = ('(original baseline: 3; original advanced: 3; reproduced baseline: 2 3; reproduced advanced: 2 3): '
                   'each is evaluated as a ranking of no documents (0 in every measure of the ranking); and in the '
                   'rankings ')
    for measures, scores in (([], ''), (['P@1'], with_scores)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            reproduce.reproducibility(qrels, original, original, reproduced, reproduced, measures, ranked_lists=True)
        assert [str(warning.message) for warning in caught if warning.category is UnansweredTopicsWarning] == [
            f'topics not answered {scores}(reproduced baseline: 2; reproduced advanced: 2): each counts 0 in the '
            "rankings' KTU, RBO and RBO_ext"]
