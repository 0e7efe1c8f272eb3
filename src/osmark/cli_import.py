"""`osmark import`: UnixBench text results and PTS composite.xml files become osmark runs."""

from __future__ import annotations

from pathlib import Path

import click

from osmark.cli_base import fail_usage, open_store
from osmark.model import ResultFileError, save
from osmark.paths import results_dir


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def import_command(files: tuple[Path, ...]) -> None:
    """Import UnixBench text results (4.x INDEX VALUES blocks, 5.x/6.x reports) and PTS
    composite.xml files as osmark runs, so they compare with today's runs.

    Every file is parsed before anything is written: if one is bad, none is imported.
    Figures the source does not have are not invented: a UnixBench result has one figure
    per test, so its CI is unknown.
    """
    from osmark.importers import import_files
    from osmark.store import StoreError

    try:
        imported = import_files(list(files))
    except ResultFileError as exc:
        fail_usage(str(exc))
    store = open_store()
    written: list[Path] = []
    try:
        for _, result in imported:
            written.append(save(result, results_dir() / f"{result.run.id}.json"))
        store.index_many([(result, path) for (_, result), path in zip(imported, written,
                                                                       strict=True)])
    except (OSError, StoreError) as exc:
        for path in written:  # all or nothing
            path.unlink(missing_ok=True)
        fail_usage(f"import failed, nothing imported: {exc}")
    for (source, result), path in zip(imported, written, strict=True):
        scores = ", ".join(f"index ×{s.copies} {s.index:.1f}" for s in result.scores
                           if s.index is not None)
        label = result.run.source.label if result.run.source else None
        click.echo(f"Imported {result.run.id}: {path} ({label or source.name}, "
                   f"{result.tool.name} {result.tool.version}, {len(result.results)} "
                   f"results{', ' + scores if scores else ''})")
