"""A view's JSON text, encoded piece by piece and kept between moves (:class:`ViewEncoder`).

A ``state`` frame carries the whole public history and Mr X's log, which grow by a move or
a slot each ply: encoding the whole ``PlayerView.to_dict()`` again for every move and view
was the largest part of the server's JSON work, for text that is the same as the last
move's but for its end. The views themselves are the core's (``game.view``): this module
only turns what a view holds into the text of ``frame_text(view.to_dict())``, byte for byte
(``tests/test_server_viewtext.py`` checks it over random games, takebacks and ends), and
keeps the encoded history entries and log slots of the views it saw.

Reuse is by identity: the core builds each public history entry and log slot once per game
and kind of viewer and hands the same (immutable) objects to every later view of that
history, so an item that *is* the one encoded last time has the same text. Anything else
(a takeback, the end of the game, when every hidden station is shown) is encoded afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import is_
from typing import Any

import orjson

from ..move import TICKET_NAMES
from ..view import LogSlot, PlayerView, PublicMove
from .protocol import frame_text


def _history_item(h: PublicMove) -> bytes:
    return orjson.dumps({"piece": h.piece, "round": h.round, "move": h.notation})


def _log_item(e: LogSlot) -> bytes:
    return orjson.dumps({"slot": e.slot, "round": e.round, "ticket": TICKET_NAMES[e.ticket],
                         "station": e.station, "reveal": e.reveal, "double": e.double,
                         "voluntary": e.voluntary})


class _Array:
    """The JSON array text of the last sequence seen, and its items' texts."""

    __slots__ = ("items", "texts", "joined")

    def __init__(self) -> None:
        self.items: list[object] = []
        self.texts: list[bytes] = []
        self.joined = b"[]"

    def text(self, seq: Sequence[Any], encode: Callable[[Any], bytes]) -> bytes:
        """The array text of ``seq``: items that are the same objects, in the same places, as
        last time keep their text; the rest are encoded."""
        items = self.items
        n = len(items)
        if len(seq) >= n and all(map(is_, seq, items)):  # the same items, perhaps more
            if len(seq) == n:
                return self.joined
            same = n
        else:  # something changed (a takeback, the end): keep the common prefix
            same = 0
            for a, b in zip(seq, items, strict=False):
                if a is not b:
                    break
                same += 1
            del items[same:]
            del self.texts[same:]
        for item in seq[same:]:
            items.append(item)
            self.texts.append(encode(item))
        self.joined = b"[" + b",".join(self.texts) + b"]"
        return self.joined


class ViewEncoder:
    """Turns one game's views into their JSON text (``frame_text(view.to_dict())``), reusing
    the text of the history entries and log slots it encoded before."""

    __slots__ = ("_rules", "_arrays", "_tickets", "_possible")

    def __init__(self) -> None:
        """An empty encoder (one per room)."""
        self._rules: tuple[object, bytes] | None = None
        # the tickets of the last view (the same for every viewer of a position) and their
        # text; where Mr X may be (a frozenset the core shares between the views of a
        # position) and its sorted list's text
        self._tickets: tuple[Mapping[str, Mapping[str, int | None]],
                             dict[str, dict[str, int | None]], bytes] | None = None
        self._possible: tuple[frozenset[int], bytes] | None = None
        # (shows Mr X's hidden stations, history or log) -> the last array of that kind
        self._arrays: dict[tuple[bool, bool], _Array] = {}

    def _array(self, knows: bool, history: bool) -> _Array:
        arr = self._arrays.get((knows, history))
        if arr is None:
            arr = self._arrays[(knows, history)] = _Array()
        return arr

    def text(self, view: PlayerView) -> str:
        """The view's JSON text, the same as ``frame_text(view.to_dict())``."""
        try:
            return self._text(view)
        except TypeError:  # what orjson refuses: the general path says the same or raises
            return frame_text(view.to_dict())

    def _text(self, view: PlayerView) -> str:
        rules = self._rules
        if rules is None or rules[0] is not view.rules:
            rules = self._rules = (view.rules, orjson.dumps(view.rules.to_dict()))
        knows = view.side == "mr_x" or view.all_shown
        log = self._array(knows, False).text(view.log, _log_item)
        history = self._array(knows, True).text(view.history, _history_item)
        out = view.outcome
        tickets = self._tickets
        if tickets is None or (tickets[0] is not view.tickets  # (the views of a position
                               and tickets[1] != view.tickets):  # share it; else by content)
            plain = {p: dict(t) for p, t in view.tickets.items()}
            tickets = self._tickets = (view.tickets, plain, orjson.dumps(plain))
        possible = self._possible
        if possible is None or possible[0] is not view.possible:
            possible = self._possible = (view.possible, orjson.dumps(sorted(view.possible)))
        head = orjson.dumps({"viewer": view.viewer, "side": view.side})
        middle = orjson.dumps({
            "round": view.round,
            "to_move": view.to_move,
            "pieces_to_move": list(view.pieces_to_move),
            "stations": dict(view.stations),
            "mr_x_station": view.mr_x_station,
        })
        start = orjson.dumps(dict(view.start))
        tail = orjson.dumps({
            "legal_moves": [m.notation() for m in view.legal_moves],
            "pending_take": view.pending_take,
            "outcome": None if out is None else out.to_dict(),
            "all_shown": view.all_shown,
        })
        return b"".join((head[:-1], b',"rules":', rules[1], b",", middle[1:-1], b',"tickets":',
                         tickets[2], b',"log":', log, b',"history":', history, b',"start":',
                         start, b',"possible":', possible[1], b",", tail[1:])).decode()
