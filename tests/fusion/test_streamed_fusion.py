"""Streamed fusion (fuse_to_file): the file it writes is, byte for byte, the file write_run writes of the in-memory
fuse's run. The in-memory fuse is itself proven against ranx 0.3.21 on these runs (test_ranx_reference.py; its
deliberate differences in test_fusion_semantics.py), so the streamed fusion is held to ranx's values through it.

The runs are the ranx reference runs (tests/data/ranx_fusion: ties, docs one run misses, queries a run does not
answer, negative scores), given as a TREC file, a gzipped one, a TREC file whose lines are shuffled (not sorted by
query) and a Parquet file; a row budget far below their size fuses them in many ranges of queries."""
import gzip
import inspect
import random
import tempfile
import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA

import irmeasures_ext.fusion.pool as pool
import irmeasures_ext.fusion.stream as stream
from irmeasures_ext.errors import InputError, ReversedScoresWarning, RunWriteError
from irmeasures_ext.fusion import METHODS, NORMS, SUPERVISED, FusionError, fuse, fuse_to_file, train
from irmeasures_ext.ir_metadata import write_run

FOLDER = DATA / 'ranx_fusion'
MAIN = [FOLDER / f'run_{name}.txt' for name in 'abcd']
TRAINING_RUNS = [FOLDER / f'train_{name}.txt' for name in 'abcd']
TRAINING_SETTINGS = {'posfuse': {}, 'probfuse': {'n_segments': 3}, 'segfuse': {}, 'slidefuse': {'w': 2},
                     'mapfuse': {}, 'bayesfuse': {}}
#: Rows fused at once: the four runs hold 409 rows of 12 queries, so ranges of one to a few queries.
BUDGET = 40
#: Values of the unsupervised methods' parameters.
SETTINGS = {'weights': [0.4, 0.3, 0.2, 0.1], 'gamma': 0.5, 'phi': 0.8, 'k': 10, 'sigma': 0.05}


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """The temporary files go to a folder of the test's, checked empty after it."""
    folder = tmp_path / 'temporary'
    folder.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(folder))
    yield
    assert list(folder.iterdir()) == []


@pytest.fixture(scope='module')
def runs(tmp_path_factory) -> list:
    """The reference runs in four forms: TREC, gzipped TREC, TREC with shuffled lines, Parquet."""
    folder = tmp_path_factory.mktemp('runs')
    plain, packed, shuffled, columnar = (folder / name for name in ('a.txt', 'b.txt.gz', 'c.txt', 'd.parquet'))
    plain.write_bytes(MAIN[0].read_bytes())
    packed.write_bytes(gzip.compress(MAIN[1].read_bytes()))
    lines = MAIN[2].read_text().splitlines(keepends=True)
    random.Random(51).shuffle(lines)
    shuffled.write_text(''.join(lines))
    frame = pd.read_csv(MAIN[3], sep=' ', header=None, names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'],
                        dtype={'query_id': str, 'doc_id': str})
    pq.write_table(pa.Table.from_pandas(frame[['query_id', 'doc_id', 'score']], preserve_index=False), columnar)
    return [plain, packed, shuffled, columnar]


def parameters(method: str) -> dict:
    """The parameters an unsupervised method takes, from SETTINGS."""
    taken = list(inspect.signature(METHODS[method]).parameters)[1:]
    return {name: SETTINGS[name] for name in taken}


def assert_same_file(tmp_path, runs, method, norm, params, name='fused.txt', **options):
    """fuse_to_file writes what write_run writes of fuse's run, byte for byte (each in a folder of its own: the
    default tag is the file's name)."""
    (tmp_path / 'memory').mkdir(exist_ok=True)
    (tmp_path / 'streamed').mkdir(exist_ok=True)
    expected, got = tmp_path / 'memory' / name, tmp_path / 'streamed' / name
    write_run(fuse(runs, method, norm, params), expected, options.get('metadata'), tag=options.get('tag'))
    fuse_to_file(runs, got, method, norm, params, max_rows=BUDGET, **options)
    assert got.read_bytes() == expected.read_bytes()


@pytest.mark.parametrize('norm', sorted({*NORMS, None} - {'min_max', 'min_max_inverted'}, key=str))
@pytest.mark.parametrize('method', sorted(METHODS))
def test_every_method_and_normalisation_as_in_memory(tmp_path, runs, method, norm):
    assert_same_file(tmp_path, runs, method, norm, parameters(method))


@pytest.mark.parametrize('method', sorted(SUPERVISED))
def test_supervised_methods_with_trained_parameters_as_in_memory(tmp_path, runs, method):
    params = train(FOLDER / 'qrels_train.txt', TRAINING_RUNS, method, params=TRAINING_SETTINGS[method])
    assert_same_file(tmp_path, runs, method, 'min-max', params | ({'w': 2} if method == 'slidefuse' else {}))


def test_the_runs_are_fused_in_many_ranges(tmp_path, runs, monkeypatch):
    fused_ranges = []
    read = stream.Pool.read
    monkeypatch.setattr(stream.Pool, 'read', lambda tables: fused_ranges.append(tables) or read(tables))
    fuse_to_file(runs, tmp_path / 'fused.txt', max_rows=BUDGET)
    assert len(fused_ranges) >= 409 // BUDGET
    assert all(sum(table.num_rows for table in tables) <= BUDGET or len({
        query for table in tables for query in table['query_id'].to_pylist()}) == 1 for tables in fused_ranges)


def test_runs_read_in_small_blocks_and_interleaved_queries(tmp_path, runs, monkeypatch):
    """Blocks of a few lines: queries carried over from block to block, and the shuffled run's queries found
    interleaved, so partitioned by query first."""
    monkeypatch.setattr(stream, 'BLOCK_BYTES', 300)
    monkeypatch.setattr(stream, 'BUCKET_BYTES', 1000)
    assert_same_file(tmp_path, runs, 'rrf', 'min-max', None)
    assert_same_file(tmp_path, runs, 'bordafuse', 'borda', None, name='borda.txt')


def test_every_output_form(tmp_path, runs):
    metadata = {'tag': 'fused-run', 'method': {'fusion': 'wsum'}}
    weights = {'weights': SETTINGS['weights']}
    assert_same_file(tmp_path, runs, 'wsum', 'zmuv', weights, metadata=metadata)
    assert_same_file(tmp_path, runs, 'wsum', 'zmuv', weights, name='tagged.txt',
                     metadata={'method': {'fusion': 'wsum'}}, tag='mine')
    assert_same_file(tmp_path, runs, 'wsum', 'zmuv', weights, name='fused.parquet', metadata=metadata)
    assert_same_file(tmp_path, runs, 'wsum', 'zmuv', weights, name='fused.txt.bz2')
    # (gzip writes the time into its header: the text is compared)
    fuse_to_file(runs, tmp_path / 'fused.txt.gz', max_rows=BUDGET)
    write_run(fuse(runs), tmp_path / 'fused.txt')
    assert gzip.decompress((tmp_path / 'fused.txt.gz').read_bytes()) == (tmp_path / 'fused.txt').read_bytes()
    # (Arrow IPC: record batches as fused, so the table is compared)
    fuse_to_file(runs, tmp_path / 'fused.arrow', max_rows=BUDGET)
    write_run(fuse(runs), tmp_path / 'memory' / 'fused.arrow')
    tables = [pa.ipc.open_file(folder / 'fused.arrow').read_all() for folder in (tmp_path, tmp_path / 'memory')]
    assert tables[0].equals(tables[1], check_metadata=True) and tables[0].num_rows == len(fuse(runs))


def test_runs_in_memory_and_named(tmp_path, runs):
    frames = [pd.read_csv(path, sep=' ', header=None, names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'],
                          dtype={'query_id': str, 'doc_id': str})[['query_id', 'doc_id', 'score']] for path in MAIN[:2]]
    assert_same_file(tmp_path, {'x': frames[0], 'y': frames[1], 'z': runs[3]}, 'mnz', 'max', None)


# -- errors -----------------------------------------------------------------------------------------------------


def raised(call) -> Exception:
    """What ``call()`` raises."""
    with pytest.raises(Exception) as error:  # noqa: PT011 (compared with the in-memory path's by the caller)
        call()
    return error.value


@pytest.mark.parametrize(('count', 'method', 'norm', 'params'), [
    (1, 'rrf', 'min-max', None), (4, 'combsum', 'min-max', None), (4, 'rrf', 'minmax', None),
    (4, 'rbc', 'min-max', None), (4, 'rrf', 'min-max', {'phi': 0.5}), (4, 'wsum', 'min-max', {'weights': [1, 1]}),
])
def test_bad_arguments_as_in_memory(tmp_path, count, method, norm, params):
    expected = raised(lambda: fuse(MAIN[:count], method, norm, params))
    got = raised(lambda: fuse_to_file(MAIN[:count], tmp_path / 'fused.txt', method, norm, params))
    assert isinstance(got, FusionError) and (type(got), str(got)) == (type(expected), str(expected))
    assert list(tmp_path.iterdir()) == [tmp_path / 'temporary']


@pytest.mark.parametrize('budget', [0, 1.5, None])
def test_a_bad_row_budget(tmp_path, budget):
    with pytest.raises(FusionError, match='max_rows must be a whole number ≥ 1'):
        fuse_to_file(MAIN, tmp_path / 'fused.txt', max_rows=budget)


def test_a_score_that_is_not_finite_as_in_memory(tmp_path):
    lines = MAIN[1].read_text().splitlines(keepends=True)
    fields = lines[40].split()
    lines[40] = ' '.join([*fields[:4], 'nan', fields[5]]) + '\n'
    (tmp_path / 'bad.txt').write_text(''.join(lines))
    frame = pd.DataFrame({'query_id': ['q01', 'q02', 'q02'], 'doc_id': ['d1', 'd2', 'd3'],
                          'score': [1.0, float('inf'), 2.0]})
    for bad in (tmp_path / 'bad.txt', frame):
        expected = raised(lambda: fuse([MAIN[0], bad], 'rrf'))  # noqa: B023 (called at once)
        got = raised(lambda: fuse_to_file([MAIN[0], bad], tmp_path / 'fused.txt', max_rows=BUDGET))  # noqa: B023
        assert isinstance(got, InputError) and (type(got), str(got)) == (type(expected), str(expected))
    assert str(got) == "run: score inf for doc 'd2' in query 'q02' is not a finite number"
    assert not (tmp_path / 'fused.txt').exists()


def test_a_doc_twice_in_a_query_names_the_file_and_lines(tmp_path):
    lines = MAIN[1].read_text().splitlines(keepends=True)
    twice = lines[60].split()
    lines.insert(70, f'{twice[0]} Q0 {twice[2]} 99 -5.0 b\n')
    (tmp_path / 'bad.txt').write_text(''.join(lines))
    with pytest.raises(InputError) as error:
        fuse_to_file([MAIN[0], tmp_path / 'bad.txt'], tmp_path / 'fused.txt', max_rows=BUDGET)
    assert str(error.value) == (f"{tmp_path / 'bad.txt'}:71: duplicate doc {twice[2]!r} in query {twice[0]!r} "
                                '(first at line 61)')
    assert not (tmp_path / 'fused.txt').exists()
    # the in-memory fuse names them too
    assert str(raised(lambda: fuse([MAIN[0], tmp_path / 'bad.txt']))) == str(error.value)
    # data in memory has no lines: the in-memory path's error
    frame = pd.DataFrame({'query_id': ['q01', 'q01'], 'doc_id': ['d1', 'd1'], 'score': [1.0, 2.0]})
    expected = raised(lambda: fuse([MAIN[0], frame]))
    got = raised(lambda: fuse_to_file([MAIN[0], frame], tmp_path / 'fused.txt', max_rows=BUDGET))
    assert (type(got), str(got)) == (type(expected), str(expected))


def test_an_existing_file_is_replaced_only_when_asked(tmp_path):
    output = tmp_path / 'fused.txt'
    output.write_text('mine\n')
    with pytest.raises(RunWriteError, match='exists; give another file name'):
        fuse_to_file(MAIN, output, max_rows=BUDGET)
    assert output.read_text() == 'mine\n'
    fuse_to_file(MAIN, output, max_rows=BUDGET, overwrite=True)
    write_run(fuse(MAIN), tmp_path / 'memory.txt', tag='fused')
    assert output.read_bytes() == (tmp_path / 'memory.txt').read_bytes()
    assert sorted(path.name for path in tmp_path.iterdir()) == ['fused.txt', 'memory.txt', 'temporary']


def test_an_id_a_trec_file_cannot_hold_leaves_no_file(tmp_path):
    frame = pd.DataFrame({'query_id': ['q01', 'q01'], 'doc_id': ['a doc', 'd2'], 'score': [1.0, 2.0]})
    expected = raised(lambda: write_run(fuse([MAIN[0], frame]), tmp_path / 'fused.txt'))
    got = raised(lambda: fuse_to_file([MAIN[0], frame], tmp_path / 'fused.txt', max_rows=BUDGET))
    assert isinstance(got, RunWriteError) and str(got) == str(expected)
    assert sorted(path.name for path in tmp_path.iterdir()) == ['temporary']


def test_a_run_listed_by_ascending_score_is_warned_about_as_in_memory(tmp_path):
    lines = [line.split() for line in MAIN[0].read_text().splitlines()]
    ascending = ''.join(f'{q} Q0 {d} {r} {int(r) / 10} x\n' for q, _, d, r, _, _ in lines)  # (rank and score swapped)
    (tmp_path / 'ascending.txt').write_text(ascending)
    with warnings.catch_warnings(record=True) as expected:
        warnings.simplefilter('always')
        fuse([tmp_path / 'ascending.txt', MAIN[1]])
    with pytest.warns(ReversedScoresWarning) as got:
        fuse_to_file([tmp_path / 'ascending.txt', MAIN[1]], tmp_path / 'fused.txt', max_rows=BUDGET)
    assert [str(warning.message) for warning in got] == [str(warning.message) for warning in expected]
    assert 'ascending.txt: in all 11 queries with two or more docs the scores increase' in str(got[0].message)


@pytest.mark.parametrize('stretches', [1, 64])
@pytest.mark.parametrize('method', ['rrf', 'wsum', 'condorcet', 'bordafuse'])
def test_fuse_in_pools_of_a_few_queries_as_in_one(runs, monkeypatch, method, stretches):
    # (fuse pools large runs a range of queries at a time, each run's rows of a range its slices, or, when its queries
    # are interleaved (the shuffled run; every run with stretches=1), taken in range order; whole runs in one pool are
    # ranx's values: test_ranx_reference.py)
    whole = fuse(runs, method, 'min-max', parameters(method))
    monkeypatch.setattr(pool, 'PART_ROWS', BUDGET)
    monkeypatch.setattr(pool, '_STRETCHES_PER_RANGE', stretches)
    assert len(list(pool.pools(runs))) > 5
    pd.testing.assert_frame_equal(fuse(runs, method, 'min-max', parameters(method)), whole)
