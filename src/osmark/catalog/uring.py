"""io_uring: what batching saves, against plain system calls."""

from __future__ import annotations

from osmark.catalog import Benchmark

BENCHMARKS: list[Benchmark] = []
