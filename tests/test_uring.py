"""io_uring area: the uring kernel's modes run for real, the skip path under a real seccomp
filter, the sysctl requirement, and the t(B) = a + b/B fit. Structure and sanity only."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import subprocess
import textwrap
from pathlib import Path

import pytest

from osmark import engine, requirements, uring_fit
from osmark.catalog import BY_ID, uring
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.model import BenchResult

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)
FILE = "osmark-uring.dat"
FILE_BYTES = 16 * 1024 * 1024


def _kernel() -> str:
    return str(kernel_binary("uring"))


def _run(*args: str, program: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OSMARK_SYNC"}
    return subprocess.run([*(program or [_kernel()]), *args], capture_output=True, text=True,
                          timeout=60, env=env)


def _result(*args: str) -> dict:
    proc = _run(*args)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["ops"] >= 1 and data["seconds"] > 0 and math.isfinite(data["seconds"])
    return data


# ---------------------------------------------------------------------------------------
# the kernel


@pytest.mark.parametrize("batch", [1, 3, 64])
def test_nop_counts_every_completion(batch):
    data = _result("nop", "10", str(batch))
    ops = 10 * batch
    assert data["ops"] == ops and data["batch"] == batch
    assert data["check"] == ops * (ops + 1) // 2  # the sum of every CQE's user_data


@pytest.mark.parametrize("batch", [1, 4, 64])
def test_read_matches_pread_at_the_same_offsets(batch, tmp_path):
    data = _result("read", str(128 // batch), str(batch), str(tmp_path))
    assert data["ops"] == 128
    plain = _result("syscall-read", "128", str(tmp_path))
    assert plain["ops"] == 128
    # Both fold the page number each read found in its buffer: same offsets, same pages.
    assert data["check"] == plain["check"] > 0
    assert (tmp_path / FILE).stat().st_size == FILE_BYTES
    assert [p.name for p in tmp_path.iterdir()] == [FILE]  # no temporary file left


def test_read_file_is_reused_and_a_wrong_one_recreated(tmp_path):
    _result("syscall-read", "1", str(tmp_path))
    path = tmp_path / FILE
    inode = path.stat().st_ino
    _result("read", "1", "2", str(tmp_path))
    assert path.stat().st_ino == inode  # reused, not written again
    path.write_bytes(bytes(FILE_BYTES))  # right size, wrong contents
    _result("read", "1", "2", str(tmp_path))
    assert path.stat().st_ino != inode  # rewritten under a new name, renamed into place
    with path.open("rb") as f:
        f.seek(4096 * 5)
        assert int.from_bytes(f.read(8), "little") == 5  # page 5 starts with the number 5


def test_syscall_nop_runs():
    data = _result("syscall-nop", "1000")
    assert data["ops"] == 1000
    assert data["check"] == 1000 * os.getpid()  # getppid() of the kernel is this process


@pytest.mark.parametrize("args", [
    [], ["nop"], ["nop", "0", "1"], ["nop", "10"], ["nop", "10", "0"], ["nop", "10", "4097"],
    ["nop", "10", "x"], ["nop", "10", "1", "extra"], ["read", "10", "1"],
    ["syscall-nop", "10", "extra"], ["syscall-read", "10"], ["bogus", "10"],
])
def test_bad_parameters_exit_2(args):
    proc = _run(*args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


def test_unwritable_directory_fails(tmp_path):
    proc = _run("read", "1", "1", str(tmp_path / "missing"))
    assert proc.returncode == 1
    assert "osmark-uring" in proc.stderr


# ---------------------------------------------------------------------------------------
# the skip path, for real: io_uring_setup made to fail by a seccomp filter

SECCOMP_HELPER = textwrap.dedent("""\
    /* seccomp-deny ERRNO PROGRAM [ARG...]: run PROGRAM with io_uring_setup failing with
     * ERRNO, as under a container's seccomp profile. Exit 125: no seccomp here. */
    #define _GNU_SOURCE
    #include <linux/audit.h>
    #include <linux/filter.h>
    #include <linux/seccomp.h>
    #include <stddef.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <sys/prctl.h>
    #include <sys/syscall.h>
    #include <unistd.h>
    #if defined(__x86_64__)
    #define ARCH AUDIT_ARCH_X86_64
    #elif defined(__aarch64__)
    #define ARCH AUDIT_ARCH_AARCH64
    #else
    #error "add this architecture's AUDIT_ARCH"
    #endif
    #ifndef __NR_io_uring_setup
    #define __NR_io_uring_setup 425
    #endif
    int main(int argc, char **argv)
    {
        if (argc < 3)
            return 2;
        unsigned err = (unsigned)atoi(argv[1]) & SECCOMP_RET_DATA;
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
            perror("seccomp");
            return 125;
        }
        execv(argv[2], argv + 2);
        perror("execv");
        return 126;
    }
""")

ENOSYS, EPERM = 38, 1  # Linux errno values (the same on x86-64 and aarch64)


@pytest.fixture(scope="module")
def seccomp_deny(tmp_path_factory) -> Path:
    """A compiled helper that runs a program with io_uring_setup denied by seccomp."""
    tmp = tmp_path_factory.mktemp("seccomp")
    src, exe = tmp / "seccomp_deny.c", tmp / "seccomp_deny"
    src.write_text(SECCOMP_HELPER)
    proc = subprocess.run([*find_toolchain().command, "-O2", "-o", str(exe), str(src)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    probe = subprocess.run([str(exe), str(ENOSYS), "/bin/true"], capture_output=True,
                           text=True)
    if probe.returncode == 125:
        pytest.skip(f"seccomp filters are not available here: {probe.stderr.strip()}")
    assert probe.returncode == 0, probe.stderr
    return exe


@pytest.mark.parametrize(("err", "words"), [
    (ENOSYS, ["not available", "ENOSYS", "seccomp"]),
    (EPERM, ["io_uring", "seccomp"]),
])
@pytest.mark.parametrize("args", [["nop", "10", "4"], ["read", "10", "4", "{dir}"]])
def test_blocked_io_uring_is_a_skip(seccomp_deny, err, words, args, tmp_path):
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    proc = _run(*args, program=[str(seccomp_deny), str(err), _kernel()])
    assert proc.returncode == 3, proc.stderr
    reason = proc.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in reason
    if err == EPERM and requirements.IO_URING_SYSCTL.exists() \
            and requirements.IO_URING_SYSCTL.read_text().strip() == "0":
        assert "blocked" in reason


def test_plain_syscalls_still_run_under_the_filter(seccomp_deny, tmp_path):
    for args in (["syscall-nop", "10"], ["syscall-read", "10", str(tmp_path)]):
        proc = _run(*args, program=[str(seccomp_deny), str(ENOSYS), _kernel()])
        assert proc.returncode == 0, proc.stderr


def test_engine_records_blocked_io_uring_as_skipped(seccomp_deny, tmp_path, monkeypatch,
                                                    workdir):
    real = kernel_binary("uring")
    wrapper = tmp_path / "uring-under-seccomp"
    wrapper.write_text(f'#!/bin/sh\nexec "{seccomp_deny}" {ENOSYS} "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(engine, "kernel_binary", lambda name, toolchain=None: wrapper)
    for spec_id in ("os.uring.nop.b1", "os.uring.read.b8"):
        result = engine.run_benchmark(BY_ID[spec_id], 1, find_toolchain(), workdir, TINY)
        assert result.status == "skipped", result.reason
        assert "io_uring is not available" in result.reason
        assert result.median is None
    assert list(workdir.iterdir()) == []


# ---------------------------------------------------------------------------------------
# the sysctl requirement


@pytest.mark.parametrize(("content", "skipped"), [
    ("2\n", True), ("0\n", False), ("1\n", False), (None, False),
])
def test_io_uring_sysctl_requirement(content, skipped, tmp_path, monkeypatch):
    fake = tmp_path / "io_uring_disabled"
    if content is not None:
        fake.write_text(content)
    monkeypatch.setattr(requirements, "IO_URING_SYSCTL", fake)
    reason = requirements.missing("io_uring")
    if skipped:
        assert "kernel.io_uring_disabled=2" in reason and "sysctl -w" in reason
    else:
        assert reason is None


def test_disabled_by_sysctl_skips_without_running(tmp_path, monkeypatch, workdir):
    fake = tmp_path / "io_uring_disabled"
    fake.write_text("2\n")
    monkeypatch.setattr(requirements, "IO_URING_SYSCTL", fake)
    monkeypatch.setattr(engine, "run_kernel", lambda *a, **k: pytest.fail("kernel started"))
    result = engine.run_benchmark(BY_ID["os.uring.nop.b32"], 1, find_toolchain(), workdir,
                                  TINY)
    assert result.status == "skipped"
    assert "io_uring_disabled=2" in result.reason
    # The plain-syscall counterparts do not need io_uring.
    assert requirements.first_missing(BY_ID["os.uring.syscall-nop"].requires) is None


# ---------------------------------------------------------------------------------------
# the catalog, and the engine end to end


def test_catalog_specs():
    ids = [b.id for b in uring.BENCHMARKS]
    assert ids == ([f"os.uring.nop.b{b}" for b in uring.BATCHES]
                   + [f"os.uring.read.b{b}" for b in uring.BATCHES]
                   + ["os.uring.syscall-nop", "os.uring.syscall-read"])
    assert uring.BATCHES == (1, 2, 4, 8, 16, 32, 64)
    for spec in uring.BENCHMARKS:
        assert BY_ID[spec.id] is spec
        assert (spec.unit, spec.kind, spec.category, spec.max_copies) == \
            ("ns", "latency", "io_uring", 1)
        assert not spec.higher_is_better
        assert {"os", "full"} <= set(spec.suites)
        assert spec.timed and spec.title
        assert spec.tolerance == (0.03 if "read" in spec.id else 0.01)
        assert spec.requires == (() if "syscall" in spec.id else ("io_uring",))
        if "{workdir}" in spec.params:
            assert spec.writes_bytes == FILE_BYTES
    assert sorted(b.id for b in uring.BENCHMARKS if "quick" in b.suites) == \
        ["os.uring.nop.b1", "os.uring.nop.b32"]


@pytest.mark.parametrize("spec_id", ["os.uring.nop.b4", "os.uring.read.b16",
                                     "os.uring.syscall-read"])
def test_engine_runs_and_cleans_up(spec_id, workdir):
    spec = BY_ID[spec_id]
    result = engine.run_benchmark(dataclasses.replace(spec), 1, find_toolchain(), workdir,
                                  TINY)
    assert result.status == "ok", result.reason
    assert result.n >= 1 and all(math.isfinite(v) and v > 0 for v in result.samples)
    assert 1 < result.median < 1e6  # ns per op: neither sub-ns nor milliseconds
    assert list(workdir.iterdir()) == []


# ---------------------------------------------------------------------------------------
# the fit


def test_fit_recovers_exact_parameters():
    a, b = 37.5, 412.0
    f = uring_fit.fit([(batch, a + b / batch) for batch in uring.BATCHES])
    assert f.a == pytest.approx(a, rel=1e-12)
    assert f.b == pytest.approx(b, rel=1e-12)
    assert f.r2 == pytest.approx(1.0, abs=1e-12)
    assert f.at(8) == pytest.approx(a + b / 8)


def test_fit_of_flat_points_is_exact():
    f = uring_fit.fit([(1, 100.0), (2, 100.0), (64, 100.0)])
    assert (f.a, f.b, f.r2) == (pytest.approx(100.0), pytest.approx(0.0, abs=1e-9), 1.0)


def test_fit_is_sane_on_noisy_points():
    rng = random.Random(5)
    a, b = 80.0, 450.0
    points = [(batch, (a + b / batch) * (1 + rng.gauss(0, 0.01)))
              for batch in uring.BATCHES for _ in range(3)]
    f = uring_fit.fit(points)
    assert f.a == pytest.approx(a, rel=0.05)
    assert f.b == pytest.approx(b, rel=0.05)
    assert 0.99 < f.r2 <= 1.0


def test_fit_agrees_with_numpy_least_squares():
    np = pytest.importorskip("numpy")
    rng = random.Random(11)
    for _ in range(50):
        batches = [rng.randint(1, 256) for _ in range(rng.randint(2, 12))]
        if len(set(batches)) < 2:
            continue
        times = [rng.uniform(1.0, 1000.0) for _ in batches]
        f = uring_fit.fit(list(zip(batches, times, strict=True)))
        design = np.column_stack([np.ones(len(batches)), 1.0 / np.array(batches, float)])
        (a, b), *_ = np.linalg.lstsq(design, np.array(times), rcond=None)
        predicted = design @ np.array([a, b])
        r2 = 1 - np.sum((times - predicted) ** 2) / np.sum((times - np.mean(times)) ** 2)
        assert f.a == pytest.approx(a, rel=1e-9, abs=1e-9)
        assert f.b == pytest.approx(b, rel=1e-9, abs=1e-9)
        assert f.r2 == pytest.approx(r2, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("points", [[], [(4, 10.0)], [(4, 10.0), (4, 11.0)],
                                    [(0, 1.0), (2, 1.0)], [(1.5, 1.0), (2, 1.0)]])
def test_fit_rejects_what_cannot_be_fitted(points):
    with pytest.raises(ValueError):
        uring_fit.fit(points)


def _bench(spec_id: str, median: float | None, status: str = "ok") -> BenchResult:
    return BenchResult(id=spec_id, title=spec_id, category="io_uring", version=1, copies=1,
                       status=status, reason=None, unit="ns", higher_is_better=False,
                       median=median)


def test_fits_picks_the_series_out_of_a_run():
    results = [_bench(f"os.uring.nop.b{b}", 50.0 + 400.0 / b) for b in uring.BATCHES]
    results += [_bench("os.uring.read.b1", 1500.0), _bench("os.uring.read.b64", 1100.0),
                _bench("os.uring.read.b8", None, "skipped"),
                _bench("os.uring.read.b16", 1.0, "failed"),
                _bench("os.uring.syscall-nop", 200.0), _bench("os.syscall", 200.0)]
    out = uring_fit.fits(results)
    assert list(out) == ["os.uring.nop", "os.uring.read"]
    assert out["os.uring.nop"].a == pytest.approx(50.0)
    assert out["os.uring.nop"].b == pytest.approx(400.0)
    assert out["os.uring.read"].r2 == pytest.approx(1.0)  # two points: exact
    assert out["os.uring.read"].at(1) == pytest.approx(1500.0)
    assert uring_fit.fits([_bench("os.uring.nop.b1", 10.0)]) == {}
    assert uring_fit.fits([]) == {}
