"""Where the games run: a local process pool, or Ray."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import sys
from collections.abc import Generator
from typing import Any

from .config import (
    ArenaConfig,
    ArenaError,
)
from .play import GameResult, play_game

# ---- backends --------------------------------------------------------------------------------
_WORKER_CONFIG: ArenaConfig | None = None


def _init_worker(config: ArenaConfig) -> None:
    global _WORKER_CONFIG
    _WORKER_CONFIG = config
    _one_thread_after_fork()


def _one_thread_after_fork() -> None:
    """In a forked worker, run PyTorch's operations on one thread. A parent that used torch
    (an SB3 policy's agent is made there before the games start) has started OpenMP's thread
    team; a forked child inherits its state but not its threads, and its first parallel
    operation waits for them for ever in libgomp's barrier (``--workers 2`` hung at 0% CPU).
    With one thread torch never enters the team; the workers are the parallelism. (PyTorch's
    DataLoader does the same in its forked workers.)"""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _worker_play(index: int) -> tuple[GameResult, str, str]:
    assert _WORKER_CONFIG is not None, "worker started without its config"
    return play_game(_WORKER_CONFIG, index)


_Played = tuple[GameResult, str, str]


def _run_local(config: ArenaConfig, todo: list[int]) -> Generator[_Played | None, None, None]:
    # Each backend generator yields None once its set-up is done (see _run_games).
    if config.workers == 1 or len(todo) <= 1:
        yield None
        for i in todo:
            yield play_game(config, i)
        return
    # The platform's default start method: fork on Linux (fast, and agents registered at run
    # time reach the workers), spawn on macOS and Windows (scripts need the usual
    # ``if __name__ == "__main__":`` guard there). A forked worker runs torch on one thread
    # (_one_thread_after_fork: OpenMP does not survive a fork). The pool starts all its workers at the
    # first submit, before the progress bar starts its thread.
    pool = cf.ProcessPoolExecutor(max_workers=min(config.workers, len(todo)),
                                  mp_context=multiprocessing.get_context(),
                                  initializer=_init_worker, initargs=(config,))
    queue = iter(todo)
    pending: dict[cf.Future[Any], int] = {}
    try:
        for i in queue:
            pending[pool.submit(_worker_play, i)] = i
            if len(pending) >= 4 * config.workers:
                break
        yield None
        while pending:
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                index = pending.pop(fut)
                try:
                    played = fut.result()
                except cf.process.BrokenProcessPool as exc:
                    raise ArenaError(f"a worker process died ({exc}); the games recorded so far "
                                     "are kept, run again to resume") from None
                except Exception as exc:
                    raise _worker_failure(index, exc) from exc
                yield played
                nxt = next(queue, None)
                if nxt is not None:
                    pending[pool.submit(_worker_play, nxt)] = nxt
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_failure(index: int, exc: BaseException) -> ArenaError:
    """A game that failed outside the agents' moves (agents are caught in play_game)."""
    return ArenaError(f"game {index} failed in a worker ({type(exc).__name__}: {exc}); the "
                      "games recorded so far are kept. Agents registered at run time reach "
                      "spawned and Ray workers only if a module they import registers them.")


def _ray_play(config: ArenaConfig, index: int) -> tuple[GameResult, str, str]:
    return play_game(config, index)


def _run_ray(config: ArenaConfig, todo: list[int]) -> Generator[_Played | None, None, None]:
    try:
        import ray
    except ImportError:
        raise ArenaError("the ray backend needs Ray: pip install 'scotlandyard[ray]' "
                         "(or use the local backend)") from None
    started = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if config.ray_address:
            kw["address"] = config.ray_address
        else:
            kw["num_cpus"] = config.workers
        try:
            ray.init(**kw)
        except Exception as exc:
            raise ArenaError(f"cannot start Ray ({type(exc).__name__}: {exc})") from None
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_play)
        cfg = ray.put(config)
        queue = iter(todo)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        limit = 4 * max(config.workers, int(resources.get("CPU", 1)))
        pending = {task.remote(cfg, i): i for _, i in zip(range(limit), queue, strict=False)}
        try:
            yield None
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    index = pending.pop(ref)
                    try:
                        played = ray.get(ref)
                    except Exception as exc:
                        cause = getattr(exc, "cause", None) or exc  # RayTaskError wraps it
                        raise _worker_failure(index, cause) from None
                    yield played
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending[task.remote(cfg, nxt)] = nxt
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()


def _run_games(config: ArenaConfig, todo: list[int]) -> Generator[_Played | None, None, None]:
    """The games of ``todo`` as they finish, from the config's backend. The backend is set up
    (pool started, Ray joined) before this returns; ``close()`` the iterator to stop it."""
    games = _run_ray(config, todo) if config.backend == "ray" else _run_local(config, todo)
    next(games)  # the set-up: errors surface here, and no thread of ours exists yet
    return games
