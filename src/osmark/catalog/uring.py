"""io_uring: what batching saves, against plain system calls.

Each series (NOPs, 4-KiB cached reads) is measured at batch sizes 1 to 64 operations per
io_uring_enter(), in ns per operation; osmark.uring_fit fits t(B) = a + b/B to a series
(a: what every operation costs, b: the per-enter cost a batch shares). The plain-syscall
counterparts (getppid(), pread()) say where batching starts to pay.
"""

from __future__ import annotations

from osmark.catalog import Benchmark

SUITES = ("os", "full")
QUICK = ("os.uring.nop.b1", "os.uring.nop.b32")
BATCHES = (1, 2, 4, 8, 16, 32, 64)
FILE_BYTES = 16 * 1024 * 1024  # the cached file the read modes share (kernels/uring.c)


def _spec(name: str, title: str, mode: str, timed: str, *params: str, tolerance: float,
          requires: tuple[str, ...] = ("io_uring",), writes: int = 0) -> Benchmark:
    spec_id = f"os.uring.{name}"
    return Benchmark(
        id=spec_id, title=title, category="io_uring", unit="ns", kernel="uring", mode=mode,
        params=params, kind="latency", tolerance=tolerance,
        suites=SUITES + (("quick",) if spec_id in QUICK else ()), max_copies=1,
        requires=requires, writes_bytes=writes, timed=timed,
    )


def _nop(batch: int) -> Benchmark:
    return _spec(
        f"nop.b{batch}", f"io_uring NOP, batch {batch}", "nop",
        f"per op: 1/{batch} of filling {batch} NOP SQEs, one io_uring_enter(submit {batch}, "
        f"wait {batch}) and reaping the {batch} CQEs",
        str(batch), tolerance=0.01,
    )


def _read(batch: int) -> Benchmark:
    return _spec(
        f"read.b{batch}", f"io_uring 4-KiB cached read, batch {batch}", "read",
        f"per op: 1/{batch} of filling {batch} IORING_OP_READ SQEs (4 KiB, random aligned "
        f"offsets of a page-cached 16-MiB file), one io_uring_enter(submit {batch}, wait "
        f"{batch}) and reaping and checking the {batch} CQEs",
        str(batch), "{workdir}", tolerance=0.03, writes=FILE_BYTES,
    )


BENCHMARKS: list[Benchmark] = [
    *(_nop(b) for b in BATCHES),
    *(_read(b) for b in BATCHES),
    _spec("syscall-nop", "getppid() (NOP counterpart)", "syscall-nop",
          "syscall(SYS_getppid): one plain kernel entry and exit doing no work",
          tolerance=0.01, requires=()),
    _spec("syscall-read", "pread() 4 KiB cached (read counterpart)", "syscall-read",
          "pread() of 4 KiB at the read series' random offsets of the same page-cached "
          "16-MiB file, checked", "{workdir}", tolerance=0.03, requires=(), writes=FILE_BYTES),
]
