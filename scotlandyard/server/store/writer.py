"""The store's write thread (:class:`AsyncStore`): the server's writes and reads run in two
threads of their own, never on the event loop; writes that queue up together are committed as
one group (:meth:`~.base.SqlStore.group`)."""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .base import GameStore

T = TypeVar("T")

GROUP_MAX = 64
"""The most writes :class:`AsyncStore` commits in one transaction."""


class AsyncStore:
    """Runs a store's calls off the event loop: writes in one thread of their own, reads in
    another (so reads go on while a write waits for a lock). Works for any object with
    :class:`Store`'s methods.

    The writes that queue up while one is being committed are committed together, in one
    transaction (:meth:`Store.group`, where the store has it: each write in a savepoint of
    its own), and their callers are woken in one hop back to the event loop. A caller's
    ``await`` returns only after the ``COMMIT`` that made its write durable, so what it then
    acknowledges survives a ``kill -9``; a write refused inside the group fails alone, a
    refused ``COMMIT`` fails every write of the group (and none of them is stored)."""

    def __init__(self, store: GameStore) -> None:
        """Wrap ``store``; the threads start on first use."""
        import queue
        from concurrent.futures import ThreadPoolExecutor

        self.store = store
        self._writes: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._start = threading.Lock()
        self._stopped = False
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="sy-db-read")

    def _queue(self, job: _Job) -> None:
        if self._stopped:
            raise RuntimeError("the database threads are shut down")
        if self._writer is None:
            with self._start:
                if self._writer is None:
                    import atexit
                    import weakref

                    thread = threading.Thread(target=_write_loop, name="sy-db-write",
                                              args=(self.store, self._writes), daemon=True)
                    thread.start()
                    self._writer = thread
                    ref = weakref.ref(self)

                    def stop() -> None:  # at exit: finish the queued writes first
                        me = ref()
                        if me is not None:
                            me.shutdown()

                    atexit.register(stop)
        self._writes.put(job)

    async def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the write thread (``fn`` is a store method); returns
        once its transaction is committed."""
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue(_Job(functools.partial(fn, *args, **kwargs), future, loop))
        return await future

    async def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the read thread."""
        import asyncio

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._reader, functools.partial(fn, *args, **kwargs))

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` in the write thread now, after the writes already queued, and
        do not wait for it; an error is logged (a write whose result nobody waits for)."""
        with contextlib.suppress(RuntimeError):  # shut down: the server is stopping
            self._queue(_Job(functools.partial(fn, *args), None, None))

    def shutdown(self) -> None:
        """Finish queued calls and stop the threads."""
        self._stopped = True
        with self._start:
            thread = self._writer
            if thread is not None:
                self._writes.put(None)
                if thread is not threading.current_thread():
                    thread.join()
                self._writer = None
        self._reader.shutdown(wait=True)


@dataclass
class _Job:
    """One queued write: the call, and the future (on its loop) that gets its result."""

    call: Callable[[], Any]
    future: Any  # asyncio.Future | None (None: nobody waits, an error is logged)
    loop: Any    # asyncio.AbstractEventLoop | None


def _write_loop(store: Any, writes: Any) -> None:
    """The write thread: take the next write and every one queued behind it (up to
    :data:`GROUP_MAX`), commit them (together where the store can), hand the results back."""
    import queue

    log = logging.getLogger("scotlandyard.server")
    group = getattr(store, "group", None)
    while True:
        first = writes.get()
        if first is None:
            return
        jobs = [first]
        stop = False
        while len(jobs) < GROUP_MAX:
            try:
                job = writes.get_nowait()
            except queue.Empty:
                break
            if job is None:
                stop = True
                break
            jobs.append(job)
        results: list[tuple[bool, Any]] = []
        if group is None or len(jobs) == 1:
            for job in jobs:
                try:
                    results.append((True, job.call()))
                except BaseException as exc:  # handed to the caller
                    results.append((False, exc))
        else:
            try:
                with group():
                    for job in jobs:
                        try:
                            results.append((True, job.call()))
                        except Exception as exc:  # this write only: its savepoint undid it
                            results.append((False, exc))
            except Exception as exc:  # BEGIN or COMMIT refused: nothing of the group stored
                results = [(False, exc)] * len(jobs)
        by_loop: dict[Any, list[tuple[Any, bool, Any]]] = {}
        for job, (ok, value) in zip(jobs, results, strict=True):
            if job.future is None:
                if not ok:
                    log.error("a database write (%s) was not saved: %s",
                              getattr(getattr(job.call, "func", None), "__name__", "?"), value)
                continue
            by_loop.setdefault(job.loop, []).append((job.future, ok, value))
        for loop, done in by_loop.items():
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, done)
        if stop:
            return


def _settle(done: list[tuple[Any, bool, Any]]) -> None:
    """On the event loop: give each waiting write its result (or error)."""
    for future, ok, value in done:
        if future.cancelled():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
