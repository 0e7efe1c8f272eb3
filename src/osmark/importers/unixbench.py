"""UnixBench text reports (4.x, 5.x, 6.x) as osmark runs.

Two layouts exist:
  4.x: an "INDEX VALUES" block (TEST / BASELINE / RESULT / INDEX rows) closed by
       "FINAL SCORE". A file may hold several such blocks, each after a heading line
       naming the system (people paste comparisons): one run per block.
  5.x/6.x: a "BYTE UNIX Benchmarks (Version …)" banner, a System/OS/Machine/CPU header,
       then one "Benchmark Run:" section per copy count, each with result lines
       ("Execl Throughput   1680.5 lps   (29.5 s, 1 samples)") and a "System Benchmarks
       Index Values" or "… Partial Index" block closed by an "Index Score" line.
       One run per report, with results at every copy count it ran.
UnixBench prints one figure per test (the geometric mean of its kept passes), so that
figure becomes the median and no samples are made up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from osmark.catalog.unixbench import BENCHMARKS as UB_BENCHMARKS
from osmark.importers import imported_host, run_id, slug
from osmark.model import (
    SCHEMA_VERSION,
    BenchResult,
    ResultFile,
    ResultFileError,
    RunInfo,
    Score,
    Source,
    Tool,
)

FORMAT = "unixbench-text"
_NUM = r"\d+(?:\.\d+)?"

BANNER = re.compile(r"BYTE UNIX Benchmarks \(Version\s+(?P<version>[^)\s]+)\s*\)")
RESULT_LINE = re.compile(
    rf"^(?P<title>\S.*?)\s+(?P<value>{_NUM})\s*(?P<unit>[A-Za-z/]+)\s*"
    rf"\(\s*(?P<secs>{_NUM})\s*s(?:ecs?)?\s*,\s*(?P<passes>\d+)\s+samples?\s*\)\s*$"
)
INDEX_ROW = re.compile(
    rf"^(?P<title>\S.*?)\s+(?P<baseline>{_NUM})\s+(?P<result>{_NUM})\s+(?P<index>{_NUM})\s*$"
)
OLD_HEADER = re.compile(r"^\s*INDEX VALUES\s*$")
OLD_COLUMNS = re.compile(r"^\s*TEST\s+BASELINE\s+RESULT\s+INDEX\s*$")
OLD_SCORE = re.compile(rf"^\s*FINAL SCORE\s+(?P<score>{_NUM})\s*$")
NEW_HEADER = re.compile(
    r"^(?P<category>\S.*?)\s+(?:Index Values|(?P<partial>Partial Index))"
    r"\s+BASELINE\s+RESULT\s+INDEX\s*$"
)
NEW_SCORE = re.compile(
    rf"^(?P<category>\S.*?)\s+Index Score(?P<partial>\s*\(Partial Only\))?\s+(?P<score>{_NUM})\s*$"
)
SEPARATOR = re.compile(r"^\s*=+\s*$")
RUN_LINE = re.compile(r"^\s*Benchmark Run:\s*(?P<when>.*?)\s*$")
COPIES_LINE = re.compile(
    r"^\s*(?P<cpus>\d+)\s+CPUs?\s+in\s+system;\s+running\s+(?P<copies>\d+)\s+parallel\s+cop"
)
SYSTEM_SCORE_CATEGORY = "System Benchmarks"


def looks_like_unixbench(text: str) -> bool:
    """True when the text holds any UnixBench marker; parse() then says what is wrong."""
    return bool(
        BANNER.search(text)
        or re.search(r"^\s*INDEX VALUES\s*$", text, re.M)
        or re.search(r"System Benchmarks (Index|Partial Index)", text)
        or re.search(r"^\s*Benchmark Run:", text, re.M)
    )


def parse(text: str, raw: bytes, path: Path, mtime: str) -> list[ResultFile]:
    """All runs in one UnixBench text file, in file order."""
    lines = text.splitlines()
    modern = any(
        NEW_HEADER.match(line) or RUN_LINE.match(line) for line in lines
    ) or any(_major(m.group("version")) >= 5 for m in BANNER.finditer(text))
    runs = _parse_modern(lines, path) if modern else _parse_old(lines, path)
    return [_to_result_file(run, position, raw, path, mtime) for position, run in
            enumerate(runs)]


def _major(version: str) -> int:
    """The major version of '5.1.3' (5), so 4.x banners select the 4.x layout."""
    match = re.match(r"\d+", version)
    return int(match.group()) if match else 0


# -- what a report says, before it becomes a ResultFile --------------------------------


@dataclass
class _Row:
    """One test as printed: a result line, an index row, or both."""

    title: str
    copies: int
    value: float
    unit: str | None = None
    seconds: float | None = None
    passes: int | None = None
    baseline: float | None = None
    index: float | None = None
    raw_lines: list[str] = field(default_factory=list)


@dataclass
class _Block:
    """An index block: its rows, the printed score, and whether it was partial."""

    line: int  # 1-based line of the block's header
    category: str
    partial: bool
    rows: list[tuple[str, float, float, float]]
    score: float


@dataclass
class _Run:
    """One future ResultFile."""

    version: str
    label: str | None
    header: list[str] = field(default_factory=list)
    run_lines: list[str] = field(default_factory=list)
    rows: list[_Row] = field(default_factory=list)
    blocks: list[tuple[int, _Block]] = field(default_factory=list)  # (copies, block)
    host: dict[str, Any] = field(default_factory=dict)
    cpus: int | None = None
    started: str | None = None
    ended: str | None = None


def _parse_block(lines: list[str], start: int, path: Path, old: bool) -> tuple[_Block, int]:
    """Parse the index block whose header is lines[start]; return it and the next line."""
    header = lines[start]
    if old:
        category, partial = "INDEX VALUES", False
    else:
        match = NEW_HEADER.match(header)
        assert match is not None
        category, partial = match.group("category").strip(), bool(match.group("partial"))
    what = f"UnixBench index block at line {start + 1} ({header.strip()[:40]!r})"
    rows: list[tuple[str, float, float, float]] = []
    score: float | None = None
    i = start + 1
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or OLD_COLUMNS.match(line) or SEPARATOR.match(line):
            continue
        score_match = OLD_SCORE.match(line) if old else NEW_SCORE.match(line)
        if score_match:
            score = float(score_match.group("score"))
            if not old and bool(score_match.group("partial")) != partial:
                partial = True  # either line saying "Partial" is enough
            break
        row = INDEX_ROW.match(line)
        if not row:
            i -= 1
            break
        rows.append((row.group("title").strip(), float(row.group("baseline")),
                     float(row.group("result")), float(row.group("index"))))
    if not rows:
        raise ResultFileError(path, f"{what} has no result rows (the file looks truncated)")
    if score is None:
        raise ResultFileError(
            path, f"{what} has no {'FINAL SCORE' if old else 'Index Score'} line "
                  "(the file looks truncated)")
    return _Block(start + 1, category, partial, rows, score), i


def _result_row(match: re.Match[str], copies: int, line: str) -> _Row:
    """A result line: value, unit, and UnixBench's timing (kept for host.info)."""
    return _Row(
        title=match.group("title").strip(), copies=copies, value=float(match.group("value")),
        unit=match.group("unit"), seconds=float(match.group("secs")),
        passes=int(match.group("passes")), raw_lines=[line.strip()],
    )


def _merge_block(run: _Run, copies: int, block: _Block) -> None:
    """Attach each index row to its result line (same title, same copies) or add it."""
    run.blocks.append((copies, block))
    for title, baseline, result, index in block.rows:
        key = _normalise(title)
        row = next((r for r in run.rows if r.copies == copies and _normalise(r.title) == key
                    and r.baseline is None), None)
        if row is None:
            row = _Row(title=title, copies=copies, value=result)
            run.rows.append(row)
        row.baseline, row.index = baseline, index


# -- 4.x ----------------------------------------------------------------------------------


def _parse_old(lines: list[str], path: Path) -> list[_Run]:
    """One run per INDEX VALUES block; the lines since the previous block describe it."""
    runs: list[_Run] = []
    segment_start = 0
    i = 0
    while i < len(lines):
        if not OLD_HEADER.match(lines[i]):
            i += 1
            continue
        segment = lines[segment_start:i]
        block, i = _parse_block(lines, i, path, old=True)
        run = _old_run(segment)
        _merge_block(run, 1, block)
        runs.append(run)
        segment_start = i
    if not runs:
        raise ResultFileError(path, "a UnixBench 4.x report with no 'INDEX VALUES' block: "
                                    "nothing to import")
    return runs


def _old_run(segment: list[str]) -> _Run:
    """Label, version, host and result lines from the text before a 4.x index block."""
    heading: str | None = None
    header: list[str] = []
    run = _Run(version="4.x", label=None)  # "4.x" unless a banner says more
    for line in segment:
        if not line.strip():
            continue
        banner = BANNER.search(line)
        result = RESULT_LINE.match(line)
        if banner:
            run.version = banner.group("version")
            header.append(line.strip())
        elif result:
            run.rows.append(_result_row(result, 1, line))
        elif line[0].isspace():
            header.append(line.strip())  # 4.x indents its header lines
        elif heading is None and not line.startswith("#") and not set(line) <= {"-", "="}:
            heading = line.strip()
        else:
            header.append(line.strip())
    run.header = header
    run.host = _old_host(header)
    run.label = heading or run.host.get("hostname")
    for h in header:
        if h.startswith("Start Benchmark Run:"):
            run.started = _parse_old_date(h.split(":", 1)[1])
    return run


def _old_host(header: list[str]) -> dict[str, Any]:
    """Host facts from 4.x's 'System -- <uname -a>' line."""
    for line in header:
        if line.startswith("System --"):
            words = line[len("System --"):].split()
            host: dict[str, Any] = {}
            if words:
                host["os"] = words[0]
            if len(words) > 2:
                host["hostname"], host["kernel"] = words[1], words[2]
            arch = next((w for w in reversed(words) if w in _ARCHES), None)
            if arch:
                host["arch"] = arch
            return host
    return {}


_ARCHES = {"x86_64", "i386", "i486", "i586", "i686", "aarch64", "armv7l", "ppc64le", "ppc64",
           "s390x", "riscv64", "sparc64", "mips", "mips64", "alpha", "ia64"}


def _parse_old_date(text: str) -> str | None:
    """'Sat Jun  3 18:25:06 BST 2006' → '2006-06-03T18:25:06' (the zone name is dropped)."""
    words = text.split()
    if len(words) == 6:
        words = words[:4] + words[5:]
    try:
        return datetime.strptime(" ".join(words), "%a %b %d %H:%M:%S %Y").isoformat()
    except ValueError:
        return None


# -- 5.x / 6.x -------------------------------------------------------------------------


def _parse_modern(lines: list[str], path: Path) -> list[_Run]:
    """One run per report (banner to banner); a repeated copy count starts another run."""
    banners = [i for i, line in enumerate(lines) if BANNER.search(line)]
    starts = banners or [0]
    runs: list[_Run] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        runs.extend(_parse_report(lines, start, end, path))
    if not runs:
        raise ResultFileError(path, "a UnixBench report with no results: nothing to import")
    return runs


def _parse_report(lines: list[str], start: int, end: int, path: Path) -> list[_Run]:
    """One banner-to-banner report: its header, then each Benchmark Run section."""
    banner = BANNER.search(lines[start])
    version = banner.group("version") if banner else "unknown"
    first_run = next((i for i in range(start, end) if RUN_LINE.match(lines[i])), None)
    header_end = first_run if first_run is not None else start
    header = [line.strip() for line in lines[start:header_end] if line.strip()
              and not set(line.strip()) <= {"-", "="}]
    host = _modern_host(header)
    label = host.get("hostname")

    def new_run() -> _Run:
        return _Run(version=version, label=label, header=header, host=host)

    runs = [new_run()]
    copies = 1
    i = header_end
    while i < end:
        line = lines[i]
        run = runs[-1]
        if match := RUN_LINE.match(line):
            run.run_lines.append(line.strip())
            started, ended = _parse_run_dates(match.group("when"))
            run.started = run.started or started
            run.ended = ended or run.ended
        elif match := COPIES_LINE.match(line):
            copies = int(match.group("copies"))
            if any(r.copies == copies for r in run.rows):
                run = new_run()
                runs.append(run)
            run.cpus = int(match.group("cpus"))
            run.run_lines.append(line.strip())
        elif match := RESULT_LINE.match(line):
            run.rows.append(_result_row(match, copies, line))
        elif NEW_HEADER.match(line):
            block, i = _parse_block(lines, i, path, old=False)
            _merge_block(run, copies, block)
            continue
        i += 1
    runs = [run for run in runs if run.rows]
    if not runs and banner:
        raise ResultFileError(path, f"the UnixBench report at line {start + 1} has no "
                                    "results (the file looks truncated)")
    for run in runs:
        run.cpus = run.cpus or host.get("cpus")
    return runs


def _modern_host(header: list[str]) -> dict[str, Any]:
    """Host facts from the 5.x/6.x header: System, OS, Machine, the first CPU line."""
    host: dict[str, Any] = {}
    cpu_lines = 0
    for line in header:
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "System":
            host["hostname"] = value.split(":", 1)[0].strip() or None
        elif key == "OS":
            parts = [p.strip() for p in value.split(" -- ")]
            host["os"] = parts[0] or "unknown"
            if len(parts) > 1 and parts[1]:
                host["kernel"] = parts[1]
        elif key == "Machine":
            host["arch"] = value.split()[0] if value.split() else "unknown"
        elif re.fullmatch(r"CPU \d+", key):
            cpu_lines += 1
            if "cpu_model" not in host:
                host["cpu_model"] = re.sub(r"\s*\([\d.]+ bogomips\)\s*$", "", value) or "unknown"
    if cpu_lines:
        host["cpus"] = cpu_lines
    return host


def _parse_run_dates(text: str) -> tuple[str | None, str | None]:
    """'Mon Nov 30 2026 05:14:08 - 05:16:42' → local start and end (the zone is unknown)."""
    match = re.match(r"(?P<day>\w{3} \w{3} +\d{1,2} \d{4}) (?P<start>[\d:]{8})"
                     r"(?: - (?P<end>[\d:]{8}))?", text)
    if not match:
        return None, None
    try:
        started = datetime.strptime(f"{match.group('day')} {match.group('start')}",
                                    "%a %b %d %Y %H:%M:%S")
    except ValueError:
        return None, None
    ended = None
    if match.group("end"):
        try:
            clock = datetime.strptime(match.group("end"), "%H:%M:%S").time()
        except ValueError:
            clock = None
        if clock is not None:
            ended = datetime.combine(started.date(), clock)
            if ended < started:
                ended += timedelta(days=1)  # ran past midnight
    return started.isoformat(), ended.isoformat() if ended else None


# -- titles to catalog ids -------------------------------------------------------------


def _normalise(title: str) -> str:
    """Compare titles without case, spacing, punctuation or 4.x's 'type =' wording."""
    title = re.sub(r"\btype\s*=\s*", "", title.lower())
    return re.sub(r"[^a-z0-9]+", "", title)


_BY_TITLE: dict[str, tuple[str, str, str]] = {
    _normalise(b.title): (b.id, b.unit, b.category) for b in UB_BENCHMARKS
}
_BY_TITLE[_normalise("Arithmetic Test (type = arithoh)")] = _BY_TITLE[_normalise("Arithoh")]


def _catalog(title: str) -> tuple[str, str, str]:
    """(id, unit, category) for a UnixBench title; unknown titles get unixbench.<slug>."""
    found = _BY_TITLE.get(_normalise(title))
    if found:
        return found
    return f"unixbench.{slug(title, 60) or 'test'}", "", "unixbench"


# -- to the model -----------------------------------------------------------------------


def _bench_result(row: _Row) -> BenchResult:
    """The printed figure as the median; version 0 marks it as not osmark's measurement."""
    test_id, unit, category = _catalog(row.title)
    return BenchResult(
        id=test_id, title=row.title, category=category, version=0, copies=row.copies,
        status="ok", reason=None, unit=row.unit or unit, higher_is_better=True,
        median=row.value, n=0, converged=False, quality="unknown",
        baseline=row.baseline, index=row.index,
    )


def _scores(run: _Run) -> list[Score]:
    """The printed System Benchmarks index (4.x: FINAL SCORE), one per copy count."""
    out: list[Score] = []
    for copies, block in run.blocks:
        if block.category in ("INDEX VALUES", SYSTEM_SCORE_CATEGORY):
            out.append(Score(copies=copies, index=block.score, partial=block.partial,
                             tests=len(block.rows)))
    return sorted(out, key=lambda s: s.copies)


def _to_result_file(run: _Run, position: int, raw: bytes, path: Path,
                    mtime: str) -> ResultFile:
    """The run as a ResultFile; all the file said beyond the model goes to info."""
    host = run.host
    results = [_bench_result(row) for row in run.rows]
    seen: set[tuple[str, int]] = set()
    for result in results:
        key = (result.id, result.copies)
        if key in seen:
            raise ResultFileError(path, f"test {result.title!r} appears twice at "
                                        f"{result.copies} copies in one UnixBench report")
        seen.add(key)
    imported: dict[str, Any] = {
        "format": FORMAT,
        "version": run.version,
        "header": run.header,
        "run_lines": run.run_lines,
        "result_lines": [line for row in run.rows for line in row.raw_lines],
        "timings": {
            f"{r.id}@{row.copies}": {"seconds": row.seconds, "passes": row.passes}
            for r, row in zip(results, run.rows, strict=True) if row.seconds is not None
        },
        "index_blocks": [
            {"line": b.line, "category": b.category, "copies": c, "partial": b.partial,
             "score": b.score, "tests": len(b.rows)} for c, b in run.blocks
        ],
    }
    return ResultFile(
        schema_version=SCHEMA_VERSION,
        tool=Tool(name="unixbench", version=run.version),
        run=RunInfo(
            id=run_id("ub", run.label, raw, position),
            started=run.started or mtime, ended=run.ended, complete=True,
            suite="imported", argv=[], quality="unknown",
            source=Source(format=FORMAT, file=str(path), label=run.label),
        ),
        host=imported_host(
            label=run.label or host.get("hostname"),
            cpu_model=host.get("cpu_model", "unknown"), cpus=run.cpus or 0,
            kernel=host.get("kernel", "unknown"), arch=host.get("arch", "unknown"),
            os=host.get("os", "unknown"), imported=imported,
        ),
        results=results,
        scores=_scores(run),
    )
