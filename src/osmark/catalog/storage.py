"""Storage in the user's --workdir: sequential and random I/O, fsync latency,
small-file transactions, SQLite inserts."""

from __future__ import annotations

from osmark.catalog import Benchmark

BENCHMARKS: list[Benchmark] = []
