import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from osmark.kernels import build


@pytest.fixture()
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OSMARK_CACHE_DIR", str(tmp_path / "cache"))
    build.find_toolchain.cache_clear()
    yield tmp_path / "cache"
    build.find_toolchain.cache_clear()


def test_no_compiler_is_reported(fresh_cache, monkeypatch):
    monkeypatch.setenv("CC", "/bin/false")
    with pytest.raises(build.CompilerMissing, match="no C compiler found.*install gcc"):
        build.find_toolchain()


def test_missing_compiler_command(fresh_cache, monkeypatch):
    monkeypatch.setenv("CC", "no-such-cc-here")
    with pytest.raises(build.CompilerMissing, match="not on PATH"):
        build.find_toolchain()


def test_toolchain_records_version_and_flags(fresh_cache):
    toolchain = build.find_toolchain()
    assert toolchain.version
    assert "-O3" in toolchain.cflags


def test_build_is_cached_and_atomic(fresh_cache):
    toolchain = build.find_toolchain()
    with ThreadPoolExecutor(4) as pool:  # four concurrent builds of one kernel
        paths = list(pool.map(lambda _: build.kernel_binary("pipe", toolchain), range(4)))
    assert len(set(paths)) == 1
    binary = paths[0]
    assert os.access(binary, os.X_OK)
    assert list(binary.parent.iterdir()) == [binary]  # no temporary files left
    mtime = binary.stat().st_mtime_ns
    assert build.kernel_binary("pipe", toolchain).stat().st_mtime_ns == mtime


def test_other_flags_build_anew(fresh_cache):
    toolchain = build.find_toolchain()
    other = build.Toolchain(toolchain.command, toolchain.version, build.FALLBACK_CFLAGS)
    assert build.kernel_binary("pipe", toolchain) != build.kernel_binary("pipe", other)


def test_run_without_compiler_skips_with_reason(tmp_path):
    env = {**os.environ, "CC": "/bin/false", "OSMARK_CACHE_DIR": str(tmp_path / "cache"),
           "OSMARK_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "osmark", "run", "syscall", "pipe", "--copies", "1",
         "--json", str(out)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert [r["status"] for r in data["results"]] == ["skipped", "skipped"]
    assert all("install gcc" in r["reason"] for r in data["results"])
    assert data["host"]["identity"]["compiler"] is None
    assert data["run"]["complete"] is True
