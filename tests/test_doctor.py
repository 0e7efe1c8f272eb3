"""osmark doctor: the noise readers on fake /proc and /sys trees, the free-space
estimate, and the command against a real CPU hog, a tiny tmpfs and a sudo-like PATH."""

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from osmark import noise
from osmark.catalog import BY_ID, resolve
from osmark.catalog.unixbench import SHELL_JOB_BYTES
from osmark.cli_doctor import doctor, print_checks
from osmark.doctor import Check, run_checks, workdir_bytes

DOCTOR = "from osmark.cli_doctor import doctor; doctor(prog_name='osmark doctor')"


def run_doctor(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The doctor in its own process, so the test's children are not its descendants."""
    return subprocess.run([sys.executable, "-c", DOCTOR, *args], capture_output=True,
                          text=True, env=env or dict(os.environ), timeout=120)


def check_line(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if line[6:].startswith(name + " ")]
    assert len(lines) == 1, output
    return lines[0]


# --- the command ------------------------------------------------------------------------


def test_doctor_names_a_cpu_hog(tmp_path):
    hog = tmp_path / "osmark-hog"  # /proc/PID/comm is the name the program was run as
    hog.symlink_to(sys.executable)
    hogs = [subprocess.Popen([str(hog), "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.3)
        proc = run_doctor("pipe", "--workdir", str(tmp_path))
    finally:
        for child in hogs:
            child.kill()
        for child in hogs:
            child.wait()
    line = check_line(proc.stdout, "processes")
    assert "osmark-hog" in line, proc.stdout
    assert "% of a CPU" in line
    assert all(str(child.pid) in line for child in hogs)
    # Two busy processes of one name add up to well over half a CPU: a failure.
    assert line.startswith("FAIL"), proc.stdout
    assert "fix: close them" in proc.stdout
    assert proc.returncode == 1, proc.stderr


def test_doctor_fails_on_a_full_workdir(tmp_path):
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(tiny)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs not permitted here: {mounted.stderr.strip()}")
    try:
        proc = run_doctor("fstime", "--copies", "1", "--workdir", str(tiny))
    finally:
        subprocess.run(["umount", str(tiny)], check=True)
    line = check_line(proc.stdout, "workdir")
    assert line.startswith("FAIL"), proc.stdout
    # ub.fstime at 1 copy writes 2 x 2000 KiB = 3.9 MiB; + 10 % + 16 MiB = 20.3 MiB.
    assert f"needs 20.3 MiB in {tiny}, only 1.0 MiB free" in line
    assert "ub.fstime at 1 copy" in line
    assert "fix: free space or choose another --workdir" in proc.stdout
    assert proc.returncode == 1


def test_doctor_warns_about_sudo_path_without_sbin(tmp_path):
    env = {**os.environ, "PATH": "/usr/bin:/bin", "SUDO_USER": "x"}
    proc = run_doctor("pipe", "--workdir", str(tmp_path), env=env)
    line = check_line(proc.stdout, "sudo path")
    assert line.startswith("warn")
    assert "SUDO_USER=x" in line and "lacks /usr/sbin" in line
    assert "tools there are invisible" in line
    assert 'fix: sudo env "PATH=$PATH:/usr/sbin:/sbin"' in proc.stdout


def test_doctor_usage_errors(tmp_path):
    result = CliRunner().invoke(doctor, ["no-such-test"])
    assert result.exit_code == 2
    assert "unknown test or suite 'no-such-test'" in result.output
    result = CliRunner().invoke(doctor, ["--workdir", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_run_checks_sizes_the_largest_test_and_lists_everything(tmp_path):
    checks = run_checks(resolve(["index"]), [1, 2], tmp_path, interval=0.05)
    by_name = {c.name: c for c in checks}
    assert {"processes", "load", "steal", "cpu pressure", "memory pressure", "swap",
            "governor", "throttling", "page reporting", "workdir", "tools", "sudo path",
            "compiler"} <= set(by_name)
    assert all(c.status in ("ok", "warn", "fail") for c in checks)
    assert all(c.fix for c in checks if c.status != "ok")
    # Tests run one after another: the need is the largest one's, not the sum.
    assert "ub.fsdisk at 2 copies, writes 31.2 MiB" in by_name["workdir"].message
    assert by_name["tools"].status == "ok"  # sh, sort, od, grep, tee, wc, rm are here


def test_print_checks_one_line_each_and_fixes():
    out = io.StringIO()
    console = Console(file=out, width=40, color_system=None)
    checks = [Check("load", "ok", "fine"), Check("workdir", "fail", "x " * 40, "do y"),
              Check("swap", "warn", "[red]not markup[/]", "free memory")]
    print_checks(console, checks)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["ok", "load", "fine"]
    assert lines[1].startswith("FAIL  workdir  x x")  # not wrapped at 40 columns
    assert lines[2].strip() == "fix: do y"
    assert lines[3] == "warn  swap     [red]not markup[/]"
    assert lines[4] == " " * 15 + "fix: free memory"  # under the message
    out.seek(0)
    out.truncate()
    print_checks(console, checks, only_problems=True)
    assert [line.split()[0] for line in out.getvalue().splitlines()] == [
        "FAIL", "fix:", "warn", "fix:"]


# --- what the tests write ---------------------------------------------------------------


def test_workdir_bytes():
    kib = 1024
    assert workdir_bytes(BY_ID["ub.fstime"], 1) == 2 * 2000 * kib
    assert workdir_bytes(BY_ID["ub.fstime"], 2) == 2 * 2 * 2000 * kib
    assert workdir_bytes(BY_ID["ub.fsdisk"], 1) == 2 * 8000 * kib
    assert workdir_bytes(BY_ID["ub.fsdisk"], 2) == 2 * 2 * 8000 * kib
    assert workdir_bytes(BY_ID["ub.fsdisk-w"], 1) == 8000 * kib  # only file a
    assert workdir_bytes(BY_ID["os.read-file"], 1) == 64 * 2**20
    assert workdir_bytes(BY_ID["ub.shell8"], 2) == 2 * 8 * SHELL_JOB_BYTES
    assert workdir_bytes(BY_ID["ub.pipe"], 4) == 0


# --- noise.py on fake trees -------------------------------------------------------------


def stat_line(pid: int, comm: str, ppid: int, utime: int, stime: int, start: int) -> str:
    # Fields 3.. after the comm: state ppid pgrp session tty tpgid flags minflt cminflt
    # majflt cmajflt utime stime cutime cstime priority nice threads itreal starttime ...
    rest = ["R", ppid, pid, pid, 0, -1, 4194304, 10, 0, 0, 0, utime, stime, 0, 0, 20, 0, 1,
            0, start, 1000, 100]
    return f"{pid} ({comm}) " + " ".join(str(v) for v in rest) + "\n"


@pytest.fixture()
def fake_proc(tmp_path, monkeypatch):
    root = tmp_path / "proc"
    root.mkdir()
    monkeypatch.setattr(noise, "PROC", root)
    monkeypatch.setattr(noise, "_ticks_per_second", lambda: 100)
    return root


def add_process(root: Path, pid: int, comm: str, ppid: int = 1, ticks: int = 0,
                start: int = 500, cmdline: str = "") -> None:
    (root / str(pid)).mkdir(exist_ok=True)
    (root / str(pid) / "stat").write_text(stat_line(pid, comm, ppid, ticks, 0, start))
    (root / str(pid) / "cmdline").write_text(cmdline)


def test_parse_proc_stat_with_spaces_and_parentheses_in_comm():
    line = stat_line(4242, "a) (b c)", 7, 250, 50, 9000)
    assert noise.parse_proc_stat(line) == (4242, "a) (b c)", 7, 250, 50, 9000)
    assert noise.parse_proc_stat("4242 (truncated") is None
    assert noise.parse_proc_stat("") is None


def test_process_snapshot_and_top_consumers(fake_proc):
    add_process(fake_proc, 10, "web (content)", ticks=100)
    add_process(fake_proc, 11, "chromium-browse", ticks=0,
                cmdline="/usr/lib/chromium/chromium-browser\0--type=renderer\0")
    add_process(fake_proc, 12, "osmark", ticks=0)
    add_process(fake_proc, 13, "child", ppid=12, ticks=0)
    (fake_proc / "self").mkdir()  # not a pid: ignored
    before = noise.process_cpu_snapshot()
    assert before[10].name == "web (content)" and before[10].cpu_seconds == 1.0
    assert before[11].name == "chromium-browser"  # comm was cut at 15 characters
    assert noise.descendants(before, 12) == {12, 13}

    add_process(fake_proc, 10, "web (content)", ticks=120)  # +0.2 s
    add_process(fake_proc, 11, "chromium-browse", ticks=40,  # +0.4 s
                cmdline="/usr/lib/chromium/chromium-browser\0--type=renderer\0")
    add_process(fake_proc, 13, "child", ppid=12, ticks=90)  # ours: excluded
    add_process(fake_proc, 20, "newcomer", ticks=5)  # appeared: counts from zero
    add_process(fake_proc, 12, "osmark", ticks=1000)
    add_process(fake_proc, 12, "reused", ticks=30, start=999)  # pid 12 reborn: from zero
    after = noise.process_cpu_snapshot()
    found = noise.top_consumers(before, after, 1.0, exclude_pids={13})
    assert [(c.pid, c.name, round(c.cpu_share, 3)) for c in found] == [
        (11, "chromium-browser", 0.4), (12, "reused", 0.3), (10, "web (content)", 0.2),
        (20, "newcomer", 0.05)]
    assert noise.top_consumers(before, after, 0.0, set()) == []


def test_cpu_times_psi_loadavg_vmstat(fake_proc):
    (fake_proc / "stat").write_text(
        "cpu  100 5 50 1000 20 3 2 7 9 0\ncpu0 50 2 25 500 10 1 1 3 4 0\nctxt 1\n")
    times = noise.read_cpu_times()
    # guest (9) is already in user: busy = user+nice+system+irq+softirq.
    assert times == noise.CpuTimes(busy=1.6, idle=10.2, steal=0.07)
    later = noise.CpuTimes(busy=2.6, idle=10.2, steal=0.17)
    assert noise.steal_fraction(times, later) == pytest.approx(0.1 / 1.1)

    assert noise.read_psi("cpu") is None
    (fake_proc / "pressure").mkdir()
    (fake_proc / "pressure" / "memory").write_text(
        "some avg10=1.50 avg60=0.25 avg300=0.00 total=12345\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=10\n")
    assert noise.read_psi("memory") == {
        "some": {"avg10": 1.5, "avg60": 0.25, "avg300": 0.0, "total": 12345.0},
        "full": {"avg10": 0.0, "avg60": 0.0, "avg300": 0.0, "total": 10.0}}

    assert noise.read_loadavg() is None
    (fake_proc / "loadavg").write_text("2.34 1.50 0.90 3/86 3818\n")
    assert noise.read_loadavg() == noise.LoadAvg(2.34, 1.5, 0.9, 3, 86)

    assert noise.read_vmstat_swaps() == (0, 0)
    (fake_proc / "vmstat").write_text("nr_free_pages 5\npswpin 7\npswpout 11\n")
    assert noise.read_vmstat_swaps() == (7, 11)


def test_sys_readers(tmp_path, monkeypatch):
    monkeypatch.setattr(noise, "SYS", tmp_path)
    assert noise.read_governors() == {}
    assert noise.read_throttle_counts() == {}
    assert noise.free_page_reporting() is False
    cpus = tmp_path / "devices" / "system" / "cpu"
    for cpu, governor in ((0, "powersave"), (1, "performance")):
        (cpus / f"cpu{cpu}" / "cpufreq").mkdir(parents=True)
        (cpus / f"cpu{cpu}" / "cpufreq" / "scaling_governor").write_text(governor + "\n")
        (cpus / f"cpu{cpu}" / "thermal_throttle").mkdir()
        (cpus / f"cpu{cpu}" / "thermal_throttle" / "core_throttle_count").write_text(
            f"{cpu * 3}\n")
    (cpus / "cpufreq").mkdir()  # not a CPU
    assert noise.read_governors() == {0: "powersave", 1: "performance"}
    assert noise.read_throttle_counts() == {"cpu0/core_throttle_count": 0,
                                            "cpu1/core_throttle_count": 3}

    virtio = tmp_path / "bus" / "virtio" / "devices"
    for name, ident, features in (("virtio0", "0x0002", "011111"),
                                  ("virtio1", "0x0005", "011001010000")):
        (virtio / name).mkdir(parents=True)
        (virtio / name / "device").write_text(ident + "\n")
        (virtio / name / "features").write_text(features + "\n")
    assert noise.free_page_reporting() is False  # the balloon has no driver bound
    (virtio / "virtio1" / "driver").mkdir()
    assert noise.free_page_reporting() is True
    (virtio / "virtio1" / "features").write_text("011000000000\n")  # bit 5 off
    assert noise.free_page_reporting() is False
