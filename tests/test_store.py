"""The run store: an index over result files, on SQLite and (when a server is given) PostgreSQL.

PostgreSQL tests need OSMARK_TEST_POSTGRES_URL (a role that may CREATE DATABASE); each
session works in a database of its own, dropped at the end. Without the variable they
are skipped, unless OSMARK_REQUIRE_POSTGRES=1 (CI), which makes that a failure.
"""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from msgspec.structs import replace
from sqlalchemy import create_engine, text

from osmark import model, store
from osmark.model import ResultFile
from osmark.store import Store, StoreError, resolve_url, retag

GOLDEN = Path(__file__).parent / "golden"
# The four distinct runs in the golden index files, oldest first (schema3-index-2copies.json
# holds the same run as schema2-index-2copies.json, upgraded).
RUN_IDS = [
    "20261130T061519-vm-06cb",
    "20261130T064547-vm-606d",
    "20261130T064712-vm-465b",
    "20261130T065306-vm-5784",
]


# --- fixtures ------------------------------------------------------------------------------

@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL with no tables yet, on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'osmark.db'}"
    base: str = request.getfixturevalue("pg_url")
    engine = create_engine(resolve_url(base))
    try:
        store.metadata.drop_all(engine)
    finally:
        engine.dispose()
    return base


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    """The golden result files of the index suite, copied: retag rewrites them."""
    directory = tmp_path / "results"
    directory.mkdir()
    for path in GOLDEN.glob("schema*-index-*.json"):
        shutil.copy(path, directory / path.name)
    return directory


@pytest.fixture()
def db(url: str) -> Iterator[Store]:
    opened = Store(url)
    yield opened
    opened.close()


@pytest.fixture()
def filled(db: Store, results: Path) -> Store:
    for path in sorted(results.glob("*.json")):
        db.index_run(model.load(path), path)
    return db


def variant(base: ResultFile, run_id: str, started: str | None = None,
            hostname: str | None = None, tags: dict[str, str] | None = None) -> ResultFile:
    """A copy of base as another run (distinct id, maybe another host, time or tags)."""
    run = replace(base.run, id=run_id, started=started or base.run.started)
    description = replace(base.host.description,
                          hostname=hostname or base.host.description.hostname,
                          tags=dict(tags if tags is not None else base.host.description.tags))
    return replace(base, run=run, host=replace(base.host, description=description))


def golden(name: str = "schema3-index-2copies.json") -> ResultFile:
    return model.load(GOLDEN / name)


# --- indexing and listing -------------------------------------------------------------------

def test_index_and_list(filled: Store, results: Path) -> None:
    rows = filled.list_runs()
    assert [row.id for row in rows] == RUN_IDS[::-1]  # newest first
    newest, oldest = rows[0], rows[-1]
    assert newest.host == "vm" and newest.tool == "osmark" and newest.suite == "index"
    assert newest.source_format is None and newest.complete is True
    assert newest.scores == {1: pytest.approx(1454.3749434643225),
                             2: pytest.approx(2608.3854783608417)}
    assert newest.quality == "noisy" and newest.virtualization == "firecracker"
    assert oldest.virtualization == "unknown"  # schema 1, upgraded on load
    assert Path(oldest.path) == results / "schema1-index-2copies.json"
    assert Path(oldest.path).is_absolute()
    assert [row.id for row in filled.list_runs(limit=2)] == RUN_IDS[:1:-1]
    assert filled.list_runs(host="elsewhere") == []
    assert filled.hosts() == ["vm"]


def test_imported_runs_keep_their_source(db: Store, tmp_path: Path) -> None:
    base = golden()
    imported = replace(base, run=replace(base.run, source=model.Source(
        format="unixbench-text", file="ub.txt", label="box")))
    db.index_run(imported, tmp_path / "x.json")
    assert db.find(base.run.id).source_format == "unixbench-text"


def test_reindex_replaces_the_run(filled: Store, tmp_path: Path) -> None:
    base = golden()
    before = filled.test_history(None, "ub.pipe")
    assert sum(point.run.id == base.run.id for point in before) == 2  # 1 and 2 copies
    smaller = replace(variant(base, base.run.id, tags={"kernel": "patched"}),
                      results=[r for r in base.results if r.id == "ub.dhry2reg"],
                      scores=[model.Score(copies=1, index=5.0, partial=True, tests=1)])
    filled.index_run(smaller, tmp_path / "moved.json")
    row = filled.find(base.run.id)
    assert row.scores == {1: 5.0} and row.tags == {"kernel": "patched"}
    assert row.path == str(tmp_path / "moved.json")
    assert len(filled.list_runs()) == 4
    assert all(p.run.id != base.run.id for p in filled.test_history(None, "ub.pipe"))
    assert len(filled.test_history(None, "ub.dhry2reg", limit=1)) == 1


def test_a_failed_write_leaves_nothing(db: Store, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    real_rows = store._rows

    def broken_rows(items):  # a results row the database refuses (NOT NULL title)
        rows = real_rows(items)
        rows["results"][-1]["title"] = None
        return rows

    monkeypatch.setattr(store, "_rows", broken_rows)
    with pytest.raises(StoreError) as caught:
        db.index_many([(variant(golden(), f"run-{i}"), tmp_path / f"{i}.json")
                       for i in range(3)])
    assert "\n" not in str(caught.value)
    monkeypatch.undo()
    assert db.list_runs() == []
    with create_engine(resolve_url(db.url)).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM results")).scalar() == 0


# --- finding runs ---------------------------------------------------------------------------

def test_find(filled: Store) -> None:
    assert filled.find(RUN_IDS[1]).id == RUN_IDS[1]
    assert filled.find("20261130T0645").id == RUN_IDS[1]  # a unique prefix
    assert filled.find("latest").id == RUN_IDS[3]
    assert filled.find("latest~1").id == RUN_IDS[2]
    assert filled.find("latest~3").id == RUN_IDS[0]
    assert filled.find(" latest~0 ").id == RUN_IDS[3]


def test_find_errors(filled: Store) -> None:
    with pytest.raises(StoreError, match=r"'2026' matches 4 runs: .*, …; give more of the id"):
        filled.find("2026")
    with pytest.raises(StoreError, match="no stored run matches 'nope'; `osmark runs`"):
        filled.find("nope")
    with pytest.raises(StoreError, match="only 4 runs stored; the oldest is latest~3"):
        filled.find("latest~4")
    with pytest.raises(StoreError, match="no run given"):
        filled.find("")
    # A prefix is matched exactly: not as a LIKE pattern, not case-insensitively.
    with pytest.raises(StoreError, match="no stored run matches"):
        filled.find("20261130t0645")
    with pytest.raises(StoreError, match="no stored run matches"):
        filled.find("2026113_T")


def test_find_in_an_empty_store(db: Store) -> None:
    with pytest.raises(StoreError, match="no runs are stored yet"):
        db.find("latest")


# --- tags ---------------------------------------------------------------------------------

def test_set_tags_merges(filled: Store) -> None:
    filled.set_tags(RUN_IDS[0], {"kernel": "patched", "fs": "ext4"})
    filled.set_tags(RUN_IDS[0], {"kernel": "stock"})
    assert filled.find(RUN_IDS[0]).tags == {"kernel": "stock", "fs": "ext4"}
    assert [r.id for r in filled.list_runs(tags={"fs": "ext4"})] == [RUN_IDS[0]]
    assert filled.list_runs(tags={"fs": "ext4", "kernel": "patched"}) == []
    assert len(filled.list_runs(tags={})) == 4
    with pytest.raises(StoreError, match="no stored run has the id 'nope'"):
        filled.set_tags("nope", {"a": "b"})


def test_retag_writes_the_file_first(filled: Store, results: Path) -> None:
    filled.set_tags(RUN_IDS[1], {"old": "1"})
    row = retag(filled, "20261130T0645", {"kernel": "patched"})
    assert row.id == RUN_IDS[1]
    on_disk = model.load(results / "schema2-index-1copy-a.json")
    assert on_disk.host.description.tags == {"kernel": "patched"}
    # The index now mirrors the file; a rebuild keeps the tag, since the file has it.
    assert row.tags == {"kernel": "patched"}
    filled.rebuild(results)
    assert filled.find(RUN_IDS[1]).tags == {"kernel": "patched"}
    retag(filled, RUN_IDS[1], {"fs": "xfs"})
    assert model.load(results / "schema2-index-1copy-a.json").host.description.tags == {
        "kernel": "patched", "fs": "xfs"}


def test_retag_a_run_whose_file_is_gone(filled: Store, results: Path) -> None:
    (results / "schema2-index-1copy-b.json").unlink()
    with pytest.raises(StoreError, match="no such file.*osmark db rebuild"):
        retag(filled, RUN_IDS[2], {"a": "b"})


# --- history ------------------------------------------------------------------------------

def test_history_and_test_history(db: Store, tmp_path: Path) -> None:
    base = golden()  # 1 and 2 copies of every test
    runs = [  # (id, started, host), deliberately not indexed in time order
        ("r3", "2026-01-03T00:00:00+00:00", "a"),
        ("r1", "2026-01-01T00:00:00+00:00", "a"),
        ("r5", "2026-01-05T00:00:00+00:00", "b"),
        ("r2", "2026-01-02T00:00:00+00:00", "b"),
        ("r4", "2026-01-04T01:00:00+02:00", "a"),  # 23:00 UTC on the 3rd: before r4b
        ("r4b", "2026-01-03T23:30:00Z", "a"),
    ]
    for run_id, started, host in runs:
        db.index_run(variant(base, run_id, started=started, hostname=host),
                     tmp_path / f"{run_id}.json")
    chrono = ["r1", "r2", "r3", "r4", "r4b", "r5"]
    assert [r.id for r in db.history(None)] == chrono
    assert [r.id for r in db.history(None, limit=3)] == chrono[-3:]
    assert [r.id for r in db.history("a")] == ["r1", "r3", "r4", "r4b"]
    assert [r.id for r in db.history("a", limit=2)] == ["r4", "r4b"]
    assert [r.id for r in db.list_runs(limit=2)] == ["r5", "r4b"]
    assert db.hosts() == ["a", "b"]

    points = db.test_history("a", "ub.pipe", copies=1, limit=2)
    assert [p.run.id for p in points] == ["r4", "r4b"]
    expected = next(r for r in base.results if r.id == "ub.pipe" and r.copies == 1)
    point = points[-1]
    assert point.samples == expected.samples and point.n == expected.n
    assert point.median == expected.median and point.ci_low == expected.ci_low
    assert (point.title, point.unit, point.higher_is_better, point.status) == (
        expected.title, expected.unit, expected.higher_is_better, expected.status)
    assert point.run.host == "a" and point.run.started == "2026-01-03T23:30:00Z"

    every = db.test_history(None, "ub.pipe")
    assert [(p.run.id, p.copies) for p in every] == [(r, c) for r in chrono for c in (1, 2)]
    assert [(p.run.id, p.copies) for p in db.test_history(None, "ub.pipe", limit=3)] == [
        ("r4b", 2), ("r5", 1), ("r5", 2)]
    assert db.test_history(None, "ub.nope") == []
    assert db.test_history("nohost", "ub.pipe") == []


# --- rebuild ------------------------------------------------------------------------------

def test_rebuild_skips_a_bad_file(db: Store, results: Path, tmp_path: Path) -> None:
    db.index_run(variant(golden(), "stale"), tmp_path / "gone.json")
    nested = results / "2026" / "01"
    nested.mkdir(parents=True)
    other = variant(golden(), "20260101T000000-nested-0001", hostname="nested")
    model.save(other, nested / "nested.json")
    corrupt = variant(golden(), "20260101T000000-corrupt-0001", hostname="corrupt")
    (results / "corrupt.json").write_bytes(model.dumps(corrupt)[:300])
    count, errors = db.rebuild(results)
    assert count == 5  # the four golden runs (one of them in two files) + the nested one
    assert len(errors) == 1 and "corrupt.json" in errors[0] and "\n" not in errors[0]
    ids = {row.id for row in db.list_runs()}
    assert ids == {*RUN_IDS, other.run.id}
    with pytest.raises(StoreError):
        db.find(corrupt.run.id)
    assert db.hosts() == ["nested", "vm"]


def test_rebuild_needs_a_directory(db: Store, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such directory"):
        db.rebuild(tmp_path / "missing")


def test_a_newer_store_asks_for_an_upgrade(url: str, results: Path) -> None:
    Store(url).close()
    engine = create_engine(resolve_url(url))
    with engine.begin() as conn:
        conn.execute(text("UPDATE store_meta SET store_version = 99"))
    engine.dispose()
    newer = Store(url)  # opening works: rebuild must stay possible
    with pytest.raises(StoreError, match="newer osmark.*upgrade osmark.*osmark db rebuild"):
        newer.list_runs()
    assert newer.rebuild(results)[0] == 4
    assert len(newer.list_runs()) == 4
    newer.close()
    assert len(Store(url).list_runs()) == 4


# --- many writers at once -----------------------------------------------------------------

def _writer(url: str, worker: int, count: int, directory: str, barrier) -> None:
    """One process of the concurrency test: open the store and index runs, all at once."""
    base = golden()
    items = [(variant(base, f"w{worker}-{i:02d}", started=f"2026-02-01T00:{worker:02d}:{i:02d}Z"),
              Path(directory) / f"w{worker}-{i}.json")
             for i in range(count)]
    barrier.wait(timeout=120)
    opened = Store(url)  # creating the schema races too: the store is fresh
    for result, path in items:
        opened.index_run(result, path)
    opened.close()


def test_many_writers_at_once_lose_nothing(url: str, tmp_path: Path) -> None:
    workers, each = 4, 25
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    processes = [context.Process(target=_writer,
                                 args=(url, worker, each, str(tmp_path), barrier))
                 for worker in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=180)
    assert [process.exitcode for process in processes] == [0] * workers
    with Store(url) as opened:
        rows = opened.list_runs()
        assert len(rows) == workers * each
        assert len({row.id for row in rows}) == workers * each
        assert len(opened.test_history(None, "ub.pipe", copies=2)) == workers * each


def test_sqlite_writers_wait_for_the_lock_readers_do_not(tmp_path: Path) -> None:
    path = tmp_path / "osmark.db"
    db = Store(f"sqlite:///{path}")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another writer, mid-transaction
    release = threading.Timer(0.5, holder.commit)
    release.start()
    try:
        started = time.monotonic()
        assert db.list_runs() == []  # a reader reads the last commit, without waiting
        assert time.monotonic() - started < 0.4
        db.index_run(golden(), tmp_path / "x.json")  # a writer waits its turn
        assert time.monotonic() - started >= 0.4
    finally:
        release.join()
        holder.close()
    assert [row.id for row in db.list_runs()] == [golden().run.id]
    db.close()


# --- URLs and connection problems ----------------------------------------------------------

def test_resolve_url(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    monkeypatch.delenv("OSMARK_DB", raising=False)
    assert resolve_url(None) == f"sqlite:///{data_dir / 'osmark.db'}"
    assert resolve_url("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    assert resolve_url("sqlite:///rel.db") == "sqlite:///rel.db"
    assert resolve_url("postgresql://u:p@h:5432/db") == "postgresql+psycopg://u:p@h:5432/db"
    assert resolve_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_url("postgresql+psycopg://h/db") == "postgresql+psycopg://h/db"
    monkeypatch.setenv("OSMARK_DB", "postgres://env@h/db")
    assert resolve_url(None) == "postgresql+psycopg://env@h/db"
    assert resolve_url("sqlite:////given.db") == "sqlite:////given.db"  # the argument wins
    monkeypatch.setenv("OSMARK_DB", "")
    assert resolve_url(None).startswith("sqlite:///")


@pytest.mark.parametrize("bad, expected", [
    ("mysql://u:secret@h/db", "unsupported database URL"),
    ("postgresql+psycopg2://u:secret@h/db", "unsupported database URL"),
    ("/tmp/osmark.db", "not a database URL: use sqlite:///PATH"),
])
def test_unsupported_urls(bad: str, expected: str) -> None:
    with pytest.raises(StoreError, match=expected) as caught:
        resolve_url(bad)
    assert "secret" not in str(caught.value)


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'osmark.db'}"
    Store(url).close()
    with create_engine(url).connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_unwritable_sqlite_path(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot create the directory") as caught:
        Store(f"sqlite:///{blocker / 'osmark.db'}")
    assert "\n" not in str(caught.value)


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "osmark.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a database"):
        Store(f"sqlite:///{path}")


def test_missing_postgres_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now fails
    with pytest.raises(StoreError) as caught:
        Store("postgresql://u:secret@127.0.0.1/db")
    message = str(caught.value)
    assert "PostgreSQL driver is not installed: pip install 'osmark[postgres]'" in message
    assert "secret" not in message


def test_unreachable_postgres_server() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as caught:
        Store("postgresql://u:secret@127.0.0.1:1/db")  # nothing listens on port 1
    message = str(caught.value)
    assert "cannot use the PostgreSQL server" in message
    assert "secret" not in message and "\n" not in message


def test_samples_round_trip_exactly(db: Store, tmp_path: Path) -> None:
    base = golden()
    db.index_run(base, tmp_path / "x.json")
    for point in db.test_history(None, "ub.dhry2reg"):
        original = next(r for r in base.results
                        if r.id == "ub.dhry2reg" and r.copies == point.copies)
        assert msgspec.json.encode(point.samples) == msgspec.json.encode(original.samples)
