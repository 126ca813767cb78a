"""Game datasets: generate games of strong agents, load them as records or as arrays for
imitation learning.

This folder also holds the package's data files (``london.json``, the board;
``categorization.json``, the AI's learned table); they stay package data.

>>> from scotlandyard import data
>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> _ = data.generate(folder, games=2, mr_x="heuristic", detectives="heuristic", progress=False)
>>> len(list(data.games(folder)))
2
>>> arr = data.arrays(folder, side="mr_x")
>>> arr["obs"].shape[1], bool((arr["action"] >= 0).all())
(2119, True)

A dataset is an arena run folder (``docs/arena.md``): ``config.json`` (who played, rules,
seed — everything that decides the games), ``manifest.jsonl`` and ``games/NNNNNN.json``, one
full game record each (the package's JSON record format, Mr X's true moves included).
Generating is resumable and runs on Ray with ``backend="ray"``. Command:
``scotlandyard dataset --games 10000 --out runs/games``; see ``docs/env.md``.
"""

from __future__ import annotations

from .dataset import DATASET_VERSION, STRONGEST, arrays, games, generate, summary
from .parquet import (
    PARQUET_SCHEMA_VERSION,
    parquet_batches,
    parquet_metadata,
    read_parquet,
    write_parquet,
)

__all__ = ["DATASET_VERSION", "PARQUET_SCHEMA_VERSION", "STRONGEST", "arrays", "games",
           "generate", "parquet_batches", "parquet_metadata", "read_parquet", "summary",
           "write_parquet"]
