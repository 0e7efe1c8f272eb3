"""The host record, read from /proc and /sys (no subprocesses, no sleeps)."""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path

from osmark.kernels.build import CompilerMissing, Toolchain
from osmark.model import Host


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Hardware", "cpu model", "Processor") and value.strip():
            return value.strip()
    return platform.processor() or "unknown"


def memory_bytes() -> int:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return 0


def os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "Linux")
    except OSError:
        return platform.system()


def usable_cpus() -> int:
    return len(os.sched_getaffinity(0))


def host_record(toolchain: Toolchain | CompilerMissing) -> Host:
    compiled = isinstance(toolchain, Toolchain)
    return Host(
        hostname=socket.gethostname(),
        cpu_model=cpu_model(),
        cpus=os.cpu_count() or 1,
        cpus_usable=usable_cpus(),
        memory_bytes=memory_bytes(),
        kernel=platform.release(),
        os=os_name(),
        arch=platform.machine(),
        python=sys.version.split()[0],
        compiler=" ".join(toolchain.command) if compiled else None,
        compiler_version=toolchain.version if compiled else None,
        cflags=list(toolchain.cflags) if compiled else [],
    )
