"""What io_uring's batching saves: fit t(B) = a + b/B to ns-per-op at batch sizes B.

One io_uring_enter() submits and reaps B operations, so its fixed cost b (the kernel
crossing, the ring bookkeeping of one call) is shared by B of them, while a (the work of
each operation: building its SQE, running it, reaping its CQE) is not. A least-squares fit
over the measured batch sizes separates the two: a is the floor batching approaches, b/B
what is still paid at batch B. Pure functions, no I/O, so a report can call them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from osmark.model import BenchResult

# os.uring.nop.b8 -> series os.uring.nop, batch 8.
SERIES_ID = re.compile(r"^(os\.uring\.(?:nop|read))\.b([1-9][0-9]*)$")


@dataclass(frozen=True)
class Fit:
    a: float  # ns per operation that batching cannot remove (B -> infinity)
    b: float  # ns per io_uring_enter() that a batch of B shares
    r2: float  # coefficient of determination of the fit, 1.0 = exact

    def at(self, batch: float) -> float:
        """The fitted ns per operation at batch size `batch`."""
        return self.a + self.b / batch


def fit(points: Iterable[tuple[int, float]]) -> Fit:
    """Least squares of t = a + b/B over (B, t) points.

    It is an ordinary linear regression of t on x = 1/B. Needs at least two distinct
    batch sizes (else a and b cannot be told apart): ValueError otherwise.
    """
    pts: list[tuple[float, float]] = []
    for batch, t in points:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"a batch size is a positive integer, not {batch!r}")
        pts.append((1.0 / batch, float(t)))
    n = len(pts)
    if n < 2:
        raise ValueError(f"need at least two points to fit t = a + b/B, got {n}")
    mean_x = sum(x for x, _ in pts) / n
    mean_t = sum(t for _, t in pts) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in pts)
    if sxx == 0.0:
        raise ValueError("need at least two different batch sizes to fit t = a + b/B")
    sxt = sum((x - mean_x) * (t - mean_t) for x, t in pts)
    b = sxt / sxx
    a = mean_t - b * mean_x
    ss_res = sum((t - (a + b * x)) ** 2 for x, t in pts)
    ss_tot = sum((t - mean_t) ** 2 for _, t in pts)
    r2 = 1.0 if ss_tot == 0.0 else 1.0 - ss_res / ss_tot  # all t equal: b = 0 is exact
    return Fit(a=a, b=b, r2=r2)


def fits(results: Iterable[BenchResult]) -> dict[str, Fit]:
    """Fit each io_uring series (os.uring.nop, os.uring.read) found in a run's results.

    Only results with status ok and a median count; a series with fewer than two batch
    sizes is left out. Keys are the series ids ("os.uring.nop"), in sorted order.
    """
    series: dict[str, list[tuple[int, float]]] = {}
    for result in results:
        match = SERIES_ID.match(result.id)
        if not match or result.status != "ok" or result.median is None:
            continue
        series.setdefault(match.group(1), []).append((int(match.group(2)), result.median))
    out: dict[str, Fit] = {}
    for name in sorted(series):
        points = series[name]
        if len({batch for batch, _ in points}) >= 2:
            out[name] = fit(points)
    return out
