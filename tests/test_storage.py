"""Storage tests (io.*): every kernel mode runs for real with tiny sizes; structure, sanity
and clean-up only, never a timing."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from osmark import engine
from osmark.catalog import BY_ID, suite_members
from osmark.catalog import storage as catalog
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.references import ReferenceUnavailable
from osmark.references import storage as references

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)
TINY_MIB = "4"  # the data file of the tiny runs
SPECS = catalog.BENCHMARKS


def _kernel(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(kernel_binary("storage")), *args], capture_output=True,
                          text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def _line(proc: subprocess.CompletedProcess) -> dict:
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["ops"] >= 1
    assert math.isfinite(data["seconds"]) and data["seconds"] > 0
    return data


def _tiny(spec):
    """The spec with sizes small enough for a test: a 4-MiB data file, 20 small files."""
    params = list(spec.params)
    if spec.mode.startswith(("seq-", "rand-")):
        params[1] = TINY_MIB
    elif spec.mode == "fsync":
        params[2] = "1"
    elif spec.mode == "smallfiles":
        params[1] = "20"
    return dataclasses.replace(spec, params=tuple(params))


# ---------------------------------------------------------------- the C kernel, directly


@pytest.mark.parametrize("mode", ["seq-read", "seq-write"])
def test_sequential_modes(mode, tmp_path):
    data = _line(_kernel(mode, "10", str(tmp_path), TINY_MIB))
    assert data["ops"] == 10 and data["bytes"] == 1 << 20
    assert data["direct"] in (0, 1)
    # the data file stays for the test's next sample (the engine removes the directory)
    assert [p.name for p in tmp_path.iterdir()] == [f"osmark-io-{TINY_MIB}m.dat"]
    assert (tmp_path / f"osmark-io-{TINY_MIB}m.dat").stat().st_size == 4 << 20


def test_data_file_is_reused_and_replaced_when_its_size_is_wrong(tmp_path):
    _kernel("seq-read", "1", str(tmp_path), TINY_MIB)
    path = tmp_path / f"osmark-io-{TINY_MIB}m.dat"
    inode = path.stat().st_ino
    _kernel("rand-read", "5", str(tmp_path), TINY_MIB, "1")
    assert path.stat().st_ino == inode  # reused
    with open(path, "r+b") as f:
        f.truncate(1 << 20)
    _kernel("seq-read", "1", str(tmp_path), TINY_MIB)
    assert path.stat().st_size == 4 << 20
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


@pytest.mark.parametrize("mode", ["rand-read", "rand-write"])
@pytest.mark.parametrize(("qd", "engine_arg", "expected"), [
    ("1", None, "psync"),
    ("32", "threads", "threads"),
    ("32", "auto", None),  # io_uring, or threads where it is blocked
])
def test_random_modes(mode, qd, engine_arg, expected, tmp_path):
    args = [mode, "200", str(tmp_path), TINY_MIB, qd] + ([engine_arg] if engine_arg else [])
    data = _line(_kernel(*args))
    assert data["ops"] == 200 and data["bytes"] == 4096 and data["qd"] == int(qd)
    assert data["direct"] in (0, 1)
    if expected:
        assert data["engine"] == expected
    else:
        assert data["engine"] in ("io_uring", "threads")
        if data["engine"] == "threads":
            assert data["io_uring_error"]


def test_io_uring_engine_runs_or_says_why(tmp_path):
    proc = _kernel("rand-read", "100", str(tmp_path), TINY_MIB, "8", "io_uring", check=False)
    assert proc.returncode in (0, 3), proc.stderr
    if proc.returncode == 0:
        assert _line(proc)["engine"] == "io_uring"
    else:
        assert "io_uring" in proc.stderr


SECCOMP_HELPER = r"""
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
/* Runs argv[1..] with io_uring_setup failing EPERM, as a container's seccomp makes it. */
int main(int argc, char **argv)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return 99;
    execv(argv[1], argv + 1);
    return 98;
}
"""


@pytest.fixture(scope="module")
def no_io_uring(tmp_path_factory) -> list[str]:
    """A command prefix under which io_uring_setup fails with EPERM (seccomp)."""
    tmp = tmp_path_factory.mktemp("seccomp")
    (tmp / "helper.c").write_text(SECCOMP_HELPER)
    proc = subprocess.run([*find_toolchain().command, "-o", str(tmp / "helper"),
                           str(tmp / "helper.c")], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot build the seccomp helper: {proc.stderr.strip()[:200]}")
    probe = subprocess.run([str(tmp / "helper"), "/bin/true"])
    if probe.returncode != 0:
        pytest.skip("seccomp filters are not available here")
    return [str(tmp / "helper")]


def test_blocked_io_uring_falls_back_to_threads(no_io_uring, tmp_path):
    proc = subprocess.run([*no_io_uring, str(kernel_binary("storage")), "rand-read", "200",
                           str(tmp_path), TINY_MIB, "32"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    data = _line(proc)
    assert data["engine"] == "threads" and data["ops"] == 200
    assert data["io_uring_error"] == os.strerror(1)  # EPERM


def test_blocked_io_uring_is_a_skip_when_insisted_on(no_io_uring, tmp_path):
    proc = subprocess.run([*no_io_uring, str(kernel_binary("storage")), "rand-write", "10",
                           str(tmp_path), TINY_MIB, "32", "io_uring"], capture_output=True,
                          text=True)
    assert proc.returncode == 3
    assert "io_uring" in proc.stderr.strip().splitlines()[-1]


def test_fsync_reports_percentiles_over_at_least_100_ops(tmp_path):
    data = _line(_kernel("fsync", "1", str(tmp_path), "99", "1"))
    assert data["ops"] == 100  # raised to the minimum a p99 needs
    assert data["percentile"] == 99 and data["value"] == data["p99_us"]
    assert 0 < data["p50_us"] <= data["p99_us"] <= data["max_us"]
    assert list(tmp_path.iterdir()) == []  # its file is unlinked on exit


def test_fsync_file_is_started_again_at_its_cap(tmp_path):
    # 300 ops of 4 KiB cross the 1-MiB cap (256 ops) once
    data = _line(_kernel("fsync", "300", str(tmp_path), "50", "1"))
    assert data["ops"] == 300 and data["value"] == data["p50_us"]
    assert list(tmp_path.iterdir()) == []


def test_smallfiles_pool_is_built_then_reused(tmp_path):
    first = _line(_kernel("smallfiles", "2000", str(tmp_path), "20", "3"))
    counts = [first[k] for k in ("creates", "appends", "reads", "deletes")]
    assert sum(counts) == 2000 and all(c > 0 for c in counts)
    assert first["pool_reused"] == 0 and 10 <= first["files"] <= 40
    pool = tmp_path / "osmark-sf-pool"
    on_disk = sorted(p.name for d in pool.iterdir() for p in d.iterdir())
    assert len(on_disk) == first["files"]
    assert sorted(d.name for d in pool.iterdir()) == ["d00", "d01", "d02"]
    second = _line(_kernel("smallfiles", "500", str(tmp_path), "20", "3"))
    assert second["pool_reused"] == 1  # the next sample of a test starts from it
    # a pool that does not fit the parameters (or is damaged) is built again
    (pool / "d00" / "stray").write_text("x")
    third = _line(_kernel("smallfiles", "10", str(tmp_path), "20", "3"))
    assert third["pool_reused"] == 0
    assert not (pool / "d00" / "stray").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["osmark-sf-pool"]


@pytest.mark.parametrize("args", [
    ["nosuch", "1", "DIR"],
    ["seq-read", "0", "DIR", "4"],
    ["seq-read", "1", "DIR"],
    ["seq-read", "1", "DIR", "0"],
    ["seq-write", "1", "DIR", "4", "extra"],
    ["rand-read", "1", "DIR", "4", "0"],
    ["rand-read", "1", "DIR", "4", "2000"],
    ["rand-write", "1", "DIR", "4", "32", "aio"],
    ["fsync", "1", "DIR", "0", "16"],
    ["fsync", "1", "DIR", "101", "16"],
    ["smallfiles", "1", "DIR", "0", "10"],
    ["smallfiles", "1", "DIR", "10"],
    ["seq-read", "1", "", "4"],
])
def test_bad_parameters_exit_2(args, tmp_path):
    args = [str(tmp_path) if a == "DIR" else a for a in args]
    proc = _kernel(*args, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


# ---------------------------------------------------------------- SQLite


def _sqlite(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "osmark.pykernels", "storage.sqlite_insert",
                           *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("writers", ["1", "2", "4"])
def test_sqlite_writers(writers, tmp_path):
    proc = _sqlite("insert", "40", str(tmp_path), writers)
    assert proc.returncode == 0, proc.stderr
    data = _line(proc)
    assert data["ops"] == 40 and data["check"] == 40  # every transaction's row is there
    assert list(tmp_path.iterdir()) == []  # database, -wal and -shm removed


@pytest.mark.parametrize("args", [
    ["update", "1", "DIR", "1"],
    ["insert", "1", "DIR"],
    ["insert", "1", "DIR", "0"],
    ["insert", "1", "DIR", "x"],
    ["insert", "1", "DIR/missing", "1"],
])
def test_sqlite_bad_parameters_exit_2(args, tmp_path):
    proc = _sqlite(*[a.replace("DIR", str(tmp_path)) for a in args])
    assert proc.returncode == 2, proc.stderr


# ---------------------------------------------------------------- through the engine


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_engine_runs_each_spec_tiny(spec, workdir):
    result = engine.run_benchmark(_tiny(spec), 1, find_toolchain(), workdir, TINY)
    assert result.status == "ok", result.reason
    assert result.unit == spec.unit
    assert all(math.isfinite(v) and v > 0 for v in result.samples)
    assert list(workdir.iterdir()) == []  # the scratch directory and all in it removed


def test_interrupt_between_samples_leaves_nothing(workdir):
    spec = _tiny(BY_ID["io.seq-write"])

    def interrupt(progress: engine.Progress) -> None:
        if progress.phase == "warm-up":  # the data file exists by now
            assert any(workdir.iterdir())
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.run_benchmark(spec, 1, find_toolchain(), workdir, TINY, interrupt)
    assert list(workdir.iterdir()) == []


@pytest.mark.parametrize("test_id", ["io.seq-read", "io.smallfiles", "io.sqlite-1"])
def test_kernel_killed_mid_run_leaves_nothing(test_id, workdir):
    """SIGKILL to the kernel's process group once it has written files; the engine's
    clean-up then removes whatever the kernel had written."""
    spec = BY_ID[test_id]
    killed: list[int] = []
    finished = threading.Event()

    def wrote_something() -> bool:
        return any(any(scratch.iterdir()) for scratch in workdir.iterdir()
                   if scratch.is_dir())

    def killer() -> None:
        while not finished.is_set() and not killed:
            live = list(engine._live)
            if live and wrote_something():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(live[0].pid, signal.SIGKILL)
                    killed.append(live[0].pid)
            time.sleep(0.0005)

    thread = threading.Thread(target=killer)
    thread.start()
    settings = engine.Settings(budget=5, sample_time=0.5, kernel_timeout=60)
    try:
        result = engine.run_benchmark(spec, 1, find_toolchain(), workdir, settings)
    finally:
        finished.set()
        thread.join()
    assert killed
    assert result.status == "failed" and "signal 9" in result.reason
    assert list(workdir.iterdir()) == []


# ---------------------------------------------------------------- tmpfs: no O_DIRECT


@pytest.fixture()
def tmpfs(tmp_path: Path):
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {proc.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


@pytest.mark.parametrize("args", [
    ["seq-read", "4"],
    ["seq-write", "4"],
    ["rand-read", "50", "32"],
    ["rand-write", "50", "1"],
])
def test_tmpfs_runs_buffered_and_says_so(args, tmpfs):
    mode, count, *rest = args
    data = _line(_kernel(mode, count, str(tmpfs), TINY_MIB, *rest))
    assert data["direct"] == 0
    assert references.direct_io_works(tmpfs) is False  # fio would run buffered, too


def test_real_disk_directory_is_direct_where_the_filesystem_allows(tmp_path):
    data = _line(_kernel("rand-read", "10", str(tmp_path), TINY_MIB, "1"))
    assert data["direct"] == int(references.direct_io_works(tmp_path))


# ---------------------------------------------------------------- the catalog


def test_catalog_rules():
    for spec in SPECS:
        assert spec.id.startswith("io.") and spec.category == "storage"
        assert spec.tolerance == 0.03 and spec.max_copies == 1
        assert spec.writes_bytes > 0 and "{workdir}" in spec.params
        assert {"storage", "full"} <= set(spec.suites)
        assert spec.timed
    assert {s.id for s in suite_members("quick") if s.category == "storage"} == \
        {"io.rand-read-qd1", "io.seq-write"}
    assert BY_ID["io.fsync-p99"].kind == "reported" and not BY_ID["io.fsync-p99"].higher_is_better
    # writes_bytes covers the data file the seq/rand kernels write
    for spec in SPECS:
        if spec.mode.startswith(("seq-", "rand-")):
            assert spec.writes_bytes >= int(spec.params[1]) << 20


# ---------------------------------------------------------------- fio adapters


def test_fio_command_mirrors_the_kernel(tmp_path):
    path = tmp_path / "f.dat"
    qd1 = references.fio_command("fio", path, 256, "randread", "4k", 1, True, True)
    assert "--ioengine=psync" in qd1 and "--iodepth=1" in qd1 and "--direct=1" in qd1
    assert "--size=256m" in qd1 and f"--filename={path}" in qd1
    qd32 = references.fio_command("fio", path, 256, "randread", "4k", 32, True, True)
    assert "--ioengine=io_uring" in qd32 and "--iodepth=32" in qd32
    threads = references.fio_command("fio", path, 256, "randwrite", "4k", 32, True, False)
    assert "--numjobs=32" in threads and "--group_reporting" in threads
    assert "--overwrite=1" in threads
    buffered = references.fio_command("fio", path, 256, "write", "1m", 1, False, True)
    assert "--direct=0" in buffered and "--end_fsync=1" in buffered


def test_parse_fio():
    out = json.dumps({"jobs": [{"read": {"iops": 1234.5, "bw_bytes": 5_000_000},
                                "write": {"iops": 0, "bw_bytes": 0}}]})
    assert references.parse_fio("note: noise before the JSON\n" + out, "randread",
                                "IOPS") == 1234.5
    assert references.parse_fio(out, "read", "MB/s") == 5.0
    with pytest.raises(ReferenceUnavailable):
        references.parse_fio(out, "write", "MB/s")
    with pytest.raises(ReferenceUnavailable):
        references.parse_fio("garbage", "read", "MB/s")


@pytest.mark.skipif(not shutil.which("fio"), reason="fio is not installed")
@pytest.mark.parametrize("test_id", ["io.seq-write", "io.rand-read-qd32"])
def test_fio_reference_runs(test_id, tmp_path, monkeypatch):
    monkeypatch.setattr(references, "RUNTIME_S", 1)
    monkeypatch.setattr(references, "RAMP_S", 0)
    spec = _tiny(BY_ID[test_id])
    ref = getattr(references, spec.reference.split(":")[1])(spec, tmp_path, 1)
    assert ref.tool.startswith("fio") and ref.unit == spec.unit
    assert ref.value > 0 and ref.command[0].endswith("fio")
    assert list(tmp_path.iterdir()) == []
