"""Whether a run is read whole or in pieces: a run of at least :data:`STREAM_FROM_BYTES` (its source's
:meth:`~.source.Source.size_hint`) becomes a :class:`RunStream`, which the engine evaluates batch by batch
(:mod:`irmeasures_ext.engine.stream`) in memory bounded by the qrels, the largest query and a few blocks; any
other run is read whole (:func:`~.inputs.read_input`)."""
from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple, TypeVar

import pyarrow as pa

from irmeasures_ext.readers.inputs import Input, InputDict, as_source
from irmeasures_ext.readers.schemas import Layout, layout_of
from irmeasures_ext.readers.source import Source

T = TypeVar('T')

#: Runs of at least this many bytes of TREC lines (:meth:`~.source.Source.size_hint`) are evaluated as they
#: are read; smaller ones are read whole, which is faster while they fit (see benchmarks/scale.py).
STREAM_FROM_BYTES = 1 << 29
#: Bytes of lines read, parsed and evaluated at once.
BLOCK_BYTES = 1 << 23
#: Bytes of lines per bucket of an interleaved run (one IPC file each).
BUCKET_BYTES = 1 << 26


class RunStream(NamedTuple):
    """A run to evaluate as it is read, in blocks of ``block_bytes`` (buckets of ``bucket_bytes`` for
    interleaved queries)."""

    source: Source
    with_rank: bool
    block_bytes: int
    bucket_bytes: int

    @property
    def layout(self) -> Layout:
        return layout_of('run', self.with_rank)

    @property
    def name(self) -> str:
        """The run's name in messages."""
        return self.source.name or 'run'

    @property
    def checks_order(self) -> bool:
        """Whether the rows are checked to be listed by descending score, as :func:`~.inputs.read_input` checks
        them: a run read without its ranks, from a source that lists them."""
        return not self.with_rank and self.source.lists_ranks()

    def tables(self) -> Iterator[pa.Table]:
        """The run's tables, each read and parsed on another thread while the one before is evaluated."""
        return read_ahead(self.source.batches(self.layout, self.block_bytes))


def streamed_or_whole(run: Any, with_rank: bool) -> RunStream | Any:
    """``run`` as a :class:`RunStream` if it is one, or a run of at least :data:`STREAM_FROM_BYTES`; else what
    to read whole: its source (for a path, opened here: a file is opened once), or as it is a run already read
    (an Input) and a pipe's path (it could not be opened twice: left to the reader)."""
    if isinstance(run, RunStream):
        return run if run.with_rank == with_rank else RunStream(run.source, with_rank, run.block_bytes,
                                                                run.bucket_bytes)
    if isinstance(run, (Input, InputDict)) or isinstance(run, (str, os.PathLike)) and not _readable_again(run):
        return run  # (read already; a pipe)
    source = as_source(run)
    size = source.size_hint()
    if size is None or size < STREAM_FROM_BYTES:
        return source
    return RunStream(source, with_rank, BLOCK_BYTES, BUCKET_BYTES)


def _readable_again(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can be opened twice with the same content: a file or folder, not a pipe or device
    (a path that cannot be looked at is left to the reader, which names the problem)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


def read_ahead(items: Iterator[T]) -> Iterator[T]:
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
