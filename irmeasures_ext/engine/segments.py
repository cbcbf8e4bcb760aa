"""Per-query reductions over rows grouped by query (segment ids), used by every kernel."""
from __future__ import annotations

import numpy as np


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Boolean per row of rows sorted by ``keys`` (one array or several of one length): the row starts a run of
    equal keys (the first row, and every row whose keys differ from the previous row's)."""
    starts = np.ones(len(keys[0]), dtype=bool)
    if len(starts) > 1:
        changed = keys[0][1:] != keys[0][:-1]
        for key in keys[1:]:
            changed |= key[1:] != key[:-1]
        starts[1:] = changed
    return starts


def expand(count: np.ndarray, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(owner, index) for ``count[i]`` items per owner i (none for a count below 1): indices 0 .. count[i] - 1,
    or ``start[i]`` .. ``start[i] + count[i] - 1`` (one pass: no offsets gathered and added afterwards)."""
    count = count.astype(np.int64, copy=False)
    if len(count) and count.min() < 0:
        count = np.maximum(count, 0)
    owner = np.repeat(np.arange(len(count)), count)
    first = np.cumsum(count) - count
    if start is not None:
        first -= start
    return owner, np.arange(len(owner)) - np.repeat(first, count)


def segment_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sums ``values`` per segment id (float64, one entry per segment)."""
    return np.bincount(segment, weights=values, minlength=n_segments).astype(np.float64, copy=False)


def segment_count(mask: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Counts the true entries of ``mask`` per segment id."""
    return np.bincount(segment[mask], minlength=n_segments)


#: Whole floats whose running sums stay below this are summed as integers: every partial sum is exact.
_EXACT_FLOAT_SUMS = float(2 ** 52)


def segment_cumsum(values: np.ndarray, segment: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``values`` restarting at each segment (rows grouped by segment). Each row's sum
    depends on its own segment's rows only: integers (and floats that are whole numbers, e.g. the default
    gains, summed exactly in int64) by one running sum, other floats by :func:`offset_cumsum`."""
    as_float = values.dtype.kind == 'f'
    if as_float:
        small = np.abs(values).sum() < _EXACT_FLOAT_SUMS  # (False for inf or NaN: not cast to integers)
        whole = values.astype(np.int64) if small else values
        if not (small and np.array_equal(whole, values)):
            return offset_cumsum(values, np.arange(len(values)) - starts[segment])
        values = whole
    running = np.cumsum(values)
    before = np.concatenate(([0], running))[starts]
    summed = running - before[segment]
    return summed.astype(np.float64) if as_float else summed


def offset_cumsum(values: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Cumulative sum of float ``values`` within runs of rows, ``offset`` giving each row's position in its
    run (0 at the run's first row).

    A scan in log2(longest run) passes (each row adds the partial sum ``step`` rows up, while that row is
    in its run), rather than one running sum over every run minus the sums before each: a row's sum
    then depends on its own run's rows only, not on the rounding of the runs before it, so that a query
    evaluated alone, in a batch of queries or in the whole run gets the same bits."""
    total = values.astype(np.float64)
    step, longest = 1, int(offset.max(initial=0))
    while step <= longest:
        total[step:] += np.where(offset[step:] >= step, total[:-step], 0.0)
        step *= 2
    return total


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 wherever the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out
