"""Importers: other tools' result files turned into osmark ResultFiles.

Imported runs keep what the source says and nothing more: no invented samples, no
invented CIs, "unknown" for whatever the file does not record. Each run carries a
Source naming the file and the system it describes, so `compare` can say where a
figure came from. The format is sniffed from the content, never from the file name.

Every problem is a ResultFileError whose str() is one line naming the file.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from pathlib import Path

from osmark.model import Description, Host, Identity, ResultFile, ResultFileError

__all__ = ["import_file", "import_files"]

MAX_BYTES = 64 * 2**20  # far above any real report; guards against reading a huge log
UNKNOWN_FORMAT = (
    "not a UnixBench text result or a PTS composite.xml "
    "(no 'INDEX VALUES' or 'System Benchmarks Index' block found)"
)


def import_file(path: Path) -> list[ResultFile]:
    """Read one file, sniff its format from the content and return the runs it holds."""
    from osmark.importers import pts, unixbench

    path = Path(path)
    raw = _read(path)
    mtime = _mtime_iso(path)
    if pts.looks_like_xml(raw):
        return pts.parse(raw, path, mtime)
    if b"\0" in raw:
        raise ResultFileError(path, "a binary file, not a UnixBench text result or a PTS "
                                    "composite.xml")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ResultFileError(
            path, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}): "
                  "not a UnixBench text result") from None
    if unixbench.looks_like_unixbench(text):
        return unixbench.parse(text, raw, path, mtime)
    raise ResultFileError(path, UNKNOWN_FORMAT)


def import_files(paths: list[Path]) -> list[tuple[Path, ResultFile]]:
    """Import every file before returning anything, so one bad file imports nothing."""
    out: list[tuple[Path, ResultFile]] = []
    for path in paths:
        out.extend((Path(path), result) for result in import_file(Path(path)))
    return out


def _read(path: Path) -> bytes:
    """The file's bytes, or one clear line saying why there are none."""
    try:
        if path.is_dir():
            raise ResultFileError(path, "is a directory, not a result file")
        if not path.exists():
            raise ResultFileError(path, "no such file")
        if not path.is_file():
            raise ResultFileError(path, "not a regular file")
        if path.stat().st_size > MAX_BYTES:
            raise ResultFileError(path, f"larger than {MAX_BYTES // 2**20} MiB: not a result "
                                        "file osmark can import")
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultFileError(path, f"cannot read ({exc.strerror})") from None
    if not raw.strip():
        raise ResultFileError(path, "the file is empty: nothing to import")
    return raw


def _mtime_iso(path: Path) -> str:
    """The fallback start time when the file records none: its mtime, in UTC."""
    stamp = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    return stamp.replace(microsecond=0).isoformat()


# -- helpers shared by the importers --------------------------------------------------


def slug(text: str, limit: int = 24) -> str:
    """Lower-case letters, digits and single dashes: safe in ids and file names."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return out[:limit].rstrip("-")


def run_id(prefix: str, label: str | None, raw: bytes, position: int) -> str:
    """Deterministic, readable run id: re-importing the same file gives the same ids."""
    digest = hashlib.sha256(raw + b"\0" + f"{prefix}:{position}".encode()).hexdigest()[:8]
    return f"{prefix}-{slug(label or '') or 'unnamed'}-{digest}"


def short_hash(*parts: str) -> str:
    """8 hex digits over several strings, unambiguous about where each one ends."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


def imported_host(
    *,
    label: str | None,
    cpu_model: str = "unknown",
    cpus: int = 0,
    memory_gib: float = 0.0,
    memory_bytes: int = 0,
    kernel: str = "unknown",
    arch: str = "unknown",
    os: str = "unknown",
    virtualization: str = "unknown",
    compiler: str | None = None,
    compiler_version: str | None = None,
    imported: dict[str, object] | None = None,
) -> Host:
    """A Host filled from what the file says; the rest stays unknown, never guessed."""
    return Host(
        identity=Identity(
            cpu_model=cpu_model, cpus=cpus, memory_gib=memory_gib, kernel=kernel, arch=arch,
            os=os, virtualization=virtualization, compiler=compiler,
            compiler_version=compiler_version, cflags=[], osmark_version="n/a",
        ),
        description=Description(
            hostname=label or "unknown", cpus_usable=cpus, memory_bytes=memory_bytes,
            python="unknown",
        ),
        info={"imported": imported or {}},
    )
