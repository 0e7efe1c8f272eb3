"""Test set-up: every test run gets its own data directory; kernels compile once per session."""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from osmark.store import resolve_url

_SESSION_ROOT = Path(tempfile.mkdtemp(prefix="osmark-tests-"))
os.environ["OSMARK_CACHE_DIR"] = str(_SESSION_ROOT / "cache")
os.environ["OSMARK_DATA_DIR"] = str(_SESSION_ROOT / "data")
os.environ.pop("OSMARK_DB", None)  # never write a developer's own run store from tests


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("OSMARK_DATA_DIR", str(path))
    return path


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session; dropped at the end."""
    base = os.environ.get("OSMARK_TEST_POSTGRES_URL")
    if not base:
        if os.environ.get("OSMARK_REQUIRE_POSTGRES") == "1":
            pytest.fail("OSMARK_REQUIRE_POSTGRES=1 but OSMARK_TEST_POSTGRES_URL is not set")
        pytest.skip("PostgreSQL store tests: set OSMARK_TEST_POSTGRES_URL="
                    "postgresql://USER:PASSWORD@127.0.0.1:5432/DB (a role with CREATEDB)")
    try:
        import psycopg
        from psycopg import sql
    except ImportError:
        if os.environ.get("OSMARK_REQUIRE_POSTGRES") == "1":
            pytest.fail("OSMARK_REQUIRE_POSTGRES=1 but psycopg is not installed")
        pytest.skip("PostgreSQL store tests: psycopg is not installed")

    parsed = make_url(resolve_url(base))
    admin = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"osmark_test_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                         .format(sql.Identifier(name)))
