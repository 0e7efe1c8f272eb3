"""Memory: STREAM bandwidth, latency by working-set size, memcpy by block size.

Id scheme, so a report can group and plot them:
  mem.stream.{copy,scale,add,triad}   STREAM bandwidth, MB/s, 1 copy and one per CPU
  mem.latency.<size>                  load latency in ns, size = 4k 16k 64k 256k 1m 4m
                                      16m 64m 256m (binary units); the specs come in
                                      increasing size order, title "Load latency, 64 KiB
                                      working set", and `params[0]` is the size ("64K")
  mem.memcpy.<block>                  memcpy() MB/s, block = 64 4k 64k 1m 16m bytes
All have category "memory".
"""

from __future__ import annotations

from osmark.catalog import Benchmark

AREA = ("memory", "full")
QUICK = ("memory", "full", "quick")

STREAM_NOTE = (
    "STREAM byte counting: Copy and Scale count 2 x 8 bytes per array element (one read, "
    "one write), Add and Triad 3 x 8; the write-allocate read of each stored line is not "
    "counted. Each array is 4 x the last-level cache (sysfs, else 32 MiB); each copy has "
    "its own arrays. The figure is the mean over a sample's passes, not STREAM's best of 10."
)

# mode -> (the statement of one element, 8-byte words counted per element)
_STREAM = {
    "copy": ("c[j] = a[j]", 2),
    "scale": ("b[j] = q*c[j]", 2),
    "add": ("c[j] = a[j] + b[j]", 3),
    "triad": ("a[j] = b[j] + q*c[j]", 3),
}


def _stream(name: str) -> Benchmark:
    statement, words = _STREAM[name]
    return Benchmark(
        id=f"mem.stream.{name}", title=f"STREAM {name.capitalize()}", category="memory",
        unit="MB/s", kernel="stream", mode=name, kind="rate", scale=1e-6,
        suites=QUICK if name == "triad" else AREA, note=STREAM_NOTE,
        timed=f"passes of `{statement}` over arrays of doubles, each 4 x the last-level "
              f"cache, set up and touched before timing; counted {words} x 8 bytes per "
              "element (STREAM's rule: no write-allocate traffic); a plain loop (no "
              "memcpy substitution, no non-temporal stores); pages as the THP policy "
              "gives them",
    )


def _size_label(size: str) -> str:
    """A size parameter as titles show it: "64K" -> "64 KiB", "64" -> "64 B"."""
    unit = {"K": "KiB", "M": "MiB", "G": "GiB"}.get(size[-1])
    return f"{size[:-1]} {unit}" if unit else f"{size} B"


# Working-set sizes: L1 (4K, 16K), L2 (64K, 256K), the L2/L3 boundary (1M), L3 (4M, 16M)
# and DRAM (64M, 256M) on a typical x86 server; the curve shows where the steps are.
LATENCY_SIZES = ("4K", "16K", "64K", "256K", "1M", "4M", "16M", "64M", "256M")


def _latency(size: str) -> Benchmark:
    return Benchmark(
        id=f"mem.latency.{size.lower()}", title=f"Load latency, {_size_label(size)} working set",
        category="memory", unit="ns", kernel="memlat", mode="chase", params=(size,),
        kind="latency", max_copies=1,
        suites=QUICK if size == "64M" else AREA,
        timed=f"dependent loads p = *p around one random cycle through the 64-byte nodes "
              f"of a {_size_label(size)} set (Sattolo permutation, fixed seed: no prefetcher "
              "can follow it), built and warmed before timing; 4-KiB pages "
              "(MADV_NOHUGEPAGE), so past the TLBs' reach the figure includes TLB misses",
    )


MEMCPY_BLOCKS = ("64", "4K", "64K", "1M", "16M")


def _memcpy(block: str) -> Benchmark:
    return Benchmark(
        id=f"mem.memcpy.{block.lower()}", title=f"memcpy, {_size_label(block)} blocks",
        category="memory", unit="MB/s", kernel="memcpy", mode="run", params=(block,),
        kind="rate", scale=1e-6, max_copies=1, suites=AREA, reference="memory:memcpy",
        note="bytes copied, each counted once (as perf bench mem memcpy)",
        timed=f"memcpy() of {_size_label(block)} between the same two buffers of that size "
              "(as `perf bench mem memcpy`): a block whose two buffers fit a cache is "
              "copied within that cache, so small blocks measure in-cache copy and call "
              "overhead; counted once per byte copied",
    )


BENCHMARKS: list[Benchmark] = [
    *(_stream(name) for name in _STREAM),
    *(_latency(size) for size in LATENCY_SIZES),
    *(_memcpy(block) for block in MEMCPY_BLOCKS),
]
