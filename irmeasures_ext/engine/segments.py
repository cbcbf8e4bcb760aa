"""Per-query reductions over rows grouped by query (segment ids), used by every kernel."""
from __future__ import annotations

import numpy as np


def segment_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sums ``values`` per segment id (float64, one entry per segment)."""
    return np.bincount(segment, weights=values, minlength=n_segments).astype(np.float64, copy=False)


def segment_count(mask: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Counts the true entries of ``mask`` per segment id."""
    return np.bincount(segment[mask], minlength=n_segments)


def segment_cumsum(values: np.ndarray, segment: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``values`` restarting at each segment (rows grouped by segment)."""
    running = np.cumsum(values)
    before = np.concatenate(([0], running))[starts]
    return running - before[segment]


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 wherever the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out
