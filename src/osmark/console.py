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


def is_unixbench(result: BenchResult) -> bool:
    """Shown in UnixBench's table (imports from UnixBench included)."""
    return result.id.startswith(("ub.", "unixbench."))


def is_cost(result: BenchResult) -> bool:
    """Shown on the OS cost card."""
    return result.category == "os-cost"


def results_tables(result: ResultFile) -> list[Table]:
    """One table per copy count, in the shape UnixBench prints, plus CI and n."""
    tables = []
    for copies in sorted({r.copies for r in result.results if is_unixbench(r)}):
        rows = [r for r in result.results if r.copies == copies and is_unixbench(r)]
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
    rows = [r for r in result.results if is_cost(r)]
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


def area_tables(result: ResultFile) -> list[Table]:
    """One table per area (category) for everything that is neither UnixBench's nor the
    cost card: result, CI, n, quality, and the standard tool's figure when it ran."""
    others = [r for r in result.results if not is_unixbench(r) and not is_cost(r)]
    with_reference = any(r.reference is not None for r in others)
    tables = []
    for category in dict.fromkeys(r.category for r in others):
        table = Table(title=category.capitalize(), title_justify="left", show_edge=False,
                      pad_edge=False)
        columns = [("TEST", "left"), ("COPIES", "right"), ("RESULT", "right"),
                   ("UNIT", "left"), ("±CI", "right"), ("n", "right"), ("QUALITY", "left")]
        if with_reference:
            columns += [("REFERENCE", "right"), ("OSMARK / TOOL", "right")]
        for name, justify in columns:
            table.add_column(name, justify=justify)
        for r in (r for r in others if r.category == category):
            if r.status != "ok":
                table.add_row(r.title, str(r.copies), r.status, "", "", "", r.reason or "",
                              *([""] * (2 if with_reference else 0)), style="yellow")
                continue
            ci = ci_percent(r) + ("" if r.converged else "*")
            cells = [r.title, str(r.copies), format_number(r.median), r.unit, ci, str(r.n),
                     quality_text(r)]
            if with_reference:
                cells += _reference_cells(r)
            table.add_row(*cells)
        tables.append(table)
    return tables


def _reference_cells(r: BenchResult) -> list[str]:
    ref = r.reference
    if ref is None:
        return ["", ""]
    if ref.value is None:
        return [f"{ref.tool}: {ref.reason}", ""]
    ratio = f"{r.median / ref.value:.3f}" if ref.value and r.median else ""
    return [f"{format_number(ref.value)} ({ref.tool})", ratio]


def measurement_notes(result: ResultFile, specs: dict[str, Benchmark]) -> list[str]:
    """What a reader must know to read the figures: each test's stated rule (STREAM's
    byte counting …) once, and what the kernels said about how they measured."""
    lines: list[str] = []
    for note in dict.fromkeys(specs[r.id].note for r in result.results
                              if r.id in specs and specs[r.id].note):
        lines.append(note)
    for r in result.results:
        said = [text for key, value in r.details.items()
                if (text := _detail_text(key, value)) is not None] if r.status == "ok" else []
        if said:
            lines.append(f"{r.id} ×{r.copies}: {'; '.join(said)}")
    return lines


def _detail_text(key: str, value: object) -> str | None:
    """The kernel details a reader must see (the rest stay in the result file)."""
    if key == "direct" and value in (0, False):
        return "the filesystem refused O_DIRECT: buffered I/O with fsync (page cache involved)"
    if key == "engine" and value == "threads":  # io_uring was unavailable: the fallback
        return "io_uring unavailable: the queue depth was served by threads"
    if key == "lost" and value:
        return f"{value} datagrams lost"
    return None


def print_results(result: ResultFile, out: Console) -> None:
    """The UnixBench-shaped tables per copy count, the cost card, then one table per area,
    and the notes that say how the figures were measured."""
    from osmark.catalog import BY_ID

    for table in results_tables(result):
        out.print(table)
        out.print()
    if any(is_cost(r) for r in result.results):
        out.print(cost_card(result, BY_ID))
        ratio = mmap_read_ratio(result)
        if ratio:
            out.print(ratio)
        out.print()
    for table in area_tables(result):
        out.print(table)
        out.print()
    for line in _uring_lines(result) + measurement_notes(result, BY_ID):
        out.print(line, soft_wrap=True, highlight=False)


def _uring_lines(result: ResultFile) -> list[str]:
    """io_uring's batching fit, t(B) = a + b/B, when the run measured batch sizes."""
    try:
        from osmark.uring_fit import fits
    except ImportError:
        return []
    return [f"{name}: t(B) = {fit.a:.1f} + {fit.b:.1f}/B ns per operation (R² {fit.r2:.3f}): "
            f"batching saves up to {fit.b:.1f} ns of each enter's cost"
            for name, fit in fits(result.results).items()]
