"""Memory kernels (stream, memlat, memcpy) and their specs: structure and sanity, no timings.

The kernels run for real with tiny sizes, called directly and through the engine.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from osmark import engine
from osmark.catalog import BY_ID, suite_members
from osmark.catalog.memory import BENCHMARKS, LATENCY_SIZES, MEMCPY_BLOCKS
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.references import ReferenceUnavailable
from osmark.references import memory as reference

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)
LINE = 64
LOADS_PER_ITERATION = 1024


def _run(kernel: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(kernel_binary(kernel)), *args], capture_output=True, text=True,
                          timeout=60)


def _result(kernel: str, *args: str) -> dict:
    proc = _run(kernel, *args)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["ops"] > 0 and data["seconds"] > 0
    return data


def _llc_bytes() -> int:
    """What the stream kernel should find: the highest-level non-instruction cache of CPU 0."""
    best_level, best = -1, 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction" or not size:
            continue
        shift = {"K": 10, "M": 20, "G": 30}.get(size[-1], 0)
        value = int(size[:-1] if shift else size) << shift
        if value and level > best_level:
            best_level, best = level, value
    return best or 32 << 20


# --- stream -------------------------------------------------------------------------

@pytest.mark.parametrize(("mode", "words"), [("copy", 2), ("scale", 2), ("add", 3),
                                             ("triad", 3)])
def test_stream_counts_bytes_by_streams_rule(mode, words):
    data = _result("stream", mode, "3", "64K")
    assert data["bytes_per_array"] == 64 * 1024
    elements = 64 * 1024 // 8
    assert data["ops"] == 3 * words * 8 * elements
    assert data["check"] > 0


def test_stream_default_arrays_are_four_times_the_llc():
    data = _result("stream", "triad", "1")
    assert data["bytes_per_array"] == 4 * _llc_bytes()
    assert _result("stream", "triad", "1", "auto")["bytes_per_array"] == 4 * _llc_bytes()


@pytest.mark.parametrize("args", [
    ("copy",), ("copy", "0"), ("copy", "x"), ("fma", "1"), ("copy", "1", "64X"),
    ("copy", "1", "1K"), ("copy", "1", "-64K"), ("copy", "1", "64K", "extra"),
    ("copy", "1", ""),
])
def test_stream_bad_parameters_exit_2(args):
    proc = _run("stream", *args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


# --- memlat -------------------------------------------------------------------------

@pytest.mark.parametrize("pages", ["4k", "thp"])
@pytest.mark.parametrize("size", ["4K", "1M"])
def test_memlat_reports_one_op_per_load(size, pages):
    if pages == "thp" and _run("memlat", "chase", "1", size, pages).returncode == 3:
        pytest.skip("this kernel has no transparent huge pages")
    data = _result("memlat", "chase", "5", size, pages)
    nodes = (4 << 10 if size == "4K" else 1 << 20) // LINE
    assert data["nodes"] == nodes and data["bytes"] == nodes * LINE
    assert data["ops"] == 5 * LOADS_PER_ITERATION
    assert 0 <= data["check"] < nodes
    assert math.isfinite(data["seconds"] / data["ops"])


def test_memlat_walks_one_cycle_through_every_node():
    # 96 nodes: the warm-up walks one lap (96 loads), then 1024 per iteration. On a single
    # 96-node cycle the chase is back at node 0 exactly when the loads are a multiple of 96.
    size = str(96 * LINE)
    assert _result("memlat", "chase", "3", size)["check"] == 0  # 96 + 3072 = 33 laps
    assert _result("memlat", "chase", "1", size)["check"] != 0  # 96 + 1024: not a lap


@pytest.mark.parametrize("args", [
    ("chase", "1"), ("chase", "0", "4K"), ("walk", "1", "4K"), ("chase", "1", "64"),
    ("chase", "1", "4Q"), ("chase", "1", "4K", "2m"), ("chase", "1", "4K", "4k", "x"),
])
def test_memlat_bad_parameters_exit_2(args):
    proc = _run("memlat", *args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


# --- memcpy -------------------------------------------------------------------------

@pytest.mark.parametrize(("block", "nbytes"), [("1", 1), ("64", 64), ("4K", 4096),
                                               ("1M", 1 << 20)])
def test_memcpy_counts_bytes_copied(block, nbytes):
    data = _result("memcpy", "run", "7", block)
    assert data["ops"] == 7 * nbytes


@pytest.mark.parametrize("args", [
    ("run", "1"), ("run", "1", "0"), ("run", "1", "abc"), ("copy", "1", "64"),
    ("run", "1", "64", "x"), ("run", "-1", "64"),
])
def test_memcpy_bad_parameters_exit_2(args):
    proc = _run("memcpy", *args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


# --- specs through the engine -------------------------------------------------------

def _tiny(spec):
    if spec.kernel == "stream":
        return dataclasses.replace(spec, params=("64K",))
    if spec.kernel == "memlat":
        return dataclasses.replace(spec, params=("16K",))
    return spec


@pytest.mark.parametrize("spec", BENCHMARKS, ids=[b.id for b in BENCHMARKS])
def test_specs_run_through_the_engine(spec, workdir):
    result = engine.run_benchmark(_tiny(spec), 1, find_toolchain(), workdir, TINY)
    assert result.status == "ok", result.reason
    assert result.unit == spec.unit and result.n >= 1
    assert all(math.isfinite(v) and v > 0 for v in result.samples)
    assert list(workdir.iterdir()) == []


def test_stream_copies_add_up(workdir):
    spec = _tiny(BY_ID["mem.stream.triad"])
    result = engine.run_benchmark(spec, 2, find_toolchain(), workdir, TINY)
    assert result.status == "ok", result.reason
    assert result.copies == 2


def test_catalog_entries():
    ids = [b.id for b in BENCHMARKS]
    assert ids[:4] == [f"mem.stream.{m}" for m in ("copy", "scale", "add", "triad")]
    assert [b.id for b in BENCHMARKS if b.kernel == "memlat"] == [
        f"mem.latency.{s.lower()}" for s in LATENCY_SIZES]
    assert [b.id for b in BENCHMARKS if b.kernel == "memcpy"] == [
        f"mem.memcpy.{s.lower()}" for s in MEMCPY_BLOCKS]
    for spec in BENCHMARKS:
        assert spec.category == "memory"
        assert {"memory", "full"} <= set(spec.suites)
        assert spec.timed and spec.tolerance == 0.01 and spec.writes_bytes == 0
        if spec.kernel == "memlat":
            assert spec.kind == "latency" and spec.unit == "ns" and spec.max_copies == 1
            assert spec.title.startswith("Load latency, ")
        else:
            assert spec.kind == "rate" and spec.unit == "MB/s" and spec.scale == 1e-6
        if spec.kernel == "stream":
            assert spec.max_copies is None  # one copy and one per CPU: the engine sums
            assert "2 x 8" in spec.note and "3 x 8" in spec.note
        if spec.kernel == "memcpy":
            assert spec.max_copies == 1
    assert BY_ID["mem.latency.64k"].title == "Load latency, 64 KiB working set"
    assert BY_ID["mem.memcpy.64"].title == "memcpy, 64 B blocks"
    quick = [b.id for b in suite_members("quick") if b.category == "memory"]
    assert quick == ["mem.stream.triad", "mem.latency.64m"]


# --- the perf bench reference for memcpy ---------------------------------------------

def test_perf_memcpy_command_has_the_specs_block():
    assert [reference.block_bytes(b) for b in MEMCPY_BLOCKS] == [64, 4096, 65536, 1 << 20,
                                                                  16 << 20]
    command = reference.perf_memcpy_command("/usr/bin/perf", 4096, 1000, 0)
    assert command[:3] == ["taskset", "-c", "0"]
    assert command[3:] == ["/usr/bin/perf", "bench", "--format", "simple", "mem", "memcpy",
                           "-f", "default", "-s", "4096B", "-l", "1000"]


@pytest.mark.parametrize(("output", "expected"), [
    ("# function 'default' (Default memcpy() provided by glibc)\n23245002324.5\n",
     23245002324.5),
    ("# function 'default'\n-inf\n", None), ("", None), ("# only a comment\n", None),
])
def test_perf_output_is_parsed_or_refused(output, expected):
    if expected is None:
        with pytest.raises(ReferenceUnavailable):
            reference._bytes_per_second(output)
    else:
        assert reference._bytes_per_second(output) == expected


def test_memcpy_reference_runs_perf(monkeypatch, tmp_path):
    spec = BY_ID["mem.memcpy.4k"]
    if shutil.which("perf") is None:
        with pytest.raises(ReferenceUnavailable, match="apt-get install linux-perf"):
            reference.memcpy(spec, tmp_path, 1)
        return
    monkeypatch.setattr(reference, "TARGET_S", 0.01)
    monkeypatch.setattr(reference, "PROBE_BYTES", 1 << 20)
    try:
        result = reference.memcpy(spec, tmp_path, 1)
    except ReferenceUnavailable as exc:  # a perf wrapper without a matching kernel build
        pytest.skip(f"perf bench cannot run here: {exc}")
    assert result.unit == "MB/s" and result.value is not None and result.value > 0
    assert "4096B" in result.command and result.tool.startswith("perf")
    with pytest.raises(ReferenceUnavailable, match="one copy"):
        reference.memcpy(spec, tmp_path, 2)
