"""Sample statistics in pure Python: medians, their distribution-free CIs, geometric means.

The confidence interval of a median uses order statistics (no normality assumption):
for n sorted values, the 95 % CI is [x(j), x(n+1-j)] with j the largest rank such that
P(Binomial(n, 1/2) <= j-1) <= 0.025. It exists from n = 6 on.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    if n % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2.0


def mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("mean of no values")
    return math.fsum(values) / len(values)


def mad(values: Sequence[float]) -> float:
    """Median absolute deviation from the median (unscaled)."""
    centre = median(values)
    return median([abs(v - centre) for v in values])


def _binomial_cdf_half(n: int, k: int) -> float:
    """P(Binomial(n, 1/2) <= k)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int] | None:
    """1-based ranks (j, n+1-j) bounding the median's CI, or None when n is too small."""
    tail = (1.0 - confidence) / 2.0
    best = None
    for j in range(1, n // 2 + 1):
        if _binomial_cdf_half(n, j - 1) <= tail:
            best = j
        else:
            break
    if best is None:
        return None
    return best, n + 1 - best


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Distribution-free confidence interval of the median, or None when n is too small."""
    ranks = median_ci_ranks(len(values), confidence)
    if ranks is None:
        return None
    ordered = sorted(values)
    low, high = ranks
    return float(ordered[low - 1]), float(ordered[high - 1])


def relative_half_width(centre: float, low: float, high: float) -> float:
    """The larger distance from the centre to a CI bound, as a fraction of the centre."""
    if centre == 0:
        return math.inf
    return max(centre - low, high - centre) / abs(centre)


def geometric_mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("geometric mean of no values")
    if any(v <= 0 for v in values):
        raise ValueError("geometric mean needs positive values")
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


# --- Comparing two samples -------------------------------------------------------------

def _median_bootstrap_distribution(values: Sequence[float]) -> tuple[list[float], list[float]]:
    """The exact bootstrap distribution of the median of `values`: (support, cumulative
    weights). Drawing from it is the same as resampling n values with replacement and
    taking their median, at a fraction of the cost (no resample is built or sorted).

    With draws uniform over the ranks 1..n and N(≤a) the number of draws at rank ≤ a:
    odd n, median = x(L) with P(L ≤ a) = P(Binomial(n, a/n) ≥ m), m = (n+1)/2;
    even n, median = (x(L1) + x(L2)) / 2 over the m-th and (m+1)-th smallest draws,
    m = n/2, whose joint probabilities follow from multinomial counts (see below).
    """
    xs = sorted(values)
    n = len(xs)
    combs = [math.comb(n, i) for i in range(n + 1)]
    if n % 2:
        m = (n + 1) // 2
        cumulative = [_binomial_upper_tail(combs, a / n, m) for a in range(1, n + 1)]
        return [float(x) for x in xs], cumulative
    m = n // 2
    support: list[float] = []
    weights: list[float] = []
    # P(N(≤a) ≥ m) and P(N(≤a) ≥ m+1) for a = 0..n, N(≤a) ~ Binomial(n, a/n)
    tail_m = [_binomial_upper_tail(combs, a / n, m) for a in range(n + 1)]
    tail_m1 = [_binomial_upper_tail(combs, a / n, m + 1) for a in range(n + 1)]
    for a in range(1, n + 1):
        below, at_or_below = (a - 1) / n, a / n
        # L1 = L2 = a: fewer than m draws below rank a, more than m at or below it.
        same = (tail_m1[a] - tail_m[a - 1]
                + combs[m] * below**m * (1 - at_or_below) ** (n - m))
        if same > _NEGLIGIBLE:
            support.append(float(xs[a - 1]))
            weights.append(same)
        if a == n:
            break
        # L1 = a < L2 = b: exactly m draws at or below a (not all below it), none in
        # (a, b), at least one at b.
        exactly_m = combs[m] * at_or_below**m * (1 - at_or_below) ** (n - m)
        head = exactly_m * (1 - ((a - 1) / a) ** m)
        if head < _NEGLIGIBLE:
            continue
        above = n - a
        power = n - m
        previous = head  # the mass from b = a+1 on: head × ((n-a)/above)^power
        for b in range(a + 1, n + 1):
            remaining = head * ((n - b) / above) ** power  # the mass beyond b
            p = previous - remaining
            previous = remaining
            if p > 0:
                support.append((xs[a - 1] + xs[b - 1]) / 2.0)
                weights.append(p)
            if remaining < _NEGLIGIBLE:
                break
    cumulative = []
    total = 0.0
    for w in weights:
        total += w
        cumulative.append(total)
    return support, cumulative


# Probability mass below which a median value is left out: far below the 1/4096 resolution
# of the table drawn from.
_NEGLIGIBLE = 1e-10


def _binomial_upper_tail(combs: list[int], p: float, k: int) -> float:
    """P(Binomial(n, p) ≥ k), with combs[i] = C(n, i) for i = 0..n."""
    n = len(combs) - 1
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    q = 1.0 - p
    return math.fsum(combs[i] * p**i * q ** (n - i) for i in range(k, n + 1))


# Above this many samples the exact distribution's O(n²) table costs more than resampling.
_EXACT_MEDIAN_LIMIT = 200
# The exact distribution is drawn from through an inverse-CDF table of this many quantiles:
# a draw is then one index (no bisection), and the table's resolution (1/4096 of
# probability) is far below the Monte Carlo error of a few thousand replicates.
_TABLE_SIZE = 4096


@functools.lru_cache(maxsize=512)
def _log_median_table(values: tuple[float, ...]) -> tuple[float, ...]:
    """log(median) at the quantiles (i + ½) / _TABLE_SIZE of the exact bootstrap
    distribution. Cached: a run compared with several others is tabled once."""
    support, cumulative = _median_bootstrap_distribution(values)
    scale = _TABLE_SIZE / cumulative[-1]
    table: list[float] = []
    for value, cum in zip(support, cumulative, strict=True):
        # slot i holds the value whose CDF step covers the quantile (i + ½) / size
        end = min(_TABLE_SIZE, math.floor(cum * scale + 0.5))
        if end > len(table):
            table.extend([math.log(value)] * (end - len(table)))
    table.extend([math.log(support[-1])] * (_TABLE_SIZE - len(table)))
    return tuple(table)


def bootstrap_log_medians(values: Sequence[float], reps: int,
                          rng: random.Random) -> list[float]:
    """`reps` bootstrap replicates of log(median of `values`); values must be positive."""
    if not values:
        raise ValueError("bootstrap of no values")
    if min(values) <= 0:
        raise ValueError("log-scale bootstrap needs positive values")
    if len(values) <= _EXACT_MEDIAN_LIMIT:
        return rng.choices(_log_median_table(tuple(values)), k=reps)
    data = list(values)
    return [math.log(median(rng.choices(data, k=len(data)))) for _ in range(reps)]


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """Linear-interpolated percentile of already sorted values (numpy's default rule)."""
    if not ordered:
        raise ValueError("percentile of no values")
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def percentile_interval(replicates: Sequence[float],
                        confidence: float = 0.95) -> tuple[float, float]:
    ordered = sorted(replicates)
    tail = (1.0 - confidence) / 2.0
    return percentile(ordered, tail), percentile(ordered, 1.0 - tail)


def bootstrap_log_ratios(baseline: Sequence[float], other: Sequence[float],
                         reps: int = 2000, seed: int = 0) -> list[float]:
    """Replicates of log(median(other) / median(baseline)), the two samples resampled
    independently (they come from different runs, so there is no pairing). Logs, because
    ratios of several tests combine by adding them (the geometric mean)."""
    rng = random.Random(seed)
    base = bootstrap_log_medians(baseline, reps, rng)
    new = bootstrap_log_medians(other, reps, rng)
    return [o - b for b, o in zip(base, new, strict=True)]


def bootstrap_ratio_ci(baseline: Sequence[float], other: Sequence[float],
                       confidence: float = 0.95, reps: int = 2000,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of median(other) / median(baseline). Seeded, so the same
    two samples always give the same interval."""
    low, high = percentile_interval(bootstrap_log_ratios(baseline, other, reps, seed),
                                    confidence)
    return math.exp(low), math.exp(high)


def _ranks(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """Mid-ranks (1-based) of values, and the sizes of the groups of tied values."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    ties: list[int] = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def _u_distribution(n1: int, n2: int) -> list[int]:
    """Counts of each U value (0..n1·n2) over all arrangements of n1 + n2 untied values."""
    # counts[j][u]: arrangements of i values of sample 1 and j of sample 2 with statistic u,
    # built up one i at a time (U grows by j when a sample-1 value follows j sample-2 ones).
    previous = [[1] for _ in range(n2 + 1)]  # i = 0: U is 0
    for i in range(1, n1 + 1):
        current: list[list[int]] = []
        for j in range(n2 + 1):
            size = i * j + 1
            row = [0] * size
            # last value from sample 1: U of (i-1, j) plus j.
            for u, c in enumerate(previous[j]):
                row[u + j] += c
            # last value from sample 2: U of (i, j-1).
            if j:
                for u, c in enumerate(current[j - 1]):
                    row[u] += c
            current.append(row)
        previous = current
    return previous[n2]


# Exact p-values where there are no ties and one sample is this small (as SciPy's 'auto').
_EXACT_U_LIMIT = 8


def mann_whitney_can_reject(n1: int, n2: int, alpha: float = 0.05) -> bool:
    """Whether samples this small can reach p < alpha at all: the smallest two-sided
    p-value of the test is 2 / C(n1 + n2, n1) (complete separation, no ties). At 3 and 3
    it is 0.1, so "no significant difference" would say nothing."""
    return n1 > 0 and n2 > 0 and 2.0 / math.comb(n1 + n2, n1) < alpha


def mann_whitney_u(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann–Whitney U test: (U of the first sample, p-value).

    Exact distribution when there are no ties and a sample has at most 8 values;
    otherwise the normal approximation with tie correction and continuity correction.
    """
    n1, n2 = len(first), len(second)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann-Whitney U needs two non-empty samples")
    ranks, ties = _ranks(list(first) + list(second))
    u1 = math.fsum(ranks[:n1]) - n1 * (n1 + 1) / 2.0
    u2 = n1 * n2 - u1
    big = max(u1, u2)
    has_ties = any(t > 1 for t in ties)
    if not has_ties and min(n1, n2) <= _EXACT_U_LIMIT:
        counts = _u_distribution(n1, n2)
        total = math.comb(n1 + n2, n1)
        upper = sum(counts[math.ceil(big):]) / total  # P(U ≥ big)
        return u1, min(1.0, 2.0 * upper)
    n = n1 + n2
    mean = n1 * n2 / 2.0
    tie_term = math.fsum(t**3 - t for t in ties) / (n * (n - 1))
    variance = n1 * n2 / 12.0 * ((n + 1) - tie_term)
    if variance <= 0:  # every value equal: no evidence of a difference
        return u1, 1.0
    z = (big - mean - 0.5) / math.sqrt(variance)
    return u1, min(1.0, math.erfc(z / math.sqrt(2.0)))
