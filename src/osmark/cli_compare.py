"""`osmark compare` and `osmark report`: thin shells over osmark.compare and osmark.report."""

from __future__ import annotations

from pathlib import Path

import click

from osmark import lookup
from osmark.cli_base import fail_usage, make_console, open_store
from osmark.model import ResultFile, ResultFileError


def load_runs(refs: tuple[str, ...]) -> list[ResultFile]:
    """Every named run, or exit 2 naming the first that cannot be used."""
    errors: tuple[type[Exception], ...] = (ResultFileError,)
    store = None
    if not all(lookup.looks_like_file(ref) for ref in refs):
        from osmark.store import StoreError  # SQLAlchemy loads only when a run id is named

        errors += (StoreError,)
        store = open_store()
    results = []
    for ref in refs:
        try:
            result, _ = lookup.load_run(ref, store)
        except errors as exc:
            fail_usage(str(exc))
        results.append(result)
    return results


@click.command("compare")
@click.argument("runs", nargs=-1, required=True)
@click.option("--percent", is_flag=True,
              help="Each system as a percentage of the baseline's performance per test "
                   "(the with/without table kernel developers post).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]),
              default="table", show_default=True, help="Output format.")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="Column names, in the order of RUNS (default: host names or labels).")
def compare_command(runs: tuple[str, ...], percent: bool, fmt: str,
                    labels: tuple[str, ...]) -> None:
    """Compare runs test by test against the first (the baseline).

    RUNS are result files, stored run ids (or unique prefixes), `latest` or `latest~N`.
    Per test: each median ± 95 % CI, the ratio to the baseline (above 1: faster) with a
    bootstrap CI, and a verdict from a Mann–Whitney U test (α = 0.05, at least 1 %);
    then the geometric mean over the tests all runs share.
    """
    from osmark import compare, compare_view

    if len(runs) < 2:
        fail_usage("compare needs at least two runs: osmark compare A B [C ...]")
    if len(labels) > len(runs):
        fail_usage(f"--label given {len(labels)} times for {len(runs)} runs")
    results = load_runs(runs)
    comparison = compare.compare(results, list(runs), list(labels))
    if fmt == "json":
        click.echo(compare_view.to_json(comparison), nl=False)
    elif fmt == "csv":
        click.echo(compare_view.to_csv(comparison), nl=False)
    elif fmt == "markdown":
        click.echo(compare_view.markdown(comparison, percent), nl=False)
    else:
        out = make_console(wide=True)
        table, lines = compare_view.rich_table(comparison, percent)
        out.print(table)
        out.print()
        for line in lines:
            out.print(line, highlight=False, soft_wrap=True)


@click.command("report")
@click.argument("runs", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              metavar="FILE", help="The HTML file to write.")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="System names, in the order of RUNS.")
@click.option("--title", default=None, help="The report's title.")
def report_command(runs: tuple[str, ...], output: Path, labels: tuple[str, ...],
                   title: str | None) -> None:
    """Write one self-contained HTML report of RUNS: systems side by side, results with
    CIs and verdicts, charts and the whole data. It works offline from a file:// URL."""
    from osmark.report import build_report, write_report

    if output.is_dir():
        fail_usage(f"-o {output}: is a directory; give a file name such as report.html")
    if not output.parent.is_dir():
        fail_usage(f"-o {output}: directory {output.parent} does not exist")
    results = load_runs(runs)
    try:
        path = write_report(build_report(results, list(labels) or None, title), output)
    except OSError as exc:
        fail_usage(f"-o {output}: cannot write ({exc.strerror})")
    click.echo(f"Report written: {path} ({path.stat().st_size / 1024:.0f} KiB, "
               f"{len(results)} run(s))")
