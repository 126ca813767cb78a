"""The presets everywhere (issue 25, item 3): the small boards' research presets (``tiny``,
``small``, ``corner``) are rows of ``rules.PRESET_TABLE`` like the books', so ``Rules.preset``,
the CLI's ``rules``/``arena``/``ladder``/``dataset`` and records take them; a setting whose start
decks are not on its board is refused; the small boards are board data, and the core modules
import one way (issue 27)."""

from __future__ import annotations

import ast
import graphlib
import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from scotlandyard import Game, GameError, Record, Rules
from scotlandyard.ai.arena.ladder import LadderConfig
from scotlandyard.ai.cli import ArenaError, build_config
from scotlandyard.board import london, small_board_document
from scotlandyard.cli import app
from scotlandyard.rules import RulesError, preset_info
from scotlandyard.server.protocol import CreateGame

SMALL = ("tiny", "small", "corner")
PACKAGE = Path(__file__).resolve().parents[1] / "scotlandyard"
runner = CliRunner()


@pytest.mark.parametrize("name", SMALL)
def test_a_small_board_is_a_preset_of_the_table(name: str) -> None:
    assert name in Rules.PRESETS and name not in Rules.BOOK_PRESETS
    rules = Rules.preset(name)
    info = preset_info(name)
    assert rules.board == name and rules.variant == name and not info.book
    board = london(name)
    assert set(rules.start_deck_detectives) | set(rules.start_deck_mr_x) <= board.playable
    assert rules == build_config(preset=name).rules == LadderConfig(preset=name).rules()
    game = Game.new(rules, seed=1)
    assert set(game.stations.values()) <= board.playable and game.legal_moves()
    text = Record.from_game(game).to_text()
    assert f'[Rules "{name}"]' in text and Record.parse(text).replay().rules == rules
    out = runner.invoke(app, ["rules", name, "--json"])
    assert out.exit_code == 0, out.output
    assert Rules.from_dict(json.loads(out.output)) == rules


def test_small_presets_take_their_detective_counts() -> None:
    assert Rules.preset("corner", 3).detectives == 3
    assert Rules.preset("small", 2).detectives == 2
    with pytest.raises(RulesError, match="the small preset has 1 to 2 detectives, not 3"):
        preset_info("small").rules(3)
    with pytest.raises(ArenaError, match="fixes the number of detectives"):
        build_config(preset="tiny", num_detectives=1)


def test_arena_ladder_and_dataset_play_a_small_preset(tmp_path: Path) -> None:
    out = runner.invoke(app, ["arena", "--preset", "tiny", "--mr-x", "random", "--detectives",
                              "random", "-g", "4", "--seed", "1", "--out", str(tmp_path / "a")])
    assert out.exit_code == 0, out.output
    result = json.loads((tmp_path / "a" / "results.json").read_text())
    assert result["config"]["rules"] == Rules.preset("tiny").to_dict()
    assert result["games_recorded"] == 4
    games = [Record.load(p) for p in sorted((tmp_path / "a" / "games").iterdir())]
    assert len(games) == 4 and all(g.moves for g in games)  # real games, not 0-move ones
    out = runner.invoke(app, ["ladder", "--preset", "small", "--members", "random,heuristic",
                              "--pairs", "1", "--bootstrap", "0", "--json",
                              "--out", str(tmp_path / "l")])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["config"]["preset"] == "small"
    out = runner.invoke(app, ["dataset", "--preset", "corner", "--games", "2", "--mr-x", "random",
                              "--detectives", "random", "--out", str(tmp_path / "d")])
    assert out.exit_code == 0, out.output
    records = [Record.load(p) for p in sorted((tmp_path / "d" / "games").iterdir())]
    assert records and all(r.rules == Rules.preset("corner") for r in records)


@pytest.mark.parametrize("make", [
    lambda: Rules.classic().replace(board="tiny"),
    lambda: Rules.new_edition(3, board="small"),
    lambda: Rules.preset("tiny").replace(board="corner", start_deck_mr_x=(1, 18, 20, 100)),
])
def test_start_decks_off_the_board_are_refused(make: object) -> None:
    with pytest.raises(RulesError, match=r"R-SETUP: start_deck_\w+ has stations that are not on "
                                         r"the (tiny|small|corner) board"):
        make()  # type: ignore[operator]


def test_a_start_off_a_small_board_is_refused() -> None:
    assert Game.new("tiny", start={"X": 1, "D1": 19}).stations == {"X": 1, "D1": 19}
    with pytest.raises(GameError, match=r"R-SETUP: X starts on 100, not on the tiny board "
                                        r"\(its stations: 1, 8, 9, 18, 19, 20\)"):
        Game.new("tiny", start={"X": 100, "D1": 19})


def test_the_cli_refuses_a_board_without_its_start_decks(tmp_path: Path) -> None:
    out = runner.invoke(app, ["arena", "--rule", "board=tiny", "-g", "2",
                              "--out", str(tmp_path / "a")])
    assert out.exit_code != 0 and "not on the tiny board" in out.output
    assert not (tmp_path / "a" / "games").exists()


def test_the_web_app_offers_the_books_presets_only() -> None:
    assert CreateGame(preset="classic_it").preset == "classic"
    with pytest.raises(ValidationError, match="not the research preset 'tiny'"):
        CreateGame(preset="tiny")


def test_the_small_boards_are_board_data() -> None:
    boards = small_board_document()["boards"]
    assert tuple(boards) == SMALL
    for name, data in boards.items():
        board = london(name)
        assert board.playable == frozenset(data["stations"])
        assert board.start_positions[name]["mr_x"] == tuple(data["start_positions"]["mr_x"])
    assert london("classic").playable == frozenset(range(1, 200))


def _relative_imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports anywhere (in functions and TYPE_CHECKING too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update([node.module.split(".")[0]] if node.module else
                       [a.name for a in node.names])
    return out


def test_the_core_modules_import_one_way() -> None:
    core = {p.stem: p for p in PACKAGE.glob("*.py") if not p.stem.startswith("__")}
    graph = {name: _relative_imports(p) & set(core) for name, p in core.items()}
    assert graph["board"] == set()  # the board reads its data, and needs no rules
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError on an import circle
