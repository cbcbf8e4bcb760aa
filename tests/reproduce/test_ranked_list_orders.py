"""The orders the ranked-list statistics read runs in, against plain Python sorts written from their definitions:
trec_eval's (score descending as float32, then doc id descending byte-wise), repro_eval's file order (adjacent equal
scores by doc id descending) and each list's doc ids ascending; on doc ids that share their first 8 bytes, hold NUL
bytes or non-ASCII characters, where the fast paths (integer keys, the ids' first 8 bytes) must give way to the
strings."""
import itertools
import random

import numpy as np
import pyarrow as pa
import pytest

import irmeasures_ext
from irmeasures_ext import reproduce
from irmeasures_ext.engine.doc_ids import DocIds
from irmeasures_ext.errors import InputError
from irmeasures_ext.reproduce.agreement import RankedLists

AWKWARD_IDS = ['', 'a', 'a\x00', 'a\x00\x00', 'ab', 'abcdefgh', 'abcdefgh\x00', 'abcdefghi', 'abcdefghj',
               'abcdefgha-long-tail', 'abcdefgh-2', 'abcdefgh-10', 'é', 'éa', 'z', '\U0001F600', 'FBIS3-10082',
               'FBIS3-10083', 'FBIS3-1008', 'clueweb09-en0000-00-00001', 'clueweb09-en0000-00-00002']


def random_ids(rng, n):
    """``n`` distinct ids: the awkward ones, then long ids sharing long prefixes."""
    ids = list(AWKWARD_IDS)
    while len(ids) < n:
        ids.append(rng.choice(['doc', 'clueweb09-en00', 'D']) + str(rng.randint(0, 10 ** rng.randint(1, 12))))
        ids = list(dict.fromkeys(ids))
    return rng.sample(ids, n)


@pytest.mark.parametrize('prefix', ['', 'clueweb09-en0000-'])  # (the ids' heads: distinct, or all equal)
@pytest.mark.parametrize('descending', [False, True])
@pytest.mark.parametrize('seed', range(10))
def test_doc_ids_ordered_within_groups_as_their_utf8_bytes(seed, descending, prefix):
    rng = random.Random(seed)
    ids = [prefix + id_ for id_ in random_ids(rng, 60)]
    docs = DocIds.of(pa.chunked_array([pa.array(ids[:25]), pa.array(ids[25:])]))
    sizes = [0, 1, 2, 2, 20, 3, 2, 2, 28]  # (groups of two are swapped where out of order, longer ones sorted)
    rows = np.array(rng.sample(range(60), 60))
    ordered = docs.order_within(rows.copy(), np.array(sizes), descending=descending).tolist()
    start = 0
    for size in sizes:
        group = rows[start:start + size].tolist()
        expected = sorted(group, key=lambda row: ids[row].encode(), reverse=descending)
        assert ordered[start:start + size] == expected
        start += size
    if not descending:  # (the default)
        assert docs.order_within(rows.copy(), np.array(sizes)).tolist() == ordered


@pytest.mark.parametrize('prefix', ['', 'clueweb09-en0000-'])
@pytest.mark.parametrize('seed', range(5))
def test_doc_ids_taken_read_their_strings_through_the_rows_taken(seed, prefix):
    rng = random.Random(seed)
    ids = [prefix + id_ for id_ in random_ids(rng, 60)]
    docs = DocIds.of(pa.chunked_array([pa.array(ids[:25]), pa.array(ids[25:])]))
    first = np.array([rng.randrange(60) for _ in range(80)])  # (rows repeat: a take of a take, as _Side.of takes)
    second = np.array(rng.sample(range(80), 50))
    taken = docs.take(first).take(second)
    held = [ids[row] for row in first[second]]
    assert taken.strings().to_pylist() == held and docs.strings().to_pylist() == ids
    a, b = np.array([rng.randrange(50) for _ in range(200)]), np.array([rng.randrange(50) for _ in range(200)])
    other = DocIds.of(pa.chunked_array([pa.array(held[::-1])]))
    assert taken.equal(a, other, b).tolist() == [held[i] == held[::-1][j] for i, j in zip(a, b, strict=True)]
    assert other.equal(b, taken, a).tolist() == [held[::-1][j] == held[i] for i, j in zip(a, b, strict=True)]
    assert taken.greater(a, b).tolist() == [held[i].encode() > held[j].encode() for i, j in zip(a, b, strict=True)]
    rows = np.array(rng.sample(range(50), 50))
    sizes = [0, 3, 2, 2, 13, 30]
    ordered = taken.order_within(rows.copy(), np.array(sizes)).tolist()
    starts = np.cumsum([0, *sizes])
    assert ordered == [row for start, end in itertools.pairwise(starts)
                       for row in sorted(rows[start:end].tolist(), key=lambda row: held[row].encode())]


def test_equal_heads_in_two_groups_side_by_side_are_ordered_within_each():
    # (the last head of the first group, ascending, equals the first of the next: their strings sorted apart)
    ids = ['a1', 'a2', 'zzzzzzzz-2', 'zzzzzzzz-1', 'zzzzzzzz-3', 'zzzzzzzzzz']
    docs = DocIds.of(pa.chunked_array([pa.array(ids)]))
    assert docs.order_within(np.arange(6), np.array([3, 3])).tolist() == [0, 1, 2, 3, 4, 5]
    assert docs.order_within(np.arange(6), np.array([3, 3]), descending=True).tolist() == [2, 1, 0, 5, 4, 3]


def trec_eval_order(lines):
    """Each topic's docs by score descending as float32, then doc id descending byte-wise."""
    lists = {}
    for topic, doc, score in lines:
        lists.setdefault(topic, []).append((np.float32(score), doc.encode(), doc))
    return {topic: [doc for _, _, doc in sorted(docs, reverse=True)] for topic, docs in lists.items()}


def file_order(lines):
    """Each topic's docs in file order, each run of adjacent equal scores by doc id descending byte-wise."""
    runs = {}
    for topic, doc, score in lines:
        topic_runs = runs.setdefault(topic, [])
        if topic_runs and topic_runs[-1][0] == score:
            topic_runs[-1][1].append(doc)
        else:
            topic_runs.append((score, [doc]))
    return {topic: [doc for _, docs in topic_runs for doc in sorted(docs, key=str.encode, reverse=True)]
            for topic, topic_runs in runs.items()}


@pytest.mark.parametrize('seed', range(15))
def test_ranked_lists_equal_plain_sorts_on_interleaved_topics_ties_and_awkward_ids(seed, tmp_path):
    rng = random.Random(seed)
    lines = []
    for topic in rng.sample(['1', '2', '10', 'b', 'a1'], rng.randint(1, 5)):
        scores = [rng.choice([1.0, 2.0, 1.0 + 1e-9, 0.5, -0.0, 0.0, 3e38]) for _ in range(40)]
        prefix = 'clueweb09-en0000-' if seed % 3 == 0 else ''  # (every id's head the same: strings sorted)
        lines += [(topic, prefix + doc, score) for doc, score in zip(random_ids(rng, 40), scores, strict=True)]
    if seed % 2:  # (the topics' lines interleaved, each topic's in its order)
        lines = [line for _, line in sorted(enumerate(lines), key=lambda numbered: numbered[0] % 7)]
    readable = [(topic, doc, score) for topic, doc, score in lines if doc and doc.isprintable()]  # (a file's)
    path = tmp_path / 'run.txt'
    path.write_text(''.join(f'{topic} Q0 {doc} 0 {score!r} r\n' for topic, doc, score in readable), encoding='utf-8')
    assert reproduce.ranked_lists(path) == trec_eval_order(readable)
    assert reproduce.ranked_lists(path, order='file') == file_order(readable)
    as_dicts = {}
    for topic, doc, score in lines:  # (every id, the empty one and NUL bytes included, through a dict run)
        as_dicts.setdefault(topic, {})[doc] = score
    assert RankedLists.of(as_dicts).as_dict() == trec_eval_order(lines)
    assert RankedLists.of(as_dicts, length=3).as_dict() == {topic: docs[:3]
                                                           for topic, docs in trec_eval_order(lines).items()}


@pytest.mark.parametrize('score', ['nan', 'inf', '-inf'])
def test_a_score_that_is_not_finite_is_refused_as_the_provider_refuses_it(score, tmp_path):
    path = tmp_path / 'run.txt'
    path.write_text(f'1 Q0 a 1 3.0 r\n1 Q0 b 2 {score} r\n1 Q0 c 3 1.0 r\n')
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('1 0 a 1\n')
    for run, error in ((path, rf"run\.txt:2: score '{score}' is not finite"),
                       ({'1': {'a': 2.0, 'b': float(score)}}, rf"score {score} for doc 'b' in query '1' is not a")):
        with pytest.raises(InputError, match=error) as provider_s:
            irmeasures_ext.provider.calc_aggregate(['AP'], str(qrels), run)
        with pytest.raises(type(provider_s.value), match=error):
            reproduce.ranked_lists(run)


@pytest.mark.parametrize('bad_line, error', [('2 Q0 x 2 2.0 r', r"run\.txt:4: duplicate doc 'x' in query '2'"),
                                             ('2 Q0 y 2 nan r', r"run\.txt:4: score 'nan' is not finite")])
def test_a_run_the_provider_evaluated_is_not_checked_again_and_one_it_refused_is(bad_line, error, tmp_path,
                                                                                monkeypatch):
    # (the bad line in a query the qrels lack: the provider checks every line, not only the judged queries')
    from irmeasures_ext.engine import ranking
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.readers.inputs import read_input
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('1 0 a 1\n')
    good, bad = tmp_path / 'good.txt', tmp_path / 'run.txt'
    good.write_text('1 Q0 a 1 3.0 r\n1 Q0 b 2 1.0 r\n2 Q0 x 1 5.0 r\n')
    bad.write_text(f'1 Q0 a 1 3.0 r\n1 Q0 b 2 1.0 r\n2 Q0 x 1 5.0 r\n{bad_line}\n')
    evaluation = Evaluation(list(irmeasures_ext.plugin.measures_of(['AP'])), irmeasures_ext.plugin.provider)
    evaluation.read_qrels(str(qrels))
    read_good, read_bad = read_input(good, 'run'), read_input(bad, 'run')
    evaluation.results(read_good)
    with pytest.raises(InputError, match=error):
        evaluation.results(read_bad)
    assert (read_good.checked, read_bad.checked) == (True, False)
    checks = []
    monkeypatch.setattr(ranking, 'check_run', lambda *args, **kwargs: checks.append(args))
    assert RankedLists.of(read_good).as_dict() == {'1': ['a', 'b'], '2': ['x']} and not checks
    monkeypatch.undo()
    with pytest.raises(InputError, match=error):
        RankedLists.of(read_bad)


def test_a_dict_run_is_checked_by_the_lists_though_the_provider_ranked_it():
    # (the provider ranks a small dict-of-dict from its dicts, and takes a dict's keys as distinct: the lists check the
    # table they read, built from the dicts when first asked for)
    from irmeasures_ext.errors import DuplicateDocError, NonFiniteScoreError
    from irmeasures_ext.evaluation import Evaluation
    evaluation = Evaluation(list(irmeasures_ext.plugin.measures_of(['P@1'])), irmeasures_ext.plugin.provider)
    run = {'q1': {'a': 1.0, 'b': 0.5}}
    read = evaluation.read_qrels({'q1': {'a': 1}}, run)
    evaluation.results(read)
    assert not read.checked
    run['q1']['c'] = float('nan')  # (changed after the evaluation, before the table is built)
    with pytest.raises(NonFiniteScoreError, match="score nan for doc 'c' in query 'q1' is not a finite number"):
        RankedLists.of(read)

    class SameText(str):  # (a key equal to 'a' that a dict keeps beside it)
        __hash__ = object.__hash__

    twice = {'q1': {'a': 2.0, SameText('a'): 1.0, 'b': 0.5}}
    read = evaluation.read_qrels({'q1': {'a': 1}}, twice)
    evaluation.results(read)
    assert not read.checked
    with pytest.raises(DuplicateDocError, match="duplicate doc 'a' in query 'q1'"):
        RankedLists.of(read)


def big_endian_heads(ids):
    """Each id's first 8 bytes, zero-padded, as a big-endian integer (byte order)."""
    return np.array([int.from_bytes(id_.encode()[:8].ljust(8, b'\0'), 'big') for id_ in ids], dtype=np.uint64)


@pytest.mark.parametrize('ids, shared', [(['clueweb09-en0000-1', 'clueweb09-en0000-2'], 8),
                                         (['clueweb0', 'clueweb1'], 7),
                                         (['doc_12', 'doc_13', 'doc_2'], 4), (['ab', 'ac'], 1), (['a', 'b'], 0),
                                         (['\x80', '\x00'], 0), (['abc'], 8), ([], 8)])
def test_shared_bytes_counts_the_leading_bytes_every_head_shares(ids, shared):
    from irmeasures_ext.engine.doc_ids import _shared_bytes
    assert _shared_bytes(big_endian_heads(ids)) == shared


def test_ranked_lists_copy_no_doc_id_string_until_asked_for_them_in_rank_order():
    from irmeasures_ext.readers.inputs import read_input
    read = read_input({'1': {f'doc{i}': float(i) for i in range(50)}, '2': {'x': 1.0}}, 'run')
    lists = RankedLists.of(read, length=40)
    run_strings = read.table['doc_id'].chunk(0).buffers()[2].address
    assert lists.doc_ids.ids.chunk(0).buffers()[2].address == run_strings  # (the run's strings, in its order)
    assert lists.doc.to_pylist() == [f'doc{i}' for i in range(49, 9, -1)] + ['x']
    assert lists.doc is lists.doc  # (taken once)
