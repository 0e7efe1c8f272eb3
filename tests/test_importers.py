"""Importers: real UnixBench outputs and a PTS composite.xml become honest osmark runs.

The UnixBench 4.1 and 6.0 files are real outputs, copied verbatim; the files named
`constructed-*` and the PTS composite.xml are written by hand in those tools' formats.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from osmark import model, stats
from osmark.catalog import BY_ID
from osmark.importers import import_file, import_files
from osmark.model import BenchResult, ResultFile, ResultFileError

FIXTURES = Path(__file__).parent / "fixtures"
UB = FIXTURES / "unixbench"
UB41 = UB / "ub4.1-virtualbox-comparison.txt"
UB60_1 = UB / "ub6.0-vm-2cpu-subset1.txt"
UB60_2 = UB / "ub6.0-vm-2cpu-subset2.txt"
UB513 = UB / "constructed-ub5.1.3-2copies.txt"
UB41_REPORT = UB / "constructed-ub4.1-report.txt"
PTS = FIXTURES / "pts" / "composite.xml"
UB_FILES = [UB41, UB60_1, UB60_2, UB513, UB41_REPORT]
ALL_FILES = [*UB_FILES, PTS]
SAFE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def by_id(result: ResultFile, test_id: str, copies: int = 1) -> BenchResult:
    matches = [r for r in result.results if r.id == test_id and r.copies == copies]
    assert len(matches) == 1, (test_id, copies, [r.id for r in result.results])
    return matches[0]


def by_label(results: list[ResultFile]) -> dict[str, ResultFile]:
    return {r.run.source.label: r for r in results if r.run.source and r.run.source.label}


# -- every fixture ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_round_trips_through_the_model(path: Path) -> None:
    for result in import_file(path):
        assert model.parse(model.dumps(result), "x.json") == result


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_run_metadata_is_that_of_an_import(path: Path) -> None:
    results = import_file(path)
    ids = [r.run.id for r in results]
    assert len(set(ids)) == len(ids)
    assert ids == [r.run.id for r in import_file(path)]  # deterministic
    for result in results:
        run = result.run
        assert SAFE_ID.match(run.id), run.id
        assert run.id.startswith("pts-" if path == PTS else "ub-")
        assert len(run.id.rsplit("-", 1)[1]) == 8
        assert run.complete and run.suite == "imported" and run.argv == []
        assert run.quality == "unknown"
        assert run.source is not None and run.source.file == str(path)
        assert run.source.format == ("pts-composite" if path == PTS else "unixbench-text")
        datetime.fromisoformat(run.started)
        assert result.host.identity.osmark_version == "n/a"
        assert result.host.description.hostname == run.source.label
        assert "imported" in result.host.info


@pytest.mark.parametrize("path", UB_FILES, ids=lambda p: p.name)
def test_unixbench_figures_are_not_dressed_up_as_samples(path: Path) -> None:
    for result in import_file(path):
        assert result.tool.name == "unixbench"
        for r in result.results:
            assert r.status == "ok" and r.median is not None and r.median > 0
            assert r.samples == [] and r.n == 0
            assert r.ci_low is None and r.ci_high is None and r.mad is None
            assert not r.converged and r.quality == "unknown"
            assert r.version == 0 and r.higher_is_better


@pytest.mark.parametrize("path", UB_FILES, ids=lambda p: p.name)
def test_unixbench_indices_and_scores_are_reproduced(path: Path) -> None:
    for result in import_file(path):
        assert result.scores
        for score in result.scores:
            indexed = [r for r in result.results if r.copies == score.copies
                       and r.index is not None]
            assert len(indexed) == score.tests
            assert score.index is not None
            geomean = stats.geometric_mean([r.index for r in indexed])
            assert geomean == pytest.approx(score.index, abs=0.1)
        for r in result.results:
            if r.index is not None:
                assert r.baseline and r.median
                assert r.median / r.baseline * 10 == pytest.approx(r.index, abs=0.1)


# -- UnixBench 4.1 ------------------------------------------------------------------------


def test_unixbench_41_comparison_gives_one_run_per_block() -> None:
    results = import_file(UB41)
    assert [r.run.source.label for r in results if r.run.source] == [
        "Ubuntu 64bit on Wubi",
        "Ubuntu 64bit on VirtualBox 2.0 (AMD-V on)",
        "Ubuntu 32bit on VirtualBox 2.0 (AMD-V on)",
        "Ubuntu 32bit on VirtualBox 1.6.6 (AMD-V on)",
        "Ubuntu 32bit on VirtualBox 2.0 (AMD-V off)",
    ]
    assert [(s.copies, s.index, s.partial, s.tests) for r in results for s in r.scores] == [
        (1, 954.6, False, 6), (1, 272.0, False, 6), (1, 91.7, False, 6), (1, 89.7, False, 6),
        (1, 53.3, False, 6),
    ]
    first = results[0]
    assert first.tool.version == "4.x"
    assert first.run.id.startswith("ub-ubuntu-64bit-on-wubi-")
    assert [r.id for r in first.results] == [
        "ub.execl", "ub.pipe", "ub.context1", "ub.spawn", "ub.shell8", "ub.syscall"]
    execl = by_id(first, "ub.execl")
    assert (execl.title, execl.median, execl.baseline, execl.index) == (
        "Execl Throughput", 3094.1, 43.0, 719.6)
    assert execl.unit == "lps" and execl.category == "os"  # from the catalog: 4.x prints none
    assert by_id(first, "ub.shell8").unit == "lpm"
    assert by_id(results[4], "ub.syscall").median == 221690.9
    # No date in the file: the file's mtime, in UTC.
    mtime = datetime.fromtimestamp(UB41.stat().st_mtime, tz=timezone.utc).replace(microsecond=0)
    assert first.run.started == mtime.isoformat() and first.run.ended is None
    assert first.host.identity.cpu_model == "unknown" and first.host.identity.cpus == 0


def test_unixbench_41_report_maps_old_titles_and_reads_the_header() -> None:
    [result] = import_file(UB41_REPORT)
    assert result.tool.version == "4.1.0"
    assert result.run.source and result.run.source.label == "oldbox"
    assert result.run.started == "2006-06-03T18:25:06"
    identity = result.host.identity
    assert (identity.os, identity.kernel, identity.arch) == ("Linux", "2.6.15-23-386", "i686")
    assert by_id(result, "ub.hanoi").title == "Recursion Test--Tower of Hanoi"
    assert by_id(result, "ub.short").title == "Arithmetic Test (type = short)"
    fread = by_id(result, "ub.fstime-r")
    assert (fread.median, fread.unit, fread.baseline, fread.index) == (
        268839.0, "KBps", None, None)
    dc = by_id(result, "unixbench.dc-sqrt-2-to-99-decimal-places")
    assert (dc.category, dc.unit, dc.title) == (
        "unixbench", "lpm", "Dc: sqrt(2) to 99 decimal places")
    assert by_id(result, "ub.whetstone-double").unit == "MWIPS"
    assert result.scores[0].index == 336.6 and result.scores[0].tests == 6


# -- UnixBench 5.x / 6.0 -----------------------------------------------------------------


@pytest.mark.parametrize(("path", "ids", "score", "started", "ended"), [
    (UB60_1, ["ub.execl", "ub.fstime", "ub.pipe", "ub.context1", "ub.spawn", "ub.syscall"],
     507.1, "2026-11-30T05:14:08", "2026-11-30T05:16:42"),
    (UB60_2, ["ub.dhry2reg", "ub.whetstone-double", "ub.fsbuffer", "ub.fsdisk", "ub.shell1",
              "ub.shell8"], 1158.7, "2026-11-30T05:17:06", "2026-11-30T05:21:19"),
])
def test_unixbench_60_report(path: Path, ids: list[str], score: float, started: str,
                             ended: str) -> None:
    [result] = import_file(path)
    assert result.tool.name == "unixbench" and result.tool.version == "6.0.0"
    assert result.run.source and result.run.source.label == "vm"
    assert result.run.id.startswith("ub-vm-")
    assert (result.run.started, result.run.ended) == (started, ended)
    assert [r.id for r in result.results] == ids
    assert all(r.copies == 1 and r.baseline == BY_ID[r.id].baseline for r in result.results)
    assert [(s.copies, s.index, s.partial, s.tests) for s in result.scores] == [
        (1, score, True, 6)]
    identity = result.host.identity
    assert identity.cpu_model == "AMD EPYC" and identity.cpus == 2
    assert identity.kernel == "6.18.44-fc-v782" and identity.arch == "x86_64"
    assert identity.os == "GNU/Linux" and identity.virtualization == "unknown"
    assert identity.memory_gib == 0.0 and identity.compiler is None
    header = result.host.info["imported"]["header"]
    assert "OS: GNU/Linux -- 6.18.44-fc-v782 -- #1 SMP PREEMPT_DYNAMIC @0" in header


def test_unixbench_60_figures_as_printed() -> None:
    [one] = import_file(UB60_1)
    fstime = by_id(one, "ub.fstime")
    assert (fstime.title, fstime.median, fstime.unit, fstime.baseline, fstime.index) == (
        "File Copy 1024 bufsize 2000 maxblocks", 467673.0, "KBps", 3960.0, 1181.0)
    assert fstime.category == "fs" and fstime.seconds is None
    assert one.host.info["imported"]["timings"]["ub.fstime@1"] == {"seconds": 30.0,
                                                                   "passes": 1}
    [two] = import_file(UB60_2)
    whet = by_id(two, "ub.whetstone-double")
    assert (whet.median, whet.unit, whet.index) == (6723.1, "MWIPS", 1222.4)
    assert (by_id(two, "ub.shell8").median, by_id(two, "ub.shell8").unit) == (470.1, "lpm")


def test_unixbench_5x_report_with_two_copy_counts_is_one_run() -> None:
    [result] = import_file(UB513)
    assert result.tool.version == "5.1.3"
    assert result.run.source and result.run.source.label == "buildbox"
    # The second block ended past midnight.
    assert (result.run.started, result.run.ended) == (
        "2023-12-30T23:58:10", "2023-12-31T00:54:40")
    assert [(s.copies, s.index, s.partial, s.tests) for s in result.scores] == [
        (1, 766.5, False, 12), (2, 1304.9, False, 12)]
    assert {r.copies for r in result.results} == {1, 2}
    assert by_id(result, "ub.dhry2reg", 2).median == 69731255.2
    hanoi = by_id(result, "ub.hanoi", 2)  # a result line with no index row
    assert (hanoi.median, hanoi.baseline, hanoi.index, hanoi.unit) == (
        823411.9, None, None, "lps")
    assert by_id(result, "unixbench.c-compiler-throughput").unit == "lpm"
    identity = result.host.identity
    assert identity.cpu_model == "Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz"
    assert identity.cpus == 2 and identity.kernel == "5.15.0-91-generic"


def test_two_reports_in_one_file_are_two_runs(tmp_path: Path) -> None:
    both = tmp_path / "both.txt"
    both.write_bytes(UB60_1.read_bytes() + b"\n" + UB60_2.read_bytes())
    first, second = import_file(both)
    assert [s.index for s in first.scores] == [507.1]
    assert [s.index for s in second.scores] == [1158.7]
    assert first.run.id != second.run.id


def test_crlf_line_endings_parse_the_same(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(UB60_1.read_bytes().replace(b"\n", b"\r\n"))
    [plain], [dos] = import_file(UB60_1), import_file(crlf)
    assert dos.results == plain.results and dos.scores == plain.scores


# -- PTS ----------------------------------------------------------------------------------


def test_pts_one_run_per_system() -> None:
    results = import_file(PTS)
    assert list(by_label(results)) == ["rocky8-g3", "rocky8-g3a", "rocky9-g3", "rocky9-g3a"]
    for result in results:
        assert result.tool.name == "pts" and result.tool.version == "10.8.4"
        assert result.scores == []
        assert result.run.started.startswith("2026-03-0")
        assert result.run.ended is None
    assert by_label(results)["rocky8-g3"].run.started == "2026-03-02T09:14:55"


def test_pts_host_fields() -> None:
    systems = by_label(import_file(PTS))
    identity = systems["rocky8-g3a"].host.identity
    assert identity.cpu_model == "AMD EPYC 7R13" and identity.cpus == 4
    assert identity.memory_gib == 16.0  # "2 x 8192 MB RAM"
    assert identity.os == "Rocky Linux 8.9"
    assert identity.kernel == "4.18.0-513.5.1.el8_9.x86_64" and identity.arch == "x86_64"
    assert identity.compiler == "gcc" and identity.compiler_version == "GCC 8.5.0 20210514"
    assert identity.virtualization == "kvm"
    assert systems["rocky9-g3a"].host.identity.virtualization == "unknown"  # no System Layer
    assert systems["rocky9-g3"].host.identity.cpu_model == "Intel Xeon Gold 6348"
    info = systems["rocky8-g3"].host.info["imported"]
    assert info["hardware"].startswith("Processor: Intel Xeon Gold 6348 (2 Cores / 4 Threads)")
    assert info["software"].endswith("System Layer: KVM")
    assert info["json"]["security"].startswith("spectre_v2")


def test_pts_results_samples_and_direction() -> None:
    systems = by_label(import_file(PTS))
    g3, g3a = systems["rocky8-g3"], systems["rocky8-g3a"]
    [ssl] = [r for r in g3.results if r.id.startswith("pts.openssl.")]
    assert ssl.title == "OpenSSL: Algorithm: RSA4096" and ssl.unit == "sign/s"
    assert ssl.higher_is_better and ssl.category == "pts" and ssl.copies == 1
    assert ssl.n == 6 == len(ssl.samples)
    assert ssl.median == stats.median(ssl.samples)
    assert ssl.mad == stats.mad(ssl.samples)
    assert (ssl.min, ssl.max) == (min(ssl.samples), max(ssl.samples))
    assert (ssl.ci_low, ssl.ci_high) == stats.median_ci(ssl.samples)
    assert not ssl.converged and ssl.version == 0 and ssl.quality == "unknown"
    # The PTS Value is a mean: kept in info, equal to the mean of the samples.
    said = g3.host.info["imported"]["results"][ssl.id]
    assert float(said["value"]) == 750.6
    assert math.fsum(ssl.samples) / ssl.n == pytest.approx(750.6)
    [ssl_a] = [r for r in g3a.results if r.id == ssl.id]
    assert ssl_a.median is not None and ssl.median is not None and ssl_a.median > ssl.median
    [kernel] = [r for r in g3.results if r.id.startswith("pts.build-linux-kernel.")]
    assert not kernel.higher_is_better and kernel.unit == "Seconds"
    assert kernel.n == 3 and kernel.ci_low is None and kernel.ci_high is None
    assert math.fsum(kernel.samples) / 3 == pytest.approx(927.011)


def test_pts_skips_failures_and_gaps() -> None:
    systems = by_label(import_file(PTS))
    for result in systems.values():
        assert all(r.unit != "Percent" for r in result.results)  # the LINE_GRAPH
        assert all("Per Dollar" not in r.unit for r in result.results)  # derived (Parent)
        reasons = [s["reason"] for s in result.host.info["imported"]["skipped"]]
        assert any("LINE_GRAPH" in reason for reason in reasons)
    [fio] = [r for r in systems["rocky8-g3a"].results if r.id.startswith("pts.fio.")]
    assert fio.status == "failed" and fio.median is None and fio.n == 0
    assert fio.reason and "did not produce a result" in fio.reason
    assert not any(r.id.startswith("pts.compress-gzip.") for r in systems["rocky9-g3a"].results)
    assert len(systems["rocky9-g3a"].results) == 5 and len(systems["rocky8-g3"].results) == 6
    # No RawString: the Value is the only figure, and no samples are invented.
    [x264] = [r for r in systems["rocky9-g3"].results if r.id.startswith("pts.x264.")]
    assert (x264.status, x264.median, x264.n, x264.samples) == ("ok", 25.79, 0, [])


def test_pts_ids_match_across_systems_calls_and_patch_versions(tmp_path: Path) -> None:
    first, second = import_file(PTS), import_file(PTS)
    assert [[r.id for r in f.results] for f in first] == [[r.id for r in s.results]
                                                          for s in second]
    assert [f.run.id for f in first] == [s.run.id for s in second]
    ids = {r.id for r in first[0].results}
    assert all({r.id for r in f.results} <= ids for f in first)
    text = PTS.read_text()
    patched = tmp_path / "patched.xml"
    patched.write_text(text.replace("pts/openssl-3.6.0", "pts/openssl-3.6.1"))
    assert {r.id for r in import_file(patched)[0].results} == ids
    minor = tmp_path / "minor.xml"
    minor.write_text(text.replace("pts/openssl-3.6.0", "pts/openssl-3.7.0"))
    changed = {r.id for r in import_file(minor)[0].results} ^ ids
    assert len(changed) == 2 and all(i.startswith("pts.openssl.") for i in changed)


# -- bad input ----------------------------------------------------------------------------


def _error(path: Path) -> str:
    with pytest.raises(ResultFileError) as caught:
        import_file(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    return message


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert "no such file" in _error(tmp_path / "nope.txt")
    assert "directory" in _error(tmp_path)


def test_empty_binary_and_undecodable(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"  \n")
    assert "empty" in _error(empty)
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 20)
    assert "binary" in _error(binary)
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"r\xe9sultat INDEX VALUES\n")
    assert "not UTF-8" in _error(latin)


def test_unknown_format(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text("just some notes\nExecl Throughput was fast\n")
    assert _error(old) == (
        f"{old}: not a UnixBench text result or a PTS composite.xml "
        "(no 'INDEX VALUES' or 'System Benchmarks Index' block found)")


def test_truncated_unixbench(tmp_path: Path) -> None:
    no_rows = tmp_path / "norows.txt"
    no_rows.write_text(UB41.read_text().split("Execl Throughput")[0])
    assert "has no result rows" in _error(no_rows)
    no_rows60 = tmp_path / "norows60.txt"
    head, _, _ = UB60_1.read_text().partition("INDEX\n")
    no_rows60.write_text(head + "INDEX\n")
    message = _error(no_rows60)
    assert "has no result rows" in message and "Partial Index" in message
    no_score = tmp_path / "noscore.txt"
    no_score.write_text(UB60_1.read_text().split("  ========")[0])
    assert "has no Index Score line" in _error(no_score)
    no_final = tmp_path / "nofinal.txt"
    no_final.write_text(UB41.read_text().split("Shell Scripts")[0] + "Shell Scr")
    assert "has no FINAL SCORE line" in _error(no_final)
    banner_only = tmp_path / "banner.txt"
    banner_only.write_text("\n".join(UB60_1.read_text().splitlines()[:12]) + "\n")
    assert "has no results" in _error(banner_only)


def test_bad_xml(tmp_path: Path) -> None:
    text = PTS.read_text()
    truncated = tmp_path / "cut.xml"
    truncated.write_text(text[: len(text) // 2])
    assert "XML syntax error at line" in _error(truncated)
    mismatched = tmp_path / "r.xml"
    lines = text.splitlines()
    lines[11] = lines[11].replace("</Hardware>", "</Hardwar>")
    mismatched.write_text("\n".join(lines))
    assert _error(mismatched) == f"{mismatched}: XML syntax error at line 12: mismatched tag"
    other = tmp_path / "other.xml"
    other.write_text("<?xml version='1.0'?><svg></svg>")
    assert "not a PTS composite.xml" in _error(other)


def test_pts_structure_problems(tmp_path: Path) -> None:
    text = PTS.read_text()
    no_system = tmp_path / "nosystem.xml"
    no_system.write_text(re.sub(r"<System>.*?</System>\s*", "", text, flags=re.S))
    assert "no <System>" in _error(no_system)
    no_value = tmp_path / "novalue.xml"
    no_value.write_text(text.replace("<Value>11.7</Value>", "", 1))
    assert _error(no_value) == (
        f"{no_value}: Result 5 (pts/fio-2.2.0): Entry for 'rocky8-g3' has no Value")


def test_import_files_is_all_or_nothing(tmp_path: Path) -> None:
    pairs = import_files([UB60_1, PTS])
    assert [p for p, _ in pairs] == [UB60_1] + [PTS] * 4
    bad = tmp_path / "bad.xml"
    bad.write_text("<PhoronixTestSuite><System>")
    with pytest.raises(ResultFileError, match="bad.xml: XML syntax error"):
        import_files([UB60_1, bad, PTS])
