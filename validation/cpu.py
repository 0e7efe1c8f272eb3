#!/usr/bin/env python3
"""Validation of the CPU tests (issue 5): osmark beside perf bench, xz, bzip2, zstd, openssl.

Run from the repository root with osmark installed (e.g. in .venv):

    .venv/bin/python validation/cpu.py [--part hackbench|slope|tools|all] [--rounds N]
                                       [--configs G:L,G:L ...]

  hackbench  cpu.hackbench (through the engine, the kernel's own median of samples)
             against `perf bench sched messaging -g G -l L` (process mode, socketpairs,
             100-byte messages; the median of 5 runs, via the reference adapter), for
             each G:L in --configs (default 2:300, the spec's; 10:100, perf's default;
             4:1000, where the exchange dwarfs the start and exit of the processes);
             interleaved rounds whose order alternates; the ratio of the seconds per
             exchange osmark/perf per round and their median. Bar: ±15 %.
  slope      where the two differ: the fixed cost of an exchange (-l 1: waking, exiting and
             reaping the 40 G processes) and the cost per loop ((T(-l 400) - T(-l 10))
             / 390), osmark's kernel run directly against perf, -g 4, interleaved rounds.
             perf's children are copies of a 12-MB process of ~170 mappings; their page
             faults and exit teardown inside its timed region are its fixed cost.
  tools      every other CPU test that has a reference adapter (xz, bzip2, zstd -b,
             openssl speed) against it, interleaved rounds, ratio osmark/tool.

Prints Markdown for docs/validation.md. Timings on a shared machine are noisy: only the
ratios of figures taken in the same round mean anything.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from osmark import engine
from osmark.catalog import BY_ID, Benchmark
from osmark.catalog.cpu import BENCHMARKS
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.model import Reference
from osmark.references import ReferenceUnavailable
from osmark.references import cpu as references

SETTINGS = engine.Settings(budget=4.0, sample_time=0.25)
HACKBENCH_BAR = 0.15


def osmark_value(spec: Benchmark, workdir: Path) -> float:
    result = engine.run_benchmark(spec, 1, find_toolchain(), workdir, SETTINGS)
    if result.status != "ok" or result.median is None:
        sys.exit(f"{spec.id}: {result.status}: {result.reason}")
    return result.median


def adapter(spec: Benchmark) -> Callable[[Benchmark, Path, int], Reference]:
    if not spec.reference:
        raise KeyError(spec.id)
    return getattr(references, spec.reference.partition(":")[2])


def interleaved(spec: Benchmark, rounds: int, workdir: Path) -> tuple[list, list, Reference]:
    """(osmark values, tool values, the last Reference), the order alternating by round."""
    ours: list[float] = []
    theirs: list[float] = []
    references_seen: list[Reference] = []
    tool = adapter(spec)

    def run_tool() -> None:
        reference = tool(spec, workdir, 1)
        if reference.value is None:
            sys.exit(f"{spec.id}: the reference did not run: {reference.reason}")
        references_seen.append(reference)
        theirs.append(reference.value)

    def run_osmark() -> None:
        ours.append(osmark_value(spec, workdir))

    for round_ in range(rounds):
        for step in (run_tool, run_osmark) if round_ % 2 else (run_osmark, run_tool):
            step()
    return ours, theirs, references_seen[-1]


def _ratios(ours: list[float], theirs: list[float]) -> list[float]:
    return [a / b for a, b in zip(ours, theirs, strict=True)]


def part_hackbench(rounds: int, configs: list[tuple[int, int]], workdir: Path) -> None:
    print(f"### cpu.hackbench against perf bench sched messaging ({rounds} interleaved "
          "rounds, seconds per exchange)\n")
    print("| -g | -l | osmark (median of rounds) | perf (median of rounds) | ratio "
          "osmark/perf | per-round ratios | within ±15 % |")
    print("|---:|---:|---:|---:|---:|---|---|")
    for groups, loops in configs:
        spec = dataclasses.replace(BY_ID["cpu.hackbench"], params=(str(groups), str(loops)))
        ours, theirs, _ = interleaved(spec, rounds, workdir)
        ratios = _ratios(ours, theirs)
        ratio = statistics.median(ratios)
        print(f"| {groups} | {loops} | {statistics.median(ours):.3f} | "
              f"{statistics.median(theirs):.3f} | {ratio:.3f} | "
              f"{', '.join(f'{r:.2f}' for r in ratios)} | "
              f"{'yes' if abs(ratio - 1) <= HACKBENCH_BAR else 'NO'} |")
    print()


def kernel_seconds(groups: int, loops: int) -> float:
    """One exchange of osmark's hackbench kernel, run directly (no engine)."""
    proc = subprocess.run([str(kernel_binary("hackbench")), "process", "1", str(groups),
                           str(loops)], capture_output=True, text=True, check=True)
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["value"])


def perf_seconds(groups: int, loops: int) -> float:
    perf = shutil.which("perf")
    if perf is None:
        sys.exit("perf is not installed: apt-get install linux-perf")
    command = references.perf_messaging_command(perf, groups, loops)
    return references.parse_perf_seconds(
        subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def part_slope(rounds: int, groups: int = 4, short: int = 10, long: int = 400) -> None:
    print(f"### hackbench: fixed cost and cost per loop, -g {groups} ({rounds} interleaved "
          "rounds, medians)\n")
    rows: dict[str, list[float]] = {k: [] for k in
                                    ("o1", "p1", "os", "ps", "ol", "pl")}
    for round_ in range(rounds):
        runners = [("o", kernel_seconds), ("p", perf_seconds)]
        if round_ % 2:
            runners.reverse()
        for key, loops in (("1", 1), ("s", short), ("l", long)):
            for who, run in runners:
                rows[who + key].append(run(groups, loops))
    med = {k: statistics.median(v) for k, v in rows.items()}
    slope_o = [(b - a) / (long - short) for a, b in zip(rows["os"], rows["ol"], strict=True)]
    slope_p = [(b - a) / (long - short) for a, b in zip(rows["ps"], rows["pl"], strict=True)]
    print("| figure | osmark | perf | ratio osmark/perf |")
    print("|---|---:|---:|---:|")
    print(f"| fixed: one exchange at -l 1 (s) | {med['o1']:.4f} | {med['p1']:.4f} | "
          f"{med['o1'] / med['p1']:.3f} |")
    so, sp = statistics.median(slope_o), statistics.median(slope_p)
    print(f"| per loop: (T(-l {long}) - T(-l {short})) / {long - short} (ms) | "
          f"{so * 1e3:.3f} | {sp * 1e3:.3f} | {so / sp:.3f} |")
    print(f"| total at -l {long} (s) | {med['ol']:.3f} | {med['pl']:.3f} | "
          f"{med['ol'] / med['pl']:.3f} |")
    print()


def part_tools(rounds: int, workdir: Path) -> None:
    print(f"### CPU tests against their reference tools ({rounds} interleaved rounds)\n")
    print("| test | tool | unit | osmark | tool | ratio osmark/tool | per-round ratios |")
    print("|---|---|---|---:|---:|---:|---|")
    for spec in BENCHMARKS:
        if not spec.reference or spec.id == "cpu.hackbench":
            continue
        try:
            ours, theirs, reference = interleaved(spec, rounds, workdir)
        except ReferenceUnavailable as exc:
            print(f"| {spec.id} | unavailable: {exc} | | | | | |")
            continue
        ratios = _ratios(ours, theirs)
        print(f"| {spec.id} | {reference.tool} | {spec.unit} | {statistics.median(ours):.4g} "
              f"| {statistics.median(theirs):.4g} | {statistics.median(ratios):.3f} | "
              f"{', '.join(f'{r:.2f}' for r in ratios)} |")
    print()


def _configs(text: str) -> list[tuple[int, int]]:
    pairs = []
    for item in text.split(","):
        groups, _, loops = item.partition(":")
        pairs.append((int(groups), int(loops)))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["hackbench", "slope", "tools", "all"],
                        default="all")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--configs", type=_configs, default=[(2, 300), (10, 100), (4, 1000)],
                        help="hackbench GROUPS:LOOPS pairs, comma-separated")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="osmark-validate-cpu-") as tmp:
        if args.part in ("hackbench", "all"):
            part_hackbench(args.rounds, args.configs, Path(tmp))
        if args.part in ("slope", "all"):
            part_slope(args.rounds)
        if args.part in ("tools", "all"):
            part_tools(args.rounds, Path(tmp))


if __name__ == "__main__":
    main()
