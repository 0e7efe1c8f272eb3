import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from scipy import stats as scipy_stats

from osmark import stats


def test_median_odd_even():
    assert stats.median([3, 1, 2]) == 2
    assert stats.median([4, 1, 3, 2]) == 2.5


def test_mad():
    assert stats.mad([1, 2, 3, 4, 100]) == 1


@pytest.mark.parametrize(("n", "ranks"), [(5, None), (6, (1, 6)), (10, (2, 9)), (20, (6, 15))])
def test_median_ci_ranks_known(n, ranks):
    assert stats.median_ci_ranks(n) == ranks


@pytest.mark.parametrize("n", range(6, 60))
def test_median_ci_ranks_coverage(n):
    j, k = stats.median_ci_ranks(n)
    assert k == n + 1 - j
    # the tail below rank j holds at most 2.5 %, and rank j+1 would exceed it
    assert scipy_stats.binom.cdf(j - 1, n, 0.5) <= 0.025
    assert scipy_stats.binom.cdf(j, n, 0.5) > 0.025


def test_median_ci_values():
    values = [10, 12, 11, 13, 9, 14, 15, 8, 16, 7]
    assert stats.median_ci(values) == (8, 15)
    assert stats.median_ci(values[:5]) is None


def test_relative_half_width():
    assert stats.relative_half_width(100, 98, 101) == pytest.approx(0.02)


def test_geometric_mean_matches_scipy():
    values = [1.5, 20.0, 300.0, 0.25]
    assert stats.geometric_mean(values) == pytest.approx(scipy_stats.gmean(values))
    with pytest.raises(ValueError):
        stats.geometric_mean([1.0, 0.0])
    assert math.isclose(stats.geometric_mean([4.0]), 4.0)


# --- comparing two samples, against SciPy on generated data ----------------------------

def _samples(seed: int, n: int, centre: float, spread: float, rounded: bool = False):
    rng = random.Random(seed)
    values = [rng.gauss(centre, spread) for _ in range(n)]
    return [round(v) for v in values] if rounded else values


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_median_bootstrap_distribution_is_exact(n):
    """Against full enumeration of every resample (n**n of them)."""
    values = [1.0, 2.5, 4.0, 7.0, 11.0, 20.0][:n]
    support, cumulative = stats._median_bootstrap_distribution(values)
    exact = Counter(stats.median(t) for t in itertools.product(values, repeat=n))
    got: dict[float, float] = {}
    previous = 0.0
    for value, cum in zip(support, cumulative, strict=True):
        got[value] = got.get(value, 0.0) + cum - previous
        previous = cum
    assert cumulative[-1] == pytest.approx(1.0, abs=1e-9)
    for value, count in exact.items():
        assert got.get(value, 0.0) == pytest.approx(count / n**n, abs=1e-9)


@pytest.mark.parametrize(("seed", "n1", "n2", "shift"),
                         [(1, 6, 6, 1.0), (2, 12, 9, 0.95), (3, 25, 30, 1.03), (4, 40, 7, 0.98),
                          (5, 8, 8, 1.01)])
def test_bootstrap_ratio_ci_matches_scipy(seed, n1, n2, shift):
    """Same percentile bootstrap as scipy.stats.bootstrap: the intervals agree within the
    Monte Carlo error of 10,000 replicates (about 0.5 % here)."""
    base = _samples(seed, n1, 100.0, 3.0)
    other = [v * shift for v in _samples(seed + 100, n2, 100.0, 3.0)]
    low, high = stats.bootstrap_ratio_ci(base, other, reps=10000, seed=seed)
    reference = scipy_stats.bootstrap(
        (np.array(base), np.array(other)), lambda a, b: np.median(b) / np.median(a),
        vectorized=False, paired=False, method="percentile", n_resamples=10000,
        random_state=seed).confidence_interval
    assert low == pytest.approx(reference.low, rel=0.006)
    assert high == pytest.approx(reference.high, rel=0.006)
    assert low <= stats.median(other) / stats.median(base) <= high


def test_bootstrap_is_reproducible():
    base, other = _samples(1, 10, 5.0, 1.0), _samples(2, 10, 6.0, 1.0)
    assert stats.bootstrap_ratio_ci(base, other) == stats.bootstrap_ratio_ci(base, other)


def test_bootstrap_of_large_samples_resamples():
    base, other = _samples(1, 250, 100.0, 5.0), _samples(2, 260, 110.0, 5.0)
    low, high = stats.bootstrap_ratio_ci(base, other)
    assert 1.05 < low < high < 1.15  # a shift of about 10 %, tightly bounded at n = 250


@pytest.mark.parametrize(("seed", "n1", "n2", "shift", "rounded"),
                         [(1, 5, 7, 0.0, False),     # exact path
                          (2, 8, 8, 3.0, False),     # exact path
                          (3, 3, 30, 2.0, False),    # exact path, one small sample
                          (4, 20, 25, 1.0, False),   # normal approximation
                          (5, 15, 12, 1.0, True),    # ties: normal approximation
                          (6, 6, 6, 0.0, True),      # small with ties
                          (7, 40, 40, 0.5, True)])
def test_mann_whitney_matches_scipy(seed, n1, n2, shift, rounded):
    first = _samples(seed, n1, 10.0, 2.0, rounded)
    second = [v + shift for v in _samples(seed + 50, n2, 10.0, 2.0, rounded)]
    u, p = stats.mann_whitney_u(first, second)
    reference = scipy_stats.mannwhitneyu(first, second, alternative="two-sided")
    assert u == pytest.approx(reference.statistic)
    assert p == pytest.approx(reference.pvalue, rel=1e-9)


def test_mann_whitney_degenerate():
    assert stats.mann_whitney_u([1.0, 1.0], [1.0, 1.0, 1.0])[1] == 1.0
    with pytest.raises(ValueError):
        stats.mann_whitney_u([], [1.0])


def test_geometric_mean_matches_scipy_on_generated_data():
    rng = random.Random(9)
    values = [rng.lognormvariate(0, 1) for _ in range(200)]
    assert stats.geometric_mean(values) == pytest.approx(scipy_stats.gmean(values), rel=1e-12)


def test_percentile_matches_numpy():
    values = sorted(_samples(3, 37, 0.0, 1.0))
    for fraction in (0.0, 0.025, 0.5, 0.975, 1.0):
        assert stats.percentile(values, fraction) == pytest.approx(
            np.percentile(values, fraction * 100))


@pytest.mark.parametrize(("n1", "n2", "possible"),
                         [(3, 3, False), (3, 4, False), (4, 4, True), (2, 20, True),
                          (1, 30, False), (0, 5, False)])
def test_mann_whitney_can_reject(n1, n2, possible):
    assert stats.mann_whitney_can_reject(n1, n2) is possible
    if n1 and n2:  # the most separated samples reach exactly the smallest p-value
        smallest = stats.mann_whitney_u(list(range(n1)), list(range(100, 100 + n2)))[1]
        assert (smallest < 0.05) is possible
