"""A real game server process for the live tests and ``benchmarks/server_attack.py``:
``python -m scotlandyard.server`` (or, ``unpaced``, ``tests/serve_unpaced.py``) on a free port
of 127.0.0.1, its output in a log file, stopped by its pid."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

UNPACED = Path(__file__).with_name("serve_unpaced.py")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_argv(unpaced: bool = False) -> list[str]:
    """The command that starts a game server: ``python -m scotlandyard.server``, or with
    ``unpaced`` ``tests/serve_unpaced.py`` (the same options, AI Mr X unpaced; test-only)."""
    return [sys.executable, *([str(UNPACED)] if unpaced else ["-m", "scotlandyard.server"])]


def wait_until_up(proc: subprocess.Popen[Any], url: str, seconds: float,
                  output: Callable[[], str]) -> None:
    """Poll ``url`` until it answers 200; :class:`RuntimeError` with the server's ``output()``
    if the process exits first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}):\n{output()}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"server did not answer within {seconds:g} s:\n{output()}")
        time.sleep(0.1)


class LiveServer:
    """``python -m scotlandyard.server`` in a subprocess on a free port."""

    def __init__(self, workdir: Path, db: Path, ai_delay: float, *extra: str,
                 unpaced: bool = False) -> None:
        """``unpaced``: AI Mr X replies as soon as he has thought (tests/serve_unpaced.py,
        test-only), for tests that play many whole AI games."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.log = workdir / f"server-{self.port}.log"
        self._out = self.log.open("wb")
        self.proc = subprocess.Popen(
            [*server_argv(unpaced), "--port", str(self.port), "--db", str(db),
             "--ai-delay", str(ai_delay), *extra],
            cwd=workdir, stdout=self._out, stderr=subprocess.STDOUT)
        try:  # a loaded machine starts Python slowly
            wait_until_up(self.proc, self.base + "/api/presets", 120, self.log.read_text)
        except RuntimeError:
            self.stop()
            raise

    def create(self, **body: Any) -> dict:
        """``POST /api/games``; waits as told on a 429 (the per-address limit on new games)."""
        r = httpx.post(self.base + "/api/games", json=body, timeout=30)
        while r.status_code == 429:
            time.sleep(float(r.headers.get("Retry-After", "1")))
            r = httpx.post(self.base + "/api/games", json=body, timeout=30)
        assert r.status_code == 201, r.text
        return r.json()

    def state(self, g: dict, name: str) -> dict:
        """The REST state of ``g`` for the token ``name``, without the seats' presence
        (``connected``, ``away``, and who is away now, ``absent.seats``), so states from
        before and after a restart compare."""
        r = httpx.get(f"{self.base}/api/games/{g['game_id']}/state",
                      headers={"Authorization": "Bearer " + g["tokens"][name]}, timeout=10)
        assert r.status_code == 200, r.text
        body = r.json()
        for seat in body["seats"].values():
            seat.pop("connected")
            seat.pop("away")
        body["absent"].pop("seats")  # live presence, like "connected" (a restart clears it)
        return body

    def record(self, g: dict) -> str:
        """The game's record as JSON text, with Mr X's token (the full record)."""
        r = httpx.get(f"{self.base}/api/games/{g['game_id']}/record", timeout=30,
                      params={"format": "json"},
                      headers={"Authorization": "Bearer " + g["tokens"]["X"]})
        assert r.status_code == 200, r.text
        return r.text

    def url(self, g: dict, name: str) -> str:
        return f"{self.ws}/ws/{g['game_id']}?token={g['tokens'][name]}"

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no shutdown code runs
        self.proc.wait(10)
        self._out.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._out.close()
