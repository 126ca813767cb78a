"""Turn structure of the AEC env, and a loop over its decisions.

One AEC step is one **decision**, not one engine move or one round:

- a round is Mr X's move, then every hunter's move (classic: fixed seat order; new edition:
  free order, where the selected hunter moves or plays ``defer``);
- a **double move is two ``mr_x`` steps in a row** (the double first step, then the second
  step from the single range); the hunters see nothing in between;
- after a voluntary reveal (extra-reveal variant) Mr X makes ``take`` steps;
- a hunter without a move plays ``pass``.

So ``agent_selection`` may be ``mr_x`` twice in a row, and a hunter may be selected, defer,
and be selected again later in the round. :func:`decisions` hides the bookkeeping:

>>> import numpy as np
>>> from scotlandyard.env import aec_env, decisions
>>> env = aec_env(rules="classic")
>>> env.reset(seed=3)
>>> for agent, obs, mask in decisions(env):
...     env.step(int(np.flatnonzero(mask)[0]))
>>> env.unwrapped.over
True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def decisions(env: Any) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Yield ``(agent, observation vector, action mask)`` for every decision of the current
    game of a (reset) AEC env; the caller then calls ``env.step(action)`` once. Steps the
    finished agents with ``None`` at the end, so the loop ends with the game.

    :class:`RuntimeError` if the caller did not step between two decisions."""
    while env.agents:
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        before = _progress(env)
        yield agent, obs["observation"], obs["action_mask"]
        if _progress(env) == before:
            raise RuntimeError("decisions(): call env.step(action) once per decision")


def _progress(env: Any) -> tuple[Any, ...]:
    raw = env.unwrapped
    m = raw.match
    return (m.game.ply, m.pending, m.pointer, raw.over)
