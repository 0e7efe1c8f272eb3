"""Standard tools beside osmark's CPU tests (`osmark run --with-reference`).

Spec -> adapter, and how close the tool is to what osmark measures:

  cpu.hackbench          -> hackbench: `perf bench sched messaging -g G -l L`, the
                            program kernels/hackbench.c re-implements (process mode,
                            socketpairs, 100-byte messages); seconds per exchange.
  cpu.lzma-compress      -> lzma_compress, cpu.lzma-decompress -> lzma_decompress:
                            `xz -6 -T1` (single-threaded), the same liblzma call and .xz
                            format as Python's lzma module, on the same corpus.
  cpu.bz2-compress       -> bz2_compress, cpu.bz2-decompress -> bz2_decompress:
                            `bzip2 -9`, libbz2 as Python's bz2 module, on the same corpus.
  cpu.zstd-compress      -> zstd_compress, cpu.zstd-decompress -> zstd_decompress:
                            `zstd -b3 --single-thread` (the CLI's in-memory benchmark of
                            one-shot compression and decompression of the same corpus).
                            The CLI's libzstd may be another version than the one
                            zstandard bundles.
  cpu.sha256             -> sha256: `openssl speed -evp sha256 -bytes <size>`; hashlib's
                            sha256 is OpenSSL's libcrypto, and the adapter refuses unless
                            the openssl command reports the same OpenSSL version as Python.

The single-threaded tools run pinned (taskset) to the CPU the engine pins osmark's single
copy to, with wall-clock timing (`openssl speed -elapsed`). A CLI codec's run includes
its start-up and reading the page-cached corpus; each run (de)compresses the corpus many
times (xz/bzip2 -c with the file named N times, or N concatenated streams for -d) so that
both are small beside the work.

No adapter, because no installed tool does the same thing: cpu.zlib-* (gzip has its own
deflate code, not zlib; pigz would do, but is rarely installed), cpu.blake2b (Python's
hashlib.blake2b is its own implementation, not OpenSSL's BLAKE2b512), cpu.aes256gcm and
cpu.rsa4096-* (the cryptography wheel carries its own, newer OpenSSL: on an AMD EPYC with
AVX-512 its RSA-4096 signs 3.7× and its AES-256-GCM runs 1.4× as fast as the system's
OpenSSL 3.0 in `openssl speed`, so that tool measures another implementation), cpu.build
(a generated project only osmark builds), cpu.numpy-fft and cpu.numpy-matmul (no standard
tool times numpy's FFT or BLAS). `sysbench cpu` counts primes: a different thing.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from osmark.catalog import Benchmark
from osmark.model import Reference
from osmark.references import ReferenceUnavailable, require, run_tool, tool_version
from osmark.sysinfo import usable_cpu_ids

HACKBENCH_RUNS = 5  # perf runs; the figure is their median
CODEC_RUNS = 3  # CLI codec runs; the figure is their median
CODEC_TARGET_S = 1.0  # one CLI codec run lasts about this long
MAX_STREAM_BYTES = 64 << 20  # the concatenated streams a decompression run reads
OPENSSL_SECONDS = 3  # `openssl speed -seconds`
ZSTD_SECONDS = 3  # `zstd -b -i`: the least time it measures each direction
RUN_TIMEOUT_S = 300.0


def _one_copy(copies: int) -> None:
    if copies != 1:
        raise ReferenceUnavailable("the reference runs one copy only")


def _pinned(command: list[str]) -> list[str]:
    """The command pinned to the CPU that the engine pins osmark's single copy to."""
    taskset = require("taskset", "util-linux")
    return [taskset, "-c", str(usable_cpu_ids()[0]), *command]


# -- hackbench: perf bench sched messaging ---------------------------------------------

def perf_messaging_command(perf: str, groups: int, loops: int) -> list[str]:
    """The perf command that does what cpu.hackbench does (processes, socketpairs)."""
    return [perf, "bench", "--format", "simple", "sched", "messaging", "-g", str(groups),
            "-l", str(loops)]


def parse_perf_seconds(output: str) -> float:
    """`perf bench --format simple sched messaging` prints the total time in seconds."""
    for line in reversed(output.strip().splitlines()):
        try:
            value = float(line.strip())
        except ValueError:
            continue
        if value > 0:
            return value
    raise ReferenceUnavailable("perf bench sched messaging printed no total time")


def hackbench(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.hackbench: median seconds of perf bench sched messaging with the same -g, -l."""
    del workdir
    _one_copy(copies)
    perf = require("perf", "linux-perf")
    groups, loops = int(spec.params[0]), int(spec.params[1])
    command = perf_messaging_command(perf, groups, loops)
    seconds = [parse_perf_seconds(run_tool(command)) for _ in range(HACKBENCH_RUNS)]
    version = tool_version([perf, "version"]).replace("perf version ", "perf ") or "perf"
    return Reference(tool=f"{version} bench sched messaging", command=command,
                     value=statistics.median(seconds), unit=spec.unit)


# -- xz and bzip2 on the corpus --------------------------------------------------------

CLI_CODECS = {  # codec -> (command, its compress flags before the level, package)
    "lzma": ("xz", ["-T1", "-q"], "xz-utils"),
    "bz2": ("bzip2", ["-q"], "bzip2"),
}


def _corpus_file(directory: Path, size_kib: int) -> Path:
    from osmark.pykernels.cpu import corpus

    path = directory / f"corpus-{size_kib}k.txt"
    path.write_bytes(corpus(size_kib * 1024))
    return path


def _wall(command: list[str]) -> float:
    """Seconds of one run of command, its output discarded."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=RUN_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReferenceUnavailable(f"{command[0]} failed: {exc}") from None
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["no message"]
        raise ReferenceUnavailable(f"{command[0]} exited with status {proc.returncode}: "
                                   f"{lines[-1]}")
    return seconds


def _cli_codec(spec: Benchmark, workdir: Path, copies: int, compress: bool) -> Reference:
    _one_copy(copies)
    tool, flags, package = CLI_CODECS[spec.mode]
    binary = require(tool, package)
    level, size_kib = spec.params[-2], int(spec.params[-1])
    with tempfile.TemporaryDirectory(prefix="osmark-ref-", dir=workdir) as tmp:
        source = _corpus_file(Path(tmp), size_kib)
        if compress:  # xz/bzip2 -c compresses each named file into a stream of its own
            def command(times: int) -> list[str]:
                return _pinned([binary, *flags, f"-{level}", "-c", *[str(source)] * times])
            most = 1000
        else:  # and -d -c decompresses concatenated streams one after the other
            stream = run_tool_bytes([binary, *flags, f"-{level}", "-c", str(source)])

            def command(times: int) -> list[str]:
                path = Path(tmp, f"streams-{times}")
                if not path.exists():
                    path.write_bytes(stream * times)
                return _pinned([binary, "-q", "-d", "-c", str(path)])
            most = max(1, MAX_STREAM_BYTES // len(stream))
        probe = _wall(command(1))
        times = max(1, min(most, round(CODEC_TARGET_S / probe)))
        seconds = statistics.median(_wall(command(times)) for _ in range(CODEC_RUNS))
        shown = command(times)
    number = re.search(r"\d+\.\d+(\.\d+)?", tool_version([binary, "--version"]))
    return Reference(tool=f"{tool} {number.group(0)}" if number else tool, command=shown,
                     value=times * size_kib * 1024 / seconds / 1e6, unit=spec.unit)


def run_tool_bytes(command: list[str]) -> bytes:
    """A tool's binary stdout (the compressed corpus), or ReferenceUnavailable."""
    try:
        proc = subprocess.run(command, capture_output=True, timeout=RUN_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReferenceUnavailable(f"{command[0]} failed: {exc}") from None
    if proc.returncode != 0 or not proc.stdout:
        lines = proc.stderr.decode(errors="replace").strip().splitlines() or ["no output"]
        raise ReferenceUnavailable(f"{command[0]} exited with status {proc.returncode}: "
                                   f"{lines[-1]}")
    return proc.stdout


def lzma_compress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.lzma-compress: `xz -T1 -6 -c corpus…` (each file its own stream), MB/s."""
    return _cli_codec(spec, workdir, copies, compress=True)


def lzma_decompress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.lzma-decompress: `xz -dc` of N concatenated .xz streams of the corpus, MB/s."""
    return _cli_codec(spec, workdir, copies, compress=False)


def bz2_compress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.bz2-compress: `bzip2 -9 -c corpus…` (each file its own stream), MB/s."""
    return _cli_codec(spec, workdir, copies, compress=True)


def bz2_decompress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.bz2-decompress: `bzip2 -dc` of N concatenated streams of the corpus, MB/s."""
    return _cli_codec(spec, workdir, copies, compress=False)


# -- zstd: the CLI's own benchmark -----------------------------------------------------

ZSTD_BENCH = re.compile(r"\(\s*[\d.]+\)\s+([\d.]+) MB/s\s+([\d.]+) MB/s")


def parse_zstd_bench(output: str) -> tuple[float, float]:
    """(compress, decompress) MB/s (10^6 bytes) from `zstd -q -b` output."""
    for line in reversed(output.replace("\r", "\n").splitlines()):
        match = ZSTD_BENCH.search(line)
        if match:
            return float(match.group(1)), float(match.group(2))
    raise ReferenceUnavailable("zstd -b printed no speeds")


def _zstd(spec: Benchmark, workdir: Path, copies: int, direction: int) -> Reference:
    _one_copy(copies)
    zstd = require("zstd")
    level, size_kib = spec.params[-2], int(spec.params[-1])
    with tempfile.TemporaryDirectory(prefix="osmark-ref-", dir=workdir) as tmp:
        source = _corpus_file(Path(tmp), size_kib)
        command = _pinned([zstd, "-q", "--single-thread", f"-b{level}", f"-i{ZSTD_SECONDS}",
                           str(source)])
        speeds = parse_zstd_bench(run_tool(command))
    version = tool_version([zstd, "--version"]).strip("* ").split(", by")[0] or "zstd"
    return Reference(tool=f"{version} -b", command=command, value=speeds[direction],
                     unit=spec.unit)


def zstd_compress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.zstd-compress: the compression speed of `zstd -b3 --single-thread`, MB/s."""
    return _zstd(spec, workdir, copies, 0)


def zstd_decompress(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.zstd-decompress: the decompression speed of `zstd -b3 --single-thread`, MB/s."""
    return _zstd(spec, workdir, copies, 1)


# -- openssl speed ---------------------------------------------------------------------

def openssl_speed_command(openssl: str, *what: str) -> list[str]:
    return _pinned([openssl, "speed", "-elapsed", "-mr", "-seconds", str(OPENSSL_SECONDS),
                    *what])


def parse_openssl_rate(output: str) -> float:
    """Bytes per second from `openssl speed -mr -bytes N` (its one "+F:" line)."""
    for line in output.splitlines():
        if line.startswith("+F:"):
            return float(line.rsplit(":", 1)[1])
    raise ReferenceUnavailable("openssl speed printed no result line")


def _openssl_version(openssl: str) -> str:
    """ "OpenSSL 3.0.19" from `openssl version`."""
    return " ".join(tool_version([openssl, "version"]).split()[:2]) or "openssl"


def python_openssl() -> str:
    """ "OpenSSL 3.0.19": the libcrypto this Python's ssl and hashlib modules use."""
    import ssl

    return " ".join(ssl.OPENSSL_VERSION.split()[:2])


def sha256(spec: Benchmark, workdir: Path, copies: int) -> Reference:
    """cpu.sha256: `openssl speed -evp sha256 -bytes SIZE` (same libcrypto as hashlib)."""
    del workdir
    _one_copy(copies)
    openssl = require("openssl")
    ours, theirs = python_openssl(), _openssl_version(openssl)
    if ours != theirs:
        raise ReferenceUnavailable(f"Python's hashlib uses {ours} but the openssl command is "
                                   f"{theirs}: not the same library")
    size = int(spec.params[0]) * 1024
    command = openssl_speed_command(openssl, "-bytes", str(size), "-evp", "sha256")
    rate = parse_openssl_rate(run_tool(command, timeout=RUN_TIMEOUT_S))
    return Reference(tool=f"{_openssl_version(openssl)} speed", command=command,
                     value=rate / 1e6, unit=spec.unit)
