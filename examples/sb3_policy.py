"""The MaskablePPO models written by ``examples/train_sb3.py``, as a policy by name.

``scotlandyard ladder --agent examples.sb3_policy:policy`` (or ``arena --mr-x
examples.sb3_policy:policy``) loads ``runs/sb3/mr_x.zip`` and ``runs/sb3/detectives.zip``
(another folder: ``SCOTLANDYARD_SB3_DIR``) on first use. Run from the repository root so that
``examples`` is importable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np


class LazyModel:
    """A saved MaskablePPO model, loaded on its first ``predict``."""

    def __init__(self, side: str) -> None:
        """The model of ``side`` (``mr_x`` or ``detectives``)."""
        self.side = side
        self._model: Any = None

    def predict(self, obs: np.ndarray, action_masks: np.ndarray | None = None,
                deterministic: bool = True) -> tuple[np.ndarray, Any]:
        """``MaskablePPO.predict`` of the loaded model."""
        if self._model is None:
            from sb3_contrib import MaskablePPO

            folder = Path(os.environ.get("SCOTLANDYARD_SB3_DIR", "runs/sb3"))
            self._model = MaskablePPO.load(folder / f"{self.side}.zip", device="cpu")
        return self._model.predict(obs, action_masks=action_masks, deterministic=deterministic)  # type: ignore[no-any-return]


policy = {"mr_x": LazyModel("mr_x"), "detectives": LazyModel("detectives")}
