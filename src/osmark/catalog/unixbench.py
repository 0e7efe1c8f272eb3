"""UnixBench-compatible tests: the System Benchmarks Index and the non-index tests.

Same loop semantics as UnixBench 6.0's programs (unixbench.md §1), so the index can use
UnixBench's baselines (pgms/index.base): index = result / baseline × 10. What differs
by design: each sample is a calibrated loop timed in C with CLOCK_MONOTONIC (no alarm(),
no 1-s timers), no sync/sleep before samples, no double report from context1, no shared
stdin for the loopers, and volatile counters so no optimiser can delete a loop.
"""

from __future__ import annotations

from osmark.catalog import Benchmark

INDEX = ("index", "ub")
MISC = ("ub",)
FS_TOL = 0.03
SHELL_ENV = {"LC_ALL": "C"}
SHELL_JOB_BYTES = 256 * 2**10  # one tst.sh job: sort, od, grep, wc files (~46 KB measured)


def _fs(name: str, mode: str, bufsize: int, maxblocks: int, baseline: float | None,
        suites: tuple[str, ...]) -> Benchmark:
    label = {"copy": "File Copy", "read": "File Read", "write": "File Write"}[mode]
    what = {"copy": "read()+write()", "read": "read()", "write": "write()"}[mode]
    return Benchmark(
        id=f"ub.{name}", title=f"{label} {bufsize} bufsize {maxblocks} maxblocks",
        category="fs", unit="KBps", kernel="fstime",
        mode=mode, params=(str(bufsize), str(maxblocks), "{workdir}"),
        scale=bufsize / 1024, baseline=baseline, tolerance=FS_TOL, suites=suites,
        # file a of maxblocks KiB, and in copy mode file b of the same size
        writes_bytes=(2 if mode == "copy" else 1) * maxblocks * 1024,
        timed=f"{what} of {bufsize}-B blocks on a {maxblocks}-KiB page-cached file "
              "(no fsync: the page cache, not the disk)",
    )


def _shell(jobs: int, baseline: float | None, suites: tuple[str, ...]) -> Benchmark:
    return Benchmark(
        id=f"ub.shell{jobs}", title=f"Shell Scripts ({jobs} concurrent)", category="shell",
        unit="lpm", kernel="looper", mode="run",
        params=("/bin/sh", "{shell}/multi.sh", str(jobs), "{shell}"),
        scale=60.0, baseline=baseline, suites=suites, env=SHELL_ENV, placement="free",
        writes_bytes=jobs * SHELL_JOB_BYTES,
        timed=f"fork+exec+wait of one multi.sh run: {jobs} parallel jobs of sort, od, grep, "
              "tee and wc on an 8.5-KB text (LC_ALL=C)",
    )


def _arith(datum: str, title: str) -> Benchmark:
    return Benchmark(
        id=f"ub.{datum}", title=title, category="cpu", unit="lps", kernel="arith",
        mode=datum, suites=MISC,
        timed="one call of 100 multiply/divide/add steps in the mode's type"
              if datum != "arithoh" else "one call of the empty loop (loop overhead)",
    )


BENCHMARKS: list[Benchmark] = [
    Benchmark(
        id="ub.dhry2reg", title="Dhrystone 2 using register variables", category="cpu",
        unit="lps", kernel="dhry", mode="run", baseline=116700.0, suites=INDEX,
        timed="one Dhrystone 2.1 iteration (Proc_1..8, Func_1..3, strcpy/strcmp)",
    ),
    Benchmark(
        id="ub.whetstone-double", title="Double-Precision Whetstone", category="cpu",
        unit="MWIPS", kernel="whetstone", mode="run", scale=10.0, baseline=55.0,
        suites=INDEX, timed="one Whetstone pass of the eight modules (10 million "
                            "Whetstone instructions)",
    ),
    Benchmark(
        id="ub.execl", title="Execl Throughput", category="os", unit="lps", kernel="execl",
        mode="run", baseline=43.0, suites=INDEX,
        timed="one execl() of the kernel itself (state carried in argv)",
    ),
    _fs("fstime", "copy", 1024, 2000, 3960.0, INDEX),
    _fs("fsbuffer", "copy", 256, 500, 1655.0, INDEX),
    _fs("fsdisk", "copy", 4096, 8000, 5800.0, INDEX),
    Benchmark(
        id="ub.pipe", title="Pipe Throughput", category="os", unit="lps", kernel="pipe",
        mode="run", baseline=12440.0, suites=INDEX,
        timed="write() then read() of 512 B on one pipe, in one process",
    ),
    Benchmark(
        id="ub.context1", title="Pipe-based Context Switching", category="os", unit="lps",
        kernel="context1", mode="run", baseline=4000.0, suites=INDEX,
        timed="one round trip of a counter between two processes over two pipes "
              "(on one CPU when pinned)",
    ),
    Benchmark(
        id="ub.spawn", title="Process Creation", category="os", unit="lps", kernel="spawn",
        mode="run", baseline=126.0, suites=INDEX, timed="fork(); child exit(0); wait()",
    ),
    Benchmark(
        id="ub.syscall", title="System Call Overhead", category="os", unit="lps",
        kernel="syscall", mode="mix", baseline=15000.0, suites=INDEX,
        timed="close(dup(fd)), getpid, getuid, umask: 5 system calls",
    ),
    _shell(1, 42.4, INDEX),
    _shell(8, 6.0, INDEX),
    # Outside the index.
    _arith("arithoh", "Arithoh"),
    _arith("short", "Arithmetic Test (short)"),
    _arith("int", "Arithmetic Test (int)"),
    _arith("long", "Arithmetic Test (long)"),
    _arith("float", "Arithmetic Test (float)"),
    _arith("double", "Arithmetic Test (double)"),
    Benchmark(
        id="ub.hanoi", title="Recursion Test -- Tower of Hanoi", category="cpu", unit="lps",
        kernel="hanoi", mode="run", suites=MISC,
        timed="one recursive solution of the 10-disk Towers of Hanoi",
    ),
    _fs("fstime-w", "write", 1024, 2000, None, MISC),
    _fs("fstime-r", "read", 1024, 2000, None, MISC),
    _fs("fsbuffer-w", "write", 256, 500, None, MISC),
    _fs("fsbuffer-r", "read", 256, 500, None, MISC),
    _fs("fsdisk-w", "write", 4096, 8000, None, MISC),
    _fs("fsdisk-r", "read", 4096, 8000, None, MISC),
    Benchmark(
        id="ub.sysexec", title="Exec System Call Overhead", category="os", unit="lps",
        kernel="syscall", mode="exec", baseline=25.0, suites=MISC,
        timed="fork() + execl(/bin/true) + waitpid()",
    ),
    _shell(16, None, MISC),
]

INDEX_IDS: tuple[str, ...] = tuple(b.id for b in BENCHMARKS if "index" in b.suites)
