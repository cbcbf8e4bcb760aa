"""The unsupervised fusion methods: each gives the fused score of every candidate of a
:class:`~irmeasures_ext.fusion.pool.Pool`.

Notation, for a candidate d of query q: sᵢ(d) its (normalised) score in run i, rᵢ(d) its rank there (from 1),
P(d) the runs retrieving d, n(d) = ``|P(d)|``, wᵢ run i's weight, C the query's candidates; Σ is over P(d) unless
said. A run that does not answer q takes no part in q's fusion. Sums add the runs in their order, as ranx does,
so ties come out exactly.
"""
from __future__ import annotations

import numpy as np

from irmeasures_ext.fusion.pool import Pool

# -- score-based: Fox & Shaw, "Combination of multiple searches", TREC-2 1993 ------------------------------------


def comb_min(pool: Pool) -> np.ndarray:
    """CombMIN: min sᵢ(d) (Fox & Shaw, TREC-2 1993)."""
    values, starts = pool.rows.sorted_by_candidate(pool.score)
    return values[starts]


def comb_max(pool: Pool) -> np.ndarray:
    """CombMAX: max sᵢ(d) (Fox & Shaw, TREC-2 1993)."""
    values, starts = pool.rows.sorted_by_candidate(pool.score)
    return values[starts + pool.rows.counts - 1]


def comb_med(pool: Pool) -> np.ndarray:
    """CombMED: the median of the sᵢ(d) (Fox & Shaw, TREC-2 1993)."""
    values, starts = pool.rows.sorted_by_candidate(pool.score)
    counts = pool.rows.counts
    return (values[starts + (counts - 1) // 2] + values[starts + counts // 2]) / 2


def comb_sum(pool: Pool) -> np.ndarray:
    """CombSUM: Σ sᵢ(d) (Fox & Shaw, TREC-2 1993)."""
    return pool.rows.totals(pool.score)


def comb_anz(pool: Pool) -> np.ndarray:
    """CombANZ: Σ sᵢ(d) / n(d) (Fox & Shaw, TREC-2 1993)."""
    return pool.rows.totals(pool.score) / pool.rows.counts


def comb_mnz(pool: Pool) -> np.ndarray:
    """CombMNZ: Σ sᵢ(d) × n(d) (Fox & Shaw, TREC-2 1993)."""
    return pool.rows.totals(pool.score) * pool.rows.counts


def comb_gmnz(pool: Pool, gamma: float) -> np.ndarray:
    """CombGMNZ: Σ sᵢ(d) × n(d)^γ (Lee, "Analyses of multiple evidence combination", SIGIR 1997)."""
    return pool.rows.totals(pool.score) * pool.rows.counts.astype(np.float64) ** gamma


# -- weighted score-based -----------------------------------------------------------------------------------------


def wsum(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Weighted Sum: Σ wᵢ sᵢ(d) (a linear combination; no paper)."""
    return pool.rows.totals(pool.score * weights[pool.rows.run])


def mixed(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Mixed: √n(d) × Σ wᵢ sᵢ(d) (Wu & Crestani, "Data fusion with estimated weights", CIKM 2002)."""
    return wsum(pool, weights) * np.sqrt(pool.rows.counts)


def wmnz(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """WMNZ: Σ sᵢ(d) × Σ wᵢ (Wu & Crestani, CIKM 2002)."""
    return pool.rows.totals(pool.score) * pool.rows.totals(weights[pool.rows.run])


# -- rank-based ---------------------------------------------------------------------------------------------------


def _inverse_square_ranks(pool: Pool) -> np.ndarray:
    """Σ 1/rᵢ(d)²."""
    return pool.rows.totals(1 / pool.rows.rank ** 2)


def isr(pool: Pool) -> np.ndarray:
    """ISR: n(d) × Σ 1/rᵢ(d)² (Mourão, Martins & Magalhães, "Multimodal medical information retrieval with
    unsupervised rank fusion", CMIG 2015)."""
    return _inverse_square_ranks(pool) * pool.rows.counts


def log_isr(pool: Pool) -> np.ndarray:
    """Log_ISR: ln n(d) × Σ 1/rᵢ(d)² (Mourão et al., CMIG 2015)."""
    return _inverse_square_ranks(pool) * np.log(pool.rows.counts)


def logn_isr(pool: Pool, sigma: float = 0.01) -> np.ndarray:
    """LogN_ISR: ln(n(d) + σ) × Σ 1/rᵢ(d)² (Mourão et al., CMIG 2015)."""
    return _inverse_square_ranks(pool) * np.log(pool.rows.counts + sigma)


def rrf(pool: Pool, k: float = 60) -> np.ndarray:
    """RRF: Σ 1/(k + rᵢ(d)) (Cormack, Clarke & Büttcher, "Reciprocal rank fusion outperforms Condorcet and
    individual rank learning methods", SIGIR 2009)."""
    return pool.rows.totals(1 / (k + pool.rows.rank))


def rbc(pool: Pool, phi: float) -> np.ndarray:
    """RBC: Σ (1 − φ) φ^(rᵢ(d) − 1) (Bailey, Moffat, Scholer & Thomas, "Retrieval consistency in the presence of
    query variations", SIGIR 2017)."""
    return pool.rows.totals((1 - phi) * phi ** (pool.rows.rank - 1).astype(np.float64))


# -- voting: Aslam & Montague, "Models for metasearch", SIGIR 2001; Montague & Aslam, CIKM 2002 ---------------


def _borda_points(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Σ over the runs answering q of wᵢ × Borda points: ``|C|`` − rᵢ(d) + 1 if run i ranks d, else
    (``|C|`` − ``|Rᵢ|`` + 1)/2, Rᵢ its list (the points left, shared by the docs it misses); added run after run, as
    ranx adds them, so that sums equal in real numbers are as equal (or not) as in ranx."""
    rows = pool.rows
    grid_list, candidate, row = rows.grid
    n_candidates = rows.candidates_of_query[1][rows.candidate_query[candidate]]
    ranked = row >= 0
    points = (n_candidates - rows.list_sizes[grid_list] + 1) / 2
    points[ranked] = n_candidates[ranked] - (rows.rank[row[ranked]] - 1)
    weight = weights[rows.run[rows.list_starts][grid_list]]
    return np.bincount(candidate, weights=points * weight, minlength=rows.n_candidates)


def bordafuse(pool: Pool) -> np.ndarray:
    """BordaFuse: Σ Borda points (Aslam & Montague, SIGIR 2001; see ``_borda_points``)."""
    return _borda_points(pool, np.ones(pool.rows.n_runs))


def w_bordafuse(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Weighted BordaFuse: Σ wᵢ × Borda points (Aslam & Montague, SIGIR 2001)."""
    return _borda_points(pool, weights)


def _condorcet(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Copeland's rule on the (weighted) majority relation: x beats y when the runs placing x above y outweigh
    those placing y above x (a run ranking one of them places it above the other; a run ranking neither
    abstains); a candidate's Copeland score is its wins plus half its draws; it is fused to ``|C|`` − #{candidates
    with a higher Copeland score}. When the majority relation is a total order this is the Condorcet ranking
    (``|C|`` for its winner, down to 1), whatever the order of the candidates; Condorcet cycles and draws give
    equal scores instead of an order that depends on how a sort met them."""
    rows = pool.rows
    fused = np.empty(rows.n_candidates)
    tolerance = 1e-12 * np.abs(weights).sum()  # (weights that sum equal in real numbers draw)
    first, count = rows.candidates_of_query
    lists = np.argsort(rows.query[rows.list_starts], kind='stable')  # (by query, then run)
    lists_of_query = np.split(lists, np.cumsum(np.bincount(rows.query[rows.list_starts][lists],
                                                           minlength=len(first)))[:-1])
    for query in np.flatnonzero(count):
        mine = lists_of_query[query]
        in_list = np.repeat(np.arange(len(mine)), rows.list_sizes[mine])
        at = np.concatenate([np.arange(start, start + size)
                             for start, size in zip(rows.list_starts[mine], rows.list_sizes[mine], strict=True)])
        position = np.full((len(mine), count[query]), np.inf)
        position[in_list, rows.candidate[at] - first[query]] = rows.rank[at]
        ahead = np.einsum('l,lxy->xy', weights[rows.run[rows.list_starts[mine]]],
                          position[:, :, None] < position[:, None, :])
        margin = ahead - ahead.T
        copeland = (margin > tolerance).sum(axis=1) + 0.5 * ((np.abs(margin) <= tolerance).sum(axis=1) - 1)
        higher = (copeland[None, :] > copeland[:, None]).sum(axis=1)
        fused[first[query]:first[query] + count[query]] = count[query] - higher
    return fused


def condorcet(pool: Pool) -> np.ndarray:
    """Condorcet fusion (Montague & Aslam, "Condorcet fusion for improved retrieval", CIKM 2002), made
    deterministic by Copeland's rule (see ``_condorcet``)."""
    return _condorcet(pool, np.ones(pool.rows.n_runs))


def w_condorcet(pool: Pool, weights: np.ndarray) -> np.ndarray:
    """Weighted Condorcet (Montague & Aslam, CIKM 2002): each run's vote counts wᵢ (see ``_condorcet``)."""
    return _condorcet(pool, weights)
