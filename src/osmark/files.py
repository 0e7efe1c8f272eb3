"""Writing a file so that readers see the old one or the whole new one, never a part."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path | str, data: bytes, mode: int | None = None) -> Path:
    """Write data to a temporary file beside path, sync it, then rename it over path.
    Parent directories are created; on any failure the temporary file is removed.
    `mode` sets the permissions (default: the temporary file's, owner-only)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
