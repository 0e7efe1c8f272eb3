"""Storage in the user's --workdir: sequential and random I/O, fsync latency,
small-file transactions, SQLite inserts.

Everything is measured in the directory the run's workdir names (`--workdir`), so two
disks or filesystems are compared by pointing at each. The native tests are modes of
kernels/storage.c (its header says exactly what each times); the SQLite tests are
pykernels/storage.py. The sequential and random tests share one data file of FILE_MIB
MiB, written once per test in set-up and reused by its samples; they use O_DIRECT and
fall back to buffered I/O (pages dropped before reads, an fsync inside the timed region
after writes) where the filesystem refuses or ignores it: the kernel's result line then
says "direct": 0. `reference` names the fio adapter of references/storage.py that
measures the same thing (`--with-reference`).
"""

from __future__ import annotations

from osmark.catalog import Benchmark

AREA = ("storage", "full")
QUICK = ("io.rand-read-qd1", "io.seq-write")
TOLERANCE = 0.03

MIB = 1024 * 1024
FILE_MIB = 256  # the data file of the seq-* and rand-* tests
FSYNC_CAP_MIB = 16  # the fsync test's file is started again at this size
SMALL_FILES, SMALL_DIRS = 1000, 10
# The pool never holds more than 2 x SMALL_FILES files of at most 32 KiB (storage.c).
SMALL_BYTES = 2 * SMALL_FILES * 32 * 1024 + MIB  # + directories and slack
# A SQLite sample's database: ~150 bytes a row, the WAL checkpointed at ~4 MiB; 64 MiB
# holds some 400 000 transactions, far more than a sample commits at fsync speed.
SQLITE_BYTES = 64 * MIB

DIRECT_NOTE = ("O_DIRECT; where the filesystem refuses it (EINVAL) or ignores it (tmpfs, "
               "ramfs), buffered I/O instead, the file's pages dropped before reads and "
               "an fsync timed after writes; the result then says direct=0")
FALLBACK = "; without O_DIRECT (refused or tmpfs): buffered, {what} (direct=0)"


def _spec(name: str, title: str, unit: str, kernel: str, mode: str, timed: str,
          *params: str, writes: int, scale: float = 1.0, note: str = "",
          reported_lower: bool = False, reference: str | None = None) -> Benchmark:
    spec_id = f"io.{name}"
    return Benchmark(
        id=spec_id, title=title, category="storage", unit=unit, kernel=kernel, mode=mode,
        params=params, tolerance=TOLERANCE, max_copies=1, placement="free",
        suites=AREA + (("quick",) if spec_id in QUICK else ()), writes_bytes=writes,
        timed=timed, scale=scale, note=note,
        kind="reported" if reported_lower else "rate",
        better="lower" if reported_lower else None, reference=reference,
    )


def _seq(direction: str) -> Benchmark:
    read = direction == "read"
    fallback = FALLBACK.format(what="the file's pages dropped with posix_fadvise(DONTNEED) "
                                    "before the timed region" if read else
                                    "one fsync() at the end, inside the timed region")
    return _spec(
        f"seq-{direction}", f"Sequential {direction}, 1 MiB blocks", "MB/s", "storage",
        f"seq-{direction}",
        f"{'pread' if read else 'pwrite'}() of consecutive 1-MiB blocks of a {FILE_MIB}-MiB "
        f"file (written once per test in set-up), from offset 0, wrapping at its end, "
        f"O_DIRECT, queue depth 1{fallback}",
        "{workdir}", str(FILE_MIB), writes=FILE_MIB * MIB, scale=MIB / 1e6, note=DIRECT_NOTE,
        reference=f"storage:seq_{direction}",
    )


def _rand(direction: str, qd: int) -> Benchmark:
    read = direction == "read"
    call = "pread" if read else "pwrite"
    fallback = FALLBACK.format(what="the file's pages dropped before the timed region" if read
                               else "one fsync() at the end, inside the timed region")
    if qd == 1:
        how = f"one {call}() at a time"
    else:
        how = (f"{qd} in flight through io_uring (raw io_uring_setup/io_uring_enter, "
               f"each completed I/O's slot refilled and submitted at once, as fio does), "
               f"or, where io_uring is blocked, {qd} threads doing {call}() (result field "
               f"engine)")
    return _spec(
        f"rand-{direction}-qd{qd}", f"Random {direction} 4 KiB, QD{qd}", "IOPS", "storage",
        f"rand-{direction}",
        f"4-KiB {direction}s at 4-KiB-aligned offsets drawn uniformly over a {FILE_MIB}-MiB "
        f"file (written once per test in set-up), O_DIRECT, {how}; from the first "
        f"submission to the last completion{'' if read else ', no fsync'}{fallback}",
        "{workdir}", str(FILE_MIB), str(qd), *(("auto",) if qd > 1 else ()),
        writes=FILE_MIB * MIB, note=DIRECT_NOTE, reference=f"storage:rand_{direction}",
    )


def _fsync(pct: int) -> Benchmark:
    return _spec(
        f"fsync-p{pct}", f"fsync latency, p{pct}", "µs", "storage", "fsync",
        f"per op: pwrite() of 4 KiB at the end of a file, then fsync(); each op timed on "
        f"its own and the p{pct} of a sample's ops (at least 100) reported; the file is "
        f"truncated between ops (untimed) when it reaches {FSYNC_CAP_MIB} MiB",
        "{workdir}", str(pct), str(FSYNC_CAP_MIB), writes=FSYNC_CAP_MIB * MIB,
        reported_lower=True,
    )


def _sqlite(writers: int) -> Benchmark:
    who = "one writer" if writers == 1 else f"{writers} writer threads, one connection each,"
    return _spec(
        f"sqlite-{writers}", f"SQLite inserts, {writers} writer{'s' if writers > 1 else ''}",
        "tx/s", "py:storage.sqlite_insert", "insert",
        f"transactions (BEGIN IMMEDIATE; INSERT of one ~100-byte row; COMMIT) by {who} on "
        "one database (WAL, synchronous=FULL: an fsync per commit; busy timeout), through "
        "Python's sqlite3; ops = all writers' commits",
        "{workdir}", str(writers), writes=SQLITE_BYTES,
    )


BENCHMARKS: list[Benchmark] = [
    _seq("read"),
    _seq("write"),
    _rand("read", 1),
    _rand("read", 32),
    _rand("write", 1),
    _rand("write", 32),
    _fsync(50),
    _fsync(99),
    _spec(
        "smallfiles", "Small-file transactions (PostMark-style)", "ops/s", "storage",
        "smallfiles",
        f"transactions on a pool of {SMALL_FILES} files of 512 B-16 KiB in {SMALL_DIRS} "
        "subdirectories (created once per test in set-up, kept between its samples), "
        "each a create (write 512 B-16 KiB), append "
        "(512 B-4 KiB), whole-file read or delete, chosen at random with a fixed seed; "
        "buffered, no fsync: the system calls of open/write/read/close/unlink, i.e. the "
        "filesystem's page-cache and metadata paths, not writeback",
        "{workdir}", str(SMALL_FILES), str(SMALL_DIRS), writes=SMALL_BYTES,
    ),
    _sqlite(1),
    _sqlite(2),
    _sqlite(4),
]
