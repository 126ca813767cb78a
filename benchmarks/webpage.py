"""Page weight and first load of the game page (real server, real headless Chromium).

    python benchmarks/webpage.py

Prints every request of a first visit of /game/ID (all must go to 127.0.0.1), the bytes
transferred, and the load timings (DOMContentLoaded, load, board drawn) over a few visits,
each in a fresh browser context (an empty cache).
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(visits: int = 5) -> None:
    """Start a server, open a game page `visits` times, print the table."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tempfile.mkdtemp()
    proc = subprocess.Popen([sys.executable, "-m", "scotlandyard.server", "--port", str(port), "--db",
                             f"{tmp}/g.sqlite3", "--ai-delay", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/api/presets", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        game = httpx.post(f"{base}/api/games", json={"preset": "classic", "seed": 1}).json()
        url = base + game["links"]["detectives"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS,
                                         env={**os.environ, "HOME": tmp})
            rows = []
            for i in range(visits):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                page = ctx.new_page()
                urls: list[str] = []
                page.on("request", lambda r, urls=urls: urls.append(r.url))
                t0 = time.perf_counter()
                page.goto(url)
                page.wait_for_selector(".game-page[data-version] .piece")
                drawn = (time.perf_counter() - t0) * 1000
                nav = page.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
                rows.append((nav["domContentLoadedEventEnd"], nav["loadEventEnd"], drawn))
                if i == 0:
                    res = page.evaluate("""() => [performance.getEntriesByType('navigation')[0],
                        ...performance.getEntriesByType('resource')].map(e => [e.name, e.encodedBodySize, e.decodedBodySize])""")
                    external = [u for u in urls if not u.startswith(base) and not u.startswith("ws://127.0.0.1")]
                    print(f"{'request':<44} {'over the wire':>14} {'decoded':>9}")
                    for name, wire, dec in sorted(res):
                        print(f"{name.replace(base, '').split('#')[0]:<44} {wire:>14} {dec:>9}")
                    print(f"{'total (' + str(len(res)) + ' files)':<44} {sum(r[1] for r in res):>14} {sum(r[2] for r in res):>9}")
                    print(f"requests to other hosts: {len(external)} {external}")
                ctx.close()
            browser.close()
        med = [statistics.median(c) for c in zip(*rows, strict=True)]
        print(f"\nfirst load, median of {visits} fresh visits (ms): DOMContentLoaded {med[0]:.0f}, "
              f"load {med[1]:.0f}, board drawn with the pieces {med[2]:.0f}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
