"""A run given as a dict-of-dict is ranked from its dicts (:class:`~irmeasures_ext.readers.inputs.DictRun`,
:func:`~irmeasures_ext.engine.ranking.rank_dict_run`): the same ranked run, values, warnings and errors as its
table gives; and the query ids of qrels and runs are numbered through their hashes (:func:`.sorted_distinct`,
:meth:`.Judgments.query_index`) as Arrow's ``sorted_unique``/``index_in`` number them."""
import random
import warnings
from unittest import mock

import ir_measures
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeasures_ext
from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import to_numpy
from irmeasures_ext.engine import doc_ids, ranking
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.errors import InputError, NonFiniteScoreError
from irmeasures_ext.readers.inputs import DictRun, read_input

FIELDS = ('query', 'rank', 'label', 'tie_start', 'tie_size', 'starts', 'n_retrieved')
MEASURES = [ir_measures.parse_measure(m) for m in ['AP', 'nDCG@10', 'P@10', 'R@100', 'RR', 'MeanRank']]
#: Doc ids sharing their first 8 bytes, longer than 8 bytes, non-ASCII, empty: told apart and ordered byte-wise.
IDS = ['d', 'D', 'doc', 'é', 'x' * 9, 'x' * 9 + 'a', 'x' * 8, '', 'abcdefgh\u00e4', 'abcdefgh']


def assert_same_ranking(qrels: dict, run: dict, precision: str) -> bool:
    """The dict path's ranked run equals the table's; False where the dict path leaves it to the table."""
    judgments = Judgments(read_input(qrels, 'qrels').table)
    read = read_input(run, 'run', dict_run=True)
    assert read.dict_run is not None
    ranked = ranking.rank_dict_run(read.dict_run, judgments, precision)
    expected = ranking.rank_run(read.table, judgments, precision, read.query_starts)
    if ranked is None:
        return False
    for field in FIELDS:
        assert np.array_equal(getattr(ranked, field), getattr(expected, field)), field
    assert ranked.run_queries == expected.run_queries
    return True


@st.composite
def dicts(draw):
    pool = list(dict.fromkeys(draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=6)) +
                              [f'{i}' for i in range(draw(st.integers(0, 20)))]))
    queries = draw(st.integers(1, 5))
    qrels = {f'q{i}': {doc: draw(st.integers(0, 3)) for doc in draw(st.lists(st.sampled_from(pool), min_size=1,
                                                                             unique=True))} for i in range(queries)}
    scores = st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0 + 1e-9, 2, True, -3.5, 1e300])  # (ties as float32 or 64)
    run = {draw(st.sampled_from([f'q{i}', f'q{i}', f'x{i}'])): {doc: draw(scores) for doc in draw(
        st.lists(st.sampled_from(pool), unique=True))} for i in range(queries + 1)}
    return qrels, run


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dicts(), st.sampled_from(['float32', 'float64']))
def test_ranked_from_the_dicts_as_from_the_table(data, precision):
    qrels, run = data
    if any(run.values()):
        assert_same_ranking(qrels, run, precision)


def test_many_queries_of_many_ties_unsorted():
    # Blocks the size of the small-runs benchmark's, listed in no score order, scores rounded (many ties).
    rng = random.Random(7)
    qrels = {f'q{i}': {f'd{j}': rng.randint(0, 3) for j in rng.sample(range(300), 30)} for i in range(100)}
    run = {f'q{i}': {f'd{j}': round(rng.random(), 2) for j in rng.sample(range(300), 100)} for i in range(100)}
    assert assert_same_ranking(qrels, run, 'float32')
    assert assert_same_ranking(qrels, run, 'float64')


def as_table(call):
    """``call()`` with every dict-of-dict read into a table (as before the DictRun)."""
    with mock.patch.object(DictRun, 'of', lambda data: None):
        return call()


def test_the_values_warnings_and_errors_of_the_table():
    qrels = {'q1': {'a': 1, 'b': 0, 'c': 2}, 'q01': {'a': 1}, 'q2': {'z': 1}}
    run = {'q1': {'a': 1.0, 'b': 1.0, 'c': 0.5, 'd': 2.0}, 'Q01': {'a': 3.0}, 'empty': {}}
    evaluator = irmeasures_ext.provider.evaluator(MEASURES, qrels)

    def evaluated(given):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            values = evaluator.values(given)
        return {str(m): v.tolist() for m, v in values.items()}, [(w.category, str(w.message)) for w in caught]

    assert evaluated(run) == as_table(lambda: evaluated(run))  # (QueryIdFormWarning: 'Q01' ~ 'q01')
    assert evaluated(run)[1]
    for bad, error in [({'q1': {'a': float('inf')}}, NonFiniteScoreError), ({'q1': {'a': float('nan')}},
                                                                             NonFiniteScoreError),
                       ({'q1': {'a\ud800': 1.0}}, InputError), ({'q1': {'a': None}}, InputError),
                       ({'q1': {'a': 1.0, 'b': 'high'}}, InputError), ({'q1': [('a', 1.0)]}, InputError),
                       ({'q1': {'a': 1.0, 2.5: 1.0}}, InputError), ({'q1': {'a': 10 ** 400}}, InputError)]:
        with pytest.raises(error) as from_dicts:
            evaluator.values(bad)
        with pytest.raises(error) as from_table:
            as_table(lambda: evaluator.values(bad))  # noqa: B023
        assert (type(from_dicts.value), str(from_dicts.value)) == (type(from_table.value), str(from_table.value))


@pytest.mark.parametrize('run', [
    {'q1': {1: 1.0, 'b': 2.0}},          # an integer doc id: read as '1'
    {1: {'a': 1.0}},                     # an integer query id
    {'q1': {'a': '2.5', 'b': 1}},        # a score as text, as a table reads it
    {'q1': {'a': np.float32(0.1)}},      # a numpy score
])
def test_other_types_read_as_a_table_reads_them(run):
    qrels = {'q1': {'1': 1, 'a': 1}, '1': {'a': 1}}
    read = read_input(run, 'run')
    expected = {str(m): v.tolist() for m, v in irmeasures_ext.provider.evaluator(MEASURES, qrels).values(
        read.table).items()}
    assert {str(m): v.tolist() for m, v in irmeasures_ext.provider.evaluator(MEASURES, qrels).values(
        run).items()} == expected


def test_left_to_the_table():
    qrels = {'q': {f'd{i}': 1 for i in range(50)}}
    run = {'q': {'d1': 1.0, 'd2': 0.5}}  # the qrels judge more docs of its queries than the run holds
    assert not assert_same_ranking(qrels, run, 'float32')
    run = {'q': {f'd{i}': 1.0 for i in range(100)}}  # all tied: 50 x 100 doc ids compared, sorted by the table
    assert not assert_same_ranking(qrels, run, 'float32')
    qrels = {'q': {'d1': 1, 'd5': 0, 'd50': 2}}  # 3 x 100 compared
    assert assert_same_ranking(qrels, run, 'float32')
    with mock.patch.object(ranking, 'TIE_PAIRS_PER_ROW', 0):
        assert not assert_same_ranking(qrels, run, 'float32')
    assert DictRun.of({}) is None and DictRun.of({'q': {}}) is None  # (read as an empty table)
    assert DictRun.of(irmeasures_ext.readers.inputs.InputDict(read_input(run, 'run'), 'score')) is None
    assert DictRun.of({f'q{i}': {f'd{j}': 1.0 for j in range(100)} for i in range(164)}) is None  # (too large)


def test_the_table_is_built_when_asked_for():
    run = {'q1': {'b': 1.0, 'a': 2}, 'q0': {}, 'q2': {'c': 0.5}}
    assert read_input(run, 'run').dict_run is None  # (kept as it is for a caller that ranks it at once)
    read = read_input(run, 'run', dict_run=True)
    assert read.dict_run is not None and 'table' not in vars(read)
    assert read.column_names == ['query_id', 'doc_id', 'score']
    assert read.table.equals(read_input([ir_measures.ScoredDoc(q, d, s) for q, docs in run.items()
                                         for d, s in docs.items()], 'run').table)
    assert read.query_ids().to_pylist() == ['q1', 'q2']
    assert read.query_starts.tolist() == [0, 2]


def test_unsorted_block_whose_keys_leave_no_bits_for_the_row():
    # 2**16 queries of 2 docs each, each listed by ascending score: (group, score, row) needs more than 64 bits
    groups = 1 << 16
    keys = ranking._group_score_keys(np.repeat(np.arange(groups), 2),
                                     np.tile(np.array([2, 1], dtype=np.uint32), groups))
    ordered, order = ranking._ordered(keys, np.full(groups, 2))
    assert np.array_equal(ordered, np.sort(keys)) and np.array_equal(keys[order], ordered)


@pytest.mark.parametrize('ids', [
    ['q2', 'q2', 'q10', 'q1', 'q10', 'q2', 'q\u00e4', 'q' * 20, 'q' * 20 + 'b', 'q' * 20],
    ['a'] * 5, ['b'], [],
])
def test_query_ids_numbered_as_arrow_numbers_them(ids):
    column = pa.chunked_array([pa.array(ids[:3], pa.string()), pa.array(ids[3:], pa.string())])
    expected = ac.sorted_unique(column)
    values, number = doc_ids.sorted_distinct(column)
    assert values.equals(expected) and number.tolist() == to_numpy(ac.index_in(column, expected)).tolist()
    with mock.patch.object(doc_ids, 'distinct', lambda ids: None):  # (two ids of one hash: Arrow's numbering)
        assert doc_ids.sorted_distinct(column)[1].tolist() == number.tolist()
    if ids:
        judgments = Judgments(pa.table({'query_id': column, 'doc_id': pa.array(['d'] * len(ids)),
                                        'relevance': pa.array([1] * len(ids))}))
        asked = pa.chunked_array([pa.array(['q2', 'nope', *ids], pa.string())])
        expected_index = to_numpy(ac.index_in(asked, judgments.query_ids)).astype(np.int64).tolist()
        assert judgments.query_index(asked).tolist() == expected_index
        judgments._cache['query lookup'] = None  # (two qrels queries of one hash: Arrow's lookup)
        assert judgments.query_index(asked).tolist() == expected_index


def test_query_ids_listed_in_the_qrels_order():
    ids = ['q1', 'q1', 'q10', 'q2', 'q2', 'q2', 'q0']
    judgments = Judgments(pa.table({'query_id': pa.array(ids), 'doc_id': pa.array([f'd{i}' for i in range(7)]),
                                    'relevance': pa.array([1] * 7)}))
    for asked in (['q1', 'q10', 'q2', 'q0'], ['q1', 'q10', 'q0', 'q2'], ['q1', 'q10', 'q2']):
        column = pa.chunked_array([pa.array(asked)])
        expected = to_numpy(ac.index_in(column, judgments.query_ids)).astype(np.int64).tolist()
        assert judgments.query_index(column).tolist() == expected


EVERY = [ir_measures.parse_measure(text) for text in [
    'AP', 'AP@5', 'P@10', 'R@5', 'Success@1', 'RR', 'RR@10', 'Rprec', 'nDCG', 'nDCG@5', 'NumRet', 'Q', 'nDCG_Z1@5',
    'MeanRank', 'MedianRank']]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dicts(), st.sampled_from(['trec_eval', 'optimistic', 'pessimistic', 'expected']),
       st.sampled_from(['float32', 'float64']))
def test_an_evaluator_gives_the_table_s_values(data, ties, precision):
    qrels, run = data
    evaluator = irmeasures_ext.provider.configured(ties, precision).evaluator(EVERY, qrels)
    def values():  # (NaN as text, so that == compares it)
        return {str(m): [repr(value) for value in v.tolist()] for m, v in evaluator.values(run).items()}

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert values() == as_table(values)


@pytest.mark.parametrize('sizes', [[100] * 100, [3, 1, 7, 100, 2], [5] * 7])
def test_keys_ordered_group_by_group_or_at_once(sizes):
    rng = np.random.default_rng(len(sizes))
    sizes = np.array(sizes)
    keys = ranking._group_score_keys(np.repeat(np.arange(len(sizes)), sizes),
                                     rng.integers(0, 50, sizes.sum()).astype(np.uint32))
    ordered, order = ranking._ordered(keys, sizes)
    assert np.array_equal(ordered, np.sort(keys)) and np.array_equal(keys[order], ordered)
