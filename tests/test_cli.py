import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from osmark import model
from osmark.cli import main

FAST = ["--budget", "0.4", "--sample-time", "0.01"]


def osmark(*args: str, env_extra: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "osmark", *args], capture_output=True,
                          text=True, env=env, timeout=300, **kwargs)


def test_list_json():
    result = CliRunner().invoke(main, ["list", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    ids = {b["id"] for b in data["benchmarks"]}
    assert {"ub.dhry2reg", "ub.shell8", "os.fork-exec"} <= ids
    assert "index" in data["suites"]
    pipe = next(b for b in data["benchmarks"] if b["id"] == "ub.pipe")
    assert pipe["unit"] == "lps" and pipe["baseline"] == 12440.0


def test_help_for_every_command():
    for command in ("list", "run", "costs", "show", "runs", "tag", "history", "compare",
                    "report", "import", "info", "doctor", "db"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0
        assert "Usage" in result.output


def test_run_writes_a_valid_result(tmp_path, data_dir):
    out = tmp_path / "r.json"
    proc = osmark("run", "pipe", "syscall", "--copies", "1", "--copies", "2", *FAST,
                  "--json", str(out), "--tag", "kernel=test")
    assert proc.returncode == 0, proc.stderr
    result = model.load(out)
    assert result.run.complete
    assert [(r.id, r.copies) for r in result.results] == [
        ("ub.pipe", 1), ("ub.syscall", 1), ("ub.pipe", 2), ("ub.syscall", 2)]
    assert all(r.status == "ok" and r.index > 0 for r in result.results)
    assert [(s.copies, s.partial, s.tests) for s in result.scores] == [
        (1, True, 2), (2, True, 2)]
    saved = list((data_dir / "results").glob("*.json"))
    assert len(saved) == 1 and model.load(saved[0]) == result
    assert "System Benchmarks Partial Index (1 copy)" in proc.stdout
    assert "Pipe Throughput" in proc.stdout
    assert f"Result saved: {out}" in proc.stdout
    assert result.host.description.tags == {"kernel": "test"}
    stored = json.loads(osmark("runs", "--format", "json").stdout)  # indexed on save
    assert [(r["id"], r["tags"]) for r in stored] == [(result.run.id, {"kernel": "test"})]


def test_costs_card(tmp_path, data_dir):
    out = tmp_path / "c.json"
    proc = osmark("costs", *FAST, "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    result = model.load(out)
    assert {r.id for r in result.results} >= {"os.funcall", "os.syscall", "os.read-file"}
    assert "OS cost card" in proc.stdout
    assert "mmap+touch of a cached file is" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nosuchtest"], "unknown test or suite 'nosuchtest'"),
        (["run", "pipe", "--workdir", "/nonexistent/dir"], "not a directory"),
        (["run", "pipe", "--json", "/nonexistent/dir/r.json"], "does not exist"),
        (["run", "pipe", "--budget", "0"], "--budget must be"),
        (["run", "pipe", "--copies", "0"], "Invalid value"),
    ],
)
def test_bad_usage_exits_2(args, message, data_dir):
    proc = osmark(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert not (data_dir / "results").exists()


def test_show_corrupt_file_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "tool": ')
    proc = osmark("show", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"osmark: error: {bad}: not valid JSON")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_show_prints_a_saved_result(tmp_path, data_dir):
    out = tmp_path / "r.json"
    assert osmark("run", "spawn", "--copies", "1", *FAST, "--json", str(out)).returncode == 0
    proc = osmark("show", str(out))
    assert proc.returncode == 0
    assert "Process Creation" in proc.stdout


def _kernels_running_in(path: Path) -> list[int]:
    """PIDs of processes whose command line or cwd mentions path."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if str(path) in cmdline or cwd.startswith(str(path)):
            pids.append(int(entry.name))
    return pids


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_finished_tests(tmp_path, data_dir, workdir, signum):
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "osmark", "run", "syscall", "shell8", "--copies", "1",
         "--budget", "60", "--sample-time", "0.01", "--workdir", str(workdir),
         "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    # wait until the shell test's scratch directory exists: syscall has finished by then
    deadline = time.monotonic() + 60
    while not any(workdir.glob("osmark-shell8-*")) or not _kernels_running_in(workdir):
        assert time.monotonic() < deadline, "shell8 never started"
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stdout
    result = model.load(out)
    assert result.run.complete is False
    assert [r.id for r in result.results] == ["ub.syscall"]
    assert list(workdir.iterdir()) == []  # scratch files removed
    time.sleep(0.2)
    assert _kernels_running_in(workdir) == []  # every kernel and shell job was killed


@pytest.fixture()
def small_tmpfs(tmp_path):
    """A 1-MiB tmpfs: too small for the file tests (needs root to mount; skipped if not)."""
    target = tmp_path / "small"
    target.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(target)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def test_run_refuses_a_workdir_without_the_space(small_tmpfs, data_dir):
    proc = osmark("run", "fstime", "--copies", "1", *FAST, "--workdir", str(small_tmpfs))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "not enough space" in line and str(small_tmpfs) in line
    assert "needs" in line and "free" in line  # how much is needed, how much there is
    assert list(small_tmpfs.iterdir()) == []  # nothing written
    assert not (data_dir / "results").exists()
