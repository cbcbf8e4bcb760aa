"""Score normalisations applied to each run's list of a query before fusion, with ranx 0.3.21's values.

Each acts on one list (one run, one query) at a time, so a list, empty or not, never affects another; ``borda``
alone reads every run's list of the query. s is a doc's score in the list, r its rank (from 1), n the list's
length, C the query's candidates (the docs some run retrieves for it). Divisors are kept at least 1e-9, as ranx
does: a list of equal scores maps to 0.0 under ``min-max``, ``min-max-inverted`` and ``sum``.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irmeasures_ext.fusion.pool import FusionError, Pool

_FLOOR = 1e-9


def _extremes(pool: Pool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's list's lowest and highest score."""
    rows = pool.rows
    if not len(pool.score):
        return pool.score, pool.score
    return (rows.per_row(np.minimum.reduceat(pool.score, rows.list_starts)),
            rows.per_row(np.maximum.reduceat(pool.score, rows.list_starts)))


def min_max(pool: Pool) -> Pool:
    """(s − min) / max(max − min, 1e-9): Lee, "Analyses of multiple evidence combination", SIGIR 1997."""
    low, high = _extremes(pool)
    return pool.rescored((pool.score - low) / np.maximum(high - low, _FLOOR))


def min_max_inverted(pool: Pool) -> Pool:
    """(max − s) / max(max − min, 1e-9), for scores where lower is better (distances); each list ranked by it:
    by ascending score, tied docs still by descending doc id."""
    low, high = _extremes(pool)
    return pool.inverted((high - pool.score) / np.maximum(high - low, _FLOOR))


def max_norm(pool: Pool) -> Pool:
    """s / max(max, 1e-9) (Lee, SIGIR 1997); a list whose scores are all ≤ 0 is divided by 1e-9, as in ranx."""
    return pool.rescored(pool.score / np.maximum(_extremes(pool)[1], _FLOOR))


def sum_norm(pool: Pool) -> Pool:
    """(s − min) / max(Σ s − n·min, 1e-9): Montague & Aslam, "Relevance score normalization for metasearch",
    CIKM 2001."""
    rows, low = pool.rows, _extremes(pool)[0]
    total = rows.per_row(rows.list_totals(pool.score))
    return pool.rescored((pool.score - low) / np.maximum(total - low * rows.per_row(rows.list_sizes), _FLOOR))


def zmuv(pool: Pool) -> Pool:
    """Zero mean, unit variance: (s − mean) / max(std, 1e-9), std the population's (Montague & Aslam, CIKM
    2001)."""
    rows = pool.rows
    n = rows.per_row(rows.list_sizes)
    deviation = pool.score - rows.per_row(rows.list_totals(pool.score)) / n
    std = np.sqrt(rows.per_row(rows.list_totals(deviation * deviation)) / n)
    return pool.rescored(deviation / np.maximum(std, _FLOOR))


def rank(pool: Pool) -> Pool:
    """1 − (r − 1)/n: the rank as a score (Renda & Straccia, "Web metasearch: rank vs. score based rank
    aggregation methods", SAC 2003)."""
    return pool.rescored(1 - (pool.rows.rank - 1) / pool.rows.per_row(pool.rows.list_sizes))


def borda(pool: Pool) -> Pool:
    """Borda counts scaled to [0, 1] (Renda & Straccia, SAC 2003): a ranked doc gets 1 − (r − 1)/``|C|``, a candidate
    the list misses 1/2 − (n − 1)/(2 ``|C|``); every list then holds every candidate of its query. A run that does not
    answer a query (no list) stays without one."""
    rows = pool.rows
    grid_list, candidate, row = rows.grid
    n_candidates = rows.candidates_of_query[1][rows.candidate_query[candidate]]
    ranked = row >= 0
    score = 0.5 - (rows.list_sizes[grid_list] - 1) / (2 * n_candidates)
    score[ranked] = 1 - (rows.rank[row[ranked]] - 1) / n_candidates[ranked]
    return Pool(rows.of_candidates(rows.run[rows.list_starts][grid_list], rows.candidate_query[candidate],
                                   rows.candidate_doc[candidate], candidate), score)


#: Every normalisation by its ranx name (and ranx's aliases); ``None`` or ``'none'``: the scores as given.
NORMS: dict[str, Callable[[Pool], Pool]] = {
    'none': lambda pool: pool, 'min-max': min_max, 'min_max': min_max, 'min-max-inverted': min_max_inverted,
    'min_max_inverted': min_max_inverted, 'max': max_norm, 'sum': sum_norm, 'zmuv': zmuv, 'rank': rank,
    'borda': borda,
}


def normalize(pool: Pool, norm: str | None) -> Pool:
    """``pool`` normalised by ``norm`` (a key of :data:`NORMS`, or None)."""
    name = checked_norm(norm)
    return pool if name is None else NORMS[name](pool)


def checked_norm(norm: str | None) -> str | None:
    """``norm``, a key of :data:`NORMS` or None; FusionError otherwise."""
    if norm is not None and (not isinstance(norm, str) or norm not in NORMS):
        raise FusionError(f'unknown normalisation {norm!r}: use one of {sorted(NORMS)} or None')
    return norm
