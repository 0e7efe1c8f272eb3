"""SQLite insert transactions in the user's --workdir (the Python stdlib's sqlite3).

    python -m osmark.pykernels storage.sqlite_insert insert ITERATIONS DIR WRITERS

Set-up creates DIR/osmark-sqlite-<pid>.db (WAL journal, a table t(id INTEGER PRIMARY KEY,
writer INTEGER, payload TEXT)) and opens one connection per writer, each with
synchronous=FULL (so every COMMIT fsyncs the WAL: fsync-bound, as PTS's "Disk" SQLite
test) and a 60-s busy timeout (SQLite's own busy handler: a writer that finds the write
lock taken sleeps and retries). The WRITERS writers are threads of this one process, each
with its own connection to the same database; sqlite3 releases the GIL while SQLite runs
a statement (and so during its fsync), so they write concurrently as far as SQLite's
single write lock lets them. One op = one transaction: BEGIN IMMEDIATE; one INSERT of a
row (an integer and 100 bytes of text); COMMIT. The writers take op numbers from a shared
counter until ITERATIONS transactions are committed in all; ops = that total.

Timed: from the release of the writers (threads already started, connections open) until
the last one has committed and stopped. After it, outside the timed region, the rows are
counted (they must equal ITERATIONS), and the database, its -wal and -shm are removed.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
from pathlib import Path

from osmark.pykernels import Report, Unsupported, Usage, now, ready

MAX_WRITERS = 64
BUSY_TIMEOUT_S = 60.0
PAYLOAD = "osmark-" + "x" * 93  # 100 bytes of text per row


def _params(mode: str, params: list[str]) -> tuple[Path, int]:
    if mode != "insert":
        raise Usage(f"storage.sqlite_insert: unknown mode {mode!r} (expected insert)")
    if len(params) != 2:
        raise Usage("storage.sqlite_insert insert ITERATIONS DIR WRITERS")
    directory = Path(params[0])
    try:
        writers = int(params[1])
    except ValueError:
        raise Usage(f"WRITERS must be an integer, not {params[1]!r}") from None
    if not 1 <= writers <= MAX_WRITERS:
        raise Usage(f"WRITERS must be between 1 and {MAX_WRITERS}, not {writers}")
    if not directory.is_dir():
        raise Usage(f"DIR {directory} is not a directory")
    return directory, writers


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; each one is BEGIN … COMMIT by hand.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA synchronous=FULL")
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def sqlite_insert(mode: str, iterations: int, params: list[str]) -> Report:
    """N writer threads commit one-row INSERT transactions to one WAL database."""
    directory, writers = _params(mode, params)
    path = directory / f"osmark-sqlite-{os.getpid()}.db"
    _remove(path)
    conns: list[sqlite3.Connection] = []
    try:
        first = _connect(path)
        conns.append(first)
        journal = first.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(journal).lower() != "wal":
            raise Unsupported(f"SQLite cannot use WAL mode in {directory} (journal_mode is "
                              f"{journal}): point --workdir at a local filesystem")
        first.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER, "
                      "payload TEXT)")
        conns.extend(_connect(path) for _ in range(writers - 1))
        return _run(conns, iterations)
    finally:
        for conn in conns:
            conn.close()
        _remove(path)


def _run(conns: list[sqlite3.Connection], iterations: int) -> Report:
    claims = itertools.count()  # next() on it is atomic under the GIL
    start = threading.Event()
    failures: list[BaseException] = []
    done = [0] * len(conns)

    def writer(index: int, conn: sqlite3.Connection) -> None:
        start.wait()
        try:
            while next(claims) < iterations:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO t (writer, payload) VALUES (?, ?)",
                             (index, PAYLOAD))
                conn.execute("COMMIT")
                done[index] += 1
        except BaseException as exc:  # re-raised in the main thread after the join
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(i, c), daemon=True)
               for i, c in enumerate(conns)]
    for thread in threads:
        thread.start()
    ready()
    began = now()
    start.set()
    for thread in threads:
        thread.join()
    seconds = now() - began
    if failures:
        raise failures[0]
    rows = conns[0].execute("SELECT count(*) FROM t").fetchone()[0]
    if rows != iterations or sum(done) != iterations:
        raise RuntimeError(f"{rows} rows committed, {sum(done)} counted, expected "
                           f"{iterations}")
    return Report(ops=iterations, seconds=seconds, check=rows)
