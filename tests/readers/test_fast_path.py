"""The columnar fast path (TREC file paths, DataFrames, Arrow tables) and the general path
(namedtuples, dict-of-dict) give bit-identical per-query values (``==``, not approx)."""
import gzip
import random
import tempfile
from pathlib import Path
from unittest import mock

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import NTCIREVAL, TREC_EVAL
from hypothesis import HealthCheck, assume, given, settings
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run

import irmeasures_ext  # noqa: F401  (registers the provider and measures)
from irmeasures_ext.engine import doc_ids, ranking

# Generated data often has no query in common between qrels and run, and lists a query's few docs in any
# score order: those warnings are expected here.
pytestmark = [pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning'),
              pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.ReversedScoresWarning')]


PROVIDER = ir_measures.providers.registry['irmeasures_ext']
MEASURES = [ir_measures.parse_measure(text) for text in [
    'AP', 'AP@5', 'AP(rel=2)', 'P@1', 'P@10', 'P(rel=2)@5', 'R@5', 'R@100', 'Success@1', 'Success@10', 'RR',
    'RR@10', 'RR(rel=3)', 'Rprec', 'nDCG', 'nDCG@5', 'nDCG(gains={0:0,1:1,2:5,3:9})', 'NumRel', 'NumRet',
    'NumRet(rel=1)', 'Q', 'Q@10', 'Q(beta=0)', 'Q(beta=0.5,gains={1:1,2:3,3:7})@20', 'nDCG_Z1@5',
    'nDCG_Z1(gains={1:1,2:3})@10', 'MeanRank', 'MedianRank']]


def per_query(qrels, run) -> dict:
    """Values by (measure, query); NaN (MeanRank of a run answering no qrels query) as 'NaN', so that
    ``==`` compares it."""
    return {(str(m.measure), m.query_id): 'NaN' if m.value != m.value else m.value
            for m in PROVIDER.iter_calc(MEASURES, qrels, run)}


def records(qrels: dict, run: dict) -> tuple[list, list]:
    """dict-of-dict qrels and run as lists of ir_measures namedtuples."""
    return ([ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
            [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()])


def write_trec(directory: Path, qrels: list, run: list, compress: bool = False) -> tuple[Path, Path]:
    """Writes TREC files with single spaces (the pyarrow reader's format), optionally gzipped."""
    opener, suffix = (gzip.open, '.gz') if compress else (open, '')
    qrels_path, run_path = directory / f'qrels.txt{suffix}', directory / f'run.txt{suffix}'
    with opener(qrels_path, 'wt', encoding='utf-8') as handle:
        handle.writelines(f'{q.query_id} 0 {q.doc_id} {q.relevance}\n' for q in qrels)
    with opener(run_path, 'wt', encoding='utf-8') as handle:
        handle.writelines(f'{r.query_id} Q0 {r.doc_id} {rank} {r.score!r} test\n' for rank, r in enumerate(run, 1))
    return qrels_path, run_path


def fast_forms(directory: Path, qrels: list, run: list) -> dict:
    """Every fast-path input form of the same qrels and run."""
    qrels_frame = pd.DataFrame({'query_id': [q.query_id for q in qrels], 'doc_id': [q.doc_id for q in qrels],
                                'relevance': [q.relevance for q in qrels]})
    run_frame = pd.DataFrame({'query_id': [r.query_id for r in run], 'doc_id': [r.doc_id for r in run],
                              'score': [r.score for r in run]})
    shuffled = run_frame.sample(frac=1.0, random_state=random.Random(len(run)).randrange(1 << 30))
    files = write_trec(directory, qrels, run)
    gzipped = write_trec(directory, qrels, run, compress=True)
    return {
        'path': tuple(map(str, files)),
        'pathlib': files,
        'gzip': tuple(map(str, gzipped)),
        'dataframe': (qrels_frame, run_frame),
        'dataframe, query rows not contiguous': (qrels_frame, shuffled),
        'pyterrier dataframe': (qrels_frame.rename(columns={'query_id': 'qid', 'doc_id': 'docno',
                                                            'relevance': 'label'}),
                                run_frame.rename(columns={'query_id': 'qid', 'doc_id': 'docno'})),
        'arrow': (pa.Table.from_pandas(qrels_frame, preserve_index=False),
                  pa.Table.from_pandas(run_frame, preserve_index=False)),
        # Chunk boundaries inside and between queries (file tables come in chunks too).
        'arrow, chunks of 3 rows': (pa.Table.from_pandas(qrels_frame, preserve_index=False),
                                    pa.Table.from_batches(pa.Table.from_pandas(run_frame, preserve_index=False)
                                                          .to_batches(max_chunksize=3))),
    }


def assert_all_forms_equal(directory: Path, qrels: list, run: list) -> None:
    expected = per_query(qrels, run)
    as_dicts = ({}, {})
    for q in qrels:
        as_dicts[0].setdefault(q.query_id, {})[q.doc_id] = q.relevance
    for r in run:
        as_dicts[1].setdefault(r.query_id, {})[r.doc_id] = r.score
    assert per_query(*as_dicts) == expected, 'dict-of-dict'
    for form, (qrels_input, run_input) in fast_forms(directory, qrels, run).items():
        assert per_query(qrels_input, run_input) == expected, form
    # The same values when ties are resolved by sorting, and when queries span many small blocks.
    files = tuple(map(str, write_trec(directory, qrels, run)))
    with mock.patch.object(ranking, 'TIE_PAIRS_PER_ROW', 0):
        assert per_query(*files) == expected, 'ties resolved by sorting'
    with mock.patch.object(ranking, '_BLOCK', 7):
        assert per_query(*files) == expected, 'blocks of 7 rows'


@pytest.mark.parametrize('qrels_file,run_file', [
    (NTCIREVAL / 'qrels.txt', NTCIREVAL / 'run.txt'),
    (TREC_EVAL / 'qrels.txt', TREC_EVAL / 'run.txt'),
])
def test_golden_files_all_forms_equal(tmp_path, qrels_file, run_file):
    qrels = list(ir_measures.read_trec_qrels(str(qrels_file)))
    run = list(ir_measures.read_trec_run(str(run_file)))
    assert per_query(str(qrels_file), str(run_file)) == per_query(qrels, run), 'original files'
    assert_all_forms_equal(tmp_path, qrels, run)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(INTEGER_OR_REAL_LABELS))
def test_generated_inputs_all_forms_equal(data):
    qrels, run = records(*data)
    assume(qrels and run)  # a TREC file needs at least one line
    with tempfile.TemporaryDirectory() as directory:
        assert_all_forms_equal(Path(directory), qrels, run)


def test_doc_ids_sharing_their_first_bytes(tmp_path):
    # Doc ids equal in their first 8 bytes are told apart (and ordered) on the whole string.
    ids = ['abcdefgh', 'abcdefgh1', 'abcdefgh2', 'abcdefg', 'abcdefgi', 'abcdefgh10', 'b', 'abcdefgh\u00e4']
    qrels = [ir_measures.Qrel('q', doc_id, label) for doc_id, label in [('abcdefgh1', 1), ('abcdefgh10', 2)]]
    run = [ir_measures.ScoredDoc('q', doc_id, 1.0) for doc_id in ids]
    assert_all_forms_equal(tmp_path, qrels, run)
    ranked = sorted(ids, reverse=True)  # all scores tie: doc_id descending
    values = per_query(qrels, run)
    assert values['RR', 'q'] == 1 / (1 + ranked.index('abcdefgh10'))
    assert values['NumRet(rel=1)', 'q'] == 2


def _repeats_by_definition(row_group: np.ndarray, doc_hash: np.ndarray) -> bool:
    pairs = list(zip(row_group.tolist(), doc_hash.tolist(), strict=True))
    return len(set(pairs)) != len(pairs)


def test_repeated_doc_check_against_its_definition():
    # Few distinct hashes and groups: keys collide in slots often, repeats are common or absent.
    rng = np.random.default_rng(7)
    outcomes = set()
    for n, n_hashes in [(1, 1), (2, 1), (2, 2), (3, 2), (50, 60), (300, 5000), (3000, 10**6), (3000, 10**9)]:
        for _ in range(20):
            row_group = np.sort(rng.integers(0, 4, n)).astype(np.uint64)
            doc_hash = rng.integers(0, n_hashes, n).astype(np.uint64) * np.uint64(0x9E37_79B9_7F4A_7C15)
            expected = _repeats_by_definition(row_group, doc_hash)
            assert ranking._has_repeated_doc(row_group, doc_hash) == expected, (n, n_hashes)
            outcomes.add(expected)
    assert outcomes == {True, False}
    # The same hash in two queries is no repeat; in one query it is.
    top = np.uint64(0xABCD_EF01) << np.uint64(32)
    assert not ranking._has_repeated_doc(np.array([0, 1], np.uint64), np.array([top, top], np.uint64))
    assert ranking._has_repeated_doc(np.array([1, 1], np.uint64), np.array([top, top], np.uint64))


def test_repeated_doc_check_when_every_key_shares_a_slot(monkeypatch):
    # A multiplier of 0 puts every key in slot 0: one row wins, the rest are left for the sort.
    monkeypatch.setattr(doc_ids, '_SLOT_MULTIPLIERS', (np.uint64(0),))  # (doc_ids.has_repeats' multipliers)
    group = np.zeros(4, dtype=np.uint64)
    assert not ranking._has_repeated_doc(group, np.array([1, 2, 3, 4], np.uint64))
    assert ranking._has_repeated_doc(group, np.array([1, 2, 3, 2], np.uint64))  # a repeat of a loser
    assert ranking._has_repeated_doc(group, np.array([3, 3, 1, 2], np.uint64))
    assert ranking._has_repeated_doc(group, np.array([5, 6, 7, 5], np.uint64))
    assert ranking._has_repeated_doc(group, np.array([9, 8, 8, 7], np.uint64))  # twins beside the winner
    # Two rounds: twins that both lost round one meet again in round two.
    monkeypatch.setattr(doc_ids, '_SLOT_MULTIPLIERS', (np.uint64(0), np.uint64(0)))
    assert ranking._has_repeated_doc(group, np.array([9, 8, 8, 7], np.uint64))
    assert not ranking._has_repeated_doc(group, np.array([9, 8, 6, 7], np.uint64))


def test_duplicate_doc_is_reported_on_every_path(tmp_path):
    qrels = [ir_measures.Qrel('1', 'a', 1)]
    run = [ir_measures.ScoredDoc('1', 'a', 1.0), ir_measures.ScoredDoc('1', 'b', 2.0),
           ir_measures.ScoredDoc('1', 'a', 3.0)]
    for form, (qrels_input, run_input) in {'namedtuples': (qrels, run), **fast_forms(tmp_path, qrels, run)}.items():
        with pytest.raises(irmeasures_ext.InputError) as error:
            per_query(qrels_input, run_input)
        if isinstance(run_input, (str, Path)):  # a file: its line is named
            assert str(error.value) == f"{run_input}:3: duplicate doc 'a' in query '1' (first at line 1)", form
        else:
            assert str(error.value) == ("run: duplicate doc 'a' in query '1' (2 times); each doc may appear once "
                                        'per query'), form


def test_long_doc_ids_are_hashed_whole(tmp_path):
    """Ids longer than the word-by-word hash's limit, equal but for their last byte, stay apart."""
    stem = 'x' * 5000
    ids = [stem + 'a', stem + 'b', stem + 'c', 'short']
    qrels = [ir_measures.Qrel('q', stem + 'b', 1)]
    run = [ir_measures.ScoredDoc('q', doc_id, 1.0) for doc_id in ids]  # all tie: doc_id descending
    assert_all_forms_equal(tmp_path, qrels, run)
    assert per_query(qrels, run)['RR', 'q'] == 1 / 2  # byte-wise descending: stem+'c', stem+'b', ...
