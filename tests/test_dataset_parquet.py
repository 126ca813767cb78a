"""Datasets as Parquet: the decisions file holds exactly what ``data.arrays`` gives, in row
groups of games, read whole (pyarrow, pandas) or streamed in chunks (``iter_batches``); a file
that is not one says so. And the docs' sample table is what its command gives today."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from scotlandyard import data
from scotlandyard.env import ObservationLayout

pa = pytest.importorskip("pyarrow")  # the parquet extra (part of the test command's install)
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("games")
    data.generate(out, games=5, mr_x="heuristic", detectives="random", progress=False)
    return out


@pytest.mark.parametrize("side", ["mr_x", "detectives"])
def test_parquet_holds_the_arrays_in_row_groups_and_streams(folder: Path, tmp_path: Path,
                                                            side: str) -> None:
    out = tmp_path / f"{side}.parquet"
    rows = data.write_parquet(folder, out, side, board_features=True, games_per_group=2)
    want = data.arrays(folder, side=side, board_features=True)
    assert rows == len(want["action"]) > 10
    assert pq.ParquetFile(out).metadata.num_row_groups == 3  # 5 games, 2 a group
    got = data.read_parquet(out)
    assert set(got) == set(want)
    for key in want:
        assert got[key].dtype == want[key].dtype and np.array_equal(got[key], want[key]), key
    parts = list(data.parquet_batches(out, batch_size=25))
    assert max(len(p["action"]) for p in parts) <= 25 and len(parts) >= rows // 25
    for key in ("obs", "action", "game", "round", "won"):
        assert np.array_equal(np.concatenate([p[key] for p in parts]), want[key]), key
    first = parts[0]  # each chunk's legal actions in CSR form of its own
    off = first["legal_offsets"]
    assert off[0] == 0 and len(off) == len(first["action"]) + 1
    assert all(first["action"][i] in first["legal"][off[i]: off[i + 1]]
               for i in range(len(first["action"])))
    meta = data.parquet_metadata(out)
    size = ObservationLayout.make(board_features=True).size
    assert meta == {"schema": "sy-decisions-1", "obs_layout": "sy-obs-1", "obs_size": size,
                    "side": side, "probability": False, "board_features": True,
                    "dataset": data.DATASET_VERSION}


def test_pandas_reads_the_documented_schema(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "mr_x.parquet"
    n = data.write_parquet(folder, out)
    df = pd.read_parquet(out)
    assert list(df.columns) == list(data.parquet.SCHEMA_DOC)
    assert len(df) == n
    assert str(df["game"].dtype) == "int32" and str(df["action"].dtype) == "int64"
    size = ObservationLayout.make().size
    assert df["obs"].iloc[0].shape == (size,) and df["obs"].iloc[0].dtype == np.float32
    schema = pq.read_schema(out)
    assert schema.field("obs").type == pa.list_(pa.float32(), size)
    assert schema.field("legal").type == pa.list_(pa.int16())


def test_an_empty_selection_and_bad_files_are_refused_clearly(folder: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "none.parquet"
    assert data.write_parquet(folder, out, limit=0) == 0
    assert len(data.read_parquet(out)["action"]) == 0
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), other)
    with pytest.raises(ValueError, match="not a scotlandyard decisions file"):
        data.read_parquet(other)
    with pytest.raises(ValueError, match="games_per_group"):
        data.write_parquet(folder, tmp_path / "x.parquet", games_per_group=0)
    with pytest.raises(FileNotFoundError, match="no dataset"):
        data.write_parquet(tmp_path / "missing", tmp_path / "y.parquet")
    assert not (tmp_path / "y.parquet").exists() and not (tmp_path / "x.parquet").exists()


def test_the_dataset_command_writes_both_sides(folder: Path) -> None:
    from scotlandyard.cli import app

    res = CliRunner().invoke(app, ["dataset", "--out", str(folder), "--games", "5",
                                   "--mr-x", "heuristic", "--detectives", "random",
                                   "--parquet"])
    assert res.exit_code == 0, res.output
    for side in ("mr_x", "detectives"):
        assert data.parquet_metadata(folder / f"{side}.parquet")["side"] == side


def test_the_docs_sample_table_reproduces(tmp_path: Path) -> None:
    """docs/env.md's 40-game table is what its command prints today."""
    text = (ROOT / "docs" / "env.md").read_text()
    section = text[text.index("A generated sample"):]
    cmd = re.search(r"scotlandyard dataset --out runs/games --games 40 --mr-x heuristic "
                    r"--detectives heuristic", section)
    assert cmd is not None
    rows = dict(re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", section[: section.index("## ")],
                           re.M))
    data.generate(tmp_path, games=40, mr_x="heuristic", detectives="heuristic", progress=False)
    got = data.summary(tmp_path)
    assert rows["Mr X win share"] == f"{got['mr_x_win_share']:g}"
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(got["reasons"].items(),
                                                      key=lambda kv: (-kv[1], kv[0])))
    assert rows["outcomes"] == reasons
    assert rows["mean final round"] == f"{got['mean_round']:g}"
    assert rows["mean moves a game"] == f"{got['mean_moves']:g}"
    assert rows["Mr X double moves / black tickets a game"] == \
        f"{got['double_moves_per_game']:.2f} / {got['black_tickets_per_game']:.2f}"
