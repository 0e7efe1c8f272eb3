"""compare: verdicts, ratios, summaries and flags on real result files and made-up ones."""

import csv
import io
import json
import random
from pathlib import Path

import msgspec
import pytest

from osmark import compare, compare_view, model

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str) -> model.ResultFile:
    return model.load(GOLDEN / name)


def with_samples(result: model.ResultFile, test_id: str, samples: list[float],
                 higher_is_better: bool = True) -> model.ResultFile:
    """A copy of result whose test_id (1 copy) has these samples."""
    from osmark import stats

    results = []
    for r in result.results:
        if r.id == test_id and r.copies == 1:
            r = msgspec.structs.replace(r, samples=samples, median=stats.median(samples),
                                        n=len(samples), higher_is_better=higher_is_better)
        results.append(r)
    return msgspec.structs.replace(result, results=results)


def noisy(centre: float, n: int = 12, seed: int = 0) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(centre, centre * 0.005) for _ in range(n)]


def test_verdicts_faster_slower_same():
    base = golden("schema2-index-1copy-a.json")
    a = with_samples(base, "ub.pipe", noisy(100.0))
    faster = with_samples(base, "ub.pipe", noisy(110.0, seed=1))
    slower = with_samples(base, "ub.pipe", noisy(90.0, seed=2))
    same = with_samples(base, "ub.pipe", noisy(100.0, seed=3))
    tiny = with_samples(base, "ub.pipe", noisy(100.5, n=40, seed=4))  # real but under 1 %
    result = compare.compare([a, faster, slower, same, tiny])
    row = next(r for r in result.rows if r.test_id == "ub.pipe")
    verdicts = [c.verdict for c in row.cells[1:]]
    assert verdicts == ["faster", "slower", "no significant difference",
                        "no significant difference"]
    ratio = row.cells[1].estimate
    assert ratio.low < ratio.ratio < ratio.high
    assert 1.08 < ratio.ratio < 1.12
    assert row.winner == 1 and row.clear_winner


def test_lower_is_better_is_inverted():
    base = golden("schema2-index-1copy-a.json")
    a = with_samples(base, "ub.pipe", noisy(100.0), higher_is_better=False)
    b = with_samples(base, "ub.pipe", noisy(50.0, seed=1), higher_is_better=False)
    row = next(r for r in compare.compare([a, b]).rows if r.test_id == "ub.pipe")
    assert row.cells[1].estimate.ratio == pytest.approx(2.0, rel=0.02)
    assert row.cells[1].verdict == "faster"


def test_real_runs_summary():
    a, b = golden("schema2-index-1copy-a.json"), golden("schema2-index-1copy-b.json")
    result = compare.compare([a, b])
    summary = result.summaries[1]
    assert result.summaries[0] is None
    assert summary.tests == 12
    assert summary.faster + summary.slower + summary.same + summary.unknown == 12
    assert summary.low < summary.geomean < summary.high
    # the geometric mean of the per-test ratios
    ratios = [r.cells[1].estimate.ratio for r in result.rows]
    from osmark import stats
    assert summary.geomean == pytest.approx(stats.geometric_mean(ratios))
    assert summary.verdict in ("faster", "slower", "no significant difference")


def test_tests_only_one_side_ran_are_kept_but_not_summarised():
    one, two = golden("schema2-index-1copy-a.json"), golden("schema2-index-2copies.json")
    result = compare.compare([one, two])
    assert len(result.rows) == 24
    assert result.summaries[1].tests == 12
    only_two = [r for r in result.rows if r.copies == 2]
    assert all(r.cells[0] is None and r.cells[1].estimate is None for r in only_two)


def test_no_samples_means_unknown():
    a = golden("schema2-index-1copy-a.json")
    bare = msgspec.structs.replace(a, results=[
        msgspec.structs.replace(r, samples=[], n=0, ci_low=None, ci_high=None)
        for r in a.results])
    result = compare.compare([bare, a])
    assert {c.verdict for r in result.rows for c in r.cells[1:]} == {"unknown"}
    assert result.summaries[1].low is None and result.summaries[1].verdict == "unknown"
    table = compare_view.markdown(result)
    assert "CI unknown" in table


def test_flags_for_different_tools_and_builds():
    a = golden("schema2-index-1copy-a.json")
    other_tool = msgspec.structs.replace(a, tool=model.Tool("unixbench", "6.0.0"))
    rows = compare.compare([a, other_tool]).rows
    assert all("different tools" in " ".join(r.flags) for r in rows)
    identity = msgspec.structs.replace(a.host.identity, cflags=["-O2"])
    rebuilt = msgspec.structs.replace(a, host=msgspec.structs.replace(a.host,
                                                                       identity=identity))
    rows = compare.compare([a, rebuilt]).rows
    flagged = {r.test_id for r in rows if r.flags}
    assert flagged == {"ub.dhry2reg", "ub.whetstone-double"}  # the CPU tests only
    moved = msgspec.structs.replace(a.host.identity, cpu_model="Other CPU")
    other_host = msgspec.structs.replace(a, host=msgspec.structs.replace(a.host,
                                                                          identity=moved))
    result = compare.compare([a, other_host], labels=["a", "b"])
    assert any("CPU model differs" in n for n in result.notes)
    grid = compare_view.grid(result)  # flagged in the table, on the system's column
    assert grid.headers[3] == "b [1]" and grid.footnotes[0].startswith("CPU model differs")


def test_labels_unique():
    a, b = golden("schema2-index-1copy-a.json"), golden("schema2-index-1copy-b.json")
    assert compare.labels_for([a, b]) == [a.run.id, b.run.id]
    assert compare.labels_for([a, b], ["old", "new"]) == ["old", "new"]


def test_views():
    a, b, c = (golden(f"schema2-index-{n}.json") for n in ("1copy-a", "1copy-b", "2copies"))
    result = compare.compare([a, b, c], labels=["A", "B", "C"])
    data = json.loads(compare_view.to_json(result))
    assert [s["label"] for s in data["systems"]] == ["A", "B", "C"]
    assert len(data["rows"]) == 24
    assert data["rows"][0]["cells"][1]["verdict"] in ("faster", "slower",
                                                      "no significant difference")
    lines = list(csv.DictReader(io.StringIO(compare_view.to_csv(result))))
    assert len(lines) == 12 * 3 + 12  # 12 shared tests × 3 systems, 12 only C ran
    assert {line["system"] for line in lines} == {"A", "B", "C"}
    md = compare_view.markdown(result, percent=True)
    assert md.splitlines()[0].startswith("| TEST | COPIES | A (%) | B (%) | C (%) | BEST |")
    assert "100.00%" in md
    grid = compare_view.grid(result)
    assert all(len(row) == len(grid.headers) for row in grid.rows)


def test_one_result_is_not_a_comparison():
    with pytest.raises(ValueError):
        compare.compare([golden("schema2-index-1copy-a.json")])


def test_failed_results_are_left_out():
    a = golden("schema2-index-1copy-a.json")
    failed = msgspec.structs.replace(a, results=[
        msgspec.structs.replace(r, status="failed", median=None) if r.id == "ub.pipe" else r
        for r in a.results])
    row = next(r for r in compare.compare([a, failed]).rows if r.test_id == "ub.pipe")
    assert row.cells[1] is None


def test_too_few_samples_for_the_test_is_unknown_not_no_difference():
    """3 against 3 (PTS's default run count) can never reach p < 0.05."""
    base = golden("schema2-index-1copy-a.json")
    a = with_samples(base, "ub.pipe", [100.0, 101.0, 99.0])
    b = with_samples(base, "ub.pipe", [300.0, 303.0, 297.0])
    cell = next(r for r in compare.compare([a, b]).rows if r.test_id == "ub.pipe").cells[1]
    assert cell.verdict == "unknown"
    assert cell.estimate.ratio == pytest.approx(3.0)
    assert cell.estimate.low > 2.9  # the bootstrap CI is still given
