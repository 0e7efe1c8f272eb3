"""Phoronix Test Suite composite.xml files as osmark runs: one run per System.

PTS keeps every trial value in each Entry's RawString (joined by ':'), so imported
results carry real samples and get a median CI where there are enough of them. The
Entry's Value is a mean (or a min/max, per profile): it goes to host.info, not into
median. Results are matched across systems and files by an id built like PTS's own
comparison hash: the profile identifier without its patch version, the arguments, the
description and the unit.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path
from typing import Any

from osmark import stats
from osmark.importers import imported_host, run_id, short_hash, slug
from osmark.model import (
    SCHEMA_VERSION,
    BenchResult,
    Host,
    ResultFile,
    ResultFileError,
    RunInfo,
    Source,
    Tool,
)

FORMAT = "pts-composite"
ROOT = "PhoronixTestSuite"
MEASURED_FORMATS = ("", "BAR_GRAPH")


def looks_like_xml(raw: bytes) -> bool:
    """XML by its first non-blank character: a '<' (after a UTF-8 BOM, if any)."""
    return raw.lstrip(b"\xef\xbb\xbf").lstrip().startswith(b"<")


def parse(raw: bytes, path: Path, mtime: str) -> list[ResultFile]:
    """One ResultFile per System of a composite.xml, in file order."""
    root = _parse_xml(raw, path)
    generated = root.find("Generated")
    systems = root.findall("System")
    if not systems:
        raise ResultFileError(path, "a PTS composite.xml with no <System>: nothing to import")
    names: list[str] = []
    for n, system in enumerate(systems, 1):
        name = _text(system, "Identifier")
        if not name:
            raise ResultFileError(path, f"System {n} has no Identifier")
        if name in names:
            raise ResultFileError(path, f"System {n}: identifier {name!r} appears twice")
        names.append(name)
    per_system, skipped = _results(root, names, path)
    client = _text(generated, "TestClient") if generated is not None else ""
    client_version = _version_of(client)
    return [
        _to_result_file(system, name, position, per_system[name], skipped, generated,
                        client_version, raw, path, mtime)
        for position, (system, name) in enumerate(zip(systems, names, strict=True))
    ]


def _parse_xml(raw: bytes, path: Path) -> ET.Element:
    """The root element, or one line saying what is wrong with the XML."""
    if b"<!ENTITY" in raw:
        raise ResultFileError(path, "XML with entity declarations is refused (PTS never "
                                    "writes them)")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        line = exc.position[0]
        what = str(exc).split(":", 1)[0]
        raise ResultFileError(path, f"XML syntax error at line {line}: {what}") from None
    if root.tag != ROOT:
        raise ResultFileError(path, f"an XML file but not a PTS composite.xml (root element "
                                    f"<{root.tag}>, expected <{ROOT}>)")
    return root


def _text(element: ET.Element | None, tag: str) -> str:
    """The stripped text of a child element; '' when absent or empty."""
    if element is None:
        return ""
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""


def _version_of(client: str) -> str:
    """'Phoronix Test Suite v10.8.4' → '10.8.4'."""
    match = re.search(r"\d+(?:\.\d+)+", client)
    return match.group() if match else ""


def _number(text: str) -> float | None:
    """A finite float, or None for '', 'N/A' and the like."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _json(text: str) -> Any:
    """A JSON note as data; kept as the raw string when it is not valid JSON."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _comparison_id(identifier: str, arguments: str, description: str, scale: str) -> str:
    """pts.<profile>.<hash>: equal for the same test, options and unit in any file."""
    profile = identifier.rsplit("/", 1)[-1]
    name = re.sub(r"-\d+(?:\.\d+)*$", "", profile)
    # PTS's rule: a patch-version bump (x.y.Z) keeps results comparable.
    no_patch = re.sub(r"-(\d+\.\d+)\.\d+$", r"-\1", identifier)
    return f"pts.{slug(name, 40) or 'test'}.{short_hash(no_patch, arguments, description, scale)}"


def _results(
    root: ET.Element, names: list[str], path: Path
) -> tuple[dict[str, list[tuple[BenchResult, dict[str, Any]]]], list[dict[str, Any]]]:
    """Every measured Result, per system: (BenchResult, what PTS said about it)."""
    per_system: dict[str, list[tuple[BenchResult, dict[str, Any]]]] = {n: [] for n in names}
    skipped: list[dict[str, Any]] = []
    used: dict[str, set[str]] = {n: set() for n in names}
    for n, result in enumerate(root.findall("Result"), 1):
        identifier = _text(result, "Identifier")
        where = f"Result {n} ({identifier or _text(result, 'Title') or 'no Identifier'})"
        display = _text(result, "DisplayFormat")
        if display not in MEASURED_FORMATS:
            skipped.append({"result": n, "identifier": identifier,
                            "title": _text(result, "Title"),
                            "reason": f"DisplayFormat {display}: not a measured bar graph"})
            continue
        if _text(result, "Parent"):
            skipped.append({"result": n, "identifier": identifier,
                            "title": _text(result, "Title"),
                            "reason": "derived from another result (Parent), not measured"})
            continue
        if not identifier:
            raise ResultFileError(path, f"{where} has no Identifier")
        title, description = _text(result, "Title") or identifier, _text(result, "Description")
        scale, arguments = _text(result, "Scale"), _text(result, "Arguments")
        test_id = _comparison_id(identifier, arguments, description, scale)
        data = result.find("Data")
        for entry in data.findall("Entry") if data is not None else []:
            system = _text(entry, "Identifier")
            if system not in per_system:
                raise ResultFileError(path, f"{where}: Entry for {system!r} names no System")
            if entry.find("Value") is None:
                raise ResultFileError(path, f"{where}: Entry for {system!r} has no Value")
            unique, k = test_id, 1
            while unique in used[system]:  # the same test twice in one file: keep both
                k += 1
                unique = f"{test_id}-{k}"
            used[system].add(unique)
            bench, said = _entry(entry, unique, where, identifier, title, description, scale,
                                 _text(result, "Proportion"))
            said.update(result=n, app_version=_text(result, "AppVersion"), arguments=arguments)
            per_system[system].append((bench, said))
    return per_system, skipped


def _entry(entry: ET.Element, test_id: str, where: str, identifier: str, title: str,
           description: str, scale: str, proportion: str) -> tuple[BenchResult, dict[str, Any]]:
    """One system's figure for one Result: samples from RawString, else the bare Value."""
    value_text = _text(entry, "Value")
    raw_string = _text(entry, "RawString")
    note = _json(_text(entry, "JSON"))
    said: dict[str, Any] = {"identifier": identifier, "value": value_text,
                            "raw_string": raw_string, "json": note}
    common: dict[str, Any] = dict(
        id=test_id, title=f"{title}: {description}" if description else title,
        category="pts", version=0, copies=1, unit=scale,
        higher_is_better=proportion != "LIB", converged=False, quality="unknown",
    )
    value = _number(value_text)
    if value is None:
        error = note.get("error") if isinstance(note, dict) else None
        reason = (f"PTS recorded {'no value' if not value_text else repr(value_text)}"
                  + (f": {error}" if error else ""))
        return BenchResult(status="failed", reason=reason, **common), said
    parts = [_number(p) for p in raw_string.split(":")] if raw_string else []
    samples = [p for p in parts if p is not None]
    if not samples or len(samples) != len(parts):
        if raw_string:
            said["raw_string_problem"] = "not all values numeric: ignored, median = Value"
        return BenchResult(status="ok", reason=None, median=value, **common), said
    ci = stats.median_ci(samples)
    return BenchResult(
        status="ok", reason=None, median=stats.median(samples), mad=stats.mad(samples),
        min=min(samples), max=max(samples), n=len(samples), samples=samples,
        ci_low=ci[0] if ci else None, ci_high=ci[1] if ci else None, **common,
    ), said


# -- host -------------------------------------------------------------------------------


def _fields(text: str) -> dict[str, str]:
    """'Processor: X (2 Cores), Memory: 16GB' → {'Processor': 'X (2 Cores)', 'Memory': …}."""
    out: dict[str, str] = {}
    for part in re.split(r",\s+(?=[A-Z][A-Za-z0-9 /.-]{0,30}:\s)", text):
        key, sep, value = part.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _cpus(processor: str) -> int:
    """Logical CPUs from '(2 Cores / 4 Threads)', else the core count."""
    threads = re.search(r"(\d+)\s+Threads", processor)
    cores = re.search(r"(\d+)\s+Cores?", processor)
    return int((threads or cores).group(1)) if (threads or cores) else 0


def _memory_bytes(memory: str) -> int:
    """'16GB', '2 x 8192 MB DDR4', '1 x 16 GB' → bytes (GB read as GiB, as PTS computes)."""
    match = re.match(r"\s*(?:(\d+)\s*x\s*)?(\d+(?:\.\d+)?)\s*([KMGT])i?B\b", memory, re.I)
    if not match:
        return 0
    count = int(match.group(1) or 1)
    power = "KMGT".index(match.group(3).upper()) + 1
    return int(count * float(match.group(2)) * 1024**power)


def _host(system: ET.Element, name: str, imported: dict[str, Any]) -> Host:
    """Identity from the Hardware and Software strings; the rest stays unknown."""
    hardware = _fields(_text(system, "Hardware"))
    software = _fields(_text(system, "Software"))
    processor = hardware.get("Processor", "")
    cpu_model = re.sub(r"\s*\(\s*\d+\s+Cores?(?:\s*/\s*\d+\s+Threads)?\s*\)\s*$", "", processor)
    memory = _memory_bytes(hardware.get("Memory", ""))
    kernel_field = software.get("Kernel", "")
    arch_match = re.search(r"\(([^()]+)\)\s*$", kernel_field)
    kernel = re.sub(r"\s*\([^()]+\)\s*$", "", kernel_field)
    compiler = software.get("Compiler") or None
    layer = software.get("System Layer", "")
    return imported_host(
        label=name, cpu_model=cpu_model or "unknown", cpus=_cpus(processor),
        memory_gib=round(memory / 2**30 * 2) / 2, memory_bytes=memory,
        kernel=kernel or "unknown", arch=arch_match.group(1) if arch_match else "unknown",
        os=software.get("OS") or "unknown",
        virtualization=layer.lower() if layer else "unknown",
        compiler=compiler.split()[0].lower() if compiler else None,
        compiler_version=compiler, imported=imported,
    )


def _timestamp(text: str) -> str | None:
    """PTS writes 'YYYY-MM-DD HH:MM:SS' (the tested machine's local time)."""
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    return None


def _to_result_file(system: ET.Element, name: str, position: int,
                    results: list[tuple[BenchResult, dict[str, Any]]],
                    skipped: list[dict[str, Any]], generated: ET.Element | None,
                    client_version: str, raw: bytes, path: Path, mtime: str) -> ResultFile:
    """One System as a ResultFile; everything PTS said about it goes to info."""
    version = _text(system, "TestClientVersion") or client_version or "unknown"
    imported: dict[str, Any] = {
        "format": FORMAT,
        "title": _text(generated, "Title"),
        "description": _text(generated, "Description"),
        "test_client": _text(generated, "TestClient"),
        "last_modified": _text(generated, "LastModified"),
        "hardware": _text(system, "Hardware"),
        "software": _text(system, "Software"),
        "user": _text(system, "User"),
        "timestamp": _text(system, "TimeStamp"),
        "notes": _text(system, "Notes"),
        "json": _json(_text(system, "JSON")),
        "cost": _text(system, "CostValueForComparison") or None,
        "results": {bench.id: said for bench, said in results},
        "skipped": skipped,
    }
    return ResultFile(
        schema_version=SCHEMA_VERSION,
        tool=Tool(name="pts", version=version),
        run=RunInfo(
            id=run_id("pts", name, raw, position),
            started=_timestamp(_text(system, "TimeStamp")) or mtime, ended=None,
            complete=True, suite="imported", argv=[], quality="unknown",
            source=Source(format=FORMAT, file=str(path), label=name),
        ),
        host=_host(system, name, imported),
        results=[bench for bench, _ in results],
        scores=[],
    )
