#!/usr/bin/env python3
"""Validation of issue 4: `osmark info` speed, the noise monitor's cost, and its labels.

    .venv/bin/python validation/noise.py [--tries 10]

  info     wall time of `osmark info` (interpreter start included), 10 runs
  cost     CPU time of one monitor begin()/end() pair, as a share of a 0.25-s sample,
           and of the culprit scan that runs only when a sample is noisy
  labels   `osmark run dhry2reg --copies 1` with a busy loop pinned to the other CPU
           (must be labelled noisy, naming it) and without it (must be quiet), N tries each

Prints Markdown for docs/validation.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OSMARK = [sys.executable, "-m", "osmark"]


def part_info(runs: int = 10) -> None:
    walls = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run([*OSMARK, "info", "--json"], check=True, capture_output=True)
        walls.append(time.monotonic() - started)
    print("### `osmark info --json` wall time\n")
    print(f"- {runs} runs: median **{statistics.median(walls) * 1000:.0f} ms**, "
          f"min {min(walls) * 1000:.0f} ms, max {max(walls) * 1000:.0f} ms (bar: under 300 ms)\n")


def part_cost(pairs: int = 2000) -> None:
    from osmark import monitor, noise

    watch = monitor.SampleMonitor()
    started = time.process_time()
    for _ in range(pairs):
        watch.begin()
        watch.end()
    per_pair = (time.process_time() - started) / pairs
    started = time.process_time()
    for _ in range(50):
        noise.process_cpu_snapshot()
    per_scan = (time.process_time() - started) / 50
    sample = 0.25
    print("### Noise monitor cost\n")
    print(f"- one begin()/end() pair per sample: {per_pair * 1e6:.0f} µs of CPU = "
          f"**{per_pair / sample:.3%}** of a CPU at 0.25-s samples (bar: under 0.5 %)")
    print(f"- the culprit scan of /proc/*/stat, only after a noisy sample: "
          f"{per_scan * 1e3:.2f} ms of CPU ({len(os.listdir('/proc'))} /proc entries), "
          f"{per_scan / sample:.2%} of a noisy 0.25-s sample\n")


def run_dhry(budget: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "r.json")
        subprocess.run([*OSMARK, "run", "dhry2reg", "--copies", "1", "--budget", budget,
                        "--json", str(out)], check=True, capture_output=True)
        return json.loads(out.read_text())["results"][0]


def part_labels(tries: int) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    other = cpus[1] if len(cpus) > 1 else cpus[0]
    with tempfile.TemporaryDirectory() as tmp:
        hog_path = Path(tmp, "osmark-hog")
        hog_path.symlink_to(sys.executable)
        noisy_ok = quiet_ok = 0
        rows = []
        for attempt in range(1, tries + 1):
            hog = subprocess.Popen([str(hog_path), "-c", "while True: pass"],
                                   preexec_fn=lambda: os.sched_setaffinity(0, {other}))
            try:
                time.sleep(0.2)
                with_hog = run_dhry("3")
            finally:
                hog.kill()
                hog.wait()
            time.sleep(0.5)
            without = run_dhry("3")
            named = with_hog["quality"] == "noisy" and "osmark-hog" in (
                with_hog["quality_reason"] or "")
            noisy_ok += named
            quiet_ok += without["quality"] == "quiet"
            rows.append(f"| {attempt} | {with_hog['quality']}: {with_hog['quality_reason']} | "
                        f"{without['quality']} {without['quality_reason'] or ''} |")
    print(f"### Labels: ub.dhry2reg beside a busy loop on CPU {other}, and alone\n")
    print(f"- with the busy loop: labelled noisy naming it in **{noisy_ok} of {tries}**")
    print(f"- alone: labelled quiet in **{quiet_ok} of {tries}**\n")
    print("| try | with the busy loop | alone |")
    print("|---:|---|---|")
    print("\n".join(rows))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["info", "cost", "labels", "all"], default="all")
    parser.add_argument("--tries", type=int, default=10)
    args = parser.parse_args()
    if args.part in ("info", "all"):
        part_info()
    if args.part in ("cost", "all"):
        part_cost()
    if args.part in ("labels", "all"):
        part_labels(args.tries)


if __name__ == "__main__":
    main()
