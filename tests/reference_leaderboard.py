"""Plain, slow reference implementations of the leaderboard agreement statistics
(``irmeasures_ext.judges.leaderboard``), written from the definitions as loops over pairs, depths and the orderings
that break ties: no numpy and nothing imported from ``irmeasures_ext``, so that a mistake in the vectorised code
cannot hide in a helper both share.

Each function takes two lists of scores of the same systems (``x[i]`` and ``y[i]``: system i), higher is better,
two systems tied when their scores are equal. Where a statistic is asymmetric ``x`` is the reference ("true")
ranking and ``y`` the one compared with it. Sources:

- Kendall's τ_a: (concordant − discordant) / (n(n−1)/2) (Kendall, *Rank Correlation Methods*);
- τ_AP: Yilmaz, Aslam and Robertson, "A new rank correlation coefficient for information retrieval", SIGIR 2008:
  τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1, i running down the compared ranking, C(i) the systems above
  position i that the true ranking also puts above that system;
- τ_AP_a and τ_AP_b: Urbano and Marrero, "The Treatment of Ties in AP Correlation", ICTIR 2017: τ_AP_a is the
  expected τ_AP when the compared ranking's ties are broken uniformly at random (the true ranking has none);
  τ_AP_b is the mean of the two directions of the asymmetric coefficient that, for each system below the compared
  ranking's first tie group, takes the share of the systems strictly above its group there that the other ranking
  puts strictly above it;
- RBO: Webber, Moffat and Zobel, "A similarity measure for indefinite rankings", TOIS 2010, on two complete
  rankings of the same n systems: (1 − p) Σ_{d=1..n} p^{d−1} A_d + p^n (A_d = 1 beyond depth n, where both
  prefixes hold every system); ties as in Corsi and Urbano, "The Treatment of Ties in Rank-Biased Overlap",
  SIGIR 2024: ``'a'`` the expected RBO over the random tie-breakings of both rankings, ``'w'`` tied systems all
  seen together from the depth their group starts (agreement 2·overlap / (|x prefix| + |y prefix|)), ``'b'`` the
  overlap of the expected prefix memberships over the product of their norms.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

Scores = Sequence[float]


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def pairs(n: int) -> Iterator[tuple[int, int]]:
    for i in range(n):
        for j in range(i + 1, n):
            yield i, j


def concordant_discordant(x: Scores, y: Scores) -> tuple[int, int]:
    """Pairs of systems ordered alike (strictly) by both, and ordered oppositely; pairs tied in either are neither."""
    concordant = discordant = 0
    for i, j in pairs(len(x)):
        product = sign(x[i] - x[j]) * sign(y[i] - y[j])
        concordant += product > 0
        discordant += product < 0
    return concordant, discordant


def tau_a(x: Scores, y: Scores) -> float:
    concordant, discordant = concordant_discordant(x, y)
    n = len(x)
    return (concordant - discordant) / (n * (n - 1) / 2)


def swapped_pairs(x: Scores, y: Scores) -> int:
    return concordant_discordant(x, y)[1]


def has_ties(scores: Scores) -> bool:
    return len(set(scores)) < len(scores)


def tau_ap_of_order(x: Scores, order: Sequence[int]) -> float:
    """Yilmaz et al.'s τ_AP of the compared ranking ``order`` (system indices, best first) against the untied true
    scores ``x``."""
    n = len(order)
    total = 0.0
    for position in range(1, n):  # the (position + 1)-th system; ``position`` systems above it
        system = order[position]
        correct = sum(1 for above in order[:position] if x[above] > x[system])
        total += correct / position
    return 2 * total / (n - 1) - 1


def order_of(scores: Scores) -> list[int]:
    """The systems best first, for untied scores."""
    assert not has_ties(scores)
    return sorted(range(len(scores)), key=lambda system: -scores[system])


def tie_breakings(scores: Scores) -> Iterator[list[int]]:
    """Every ordering of the systems best first that breaks the ties of ``scores`` (each tie group permuted)."""
    groups = [[system for system in range(len(scores)) if scores[system] == value]
              for value in sorted(set(scores), reverse=True)]
    for permuted in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [system for group in permuted for system in group]


def tie_breaking_count(scores: Scores) -> int:
    return math.prod(math.factorial(list(scores).count(value)) for value in set(scores))


def tau_ap(x: Scores, y: Scores) -> float:
    """τ_AP of ``y`` against the true ``x`` (neither with ties)."""
    assert not has_ties(x) and not has_ties(y)
    return tau_ap_of_order(x, order_of(y))


def tau_ap_a(x: Scores, y: Scores) -> float:
    """The mean τ_AP over every way of breaking the ties of ``y`` (``x`` without ties)."""
    assert not has_ties(x)
    values = [tau_ap_of_order(x, order) for order in tie_breakings(y)]
    return sum(values) / len(values)


def tau_ap_b_one_way(x: Scores, y: Scores) -> float:
    """2/(n − t₁) · Σ over the systems i below ``y``'s first tie group of (systems strictly above i's group in
    ``y`` that ``x`` puts strictly above i) / (systems strictly above i's group in ``y``) − 1; t₁: the size of
    ``y``'s first group."""
    total, counted = 0.0, 0
    for i in range(len(y)):
        above = [j for j in range(len(y)) if y[j] > y[i]]
        if not above:
            continue
        counted += 1
        total += sum(1 for j in above if x[j] > x[i]) / len(above)
    return 2 * total / counted - 1


def tau_ap_b(x: Scores, y: Scores) -> float:
    return (tau_ap_b_one_way(x, y) + tau_ap_b_one_way(y, x)) / 2


def rbo_of_orders(first: Sequence[int], second: Sequence[int], p: float) -> float:
    """RBO of two complete untied rankings of the same systems (best first)."""
    n = len(first)
    total = 0.0
    for depth in range(1, n + 1):
        overlap = len(set(first[:depth]) & set(second[:depth]))
        total += p ** (depth - 1) * overlap / depth
    return (1 - p) * total + p ** n


def membership(scores: Scores, system: int, depth: int) -> float:
    """The probability that ``system`` is in the top ``depth`` when the ties of ``scores`` are broken at random:
    its group holds the positions above+1 .. above+size."""
    above = sum(1 for other in scores if other > scores[system])
    size = sum(1 for other in scores if other == scores[system])
    return min(1.0, max(0.0, (depth - above) / size))


def seen(scores: Scores, system: int, depth: int) -> bool:
    """Whether ``system``'s tie group starts at ``depth`` or above (RBO^w: a group is seen whole)."""
    return sum(1 for other in scores if other > scores[system]) < depth


def rbo(x: Scores, y: Scores, p: float, ties: str = 'a') -> float:
    n = len(x)
    if ties == 'a':
        values = [rbo_of_orders(first, second, p) for first in tie_breakings(x) for second in tie_breakings(y)]
        return sum(values) / len(values)
    total = 0.0
    for depth in range(1, n + 1):
        if ties == 'w':
            in_x = [system for system in range(n) if seen(x, system, depth)]
            in_y = [system for system in range(n) if seen(y, system, depth)]
            agreement = 2 * len(set(in_x) & set(in_y)) / (len(in_x) + len(in_y))
        elif ties == 'b':
            cx = [membership(x, system, depth) for system in range(n)]
            cy = [membership(y, system, depth) for system in range(n)]
            overlap = sum(a * b for a, b in zip(cx, cy, strict=True))
            agreement = overlap / math.sqrt(sum(a * a for a in cx)) / math.sqrt(sum(b * b for b in cy))
        else:
            raise ValueError(ties)
        total += p ** (depth - 1) * agreement
    return (1 - p) * total + p ** n


def top_k_overlap(x: Scores, y: Scores, k: int) -> float:
    """The mean number of systems in both top ``k`` over every way of breaking the ties of both rankings."""
    k = min(k, len(x))
    counts = [len(set(first[:k]) & set(second[:k])) for first in tie_breakings(x) for second in tie_breakings(y)]
    return sum(counts) / len(counts)


def mid_ranks(scores: Scores) -> list[float]:
    """Rank 1 the best; tied systems share the mean of the positions their group holds."""
    result = []
    for value in scores:
        above = sum(1 for other in scores if other > value)
        size = sum(1 for other in scores if other == value)
        result.append(above + (size + 1) / 2)
    return result


def largest_rank_change(x: Scores, y: Scores) -> float:
    return max(abs(a - b) for a, b in zip(mid_ranks(x), mid_ranks(y), strict=True))


def tied_decimals(scores: Scores, decimals: int) -> list[float]:
    """The scores as printed with ``decimals`` places."""
    return [float(f'{value:.{decimals}f}') for value in scores]


def within(anchor: float, value: float, tolerance: float) -> bool:
    return anchor - value <= tolerance + 4 * math.ulp(max(abs(anchor), abs(value)))


def tied_tolerance(scores: Scores, tolerance: float) -> list[float]:
    """Down the scores from the highest, a group starts at the highest score not yet grouped and takes every score
    at most ``tolerance`` below it (give or take 4 units in the last place of the larger magnitude); each score
    becomes its group's first (highest)."""
    remaining = sorted(scores, reverse=True)
    anchor_of: dict[float, float] = {}
    while remaining:
        anchor = remaining[0]
        members = [value for value in remaining if within(anchor, value, tolerance)]
        for value in members:
            anchor_of[value] = anchor
        remaining = [value for value in remaining if not within(anchor, value, tolerance)]
    return [anchor_of[value] for value in scores]
