"""Compile the native kernels with the system compiler, on first use, into a cache.

A kernel binary is cached under <cache>/kernels/<key>/<name>, where the key hashes the
kernel's sources, the compiler's path and version, and the flags, so a new compiler or
new flags build anew. Binaries are written under a temporary name and renamed into
place, so two runs building at once never see a half-written file.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from osmark.paths import cache_dir

# Kernel name -> its translation units (common.h and dhry.h are included by them).
KERNELS: dict[str, tuple[str, ...]] = {
    "dhry": ("dhry.c", "dhry_procs.c"),
    "whetstone": ("whetstone.c",),
    "arith": ("arith.c",),
    "hanoi": ("hanoi.c",),
    "execl": ("execl.c",),
    "fstime": ("fstime.c",),
    "pipe": ("pipe.c",),
    "context1": ("context1.c",),
    "spawn": ("spawn.c",),
    "syscall": ("syscall.c",),
    "looper": ("looper.c",),
    "oscost": ("oscost.c",),
    "tiny": ("tiny.c",),
    "stream": ("stream.c",),
    "memlat": ("memlat.c",),
    "memcpy": ("memcpy.c",),
    "storage": ("storage.c",),
    "hackbench": ("hackbench.c",),
    "net": ("net.c",),
    "uring": ("uring.c",),
}
HEADERS = ("common.h", "dhry.h")

# UnixBench's flags (unixbench.md §3.2), so CPU scores are comparable with its index.
PREFERRED_CFLAGS = ("-O3", "-ffast-math", "-march=native", "-std=gnu11")
# For compilers that reject -march=native (old aarch64 gcc, some cross compilers).
FALLBACK_CFLAGS = ("-O3", "-ffast-math", "-std=gnu11")
LIBS = ("-lm", "-lpthread")
NO_COMPILER_FIX = "install gcc (apt-get install gcc) or set CC to a working C compiler"


class CompilerMissing(Exception):
    """No usable C compiler; str() says why and how to fix it."""


class BuildFailed(Exception):
    """A kernel failed to compile; str() carries the compiler's first error line."""


@dataclass(frozen=True)
class Toolchain:
    command: tuple[str, ...]
    version: str
    cflags: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.command[0]


def kernel_source_dir() -> Path:
    return Path(str(resources.files("osmark.kernels")))


def shell_script_dir() -> Path:
    return kernel_source_dir() / "shell"


def _compiles(command: tuple[str, ...], flags: tuple[str, ...]) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="osmark-cc-") as tmp:
        src = Path(tmp, "probe.c")
        src.write_text("#include <math.h>\nint main(void) { return (int)sqrt(0.0); }\n")
        proc = subprocess.run(
            [*command, *flags, "-o", str(Path(tmp, "probe")), str(src), *LIBS],
            capture_output=True,
            text=True,
        )
        return proc.returncode == 0, proc.stderr.strip()


@functools.cache
def find_toolchain() -> Toolchain:
    """The compiler from $CC (else cc), its version and the flags it accepts."""
    command = tuple(shlex.split(os.environ.get("CC") or "cc"))
    if not command or shutil.which(command[0]) is None:
        name = command[0] if command else "(empty CC)"
        raise CompilerMissing(f"no C compiler found ({name} is not on PATH): {NO_COMPILER_FIX}")
    try:
        proc = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, timeout=30
        )
    except OSError as exc:
        raise CompilerMissing(f"no C compiler found ({command[0]}: {exc.strerror}): "
                              f"{NO_COMPILER_FIX}") from None
    first_line = (proc.stdout or proc.stderr).strip().splitlines()
    if proc.returncode != 0 or not first_line:
        raise CompilerMissing(
            f"no C compiler found ('{shlex.join(command)} --version' failed): {NO_COMPILER_FIX}"
        )
    for flags in (PREFERRED_CFLAGS, FALLBACK_CFLAGS):
        ok, errors = _compiles(command, flags)
        if ok:
            return Toolchain(command, first_line[0], flags)
    detail = errors.splitlines()[0] if errors else "no output"
    raise CompilerMissing(
        f"C compiler '{shlex.join(command)}' cannot build a test program ({detail}): "
        f"{NO_COMPILER_FIX}"
    )


def _cache_key(name: str, toolchain: Toolchain) -> str:
    digest = hashlib.sha256()
    src_dir = kernel_source_dir()
    for filename in (*KERNELS[name], *HEADERS):
        path = src_dir / filename
        if path.exists():
            digest.update(filename.encode() + b"\0" + path.read_bytes() + b"\0")
    resolved = shutil.which(toolchain.command[0]) or toolchain.command[0]
    for part in (resolved, *toolchain.command[1:], toolchain.version, *toolchain.cflags, *LIBS):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:20]


def kernel_binary(name: str, toolchain: Toolchain | None = None) -> Path:
    """Path of the compiled kernel, building it first if the cache lacks it."""
    if name not in KERNELS:
        raise KeyError(f"unknown kernel {name!r}")
    toolchain = toolchain or find_toolchain()
    target_dir = cache_dir() / "kernels" / _cache_key(name, toolchain)
    target = target_dir / name
    if target.is_file() and os.access(target, os.X_OK):
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    src_dir = kernel_source_dir()
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=target_dir)
    os.close(fd)
    try:
        sources = [str(src_dir / f) for f in KERNELS[name]]
        proc = subprocess.run(
            [*toolchain.command, *toolchain.cflags, "-I", str(src_dir), "-o", tmp, *sources,
             *LIBS],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            errors = [line for line in proc.stderr.splitlines() if "error" in line]
            detail = (errors or proc.stderr.splitlines() or ["no output"])[0]
            raise BuildFailed(f"kernel {name} failed to compile: {detail}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target
