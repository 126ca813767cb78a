"""Game records (scotlandyard/record.py): formats, replay, the public form, and every kind of
rejection."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scotlandyard import Game, Rules
from scotlandyard.move import MR_X
from scotlandyard.record import SETTING_KINDS, Record, RecordError

from .conftest import ALL_RULES, random_game, snapshot


def moves_section(text: str) -> list[str]:
    """The lines of a text record after its headers (comments dropped)."""
    body = text.split("\n\n", 1)[1]
    return [ln for ln in body.splitlines() if ln and not ln.startswith(";")]


def tokens(text: str) -> list[tuple[str, str]]:
    """(piece, move) pairs of a text record's moves section, read token by token."""
    out = []
    for line in moves_section(text):
        parts = line.split()
        assert re.fullmatch(r"\d+\.", parts[0]), line
        for label, move in zip(parts[1::2], parts[2::2], strict=True):
            out.append((label.rstrip(":"), move))
    return out


def finished(name: str, seed: int) -> Game:
    return random_game(ALL_RULES[name](), seed)


# ---- round trips -----------------------------------------------------------------------------------


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(ALL_RULES)), seed=st.integers(0, 10**6),
       cut=st.one_of(st.none(), st.integers(0, 140)))
def test_round_trip_text_and_json_replay_identical_and_public_hides_mr_x(name: str, seed: int,
                                                                        cut: int | None) -> None:
    game = random_game(ALL_RULES[name](), seed, max_plies=cut)
    record = Record.from_game(game, players={"X": "alice", "D1": "bob"}, event="prop",
                              date="2025-06-01")
    for text in (record.to_text(), record.to_json()):
        back = Record.parse(text)
        assert back == record
        again = back.replay()
        assert snapshot(again) == snapshot(game)
        assert again.start == game.start and again.seed == game.seed

    # the public record: every hidden slot of Mr X is '?' in the moves section, token by token
    public = record.public(reveal_finished=False)
    text = public.to_text()
    x_moves = [m for p, m in game.moves if p == MR_X and not m.is_take]
    x_tokens = [t for p, t in tokens(text) if p == MR_X and not t.startswith("take:")]
    assert len(x_tokens) == len(x_moves)
    log = iter(game.log)
    for move, token in zip(x_moves, x_tokens, strict=True):
        steps = token.rstrip("!").split("+")
        assert len(steps) == len(move.steps)
        for (ticket, station), step in zip(move.steps, steps, strict=True):
            entry = next(log)
            assert entry.station == station
            shown = f"{ticket.letter}{station}"
            assert step == (shown if entry.reveal else f"{ticket.letter}?"), (token, entry)
    assert "[Start X " not in text and "[Seed " not in text
    assert '"X":' not in json.dumps(public.to_dict()["start"])
    assert public.to_dict()["seed"] is None

    # a public record reads back, is consistent, and reconstructs to the same public facts
    back = Record.parse(text)
    assert back == public and back.hidden
    assert back.check().startswith("public record")
    alt = back.reconstruct(random.Random(seed))
    assert Record.from_game(alt, players=record.players, event="prop",
                            date="2025-06-01").public(reveal_finished=False) == public
    assert all(alt.stations[p] == game.stations[p] for p in game.rules.hunters)
    with pytest.raises(RecordError, match="public record: Mr X's stations are hidden"):
        back.replay()


def test_text_format_has_every_header_and_one_line_per_round() -> None:
    game = finished("classic5", 11)
    record = Record.from_game(game, players={"X": "alice", "D2": "carol"}, event="Friday club",
                              date="2025-06-01", tags={"Site": "Milan"})
    text = record.to_text()
    assert '[Rules "classic"]' in text
    assert '[Event "Friday club"]' in text and '[Date "2025-06-01"]' in text
    assert '[Site "Milan"]' in text and '[Seed "11"]' in text
    assert '[Player X "alice"]' in text and '[Player D2 "carol"]' in text
    for piece, station in game.start.items():
        assert f'[Start {piece} "{station}"]' in text
    for name in SETTING_KINDS:
        assert f"[Setting {name} " in text
    assert '[Setting detective_tickets "10 8 4"]' in text
    assert '[Setting pooled_supply "none"]' in text
    out = game.outcome()
    assert f'[Result "{out.winner}"]' in text and f'[Reason "{out.reason}"]' in text
    assert f'[EndRound "{out.round}"]' in text
    rounds = [int(ln.split(".")[0]) for ln in moves_section(text)]
    assert rounds == list(range(1, out.round + 1))
    assert moves_section(text)[0].startswith("1. X: ")
    assert text.rstrip().endswith(out.describe())


def test_free_order_moves_keep_their_piece() -> None:
    game = finished("new3", 5)
    record = Record.from_game(game, date="2025-06-01")
    labelled = [(p, m.with_piece(None).notation()) for p, m in game.moves]
    assert tokens(record.to_text()) == labelled
    assert [(m.piece, m.move) for m in record.moves] == labelled
    # the core's own prefixed form (D2:T92) is read too
    glued = record.to_text().replace(": ", ":")
    assert snapshot(Record.parse(glued).replay()) == snapshot(game)


def test_save_and_load_pick_format_by_extension_and_content(tmp_path) -> None:
    game = finished("new_2p", 3)
    record = Record.from_game(game, date="2025-06-01")
    j = record.save(tmp_path / "g.json")
    t = record.save(tmp_path / "g.sy")
    assert j.read_text().startswith("{") and json.loads(j.read_text())["format"] == \
        "scotlandyard-record"
    assert t.read_text().startswith("[Date")
    swapped = tmp_path / "swapped.txt"
    swapped.write_text(j.read_text())
    for p in (j, t, swapped):
        assert Record.load(p) == record
    with pytest.raises(RecordError, match="cannot read"):
        Record.load(tmp_path / "missing.sy")


def test_hand_written_record_with_seed_comments_and_lower_case() -> None:
    game = Game.new(Rules.classic(detectives=2), seed=4)
    legal = game.legal_moves()
    x = next(m for m in legal if not m.is_double)
    game.push(x)
    d1 = game.legal_moves()[0]
    game.push(d1)
    text = (f'[Rules "classic"]\n[Setting detectives "2"]\n[Setting black_tickets "2"]\n'
            f'[Seed "4"]\n\n; a comment line\n1. X: {x.notation().lower()}  '
            f"D1: {d1.notation()} ; trailing comment\n")
    record = Record.parse(text)
    assert record.moves[0].move == x.notation()
    assert snapshot(record.replay()) == snapshot(game)


def test_public_of_finished_game_shows_everything_by_default() -> None:
    game = finished("classic3", 8)
    record = Record.from_game(game, date="2025-06-01")
    assert record.public() == record  # R-MRX: the log is opened at the end
    hidden = record.public(reveal_finished=False)
    assert hidden.hidden and hidden != record
    assert hidden.result == record.result
    assert hidden.check().startswith("public record (Mr X hidden), consistent")


def test_public_of_running_game_hides_by_default_and_keeps_reveals() -> None:
    game = random_game(Rules.classic(), 21, max_plies=40)
    assert not game.is_over()
    public = Record.from_game(game, date="2025-06-01").public()
    assert public.hidden
    reveals = {e.slot: e for e in game.log if e.reveal}
    assert reveals  # 40 plies pass slot 3
    steps = [step for p, t in tokens(public.to_text()) if p == MR_X for step in t.split("+")]
    for e in reveals.values():
        assert f"{e.ticket.letter}{e.station}" in steps


def test_reconstruct_draws_different_paths_that_all_fit() -> None:
    game = random_game(Rules.classic(), 2, max_plies=30)
    public = Record.from_game(game, date="2025-06-01").public()
    paths = set()
    for k in range(12):
        alt = public.reconstruct(random.Random(k))
        assert Record.from_game(alt, date="2025-06-01").public() == public
        assert alt.possible_locations() == game.possible_locations()
        paths.add(tuple(e.station for e in alt.log))
    assert len(paths) > 1


# ---- rejections ------------------------------------------------------------------------------------


@pytest.fixture
def classic_record() -> tuple[Game, Record, str]:
    game = finished("classic5", 5)
    record = Record.from_game(game, date="2025-06-01")
    return game, record, record.to_text()


def replace_move(text: str, ply: int, new: str) -> str:
    """``text`` with the move of ``ply`` (1-based) replaced by ``new``."""
    head, body = text.split("\n\n", 1)
    count = 0
    out = []
    for line in body.splitlines():
        parts = line.split("  ")
        if line and not line.startswith(";"):
            for k, part in enumerate(parts):
                words = part.split()
                count += 1
                if count == ply:
                    parts[k] = " ".join([*words[:-1], new])
        out.append("  ".join(parts))
    return head + "\n\n" + "\n".join(out) + "\n"


def test_rejects_illegal_move_naming_ply_round_piece_and_rule(classic_record) -> None:
    game, record, text = classic_record
    ply = next(i for i, (p, m) in enumerate(game.moves, 1)
               if p == "D2" and record.moves[i - 1].round == 3)
    at = Game.new(game.rules, start=game.start)
    for _p, m in game.moves[:ply - 1]:
        at.push(m)
    here = at.station("D2")
    far = next(s for s in range(1, 200) if s not in at.board.neighbours[2][here])
    bad = replace_move(text, ply, f"U{far}")
    with pytest.raises(RecordError) as info:
        Record.parse(bad).replay()
    msg = str(info.value)
    assert f"move {ply} (round 3, D2)" in msg
    assert f"R-BOARD: no underground line from {here} to {far}" in msg
    assert (info.value.ply, info.value.round, info.value.piece) == (ply, 3, "D2")


def test_rejects_move_without_ticket_r_tickets() -> None:
    rules = Rules.classic(detectives=1).replace(detective_tickets=(10, 0, 4))
    game = Game.new(rules, start={"X": 132, "D1": 74})
    game.push(next(m for m in game.legal_moves() if not m.is_double))
    text = Record.from_game(game, date="2025-06-01").to_text()
    text = text.replace("; unfinished", "").rstrip("\n") + "  D1: B58\n"
    with pytest.raises(RecordError, match=r"move 2 \(round 1, D1\): R-TICKETS: D1 has no bus "
                                          r"ticket left"):
        Record.parse(text).replay()


def test_rejects_malformed_move_text(classic_record) -> None:
    _game, _record, text = classic_record
    with pytest.raises(RecordError, match=r"move 4 \(round 1, D3\): cannot read 'Z9'"):
        Record.parse(replace_move(text, 4, "Z9"))
    with pytest.raises(RecordError, match=r"expected a round number .* found 'T92'"):
        Record.parse(text.replace("1. X: ", "1. T92 X: ", 1))
    with pytest.raises(RecordError, match=r"move 2 \(round 1, D1\): no station 300"):
        Record.parse(replace_move(text, 2, "T300"))


def test_rejects_broken_and_truncated_json(classic_record) -> None:
    _game, record, _text = classic_record
    j = record.to_json()
    with pytest.raises(RecordError, match=r"broken JSON: .* at line \d+ column \d+"):
        Record.parse(j[: len(j) // 2])
    with pytest.raises(RecordError, match="broken JSON"):
        Record.parse(j.replace('"version": 1,', '"version": 1', 1))
    data = json.loads(j)
    data["moves"] = data["moves"][:-3]
    with pytest.raises(RecordError, match="result: the record says"):
        Record.parse(json.dumps(data)).replay()
    with pytest.raises(RecordError, match="not a game record"):
        Record.parse('{"moves": []}')


def test_rejects_truncated_text(classic_record) -> None:
    _game, _record, text = classic_record
    cut_in_moves = text[: len(text) - 200]
    with pytest.raises(RecordError):
        Record.parse(cut_in_moves).replay()
    head = text.split("\n\n")[0]
    with pytest.raises(RecordError, match="cannot read header"):
        Record.parse(head[: head.index("[Setting board") + 12])
    with pytest.raises(RecordError, match=r"D2: without a move \(the file ends\)"):
        Record.parse(text.split("D2: ")[0] + "D2:")


def test_rejects_unknown_setting_in_text_and_json(classic_record) -> None:
    _game, record, text = classic_record
    with pytest.raises(RecordError, match=r"line \d+: unknown rule setting 'speed'"):
        Record.parse(text.replace("[Setting police", '[Setting speed "3"]\n[Setting police'))
    data = record.to_dict()
    data["rules"]["speed"] = 3
    with pytest.raises(RecordError, match="unknown rule setting.*speed"):
        Record.from_dict(data)


def test_rejects_wrong_types(classic_record) -> None:
    _game, record, text = classic_record
    with pytest.raises(RecordError, match="setting detectives is a whole number, not 'five'"):
        Record.parse(text.replace('[Setting detectives "5"]', '[Setting detectives "five"]'))
    with pytest.raises(RecordError, match="setting free_order is true or false"):
        Record.parse(text.replace('[Setting free_order "false"]', '[Setting free_order "maybe"]'))
    data = record.to_dict()
    data["rules"]["detectives"] = "five"
    with pytest.raises(RecordError, match=r"rules: R-PIECES: 1 to 5 detectives, not 'five'"):
        Record.from_dict(data)
    data = record.to_dict()
    data["moves"][0]["round"] = "1"
    with pytest.raises(RecordError, match="move 1: round is a whole number"):
        Record.from_dict(data)
    data = record.to_dict()
    data["seed"] = "7"
    with pytest.raises(RecordError, match="seed"):
        Record.from_dict(data)
    with pytest.raises(RecordError, match="rules: R-TICKETS"):
        Record.parse(text.replace('[Setting detective_tickets "10 8 4"]',
                                  '[Setting detective_tickets "10 8"]'))


def test_rejects_result_that_disagrees_with_the_moves(classic_record) -> None:
    game, _record, text = classic_record
    out = game.outcome()
    other = "mr_x" if out.winner == "detectives" else "detectives"
    bad = text.replace(f'[Result "{out.winner}"]', f'[Result "{other}"]')
    with pytest.raises(RecordError, match=f"result: the record says .* but its moves give "
                                          f"\"{re.escape(out.describe())}\""):
        Record.parse(bad).replay()
    unfinished = re.sub(r'\[(Reason|EndRound|CaughtBy) "[^"]*"\]\n', "", text)
    unfinished = unfinished.replace(f'[Result "{out.winner}"]', '[Result "*"]')
    with pytest.raises(RecordError, match="the game is unfinished"):
        Record.parse(unfinished).replay()


def test_rejects_wrong_round_label_and_moves_after_the_end(classic_record) -> None:
    game, _record, text = classic_record
    lines = text.split("\n\n", 1)
    bad = lines[0] + "\n\n" + lines[1].replace("2. X:", "3. X:", 1)
    with pytest.raises(RecordError, match=r"labelled round 3, but the game is in round 2"):
        Record.parse(bad).replay()
    extra = text.replace(f"; {game.outcome().describe()}", "99. D1: T1")
    with pytest.raises(RecordError, match="the game is already over"):
        Record.parse(extra).replay()


def test_rejects_piece_out_of_turn_r_round(classic_record) -> None:
    _game, _record, text = classic_record
    bad = text.replace("D1: ", "D3: ", 1)
    with pytest.raises(RecordError, match=r"move 2 \(round 1, D3\): R-ROUND: it is D1's turn"):
        Record.parse(bad).replay()


def test_rejects_bad_headers(classic_record) -> None:
    _game, _record, text = classic_record
    with pytest.raises(RecordError, match="line 1: cannot read header"):
        Record.parse("[Date 2025]\n" + text)
    with pytest.raises(RecordError, match="header Date given twice"):
        Record.parse('[Date "2025-01-01"]\n' + text)
    with pytest.raises(RecordError, match="a header after the moves"):
        Record.parse(text + '[Event "late"]\n')
    with pytest.raises(RecordError, match="not an ISO date"):
        Record.parse(text.replace('[Date "2025-06-01"]', '[Date "June 1st"]'))
    with pytest.raises(RecordError, match="unknown rules preset 'chess'"):
        Record.parse(text.replace('[Rules "classic"]', '[Rules "chess"]'))
    with pytest.raises(RecordError, match="start: R-SETUP: D1 and D2 both start"):
        d1 = re.search(r'\[Start D1 "(\d+)"\]', text).group(1)
        Record.parse(re.sub(r'\[Start D2 "\d+"\]', f'[Start D2 "{d1}"]', text)).replay()


def with_move(record: Record, ply: int, text: str) -> Record:
    """``record`` with move ``ply`` (1-based) written as ``text``, read back from text."""
    moves = list(record.moves)
    moves[ply - 1] = dataclasses.replace(moves[ply - 1], move=text)
    return Record.parse(dataclasses.replace(record, moves=tuple(moves)).to_text())


def x_plies(record: Record, game: Game) -> list[tuple[int, object]]:
    """(ply, log entries) of each of Mr X's travel moves."""
    out, slot = [], 0
    for i, (p, m) in enumerate(game.moves, 1):
        if p == MR_X and not m.is_take:
            out.append((i, game.log[slot:slot + len(m.steps)]))
            slot += len(m.steps)
    return out


def test_public_record_check_rejects_inconsistent_reveal() -> None:
    game = random_game(Rules.classic(), 9, max_plies=60)
    public = Record.from_game(game, date="2025-06-01").public()
    ply, entries = next((i, es) for i, es in x_plies(public, game) if len(es) == 1
                        and es[0].reveal)
    reveal = entries[0]
    before = Game.new(game.rules, start=game.start)
    for _p, m in game.moves[:ply - 1]:
        before.push(m)
    reach = {d for s in before.possible_locations()
             for d in game.board.neighbours[int(reveal.ticket)][s]}
    far = min(s for s in range(1, 200) if s not in reach)  # R-BELIEF: Mr X cannot be there
    bad = with_move(public, ply, f"{reveal.ticket.letter}{far}")
    with pytest.raises(RecordError, match=rf"move {ply} \(round \d+, X\): no station of Mr X "
                                          r"fits the public facts"):
        bad.check()


def test_public_record_check_rejects_leaked_or_missing_stations() -> None:
    game = random_game(Rules.classic(), 9, max_plies=60)
    public = Record.from_game(game, date="2025-06-01").public()
    plies = x_plies(public, game)
    ply, entries = next((i, es) for i, es in plies if len(es) == 1 and not es[0].reveal)
    leaked = with_move(public, ply, f"{entries[0].ticket.letter}{entries[0].station}")
    e = entries[0]
    with pytest.raises(RecordError, match=rf"move {ply} \(round \d+, X\): log slot {e.slot} is "
                                          rf"hidden, so a public record writes {e.ticket.letter}\?, "
                                          rf"not {e.ticket.letter}{e.station}"):
        leaked.check()
    ply, entries = next((i, es) for i, es in plies if len(es) == 1 and es[0].reveal)
    e = entries[0]
    missing = with_move(public, ply, f"{e.ticket.letter}?")
    with pytest.raises(RecordError, match=rf"move {ply} .*log slot {e.slot} is revealed, so a "
                                          r"public record shows its station"):
        missing.check()


def test_public_record_check_finds_illegal_detective_move() -> None:
    game = random_game(Rules.classic(), 9, max_plies=60)
    public = Record.from_game(game, date="2025-06-01").public()
    text = public.to_text()
    ply = next(i for i, m in enumerate(public.moves, 1) if m.piece == "D4" and m.round == 4)
    before = Game.new(game.rules, start=game.start)
    for _p, m in game.moves[:ply - 1]:
        before.push(m)
    here = before.station("D4")
    far = next(s for s in range(1, 200) if s not in before.board.neighbours[0][here]
               and s != here)
    with pytest.raises(RecordError, match=rf"move {ply} \(round 4, D4\): R-BOARD: no taxi line "
                                          rf"from {here} to {far}"):
        Record.parse(replace_move(text, ply, f"T{far}")).check()


def test_from_game_rejects_unknown_player_piece() -> None:
    game = Game.new(Rules.classic(detectives=2), seed=1)
    with pytest.raises(RecordError, match="no piece 'D5'"):
        Record.from_game(game, players={"D5": "eve"})


def test_public_record_of_hand_set_start_outside_the_deck_r_belief() -> None:
    rules = Rules.classic(detectives=2)
    assert 1 not in rules.start_deck_mr_x
    game = Game.new(rules, start={"X": 1, "D1": 13, "D2": 26})
    rng = random.Random(3)
    while game.ply < 25 and not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    public = Record.from_game(game, date="2025-06-01").public()
    text = public.to_text()
    assert '[MrXStart "anywhere"]' in text and "[Start X" not in text
    back = Record.parse(text)
    assert back.start_anywhere and back == public
    assert back.check().startswith("public record")
    assert back.reconstruct(random.Random(1)).possible_locations() == game.possible_locations()


def test_from_game_rejects_a_determinized_game() -> None:
    game = random_game(Rules.classic(), 4, max_plies=12)
    branch = Game.from_view(game.view("X"))
    branch.push(branch.legal_moves()[0])
    with pytest.raises(RecordError, match="does not start at its first move"):
        Record.from_game(branch)


def test_docs_examples_are_real_records() -> None:
    from .conftest import ROOT

    doc = (ROOT / "docs" / "records.md").read_text()
    blocks = re.findall(r"```(text|json)\n(.*?)```", doc, flags=re.S)
    assert [kind for kind, _ in blocks] == ["text", "text", "json"]
    full, public, as_json = (Record.parse(body) for _, body in blocks)
    assert full == as_json and not full.hidden
    assert public.hidden and public == full.public(reveal_finished=False)
    assert full.check().startswith("full record")
    assert public.check().startswith("public record")
    # the example is what the code in the doc makes
    game = Game.new(Rules.classic(detectives=3), seed=15)
    rng = random.Random(15)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    assert full.replay().moves == game.moves
    assert blocks[0][1] == full.to_text() and blocks[2][1] == full.to_json()


def test_public_record_of_cornered_game_reconstructs_a_cornered_mr_x() -> None:
    game = random_game(ALL_RULES["classic1"](), 2)
    assert game.outcome().reason == "cornered"  # R-END (4)
    assert len(game.possible_locations()) > 1  # the result narrows the candidates down
    public = Record.from_game(game, date="2025-06-01").public(reveal_finished=False)
    for k in range(5):
        alt = public.reconstruct(random.Random(k))
        assert alt.outcome() == game.outcome()


def test_book_presets_are_named_in_records_and_check_counts_one_station() -> None:
    rules = Rules.preset("classic_pl", 3)
    game = Game.new(rules, seed=5)
    rng = random.Random(5)
    while len(game.log) < 3:  # up to Mr X's third move: a reveal slot of the Polish book
        game.push(rng.choice([m for m in game.legal_moves() if not m.is_double]))
    record = Record.from_game(game, date="2025-06-01")
    assert record.preset == "classic_pl" and '[Rules "classic_pl"]' in record.to_text()
    again = Record.parse(record.to_text())
    assert again.rules == rules and again.replay().moves == game.moves
    summary = record.public().check()
    assert summary.endswith("Mr X may be on 1 station"), summary
    assert Record.parse(record.to_text().replace('[Rules "classic_pl"]', '[Rules "classic_it"]')
                        ).rules == rules  # the settings win over the (aliased) preset name
