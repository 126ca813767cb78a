"""The first computer move of a web game after a fresh install (numba's cache empty) and with a
warm cache (after ``scotlandyard warm-up --what ai``), through a real ``scotlandyard serve`` (REST + WebSocket, Mr X ``medium`` paced at
1 s, one detective), against the baseline: the same first move when it waits for the compiler
(a process that searches before anything compiled: what the server did before its background
compile fell back to the pure-Python kernel).

    python benchmarks/first_move.py        # about 2 minutes on 2 cores (two cold compiles)

A fresh install is simulated with ``NUMBA_CACHE_DIR`` pointing at an empty folder (numba then
compiles into it; nothing else is cached).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.sync.client import connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def first_move(cache: Path, db: Path) -> float:
    """Seconds from joining a new game until Mr X's first move."""
    port = free_port()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    proc = subprocess.Popen([sys.executable, "-m", "scotlandyard.cli", "serve", "--port",
                             str(port), "--db", str(db), "--no-limits"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        while "http://" not in proc.stdout.readline():
            pass
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        body = json.dumps({"detectives": 1, "seats": {"X": {"kind": "ai", "agent": "medium"}}})
        req = urllib.request.Request(base + "/api/games", data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        game = json.load(urllib.request.urlopen(req, timeout=10))
        t0 = time.perf_counter()
        with connect(f"ws://127.0.0.1:{port}/ws/{game['game_id']}?token="
                     f"{game['tokens']['D1']}") as ws:
            while True:
                msg = json.loads(ws.recv())
                if msg["type"] == "state" and msg["version"] >= 1:
                    break
        return time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(10)


def baseline(cache: Path) -> float:
    """The first ``medium`` move of a process whose search compiles the kernel itself."""
    code = ("import random, time\n"
            "from scotlandyard import Game, Rules\n"
            "from scotlandyard.ai import Budget, make_agent\n"
            "g = Game.new(Rules.classic(detectives=1), seed=1)\n"
            "a = make_agent('medium', 'mr_x')\n"
            "t = time.perf_counter()\n"
            "a.choose(g.view('X'), g.legal_moves(), random.Random(1), Budget())\n"
            "print(time.perf_counter() - t)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)}, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows = []
        rows.append(("baseline: first medium move compiling its kernel (empty cache)",
                     baseline(root / "cache-baseline")))
        cold = first_move(root / "cache", root / "a.sqlite3")
        rows.append(("serve, fresh install (empty cache): first AI move", cold))
        subprocess.run([sys.executable, "-m", "scotlandyard.cli", "warm-up", "--what", "ai"],
                       env={**os.environ, "NUMBA_CACHE_DIR": str(root / "cache")},
                       capture_output=True, check=True)
        warm = first_move(root / "cache", root / "b.sqlite3")
        rows.append(("serve, warm cache: first AI move", warm))
    print(f"{'case':<66} {'seconds':>8}")
    for name, secs in rows:
        print(f"{name:<66} {secs:8.2f}")


if __name__ == "__main__":
    main()
