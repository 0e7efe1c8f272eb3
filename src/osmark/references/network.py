"""iperf3 beside osmark's loopback TCP stream test (`osmark run --with-reference`).

net.tcp-stream -> tcp_stream: one iperf3 stream on 127.0.0.1 with the spec's buffer
length, the client pinned to the same CPU as osmark's client and the server to the same
CPU as osmark's server (the spec's pin="cross"), the first second omitted (-O 1, as
osmark's warm-up), its receiver-side figure (bytes the server read / the server's time,
iperf3's "sum_received") converted to the spec's unit.
iperf3 is started and stopped here, on a free port, with -1 so it serves one test only.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
from pathlib import Path

from osmark.catalog import Benchmark
from osmark.model import Reference
from osmark.references import ReferenceUnavailable, require
from osmark.sysinfo import usable_cpu_ids

DURATION_S = 5  # iperf3's -t: long enough to settle, short beside a 10-s osmark budget
OMIT_S = 1  # iperf3's -O: not counted, as osmark's untimed warm-up on the connection
CONNECT_TRIES = 50  # the client retries while the server is not listening yet
RETRY_S = 0.1
BITS_PER_UNIT = {"Gbit/s": 1e9, "Mbit/s": 1e6, "MB/s": 8e6, "GB/s": 8e9}


def free_port() -> int:
    """An ephemeral port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stream_cpus() -> tuple[int, int]:
    """The client's and the server's CPU, as the engine picks them for pin="cross"."""
    usable = usable_cpu_ids()
    if len(usable) < 2:
        raise ReferenceUnavailable("only one CPU is usable: the test (client and server "
                                   "on two CPUs) cannot run here")
    return usable[0], usable[1]


def iperf3_stream(length: int, seconds: int, cpus: tuple[int, int] | None,
                  streams: int = 1, extra: list[str] | None = None, omit: int = OMIT_S,
                  ) -> tuple[float, list[str], str]:
    """Run one iperf3 test on loopback: (receiver bits/s, client command, version).

    cpus=None leaves placement to the scheduler (iperf3's default); extra is added to the
    client's options (["-u", "-b", "0"] for UDP, used by validation/network.py)."""
    iperf3 = require("iperf3")
    port = str(free_port())
    server_cmd = [iperf3, "-s", "-1", "-B", "127.0.0.1", "-p", port]
    client_cmd = [iperf3, "-c", "127.0.0.1", "-p", port, "-t", str(seconds), "-O",
                  str(omit), "-l", str(length), "-P", str(streams), "-J", *(extra or [])]
    if cpus is not None:
        server_cmd += ["-A", str(cpus[1])]
        client_cmd += ["-A", str(cpus[0])]
    server = subprocess.Popen(server_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        data = _run_client(client_cmd, server, seconds)
    finally:
        try:
            server.wait(timeout=5)  # -1: it ends by itself after the test
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stderr:
            server.stderr.close()
    try:
        bits = float(data["end"]["sum_received"]["bits_per_second"])
    except (KeyError, TypeError, ValueError):
        raise ReferenceUnavailable("iperf3 -J printed no end.sum_received.bits_per_second") \
            from None
    version = str(data.get("start", {}).get("version", "iperf3")).replace("iperf ", "iperf3 ")
    return bits, client_cmd, version


def _run_client(command: list[str], server: subprocess.Popen, seconds: int) -> dict:
    """The client's -J output, retrying while the server is not listening yet.

    iperf3 -J reports its errors in the JSON ("error"), with exit status 0 or 1."""
    for _ in range(CONNECT_TRIES):
        try:
            proc = subprocess.run(command, capture_output=True, text=True,
                                  timeout=seconds + OMIT_S + 60, check=False)
        except subprocess.TimeoutExpired:
            raise ReferenceUnavailable("iperf3 did not finish in time") from None
        except OSError as exc:
            raise ReferenceUnavailable(f"iperf3 could not start: {exc.strerror}") from None
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            raise ReferenceUnavailable(f"iperf3 printed no JSON (status {proc.returncode}): "
                                       f"{lines[-1] if lines else 'no message'}") from None
        error = str(data.get("error") or "")
        if "refused" in error.lower() and server.poll() is None:
            time.sleep(RETRY_S)
            continue
        if error or proc.returncode != 0:
            raise ReferenceUnavailable(f"iperf3: {error or f'exit status {proc.returncode}'}")
        return data
    with contextlib.suppress(OSError):
        server.kill()
    raise ReferenceUnavailable("the iperf3 server did not start listening on 127.0.0.1")


def tcp_stream(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """iperf3 for net.tcp-stream: same buffer length, same CPUs, one stream per copy."""
    del workdir  # loopback only: nothing is written
    factor = BITS_PER_UNIT.get(spec.unit)
    if factor is None:
        raise ReferenceUnavailable(f"no conversion from bit/s to {spec.unit}")
    length = int(spec.params[0])
    bits, command, version = iperf3_stream(length, DURATION_S, stream_cpus(),
                                           max(1, copies))
    return Reference(tool=version, command=command, value=bits / factor, unit=spec.unit)
