"""The run store: a database index over the result files, for listing, finding and history.

Result files are the source of truth; the database only indexes them, so it can always
be dropped and rebuilt from the files (`Store.rebuild`). SQLite (the default, one file
in the data directory) and PostgreSQL (for a shared store) are supported through
SQLAlchemy Core.

Many writers at once lose nothing: on SQLite every write transaction starts with
BEGIN IMMEDIATE (the write lock is taken up front, so two writers never deadlock on a
lock upgrade), the journal is WAL (readers never block writers) and each connection
waits up to BUSY_TIMEOUT_S for the lock; on PostgreSQL writes serialise on one
transaction-scoped advisory lock. Every write is one transaction: an error leaves
no half-written run behind.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    create_engine,
    delete,
    event,
    exists,
    func,
    inspect,
    select,
)
from sqlalchemy.engine import URL, Connection, Engine, Row, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from osmark import model
from osmark.model import ResultFile, ResultFileError
from osmark.paths import data_dir

STORE_VERSION = 1  # bump with a migration step when the tables change
BUSY_TIMEOUT_S = 30.0  # how long an SQLite writer waits for another writer's lock
CONNECT_TIMEOUT_S = 10  # how long to wait for a PostgreSQL server that does not answer
_PG_WRITE_LOCK = 0x6F736D61726B  # "osmark": the advisory lock all PostgreSQL writers take
_CHUNK = 500  # ids per IN (...) list: far below every backend's parameter limit
_POSTGRES_HINT = "pip install 'osmark[postgres]'"

T = TypeVar("T")


class StoreError(Exception):
    """A store problem; str() is the one line to show the user, with the fix."""


# --- the tables --------------------------------------------------------------------------

metadata = MetaData()

store_meta = Table(
    "store_meta", metadata,
    Column("store_version", Integer, nullable=False),
)

runs = Table(
    "runs", metadata,
    Column("id", Text, primary_key=True),
    Column("path", Text, nullable=False),
    Column("host", Text, nullable=False),  # host.description.hostname
    Column("cpu_model", Text, nullable=False),
    Column("virtualization", Text, nullable=False),
    Column("kernel", Text, nullable=False),
    Column("started", Text, nullable=False),  # as the file has it
    Column("started_key", Text, nullable=False),  # started in UTC, fixed width: sorts right
    Column("ended", Text),
    Column("suite", Text, nullable=False),
    Column("complete", Boolean, nullable=False),
    Column("quality", Text, nullable=False),
    Column("tool", Text, nullable=False),
    Column("tool_version", Text, nullable=False),
    Column("source_format", Text),  # None for runs osmark measured itself
    Column("scores", Text, nullable=False),  # JSON {"copies": index or null}
    Index("ix_runs_host_started", "host", "started_key", "id"),
    Index("ix_runs_started", "started_key", "id"),
)

run_tags = Table(
    "run_tags", metadata,
    Column("run_id", Text, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
    Index("ix_run_tags_key_value", "key", "value"),
)

results = Table(
    "results", metadata,
    Column("run_id", Text, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("test_id", Text, primary_key=True),
    Column("copies", Integer, primary_key=True),
    Column("title", Text, nullable=False),
    Column("unit", Text, nullable=False),
    Column("higher_is_better", Boolean, nullable=False),
    Column("status", Text, nullable=False),
    Column("median", Float),
    Column("ci_low", Float),
    Column("ci_high", Float),
    Column("n", Integer, nullable=False),
    Column("samples", Text, nullable=False),  # JSON list of floats
    # Copies of the run's host and started_key, so a test's history is one backward
    # index range scan that stops at the limit, not a join and sort over every run.
    Column("host", Text, nullable=False),
    Column("started_key", Text, nullable=False),
    Index("ix_results_test_started", "test_id", "started_key", "run_id", "copies"),
    Index("ix_results_test_host_started", "test_id", "host", "started_key", "run_id",
          "copies"),
)


# --- what the queries return ---------------------------------------------------------------

@dataclass(frozen=True)
class RunRow:
    """One indexed run: enough to list, pick and chart it without opening its file."""

    id: str
    path: str
    host: str
    cpu_model: str
    virtualization: str
    kernel: str
    started: str
    ended: str | None
    suite: str
    complete: bool
    quality: str
    tool: str
    tool_version: str
    source_format: str | None
    scores: dict[int, float | None] = field(default_factory=dict)  # copies → overall index
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TestPoint:
    """One test's figure in one run: a point of a history chart."""

    __test__ = False  # not a pytest test class despite the name

    run: RunRow
    test_id: str
    copies: int
    title: str
    unit: str
    higher_is_better: bool
    status: str
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    samples: list[float]


# --- URLs ------------------------------------------------------------------------------------

def resolve_url(url: str | None) -> str:
    """The database URL to use: the argument, else $OSMARK_DB, else SQLite in the data dir.

    postgresql:// and postgres:// get the psycopg 3 driver spelled out, so SQLAlchemy
    does not look for psycopg2.
    """
    if not url:
        url = os.environ.get("OSMARK_DB", "").strip() or None
    if url is None:
        return f"sqlite:///{data_dir() / 'osmark.db'}"
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise StoreError(f"{url!r} is not a database URL: use sqlite:///PATH or "
                         "postgresql://USER:PASSWORD@HOST/DATABASE")
    scheme = scheme.lower()
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return f"postgresql+psycopg://{rest}"
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return f"sqlite://{rest}"
    raise StoreError(f"{_redact(url)}: unsupported database URL: use sqlite:///PATH or "
                     "postgresql://USER:PASSWORD@HOST/DATABASE")


def _redact(url: str | URL) -> str:
    """The URL without its password, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", str(url))


def _started_key(started: str) -> str:
    """`started` in UTC with a fixed width, so runs from any time zone sort in order."""
    try:
        moment = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except ValueError:
        return started
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds")


def _chunks(items: Sequence[T], size: int = _CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip())


# --- the store ------------------------------------------------------------------------------

class Store:
    """The index over result files, in SQLite or PostgreSQL."""

    def __init__(self, url: str | None = None) -> None:
        self.url = resolve_url(url)
        self.display_url = _redact(self.url).replace("postgresql+psycopg://", "postgresql://")
        self._problem: StoreError | None = None
        try:
            parsed = make_url(self.url)
            parsed.port  # noqa: B018 - parsed lazily: a bad port must fail here
        except (ArgumentError, ValueError) as exc:
            raise StoreError(f"{self.display_url}: not a valid database URL "
                             f"({_one_line(str(exc))})") from None
        self._sqlite = parsed.get_backend_name() == "sqlite"
        self._engine = self._create_engine(parsed)
        try:
            self._prepare()
        except BaseException:
            self._engine.dispose()
            raise

    # -- connection set-up --

    def _create_engine(self, url: URL) -> Engine:
        if self._sqlite:
            database = url.database or ""
            if database.startswith("~"):
                database = str(Path(database).expanduser())
                url = url.set(database=database)
            if database and database != ":memory:" and not database.startswith("file:"):
                try:
                    Path(database).absolute().parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(f"{self.display_url}: cannot create the directory for "
                                     f"the database ({exc.strerror}): choose a writable "
                                     "path") from None
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S})
            event.listen(engine, "connect", _sqlite_on_connect)
            event.listen(engine, "begin", _sqlite_on_begin)
            return engine
        try:
            return create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
        except ImportError:
            raise StoreError(f"{self.display_url}: the PostgreSQL driver is not installed: "
                             f"{_POSTGRES_HINT}") from None
        except ArgumentError as exc:
            raise StoreError(f"{self.display_url}: {_one_line(str(exc))}") from None

    def _prepare(self) -> None:
        """Create the tables if missing; note a store written by a newer osmark."""
        version = self._read(self._store_version)
        if version is None:
            version = self._write(self._create_schema)
        if version > STORE_VERSION:
            self._problem = StoreError(
                f"{self.display_url}: this store was written by a newer osmark (store "
                f"version {version}, this osmark knows {STORE_VERSION}): upgrade osmark, "
                "or run `osmark db rebuild` to re-index it from the result files")

    @staticmethod
    def _store_version(conn: Connection) -> int | None:
        if not inspect(conn).has_table(store_meta.name):
            return None
        return conn.execute(select(func.max(store_meta.c.store_version))).scalar()

    def _create_schema(self, conn: Connection) -> int:
        metadata.create_all(conn, checkfirst=True)  # under the write lock: no race
        version = conn.execute(select(func.max(store_meta.c.store_version))).scalar()
        if version is None:
            conn.execute(store_meta.insert().values(store_version=STORE_VERSION))
            version = STORE_VERSION
        return version

    # -- transactions and errors --

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn database errors into one StoreError line, never a traceback."""
        try:
            yield
        except StoreError:
            raise
        except SQLAlchemyError as exc:
            raise StoreError(self._describe(exc)) from None

    def _describe(self, exc: SQLAlchemyError) -> str:
        orig = getattr(exc, "orig", None)
        message = str(orig if orig is not None else exc).strip()
        if isinstance(exc, OperationalError) and not self._sqlite:
            message = message.split("\n")[0]  # psycopg's second line only repeats our hint
        text = re.sub(r"\s+", " ", _one_line(message)) or type(exc).__name__
        lowered = text.lower()
        if self._sqlite:
            if "unable to open database file" in lowered:
                text = "cannot open or create the database file: choose a writable path"
            elif "readonly database" in lowered:
                text = "the database file is read-only: check its permissions"
            elif "database is locked" in lowered:
                text += f" (another writer held it over {BUSY_TIMEOUT_S:.0f} s): try again"
            elif "file is not a database" in lowered:
                text += ": the file is not an osmark store; point --db elsewhere"
        elif isinstance(exc, OperationalError):  # psycopg's class for connection trouble
            text = (f"cannot use the PostgreSQL server: {text}: check that it is running "
                    "and the URL's host, user, password and database")
        return f"{self.display_url}: {text}"

    def _read(self, work: Callable[[Connection], T]) -> T:
        """Run work in one read transaction (on SQLite a WAL snapshot: takes no lock)."""
        return self._transaction(work, write=False)

    def _write(self, work: Callable[[Connection], T]) -> T:
        """Run work in one write transaction, holding the store's write lock throughout."""
        return self._transaction(work, write=True)

    def _transaction(self, work: Callable[[Connection], T], write: bool) -> T:
        attempts = 5 if self._sqlite else 1
        with self._guard():
            for attempt in range(attempts):
                try:
                    with self._engine.connect() as conn:
                        if write:
                            conn.execution_options(osmark_write=True)  # BEGIN IMMEDIATE
                        with conn.begin():
                            if write and not self._sqlite:
                                conn.execute(select(func.pg_advisory_xact_lock(_PG_WRITE_LOCK)))
                            return work(conn)
                except OperationalError as exc:
                    # SQLite can answer "locked" without waiting out the busy timeout (e.g.
                    # while another process switches the journal to WAL). The transaction
                    # rolled back whole, so it is safe to run it again.
                    if "database is locked" not in str(exc.orig) or attempt == attempts - 1:
                        raise
                    time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    def _check(self) -> None:
        if self._problem is not None:
            raise self._problem

    # -- writing --

    def index_run(self, result: ResultFile, path: Path) -> None:
        """Index one run (replacing any earlier index of the same run id)."""
        self.index_many([(result, path)])

    def index_many(self, items: Iterable[tuple[ResultFile, Path]]) -> None:
        """Index many runs in one transaction: the fast way to fill a store."""
        self._check()
        by_id: dict[str, tuple[ResultFile, Path]] = {}
        for result, path in items:
            by_id[result.run.id] = (result, path)  # a later copy of a run wins
        if not by_id:
            return
        rows = _rows(by_id.values())
        ids = list(by_id)

        def work(conn: Connection) -> None:
            _delete_runs(conn, ids)
            _insert(conn, rows)

        self._write(work)

    def set_tags(self, run_id: str, tags: dict[str, str]) -> None:
        """Merge tags into the index only; `retag` also writes them into the run's file."""
        self._check()

        def work(conn: Connection) -> None:
            if conn.execute(select(runs.c.id).where(runs.c.id == run_id)).first() is None:
                raise StoreError(f"no stored run has the id {run_id!r}; `osmark runs` "
                                 "lists them")
            if tags:
                conn.execute(delete(run_tags).where(run_tags.c.run_id == run_id,
                                                    run_tags.c.key.in_(list(tags))))
                conn.execute(run_tags.insert(), [
                    {"run_id": run_id, "key": key, "value": value}
                    for key, value in tags.items()])

        self._write(work)

    def rebuild(self, directory: Path) -> tuple[int, list[str]]:
        """Drop the index and re-index every result file under directory, in one transaction.

        A file that cannot be loaded is skipped; its one-line error is returned. When two
        files hold the same run id, the one named <run id>.json wins (else the first by
        path). Returns (runs indexed, errors).
        """
        directory = Path(directory)
        if not directory.is_dir():
            raise StoreError(f"{directory}: no such directory: nothing to index")
        errors: list[str] = []
        chosen: dict[str, tuple[ResultFile, Path]] = {}
        for path in sorted(p for p in directory.rglob("*.json") if p.is_file()):
            try:
                result = model.load(path)
            except ResultFileError as exc:
                errors.append(str(exc))
                continue
            run_id = result.run.id
            if run_id not in chosen or path.name == f"{run_id}.json":
                chosen[run_id] = (result, path)
        rows = _rows(chosen.values())

        def work(conn: Connection) -> None:
            # A newer store may hold tables in another shape: drop what we know of,
            # whatever its version, and create it afresh.
            for table in reversed(metadata.sorted_tables):
                table.drop(conn, checkfirst=True)
            self._create_schema(conn)
            _insert(conn, rows)

        self._write(work)
        self._problem = None
        return len(chosen), errors

    # -- reading --

    def last_duration(self, host: str, suite: str) -> float | None:
        """Seconds the newest complete run of `suite` on `host` took (measured runs only)."""
        self._check()
        query = (select(runs.c.started, runs.c.ended)
                 .where(runs.c.host == host, runs.c.suite == suite, runs.c.complete,
                        runs.c.source_format.is_(None), runs.c.ended.is_not(None))
                 .order_by(runs.c.started_key.desc()).limit(1))
        row = self._read(lambda conn: conn.execute(query).first())
        if row is None:
            return None
        try:
            started = datetime.fromisoformat(row.started)
            ended = datetime.fromisoformat(row.ended)
        except (TypeError, ValueError):
            return None
        return max(0.0, (ended - started).total_seconds())

    def list_runs(self, host: str | None = None, limit: int | None = None,
                  tags: dict[str, str] | None = None) -> list[RunRow]:
        """Runs, newest first; host and every tag given must match."""
        self._check()
        query = select(runs)
        if host is not None:
            query = query.where(runs.c.host == host)
        for key, value in (tags or {}).items():
            query = query.where(exists().where(run_tags.c.run_id == runs.c.id,
                                               run_tags.c.key == key,
                                               run_tags.c.value == value))
        query = query.order_by(runs.c.started_key.desc(), runs.c.id.desc())
        if limit is not None:
            query = query.limit(max(limit, 0))
        return self._read(lambda conn: _run_rows(conn, conn.execute(query).all()))

    def history(self, host: str | None, limit: int | None = None) -> list[RunRow]:
        """The last `limit` runs (of host, or of all hosts), oldest first: a chart's x axis."""
        return list(reversed(self.list_runs(host=host, limit=limit)))

    def test_history(self, host: str | None, test_id: str, copies: int | None = None,
                     limit: int | None = None) -> list[TestPoint]:
        """One test's last `limit` figures, oldest first, each with its samples."""
        self._check()
        query = (select(results, *[c.label(f"runs_{c.name}") for c in runs.columns])
                 .join(runs, runs.c.id == results.c.run_id)
                 .where(results.c.test_id == test_id))
        if copies is not None:
            query = query.where(results.c.copies == copies)
        if host is not None:
            query = query.where(results.c.host == host)
        query = query.order_by(results.c.started_key.desc(), results.c.run_id.desc(),
                               results.c.copies.desc())
        if limit is not None:
            query = query.limit(max(limit, 0))

        def work(conn: Connection) -> list[TestPoint]:
            found = conn.execute(query).all()
            tags = _tags(conn, list({row.run_id for row in found}))
            points = []
            cache: dict[str, RunRow] = {}
            for row in reversed(found):
                run = cache.get(row.run_id)
                if run is None:
                    values = {c.name: getattr(row, f"runs_{c.name}") for c in runs.columns}
                    run = cache[row.run_id] = _run_row(values, tags.get(row.run_id, {}))
                points.append(TestPoint(
                    run=run, test_id=row.test_id, copies=row.copies, title=row.title,
                    unit=row.unit, higher_is_better=row.higher_is_better, status=row.status,
                    median=row.median, ci_low=row.ci_low, ci_high=row.ci_high, n=row.n,
                    samples=msgspec.json.decode(row.samples)))
            return points

        return self._read(work)

    def find(self, ref: str) -> RunRow:
        """A run by exact id, "latest", "latest~N" (N runs before the latest) or id prefix."""
        self._check()
        ref = ref.strip()
        if not ref:
            raise StoreError("no run given: name a run id, an id prefix, latest or latest~N")
        order = (runs.c.started_key.desc(), runs.c.id.desc())

        def work(conn: Connection) -> RunRow:
            row = conn.execute(select(runs).where(runs.c.id == ref)).first()
            if row is not None:
                return _run_rows(conn, [row])[0]
            latest = re.fullmatch(r"latest(?:~(\d+))?", ref)
            if latest:
                back = int(latest.group(1) or 0)
                row = conn.execute(select(runs).order_by(*order).offset(back).limit(1)).first()
                if row is not None:
                    return _run_rows(conn, [row])[0]
                count = conn.execute(select(func.count()).select_from(runs)).scalar() or 0
                if count == 0:
                    raise StoreError("no runs are stored yet: `osmark run` measures one, "
                                     "`osmark db rebuild` indexes existing result files")
                raise StoreError(f"{ref!r}: only {count} run{'s' if count != 1 else ''} "
                                 f"stored; the oldest is latest~{count - 1}")
            prefix = func.substr(runs.c.id, 1, len(ref)) == ref
            count = conn.execute(select(func.count()).where(prefix)).scalar() or 0
            if count == 0:
                raise StoreError(f"no stored run matches {ref!r}; `osmark runs` lists them")
            found = conn.execute(select(runs).where(prefix).order_by(runs.c.id).limit(3)).all()
            if count == 1:
                return _run_rows(conn, found)[0]
            names = ", ".join(row.id for row in found) + (", …" if count > 3 else "")
            raise StoreError(f"{ref!r} matches {count} runs: {names}; give more of the id")

        return self._read(work)

    def hosts(self) -> list[str]:
        """Every host with a stored run, sorted."""
        self._check()
        query = select(runs.c.host).distinct().order_by(runs.c.host)
        return self._read(lambda conn: list(conn.execute(query).scalars()))

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def retag(store: Store, ref: str, tags: dict[str, str]) -> RunRow:
    """Merge tags into a run: into its file first (the truth), then into the index."""
    row = store.find(ref)
    path = Path(row.path)
    try:
        result = model.load(path)
    except ResultFileError as exc:
        raise StoreError(f"run {row.id}: its result file cannot be used ({exc}): "
                         "`osmark db rebuild` re-indexes the files that remain") from None
    if result.run.id != row.id:
        raise StoreError(f"run {row.id}: {path} now holds run {result.run.id}: "
                         "`osmark db rebuild` re-indexes the files")
    result.host.description.tags = {**result.host.description.tags, **tags}
    try:
        model.save(result, path)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the tags ({exc.strerror or exc})") from None
    store.index_run(result, path)
    return store.find(row.id)


# --- helpers -------------------------------------------------------------------------------

def _sqlite_on_connect(dbapi_connection: Any, connection_record: Any) -> None:
    """Per connection: we issue BEGIN ourselves, wait for locks, and use the WAL journal."""
    dbapi_connection.isolation_level = None  # the sqlite3 module must not BEGIN for us
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # safe with WAL, much faster commits
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_on_begin(conn: Connection) -> None:
    """Writers take the write lock at BEGIN; readers take none (WAL snapshots)."""
    immediate = conn.get_execution_options().get("osmark_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _rows(items: Iterable[tuple[ResultFile, Path]]) -> dict[str, list[dict[str, Any]]]:
    """The table rows for some runs."""
    out: dict[str, list[dict[str, Any]]] = {"runs": [], "run_tags": [], "results": []}
    for result, path in items:
        run, identity = result.run, result.host.identity
        description = result.host.description
        out["runs"].append({
            "id": run.id,
            "path": str(Path(path).absolute()),
            "host": description.hostname,
            "cpu_model": identity.cpu_model,
            "virtualization": identity.virtualization,
            "kernel": identity.kernel,
            "started": run.started,
            "started_key": _started_key(run.started),
            "ended": run.ended,
            "suite": run.suite,
            "complete": run.complete,
            "quality": run.quality,
            "tool": result.tool.name,
            "tool_version": result.tool.version,
            "source_format": run.source.format if run.source is not None else None,
            "scores": msgspec.json.encode(
                {str(score.copies): score.index for score in result.scores}).decode(),
        })
        out["run_tags"].extend({"run_id": run.id, "key": key, "value": value}
                               for key, value in description.tags.items())
        seen: set[tuple[str, int]] = set()
        for bench in result.results:
            if (bench.id, bench.copies) in seen:
                continue  # one figure per test and copies; the file's first wins
            seen.add((bench.id, bench.copies))
            out["results"].append({
                "run_id": run.id, "test_id": bench.id, "copies": bench.copies,
                "title": bench.title, "unit": bench.unit,
                "higher_is_better": bench.higher_is_better, "status": bench.status,
                "median": bench.median, "ci_low": bench.ci_low, "ci_high": bench.ci_high,
                "n": bench.n, "samples": msgspec.json.encode(bench.samples).decode(),
                "host": description.hostname, "started_key": out["runs"][-1]["started_key"],
            })
    return out


def _delete_runs(conn: Connection, ids: Sequence[str]) -> None:
    for chunk in _chunks(ids):
        for table in (results, run_tags):
            conn.execute(delete(table).where(table.c.run_id.in_(chunk)))
        conn.execute(delete(runs).where(runs.c.id.in_(chunk)))


def _insert(conn: Connection, rows: dict[str, list[dict[str, Any]]]) -> None:
    for table in (runs, run_tags, results):  # parents first: foreign keys are checked
        if rows[table.name]:
            conn.execute(table.insert(), rows[table.name])


def _tags(conn: Connection, ids: Sequence[str]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for chunk in _chunks(ids):
        query = (select(run_tags).where(run_tags.c.run_id.in_(chunk))
                 .order_by(run_tags.c.run_id, run_tags.c.key))
        for row in conn.execute(query):
            found.setdefault(row.run_id, {})[row.key] = row.value
    return found


def _run_row(values: dict[str, Any], tags: dict[str, str]) -> RunRow:
    scores = msgspec.json.decode(values["scores"])
    return RunRow(
        id=values["id"], path=values["path"], host=values["host"],
        cpu_model=values["cpu_model"], virtualization=values["virtualization"],
        kernel=values["kernel"], started=values["started"], ended=values["ended"],
        suite=values["suite"], complete=bool(values["complete"]), quality=values["quality"],
        tool=values["tool"], tool_version=values["tool_version"],
        source_format=values["source_format"],
        scores={int(copies): index for copies, index in sorted(scores.items(),
                                                                key=lambda kv: int(kv[0]))},
        tags=tags,
    )


def _run_rows(conn: Connection, found: Sequence[Row[Any]]) -> list[RunRow]:
    tags = _tags(conn, [row.id for row in found])
    return [_run_row(dict(row._mapping), tags.get(row.id, {})) for row in found]


__all__ = [
    "STORE_VERSION", "RunRow", "Store", "StoreError", "TestPoint", "resolve_url", "retag",
]
