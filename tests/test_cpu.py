"""The CPU area: every kernel mode runs for real with tiny sizes; structure and sanity only.

No timings are asserted: hackbench, the build, compression, hashing, crypto and numpy are
run with tiny parameters and checked for ops > 0, finite values, the right files and the
right refusals (exit 2 for bad parameters, a skip with the fix when a module is missing).
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from osmark import engine, requirements
from osmark.catalog import BY_ID, cpu, suite_members
from osmark.kernels.build import find_toolchain, kernel_binary
from osmark.pykernels import Unsupported, Usage
from osmark.pykernels import cpu as kernels

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)
CPU_IDS = [b.id for b in cpu.BENCHMARKS]


def _needs(module: str) -> None:
    """zstandard and cryptography belong to the test extra; skip cleanly where absent."""
    if requirements.missing(f"module:{module}"):
        pytest.skip(f"{module} is not installed")


def _py_kernel(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "osmark.pykernels", name, *args],
                          capture_output=True, text=True, timeout=120)


def _line(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["ops"] >= 1 and data["seconds"] > 0
    return data


def _run(test_id: str, workdir: Path, *params: str):
    spec = dataclasses.replace(BY_ID[test_id], params=params) if params else BY_ID[test_id]
    result = engine.run_benchmark(spec, 1, find_toolchain(), workdir, TINY)
    assert result.status == "ok", result.reason
    assert result.n >= 1
    assert all(math.isfinite(v) and v > 0 for v in result.samples)
    assert list(workdir.iterdir()) == []  # the scratch directory is gone
    return result


# -- the catalog -----------------------------------------------------------------------

def test_specs_are_complete():
    expected = {f"cpu.{c}-{op}" for c in ("zlib", "lzma", "bz2", "zstd")
                for op in ("compress", "decompress")}
    expected |= {"cpu.sha256", "cpu.blake2b", "cpu.rsa4096-sign", "cpu.rsa4096-verify",
                 "cpu.aes256gcm", "cpu.hackbench", "cpu.build", "cpu.numpy-fft",
                 "cpu.numpy-matmul"}
    assert set(CPU_IDS) == expected
    for spec in cpu.BENCHMARKS:
        assert spec.category == "cpu"
        assert {"cpu", "full"} <= set(spec.suites)
        assert spec.timed and spec.title
        assert spec.tolerance == 0.01
        if spec.needs_workdir and "{workdir}" in spec.params:
            assert spec.writes_bytes > 0
    quick = {b.id for b in suite_members("quick") if b.category == "cpu"}
    assert quick == {"cpu.zlib-compress", "cpu.sha256", "cpu.hackbench"}


def test_flop_and_byte_scales():
    assert BY_ID["cpu.numpy-fft"].scale == pytest.approx(kernels.fft_flops(65536) / 1e6)
    assert BY_ID["cpu.numpy-matmul"].scale == pytest.approx(kernels.matmul_flops(1024) / 1e9)
    assert BY_ID["cpu.zlib-compress"].scale == pytest.approx(1048576 / 1e6)
    assert BY_ID["cpu.aes256gcm"].scale == pytest.approx(8192 / 1e6)
    for test_id in ("cpu.hackbench", "cpu.build"):
        spec = BY_ID[test_id]
        assert spec.kind == "reported" and not spec.higher_is_better and spec.unit == "s"
        assert spec.max_copies == 1 and spec.placement == "free"


# -- the corpus and the codecs ---------------------------------------------------------

def test_corpus_is_fixed_text_and_moderately_compressible():
    data = kernels.corpus(1 << 20)
    assert len(data) == 1 << 20
    assert zlib.crc32(data) == 0x13B82A64  # the same bytes on every run, every machine
    assert kernels.corpus(5000) == data[:5000]
    assert data.decode("ascii").count(" ") > 100_000
    ratio = len(data) / len(zlib.compress(data, 6))
    assert 2.5 < ratio < 5


@pytest.mark.parametrize("name,level", [("zlib", 6), ("lzma", 6), ("bz2", 9), ("zstd", 3)])
def test_codecs_round_trip(name, level):
    if name == "zstd" and sys.version_info < (3, 14):
        _needs("zstandard")
    squeeze, expand = kernels.codec(name, level)
    data = kernels.corpus(50_000)
    packed = squeeze(data)
    assert len(packed) < len(data) and expand(packed) == data


@pytest.mark.parametrize("name", ["zlib", "lzma", "bz2", "zstd"])
def test_compress_kernel(name):
    if name == "zstd" and sys.version_info < (3, 14):
        _needs("zstandard")
    level = {"zlib": "6", "lzma": "6", "bz2": "9", "zstd": "3"}[name]
    data = _line(_py_kernel("cpu.compress", name, "3", level, "16"))
    assert data["ops"] == 3 and data["check"] > 0


@pytest.mark.parametrize("name", ["zlib", "lzma", "bz2", "zstd"])
def test_decompress_kernel_caches_the_compressed_corpus(name, tmp_path):
    if name == "zstd" and sys.version_info < (3, 14):
        _needs("zstandard")
    level = {"zlib": "6", "lzma": "6", "bz2": "9", "zstd": "3"}[name]
    first = _line(_py_kernel("cpu.decompress", name, "2", str(tmp_path), level, "16"))
    assert first["check"] == 0  # two equal lengths XORed
    cached = tmp_path / f"corpus-16k.{name}-{level}"
    assert cached.is_file()
    stamp = cached.stat().st_mtime_ns
    _line(_py_kernel("cpu.decompress", name, "1", str(tmp_path), level, "16"))
    assert cached.stat().st_mtime_ns == stamp  # reused, not rewritten
    assert [p.name for p in tmp_path.iterdir()] == [cached.name]  # no temp files left


def test_compress_and_decompress_through_the_engine(workdir):
    _run("cpu.zlib-compress", workdir, "6", "64")
    _run("cpu.bz2-decompress", workdir, "{workdir}", "9", "64")


@pytest.mark.parametrize("args", [
    ("cpu.compress", "gzip", "1", "6", "16"),      # unknown codec
    ("cpu.compress", "zlib", "1", "12", "16"),     # level out of range
    ("cpu.compress", "bz2", "1", "0", "16"),       # bz2 has no level 0
    ("cpu.compress", "zlib", "1", "6", "0"),       # empty corpus
    ("cpu.compress", "zlib", "1", "6"),            # missing SIZE_KIB
    ("cpu.decompress", "zlib", "1", "/nonexistent/dir", "6", "16"),
    ("cpu.digest", "md5", "1", "4"),
    ("cpu.digest", "sha256", "1", "x"),
    ("cpu.aes_gcm", "encrypt", "1", "512", "64"),
    ("cpu.aes_gcm", "decrypt", "1", "256", "64"),
    ("cpu.rsa", "encrypt", "1", "/tmp", "2048"),
    ("cpu.fft", "complex128", "1", "1"),
    ("cpu.matmul", "float32", "1", "8"),
    ("cpu.build", "ninja", "1", "/tmp", "2", "1", "1"),
    ("cpu.build", "make", "1", "/tmp", "0", "1", "1"),
    ("cpu.compress", "zlib", "0", "6", "16"),      # zero iterations
])
def test_python_kernels_reject_bad_parameters(args):
    proc = _py_kernel(*args)
    assert proc.returncode == 2, proc.stderr
    assert "usage" in proc.stderr or "ITERATIONS" in proc.stderr


# -- hashing and crypto ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["sha256", "blake2b"])
def test_digest_kernel(name):
    data = _line(_py_kernel("cpu.digest", name, "5", "4"))
    assert data["ops"] == 5


def test_digest_through_the_engine(workdir):
    _run("cpu.sha256", workdir, "64")


def test_aes_gcm_kernel():
    _needs("cryptography")
    data = _line(_py_kernel("cpu.aes_gcm", "encrypt", "100", "256", "1024"))
    assert data["ops"] == 100


@pytest.mark.parametrize("mode", ["sign", "verify"])
def test_rsa_kernel_caches_its_key(mode, tmp_path):
    _needs("cryptography")
    data = _line(_py_kernel("cpu.rsa", mode, "3", str(tmp_path), "1024"))
    assert data["ops"] == 3
    pem = tmp_path / "rsa-1024.pem"
    assert pem.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    stamp = pem.stat().st_mtime_ns
    _line(_py_kernel("cpu.rsa", mode, "1", str(tmp_path), "1024"))
    assert pem.stat().st_mtime_ns == stamp


def test_rsa_through_the_engine(workdir):
    _needs("cryptography")
    _run("cpu.rsa4096-verify", workdir, "{workdir}", "1024")


# -- numpy, and the skip paths ---------------------------------------------------------

def test_fft_and_matmul_kernels():
    _needs("numpy")
    assert _line(_py_kernel("cpu.fft", "complex128", "4", "1024"))["ops"] == 4
    assert _line(_py_kernel("cpu.matmul", "float64", "2", "64"))["ops"] == 2


def test_numpy_tests_through_the_engine(workdir):
    _needs("numpy")
    _run("cpu.numpy-fft", workdir, "4096")
    _run("cpu.numpy-matmul", workdir, "128")


@pytest.mark.parametrize("test_id,module", [
    ("cpu.numpy-fft", "numpy"), ("cpu.numpy-matmul", "numpy"),
    ("cpu.rsa4096-sign", "cryptography"), ("cpu.aes256gcm", "cryptography"),
])
def test_missing_module_is_a_skip_with_the_fix(test_id, module, workdir, monkeypatch):
    real = requirements._module_exists
    monkeypatch.setattr(requirements, "_module_exists",
                        lambda name: name != module and real(name))
    result = engine.run_benchmark(BY_ID[test_id], 1, find_toolchain(), workdir, TINY)
    assert result.status == "skipped"
    assert f"pip install {module}" in result.reason


def test_zstd_requirement_names_its_package(monkeypatch):
    spec = BY_ID["cpu.zstd-compress"]
    assert spec.requires == (() if sys.version_info >= (3, 14) else ("module:zstandard",))
    monkeypatch.setattr(requirements, "_module_exists", lambda name: False)
    assert "pip install zstandard" in requirements.missing("module:zstandard")


@pytest.mark.parametrize("module,call", [
    ("numpy", lambda: kernels.fft("complex128", 1, ["64"])),
    ("numpy", lambda: kernels.matmul("float64", 1, ["8"])),
    ("cryptography", lambda: kernels.aes_gcm("encrypt", 1, ["256", "64"])),
    ("zstandard", lambda: kernels.compress("zstd", 1, ["3", "1"])),
])
def test_kernels_raise_unsupported_without_their_module(module, call, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now fails
    if module == "zstandard":
        monkeypatch.setattr(sys, "version_info", (3, 11))
    with pytest.raises(Unsupported, match=f"pip install {module}"):
        call()


def test_bad_parameters_raise_usage_in_process():
    with pytest.raises(Usage):
        kernels.codec("zlib", 10)
    with pytest.raises(Usage):
        kernels.digest("sha256", 1, [])


# -- hackbench -------------------------------------------------------------------------

def test_hackbench_kernel_reports_seconds_per_exchange():
    binary = kernel_binary("hackbench")
    proc = subprocess.run([str(binary), "process", "2", "1", "5"], capture_output=True,
                          text=True, timeout=60)
    data = _line(proc)
    assert data["ops"] == 2
    assert data["messages"] == 20 * 20 * 5
    assert data["check"] == 2 * 20 * 20 * 5 * 100
    assert data["value"] == pytest.approx(data["seconds"] / 2, rel=1e-6)


@pytest.mark.parametrize("args", [
    ("process", "1", "0", "5"), ("process", "1", "1", "0"), ("process", "1", "1"),
    ("thread", "1", "1", "5"), ("process", "1", "x", "5"), ("process", "0", "1", "5"),
    ("process", "1", "1", "5", "extra"),
])
def test_hackbench_rejects_bad_parameters(args):
    proc = subprocess.run([str(kernel_binary("hackbench")), *args], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    assert "usage" in proc.stderr


def test_hackbench_through_the_engine(workdir):
    result = _run("cpu.hackbench", workdir, "1", "10")
    assert result.details.get("messages") == 20 * 20 * 10
    assert result.median < 60  # seconds per exchange, not nanoseconds


# -- the build -------------------------------------------------------------------------

def test_generated_project_builds_and_runs(tmp_path):
    data = _line(_py_kernel("cpu.build", "make", "2", str(tmp_path), "3", "4", "2"))
    assert data["ops"] == 2
    assert data["value"] == pytest.approx(data["seconds"] / 2, rel=1e-6)
    root = tmp_path / "build-project"
    assert sorted(p.name for p in (root / "src").iterdir()) == \
        ["m0.c", "m1.c", "m2.c", "main.c"]
    assert len(list((root / "obj").iterdir())) == 4
    run = subprocess.run([str(root / "prog")], capture_output=True, text=True, timeout=10)
    assert run.returncode == 0 and int(run.stdout) != 0


def test_generated_project_is_deterministic(tmp_path):
    kernels.make_project(tmp_path / "a", 5, 3)
    kernels.make_project(tmp_path / "b", 5, 3)
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file():
            twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
            assert twin.read_bytes() == path.read_bytes()


def test_build_through_the_engine(workdir):
    result = _run("cpu.build", workdir, "{workdir}", "4", "2", "0")
    assert result.median < 60


# -- the reference adapters ------------------------------------------------------------

def test_every_reference_names_an_adapter():
    from osmark.references import cpu as references

    wired = {b.id: b.reference for b in cpu.BENCHMARKS if b.reference}
    assert set(wired) == {"cpu.hackbench", "cpu.sha256",
                          *(f"cpu.{c}-{op}" for c in ("lzma", "bz2", "zstd")
                            for op in ("compress", "decompress"))}
    for reference in wired.values():
        module, _, function = reference.partition(":")
        assert module == "cpu" and callable(getattr(references, function))


def test_reference_parsers():
    from osmark.references import cpu as references

    assert references.parse_perf_seconds("# Running 'sched/messaging'\n0.116\n") == 0.116
    assert references.parse_zstd_bench(
        "-3       306556 (3.421) 147.71 MB/s  967.6 MB/s  corpus.txt\n") == (147.71, 967.6)
    assert references.parse_openssl_rate(
        "+H:8192\n+F:25:AES-256-GCM:1600520192.00\n") == 1600520192.0
    with pytest.raises(references.ReferenceUnavailable):
        references.parse_openssl_rate("nothing\n")


def test_references_refuse_several_copies(workdir):
    from osmark.references import cpu as references

    with pytest.raises(references.ReferenceUnavailable, match="one copy"):
        references.sha256(BY_ID["cpu.sha256"], workdir, 2)


def _tool_or_skip(*names: str) -> None:
    import shutil

    for name in names:
        if shutil.which(name) is None:
            pytest.skip(f"{name} is not installed")


def test_hackbench_reference_runs_perf(workdir):
    _tool_or_skip("perf")
    from osmark.references import cpu as references

    spec = dataclasses.replace(BY_ID["cpu.hackbench"], params=("1", "5"))
    reference = references.hackbench(spec, workdir, 1)
    assert reference.unit == "s" and 0 < reference.value < 60
    assert reference.command[-4:] == ["-g", "1", "-l", "5"]


@pytest.mark.parametrize("test_id,tool", [("cpu.bz2-compress", "bzip2"),
                                          ("cpu.lzma-decompress", "xz")])
def test_cli_codec_references_run(test_id, tool, workdir, monkeypatch):
    _tool_or_skip(tool, "taskset")
    from osmark.references import cpu as references

    monkeypatch.setattr(references, "CODEC_TARGET_S", 0.05)
    monkeypatch.setattr(references, "CODEC_RUNS", 1)
    spec = BY_ID[test_id]
    spec = dataclasses.replace(spec, params=(*spec.params[:-1], "16"))
    reference = getattr(references, spec.reference.partition(":")[2])(spec, workdir, 1)
    assert reference.tool.startswith(tool) and reference.value > 0
    assert list(workdir.iterdir()) == []  # its corpus and streams are gone


def test_openssl_and_zstd_references_run(workdir, monkeypatch):
    _tool_or_skip("openssl", "zstd", "taskset")
    from osmark.references import cpu as references

    monkeypatch.setattr(references, "OPENSSL_SECONDS", 1)
    monkeypatch.setattr(references, "ZSTD_SECONDS", 1)
    sha = references.sha256(dataclasses.replace(BY_ID["cpu.sha256"], params=("16",)),
                            workdir, 1)
    assert sha.value > 0 and "-bytes" in sha.command and "16384" in sha.command
    zstd = references.zstd_decompress(BY_ID["cpu.zstd-decompress"], workdir, 1)
    assert zstd.value > 0 and zstd.unit == "MB/s"
    assert list(workdir.iterdir()) == []
