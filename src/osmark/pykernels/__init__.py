"""Python kernels: work that is already native code (zlib, hashlib, sqlite3, OpenSSL through
`cryptography`) timed in a small process of its own, speaking the protocol of the C kernels
(kernels/common.h):

    python -m osmark.pykernels NAME MODE ITERATIONS [PARAM ...]

With OSMARK_SYNC=1 the kernel prints "ready" after its set-up and waits for one byte on
stdin; the timed region is the loop only; the result is one JSON line
{"ops": N, "seconds": S, "check": C[, "value": X]}. Exit status: 0 ok, 1 failure,
2 bad usage, 3 not supported here (the reason on stderr).

NAME is "module.function" in this package (`cpu.compress` is osmark.pykernels.cpu's
`compress`): a function (mode, iterations, params) -> Report, imported only when run.
A spec names it as kernel="py:cpu.compress".
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Report:
    ops: int
    seconds: float
    check: int = 0
    value: float | None = None


class Usage(Exception):
    """Bad arguments: exit 2."""


class Unsupported(Exception):
    """This system cannot run the kernel (a module or feature is missing): exit 3."""


def ready() -> None:
    """The start barrier: after set-up, before the timed loop (a no-op unless OSMARK_SYNC=1)."""
    if os.environ.get("OSMARK_SYNC") != "1":
        return
    os.write(1, b"ready\n")
    if os.read(0, 1) != b"g":
        raise RuntimeError("ready: no start signal on stdin")


def now() -> float:
    return time.perf_counter()


def timed(loop: Callable[[], int], iterations: int) -> tuple[int, float]:
    """Release the barrier, then time `iterations` calls of loop; (check, seconds)."""
    ready()
    check = 0
    start = time.perf_counter()
    for _ in range(iterations):
        check ^= loop()
    return check, time.perf_counter() - start


def _resolve(name: str) -> Callable[[str, int, list[str]], Report]:
    module, _, function = name.rpartition(".")
    try:
        found = getattr(importlib.import_module(f"osmark.pykernels.{module}"), function)
    except (ImportError, AttributeError, ValueError):
        raise Usage(f"unknown Python kernel {name!r} (expected MODULE.FUNCTION of "
                    "osmark.pykernels)") from None
    if not callable(found):
        raise Usage(f"unknown Python kernel {name!r}")
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: python -m osmark.pykernels NAME MODE ITERATIONS [PARAM ...]",
              file=sys.stderr)
        return 2
    name, mode, count, *params = argv
    try:
        iterations = int(count)
        if iterations < 1:
            raise ValueError
    except ValueError:
        print(f"ITERATIONS must be a positive integer, not {count!r}", file=sys.stderr)
        return 2
    try:
        report = _resolve(name)(mode, iterations, params)
    except Usage as exc:
        print(f"usage: {exc}", file=sys.stderr)
        return 2
    except Unsupported as exc:
        print(str(exc), file=sys.stderr)
        return 3
    except Exception as exc:  # a kernel failure: one line, as the C kernels say it
        print(f"{name} {mode}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    line = {"ops": report.ops, "seconds": report.seconds, "check": report.check}
    if report.value is not None:
        line["value"] = report.value
    print(json.dumps(line), flush=True)
    return 0
