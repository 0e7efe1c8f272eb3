"""The osmark command line: each command parses, calls the domain, renders."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import tempfile
from pathlib import Path

import click
from rich.console import Console

from osmark import __version__, console, doctor, engine, model, runner
from osmark.catalog import (
    BENCHMARKS,
    SUITE_BUDGET,
    SUITE_HELP,
    UnknownBenchmark,
    budget_for,
    resolve,
    sample_time_for,
)
from osmark.cli_base import EXIT_FAILED, EXIT_INTERRUPTED, db_url, fail_usage, make_console
from osmark.cli_compare import compare_command, report_command
from osmark.cli_doctor import doctor as doctor_command
from osmark.cli_doctor import print_checks
from osmark.cli_import import import_command
from osmark.cli_info import info as info_command
from osmark.cli_results import (
    db_group,
    history_command,
    parse_tags,
    runs_command,
    show_command,
    tag_command,
)
from osmark.paths import results_dir

PREFLIGHT_SECONDS = 0.3  # the doctor's sampling window before a run


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="osmark")
@click.option("--db", envvar="OSMARK_DB", default=None, metavar="URL",
              help="The run store: an SQLite file URL (default: osmark.db in the data "
                   "directory) or postgresql://user:password@host/dbname (needs "
                   "`pip install 'osmark[postgres]'`). Also $OSMARK_DB.")
@click.pass_context
def main(ctx: click.Context, db: str | None) -> None:
    """osmark: a system benchmark suite for Linux.

    Measures what the operating-system layer costs and how fast this machine is, with
    the UnixBench-compatible index and a 95 % confidence interval on every figure;
    compares runs with a significance verdict, keeps their history, writes reports.
    """
    ctx.obj = {"db": db}


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the catalog as JSON.")
def list_command(as_json: bool) -> None:
    """List every test (id, title, unit, baseline, suites) and every suite with its
    expected duration on this machine."""
    rows = [
        {"id": b.id, "title": b.title, "unit": b.unit, "baseline": b.baseline,
         "suites": list(b.suites), "higher_is_better": b.higher_is_better, "timed": b.timed,
         "requires": list(b.requires), "note": b.note}
        for b in BENCHMARKS
    ]
    last = _last_durations(list(SUITE_HELP))
    suites = {name: {"help": text, **_suite_duration(name, last.get(name))}
              for name, text in SUITE_HELP.items()}
    if as_json:
        click.echo(json.dumps({"benchmarks": rows, "suites": suites}, indent=2))
        return
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    for name in ("ID", "TITLE", "UNIT", "BASELINE", "SUITES"):
        table.add_column(name, justify="right" if name == "BASELINE" else "left")
    for row in rows:
        baseline = f"{row['baseline']:.1f}" if row["baseline"] else ""
        table.add_row(row["id"], row["title"], row["unit"], baseline, ",".join(row["suites"]))
    out = make_console()
    out.print(table)
    out.print()
    listing = Table(show_edge=False, pad_edge=False, title="Suites", title_justify="left")
    for name in ("SUITE", "TESTS", "EXPECTED", "WHAT"):
        listing.add_column(name, justify="right" if name == "TESTS" else "left")
    for name, info in suites.items():
        listing.add_row(name, str(info["tests"]), _duration_text(info), info["help"])
    out.print(listing)
    out.print("EXPECTED: how long the suite's last complete run took on this host, else the "
              "most its time budget allows (default copies).")
    out.print("Short names resolve: `osmark run syscall pipe` runs ub.syscall and ub.pipe.")


def _last_durations(suites: list[str]) -> dict[str, float | None]:
    """How long each suite's last complete run took on this host (the store; none if no
    store can be opened)."""
    from osmark.store import Store, StoreError

    try:
        store = Store(db_url())
    except StoreError:
        return {}
    try:
        host = socket.gethostname()
        return {name: store.last_duration(host, name) for name in suites}
    except StoreError:
        return {}
    finally:
        store.close()


def _suite_duration(name: str, last_seconds: float | None) -> dict:
    """How long a run of the suite takes here: measured by its last run on this host, else
    the upper bound its budgets allow."""
    selected = resolve([name])
    pairs = runner.plan(selected, runner.default_copies())
    return {"tests": len(selected), "results": len(pairs),
            "bound_seconds": runner.duration_bound(pairs, budget_for([name])),
            "last_seconds": last_seconds}


def _duration_text(info: dict) -> str:
    def minutes(seconds: float) -> str:
        return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"

    if info["last_seconds"] is not None:
        return f"{minutes(info['last_seconds'])} (last run)"
    return f"≤ {minutes(info['bound_seconds'])}"


def _check_json_target(path: Path | None) -> None:
    if path is None:
        return
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        fail_usage(f"--json {path}: is a directory; give a file name")
    if not parent.is_dir():
        fail_usage(f"--json {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        fail_usage(f"--json {path}: directory {parent} is not writable")


def _check_workdir(workdir: Path | None) -> None:
    if workdir is None:
        return
    if not workdir.is_dir():
        fail_usage(f"--workdir {workdir}: not a directory; create it or choose another")
    if not os.access(workdir, os.W_OK | os.X_OK):
        fail_usage(f"--workdir {workdir}: not writable by this user")


def _preflight(selected, copies: list[int], workdir: Path | None, strict: bool,
               out: Console) -> None:
    """The doctor's checks before a run: print warnings and failures; --strict stops."""
    checks = doctor.run_checks(selected, copies, workdir or Path(tempfile.gettempdir()),
                               interval=PREFLIGHT_SECONDS)
    space = next((c for c in checks if c.name == "workdir" and c.status == "fail"), None)
    if space is not None:  # never start writing what cannot fit: refuse, whatever --strict
        fail_usage(f"not enough space for the selected tests: {space.message}; "
                   f"{space.fix}")
    print_checks(out, checks, only_problems=True)
    if doctor.failed(checks):
        if strict:
            out.print("Not starting (--strict): fix the failures above, or run without "
                      "--strict to measure anyway.", style="red")
            sys.exit(EXIT_FAILED)
        out.print("Starting anyway: results taken now may be labelled noisy.", style="yellow")


def _settings(budget: float, sample_time: float, pin: bool, retake_noisy: bool,
              with_reference: bool = False) -> engine.Settings:
    if budget <= 0:
        fail_usage("--budget must be a positive number of seconds")
    if sample_time <= 0 or sample_time > budget:
        fail_usage("--sample-time must be positive and at most the --budget")
    return engine.Settings(budget=budget, sample_time=sample_time, pin=pin,
                           retake_noisy=retake_noisy, with_reference=with_reference)


def _save(result: model.ResultFile, json_path: Path | None, out: Console) -> list[Path]:
    """Write the result file (the source of truth), then index it in the run store."""
    saved = [model.save(result, results_dir() / f"{result.run.id}.json")]
    if json_path is not None:
        saved.append(model.save(result, json_path))
    for path in saved:
        out.print(f"Result saved: {path}", highlight=False)
    _index(result, saved[0], out)
    return saved


def _index(result: model.ResultFile, path: Path, out: Console) -> None:
    from osmark.store import Store, StoreError

    try:
        store = Store(db_url())
        try:
            store.index_run(result, path)
        finally:
            store.close()
    except StoreError as exc:
        out.print(f"The result file is saved, but the run store could not index it ({exc}); "
                  "`osmark db rebuild` indexes it later.", style="yellow")


def _execute(pairs, settings, workdir, suite, json_path, out: Console,
             tags: dict[str, str] | None = None) -> model.ResultFile:
    """Run with the live display; on interrupt save what finished and exit 130."""
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with console.LiveDisplay(out, len(pairs)) as live:
            return runner.execute(pairs, settings, workdir, suite, sys.argv, live.progress,
                                  live.finished, tags)
    except runner.RunInterrupted as stop:
        out.print("Interrupted: the kernels were stopped and their files removed.",
                  style="yellow")
        if stop.partial.results:
            _save(stop.partial, json_path, out)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _budget_options(default_budget: float | None):
    """The sampling options; with default_budget None the defaults follow the suites run."""
    per_suite = default_budget is None
    suite_budgets = ", ".join(f"{v:g} for {k}" for k, v in SUITE_BUDGET.items() if k != "all")

    def decorate(func):
        func = click.option(
            "--sample-time", type=float,
            default=None if per_suite else engine.Settings.sample_time,
            show_default=not per_suite, metavar="SECONDS",
            help="How long one sample's timed loop aims to run"
                 + (" (default: 0.25; 0.1 for quick)." if per_suite else "."))(func)
        func = click.option(
            "--retake-noisy", is_flag=True,
            help="Discard samples taken while another process used the CPU (or the "
                 "hypervisor stole it) and take them again, within the budget.")(func)
        func = click.option(
            "--pin/--no-pin", default=True, show_default=True,
            help="Pin copy i and everything it forks to CPU i, so the scheduler's placement "
                 "does not vary from sample to sample; --no-pin leaves placement to the "
                 "scheduler, as UnixBench does. Shell tests are never pinned.")(func)
        func = click.option(
            "--budget", type=float, default=default_budget, show_default=not per_suite,
            metavar="SECONDS",
            help="Most wall time per test and copy count; a test that has not reached its "
                 "CI target by then is reported with converged: false"
                 + (f" (default: 10; {suite_budgets})." if per_suite else "."))(func)
        return func
    return decorate


@main.command("run")
@click.argument("tests", nargs=-1)
@click.option("--copies", "-c", type=click.IntRange(min=1), multiple=True, metavar="N",
              help="Run N concurrent copies and sum their throughput; repeatable "
                   "(default: 1, then one per usable CPU).")
@_budget_options(None)
@click.option("--workdir", type=click.Path(path_type=Path), default=None,
              help="Directory for the tests' files — point it at the disk or filesystem to "
                   "measure (default: a fresh temporary one). The run refuses to start when "
                   "it lacks the space the selected tests write.")
@click.option("--with-reference", is_flag=True,
              help="Also run the standard tool where one measures the same thing (fio, "
                   "iperf3, perf bench), with the same parameters, and store its figure "
                   "beside osmark's.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), default=None,
              metavar="FILE", help="Also write the result file here.")
@click.option("--strict", is_flag=True,
              help="Refuse to start when the preflight (`osmark doctor`) finds a failure.")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE",
              help="Tag the run (kernel=6.12, lsm=tomoyo …); repeatable. `osmark tag` adds "
                   "tags later.")
def run_command(tests: tuple[str, ...], copies: tuple[int, ...], budget: float | None,
                sample_time: float | None, pin: bool, retake_noisy: bool, workdir: Path | None,
                with_reference: bool, json_path: Path | None, strict: bool,
                tags: tuple[str, ...]) -> None:
    """Run suites or tests (default: the index suite).

    TESTS are suite names (quick, index, full, os, memory, storage, cpu, network, ub,
    costs; `osmark list` shows each with its expected duration), test ids (ub.pipe) or
    short names (pipe). Exit status: 0 ok, 1 a test failed, 2 bad usage, 130 interrupted.
    """
    names = list(tests) or ["index"]
    try:
        selected = resolve(names)
    except UnknownBenchmark as exc:
        fail_usage(str(exc))
    settings = _settings(budget_for(names) if budget is None else budget,
                         sample_time_for(names) if sample_time is None else sample_time, pin,
                         retake_noisy, with_reference)
    run_tags = parse_tags(tags, "--tag")
    _check_workdir(workdir)
    _check_json_target(json_path)
    copy_counts = list(copies) or runner.default_copies()
    pairs = runner.plan(selected, copy_counts)
    out = make_console()
    _preflight(selected, copy_counts, workdir, strict, out)
    result = _execute(pairs, settings, workdir, " ".join(names), json_path, out, run_tags)
    out.print()
    console.print_results(result, out)
    _report_end(result, json_path, out)


def _report_end(result: model.ResultFile, json_path: Path | None, out: Console) -> None:
    for line in console.quality_notes(result):
        out.print(line, style="yellow")
    unconverged = [r for r in result.results if r.status == "ok" and not r.converged]
    if unconverged:
        out.print(f"* {len(unconverged)} result(s) did not reach their CI target within the "
                  "budget; consider a larger --budget or a quieter machine.", style="yellow")
    _save(result, json_path, out)
    if any(r.status == "failed" for r in result.results):
        sys.exit(EXIT_FAILED)


@main.command("costs")
@_budget_options(6.0)
@click.option("--workdir", type=click.Path(path_type=Path), default=None,
              help="Directory for the 64-MiB file of the file tests (default: a fresh "
                   "temporary one).")
@click.option("--json", "json_path", type=click.Path(path_type=Path), default=None,
              metavar="FILE", help="Also write the result file here.")
def costs_command(budget: float, sample_time: float, pin: bool, retake_noisy: bool,
                  workdir: Path | None, json_path: Path | None) -> None:
    """The OS cost card: what system calls, pipes, wake-ups, fork, exec and file reads
    cost on this machine, in ns or µs and as a multiple of a plain function call."""
    settings = _settings(budget, sample_time, pin, retake_noisy)
    _check_workdir(workdir)
    _check_json_target(json_path)
    selected = resolve(["costs"])
    pairs = runner.plan(selected, [1])
    out = make_console()
    _preflight(selected, [1], workdir, False, out)
    result = _execute(pairs, settings, workdir, "costs", json_path, out)
    out.print()
    console.print_results(result, out)
    _report_end(result, json_path, out)


for command in (show_command, runs_command, tag_command, history_command, db_group,
                compare_command, report_command, import_command, info_command,
                doctor_command):
    main.add_command(command)
