"""The commands over stored runs, end to end in-process: db rebuild, runs, show, tag,
compare, history, import and report, and their bad-input paths."""

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from osmark import model
from osmark.cli import main

GOLDEN = Path(__file__).parent / "golden"
FIXTURES = Path(__file__).parent / "fixtures"
RUN_A = "20261130T064547-vm-606d"
RUN_B = "20261130T064712-vm-465b"
RUN_C = "20261130T065306-vm-5784"


def osmark(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture()
def store(data_dir, monkeypatch):
    """A data directory with three real runs of one host, indexed."""
    monkeypatch.delenv("OSMARK_DB", raising=False)
    results = data_dir / "results"
    results.mkdir(parents=True)
    for name in ("schema2-index-1copy-a", "schema2-index-1copy-b", "schema2-index-2copies"):
        shutil.copy(GOLDEN / f"{name}.json", results / f"{name}.json")
    result = osmark("db", "rebuild")
    assert result.exit_code == 0, result.output
    assert "Indexed 3 run(s)" in result.output
    return data_dir


def test_runs_lists_newest_first(store):
    result = osmark("runs", "--format", "json")
    rows = json.loads(result.output)
    assert [r["id"] for r in rows] == [RUN_C, RUN_B, RUN_A]
    assert rows[0]["scores"]["1"] == pytest.approx(1454.4, abs=0.1)
    table = osmark("runs").output
    assert RUN_A in table and "1454.4" in table


def test_show_by_id_prefix_and_latest(store):
    assert "Pipe Throughput" in osmark("show", "latest").output
    shown = osmark("show", RUN_A[:17], "--format", "json")
    assert json.loads(shown.output)["run"]["id"] == RUN_A
    unknown = osmark("show", "nothing-like-this")
    assert unknown.exit_code == 2
    assert "nothing-like-this" in unknown.output


def test_tag_writes_the_file_and_the_index(store):
    result = osmark("tag", "latest", "kernel=6.12", "lsm=none")
    assert result.exit_code == 0, result.output
    saved = model.load(store / "results" / "schema2-index-2copies.json")
    assert saved.host.description.tags == {"kernel": "6.12", "lsm": "none"}
    tagged = json.loads(osmark("runs", "--tag", "kernel=6.12", "--format", "json").output)
    assert [r["id"] for r in tagged] == [RUN_C]
    assert osmark("tag", "latest", "no-equals-sign").exit_code == 2
    # the tag survives a rebuild: the file is the truth
    osmark("db", "rebuild")
    assert json.loads(osmark("runs", "--tag", "lsm=none", "--format", "json").output)


def test_compare_formats(store):
    table = osmark("compare", RUN_A, RUN_B)
    assert table.exit_code == 0, table.output
    assert "Pipe Throughput" in table.output and "slower" in table.output
    assert "geometric mean over the 12 tests" in table.output
    data = json.loads(osmark("compare", RUN_A, RUN_B, "--format", "json").output)
    assert data["summaries"][1]["tests"] == 12
    csv_text = osmark("compare", RUN_A, RUN_B, RUN_C, "--format", "csv").output
    assert csv_text.splitlines()[0].startswith("test_id,copies,title")
    md = osmark("compare", "latest~2", "latest", "--percent", "--format", "markdown",
                "--label", "old", "--label", "new").output
    assert md.startswith("| TEST | COPIES | old (%) | new (%) |")
    files = osmark("compare", str(GOLDEN / "schema1-index-2copies.json"),
                   str(GOLDEN / "schema3-index-2copies.json"))
    assert files.exit_code == 0


@pytest.mark.parametrize(("content", "problem"), [
    (None, "no such file"),
    ("", "the file is empty"),
    ('{"schema_version": 2, "tool": ', "not valid JSON"),
    ("<html></html>", "not valid JSON"),
    ('{"schema_version": 2, "tool": {"name": "osmark"}}', "object missing required field"),
    ('{"schema_version": 99}', "newer than this osmark understands"),
    ('{"schema_version": 0}', "not a known version"),
])
def test_compare_bad_file_exits_2_and_stores_nothing(store, tmp_path, content, problem):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    before = osmark("runs", "--format", "json").output
    result = osmark("compare", RUN_A, str(bad))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and problem in lines[0]
    assert osmark("runs", "--format", "json").output == before


def test_history_of_the_index_and_of_one_test(store):
    result = osmark("history")
    assert result.exit_code == 0, result.output
    assert result.output.index(RUN_A) < result.output.index(RUN_C)  # oldest first
    data = json.loads(osmark("history", "--format", "json").output)
    entries = data["entries"]
    assert [e["run"] for e in entries] == [RUN_A, RUN_B, RUN_C]
    assert entries[0]["change"] is None
    assert entries[1]["verdict"] == "regression"  # 10.7 % lower, CI clear of 1
    assert entries[2]["change"] > 1
    one = json.loads(osmark("history", "--test", "pipe", "--format", "json").output)
    assert one["what"] == "ub.pipe ×1" and len(one["entries"]) == 3
    assert one["entries"][1]["verdict"] in ("regression", "no significant difference")
    two = json.loads(osmark("history", "--copies", "2", "--format", "json").output)
    assert [e["run"] for e in two["entries"]] == [RUN_C]
    assert osmark("history", "--host", "no-such-host").exit_code == 2


def test_import_then_compare_with_today(store):
    files = sorted((FIXTURES / "unixbench").glob("ub[46].*.txt"))  # the real outputs
    result = osmark("import", *map(str, files))
    assert result.exit_code == 0, result.output
    imported = [line for line in result.output.splitlines() if line.startswith("Imported ")]
    assert len(imported) == 7  # five 4.x blocks and two 6.0 reports
    runs = json.loads(osmark("runs", "--format", "json", "--limit", "100").output)
    assert len(runs) == 10
    ub6 = next(r for r in runs if r["tool"] == "unixbench 6.0.0")
    compared = osmark("compare", ub6["id"], RUN_A)
    assert compared.exit_code == 0, compared.output
    assert "CI unknown" in compared.output
    assert "different tools" in compared.output
    again = osmark("import", str(files[0]))  # the same file: the same ids, no duplicates
    assert again.exit_code == 0
    assert len(json.loads(osmark("runs", "--format", "json", "--limit", "100").output)) == 10


def test_import_with_one_bad_file_imports_none(store, tmp_path):
    bad = tmp_path / "garbage.txt"
    bad.write_text("this is not a benchmark result\n")
    good = FIXTURES / "unixbench" / "ub6.0-vm-2cpu-subset1.txt"
    before = sorted(p.name for p in (store / "results").iterdir())
    result = osmark("import", str(good), str(bad))
    assert result.exit_code == 2
    assert str(bad) in result.output and len(result.output.strip().splitlines()) == 1
    assert sorted(p.name for p in (store / "results").iterdir()) == before
    assert len(json.loads(osmark("runs", "--format", "json").output)) == 3


def test_report_writes_one_file(store, tmp_path):
    out = tmp_path / "report.html"
    result = osmark("report", RUN_A, RUN_B, RUN_C, "-o", str(out))
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    assert RUN_B in html
    assert osmark("report", RUN_A, "-o", str(tmp_path / "missing" / "r.html")).exit_code == 2


def test_unsupported_database_url(store):
    result = osmark("--db", "mysql://localhost/x", "runs")
    assert result.exit_code == 2
    assert "mysql" in result.output


def test_cli_on_postgresql(pg_url, data_dir, monkeypatch):
    """The same commands with the store in PostgreSQL (--db and $OSMARK_DB)."""
    results = data_dir / "results"
    results.mkdir(parents=True)
    for name in ("schema2-index-1copy-a", "schema2-index-1copy-b"):
        shutil.copy(GOLDEN / f"{name}.json", results / f"{name}.json")
    assert "Indexed 2 run(s)" in osmark("--db", pg_url, "db", "rebuild").output
    monkeypatch.setenv("OSMARK_DB", pg_url)
    rows = json.loads(osmark("runs", "--format", "json").output)
    assert [r["id"] for r in rows] == [RUN_B, RUN_A]
    assert osmark("tag", RUN_A, "where=pg").exit_code == 0
    data = json.loads(osmark("history", "--format", "json").output)
    assert [e["run"] for e in data["entries"]] == [RUN_A, RUN_B]
    assert data["entries"][0]["tags"] == {"where": "pg"}
    assert osmark("compare", "latest~1", "latest").exit_code == 0


def test_history_does_not_call_a_change_of_tool(store):
    """An imported UnixBench run of the same host name sits in the history, uncalled."""
    good = FIXTURES / "unixbench" / "ub6.0-vm-2cpu-subset1.txt"  # host "vm", as the runs
    assert osmark("import", str(good)).exit_code == 0
    entries = json.loads(osmark("history", "--format", "json").output)["entries"]
    imported = next(i for i, e in enumerate(entries) if e["run"].startswith("ub-vm-"))
    after = entries[imported + 1] if imported + 1 < len(entries) else None
    neighbours = [e for e in (entries[imported], after) if e and e["change"] is not None]
    assert neighbours  # the imported run has a neighbour in the history
    for entry in neighbours:
        assert entry["verdict"] == "unknown"
        assert "not comparable" in entry["note"]


def test_history_does_not_call_a_partial_index_against_a_full_one(store):
    """`osmark run pipe spawn` gives a partial index: another average, not a change."""
    full = model.load(store / "results" / "schema2-index-2copies.json")
    partial = msgspec.structs.replace(
        full, run=msgspec.structs.replace(full.run, id="partial-run",
                                          started="2026-11-30T08:00:00+00:00"),
        results=[r for r in full.results if r.id in ("ub.pipe", "ub.spawn")],
        scores=[model.Score(copies=1, index=900.0, partial=True, tests=2)])
    model.save(partial, store / "results" / "partial-run.json")
    assert osmark("db", "rebuild").exit_code == 0
    last = json.loads(osmark("history", "--format", "json").output)["entries"][-1]
    assert last["run"] == "partial-run"
    assert last["verdict"] == "unknown" and last["change_low"] is None
    assert "other tests (2 here, 12 before)" in last["note"]
    assert "not comparable" in osmark("history").output
