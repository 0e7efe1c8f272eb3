"""Views of a Comparison: a console table, Markdown, CSV and JSON.

The console and Markdown views share one grid of strings (`grid`); CSV and JSON carry
plain numbers for scripts.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from osmark.compare import FASTER, SAME, SLOWER, UNKNOWN, Cell, Comparison, Estimate, Summary
from osmark.console import format_number

TERSE_VERDICTS = {SAME: "n.s.", UNKNOWN: "?"}
TERSE_LEGEND = ("n.s.: no significant difference (Mann–Whitney U at α = 0.05, or under 1 %); "
                "?: unknown (a side has no samples, or too few for the test)")
VERDICT_STYLE = {FASTER: "green", SLOWER: "red", SAME: "dim", UNKNOWN: ""}


def format_ratio(estimate: Estimate) -> str:
    if estimate.low is None or estimate.high is None:
        return f"{estimate.ratio:.3f}× (CI unknown)"
    return f"{estimate.ratio:.3f}× ({estimate.low:.3f}–{estimate.high:.3f})"


def format_percent(estimate: Estimate) -> str:
    if estimate.low is None or estimate.high is None:
        return f"{estimate.ratio:.2%}"
    return f"{estimate.ratio:.2%} ({estimate.low:.1%}–{estimate.high:.1%})"


def _value_text(cell: Cell | None) -> str:
    if cell is None:
        return "—"
    result = cell.result
    assert result.median is not None
    if result.ci_low is None or result.ci_high is None or not result.median:
        return f"{format_number(result.median)} (CI unknown)"
    half = max(result.median - result.ci_low, result.ci_high - result.median) / result.median
    return f"{format_number(result.median)} ±{half:.1%}"


@dataclass
class Grid:
    headers: list[str]
    rows: list[list[str]]
    verdicts: list[list[str | None]]  # per row, per column: the verdict colouring that cell
    footnotes: list[str]
    summary: list[str]


def summary_line(comparison: Comparison, position: int, summary: Summary) -> str:
    """hyperfine's way of saying it: who is faster than whom, by how much, how sure."""
    base = comparison.systems[0].label
    label = comparison.systems[position].label
    if summary.geomean is None:
        return f"{label} vs {base}: no test in common."
    g = summary.geomean
    if summary.low is None or summary.high is None:
        head = (f"{label} is {g:.3f} × as fast as {base} (significance unknown: a test "
                "without samples on one side)")
    else:
        ci = f"95 % CI {summary.low:.3f}–{summary.high:.3f}"
        if summary.verdict == FASTER:
            head = f"{label} is {g:.3f} × as fast as {base}, {g - 1:.1%} faster ({ci})"
        elif summary.verdict == SLOWER:
            head = f"{label} is {g:.3f} × as fast as {base}, {1 - g:.1%} slower ({ci})"
        else:
            head = f"{label} is {g:.3f} × as fast as {base}: {summary.verdict} ({ci})"
    counts = (f"{summary.faster} faster, {summary.slower} slower, {summary.same} no "
              f"significant difference" + (f", {summary.unknown} unknown"
                                           if summary.unknown else ""))
    tests = "the one test" if summary.tests == 1 else f"the {summary.tests} tests"
    return f"{head}; geometric mean over {tests} both ran: {counts}."


def grid(comparison: Comparison, percent: bool = False, terse: bool = False) -> Grid:
    """The comparison as rows of strings; `terse` shortens the verdicts for narrow screens."""
    systems = comparison.systems
    short = TERSE_VERDICTS if terse else {}
    many = len(systems) >= 3
    footnotes: list[str] = []

    def mark(note: str) -> str:
        if note not in footnotes:
            footnotes.append(note)
        return f" [{footnotes.index(note) + 1}]"

    # A system that differs from the baseline in identity is marked where its figures are.
    names = [s.label + "".join(mark(n) for n in notes) for s, notes in
             zip(systems, comparison.system_notes or [[] for _ in systems], strict=True)]
    rows: list[list[str]] = []
    verdicts: list[list[str | None]] = []
    for row in comparison.rows:
        line = [row.title + "".join(mark(flag) for flag in row.flags), str(row.copies)]
        colour: list[str | None] = [None, None]
        for position, cell in enumerate(row.cells):
            if percent:
                if position == 0:
                    line.append("100.00%" if cell else "—")
                else:
                    line.append(format_percent(cell.estimate) if cell and cell.estimate
                                else "—")
                colour.append(cell.verdict if cell else None)
                continue
            line.append(_value_text(cell))
            colour.append(None)
            if position == 0:
                continue
            if cell is not None and cell.estimate is not None:
                verdict = cell.verdict or ""
                line.append(f"{format_ratio(cell.estimate)} {short.get(verdict, verdict)}")
                colour.append(cell.verdict)
            else:
                line.append("—")
                colour.append(None)
        if many:
            if row.winner is None:
                line.append("")
            else:
                best = systems[row.winner].label
                line.append(best if row.clear_winner else f"({best})")
            colour.append(None)
        rows.append(line)
        verdicts.append(colour)
    headers = ["TEST", "COPIES"]
    if percent:
        headers += [f"{name} (%)" for name in names]
    else:
        headers.append(f"{names[0]} (baseline)")
        for name in names[1:]:
            headers += [name, "RATIO (95 % CI), VERDICT"]
    if many:
        headers.append("BEST")
    summary = [summary_line(comparison, i, s)
               for i, s in enumerate(comparison.summaries) if s is not None]
    if terse and not percent:
        summary.append(TERSE_LEGEND)
    if many:
        summary.append("BEST: (name) = the best median, not significantly ahead of the next.")
    return Grid(headers, rows, verdicts, footnotes, summary)


def _other_notes(comparison: Comparison, g: Grid) -> list[str]:
    """Run-level notes not already footnoted in the table."""
    return [note for note in comparison.notes if note not in g.footnotes]


def rich_table(comparison: Comparison, percent: bool = False):
    """The console table (a rich Table) and the lines to print under it."""
    from rich.table import Table
    from rich.text import Text

    g = grid(comparison, percent, terse=True)
    table = Table(show_edge=False, pad_edge=False, title_justify="left",
                  title=f"Compared with {comparison.systems[0].label} (ratio > 1: faster; "
                        f"95 % CIs)")
    for position, name in enumerate(g.headers):
        table.add_column(name, justify="left" if position == 0 else "right")
    for line, colours in zip(g.rows, g.verdicts, strict=True):
        table.add_row(*(Text(text, style=VERDICT_STYLE.get(colour or "", ""))
                        for text, colour in zip(line, colours, strict=True)))
    lines = [f"[{i}] {note}" for i, note in enumerate(g.footnotes, start=1)]
    lines += _other_notes(comparison, g) + g.summary
    return table, lines


def markdown(comparison: Comparison, percent: bool = False) -> str:
    g = grid(comparison, percent)

    def cells(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

    out = [cells(g.headers),
           "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(g.headers))) + "|"]
    out += [cells(line) for line in g.rows]
    out.append("")
    out += [f"[{i}] {note}  " for i, note in enumerate(g.footnotes, start=1)]
    out += [f"{line}  " for line in _other_notes(comparison, g) + g.summary]
    return "\n".join(out).rstrip() + "\n"


def to_dict(comparison: Comparison) -> dict[str, Any]:
    """Everything in the comparison as plain data (the JSON export)."""
    def cell_dict(cell: Cell | None) -> dict[str, Any] | None:
        if cell is None:
            return None
        r, e = cell.result, cell.estimate
        return {
            "median": r.median, "ci_low": r.ci_low, "ci_high": r.ci_high, "n": r.n,
            "quality": r.quality, "ratio": e.ratio if e else None,
            "ratio_low": e.low if e else None, "ratio_high": e.high if e else None,
            "p_value": cell.p_value, "verdict": cell.verdict,
        }

    return {
        "baseline": comparison.systems[0].label,
        "systems": [{"label": s.label, "ref": s.ref, "run_id": s.result.run.id,
                     "hostname": s.result.host.description.hostname,
                     "tool": f"{s.result.tool.name} {s.result.tool.version}"}
                    for s in comparison.systems],
        "rows": [{"test_id": row.test_id, "copies": row.copies, "title": row.title,
                  "unit": row.unit, "higher_is_better": row.higher_is_better,
                  "flags": row.flags,
                  "winner": None if row.winner is None
                  else comparison.systems[row.winner].label,
                  "clear_winner": row.clear_winner,
                  "cells": [cell_dict(c) for c in row.cells]}
                 for row in comparison.rows],
        "summaries": [None if s is None else {
            "geomean": s.geomean, "ci_low": s.low, "ci_high": s.high, "verdict": s.verdict,
            "tests": s.tests, "faster": s.faster, "slower": s.slower, "same": s.same,
            "unknown": s.unknown} for s in comparison.summaries],
        "notes": comparison.notes,
    }


def to_json(comparison: Comparison) -> str:
    return json.dumps(to_dict(comparison), indent=2) + "\n"


def to_csv(comparison: Comparison) -> str:
    """One line per test, copy count and system: numbers only, for spreadsheets."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["test_id", "copies", "title", "unit", "system", "median", "ci_low",
                     "ci_high", "n", "ratio", "ratio_low", "ratio_high", "p_value",
                     "verdict", "flags"])
    data = to_dict(comparison)
    for row in data["rows"]:
        for system, cell in zip(data["systems"], row["cells"], strict=True):
            if cell is None:
                continue
            writer.writerow([row["test_id"], row["copies"], row["title"], row["unit"],
                             system["label"], cell["median"], cell["ci_low"], cell["ci_high"],
                             cell["n"], cell["ratio"], cell["ratio_low"], cell["ratio_high"],
                             cell["p_value"], cell["verdict"], "; ".join(row["flags"])])
    return buffer.getvalue()
