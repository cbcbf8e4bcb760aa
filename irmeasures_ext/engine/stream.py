"""Evaluating a run as it is read: memory bounded by the qrels, the largest query and a few blocks of
the run, not by the run's length.

Which runs are streamed is decided in :mod:`irmeasures_ext.readers.pieces`; a :class:`RunStream`'s source
gives its rows in blocks of about ``block_bytes`` of lines (:meth:`~irmeasures_ext.readers.source.Source.batches`),
in stored order, each checked as the whole data is. The rows of each
block's last query, which the next block may continue, are carried over to it, so that every batch holds
whole queries (:func:`in_whole_queries`); the evaluator evaluates each batch as a piece of the run
(``ExtEvaluator.partial``, by the same engine as a whole run) and merges them: a qrels query takes its value
from the one batch that retrieves for it, else its value for an unanswered query (``ExtEvaluator.merge``,
``finished``). A query's value depends on its own rows only (:func:`~.segments.offset_cumsum`), so the values
are the bits of the in-memory path. This module reads; it knows nothing of the evaluator.

Runs whose queries are interleaved (a query id reappearing after another query's rows have been
evaluated) are seen as they are read; the file is then read again from its start and partitioned by a
hash of the query id into Arrow IPC files, one per bucket of about ``bucket_bytes`` of lines, in a
temporary directory under ``$TMPDIR`` (:func:`temporary_directory`: removed on return, on an exception,
and on SIGINT/SIGTERM once the command has turned them into exceptions), and evaluated bucket by bucket.

Errors name the file's line: a problem found in a batch (a duplicate doc, a score that is not finite) is
looked up in the whole file from its start, as for the in-memory path; when several problems are in a
file, the first batch holding one decides which is reported. Parquet/Arrow files have no lines: their
errors name the file, as the in-memory path's do, and a bad value the batch's rows.
"""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.ipc

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.arrays import to_numpy
from irmeasures_ext.engine.doc_ids import DocIds
from irmeasures_ext.errors import TemporaryFilesError
from irmeasures_ext.readers.inputs import queries_listed_by_ascending_score, warn_if_listed_by_ascending_score
from irmeasures_ext.readers.pieces import RunStream

T = TypeVar('T')

#: Prefix of the temporary directories.
TEMPORARY_PREFIX = 'irmeasures-ext-'


def in_whole_queries(run: RunStream, evaluate: Callable[[Iterator[pa.Table]], T]) -> T:
    """``evaluate`` of ``run``'s rows in tables that each hold whole queries, in file order; if a query turns out
    to be interleaved with others, ``evaluate`` again of the rows partitioned by query (see the module
    docstring). A run that lists its docs by ascending score (checked as the in-memory path checks it) is
    warned about once read."""
    try:
        return _ordered(run, evaluate, _contiguous(_whole_queries(run.tables())))
    except _Interleaved:
        pass
    try:
        with temporary_directory() as directory:
            return _ordered(run, evaluate, _partitioned(run, directory))
    except _NoRoom as no_room:
        raise TemporaryFilesError.of(f'{run.name}: its queries are interleaved, so it is partitioned by query in '
                                     'temporary files', no_room.error) from None


class _NoRoom(Exception):
    """A temporary file of :func:`_partitioned` could not be written (``error``): not the run's reading."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _ordered(run: RunStream, evaluate: Callable[[Iterator[pa.Table]], T], tables: Iterator[pa.Table]) -> T:
    """``evaluate(tables)``, each table's order checked on its way (where ``run.checks_order``)."""
    if not run.checks_order:
        return evaluate(tables)
    ascending: int | None = 0  # queries listed by ascending score so far (None: one is not)

    def checked() -> Iterator[pa.Table]:
        nonlocal ascending
        for table in tables:
            if ascending is not None:
                found = queries_listed_by_ascending_score(table)
                ascending = None if found is None else ascending + found
            yield table

    evaluated = evaluate(checked())
    warn_if_listed_by_ascending_score(ascending, run.name)
    return evaluated


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
    n_buckets = max(1, -(-(run.source.size_hint() or 0) // run.bucket_bytes))
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


@contextlib.contextmanager
def temporary_directory() -> Iterator[Path]:
    """A new directory under ``$TMPDIR`` (``tempfile.gettempdir()``), removed with its files on leaving,
    normally or by an exception (KeyboardInterrupt, and SystemExit from the command's SIGTERM handler)."""
    path = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
