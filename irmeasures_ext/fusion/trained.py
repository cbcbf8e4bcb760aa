"""The supervised fusion methods, given their trained parameters (:func:`~irmeasures_ext.fusion.train` trains them on
training runs and qrels, as ranx's ``*_train`` functions do): each gives the fused score of every candidate of a
:class:`~irmeasures_ext.fusion.pool.Pool`, in the notation of :mod:`~irmeasures_ext.fusion.methods`; pᵢ is run i's
table of probabilities (``probs``, one a run), read as 0 past its end, Rᵢ run i's list for the query.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from irmeasures_ext.fusion.pool import Pool

#: BayesFuse's log-odds of a doc a run does not rank: ln(0.001/0.999), ranx's floor, from the C library's log as
#: ranx's compiled code takes it (numpy 1.26's own log, on CPUs with AVX-512, is one ulp off here, which split ties
#: that ranx's fused runs have).
UNRANKED_LOG_ODDS = math.log(0.001 / 0.999)


def _lookup(tables: list[np.ndarray], run: np.ndarray, index: np.ndarray, beyond: float = 0.0) -> np.ndarray:
    """tables[run[i]][index[i]] for each i, ``beyond`` past the end of a table."""
    width = max(len(table) for table in tables)
    padded = np.full((len(tables), width + 1), beyond)
    for i, table in enumerate(tables):
        padded[i, :len(table)] = table
    return padded[run, np.minimum(index, width)]


def posfuse(pool: Pool, probs: list[np.ndarray]) -> np.ndarray:
    """PosFuse: Σ pᵢ[rᵢ(d) − 1], pᵢ[k] the probability that run i's doc at rank k + 1 is relevant (Lillis,
    Zhang, Toolan, Collier, Leonard & Dunnion, "Estimating probabilities for effective data fusion", SIGIR 2010)."""
    rows = pool.rows
    return rows.totals(_lookup(probs, rows.run, rows.rank - 1))


def probfuse(pool: Pool, probs: list[np.ndarray]) -> np.ndarray:
    """ProbFuse: Σ pᵢ[k] / (k + 1), k the segment of d when Rᵢ is cut into len(pᵢ) segments of ⌈``|Rᵢ|``/len(pᵢ)⌉
    docs (Lillis, Toolan, Collier & Dunnion, "ProbFuse: a probabilistic approach to data fusion", SIGIR 2006)."""
    rows = pool.rows
    n_segments = np.array([len(table) for table in probs])[rows.run]
    segment = (rows.rank - 1) // -(-rows.per_row(rows.list_sizes) // n_segments)
    return rows.totals(_lookup(probs, rows.run, segment) / (segment + 1))


def segfuse(pool: Pool, probs: list[np.ndarray]) -> np.ndarray:
    """SegFuse: Σ pᵢ[k] × (sᵢ(d) + 1), k the segment of rᵢ(d) among ranks cut into segments of 5, 10, 20, 40, ...
    (Shokouhi, "Segmentation of search engine results for effective data-fusion", ECIR 2007)."""
    rows = pool.rows
    starts = 5 * (2 ** np.arange(max(len(table) for table in probs) + 1) - 1)  # first rank - 1 of each segment
    segment = np.searchsorted(starts, rows.rank - 1, side='right') - 1
    return rows.totals(_lookup(probs, rows.run, segment) * (pool.score + 1))


def slidefuse(pool: Pool, probs: list[np.ndarray], w: int) -> np.ndarray:
    """SlideFuse: Σ the mean of pᵢ[j] over the window j = rᵢ(d) − 1 − w … rᵢ(d) − 1 + w clipped to Rᵢ (Lillis,
    Toolan, Collier & Dunnion, "Extending probabilistic data fusion using sliding windows", ECIR 2008)."""
    rows = pool.rows
    position, last = rows.rank - 1, rows.per_row(rows.list_sizes) - 1
    first_in, last_in = np.maximum(position - w, 0), np.minimum(position + w, last)
    window = np.zeros(len(position))
    for offset in range(-int(w), int(w) + 1):  # (added in window order, as ranx adds them)
        j = position + offset
        inside = (j >= first_in) & (j <= last_in)
        window[inside] += _lookup(probs, rows.run[inside], j[inside])
    return rows.totals(window / (last_in - first_in + 1))


def mapfuse(pool: Pool, map_scores: np.ndarray) -> np.ndarray:
    """MAPFuse: Σ MAPᵢ / rᵢ(d), MAPᵢ run i's mean average precision on training queries (Lillis et al., SIGIR
    2010)."""
    rows = pool.rows
    return rows.totals(map_scores[rows.run] / rows.rank)


def bayesfuse(pool: Pool, log_odds: list[np.ndarray]) -> np.ndarray:
    """BayesFuse: Σ over the runs answering q of Lᵢ[rᵢ(d) − 1], the log-odds of relevance at that rank, or
    ln(0.001/0.999) for a candidate run i misses or a rank past Lᵢ's end (Aslam & Montague, "Models for
    metasearch", SIGIR 2001)."""
    rows = pool.rows
    grid_list, candidate, row = rows.grid
    ranked = row >= 0
    values = np.full(len(candidate), UNRANKED_LOG_ODDS)
    values[ranked] = _lookup(log_odds, rows.run[row[ranked]], rows.rank[row[ranked]] - 1, UNRANKED_LOG_ODDS)
    return np.bincount(candidate, weights=values, minlength=rows.n_candidates)


#: The supervised methods by their ranx names: they take the parameters :func:`~irmeasures_ext.fusion.train` gives.
SUPERVISED: dict[str, Callable[..., np.ndarray]] = {
    'posfuse': posfuse, 'probfuse': probfuse, 'segfuse': segfuse, 'slidefuse': slidefuse, 'mapfuse': mapfuse,
    'bayesfuse': bayesfuse,
}
