"""glibc's malloc and our temporaries: keep them between the blocks of one run, give them back
between the runs of a comparison."""
from __future__ import annotations

import functools
from typing import Any

import numpy as np


@functools.cache
def keep_freed_memory() -> None:
    """Lets malloc keep the blocks' freed temporaries for the next block, once per process.

    glibc returns freed memory above its trim threshold (128 KB at start) to the OS, so each
    block faults its temporaries in again: about 6.5K page faults per 1M-line evaluation, a
    tenth of the ranking time in a fresh process on the project's machine. Freeing a large
    mmapped buffer raises that threshold to twice its size (mallopt(3), dynamic mmap
    threshold); this one is never touched, so it costs no page. Other allocators ignore it.
    """
    np.empty(16 << 20, dtype=np.uint8)


@functools.cache
def _malloc_trim() -> Any:
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library('c')
    function = getattr(ctypes.CDLL(name), 'malloc_trim', None) if name else None
    return function


def release_freed_memory() -> None:
    """Gives the memory malloc keeps (see :func:`keep_freed_memory`) back to the OS: called after
    each run of a multi-run comparison, whose peak would otherwise grow run by run with the
    fragments of earlier runs. A no-op without glibc."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
