"""The dataset: generated games load as records and as imitation-learning arrays that agree
with the envs (every stored action is legal in its position and replays the game)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scotlandyard import data
from scotlandyard.env import ObservationLayout
from scotlandyard.record import RecordError


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("games")
    data.generate(out, games=3, mr_x="heuristic", detectives="random", preset="new_edition",
                  progress=False)
    return out


def test_games_load_as_records(folder: Path) -> None:
    recs = list(data.games(folder))
    assert len(recs) == 3 and all(r.replay().is_over() for r in recs)
    assert len(list(data.games(folder, limit=2))) == 2


@pytest.mark.parametrize("side", ["mr_x", "detectives"])
def test_arrays_are_the_envs_decisions(folder: Path, side: str) -> None:
    arr = data.arrays(folder, side=side, board_features=True)
    n = len(arr["action"])
    lay = ObservationLayout.make(board_features=True)
    assert arr["obs"].shape == (n, lay.size) and n > 10
    assert ((arr["obs"] >= 0) & (arr["obs"] <= 1)).all()
    off = arr["legal_offsets"]
    for i in range(n):
        assert arr["action"][i] in arr["legal"][off[i]: off[i + 1]]
        me = lay.split(arr["obs"][i])["me"]
        assert (me[0] == 1) == (side == "mr_x") and me.sum() == 1
    assert sorted(set(arr["game"].tolist())) == [0, 1, 2]
    winners = [r.replay().outcome().winner for r in data.games(folder)]
    for g in range(3):
        assert (arr["won"][arr["game"] == g] == int(winners[g] == side)).all()


def test_summary_and_command(folder: Path, tmp_path: Path) -> None:
    s = data.summary(folder)
    assert s["games"] == 3 and s["version"] == "sy-games-1" and 1 <= s["mean_round"] <= 22
    res = CliRunner().invoke(__import__("scotlandyard.cli", fromlist=["app"]).app,
                             ["dataset", "--out", str(folder), "--summary"])
    assert res.exit_code == 0 and json.loads(res.output)["games"] == 3
    bad = tmp_path / "bad"
    (bad / "games").mkdir(parents=True)
    (bad / "games" / "000000.json").write_text("{not json")
    with pytest.raises(RecordError, match="000000.json"):
        list(data.games(bad))
    with pytest.raises(FileNotFoundError, match="no dataset"):
        list(data.games(tmp_path / "nowhere"))
