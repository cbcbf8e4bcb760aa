"""Streaming Parquet and Arrow runs (:mod:`irmeasures_ext.engine.stream`, issue 30 §2): a Parquet file, a folder
of Parquet files, an Arrow IPC file or a ``pyarrow.dataset`` evaluated batch by batch, or partitioned by query
when its queries are interleaved, gives the bits of reading it whole and of reading the same run as a TREC
file; errors name the file (and a bad value's rows); temporary files do not outlive the evaluation. Row groups
and batches of a few rows make queries straddle batches."""
from __future__ import annotations

import warnings
from pathlib import Path

import ir_measures
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from stream_checks import (
    MEASURES,
    assert_streamed_as_pytrec_eval,
    leftovers,
    supported,
    watched_partitions,
    write_files,
)

from irmeasures_ext.engine import evaluator as evaluators
from irmeasures_ext.engine import stream
from irmeasures_ext.errors import InputError, ReversedScoresWarning
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers import pieces
from irmeasures_ext.readers.columnar import ROW_BYTES, ColumnarSource

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.ReversedScoresWarning')

#: Rows per batch: one, a few (queries straddle them), more than the run.
BATCH_ROWS = (1, 5, 13, 1 << 20)


def run_table(run: Path) -> pa.Table:
    """A TREC run file's lines as the table a user would store (PyTerrier's names), split by plain Python."""
    rows = [line.split() for line in run.read_text().splitlines()]
    return pa.table({'qid': [fields[0] for fields in rows], 'docno': [fields[2] for fields in rows],
                     'score': [float(fields[4]) for fields in rows], 'rank': [int(fields[3]) for fields in rows]})


def stored(directory: Path, table: pa.Table) -> dict[str, Path]:
    """``table`` as a Parquet file (row groups of 7 rows), a folder of three Parquet files (cut inside
    queries) and an Arrow IPC file (record batches of 11 rows)."""
    parquet, folder, arrow = directory / 'run.parquet', directory / 'run-parts', directory / 'run.arrow'
    pq.write_table(table, parquet, row_group_size=7)
    folder.mkdir()
    cuts = [0, table.num_rows // 3 + 1, 2 * table.num_rows // 3 + 2, table.num_rows]
    for part, (start, end) in enumerate(zip(cuts, cuts[1:], strict=False)):
        pq.write_table(table.slice(start, end - start), folder / f'part-{part}.parquet', row_group_size=4)
    with pa.OSFile(str(arrow), 'wb') as sink, pa.ipc.new_file(sink, table.schema) as writer:
        for batch in table.to_batches(max_chunksize=11):
            writer.write_batch(batch)
    return {'parquet': parquet, 'folder': folder, 'arrow': arrow}


def streamed(path: Path, with_rank: bool, rows: int, bucket_rows: int = 50) -> pieces.RunStream:
    source = ColumnarSource.of_path(path, 'arrow' if path.suffix == '.arrow' else 'parquet')
    return pieces.RunStream(source, with_rank, rows * ROW_BYTES, bucket_rows * ROW_BYTES)


def assert_streams_as_in_memory(qrels: Path, trec_run: Path, runs: dict[str, Path], ranking: Ranking) -> None:
    """Every stored form streamed in batches of every size of BATCH_ROWS: the bits of reading it whole, and of
    reading the TREC file whole."""
    measures = [measure for measure in MEASURES if supported(measure, ranking)]
    built = evaluators.evaluator(measures, qrels, ranking)
    trec = built.values(trec_run)
    for form, path in runs.items():
        whole = built.values(path)
        for rows in BATCH_ROWS:
            values = built.values(streamed(path, built.reads_rank, rows))
            for measure in measures:
                assert values[measure].tobytes() == whole[measure].tobytes() == trec[measure].tobytes(), \
                    (form, rows, measure)


@pytest.mark.parametrize('interleave', [False, True])
@pytest.mark.parametrize('ties', ['trec_eval', 'rank'])
def test_streamed_parquet_and_arrow_runs_give_the_in_memory_bits(tmp_path, monkeypatch, interleave, ties):
    qrels, run = write_files(tmp_path, seed=20 + len(ties), interleave=interleave)
    scratch, partitioned = watched_partitions(tmp_path, monkeypatch)
    assert_streams_as_in_memory(qrels, run, stored(tmp_path, run_table(run)), Ranking(ties=ties))
    assert bool(partitioned) == interleave and leftovers(scratch) == []


def test_streamed_values_match_pytrec_eval(tmp_path):
    """An independent reference: pytrec_eval on the rows of the Parquet file (read by pyarrow alone), the run
    streamed 3 rows at a time from row groups of 7."""
    qrels, run = write_files(tmp_path, seed=31)
    path = stored(tmp_path, run_table(run))['parquet']
    run_dict: dict = {}
    for row in pq.read_table(path).to_pylist():
        run_dict.setdefault(row['qid'], {})[row['docno']] = row['score']
    assert_streamed_as_pytrec_eval(qrels, run_dict, streamed(path, False, 3))


def test_streaming_is_chosen_by_rows(tmp_path, monkeypatch):
    """Below the threshold a path or dataset comes back opened, to be read whole without opening it again."""
    _, run = write_files(tmp_path, seed=1)
    path = stored(tmp_path, run_table(run))['parquet']
    size = pq.read_metadata(path).num_rows * ROW_BYTES
    assert isinstance(pieces.streamed_or_whole(path, False), ColumnarSource)
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', size + 1)
    for run_form in (path, str(path), ds.dataset(path)):
        opened = pieces.streamed_or_whole(run_form, False)
        assert isinstance(opened, ColumnarSource) and opened.num_rows == size // ROW_BYTES, run_form
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', size)
    for run_form in (path, str(path), ds.dataset(path), ColumnarSource.of_path(path, 'parquet')):
        chosen = pieces.streamed_or_whole(run_form, True)
        assert isinstance(chosen, pieces.RunStream) and chosen.with_rank and chosen.block_bytes == pieces.BLOCK_BYTES


def test_the_provider_and_the_command_stream_parquet_runs(tmp_path, monkeypatch, capsys):
    from irmeasures_ext.cli import main
    qrels, run = write_files(tmp_path, seed=2, interleave=True)
    runs = stored(tmp_path, run_table(run))
    measures = [ir_measures.AP, ir_measures.parse_measure('Q@10'), ir_measures.parse_measure('MedianRank')]
    provider = ir_measures.providers.registry['irmeasures_ext']
    whole = provider.calc_aggregate(measures, str(qrels), str(run))
    assert main([str(qrels), str(run), 'AP', 'Q@10', 'MedianRank', '-q', '-p', '-1']) == 0
    printed = capsys.readouterr().out
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 6 * ROW_BYTES)
    monkeypatch.setattr(pieces, 'BUCKET_BYTES', 100 * ROW_BYTES)
    read = []
    monkeypatch.setattr(stream, '_ordered', lambda *args, original=stream._ordered: read.append(1) or original(*args))
    for path in runs.values():
        assert provider.calc_aggregate(measures, str(qrels), path) == whole, path
        assert main([str(qrels), str(path), 'AP', 'Q@10', 'MedianRank', '-q', '-p', '-1']) == 0
        assert capsys.readouterr().out == printed, path
    assert provider.calc_aggregate(measures, str(qrels), ds.dataset(runs['folder'])) == whole
    assert len(read) == 2 * (2 * len(runs) + 1)  # (each tried contiguous, then partitioned)


# --- errors ---------------------------------------------------------------------------------------------------------

def lines_table(count: int) -> pa.Table:
    """``count`` rows, ten docs a query, by descending score."""
    return pa.table({'query_id': [f'q{i // 10}' for i in range(count)], 'doc_id': [f'd{i}' for i in range(count)],
                     'score': [1 / (i + 1) for i in range(count)], 'rank': [i % 10 + 1 for i in range(count)]})


def write_parquet(path: Path, table: pa.Table) -> Path:
    pq.write_table(table, path, row_group_size=2)
    return path


def evaluate_both(qrels: Path, path: Path, rows: int = 3, ranking: Ranking = DEFAULT_RANKING) -> list[str]:
    """The messages of the InputErrors of reading ``path`` whole and streamed ``rows`` at a time."""
    built = evaluators.evaluator([ir_measures.AP], qrels, ranking)
    messages = []
    for run in (path, streamed(path, built.reads_rank, rows)):
        with pytest.raises(InputError) as error:
            built.values(run)
        messages.append(str(error.value))
    return messages


def test_a_duplicate_doc_across_batches_is_named_as_when_read_whole(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    table = lines_table(200)
    doc_ids = table['doc_id'].to_pylist()
    doc_ids[157] = doc_ids[151]  # q15's doc d151 again, two batches later
    path = write_parquet(tmp_path / 'dup.parquet', table.set_column(1, 'doc_id', pa.array(doc_ids)))
    whole, batched = evaluate_both(qrels, path)
    assert whole == batched
    assert batched.startswith(f"{path}: run: duplicate doc 'd151' in query 'q15'")
    scores = table['score'].to_pylist()
    scores[157] = float('inf')
    path = write_parquet(tmp_path / 'inf.parquet', table.set_column(2, 'score', pa.array(scores)))
    whole, batched = evaluate_both(qrels, path)
    assert whole == batched and batched.startswith(f"{path}: run: score inf for doc 'd157' in query 'q15'")


def test_a_bad_value_after_the_first_batch_names_the_file_and_its_rows(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    table = lines_table(200)
    scores = table['score'].to_pylist()
    scores[157] = None
    path = write_parquet(tmp_path / 'null.parquet', table.set_column(2, 'score', pa.array(scores)))
    whole, batched = evaluate_both(qrels, path)  # (batches of 3 rows or fewer, in row groups of 2)
    assert whole == f"{path}: run column 'score' has 1 missing value(s), the first at row 157"
    assert batched == f"{path}: run (rows 156 to 157) column 'score' has 1 missing value(s), the first at row 157"
    ranks = pa.array([float(rank) for rank in table['rank'].to_pylist()[:157]] + [1.5] * 43)
    path = write_parquet(tmp_path / 'rank.parquet', table.set_column(3, 'rank', ranks))
    whole, batched = evaluate_both(qrels, path, ranking=Ranking(ties='rank'))
    assert whole == f"{path}: run column 'rank': rank must be an integer, got 1.5 at row 157"
    assert batched == f"{path}: run (rows 156 to 157) column 'rank': rank must be an integer, got 1.5 at row 157"
    path = write_parquet(tmp_path / 'columns.parquet', table.drop_columns(['score']))
    whole, batched = evaluate_both(qrels, path)
    assert whole == batched and batched.startswith(f"{path}: run is missing column(s) ['score']")


def test_streamed_warnings_follow_the_rank_column(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    table = lines_table(100)
    ascending = table.set_column(2, 'score', pa.array([float(i % 10) for i in range(100)]))
    built = evaluators.evaluator([ir_measures.AP], qrels)
    path = write_parquet(tmp_path / 'ascending.parquet', ascending)
    with pytest.warns(ReversedScoresWarning, match=f'^{path}: in all 10 queries'):
        built.values(streamed(path, False, 7))
    path = write_parquet(tmp_path / 'no-ranks.parquet', ascending.drop_columns(['rank']))
    with warnings.catch_warnings():
        warnings.simplefilter('error', ReversedScoresWarning)
        built.values(streamed(path, False, 7))


# --- temporary files ------------------------------------------------------------------------------------------------

def test_partitions_of_a_parquet_run_are_removed_after_the_evaluation_and_after_an_error(tmp_path, monkeypatch):
    scratch, made = watched_partitions(tmp_path, monkeypatch)
    qrels, run = write_files(tmp_path, seed=6, interleave=True)
    table = run_table(run)
    path = stored(tmp_path, table)['parquet']
    built = evaluators.evaluator([ir_measures.AP], qrels)
    built.values(streamed(path, False, 8))
    assert made and made[0].parent == scratch and leftovers(scratch) == []
    scores = table['score'].to_pylist()
    scores[-1] = float('nan')
    pq.write_table(table.set_column(2, 'score', pa.array(scores)), path, row_group_size=7)
    with pytest.raises(InputError, match='is not a finite number'):
        built.values(streamed(path, False, 8))
    assert len(made) == 2 and leftovers(scratch) == []
