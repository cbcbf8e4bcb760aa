"""A once-per-process nudge that lets glibc's malloc keep freed block temporaries."""
from __future__ import annotations

import functools

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
