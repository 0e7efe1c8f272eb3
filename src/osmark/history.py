"""A host's results run after run: the overall index or one test, with each change to the
previous run called by the same rule as `osmark compare` (improvement / regression / no
significant difference / unknown).

The store says which runs there are and in what order; the significance of a change in the
overall index needs every index test's samples, so the two runs' result files are read.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from osmark import compare
from osmark.catalog.unixbench import INDEX_IDS
from osmark.model import BenchResult, ResultFile, ResultFileError, load
from osmark.store import RunRow, Store, TestPoint

IMPROVED = "improvement"
REGRESSED = "regression"
CALLS = {compare.FASTER: IMPROVED, compare.SLOWER: REGRESSED}


@dataclass
class Entry:
    run: RunRow
    value: float | None  # the overall index, or the test's median
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    change: compare.Estimate | None = None  # performance ratio to the previous entry
    verdict: str | None = None  # improvement, regression, no significant difference, unknown
    note: str | None = None


def pick_host(store: Store, host: str | None) -> str | None:
    """The host asked for, else the host of the newest run (None: the store is empty)."""
    if host:
        return host
    newest = store.list_runs(limit=1)
    return newest[0].host if newest else None


def _index_part(result: ResultFile, copies: int) -> ResultFile:
    kept = [r for r in result.results if r.copies == copies and r.id in INDEX_IDS]
    return msgspec.structs.replace(result, results=kept)


def _index_tests(result: ResultFile) -> set[str]:
    return {r.id for r in result.results if r.status == "ok" and r.median is not None}


def score_history(store: Store, host: str, copies: int = 1,
                  limit: int | None = 20) -> list[Entry]:
    """The overall index at `copies` of the host's last `limit` runs, oldest first."""
    rows = [r for r in store.history(host, None if limit is None else limit + 1)
            if r.scores.get(copies) is not None]
    entries: list[Entry] = []
    previous: ResultFile | None = None
    draws = compare.Draws()  # each run is resampled once, for both of its neighbours
    for position, row in enumerate(rows):
        entry = Entry(row, row.scores.get(copies))
        try:
            current: ResultFile | None = _index_part(load(row.path), copies)
        except ResultFileError as exc:
            current, entry.note = None, f"file unreadable: {exc.problem}"
        if position and entry.value is not None and entries[-1].value:
            entry.change = compare.Estimate(entry.value / entries[-1].value, None, None)
            entry.verdict = compare.UNKNOWN
            before = entries[-1].run
            if before.tool != row.tool:  # UnixBench's index and osmark's: not one scale
                entry.note = entry.note or (f"measured by {row.tool} {row.tool_version}, "
                                            f"the run before by {before.tool} "
                                            f"{before.tool_version}: not comparable")
            elif previous is not None and current is not None \
                    and _index_tests(previous) != _index_tests(current):
                # A partial index over other tests is another average: no call, say why.
                entry.note = entry.note or (
                    f"index over other tests ({len(_index_tests(current))} here, "
                    f"{len(_index_tests(previous))} before): not comparable")
            elif previous is not None and current is not None:
                summary = compare.compare([previous, current], draws=draws).summaries[1]
                if summary is not None and summary.geomean is not None:
                    entry.change = compare.Estimate(entry.change.ratio, summary.low,
                                                    summary.high)
                    entry.verdict = CALLS.get(summary.verdict, summary.verdict)
        entries.append(entry)
        previous = current
    return entries[-limit:] if limit else entries


def _as_result(point: TestPoint) -> BenchResult:
    return BenchResult(
        id=point.test_id, title=point.title, category="", version=0, copies=point.copies,
        status="ok", reason=None, unit=point.unit, higher_is_better=point.higher_is_better,
        median=point.median, ci_low=point.ci_low, ci_high=point.ci_high, n=point.n,
        samples=list(point.samples))


def single_test_history(store: Store, host: str, test_id: str, copies: int = 1,
                 limit: int | None = 20) -> list[Entry]:
    """One test's median run after run, oldest first, from the store alone."""
    points = [p for p in store.test_history(host, test_id, copies,
                                            None if limit is None else limit + 1)
              if p.status == "ok" and p.median is not None]
    entries: list[Entry] = []
    draws = compare.Draws()
    for position, point in enumerate(points):
        entry = Entry(point.run, point.median, point.ci_low, point.ci_high, point.n)
        if position:
            before = points[position - 1]
            cell, _ = compare.compare_pair(_as_result(before), _as_result(point),
                                           before.run.id, point.run.id, draws)
            entry.change = cell.estimate
            entry.verdict = CALLS.get(cell.verdict or "", cell.verdict)
        entries.append(entry)
    return entries[-limit:] if limit else entries
