"""Comparisons between results: which system is faster, by how much, and is it real?

Every figure is a performance ratio against the first system (the baseline): above 1 means
faster, whatever the test's unit (for lower-is-better tests the ratio is inverted, as
PTS normalises). Per test:
- the ratio of medians with a 95 % percentile-bootstrap CI (samples resampled independently);
- a verdict from a two-sided Mann–Whitney U test at α = 0.05, and only when the ratio moves
  by at least 1 % (MIN_EFFECT): 'faster', 'slower' or 'no significant difference';
  'unknown' when a side has no samples (an imported UnixBench result has one figure).
The summary is the geometric mean of the ratios over the tests every system ran, with a CI
from the same bootstrap replicates, and win/loss/tie counts.

Nothing here prints: the views in `compare_view` render a Comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from osmark import stats
from osmark.model import BenchResult, ResultFile

ALPHA = 0.05
MIN_EFFECT = 0.01  # a difference under 1 % is not called, however significant
BOOTSTRAP_REPS = 2000

FASTER = "faster"
SLOWER = "slower"
SAME = "no significant difference"
UNKNOWN = "unknown"

Key = tuple[str, int]  # (test id, copies)
UNSTATED = {"unknown", 0, "", None}  # identity fields an imported file did not state


@dataclass(frozen=True)
class Estimate:
    """A performance ratio against the baseline: above 1 is faster."""

    ratio: float
    low: float | None  # CI bounds; None when a side has no samples
    high: float | None


@dataclass
class Cell:
    """One system's result for one test, and how it compares with the baseline."""

    result: BenchResult
    estimate: Estimate | None = None  # None for the baseline itself
    p_value: float | None = None
    verdict: str | None = None  # None for the baseline


@dataclass
class Row:
    test_id: str
    copies: int
    title: str
    unit: str
    higher_is_better: bool
    cells: list[Cell | None]  # one per system, None where it did not run (or not ok)
    winner: int | None = None  # with 3+ systems: the best median
    clear_winner: bool = False  # the winner beats the runner-up by the verdict rule
    flags: list[str] = field(default_factory=list)  # why figures may not be comparable


@dataclass
class Summary:
    """One system against the baseline over the tests every system ran."""

    geomean: float | None
    low: float | None
    high: float | None
    verdict: str
    tests: int
    faster: int = 0
    slower: int = 0
    same: int = 0
    unknown: int = 0


@dataclass
class System:
    label: str
    ref: str  # what the user named: a file, a run id, "latest"
    result: ResultFile


@dataclass
class Comparison:
    systems: list[System]
    rows: list[Row]
    summaries: list[Summary | None]  # None for the baseline
    notes: list[str]  # run-level differences in identity, said once


def performance_ratio(baseline: float, other: float, higher_is_better: bool) -> float:
    if higher_is_better:
        return other / baseline if baseline else math.inf
    return baseline / other if other else math.inf


def verdict_for(ratio: float, significant: bool | None) -> str:
    """The call on a ratio: significant (None: unknown) and at least MIN_EFFECT away from 1."""
    if significant is None:
        return UNKNOWN
    if significant and abs(ratio - 1.0) >= MIN_EFFECT:
        return FASTER if ratio > 1.0 else SLOWER
    return SAME


def _log_replicates(base: BenchResult, other: BenchResult,
                    seed: int) -> list[float] | None:
    """Bootstrap replicates of the log performance ratio, or None without samples."""
    if not base.samples or not other.samples:
        return None
    if min(base.samples) <= 0 or min(other.samples) <= 0:
        return None  # a ratio of non-positive figures means nothing
    raw = stats.bootstrap_log_ratios(base.samples, other.samples, BOOTSTRAP_REPS, seed)
    return raw if base.higher_is_better else [-r for r in raw]


def compare_pair(base: BenchResult, other: BenchResult,
                 seed: int = 0) -> tuple[Cell, list[float] | None]:
    """The other result against the baseline: ratio, CI, p-value, verdict; and the
    bootstrap replicates of the log ratio (None without samples)."""
    ratio = performance_ratio(base.median or 0.0, other.median or 0.0, base.higher_is_better)
    replicates = _log_replicates(base, other, seed)
    if replicates is None:
        return Cell(other, Estimate(ratio, None, None), None, UNKNOWN), None
    low, high = stats.percentile_interval(replicates)
    _, p_value = stats.mann_whitney_u(base.samples, other.samples)
    cell = Cell(other, Estimate(ratio, math.exp(low), math.exp(high)), p_value,
                verdict_for(ratio, p_value < ALPHA))
    return cell, replicates


def labels_for(results: list[ResultFile], given: list[str] | None = None) -> list[str]:
    """Names for the columns: the user's, else the imported label or host name, made unique."""
    given = list(given or [])
    labels = []
    for position, result in enumerate(results):
        if position < len(given):
            labels.append(given[position])
            continue
        source = result.run.source
        labels.append(source.label if source and source.label
                      else result.host.description.hostname)
    counts = {label: labels.count(label) for label in labels}
    if all(c == 1 for c in counts.values()):
        return labels
    # Run ids name the host and the time: unique, and still readable as a column heading.
    return [result.run.id if counts[label] > 1 else label
            for label, result in zip(labels, results, strict=True)]


def _ok_results(result: ResultFile) -> dict[Key, BenchResult]:
    return {(r.id, r.copies): r for r in result.results
            if r.status == "ok" and r.median is not None}


def _implementation(result: ResultFile) -> str:
    return f"{result.tool.name} {result.tool.version}"


def _row_flags(systems: list[System], cells: list[Cell | None]) -> list[str]:
    """Reasons the figures in this row may not measure the same thing."""
    present = [(s, c.result) for s, c in zip(systems, cells, strict=True) if c is not None]
    flags = []
    tools = {_implementation(s.result) for s, _ in present}
    if len({s.result.tool.name for s, _ in present}) > 1:
        flags.append("different tools: " + ", ".join(sorted(tools)))
    elif len({r.version for _, r in present}) > 1:
        flags.append("different test versions: "
                     + ", ".join(f"v{r.version}" for _, r in present))
    if present and present[0][1].category == "cpu":
        builds = {(s.result.host.identity.compiler_version, tuple(s.result.host.identity.cflags))
                  for s, _ in present if s.result.tool.name == "osmark"}
        if len(builds) > 1:
            flags.append("CPU test built by different compilers or flags")
    if len({r.unit for _, r in present}) > 1:
        flags.append("different units: " + ", ".join(sorted({r.unit for _, r in present})))
    return flags


def _run_notes(systems: list[System]) -> list[str]:
    """Identity differences said once for the whole comparison."""
    notes = []
    base = systems[0].result.host.identity
    for system in systems[1:]:
        identity = system.result.host.identity
        for name, what in (("cpu_model", "CPU model"), ("virtualization", "virtualization"),
                           ("cpus", "CPU count"), ("arch", "architecture")):
            a, b = getattr(base, name), getattr(identity, name)
            if a != b and not {a, b} & UNSTATED:  # an import that does not say is no news
                notes.append(f"{what} differs: {systems[0].label} {a}, {system.label} {b}")
    if any(not s.result.run.complete for s in systems):
        notes.append("incomplete run(s): " + ", ".join(
            s.label for s in systems if not s.result.run.complete))
    return notes


def _pick_winner(row: Row) -> None:
    present = [(i, c) for i, c in enumerate(row.cells) if c is not None]
    if len(row.cells) < 3 or len(present) < 2:
        return
    sign = 1.0 if row.higher_is_better else -1.0
    ranked = sorted(present, key=lambda ic: sign * (ic[1].result.median or 0.0), reverse=True)
    (best, best_cell), (_, second_cell) = ranked[0], ranked[1]
    row.winner = best
    cell, _ = compare_pair(second_cell.result, best_cell.result)
    row.clear_winner = cell.verdict == FASTER


def compare(results: list[ResultFile], refs: list[str] | None = None,
            labels: list[str] | None = None) -> Comparison:
    """Compare results against the first one, test by test (matched on id and copies)."""
    if len(results) < 2:
        raise ValueError("a comparison needs at least two results")
    names = labels_for(results, labels)
    refs = list(refs or [r.run.id for r in results])
    systems = [System(n, ref, r) for n, ref, r in zip(names, refs, results, strict=True)]
    by_system = [_ok_results(r) for r in results]
    keys: list[Key] = []
    for table in by_system:
        keys.extend(k for k in table if k not in keys)
    # The summary's replicates, per system: log-ratio replicate sums over shared tests.
    shared = [k for k in keys if all(k in t for t in by_system)]
    log_sums: list[list[float] | None] = [None] + [[0.0] * BOOTSTRAP_REPS
                                                   for _ in results[1:]]
    summaries: list[Summary | None] = [None] + [
        Summary(None, None, None, UNKNOWN, len(shared)) for _ in results[1:]]
    log_ratios: list[float] = [0.0] * len(results)
    rows = []
    for seed, key in enumerate(keys):
        base = by_system[0].get(key)
        cells: list[Cell | None] = [Cell(base) if base else None]
        for position, table in enumerate(by_system[1:], start=1):
            other = table.get(key)
            if other is None or base is None:
                cells.append(Cell(other) if other else None)
                continue
            cell, replicates = compare_pair(base, other, seed)
            cells.append(cell)
            summary = summaries[position]
            sums = log_sums[position]
            if key not in shared or summary is None:
                continue
            counter = {FASTER: "faster", SLOWER: "slower", SAME: "same"}.get(
                cell.verdict or UNKNOWN, "unknown")
            setattr(summary, counter, getattr(summary, counter) + 1)
            assert cell.estimate is not None
            log_ratios[position] += math.log(cell.estimate.ratio) \
                if cell.estimate.ratio > 0 else -math.inf
            if replicates is None or sums is None:
                log_sums[position] = None
            else:
                log_sums[position] = [a + b for a, b in zip(sums, replicates, strict=True)]
        sample = next(c.result for c in cells if c is not None)
        row = Row(key[0], key[1], sample.title, sample.unit, sample.higher_is_better, cells)
        row.flags = _row_flags(systems, cells)
        _pick_winner(row)
        rows.append(row)
    for position in range(1, len(results)):
        summary = summaries[position]
        if summary is None or not shared:
            continue
        summary.geomean = math.exp(log_ratios[position] / len(shared))
        sums = log_sums[position]
        if sums is not None:
            low, high = stats.percentile_interval([math.exp(s / len(shared)) for s in sums])
            summary.low, summary.high = low, high
            summary.verdict = verdict_for(summary.geomean, low > 1.0 or high < 1.0)
    return Comparison(systems, rows, summaries, _run_notes(systems))
