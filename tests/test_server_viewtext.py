"""The server's incremental view text (``server/viewtext.py``) is ``frame_text(view.to_dict())``
byte for byte: over random games of both presets, with takebacks, copies and the end of the
game (when every hidden station is shown), for Mr X, a detective and a spectator."""

from __future__ import annotations

import random

import orjson

from scotlandyard.game import Game
from scotlandyard.rules import preset_info
from scotlandyard.server.protocol import frame_text
from scotlandyard.server.viewtext import ViewEncoder


def _keys(game: Game) -> tuple[str, ...]:
    return ("X", game.pieces[1], game.pieces[-1], "spectator")


def _check(enc: ViewEncoder, game: Game) -> None:
    for key in _keys(game):
        view = game.view(key)
        assert enc.text(view) == frame_text(view.to_dict()), (key, game.ply)


def test_same_text_as_to_dict_through_random_games_with_takebacks() -> None:
    rng = random.Random(7)
    for n, preset in enumerate(("classic", "new_edition", "classic", "new_edition")):
        game = Game.new(preset_info(preset).rules(), seed=n)
        enc = ViewEncoder()
        _check(enc, game)
        while not game.is_over():
            if game.ply > 3 and rng.random() < 0.08:  # take back 1-3 moves, then play others
                for _ in range(rng.randint(1, 3)):
                    game.pop()
                _check(enc, game)
            game.push(rng.choice(game.legal_moves()))
            _check(enc, game)
        assert game.view("spectator").all_shown  # the end was checked: everything shown
        game.pop()  # and back from the end: hidden again
        _check(enc, game)


def test_views_of_other_games_and_copies_are_never_mixed_up() -> None:
    rng = random.Random(3)
    rules = preset_info("classic").rules()
    a, b = Game.new(rules, seed=1), Game.new(rules, seed=2)
    enc = ViewEncoder()
    for _ in range(40):
        for game in (a, b):
            if not game.is_over():
                game.push(rng.choice(game.legal_moves()))
            _check(enc, game)
    c = a.copy()
    for _ in range(10):  # the copy and the original diverge from a shared history
        for game in (a, c):
            if not game.is_over():
                game.push(rng.choice(game.legal_moves()))
            _check(enc, game)
    # and the text parses to the view's dict, hidden stations hidden
    view = c.view("spectator")
    assert orjson.loads(enc.text(view)) == orjson.loads(frame_text(view.to_dict()))
    if not c.is_over():
        assert view.mr_x_station is None or view.mr_x_station == c.log[-1].station


def test_the_views_of_a_position_share_its_tickets_and_takebacks_and_copies_get_their_own() -> None:
    from scotlandyard.move import TICKET_NAMES

    def fresh(game: Game) -> dict[str, dict[str, int | None]]:
        return {p: {TICKET_NAMES[t]: c for t, c in game.tickets(p).items()} for p in game.pieces}

    rng = random.Random(11)
    for n, preset in enumerate(("classic", "new_edition_2p")):
        game = Game.new(preset_info(preset).rules(), seed=n)
        copy = None
        while not game.is_over():
            if game.ply > 3 and rng.random() < 0.1:
                game.pop()
            else:
                game.push(rng.choice(game.legal_moves()))
            if copy is None and game.ply == 10:
                copy = game.copy()
                copy.push(rng.choice(copy.legal_moves()))  # diverges from the original
                assert {p: dict(t) for p, t in copy.view("X").tickets.items()} == fresh(copy)
            views = [game.view(key) for key in _keys(game)]
            assert all(v.tickets is views[0].tickets for v in views)  # built once a position
            for v in views:
                assert {p: dict(t) for p, t in v.tickets.items()} == fresh(game), game.ply


def test_a_game_whose_views_were_built_pickles_and_its_views_are_unchanged() -> None:
    """The shared tickets (read-only mappings) are left out of a pickled game's view cache and
    rebuilt on first use (OpenSpiel serializes and clones states by pickling)."""
    import pickle
    import random as _random

    from scotlandyard import Game, Rules

    game = Game.new(Rules.classic(), seed=11)
    rng = _random.Random(5)
    for _ in range(12):
        game.push(rng.choice(game.legal_moves()))
    before = {p: game.view(p).to_dict() for p in ("X", "D1", "spectator")}
    clone = pickle.loads(pickle.dumps(game))
    assert {p: clone.view(p).to_dict() for p in ("X", "D1", "spectator")} == before
    move = rng.choice(clone.legal_moves())
    clone.push(move)
    game.push(move)
    assert clone.view("D1").to_dict() == game.view("D1").to_dict()
