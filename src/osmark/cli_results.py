"""Commands over stored runs: `runs`, `show`, `tag`, `history` and `db rebuild`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from osmark import console, lookup
from osmark.cli_base import fail_usage, make_console, open_store
from osmark.model import ResultFileError, dumps
from osmark.paths import results_dir

if TYPE_CHECKING:  # the store loads SQLAlchemy: imported where a command needs it
    from osmark import history
    from osmark.store import RunRow

FORMATS = click.Choice(["table", "json"])


def _row_dict(row: RunRow) -> dict:
    return {"id": row.id, "host": row.host, "started": row.started, "suite": row.suite,
            "complete": row.complete, "quality": row.quality,
            "tool": f"{row.tool} {row.tool_version}", "source": row.source_format,
            "scores": {str(k): v for k, v in sorted(row.scores.items())}, "tags": row.tags,
            "cpu_model": row.cpu_model, "kernel": row.kernel, "path": row.path}


def _scores_text(row: RunRow) -> str:
    return "  ".join(f"×{copies} {value:.1f}" for copies, value in sorted(row.scores.items())
                     if value is not None)


def _short_time(started: str) -> str:
    """ISO time to the minute, as a table wants it: 2026-11-30 07:06."""
    return started[:16].replace("T", " ")


def _tags_text(tags: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(tags.items()))


def parse_tags(values: tuple[str, ...] | list[str], option: str) -> dict[str, str]:
    """key=value pairs, or exit 2 naming the bad one."""
    tags = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key.strip():
            fail_usage(f"{option} {value!r}: expected key=value, e.g. kernel=6.12-lsm")
        tags[key.strip()] = text.strip()
    return tags


@click.command("runs")
@click.option("--host", default=None, help="Only runs of this host name.")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE",
              help="Only runs with this tag; repeatable.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="Show at most this many runs, newest first.")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True,
              help="A table, or JSON for scripts.")
def runs_command(host: str | None, tags: tuple[str, ...], limit: int, fmt: str) -> None:
    """List stored runs, newest first: id, host, time, suite, overall index, tags."""
    store = open_store()
    rows = store.list_runs(host=host, limit=limit, tags=parse_tags(tags, "--tag") or None)
    if fmt == "json":
        click.echo(json.dumps([_row_dict(r) for r in rows], indent=2))
        return
    out = make_console()
    if not rows:
        out.print("No stored runs match. `osmark run` measures one; `osmark import FILE` "
                  "imports UnixBench or PTS results; `osmark db rebuild` re-indexes files.")
        return
    table = Table(show_edge=False, pad_edge=False)
    for name in ("ID", "HOST", "STARTED", "SUITE", "INDEX", "TAGS", "COMPLETE"):
        table.add_column(name, no_wrap=name in ("ID", "STARTED", "INDEX"))
    for row in rows:
        # imported runs say which tool measured them; osmark's own say nothing extra
        origin = f" [dim]({row.tool} {row.tool_version})[/]" if row.source_format else ""
        table.add_row(row.id, row.host + origin, _short_time(row.started), row.suite,
                      _scores_text(row), _tags_text(row.tags),
                      "yes" if row.complete else "NO")
    out.print(table)


@click.command("show")
@click.argument("run")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True,
              help="The run's tables, or its whole result file as JSON.")
def show_command(run: str, fmt: str) -> None:
    """Print one run as it printed when it ran.

    RUN is a result file, a stored run id (or a unique prefix), `latest` or `latest~N`.
    """
    from osmark.store import StoreError

    store = None if lookup.looks_like_file(run) else open_store()
    try:
        result, path = lookup.load_run(run, store)
    except (ResultFileError, StoreError) as exc:
        fail_usage(str(exc))
    if fmt == "json":
        click.echo(dumps(result).decode(), nl=False)
        return
    out = make_console()
    state = "complete" if result.run.complete else "INCOMPLETE (interrupted)"
    host = result.host
    origin = ""
    if result.run.source:
        origin = (f", imported from {result.tool.name} {result.tool.version} "
                  f"({result.run.source.file})")
    out.print(f"Run {result.run.id} on {host.description.hostname} "
              f"({host.identity.cpu_model}, {host.identity.virtualization}), "
              f"{result.run.started}, {state}, quality {result.run.quality}{origin}")
    if host.description.tags:
        out.print(f"Tags: {_tags_text(host.description.tags)}")
    out.print(f"File: {path}")
    out.print()
    console.print_results(result, out)


@click.command("tag")
@click.argument("run")
@click.argument("tags", nargs=-1, required=True)
def tag_command(run: str, tags: tuple[str, ...]) -> None:
    """Tag a stored run: `osmark tag latest kernel=6.12 lsm=tomoyo`.

    The tags are written into the run's result file (the source of truth) and the index.
    """
    from osmark.store import StoreError, retag

    pairs = parse_tags(tags, "tag")
    store = open_store()
    try:
        row = retag(store, run, pairs)
    except (StoreError, ResultFileError) as exc:
        fail_usage(str(exc))
    click.echo(f"{row.id}: {_tags_text(row.tags)}")


def _change_text(entry: history.Entry) -> str:
    if entry.change is None:
        return ""
    text = f"{entry.change.ratio - 1:+.1%}"
    if entry.change.low is not None and entry.change.high is not None:
        text += f" ({entry.change.low - 1:+.1%}…{entry.change.high - 1:+.1%})"
    return text


VERDICT_STYLE = {"improvement": "green", "regression": "bold red"}


@click.command("history")
@click.option("--host", default=None,
              help="The host name (default: the host of the newest stored run).")
@click.option("--test", "test_id", default=None, metavar="TEST",
              help="Follow one test (an id such as ub.pipe, or a short name) instead of "
                   "the overall index.")
@click.option("--copies", type=click.IntRange(min=1), default=1, show_default=True,
              help="The copy count whose index (or test result) to follow.")
@click.option("--last", "limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many of the most recent runs to show.")
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True,
              help="A table, or JSON for scripts.")
def history_command(host: str | None, test_id: str | None, copies: int, limit: int,
                    fmt: str) -> None:
    """A host's score run after run, with each change to the previous run and its tags.

    Changes are called as `osmark compare` calls them: an improvement or a regression when
    significant (95 % CI of the ratio for the index, Mann–Whitney U for one test) and at
    least 1 %; otherwise no significant difference.
    """
    from osmark import history

    store = open_store()
    chosen = history.pick_host(store, host)
    if chosen is None:
        fail_usage("the run store is empty: `osmark run` or `osmark import` first")
    if test_id is not None:
        test_id = _resolve_test(test_id)
        entries = history.single_test_history(store, chosen, test_id, copies, limit)
    else:
        entries = history.score_history(store, chosen, copies, limit)
    if host is not None and not entries and chosen not in store.hosts():
        fail_usage(f"--host {host}: no stored run of that host; known hosts: "
                   + ", ".join(store.hosts()))
    what = f"{test_id} ×{copies}" if test_id else f"overall index ×{copies}"
    if fmt == "json":
        click.echo(json.dumps({"host": chosen, "what": what, "entries": [{
            "run": e.run.id, "started": e.run.started, "value": e.value,
            "ci_low": e.ci_low, "ci_high": e.ci_high, "n": e.n,
            "change": e.change.ratio if e.change else None,
            "change_low": e.change.low if e.change else None,
            "change_high": e.change.high if e.change else None,
            "verdict": e.verdict, "tags": e.run.tags, "note": e.note} for e in entries]},
            indent=2))
        return
    out = make_console(wide=True)
    if not entries:
        out.print(f"No runs of {chosen} with a {what}.")
        return
    table = Table(show_edge=False, pad_edge=False, title_justify="left",
                  title=f"{chosen}: {what}, oldest first")
    notes = any(entry.note for entry in entries)
    for name in ("RUN", "STARTED", "VALUE", "CHANGE (95 % CI)", "VERDICT", "TAGS") + (
            ("NOTE",) if notes else ()):
        table.add_column(name, justify="right" if name == "VALUE" else "left",
                         no_wrap=name != "NOTE")
    for entry in entries:
        value = "" if entry.value is None else console.format_number(entry.value)
        verdict = entry.verdict or ""
        style = VERDICT_STYLE.get(verdict)
        row = [entry.run.id, _short_time(entry.run.started), value, _change_text(entry),
               f"[{style}]{verdict}[/]" if style else verdict, _tags_text(entry.run.tags)]
        table.add_row(*row, *([entry.note or ""] if notes else []))
    out.print(table)


def _resolve_test(name: str) -> str:
    from osmark.catalog import UnknownBenchmark, resolve

    if "." in name:  # imported tests (pts.*, unixbench.*) are not in the catalog
        return name
    try:
        found = resolve([name])
    except UnknownBenchmark as exc:
        fail_usage(str(exc))
    if len(found) != 1:
        fail_usage(f"--test {name}: names {len(found)} tests; give one test id")
    return found[0].id


@click.group("db")
def db_group() -> None:
    """The run store: an index over the result files (SQLite, or PostgreSQL with --db)."""


@db_group.command("rebuild")
@click.option("--from", "directory", type=click.Path(path_type=Path), default=None,
              help="Directory of result files (default: osmark's results directory).")
def db_rebuild(directory: Path | None) -> None:
    """Recreate the index from the result files, which are the source of truth."""
    from osmark.store import StoreError

    directory = directory or results_dir()
    if not directory.is_dir():
        fail_usage(f"--from {directory}: not a directory")
    store = open_store()
    try:
        count, errors = store.rebuild(directory)
    except StoreError as exc:
        fail_usage(str(exc))
    for line in errors:
        click.echo(f"skipped: {line}", err=True)
    click.echo(f"Indexed {count} run(s) from {directory}"
               + (f"; {len(errors)} file(s) skipped" if errors else "") + ".")
