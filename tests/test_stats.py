import math

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
