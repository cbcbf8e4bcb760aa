"""Fusion of runs too large to hold at once: :func:`fuse_to_file` writes what
``write_run(fuse(runs, ...), output, ...)`` writes, byte for byte, holding only a part of the queries at a time.

Every method and normalisation reads one query at a time (the normalisations one (run, query) list, ``borda``,
BordaFuse, Condorcet and BayesFuse the query's candidates; the supervised methods take their trained parameters given up
front), so the runs are fused part by part, each part a range of query ids, with the in-memory code (:mod:`.pool`,
:mod:`.normalize`, the methods):

1. Each run is read in blocks of whole queries as the evaluation streams it
   (:func:`~irmeasures_ext.engine.stream.in_whole_queries`: a run whose queries are interleaved is partitioned
   first), each block checked as :func:`~irmeasures_ext.fusion.fuse` checks a run (a non-finite score names its
   line) and written, its rows sorted by query id, as one record batch of an Arrow IPC file in a temporary
   directory (:func:`~irmeasures_ext.engine.stream.temporary_directory`: removed afterwards, on an error too).
2. The distinct query ids of all runs, in ascending byte order (the fused run's), are cut into ranges of at most
   ``max_rows`` rows of all runs together (a query with more rows is a range of its own).
3. Each range, in order, is read back from every run's file (memory-mapped slices of its batches), fused and
   appended to the output: a new file beside ``output``, renamed onto it once complete.

Memory is bounded by ``max_rows`` rows and a few blocks of one run, not by the runs' lengths. Errors are the
in-memory path's (a doc twice in a query of a run file names its lines).

The ranges are written one after another by :func:`~irmeasures_ext.ir_metadata.run_writer`, the writer of
:func:`~irmeasures_ext.ir_metadata.write_run`.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc

from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext.engine.ranking import check_run
from irmeasures_ext.engine.stream import in_whole_queries, temporary_directory
from irmeasures_ext.errors import DuplicateDocError
from irmeasures_ext.fusion.normalize import checked_norm, normalize
from irmeasures_ext.fusion.pool import FusionError, Pool, located_duplicate, range_starts
from irmeasures_ext.fusion.registry import as_frame, checked_fusion
from irmeasures_ext.ir_metadata import MetadataLike, run_writer
from irmeasures_ext.readers.inputs import Input, InputDict, TableSource, as_source, read_input
from irmeasures_ext.readers.pieces import BLOCK_BYTES, BUCKET_BYTES, RunStream
from irmeasures_ext.readers.schemas import RUN_SCHEMA
from irmeasures_ext.readers.source import Source

#: Rows of all runs together fused at once by default: two runs of 1M or 3M lines each were fused by RRF in a peak
#: RSS of 350-380 MB (in memory: 480-650 MB and 1.1 GB), no slower (benchmarks/fusion_stream_memory.py).
DEFAULT_MAX_ROWS = 1 << 19


def fuse_to_file(runs: Sequence[Any] | Mapping[str, Any], output: str | os.PathLike[str], method: str = 'rrf',
                 norm: str | None = 'min-max', params: Mapping[str, Any] | None = None, *,
                 metadata: MetadataLike | None = None, tag: str | None = None,
                 overwrite: bool = False, max_rows: int = DEFAULT_MAX_ROWS) -> tuple[int, int]:
    """Writes to ``output`` the fusion of ``runs`` by ``method``, ``norm`` and ``params`` (as
    :func:`~irmeasures_ext.fusion.fuse`), as ``write_run(fuse(runs, method, norm, params), output, metadata,
    tag=tag, overwrite=overwrite)`` writes it, byte for byte, in memory bounded by ``max_rows``: the most rows (of all
    runs together) fused at once; the rows of one query are never split (see the module's docstring). Returns the
    number of lines (docs) and of queries written."""
    runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    function, arguments = checked_fusion(method, params, len(runs))
    checked_norm(norm)  # (before reading the runs)
    if not (isinstance(max_rows, int) and max_rows >= 1):
        raise FusionError(f'max_rows must be a whole number ≥ 1, got {max_rows!r}')
    lines = queries = 0
    with run_writer(output, metadata, tag=tag, overwrite=overwrite) as write:
        with contextlib.closing(_fused_ranges(runs, norm, function, arguments, max_rows)) as ranges:
            for fused in ranges:
                write(fused)
                lines, queries = lines + len(fused), queries + fused['query_id'].nunique()
    return lines, queries


# -- the runs, spilled by query and fused range by range ---------------------------------------------------------


@dataclass
class _Spill:
    """One run's rows in an IPC file at ``path``, one record batch per block read, its rows sorted by query id
    (stably: each query's rows in the run's order); for each batch, its distinct query ids (ascending) and the row
    where each one's rows start (and the batch's end)."""

    path: Path
    source: Source
    query_ids: list[pa.Array] = field(default_factory=list)
    starts: list[np.ndarray] = field(default_factory=list)


def _fused_ranges(runs: list[Any], norm: str | None, function: Callable[..., np.ndarray], arguments: dict[str, Any],
                  max_rows: int) -> Generator[pd.DataFrame, None, None]:
    """The fusion of ``runs`` in ranges of query ids, in ascending order (the module's docstring)."""
    with temporary_directory() as directory:
        spills = [_spilled(run, directory / f'run-{i}.arrow') for i, run in enumerate(runs)]
        for slices in _ranges(spills, max_rows):
            tables = [_rows(spill, mine) for spill, mine in zip(spills, slices, strict=True)]
            try:
                pool = Pool.read(tables)
            except DuplicateDocError as error:
                raise located_duplicate(error, [Input(table, spill.source)
                                                for table, spill in zip(tables, spills, strict=True)]) from None
            pool = normalize(pool, norm)
            yield as_frame(pool.rows, pool.rows.candidate_query, pool.rows.candidate_doc, function(pool, **arguments))


def _spilled(run: Any, path: Path) -> _Spill:
    """``run`` read in blocks of whole queries, each checked as the in-memory path checks a run, and written to
    ``path`` (read again from its start if its queries turn out to be interleaved)."""
    if isinstance(run, (Input, InputDict)):
        read = read_input(run, 'run')
        source = read.source if read.source is not None else TableSource(read.table)
    else:
        source = as_source(run)

    def spill(tables: Iterator[pa.Table]) -> _Spill:
        spilled = _Spill(path, source)
        with pa.OSFile(str(path), 'wb') as sink, pa.ipc.new_file(sink, RUN_SCHEMA) as writer:
            for table in tables:
                if not table.num_rows:
                    continue
                with Input(table, source).located():
                    check_run(table, duplicates=False)
                batch, query_ids, starts = _by_query(table)
                writer.write_batch(batch)
                spilled.query_ids.append(query_ids)
                spilled.starts.append(starts)
        return spilled

    return in_whole_queries(RunStream(source, False, BLOCK_BYTES, BUCKET_BYTES), spill)


def _by_query(table: pa.Table) -> tuple[pa.RecordBatch, pa.Array, np.ndarray]:
    """``table``'s rows sorted stably by query id, its distinct query ids (ascending) and the first row of each,
    with the number of rows at the end."""
    encoded = pc.dictionary_encode(table['query_id'].combine_chunks())
    ascending = to_numpy(pc.sort_indices(encoded.dictionary)).astype(np.int64)
    place = np.empty(len(ascending), dtype=np.int64)
    place[ascending] = np.arange(len(ascending))
    key = place[to_numpy(encoded.indices).astype(np.int64)]
    order = from_numpy(np.argsort(key, kind='stable'))
    batch = pa.record_batch([table[name].combine_chunks().take(order) for name in RUN_SCHEMA.names], schema=RUN_SCHEMA)
    starts = np.concatenate(([0], np.cumsum(np.bincount(key, minlength=len(ascending)))))
    return batch, encoded.dictionary.take(from_numpy(ascending)), starts


def _ranges(spills: list[_Spill], max_rows: int) -> list[list[list[tuple[int, int, int]]]]:
    """The ranges of query ids to fuse at once, in ascending order, each of at most ``max_rows`` rows (or one
    query): for each range, for each run, the (batch, first row, end row) slices of its batches holding them."""
    batches = [(run, batch) for run, spill in enumerate(spills) for batch in range(len(spill.starts))]
    if not batches:
        return [[[] for _ in spills]]
    counts = np.concatenate([np.diff(starts) for spill in spills for starts in spill.starts])
    encoded = pc.dictionary_encode(pa.concat_arrays([ids for spill in spills for ids in spill.query_ids]))
    entry_id = to_numpy(encoded.indices).astype(np.int64)
    ascending = to_numpy(pc.sort_indices(encoded.dictionary)).astype(np.int64)
    rows = np.bincount(entry_id, weights=counts, minlength=len(ascending))[ascending]
    firsts = range_starts(rows, max_rows)  # (the first query, its place in ascending order, of each range)
    range_of_place = np.repeat(np.arange(len(firsts)), np.diff(firsts, append=len(ascending)))
    place = np.empty(len(ascending), dtype=np.int64)
    place[ascending] = np.arange(len(ascending))
    entry_range = range_of_place[place[entry_id]]
    plan: list[list[list[tuple[int, int, int]]]] = [[[] for _ in spills] for _ in firsts]
    entry = 0
    for run, batch in batches:
        starts = spills[run].starts[batch]
        ranges = entry_range[entry:entry + len(starts) - 1]  # (ascending, as the batch's query ids)
        present, first = np.unique(ranges, return_index=True)
        bounds = starts[np.append(first, len(ranges))]
        for index, start, end in zip(present.tolist(), bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            plan[index][run].append((batch, start, end))
        entry += len(ranges)
    return plan


def _rows(spill: _Spill, slices: list[tuple[int, int, int]]) -> pa.Table:
    """The rows of ``slices`` of the run's batches (memory-mapped: the file's pages are read as they are used, and
    given back once the table is dropped)."""
    reader = pa.ipc.open_file(pa.memory_map(str(spill.path)))
    return pa.Table.from_batches([reader.get_batch(batch).slice(start, end - start) for batch, start, end in slices],
                                 RUN_SCHEMA)
