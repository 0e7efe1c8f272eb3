"""`osmark report`: one self-contained HTML file for one run or a comparison of several.

The file is meant to be mailed, attached to a ticket or archived, and opened offline
years later: inline CSS and inline SVG only, no script, no fonts, no images, and a
Content-Security-Policy that forbids every fetch. Everything shown comes from the result
files, which are embedded as JSON so the report also carries its own data; all their text
is HTML-escaped, because hostnames and tags are whatever the user typed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

import msgspec

from osmark import __version__
from osmark.compare import FASTER, SAME, SLOWER, Comparison, Row, compare, labels_for
from osmark.console import ci_percent, format_number, quality_notes
from osmark.files import write_atomically
from osmark.model import BenchResult, ResultFile
from osmark.report import svg

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")

VERDICT_KEY = {FASTER: "faster", SLOWER: "slower", SAME: "same"}

PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
           "#b279a2", "#eeca3b", "#ff9da6", "#9d755d", "#8c8c8c")

CSS = """
:root{color-scheme:light}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:#1f2328;background:#fff;margin:24px auto;max-width:1200px;padding:0 16px}
h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.2em;margin:28px 0 8px;
border-bottom:1px solid #d0d7de;padding-bottom:4px}
.meta{color:#59636e;margin:0 0 8px}ul.runs{padding-left:0;list-style:none;margin:4px 0}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.wrap{overflow-x:auto}
table{border-collapse:collapse;margin:4px 0 8px}
th,td{padding:3px 8px;border-bottom:1px solid #e1e4e8;vertical-align:top;text-align:left}
thead th{border-bottom:2px solid #afb8c1;white-space:nowrap}
tbody tr:nth-child(odd){background:#f6f8fa}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.sys{text-align:center;border-left:1px solid #d0d7de}td.first{border-left:1px solid #d0d7de}
tbody th{font-weight:600;white-space:nowrap}td.test,td.verdict,table.results td{white-space:nowrap}
tr.differs>*{background:#fff4d6}tr.differs>th::after{content:" \\2260";color:#9a6700}
.ci{color:#59636e}.unknown{color:#59636e;font-style:italic}.missing{color:#8c959f}
.v-faster{color:#1a7f37;font-weight:600}.v-slower{color:#cf222e;font-weight:600}
.v-same{color:#6e7781}
.q-noisy{color:#9a6700}.q-invalid{color:#cf222e}.q-unknown{color:#6e7781}
.status{color:#9a6700}
details{margin:8px 0}summary{cursor:pointer;color:#0969da}
.notes li,.footnotes li{margin:2px 0}.footnotes{font-size:.92em;color:#59636e}
sup a{text-decoration:none}
.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px}
.sw{display:inline-block;width:10px;height:10px;margin-right:5px;border-radius:2px}
figure{margin:8px 0}figcaption{font-size:.92em;color:#59636e}
.strips{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:4px 24px}
.strips figcaption{color:#1f2328}
svg.chart{display:block;max-width:100%;height:auto;font-size:11px}
.chart text{fill:#1f2328}.chart text.title{fill:#59636e}.chart .note{fill:#6e7781;font-style:italic}
.chart .grid path{stroke:#eaeef2}.chart .axis path{stroke:#8c959f;fill:none}
.chart .ref{stroke:#1f2328;stroke-dasharray:3 2}
rect.bar{stroke:none}.bar.v-same,.bar.v-unknown{fill-opacity:.45}
.whisker{stroke:#1f2328;fill:none}
.samples{fill:none;stroke-width:4.5;stroke-linecap:round;stroke-opacity:.75}.median{stroke:#1f2328;stroke-width:2}
path.history-line,path.curve-line{fill:none;stroke-width:2}.point{stroke:#fff;stroke-width:1.5}
@media print{body{margin:0;max-width:none;font-size:10pt}.wrap{overflow:visible}
tr,figure,svg.chart-history{break-inside:avoid}h2{break-after:avoid}summary{color:#1f2328}}
"""


def write_report(html: str, path: Path) -> Path:
    """Write atomically: a reader (or a browser reloading) never sees half a report."""
    return write_atomically(path, html.encode("utf-8"), mode=0o644)


def build_report(results: list[ResultFile], labels: list[str] | None = None,
                 title: str | None = None, *, now: datetime | None = None) -> str:
    """The whole HTML document: one run, or a comparison against the first one."""
    if not results:
        raise ValueError("a report needs at least one result")
    comparison = compare(results, labels=labels) if len(results) >= 2 else None
    names = ([s.label for s in comparison.systems] if comparison
             else labels_for(results, labels))
    title = title or _default_title(results, names)
    now = now or datetime.now(timezone.utc)
    history = _history_series(results, names)
    parts = [
        _head(title),
        _header(title, now, results, names),
        _systems(results, names),
        _notes(results, names, comparison),
    ]
    if comparison is not None:
        parts.append(_summary(comparison))
    parts.append(_scores(results, names))
    if comparison is not None:
        parts.append(_comparison_table(comparison))
    else:
        parts.append(_single_table(results[0], names[0]))
    parts.append('<section id="charts"><h2>Charts</h2>')
    if comparison is not None:
        parts.append(_ratio_section(comparison))
    parts.append(_strip_section(results, names, comparison))
    curves = _latency_curves(results)
    if curves:
        parts.append(_latency_section(curves))
    if history:
        parts.append(_history_section(history))
    parts.append("</section>")
    parts.append(_data(results))
    parts.append("</body></html>\n")
    return "".join(parts)


# --- text helpers -----------------------------------------------------------------------

def esc(value: object) -> str:
    return escape(str(value), quote=True)


def _copies(copies: int) -> str:
    return f"{copies} cop{'y' if copies == 1 else 'ies'}"


def _ci_text(result: BenchResult) -> str:
    text = ci_percent(result)
    if text == "?":
        return '<span class="ci unknown">CI unknown</span>'
    star = "" if result.converged else '<span title="did not reach the CI target">*</span>'
    return f'<span class="ci">{esc(text)}</span>{star}'


def _ratio_text(ratio: float, low: float | None, high: float | None) -> str:
    def r(v: float) -> str:
        return "∞" if not math.isfinite(v) else f"{v:.2f}"
    if low is None or high is None:
        return f'{r(ratio)}× <span class="unknown">(CI unknown)</span>'
    return f"{r(ratio)}× ({r(low)}–{r(high)})"


def _verdict_key(verdict: str | None) -> str:
    return VERDICT_KEY.get(verdict or "", "unknown")


def _origin(result: ResultFile) -> str | None:
    source = result.run.source
    if source is None:
        return None
    kind = source.format.split("-", 1)[1] if "-" in source.format else source.format
    return f"imported from {result.tool.name} {result.tool.version} {kind} ({source.file})"


def _default_title(results: list[ResultFile], names: list[str]) -> str:
    if len(results) == 1:
        return f"osmark report: {names[0]}"
    hosts = {r.host.description.hostname for r in results}
    if len(hosts) == 1:
        return f"osmark comparison: {len(results)} runs of {hosts.pop()}"
    if len(results) <= 3:
        return "osmark comparison: " + " vs ".join(names)
    return f"osmark comparison of {len(results)} runs"


def _swatch(position: int) -> str:
    return f'<i class="sw {svg.system_class(position)}"></i>'


# --- sections -----------------------------------------------------------------------------

def _head(title: str) -> str:
    palette = "".join(f".s{i}{{fill:{c};stroke:{c};background:{c}}}"
                      for i, c in enumerate(PALETTE))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="referrer" content="no-referrer">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="generator" content="osmark {esc(__version__)}">'
            f"<title>{esc(title)}</title><style>{palette}{CSS}</style></head><body>")


def _header(title: str, now: datetime, results: list[ResultFile], names: list[str]) -> str:
    generated = now.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"<header><h1>{esc(title)}</h1>"
           f'<p class="meta">Generated {esc(generated)} by osmark {esc(__version__)}.'
           + (" The first run is the baseline." if len(results) > 1 else "") + "</p>"
           '<ul class="runs">']
    for i, (result, name) in enumerate(zip(results, names, strict=True)):
        run = result.run
        bits = [] if name == run.id else [f"run <code>{esc(run.id)}</code>"]
        bits += [f"started {esc(run.started)}",
                f"suite {esc(run.suite)}",
                "complete" if run.complete else '<span class="status">incomplete</span>',
                f'quality <span class="q-{esc(run.quality)}">{esc(run.quality)}</span>']
        origin = _origin(result)
        if origin:
            bits.append(esc(origin))
        out.append(f"<li>{_swatch(i)}<b>{esc(name)}</b>: " + ", ".join(bits) + "</li>")
    out.append("</ul></header>")
    return "".join(out)


def _system_fields(result: ResultFile) -> list[tuple[str, str]]:
    """The host as rows of (field, escaped HTML value)."""
    identity, description = result.host.identity, result.host.description
    cpus = str(identity.cpus)
    if description.cpus_usable != identity.cpus:
        cpus += f" ({description.cpus_usable} usable)"
    compiler = "none"
    if identity.compiler or identity.compiler_version:
        compiler = esc(" — ".join(v for v in (identity.compiler, identity.compiler_version)
                                   if v))
        if identity.cflags:
            compiler += f"<br><code>{esc(' '.join(identity.cflags))}</code>"
    tool = f"{result.tool.name} {result.tool.version}"
    if result.tool.name != "osmark" or identity.osmark_version != result.tool.version:
        tool += f" (osmark {identity.osmark_version})"
    tags = ", ".join(f"{k}={v}" for k, v in description.tags.items())
    return [
        ("CPU", esc(identity.cpu_model)),
        ("CPUs", esc(cpus)),
        ("Memory", esc(f"{identity.memory_gib:g} GiB")),
        ("Kernel", esc(identity.kernel)),
        ("OS", esc(identity.os)),
        ("Arch", esc(identity.arch)),
        ("Compiler", compiler),
        ("Virtualization", esc(identity.virtualization)),
        ("Tool", esc(tool)),
        ("Python", esc(description.python)),
        ("Hostname", esc(description.hostname)),
        ("Tags", esc(tags) if tags else '<span class="missing">none</span>'),
    ]


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """A nested host record as dotted keys (cpu.caches.L3.size_bytes) and display strings."""
    if isinstance(value, dict):
        if not value:
            return {prefix: "{}"} if prefix else {}
        out: dict[str, str] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list):
        if not value:
            return {prefix: "[]"}
        if all(not isinstance(v, (dict, list)) for v in value):
            return {prefix: ", ".join(_scalar(v) for v in value)}
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{prefix}.{i}"))
        return out
    return {prefix: _scalar(value)}


def _systems(results: list[ResultFile], names: list[str]) -> str:
    several = len(results) > 1
    head = "".join(f"<th>{_swatch(i)}{esc(n)}</th>" for i, n in enumerate(names))
    fields = [_system_fields(r) for r in results]
    out = ['<section id="systems"><h2>Systems</h2><div class="wrap">'
           f'<table class="systems"><thead><tr><th></th>{head}</tr></thead><tbody>']
    for row in range(len(fields[0])):
        values = [f[row][1] for f in fields]
        differs = several and len(set(values)) > 1
        out.append(f'<tr{" class=differs" if differs else ""}><th>{fields[0][row][0]}</th>'
                   + "".join(f"<td>{v}</td>" for v in values) + "</tr>")
    out.append("</tbody></table></div>")
    flat = [flatten(r.host.info) for r in results]
    keys: list[str] = []
    seen: set[str] = set()
    for record in flat:
        for key in record:
            if key not in seen:
                seen.add(key)
                keys.append(key)
    rows = []
    differing = 0
    for key in keys:
        values = [record.get(key) for record in flat]
        differs = several and len(set(values)) > 1
        differing += differs
        cells = "".join('<td class="missing">—</td>' if v is None else f"<td>{esc(v)}</td>"
                        for v in values)
        rows.append(f'<tr{" class=differs" if differs else ""}><th class="mono">{esc(key)}</th>'
                    f"{cells}</tr>")
    what = f"{len(keys)} fields" + (f", {differing} differ" if several else "")
    out.append(f'<details class="host-info"><summary>Everything the host record holds '
               f'({what})</summary><div class="wrap"><table class="host-info">'
               f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}"
               "</tbody></table></div></details></section>")
    return "".join(out)


def _notes(results: list[ResultFile], names: list[str], comparison: Comparison | None) -> str:
    notes = list(comparison.notes) if comparison else []
    for result, name in zip(results, names, strict=True):
        prefix = f"{name}: " if len(results) > 1 else ""
        notes.extend(prefix + note for note in quality_notes(result))
        notes.extend(f"{prefix}{r.title} ×{r.copies} {r.status}"
                     + (f": {r.reason}" if r.reason else "")
                     for r in result.results if r.status != "ok")
    if not notes:
        return ""
    return ('<section id="notes"><h2>Notes</h2><ul class="notes">'
            + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul></section>")


def _summary(comparison: Comparison) -> str:
    out = ['<section id="summary"><h2>Summary</h2><div class="wrap"><table class="summary">'
           "<thead><tr><th>System</th><th class=num>Geometric mean ratio (95 % CI)</th>"
           "<th>Verdict</th><th class=num>Tests</th><th class=num>Faster</th>"
           "<th class=num>Slower</th><th class=num>Same</th><th class=num>Unknown</th>"
           "</tr></thead><tbody>"]
    for i, (system, summary) in enumerate(zip(comparison.systems, comparison.summaries,
                                                    strict=True)):
        name = f"<th>{_swatch(i)}{esc(system.label)}</th>"
        if summary is None:
            out.append(f"<tr>{name}<td class=num>1×</td><td>baseline</td>"
                       + "<td></td>" * 5 + "</tr>")
            continue
        key = _verdict_key(summary.verdict)
        ratio = ("—" if summary.geomean is None
                 else _ratio_text(summary.geomean, summary.low, summary.high))
        out.append(f"<tr>{name}<td class=\"num v-{key}\">{ratio}</td>"
                   f'<td class="verdict v-{key}">{esc(summary.verdict)}</td>'
                   + "".join(f"<td class=num>{n}</td>" for n in (
                       summary.tests, summary.faster, summary.slower, summary.same,
                       summary.unknown)) + "</tr>")
    out.append("</tbody></table></div><p class=\"meta\">Over the tests every system ran; "
               "a ratio above 1 is faster than the baseline.</p></section>")
    return "".join(out)


def _scores(results: list[ResultFile], names: list[str]) -> str:
    copies = sorted({s.copies for r in results for s in r.scores})
    if not copies:
        return ""
    head = "".join(f"<th class=num>{_swatch(i)}{esc(n)}</th>" for i, n in enumerate(names))
    out = ['<section id="scores"><h2>Index scores</h2><div class="wrap"><table class="scores">'
           f"<thead><tr><th>Copies</th>{head}</tr></thead><tbody>"]
    for count in copies:
        cells = []
        for result in results:
            score = next((s for s in result.scores if s.copies == count), None)
            if score is None or score.index is None:
                cells.append('<td class="num missing">—</td>')
                continue
            partial = " (partial)" if score.partial else ""
            cells.append(f'<td class=num title="{score.tests} tests">'
                         f"{score.index:.1f}{partial}</td>")
        out.append(f"<tr><th>{_copies(count)}</th>{''.join(cells)}</tr>")
    out.append("</tbody></table></div></section>")
    return "".join(out)


def _result_cells(result: BenchResult | None, first: bool) -> str:
    """Median ± CI, n and quality for one system (three cells)."""
    edge = ' first' if first else ''
    if result is None:
        return f'<td class="num missing{edge}">—</td><td></td><td></td>'
    if result.status != "ok" or result.median is None:
        reason = f' title="{esc(result.reason)}"' if result.reason else ""
        return (f'<td class="num status{edge}"{reason}>{esc(result.status)}</td>'
                "<td></td><td></td>")
    quality_title = f' title="{esc(result.quality_reason)}"' if result.quality_reason else ""
    return (f'<td class="num{edge}">{esc(format_number(result.median))} {_ci_text(result)}</td>'
            f"<td class=num>{result.n}</td>"
            f'<td class="q-{esc(result.quality)}"{quality_title}>{esc(result.quality)}</td>')


class _Footnotes:
    """Row flags as numbered footnotes, one number per distinct text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def marks(self, flags: Iterable[str]) -> str:
        out = []
        for flag in flags:
            if flag not in self.texts:
                self.texts.append(flag)
            n = self.texts.index(flag) + 1
            out.append(f'<sup><a href="#fn-{n}" id="fr-{n}">{n}</a></sup>')
        return "".join(out)

    def html(self) -> str:
        if not self.texts:
            return ""
        return ('<ol class="footnotes">' + "".join(
            f'<li id="fn-{i}">{esc(t)}</li>' for i, t in enumerate(self.texts, start=1))
            + "</ol>")


def _single_table(result: ResultFile, name: str) -> str:
    out = ['<section id="results"><h2>Results</h2><div class="wrap"><table class="results">'
           "<thead><tr><th>Test</th><th class=num>Copies</th><th>Unit</th>"
           "<th class=num>Median ± CI</th><th class=num>n</th><th>Quality</th>"
           "<th class=num>Index</th></tr></thead><tbody>"]
    for r in result.results:
        index = f"{r.index:.1f}" if r.index is not None else ""
        out.append(f'<tr><td class=test title="{esc(r.id)}">{esc(r.title)}</td>'
                   f"<td class=num>{r.copies}</td><td>{esc(r.unit)}</td>"
                   f"{_result_cells(r, False)}<td class=num>{index}</td></tr>")
    out.append("</tbody></table></div><p class=\"meta\">CI: the 95 % confidence interval of "
               "the median, as ± % of it; * did not reach the CI target.</p></section>")
    return "".join(out)


def _comparison_table(comparison: Comparison) -> str:
    systems = comparison.systems
    winner = len(systems) >= 3
    everything = [{(r.id, r.copies): r for r in s.result.results} for s in systems]
    top = "".join(
        f'<th class=sys colspan="{3 if i == 0 else 5}">{_swatch(i)}{esc(s.label)}'
        + (" (baseline)" if i == 0 else "") + "</th>" for i, s in enumerate(systems))
    sub = "".join("<th class=num>Median ± CI</th><th class=num>n</th><th>Quality</th>"
                  + ("" if i == 0 else "<th class=num>Ratio (95 % CI)</th><th>Verdict</th>")
                  for i in range(len(systems)))
    out = ['<section id="results"><h2>Results</h2><div class="wrap"><table class="results">'
           f'<thead><tr><th rowspan="2">Test</th><th rowspan="2" class=num>Copies</th>'
           f'<th rowspan="2">Unit</th>{top}'
           + ('<th rowspan="2">Winner</th>' if winner else "") + f"</tr><tr>{sub}</tr>"
           "</thead><tbody>"]
    notes = _Footnotes()
    for row in comparison.rows:
        key = (row.test_id, row.copies)
        cells = []
        for i, cell in enumerate(row.cells):
            result = cell.result if cell else everything[i].get(key)
            cells.append(_result_cells(result, True))
            if i == 0:
                continue
            if cell is None or cell.estimate is None:
                cells.append("<td></td><td></td>")
                continue
            v = _verdict_key(cell.verdict)
            estimate = cell.estimate
            p = f' title="p = {cell.p_value:.3g}"' if cell.p_value is not None else ""
            cells.append(f'<td class="num v-{v}">'
                         f"{_ratio_text(estimate.ratio, estimate.low, estimate.high)}</td>"
                         f'<td class="verdict v-{v}"{p}>{esc(cell.verdict or "")}</td>')
        if winner:
            cells.append(_winner_cell(row, comparison))
        out.append(f'<tr><td class=test title="{esc(row.test_id)}">{esc(row.title)}'
                   f"{notes.marks(row.flags)}</td><td class=num>{row.copies}</td>"
                   f"<td>{esc(row.unit)}</td>{''.join(cells)}</tr>")
    out.append("</tbody></table></div>")
    out.append(notes.html())
    out.append('<p class="meta">Ratio: performance against the baseline, above 1 is faster '
               "whatever the unit; verdict from a Mann–Whitney U test at α = 0.05 and a "
               "change of at least 1 %. CI of a median: 95 %, as ± % of it; "
               "* did not reach the CI target.</p></section>")
    return "".join(out)


def _winner_cell(row: Row, comparison: Comparison) -> str:
    if row.winner is None:
        return "<td></td>"
    name = esc(comparison.systems[row.winner].label)
    if row.clear_winner:
        return f'<td title="faster than the runner-up">{_swatch(row.winner)}<b>{name}</b></td>'
    return (f'<td title="not clearly faster than the runner-up">{_swatch(row.winner)}{name} '
            '<span class="unknown">(not clear)</span></td>')


# --- charts -------------------------------------------------------------------------------

def _test_label(title: str, copies: int, several_counts: bool) -> str:
    return f"{title} ×{copies}" if several_counts else title


def _ratio_section(comparison: Comparison) -> str:
    several = len({r.copies for r in comparison.rows}) > 1
    groups = []
    for row in comparison.rows:
        group = svg.RatioGroup(_test_label(row.title, row.copies, several))
        for i, cell in enumerate(row.cells[1:], start=1):
            if cell is None or cell.estimate is None:
                continue
            e = cell.estimate
            if not math.isfinite(e.ratio) or e.ratio <= 0:
                continue
            ci = ("CI unknown" if e.low is None or e.high is None
                  else f"95 % CI {e.low:.3f}–{e.high:.3f}")
            tip = (f"{comparison.systems[i].label}: {e.ratio:.3f}× ({ci}), "
                   f"{cell.verdict or 'unknown'}")
            group.bars.append(svg.RatioBar(i, e.ratio, e.low, e.high,
                                           _verdict_key(cell.verdict), tip))
        if group.bars:
            groups.append(group)
    if not groups:
        return ""
    legend = "".join(f"<li>{_swatch(i)}{esc(s.label)}</li>"
                     for i, s in enumerate(comparison.systems) if i > 0)
    chart = svg.ratio_chart(groups, "Performance ratio against "
                            f"{comparison.systems[0].label}, per test")
    return ('<figure class="ratios"><figcaption>Performance ratio against the baseline '
            f"({esc(comparison.systems[0].label)}), per test, with 95 % CI whiskers; "
            "faint bars: no significant difference or unknown.</figcaption>"
            f'<ul class="legend">{legend}</ul>{chart}</figure>')


def _strip_section(results: list[ResultFile], names: list[str],
                   comparison: Comparison | None) -> str:
    keys: list[tuple[str, int]] = []
    by_system = [{(r.id, r.copies): r for r in result.results
                  if r.status == "ok" and r.median} for result in results]
    if comparison is not None:
        keys = [(row.test_id, row.copies) for row in comparison.rows]
    else:
        keys = list(by_system[0])
    several = len({k[1] for k in keys}) > 1
    label_w = min(200.0, svg.FONT_CHAR * max(len(n) for n in names) + 14)
    figures = []
    for key in keys:
        present = [(i, table[key]) for i, table in enumerate(by_system) if key in table]
        if not present:
            continue
        ref_pos, ref = present[0]
        reference = ref.median or 1.0
        rows = []
        for i, r in present:
            note = None if r.samples else "no samples"
            ci = ci_percent(r)
            tip = (f"{names[i]}: median {format_number(r.median or 0.0)} {r.unit}, "
                   f"n = {r.n}, " + ("CI unknown" if ci == "?" else f"CI {ci}"))
            rows.append(svg.StripRow(names[i], i, [s / reference for s in r.samples],
                                     (r.median or 0.0) / reference, note, tip))
        sample = present[0][1]
        label = _test_label(sample.title, sample.copies, several)
        direction = "" if sample.higher_is_better else ", lower is better"
        whose = "baseline" if ref_pos == 0 and len(results) > 1 else (
            "the median" if len(results) == 1 else f"{names[ref_pos]}'s median")
        caption = (f"{esc(label)} <span class=ci>({esc(sample.unit)}{direction}; "
                   f"0 = {esc(whose)} {esc(format_number(reference))})</span>")
        chart = svg.strip_chart(rows, f"{label}: samples relative to {whose}", label_w)
        figures.append(f"<figure><figcaption>{caption}</figcaption>{chart}</figure>")
    return ('<h3>Samples</h3><p class="meta">Each dot is one sample, as % off the reference '
            "median; the bar marks each system's median.</p>"
            f'<div class="strips">{"".join(figures)}</div>')


def _parse_time(text: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def _history_series(results: list[ResultFile], names: list[str]) -> list[svg.Series]:
    """Index over time, when the runs are one host's: same hostname and CPU model."""
    if len(results) < 2:
        return []
    if len({(r.host.description.hostname, r.host.identity.cpu_model) for r in results}) > 1:
        return []
    times = [_parse_time(r.run.started) for r in results]
    if any(t is None for t in times):
        return []
    series: dict[int, svg.Series] = {}
    for result, name, when in zip(results, names, times, strict=True):
        assert when is not None
        for score in result.scores:
            if score.index is None:
                continue
            if score.copies not in series:
                series[score.copies] = svg.Series(_copies(score.copies), 0, [])
            partial = ", partial" if score.partial else ""
            tip = (f"{name}: {score.index:.1f} ({_copies(score.copies)}{partial}, "
                   f"{when:%Y-%m-%d %H:%M} UTC)")
            series[score.copies].points.append(svg.HistoryPoint(when, score.index, tip))
    ordered = [series[c] for c in sorted(series)]
    for i, s in enumerate(ordered):
        s.style = i
    return ordered


LATENCY_PREFIX = "mem.latency."
_SIZE_SUFFIX = {"k": 2**10, "m": 2**20, "g": 2**30}


def working_set_bytes(test_id: str) -> int | None:
    """mem.latency.64k -> 65536; None for any other id."""
    if not test_id.startswith(LATENCY_PREFIX):
        return None
    size = test_id[len(LATENCY_PREFIX):]
    try:
        return int(size[:-1]) * _SIZE_SUFFIX[size[-1]] if size[-1] in _SIZE_SUFFIX \
            else int(size)
    except (ValueError, IndexError):
        return None


def _latency_curves(results: list[ResultFile]) -> list[svg.Curve]:
    """Per run, load latency against working-set size (the memory tests), when measured."""
    names = labels_for(results)
    curves = []
    for position, (result, name) in enumerate(zip(results, names, strict=True)):
        points = []
        for r in result.results:
            size = working_set_bytes(r.id)
            if size is None or r.status != "ok" or not r.median:
                continue
            points.append(svg.CurvePoint(size, r.median, f"{name}: {r.title}: "
                                         f"{format_number(r.median)} ns"))
        if len(points) >= 2:
            curves.append(svg.Curve(name, position, points))
    return curves


def _latency_section(curves: list[svg.Curve]) -> str:
    legend = "".join(f"<li>{_swatch(c.style)}{esc(c.label)}</li>" for c in curves)
    chart = svg.curve_chart(curves, "Memory load latency by working-set size",
                            "working set (log scale)", "ns per load (log scale)")
    return ('<h3>Memory latency</h3><figure class="latency"><figcaption>A random pointer '
            "chase: the steps are the cache levels (L1, L2, L3) and then DRAM."
            f'</figcaption><ul class="legend">{legend}</ul>{chart}</figure>')


def _history_section(series: list[svg.Series]) -> str:
    legend = "".join(f"<li>{_swatch(s.style)}{esc(s.label)}</li>" for s in series)
    chart = svg.history_chart(series, "System Benchmarks Index over time",
                              "System Benchmarks Index")
    return ('<h3>History</h3><figure class="history"><figcaption>The overall index of each '
            "run, per copy count, against the run's start time (one host: same hostname and "
            f'CPU model).</figcaption><ul class="legend">{legend}</ul>{chart}</figure>')


# --- data ---------------------------------------------------------------------------------

def embedded_json(results: list[ResultFile]) -> str:
    """The result files as JSON that cannot end the script element: every '<' escaped."""
    return msgspec.json.encode(results).decode("utf-8").replace("<", "\\u003c")


def _data(results: list[ResultFile]) -> str:
    return ('<script type="application/json" id="osmark-data">'
            f"{embedded_json(results)}</script>")
