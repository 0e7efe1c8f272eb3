"""CPU: compression, hashing, crypto, scheduler stress, a parallel build, FFT and matmul.

Compression, hashing, crypto and numpy are Python kernels (osmark.pykernels.cpu): the C
libraries do the work (zlib, liblzma, libbz2, libzstd, OpenSSL, BLAS), the interpreter
only loops. hackbench is a C kernel (kernels/hackbench.c); the build drives `make`.
"""

from __future__ import annotations

import math
import sys

from osmark.catalog import Benchmark

CPU = ("cpu", "full")
QUICK = ("cpu", "full", "quick")

CORPUS_KIB = 1024
MB_PER_CORPUS = CORPUS_KIB * 1024 / 1e6
CORPUS_NOTE = ("input: a deterministic 1-MiB text-like corpus (pseudo-words with Zipf "
               "frequencies, punctuation, numbers; zlib -6 shrinks it 3.4×); MB/s = 10^6 "
               "bytes of uncompressed data per second")
# zstd: the zstandard package, or the standard library's compression.zstd from 3.14 on
# (the kernel picks whichever is there and skips with the fix when neither is).
ZSTD_REQUIRES: tuple[str, ...] = () if sys.version_info >= (3, 14) else ("module:zstandard",)

CODECS = (  # name, title, level, what the call is
    ("zlib", "zlib", 6, "zlib.{op}() at level 6 (the zlib format)"),
    ("lzma", "xz/LZMA2", 6, "lzma.{op}() at preset 6 (the .xz format, CRC64)"),
    ("bz2", "bzip2", 9, "bz2.{op}() at level 9 (900-KB blocks)"),
    ("zstd", "Zstandard", 3, "zstd {op} at level 3 (zstandard / compression.zstd)"),
)

HACKBENCH_GROUPS = 2
HACKBENCH_LOOPS = 300
BUILD_FILES = 48
BUILD_FUNCS = 4
AES_BYTES = 8192
HASH_KIB = 1024
FFT_N = 65536
MATMUL_N = 1024


# Codecs whose command-line tool runs the same library on the same corpus
# (osmark.references.cpu): spec cpu.NAME-compress -> adapter NAME_compress, and so on.
CODEC_REFERENCES = ("lzma", "bz2", "zstd")


def _codec_specs(name: str, title: str, level: int, call: str) -> list[Benchmark]:
    requires = ZSTD_REQUIRES if name == "zstd" else ()
    has_reference = name in CODEC_REFERENCES
    compress = Benchmark(
        id=f"cpu.{name}-compress", title=f"{title} compress, level {level}", category="cpu",
        unit="MB/s", kernel="py:cpu.compress", mode=name,
        params=(str(level), str(CORPUS_KIB)), scale=MB_PER_CORPUS,
        suites=QUICK if name == "zlib" else CPU, requires=requires, note=CORPUS_NOTE,
        reference=f"cpu:{name}_compress" if has_reference else None,
        timed=f"one one-shot {call.format(op='compress')} of the 1-MiB corpus",
    )
    decompress = Benchmark(
        id=f"cpu.{name}-decompress", title=f"{title} decompress, level {level}", category="cpu",
        unit="MB/s", kernel="py:cpu.decompress", mode=name,
        params=("{workdir}", str(level), str(CORPUS_KIB)), scale=MB_PER_CORPUS,
        suites=CPU, requires=requires, note=CORPUS_NOTE,
        reference=f"cpu:{name}_decompress" if has_reference else None,
        writes_bytes=2 * CORPUS_KIB * 1024,  # the compressed corpus (and its temp copy)
        timed=f"one one-shot {call.format(op='decompress')} of the compressed 1-MiB "
              "corpus (compressed once in set-up)",
    )
    return [compress, decompress]


def _digest(name: str, title: str) -> Benchmark:
    return Benchmark(
        id=f"cpu.{name}", title=title, category="cpu", unit="MB/s", kernel="py:cpu.digest",
        mode=name, params=(str(HASH_KIB),), scale=HASH_KIB * 1024 / 1e6,
        suites=QUICK if name == "sha256" else CPU,
        reference="cpu:sha256" if name == "sha256" else None,  # blake2b: hashlib's own code
        timed=f"hashlib.{name}(buffer).digest() of a 1-MiB buffer of pseudo-random bytes",
    )


def _rsa(mode: str) -> Benchmark:
    return Benchmark(
        id=f"cpu.rsa4096-{mode}", title=f"RSA-4096 {mode}", category="cpu",
        unit=f"{mode}/s", kernel="py:cpu.rsa", mode=mode, params=("{workdir}", "4096"),
        suites=CPU, requires=("module:cryptography",), writes_bytes=16 * 1024,
        timed=("one private-key sign" if mode == "sign" else "one public-key verify")
        + " of a 64-byte message, RSASSA-PKCS1-v1_5 with SHA-256, via cryptography "
          "(OpenSSL); the key (e = 65537) is generated in set-up",
    )


BENCHMARKS: list[Benchmark] = [
    *(spec for codec in CODECS for spec in _codec_specs(*codec)),
    _digest("sha256", "SHA-256"),
    _digest("blake2b", "BLAKE2b"),
    _rsa("sign"),
    _rsa("verify"),
    Benchmark(
        id="cpu.aes256gcm", title="AES-256-GCM encrypt", category="cpu", unit="MB/s",
        kernel="py:cpu.aes_gcm", mode="encrypt", params=("256", str(AES_BYTES)),
        scale=AES_BYTES / 1e6, suites=CPU, requires=("module:cryptography",),
        note="MB/s of plaintext; each 8-KiB message is one Python call into cryptography "
             "(OpenSSL), so the call's overhead is part of the figure",
        timed="one AESGCM.encrypt() of an 8-KiB message (nonce from a ring of 4096, no "
              "associated data), tag included",
    ),
    Benchmark(
        id="cpu.hackbench", title="hackbench (sched messaging)", category="cpu", unit="s",
        kernel="hackbench", mode="process",
        params=(str(HACKBENCH_GROUPS), str(HACKBENCH_LOOPS)),
        kind="reported", better="lower", suites=QUICK, max_copies=1, placement="free",
        reference="cpu:hackbench",
        note=f"perf bench sched messaging -g {HACKBENCH_GROUPS} -l {HACKBENCH_LOOPS} "
             "(processes, socketpairs, 100-byte messages): seconds per whole exchange",
        timed=f"{HACKBENCH_GROUPS} groups of 20 sender and 20 receiver processes; each sender "
              f"writes {HACKBENCH_LOOPS} rounds of one 100-byte message to each receiver of "
              "its group over AF_UNIX stream socketpairs; from releasing all processes to "
              "the last one reaped (forks are set-up)",
    ),
    Benchmark(
        id="cpu.build", title="parallel C build (make -j)", category="cpu", unit="s",
        kernel="py:cpu.build", mode="make",
        params=("{workdir}", str(BUILD_FILES), str(BUILD_FUNCS), "0"),
        kind="reported", better="lower", suites=CPU, max_copies=1, placement="free",
        requires=("command:cc", "command:make"), writes_bytes=8 * 1024 * 1024,
        note=f"a generated project of {BUILD_FILES} C files of {BUILD_FUNCS} functions "
             "and a main, cc -O2, make -j (one job per usable CPU)",
        timed="one clean build: `make -j N` from fork to exit (every cc -O2 -c and the "
              "link); deleting the objects between builds and writing the project are "
              "outside",
    ),
    Benchmark(
        id="cpu.numpy-fft", title="numpy FFT (complex, 64 Ki points)", category="cpu",
        unit="MFLOP/s", kernel="py:cpu.fft", mode="complex128", params=(str(FFT_N),),
        scale=5 * FFT_N * math.log2(FFT_N) / 1e6, suites=CPU, requires=("module:numpy",),
        note="FLOPs counted as 5·N·log2(N) per complex FFT of N points",
        timed=f"one numpy.fft.fft() of {FFT_N} complex128 points (new output array)",
    ),
    Benchmark(
        id="cpu.numpy-matmul", title="numpy matmul (float64, 1024²)", category="cpu",
        unit="GFLOP/s", kernel="py:cpu.matmul", mode="float64", params=(str(MATMUL_N),),
        scale=2 * MATMUL_N**3 / 1e9, suites=CPU, requires=("module:numpy",),
        max_copies=1, placement="free",
        note="FLOPs counted as 2·n³; numpy's BLAS with all its threads (every usable CPU)",
        timed=f"one numpy.matmul(A, B, out=C) of {MATMUL_N}×{MATMUL_N} float64 matrices",
    ),
]
