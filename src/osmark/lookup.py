"""Finding a run the user names: a result file, a stored run id (or a unique prefix of one),
or `latest` / `latest~N`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from osmark.model import ResultFile, ResultFileError, load

if TYPE_CHECKING:  # importing the store loads SQLAlchemy: only commands that need it pay
    from osmark.store import Store


def looks_like_file(ref: str) -> bool:
    return ref.endswith(".json") or "/" in ref or Path(ref).is_file()


def load_run(ref: str, store: Store | None) -> tuple[ResultFile, Path]:
    """The result and its file. Raises ResultFileError for a bad file and StoreError for a
    reference the store does not know."""
    if looks_like_file(ref) or store is None:
        path = Path(ref)
        return load(path), path
    row = store.find(ref)
    path = Path(row.path)
    try:
        return load(path), path
    except ResultFileError as exc:
        raise ResultFileError(path, f"{exc.problem} (stored run {row.id}; "
                              "`osmark db rebuild` re-indexes the result files)") from None
