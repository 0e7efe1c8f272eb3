#!/usr/bin/env python3
"""Validation of the loopback network tests against iperf3 (issue 5).

Run from the repository root with osmark installed (e.g. in .venv):

    .venv/bin/python validation/network.py [--rounds 6] [--seconds 5]
                                           [--placement cross|free] [--part stream|udp|all]

  stream  net.tcp-stream against one iperf3 TCP stream with the same buffer length
          (131072 B), interleaved, --rounds rounds (the order alternates per round). Each
          round gives each tool the same wall time: osmark samples (0.25 s each, through
          engine.run_benchmark) for --seconds; iperf3 runs -O 1 -t --seconds (its first
          second omitted, as osmark warms each connection up untimed). Printed per round:
          osmark's median sample, osmark's figure from one kernel run that lasts the whole
          --seconds on one connection (as iperf3 does), iperf3's receiver figure, and the
          ratios osmark/iperf3, and how much CPU other processes used during the round
          (osmark's noise monitor; rounds under its threshold are "quiet"). Bar: the
          median ratio within ±15 %.
  udp     net.udp-pps against `iperf3 -u -b 0 -l 64` (datagrams the server received per
          second), the same way; for information only (iperf3 paces and timestamps each
          datagram, so its sender is slower: no bar).

--placement cross (the default, what the specs do): client on the first usable CPU, server
on the second, for both tools (iperf3 -A). free: no pinning anywhere (iperf3's default).
Prints Markdown for docs/validation.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from osmark import engine, monitor
from osmark.catalog import BY_ID, Benchmark
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.references import network as reference

SAMPLE_TIME = 0.25
BAR = 0.15


def osmark_spec(test_id: str, placement: str) -> Benchmark:
    """The spec as catalogued (cross), or without the CPU parameters (free)."""
    spec = BY_ID[test_id]
    if placement == "cross":
        return spec
    return dataclasses.replace(spec, params=spec.params[:-2], pin=None)


def cpus(placement: str) -> tuple[int, int] | None:
    return reference.stream_cpus() if placement == "cross" else None


def osmark_engine(spec: Benchmark, seconds: float) -> float:
    """osmark's figure as `osmark run` gets it, sampling for the whole `seconds`."""
    settings = engine.Settings(budget=seconds, sample_time=SAMPLE_TIME, min_samples=10**6)
    with tempfile.TemporaryDirectory() as tmp:
        result = engine.run_benchmark(spec, 1, find_toolchain(), Path(tmp), settings)
    if result.status != "ok" or result.median is None:
        sys.exit(f"{spec.id}: {result.status}: {result.reason}")
    return result.median


def osmark_long(spec: Benchmark, seconds: float, placement: str) -> float:
    """One kernel run on one connection lasting about `seconds`, as iperf3's test does."""
    net = str(kernel_binary("net"))
    pins = [str(c) for c in cpus(placement) or ()]
    params = [*(p for p in spec.params if not p.startswith("{")), *pins]

    def run(iterations: int) -> dict:
        proc = subprocess.run([net, spec.mode, str(iterations), *params], capture_output=True,
                              text=True, check=True, timeout=seconds * 10 + 60)
        return json.loads(proc.stdout.strip().splitlines()[-1])

    probe = run(2000 if spec.mode == "tcp-stream" else 50000)
    iterations = max(1, int(int(probe["sent"] if "sent" in probe else probe["ops"])
                            * seconds / probe["seconds"]))
    data = run(iterations)
    return data["ops"] / data["seconds"] * spec.scale


def iperf3_tcp(spec: Benchmark, seconds: int, placement: str) -> float:
    bits, _, _ = reference.iperf3_stream(int(spec.params[0]), seconds, cpus(placement))
    return bits / reference.BITS_PER_UNIT[spec.unit]


def iperf3_udp(spec: Benchmark, seconds: int, placement: str) -> float:
    """Datagrams per second the iperf3 server received with -u -b 0 (unpaced)."""
    length = int(spec.params[0])
    bits, _, _ = reference.iperf3_stream(length, seconds, cpus(placement),
                                         extra=["-u", "-b", "0"])
    return bits / 8 / length


def compare(title: str, spec: Benchmark, tool: Callable[[], float], rounds: int,
            seconds: int, placement: str, bar: float | None) -> None:
    print(f"### {title} ({placement} placement, {rounds} rounds of {seconds} s per tool)\n")
    print(f"| round | osmark ({spec.unit}) | osmark, one {seconds}-s run | iperf3 | "
          "ratio | ratio, one run | others' CPU |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    ratios, long_ratios, quiet = [], [], []
    for i in range(rounds):
        figures: dict[str, float] = {}
        order = ["osmark", "long", "iperf3"] if i % 2 == 0 else ["iperf3", "long", "osmark"]
        watch = monitor.SampleMonitor()
        watch.begin()
        for name in order:
            if name == "osmark":
                figures[name] = osmark_engine(spec, seconds)
            elif name == "long":
                figures[name] = osmark_long(spec, seconds, placement)
            else:
                figures[name] = tool()
        noise = watch.end()
        # CPU time of other user-space processes (the monitor's culprits); not the
        # kernel's own softirq threads, which the loopback traffic itself keeps busy
        others = sum(c.cpu_share for c in noise.culprits)
        ratio = figures["osmark"] / figures["iperf3"]
        long_ratio = figures["long"] / figures["iperf3"]
        ratios.append(ratio)
        long_ratios.append(long_ratio)
        if not noise.noisy:
            quiet.append(ratio)
        print(f"| {i + 1} | {figures['osmark']:.4g} | {figures['long']:.4g} | "
              f"{figures['iperf3']:.4g} | {ratio:.3f} | {long_ratio:.3f} | "
              f"{others:.2f} CPU{' (noisy)' if noise.noisy else ''} |",
              flush=True)
    median, long_median = statistics.median(ratios), statistics.median(long_ratios)
    verdict = ""
    if bar is not None:
        verdict = " — " + ("within" if abs(median - 1) <= bar else "OUTSIDE") + \
            f" the ±{bar:.0%} bar"
    print(f"\n- median ratio osmark/iperf3: **{median:.3f}**{verdict}; ratios from "
          f"{min(ratios):.3f} to {max(ratios):.3f}")
    print(f"- median ratio of one {seconds}-s osmark run (one connection, as iperf3) to "
          f"iperf3: {long_median:.3f}")
    if quiet:
        print(f"- quiet rounds only (others used < {monitor.FOREIGN_CPU_SHARE:.2f} CPU): "
              f"{len(quiet)}, median ratio {statistics.median(quiet):.3f}\n")
    else:
        print("- no quiet round: something else used the CPUs in every round\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--placement", choices=("cross", "free"), default="cross")
    parser.add_argument("--part", choices=("stream", "udp", "all"), default="stream")
    args = parser.parse_args()
    if args.part in ("stream", "all"):
        spec = osmark_spec("net.tcp-stream", args.placement)
        compare("net.tcp-stream against iperf3 (TCP, one stream, 128-KiB writes)", spec,
                lambda: iperf3_tcp(spec, args.seconds, args.placement), args.rounds,
                args.seconds, args.placement, BAR)
    if args.part in ("udp", "all"):
        spec = osmark_spec("net.udp-pps", args.placement)
        compare("net.udp-pps against iperf3 -u -b 0 -l 64 (received datagrams/s)", spec,
                lambda: iperf3_udp(spec, args.seconds, args.placement), args.rounds,
                args.seconds, args.placement, None)


if __name__ == "__main__":
    main()
