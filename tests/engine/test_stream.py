"""Streaming evaluation (:mod:`irmeasures_ext.engine.stream`): a run file evaluated block by block, or
partitioned by query when its queries are interleaved, gives the in-memory path's values bit for bit, for
every measure, tie policy and mode; errors name the file's lines; temporary files do not outlive the
evaluation. Blocks of a few dozen bytes make queries straddle blocks."""
from __future__ import annotations

import lzma
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import ir_measures
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pytest
from stream_checks import (
    EXPECTED,
    MEASURES,
    assert_streamed_as_pytrec_eval,
    assert_streams_as_in_memory,
    leftovers,
    streamed,
    watched_partitions,
    write_files,
)

import irmeasures_ext
from irmeasures_ext.engine import evaluator as evaluators
from irmeasures_ext.engine import stream
from irmeasures_ext.errors import (
    InputError,
    NoOverlapWarning,
    ReversedScoresWarning,
    TemporaryFilesError,
)
from irmeasures_ext.measures.base import Ranking
from irmeasures_ext.readers import pieces, trec
from irmeasures_ext.readers.trec import TrecSource

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.ReversedScoresWarning')


@pytest.mark.parametrize('interleave', [False, True])
@pytest.mark.parametrize('ties', ['trec_eval', 'optimistic', 'pessimistic', 'rank'])
def test_streamed_values_are_the_in_memory_bits(tmp_path, interleave, ties):
    qrels, run = write_files(tmp_path, seed=len(ties), interleave=interleave)
    assert_streams_as_in_memory(MEASURES, qrels, run, Ranking(ties=ties))


@pytest.mark.parametrize('pieces_count', [1, 2, 7])
def test_partial_merge_finished_of_query_pieces_in_any_order_are_the_whole_runs_values(tmp_path, pieces_count):
    """The engine's API for evaluating in pieces (which the stream and Dask use): a run cut into pieces of whole
    queries, evaluated in any order (a piece without qrels queries, an empty piece), merged, equals the whole run."""
    qrels, run = write_files(tmp_path, seed=11)
    built = evaluators.evaluator(MEASURES + [ir_measures.parse_measure('AP(judged_only=True)')], qrels)
    table = TrecSource(run).read(trec.RUN)
    query_ids = sorted(set(table['query_id'].to_pylist()))
    random.Random(pieces_count).shuffle(query_ids)
    groups = [query_ids[i::pieces_count] for i in range(pieces_count)] + [[]]
    partials = [built.partial(table.filter(pc.is_in(table['query_id'], pa.array(group, pa.string()))))
                for group in reversed(groups)]
    whole = built.values(run)
    merged = built.finished(built.merge(partials))
    assert list(merged) == list(whole)
    for measure in whole:  # (bit for bit, NaN where the measure is undefined)
        np.testing.assert_array_equal(merged[measure], whole[measure], err_msg=str(measure), strict=True)
    with pytest.warns(NoOverlapWarning):
        empty = built.finished(built.merge([]))  # (no piece: the values of an empty run)
    with pytest.warns(NoOverlapWarning):
        nothing = built.values(table.slice(0, 0))
    for measure in whole:
        np.testing.assert_array_equal(empty[measure], nothing[measure], err_msg=str(measure), strict=True)


@pytest.mark.parametrize('interleave', [False, True])
def test_streamed_values_with_expected_ties_float64_scores_and_depth(tmp_path, interleave):
    qrels, run = write_files(tmp_path, seed=3, interleave=interleave)
    assert_streams_as_in_memory(EXPECTED, qrels, run, Ranking(ties='expected'))
    assert_streams_as_in_memory(MEASURES, qrels, run, Ranking(score_precision='float64', depth=7))


@pytest.mark.parametrize('interleave', [False, True])
def test_streamed_values_of_judged_only_and_classes(tmp_path, interleave):
    qrels, run = write_files(tmp_path, seed=5, interleave=interleave, classes=True)
    measures = [measure(judged_only=True) for measure in MEASURES if 'judged_only' in measure.SUPPORTED_PARAMS]
    measures += [ir_measures.parse_measure(text) for text in ['Q(classes=True)', 'nDCG_JK(classes=True)@10',
                                                               'MeanRank(classes=True)', 'ERR_NTCIR(classes=True)@10']]
    assert_streams_as_in_memory(measures, qrels, run)


def test_streamed_gzip_run(tmp_path):
    qrels, run = write_files(tmp_path, seed=7, compress=True)
    assert_streams_as_in_memory(MEASURES, qrels, run)


def test_streamed_values_match_pytrec_eval(tmp_path):
    """An independent reference: pytrec_eval on the same files, per query (qrels queries the run misses: 0)."""
    qrels, run = write_files(tmp_path, seed=11)
    run_dict: dict = {}
    for doc in ir_measures.read_trec_run(str(run)):
        run_dict.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    assert_streamed_as_pytrec_eval(qrels, run_dict, streamed(run, False, 40))


def test_streaming_is_chosen_by_file_size(tmp_path, monkeypatch):
    """Below the threshold a path comes back opened (read whole without opening it again); a pipe's path as
    it is (opened once, by the reader)."""
    _, run = write_files(tmp_path, seed=1)
    opened = pieces.streamed_or_whole(run, False)
    assert isinstance(opened, TrecSource) and opened.path == run
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', run.stat().st_size)
    chosen = pieces.streamed_or_whole(str(run), True)
    assert isinstance(chosen, pieces.RunStream) and chosen.with_rank and chosen.block_bytes == pieces.BLOCK_BYTES
    in_memory = TrecSource.of_bytes(run.read_bytes(), 'x')
    assert pieces.streamed_or_whole(in_memory, False) is in_memory
    reading, writing = os.pipe()
    try:
        assert pieces.streamed_or_whole(f'/dev/fd/{reading}', False) == f'/dev/fd/{reading}'
    finally:
        os.close(reading)
        os.close(writing)


def test_the_provider_and_the_command_stream_large_files(tmp_path, monkeypatch, capsys):
    from irmeasures_ext.cli import main
    qrels, run = write_files(tmp_path, seed=2, interleave=True)
    measures = [ir_measures.AP, ir_measures.parse_measure('Q@10')]
    provider = ir_measures.providers.registry['irmeasures_ext']
    whole = provider.calc_aggregate(measures, str(qrels), str(run))
    assert main([str(qrels), str(run), 'AP', 'Q@10', '-p', '-1']) == 0
    printed = capsys.readouterr().out
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 50)
    monkeypatch.setattr(pieces, 'BUCKET_BYTES', 100)
    read = []
    monkeypatch.setattr(stream, '_ordered', lambda *args, original=stream._ordered: read.append(1) or original(*args))
    assert provider.calc_aggregate(measures, str(qrels), str(run)) == whole
    assert main([str(qrels), str(run), 'AP', 'Q@10', '-p', '-1']) == 0
    assert capsys.readouterr().out == printed
    assert len(read) == 4  # (each tried contiguous, then partitioned)


def command(*arguments: str, block: int = 60, bucket: int = 1000, **popen: object) -> subprocess.Popen:
    """``irmeasures-ext ARGUMENTS`` in a fresh process that streams every run in blocks of ``block`` bytes
    (buckets of ``bucket`` bytes)."""
    code = ('from irmeasures_ext.readers import pieces; pieces.STREAM_FROM_BYTES = 0; '
            f'pieces.BLOCK_BYTES = {block}; pieces.BUCKET_BYTES = {bucket}; from irmeasures_ext.cli import command; '
            'command()')
    return subprocess.Popen([sys.executable, '-c', code, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)  # type: ignore[call-overload]


@pytest.mark.parametrize('interleave', [False, True])
def test_standard_input_is_streamed(tmp_path, interleave, capsys):
    from irmeasures_ext.cli import main
    qrels, run = write_files(tmp_path, seed=4, interleave=interleave)
    arguments = [str(qrels), '-', 'AP', 'nDCG@5', 'ERR_NTCIR@10', '-q', '-p', '-1']
    assert main([str(qrels), str(run), *arguments[2:]]) == 0
    with open(run) as handle:
        child = command(*arguments, stdin=handle)
        out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert out == capsys.readouterr().out


# --- errors ---------------------------------------------------------------------------------------------------------

def lines_of(count: int) -> list[str]:
    return [f'q{i // 10} Q0 d{i} 1 {1 / (i + 1)!r} tag\n' for i in range(count)]


def evaluate_streamed(qrels: Path, run: Path, block: int = 64) -> None:
    built = evaluators.evaluator([ir_measures.AP], qrels)
    built.values(streamed(run, False, block))


def test_a_duplicate_doc_split_across_blocks_names_both_lines(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    lines = lines_of(200)
    lines[157] = lines[151]  # q15's doc d151 again, more than a block later
    run = tmp_path / 'dup.txt'
    run.write_text(''.join(lines))
    with pytest.raises(InputError, match=rf"^{run}:158: duplicate doc 'd151' in query 'q15' \(first at line 152\)"):
        evaluate_streamed(qrels, run, block=48)


def test_a_score_error_after_the_first_block_names_its_line(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    lines = lines_of(300)
    lines[233] = 'q23 Q0 d233 1 nan tag\n'
    run = tmp_path / 'nan.txt'
    run.write_text(''.join(lines))
    with pytest.raises(InputError, match=rf"^{run}:234: score 'nan' is not finite"):
        evaluate_streamed(qrels, run)
    lines[233] = 'q23 Q0 d233 1 x1 tag\n'
    run.write_text(''.join(lines))
    with pytest.raises(InputError, match=rf"^{run}:234: score 'x1' is not a number"):
        evaluate_streamed(qrels, run)
    lines[233] = 'q23 Q0 d233 1\n'
    run.write_text(''.join(lines))
    with pytest.raises(InputError, match=rf'^{run}:234: expected 6 fields'):
        evaluate_streamed(qrels, run)


def test_blank_and_irregular_lines_stream_like_the_whole_file(tmp_path):
    qrels, run = write_files(tmp_path, seed=9)
    text = run.read_text().splitlines(keepends=True)
    mixed = ''.join(line.replace(' ', '\t  ', 1) + ('\n   \n' if i % 7 == 0 else '') if i % 3 == 0 else line
                    for i, line in enumerate(text))
    run.write_bytes(b'\xef\xbb\xbf' + mixed.replace('\n', '\r\n').encode())
    assert_streams_as_in_memory(MEASURES[:6], qrels, run)
    (tmp_path / 'blank.txt').write_text('\n \n\t\n')  # an empty run: each query's value when unanswered
    built = evaluators.evaluator(MEASURES[:6], qrels)
    with pytest.warns(NoOverlapWarning, match='the run is empty'):
        streamed_values = built.values(streamed(tmp_path / 'blank.txt', False, 64))
        in_memory = built.values({})
    assert streamed_values.keys() == in_memory.keys() and all(
        streamed_values[m].tobytes() == in_memory[m].tobytes() for m in in_memory)


def test_streamed_warnings(tmp_path):
    qrels, _ = write_files(tmp_path, seed=1)
    run = tmp_path / 'other.txt'
    run.write_text(''.join(line.replace('q', 'zz', 1) for line in lines_of(100)))
    with pytest.warns(NoOverlapWarning, match='none of its 10 queries is in the qrels'):
        evaluate_streamed(qrels, run)
    ascending = [f'q{i // 10} Q0 d{i} {i % 10 + 1} {i % 10} tag\n' for i in range(100)]
    run.write_text(''.join(ascending))
    with pytest.warns(ReversedScoresWarning, match='in all 10 queries'):
        evaluate_streamed(qrels, run, block=50)


# --- query-local sums -----------------------------------------------------------------------------------------------

def test_a_query_gets_the_same_bits_whatever_queries_come_before(tmp_path):
    """Cascades (ERR, RBP, iRBU, nERR) and float gains sum down a query's ranking: the sums restart at each
    query, not from the rounding of the queries before it."""
    rng = random.Random(12)
    qrels = {'b': {f'd{i}': rng.randint(0, 3) for i in range(50)},
             'a': {f'd{i}': rng.randint(0, 3) for i in range(50)}}
    run_b = {'b': {f'd{i}': rng.random() for i in range(50)}}
    run_ab = {'a': {f'd{i}': rng.random() for i in range(50)}, **run_b}
    measures = [ir_measures.parse_measure(text) for text in
                ['ERR_NTCIR@20', 'RBP_NTCIR', 'iRBU(u=0.9)@20', 'nERR@20', 'Q(gains={1:0.1,2:0.7,3:1.3})', 'EBR']]
    provider = ir_measures.providers.registry['irmeasures_ext']
    alone = {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run_b)}
    after = {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run_ab)}
    for measure in measures:
        assert after[str(measure), 'b'] == alone[str(measure), 'b'], measure
        assert not math.isnan(alone[str(measure), 'b'])


def test_offset_cumsum_is_the_running_sum_of_each_run():
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    offset = np.array([0, 1, 2, 0, 0, 1, 2])
    expected = [0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.3, 0.4, 0.5, 0.5 + 0.6, 0.5 + 0.6 + 0.7]
    assert stream_cumsum(values, offset) == pytest.approx(expected, abs=1e-15)


def stream_cumsum(values: np.ndarray, offset: np.ndarray) -> list[float]:
    from irmeasures_ext.engine.segments import offset_cumsum
    return offset_cumsum(values, offset).tolist()


# --- temporary files ------------------------------------------------------------------------------------------------


def test_partitions_are_removed_after_the_evaluation_and_after_an_error(tmp_path, monkeypatch):
    scratch, made = watched_partitions(tmp_path, monkeypatch)
    qrels, run = write_files(tmp_path, seed=6, interleave=True)
    built = evaluators.evaluator([ir_measures.AP], qrels)
    built.values(streamed(run, False, 64))
    assert made and made[0].parent == scratch and leftovers(scratch) == []
    run.write_text(run.read_text() + 'q5 Q0 d1 1 inf tag\n')
    with pytest.raises(InputError, match='is not finite'):
        built.values(streamed(run, False, 64))
    assert len(made) == 2 and leftovers(scratch) == []


@pytest.mark.parametrize('fails', ['new_stream', 'write_table'])
def test_a_full_temporary_folder_while_partitioning_is_one_error_naming_tmpdir(tmp_path, monkeypatch, fails):
    """The partitions of an interleaved run cannot be written (the disk of $TMPDIR is full): an error saying so and
    that TMPDIR picks the folder, not a bare errno; nothing left behind."""
    import errno
    scratch, _ = watched_partitions(tmp_path, monkeypatch)
    qrels, run = write_files(tmp_path, seed=6, interleave=True)
    built = evaluators.evaluator([ir_measures.AP], qrels)
    real_new_stream = pa.ipc.new_stream

    class FullWriter:
        def __init__(self, *args):
            self.writer = real_new_stream(*args)

        def write_table(self, table):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def close(self):
            self.writer.close()

    def full(*args):
        if fails == 'new_stream':
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return FullWriter(*args)
    monkeypatch.setattr(pa.ipc, 'new_stream', full)
    with pytest.raises(TemporaryFilesError) as raised:
        built.values(streamed(run, False, 64))
    assert str(raised.value) == (f'{run}: its queries are interleaved, so it is partitioned by query in temporary '
                                 f'files under {scratch}, which could not be written (No space left on device): set '
                                 'TMPDIR to a folder with room')
    assert leftovers(scratch) == []


@pytest.mark.parametrize(('sent', 'status'), [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, 130)])
def test_a_signal_while_partitioning_removes_the_partitions(tmp_path, sent, status):
    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    rng = np.random.default_rng(3)
    query = rng.integers(0, 2000, 400_000)
    (tmp_path / 'qrels.txt').write_text(''.join(f'q{i} 0 d{i} 1\n' for i in range(2000)))
    with open(tmp_path / 'run.txt', 'w') as handle:
        handle.writelines(f'q{q} Q0 d{row} 1 {row % 97} tag\n' for row, q in enumerate(query.tolist()))
    child = command(str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), 'AP', block=1 << 15, bucket=1 << 20,
                    env={**os.environ, 'TMPDIR': str(scratch)},
                    preexec_fn=lambda: signal.signal(sent, signal.SIG_DFL))  # (a background job ignores SIGINT)
    deadline = time.monotonic() + 120
    while not list(scratch.glob(f'{stream.TEMPORARY_PREFIX}*/bucket-*')):  # partitioning
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.005)
    child.send_signal(sent)
    _, err = child.communicate(timeout=120)
    assert child.returncode == status, err
    assert list(scratch.iterdir()) == []


def test_standard_input_leaves_nothing_behind(tmp_path):
    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    qrels, run = write_files(tmp_path, seed=8)
    with open(run) as handle:
        child = command(str(qrels), '-', 'AP', env={**os.environ, 'TMPDIR': str(scratch)}, stdin=handle)
        _, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert list(scratch.iterdir()) == []


def test_a_run_path_that_is_a_pipe_is_read_once(tmp_path):
    """A path to a pipe (``/dev/fd/N``, ``<(...)`` in a shell) given to the provider: deciding whether to stream
    it must not read it, or the evaluation would find it empty."""
    qrels, run = tmp_path / 'qrels.txt', tmp_path / 'run.txt'
    qrels.write_text('q 0 a 1\nq 0 b 0\n')
    run.write_text('q Q0 b 1 2.0 t\nq Q0 a 2 1.0 t\n')
    read_end, write_end = os.pipe()

    def feed() -> None:
        with open(write_end, 'wb') as pipe:
            pipe.write(run.read_bytes())

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        values = irmeasures_ext.provider.calc_aggregate([ir_measures.RR], str(qrels), f'/dev/fd/{read_end}')
    finally:
        feeder.join()
        os.close(read_end)
    assert values[ir_measures.RR] == 0.5  # a is ranked second


@pytest.mark.parametrize('damage', ['truncated', 'corrupt'])
def test_a_damaged_xz_run_streamed_names_the_file(tmp_path, monkeypatch, damage):
    """A streamed xz run that ends early or holds damaged bytes is an InputError naming the file and the last line
    read, as when it is read whole (lzma's own error, not an OSError, used to escape the streamed reader)."""
    qrels, run = write_files(tmp_path, seed=3)
    data = bytearray(lzma.compress(run.read_bytes()))
    if damage == 'truncated':
        data = data[:len(data) // 2]
    else:
        data[len(data) // 2:len(data) // 2 + 8] = b'\xff' * 8
    damaged = tmp_path / 'run.xz'
    damaged.write_bytes(bytes(data))
    for stream_from in (1 << 40, 0):  # (read whole, then streamed)
        monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', stream_from)
        with pytest.raises(InputError, match=f'{damaged}: corrupt or truncated xz after line '):
            irmeasures_ext.provider.calc_aggregate([ir_measures.AP], str(qrels), str(damaged))
