"""Console views: the live run display, the UnixBench-shaped results table, the cost card.

Views work from Result objects only; they never measure.
"""

from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from osmark import stats
from osmark.catalog import Benchmark
from osmark.engine import Progress
from osmark.model import BenchResult, ResultFile


def format_number(value: float) -> str:
    """As UnixBench prints figures: one decimal, more digits for small values."""
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.2f}"


def format_duration_ns(ns: float) -> str:
    for limit, divisor, unit in ((1e3, 1.0, "ns"), (1e6, 1e3, "µs"), (1e9, 1e6, "ms")):
        if ns < limit:
            return f"{ns / divisor:.3g} {unit}" if ns / divisor < 100 else \
                f"{ns / divisor:.0f} {unit}"
    return f"{ns / 1e9:.3g} s"


def ci_percent(result: BenchResult) -> str:
    if result.ci_low is None or result.ci_high is None or not result.median:
        return "?"
    return f"±{stats.relative_half_width(result.median, result.ci_low, result.ci_high):.1%}"


QUALITY_STYLE = {"quiet": "green", "noisy": "yellow", "invalid": "red", "unknown": "dim"}


def quality_text(result: BenchResult) -> Text:
    return Text(result.quality, style=QUALITY_STYLE.get(result.quality, ""))


def quality_notes(result: ResultFile) -> list[str]:
    """One line per result that was not quiet, saying why."""
    return [
        f"{r.id} ×{r.copies} {r.quality}: {r.quality_reason}"
        for r in result.results
        if r.status == "ok" and r.quality in ("noisy", "invalid") and r.quality_reason
    ]


def _copies_label(copies: int) -> str:
    return f"{copies} cop{'y' if copies == 1 else 'ies'}"


class LiveDisplay:
    """A one-line live status, redrawn only when the engine reports between samples."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.total = total
        self.done = 0
        self.live = Live(console=console, auto_refresh=False, transient=True)

    def __enter__(self) -> LiveDisplay:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(*exc)

    def progress(self, p: Progress) -> None:
        line = Text(f"[{self.done + 1}/{self.total}] ", style="dim")
        line.append(f"{p.benchmark.id}", style="bold")
        line.append(f" ×{p.copies}  {p.phase}")
        if p.samples:
            line.append(f"  n={len(p.samples)}  {format_number(p.median)} {p.benchmark.unit}")
            if p.ci:
                half = stats.relative_half_width(p.median, *p.ci)
                line.append(f"  ±{half:.1%} (target ±{p.benchmark.tolerance:.0%})")
            if p.noisy:
                line.append(f"  {p.noisy} noisy", style="yellow")
        self.live.update(line, refresh=True)

    def finished(self, result: BenchResult, position: int, total: int) -> None:
        self.done = position
        if result.status == "ok":
            value = format_number(result.median)
            note = "" if result.converged else "  (not converged)"
            if result.quality in ("noisy", "invalid"):
                note += f"  {result.quality}"
            self.console.print(
                f"  {result.id} ×{result.copies}: {value} {result.unit} {ci_percent(result)} "
                f"n={result.n}{note}", highlight=False)
        else:
            self.console.print(f"  {result.id} ×{result.copies}: {result.status}: "
                               f"{result.reason}", highlight=False, style="yellow")


def results_tables(result: ResultFile) -> list[Table]:
    """One table per copy count, in the shape UnixBench prints, plus CI and n."""
    tables = []
    for copies in sorted({r.copies for r in result.results if r.unit != "ns"}):
        rows = [r for r in result.results if r.copies == copies and r.unit != "ns"]
        score = next((s for s in result.scores if s.copies == copies), None)
        title = f"System Benchmarks Index Values ({_copies_label(copies)})"
        if score and score.partial:
            title = f"System Benchmarks Partial Index ({_copies_label(copies)})"
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for name, justify in (("TEST", "left"), ("BASELINE", "right"), ("RESULT", "right"),
                              ("UNIT", "left"), ("±CI", "right"), ("n", "right"),
                              ("QUALITY", "left"), ("INDEX", "right")):
            table.add_column(name, justify=justify)
        for r in rows:
            baseline = f"{r.baseline:.1f}" if r.baseline else ""
            if r.status != "ok":
                table.add_row(r.title, baseline, r.status, "", "", "", "", "", style="yellow")
                continue
            ci = ci_percent(r) + ("" if r.converged else "*")
            index = f"{r.index:.1f}" if r.index is not None else ""
            table.add_row(r.title, baseline, format_number(r.median), r.unit, ci, str(r.n),
                          quality_text(r), index)
        if score and score.index is not None:
            label = "System Benchmarks Index Score" + (" (Partial Only)" if score.partial
                                                      else "")
            table.add_section()
            table.add_row(label, "", "", "", "", "", "", f"{score.index:.1f}", style="bold")
        tables.append(table)
    return tables


def cost_card(result: ResultFile, specs: dict[str, Benchmark]) -> Table:
    """The OS cost card: each cost with its CI and as a multiple of a function call."""
    rows = [r for r in result.results if r.unit == "ns"]
    unit_call = next((r.median for r in rows if r.id == "os.funcall" and r.status == "ok"), None)
    table = Table(title="OS cost card (95 % CI of the median)", title_justify="left",
                  show_edge=False, pad_edge=False)
    for name, justify in (("COST", "left"), ("TIME", "right"), ("95 % CI", "right"),
                          ("× CALL", "right"), ("n", "right"), ("QUALITY", "left"),
                          ("WHAT IS TIMED", "left")):
        table.add_column(name, justify=justify)
    for r in rows:
        timed = specs[r.id].timed if r.id in specs else ""
        if r.status != "ok":
            table.add_row(r.title, r.status, "", "", "", "", r.reason or "", style="yellow")
            continue
        ci = (f"{format_duration_ns(r.ci_low)}–{format_duration_ns(r.ci_high)}"
              if r.ci_low is not None else "?")
        if not r.converged:
            ci += "*"
        multiple = f"{r.median / unit_call:,.0f}" if unit_call else ""
        if r.id == "os.funcall":
            multiple = "1"
        table.add_row(r.title, format_duration_ns(r.median), ci, multiple, str(r.n),
                      quality_text(r), timed)
    return table


def mmap_read_ratio(result: ResultFile) -> str | None:
    by_id = {r.id: r for r in result.results if r.status == "ok"}
    read, mapped = by_id.get("os.read-file"), by_id.get("os.mmap-file")
    if not read or not mapped:
        return None
    ratio = read.median / mapped.median
    faster = "faster" if ratio >= 1 else "slower"
    times = ratio if ratio >= 1 else 1 / ratio
    return (f"mmap+touch of a cached file is {times:.2f} × {faster} than read() "
            f"({format_duration_ns(mapped.median)} vs {format_duration_ns(read.median)})")


def print_results(result: ResultFile, out: Console) -> None:
    """The UnixBench-shaped tables per copy count, then the cost card if the run had one."""
    from osmark.catalog import BY_ID

    for table in results_tables(result):
        out.print(table)
        out.print()
    if any(r.unit == "ns" for r in result.results):
        out.print(cost_card(result, BY_ID))
        ratio = mmap_read_ratio(result)
        if ratio:
            out.print(ratio)
        out.print()
