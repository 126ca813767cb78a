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
