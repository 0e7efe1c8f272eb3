"""`osmark doctor`: the preflight as a command, and the printer `osmark run` reuses."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from osmark import runner
from osmark.catalog import UnknownBenchmark, resolve
from osmark.cli_base import EXIT_FAILED, fail_usage
from osmark.doctor import Check, failed, run_checks

TAGS = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "bold red")}


def print_checks(console: Console, checks: list[Check], only_problems: bool = False) -> None:
    """One line per check (tag, name, message), and under each warn or fail its fix.

    Lines are not wrapped (soft wrap), so each check stays one line in logs and greps.
    """
    shown = [c for c in checks if c.status != "ok"] if only_problems else checks
    if not shown:
        return
    width = max(len(c.name) for c in shown)
    indent = " " * (4 + 2 + width + 2)
    for check in shown:
        tag, style = TAGS[check.status]
        line = Text()
        line.append(f"{tag:<4}", style=style)
        line.append(f"  {check.name:<{width}}  ", style="bold" if check.status != "ok" else "")
        line.append(check.message)
        console.print(line, soft_wrap=True, highlight=False)
        if check.fix and check.status != "ok":
            console.print(Text(f"{indent}fix: {check.fix}", style="dim"), soft_wrap=True,
                          highlight=False)


@click.command("doctor", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("tests", nargs=-1)
@click.option("--workdir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Directory the file tests will write in (default: the system temporary "
                   "directory, where `osmark run` makes its own).")
@click.option("--copies", "-c", type=click.IntRange(min=1), multiple=True, metavar="N",
              help="Copy counts the run will use; repeatable (default: 1, then one per "
                   "usable CPU). Sizes the free-space check.")
def doctor(tests: tuple[str, ...], workdir: Path | None, copies: tuple[int, ...]) -> None:
    """Check that this machine is quiet and ready for a run of TESTS (default: index).

    TESTS are suite names (index, ub, costs, all), test ids (ub.pipe) or short names
    (pipe), as for `osmark run`. One line per check: ok, warn (results will be noisy)
    or FAIL (results would be wrong, or the tests cannot run), each warning and failure
    with its fix. Watches the machine for half a second. Exit status: 0 nothing
    failed, 1 a check failed, 2 bad usage.
    """
    try:
        selected = resolve(list(tests) or ["index"])
    except UnknownBenchmark as exc:
        fail_usage(str(exc))
    if workdir is None:
        workdir = Path(tempfile.gettempdir())
    elif not workdir.exists():
        fail_usage(f"--workdir {workdir}: does not exist; create it or choose another")
    elif not workdir.is_dir():
        fail_usage(f"--workdir {workdir}: not a directory; choose another")
    checks = run_checks(selected, list(copies) or runner.default_copies(), workdir)
    console = Console(highlight=False)
    print_checks(console, checks)
    problems = {status: sum(c.status == status for c in checks) for status in ("warn", "fail")}
    console.print(Text(f"{problems['fail']} failed, {problems['warn']} warning(s), "
                       f"{len(checks) - sum(problems.values())} ok", style="bold"))
    sys.exit(EXIT_FAILED if failed(checks) else 0)
