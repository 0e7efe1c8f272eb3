"""Network on loopback: TCP stream, request/response latency, connection rate, UDP."""

from __future__ import annotations

from osmark.catalog import Benchmark

BENCHMARKS: list[Benchmark] = []
