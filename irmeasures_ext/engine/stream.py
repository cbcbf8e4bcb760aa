"""Evaluating a run as it is read: memory bounded by the qrels, the largest query and a few blocks of
the run, not by the run's length.

A TREC file is read in blocks of about :data:`BLOCK_BYTES` (:meth:`TrecSource.tables`); a Parquet/Arrow
run (a file, a folder, a dataset) in batches of BLOCK_BYTES / :data:`ROW_BYTES` rows or fewer (Parquet
row groups cut them too), in stored order, each checked as the whole data is (:func:`~.inputs.run_batches`).
The rows of each
block's last query, which the next block may continue, are carried over to it, so that every batch holds
whole queries; each batch is ranked and evaluated by the same engine as a whole run (:class:`RankedRun`
against the one :class:`Judgments`, kernels, transforms), and a qrels query takes its value from the one
batch that retrieves for it, else its value for an unanswered query. A query's value depends on its own
rows only (:func:`~.segments.offset_cumsum`), so the values are the bits of the in-memory path.

Runs whose queries are interleaved (a query id reappearing after another query's rows have been
evaluated) are seen as they are read; the file is then read again from its start and partitioned by a
hash of the query id into Arrow IPC files, one per bucket of about :data:`BUCKET_BYTES` of lines, in a
temporary directory under ``$TMPDIR`` (:func:`temporary_directory`: removed on return, on an exception,
and on SIGINT/SIGTERM once the command has turned them into exceptions), and evaluated bucket by bucket.

Errors name the file's line: a problem found in a batch (a duplicate doc, a score that is not finite) is
looked up in the whole file from its start, as for the in-memory path; when several problems are in a
file, the first batch holding one decides which is reported. Parquet/Arrow files have no lines: their
errors name the file, as the in-memory path's do, and a bad value the batch's rows.
"""
from __future__ import annotations

import contextlib
import os
import queue
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.ipc

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import to_numpy
from irmeasures_ext.engine.doc_ids import DocIds
from irmeasures_ext.errors import TemporaryFilesError
from irmeasures_ext.readers import columnar, trec
from irmeasures_ext.readers.inputs import (
    Input,
    is_dataset,
    queries_listed_by_ascending_score,
    run_batches,
    warn_if_listed_by_ascending_score,
)

if TYPE_CHECKING:
    from ir_measures.measures import Measure

    from irmeasures_ext.engine.evaluator import ExtEvaluator
    from irmeasures_ext.engine.ranking import RankedRun

T = TypeVar('T')

#: TREC run files of at least this many bytes (a compressed one: its size times GZIP_RATIO) are evaluated as
#: they are read; smaller ones are read whole, which is faster while they fit (see benchmarks/scale.py).
STREAM_FROM_BYTES = 1 << 29
#: About how many times larger than its compressed file a run file is (gzip's; bz2 and xz compress more).
GZIP_RATIO = 4
#: The bytes a Parquet/Arrow run's row stands for (about a TREC run line: ``q1234 Q0 D123456 12 -0.123 tag``):
#: such a run of at least STREAM_FROM_BYTES / ROW_BYTES rows is streamed, BLOCK_BYTES / ROW_BYTES rows at once.
#: (Rows, not the files' bytes: the in-memory path's memory follows the rows, however well the files compress.)
ROW_BYTES = 40
#: Bytes of lines read, parsed and evaluated at once.
BLOCK_BYTES = 1 << 23
#: Bytes of lines per bucket of an interleaved run (one IPC file each).
BUCKET_BYTES = 1 << 26
#: Prefix of the temporary directories.
TEMPORARY_PREFIX = 'irmeasures-ext-'


@dataclass(frozen=True)
class RunStream:
    """A TREC run file, or a Parquet/Arrow run, to evaluate as it is read, in blocks of ``block_bytes``
    (buckets of ``bucket_bytes`` for interleaved queries; a Parquet/Arrow row counts :data:`ROW_BYTES`)."""

    source: trec.TrecSource | columnar.ColumnarSource
    with_rank: bool
    block_bytes: int
    bucket_bytes: int

    @property
    def layout(self) -> trec.Layout:
        return trec.RANKED_RUN if self.with_rank else trec.RUN

    @property
    def name(self) -> str:
        """The run's name in messages."""
        return self.source.name or 'run'

    @property
    def checks_order(self) -> bool:
        """Whether the rows are checked to be listed by descending score, as :func:`~.inputs.read_input` checks
        them: a run read without its ranks, from a TREC file or with a rank column."""
        return not self.with_rank and (isinstance(self.source, trec.TrecSource) or 'rank' in self.source.column_names)

    def tables(self) -> Iterator[pa.Table]:
        """The run's tables, each read and parsed on another thread while the one before is evaluated."""
        if isinstance(self.source, trec.TrecSource):
            return _read_ahead(self.source.tables(self.layout, self.block_bytes))
        return _read_ahead(run_batches(self.source, self.with_rank, max(1, self.block_bytes // ROW_BYTES)))


def streamed_or_opened(run: Any, with_rank: bool) -> RunStream | Any:
    """``run`` as a :class:`RunStream` if it is one, or a run of at least :data:`STREAM_FROM_BYTES`
    (:func:`size_of`): a TREC run file (a path or a TrecSource read from disk), or a Parquet/Arrow run (a
    path, a ColumnarSource or a ``pyarrow.dataset.Dataset``). Else what to read whole: the source opened
    here for a path or dataset (so that a file is opened once), or ``run`` as it is."""
    if isinstance(run, RunStream):
        return run if run.with_rank == with_rank else RunStream(run.source, with_rank, run.block_bytes,
                                                                run.bucket_bytes)
    if isinstance(run, (str, os.PathLike)):
        if not _readable_again(run):  # (a pipe opened here would be empty for the read that follows)
            return run
        run = columnar.open_file(run)
    elif is_dataset(run):
        run = columnar.ColumnarSource.of_dataset(run)
    if not isinstance(run, (trec.TrecSource, columnar.ColumnarSource)):
        return run
    size = size_of(run)
    if size is None or size < STREAM_FROM_BYTES:
        return run
    return RunStream(run, with_rank, BLOCK_BYTES, BUCKET_BYTES)


def size_of(source: trec.TrecSource | columnar.ColumnarSource) -> int | None:
    """About how many bytes of TREC lines ``source`` holds: a TREC file's size (a compressed one's times
    :data:`GZIP_RATIO`; None for one already in memory), a Parquet/Arrow run's rows times :data:`ROW_BYTES`."""
    if isinstance(source, columnar.ColumnarSource):
        return source.num_rows * ROW_BYTES
    if source.size is None:
        return None
    return source.size * (GZIP_RATIO if source.compressed else 1)


def _readable_again(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can be opened twice with the same content: a file or folder, not a pipe or device
    (a path that cannot be looked at is left to the reader, which names the problem)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


@dataclass
class Streamed:
    """The per-query values of a streamed run, and what the evaluator's checks need of it."""

    values: dict[Measure, np.ndarray]
    retrieved: int      # docs retrieved for qrels queries
    run_queries: int    # queries of the run (run-only ones too)


def evaluate(evaluator: ExtEvaluator, run: RunStream) -> Streamed:
    """The values of ``evaluator``'s measures for ``run``, batch by batch (see the module docstring)."""
    try:
        return _evaluate(evaluator, run, _contiguous(_whole_queries(run.tables())))
    except _Interleaved:
        pass
    try:
        with temporary_directory() as directory:
            return _evaluate(evaluator, run, _partitioned(run, directory))
    except _NoRoom as no_room:
        raise TemporaryFilesError.of(f'{run.name}: its queries are interleaved, so it is partitioned by query in '
                                     'temporary files', no_room.error) from None


class _NoRoom(Exception):
    """A temporary file of :func:`_partitioned` could not be written (``error``): not the run's reading."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _evaluate(evaluator: ExtEvaluator, run: RunStream, batches: Iterator[pa.Table]) -> Streamed:
    """Each measure's value for a query from the batch retrieving docs for it in the measure's list; for the
    others, from a list without rows retrieving what the whole run retrieves per query (MeanRank's value
    of an unanswered query depends on the deepest query)."""
    answered: dict[Measure, tuple[np.ndarray, np.ndarray]] = {}  # values, and whether each is the query's
    retrieved: dict[Any, np.ndarray] = {}  # docs retrieved per query, per list
    last: dict[Any, RankedRun] = {}
    run_queries = 0
    ascending: int | None = 0
    for batch in batches:
        if run.checks_order and ascending is not None:
            found = queries_listed_by_ascending_score(batch)
            ascending = None if found is None else ascending + found
        rankings = evaluator.ranked(Input(batch, run.source))
        if not rankings:
            continue
        run_queries += next(iter(rankings.values())).run_queries
        lists = evaluator.lists_of(rankings)
        for key, ranked in lists.items():
            retrieved[key] = retrieved[key] + ranked.n_retrieved if key in retrieved else ranked.n_retrieved
        last = lists
        for measure, column in evaluator.kernel_values(lists).items():
            values, mask = answered.setdefault(measure, (np.empty_like(column), np.zeros(len(column), dtype=bool)))
            now = lists[evaluator.lists[measure]].n_retrieved > 0
            values[now] = column[now]
            mask |= now
    if run.checks_order:
        warn_if_listed_by_ascending_score(ascending, run.name)
    if not last:  # an empty run, or no measure: the values of a run retrieving nothing
        return Streamed(evaluator.computed(evaluator.ranked(Input(run.layout.schema.empty_table(), run.source))), 0,
                        0)
    unanswered = evaluator.kernel_values({key: ranked.without_rows(retrieved[key], run_queries)
                                          for key, ranked in last.items()})
    for measure, (values, mask) in answered.items():
        unanswered[measure][mask] = values[mask]
    base = next(key for key in retrieved if not key[1])  # (a ranking without transforms)
    return Streamed(unanswered, int(retrieved[base].sum()), run_queries)


class _Interleaved(Exception):
    """A query reappears after its rows were evaluated."""


def _whole_queries(tables: Iterator[pa.Table]) -> Iterator[pa.Table]:
    """The rows of ``tables``, in order, cut where the query id changes: each block's rows but those of its
    last query, which are carried over to the next block (a query longer than a block is carried whole)."""
    carried: list[pa.Table] = []
    for table in (table for table in tables if table.num_rows):
        query_ids = table['query_id']
        others = to_numpy(ac.indices_nonzero(ac.not_equal(query_ids, query_ids[-1])))
        if not len(others):
            carried.append(table)
            continue
        cut = int(others[-1]) + 1  # the first row of the last query
        yield pa.concat_tables([*carried, table.slice(0, cut)])
        carried = [table.slice(cut)]
    if carried:
        yield pa.concat_tables(carried)


def _contiguous(batches: Iterator[pa.Table]) -> Iterator[pa.Table]:
    """``batches`` as they come; _Interleaved as soon as one holds a query of an earlier one (by 64-bit hashes
    of the query ids: a collision only sends the run to the partitioned path)."""
    seen = np.empty(0, dtype=np.uint64)
    for batch in batches:
        hashes = np.sort(DocIds.of(pa.chunked_array([ac.unique(batch['query_id'])])).hash)
        position = np.minimum(np.searchsorted(seen, hashes), max(len(seen) - 1, 0))
        if len(seen) and np.any(seen[position] == hashes):
            raise _Interleaved
        seen = np.sort(np.concatenate((seen, hashes)))
        yield batch


def _partitioned(run: RunStream, directory: Path) -> Iterator[pa.Table]:
    """The rows of ``run`` by buckets of query ids: written to one IPC file per bucket under ``directory``
    (rows in file order), then read back one bucket at a time (each file removed once read)."""
    n_buckets = max(1, -(-(size_of(run.source) or 0) // run.bucket_bytes))
    writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
    paths = {bucket: directory / f'bucket-{bucket}.arrow' for bucket in range(n_buckets)}
    try:
        for table in _whole_queries(run.tables()):
            bucket = _bucket_of(table['query_id'], n_buckets)
            order = np.argsort(bucket, kind='stable')
            counts = np.bincount(bucket, minlength=n_buckets)
            grouped = table.take(pa.array(order))
            start = 0
            for index in np.flatnonzero(counts).tolist():
                try:
                    if index not in writers:
                        writers[index] = pa.ipc.new_stream(str(paths[index]), table.schema)
                    writers[index].write_table(grouped.slice(start, int(counts[index])))
                except OSError as error:
                    raise _NoRoom(error) from None
                start += int(counts[index])
    finally:
        for writer in writers.values():
            with contextlib.suppress(OSError):  # (a full disk: _NoRoom says so)
                writer.close()
    for index in sorted(writers):
        with pa.ipc.open_stream(str(paths[index])) as reader:
            table = reader.read_all()
        paths[index].unlink()
        yield table


def _bucket_of(query_ids: pa.ChunkedArray, n_buckets: int) -> np.ndarray:
    """Each row's bucket, from the top 32 bits of its query id's hash."""
    top = DocIds.of(query_ids).hash >> np.uint64(32)
    return ((top * np.uint64(n_buckets)) >> np.uint64(32)).view(np.int64)


def _read_ahead(items: Iterator[T]) -> Iterator[T]:
    """``items``, each taken on a thread of its own while the caller works on the one before (Arrow's parse
    releases the GIL); the thread stops when the caller stops asking (closing this generator)."""
    ready: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    with contextlib.suppress(queue.Full):
                        ready.put((True, item), timeout=0.1)
                        break
                if stop.is_set():
                    return
            ready.put((False, None))
        except BaseException as error:  # (handed to the caller, who raises it)
            ready.put((False, error))

    threading.Thread(target=produce, name='irmeasures-ext read-ahead', daemon=True).start()
    try:
        while True:
            more, item = ready.get()
            if not more:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()


@contextlib.contextmanager
def temporary_directory() -> Iterator[Path]:
    """A new directory under ``$TMPDIR`` (``tempfile.gettempdir()``), removed with its files on leaving,
    normally or by an exception (KeyboardInterrupt, and SystemExit from the command's SIGTERM handler)."""
    path = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
