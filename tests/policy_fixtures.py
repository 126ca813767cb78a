"""Small policies for the tests of ``PolicyAgent`` (importable as ``tests.policy_fixtures``)."""

from __future__ import annotations

import numpy as np

CALLS: list[tuple[int, int]] = []  # (observation size, legal actions) of every question


def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.int64:
    """The lowest legal action, as a numpy integer."""
    CALLS.append((obs.size, int(mask.sum())))
    return np.flatnonzero(mask)[0]


def last_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The highest legal action, as a 0-d array (as ``model.predict`` returns): for Mr X that
    prefers double moves and black tickets, for a free-order hunter ``defer``."""
    return np.array(np.flatnonzero(mask)[-1])


def illegal(obs: np.ndarray, mask: np.ndarray) -> int:
    """An action outside the mask."""
    return int(np.flatnonzero(mask == 0)[0])


by_side = {"mr_x": last_legal, "detectives": first_legal}


def _tiny_sb3_model(env=None):  # type: ignore[no-untyped-def]
    """An untrained MaskablePPO with a 16-unit policy network on ``env`` (``MrX-v0``'s by
    default; made on first use: building the net runs torch's OpenMP threads here)."""
    from sb3_contrib import MaskablePPO

    from scotlandyard.env.gymnasium import MrXEnv

    return MaskablePPO("MlpPolicy", env or MrXEnv(rules="classic"), n_steps=16, batch_size=16,
                       seed=0, policy_kwargs={"net_arch": [16]}, device="cpu")


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """``sb3_mr_x``: the tiny SB3 model of Mr X; ``sb3_by_side``: one for each side (built
    once, when a spec first names them)."""
    if name == "sb3_mr_x":
        model = globals().get("_sb3_mr_x") or _tiny_sb3_model()
        globals()["_sb3_mr_x"] = model
        return model
    if name == "sb3_by_side":
        from scotlandyard.env.gymnasium import DetectivesEnv

        models = {"mr_x": __getattr__("sb3_mr_x"),
                  "detectives": _tiny_sb3_model(DetectivesEnv(rules="classic"))}
        globals()["sb3_by_side"] = models
        return models
    raise AttributeError(name)
