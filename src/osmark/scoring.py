"""UnixBench-style scores: per-test index against a baseline, overall geometric mean."""

from __future__ import annotations

from osmark import stats
from osmark.catalog.unixbench import INDEX_IDS
from osmark.model import BenchResult, Score


def test_index(result: BenchResult) -> float | None:
    """result / baseline × 10 (UnixBench: an index of 523 is 52.3 times the baseline)."""
    if result.status != "ok" or not result.baseline or not result.median:
        return None
    return result.median / result.baseline * 10.0


def scores(results: list[BenchResult]) -> list[Score]:
    """One overall index per copy count that ran any index test; partial if some are missing."""
    out = []
    for copies in sorted({r.copies for r in results if r.id in INDEX_IDS}):
        indices = [
            r.index for r in results
            if r.copies == copies and r.id in INDEX_IDS and r.index is not None
        ]
        out.append(Score(
            copies=copies,
            index=stats.geometric_mean(indices) if indices else None,
            partial=len(indices) < len(INDEX_IDS),
            tests=len(indices),
        ))
    return out
