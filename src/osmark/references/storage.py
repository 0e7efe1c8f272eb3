"""fio beside osmark's storage tests: the same file size, block size, queue depth, direct
flag and directory, so `--with-reference` shows what fio says about the same disk.

Spec -> adapter:  io.seq-read -> seq_read, io.seq-write -> seq_write,
io.rand-read-qd1/-qd32 -> rand_read, io.rand-write-qd1/-qd32 -> rand_write.

The mapping mirrors kernels/storage.c: queue depth 1 is fio's psync engine (one
pread/pwrite at a time); a deeper queue is fio's io_uring engine at that iodepth, or,
where io_uring is blocked, that many psync threads (--numjobs --thread), as osmark's own
fallback. Where the filesystem refuses or ignores O_DIRECT (tmpfs), fio runs buffered as
osmark does: reads with --invalidate=1 (the file's pages dropped first), writes with
--end_fsync=1. Write tests use --overwrite=1 so fio, like osmark, writes the whole file
before it times and then overwrites data already there (not unwritten extents).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import mmap
import os
from pathlib import Path

from osmark.catalog import Benchmark
from osmark.model import Reference
from osmark.references import ReferenceUnavailable, require, run_tool, tool_version

RUNTIME_S = 5  # fio's timed run per reference, after RAMP_S of warm-up
RAMP_S = 1
BLOCK = 4096
MEMORY_FILESYSTEMS = {"tmpfs", "ramfs"}
SYS_IO_URING_SETUP = 425  # the same number on every architecture Linux gives io_uring


def seq_read(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """io.seq-read: fio --rw=read --bs=1m --direct=1 (psync, iodepth 1), MB/s."""
    return _fio(spec, workdir, copies, rw="read", bs="1m", qd=1)


def seq_write(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """io.seq-write: fio --rw=write --bs=1m --direct=1 (psync, iodepth 1), MB/s."""
    return _fio(spec, workdir, copies, rw="write", bs="1m", qd=1)


def rand_read(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """io.rand-read-qdN: fio --rw=randread --bs=4k --direct=1 --iodepth=N, IOPS."""
    return _fio(spec, workdir, copies, rw="randread", bs="4k", qd=_queue_depth(spec))


def rand_write(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """io.rand-write-qdN: fio --rw=randwrite --bs=4k --direct=1 --iodepth=N, IOPS."""
    return _fio(spec, workdir, copies, rw="randwrite", bs="4k", qd=_queue_depth(spec))


def _queue_depth(spec: Benchmark) -> int:
    return int(spec.params[2])


def fio_command(fio: str, path: Path, size_mib: int, rw: str, bs: str, qd: int,
                direct: bool, io_uring: bool) -> list[str]:
    """The fio command line that measures what the osmark test with these parameters does."""
    write = "write" in rw
    command = [fio, "--name=osmark-reference", f"--filename={path}", f"--size={size_mib}m",
               f"--rw={rw}", f"--bs={bs}", f"--direct={int(direct)}", "--time_based",
               f"--runtime={RUNTIME_S}", f"--ramp_time={RAMP_S}", "--output-format=json"]
    if qd == 1:
        command += ["--ioengine=psync", "--iodepth=1"]
    elif io_uring:
        command += ["--ioengine=io_uring", f"--iodepth={qd}"]
    else:
        command += ["--ioengine=psync", "--iodepth=1", f"--numjobs={qd}", "--thread",
                    "--group_reporting"]
    if write:
        command.append("--overwrite=1")
        if not direct:
            command.append("--end_fsync=1")
    elif not direct:
        command.append("--invalidate=1")
    return command


def parse_fio(output: str, rw: str, unit: str) -> float:
    """fio's JSON -> IOPS, or MB/s (10^6 bytes/s), of the one (group-reported) job."""
    try:
        data = json.loads(output[output.index("{"):])
        side = data["jobs"][0]["write" if "write" in rw else "read"]
        value = float(side["iops"] if unit == "IOPS" else side["bw_bytes"] / 1e6)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ReferenceUnavailable(f"fio printed no usable JSON ({exc})") from None
    if not value > 0:
        raise ReferenceUnavailable("fio reported no I/O")
    return value


def _fio(spec: Benchmark, workdir: Path, copies: int, rw: str, bs: str, qd: int) -> Reference:
    if copies != 1:
        raise ReferenceUnavailable(f"{spec.id} runs one copy; fio is compared at 1 copy")
    fio = require("fio")
    size_mib = int(spec.params[1])
    path = workdir / f"osmark-fio-{os.getpid()}.dat"
    command = fio_command(fio, path, size_mib, rw, bs, qd, direct=direct_io_works(workdir),
                          io_uring=io_uring_works())
    try:
        output = run_tool(command)
    finally:
        path.unlink(missing_ok=True)
    version = tool_version([fio, "--version"]).replace("fio-", "fio ", 1) or "fio"
    return Reference(tool=version, command=command, value=parse_fio(output, rw, spec.unit),
                     unit=spec.unit)


def filesystem_type(directory: Path) -> str:
    """The type of the filesystem directory is on (/proc/self/mounts), or "" if unknown."""
    target = str(directory.resolve())
    best, kind = "", ""
    with contextlib.suppress(OSError), open("/proc/self/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            if len(fields) < 3:
                continue
            point = fields[1].replace("\\040", " ")
            inside = target == point or target.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, kind = point, fields[2]
    return kind


def direct_io_works(directory: Path) -> bool:
    """Does O_DIRECT bypass the page cache here? (The storage kernel decides the same way:
    EINVAL on open or on an aligned write means no; tmpfs and ramfs accept it but ignore it.)"""
    if filesystem_type(directory) in MEMORY_FILESYSTEMS:
        return False
    probe = directory / f".osmark-direct-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_TRUNC | os.O_DIRECT, 0o600)
    except OSError:
        probe.unlink(missing_ok=True)
        return False
    try:
        with mmap.mmap(-1, BLOCK) as buffer:  # page-aligned, as O_DIRECT wants
            os.pwrite(fd, buffer, 0)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)


def io_uring_works() -> bool:
    """Can this process set up an io_uring (not blocked by seccomp or sysctl)?"""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    fd = libc.syscall(SYS_IO_URING_SETUP, 1, params)
    if fd < 0:
        return False
    os.close(fd)
    return True
