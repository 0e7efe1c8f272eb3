"""The OS cost card: what the operating-system layer costs on this machine, in ns per op.

Each figure is also shown as a multiple of os.funcall, a plain function call.
"""

from __future__ import annotations

from osmark.catalog import Benchmark

CARD = ("costs",)


def _cost(name: str, title: str, mode: str, timed: str, *params: str, pin=None,
          tolerance: float = 0.01, writes_bytes: int = 0) -> Benchmark:
    return Benchmark(
        id=f"os.{name}", title=title, category="os-cost", unit="ns", kernel="oscost",
        mode=mode, params=params, kind="latency", suites=CARD, max_copies=1, pin=pin,
        tolerance=tolerance, timed=timed, placement="free" if pin else "pinned",
        writes_bytes=writes_bytes,
    )


FILE_MIB = "64"

BENCHMARKS: list[Benchmark] = [
    _cost("funcall", "function call", "funcall",
          "one call of a non-inlined function (the card's unit)"),
    _cost("syscall", "system call (getppid)", "syscall", "syscall(SYS_getppid)"),
    _cost("clock", "clock_gettime (vDSO)", "clock", "clock_gettime(CLOCK_MONOTONIC) via libc"),
    _cost("pipe-rtt-same", "pipe round trip, same CPU", "pipe-rtt",
          "4-byte ping-pong over two pipes, both processes pinned to one CPU",
          "{cpu_a}", "{cpu_b}", pin="same"),
    _cost("pipe-rtt-cross", "pipe round trip, two CPUs", "pipe-rtt",
          "4-byte ping-pong over two pipes, processes pinned to two different CPUs",
          "{cpu_a}", "{cpu_b}", pin="cross"),
    _cost("thread-wake", "thread wake-up round trip", "thread-wake",
          "two threads on one CPU wake each other through futexes, one round trip"),
    _cost("fork", "fork + exit + wait", "fork", "fork(); child _exit(0); waitpid()"),
    _cost("fork-exec", "fork + exec + wait", "fork-exec",
          "fork(); child execv() of a tiny C program; waitpid()", "{kernel:tiny}"),
    _cost("read-file", "read 64 MiB cached file", "read-file",
          "pread() of a page-cached 64-MiB file in 1-MiB chunks", "{workdir}", FILE_MIB,
          tolerance=0.03, writes_bytes=int(FILE_MIB) * 2**20),
    _cost("mmap-file", "mmap+touch 64 MiB cached file", "mmap-file",
          "mmap() of a page-cached 64-MiB file, one read per 4-KiB page, munmap()",
          "{workdir}", FILE_MIB, tolerance=0.03, writes_bytes=int(FILE_MIB) * 2**20),
]
