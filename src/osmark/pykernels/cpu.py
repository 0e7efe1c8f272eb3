"""CPU kernels whose work is native library code: the interpreter only loops and calls.

Each function is a Python kernel (see osmark.pykernels): (mode, iterations, params) -> Report.
Set-up happens before `ready()`; the timed region is the loop only, exactly as each
docstring says. Inputs are deterministic, so every run of a test sees the same bytes.

  compress    MODE=zlib|lzma|bz2|zstd  LEVEL SIZE_KIB
              one op = one one-shot compression of the SIZE_KIB-KiB corpus (below)
  decompress  MODE=zlib|lzma|bz2|zstd  WORKDIR LEVEL SIZE_KIB
              one op = one one-shot decompression of the compressed corpus
  digest      MODE=sha256|blake2b  SIZE_KIB        one op = hash SIZE_KIB KiB, digest()
  aes_gcm     MODE=encrypt  KEY_BITS MSG_BYTES     one op = AES-GCM encrypt one message
  rsa         MODE=sign|verify  WORKDIR BITS       one op = one PKCS#1 v1.5 SHA-256 sign/verify
  fft         MODE=complex128  N                   one op = numpy.fft.fft of N points
  matmul      MODE=float64  N                      one op = an N×N by N×N product (BLAS)
  build       MODE=make  WORKDIR FILES FUNCS JOBS  one op = a clean `make -j JOBS`

The corpus: text-like ASCII from a fixed seed -- words of 1 to 4 syllables drawn from a
4000-word vocabulary with Zipf (1/rank) frequencies, separated by spaces, commas, full
stops and line breaks, with a number now and then. 1 MiB of it shrinks 3.4× with zlib -6
and zstd -3, 4.2× with xz -6, 5.0× with bzip2 -9: moderately compressible, like prose.
"""

from __future__ import annotations

import bz2
import hashlib
import itertools
import lzma
import math
import os
import random
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

from osmark.pykernels import Report, Unsupported, Usage, now, ready, timed

CORPUS_SEED = 0x05CA_C0DE
VOCABULARY = 4000
SYLLABLES = ("ka", "to", "ri", "men", "sa", "lo", "ne", "vir", "da", "pu", "ex", "ion",
             "tra", "ber", "qu", "ul", "am", "is", "or", "en", "st", "ch", "the", "of")
# Separators after a word and their relative frequencies ("#" stands for a number).
SEPARATORS = ((" ", 880), (", ", 50), (". ", 40), (".\n", 15), (" # ", 15))
WORDS_PER_DRAW = 8192

LEVELS = {"zlib": range(0, 10), "lzma": range(0, 10), "bz2": range(1, 10),
          "zstd": range(-7, 23)}
ZSTD_FIX = ("the Python module zstandard is not installed (and this Python has no "
            "compression.zstd): pip install zstandard")

Codec = tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]


# -- parameters ------------------------------------------------------------------------

def _params(params: list[str], names: tuple[str, ...]) -> list[str]:
    if len(params) != len(names):
        raise Usage(f"expected {len(names)} parameter(s) {' '.join(names)}, got {params}")
    return params


def _int(text: str, name: str, lo: int, hi: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise Usage(f"{name} must be an integer, not {text!r}") from None
    if not lo <= value <= hi:
        raise Usage(f"{name} must be in {lo}..{hi}, not {value}")
    return value


def _workdir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise Usage(f"WORKDIR {text!r} is not a directory")
    return path


def _write_atomically(path: Path, data: bytes) -> None:
    """Copies started together may race to create the same cache file: none sees half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


# -- the corpus ------------------------------------------------------------------------

def corpus(size: int) -> bytes:
    """`size` bytes of deterministic text-like data (the same on every run and machine)."""
    rng = random.Random(CORPUS_SEED)
    vocabulary: list[str] = []
    seen: set[str] = set()
    while len(vocabulary) < VOCABULARY:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4)))
        if word not in seen:
            seen.add(word)
            vocabulary.append(word)
    word_weights = list(itertools.accumulate(1.0 / rank for rank in range(1, VOCABULARY + 1)))
    seps = [s for s, _ in SEPARATORS]
    sep_weights = list(itertools.accumulate(w for _, w in SEPARATORS))
    out = bytearray()
    while len(out) < size:
        words = rng.choices(vocabulary, cum_weights=word_weights, k=WORDS_PER_DRAW)
        after = rng.choices(seps, cum_weights=sep_weights, k=WORDS_PER_DRAW)
        text = "".join(w + s for w, s in zip(words, after, strict=True))
        if "#" in text:
            parts = text.split("#")
            numbers = [str(rng.randrange(100_000)) for _ in range(len(parts) - 1)]
            text = "".join(itertools.chain.from_iterable(
                itertools.zip_longest(parts, numbers, fillvalue="")))
        out += text.encode("ascii")
    return bytes(out[:size])


# -- compression -----------------------------------------------------------------------

def _zstd(level: int) -> Codec:
    if sys.version_info >= (3, 14):
        try:
            from compression import zstd as std_zstd  # type: ignore[import-not-found]
        except ImportError:
            pass
        else:
            def compress_std(data: bytes) -> bytes:
                return std_zstd.compress(data, level=level)
            return compress_std, std_zstd.decompress
    try:
        import zstandard
    except ImportError:
        raise Unsupported(ZSTD_FIX) from None
    compressor = zstandard.ZstdCompressor(level=level)
    decompressor = zstandard.ZstdDecompressor()
    return compressor.compress, decompressor.decompress


def codec(name: str, level: int) -> Codec:
    """(compress, decompress) for a codec at a level: one-shot calls into the C library."""
    if name not in LEVELS:
        raise Usage(f"unknown codec {name!r} (zlib, lzma, bz2 or zstd)")
    if level not in LEVELS[name]:
        raise Usage(f"{name} level must be in {LEVELS[name].start}..{LEVELS[name].stop - 1}")
    if name == "zlib":
        return (lambda data: zlib.compress(data, level)), zlib.decompress
    if name == "lzma":  # the .xz format with a CRC64 check, as the xz command writes it
        return (lambda data: lzma.compress(data, preset=level)), lzma.decompress
    if name == "bz2":
        return (lambda data: bz2.compress(data, level)), bz2.decompress
    return _zstd(level)


def compress(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: compress the whole corpus in one call. Timed: the calls and len()."""
    level_text, size_text = _params(params, ("LEVEL", "SIZE_KIB"))
    size = _int(size_text, "SIZE_KIB", 1, 1 << 20) * 1024
    squeeze, _ = codec(mode, _int(level_text, "LEVEL", -7, 22))
    data = corpus(size)
    check, seconds = timed(lambda: len(squeeze(data)), iterations)
    return Report(iterations, seconds, check)


def decompress(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: decompress the compressed corpus in one call. Timed: the calls and len().

    The compressed corpus is cached in WORKDIR for the later samples of the test; set-up
    checks once that it decompresses to the corpus.
    """
    workdir_text, level_text, size_text = _params(params, ("WORKDIR", "LEVEL", "SIZE_KIB"))
    workdir = _workdir(workdir_text)
    size_kib = _int(size_text, "SIZE_KIB", 1, 1 << 20)
    level = _int(level_text, "LEVEL", -7, 22)
    squeeze, expand = codec(mode, level)
    data = corpus(size_kib * 1024)
    cached = workdir / f"corpus-{size_kib}k.{mode}-{level}"
    try:
        packed = cached.read_bytes()
    except FileNotFoundError:
        packed = squeeze(data)
        _write_atomically(cached, packed)
    if expand(packed) != data:
        raise RuntimeError(f"{cached} does not decompress to the corpus")
    check, seconds = timed(lambda: len(expand(packed)), iterations)
    return Report(iterations, seconds, check)


# -- hashing and crypto ----------------------------------------------------------------

def digest(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: hash a SIZE_KIB-KiB buffer in one call and take the digest (hashlib).

    Timed: hashlib.new-equivalent constructor with the data, digest(), one byte read.
    """
    (size_text,) = _params(params, ("SIZE_KIB",))
    size = _int(size_text, "SIZE_KIB", 1, 1 << 20) * 1024
    constructors = {"sha256": hashlib.sha256, "blake2b": hashlib.blake2b}
    if mode not in constructors:
        raise Usage(f"unknown hash {mode!r} (sha256 or blake2b)")
    make = constructors[mode]
    data = random.Random(CORPUS_SEED).randbytes(size)
    check, seconds = timed(lambda: make(data).digest()[0], iterations)
    return Report(iterations, seconds, check)


def _cryptography() -> None:
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise Unsupported("the Python module cryptography is not installed: "
                          "pip install cryptography") from None


NONCES = 4096


def aes_gcm(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: AES-GCM encryption (with its 16-byte tag) of one MSG_BYTES message.

    A fixed key and a ring of 4096 distinct 96-bit nonces, reused in turn: harmless for a
    benchmark of public bytes, never for real data. Timed: AESGCM.encrypt() and the loop.
    """
    key_text, size_text = _params(params, ("KEY_BITS", "MSG_BYTES"))
    if mode != "encrypt":
        raise Usage(f"unknown mode {mode!r} (encrypt)")
    if key_text not in ("128", "192", "256"):
        raise Usage(f"KEY_BITS must be 128, 192 or 256, not {key_text!r}")
    size = _int(size_text, "MSG_BYTES", 1, 1 << 30)
    _cryptography()
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    rng = random.Random(CORPUS_SEED)
    encrypt = AESGCM(rng.randbytes(int(key_text) // 8)).encrypt
    nonces = [rng.randbytes(12) for _ in range(NONCES)]
    message = rng.randbytes(size)
    ready()
    check = 0
    start = now()
    for i in range(iterations):
        check ^= encrypt(nonces[i % NONCES], message, None)[-1]
    seconds = now() - start
    return Report(iterations, seconds, check)


RSA_MESSAGE = b"osmark rsa benchmark: a 64-byte message, signed with SHA-256 ...."


def _rsa_key(workdir: Path, bits: int):  # -> RSAPrivateKey
    """The test's key: generated once (e = 65537) and cached in WORKDIR as PEM."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa as rsa_keys

    cached = workdir / f"rsa-{bits}.pem"
    try:
        return serialization.load_pem_private_key(cached.read_bytes(), password=None)
    except FileNotFoundError:
        key = rsa_keys.generate_private_key(public_exponent=65537, key_size=bits)
        _write_atomically(cached, key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        return key


def rsa(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: sign (private key, CRT) or verify (public key) a 64-byte message with
    RSASSA-PKCS1-v1_5 and SHA-256. Timed: the sign() or verify() calls and the loop."""
    workdir_text, bits_text = _params(params, ("WORKDIR", "BITS"))
    if mode not in ("sign", "verify"):
        raise Usage(f"unknown mode {mode!r} (sign or verify)")
    workdir = _workdir(workdir_text)
    bits = _int(bits_text, "BITS", 1024, 16384)
    _cryptography()
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    key = _rsa_key(workdir, bits)
    pad, sha = padding.PKCS1v15(), hashes.SHA256()
    signature = key.sign(RSA_MESSAGE, pad, sha)
    public = key.public_key()
    public.verify(signature, RSA_MESSAGE, pad, sha)  # raises InvalidSignature if wrong
    if mode == "sign":
        check, seconds = timed(lambda: key.sign(RSA_MESSAGE, pad, sha)[-1], iterations)
    else:
        check, seconds = timed(
            lambda: public.verify(signature, RSA_MESSAGE, pad, sha) is None, iterations)
    return Report(iterations, seconds, check)


# -- numpy -----------------------------------------------------------------------------

def _numpy():  # -> the numpy module
    try:
        import numpy
    except ImportError:
        raise Unsupported("the Python module numpy is not installed: pip install numpy") \
            from None
    return numpy


def fft_flops(n: int) -> float:
    """The conventional operation count of a complex FFT of n points: 5 n log2 n."""
    return 5.0 * n * math.log2(n)


def fft(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: numpy.fft.fft of N complex128 points (a new output array each call).

    Timed: the fft() calls, reading one output element, and the loop.
    """
    (n_text,) = _params(params, ("N",))
    if mode != "complex128":
        raise Usage(f"unknown mode {mode!r} (complex128)")
    n = _int(n_text, "N", 2, 1 << 26)
    np = _numpy()
    rng = np.random.default_rng(CORPUS_SEED)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    transform = np.fft.fft
    check, seconds = timed(lambda: int(abs(transform(x)[1])) & 0xFFFF, iterations)
    return Report(iterations, seconds, check)


def matmul_flops(n: int) -> float:
    """Multiplies and adds of a dense n×n by n×n product: 2 n³."""
    return 2.0 * n ** 3


def matmul(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: C = A @ B of N×N float64 matrices into a preallocated C (numpy's BLAS with
    its own threads). Timed: the numpy.matmul calls, reading C[0, 0], and the loop."""
    (n_text,) = _params(params, ("N",))
    if mode != "float64":
        raise Usage(f"unknown mode {mode!r} (float64)")
    n = _int(n_text, "N", 1, 1 << 16)
    np = _numpy()
    rng = np.random.default_rng(CORPUS_SEED)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    c = np.empty((n, n))
    product = np.matmul
    check, seconds = timed(lambda: int(product(a, b, out=c)[0, 0] * 1e6) & 0xFFFF, iterations)
    return Report(iterations, seconds, check)


# -- build -----------------------------------------------------------------------------

BUILD_VERSION = 1
BUILD_ENV_DROP = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEFILES", "GNUMAKEFLAGS")


def _module_source(index: int, funcs: int) -> str:
    """One translation unit: `funcs` small functions of loops, switches, structs and
    floating point over the project's header, the kind of code -O2 has to work at."""
    rng = random.Random(CORPUS_SEED + index)
    lines = ['#include "project.h"', "",
             f"static int mix_{index}(const int *v, int n)", "{",
             "    int s = 0;",
             "    for (int i = 0; i < n; i++)",
             f"        s += v[i] * ((i ^ {rng.randrange(1, 64)}) + 1);",
             "    return s;", "}", ""]
    for f in range(funcs):
        kind = (index + f) % 3
        name = f"m{index}_f{f}"
        a, b, c = rng.randrange(2, 97), rng.randrange(2, 97), rng.randrange(2, 97)
        if kind == 0:
            lines += [f"int {name}(struct record *r, int n)", "{", "    int t = 0;",
                      "    for (int i = 0; i < n; i++) {",
                      f"        t += r[i].key * {a} + mix_{index}(r[i].vals, RECORD_VALS);",
                      f"        if (t > {a * 1000}) t -= {b * 7};",
                      f"        r[i].weight = r[i].weight * 0.{c} + t;",
                      "    }", "    return t;", "}", ""]
        elif kind == 1:
            lines += [f"int {name}(int x)", "{", "    switch (x & 7) {",
                      f"    case 0: return x * {a};", f"    case 1: return x - {b};",
                      f"    case 2: return x << {a % 5 + 1};", f"    case 3: return x ^ {c};",
                      f"    case 4: return x / {b} + {a};", f"    case 5: return x % {c};",
                      f"    default: return x + {a + b};", "    }", "}", ""]
        else:
            lines += [f"double {name}(const double *v, int n)", "{", "    double s = 0.0;",
                      "    for (int i = 0; i < n; i++)",
                      f"        s += v[i] * v[i] / ({a}.0 + i) - v[i] * {b}.0;",
                      f"    return s + project_scale({c}.0);", "}", ""]
    lines += [f"int module_{index}(void)", "{",
              "    struct record r[4];", "    double v[8];",
              "    for (int i = 0; i < 4; i++) {", "        r[i].key = i;",
              "        r[i].weight = i;",
              "        for (int k = 0; k < RECORD_VALS; k++)", "            r[i].vals[k] = i + k;",
              "    }", "    for (int i = 0; i < 8; i++)", "        v[i] = i * 0.5;",
              "    int t = 0;"]
    for f in range(funcs):
        kind = (index + f) % 3
        call = {0: f"m{index}_f{f}(r, 4)", 1: f"m{index}_f{f}({f + index})",
                2: f"(int)m{index}_f{f}(v, 8)"}[kind]
        lines.append(f"    t += {call};")
    lines += ["    return t;", "}", ""]
    return "\n".join(lines)


def _project(files: int, funcs: int) -> dict[str, str]:
    """The generated C project: relative path -> text (deterministic)."""
    header = "\n".join([
        "#ifndef PROJECT_H", "#define PROJECT_H", "#include <stddef.h>",
        "#include <string.h>", "#define RECORD_VALS 8",
        "struct record { int key; int vals[RECORD_VALS]; double weight; };",
        "static inline double project_scale(double x) { return x * 0.5 + 1.0; }",
        *(f"int module_{i}(void);" for i in range(files)), "#endif", ""])
    main = "\n".join([
        '#include <stdio.h>', '#include "project.h"', "int main(void)", "{",
        "    long total = 0;", *(f"    total += module_{i}();" for i in range(files)),
        '    printf("%ld\\n", total);', "    return 0;", "}", ""])
    objects = " ".join(["obj/main.o", *(f"obj/m{i}.o" for i in range(files))])
    makefile = "\n".join([
        "CC = cc", "CFLAGS = -O2 -Iinclude", f"OBJS = {objects}", "",
        "prog: $(OBJS)", "\t$(CC) -o $@ $(OBJS)", "",
        "obj/%.o: src/%.c include/project.h", "\t$(CC) $(CFLAGS) -c -o $@ $<", ""])
    project = {"include/project.h": header, "src/main.c": main, "Makefile": makefile}
    for i in range(files):
        project[f"src/m{i}.c"] = _module_source(i, funcs)
    return project


def make_project(root: Path, files: int, funcs: int) -> None:
    """Write the project under root unless it is already there with these sizes."""
    stamp = root / "STAMP"
    wanted = f"osmark build project v{BUILD_VERSION}: {files} files, {funcs} functions\n"
    if stamp.is_file() and stamp.read_text() == wanted:
        return
    if root.exists():
        shutil.rmtree(root)
    for relative, text in _project(files, funcs).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "obj").mkdir()
    stamp.write_text(wanted)


def clean_project(root: Path) -> None:
    for path in (root / "obj").iterdir():
        path.unlink()
    (root / "prog").unlink(missing_ok=True)


def build(mode: str, iterations: int, params: list[str]) -> Report:
    """One op: a full build of the generated project with `make -j JOBS` (JOBS 0: one per
    usable CPU). Timed: the make process from fork to exit -- every `cc -O2 -c`, the link.
    Outside: writing the project (once per test, cached in WORKDIR) and, before every
    build, deleting the objects and the program."""
    workdir_text, files_text, funcs_text, jobs_text = _params(
        params, ("WORKDIR", "FILES", "FUNCS", "JOBS"))
    if mode != "make":
        raise Usage(f"unknown mode {mode!r} (make)")
    workdir = _workdir(workdir_text)
    files = _int(files_text, "FILES", 1, 100_000)
    funcs = _int(funcs_text, "FUNCS", 1, 1000)
    jobs = _int(jobs_text, "JOBS", 0, 4096) or len(os.sched_getaffinity(0))
    for command in ("cc", "make"):
        if shutil.which(command) is None:
            raise Unsupported(f"{command} is not installed or not on PATH: "
                              f"install it (Debian: apt-get install {command})")
    root = workdir / "build-project"
    make_project(root, files, funcs)
    env = {k: v for k, v in os.environ.items() if k not in BUILD_ENV_DROP}
    env["LC_ALL"] = "C"
    argv = ["make", "-s", "-j", str(jobs), "-C", str(root)]

    ready()
    total = 0.0
    check = 0
    for _ in range(iterations):
        clean_project(root)
        start = now()
        proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        total += now() - start
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines() or ["no output"]
            raise RuntimeError(f"make failed ({proc.returncode}): {lines[0]}")
        check += (root / "prog").stat().st_size
    return Report(iterations, total, check, value=total / iterations)
