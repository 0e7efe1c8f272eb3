#!/usr/bin/env python3
"""Validation of the core (issue 2): speed, repeatability, and the cost card against perf.

Run from the repository root with osmark installed (e.g. in .venv):

    .venv/bin/python validation/core.py [--part index|repeat|costs|all]

  index   `osmark run index` (1 copy, then one per CPU): wall time, every test converged?
  repeat  two consecutive `osmark run index --copies 1`: overall indices and their ratio
  costs   os.syscall against `perf bench syscall basic`, os.pipe-rtt-same against
          `taskset -c 0 perf bench sched pipe`, interleaved in one run, as ratios

Prints Markdown for docs/validation.md. Needs linux-perf for the costs part.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OSMARK = [sys.executable, "-m", "osmark"]


def run_osmark(*args: str) -> tuple[dict, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "r.json")
        started = time.monotonic()
        proc = subprocess.run([*OSMARK, *args, "--json", str(out)], capture_output=True,
                              text=True)
        wall = time.monotonic() - started
        if proc.returncode != 0:
            sys.exit(f"osmark {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return json.loads(out.read_text()), wall


def part_index() -> None:
    data, wall = run_osmark("run", "index")
    print("### `osmark run index` (default copies)\n")
    print(f"- wall time: **{wall:.0f} s** (bar: at most 240 s)")
    unconverged = [f"{r['id']}×{r['copies']}" for r in data["results"]
                   if r["status"] == "ok" and not r["converged"]]
    failed = [r["id"] for r in data["results"] if r["status"] != "ok"]
    print(f"- results: {len(data['results'])}, not converged: "
          f"{', '.join(unconverged) or 'none'}, not ok: {', '.join(failed) or 'none'}")
    for score in data["scores"]:
        print(f"- index at {score['copies']} cop{'y' if score['copies'] == 1 else 'ies'}: "
              f"{score['index']:.1f}")
    print("\n| test | copies | result | unit | ±CI | n | converged | seconds |")
    print("|---|---:|---:|---|---:|---:|---|---:|")
    for r in data["results"]:
        if r["status"] != "ok":
            print(f"| {r['id']} | {r['copies']} | {r['status']} | | | | | |")
            continue
        half = max(r["ci_high"] - r["median"], r["median"] - r["ci_low"]) / r["median"] \
            if r["ci_low"] is not None else float("nan")
        print(f"| {r['id']} | {r['copies']} | {r['median']:.1f} | {r['unit']} | "
              f"{half:.2%} | {r['n']} | {r['converged']} | {r['seconds']:.1f} |")
    print()


def part_repeat() -> None:
    first, wall1 = run_osmark("run", "index", "--copies", "1")
    second, wall2 = run_osmark("run", "index", "--copies", "1")
    a, b = first["scores"][0]["index"], second["scores"][0]["index"]
    print("### Repeatability: two consecutive `osmark run index --copies 1`\n")
    print(f"- overall index: {a:.1f} then {b:.1f}; ratio {b / a:.3f} "
          f"(difference {abs(b / a - 1):.1%}; bar: within 3 %)")
    print(f"- wall times: {wall1:.0f} s and {wall2:.0f} s")
    print("\n| test | run 1 | run 2 | ratio |")
    print("|---|---:|---:|---:|")
    second_by_id = {r["id"]: r for r in second["results"]}
    for r in first["results"]:
        other = second_by_id.get(r["id"])
        if r["status"] == "ok" and other and other["status"] == "ok":
            print(f"| {r['id']} | {r['median']:.1f} | {other['median']:.1f} | "
                  f"{other['median'] / r['median']:.3f} |")
    print()


def perf_usecs(command: list[str]) -> float:
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    match = re.search(r"([\d.]+)\s+usecs/op", proc.stdout)
    if not match:
        sys.exit(f"cannot parse the output of {' '.join(command)}:\n{proc.stdout}")
    return float(match.group(1)) * 1000.0


def osmark_ns(test_id: str) -> float:
    data, _ = run_osmark("run", test_id, "--copies", "1")
    result = data["results"][0]
    if result["status"] != "ok":
        sys.exit(f"{test_id}: {result['status']}: {result['reason']}")
    return result["median"]


def part_costs(rounds: int) -> None:
    if not shutil.which("perf") or subprocess.run(["perf", "bench", "syscall", "basic"],
                                                  capture_output=True).returncode != 0:
        sys.exit("perf bench is not available: apt-get install linux-perf")
    pairs = [
        ("os.syscall", ["perf", "bench", "syscall", "basic"]),
        ("os.pipe-rtt-same", ["taskset", "-c", "0", "perf", "bench", "sched", "pipe"]),
    ]
    print(f"### Cost card against perf bench ({rounds} interleaved rounds, ns per op)\n")
    print("| test | reference command | osmark median of rounds | perf median of rounds "
          "| ratio osmark/perf | per-round ratios |")
    print("|---|---|---:|---:|---:|---|")
    for test_id, command in pairs:
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(osmark_ns(test_id))
            theirs.append(perf_usecs(command))
        ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
        mo, mt = statistics.median(ours), statistics.median(theirs)
        print(f"| {test_id} | `{' '.join(command)}` | {mo:.0f} | {mt:.0f} | {mo / mt:.3f} | "
              f"{', '.join(f'{r:.2f}' for r in ratios)} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["index", "repeat", "costs", "all"], default="all")
    parser.add_argument("--rounds", type=int, default=5, help="rounds for the costs part")
    args = parser.parse_args()
    if args.part in ("index", "all"):
        part_index()
    if args.part in ("repeat", "all"):
        part_repeat()
    if args.part in ("costs", "all"):
        part_costs(args.rounds)


if __name__ == "__main__":
    main()
