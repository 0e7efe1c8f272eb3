"""The loopback network kernel (`net`): every mode runs for real with tiny sizes; structure
and sanity only, never a timing. Also: bad parameters, no server left behind, the specs,
and the iperf3 reference adapter."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from osmark import engine
from osmark.catalog import BY_ID, Benchmark, suite_members
from osmark.catalog import network as catalog
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.references import ReferenceUnavailable
from osmark.references import network as reference

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)
TWO_CPUS = len(os.sched_getaffinity(0)) >= 2
CPUS = [str(c) for c in sorted(os.sched_getaffinity(0))[:2]] if TWO_CPUS else []


@pytest.fixture(scope="module")
def net() -> Path:
    return kernel_binary("net")


def _run(net: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(net), *args], capture_output=True, text=True, timeout=60)


def _result(net: Path, *args: str) -> dict:
    proc = _run(net, *args)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["ops"] >= 1 and data["seconds"] > 0 and math.isfinite(data["seconds"])
    return data


def _servers_of(net: Path) -> list[int]:
    """Processes still running the kernel binary (a server left behind would be one)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "exe") == str(net):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def _no_server_left(net: Path) -> None:
    deadline = time.monotonic() + 5
    while _servers_of(net) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _servers_of(net) == []


@pytest.mark.parametrize("pins", [[], CPUS], ids=["scheduler", "pinned"])
@pytest.mark.parametrize("warmup", ["0", "30"])
def test_tcp_stream_counts_every_byte(net, pins, warmup):
    data = _result(net, "tcp-stream", "20", "65536", warmup, *pins)
    assert data["ops"] == 20
    assert data["check"] == 20 * 65536  # the server's own count of bytes read
    assert data["bytes"] == 65536
    _no_server_left(net)


@pytest.mark.parametrize("pins", [[], CPUS], ids=["scheduler", "pinned"])
def test_tcp_rr_reports_percentiles(net, pins):
    data = _result(net, "tcp-rr", "2", "100", "64", "99", *pins)
    assert data["ops"] == 2
    assert data["round_trips"] == 200 and data["check"] == 200
    assert data["value"] == data["p99_us"]
    assert 0 < data["p50_us"] <= data["p99_us"] <= data["max_us"]
    assert 0 < data["mean_us"] <= data["max_us"]
    assert data["percentile"] == 99
    _no_server_left(net)


def test_tcp_rr_percentile_is_the_one_asked_for(net):
    data = _result(net, "tcp-rr", "1", "50", "1", "50", *CPUS)
    assert data["value"] == data["p50_us"]


@pytest.mark.parametrize("pins", [[], CPUS], ids=["scheduler", "pinned"])
def test_tcp_connect_is_accepted_once_per_op(net, pins):
    data = _result(net, "tcp-connect", "300", *pins)
    assert data["ops"] == 300 and data["check"] == 300  # the server's count of accepts
    _no_server_left(net)


@pytest.mark.parametrize("pins", [[], CPUS], ids=["scheduler", "pinned"])
def test_udp_pps_counts_received_and_lost(net, pins):
    data = _result(net, "udp-pps", "2000", "64", *pins)
    assert data["sent"] == 2000
    assert data["ops"] == data["check"] and 1 <= data["ops"] <= 2000
    assert data["ops"] + data["lost"] == 2000
    _no_server_left(net)


@pytest.mark.parametrize("args", [
    [],
    ["tcp-stream"],
    ["tcp-stream", "0", "131072", "0"],
    ["tcp-stream", "10"],
    ["tcp-stream", "10", "131072"],
    ["tcp-stream", "10", "0", "0"],
    ["tcp-stream", "10", "x", "0"],
    ["tcp-stream", "10", "131072", "-1"],
    ["tcp-stream", "10", "131072", "0", "0"],  # one CPU number without the other
    ["tcp-stream", "10", "131072", "0", "0", "-1"],
    ["tcp-rr", "10", "100", "1"],
    ["tcp-rr", "10", "0", "1", "50"],
    ["tcp-rr", "10", "100", "0", "50"],
    ["tcp-rr", "10", "100", "1", "0"],
    ["tcp-rr", "10", "100", "1", "101"],
    ["tcp-rr", "10", "100", "1", "p50"],
    ["tcp-connect", "10", "0"],
    ["udp-pps", "10"],
    ["udp-pps", "10", "65508"],
    ["udp", "10", "64"],
], ids=lambda a: " ".join(a) or "none")
def test_bad_parameters_exit_2(net, args):
    proc = _run(net, *args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr


def test_server_dies_with_a_killed_client(net):
    """The engine kills a kernel's process group; a server must not outlive its client
    even when only the client is killed (PR_SET_PDEATHSIG)."""
    proc = subprocess.Popen([str(net), "tcp-rr", "1", "100", "1", "50"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "OSMARK_SYNC": "1"})
    try:
        assert proc.stdout.readline() == b"ready\n"
        assert len(_servers_of(net)) == 2  # client and its server
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    _no_server_left(net)


# ---------------------------------------------------------------------------- specs

TINY_PARAMS = {
    "net.tcp-stream": ("65536", "0"),
    "net.tcp-rr-p50": ("100", "1", "50"),
    "net.tcp-rr-p99": ("100", "1", "99"),
    "net.tcp-connect": (),
    "net.udp-pps": ("64",),
}


def test_specs():
    specs = suite_members("network")
    assert [s.id for s in specs] == list(TINY_PARAMS)
    assert [s.id for s in suite_members("quick") if s.category == "network"] == [
        "net.tcp-stream", "net.tcp-rr-p50"]
    assert {s.id for s in suite_members("full")} >= set(TINY_PARAMS)
    for spec in specs:
        assert spec.category == "network" and spec.kernel == "net"
        assert spec.tolerance == 0.03 and spec.max_copies == 1
        assert spec.pin == "cross" and spec.params[-2:] == ("{cpu_a}", "{cpu_b}")
        assert spec.timed and spec.title
        assert spec.writes_bytes == 0 and not spec.needs_workdir
    assert BY_ID["net.tcp-stream"].unit == "Gbit/s"
    assert BY_ID["net.tcp-stream"].scale == pytest.approx(catalog.STREAM_LEN * 8 / 1e9)
    assert BY_ID["net.tcp-stream"].params[:2] == ("131072", "250")  # iperf3's length
    for pct in ("p50", "p99"):
        spec = BY_ID[f"net.tcp-rr-{pct}"]
        assert spec.unit == "µs" and spec.kind == "reported" and not spec.higher_is_better
        assert int(spec.params[0]) >= 1000  # enough round trips per op for a p99
    assert BY_ID["net.tcp-connect"].unit == "conn/s"
    assert BY_ID["net.udp-pps"].unit == "packets/s"


def _tiny(spec: Benchmark) -> Benchmark:
    return dataclasses.replace(spec, params=(*TINY_PARAMS[spec.id], "{cpu_a}", "{cpu_b}"))


@pytest.mark.parametrize("test_id", list(TINY_PARAMS))
def test_runs_through_the_engine(test_id, workdir, net):
    result = engine.run_benchmark(_tiny(BY_ID[test_id]), 1, find_toolchain(), workdir, TINY)
    if not TWO_CPUS:
        assert result.status == "skipped" and "only one CPU" in result.reason
        return
    assert result.status == "ok", result.reason
    assert result.n >= 1 and all(math.isfinite(v) and v > 0 for v in result.samples)
    assert result.unit == BY_ID[test_id].unit
    assert list(workdir.iterdir()) == []
    _no_server_left(net)


# ------------------------------------------------------------------------ reference


def test_reference_without_iperf3_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ReferenceUnavailable, match="apt-get install iperf3"):
        reference.tcp_stream(BY_ID["net.tcp-stream"], tmp_path, 1)


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed")
@pytest.mark.skipif(not TWO_CPUS, reason="needs two CPUs")
def test_reference_runs_iperf3(monkeypatch, tmp_path):
    monkeypatch.setattr(reference, "DURATION_S", 1)
    ref = reference.tcp_stream(BY_ID["net.tcp-stream"], tmp_path, 1)
    assert ref.tool.startswith("iperf3 ") and ref.unit == "Gbit/s" and ref.reason is None
    assert ref.value is not None and math.isfinite(ref.value) and ref.value > 0
    assert "-l" in ref.command and ref.command[ref.command.index("-l") + 1] == "131072"
    assert ref.command[ref.command.index("-A") + 1] == CPUS[0]
