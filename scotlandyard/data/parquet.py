"""Decisions of a dataset as a Parquet file (pyarrow, the ``parquet`` extra), read whole with
pandas or in chunks with ``pyarrow.parquet.ParquetFile.iter_batches``.

One row per decision of one side, as :func:`scotlandyard.data.arrays` gives them
(:data:`SCHEMA_DOC`, docs/env.md "Datasets as Parquet"):

========== ================================== ==================================================
column     type                               meaning
========== ================================== ==================================================
``game``   int32                              the game's file index in the dataset
``round``  int16                              the round of the decision
``won``    int8                               1 if this side won that game
``action`` int64                              the env action the player took (``Discrete(2393)``)
``legal``  list<int16>                        the legal actions (the mask's ones)
``obs``    fixed_size_list<float32>[size]     the observation, layout ``sy-obs-1``
========== ================================== ==================================================

The schema's metadata key ``scotlandyard`` holds JSON: ``schema`` (:data:`PARQUET_SCHEMA_VERSION`),
``obs_layout``, ``obs_size``, ``side``, ``probability``, ``board_features``, ``dataset``. Games
are written in row groups of ``games_per_group`` games, so neither writing nor reading needs the
whole dataset in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

PARQUET_SCHEMA_VERSION = "sy-decisions-1"
SCHEMA_DOC = {"game": "int32", "round": "int16", "won": "int8", "action": "int64",
              "legal": "list<int16>", "obs": "fixed_size_list<float32>[obs_size]"}
"""The columns and their Arrow types."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ImportError("Parquet datasets need pyarrow: pip install 'scotlandyard[parquet]'"
                          ) from None
    return pyarrow


def _schema(pa: Any, size: int, meta: dict[str, Any]) -> Any:
    return pa.schema([("game", pa.int32()), ("round", pa.int16()), ("won", pa.int8()),
                      ("action", pa.int64()), ("legal", pa.list_(pa.int16())),
                      ("obs", pa.list_(pa.float32(), size))],
                     metadata={"scotlandyard": json.dumps(meta, sort_keys=True)})


def write_parquet(path: str | Path, out: str | Path, side: str = "mr_x", *,
                  limit: int | None = None, winners_only: bool = False,
                  probability: bool = False, board_features: bool = False,
                  games_per_group: int = 256) -> int:
    """Write every decision of ``side`` in the games of ``path`` (a dataset folder) to the
    Parquet file ``out`` (replaced), ``games_per_group`` games a row group; returns the rows
    written. The options are :func:`scotlandyard.data.arrays`'."""
    from ..env.encoding import OBS_VERSION, ObservationLayout
    from .dataset import DATASET_VERSION, _as_arrays, _game_decisions

    pa = _pyarrow()
    pq = pa.parquet
    if not isinstance(games_per_group, int) or games_per_group < 1:
        raise ValueError(f"games_per_group is a whole number >= 1, not {games_per_group!r}")
    size = ObservationLayout.make(probability=probability, board_features=board_features).size
    meta = {"schema": PARQUET_SCHEMA_VERSION, "obs_layout": OBS_VERSION, "obs_size": size,
            "side": side, "probability": probability, "board_features": board_features,
            "dataset": DATASET_VERSION}
    schema = _schema(pa, size, meta)
    out = Path(out)
    tmp = out.with_name(out.name + ".part")  # a broken run leaves the old file whole
    rows = 0
    decisions = _game_decisions(path, side, limit, winners_only, probability, board_features)
    try:
        with pq.ParquetWriter(tmp, schema) as writer:
            chunk: list[tuple[int, dict[str, Any]]] = []
            for item in decisions:
                chunk.append(item)
                if len(chunk) >= games_per_group:
                    rows += _write(pa, writer, schema, _as_arrays(chunk, size))
                    chunk = []
            if chunk or not rows:
                rows += _write(pa, writer, schema, _as_arrays(chunk, size))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(out)
    return rows


def _write(pa: Any, writer: Any, schema: Any, arr: dict[str, np.ndarray]) -> int:
    n = len(arr["action"])
    legal = pa.ListArray.from_arrays(pa.array(arr["legal_offsets"].astype(np.int32)),
                                     pa.array(arr["legal"], pa.int16()))
    obs = pa.FixedSizeListArray.from_arrays(pa.array(arr["obs"].reshape(-1), pa.float32()),
                                            schema.field("obs").type.list_size)
    table = pa.Table.from_arrays(
        [pa.array(arr["game"], pa.int32()), pa.array(arr["round"], pa.int16()),
         pa.array(arr["won"], pa.int8()), pa.array(arr["action"], pa.int64()), legal, obs],
        schema=schema)
    writer.write_table(table)
    return n


def parquet_metadata(file: str | Path) -> dict[str, Any]:
    """The ``scotlandyard`` metadata of a decisions file (``ValueError`` if it has none)."""
    pa = _pyarrow()
    schema = pa.parquet.read_schema(file)
    raw = (schema.metadata or {}).get(b"scotlandyard")
    if raw is None:
        raise ValueError(f"{file}: not a scotlandyard decisions file (no 'scotlandyard' "
                         "metadata; write one with scotlandyard.data.write_parquet)")
    meta: dict[str, Any] = json.loads(raw)
    if meta.get("schema") != PARQUET_SCHEMA_VERSION:
        raise ValueError(f"{file}: schema {meta.get('schema')!r}, this version reads "
                         f"{PARQUET_SCHEMA_VERSION!r}")
    return meta


def _batch_arrays(batch: Any, size: int) -> dict[str, np.ndarray]:
    legal = batch.column("legal")
    offsets = np.asarray(legal.offsets, np.int64)
    obs = batch.column("obs")
    return {
        "obs": np.asarray(obs.flatten(), np.float32).reshape(len(obs), size),
        "action": np.asarray(batch.column("action"), np.int64),
        "legal": np.asarray(legal.flatten(), np.int16),
        "legal_offsets": offsets - offsets[0],
        "game": np.asarray(batch.column("game"), np.int32),
        "round": np.asarray(batch.column("round"), np.int16),
        "won": np.asarray(batch.column("won"), np.int8),
    }


def parquet_batches(file: str | Path, batch_size: int = 4096) -> Iterator[dict[str, np.ndarray]]:
    """The decisions of ``file`` in chunks of at most ``batch_size`` rows
    (``ParquetFile.iter_batches``), each as :func:`scotlandyard.data.arrays` gives them."""
    pa = _pyarrow()
    size = int(parquet_metadata(file)["obs_size"])
    with pa.parquet.ParquetFile(file) as pf:
        for batch in pf.iter_batches(batch_size=batch_size):
            yield _batch_arrays(batch, size)


def read_parquet(file: str | Path) -> dict[str, np.ndarray]:
    """The whole decisions file as :func:`scotlandyard.data.arrays` gives it."""
    pa = _pyarrow()
    size = int(parquet_metadata(file)["obs_size"])
    table = pa.parquet.read_table(file).combine_chunks()
    return _batch_arrays(table.to_batches()[0] if table.num_rows else
                         pa.RecordBatch.from_pylist([], schema=table.schema), size)


__all__ = ["PARQUET_SCHEMA_VERSION", "SCHEMA_DOC", "parquet_batches", "parquet_metadata",
           "read_parquet", "write_parquet"]
