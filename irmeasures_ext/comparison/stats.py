"""The statistics of :func:`irmeasures_ext.compare`: paired significance tests, multiple-comparison
corrections, confidence intervals and effect sizes, vectorised over pairs of runs.

Per-query values come as arrays with queries along the last axis. Every test is two-sided. When
the per-query differences of a pair are all zero, its p-value is 1 (scipy answers NaN: the runs do
not differ on any query, which is no evidence of a difference).
"""
from __future__ import annotations

import math

import numpy as np

from irmeasures_ext.engine.aggregates import MEAN, MEDIAN, Aggregate

#: Randomisation statistics within this relative distance of the observed one count as "at least as
#: extreme" (the sums are computed in another order than the observed mean).
RELATIVE_TOLERANCE = 1e-12
#: Elements of the largest temporary array (resamples × queries [× runs]) built at once.
BLOCK = 4_000_000
#: The incomplete beta function's continued fraction stops where a step changes it by at most a float's epsilon, or
#: fails after this many steps (Student's t took under 100 at every t, from 1 to 10^8 degrees of freedom).
FRACTION_STEPS = 1_000
#: :func:`t_two_sided` computes Student's t itself up to this many degrees of freedom (queries or topics), and takes
#: scipy's beyond (its own error, a relative 1.6e-12 at 10^4 and 1.4e-11 at 10^5, grows with the degrees).
LARGEST_FREEDOM = 10 ** 5


def _chunk(width: int) -> int:
    """How many resamples, flips or permutations of ``width`` elements each to draw at once."""
    return max(1, BLOCK // max(1, width))


def paired_t(differences: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the paired Student's t-test (``scipy.stats.ttest_rel``) for each row of
    per-query differences. A constant non-zero difference gives 0, too few queries NaN."""
    n = differences.shape[-1]
    if n < 2:
        return np.full(differences.shape[:-1], np.nan)
    mean = differences.mean(axis=-1)
    sd = differences.std(axis=-1, ddof=1)
    with np.errstate(divide='ignore', invalid='ignore'):
        statistic = mean / (sd / np.sqrt(n))
    p = t_two_sided(statistic, n - 1)
    return np.where(sd == 0, np.where(mean == 0, 1.0, 0.0), p)


def t_two_sided(statistic: np.ndarray | float, freedom: np.ndarray | float) -> np.ndarray:
    """P(|T| ≥ |t|) for Student's t with ``freedom`` (> 0) degrees: the regularised incomplete beta function
    I_x(ν/2, 1/2) at x = ν / (ν + t²) (Abramowitz & Stegun 26.7.1), from its continued fraction where that converges
    fast, else as 1 - I_{1-x}(1/2, ν/2) (26.5.2), both logs of x and 1 - x from log1p. NaN for a NaN t, 0 for an
    infinite one. Equal to ``2 * scipy.special.stdtr(ν, -|t|)`` to a relative 2e-12 up to 10^4 degrees and 1.5e-11
    up to :data:`LARGEST_FREEDOM`, without importing scipy (0.3 s); beyond, where the fraction's error (about ν times
    a float's epsilon) would show, scipy's."""
    with np.errstate(over='ignore', divide='ignore'):  # (|t| above 1e154: t² = inf; t = 0 or below 1e-154: ν/t² = inf)
        squared, freedom = np.broadcast_arrays(np.square(np.asarray(statistic, dtype=np.float64)),
                                               np.asarray(freedom, dtype=np.float64))
        a = freedom / 2
        half = np.full_like(a, 0.5)
        x, y = 1 / (1 + squared / freedom), 1 / (1 + freedom / squared)
        log_x, log_y = -np.log1p(squared / freedom), -np.log1p(freedom / squared)
        direct = x < (a + 1) / (a + 2.5)  # (else the swapped fraction converges fast)
        first, second = np.where(direct, a, half), np.where(direct, half, a)
        log_front = (first * np.where(direct, log_x, log_y) + second * np.where(direct, log_y, log_x)
                     - math.lgamma(0.5) - _log_gamma_ratio(a, 0.5))
        value = np.exp(log_front) * _beta_fraction(first, second, np.where(direct, x, y)) / first
    p = np.where(direct, value, 1 - value)
    beyond = freedom > LARGEST_FREEDOM
    if beyond.any():
        from scipy.special import stdtr
        p = np.where(beyond, 2 * stdtr(freedom, -np.sqrt(squared)), p)
    return p


def _log_gamma_ratio(a: np.ndarray, b: float) -> np.ndarray:
    """log Γ(a) - log Γ(a + b) (b ≤ 1), from Stirling's series where a ≥ 50 (the difference of two large
    ``lgamma`` loses digits; the series' next term, -1/(1680 z⁷), moves it by under 1e-16 there), else from
    ``math.lgamma``."""
    flat = a.ravel()
    ratio = np.empty(len(flat))
    large = flat >= 50
    z = flat[large]

    def stirling_rest(z: np.ndarray) -> np.ndarray:  # (log Γ(z) - (z - ½) log z + z - ½ log 2π)
        z2 = z * z
        return (1 / 12 - (1 / 360 - 1 / (1260 * z2)) / z2) / z

    ratio[large] = -(z - 0.5) * np.log1p(b / z) - b * np.log(z + b) + b + stirling_rest(z) - stirling_rest(z + b)
    ratio[~large] = [math.lgamma(value) - math.lgamma(value + b) for value in flat[~large].tolist()]
    return ratio.reshape(a.shape)


def _beta_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of a I_x(a, b) / (x^a (1 - x)^b / B(a, b)) (Abramowitz & Stegun 26.5.8), by the
    modified Lentz method, every element at once (each kept once a step changes it by at most epsilon). Where
    :func:`t_two_sided` calls it (x below (a + 1) / (a + b + 2)), no denominator comes near 0 (the least seen, over
    1 to 10^8 degrees and t from 1e-20 to 1e20: 4e-8), so Lentz's guard against one is left out."""
    epsilon = np.finfo(np.float64).eps
    c = 1.0
    fraction = d = 1 / (1 - (a + b) * x / (a + 1))
    active = np.ones(x.shape, dtype=bool)
    for m in range(1, FRACTION_STEPS):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 / (1 + numerator * d)
            c = 1 + numerator / c
            step = c * d
            fraction = np.where(active, fraction * step, fraction)
        active &= np.abs(step - 1) > epsilon  # (NaN: done)
        if not active.any():
            return fraction
    raise ArithmeticError(f'the incomplete beta function did not converge in {FRACTION_STEPS} steps')


def wilcoxon(differences: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the Wilcoxon signed-rank test with scipy's defaults
    (``scipy.stats.wilcoxon(x, y)``: zero differences dropped, exact distribution for small
    samples without ties, else the normal approximation) for each row of differences."""
    from scipy.stats import wilcoxon as scipy_wilcoxon
    rows = differences.reshape(-1, differences.shape[-1])
    p = np.array([1.0 if not np.any(row) else float(scipy_wilcoxon(row).pvalue) for row in rows])
    return p.reshape(differences.shape[:-1])


def randomization(differences: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Two-sided p-values of the paired randomisation (sign-flip) test of the mean difference, for
    each row of differences: exact over all 2^n sign flips when 2^n ≤ ``samples``
    (#{|T*| ≥ |T|} / 2^n), else over ``samples`` random flips ((1 + #{|T*| ≥ |T|}) / (1 + samples));
    every row sees the same flips."""
    rows = np.atleast_2d(differences)
    n = rows.shape[-1]
    observed = np.abs(rows.mean(axis=-1))
    threshold = observed - RELATIVE_TOLERANCE * np.maximum(np.abs(rows).mean(axis=-1), np.finfo(float).tiny)
    exact = n < 63 and 2 ** n <= samples
    total = 2 ** n if exact else samples
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(rows), dtype=np.int64)
    chunk = _chunk(n + len(rows))
    for start in range(0, total, chunk):
        size = min(chunk, total - start)
        if exact:
            bits = (np.arange(start, start + size)[:, None] >> np.arange(n)) & 1
            signs = 1 - 2 * bits
        else:
            signs = rng.choice(np.array([-1, 1]), size=(size, n))
        statistics = np.abs(signs @ rows.T) / n  # (flips, rows)
        counts += (statistics >= threshold).sum(axis=0)
    p = counts / total if exact else (1 + counts) / (1 + samples)
    return p.reshape(differences.shape[:-1])


def tukey_hsd(values: np.ndarray, pairs: list[tuple[int, int]], samples: int, seed: int) -> np.ndarray:
    """Randomised Tukey HSD (Carterette 2012; Sakai 2014) for the runs of ``values`` (queries ×
    runs): each query's values are permuted across the runs ``samples`` times; a pair's p-value is
    the share of permutations whose range of run means (max − min) is at least the pair's |mean
    difference|. Returns one p-value per pair of run indices."""
    n_queries, n_runs = values.shape
    means = values.mean(axis=0)
    gaps = np.array([abs(means[a] - means[b]) for a, b in pairs])
    threshold = gaps - RELATIVE_TOLERANCE * max(float(np.abs(values).mean()), np.finfo(float).tiny)
    rng = np.random.default_rng(seed)
    order = np.broadcast_to(np.arange(n_runs), (1, n_queries, n_runs))
    counts = np.zeros(len(pairs), dtype=np.int64)
    chunk = _chunk(n_queries * n_runs)
    for start in range(0, samples, chunk):
        size = min(chunk, samples - start)
        permutations = rng.permuted(np.broadcast_to(order, (size, n_queries, n_runs)), axis=2)
        permuted_means = np.take_along_axis(values[None], permutations, axis=2).mean(axis=1)  # (size, runs)
        ranges = permuted_means.max(axis=1) - permuted_means.min(axis=1)
        counts += (ranges[:, None] >= threshold[None, :]).sum(axis=0)
    return counts / samples


def adjust(p_values: np.ndarray, correction: str) -> np.ndarray:
    """p-values adjusted for the family ``p_values`` (NaNs are left out of it and stay NaN):
    ``none``, ``bonferroni`` (p·m), ``holm`` (step-down) or ``bh`` (Benjamini-Hochberg step-up)."""
    p_values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p_values.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p_values))
    m = len(present)
    if correction == 'none' or m == 0:
        return p_values.copy()
    p = p_values[present]
    if correction == 'bonferroni':
        adjusted[present] = np.minimum(1.0, p * m)
        return adjusted
    order = np.argsort(p, kind='stable')
    ranked = p[order]
    if correction == 'holm':
        stepped = np.maximum.accumulate((m - np.arange(m)) * ranked)
    elif correction == 'bh':
        stepped = np.minimum.accumulate((m / np.arange(1, m + 1) * ranked)[::-1])[::-1]
    else:
        raise ValueError(f'unknown correction {correction!r}')
    adjusted[present[order]] = np.minimum(1.0, stepped)
    return adjusted


def t_interval(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The (1 − alpha) Student's t confidence interval of the mean of each row (NaN for < 2 values)."""
    from scipy.special import stdtrit  # Student's t quantile
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    if n < 2:
        return np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
    half = stdtrit(n - 1, 1 - alpha / 2) * values.std(axis=-1, ddof=1) / np.sqrt(n)
    return mean - half, mean + half


def bootstrap_interval(values: np.ndarray, alpha: float, samples: int, seed: int,
                       statistic: Aggregate = MEAN) -> tuple[np.ndarray, np.ndarray]:
    """The (1 − alpha) percentile bootstrap interval of ``statistic`` (the mean, the median, ...) of each
    row: ``samples`` resamples of the queries with replacement (the same resamples for every row; for the
    median, the same positions in each row's sorted values), and the alpha/2 and 1 − alpha/2 quantiles of
    the resampled statistic (linear interpolation)."""
    rows = np.atleast_2d(values)
    n = rows.shape[-1]
    if n == 0:
        return np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    rng = np.random.default_rng(seed)
    if statistic is MEDIAN:
        resampled = _bootstrap_medians(np.sort(rows, axis=-1), samples, rng)
    else:
        resampled = np.empty((samples, len(rows)))
        chunk = _chunk(n * len(rows))
        for start in range(0, samples, chunk):
            size = min(chunk, samples - start)
            indices = rng.integers(0, n, size=(size, n))
            resampled[start:start + size] = statistic.of(rows[:, indices]).T
    low, high = np.quantile(resampled, [alpha / 2, 1 - alpha / 2], axis=0)
    return low.reshape(values.shape[:-1]), high.reshape(values.shape[:-1])


def _bootstrap_medians(sorted_rows: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """``samples`` × rows bootstrap medians of rows sorted ascending. A resample of a sorted row is a
    multiset of positions, and its median is the value at the median positions (the mean of the two
    middle ones for an even count), as the row is sorted: the positions' order statistics are found once
    for all rows."""
    n = sorted_rows.shape[-1]
    middle = ((n - 1) // 2, n // 2)
    medians = np.empty((samples, len(sorted_rows)))
    chunk = _chunk(n)
    for start in range(0, samples, chunk):
        size = min(chunk, samples - start)
        positions = np.partition(rng.integers(0, n, size=(size, n)), middle, axis=-1)
        lower, upper = sorted_rows[:, positions[:, middle[0]]], sorted_rows[:, positions[:, middle[1]]]
        medians[start:start + size] = ((lower + upper) / 2).T
    return medians


def effect_size(differences: np.ndarray) -> np.ndarray:
    """Paired effect size of each row: mean difference / standard deviation of the differences
    (ddof 1); 0 when every difference is 0, NaN when they are all equal otherwise or fewer than 2."""
    n = differences.shape[-1]
    mean = differences.mean(axis=-1) if n else np.full(differences.shape[:-1], np.nan)
    if n < 2:
        return np.full(mean.shape, np.nan)
    sd = differences.std(axis=-1, ddof=1)
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.where(sd > 0, mean / np.where(sd > 0, sd, 1), np.where(mean == 0, 0.0, np.nan))


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b between two orderings of the same items (scores ``x`` and ``y``; ties allowed):
    (concordant − discordant) / sqrt((pairs − ties in x) · (pairs − ties in y))."""
    i, j = np.triu_indices(len(x), k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    untied_x, untied_y = np.count_nonzero(sx), np.count_nonzero(sy)
    if not untied_x or not untied_y:
        return float('nan')
    return float((sx * sy).sum() / np.sqrt(untied_x * untied_y))
