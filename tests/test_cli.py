"""The terminal game loop (scotlandyard/cli_play.py) and the `scotlandyard` command."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console
from typer.testing import CliRunner

from scotlandyard import Game, Rules
from scotlandyard.cli import app
from scotlandyard.cli_play import TerminalGame
from scotlandyard.move import MR_X
from scotlandyard.record import SETTING_KINDS, Record

from .conftest import random_game

CLEAR = "<<CLEAR>>"
MR_X_CELL = r"^Mr X[^│]*│\s*([^│]*?)\s*│"  # Mr X's station in the pieces table
runner = CliRunner()


def console(buf: io.StringIO) -> Console:
    return Console(file=buf, width=100, color_system=None, force_terminal=False)


def scripted(lines: list[str]) -> Callable[[], str]:
    """A ``read`` callable that returns ``lines`` one by one, then ends the input."""
    it: Iterator[str] = iter(lines)

    def read() -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def hot_seat_script(game: Game) -> list[str]:
    """What two humans type to play ``game``'s moves in hot-seat: Enter at each hand-over."""
    lines: list[str] = []
    side = None
    for piece, move in game.moves:
        now = "mr_x" if piece == MR_X else "detectives"
        if now != side:
            lines.append("")  # "Pass to ..., press Enter"
            side = now
        lines.append(move.notation())
    return lines


def play_hot_seat(reference: Game) -> tuple[Game, str]:
    """Replay ``reference`` through the hot-seat loop; returns the new game and the output."""
    buf = io.StringIO()
    out = console(buf)
    game = Game.new(reference.rules, start=reference.start)
    TerminalGame(game, out=out, read=scripted(hot_seat_script(reference)),
                 clear=lambda: out.print(CLEAR)).run()
    return game, buf.getvalue()


def detective_screens(output: str) -> list[str]:
    """Everything shown between "Pass to the detectives" and the next screen clear."""
    return [chunk for chunk in output.split(CLEAR) if chunk.startswith("\nPass to the detectives")
            or chunk.startswith("Pass to the detectives")]


@pytest.mark.parametrize("rules", [Rules.classic(detectives=3), Rules.new_edition(detectives=2)],
                         ids=["classic3", "new2"])
def test_hot_seat_never_shows_mr_x_hidden_station_to_the_detectives(rules: Rules) -> None:
    reference = random_game(rules, 17)
    game, output = play_hot_seat(reference)
    assert game.moves == reference.moves and game.outcome() == reference.outcome()
    assert "Pass to Mr X, press Enter" in output
    screens = detective_screens(output)
    assert len(screens) >= reference.round - 1
    for screen in screens:
        assert "You are on" not in screen  # Mr X's own screen
        cells = re.findall(MR_X_CELL, screen, flags=re.M)
        assert cells
        assert all(c == "?" or c.endswith("(seen)") for c in cells)  # seen: a reveal
    # the strong check: a different path of Mr X with the same public facts gives the
    # detectives byte-identical screens
    public = Record.from_game(reference, date="2025-06-01").public(reveal_finished=False)
    truth = [e.station for e in reference.log]
    for k in range(50):
        alt = public.reconstruct(random.Random(k))
        if [e.station for e in alt.log] != truth:
            break
    else:
        pytest.fail("no other path of Mr X fits this game")
    alt_game, alt_output = play_hot_seat(alt)
    assert alt_game.moves == alt.moves
    assert detective_screens(alt_output) == screens
    assert output != alt_output  # Mr X's own screens differ


def test_hot_seat_seen_station_only_at_reveals() -> None:
    reference = random_game(Rules.classic(detectives=3), 23)
    _game, output = play_hot_seat(reference)
    revealed = {e.station for e in reference.log if e.reveal}
    for screen in detective_screens(output):
        for cell in re.findall(MR_X_CELL, screen, flags=re.M):
            if cell != "?":
                assert int(cell.removesuffix(" (seen)")) in revealed


def test_hot_seat_refuses_undo_and_explains_bad_input() -> None:
    rules = Rules.new_edition(detectives=4)
    game = Game.new(rules, start={"X": 132, "D1": 73, "D2": 75, "D3": 13, "D4": 26})
    x_move = next(m for m in game.legal_moves() if not m.is_double).notation()
    buf = io.StringIO()
    out = console(buf)
    session = TerminalGame(game, out=out, clear=lambda: out.print(CLEAR), read=scripted(
        ["", "help", "moves", x_move, "", "undo", "Q99", "T1", "T74", "D1:T74", "quit"]))
    session.run()
    text = buf.getvalue()
    assert session.quit and game.ply == 2
    assert "B58+K74    Mr X's double move" in text  # help
    assert re.search(r"\d+ legal moves: T\d+", text)  # moves
    assert "undo is only for games against the AI" in text
    assert "Not a legal move: cannot read 'Q99'" in text
    assert "Legal moves include D1:" in text
    assert "Not a legal move: R-BOARD: no taxi line from 73 to 1" in text
    assert "several pieces can play T74: D1:T74, D2:T74" in text  # R-ORDER-FREE: name it
    assert "D1 played T74." in text
    assert "Game stopped after 2 moves." in text


def test_game_against_random_mr_x_to_the_end() -> None:
    rules = Rules.classic(detectives=4)
    game = Game.new(rules, seed=5)
    rng = random.Random(5)
    buf = io.StringIO()

    def read() -> str:  # a human detective who plays random legal moves
        return rng.choice(game.legal_moves()).notation()

    out = Console(file=buf, width=1000, color_system=None, force_terminal=False)
    session = TerminalGame(game, mr_x="random", detectives="human", out=out, read=read, seed=6)
    session.run()
    text = buf.getvalue()
    assert game.is_over() and not session.quit
    assert f"Game over: {game.outcome().describe()}" in text
    path = " → ".join([str(game.start[MR_X]), *(f"{e.ticket.letter}{e.station}"
                                                for e in game.log)])
    assert f"Mr X's path: {path}" in text
    before_end = text.split("Game over")[0]
    assert "You are on" not in before_end
    shown = re.findall(r"Round \d+: Mr X \(random\) played (\S+)\.", before_end)
    x_moves = [m for p, m in game.moves if p == MR_X]
    assert len(shown) == len(x_moves)
    log = iter(game.log)
    for token, move in zip(shown, x_moves, strict=True):
        for (t, station), step in zip(move.steps, token.split("+"), strict=True):
            entry = next(log)
            assert step == (f"{t.letter}{station}" if entry.reveal else f"{t.letter}?")


def test_undo_against_the_ai_takes_back_the_human_move_and_the_replies() -> None:
    game = Game.new(Rules.classic(detectives=2), seed=8)
    seen: list[tuple[int, int]] = []
    first = next(m for m in game.legal_moves() if not m.is_double).notation()
    answers = iter([first, "undo", "quit"])

    def read() -> str:
        seen.append((game.ply, game.round))
        return next(answers)

    buf = io.StringIO()
    session = TerminalGame(game, mr_x="human", detectives="random", out=console(buf), read=read,
                           seed=1)
    session.run()
    assert seen == [(0, 1), (3, 2), (0, 1)]  # X moved, two AI detectives replied, all undone
    assert "Took back your last move" in buf.getvalue()
    assert game.ply == 0 and session.quit


def test_unknown_controller_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown player 'deep-blue'"):
        TerminalGame(Game.new(Rules.classic(), seed=1), mr_x="deep-blue")


# ---- the command ------------------------------------------------------------------------------------


def test_cli_play_ai_against_ai_saves_a_record_that_checks(tmp_path) -> None:
    path = tmp_path / "game.json"
    result = runner.invoke(app, ["play", "--mr-x", "random", "--detectives-ai", "random",
                                 "--seed", "3", "--preset", "new_edition", "--detectives", "3",
                                 "--save", str(path)])
    assert result.exit_code == 0, result.output
    assert "Game over:" in result.output and f"Record saved to {path}" in result.output
    record = Record.load(path)
    assert record.players["X"] == "random (AI)" and record.seed == 3
    assert record.rules == Rules.new_edition(detectives=3)
    assert record.replay().is_over()
    again = runner.invoke(app, ["play", "--mr-x", "random", "--detectives-ai", "random",
                                "--seed", "3", "--preset", "new_edition", "--detectives", "3"])
    assert again.output.split("Game over:")[1] == result.output.split("Game over:")[1].split(
        "Record saved")[0]  # same seed, same game


def test_cli_play_hot_seat_quit_saves_unfinished_record(tmp_path) -> None:
    path = tmp_path / "g.sy"
    result = runner.invoke(app, ["play", "--seed", "1", "--extra-reveal", "--save", str(path)],
                           input="\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Pass to Mr X, press Enter" in result.output
    assert "Game stopped after 0 moves." in result.output
    record = Record.load(path)
    assert record.result is None and record.rules.extra_reveal and record.moves == ()


def test_cli_play_rejects_bad_options() -> None:
    result = runner.invoke(app, ["play", "--mr-x", "nobody"])
    assert result.exit_code == 1 and "unknown player 'nobody'" in result.output
    result = runner.invoke(app, ["play", "--preset", "classic_2p", "--detectives", "3"])
    assert result.exit_code == 1 and "fixes the number of detectives" in result.output


@pytest.fixture
def records(tmp_path):
    game = random_game(Rules.classic(detectives=3), 12)
    record = Record.from_game(game, date="2025-06-01")
    full = record.save(tmp_path / "full.sy")
    public = record.public(reveal_finished=False).save(tmp_path / "public.json")
    broken = tmp_path / "broken.sy"
    broken.write_text(full.read_text().replace('[Setting police "0"]', '[Setting polis "0"]'))
    return game, full, public, broken


def test_cli_check_good_public_and_broken_records(records, tmp_path) -> None:
    game, full, public, broken = records
    result = runner.invoke(app, ["check", str(full)])
    assert result.exit_code == 0
    assert result.output.startswith("OK: full record: classic rules, 3 detectives")
    assert game.outcome().describe() in result.output.replace("\n", " ")
    result = runner.invoke(app, ["check", str(public)])
    assert result.exit_code == 0 and result.output.startswith("OK: public record")
    result = runner.invoke(app, ["check", str(broken)])
    assert result.exit_code == 1 and "unknown rule setting 'polis'" in result.output
    result = runner.invoke(app, ["check", str(tmp_path / "nope.sy")])
    assert result.exit_code == 1 and "cannot read" in result.output


def test_cli_replay_full_and_public(records) -> None:
    game, full, public, _broken = records
    result = runner.invoke(app, ["replay", str(full)])
    assert result.exit_code == 0, result.output
    for i, (piece, move) in enumerate(game.moves, 1):
        name = "Mr X" if piece == MR_X else piece
        assert re.search(rf"^ *{i}\. r{game.view('X').history[i - 1].round} +{name} +"
                         rf"{re.escape(move.notation())}", result.output, flags=re.M)
    assert f"Result: {game.outcome().describe()}" in result.output
    result = runner.invoke(app, ["replay", str(public)])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.output.splitlines() if re.match(r" *\d+\. r\d+ +Mr X ", ln)]
    x_moves = [m for p, m in game.moves if p == MR_X]
    assert len(lines) == len(x_moves)
    log = iter(game.log)
    for line, move in zip(lines, x_moves, strict=True):
        token = line.split()[4]
        for (t, s), step in zip(move.steps, token.split("+"), strict=True):
            e = next(log)
            assert step == (f"{t.letter}{s}" if e.reveal else f"{t.letter}?")
            if not e.reveal:
                assert f"X {s} " not in line  # Mr X's column stays '?'
    assert "public record: Mr X hidden" in result.output
    assert "Mr X's path: ?" in result.output


def test_cli_replay_step_waits_for_enter(records) -> None:
    game, full, _public, _broken = records
    result = runner.invoke(app, ["replay", str(full), "--step"], input="\n\nq\n")
    assert result.exit_code == 0
    assert result.output.count("Enter: next move, q: stop") == 3
    assert "Mr X's travel log" in result.output and "Result:" not in result.output


def test_cli_rules_table_and_json() -> None:
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0
    for name in (*Rules.PRESETS, *SETTING_KINDS):
        assert name in result.output
    result = runner.invoke(app, ["rules", "new_edition", "--json"])
    assert json.loads(result.output) == Rules.new_edition().to_dict()
    result = runner.invoke(app, ["rules", "classic", "--detectives", "3", "--json"])
    data = json.loads(result.output)
    assert data["detectives"] == 3 and data["black_tickets"] == 3
    result = runner.invoke(app, ["rules", "--json"])
    assert set(json.loads(result.output)) == set(Rules.PRESETS)
    result = runner.invoke(app, ["rules", "nonsense"])
    assert result.exit_code != 0


def test_replay_and_check_strip_control_characters_from_a_records_text(tmp_path) -> None:
    """A record's headers are shown as text: an ESC sequence in the event, a player's name or
    the preset (clear the screen, move the cursor, set the window title), a C1 CSI or a bidi
    override never reaches the terminal from ``replay`` or ``check`` (issue 28 §5); the rest
    of the text is kept."""
    game = random_game(Rules.classic(), 3, 8)
    nasty = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x9b31m\u202e"
    rec = Record.from_game(game, players={"X": f"al{nasty}ice"}, event=f"Cup {nasty}final")
    path = tmp_path / "game.json"
    path.write_text(rec.to_json(), encoding="utf-8")
    shown = runner.invoke(app, ["replay", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "Cup [2J[H]0;pwned31mfinal" in shown.output and "al[2J[H]0;pwned31mice" in shown.output
    data = json.loads(rec.to_json())
    data["moves"][1]["piece"] = f"D1{nasty}"  # check names the move in its error
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    checked = runner.invoke(app, ["check", str(bad)])
    assert checked.exit_code == 1 and "move 2 (round 1, D1[2J[H]0;pwned" in checked.output
    for out in (shown.output, checked.output):
        assert not any(c in out for c in "\x1b\x07\x9b\u202e"), repr(out)
