"""Memory: STREAM bandwidth, latency by working-set size, memcpy by block size."""

from __future__ import annotations

from osmark.catalog import Benchmark

BENCHMARKS: list[Benchmark] = []
