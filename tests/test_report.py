"""`osmark report`: the HTML is complete, escaped, offline, small, and renders in a browser.

The unit tests read the HTML as text; the browser tests open the written file in headless
Chromium and check what it lays out and that it fetches nothing.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest

from osmark import model
from osmark.model import BenchResult, ResultFile, Source, Tool
from osmark.report import build_report, write_report
from osmark.report.html import flatten
from osmark.report.svg import dot_path

GOLDEN = Path(__file__).parent / "golden"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def golden(name: str) -> ResultFile:
    return model.load(GOLDEN / f"{name}.json")


@pytest.fixture(scope="module")
def runs() -> list[ResultFile]:
    """Three real runs of one host: 1 copy, 1 copy, 1 and 2 copies."""
    return [golden("schema2-index-1copy-a"), golden("schema2-index-1copy-b"),
            golden("schema2-index-2copies")]


def embedded(html: str) -> list[Any]:
    match = re.search(r'<script type="application/json" id="osmark-data">(.*?)</script>',
                      html, re.S)
    assert match, "no embedded data"
    return json.loads(match.group(1))


def count(html: str, pattern: str) -> int:
    return len(re.findall(pattern, html))


def dots(html: str) -> int:
    """Sample dots drawn: zero-length segments ('h0') in the strip plots' paths."""
    return sum(d.count("h0") for d in re.findall(r'<path class="samples" d="([^"]*)"', html))


def samples(results: list[ResultFile]) -> int:
    return sum(len(r.samples) for f in results for r in f.results if r.status == "ok")


def with_id(result: ResultFile, run_id: str, **run: Any) -> ResultFile:
    return msgspec.structs.replace(result, run=msgspec.structs.replace(result.run, id=run_id,
                                                                       **run))


def imported(result: ResultFile) -> ResultFile:
    """An imported UnixBench run: one figure per test, no samples, no CI."""
    bare = [msgspec.structs.replace(r, samples=[], n=0, ci_low=None, ci_high=None, mad=None,
                                    min=None, max=None) for r in result.results]
    run = msgspec.structs.replace(result.run, id="ub-import",
                                  source=Source("unixbench-text", "ub.log", "oldbox"))
    return msgspec.structs.replace(result, tool=Tool("unixbench", "6.0.0"), run=run,
                                   results=bare)


def with_failures(result: ResultFile) -> ResultFile:
    results = list(result.results)
    results[0] = msgspec.structs.replace(results[0], status="failed", median=None,
                                         ci_low=None, ci_high=None, samples=[], n=0,
                                         reason="kernel crashed: </script><b>x</b>")
    results[1] = msgspec.structs.replace(results[1], status="skipped", median=None,
                                         ci_low=None, ci_high=None, samples=[], n=0,
                                         reason="no compiler")
    return msgspec.structs.replace(result, results=results)


# --- structure --------------------------------------------------------------------------

def test_one_run(runs: list[ResultFile]) -> None:
    html = build_report(runs[:1], now=NOW)
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>osmark report: vm</title>" in html
    assert "Generated 2026-12-01 12:00 UTC by osmark" in html
    assert runs[0].run.id in html
    assert count(html, r'<td class=test ') == len(runs[0].results)
    assert count(html, r'<svg class="chart chart-samples"') == len(runs[0].results)
    assert dots(html) == samples(runs[:1])
    assert '<svg class="chart chart-ratios"' not in html
    assert '<svg class="chart chart-history"' not in html
    assert 'id="summary"' not in html
    assert "1379.8" in html  # the index score


def test_two_runs(runs: list[ResultFile]) -> None:
    html = build_report(runs[:2], labels=["before", "after"], now=NOW)
    assert "<title>osmark comparison: 2 runs of vm</title>" in html
    assert count(html, r'<rect class="bar ') == 12
    assert count(html, r'<path class="whisker"') == 12
    assert count(html, r'<td class=test ') == 12
    # b is ~11 % slower than a overall: the summary says so, in red.
    assert re.search(r'<td class="num v-slower">0\.89× \(0\.8\d–0\.9\d\)</td>', html)
    assert '<td class="verdict v-slower">slower</td>' in html
    assert "Winner" not in html
    assert dots(html) == samples(runs[:2])
    assert count(html, r'class="history-line') == 1


def test_three_runs(runs: list[ResultFile]) -> None:
    html = build_report(runs, now=NOW)
    assert "<th rowspan=\"2\">Winner</th>" in html
    assert count(html, r'<td class=test ') == 24  # 12 tests × 1 copy, 12 × 2 copies
    # Bars: b and c against a, on the 12 one-copy tests a ran.
    assert count(html, r'<rect class="bar ') == 24
    assert count(html, r'<svg class="chart chart-samples"') == 24
    assert dots(html) == samples(runs)
    # History: one line for 1 copy (3 runs) and a lone point for 2 copies.
    assert count(html, r'<path class="history-line') == 1
    assert count(html, r'<circle class="point') == 4
    assert "run start (UTC, 2026-11-30)" in html


def test_history_needs_one_host(runs: list[ResultFile]) -> None:
    other = msgspec.structs.replace(runs[1], host=msgspec.structs.replace(
        runs[1].host, description=msgspec.structs.replace(runs[1].host.description,
                                                          hostname="elsewhere")))
    html = build_report([runs[0], other], now=NOW)
    assert '<svg class="chart chart-history"' not in html
    assert "osmark comparison: vm vs elsewhere" in html
    assert re.search(r"<tr class=differs><th>Hostname</th>", html)
    assert not re.search(r"<tr class=differs><th>CPU</th>", html)


def test_systems_table_and_host_record(runs: list[ResultFile]) -> None:
    html = build_report(runs, now=NOW)
    table = re.search(r'<table class="systems">.*?</table>', html, re.S)
    assert table
    assert count(table.group(0), r"<tr") == 13  # heading + 12 fields
    assert "-O3 -ffast-math -march=native -std=gnu11" in table.group(0)
    details = re.search(r'<details class="host-info">.*?</details>', html, re.S)
    assert details
    assert ">cpu.caches.L3.size_bytes</th><td>33554432</td>" in details.group(0)
    assert ">cpu.flags</th><td>sse4_2, avx, " in details.group(0)
    # The storage path differs between runs: highlighted.
    assert re.search(r'<tr class=differs><th class="mono">storage\.path</th>', html)


def test_flatten_nested_records() -> None:
    record = {"cpu": {"caches": {"l3": 32}, "flags": ["a", "b"]}, "empty": {}, "none": None,
              "disks": [{"name": "vda"}, {"name": "vdb"}], "ok": True, "list": []}
    assert flatten(record) == {"cpu.caches.l3": "32", "cpu.flags": "a, b", "empty": "{}",
                               "none": "null", "disks.0.name": "vda", "disks.1.name": "vdb",
                               "ok": "true", "list": "[]"}


def test_dot_path_draws_one_dot_per_sample() -> None:
    assert dot_path([]) == ""
    path = dot_path([10.04, 12.0, 11.5, 11.5])
    assert path.count("h0") == 4
    assert path.startswith("M10 0h0m1.5-3h0m0 6h0m0.5-3h0")


def test_comparison_notes_and_flags(runs: list[ResultFile]) -> None:
    other = msgspec.structs.replace(runs[1], host=msgspec.structs.replace(
        runs[1].host, identity=msgspec.structs.replace(runs[1].host.identity,
                                                       cflags=["-O2"], cpus=4)))
    html = build_report([runs[0], other], now=NOW)
    assert "CPU count differs: " in html
    # CPU tests built with different flags: footnoted on their rows.
    assert '<li id="fn-1">CPU test built by different compilers or flags</li>' in html
    assert count(html, r'<sup><a href="#fn-1"') == 2  # dhrystone and whetstone


# --- data, escaping, offline --------------------------------------------------------------

def test_embedded_json_round_trips(runs: list[ResultFile]) -> None:
    for chosen in (runs[:1], runs):
        data = embedded(build_report(chosen, now=NOW))
        assert data == [msgspec.to_builtins(r) for r in chosen]
        assert data == [json.loads(model.dumps(r)) for r in chosen]
        assert msgspec.convert(data, list[ResultFile]) == chosen


def test_user_text_is_escaped(runs: list[ResultFile]) -> None:
    evil = "<script>alert(1)</script>"
    description = msgspec.structs.replace(runs[0].host.description, hostname="<b>h&amp;",
                                          tags={"owner": evil})
    info = dict(runs[0].host.info, note={"x": "</script><img src=x onerror=alert(2)>"})
    host = msgspec.structs.replace(runs[0].host, description=description, info=info)
    result = with_failures(msgspec.structs.replace(runs[0], host=host))
    for chosen in ([result], [result, runs[1]]):
        html = build_report(chosen, labels=None, title="T <i>", now=NOW)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "&lt;b&gt;h&amp;amp;" in html
        assert "<title>T &lt;i&gt;</title>" in html
        assert count(html, r"<script") == 1 and count(html, r"</script") == 1
        assert "<img" not in html and "<b>x" not in html and "<b>h" not in html
        assert msgspec.convert(embedded(html), list[ResultFile]) == chosen


def test_self_contained_and_offline(runs: list[ResultFile]) -> None:
    html = build_report(runs, now=NOW)
    assert ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; img-src data:;") in html
    lowered = html.lower()
    for banned in ("http:", "https:", "//", "<link", "<img", "<iframe", "<object", "<embed",
                   "@import", "url(", "src=", "srcset", "@font-face"):
        assert banned not in lowered, banned
    assert set(re.findall(r'href="([^"]*)"', html)) <= {f"#fn-{i}" for i in range(1, 20)}
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == ['<script type="application/json" id="osmark-data">']


def test_failed_skipped_and_imported_results_render(runs: list[ResultFile]) -> None:
    failing, old = with_failures(runs[1]), imported(runs[0])
    html = build_report([failing], now=NOW)
    assert "kernel crashed: &lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in html
    assert ">failed</td>" in html and ">skipped</td>" in html
    html = build_report([old], now=NOW)
    assert "CI unknown" in html
    assert "imported from unixbench 6.0.0 text (ub.log)" in html
    assert "<title>osmark report: oldbox</title>" in html
    assert count(html, r">no samples</text>") == len(old.results)
    assert dots(html) == 0
    html = build_report([old, failing, runs[2]], now=NOW)
    assert "CI unknown" in html
    assert "(CI unknown)" in html  # ratios against the imported baseline
    assert '<td class="verdict v-unknown">unknown</td>' in html
    # Against a baseline without samples: ratios with no CI, so bars but no whiskers.
    assert count(html, r'<rect class="bar ') == 10 + 12
    assert count(html, r'<path class="whisker"') == 0
    assert "Dhrystone 2 using register variables ×1 failed: kernel crashed" in html
    assert msgspec.convert(embedded(html), list[ResultFile]) == [old, failing, runs[2]]


def test_build_report_needs_a_result() -> None:
    with pytest.raises(ValueError):
        build_report([])


def ten_runs(runs: list[ResultFile]) -> list[ResultFile]:
    """Ten runs of 24 tests with 40 samples each, each run a little slower than the last."""
    template = runs[2]
    out = []
    for i in range(10):
        factor = 1.0 - 0.01 * i
        results: list[BenchResult] = []
        for r in template.results:
            drawn = [s * factor for s in (r.samples * 40)[:40]]
            results.append(msgspec.structs.replace(r, samples=drawn, n=40,
                                                   median=(r.median or 0.0) * factor))
        out.append(msgspec.structs.replace(
            with_id(template, f"20261201T{i:02d}0000-vm-{i:04x}",
                    started=f"2026-12-{i + 1:02d}T06:00:00+00:00"),
            results=results))
    return out


def test_ten_runs_stay_well_under_a_megabyte(runs: list[ResultFile]) -> None:
    many = ten_runs(runs)
    html = build_report(many, now=NOW)
    size = len(html.encode("utf-8"))
    data = len(json.dumps(embedded(html), separators=(",", ":")))
    print(f"10-run report: {size} bytes, {data} of them the embedded JSON")
    assert size < 1_000_000
    assert dots(html) == 10 * 24 * 40
    assert count(html, r'<rect class="bar ') == 9 * 24
    assert count(html, r'<circle class="point') == 20


def test_write_report_is_atomic(tmp_path: Path, runs: list[ResultFile],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out" / "report.html"
    html = build_report(runs[:1], now=NOW)
    assert write_report(html, path) == path
    assert path.read_text(encoding="utf-8") == html
    assert os.listdir(path.parent) == ["report.html"]

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_report("<html>new</html>", path)
    assert path.read_text(encoding="utf-8") == html  # the old report, whole
    assert os.listdir(path.parent) == ["report.html"]  # no temp file left behind


# --- in a browser -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Headless Chromium that logs every network request; quit whatever the outcome."""
    required = os.environ.get("OSMARK_REQUIRE_BROWSER") == "1"
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install selenium)")
    if missing:
        why = "browser tests need " + ", ".join(missing)
        if required:
            pytest.fail(why + " (OSMARK_REQUIRE_BROWSER=1)")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1280,900",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    request.addfinalizer(driver.quit)
    driver.set_page_load_timeout(20)
    driver.get("about:blank")  # leave the start page, whose own requests are not ours
    return driver


def open_report(driver: Any, html: str, path: Path) -> None:
    write_report(html, path)
    driver.get_log("performance")  # drop what earlier pages logged
    driver.get(path.as_uri())


def assert_offline(driver: Any) -> None:
    """Every request the page made was for the file itself (or inline data)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert urls, "the performance log saw no request at all"
    assert all(u.startswith(("file://", "data:")) for u in urls), urls
    problems = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not problems, problems  # a CSP violation would show here


def rendered(driver: Any, selector: str) -> list[dict[str, float]]:
    """The rendered boxes of the elements a selector finds (read only; nothing injected)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".map(e => {const r = e.getBoundingClientRect();"
        " return {width: r.width, height: r.height};});", selector)


def rows(driver: Any, selector: str) -> int:
    return len(rendered(driver, selector))


def test_browser_one_run(browser: Any, tmp_path: Path, runs: list[ResultFile]) -> None:
    open_report(browser, build_report(runs[:1], now=NOW), tmp_path / "one.html")
    assert browser.title == "osmark report: vm"
    assert rows(browser, "table.systems tbody tr") == 12
    assert rows(browser, "table.results tbody tr") == 12
    boxes = rendered(browser, "svg.chart-samples")
    assert len(boxes) == 12
    assert all(b["width"] > 100 and b["height"] > 10 for b in boxes)
    drawn = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg.chart-samples path.samples'))"
        ".map(p => p.getAttribute('d').split('h0').length - 1).reduce((a, b) => a + b, 0);")
    assert drawn == samples(runs[:1])
    assert rows(browser, "svg.chart-ratios") == 0
    assert_offline(browser)


def test_browser_offline_check_catches_a_fetch(browser: Any, tmp_path: Path) -> None:
    """A control: a page that does fetch (no CSP, an image on the loopback discard port)."""
    page = '<!DOCTYPE html><title>leak</title><img src="http://127.0.0.1:9/x.png">'
    open_report(browser, page, tmp_path / "leak.html")
    with pytest.raises(AssertionError, match="127.0.0.1:9"):
        assert_offline(browser)
    browser.get_log("browser")


def test_browser_comparison(browser: Any, tmp_path: Path, runs: list[ResultFile]) -> None:
    html = build_report(runs, title="Three runs", now=NOW)
    open_report(browser, html, tmp_path / "three.html")
    assert browser.title == "Three runs"
    assert rows(browser, "table.systems tbody tr") == 12
    assert rows(browser, "table.results tbody tr") == 24
    assert rows(browser, "table.summary tbody tr") == 3
    for selector in ("svg.chart-ratios", "svg.chart-history"):
        (box,) = rendered(browser, selector)
        assert box["width"] > 300 and box["height"] > 100, selector
    bars = rendered(browser, "svg.chart-ratios rect.bar")
    assert len(bars) == 24 and all(b["width"] > 0 and b["height"] > 0 for b in bars)
    assert rows(browser, "svg.chart-samples") == 24
    assert rows(browser, "svg.chart-history path.history-line") == 1
    points = rendered(browser, "svg.chart-history circle.point")
    assert len(points) == 4 and all(p["width"] > 0 for p in points)
    # The data block is intact as the browser parsed it.
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('osmark-data').textContent);")
    assert msgspec.convert(data, list[ResultFile]) == runs
    assert_offline(browser)


def with_latency_curve(result: ResultFile, run_id: str, factor: float) -> ResultFile:
    """The result with a memory-latency series added (what `osmark run memory` gives)."""
    template = result.results[0]
    sizes = ("4k", "64k", "1m", "16m", "256m")
    curve = [msgspec.structs.replace(
        template, id=f"mem.latency.{size}", title=f"Load latency, {size} working set",
        category="memory", unit="ns", higher_is_better=False, copies=1, baseline=None,
        index=None, median=ns * factor, samples=[ns * factor] * 6, n=6)
        for size, ns in zip(sizes, (1.0, 3.5, 12.0, 40.0, 95.0), strict=True)]
    return msgspec.structs.replace(with_id(result, run_id), results=[*result.results, *curve])


def test_latency_curve_when_measured(runs: list[ResultFile]) -> None:
    html = build_report([with_latency_curve(runs[0], "lat-a", 1.0),
                         with_latency_curve(runs[1], "lat-b", 1.2)])
    assert count(html, r'<svg class="chart chart-curve"') == 1
    assert count(html, r'<path class="curve-line') == 2
    assert count(html, r'<circle class="point s[01]" cx="[^"]+" cy="[^"]+" r="4"><title>'
                       r'lat-[ab]: Load latency') == 10
    assert "Memory latency" in html
    assert "chart-curve" not in build_report(runs[:2])  # no curve without the tests
