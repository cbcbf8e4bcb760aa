"""The ranking and what it stands on, against pytrec_eval or the plain references: the qrels index
(identical repeated lines), scores at the edges of both precisions (-0.0, differences below one ulp of 1),
doc ids (trailing NUL bytes, hashes and heads, ids whose hashes collide), the query blocks ranked on
threads, and the evaluator's own read of a run."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
import reference

import irmeasures_ext
from irmeasures_ext import MeanRank, evaluation
from irmeasures_ext.engine import ranking
from irmeasures_ext.engine.doc_ids import DocIds, pair_keys
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.errors import DuplicateDocError, InputError

FLOAT64 = irmeasures_ext.provider.configured(score_precision='float64')


def pytrec_eval_values(qrels: dict, run: dict, measures: set[str]) -> dict[str, dict[str, float]]:
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


# --- the qrels index --------------------------------------------------------------------------------------------------

def test_identical_repeated_qrels_lines_count_once():
    """A qrels line given twice is one judgment: R = 2 (not 3) for AP and nDCG, as pytrec_eval on the
    deduplicated qrels (a dict-of-dict cannot repeat a line) has it."""
    qrels = [ir_measures.Qrel('q1', 'a', 1), ir_measures.Qrel('q1', 'a', 1), ir_measures.Qrel('q1', 'b', 2),
             ir_measures.Qrel('q2', 'c', 1)]
    run = {'q1': {'x': 3.0, 'a': 2.0, 'y': 1.0}, 'q2': {'c': 1.0}}
    want = pytrec_eval_values({'q1': {'a': 1, 'b': 2}, 'q2': {'c': 1}}, run, {'map', 'ndcg'})
    got = {(m.measure, m.query_id): m.value
           for m in irmeasures_ext.provider.iter_calc([ir_measures.AP, ir_measures.nDCG], qrels, run)}
    assert got == pytest.approx({(measure, query): want[query][name] for query in want
                                 for measure, name in ((ir_measures.AP, 'map'), (ir_measures.nDCG, 'ndcg'))}, abs=1e-12)
    assert want['q1']['map'] == pytest.approx(0.25)  # a at rank 2, R = 2: (1/2) / 2


# --- scores -----------------------------------------------------------------------------------------------------------

def test_negative_zero_ties_with_zero_in_float32():
    """-0.0 == 0.0: the two docs tie and 'b' (the greater doc_id) ranks first, as in pytrec_eval."""
    qrels, run = {'q': {'a': 1}}, {'q': {'a': 0.0, 'b': -0.0}}
    want = pytrec_eval_values(qrels, run, {'recip_rank'})['q']['recip_rank']
    assert want == 0.5 == reference.reciprocal_rank(reference.trec_ranking(run['q']), qrels['q'])
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == want


def test_negative_zero_ties_with_zero_in_float64():
    qrels, run = {'q': {'a': 1}}, {'q': {'a': 0.0, 'b': -0.0}}
    assert FLOAT64.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == 0.5  # ranking b, a


@pytest.mark.parametrize('precision', ['float32', 'float64'])
def test_scores_that_differ_below_one_ulp_of_one_are_ordered(precision):
    """2e-20 > 1e-20 as float64 and as float32: 'a' ranks first, so the relevant 'b' is second (pytrec_eval
    agrees). Shifted by 1.0 before the comparison they would tie and 'b' would rank first."""
    qrels, run = {'q': {'b': 1}}, {'q': {'a': 2e-20, 'b': 1e-20}}
    want = pytrec_eval_values(qrels, run, {'recip_rank'})['q']['recip_rank']
    assert want == 0.5
    provider = irmeasures_ext.provider.configured(score_precision=precision)
    assert provider.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == want


# --- doc ids ----------------------------------------------------------------------------------------------------------

def test_a_doc_id_with_a_trailing_nul_is_not_the_judged_doc():
    """'a\\0' and 'a' share their first 8 bytes (zero-padded) and so their hash: only 'a' is judged. (pytrec_eval
    reads C strings, so the reference is the plain one.)"""
    qrels, scores = {'a': 1}, {'a\x00': 3.0, 'b': 2.0, 'a': 1.0}
    ranking = reference.trec_ranking(scores)
    want = {ir_measures.P @ 1: reference.precision(ranking, qrels, 1), ir_measures.RR: reference.reciprocal_rank(
        ranking, qrels)}
    assert want == {ir_measures.P @ 1: 0.0, ir_measures.RR: 1 / 3}
    assert irmeasures_ext.provider.calc_aggregate(list(want), {'q': qrels}, {'q': scores}) == pytest.approx(want)


# Ids chosen offline (by inverting the 64-bit id hash of irmeasures_ext.engine.doc_ids): the values asserted come
# from the definitions alone; the choice only makes the engine's hash shortcuts meet the strings' comparison.
# Two 24-byte ids sharing their first 8 bytes, their length and their hash: only a string comparison tells them apart.
SAME_HASH = ('doc-0000uypfwLDIJEu370zG', 'doc-0000iz27P6JBuScLTFIR')
# Two 8-byte ids whose hashes are below 2**32 (the smallest keys of their query), colliding on their top 32 bits.
SMALL_HASHES = ('jbsq8owu', 'fdrIEPp8')


def test_the_ids_chosen_share_what_they_are_said_to():
    """The fixtures above still meet the hash as chosen (a change of the hash needs them chosen again)."""
    same = DocIds.of(pa.chunked_array([pa.array(SAME_HASH)]))
    assert same.hash[0] == same.hash[1] and same.head[0] == same.head[1] and same.length.tolist() == [24, 24]
    small = DocIds.of(pa.chunked_array([pa.array(SMALL_HASHES)])).hash
    assert small[0] != small[1] and (small < 2 ** 32).all()


def test_a_doc_id_with_the_hash_of_a_judged_doc_is_not_judged():
    judged, other = SAME_HASH
    qrels, scores = {judged: 1}, {other: 2.0, 'x': 1.0}
    want = reference.reciprocal_rank(reference.trec_ranking(scores), qrels)
    assert want == 0.0
    got = irmeasures_ext.provider.calc_aggregate([ir_measures.RR, ir_measures.P @ 1], {'q': qrels}, {'q': scores})
    assert got == {ir_measures.RR: 0.0, ir_measures.P @ 1: 0.0}


def test_a_duplicate_doc_is_found_among_docs_whose_hashes_collide():
    """The run repeats 'dup'; two other docs share the top 32 bits of their hashes (a false alarm to rule out)."""
    run = [ir_measures.ScoredDoc('q', doc, score) for doc, score in
           ((SMALL_HASHES[0], 4.0), ('dup', 3.0), (SMALL_HASHES[1], 2.0), ('dup', 1.0))]
    with pytest.raises(irmeasures_ext.InputError, match=r"^run: duplicate doc 'dup' in query 'q' \(2 times\)"):
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {'q': {'dup': 1}}, run)
    distinct = [ir_measures.ScoredDoc('q', doc, 1.0) for doc in (*SMALL_HASHES, *SAME_HASH)]
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {'q': {'dup': 1}}, distinct) == {
        ir_measures.AP: 0.0}


def test_doc_id_hashes_depend_on_every_byte():
    """Ids that differ in one byte, wherever it is, hash differently: at every position of ids of 1 to 40
    bytes, and at the first, ninth, middle and last byte of ids around 256 bytes (where hashing switches
    to blake2b). The engine tells docs apart by hash first and compares strings only on a match: a hash
    blind to some bytes stays correct but makes ids sharing long prefixes (MS MARCO, ClueWeb) collide en
    masse, each collision a string comparison."""
    def variants(length: int, positions) -> list[str]:
        base = 'x' * length
        return [base] + [base[:p] + 'y' + base[p + 1:] for p in positions]
    ids = [doc for length in range(1, 41) for doc in variants(length, range(length))]
    ids += [doc for length in (255, 256, 257, 1000) for doc in variants(length, (0, 8, length // 2, length - 1))]
    hashes = DocIds.of(pa.chunked_array([pa.array(ids)])).hash
    assert len(set(hashes.tolist())) == len(ids)


def test_doc_ids_that_differ_in_the_last_byte_of_two_words_hash_apart():
    """ClueWeb09 ids that differ in their 16th and 24th bytes, the last of their second and third 8-byte words
    (clueweb09-en0079-13-00702 and -en0077-13-00722 shared a hash before the chain folded each word's top bytes
    down: about one such pair in 100), hash apart: 5,000 seeded pairs, and that one."""
    rng = np.random.default_rng(65)
    ids = [f'clueweb09-en{a:04d}-{b:02d}-{c:05d}' for a, b, c in zip(rng.integers(0, 10 ** 4, 5000),
                                                                    rng.integers(0, 100, 5000),
                                                                    rng.integers(0, 10 ** 5, 5000), strict=True)]
    def moved(doc: str) -> str:  # (the 16th and 24th bytes, digits, another digit each)
        return doc[:15] + str((int(doc[15]) + 1 + int(rng.integers(9))) % 10) + doc[16:23] + str(
            (int(doc[23]) + 1 + int(rng.integers(9))) % 10) + doc[24:]
    pairs = [(doc, moved(doc)) for doc in ids] + [('clueweb09-en0079-13-00702', 'clueweb09-en0077-13-00722')]
    assert all(a != b for a, b in pairs)
    hashes = DocIds.of(pa.chunked_array([pa.array([doc for pair in pairs for doc in pair])])).hash.reshape(-1, 2)
    assert not np.any(hashes[:, 0] == hashes[:, 1])


def test_doc_id_heads_are_the_first_eight_bytes_at_every_alignment():
    """An id's head is its first 8 bytes (little-endian, zero-padded): compared for equality and, byte-
    swapped, for trec_eval's doc_id tie order. Ids start at every byte offset of the Arrow buffer here,
    with bytes >= 0x80 (UTF-8) that a read shifted by one bit would confuse with ASCII ones."""
    ids = [prefix + doc for prefix in ('', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg')
           for doc in ('éé', 'éC)', 'x€y', 'Ω', 'zzzzzzzzzz')]
    heads = DocIds.of(pa.chunked_array([pa.array(ids)])).head
    assert heads.tolist() == [int.from_bytes(doc.encode()[:8].ljust(8, b'\0'), 'little') for doc in ids]


def test_pair_keys_of_distinct_pairs_are_distinct():
    """pair_keys mixes the query index into the doc's hash and mixes the result with a bijection: the
    same 1,000 docs in each of 64 queries give 64,000 distinct keys (a chance collision of 64-bit keys
    has odds of about 1e-10 here)."""
    query = np.repeat(np.arange(64), 1000)
    doc_hash = np.tile(DocIds.of(pa.chunked_array([pa.array([f'd{i}' for i in range(1000)])])).hash, 64)
    assert len(set(pair_keys(query, doc_hash).tolist())) == 64_000


# --- query blocks -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('block', [1 << 17, 150])
def test_ranked_rows_come_by_query_then_rank_across_blocks(monkeypatch, block):
    """With many judged docs per query, the ranked rows are ordered by query index, then rank, whatever
    the blocks: each block sorts its rows and the blocks are merged stably by query (a sort that is not
    stable would scramble ranks within a query once there are more than 16 rows). Values agree with
    pytrec_eval."""
    monkeypatch.setattr(ranking, '_BLOCK', block)
    rng = np.random.default_rng(5)
    queries = [f'q{i}' for i in rng.permutation(30)]  # run order differs from the qrels' sorted order
    qrels = {q: {f'd{j}': int(rng.integers(0, 4)) for j in range(60)} for q in queries}
    run = {q: {f'd{j}': float(rng.integers(0, 20)) for j in range(80)} for q in queries}  # many score ties
    rows = [(q, d, s) for q in queries for d, s in run[q].items()]
    table = pa.table({'query_id': [r[0] for r in rows], 'doc_id': [r[1] for r in rows], 'score': [r[2] for r in rows]})
    judged = [(q, d, label) for q in queries for d, label in qrels[q].items()]
    judgments = Judgments(pa.table({'query_id': [j[0] for j in judged], 'doc_id': [j[1] for j in judged],
                                    'relevance': pa.array([j[2] for j in judged], pa.int64())}))
    ranked = ranking.rank_run(table, judgments)
    assert len(ranked.query) == 30 * 60 and np.all(np.diff(ranked.query) >= 0)
    same_query = np.diff(ranked.query) == 0
    assert np.all(np.diff(ranked.rank)[same_query] > 0)
    want = pytrec_eval_values(qrels, run, {'map', 'ndcg'})
    got = {(m.measure, m.query_id): m.value
           for m in irmeasures_ext.provider.iter_calc([ir_measures.AP, ir_measures.nDCG], qrels, run)}
    assert got == pytest.approx({(measure, q): want[q][name] for q in want
                                 for measure, name in ((ir_measures.AP, 'map'), (ir_measures.nDCG, 'ndcg'))}, abs=1e-12)


def test_blocks_are_shared_by_the_calling_thread_and_the_pool():
    both_started = threading.Barrier(2, timeout=10)  # each of two threads must take one of the two items

    def where(item: int) -> tuple[int, threading.Thread]:
        both_started.wait()
        return item, threading.current_thread()
    results = ranking._on_threads_with_caller(where, [1, 2], 2)
    assert sorted(item for item, _ in results) == [1, 2]
    assert {thread for _, thread in results} - {threading.current_thread()} != set()
    assert threading.current_thread() in {thread for _, thread in results}


def test_one_thread_ranks_every_block_on_the_calling_thread():
    results = ranking._on_threads_with_caller(lambda item: (item, threading.current_thread()), list(range(5)), 1)
    assert sorted(item for item, _ in results) == list(range(5))
    assert {thread for _, thread in results} == {threading.current_thread()}


@pytest.mark.parametrize('chunk_size', [1, 2, 3, 100])
def test_query_starts_are_the_rows_whose_query_differs_from_the_row_before(chunk_size):
    """The two halves of the rows are compared on two threads: whatever the length (from one row), the
    chunks and where the queries change (at the half, either side of it, nowhere), the starts are those
    a plain loop finds, as int64 row numbers."""
    rng = np.random.default_rng(7)
    with ThreadPoolExecutor(1) as helper:
        for n in range(1, 12):
            for _ in range(20):
                ids = [f'q{value}' for value in rng.integers(0, 3, n)]
                column = pa.chunked_array([ids[i:i + chunk_size] for i in range(0, n, chunk_size)], pa.string())
                starts = ranking._query_starts(column, helper)
                assert starts.dtype == np.int64
                assert starts.tolist() == [i for i in range(n) if i == 0 or ids[i] != ids[i - 1]]


# --- the evaluator's reads --------------------------------------------------------------------------------------------

def test_an_evaluator_reads_a_run_it_is_given_as_a_run_with_its_rank_column(tmp_path):
    """The evaluator's own read (not the provider's): the rank column when a measure ranks by it, and
    errors naming the run."""
    (tmp_path / 'qrels').write_text('q 0 a 1\n')
    (tmp_path / 'run').write_text('q Q0 a 2 9 t\nq Q0 b 1 1 t\n')  # a first by score, second by rank
    evaluator = irmeasures_ext.provider.evaluator([MeanRank(ties='rank'), MeanRank], str(tmp_path / 'qrels'))
    assert evaluator.calc_aggregate(str(tmp_path / 'run')) == {MeanRank(ties='rank'): 2.0, MeanRank: 1.0}
    with pytest.raises(InputError, match='^tie policy "rank" needs the run\'s ranks, which a dict-of-dict does not'):
        evaluator.calc_aggregate({'q': {'a': 1.0}})
    repeated = pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'a'], 'score': [1.0, 2.0]})
    with pytest.raises(DuplicateDocError, match="^run: duplicate doc 'a' in query 'q'"):
        irmeasures_ext.provider.evaluator([MeanRank], {'q': {'a': 1}}).calc_aggregate(repeated)


def test_without_measures_of_ours_the_run_is_still_checked_and_the_qrels_passed_on():
    """nDCG with gains and judged_only (which our provider leaves to others) goes to ir_measures' pipeline, which
    gets the qrels as our evaluator read them; our evaluator, with no measure, still checks the run."""
    qrels, run = {'q': {'a': 1, 'b': 0}}, {'q': {'a': 2.0, 'b': 1.0, 'x': 0.5}}
    judged = ir_measures.nDCG(gains={0: 0, 1: 1}, judged_only=True)
    assert not irmeasures_ext.provider.supports(judged)
    assert evaluation.evaluate([judged], qrels, run, irmeasures_ext.provider).aggregates() == {judged: 1.0}
    repeated = pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'a'], 'score': [1.0, 2.0]})
    with pytest.raises(DuplicateDocError, match="^run: duplicate doc 'a' in query 'q'"):
        evaluation.evaluate([judged], qrels, repeated, irmeasures_ext.provider)


def test_a_judgment_column_beside_the_label_follows_every_row():
    """Judgments are a column set: a qrels column beyond the label (here a code naming each qrels line, as a
    per-intent label would be) reaches the ranked rows with their doc, and stays with them through the top k
    and the transforms that drop or reorder rows."""
    from irmeasures_ext.engine import transforms
    qrels = pa.table({'query_id': ['q1', 'q1', 'q1', 'q2', 'q2', 'q3'], 'doc_id': ['a', 'b', 'c', 'a', 'd', 'e'],
                      'relevance': [1, 0, 2, 1, -1, 1], 'line': [10, 11, 12, 13, 14, 15]})
    run = pa.table({'query_id': ['q1', 'q1', 'q1', 'q1', 'q2', 'q2', 'q9'],
                    'doc_id': ['x', 'c', 'a', 'b', 'd', 'a', 'e'], 'score': [4.0, 3.0, 3.0, 1.0, 2.0, 2.0, 1.0]})
    judgments = Judgments(qrels)
    assert list(judgments.columns) == ['line'] and judgments.equivalence_class is None
    ranked = ranking.rank_run(run, judgments)
    # by hand: q1 ranks x (unjudged), c and a tied at 3.0 (c first: doc ids descending), b; q2: d before a
    assert ranked.judged['line'].tolist() == [12, 10, 11, 14, 13]
    assert ranked.rank.tolist() == [2, 3, 4, 1, 2]
    line_of = {(query, rank): line for query, rank, line in zip(ranked.query.tolist(), ranked.rank.tolist(),
                                                                ranked.judged['line'].tolist(), strict=True)}
    for listed in (ranked.top(2), transforms.truncated(ranked, 3), ranked.rows(ranked.label > 0)):
        assert listed.judged['line'].tolist() == [line_of[key] for key in zip(listed.query.tolist(),
                                                                              listed.rank.tolist(), strict=True)]
    assert ranked.top(2).judged['line'].tolist() == [12, 14, 13]
    assert ranked.without_rows(ranked.n_retrieved, ranked.run_queries).judged['line'].tolist() == []
