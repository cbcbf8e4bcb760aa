"""Runs and qrels stored as Parquet (files, folders: pyarrow datasets) and Arrow IPC / Feather files.

Every fixture file is written here, in tmp_path, from TREC text; the values are proven against
pytrec_eval on that text (parsed by plain Python, not by our reader) and against our TREC path
(itself tested against trec_eval)."""
import io
import subprocess
import sys
from pathlib import Path

import ir_measures
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
import pytrec_eval

import irmeasures_ext
from irmeasures_ext import InputError
from irmeasures_ext.cli import main
from irmeasures_ext.errors import ReversedScoresWarning
from irmeasures_ext.frames import evaluate_frame
from irmeasures_ext.readers.columnar import ColumnarSource
from irmeasures_ext.sample import QRELS as SAMPLE_QRELS
from irmeasures_ext.sample import RUN as SAMPLE_RUN

PROVIDER = irmeasures_ext.provider
#: Our measures and pytrec_eval's names for them.
MEASURES = {ir_measures.AP: 'map', ir_measures.nDCG: 'ndcg', ir_measures.P @ 10: 'P_10', ir_measures.RR: 'recip_rank',
            ir_measures.R @ 100: 'recall_100', ir_measures.nDCG @ 5: 'ndcg_cut_5'}
# Integer ids (stored as int64 columns, read as the TREC text writes them), score ties (q1: d20 and d5
# at 2.0; trec_eval ranks d5 first), a qrels query the run does not answer (4), a run query not in the qrels (9).
INT_QRELS = '1 0 1 1\n1 0 20 2\n1 0 3 0\n2 0 4 1\n2 0 7 3\n4 0 9 1\n'
INT_RUN = ('1 Q0 20 1 2.0 r\n1 Q0 5 2 2.0 r\n1 Q0 1 3 1.5 r\n1 Q0 3 4 1.0 r\n'
           '2 Q0 4 1 3.0 r\n2 Q0 6 2 1.0 r\n2 Q0 7 3 0.5 r\n9 Q0 1 1 1.0 r\n')
DATA = {'sample': (Path(SAMPLE_QRELS).read_text(), Path(SAMPLE_RUN).read_text()), 'integer ids': (INT_QRELS, INT_RUN)}
#: Column names: ir_measures' and PyTerrier's.
NAMES = {'ir_measures': {'query_id': 'query_id', 'doc_id': 'doc_id', 'relevance': 'relevance'},
         'pyterrier': {'query_id': 'qid', 'doc_id': 'docno', 'relevance': 'label'}}


def trec_rows(text: str, kind: str) -> list[tuple[str, str, str, str]]:
    """(query id, doc id, value, rank) of each line of TREC text, split by plain Python."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if kind == 'run':
        return [(fields[0], fields[2], fields[4], fields[3]) for fields in rows]
    return [(fields[0], fields[2], fields[3], '') for fields in rows]


def as_table(text: str, kind: str, names: str = 'ir_measures') -> pa.Table:
    """TREC text as the Arrow table a user would store: integer ids as int64 when every id is one."""
    rows = trec_rows(text, kind)
    rename = NAMES[names]

    def ids(values: list[str]) -> pa.Array:
        return pa.array([int(v) for v in values]) if all(v.isdigit() for v in values) else pa.array(values)
    columns = {rename['query_id']: ids([r[0] for r in rows]), rename['doc_id']: ids([r[1] for r in rows])}
    if kind == 'run':
        columns['score'] = pa.array([float(r[2]) for r in rows])
        columns['rank'] = pa.array([int(r[3]) for r in rows])
    else:
        columns[rename['relevance']] = pa.array([int(r[2]) for r in rows])
    return pa.table(columns)


def write_ipc_stream(table: pa.Table, path: Path) -> None:
    with pa.OSFile(str(path), 'wb') as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


def write_ipc_file(table: pa.Table, path: Path) -> None:
    with pa.OSFile(str(path), 'wb') as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


#: Each format by the extension it is written with, and its writer.
WRITERS = {
    'parquet': ('.parquet', lambda table, path: pq.write_table(table, path, row_group_size=100)),
    'feather': ('.feather', lambda table, path: feather.write_feather(table, path)),
    'arrow ipc file': ('.arrow', write_ipc_file),
    'arrow ipc stream': ('.arrow', write_ipc_stream),
    'ipc compressed': ('.ipc', lambda table, path: feather.write_feather(table, path, compression='zstd')),
}


def write(table: pa.Table, path: Path, writer: str) -> Path:
    WRITERS[writer][1](table, path)
    return path


def pytrec_eval_values(qrels_text: str, run_text: str) -> dict[tuple[str, str], float]:
    """pytrec_eval's value of each (pytrec_eval measure, query) of TREC text."""
    qrels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, label, _ in trec_rows(qrels_text, 'qrels'):
        qrels.setdefault(query_id, {})[doc_id] = int(label)
    run: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score, _ in trec_rows(run_text, 'run'):
        run.setdefault(query_id, {})[doc_id] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'ndcg', 'P', 'recip_rank', 'recall', 'ndcg_cut'})
    return {(name, query_id): value for query_id, values in evaluator.evaluate(run).items()
            for name, value in values.items()}


def per_query(metrics) -> dict[tuple[str, str], float]:
    """Our metrics by (pytrec_eval measure, query)."""
    return {(MEASURES[m.measure], m.query_id): m.value for m in metrics}


def assert_equal_to_pytrec_eval(ours: dict[tuple[str, str], float], qrels_text: str, run_text: str) -> None:
    """Every value pytrec_eval computes, ours too; the queries only ours has are the unanswered ones (0)."""
    theirs = pytrec_eval_values(qrels_text, run_text)
    for key, value in theirs.items():
        if key[0] in MEASURES.values():
            assert ours[key] == pytest.approx(value, abs=1e-12), key
    unanswered = {key for key in ours if key not in theirs}
    answered = {row[0] for row in trec_rows(run_text, 'run')}
    assert all(ours[key] == 0 and key[1] not in answered for key in unanswered)


def trec_files(tmp_path: Path, data: str) -> tuple[Path, Path]:
    qrels_text, run_text = DATA[data]
    qrels, run = tmp_path / 'qrels.txt', tmp_path / 'run.txt'
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


# --- values: every format, both column-name conventions ------------------------------------------

@pytest.mark.parametrize('names', NAMES)
@pytest.mark.parametrize('writer', WRITERS)
@pytest.mark.parametrize('data', DATA)
def test_each_format_gives_pytrec_evals_values_and_the_trec_paths(tmp_path, data, writer, names):
    qrels_text, run_text = DATA[data]
    suffix = WRITERS[writer][0]
    qrels = write(as_table(qrels_text, 'qrels', names), tmp_path / f'qrels{suffix}', writer)
    run = write(as_table(run_text, 'run', names), tmp_path / f'run{suffix}', writer)
    ours = per_query(PROVIDER.iter_calc(list(MEASURES), qrels, str(run)))  # a pathlib.Path and a str
    assert_equal_to_pytrec_eval(ours, qrels_text, run_text)
    trec_qrels, trec_run = trec_files(tmp_path, data)
    assert ours == per_query(PROVIDER.iter_calc(list(MEASURES), trec_qrels, trec_run))


def test_rank_tie_policy_reads_the_rank_column_as_from_the_trec_file(tmp_path):
    qrels_text, run_text = DATA['integer ids']
    qrels = write(as_table(qrels_text, 'qrels'), tmp_path / 'qrels.parquet', 'parquet')
    run = write(as_table(run_text, 'run', 'pyterrier'), tmp_path / 'run.parquet', 'parquet')
    trec_qrels, trec_run = trec_files(tmp_path, 'integer ids')
    by_rank = PROVIDER.configured(ties='rank')
    values = by_rank.calc_aggregate([ir_measures.RR], qrels, run)
    assert values == by_rank.calc_aggregate([ir_measures.RR], trec_qrels, trec_run)
    # by hand: q1 ranks d20 (rel 2) first, q2 d4 (rel 1) first; q4 unanswered: (1 + 1 + 0) / 3; by score
    # (trec_eval's ties: doc ids descending), q1 ranks d5 first, then d20: (1/2 + 1 + 0) / 3
    assert values[ir_measures.RR] == pytest.approx(2 / 3)
    assert PROVIDER.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == pytest.approx(1 / 2)


def test_a_folder_of_parquet_files_is_one_run(tmp_path):
    qrels_text, run_text = DATA['sample']
    run = as_table(run_text, 'run', 'pyterrier')
    folder = tmp_path / 'run'
    (folder / 'more').mkdir(parents=True)
    third = run.num_rows // 3
    pq.write_table(run.slice(0, third), folder / 'part-0.parquet')
    pq.write_table(run.slice(third, third), folder / 'part-1.parquet')
    pq.write_table(run.slice(2 * third), folder / 'more' / 'part-2.parquet')
    (folder / '_SUCCESS').write_text('')  # what Spark leaves beside its files: left out, as pyarrow does
    qrels = write(as_table(qrels_text, 'qrels'), tmp_path / 'qrels.parquet', 'parquet')
    ours = per_query(PROVIDER.iter_calc(list(MEASURES), qrels, folder))
    assert_equal_to_pytrec_eval(ours, qrels_text, run_text)


def test_a_folder_partitioned_by_query_reads_the_query_id_from_the_folder_names(tmp_path):
    qrels_text, run_text = DATA['integer ids']
    pq.write_to_dataset(as_table(run_text, 'run'), tmp_path / 'run', partition_cols=['query_id'])
    assert not any(path.is_file() for path in (tmp_path / 'run').iterdir())  # (query_id=1/..., query_id=2/...)
    qrels = write(as_table(qrels_text, 'qrels'), tmp_path / 'qrels.feather', 'feather')
    ours = per_query(PROVIDER.iter_calc(list(MEASURES), qrels, tmp_path / 'run'))
    assert_equal_to_pytrec_eval(ours, qrels_text, run_text)


@pytest.mark.parametrize('names', NAMES)
def test_pyarrow_dataset_objects_everywhere_the_provider_takes_inputs(tmp_path, names):
    qrels_text, run_text = DATA['sample']
    pq.write_table(as_table(run_text, 'run', names), tmp_path / 'run.parquet')
    write_ipc_file(as_table(qrels_text, 'qrels', names), tmp_path / 'qrels.arrow')
    qrels, run = ds.dataset(tmp_path / 'qrels.arrow', format='ipc'), ds.dataset(tmp_path / 'run.parquet')
    theirs = pytrec_eval_values(qrels_text, run_text)
    mean_ap = sum(v for (name, _), v in theirs.items() if name == 'map') / 20  # the sample's 20 qrels queries
    assert PROVIDER.calc_aggregate([ir_measures.AP], qrels, run)[ir_measures.AP] == pytest.approx(mean_ap)
    assert_equal_to_pytrec_eval(per_query(PROVIDER.iter_calc(list(MEASURES), qrels, run)), qrels_text, run_text)
    evaluator = PROVIDER.evaluator(list(MEASURES), qrels)
    assert_equal_to_pytrec_eval(per_query(evaluator.iter_calc(run)), qrels_text, run_text)
    frame = evaluate_frame([ir_measures.AP], qrels, run)
    assert dict(zip(frame.query_id, frame.value, strict=True)) == pytest.approx(
        {query_id: value for (name, query_id), value in theirs.items() if name == 'map'})


def test_only_the_needed_columns_are_read(tmp_path, monkeypatch):
    table = as_table(DATA['integer ids'][1], 'run', 'pyterrier').append_column('text', pa.array(['x' * 100] * 8))
    pq.write_table(table, tmp_path / 'run.parquet')
    asked = []
    read = ColumnarSource._read_columns
    monkeypatch.setattr(ColumnarSource, '_read_columns',
                        lambda self, columns: asked.append(columns) or read(self, columns))
    PROVIDER.calc_aggregate([ir_measures.AP], INT_QRELS_AS_RECORDS, tmp_path / 'run.parquet')
    assert asked == [['qid', 'docno', 'score']]


INT_QRELS_AS_RECORDS = [ir_measures.Qrel(q, d, int(r)) for q, d, r, _ in trec_rows(INT_QRELS, 'qrels')]


def test_a_run_with_ranks_listed_by_ascending_score_warns_naming_the_file(tmp_path):
    run = pa.table({'qid': ['1', '1', '2', '2'], 'docno': ['a', 'b', 'a', 'b'], 'score': [1.0, 2.0, 1.0, 2.0],
                    'rank': [1, 2, 1, 2]})
    path = write(run, tmp_path / 'run.parquet', 'parquet')
    with pytest.warns(ReversedScoresWarning, match=f'^{path}: in all 2 queries'):
        PROVIDER.calc_aggregate([ir_measures.AP], INT_QRELS_AS_RECORDS, path)


def test_the_trec_path_does_not_load_pyarrow_dataset(tmp_path):
    qrels, run = trec_files(tmp_path, 'integer ids')
    script = (f'import sys; from irmeasures_ext.cli import main; status = main([{str(qrels)!r}, {str(run)!r}, "AP"]); '
              'print(status, "pyarrow.dataset" in sys.modules)')
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120)
    assert result.stdout.splitlines()[-1] == '0 False', result.stderr


# --- the command line ----------------------------------------------------------------------------

def run_main(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def stored(tmp_path):
    """The sample as TREC files, and as Parquet qrels and an Arrow run (PyTerrier's column names)."""
    qrels_text, run_text = DATA['sample']
    trec_qrels, trec_run = trec_files(tmp_path, 'sample')
    qrels = write(as_table(qrels_text, 'qrels', 'pyterrier'), tmp_path / 'qrels.parquet', 'parquet')
    run = write(as_table(run_text, 'run', 'pyterrier'), tmp_path / 'run.arrow', 'arrow ipc file')
    return (trec_qrels, trec_run), (qrels, run)


def test_the_command_reads_parquet_and_arrow_by_extension(capsys, stored):
    (trec_qrels, trec_run), (qrels, run) = stored
    status, out, err = run_main(capsys, qrels, run, 'AP', 'nDCG@10', 'P@10', '-q', '-p', '-1')
    assert (status, err) == (0, '')
    lines = [line.split('\t') for line in out.splitlines()]
    theirs = pytrec_eval_values(*DATA['sample'])
    names = {'AP': 'map', 'nDCG@10': 'ndcg_cut_10', 'P@10': 'P_10'}
    checked = [(q, m) for q, m, v in lines if (names[m], q) in theirs]
    assert len(checked) == 3 * len({query_id for _, query_id in theirs}) > 0
    for query_id, measure, value in lines:
        if (names[measure], query_id) in theirs:
            assert float(value) == pytest.approx(theirs[names[measure], query_id], abs=1e-12)
    assert out == run_main(capsys, trec_qrels, trec_run, 'AP', 'nDCG@10', 'P@10', '-q', '-p', '-1')[1]


def test_format_overrides_the_extension(capsys, tmp_path, stored):
    (trec_qrels, trec_run), (qrels, run) = stored
    expected = run_main(capsys, trec_qrels, trec_run, 'AP', 'RR')[1]
    misnamed_run = tmp_path / 'run.txt.gz'
    misnamed_run.write_bytes(run.read_bytes())
    misnamed_qrels = tmp_path / 'qrels.arrow'
    misnamed_qrels.write_bytes(qrels.read_bytes())
    assert run_main(capsys, qrels, misnamed_run, 'AP', 'RR', '--format', 'arrow', '--qrels-format', 'parquet') == (
        0, expected, '')
    assert run_main(capsys, misnamed_qrels, misnamed_run, 'AP', 'RR', '--format', 'arrow',
                    '--qrels-format', 'parquet') == (0, expected, '')
    trec_named_parquet = tmp_path / 'trec.parquet'
    trec_named_parquet.write_bytes(trec_run.read_bytes())
    assert run_main(capsys, trec_qrels, trec_named_parquet, 'AP', 'RR', '--format', 'trec') == (0, expected, '')
    status, _, err = run_main(capsys, trec_qrels, trec_named_parquet, 'AP', 'RR')
    assert status == 2 and err.startswith(f'irmeasures-ext: error: {trec_named_parquet}: not a Parquet file')


@pytest.mark.parametrize('writer', ['parquet', 'arrow ipc file', 'arrow ipc stream'])
def test_standard_input_in_the_format_given(capsys, monkeypatch, tmp_path, stored, writer):
    (trec_qrels, trec_run), _ = stored
    run = write(as_table(DATA['sample'][1], 'run'), tmp_path / 'run.bin', writer)
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(run.read_bytes())))
    file_format = 'parquet' if writer == 'parquet' else 'arrow'
    assert run_main(capsys, trec_qrels, '-', 'AP', '--format', file_format, '--qrels-format', 'trec') == (
        0, run_main(capsys, trec_qrels, trec_run, 'AP')[1], '')


def test_the_subcommands_read_parquet_and_arrow(capsys, tmp_path, stored):
    (trec_qrels, trec_run), (qrels, run) = stored
    other = write(as_table(DATA['sample'][1].replace('q01 Q0 D51288', 'q01 Q0 D00001'), 'run'),
                  tmp_path / 'other.parquet', 'parquet')
    other_trec = tmp_path / 'other.txt'
    other_trec.write_text(DATA['sample'][1].replace('q01 Q0 D51288', 'q01 Q0 D00001'))
    for command in (['ties'], ['crosscheck']):
        status, out, err = run_main(capsys, *command, qrels, run)
        assert (status, err) == (0, '')
        assert out == run_main(capsys, *command, trec_qrels, trec_run)[1]
    status, out, err = run_main(capsys, 'compare', qrels, run, other, 'AP', 'nDCG@10', '--names', 'a,b')
    assert (status, err) == (0, '')
    assert out == run_main(capsys, 'compare', trec_qrels, trec_run, other_trec, 'AP', 'nDCG@10', '--names', 'a,b')[1]


# --- bad files -----------------------------------------------------------------------------------

def bad_run(tmp_path: Path, table: pa.Table) -> Path:
    return write(table, tmp_path / 'run.parquet', 'parquet')


RUN_COLUMNS = {'qid': ['1', '1'], 'docno': ['a', 'b'], 'score': [2.0, 1.0]}


@pytest.mark.parametrize('make, problem', [
    (lambda tmp_path: tmp_path / 'missing.parquet', 'missing.parquet: no such file'),
    (lambda tmp_path: write_text(tmp_path / 'run.parquet', '1 Q0 a 1 2.0 r\n'), 'run.parquet: not a Parquet file'),
    (lambda tmp_path: write_text(tmp_path / 'run.arrow', '1 Q0 a 1 2.0 r\n'),
     'run.arrow: not an Arrow IPC (Feather) file'),
    (lambda tmp_path: truncated(tmp_path), 'run.parquet: not a Parquet file'),
    (lambda tmp_path: bad_run(tmp_path, pa.table({'qid': ['1'], 'docno': ['a']})),
     "run.parquet: run is missing column(s) ['score'] (found ['qid', 'docno'])"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'query_id': ['1', '1']})),
     "run.parquet: run has ambiguous columns 'qid' and 'query_id'"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'score': ['high', 'low']})),
     "run.parquet: run column 'score': cannot read values as double"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'qid': [1.0, 1.0]})),
     "run.parquet: run column 'query_id' holds 1.0 (double): ids must be strings or integers"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'score': [1.0, None]})),
     "run.parquet: run column 'score' has 1 missing value(s), the first at row 1"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'docno': ['a', 'a']})),
     "run.parquet: run: duplicate doc 'a' in query '1'"),
    (lambda tmp_path: bad_run(tmp_path, pa.table({**RUN_COLUMNS, 'score': [1.0, float('nan')]})),
     "run.parquet: run: score nan for doc 'b' in query '1' is not a finite number"),
])
def test_a_bad_run_file_is_an_input_error_naming_it(capsys, tmp_path, make, problem):
    path = make(tmp_path)
    with pytest.raises(InputError) as error:
        PROVIDER.calc_aggregate([ir_measures.AP], INT_QRELS_AS_RECORDS, path)
    assert str(error.value).startswith(f'{tmp_path}/{problem}')
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text(INT_QRELS)
    status, out, err = run_main(capsys, qrels, path, 'AP')
    assert (status, out, err.startswith(f'irmeasures-ext: error: {tmp_path}/{problem}')) == (2, '', True)


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def truncated(tmp_path: Path) -> Path:
    path = write(pa.table(RUN_COLUMNS), tmp_path / 'run.parquet', 'parquet')
    path.write_bytes(path.read_bytes()[:-20])
    return path


def test_bad_qrels_are_named_as_qrels(tmp_path):
    path = write(pa.table({'qid': ['1'], 'docno': ['a'], 'label': [float('inf')]}), tmp_path / 'qrels.feather',
                 'feather')
    with pytest.raises(InputError, match=f"^{path}: qrels column 'relevance': label inf at row 0 is not finite"):
        PROVIDER.calc_aggregate([ir_measures.AP], path, [ir_measures.ScoredDoc('1', 'a', 1.0)])


def test_folders_that_are_not_parquet_datasets(tmp_path):
    empty = tmp_path / 'empty'
    empty.mkdir()
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text(INT_QRELS)
    with pytest.raises(InputError, match=f'^{empty}: is a directory, expected a TREC file'):  # (no .parquet inside)
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, empty)
    assert main([str(qrels), str(empty), 'AP', '--format', 'parquet']) == 2
    with pytest.raises(InputError, match=f'^{empty}: folder holds no Parquet files'):
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, ColumnarSource.of_path(empty, 'parquet'))
    with pytest.raises(InputError, match=f'^{empty}: is a directory, expected an Arrow IPC'):
        ColumnarSource.of_path(empty, 'arrow')
    folder = tmp_path / 'run'
    folder.mkdir()
    pq.write_table(pa.table(RUN_COLUMNS), folder / 'part-0.parquet')
    (folder / 'notes.txt').write_text('not Parquet')
    with pytest.raises(InputError, match=f'^{folder}: .*notes.txt'):  # names the file pyarrow cannot read
        PROVIDER.calc_aggregate([ir_measures.AP], qrels, folder)
