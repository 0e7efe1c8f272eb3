"""What every command shares: exit codes, the one-line usage error, the console, the store."""

from __future__ import annotations

import sys
from typing import NoReturn

import click
from rich.console import Console

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def fail_usage(message: str) -> NoReturn:
    """Bad usage or bad input: one line on stderr, exit 2."""
    click.echo(f"osmark: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def make_console(wide: bool = False) -> Console:
    """Off a terminal (CI logs, pipes) rich would wrap tables at 80 columns: use 120, or
    no practical limit for `wide` tables (a comparison of many systems), which read better
    as long lines than wrapped."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(highlight=False, width=1000 if wide else 120)


def db_url() -> str | None:
    """The --db URL given to the command group (else $OSMARK_DB, else the default SQLite)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and "db" in ctx.obj:
            return ctx.obj["db"]
        ctx = ctx.parent
    return None


def open_store():
    """The run store, or exit 2 with the store's one-line reason."""
    from osmark.store import Store, StoreError

    try:
        return Store(db_url())
    except StoreError as exc:
        fail_usage(str(exc))
