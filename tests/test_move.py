"""The notation: moves print and parse in one module (DESIGN.md)."""

from __future__ import annotations

import pytest

from scotlandyard import Move, NotationError, Ticket
from scotlandyard.move import parse_hidden


@pytest.mark.parametrize("text", ["T92", "B58", "U46", "K115", "B58+K74", "pass", "D2:T92", "P1:B58",
                                  "T92!", "take:D1:B", "D3:pass", "K157+K194"])
def test_notation_round_trip(text: str) -> None:
    m = Move.parse(text)
    assert m.notation() == text
    assert str(Move.parse(str(m))) == text


def test_parse_is_lenient_on_case_and_spaces() -> None:
    assert Move.parse(" t92 ") == Move.parse("T92")
    assert Move.parse("b58 + k74") == Move.parse("B58+K74")
    assert Move.parse("PASS").is_pass
    assert Move.parse("d2:t92").piece == "D2"


def test_move_fields() -> None:
    m = Move.parse("B58+K74")
    assert m.is_double and not m.is_pass
    assert m.steps == ((Ticket.BUS, 58), (Ticket.BLACK, 74))
    assert m.destination == 74
    assert Move.parse("T92").steps == ((Ticket.TAXI, 92),)
    assert Move.parse("pass").steps == ()
    t = Move.parse("take:D1:U")
    assert t.is_take and t.take_from == "D1" and t.ticket == Ticket.UNDERGROUND


def test_moves_are_interned_values() -> None:
    assert Move.parse("T92") is Move.single(Ticket.TAXI, 92)
    assert Move.parse("B58+K74") is Move.double(Ticket.BUS, 58, Ticket.BLACK, 74)
    assert Move.parse("T58") != Move.parse("B58")  # R-MOVE-1: different lines are different moves
    assert Move.parse("K58") != Move.parse("T58")


def test_hidden_form() -> None:
    assert Move.parse("T92").hidden() == "T?"
    assert Move.parse("B58+K74").hidden((True, False)) == "B58+K?"
    assert Move.parse("B58+K74").hidden((False, False)) == "B?+K?"
    assert parse_hidden("B58+K?") == ((Ticket.BUS, 58), (Ticket.BLACK, None))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move"),
        ("X92", "ticket letter T, B, U or K"),
        ("T", "cannot read"),
        ("T0", "no station 0"),
        ("T200", "no station 200"),
        ("T1+T2+T3", "two steps"),
        ("T?", "hidden move"),
        ("Q9:T92", "unknown piece"),
        ("take:D1:K", "taxi, bus or underground"),
        ("take:X:T", "names a detective"),
        ("B58+K74!", "single move"),
        ("T92" * 20, "too long"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Move.parse(text)


def test_parse_rejects_non_text() -> None:
    with pytest.raises(NotationError, match="text"):
        Move.parse(92)  # type: ignore[arg-type]


def test_move_kinds_are_classes_with_a_kind_tag() -> None:
    from scotlandyard.move import DoubleMove, PassMove, SingleMove, TakeMove
    cases = {"T92": (SingleMove, "single"), "T92!": (SingleMove, "single"),
             "B58+K74": (DoubleMove, "double"), "pass": (PassMove, "pass"),
             "D2:pass": (PassMove, "pass"), "take:D1:B": (TakeMove, "take")}
    for text, (cls, kind) in cases.items():
        m = Move.parse(text)
        assert type(m) is cls and m.kind == kind and isinstance(m, Move), text
    single = Move.parse("D2:T92")
    assert isinstance(single, SingleMove)
    assert (single.ticket, single.to, single.piece, single.reveal) == (Ticket.TAXI, 92, "D2", False)
    # the fields a kind lacks read as None (or False) on every move
    assert (single.ticket2, single.to2, single.take_from) == (None, None, None)
    p = Move.parse("pass")
    assert (p.ticket, p.to, p.destination, p.reveal, p.steps) == (None, None, None, False, ())
    t = Move.parse("take:D1:B")
    assert (t.to, t.destination, t.steps) == (None, None, ())
    assert Move.parse("T92!").reveal and Move.parse("T92!") != Move.parse("T92")


def test_moves_of_different_kinds_never_compare_equal() -> None:
    moves = [Move.parse(x) for x in ("T92", "T92!", "D1:T92", "B58+K74", "pass", "D1:pass",
                                     "take:D1:B")]
    assert len(set(moves)) == len(moves)
    assert Move.parse("D1:T92").with_piece(None) is Move.parse("T92")
    assert Move.parse("B58+K74").with_piece("X").notation() == "X:B58+K74"


def test_the_base_class_is_not_a_move() -> None:
    with pytest.raises(TypeError, match="Move.single"):
        Move()


def test_moves_pickle_to_equal_moves_of_their_kind() -> None:
    import pickle
    for text in ("T92", "D2:T92", "T92!", "B58+K74", "pass", "P1:pass", "take:D1:U"):
        m = Move.parse(text)
        back = pickle.loads(pickle.dumps(m))
        assert back == m and type(back) is type(m) and back.notation() == text


def test_repr_names_the_kind_and_the_notation() -> None:
    assert repr(Move.parse("D2:T92")) == "SingleMove('D2:T92')"
    assert repr(Move.parse("B58+K74")) == "DoubleMove('B58+K74')"
