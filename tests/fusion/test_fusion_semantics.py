"""What irmeasures_ext.fusion decides where ranx 0.3.21 has a defect or no answer (the package's docstring), each
tested on its own, against ranx's recorded outputs (tests/data/ranx_fusion) where it has one: runs answering
different query sets, zmuv with an empty query, Condorcet independent of the hash seed, the order of tied docs,
CombMAX; then the input forms and the errors."""
import gzip
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import DATA

from irmeasures_ext.errors import DuplicateDocError, InputError, NonFiniteScoreError
from irmeasures_ext.fusion import METHODS, SUPERVISED, FusionError, fuse, normalized, train
from irmeasures_ext.fusion.trained import UNRANKED_LOG_ODDS
from irmeasures_ext.ir_metadata import write_run

FOLDER = DATA / 'ranx_fusion'
REFERENCE = json.loads(gzip.decompress((FOLDER / 'reference.json.gz').read_bytes()))
INPUT_ORDER = json.loads(gzip.decompress((FOLDER / 'normalized.json.gz').read_bytes()))['input_order']
MAIN = [FOLDER / f'run_{name}.txt' for name in 'abcd']
#: The queries ranx's ``make_comparable`` gave an empty list, by run (position in MAIN).
EMPTY = {0: set(), 1: {'q11'}, 2: {'q11'}, 3: {'q03', 'q11'}}


def ranx_fused(case_id: str) -> dict[str, dict[str, float]]:
    case = REFERENCE['cases'][case_id]
    return case['fused'] if 'fused' in case else ranx_fused(case['fused_same_as'])


def by_query(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {query: dict(zip(docs.doc_id, docs.score, strict=True)) for query, docs in frame.groupby('query_id')}


# -- runs answering different query sets: fused over the union -------------------------------------------------


def test_runs_answering_different_queries_are_fused_over_the_union():
    """ranx refuses them (``AssertionError: Runs 0 and 0 query ids do not match``); we give what ranx gives after
    ``make_comparable`` (q03 without run d, q11 run a's alone), here for a score- and a rank-based method."""
    assert REFERENCE['meta']['fuse_on_runs_with_different_query_sets'].startswith('AssertionError')
    for case_id, method in (('mnz/min-max/default/main', 'mnz'), ('rrf/min-max/default/main', 'rrf')):
        got = by_query(fuse(MAIN, method))
        assert sorted(got) == [f'q{i:02}' for i in range(1, 13)]
        for query in ('q03', 'q11'):
            assert got[query] == pytest.approx(ranx_fused(case_id)[query], rel=1e-12)


@pytest.mark.parametrize(('method', 'weights'), [('bordafuse', [1, 1, 1, 1]), ('w_bordafuse', [0.4, 0.3, 0.2, 0.1])])
@pytest.mark.parametrize('norm', [None, 'min-max', 'rank'])
def test_a_run_that_does_not_answer_gives_bordafuse_no_points(method, weights, norm):
    """ranx's empty list gives every candidate (|C| + 1)/2 points: its scores are ours plus that, times the run's
    weight, for each run with an empty list."""
    params = {'weights': weights} if method == 'w_bordafuse' else {}
    label = 'default' if method == 'bordafuse' else 'weights=0.4,0.3,0.2,0.1'
    expected = ranx_fused(f'{method}/{norm or "none"}/{label}/main')
    got = by_query(fuse(MAIN, method, norm, params))
    for query in ('q03', 'q11'):
        shift = sum(weights[run] for run, queries in EMPTY.items() if query in queries) * (len(got[query]) + 1) / 2
        assert {doc: score + shift for doc, score in got[query].items()} == pytest.approx(expected[query], rel=1e-12)


def test_a_run_that_does_not_answer_gives_bayesfuse_no_log_odds():
    """ranx's empty list adds ln(0.001/0.999) to every doc of the query; ours leaves the run out."""
    case_id = 'bayesfuse/min-max/trained/main'
    tables = REFERENCE['cases'][case_id]['params']['log_odds']
    log_odds = [[value for value, count in table['rle'] for _ in range(count)] for table in tables]
    expected = ranx_fused(case_id)
    got = by_query(fuse(MAIN, 'bayesfuse', params={'log_odds': log_odds}))
    for query in ('q03', 'q11'):
        shift = sum(query in queries for queries in EMPTY.values()) * UNRANKED_LOG_ODDS
        assert {doc: score + shift for doc, score in got[query].items()} == pytest.approx(expected[query], rel=1e-12)


def test_a_run_that_does_not_answer_gets_no_borda_normalised_list():
    """ranx's Borda norm gives an empty list 1/2 + 1/(2|C|) for every candidate (so CombSUM adds it to every doc,
    and CombMNZ counts the run); ours leaves the run out of the query."""
    expected = ranx_fused('sum/borda/default/main')
    got = by_query(fuse(MAIN, 'sum', 'borda'))
    for query in ('q03', 'q11'):
        empty_runs = sum(query in queries for queries in EMPTY.values())
        shift = empty_runs * (0.5 + 1 / (2 * len(got[query])))
        assert {doc: score + shift for doc, score in got[query].items()} == pytest.approx(expected[query], rel=1e-12)
    assert [frame.query_id.isin(['q03', 'q11']).any() for frame in normalized(MAIN, 'borda')] == [
        True, True, True, False]


#: A value of every parameter, for two runs.
EXAMPLE_PARAMS = {'weights': [0.7, 0.3], 'gamma': 0.5, 'phi': 0.8, 'probs': [[0.9, 0.5, 0.1], [0.8, 0.4]], 'w': 1,
                  'map_scores': [0.3, 0.2], 'log_odds': [[1.0, 0.0], [0.5, -1.0]]}


def test_an_empty_query_is_a_query_not_answered():
    """A dict-of-dict's empty list and a missing query fuse alike, for every method."""
    with_empty = [{'q1': {'a': 3, 'b': 2}, 'q2': {'a': 1, 'c': 2}}, {'q1': {'b': 1, 'c': 0.5}, 'q2': {}}]
    without = [with_empty[0], {'q1': with_empty[1]['q1']}]
    for method in METHODS | SUPERVISED:
        params = {name: value for name, value in EXAMPLE_PARAMS.items()
                  if name in inspect.signature((METHODS | SUPERVISED)[method]).parameters}
        pd.testing.assert_frame_equal(fuse(with_empty, method, params=params), fuse(without, method, params=params))


def test_a_run_that_does_not_answer_abstains_in_condorcet():
    """Two runs disagree on q; the third, answering only r, takes no side (ranx would count its empty list for
    whichever doc its sort compared second)."""
    runs = [{'q': {'x': 2, 'y': 1}}, {'q': {'x': 1, 'y': 2}}, {'r': {'z': 1}}]
    assert by_query(fuse(runs, 'condorcet', None)) == {'q': {'x': 2.0, 'y': 2.0}, 'r': {'z': 1.0}}


# -- zmuv: one run's empty query does not affect its other queries ---------------------------------------------


def test_zmuv_with_an_empty_query_keeps_the_later_queries():
    """ranx's zmuv (under numba's threads) loses the later queries of a run with an empty list: run d's q04-q06
    and q12, runs b and c's q12. Ours, on the runs as read, equals ranx's zmuv on the ten common queries."""
    lost = ranx_fused('sum/zmuv/default/main')
    common = ranx_fused('sum/zmuv/default/common')
    got = by_query(fuse(MAIN, 'sum', 'zmuv'))
    for query, docs in common.items():
        assert got[query] == pytest.approx(docs, rel=1e-9, abs=1e-9)
    assert all(lost[query] != pytest.approx(common[query]) for query in ('q04', 'q05', 'q06', 'q12'))


def test_a_normalisation_never_reads_another_query():
    run = {'q1': {'a': 0.1, 'b': 0.1, 'c': 0.1}, 'q2': {'a': 3.0, 'b': 1.0}}
    for norm in ('min-max', 'min-max-inverted', 'max', 'sum', 'zmuv', 'rank'):
        alone = normalized([{'q2': run['q2']}], norm)[0]
        [both] = normalized([run | {'q0': {}}], norm)
        pd.testing.assert_frame_equal(both[both.query_id == 'q2'].reset_index(drop=True), alone)
    assert normalized([run], 'zmuv')[0].score.iloc[0] == pytest.approx(-1.39e-8, rel=1e-2)  # ranx's 1e-9 floor


# -- Condorcet: Copeland's rule, independent of the hash seed -------------------------------------------------


def test_condorcet_does_not_depend_on_the_hash_seed():
    """ranx's Condorcet sorts a Python set with an inconsistent comparator: every query of ``main`` changes with
    PYTHONHASHSEED. Ours is the same under any seed."""
    code = ('import sys; from irmeasures_ext.fusion import fuse; '
            'sys.stdout.write(fuse(sys.argv[1:], "condorcet").to_json())')
    outputs = {subprocess.run([sys.executable, '-c', code, *map(str, MAIN)], capture_output=True, text=True,
                              check=True, env=os.environ | {'PYTHONHASHSEED': seed}).stdout for seed in '012'}
    assert len(outputs) == 1
    assert REFERENCE['cases']['condorcet/none/default/main']['hashseed']['PYTHONHASHSEED=1']['queries_values_differ']


def test_a_condorcet_cycle_ties():
    """c5: d178 > d361 > d601 > d178 two runs to one, then d809, d930 in every run: the cycle shares the top
    score (ranx's order of the cycle changes with the seed)."""
    fused = by_query(fuse([FOLDER / f'cond_{name}.txt' for name in 'abc'], 'condorcet', None))
    assert fused['c5'] == {'d178': 5.0, 'd361': 5.0, 'd601': 5.0, 'd809': 2.0, 'd930': 1.0}


def test_condorcet_draws_tie():
    """A 2-2 split between four runs, and weights whose sums are equal in real numbers (0.1 + 0.2 against 0.3),
    are draws: the docs share a score (ranx answers "x first" both ways, so its order is the sort's)."""
    split = [{'q': {'x': 2, 'y': 1}}] * 2 + [{'q': {'x': 1, 'y': 2}}] * 2
    assert by_query(fuse(split, 'condorcet', None)) == {'q': {'x': 2.0, 'y': 2.0}}
    weighted = by_query(fuse(split[:3], 'w_condorcet', None, {'weights': [0.1, 0.2, 0.3]}))
    assert weighted == {'q': {'x': 2.0, 'y': 2.0}}


# -- ties: ranked and output by descending doc id --------------------------------------------------------------


def test_tied_fused_docs_come_out_by_descending_doc_id():
    """ranx orders tied fused scores by an unstable sort; ours: query id, descending score, descending doc id."""
    fused = fuse(MAIN, 'sum')
    expected = fused.sort_values(['query_id', 'score', 'doc_id'], ascending=[True, False, False], kind='stable')
    pd.testing.assert_frame_equal(fused, expected)
    q02 = fused[fused.query_id == 'q02']
    assert list(q02.doc_id[q02.doc_id.isin(['d901', 'd902'])]) == ['d902', 'd901']
    assert q02.score[q02.doc_id == 'd901'].item() == q02.score[q02.doc_id == 'd902'].item()


@pytest.mark.parametrize('method', ['rrf', 'isr', 'bordafuse'])
def test_tied_docs_of_a_run_are_ranked_by_descending_doc_id(method):
    """On the long runs (ties of 4 docs, 24 a query) ranx ranks tied docs in its quicksort's order; given that
    order as distinct scores we equal ranx; as read, ours ranks them by descending doc id, as the file lists them."""
    runs = {run: {query: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for query, docs in queries.items()}
            for run, queries in INPUT_ORDER['long'].items()}
    expected = ranx_fused(f'{method}/min-max/default/long')
    for query, docs in by_query(fuse(runs, method)).items():
        assert docs == pytest.approx(expected[query], rel=1e-12)
    files = [FOLDER / 'long_a.txt', FOLDER / 'long_b.txt']
    listed = [pd.read_csv(path, sep=' ', header=None, names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'])
              for path in files]
    as_ranked = [{query: {doc: -float(rank) for doc, rank in zip(lines.doc_id, lines['rank'], strict=True)}
                  for query, lines in frame.groupby('query_id')} for frame in listed]
    assert all((frame.groupby('query_id').score.diff().dropna() <= 0).all() for frame in listed)
    pd.testing.assert_frame_equal(fuse(files, method), fuse(as_ranked, method))


def test_the_order_of_the_input_rows_does_not_matter():
    """Rows in rank order are kept, others sorted: shuffled runs fuse and normalise as the files."""
    shuffled = [frame.sample(frac=1, random_state=51) for frame in main_frames()]
    for method, norm in (('rrf', 'min-max-inverted'), ('sum', 'borda'), ('condorcet', None), ('med', 'zmuv')):
        pd.testing.assert_frame_equal(fuse(shuffled, method, norm), fuse(MAIN, method, norm))
    for norm in ('rank', 'min-max-inverted', 'borda'):
        for got, expected in zip(normalized(shuffled, norm), normalized(MAIN, norm), strict=True):
            pd.testing.assert_frame_equal(got, expected)


# -- training: queries paired by id ----------------------------------------------------------------------------

TRAINING_RUNS = [FOLDER / f'train_{name}.txt' for name in 'abcd']
TRAINING_QRELS = FOLDER / 'qrels_train.txt'
TRAINING_SETTINGS = {'posfuse': {}, 'probfuse': {'n_segments': 3}, 'segfuse': {}, 'slidefuse': {'w': 2}, 'mapfuse': {},
              'bayesfuse': {}}


def test_training_pairs_queries_by_id():
    """ranx pairs the qrels' and a run's queries by position; ours by id: a run's queries outside the qrels and
    the order of its queries change nothing."""
    frames = [read_run(path) for path in TRAINING_RUNS]
    frames[1] = pd.concat([frames[1], pd.DataFrame({'query_id': ['x99'], 'doc_id': ['d1'], 'score': [9.0]})])
    frames[2] = frames[2].iloc[::-1]
    for method, settings in TRAINING_SETTINGS.items():
        assert train(TRAINING_QRELS, frames, method, params=settings) == train(TRAINING_QRELS, TRAINING_RUNS, method,
                                                                               params=settings)


def test_a_training_query_a_run_does_not_answer_counts_as_nothing_retrieved():
    frames = [read_run(path) for path in TRAINING_RUNS]
    frames[0] = frames[0][frames[0].query_id != 't05']
    qrels = pd.read_csv(TRAINING_QRELS, sep=' ', header=None, names=['query_id', 'iteration', 'doc_id', 'relevance'])
    [map_all, *_] = train(qrels, TRAINING_RUNS, 'mapfuse')['map_scores']
    [map_t05, *_] = train(qrels[qrels.query_id == 't05'], TRAINING_RUNS, 'mapfuse')['map_scores']
    [map_without, *_] = train(qrels, frames, 'mapfuse')['map_scores']
    assert map_without == pytest.approx(map_all - map_t05 / 10, rel=1e-12) and map_t05 > 0


def test_fusing_with_trained_parameters():
    params = train(TRAINING_QRELS, TRAINING_RUNS, 'mapfuse')
    expected = ranx_fused('mapfuse/min-max/trained/main')
    for query, docs in by_query(fuse(MAIN, 'mapfuse', params=params)).items():
        assert docs == pytest.approx(expected[query], rel=1e-12)


@pytest.mark.parametrize(('method', 'params', 'message'), [
    ('rrf', {}, "'rrf' is not a supervised fusion method"),
    ('probfuse', {}, r"training probfuse takes the parameters \['n_segments'\], got \[\]"),
    ('probfuse', {'n_segments': 0}, 'n_segments must be a whole number ≥ 1'),
    ('posfuse', {'w': 2}, r'training posfuse takes the parameters none'),
])
def test_bad_training_arguments(method, params, message):
    with pytest.raises(FusionError, match=message):
        train(TRAINING_QRELS, TRAINING_RUNS, method, params=params)


# -- forms and errors ---------------------------------------------------------------------------------------------


def read_run(path) -> pd.DataFrame:
    """A TREC run file as a DataFrame (query_id, doc_id, score)."""
    return pd.read_csv(path, sep=' ', header=None, names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'],
                       dtype={'query_id': str, 'doc_id': str})[['query_id', 'doc_id', 'score']]


def main_frames() -> list[pd.DataFrame]:
    """The main runs as DataFrames."""
    return [read_run(path) for path in MAIN]


def test_runs_in_any_form_and_named():
    frames = main_frames()
    from_files = fuse(MAIN, 'wsum', params={'weights': [0.4, 0.3, 0.2, 0.1]})
    pd.testing.assert_frame_equal(from_files, fuse(dict(zip('abcd', frames, strict=True)), 'wsum',
                                                   params={'weights': np.array([0.4, 0.3, 0.2, 0.1])}))
    assert list(from_files.columns) == ['query_id', 'doc_id', 'score']


def test_the_fused_run_can_be_written(tmp_path):
    fused = fuse(MAIN)
    write_run(fused, tmp_path / 'fused.txt')
    lines = [line.split() for line in (tmp_path / 'fused.txt').read_text().splitlines()]
    assert [(query, doc) for query, _, doc, *_ in lines] == list(zip(fused.query_id, fused.doc_id, strict=True))


@pytest.mark.parametrize(('runs', 'method', 'norm', 'params', 'message'), [
    (MAIN[:1], 'rrf', 'min-max', None, 'at least two runs'),
    (MAIN, 'combsum', 'min-max', None, "unknown fusion method 'combsum'"),
    (MAIN, 'rrf', 'minmax', None, "unknown normalisation 'minmax'"),
    (MAIN, 'rbc', 'min-max', None, 'rbc needs the parameter phi'),
    (MAIN, 'rrf', 'min-max', {'phi': 0.5}, 'rrf takes no parameter phi'),
    (MAIN, 'wsum', 'min-max', {'weights': [1, 1]}, 'weights must be 4 finite numbers'),
    (MAIN, 'mixed', 'min-max', {'weights': [1, 1, 'x', 1]}, 'weights must be 4 finite numbers'),
    (MAIN, 'logn_isr', 'min-max', {'sigma': 2}, 'sigma must be in [0, 1]'),
    (MAIN, 'rrf', 'min-max', {'k': -1}, 'k must be a number ≥ 0'),
    (MAIN, 'posfuse', 'min-max', {'probs': [[0.5]] * 3}, 'probs must be 4 lists of finite numbers'),
    (MAIN, 'bayesfuse', 'min-max', {'log_odds': [[0.5], [], [1], [1]]}, 'log_odds must be 4 lists'),
    (MAIN, 'slidefuse', 'min-max', {'probs': [[0.5]] * 4, 'w': 1.5}, 'w must be a whole number ≥ 0'),
    (MAIN, 'mapfuse', 'min-max', {'map_scores': [0.5, float('nan'), 0.1, 0.2]}, 'map_scores must be 4 finite'),
])
def test_bad_arguments(runs, method, norm, params, message):
    with pytest.raises(FusionError, match=message.replace('[', r'\[').replace(']', r'\]')) as raised:
        fuse(runs, method, norm, params)
    assert isinstance(raised.value, InputError) and isinstance(raised.value, ValueError)


def test_bad_runs():
    with pytest.raises(DuplicateDocError, match="duplicate doc 'a' in query 'q'"):
        fuse([{'q': {'b': 1}}, pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'a'], 'score': [1.0, 2.0]})])
    with pytest.raises(NonFiniteScoreError, match="score nan for doc 'a'"):
        fuse([{'q': {'a': float('nan')}}, {'q': {'a': 1}}])
