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
