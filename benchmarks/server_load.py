"""Load test of the game server: N concurrent games played by bots over WebSockets.

Starts ``python -m scotlandyard.server`` as a subprocess on 127.0.0.1 (a fresh temporary
database, ``--ai-delay 0 --no-limits``: every bot comes from one address), creates games whose
every seat is human, and plays them with bots:
per game one socket for Mr X, one for the detectives (they move) and one spectator (it only
watches), so the server does the work of real players: check, commit to SQLite, and send each
socket its own view. A finished game is replaced by a new one, so N games stay in play.

It measures the move round trip (send ``move`` -> receive ``ack``, which the server sends
after the move is committed to the database) and counts errors. Rows:

- ``ping`` baseline: ping -> pong on an idle server (the transport alone);
- ``1 game``: one game, bots move at once (the server's own cost per move);
- ``N games, think T``: N games, bots wait T s (with jitter) before each move, like players;
- ``N games, no think``: N games, bots move at once (stress: the server's limit).

Bounded in count and time: each row runs ``--seconds`` at most (and ``--max-moves``).

``--workers N --db postgresql://...`` starts N server processes on one PostgreSQL database
(``docs/deploy.md``) and spreads each game over them as a load balancer without sticky
sessions would: the game is created on worker ``n``, Mr X's socket opens on worker ``n``, the
detectives' on ``n + 1``, the spectator's on ``n + 2`` (mod N), so most moves travel through
the database's notifications to reach the other sockets. ``--db pg-temp`` starts a throwaway
PostgreSQL server (as the tests do) for the run. The database should be empty (or at least
have no running games of its own).

    python benchmarks/server_load.py                 # 100 games, about a minute
    python benchmarks/server_load.py --games 20 --seconds 5
    python benchmarks/server_load.py --db pg-temp --workers 2 --games 20 --seconds 10
    python benchmarks/server_load.py --capacity 100,200,300,400,500,600 --seconds 8
    python benchmarks/server_load.py --capacity 300,500 --seconds 10 --gc-probe
    python benchmarks/server_load.py --capacity 500 --seconds 8 --repeat 3 --pin

``--capacity N,N,...`` ramps the number of games (bots thinking ``--think`` s before each
move, like players) and prints one row per count: moves/s, p50/p99 move latency, the server's
CPU and resident memory, the bots' own CPU (they share the machine), the machine's load
average as the row began (other work on the machine shows there), and the knee: the most
games served with p99 <= ``--knee-ms`` (50) and no errors. ``--repeat N`` runs the whole ramp
N times on fresh servers and lists each count's p99 of every run; ``--pin`` keeps the bots off
the server's cores (the server on the first half of the CPUs, the bots on the rest), so their
CPU cannot decide the result. With ``--workers N`` (PostgreSQL)
the ramp routes each game, all its sockets, to one worker (``n`` mod N, as a load balancer
that hashes the game id would) and adds up the workers' CPU and memory:

    python benchmarks/server_load.py --db pg-temp --workers 2 --capacity 200,300,400 --seconds 8

The bots run on uvloop where it is installed (it comes with uvicorn) and freeze their sockets
out of the garbage collector's way before each row, so their own pauses are not counted as
the server's latency. They do not parse the ``state`` frames in which they have nothing to
do (no legal move for them, the game not over: :func:`idle_state`), which is most of them:
the harness shares the two cores with the server. The server's CPU a move is measured
from its own process either way.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

try:  # the client parses every state frame: the faster parser leaves the cores to the server
    from orjson import loads as parse
except ImportError:  # pragma: no cover - orjson is a dependency of the package
    parse = json.loads


STATE_PREFIX = '{"type":"state","view":{'
GOING_ON = '"outcome":null,"all_shown":'
NO_MOVES = '"legal_moves":[],"pending_take":'


def idle_state(text: str) -> bool:
    """Whether a frame is a ``state`` in which this socket has nothing to do: no legal move
    for it and the game not over. The bots skip parsing those (most of the frames they get:
    Mr X's socket sees every detective move), so that the harness, which shares the cores
    with the server, uses less of them; the server's frame layout (``protocol.state_frame``:
    the view first, its fields in ``PlayerView.to_dict``'s order) makes these substrings
    exact. Everything else is parsed."""
    return text.startswith(STATE_PREFIX) and NO_MOVES in text and GOING_ON in text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc; nan elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("nan")


def wait_quiet(pids: list[int], limit: float = 120.0) -> float:
    """Wait until the servers use under 5 % of a core over a second (their AI warm-up, numba
    loading the MCTS kernel in a thread, is done: it would count as the rows' CPU otherwise);
    at most ``limit`` seconds. Returns the seconds waited."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        before = sum(cpu_seconds(p) for p in pids)
        time.sleep(1.0)
        if sum(cpu_seconds(p) for p in pids) - before < 0.05:
            break
    return time.monotonic() - t0


def quiet_collector() -> None:
    """Keep this client's garbage collector from pausing the bots mid-row (a pause here would
    be counted as the server's latency): what is alive now (the sockets, the bots) is frozen,
    and full collections are as rare as in the server (``serve``'s ``GC_THRESHOLDS``)."""
    from scotlandyard.server.cli import GC_THRESHOLDS

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@dataclass
class Stats:
    """What one row measured."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    not_taken: int = 0        # moves another worker's move beat (a race, answered with the state)
    games_finished: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0      # the timed window
    server_cpu: float = 0.0   # the server's CPU seconds in that window

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)


class Load:
    """Bots playing games on one server."""

    def __init__(self, base: str | list[str], stats: Stats, max_moves: int, think: float,
                 spectators: bool, seed: int) -> None:
        self.bases = [base] if isinstance(base, str) else list(base)
        self.base = self.bases[0]
        self.ws_base = self.base.replace("http://", "ws://")
        self.stats = stats
        self.max_moves = max_moves
        self.think = think
        self.spectators = spectators
        self.rng = random.Random(seed)
        self.https = [httpx.AsyncClient(base_url=b, timeout=30) for b in self.bases]
        self.http = self.https[0]
        self.measuring = False
        self.stop = asyncio.Event()
        self.sticky = False  # every socket of game n on worker n (a load balancer by game)

    async def finish(self, slots: list, timeout: float) -> None:
        """Stop the bots: let the game slots end (at most ``timeout`` s), close the clients."""
        self.stop.set()
        if slots:
            await asyncio.wait(slots, timeout=timeout)
        for t in slots:
            t.cancel()
        for http in self.https:
            await http.aclose()

    def url(self, g: dict, name: str, worker: int = 0) -> str:
        ws_base = self.bases[worker % len(self.bases)].replace("http://", "ws://")
        return f"{ws_base}/ws/{g['game_id']}?token={g['tokens'][name]}"

    async def open_game(self, n: int) -> list:
        """Create a game and open its sockets (welcome and first state read); with several
        workers, on workers n, n + 1, n + 2 (see the module's docstring)."""
        http = self.https[n % len(self.https)]
        body = {"preset": ("classic", "new_edition")[n % 2]}
        for attempt in range(3):  # a loaded machine may drop a connection: count it, retry
            try:
                r = await http.post("/api/games", json=body)
                break
            except httpx.TransportError as exc:
                self.stats.error(f"create: {exc!r}")
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5)
        if r.status_code != 201:
            raise RuntimeError(f"create: {r.status_code} {r.text}")
        g = r.json()
        names = ["X", "detectives"] + (["spectator"] if self.spectators else [])
        socks = []
        for i, name in enumerate(names):
            worker = n if self.sticky else n + i
            ws = await websockets.connect(self.url(g, name, worker), max_size=2**23)
            await ws.recv()  # welcome
            socks.append((name, ws))
        return socks

    async def game_slot(self, n: int, socks: list) -> None:
        """Play this slot's game; when it ends, open a new one; until stopped."""
        while not self.stop.is_set():
            done = asyncio.Event()
            tasks = [asyncio.create_task(self.bot(name, ws, done) if name != "spectator"
                                         else self.watch(ws, done)) for name, ws in socks]
            waits = [asyncio.create_task(done.wait()), asyncio.create_task(self.stop.wait())]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for t in waits:
                    t.cancel()
                for t in tasks:
                    t.cancel()
                for _, ws in socks:
                    await ws.close()
            if self.stop.is_set():
                return
            socks = await self.open_game(n)

    async def bot(self, name: str, ws, done: asyncio.Event) -> None:
        rng = random.Random(self.rng.random())
        sent_at: float | None = None
        acted = -1
        try:
            async for text in ws:
                if idle_state(text):
                    continue  # not this bot's turn and not the end: nothing to read
                msg = parse(text)
                kind = msg["type"]
                if kind == "ack":
                    if sent_at is not None and self.measuring:
                        self.stats.latencies.append(time.perf_counter() - sent_at)
                        if len(self.stats.latencies) >= self.max_moves:
                            self.stop.set()
                    sent_at = None
                elif kind == "error":
                    if msg["code"] == "not_taken":  # a race lost to another worker: no error
                        self.stats.not_taken += 1
                    else:
                        self.stats.error(f"{msg['code']}: {msg['message']}")
                    sent_at = None
                    acted = -1  # try again on a fresh state
                    await ws.send(json.dumps({"type": "sync"}))
                elif kind == "state":
                    view = msg["view"]
                    if view["outcome"] is not None:
                        if not done.is_set():  # the first socket to see the end counts it
                            self.stats.games_finished += 1  # (with workers: any of them)
                        done.set()
                        return
                    if sent_at is None and view["legal_moves"] and msg["version"] != acted:
                        if self.think:
                            await asyncio.sleep(self.think * (0.5 + rng.random()))
                        acted = msg["version"]
                        move = rng.choice(view["legal_moves"])
                        sent_at = time.perf_counter()
                        await ws.send(json.dumps({"type": "move", "move": move, "id": acted}))
                if done.is_set() or self.stop.is_set():
                    return
        except websockets.ConnectionClosed as exc:
            if not self.stop.is_set():
                self.stats.error(f"socket: {exc!r}")
        done.set()

    async def watch(self, ws, done: asyncio.Event) -> None:
        try:
            async for text in ws:
                if text.startswith(STATE_PREFIX) and GOING_ON in text:
                    continue  # the game goes on: a spectator has nothing to do
                msg = parse(text)
                if msg["type"] == "state" and msg["view"]["outcome"] is not None:
                    if not done.is_set():
                        self.stats.games_finished += 1
                    done.set()
                    return
        except websockets.ConnectionClosed as exc:
            if not self.stop.is_set():
                self.stats.error(f"spectator socket: {exc!r}")


async def ping_baseline(base: str, count: int) -> Stats:
    """ping -> pong round trips on one socket of an idle game."""
    stats = Stats()
    async with httpx.AsyncClient(base_url=base) as http:
        g = (await http.post("/api/games", json={})).json()
    url = f"{base.replace('http://', 'ws://')}/ws/{g['game_id']}?token={g['tokens']['spectator']}"
    async with websockets.connect(url, max_size=2**23) as ws:
        await ws.recv()
        await ws.recv()
        for i in range(count):
            t = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "id": i}))
            reply = json.loads(await ws.recv())
            while reply.get("type") in ("state", "chat_history", "notice"):  # sent on join
                reply = json.loads(await ws.recv())
            if reply.get("type") != "pong":
                stats.error(str(reply)[:200])
            stats.latencies.append(time.perf_counter() - t)
            await asyncio.sleep(0.06)  # stay under the rate limit (20 a second)
    return stats


async def run_row(base: str | list[str], pid: int | list[int], games: int, seconds: float,
                  max_moves: int, think: float, spectators: bool, seed: int) -> Stats:
    """Open ``games`` games (not timed), then play them for ``seconds`` (timed). ``base`` and
    ``pid``: the server, or every worker (their CPU is added up)."""
    stats = Stats()
    load = Load(base, stats, max_moves, think, spectators, seed)
    pids = [pid] if isinstance(pid, int) else list(pid)
    opened = []
    for n in range(games):
        opened.append(await load.open_game(n))
    quiet_collector()
    load.measuring = True
    t0, cpu0 = time.perf_counter(), sum(cpu_seconds(p) for p in pids)
    slots = [asyncio.create_task(load.game_slot(n, socks)) for n, socks in enumerate(opened)]
    try:
        await asyncio.wait_for(load.stop.wait(), seconds)
    except TimeoutError:
        pass
    load.measuring = False
    stats.seconds = time.perf_counter() - t0
    stats.server_cpu = sum(cpu_seconds(p) for p in pids) - cpu0
    await load.finish(slots, 10)
    return stats


@dataclass
class Step:
    """One step of the capacity ramp."""

    games: int
    stats: Stats
    rss_mb: float
    client_cpu: float  # this process's CPU seconds in the window (the bots)
    load: float = float("nan")  # the machine's 1-minute load average as the window began


async def capacity(base: str | list[str], pid: int | list[int], steps: list[int],
                   seconds: float, think: float, spectators: bool, seed: int,
                   give_up_ms: float = 1000.0) -> list[Step]:
    """Ramp the number of games: open games up to each count in ``steps`` (the ones already
    open keep playing), let them settle, then measure ``seconds``. Stops after a step whose
    p99 is over ``give_up_ms`` (far past the knee). With several workers (``base`` and ``pid``
    lists), game ``n`` and all its sockets go to worker ``n`` mod N (a load balancer that routes
    by game), and the rows add up the workers' CPU and memory."""
    load = Load(base, Stats(), 10**9, think, spectators, seed)
    load.sticky = True
    pids = [pid] if isinstance(pid, int) else list(pid)
    slots: list[asyncio.Task] = []
    out: list[Step] = []

    async def add(n: int) -> None:
        socks = await load.open_game(n)
        slots.append(asyncio.create_task(load.game_slot(n, socks)))

    try:
        for target in steps:
            while len(slots) < target:  # ten at a time, as players arriving
                batch = range(len(slots), min(target, len(slots) + 10))
                await asyncio.gather(*(add(n) for n in batch))
            quiet_collector()
            await asyncio.sleep(max(1.0, 2 * think))  # the new games' first moves
            stats = Stats()
            load.stats = stats
            load.measuring = True
            t0, mine0 = time.perf_counter(), time.process_time()
            load_at = os.getloadavg()[0]
            cpu0 = sum(cpu_seconds(p) for p in pids)
            await asyncio.sleep(seconds)
            load.measuring = False
            stats.seconds = time.perf_counter() - t0
            stats.server_cpu = sum(cpu_seconds(p) for p in pids) - cpu0
            out.append(Step(target, stats, sum(rss_mb(p) for p in pids),
                            time.process_time() - mine0, load_at))
            if pct(stats.latencies, .99) > give_up_ms:
                break
    finally:
        await load.finish(slots, 20)
    return out


def print_capacity(steps: list[Step], think: float, knee_ms: float) -> None:
    """The ramp as a table, and the knee: the most games with p99 <= ``knee_ms``."""
    print(f"capacity ramp, bots think {think:g} s on average (0.5-1.5x) before each move; "
          f"latency = move sent -> ack received, in this client")
    head = (f"{'games':>6} {'sockets':>7} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} "
            f"{'p99 ms':>7} {'max ms':>7} {'srv cpu %':>9} {'ms/move':>7} {'srv RSS MiB':>11} "
            f"{'bots cpu %':>10} {'errors':>6} {'load':>5}")
    print(head)
    print("-" * len(head))
    knee = None
    for st in steps:
        s = st.stats
        n = len(s.latencies)
        p99 = pct(s.latencies, .99)
        if n and p99 <= knee_ms and not s.errors:
            knee = st.games
        print(f"{st.games:>6} {st.games * 3:>7} {n:>7} {n / s.seconds:>8.0f} "
              f"{pct(s.latencies, .5):>7.1f} {p99:>7.1f} "
              f"{(max(s.latencies) * 1000 if n else float('nan')):>7.1f} "
              f"{s.server_cpu / s.seconds * 100:>9.0f} "
              f"{(s.server_cpu * 1000 / n if n else float('nan')):>7.2f} {st.rss_mb:>11.0f} "
              f"{st.client_cpu / s.seconds * 100:>10.0f} {s.errors:>6} {st.load:>5.2f}")
    print(f"knee: {knee if knee is not None else 'below ' + str(steps[0].games)} games "
          f"(the most with p99 <= {knee_ms:g} ms and no errors)")
    for st in steps:
        for sample in st.stats.error_samples:
            print(f"  {st.games} games: {sample}")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="concurrent games (default 100)")
    ap.add_argument("--seconds", type=float, default=15.0, help="length of each row (default 15)")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean seconds a bot waits before moving in the 'think' row (default 1)")
    ap.add_argument("--max-moves", type=int, default=200_000, help="moves per row at most")
    ap.add_argument("--no-spectators", action="store_true", help="no spectator sockets")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1,
                    help="server processes on the database (more than 1 needs PostgreSQL)")
    ap.add_argument("--db", default=None,
                    help="the database: a SQLite file (default: a fresh temporary one), "
                         "postgresql://... (an empty database), or pg-temp (a throwaway "
                         "PostgreSQL server for this run)")
    ap.add_argument("--capacity", default=None, metavar="N,N,...",
                    help="capacity mode: ramp through these numbers of games (bots thinking "
                         "--think s), one row each, and print the knee (p99 <= --knee-ms)")
    ap.add_argument("--knee-ms", type=float, default=50.0,
                    help="the p99 move latency that defines the knee (default 50)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="capacity mode: the whole ramp this many times, each on a fresh "
                         "server, each table printed, then each count's p99 of every run")
    ap.add_argument("--pin", action="store_true",
                    help="pin the server(s) to the first half of the CPUs and the bots (this "
                         "process) to the rest, so the bots cannot take the server's cores")
    ap.add_argument("--gc-probe", action="store_true",
                    help="time the server's garbage collections and sample its event loop's "
                         "lag (benchmarks/gc_probe), printed after the rows (whole run)")
    args = ap.parse_args()
    ramp: list[int] = []
    if args.capacity is not None:
        try:
            ramp = sorted({int(x) for x in args.capacity.split(",") if x.strip()})
        except ValueError:
            ap.error("--capacity takes whole numbers of games, e.g. 100,200,400")
        if not ramp or ramp[0] < 1:
            ap.error("--capacity needs counts >= 1")
    if args.games < 1 or args.seconds <= 0 or args.workers < 1 or args.repeat < 1:
        ap.error("--games >= 1, --seconds > 0, --workers >= 1 and --repeat >= 1")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if args.pin and len(cpus) < 2:
        ap.error("--pin needs at least 2 CPUs (and Linux)")

    try:  # the bots' own event loop: uvloop (uvicorn's, a dependency) where it installs,
        import uvloop  # so the bots leave more of the shared cores to the server

        uvloop.install()
    except ImportError:  # pragma: no cover - asyncio's own loop
        pass
    server_cpus = set(cpus[:len(cpus) // 2]) if args.pin else None
    if args.pin:
        os.sched_setaffinity(0, set(cpus[len(cpus) // 2:]))  # the bots
        print(f"pinned: server(s) on CPU {sorted(server_cpus or ())}, bots on CPU "
              f"{sorted(os.sched_getaffinity(0))}")
    runs: list[list[Step]] = []
    for _ in range(args.repeat if ramp else 1):
        steps = run_once(args, ramp, server_cpus)
        if steps:
            runs.append(steps)
    if len(runs) > 1:
        print(f"p99 of each run ({len(runs)} runs; load average as each row began):")
        for i, games in enumerate(ramp):
            cells = [f"{pct(r[i].stats.latencies, .99):.1f} ms (load {r[i].load:.2f})"
                     for r in runs if i < len(r)]
            print(f"  {games} games: " + "; ".join(cells))


def run_once(args: argparse.Namespace, ramp: list[int], server_cpus: set[int] | None
             ) -> list[Step]:
    """One run: start the server(s), play the rows (or the ramp), stop, print; the ramp's
    steps (empty without ``--capacity``)."""
    workdir = Path(tempfile.mkdtemp(prefix="sy-load-"))
    db = args.db or str(workdir / "load.sqlite3")
    pg_stop: Callable[[], None] | None = None
    if db == "pg-temp":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from tests.pg_fixture import _start, _stop

        pg, pg_root = _start()

        def pg_stop() -> None:  # stop the throwaway server and remove its files
            assert pg.pid is not None
            _stop(pg.pid)
            shutil.rmtree(pg_root, ignore_errors=True)

        db = pg.url
    if args.workers > 1 and not db.startswith(("postgresql://", "postgres://")):
        raise SystemExit("server_load.py: error: --workers > 1 needs --db postgresql://... "
                         "(or pg-temp): SQLite serves one process")
    env = dict(os.environ)
    if args.gc_probe:
        probe_dir = str(Path(__file__).resolve().parent / "gc_probe")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (probe_dir, env.get("PYTHONPATH")) if p)
        env["SY_GC_PROBE"] = str(workdir / "gcprobe")
    bases, procs, logs = [], [], []
    for w in range(args.workers):
        port = free_port()
        bases.append(f"http://127.0.0.1:{port}")
        logs.append((workdir / f"server{w}.log").open("wb"))
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "scotlandyard.server", "--port", str(port), "--db", db,
             "--ai-delay", "0", "--no-limits"], cwd=workdir, stdout=logs[-1],
            stderr=subprocess.STDOUT, env=env))
        if server_cpus:
            os.sched_setaffinity(procs[-1].pid, server_cpus)
    base = bases[0]
    pids = [p.pid for p in procs]
    steps: list[Step] = []
    try:
        deadline = time.monotonic() + 240  # a loaded machine starts Python slowly
        for b, pr in zip(bases, procs, strict=True):
            while True:
                try:
                    if httpx.get(b + "/api/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if pr.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"a server did not start; see {workdir}/server*.log")
                time.sleep(0.1)
        wait_quiet(pids)

        rows = []
        spect = not args.no_spectators
        if ramp:
            steps = asyncio.run(capacity(bases, pids, ramp, args.seconds, args.think, spect,
                                         args.seed))

        def measure(label: str, games: int, coro_factory) -> None:
            stats = asyncio.run(coro_factory())
            rows.append((label, games, stats))

        if not ramp:
            measure("ping baseline (idle)", 1, lambda: ping_baseline(base, 100))
            measure("1 game, no think", 1, lambda: run_row(
                bases, pids, 1, min(args.seconds, 5), args.max_moves, 0.0, spect, args.seed))
            measure(f"{args.games} games, think {args.think:g}s", args.games, lambda: run_row(
                bases, pids, args.games, args.seconds, args.max_moves, args.think, spect,
                args.seed + 1))
            measure(f"{args.games} games, no think", args.games, lambda: run_row(
                bases, pids, args.games, args.seconds, args.max_moves, 0.0, spect,
                args.seed + 2))
    finally:
        for pr in procs:
            pr.terminate()
        for pr in procs:
            try:
                pr.wait(10)
            except subprocess.TimeoutExpired:
                pr.kill()
        for f in logs:
            f.close()
        if pg_stop is not None:
            pg_stop()

    server_errors = sum("ERROR" in line or "Traceback" in line
                        for w in range(args.workers)
                        for line in (workdir / f"server{w}.log").read_text().splitlines())
    kind = "PostgreSQL" if db.startswith("postgres") else "SQLite"
    print(f"scotlandyard server load, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"spectators {'on' if spect else 'off'}, {args.workers} worker(s) on {kind}, "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    if ramp:
        print_capacity(steps, args.think, args.knee_ms)
        print(f"server log error lines: {server_errors}", flush=True)
        if args.gc_probe:
            print_gc_probe(workdir)
        return steps
    head = (f"{'scenario':<26} {'games':>5} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} "
            f"{'p90 ms':>7} {'p99 ms':>7} {'max ms':>7} {'srv cpu ms/move':>15} {'errors':>6}")
    print(head)
    print("-" * len(head))
    for label, games, st in rows:
        n = len(st.latencies)
        per = f"{st.server_cpu * 1000 / n:.2f}" if n and st.server_cpu else "-"
        rate = f"{n / st.seconds:.0f}" if st.seconds else "-"
        print(f"{label:<26} {games:>5} {n:>7} {rate:>8} {pct(st.latencies, .5):>7.1f} "
              f"{pct(st.latencies, .9):>7.1f} {pct(st.latencies, .99):>7.1f} "
              f"{(max(st.latencies) * 1000 if n else float('nan')):>7.1f} {per:>15} {st.errors:>6}")
    finished = sum(st.games_finished for _, _, st in rows)
    not_taken = sum(st.not_taken for _, _, st in rows)
    print(f"games finished: {finished}; moves not taken (lost a race to another worker): "
          f"{not_taken}; server log error lines: {server_errors}; "
          f"median move frame round trip includes JSON parsing in this client")
    for label, _, st in rows:
        for sample in st.error_samples:
            print(f"  {label}: {sample}")
    if args.gc_probe:
        print_gc_probe(workdir)
    return steps


def print_gc_probe(workdir: Path) -> None:
    """The servers' collections and loop lag over the whole run (``--gc-probe``)."""
    for path in sorted(workdir.glob("gcprobe.*.json")):
        data = json.loads(path.read_text())
        lags = sorted(data["lags"])
        if lags:
            print(f"server {path.stem.split('.')[-1]}: event loop lag p50 "
                  f"{pct(lags, .5):.2f} ms, p99 {pct(lags, .99):.1f} ms, max "
                  f"{lags[-1] * 1000:.0f} ms ({len(lags)} samples of 2 ms sleeps)")
        for gen in (0, 1, 2):
            cpu = sorted(c for g, _, c in data["collections"] if g == gen)
            if cpu:
                print(f"  gc generation {gen}: {len(cpu)} collections, CPU {sum(cpu):.2f} s "
                      f"in all, {sum(cpu) / len(cpu) * 1000:.2f} ms mean, "
                      f"{cpu[-1] * 1000:.1f} ms max")


if __name__ == "__main__":
    main()
