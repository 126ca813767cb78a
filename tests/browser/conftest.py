"""Fixtures for the browser tests: the real server in a subprocess, real Chromium via Playwright.

The server is ``python -m scotlandyard.server`` on a free port of 127.0.0.1 with a temporary
SQLite file and ``--ai-delay 0`` (the shared ``server``: ``tests/serve_unpaced.py``, the same
with AI Mr X's replies unpaced); Chromium is the system's (``/usr/bin/chromium``), started
headless with a temporary HOME. Nothing is downloaded (never ``playwright install``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import free_port, server_argv, wait_until_up

CHROMIUM = os.environ.get("SY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
STATIC = ROOT / "scotlandyard" / "server" / "static"


@contextlib.contextmanager
def running_server(tmp: Path, *extra: str, unpaced: bool = False) -> Iterator[str]:
    """``python -m scotlandyard.server`` on a free port with a database in ``tmp`` and the
    options ``extra``; yields its base URL and stops it by pid. ``unpaced``: AI Mr X replies
    as soon as he has thought (``tests/serve_unpaced.py``, test-only)."""
    port = free_port()
    log = open(tmp / "server.log", "w+b")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [*server_argv(unpaced), "--port", str(port), "--db", str(tmp / "games.sqlite3"),
         "--ai-delay", "0", *extra],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )
    base = f"http://127.0.0.1:{port}"

    def output() -> str:
        log.seek(0)
        return log.read().decode(errors="replace")[-3000:]

    try:  # a loaded 2-core machine can take a while
        wait_until_up(proc, f"{base}/api/presets", 90, output)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running game server (stopped by pid at the end of the session)."""
    # AI Mr X unpaced (test-only): whole games against him run at the speed of the page, not at
    # his 0.5-20 s pace a move; the pace itself is tested in tests/test_server_limits.py
    with running_server(tmp_path_factory.mktemp("server"), unpaced=True) as base:
        yield base


@pytest.fixture(scope="package")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the session."""
    from playwright.sync_api import sync_playwright

    home = tmp_path_factory.mktemp("chromium-home")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                               env={**os.environ, "HOME": str(home)})
        try:
            yield b
        finally:
            b.close()
    shutil.rmtree(home, ignore_errors=True)


class PageErrors(list):
    """JavaScript errors seen on the pages of one test."""


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Make pages in fresh contexts: ``new_page(locale="it-IT")``. Fails the test on any
    uncaught JavaScript error."""
    contexts = []
    errors = PageErrors()

    def make(**context_options: Any) -> Any:
        opts = {"viewport": {"width": 1400, "height": 900}, "locale": "en-US", **context_options}
        ctx = browser.new_context(**opts)
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture(scope="package")
def artifacts() -> Path:
    """The folder for screenshots (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
