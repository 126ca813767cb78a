"""A throwaway PostgreSQL server for the tests (a pytest plugin, loaded by conftest.py).

``pg_server`` (session): ``initdb`` into a temporary folder and ``postgres`` on a free loopback
port, run as the ``postgres`` OS user when the tests run as root (PostgreSQL refuses to run as
root); stopped by its pid at the end. ``SCOTLANDYARD_TEST_PG=postgresql://...`` uses that server
instead (its user must be allowed to create databases).

``pg_url`` (function): a fresh, empty database on that server, dropped afterwards.

The README's test command (scripts/test.sh) installs Debian's ``postgresql`` package where it
is missing; without PostgreSQL these tests fail and say how to get it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live_server import free_port


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    for cand in sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True):
        return Path(cand).parent
    raise RuntimeError("PostgreSQL is not installed (no pg_ctl): run the README's test command "
                       "(scripts/test.sh installs Debian's postgresql package), or "
                       "apt-get install postgresql, or set SCOTLANDYARD_TEST_PG")


@dataclass
class PgServer:
    """A running PostgreSQL server the tests may create databases on."""

    url: str          # the maintenance database (postgres)
    pid: int | None   # the postmaster we started (None: an external server)

    def database_url(self, name: str) -> str:
        """The URL of database ``name`` on this server."""
        return self.url.rsplit("/", 1)[0] + "/" + name


def _start() -> tuple[PgServer, Path]:
    bindir = _bindir()
    root = Path(tempfile.mkdtemp(prefix="sy-pg-"))
    data = root / "data"
    as_user: dict[str, object] = {}
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: the postgres OS user runs it
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    subprocess.run([str(bindir / "initdb"), "-D", str(data), "-U", "sy", "-A", "trust",
                    "-E", "UTF8", "--no-sync", "--no-instructions"],
                   check=True, capture_output=True, cwd=root, **as_user)  # type: ignore[call-overload]
    log = root / "postgres.log"
    for attempt in range(3):  # a port taken between free_port() and the bind: try another
        port = free_port()
        done = subprocess.run(
            [str(bindir / "pg_ctl"), "start", "-w", "-t", "120", "-D", str(data), "-l", str(log),
             "-o", f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=200"],
            capture_output=True, text=True, cwd=root, **as_user)  # type: ignore[call-overload]
        if done.returncode == 0:
            break
        if attempt == 2:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {done.stderr}\n{tail}")
    pid = int((data / "postmaster.pid").read_text().split()[0])
    return PgServer(f"postgresql://sy@127.0.0.1:{port}/postgres", pid), root


def _stop(pid: int) -> None:
    """Fast shutdown of the postmaster ``pid`` (SIGINT), SIGKILL after 20 s."""
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for this test session (see the module's docstring)."""
    external = os.environ.get("SCOTLANDYARD_TEST_PG")
    if external:
        yield PgServer(external, None)
        return
    server, root = _start()
    try:
        yield server
    finally:
        assert server.pid is not None
        _stop(server.pid)
        shutil.rmtree(root, ignore_errors=True)


_counter = iter(range(1_000_000))


@contextlib.contextmanager
def fresh_database(server: PgServer) -> Iterator[str]:
    """A new, empty database on ``server`` (its URL), dropped on leaving."""
    import psycopg

    name = f"sy_test_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server.database_url(name)
    finally:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh database on :func:`pg_server`, dropped after the test."""
    with fresh_database(pg_server) as url:
        yield url
