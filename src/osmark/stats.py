"""Sample statistics in pure Python: medians, their distribution-free CIs, geometric means.

The confidence interval of a median uses order statistics (no normality assumption):
for n sorted values, the 95 % CI is [x(j), x(n+1-j)] with j the largest rank such that
P(Binomial(n, 1/2) <= j-1) <= 0.025. It exists from n = 6 on.
"""

from __future__ import annotations

import math
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
