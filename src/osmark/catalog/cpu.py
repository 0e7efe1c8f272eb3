"""CPU: compression, hashing, crypto, scheduler stress, a parallel build, FFT and matmul."""

from __future__ import annotations

from osmark.catalog import Benchmark

BENCHMARKS: list[Benchmark] = []
