#!/usr/bin/env python3
"""Validation of the storage tests (issue 5): osmark's kernels against fio, interleaved.

Run from the repository root with osmark installed (e.g. in .venv), on a real disk:

    .venv/bin/python validation/storage.py [--dir /var/tmp] [--rounds 7] [--budget 4]
                       [--fio-runtime 3] [--tests io.seq-write io.rand-read-qd1 ...]

Each round measures every test twice in the same directory with the same file size:
osmark through engine.run_benchmark (default settings but the budget: the median of its
samples) and fio through the test's reference adapter (references/storage.py: the same
rw, block size, queue depth, engine and direct flag; --fio-runtime s time-based after 1 s
ramp). Who goes first alternates between rounds, and the rounds are short, because a
virtual disk's speed drifts by tens of per cent within seconds: only many short,
alternating rounds average that out. Prints, per test, each round's ratio osmark/fio,
the median ratio and the ratio of the medians; the bars (issue 5) are ±10 % for the
4-KiB random reads at QD1 and QD32 and for the sequential write.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from osmark import engine
from osmark.catalog import BY_ID, Benchmark
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.references import ReferenceUnavailable
from osmark.references import storage as references

BARRED = ("io.rand-read-qd1", "io.rand-read-qd32", "io.seq-write")
DEFAULT_TESTS = ("io.rand-read-qd1", "io.rand-read-qd32", "io.seq-write", "io.seq-read",
                 "io.rand-write-qd1", "io.rand-write-qd32")
BAR = 0.10


def osmark_value(spec: Benchmark, directory: Path, budget: float) -> float:
    result = engine.run_benchmark(spec, 1, find_toolchain(), directory,
                                  engine.Settings(budget=budget))
    if result.status != "ok" or result.median is None:
        sys.exit(f"osmark {spec.id} {result.status}: {result.reason}")
    return result.median


def fio_value(spec: Benchmark, directory: Path) -> tuple[float, list[str]]:
    adapter = getattr(references, spec.reference.split(":", 1)[1])
    try:
        ref = adapter(spec, directory, 1)
    except ReferenceUnavailable as exc:
        sys.exit(f"fio for {spec.id}: {exc}")
    return ref.value, ref.command


def kernel_facts(directory: Path) -> dict:
    """What the storage kernel chooses in this directory: O_DIRECT? io_uring?"""
    scratch = Path(tempfile.mkdtemp(prefix="osmark-facts-", dir=directory))
    try:
        proc = subprocess.run([str(kernel_binary("storage")), "rand-read", "64", str(scratch),
                               "4", "32"], capture_output=True, text=True, check=True)
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"),
                        help="a directory on the disk under test (not tmpfs)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--budget", type=float, default=4.0,
                        help="osmark's time budget per test and round, seconds")
    parser.add_argument("--fio-runtime", type=int, default=3,
                        help="fio's time-based run per test and round, seconds")
    parser.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS))
    args = parser.parse_args()
    references.RUNTIME_S = args.fio_runtime
    base = Path(tempfile.mkdtemp(prefix="osmark-validate-io-", dir=args.dir))
    try:
        facts = kernel_facts(base)
        kind = references.filesystem_type(base) or "unknown"
        print(f"### Storage: osmark vs fio in {args.dir} ({kind}), {args.rounds} rounds\n")
        print(f"- storage kernel here: direct={facts['direct']}, QD32 engine="
              f"{facts['engine']}; fio: direct={int(references.direct_io_works(base))}, "
              f"io_uring={references.io_uring_works()}")
        rows = []
        for test_id in args.tests:
            spec = BY_ID[test_id]
            ours, theirs, ratios = [], [], []
            command: list[str] = []
            for round_no in range(args.rounds):
                if round_no % 2 == 0:
                    a = osmark_value(spec, base, args.budget)
                    b, command = fio_value(spec, base)
                else:
                    b, command = fio_value(spec, base)
                    a = osmark_value(spec, base, args.budget)
                ours.append(a)
                theirs.append(b)
                ratios.append(a / b)
                print(f"  {test_id} round {round_no + 1}: osmark {a:,.0f} fio {b:,.0f} "
                      f"{spec.unit} ratio {a / b:.3f}", file=sys.stderr, flush=True)
            rows.append((spec, ours, theirs, ratios, command))
        print("\n| test | unit | osmark median | fio median | ratios per round | "
              "median ratio | ratio of medians | bar |")
        print("|---|---|---:|---:|---|---:|---:|---|")
        for spec, ours, theirs, ratios, _ in rows:
            median_ratio = statistics.median(ratios)
            of_medians = statistics.median(ours) / statistics.median(theirs)
            bar = (("pass" if abs(median_ratio - 1) <= BAR else "FAIL") + " (±10 %)"
                   if spec.id in BARRED else "-")
            print(f"| {spec.id} | {spec.unit} | {statistics.median(ours):,.0f} | "
                  f"{statistics.median(theirs):,.0f} | "
                  f"{', '.join(f'{r:.3f}' for r in ratios)} | {median_ratio:.3f} | "
                  f"{of_medians:.3f} | {bar} |")
        print("\nfio commands (the file name differs per run):\n")
        for spec, *_, command in rows:
            print(f"- {spec.id}: `{' '.join(command[1:])}`")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
