"""Comparisons between results: which system is faster, by how much, and is it real?

Every figure is a performance ratio against the first system (the baseline): above 1 means
faster, whatever the test's unit (for lower-is-better tests the ratio is inverted, as
PTS normalises). Per test:
- the ratio of medians with a 95 % percentile-bootstrap CI (samples resampled independently);
- a verdict from a two-sided Mann–Whitney U test at α = 0.05, and only when the ratio moves
  by at least 1 % (MIN_EFFECT): 'faster', 'slower' or 'no significant difference';
  'unknown' when a side has no samples (an imported UnixBench result has one figure) or
  too few for the test to ever reach α (3 against 3 PTS runs: the smallest p is 0.1).
The summary is the geometric mean of the ratios over the tests every system ran, with a CI
from the same bootstrap replicates, and win/loss/tie counts.

Nothing here prints: the views in `compare_view` render a Comparison.
"""

from __future__ import annotations

import math
import random
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
    system_notes: list[list[str]] = field(default_factory=list)  # the same, per system


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


class Draws:
    """Bootstrap replicates of log(median) per (run, test, copies), drawn once and kept: a
    run compared with several others, or in a history with the runs before and after it,
    is resampled once. Seeded by run id and test, so the same files give the same CIs."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[str, str, int], list[float]] = {}

    def of(self, run_key: str, result: BenchResult) -> list[float] | None:
        """None without samples, or with figures a ratio means nothing for (≤ 0)."""
        if not result.samples or min(result.samples) <= 0:
            return None
        key = (run_key, result.id, result.copies)
        drawn = self._drawn.get(key)
        if drawn is None:
            rng = random.Random(f"{run_key}\0{result.id}\0{result.copies}")
            drawn = stats.bootstrap_log_medians(result.samples, BOOTSTRAP_REPS, rng)
            self._drawn[key] = drawn
        return drawn


def compare_pair(base: BenchResult, other: BenchResult, base_run: str = "baseline",
                 other_run: str = "other",
                 draws: Draws | None = None) -> tuple[Cell, list[float] | None]:
    """The other result against the baseline: ratio, CI, p-value, verdict; and the
    bootstrap replicates of the log performance ratio (None without samples)."""
    ratio = performance_ratio(base.median or 0.0, other.median or 0.0, base.higher_is_better)
    draws = draws or Draws()
    if other_run == base_run:  # the same run twice still gets two independent resamplings
        other_run += "\0again"
    base_logs, other_logs = draws.of(base_run, base), draws.of(other_run, other)
    if base_logs is None or other_logs is None:
        return Cell(other, Estimate(ratio, None, None), None, UNKNOWN), None
    sign = 1.0 if base.higher_is_better else -1.0
    replicates = [sign * (o - b) for b, o in zip(base_logs, other_logs, strict=True)]
    low, high = stats.percentile_interval(replicates)
    _, p_value = stats.mann_whitney_u(base.samples, other.samples)
    # Too few samples for the test to ever reject (3 and 3, say): unknown, not "no difference".
    testable = stats.mann_whitney_can_reject(len(base.samples), len(other.samples), ALPHA)
    cell = Cell(other, Estimate(ratio, math.exp(low), math.exp(high)), p_value,
                verdict_for(ratio, p_value < ALPHA if testable else None))
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


def _system_notes(systems: list[System]) -> list[list[str]]:
    """Per system, how its identity differs from the baseline's (none for the baseline)."""
    out: list[list[str]] = [[]]
    base = systems[0].result.host.identity
    for system in systems[1:]:
        identity = system.result.host.identity
        notes = []
        for name, what in (("cpu_model", "CPU model"), ("virtualization", "virtualization"),
                           ("cpus", "CPU count"), ("arch", "architecture")):
            a, b = getattr(base, name), getattr(identity, name)
            if a != b and not {a, b} & UNSTATED:  # an import that does not say is no news
                notes.append(f"{what} differs: {systems[0].label} {a}, {system.label} {b}")
        out.append(notes)
    return out


def _run_notes(systems: list[System], per_system: list[list[str]]) -> list[str]:
    """Identity differences said once for the whole comparison."""
    notes = [note for notes in per_system for note in notes]
    if any(not s.result.run.complete for s in systems):
        notes.append("incomplete run(s): " + ", ".join(
            s.label for s in systems if not s.result.run.complete))
    return notes


def _pick_winner(row: Row, run_keys: list[str], draws: Draws) -> None:
    present = [(i, c) for i, c in enumerate(row.cells) if c is not None]
    if len(row.cells) < 3 or len(present) < 2:
        return
    sign = 1.0 if row.higher_is_better else -1.0
    ranked = sorted(present, key=lambda ic: sign * (ic[1].result.median or 0.0), reverse=True)
    (best, best_cell), (second, second_cell) = ranked[0], ranked[1]
    row.winner = best
    cell, _ = compare_pair(second_cell.result, best_cell.result, run_keys[second],
                           run_keys[best], draws)
    row.clear_winner = cell.verdict == FASTER


def compare(results: list[ResultFile], refs: list[str] | None = None,
            labels: list[str] | None = None, draws: Draws | None = None) -> Comparison:
    """Compare results against the first one, test by test (matched on id and copies).
    `draws` may be shared between comparisons of the same runs (a history does)."""
    if len(results) < 2:
        raise ValueError("a comparison needs at least two results")
    draws = draws or Draws()
    ids = [r.run.id for r in results]
    run_keys = [i if ids.count(i) == 1 else f"{i}#{n}" for n, i in enumerate(ids)]
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
    for key in keys:
        base = by_system[0].get(key)
        cells: list[Cell | None] = [Cell(base) if base else None]
        for position, table in enumerate(by_system[1:], start=1):
            other = table.get(key)
            if other is None or base is None:
                cells.append(Cell(other) if other else None)
                continue
            cell, replicates = compare_pair(base, other, run_keys[0], run_keys[position],
                                            draws)
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
        _pick_winner(row, run_keys, draws)
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
    per_system = _system_notes(systems)
    return Comparison(systems, rows, summaries, _run_notes(systems, per_system), per_system)
