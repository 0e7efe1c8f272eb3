"""perf bench beside osmark's memcpy tests (`osmark run --with-reference`).

mem.memcpy.<block> -> memcpy: `perf bench mem memcpy -f default -s BLOCK -l LOOPS` does
what kernels/memcpy.c does: glibc's memcpy() of BLOCK bytes between the same two buffers
of that size, LOOPS times, bytes counted once; it is pinned to the CPU the engine pins
osmark's single copy to. Its bytes/s (--format simple) is converted to MB/s.

No tool measures the other memory tests the same way, so they have no adapter:
`sysbench memory` writes or reads blocks with its own byte counting, not STREAM's four
kernels and rule, and no installed tool does a randomised pointer chase by working-set
size (lmbench's lat_mem_rd uses fixed strides).
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from osmark.catalog import Benchmark
from osmark.model import Reference
from osmark.references import ReferenceUnavailable, require, run_tool, tool_version
from osmark.sysinfo import usable_cpu_ids

TARGET_S = 0.5  # perf's timed loop per run: well above gettimeofday's 1-µs resolution
RUNS = 3  # the figure is the median of this many runs
PROBE_BYTES = 256 << 20  # the first, sizing run copies about this much
MAX_LOOPS = 2**31 - 1  # perf's -l is an int: more overflows into a nonsense figure
SHIFTS = {"K": 10, "M": 20, "G": 30}


def block_bytes(param: str) -> int:
    """A memcpy spec's block parameter ("64", "4K", "16M") in bytes."""
    shift = SHIFTS.get(param[-1:].upper(), 0)
    return int(param[:-1] if shift else param) << shift


def perf_memcpy_command(perf: str, block: int, loops: int, cpu: int) -> list[str]:
    """The perf bench command that measures what mem.memcpy.<block> measures."""
    return ["taskset", "-c", str(cpu), perf, "bench", "--format", "simple", "mem", "memcpy",
            "-f", "default", "-s", f"{block}B", "-l", str(loops)]


def _bytes_per_second(output: str) -> float:
    for line in reversed(output.strip().splitlines()):
        if line.strip() and not line.startswith("#"):
            try:
                value = float(line)
            except ValueError:
                break
            if math.isfinite(value) and value > 0:
                return value
            break
    raise ReferenceUnavailable("perf bench mem memcpy printed no bytes/s figure")


def memcpy(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """perf bench mem memcpy for mem.memcpy.<block>: same block, same buffers, MB/s."""
    del workdir  # memory only
    if copies != 1:
        raise ReferenceUnavailable("the memcpy tests run one copy only")
    scale = {"MB/s": 1e-6, "GB/s": 1e-9}.get(spec.unit)
    if scale is None:
        raise ReferenceUnavailable(f"no conversion from bytes/s to {spec.unit}")
    perf = require("perf", "linux-perf")
    require("taskset", "util-linux")
    block = block_bytes(spec.params[0])
    cpu = usable_cpu_ids()[0]
    probe_loops = max(1, min(MAX_LOOPS, PROBE_BYTES // block))
    rate = _bytes_per_second(run_tool(perf_memcpy_command(perf, block, probe_loops, cpu)))
    loops = max(1, min(MAX_LOOPS, round(rate * TARGET_S / block)))
    command = perf_memcpy_command(perf, block, loops, cpu)
    rates = [_bytes_per_second(run_tool(command)) for _ in range(RUNS)]
    version = tool_version([perf, "version"]).replace("perf version ", "perf ") or "perf"
    return Reference(tool=f"{version} bench mem memcpy", command=command,
                     value=statistics.median(rates) * scale, unit=spec.unit)
