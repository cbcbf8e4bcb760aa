"""glibc's malloc and our temporaries: keep them between the blocks of one run, give them back
between the runs of a comparison."""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyarrow as pa


@functools.cache
def keep_freed_memory() -> None:
    """Lets malloc keep the blocks' freed temporaries for the next block, once per process.

    glibc returns freed memory above its trim threshold (128 KB at start) to the OS, so each
    block faults its temporaries in again. Freeing a large mmapped buffer raises that threshold
    to twice its size (mallopt(3), dynamic mmap threshold); this one is never touched, so it costs
    no page. Other allocators ignore it. The 1M-line command is 7% faster with it
    (benchmarks/results/tricks-2026-12-02-2.md).
    """
    np.empty(16 << 20, dtype=np.uint8)


#: The pool the reader allocates tables from (:func:`table_pool`), chosen when first asked for.
_table_pool: pa.MemoryPool | None = None


def table_pool() -> pa.MemoryPool:
    """The pool Arrow's reader allocates the tables from: in a library, jemalloc's where Arrow is built
    with it (its Linux and macOS wheels), else the C library's malloc; malloc's in the command line
    (:func:`use_malloc_for_arrow`).

    The reader's threads allocate and free each block's temporaries; jemalloc gives them back to
    the OS after a short delay, where malloc keeps them in an arena per thread and Arrow's default
    mimalloc pool in a heap per thread (figures: benchmarks/results/figures-from-code-2026-12-02.md).
    """
    global _table_pool
    if _table_pool is None:
        _table_pool = _jemalloc_or_malloc()
    return _table_pool


def _jemalloc_or_malloc() -> pa.MemoryPool:
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.system_memory_pool()


def use_malloc_for_arrow() -> None:
    """Makes Arrow allocate everything, the reader's tables included, with the C library's malloc.

    For the command line only, whose malloc keeps to one arena (:func:`use_one_malloc_arena`): the
    ranking then reuses the memory the read frees (each pool would keep what the other could reuse).
    With :func:`use_one_malloc_arena`: the command's peak RSS 4-5% lower on a 1M-line run, 35% lower
    comparing four (benchmarks/results/tricks-2026-12-02-2.md).
    """
    global _table_pool
    _table_pool = pa.system_memory_pool()
    pa.set_memory_pool(_table_pool)


@functools.cache
def _glibc_function(name: str) -> Any:
    """The C library's function ``name`` among the process's own symbols (None where it has none, e.g.
    without glibc). ``ctypes.util.find_library`` would run ``ldconfig``: 24 ms of every command (benchmarks/README.md,
    "Speed tricks", before benchmarks/results/tricks-2026-12-02-2.md)."""
    import ctypes
    try:
        return getattr(ctypes.CDLL(None), name, None)
    except (OSError, TypeError):  # (a platform whose ctypes cannot open the process itself)
        return None


def release_freed_memory() -> None:
    """Gives the memory malloc keeps (see :func:`keep_freed_memory`) back to the OS: called after
    each run of a multi-run comparison, whose peak would otherwise grow run by run with the
    fragments of earlier runs: four 1M-line runs compared peak 33% lower, for 15% more time
    (benchmarks/results/tricks-2026-12-02-2.md). A no-op without glibc."""
    trim = _glibc_function('malloc_trim')
    if trim is not None:
        trim(0)


#: mallopt(3)'s parameter number for the largest number of malloc arenas.
_M_ARENA_MAX = -8


def use_one_malloc_arena() -> None:
    """Makes every thread of this process allocate from one malloc arena (glibc; elsewhere a no-op).

    For the command line only (a library must not change its users' malloc): Arrow's reader threads
    otherwise each fill an arena of their own with the parse's temporaries, freed but kept (figures:
    :func:`use_malloc_for_arrow`).
    """
    mallopt = _glibc_function('mallopt')
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, 1)
