"""Leaderboard agreement: the ranking of the systems (runs) that each judgement set gives for a
measure, and how far two such rankings agree.

Kernels take two score vectors ``x`` and ``y`` of the same systems in the same order (``x[i]``, ``y[i]``: system
i under two judgement sets), higher is better, rank 1 the best:

- Kendall's :func:`tau_a`, :func:`tau_b`, Spearman's :func:`spearman`, Pearson's :func:`pearson`;
- AP correlation :func:`tau_ap` (Yilmaz, Aslam and Robertson, SIGIR 2008) and its tie-aware forms :func:`tau_ap_a`
  and :func:`tau_ap_b` (Urbano and Marrero, ICTIR 2017);
- rank-biased overlap :func:`rbo` (Webber, Moffat and Zobel, TOIS 2010), ties as Corsi and Urbano (SIGIR 2024);
- :func:`swapped_pairs`, :func:`top_k_overlap`, :func:`largest_rank_change`.

Conventions, the same in every function:

- **The reference.** Where a statistic is asymmetric (τ_AP, τ_AP_a) ``x`` is the reference ("true") ranking and
  ``y`` the ranking compared with it. :func:`leaderboard_agreement` passes ``judge_a`` as ``x`` (the ``reference``
  judge when one is given). Every other statistic is symmetric.
- **Ties.** Two systems tie when their scores are equal, never ordered by their names or input order. Scores
  equal at a precision are made equal first with :func:`tied` (``decimals=``: as printed with that many places;
  ``tolerance=``: within an absolute tolerance, grouped as :func:`tied` says); every statistic is computed on the
  tied scores (Pearson's r too).
- **Ranks.** Tied systems share the mean of the positions their group holds (mid-ranks: 1, 2.5, 2.5, 4), used by
  Spearman's ρ and :func:`largest_rank_change`; :func:`rankings` adds the competition rank (1, 2, 2, 4).
- **Undefined values.** A statistic undefined for its input (fewer than two systems; a ranking where every system
  ties, for τ_b, ρ, r and τ_AP_b; ties where a coefficient assumes none: τ_AP in either ranking, τ_AP_a in the
  reference) is NaN, with an :class:`~irmeasures_ext.errors.UndefinedLeaderboardAgreementWarning` naming the
  statistic and why. Malformed input (vectors of different lengths, a non-finite score, runs missing under a
  judge) raises an :class:`~irmeasures_ext.errors.InputError`; an invalid option a
  :class:`~irmeasures_ext.errors.MeasureParamError`.

The pairwise statistics take O(n²) time and memory for n systems (a few thousand systems at most).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from irmeasures_ext.errors import (
    InputError,
    MeasureParamError,
    UndefinedLeaderboardAgreementWarning,
    warn_at_caller,
)

if TYPE_CHECKING:
    import pandas as pd

#: The statistics of :func:`leaderboard_agreement`, in its columns' order (each also a function of this module).
STATISTICS = ('tau_a', 'tau_b', 'spearman', 'pearson', 'tau_ap', 'tau_ap_a', 'tau_ap_b', 'rbo', 'swapped_pairs',
              'top_k_overlap', 'largest_rank_change')
#: The columns of :func:`leaderboard_agreement`'s table.
AGREEMENT_COLUMNS = ['measure', 'judge_a', 'judge_b', 'systems', *STATISTICS]
#: The columns of :func:`rankings`' table.
RANKINGS_COLUMNS = ['measure', 'judge', 'run', 'value', 'rank', 'min_rank']
#: The columns of :func:`bootstrap`'s table.
BOOTSTRAP_COLUMNS = ['measure', 'judge_a', 'judge_b', 'statistic', 'systems', 'topics', 'estimate', 'lower', 'upper',
                     'level', 'replicates', 'undefined']
#: The depth of :func:`top_k_overlap` in the tables by default.
DEFAULT_TOP_K = 10
#: RBO's persistence by default: the top 10 systems weigh about 65% of the score (1 − 0.9¹⁰).
DEFAULT_PERSISTENCE = 0.9
#: RBO's treatment of ties (Corsi and Urbano, SIGIR 2024): 'a' (the default), 'b' or 'w' (see :func:`rbo`).
RBO_TIES = ('a', 'b', 'w')
#: How many pairwise cells (rows × systems²) the vectorised statistics handle at once.
_CELLS = 1 << 21
#: How many affected cases an undefined-statistic warning of a table lists.
_LISTED = 5


# Ties ------------------------------------------------------------------------------------------------------------


def tied(scores: ArrayLike, decimals: int | None = None, tolerance: float | None = None) -> np.ndarray:
    """The scores (a float array) with the values that are equal at the given precision made equal; neither
    given: the scores as they are. Works along the last axis.

    - ``decimals``: each score as printed with that many decimal places (``f'{score:.{decimals}f}'``, correctly
      rounded, halves to even at the exact decimal value), e.g. 0.1234 and 0.1226 both 0.123 at 3 places.
    - ``tolerance`` (absolute, ≥ 0): down the scores from the highest, a group starts at the highest score not yet
      grouped (its *first*) and takes every score at most ``tolerance`` below that first (give or take 4 units in
      the last place of the two scores, so that 0.30 and 0.29 tie at 0.01); each score becomes its group's first.
      A score within ``tolerance`` of a member but not of the first starts the next group: groups do not chain
      further than ``tolerance`` from their best score, and the grouping, read from the top of the leaderboard,
      does not depend on the order of the systems.
    """
    values = _finite(scores, 'scores')
    if values.ndim < 1:
        raise InputError(f'tied: expected a vector of scores; got {values!r}')
    if decimals is not None and tolerance is not None:
        raise MeasureParamError('tied: give decimals or tolerance, not both')
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
            raise MeasureParamError(f'tied: decimals must be an integer from 0; got {decimals!r}')
        return _printed(values, int(decimals))
    if tolerance is not None:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.number)) \
                or not math.isfinite(tolerance) or tolerance < 0:
            raise MeasureParamError(f'tied: tolerance must be a finite number from 0; got {tolerance!r}')
        return _within(values, float(tolerance)) if values.size else values.copy()
    return values.copy()


def _printed(values: np.ndarray, decimals: int) -> np.ndarray:
    """``values`` as printed with ``decimals`` places: rint(v·10^d)/10^d, which is that value wherever v·10^d is
    not within a few units in the last place of a half (10^d exact, the division correctly rounded); the rest (and
    everything beyond 15 places or 2^52) through the printed text."""
    result = np.empty_like(values)
    exact = np.zeros(values.shape, dtype=bool)
    if decimals <= 15:
        scale = 10.0 ** decimals
        scaled = values * scale
        ok = np.abs(scaled) < 2.0 ** 52
        half = np.abs(scaled - np.floor(scaled) - 0.5) <= 4 * np.spacing(np.abs(scaled))
        exact = ok & ~half
        result[exact] = np.rint(scaled[exact]) / scale
    text = ~exact
    if text.any():
        result[text] = [float(f'{value:.{decimals}f}') for value in values[text].tolist()]
    return result + 0.0  # (-0.0 → 0.0)


def _within(values: np.ndarray, tolerance: float) -> np.ndarray:
    """:func:`tied` with ``tolerance``: one pass down each row sorted from the highest score."""
    rows = values.reshape(-1, values.shape[-1])
    order = np.argsort(-rows, axis=-1, kind='stable')
    ordered = np.take_along_axis(rows, order, axis=-1)
    first = ordered.copy()
    for position in range(1, ordered.shape[-1]):
        previous = first[:, position - 1]
        slack = 4 * np.spacing(np.maximum(np.abs(previous), np.abs(ordered[:, position])))
        joins = previous - ordered[:, position] <= tolerance + slack
        first[:, position] = np.where(joins, previous, ordered[:, position])
    result = np.empty_like(rows)
    np.put_along_axis(result, order, first, axis=-1)
    return result.reshape(values.shape)


# Kernels ---------------------------------------------------------------------------------------------------------


def tau_a(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's τ_a = (C − D) / (n(n−1)/2): C the pairs of systems both rankings order alike, D the pairs they order
    oppositely, over all n(n−1)/2 pairs (a pair tied in either ranking counts in neither C nor D, so ties lower
    ``|τ_a|``). Kendall, *Rank Correlation Methods* (1948). Symmetric. Undefined for fewer than 2 systems."""
    return float(_one('tau_a', x, y))


def tau_b(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's τ_b = (C − D) / √((P − T_x)(P − T_y)): P = n(n−1)/2 pairs, T_x and T_y the pairs tied in ``x``
    and in ``y`` (Kendall 1945, "The treatment of ties in ranking problems"; ``scipy.stats.kendalltau``'s default
    variant). Symmetric; 1 for identical rankings, ties included. Undefined for fewer than 2 systems or when every
    system ties in one ranking."""
    return float(_one('tau_b', x, y))


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman's ρ: Pearson's r of the two rankings' mid-ranks (tied systems share their mean position), as
    ``scipy.stats.spearmanr``. Symmetric. Undefined for fewer than 2 systems or when every system ties in one
    ranking."""
    return float(_one('spearman', x, y))


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson's r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)² Σ(y−ȳ)²) of the scores themselves, as ``scipy.stats.pearsonr``.
    Symmetric. Undefined for fewer than 2 systems or when every system ties in one ranking (a constant vector)."""
    return float(_one('pearson', x, y))


def tau_ap(x: ArrayLike, y: ArrayLike) -> float:
    """AP correlation of ``y`` against the true ranking ``x`` (Yilmaz, Aslam and Robertson, SIGIR 2008, "A new rank
    correlation coefficient for information retrieval"):

        τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1,

    i running down the ranking ``y`` gives, C(i) the systems above position i in ``y`` that ``x`` also puts above
    the system at i. Errors near the top of ``y`` weigh more. **Asymmetric**: ``x`` is the truth, ``y`` the
    estimate (swapping them gives another value; :func:`tau_ap_b` is the symmetric form). Defined for rankings
    without ties: with a tie in either (or fewer than 2 systems), NaN (use :func:`tau_ap_a` or :func:`tau_ap_b`)."""
    return float(_one('tau_ap', x, y))


def tau_ap_a(x: ArrayLike, y: ArrayLike) -> float:
    """τ_AP_a (Urbano and Marrero, ICTIR 2017, "The Treatment of Ties in AP Correlation"): the *accuracy* of ``y``
    with respect to the true ranking ``x``, which has no ties, ``y`` may: the expected :func:`tau_ap` when the ties
    of ``y`` are broken uniformly at random. For system i whose tie group in ``y`` holds positions p_i .. p_i+t_i−1,
    with c_i systems strictly above the group in ``y`` that ``x`` puts above i:

        τ_AP_a = 2/(n−1) · Σ_i [ c_i/t_i · Σ_{k=1..t_i} 1/(p_i+k−2)  +  1/(2t_i) · Σ_{k=1..t_i−1} k/(p_i+k−1) ] − 1

    (the first sum taken for p_i > 1; the second counts the pairs within the group, concordant half the time).
    Equals :func:`tau_ap` when ``y`` has no ties. **Asymmetric** like τ_AP. Undefined (NaN) when the reference
    ``x`` has ties or there are fewer than 2 systems."""
    return float(_one('tau_ap_a', x, y))


def tau_ap_b(x: ArrayLike, y: ArrayLike) -> float:
    """τ_AP_b (Urbano and Marrero, ICTIR 2017): the *agreement* of two rankings that may both have ties, neither of
    them the truth: the mean of the two directions of

        τ_AP_b(x|y) = 2/(n − t₁) · Σ_{i: p_i > 1} c_i/(p_i − 1) − 1,

    over the systems i below the first tie group of ``y`` (t₁ systems), p_i − 1 the systems strictly above i's group
    in ``y``, c_i those of them that ``x`` puts strictly above i. Symmetric; 1 for identical rankings, ties
    included. Without ties it is the mean of τ_AP(x, y) and τ_AP(y, x), the symmetric τ_AP of Yilmaz et al.,
    *not* τ_AP itself. Undefined (NaN) for fewer than 2 systems or when every system ties in one ranking."""
    return float(_one('tau_ap_b', x, y))


def rbo(x: ArrayLike, y: ArrayLike, p: float = DEFAULT_PERSISTENCE, ties: str = 'a') -> float:
    """Rank-biased overlap of the two rankings (Webber, Moffat and Zobel, TOIS 2010, "A similarity measure for
    indefinite rankings") with persistence ``p`` (0 < p < 1; default 0.9):

        RBO = (1 − p) · Σ_{d=1..n} p^{d−1} · A_d  +  p^n,

    A_d the agreement of the two top-d prefixes. The rankings are complete rankings of the same n systems, so the
    value is exact: beyond depth n both prefixes hold every system and A_d = 1, which is RBO_EXT (= RBO_MAX; the
    RBO_MIN bound would wrongly treat the lists as prefixes of longer, disjoint rankings). Symmetric; 1 for
    identical rankings (for ``ties`` 'b' and 'w' also with ties), in [0, 1].

    Ties as Corsi and Urbano, SIGIR 2024 ("The Treatment of Ties in Rank-Biased Overlap"), where system i counts in
    a top-d prefix by its share c_i(d), X_d = Σ_i c_i^x(d) c_i^y(d):

    - ``'a'`` (the default; ties are uncertainty, e.g. equal at the printed precision): c_i(d) = the probability
      that i is in the top d when the ties are broken at random, clip((d − above_i)/t_i, 0, 1) for a tie group of
      t_i systems below above_i others; A_d = X_d / d. The expected RBO over the random tie-breakings of both
      rankings (below 1 for a ranking with ties against itself).
    - ``'b'``: the same shares, A_d = X_d / √(Σc^x(d)² · Σc^y(d)²): corrected for the information the ties lose,
      RBO^b(x, x) = 1, RBO^a ≤ RBO^b.
    - ``'w'`` (ties are equality, as in Webber et al.): a tie group is seen whole from the depth where it starts,
      c_i(d) = 1 if d > above_i; A_d = 2X_d / (Σc^x(d) + Σc^y(d)).

    Without ties the three are the same. Undefined (NaN) without systems."""
    return float(_one('rbo', x, y, p=_persistence(p), rbo_ties=_rbo_ties(ties)))


def swapped_pairs(x: ArrayLike, y: ArrayLike) -> int:
    """The discordant pairs: pairs of systems that the two rankings order oppositely (a pair tied in either is not
    swapped). Symmetric."""
    return int(_one('swapped_pairs', x, y))


def top_k_overlap(x: ArrayLike, y: ArrayLike, k: int = DEFAULT_TOP_K) -> float:
    """How many systems the two top ``k`` share (k ≥ 1; with fewer systems, all of them). With a tie group across
    rank k, the expected number over the random tie-breakings of both rankings: Σ_i c_i^x(k)·c_i^y(k) with the
    shares of :func:`rbo` 'a' (X_k in Corsi and Urbano, SIGIR 2024), so possibly fractional. Symmetric."""
    return float(_one('top_k_overlap', x, y, top_k=_top_k(k)))


def largest_rank_change(x: ArrayLike, y: ArrayLike) -> float:
    """The largest change of rank of one system between the two rankings, ``max_i |rank_x(i) − rank_y(i)|``, tied
    systems at their mid-rank (a system tied for positions 2–3 is at 2.5), so a multiple of 0.5. Symmetric."""
    return float(_one('largest_rank_change', x, y))


def mid_ranks(scores: ArrayLike) -> np.ndarray:
    """The rank of each system, 1 the highest score, tied systems at the mean of the positions their group holds."""
    values = _finite(scores, 'scores')
    above, size = _groups(np.atleast_2d(values))
    return (above + (size + 1) / 2).reshape(values.shape)


# The statistics on rows of score vectors ---------------------------------------------------------------------


class _Rows:
    """Rows of two score vectors (each ``(rows, n)``: the same n systems) and what the statistics share."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x, self.y = x, y
        self.n = x.shape[-1]

    @cached_property
    def groups_x(self) -> tuple[np.ndarray, np.ndarray]:
        return _groups(self.x)

    @cached_property
    def groups_y(self) -> tuple[np.ndarray, np.ndarray]:
        return _groups(self.y)

    @cached_property
    def signs(self) -> tuple[np.ndarray, np.ndarray]:
        """sign(x_i − x_j) and sign(y_i − y_j) over every ordered pair (rows, i, j), as int8."""
        return _pair_signs(self.x), _pair_signs(self.y)

    @cached_property
    def concordance(self) -> tuple[np.ndarray, np.ndarray]:
        """The concordant and discordant pairs of each row."""
        sx, sy = self.signs
        product = sx * sy
        return (np.count_nonzero(product > 0, axis=(1, 2)) // 2, np.count_nonzero(product < 0, axis=(1, 2)) // 2)

    @cached_property
    def above_in_both(self) -> np.ndarray:
        """c_i: the systems strictly above i in both rankings (j above i: x_i − x_j < 0 and y_i − y_j < 0)."""
        sx, sy = self.signs
        return np.count_nonzero((sx < 0) & (sy < 0), axis=2)

    def constant(self, which: str) -> np.ndarray:
        """The rows where every system ties under ``which`` ('x' or 'y'; n ≥ 1)."""
        return (self.groups_x if which == 'x' else self.groups_y)[1][:, 0] == self.n

    def has_ties(self, which: str) -> np.ndarray:
        """The rows where ``which`` ('x' or 'y') has a tie."""
        return np.asarray(((self.groups_x if which == 'x' else self.groups_y)[1] > 1).any(axis=1))


def _groups(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows of scores ``(rows, n)``: ``above[r, i]`` the scores of row r strictly greater than its i-th, and
    ``size[r, i]`` those equal to it (itself included), by sorting each row."""
    rows, n = scores.shape
    if not n:
        return np.zeros((rows, 0), dtype=np.int64), np.zeros((rows, 0), dtype=np.int64)
    order = np.argsort(-scores, axis=1, kind='stable')
    ordered = np.take_along_axis(scores, order, axis=1)
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((rows, n), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    position = np.broadcast_to(np.arange(n), (rows, n))
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, n - 1)[:, ::-1], axis=1)[:, ::-1]
    above, size = np.empty((rows, n), dtype=np.int64), np.empty((rows, n), dtype=np.int64)
    np.put_along_axis(above, order, first, axis=1)
    np.put_along_axis(size, order, last - first + 1, axis=1)
    return above, size


def _pair_signs(scores: np.ndarray) -> np.ndarray:
    left, right = scores[:, :, None], scores[:, None, :]
    return (left > right).astype(np.int8) - (left < right).astype(np.int8)


def _divide(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (those rows are undefined anyway)."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, dtype=np.float64),
                                                 np.asarray(denominator, dtype=np.float64))
    return np.divide(numerator, denominator, out=np.full(numerator.shape, np.nan), where=denominator != 0)


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def _tau_a_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    concordant, discordant = rows.concordance
    return _divide(concordant - discordant, _pairs(rows.n))


def _tau_b_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    concordant, discordant = rows.concordance
    tied_x = (rows.groups_x[1] - 1).sum(axis=1) // 2  # (Σ over groups of t(t−1)/2)
    tied_y = (rows.groups_y[1] - 1).sum(axis=1) // 2
    total = _pairs(rows.n)
    return np.clip(_divide(concordant - discordant, np.sqrt((total - tied_x) * (total - tied_y))), -1.0, 1.0)


def _correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair (each centred row scaled by its largest magnitude first: no overflow); NaN for
    a constant row or fewer than 2 columns."""
    if a.shape[1] < 2:
        return np.full(len(a), np.nan)
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    a = _divide(a, np.abs(a).max(axis=1, keepdims=True))
    b = _divide(b, np.abs(b).max(axis=1, keepdims=True))
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))  # (√(s·s) = s exactly: 1 for identical rows)
    return np.clip(_divide((a * b).sum(axis=1), norm), -1.0, 1.0)


def _spearman_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    (above_x, size_x), (above_y, size_y) = rows.groups_x, rows.groups_y
    return _correlation(above_x + (size_x + 1) / 2, above_y + (size_y + 1) / 2)


def _pearson_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    return _correlation(rows.x, rows.y)


def _one_way_ap(rows: _Rows, truth: str) -> np.ndarray:
    """τ_AP_b(truth | compared): 2/(n − t₁) Σ_{p_i>1} c_i/(p_i − 1) − 1 (τ_AP itself when neither has ties)."""
    above = (rows.groups_y if truth == 'x' else rows.groups_x)[0]  # (the compared ranking's)
    share = _divide(rows.above_in_both, above)
    counted = above > 0
    return 2 * _divide(np.where(counted, share, 0.0).sum(axis=1), counted.sum(axis=1)) - 1


def _tau_ap_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    return _one_way_ap(rows, 'x')


def _tau_ap_b_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    return (_one_way_ap(rows, 'x') + _one_way_ap(rows, 'y')) / 2


def _tau_ap_a_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    """The closed form of :func:`tau_ap_a` through harmonic numbers H: Σ_{k=1..t} 1/(p+k−2) = H(p+t−2) − H(p−2)
    and Σ_{k=1..t−1} k/(p+k−1) = (t−1) − (p−1)(H(p+t−2) − H(p−1))."""
    n = rows.n
    harmonic = np.concatenate([[0.0], np.cumsum(1 / np.arange(1, n + 1))])
    above, size = rows.groups_y
    position = above + 1  # p_i: the first position of i's group in y
    last = harmonic[position + size - 2] if n else np.zeros(above.shape)
    down = np.where(position >= 2, (last - harmonic[np.maximum(position - 2, 0)]) / size, 0.0)
    within = ((size - 1) - (position - 1) * (last - harmonic[position - 1])) / (2 * size)
    return 2 * _divide((rows.above_in_both * down + within).sum(axis=1), n - 1) - 1


def _shares(above: np.ndarray, size: np.ndarray, depths: np.ndarray, ties: str) -> np.ndarray:
    """c_i(d) of :func:`rbo`, ``(rows, systems, depths)``."""
    if ties == 'w':
        return (above[:, :, None] < depths).astype(np.float64)
    return np.clip((depths - above[:, :, None]) / size[:, :, None], 0.0, 1.0)


def _rbo_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    p, ties, n = options['p'], options['rbo_ties'], rows.n
    depths = np.arange(1, n + 1)
    cx, cy = _shares(*rows.groups_x, depths, ties), _shares(*rows.groups_y, depths, ties)
    overlap = (cx * cy).sum(axis=1)
    if ties == 'a':
        agreement = overlap / depths
    elif ties == 'b':
        agreement = overlap / np.sqrt((cx * cx).sum(axis=1) * (cy * cy).sum(axis=1))
    else:
        agreement = 2 * overlap / (cx.sum(axis=1) + cy.sum(axis=1))
    return agreement @ ((1 - p) * p ** (depths - 1.0)) + p ** n


def _swapped_pairs_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    return rows.concordance[1]


def _top_k_overlap_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    depth = np.array([min(options['top_k'], rows.n)])
    return (_shares(*rows.groups_x, depth, 'a') * _shares(*rows.groups_y, depth, 'a')).sum(axis=(1, 2))


def _largest_rank_change_rows(rows: _Rows, options: dict[str, Any]) -> np.ndarray:
    if not rows.n:
        return np.full(len(rows.x), np.nan)
    (above_x, size_x), (above_y, size_y) = rows.groups_x, rows.groups_y
    return np.abs((above_x + size_x / 2) - (above_y + size_y / 2)).max(axis=1)


_KERNELS: dict[str, Callable[[_Rows, dict[str, Any]], np.ndarray]] = {
    'tau_a': _tau_a_rows, 'tau_b': _tau_b_rows, 'spearman': _spearman_rows, 'pearson': _pearson_rows,
    'tau_ap': _tau_ap_rows, 'tau_ap_a': _tau_ap_a_rows, 'tau_ap_b': _tau_ap_b_rows, 'rbo': _rbo_rows,
    'swapped_pairs': _swapped_pairs_rows, 'top_k_overlap': _top_k_overlap_rows,
    'largest_rank_change': _largest_rank_change_rows}

#: Why a statistic is undefined, with ``{x}`` and ``{y}`` for the rankings' names.
_FEW = 'it needs two or more systems'
_NONE = 'there are no systems'
_CONSTANT = 'every system ties in the ranking of {which}'
_TIES_AP = 'the ranking of {which} has ties (τ_AP assumes none; tau_ap_a and tau_ap_b treat them)'
_TIES_AP_A = ('the ranking of {which}, the reference, has ties (τ_AP_a assumes a true ranking without ties; '
              'tau_ap_b treats ties in both)')


def _undefined(statistic: str, rows: _Rows) -> list[tuple[np.ndarray, str, str | None]]:
    """The rows where ``statistic`` is undefined, each as (mask, reason, the ranking the reason names or None)."""
    count = len(rows.x)
    if statistic in ('swapped_pairs',):
        return []
    if statistic in ('rbo', 'top_k_overlap', 'largest_rank_change'):
        return [(np.ones(count, dtype=bool), _NONE, None)] if rows.n < 1 else []
    if rows.n < 2:
        return [(np.ones(count, dtype=bool), _FEW, None)]
    if statistic in ('tau_b', 'spearman', 'pearson', 'tau_ap_b'):
        return [(rows.constant(which), _CONSTANT, which) for which in 'xy']
    if statistic == 'tau_ap':
        return [(rows.has_ties(which), _TIES_AP, which) for which in 'xy']
    if statistic == 'tau_ap_a':
        return [(rows.has_ties('x'), _TIES_AP_A, 'x')]
    return []


Reasons = list[tuple[np.ndarray, str, 'str | None']]


def _statistics_rows(statistics: Sequence[str], x: np.ndarray, y: np.ndarray, options: dict[str, Any]
                     ) -> dict[str, tuple[np.ndarray, Reasons]]:
    """Each of ``statistics`` on each row pair of ``x`` and ``y`` (``(rows, n)``, tied already), NaN where
    undefined, with why (masks over the rows); the rows taken in chunks of at most :data:`_CELLS` pairwise cells,
    the statistics of a chunk sharing its pairwise matrices."""
    count, n = x.shape
    step = max(1, _CELLS // max(n * n, 1))
    values = {statistic: np.empty(count, dtype=np.float64) for statistic in statistics}
    masks: dict[tuple[str, str, str | None], np.ndarray] = {}
    for start in range(0, count, step):
        rows = _Rows(x[start:start + step], y[start:start + step])
        for statistic in statistics:
            chunk = np.asarray(_KERNELS[statistic](rows, options), dtype=np.float64)
            for mask, reason, which in _undefined(statistic, rows):
                chunk = np.where(mask, np.nan, chunk)
                whole = masks.setdefault((statistic, reason, which), np.zeros(count, dtype=bool))
                whole[start:start + len(mask)] |= mask
            values[statistic][start:start + step] = chunk
    return {statistic: (values[statistic], [(mask, reason, which) for (name, reason, which), mask in masks.items()
                                            if name == statistic and mask.any()]) for statistic in statistics}


def _explain(reason: str, which: str | None, names: dict[str, str]) -> str:
    return reason.format(which=names[which]) if which is not None else reason


def _one(statistic: str, x: ArrayLike, y: ArrayLike, **options: Any) -> float:
    """A kernel on one pair of vectors, warning where it is undefined."""
    first, second = _finite(x, 'x'), _finite(y, 'y')
    if first.ndim != 1 or second.ndim != 1 or len(first) != len(second):
        raise InputError(f'{statistic}: x and y must be 1-D score vectors of the same systems (the same length); '
                         f'got shapes {first.shape} and {second.shape}')
    values, reasons = _statistics_rows([statistic], first[None], second[None], options)[statistic]
    if reasons:
        why = '; '.join(_explain(reason, which, {'x': 'x', 'y': 'y'}) for _, reason, which in reasons)
        warn_at_caller(f'{statistic} is undefined (NaN): {why}', UndefinedLeaderboardAgreementWarning)
    return float(values[0])


def _finite(values: ArrayLike, name: str) -> np.ndarray:
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f'{name}: expected numbers ({error})') from None
    if not np.isfinite(array).all():
        raise InputError(f'{name}: scores must be finite numbers; got {array[~np.isfinite(array)][:3].tolist()}')
    return array


def _persistence(p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.number)) or not 0 < p < 1:
        raise MeasureParamError(f'rbo: the persistence p must be a number with 0 < p < 1; got {p!r}')
    return float(p)


def _rbo_ties(ties: str) -> str:
    if ties not in RBO_TIES:
        raise MeasureParamError(f"rbo: ties must be one of {', '.join(map(repr, RBO_TIES))}; got {ties!r}")
    return ties


def _top_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise MeasureParamError(f'top_k_overlap: k must be an integer from 1; got {k!r}')
    return int(k)


# Tables ----------------------------------------------------------------------------------------------------------


def leaderboard_agreement(scores: pd.DataFrame, reference: str | None = None, decimals: int | None = None,
                          tolerance: float | None = None, top_k: int = DEFAULT_TOP_K,
                          p: float = DEFAULT_PERSISTENCE, rbo_ties: str = 'a') -> pd.DataFrame:
    """How far the system rankings of judgement sets agree, per measure: ``scores`` a scores frame (columns judge,
    run, measure, value: each run's aggregate under each set; see :mod:`irmeasures_ext.judges`), one row per
    measure (in order of appearance) and pair of judges — ``reference`` against each other judge when given,
    else every pair in order of appearance — with the columns of :data:`AGREEMENT_COLUMNS`: ``systems`` (the runs
    ranked), then each statistic of this module on the two judges' scores, ``judge_a``'s as ``x`` (the reference
    of τ_AP and τ_AP_a), after :func:`tied` with ``decimals`` or ``tolerance``; ``top_k`` for
    :func:`top_k_overlap`, ``p`` and ``rbo_ties`` for :func:`rbo`.

    Every judge must score the same runs for a measure: runs missing under one are an InputError naming them.
    Where a statistic is undefined it is NaN, with one warning per statistic and reason listing where."""
    import pandas as pd
    options = {'top_k': _top_k(top_k), 'p': _persistence(p), 'rbo_ties': _rbo_ties(rbo_ties)}
    table = _ScoresTable(scores, 'leaderboard_agreement', per_query=False)
    pairs = table.pairs(reference)
    tied(np.zeros(0), decimals, tolerance)  # (checks the options)
    rows: list[dict[str, Any]] = []
    undefined: dict[tuple[str, str], list[str]] = {}
    for measure, _, values in table.by_measure():  # values: (judges, runs)
        values = tied(values, decimals, tolerance)
        for a, b in pairs:
            row: dict[str, Any] = {'measure': measure, 'judge_a': table.judges[a], 'judge_b': table.judges[b],
                                   'systems': values.shape[1]}
            for statistic, (result, reasons) in _statistics_rows(STATISTICS, values[a][None], values[b][None],
                                                                 options).items():
                row[statistic] = result[0]
                for _, reason, which in reasons:
                    undefined.setdefault((statistic, _explain(reason, which, {'x': 'judge_a', 'y': 'judge_b'})),
                                         []).append(f'{measure}: {table.judges[a]} vs {table.judges[b]}')
            rows.append(row)
    _warn_undefined('leaderboard_agreement', undefined)
    frame = pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
    return frame.astype({'systems': np.int64, 'swapped_pairs': np.int64})


def rankings(scores: pd.DataFrame, decimals: int | None = None, tolerance: float | None = None) -> pd.DataFrame:
    """Each judge's ranking of the systems per measure: ``scores`` a scores frame (judge, run, measure, value), one
    row per (measure, judge, run) with the columns of :data:`RANKINGS_COLUMNS`: ``value`` the score after
    :func:`tied` with ``decimals`` or ``tolerance`` (applied to each judge's scores of a measure), ``rank`` the
    mid-rank (1 the best; tied systems share the mean of their positions: 1, 2.5, 2.5, 4) and ``min_rank`` the
    competition rank (1, 2, 2, 4). Rows run by measure and judge (in order of appearance), then by rank; tied
    runs in the order the frame first names them (their ranks are equal). Each judge ranks the runs it scores."""
    import pandas as pd
    table = _ScoresTable(scores, 'rankings', per_query=False, complete=False)
    tied(np.zeros(0), decimals, tolerance)
    parts = []
    for measure, runs, values in table.by_measure():
        for judge in range(len(table.judges)):
            present = ~np.isnan(values[judge])
            if not present.any():
                continue
            scored = tied(values[judge][present], decimals, tolerance)
            above, size = _groups(scored[None])
            order = np.argsort(above[0], kind='stable')
            names = np.empty(len(runs), dtype=object)
            names[:] = [table.runs[run] for run in runs]
            parts.append(pd.DataFrame({
                'measure': [measure] * len(order), 'judge': [table.judges[judge]] * len(order),
                'run': names[present][order], 'value': scored[order],
                'rank': (above[0] + (size[0] + 1) / 2)[order], 'min_rank': above[0][order] + 1}))
    if not parts:
        return pd.DataFrame(columns=RANKINGS_COLUMNS)
    return pd.concat(parts, ignore_index=True)[RANKINGS_COLUMNS]


def bootstrap(per_query_scores: pd.DataFrame, statistic: str = 'tau_b', n: int = 1000, seed: int = 0,
              level: float = 0.95, *, reference: str | None = None, decimals: int | None = None,
              tolerance: float | None = None, top_k: int = DEFAULT_TOP_K, p: float = DEFAULT_PERSISTENCE,
              rbo_ties: str = 'a') -> pd.DataFrame:
    """A percentile bootstrap confidence interval of ``statistic`` (one of :data:`STATISTICS`) per measure and pair
    of judges (as :func:`leaderboard_agreement` pairs them), over topics: ``per_query_scores`` a scores frame with
    ``query_id`` (each run's value per query under each judge). Each of the ``n`` replicates draws the topics with
    replacement — the same draw for every judge, pair and run, and for every measure with as many topics (each
    measure starts a generator from ``seed``: the same seed, the same intervals) — takes each run's mean over the
    drawn topics under each judge and computes the statistic on those means (after :func:`tied` with ``decimals``
    or ``tolerance``). A row of :data:`BOOTSTRAP_COLUMNS` per measure and pair: ``estimate`` the statistic on the
    means over all topics, ``lower`` and ``upper`` the (1 − level)/2 and (1 + level)/2 quantiles of the
    replicates where it is defined (linearly interpolated), ``undefined`` the replicates where it is not (e.g.
    every run tied), left out, with a warning.

    The interval shows how much the statistic varies between topic sets of this size. A replicate's duplicated
    topics add noise to each run's mean under both judges, which lowers their agreement: with many runs close
    together the replicates of τ, ρ, r or RBO mostly lie below the estimate, and the interval may even exclude it.

    Every (judge, run) must have a value for every topic of the measure: missing ones are an InputError naming
    them (fill them, e.g. with 0 as ``trec_eval -c`` does)."""
    import pandas as pd
    if statistic not in STATISTICS:
        raise MeasureParamError(f"bootstrap: statistic must be one of {', '.join(STATISTICS)}; got {statistic!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise MeasureParamError(f'bootstrap: n (the replicates) must be an integer from 1; got {n!r}')
    if isinstance(level, bool) or not isinstance(level, (int, float, np.number)) or not 0 < level < 1:
        raise MeasureParamError(f'bootstrap: level must be a number with 0 < level < 1; got {level!r}')
    options = {'top_k': _top_k(top_k), 'p': _persistence(p), 'rbo_ties': _rbo_ties(rbo_ties)}
    tied(np.zeros(0), decimals, tolerance)
    table = _ScoresTable(per_query_scores, 'bootstrap', per_query=True)
    pairs = table.pairs(reference)
    rows: list[dict[str, Any]] = []
    undefined: dict[tuple[str, str], list[str]] = {}
    resampled: dict[str, list[str]] = {}
    for measure, _, values in table.by_measure():  # values: (judges, runs, topics)
        topics = values.shape[2]
        draws = np.random.default_rng(seed).integers(0, topics, size=(n, topics))
        counts = np.bincount((draws + topics * np.arange(n)[:, None]).ravel(), minlength=n * topics)
        weights = counts.reshape(n, topics) / topics
        means = tied(np.einsum('jrq,bq->jbr', values, weights), decimals, tolerance)  # (judges, replicates, runs)
        point = tied(values.mean(axis=2), decimals, tolerance)
        for a, b in pairs:
            case = f'{measure}: {table.judges[a]} vs {table.judges[b]}'
            estimate, reasons = _statistics_rows([statistic], point[a][None], point[b][None], options)[statistic]
            for _, reason, which in reasons:
                undefined.setdefault((statistic, _explain(reason, which, {'x': 'judge_a', 'y': 'judge_b'})),
                                     []).append(case)
            replicates, _ = _statistics_rows([statistic], means[a], means[b], options)[statistic]
            defined = replicates[~np.isnan(replicates)]
            if len(defined) < n:
                resampled.setdefault(statistic, []).append(f'{case} ({n - len(defined)} of {n})')
            lower, upper = (np.quantile(defined, [(1 - level) / 2, (1 + level) / 2]) if len(defined)
                            else (np.nan, np.nan))
            rows.append({'measure': measure, 'judge_a': table.judges[a], 'judge_b': table.judges[b],
                         'statistic': statistic, 'systems': values.shape[1], 'topics': topics,
                         'estimate': estimate[0], 'lower': float(lower), 'upper': float(upper), 'level': float(level),
                         'replicates': n, 'undefined': n - len(defined)})
    _warn_undefined('bootstrap', undefined)
    for name, cases in resampled.items():
        warn_at_caller(f'bootstrap: {name} is undefined in some replicates, left out of the interval: '
                       f'{_listed(cases)}', UndefinedLeaderboardAgreementWarning)
    return pd.DataFrame(rows, columns=BOOTSTRAP_COLUMNS)


def _listed(cases: Sequence[str]) -> str:
    more = f' and {len(cases) - _LISTED} more' if len(cases) > _LISTED else ''
    return '; '.join(cases[:_LISTED]) + more


def _warn_undefined(caller: str, undefined: dict[tuple[str, str], list[str]]) -> None:
    for (statistic, why), cases in undefined.items():
        warn_at_caller(f'{caller}: {statistic} is undefined (NaN) where {why}, for (measure: judge_a vs judge_b) '
                       f'{_listed(cases)}',
                       UndefinedLeaderboardAgreementWarning)


class _ScoresTable:
    """A scores frame checked and indexed: judges, runs, measures (in order of appearance) and, per measure, the
    values as an array (judges, runs) or, per query, (judges, runs, topics)."""

    def __init__(self, scores: Any, caller: str, per_query: bool, complete: bool = True) -> None:
        import pandas as pd
        self.caller, self.per_query, self.complete = caller, per_query, complete
        if not isinstance(scores, pd.DataFrame):
            raise InputError(f'{caller}: expected a scores frame (a DataFrame); got {type(scores).__name__}')
        keys = ['judge', 'run', 'measure'] + (['query_id'] if per_query else [])
        missing = [column for column in [*keys, 'value'] if column not in scores.columns]
        if missing:
            raise InputError(f'{caller}: the scores frame lacks the column(s) {", ".join(missing)}; a scores frame has '
                             f'columns {", ".join([*keys, "value"])}')
        try:
            value = scores['value'].to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InputError(f'{caller}: the value column must hold numbers ({error})') from None
        if not np.isfinite(value).all():
            bad = scores[~np.isfinite(value)].head(3)
            raise InputError(f'{caller}: values must be finite numbers; e.g. '
                             + '; '.join(f'{row.judge} {row.run} {row.measure}: {row.value}'
                                         for row in bad.itertuples()))
        factorized = [pd.factorize(scores[key]) for key in keys]
        codes = [np.asarray(code) for code, _ in factorized]
        uniques = [list(unique) for _, unique in factorized]
        for key, code in zip(keys, codes, strict=True):
            if (code < 0).any():
                raise InputError(f'{caller}: the {key} column has missing values (NaN or None)')
        self.judges, self.runs, self.measures = uniques[0], uniques[1], uniques[2]
        self.topics = uniques[3] if per_query else []
        shape = tuple(len(unique) for unique in uniques)
        flat = np.ravel_multi_index(tuple(codes), shape) if len(value) else np.zeros(0, dtype=np.int64)
        seen = np.bincount(flat, minlength=math.prod(shape))
        if (seen > 1).any():
            index = np.unravel_index(int(np.argmax(seen > 1)), shape)
            names = ', '.join(f'{key} {unique[i]}' for key, unique, i in zip(keys, uniques, index, strict=True))
            hint = ('; per-query values (a query_id column) are for bootstrap, the others take aggregates'
                    if not per_query and 'query_id' in scores.columns else '')
            raise InputError(f'{caller}: the scores frame has two values for {names}{hint}')
        self.array = np.full(shape, np.nan)
        self.array[tuple(codes)] = value

    def pairs(self, reference: str | None) -> list[tuple[int, int]]:
        judges = len(self.judges)
        if judges < 2:
            raise InputError(f'{self.caller}: comparing rankings needs two or more judges; the scores frame has '
                             f'{judges}: {", ".join(map(str, self.judges))}')
        if reference is None:
            return list(itertools.combinations(range(judges), 2))
        if reference not in self.judges:
            raise InputError(f'{self.caller}: reference {reference!r} is not a judge of the scores frame; the judges '
                             f'are {", ".join(map(str, self.judges))}')
        first = self.judges.index(reference)
        return [(first, other) for other in range(judges) if other != first]

    def by_measure(self) -> list[tuple[Any, np.ndarray, np.ndarray]]:
        """(measure, runs, values) for each measure: the runs it has (any judge, any topic; indices into
        ``self.runs``) and their values (judges, runs), or (judges, runs, topics) for per-query values, restricted
        to its topics; with ``complete``, missing values are an InputError."""
        result = []
        for index, measure in enumerate(self.measures):
            values = self.array[:, :, index]
            present = ~np.isnan(values)
            runs = present.any(axis=tuple(i for i in range(values.ndim) if i != 1))
            values = values[:, runs]
            if self.per_query:
                values = values[:, :, ~np.isnan(values).all(axis=(0, 1))]
            if self.complete:
                self._check_complete(measure, values, np.flatnonzero(runs))
            result.append((measure, np.flatnonzero(runs), values))
        return result

    def _check_complete(self, measure: Any, values: np.ndarray, runs: np.ndarray) -> None:
        missing = np.isnan(values)
        if not missing.any():
            return
        if not self.per_query:
            lacking = [f'under judge {self.judges[judge]}: '
                       + ', '.join(str(self.runs[runs[i]]) for i in np.flatnonzero(missing[judge]))
                       for judge in np.flatnonzero(missing.any(axis=1))]
            raise InputError(f'{self.caller}: measure {measure}: run(s) missing {"; ".join(lacking)} (every judge '
                             'must score the same runs)')
        judge, run = (int(i) for i in np.unravel_index(int(np.argmax(missing.any(axis=2))), missing.shape[:2]))
        topics = self._topics_of(measure)
        names = [str(topics[i]) for i in np.flatnonzero(missing[judge, run])]
        raise InputError(f'{self.caller}: measure {measure}: judge {self.judges[judge]}, run '
                         f'{self.runs[runs[run]]} has no value for topic(s) {", ".join(names[:10])}'
                         f'{" ..." if len(names) > 10 else ""} (every judge and run needs a value per topic: fill '
                         'them, e.g. with 0 as trec_eval -c does)')

    def _topics_of(self, measure: Any) -> list[Any]:
        index = self.measures.index(measure)
        present = ~np.isnan(self.array[:, :, index]).all(axis=(0, 1))
        return [topic for topic, kept in zip(self.topics, present, strict=True) if kept]
