"""Test equipment for ``benchmarks/server_load.py --gc-probe`` (not part of the package).

Put on the server subprocess's ``PYTHONPATH`` with ``SY_GC_PROBE=PREFIX`` set, Python imports
it at start-up: it times every garbage collection (``gc.callbacks``: wall and thread CPU
time, by generation) and samples the event loop's lag every 2 ms (a task that sleeps 2 ms
and notes how late it wakes), and writes both to ``PREFIX.PID.json`` when uvicorn's server
returns. Without ``SY_GC_PROBE`` it does nothing.
"""

from __future__ import annotations

import os

if os.environ.get("SY_GC_PROBE"):
    import asyncio
    import builtins
    import gc
    import json
    import time
    from typing import Any

    _lags: list[float] = []
    _collections: list[tuple[int, float, float]] = []  # generation, wall s, thread CPU s
    _started: dict[str, float] = {}

    def _on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            _started["wall"], _started["cpu"] = time.perf_counter(), time.thread_time()
        elif "wall" in _started:
            _collections.append((info["generation"], time.perf_counter() - _started["wall"],
                                 time.thread_time() - _started["cpu"]))

    gc.callbacks.append(_on_gc)

    def _patch_uvicorn() -> None:
        import uvicorn.server

        serve = uvicorn.server.Server._serve

        async def probed(self: Any, sockets: Any = None) -> None:
            async def watch() -> None:
                while True:
                    t = time.perf_counter()
                    await asyncio.sleep(0.002)
                    _lags.append(time.perf_counter() - t - 0.002)

            task = asyncio.get_running_loop().create_task(watch())
            try:
                await serve(self, sockets)
            finally:
                task.cancel()
                path = f"{os.environ['SY_GC_PROBE']}.{os.getpid()}.json"
                with open(path, "w") as f:
                    json.dump({"lags": _lags, "collections": _collections}, f)

        uvicorn.server.Server._serve = probed  # type: ignore[method-assign]  # the probe wraps it

    _import = builtins.__import__

    def _hook(name: str, *args: Any, **kwargs: Any) -> Any:
        module = _import(name, *args, **kwargs)
        if name == "uvicorn" and not _started.get("patched"):
            _started["patched"] = 1.0
            builtins.__import__ = _import
            _patch_uvicorn()
        return module

    builtins.__import__ = _hook
