#!/usr/bin/env python3
"""Validation of the memory tests (issue 5): osmark beside a plain C loop and perf bench.

Run from the repository root with osmark installed (e.g. in .venv):

    .venv/bin/python validation/memory.py [--part triad|memcpy|latency|all] [--rounds N]

  triad    mem.stream.triad (1 copy, through the engine) against a plain C triad loop,
           `a[j] = b[j] + q*c[j]` on malloc'd arrays, compiled here with osmark's own
           toolchain (the same compiler and flags), on the same array size, pinned to
           the same CPU, with the same number of passes per process; interleaved
           rounds (the order alternates), ratio osmark/plain per round and the median.
           Bar: within ±10 %.
  memcpy   mem.memcpy.<block> against `perf bench mem memcpy -f default` (the reference
           adapter osmark.references.memory.memcpy), interleaved rounds, ratios.
  latency  the mem.latency.* curve (no standard tool does a random pointer chase by
           working-set size): ns per load at each size, for a look at the cache steps.

Prints Markdown for docs/validation.md. Timings on a shared machine are noisy: only the
ratios of figures taken in the same round mean anything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from osmark import engine
from osmark.catalog import BY_ID, Benchmark
from osmark.catalog.memory import BENCHMARKS
from osmark.kernels.build import LIBS, Toolchain, find_toolchain, kernel_binary
from osmark.sysinfo import usable_cpu_ids

SETTINGS = engine.Settings(budget=4.0, sample_time=0.25)
PLAIN_SAMPLES = 7  # plain-loop processes per round (osmark takes ~7 samples in 4 s too)
TRIAD_BAR = 0.10

# The comparison loop: nothing but malloc, an initialisation and the triad. The empty asm
# between passes only stops the compiler from folding the (idempotent) passes into one.
PLAIN_TRIAD_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    size_t n = strtoull(argv[1], NULL, 10) / sizeof(double);
    long passes = atol(argv[2]);
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    double *c = malloc(n * sizeof(double));
    if (!a || !b || !c)
        return 1;
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 3.0;
    }
    const double q = 3.0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 0; k < passes; k++) {
        for (size_t j = 0; j < n; j++)
            a[j] = b[j] + q * c[j];
        __asm__ volatile("" : : : "memory");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (a[n / 2] != 11.0)
        return 1;
    printf("%.3f\n", 3.0 * sizeof(double) * (double)n * (double)passes / seconds / 1e6);
    return 0;
}
"""


def build_plain_triad(toolchain: Toolchain, directory: Path) -> Path:
    """Compile the plain triad loop exactly as osmark compiles its kernels."""
    source, binary = directory / "triad.c", directory / "triad"
    source.write_text(PLAIN_TRIAD_C)
    subprocess.run([*toolchain.command, *toolchain.cflags, "-o", str(binary), str(source),
                    *LIBS], check=True)
    return binary


def stream_array_bytes() -> int:
    """The array size the stream kernel picks by default (4 x LLC), as it reports it."""
    proc = subprocess.run([str(kernel_binary("stream")), "triad", "1"], capture_output=True,
                          text=True, check=True)
    return int(json.loads(proc.stdout.strip().splitlines()[-1])["bytes_per_array"])


def pinned(cpu: int) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, {cpu})


def plain_triad_mbps(binary: Path, array_bytes: int, passes: int, cpu: int) -> float:
    """Median MB/s over PLAIN_SAMPLES fresh processes, each pinned like osmark's copy 0."""
    rates = []
    for _ in range(PLAIN_SAMPLES):
        proc = subprocess.run([str(binary), str(array_bytes), str(passes)],
                              capture_output=True, text=True, check=True,
                              preexec_fn=pinned(cpu))
        rates.append(float(proc.stdout))
    return statistics.median(rates)


def osmark_value(spec: Benchmark, toolchain: Toolchain, workdir: Path) -> tuple[float, int]:
    """(median, calibrated loop units per sample) of one engine run at 1 copy."""
    result = engine.run_benchmark(spec, 1, toolchain, workdir, SETTINGS)
    if result.status != "ok":
        sys.exit(f"{spec.id}: {result.status}: {result.reason}")
    return result.median, result.ops_per_sample


def part_triad(rounds: int, toolchain: Toolchain, workdir: Path) -> None:
    spec = BY_ID["mem.stream.triad"]
    array_bytes = stream_array_bytes()
    cpu = usable_cpu_ids()[0]
    print(f"### STREAM Triad against a plain C loop ({toolchain.version}, "
          f"{' '.join(toolchain.cflags)})\n")
    print(f"- arrays: 3 x {array_bytes >> 20} MiB (4 x LLC), 1 copy pinned to CPU {cpu}; "
          f"osmark: engine, budget {SETTINGS.budget:.0f} s, median of samples; plain: "
          f"median of {PLAIN_SAMPLES} processes with osmark's passes per sample\n")
    print("| round | order | osmark MB/s | plain MB/s | ratio |")
    print("|---:|---|---:|---:|---:|")
    ratios = []
    with tempfile.TemporaryDirectory(prefix="osmark-val-mem-") as tmp:
        binary = build_plain_triad(toolchain, Path(tmp))
        _, passes = osmark_value(spec, toolchain, workdir)  # warm-up: sets the passes
        for index in range(rounds):
            if index % 2 == 0:
                ours, _ = osmark_value(spec, toolchain, workdir)
                plain = plain_triad_mbps(binary, array_bytes, passes, cpu)
            else:
                plain = plain_triad_mbps(binary, array_bytes, passes, cpu)
                ours, _ = osmark_value(spec, toolchain, workdir)
            order = "osmark, plain" if index % 2 == 0 else "plain, osmark"
            ratios.append(ours / plain)
            print(f"| {index + 1} | {order} | {ours:.0f} | {plain:.0f} | {ours / plain:.3f} |")
    median = statistics.median(ratios)
    verdict = "PASS" if abs(median - 1) <= TRIAD_BAR else "FAIL"
    print(f"\n- median ratio osmark/plain: **{median:.3f}** (bar: within ±{TRIAD_BAR:.0%}: "
          f"{verdict}); range {min(ratios):.3f}–{max(ratios):.3f}\n")


def part_memcpy(rounds: int, toolchain: Toolchain, workdir: Path) -> None:
    from osmark.references.memory import memcpy as perf_memcpy

    specs = [b for b in BENCHMARKS if b.kernel == "memcpy"]
    print("### memcpy by block size against `perf bench mem memcpy -f default`\n")
    print("| test | " + " | ".join(f"round {i + 1}" for i in range(rounds))
          + " | median ratio |")
    print("|---|" + "---:|" * (rounds + 1))
    for spec in specs:
        cells, ratios = [], []
        for index in range(rounds):
            if index % 2 == 0:
                ours, _ = osmark_value(spec, toolchain, workdir)
                ref = perf_memcpy(spec, workdir, 1).value
            else:
                ref = perf_memcpy(spec, workdir, 1).value
                ours, _ = osmark_value(spec, toolchain, workdir)
            assert ref is not None
            ratios.append(ours / ref)
            cells.append(f"{ours:.0f}/{ref:.0f} = {ours / ref:.2f}")
        print(f"| {spec.id} | " + " | ".join(cells)
              + f" | **{statistics.median(ratios):.3f}** |")
    print("\nCells: osmark MB/s / perf MB/s = ratio.\n")


def part_latency(toolchain: Toolchain, workdir: Path) -> None:
    print("### Load latency by working-set size (random pointer chase, 4-KiB pages)\n")
    print("| test | ns per load | ±CI | converged |")
    print("|---|---:|---:|---|")
    for spec in (b for b in BENCHMARKS if b.kernel == "memlat"):
        result = engine.run_benchmark(spec, 1, toolchain, workdir, SETTINGS)
        if result.status != "ok":
            print(f"| {spec.id} | {result.status}: {result.reason} | | |")
            continue
        half = (max(result.ci_high - result.median, result.median - result.ci_low)
                / result.median) if result.ci_low is not None else float("nan")
        print(f"| {spec.id} | {result.median:.2f} | {half:.1%} | {result.converged} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["triad", "memcpy", "latency", "all"],
                        default="all")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    if args.rounds < 5 and args.part in ("triad", "all"):
        parser.error("the triad comparison needs at least 5 rounds")
    toolchain = find_toolchain()
    with tempfile.TemporaryDirectory(prefix="osmark-val-work-") as tmp:
        workdir = Path(tmp)
        if args.part in ("triad", "all"):
            part_triad(args.rounds, toolchain, workdir)
        if args.part in ("memcpy", "all"):
            part_memcpy(args.rounds, toolchain, workdir)
        if args.part in ("latency", "all"):
            part_latency(toolchain, workdir)


if __name__ == "__main__":
    main()
