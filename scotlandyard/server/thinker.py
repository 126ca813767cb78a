"""AI thinking off the event loop: :class:`Thinker` runs AI seats' ``choose`` in worker
processes (:func:`think` on a :class:`ThinkJob`) or in threads."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import multiprocessing
import os
import random
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..ai import Agent, Budget, agent_names, make_agent
from ..ai.agents import LEVELS
from ..ai.interface import stop_when
from ..game import Game
from ..move import Move
from ..rules import Rules
from ..view import PlayerView
from .seats import Seat, side_of

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("scotlandyard.server")


@dataclass(frozen=True)
class ThinkJob:
    """One AI move to compute in a worker process. The worker replays the game (server code,
    trusted with the truth) and hands the agent only ``game.view(piece)``."""

    game_id: str
    rules: dict[str, Any]
    start: dict[str, int]
    moves: tuple[str, ...]
    piece: str
    legal: tuple[str, ...]
    agent: str
    side: str
    seed: int
    stop_slot: int = -1
    """The job's flag in the workers' shared stop flags (:func:`_worker_init`; -1: none): set,
    the search ends within one kernel call (about 20 ms) and its move is dropped."""


STOP_SLOTS = 1024
"""Stop flags shared with the worker processes: at most this many process thinks at once can
be stopped (one more is computed to its end if cancelled; the server never has that many)."""

_STOP_FLAGS: Any = None  # the worker's view of the shared flags (a ctypes array)
_WORKER_GAMES: OrderedDict[str, Game] = OrderedDict()
_WORKER_AGENTS: OrderedDict[tuple[str, str, str], Agent] = OrderedDict()
_WORKER_CACHE = 64


def _worker_init(flags: Any) -> None:
    """Worker process start: keep the shared stop flags (``Thinker``'s ``RawArray``)."""
    global _STOP_FLAGS
    _STOP_FLAGS = flags


def _worker_ready() -> list[str]:
    """Load the agents in a worker process, and compile its kernel in the background (its
    moves search on the pure-Python kernel until then), so its first real move is not slowed."""
    from ..warmup import warm_up_in_background

    warm_up_in_background()
    return agent_names()


def think(job: ThinkJob) -> str:
    """Worker process: the agent's move for ``job`` (notation). Games and agents are cached
    per worker, so a game is replayed from the start only on the first move a worker makes in
    it."""
    game = _WORKER_GAMES.pop(job.game_id, None)
    if game is not None:
        made = [m.notation() for _, m in game.moves]
        if len(made) > len(job.moves) or made != list(job.moves[: len(made)]):
            game = None
    if game is None:
        game = Game.new(Rules.from_dict(job.rules), start=dict(job.start))
    for text in job.moves[game.ply:]:
        game.push(Move.parse(text))
    _WORKER_GAMES[job.game_id] = game
    while len(_WORKER_GAMES) > _WORKER_CACHE:
        _WORKER_GAMES.popitem(last=False)
    key = (job.game_id, job.piece, job.agent)
    agent = _WORKER_AGENTS.pop(key, None) or make_agent(job.agent, job.side)
    _WORKER_AGENTS[key] = agent
    while len(_WORKER_AGENTS) > _WORKER_CACHE:
        _WORKER_AGENTS.popitem(last=False)
    view: PlayerView = game.view(job.piece)
    legal = [Move.parse(t) for t in job.legal]
    flags, slot = _STOP_FLAGS, job.stop_slot
    if flags is None or slot < 0:
        return agent.choose(view, legal, random.Random(job.seed), Budget()).notation()

    def stopped() -> bool:
        return bool(flags[slot])

    if stopped():  # cancelled while it waited in the queue: nobody wants it
        return job.legal[0]
    with stop_when(stopped):
        return agent.choose(view, legal, random.Random(job.seed), Budget()).notation()


def _choose_stoppable(stop: threading.Event, agent: Agent, view: PlayerView,
                      legal: list[Move], rng: random.Random) -> Move:
    """Thread: ``agent.choose`` that ends early once ``stop`` is set (the move is dropped)."""
    if stop.is_set():
        return legal[0]
    with stop_when(stop.is_set):
        return agent.choose(view, legal, rng, Budget())


class _Stop:
    """The stop switch of one think: an event (threads) and, for a worker process's think, a
    slot of the shared flags."""

    __slots__ = ("event", "flags", "slot")

    def __init__(self, flags: Any = None, slot: int = -1) -> None:
        self.event = threading.Event()
        self.flags = flags
        self.slot = slot

    def set(self) -> None:
        self.event.set()
        if self.slot >= 0:
            self.flags[self.slot] = 1


HEAVY_LEVELS = frozenset({"hard", "max"})
"""The levels that think for seconds a move: at most ``Limits.heavy_ai`` of them at once."""

PLAYOUT_BOUND_PACE = {"medium": 1.0}
"""The pace of a level whose iterations end its search far inside its seconds cap on the
compiled (numba) kernel: ``medium``'s 1,000 take a few hundredths of a second there (two
searches with a double move), so 1 s covers them many times over. Without numba the same
iterations take about 1 s and more under load, and the cap decides (:func:`mr_x_paces`)."""


CHEAP_PACE = 0.5
"""The pace of an AI Mr X that thinks in milliseconds (``random``, ``mcd``, ``heuristic``,
``easy``): his think time still follows his legal moves, so it is paced too, whatever
``ai_delay`` is (0 included)."""

OTHER_PACES = {"random": CHEAP_PACE, "mcd": CHEAP_PACE, "heuristic": CHEAP_PACE,
               "alphabeta": 1.0, "lookahead": 1.0}
"""Paces of the agents that are not levels and do not run the MCTS kernel: one-move
heuristics, and the paranoid search (``alphabeta``; ``lookahead`` plays it as Mr X), which
stops at one round's depth or 20,000 nodes in plain Python (0.01-0.12 s measured)."""

KERNEL_AGENTS = ("mcts", "nw", "nw-2026-12-06")
"""Agents that search on the MCTS kernel with 1,000 iterations a move and no seconds cap, as
``medium`` does: paced as ``medium`` is on the same kernel."""

DEFAULT_PACE = 4.0
"""The pace of any other AI Mr X (an agent registered by a plugin): his think time is not
known here, so the pace of the slowest search of the light lane."""


def mr_x_pace(paces: dict[str, float], agent: str) -> float:
    """The pace of an AI Mr X playing ``agent`` in the table ``paces`` (:func:`mr_x_paces`),
    :data:`DEFAULT_PACE` for an agent it does not list."""
    return paces.get(agent, DEFAULT_PACE)


def mr_x_paces(fast: bool) -> dict[str, float]:
    """Seconds an AI Mr X of each level takes for every move, as others see it (at least the
    server's ``ai_delay``), on the compiled kernel (``fast``) or the pure-Python one: his think
    time depends on his true position, so it must not show, and the pace must cover the
    longest think of the level's budget on the kernel that runs it. That is its seconds cap
    (a time-bound search runs to it), 1.5 times it with a double move's second search (half
    the budget), plus the replay and the view: the pace is twice the cap, in whole seconds
    (``hard`` 1.2 s -> 3 s, ``max`` 10 s -> 20 s, ``medium`` without numba 2 s -> 4 s), except
    a level in :data:`PLAYOUT_BOUND_PACE` on the compiled kernel. (At a pace of the cap alone
    every long think overran to two paces and a move with one legal choice, no search, showed
    as one.) A level without a seconds cap (``easy``: one-move heuristics) gets
    :data:`CHEAP_PACE`; the other agents :data:`OTHER_PACES`, or ``medium``'s pace
    (:data:`KERNEL_AGENTS`). Every pace is at least :data:`CHEAP_PACE`."""
    paces: dict[str, float] = dict(OTHER_PACES)
    for name, level in LEVELS.items():
        seconds = level.mr_x[2].seconds
        if fast and name in PLAYOUT_BOUND_PACE:
            paces[name] = PLAYOUT_BOUND_PACE[name]
        elif seconds is not None:
            paces[name] = float(math.ceil(2 * seconds))
        else:
            paces[name] = CHEAP_PACE
    for name in KERNEL_AGENTS:
        paces[name] = paces["medium"]
    return {name: max(CHEAP_PACE, pace) for name, pace in paces.items()}


def paced_wait(elapsed: float, pace: float) -> float:
    """Seconds to wait after a think of ``elapsed`` seconds so that the reply comes at a whole
    multiple of ``pace`` (at least one): what others see depends on the pace only, except for
    a think that overruns it, which shows only as the next multiple."""
    if pace <= 0:
        return 0.0
    return max(1, math.ceil(elapsed / pace - 1e-9)) * pace - elapsed


def owner_key(owner: str) -> str:
    """Whose turn a game's heavy AI moves take in the lane (:class:`FairLane`) and whose cap
    of computer-only games they count against: the client address's network, an IPv4 /24 or
    an IPv6 /64 (one client can have many addresses there), or ``owner`` itself when it is not
    an address (a game loaded from the database counts as its own owner)."""
    try:
        address = ipaddress.ip_address(owner)
    except ValueError:
        return owner
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    bits = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{bits}", strict=False))


class FairLane:
    """At most ``slots`` holders at once; those who wait are served by owner in turn (round
    robin), and each owner's in the order they asked. An owner is who a game's moves count
    against (:attr:`Table.owner <scotlandyard.server.table.Table.owner>`: the address that
    created it, by :func:`owner_key`), so one client with many games gets one turn in every
    round, not one per game: the others' moves never wait behind all of its games.

    Holders are of two kinds: games with a human seat, served first, and games the computer
    plays alone (``human=False``), served only when no human-seat game that may take the slot
    waits, and holding at most ``computer_slots`` of the slots together (half of them, at least
    one). One owner holds at most ``owner_slots`` at once (all but one, at least one). So with
    two slots or more neither one client's games nor the computer-only games can take every
    slot: a move of another owner's game with a human seat waits behind them only for what
    the rest hold (other owners' human-seat games, in turn)."""

    def __init__(self, slots: int, computer_slots: int | None = None,
                 owner_slots: int | None = None) -> None:
        """A free lane of ``slots`` (at least 1), ``computer_slots`` of which computer-only
        games may hold at once (default: half, at least one), ``owner_slots`` one owner's
        games (default: all but one, at least one)."""
        self.slots = max(1, slots)
        self.computer_slots = (max(1, self.slots // 2) if computer_slots is None
                               else max(1, min(self.slots, computer_slots)))
        self.owner_slots = (max(1, self.slots - 1) if owner_slots is None
                            else max(1, min(self.slots, owner_slots)))
        self.busy = 0
        self.computer_busy = 0
        self.by_owner: dict[str, int] = {}
        self._waiting: dict[bool, OrderedDict[str, deque[asyncio.Future[None]]]] = {
            True: OrderedDict(), False: OrderedDict()}

    @property
    def waiting(self) -> int:
        """How many wait now."""
        return sum(len(q) for tier in self._waiting.values() for q in tier.values())

    @contextlib.asynccontextmanager
    async def hold(self, owner: str, human: bool = True) -> AsyncIterator[None]:
        """Wait for a slot (in ``owner``'s turn, after the human-seat games if ``human`` is
        false), hold it for the block, then hand it on."""
        await self._acquire(owner, human)
        try:
            yield
        finally:
            self._release(owner, human)

    def _may_take(self, owner: str, human: bool) -> bool:
        if self.busy >= self.slots or self.by_owner.get(owner, 0) >= self.owner_slots:
            return False
        return human or self.computer_busy < self.computer_slots

    def _take(self, owner: str, human: bool) -> None:
        self.busy += 1
        self.by_owner[owner] = self.by_owner.get(owner, 0) + 1
        if not human:
            self.computer_busy += 1

    async def _acquire(self, owner: str, human: bool = True) -> None:
        if not self.waiting and self._may_take(owner, human):
            self._take(owner, human)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[human].setdefault(owner, deque()).append(turn)
        self._dispatch()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release(owner, human)  # handed a slot as it was cancelled: hand it on
            else:
                queue = self._waiting[human].get(owner)
                if queue is not None and turn in queue:
                    queue.remove(turn)
                    if not queue:
                        del self._waiting[human][owner]
            raise

    def _release(self, owner: str, human: bool = True) -> None:
        self.busy -= 1
        left = self.by_owner.get(owner, 0) - 1
        if left > 0:
            self.by_owner[owner] = left
        else:
            self.by_owner.pop(owner, None)
        if not human:
            self.computer_busy -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to those who wait: human-seat games first, owners in turn (an
        owner at its cap is passed over, keeping its place)."""
        for tier in (True, False):
            waiting = self._waiting[tier]
            while self.busy < self.slots:
                owner = next((o for o, q in waiting.items() if self._may_take(o, tier)), None)
                if owner is None:
                    break
                queue = waiting[owner]
                turn = queue.popleft()
                if queue:
                    waiting.move_to_end(owner)  # its next one waits for the other owners
                else:
                    del waiting[owner]
                if not turn.done():
                    self._take(owner, tier)
                    turn.set_result(None)


class Thinker:
    """Runs AI seats' ``choose`` off the event loop: in worker processes (``workers`` >= 1:
    thinking never holds this process's GIL, and AI seats of different games think in
    parallel), or in threads (``workers`` = 0).

    A fair queue: every game has at most one move being thought at a time, and moves are
    served in the order they were asked for. The strongest levels (:data:`HEAVY_LEVELS`) go
    through a lane of their own, ``heavy`` at a time server-wide, so a cheap level never waits
    behind them; that lane serves games with a human seat first, the games' owners (the
    addresses that created them) in turn, and keeps slots for games people play
    (:class:`FairLane`).

    A think whose move is no longer wanted (the game's task is cancelled, or :meth:`cancel`)
    really stops: the search checks a stop flag between its kernel calls (shared memory with
    the worker processes, an event for threads), so it ends within about 20 ms instead of
    running out its budget on a CPU others need."""

    def __init__(self, workers: int = 0, heavy: int = 2) -> None:
        """``workers`` processes (started on first use), or 0 for threads; ``heavy``: how many
        moves of the strongest levels are computed at once."""
        if workers < 0:
            raise ValueError("ai workers is 0 (threads) or more")
        self.workers = workers
        self.heavy = max(1, heavy)
        self._pool: ProcessPoolExecutor | None = None
        self._broken = 0
        self._heavy_lane = FairLane(self.heavy)
        self._threads = ThreadPoolExecutor(max(4, os.cpu_count() or 1),
                                           thread_name_prefix="sy-ai")
        self._heavy_threads = ThreadPoolExecutor(self.heavy, thread_name_prefix="sy-ai-heavy")
        self.thinking = {"light": 0, "heavy": 0}
        self.stopped = 0
        """Thinks stopped before their end (cancelled: a takeback, nobody watching, ...)."""
        self._context = multiprocessing.get_context("spawn")
        self._flags: Any = None  # the stop flags shared with the workers (made with the pool)
        self._free_slots: list[int] = []
        self._slot_lock = threading.Lock()
        self._stops: dict[str, set[_Stop]] = {}  # game id -> its thinks under way

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            if self._flags is None:
                self._flags = self._context.RawArray("b", STOP_SLOTS)
                self._free_slots = list(range(STOP_SLOTS - 1, -1, -1))
            self._pool = ProcessPoolExecutor(self.workers, mp_context=self._context,
                                             initializer=_worker_init,
                                             initargs=(self._flags,))
        return self._pool

    def warm_up(self) -> None:
        """Start the worker processes now (they load the agents) rather than on the first
        AI move."""
        if self.workers:
            pool = self._get_pool()
            for _ in range(self.workers):
                pool.submit(_worker_ready)

    def cancel(self, game_id: str) -> int:
        """Stop every think under way for game ``game_id`` (its moves are no longer wanted:
        a takeback, nobody watching); returns how many. The room also cancels its AI task,
        which drops the move; this makes the search itself end (within about 20 ms)."""
        stops = self._stops.get(game_id, set())
        for stop in stops:
            stop.set()
        return len(stops)

    def thinks_of(self, game_id: str) -> int:
        """How many thinks of game ``game_id`` are under way (a stopped one until it ends)."""
        return len(self._stops.get(game_id, ()))

    async def choose(self, room: Table, seat: Seat, piece: str, legal: list[Move], *,
                     pace: float = 0.0) -> Move:
        """The AI's move for ``piece`` (one of ``legal``) in ``room``'s current position.
        ``pace`` > 0 (AI Mr X): the move (or the agent's error) comes back at a whole multiple
        of ``pace`` seconds from when the think began (:func:`paced_wait`), after the lane was
        free: the time waited in the heavy lane's queue (other games' moves) shows as it is,
        the think's own time does not, and the two never add up across a multiple. A paced
        think of a heavy level holds its lane slot until the pace ends, so how long other
        games wait in that lane does not follow his think time either; unpaced thinks (the
        detectives': public facts only) hand the slot on as soon as they end."""
        failed: Exception | None = None
        move: Move | None = None

        async def paced(lane: str) -> None:
            nonlocal failed, move
            began = time.monotonic()
            try:
                move = await self._choose(room, seat, piece, legal, lane)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # paced too: an error must not come back sooner
                failed = exc
            if pace > 0:
                await asyncio.sleep(paced_wait(time.monotonic() - began, pace))

        if (seat.plays or "random") not in HEAVY_LEVELS:
            await paced("light")
        else:  # owners in turn, games people play first
            async with self._heavy_lane.hold(owner_key(room.owner), human=bool(room.humans())):
                await paced("heavy")  # the slot is held through the pace (Mr X's think)
        if failed is not None:
            raise failed
        assert move is not None
        return move

    async def _choose(self, room: Table, seat: Seat, piece: str, legal: list[Move],
                      lane: str) -> Move:
        self.thinking[lane] += 1
        try:
            return await self._think(room, seat, piece, legal, lane)
        finally:
            self.thinking[lane] -= 1

    def _new_stop(self, game_id: str, process: bool) -> _Stop:
        slot = -1
        if process:
            with self._slot_lock:
                if self._free_slots:
                    slot = self._free_slots.pop()
        stop = _Stop(self._flags if slot >= 0 else None, slot)
        self._stops.setdefault(game_id, set()).add(stop)
        return stop

    def _finished(self, game_id: str, stop: _Stop) -> None:
        """Event loop: the think of ``stop`` ended (or never started): forget it."""
        stops = self._stops.get(game_id)
        if stops is not None:
            stops.discard(stop)
            if not stops:
                del self._stops[game_id]

    def _free_slot(self, stop: _Stop) -> None:
        """Any thread: the worker is done with ``stop``'s flag, which may serve another job."""
        if stop.slot >= 0:
            stop.flags[stop.slot] = 0
            with self._slot_lock:
                self._free_slots.append(stop.slot)
            stop.slot = -1

    async def _think(self, room: Table, seat: Seat, piece: str, legal: list[Move],
                     lane: str) -> Move:
        game = room.game
        loop = asyncio.get_running_loop()
        if not self.workers:
            view = game.view(piece)  # the AI sees its seat's view, never the game
            pool = self._heavy_threads if lane == "heavy" else self._threads
            assert seat.ai is not None  # an AI seat has its agent (Seat.build_agent)
            stop = self._new_stop(room.id, process=False)
            future = pool.submit(_choose_stoppable, stop.event, seat.ai, view, legal, seat.rng)

            def ended(_f: Any) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                    loop.call_soon_threadsafe(self._finished, room.id, stop)

            future.add_done_callback(ended)
            try:
                return await asyncio.wrap_future(future)
            except asyncio.CancelledError:
                self.stopped += 1
                stop.set()
                raise
        job_stop = self._new_stop(room.id, process=True)
        job = ThinkJob(room.id, game.rules.to_dict(), game.start,
                       tuple(m.notation() for _, m in game.moves), piece,
                       tuple(m.notation() for m in legal), seat.plays or "random",
                       side_of(piece), seat.rng.getrandbits(63), job_stop.slot)
        try:
            submitted = self._get_pool().submit(think, job)
        except BaseException:
            self._free_slot(job_stop)
            self._finished(room.id, job_stop)
            raise

        def done(_f: Any) -> None:
            self._free_slot(job_stop)
            with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                loop.call_soon_threadsafe(self._finished, room.id, job_stop)

        submitted.add_done_callback(done)
        try:
            text = await asyncio.wrap_future(submitted)
        except asyncio.CancelledError:
            self.stopped += 1
            job_stop.set()  # the worker's search ends at its next check
            raise
        except BrokenProcessPool:  # a worker died (out of memory?): new workers next time
            self._pool = None
            self._broken += 1
            if self._broken >= 3:
                log.error("AI worker processes keep dying; AI seats think in threads from now on")
                self.workers = 0
            else:
                log.error("an AI worker process died; starting new ones")
            raise
        return Move.parse(text)

    def shutdown(self) -> None:
        """Stop the worker processes and threads (a move being thought is dropped)."""
        for stops in self._stops.values():
            for stop in stops:
                stop.set()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._heavy_threads.shutdown(wait=False, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
