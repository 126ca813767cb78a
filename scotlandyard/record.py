"""Game records: write, read, check and replay whole games (text and JSON).

A record holds the rules (the preset's name and every setting), the players, the start
stations, the date, event and seed, the result and the moves. Two formats carry the same
facts:

- **text**, PGN-like, pleasant to read and to diff::

      [Event "Friday club"]
      [Date "2025-06-01"]
      [Rules "classic"]
      [Visibility "full"]
      [Result "detectives"]
      ...
      [Setting detective_tickets "10 8 4"]

      1. X: T45  D1: B58  D2: T92  D3: pass
      2. X: B58+K74  D1: T57 ...
      ; Detectives won in round 9: D3 caught Mr X.

- **JSON**, for programs (``{"format": "scotlandyard-record", "version": 1, ...}``).

:meth:`Record.parse` tells them apart by content. :meth:`Record.replay` replays the moves
through :meth:`Game.push <scotlandyard.game.Game.push>`, so a record is exactly as legal as
the core says; every problem is a :class:`RecordError` naming the move (ply and round) and the
rule that was broken.

:meth:`Record.public` is the record as the detectives know it: Mr X's moves in hidden
notation (``T?``, ``B58+K?``; stations kept at reveal slots), no Mr X start station, no seed
(the seed would give away the start). A public record cannot be replayed, but
:meth:`Record.check` proves it consistent (some path of Mr X fits every public fact) and
:meth:`Record.reconstruct` draws such a path uniformly at random.

>>> from scotlandyard import Game, Rules
>>> game = Game.new(Rules.classic(), seed=7)
>>> game.push(game.legal_moves()[0])
>>> record = Record.from_game(game, players={"X": "alice"}, date="2025-06-01")
>>> Record.parse(record.to_text()).replay().moves == game.moves
True
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .belief import PathFilter
from .board import london
from .game import Game, GameError, Outcome, Reason, Winner
from .move import MR_X, Move, NotationError, is_piece_id, parse_hidden
from .rules import PRESET_TABLE, Preset, Rules, RulesError, preset_info

__all__ = ["FORMAT", "VERSION", "Record", "RecordError", "RecordMove", "closest_preset",
           "printable"]

FORMAT = "scotlandyard-record"
VERSION = 1

_WINNERS = tuple(w.value for w in Winner)
_REASONS = tuple(r.value for r in Reason)


MAX_RECORD_BYTES = 1 << 20
"""The largest record file read (a 24-round game with comments is a few KB)."""
MAX_RECORD_CHARS = MAX_RECORD_BYTES
MAX_JSON_DEPTH = 8
"""The deepest JSON nesting a record has is 3 (``rules`` -> a list); more is refused."""
MAX_NUMBER_DIGITS = 20
"""The longest number in a record: a seed (< 2**64: the arena's seeds are 64-bit, up to 20
digits); stations and rounds are short."""
_LONG_NUMBER = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}")
QUOTE_LIMIT = 80
"""The most characters of its input an error quotes (then ``...``): a line of 500,000
characters is named by its start, not echoed back whole."""
MESSAGE_LIMIT = 600
"""The longest error message (then ``...``), whatever an inner check quoted."""


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                      "\u2066-\u2069]")
_CONTROL_NL = re.compile("[\x0a" + _CONTROL.pattern[1:])


def printable(text: str, *, newlines: bool = False) -> str:
    """``text`` from a record (a header, a player's name) made safe to print to a terminal:
    every control character (ESC and the rest of C0, DEL, C1 such as CSI, and the bidi
    embeddings, overrides and isolates) is dropped, so a header cannot move the cursor, clear
    the screen or reorder what is shown; a tab or (unless ``newlines``) a line break becomes a
    space first."""
    text = text.replace("\t", " ")
    if not newlines:
        text = text.replace("\r\n", " ").replace("\n", " ")
        return _CONTROL_NL.sub("", text)
    return _CONTROL.sub("", text)


def _q(value: Any) -> str:
    """``repr(value)`` for an error message, cut after :data:`QUOTE_LIMIT` characters."""
    if isinstance(value, str) and len(value) > QUOTE_LIMIT:
        return repr(value[:QUOTE_LIMIT]) + "..."
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT + 2 else text[:QUOTE_LIMIT] + "..."


def _cut(text: str) -> str:
    """``text`` from the input, unquoted, cut after :data:`QUOTE_LIMIT` characters (without
    its control characters: :func:`printable`)."""
    text = printable(text)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "..."


def _names(names: Iterable[Any], most: int = 12) -> str:
    """Names from the input, comma separated for an error message: each cut as :func:`_q`
    cuts, and at most ``most`` of them (then how many more)."""
    items = list(names)
    out = [n if isinstance(n, str) and len(n) <= QUOTE_LIMIT and n.isprintable() else _q(n)
           for n in items[:most]]
    if len(items) > most:
        out.append(f"and {len(items) - most:,} more")
    return ", ".join(out)


def _json_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text`` (brackets in strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _check_start(start: Any, rules: Any) -> None:
    """Start stations must be on the record's board before anything is built from them."""
    if not isinstance(start, dict):
        return
    board = rules.get("board", "classic") if isinstance(rules, dict) else "classic"
    top = 199 if board not in ("classic", "2014") else london(board).stations
    for piece, st in start.items():
        if isinstance(st, bool) or not isinstance(st, int) or not 1 <= st <= top:
            raise RecordError(f"start: {str(piece)[:10]} stands on {str(st)[:25]!r}, not a "
                              f"station of the board (1..{top})")


class RecordError(ValueError):
    """A record that cannot be read, or whose moves, result or facts the rules reject.

    The message says where (``line 12``, ``move 14 (round 3, D2)``) and why; ``ply``,
    ``round``, ``piece`` and ``line`` hold the same facts for programs (``None`` if unknown).
    """

    def __init__(self, message: str, *, ply: int | None = None, round: int | None = None,
                 piece: str | None = None, line: int | None = None) -> None:
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + "..."
        super().__init__(message)
        self.ply = ply
        self.round = round
        self.piece = piece
        self.line = line


@dataclass(frozen=True, slots=True)
class RecordMove:
    """One move of a record: the piece that moved, the move in notation without a piece
    prefix (Mr X's in hidden form ``T?`` / ``B58+K?`` in a public record), and its round."""

    piece: str
    move: str
    round: int
    line: int | None = field(default=None, compare=False, repr=False)  # in the file read

    @property
    def is_hidden(self) -> bool:
        """True when the move hides a station (``?``)."""
        return "?" in self.move

    def __str__(self) -> str:
        return f"{self.piece}: {self.move}"


# ---- rule settings as text ------------------------------------------------------------------------

SettingKind = Literal["str", "int", "bool", "ints", "ints?"]


def _setting_kinds() -> dict[str, SettingKind]:
    """How each :class:`Rules` setting is written as text, from the field's declared type (so a
    setting added to ``Rules`` later is handled without a change here)."""
    kinds: dict[str, SettingKind] = {}
    for f in dataclasses.fields(Rules):
        t = str(f.type)
        if "tuple" in t or "TicketCounts" in t:
            kinds[f.name] = "ints?" if "None" in t else "ints"
        elif t == "bool":
            kinds[f.name] = "bool"
        elif t == "int":
            kinds[f.name] = "int"
        else:
            kinds[f.name] = "str"
    return kinds


SETTING_KINDS = _setting_kinds()


def _encode_setting(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return " ".join(str(v) for v in value)
    return str(value)


def _decode_setting(name: str, kind: SettingKind, text: str) -> Any:
    """The value of setting ``name`` written as ``text``; raises ``ValueError`` saying why."""
    t = text.strip()
    if kind == "str":
        return t
    if kind == "bool":
        if t.lower() in ("true", "yes", "1"):
            return True
        if t.lower() in ("false", "no", "0"):
            return False
        raise ValueError(f"{name} is true or false, not {_q(text)}")
    if kind == "int":
        if not re.fullmatch(r"-?\d+", t):
            raise ValueError(f"{name} is a whole number, not {_q(text)}")
        return int(t)
    if kind == "ints?" and t.lower() in ("none", "-"):
        return None
    parts = t.replace(",", " ").split()
    if not all(re.fullmatch(r"-?\d+", p) for p in parts):
        raise ValueError(f"{name} is a list of whole numbers separated by spaces, not "
                         f"{_q(text)}")
    return tuple(int(p) for p in parts)


def _preset_rules(preset: Preset, detectives: int) -> Rules:
    """``preset``'s rules with ``detectives`` detectives where it allows them, else its own."""
    lo, hi, _ = preset.detectives
    return preset.rules(detectives if lo <= detectives <= hi else None)


def closest_preset(rules: Rules) -> str:
    """The name of the preset of :data:`~scotlandyard.rules.PRESET_TABLE` that ``rules``
    differ least from (the first in the table on a tie): a record's ``Rules`` header. The
    settings themselves are always written in full, so the name is a reader's guide, not a
    source of truth."""
    mine = rules.to_dict()
    best: tuple[int, str] | None = None
    for preset in PRESET_TABLE:
        base = _preset_rules(preset, rules.detectives)
        if base.edition != rules.edition:
            continue
        theirs = base.to_dict()
        diff = sum(1 for k in mine if mine[k] != theirs.get(k))
        if best is None or diff < best[0]:
            best = (diff, preset.name)
    return best[1] if best else rules.edition


def _rules_from(preset: str | None, settings: Mapping[str, Any]) -> Rules:
    """Rules from a preset name and settings (settings win; missing ones come from the preset)."""
    unknown = sorted(set(settings) - set(SETTING_KINDS))
    if unknown:
        raise RecordError(f"unknown rule setting(s): {_names(unknown)} "
                          f"(known: {', '.join(SETTING_KINDS)})")
    try:
        if preset is None:
            preset = "new_edition" if settings.get("edition") == "new_edition" else "classic"
        try:
            info = preset_info(preset)
        except RulesError:
            raise RecordError(f"unknown rules preset {_q(preset)} ({', '.join(Rules.PRESETS)})") \
                from None
        det = settings.get("detectives")
        base = _preset_rules(info, det if isinstance(det, int) and not isinstance(det, bool)
                             and 1 <= det <= 5 else info.detectives[2])
        merged = {**base.to_dict(), **settings}
        return Rules.from_dict(merged)
    except (RulesError, TypeError) as exc:
        raise RecordError(f"rules: {exc}") from None


# ---- the record ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """A game record: the facts needed to replay a game, and to tell people about it.

    ``hidden`` is True for a public record (Mr X's hidden stations, his start and the seed
    removed). ``start_anywhere`` is True when Mr X's start was set by hand outside his start
    deck, so a public record's reader must allow any free start station (R-BELIEF).
    Build one with :meth:`from_game` or :meth:`parse` / :meth:`load`.
    """

    rules: Rules
    start: Mapping[str, int]
    moves: tuple[RecordMove, ...]
    players: Mapping[str, str] = field(default_factory=dict)
    preset: str = "classic"
    event: str | None = None
    date: str | None = None
    seed: int | None = None
    result: Outcome | None = None
    hidden: bool = False
    tags: Mapping[str, str] = field(default_factory=dict)
    start_anywhere: bool = False

    # ---- making records ----------------------------------------------------------------------------
    @classmethod
    def from_game(cls, game: Game, players: Mapping[str, str] | None = None,
                  event: str | None = None, *, date: str | None = None,
                  tags: Mapping[str, str] | None = None) -> Record:
        """The full record of ``game`` so far (every move, Mr X's true stations included).

        ``players`` maps pieces to names (``{"X": "alice", "D1": "bob"}``); ``date`` defaults
        to today (ISO); ``tags`` are extra text headers (``{"Site": "club"}``).
        """
        _check_whole_game(game)
        moves = tuple(RecordMove(piece, _plain(move), rnd)
                      for (piece, move), rnd in zip(game.moves, _rounds(game), strict=True))
        rec = cls(
            rules=game.rules,
            start=dict(game.start),
            moves=moves,
            players=dict(players or {}),
            preset=closest_preset(game.rules),
            event=event,
            date=date if date is not None else _dt.date.today().isoformat(),
            seed=game.seed,
            result=game.outcome(),
            hidden=False,
            tags=dict(tags or {}),
            start_anywhere=game.start[MR_X] not in game.rules.start_deck_mr_x,
        )
        rec._validate_meta()
        return rec

    def public(self, reveal_finished: bool | None = None) -> Record:
        """The record as the detectives know it: Mr X's moves in hidden notation (stations
        kept at reveal slots), no Mr X start, no seed.

        ``reveal_finished`` (default: True when the game is over) shows everything of a
        finished game, as Mr X opens his log at the end; the result is then a full record.
        """
        if self.hidden:
            return self
        game = self.replay()
        if reveal_finished is None:
            reveal_finished = game.is_over()
        if reveal_finished and game.is_over():
            return self
        return dataclasses.replace(self, **_public_parts(game))

    # ---- replaying and checking ---------------------------------------------------------------------
    def replay(self) -> Game:
        """The game of this record, every move pushed through the core.

        Raises :class:`RecordError` naming the move (ply, round, piece) and the rule for an
        illegal or malformed move, a bad start, or a result the moves do not give. A public
        record cannot be replayed (see :meth:`check` and :meth:`reconstruct`).
        """
        if self.hidden:
            raise RecordError("public record: Mr X's stations are hidden, so it cannot be "
                              "replayed; check() tests it against the public facts and "
                              "reconstruct() fills in one possible path")
        game = self._new_game(dict(self.start))
        _play(game, self.moves)
        self._check_result(game)
        return game

    def check(self) -> str:
        """Validate the record and return a one-line summary; raises :class:`RecordError`.

        A full record is replayed; a public record is checked against the public facts:
        the detectives' moves through the core, Mr X's hidden moves by the possible-location
        rules (R-BELIEF): some path of Mr X must fit every ticket, reveal and the result.
        """
        if self.hidden:
            game = self.reconstruct(random.Random(0))
            n = len(game.possible_locations())
            possible = "" if game.is_over() else (
                f"; Mr X may be on {n} station{'' if n == 1 else 's'}")
            kind = "public record (Mr X hidden), consistent"
        else:
            game = self.replay()
            possible = ""
            kind = "full record"
        out = game.outcome()
        end = out.describe() if out is not None else (
            f"unfinished, round {game.round}, {game.to_move} to move")
        return (f"{kind}: {self.preset} rules, {self.rules.detectives} detectives"
                f"{f' + {self.rules.police} police' if self.rules.police else ''}, "
                f"{len(self.moves)} moves; {end}{possible}")

    def reconstruct(self, rng: random.Random | None = None) -> Game:
        """A full game that fits this record. For a full record, :meth:`replay`; for a
        public one, Mr X's hidden stations are filled in with a path drawn uniformly among all
        paths that fit the public facts (tickets, reveals, the detectives' moves, the result).

        Useful for research (sampling what Mr X may have done) and as the consistency proof
        behind :meth:`check`. Raises :class:`RecordError` when no path fits.
        """
        if not self.hidden:
            return self.replay()
        rng = rng or random.Random()
        board = london(self.rules.board)
        hunters = {p: s for p, s in self.start.items() if p != MR_X}
        if MR_X in self.start:
            weights = {self.start[MR_X]: 1}
        else:
            occupied = set(hunters.values())
            deck = self.rules.start_deck_mr_x
            if self.start_anywhere or not deck:
                deck = tuple(board.all_stations)  # R-BELIEF: a start set by hand
            weights = {s: 1 for s in deck if s not in occupied}
        return self._reconstruct_from(weights, hunters, rng)

    # ---- formats --------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (the JSON format)."""
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        out["event"] = self.event
        out["date"] = self.date
        out["preset"] = self.preset
        out["visibility"] = "public" if self.hidden else "full"
        out["seed"] = self.seed
        out["result"] = None if self.result is None else {
            "winner": self.result.winner, "reason": self.result.reason,
            "round": self.result.round, "piece": self.result.piece}
        out["players"] = dict(self.players)
        out["start"] = dict(self.start)
        out["tags"] = dict(self.tags)
        out["mr_x_start"] = "anywhere" if self.start_anywhere else "deck"
        out["rules"] = self.rules.to_dict()
        out["moves"] = [{"round": m.round, "piece": m.piece, "move": m.move} for m in self.moves]
        return out

    def to_json(self) -> str:
        """The record as JSON text: one key a line, one move a line (easy to diff)."""
        return _pretty_json(self.to_dict()) + "\n"

    def to_text(self) -> str:
        """The record in the text format (headers, then one line per round)."""
        lines: list[str] = []

        def header(key: str, value: Any, name: str | None = None) -> None:
            mid = f" {name}" if name is not None else ""
            lines.append(f"[{key}{mid} \"{_escape(str(value))}\"]")

        if self.event is not None:
            header("Event", self.event)
        if self.date is not None:
            header("Date", self.date)
        header("Rules", self.preset)
        header("Visibility", "public" if self.hidden else "full")
        if self.start_anywhere:
            header("MrXStart", "anywhere")
        if self.seed is not None:
            header("Seed", self.seed)
        res = self.result
        header("Result", res.winner if res else "*")
        if res is not None:
            header("Reason", res.reason)
            header("EndRound", res.round)
            if res.piece is not None:
                header("CaughtBy", res.piece)
        for key, value in self.tags.items():
            header(key, value)
        for piece, name in self.players.items():
            header("Player", name, piece)
        for piece in self.rules.pieces:
            if piece in self.start:
                header("Start", self.start[piece], piece)
        for name, value in self.rules.to_dict().items():
            header("Setting", _encode_setting(value), name)
        lines.append("")
        rows: dict[int, list[str]] = {}
        for m in self.moves:
            rows.setdefault(m.round, []).append(f"{m.piece}: {m.move}")
        lines.extend(f"{rnd}. " + "  ".join(row) for rnd, row in rows.items())
        lines.append(f"; {res.describe()}" if res else "; unfinished")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def parse(cls, text: str) -> Record:
        """Read a record in either format (JSON if it starts with ``{``, else text).

        Hostile input gets a :class:`RecordError` before any work that grows with it: at
        most :data:`MAX_RECORD_CHARS` characters, JSON nested at most
        :data:`MAX_JSON_DEPTH` deep, no number longer than :data:`MAX_NUMBER_DIGITS` digits,
        and start stations on the board."""
        if not isinstance(text, str):
            raise RecordError(f"a record is text, not {type(text).__name__}")
        if len(text) > MAX_RECORD_CHARS:
            raise RecordError(f"the record is {len(text):,} characters long; a record is at "
                              f"most {MAX_RECORD_CHARS:,} (a whole game is a few thousand)")
        long = _LONG_NUMBER.search(text)
        if long is not None:
            line = text.count("\n", 0, long.start()) + 1
            raise RecordError(f"line {line}: a number of {long.end() - long.start():,} digits; "
                              f"numbers in a record have at most {MAX_NUMBER_DIGITS}", line=line)
        if text.lstrip("\ufeff \t\r\n").startswith("{"):
            depth = _json_depth(text)
            if depth > MAX_JSON_DEPTH:
                raise RecordError(f"the JSON is nested {depth} deep; a record is at most "
                                  f"{MAX_JSON_DEPTH} deep")
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise RecordError(f"broken JSON: {exc.msg} at line {exc.lineno} column "
                                  f"{exc.colno}", line=exc.lineno) from None
            except (ValueError, RecursionError) as exc:
                raise RecordError(f"the JSON cannot be read: {exc}") from None
            if isinstance(data, dict):
                _check_start(data.get("start"), data.get("rules"))
            return cls.from_dict(data)
        return _parse_text(text)

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """Read the JSON format's object (see :meth:`to_dict`), checking every field."""
        if not isinstance(data, dict):
            raise RecordError("a JSON record is an object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a game record: \"format\" must be {FORMAT!r}")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) \
                or not 1 <= version <= VERSION:
            raise RecordError(f"unsupported record version {_q(version)} (this reads "
                              f"1..{VERSION})")
        known = {"format", "version", "event", "date", "preset", "visibility", "seed",
                 "result", "players", "start", "tags", "rules", "moves", "mr_x_start"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RecordError(f"unknown field(s) in JSON record: {_names(unknown)}")
        rules_data = data.get("rules")
        if not isinstance(rules_data, dict):
            raise RecordError("\"rules\" must be an object of rule settings")
        preset = _opt_str(data, "preset")
        rules = _rules_from(preset, {k: tuple(v) if isinstance(v, list) else v
                                     for k, v in rules_data.items()})
        visibility = data.get("visibility", "full")
        if visibility not in ("full", "public"):
            raise RecordError(f"\"visibility\" is \"full\" or \"public\", not {_q(visibility)}")
        seed = data.get("seed")
        if seed is not None and not _is_int(seed):
            raise RecordError(f"\"seed\" is a whole number or null, not {_q(seed)}")
        result = data.get("result")
        outcome = None
        if result is not None:
            if not isinstance(result, dict):
                raise RecordError("\"result\" is an object (winner, reason, round, piece) or null")
            outcome = _outcome(result.get("winner"), result.get("reason"), result.get("round"),
                               result.get("piece"))
        players = _str_map(data.get("players", {}), "players")
        start_raw = data.get("start", {})
        if not isinstance(start_raw, dict) or not all(_is_int(v) for v in start_raw.values()):
            raise RecordError("\"start\" maps pieces to station numbers")
        moves_raw = data.get("moves")
        if not isinstance(moves_raw, list):
            raise RecordError("\"moves\" must be a list")
        moves: list[tuple[int, str, str, int | None]] = []
        for i, m in enumerate(moves_raw, 1):
            if not isinstance(m, dict) or set(m) != {"round", "piece", "move"}:
                raise RecordError(f"move {i}: each move is an object with round, piece and move",
                                  ply=i)
            if not _is_int(m["round"]) or not isinstance(m["piece"], str) \
                    or not isinstance(m["move"], str):
                raise RecordError(f"move {i}: round is a whole number, piece and move are text",
                                  ply=i)
            moves.append((m["round"], m["piece"], m["move"], None))
        mr_x_start = data.get("mr_x_start", "deck")
        if mr_x_start not in ("deck", "anywhere"):
            raise RecordError(f"\"mr_x_start\" is \"deck\" or \"anywhere\", not {_q(mr_x_start)}")
        return _build(rules=rules, preset=preset, hidden=visibility == "public",
                      start_anywhere=mr_x_start == "anywhere",
                      event=_opt_str(data, "event"), date=_opt_str(data, "date"), seed=seed,
                      result=outcome, players=players, start=dict(start_raw),
                      tags=_str_map(data.get("tags", {}), "tags"), raw_moves=moves)

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record file (the format is told by its content); a file over
        :data:`MAX_RECORD_BYTES` is refused before it is read."""
        try:
            size = Path(path).stat().st_size
            if size > MAX_RECORD_BYTES:
                raise RecordError(f"{path} is {size:,} bytes; a record file is at most "
                                  f"{MAX_RECORD_BYTES:,} bytes (a whole game is a few KB)")
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise RecordError(f"cannot read {path}: not UTF-8 text") from None
        return cls.parse(text)

    def save(self, path: str | Path, format: Literal["text", "json"] | None = None) -> Path:
        """Write the record to ``path``: JSON for a ``.json`` name, text otherwise (or as
        ``format`` says). Returns the path."""
        p = Path(path)
        if format is None:
            format = "json" if p.suffix.lower() == ".json" else "text"
        if format not in ("text", "json"):
            raise ValueError(f"record format is text or json, not {format!r}")
        p.write_text(self.to_json() if format == "json" else self.to_text(), encoding="utf-8")
        return p

    # ---- internals --------------------------------------------------------------------------------------
    def _validate_meta(self) -> None:
        for piece in self.players:
            if piece not in self.rules.pieces:
                raise RecordError(f"players: these rules have no piece {_q(piece)} "
                                  f"(pieces: {', '.join(self.rules.pieces)})")
        if self.date is not None:
            try:
                _dt.datetime.fromisoformat(self.date)
            except ValueError:
                raise RecordError(f"date {_q(self.date)} is not an ISO date (e.g. 2025-06-01)") \
                    from None

    def _new_game(self, start: dict[str, int]) -> Game:
        try:
            if not start and self.seed is not None:
                return Game.new(self.rules, seed=self.seed)
            return Game.new(self.rules, seed=self.seed, start=start)
        except GameError as exc:
            raise RecordError(f"start: {exc}") from None

    def _check_result(self, game: Game) -> None:
        got = game.outcome()
        if got == self.result:
            return
        said = self.result.describe() if self.result else "the game is unfinished"
        gave = got.describe() if got else (
            f"the game is not over (round {game.round}, {game.to_move} to move)")
        raise RecordError(f"result: the record says \"{said}\" but its moves give \"{gave}\"")

    def _reconstruct_from(self, weights: dict[int, int], hunters: dict[str, int],
                          rng: random.Random) -> Game:
        """The public moves through belief's :class:`~.belief.PathFilter`, then a game for
        each path it draws until one gives the record's result; see reconstruct."""
        filt = PathFilter(london(self.rules.board), weights, hunters)
        n = len(self.moves)
        caught_last = self.result is not None and self.result.reason == "caught"
        fail: int | None = None
        for i, rm in enumerate(self.moves):
            if rm.piece == MR_X:
                if rm.move.lower().startswith("take:"):
                    continue
                ok = filt.mr_x([(int(t), shown) for t, shown in parse_hidden(rm.move)])
            else:
                d = Move.parse(rm.move).destination
                if d is None:
                    continue
                ok = filt.hunter(rm.piece, d, caught=caught_last and i == n - 1)
            if not ok:
                fail = i
                break
        if fail is not None:
            # an earlier illegal detective move explains more than an empty belief does
            prefix = dataclasses.replace(self, moves=self.moves[:fail], result=None)
            try:
                prefix._reconstruct_from(weights, {p: s for p, s in self.start.items()
                                                  if p != MR_X}, rng)
            except RecordError as exc:
                if exc.ply is not None:
                    raise
            rm = self.moves[fail]
            raise RecordError(
                f"{_where(fail + 1, rm)}: no station of Mr X fits the public facts after this "
                "move (R-BELIEF: his tickets, the reveals and the detectives' stations leave no "
                "possible location)", ply=fail + 1, round=rm.round, piece=rm.piece, line=rm.line)
        last_error: RecordError | None = None
        for path in filt.paths(rng):
            game = self._new_game({**self.start, MR_X: path[0]})
            _play(game, self._filled(path[1:]))
            try:
                self._check_result(game)
            except RecordError as exc:
                last_error = exc
                continue
            self._check_public_form(game)
            return game
        assert last_error is not None
        raise last_error

    def _filled(self, stations: list[int]) -> tuple[RecordMove, ...]:
        """The moves with Mr X's hidden stations replaced by ``stations`` (one per step)."""
        it = iter(stations)
        out = []
        for rm in self.moves:
            if rm.piece == MR_X and not rm.move.lower().startswith("take:"):
                reveal = rm.move.endswith("!")
                parts = [f"{t.letter}{next(it)}" for t, _s in parse_hidden(rm.move)]
                out.append(RecordMove(MR_X, "+".join(parts) + ("!" if reveal else ""), rm.round,
                                      rm.line))
            else:
                out.append(rm)
        return tuple(out)

    def _check_public_form(self, game: Game) -> None:
        """A public record shows exactly the public facts: stations at reveal slots, ``?``
        elsewhere (anything else would be a leak, or a reveal left out)."""
        want = _public_parts(game)["moves"]
        slot = 0
        for i, (mine, theirs) in enumerate(zip(self.moves, want, strict=True), 1):
            if mine.piece != MR_X or mine.move.lower().startswith("take:"):
                continue
            steps = mine.move.rstrip("!").split("+")
            for got, ought in zip(steps, theirs.move.rstrip("!").split("+"), strict=True):
                slot += 1
                if got.endswith("?") == ought.endswith("?"):
                    continue
                why = (f"log slot {slot} is revealed, so a public record shows its station, "
                       f"not {got}") if got.endswith("?") else (
                       f"log slot {slot} is hidden, so a public record writes {got[0]}?, not {got}")
                raise RecordError(f"{_where(i, mine)}: {why}", ply=i, round=mine.round,
                                  piece=mine.piece, line=mine.line)


# ---- helpers -------------------------------------------------------------------------------------------


def _where(ply: int, rm: RecordMove) -> str:
    at = f"line {rm.line}, " if rm.line is not None else ""
    return f"{at}move {ply} (round {rm.round}, {_cut(rm.piece)})"


def _plain(move: Move) -> str:
    """The move's notation without a piece prefix (the record labels every move)."""
    return move.with_piece(None).notation()


def _rounds(game: Game) -> list[int]:
    """The round of each move of ``game``, from the views' public history."""
    return [h.round for h in game.view("spectator").history]


def _check_whole_game(game: Game) -> None:
    steps = sum(len(m.steps) for p, m in game.moves if p == MR_X)
    if steps != len(game.log):
        raise RecordError("this game does not start at its first move (made by "
                          "Game.from_view?), so it has no complete record")


def _public_parts(game: Game) -> dict[str, Any]:
    """The public form of ``game``'s record: its hidden moves, start and seed (see public),
    made from the spectator's view with Mr X's hidden facts removed (``PlayerView.public``):
    the one hidden-information filter."""
    view = game.view("spectator").public()
    moves = tuple(RecordMove(piece, h.notation if piece == MR_X and not move.is_take
                             else _plain(move), h.round)
                  for h, (piece, move) in zip(view.history, game.moves, strict=True))
    return {"moves": moves, "start": dict(view.start), "seed": None, "hidden": True}


def _has_prefix(text: str) -> bool:
    head = text.split(":", 1)[0]
    return ":" in text and is_piece_id(head)


def _move_error(ply: int, rm: RecordMove, why: str) -> RecordError:
    """The error for move ``ply`` of a record: where it is, then why."""
    return RecordError(f"{_where(ply, rm)}: {why}", ply=ply, round=rm.round, piece=rm.piece,
                       line=rm.line)


def _play(game: Game, moves: Iterable[RecordMove]) -> None:
    """Push every move through the core, checking its piece and round labels."""
    for i, rm in enumerate(moves, 1):
        out = game.outcome()
        if out is not None:
            raise _move_error(i, rm, f"the game is already over ({out.describe()})")
        try:
            move = Move.parse(rm.move)
        except NotationError as exc:
            raise _move_error(i, rm, str(exc)) from None
        if move.piece is not None and move.piece != rm.piece:
            raise _move_error(i, rm, f"the move names {move.piece} but is labelled {rm.piece}")
        if game.round != rm.round:
            raise _move_error(i, rm, f"labelled round {rm.round}, but the game is in round "
                              f"{game.round}")
        labelled = move.with_piece(rm.piece)
        why = game.why_illegal(labelled)
        if why is not None:
            raise _move_error(i, rm, why)
        # the core writes the piece into its moves only where the order is free
        free = game.side_to_move == "detectives" and game.rules.free_order
        game.push(labelled if free else move.with_piece(None))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    v = data.get(key)
    if v is not None and not isinstance(v, str):
        raise RecordError(f"\"{key}\" is text or null, not {_q(v)}")
    return v


def _str_map(v: Any, name: str) -> dict[str, str]:
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(x, str)
                                          for k, x in v.items()):
        raise RecordError(f"\"{name}\" maps names to text")
    return dict(v)


def _outcome(winner: Any, reason: Any, rnd: Any, piece: Any) -> Outcome:
    if winner not in _WINNERS:
        raise RecordError(f"result: winner is mr_x or detectives, not {_q(winner)}")
    if reason not in _REASONS:
        raise RecordError(f"result: reason is one of {', '.join(_REASONS)}, not {_q(reason)}")
    if not _is_int(rnd) or rnd < 1:
        raise RecordError(f"result: the end round is a whole number >= 1, not {_q(rnd)}")
    if piece is not None and not (isinstance(piece, str) and is_piece_id(piece)):
        raise RecordError(f"result: the capturing piece is a piece id, not {_q(piece)}")
    return Outcome(Winner(winner), Reason(reason), rnd, piece)


def _build(*, rules: Rules, preset: str | None, hidden: bool, start_anywhere: bool,
           event: str | None, date: str | None, seed: int | None, result: Outcome | None,
           players: dict[str, str],
           start: dict[str, int], tags: dict[str, str],
           raw_moves: list[tuple[int, str, str, int | None]]) -> Record:
    """Check and normalize what either format read into a :class:`Record`."""
    for p in start:
        if p not in rules.pieces:
            raise RecordError(f"start: these rules have no piece {_q(p)} "
                              f"(pieces: {', '.join(rules.pieces)})")
    moves: list[RecordMove] = []
    any_hidden = False
    last_round = 0
    for i, (rnd, piece, text, line) in enumerate(raw_moves, 1):
        here = RecordMove(piece, text, rnd, line)
        if piece not in rules.pieces:
            raise _move_error(i, here, f"these rules have no piece {_q(piece)} "
                              f"(pieces: {', '.join(rules.pieces)})")
        if rnd < last_round:
            raise _move_error(i, here, f"round {rnd} comes after round {last_round}")
        last_round = rnd
        body = text.strip()
        if _has_prefix(body):
            named, body = body.split(":", 1)
            if named.upper() != piece:
                raise _move_error(i, here, f"the move names {_q(named.upper())} but is labelled "
                                  f"{piece}")
        try:
            if piece == MR_X and "?" in body:
                any_hidden = True
                if len(body) > 40:  # as Move.parse: no log entry is longer
                    raise NotationError(f"move text too long ({len(body)} characters)")
                if body.endswith("!"):
                    raise NotationError("a voluntary reveal (!) shows its station")
                norm = "+".join(f"{t.letter}{'?' if s is None else s}"
                                for t, s in parse_hidden(body))
            else:
                mv = Move.parse(body)
                if mv.piece is not None:
                    raise NotationError(f"the move names {mv.piece} twice")
                norm = _plain(mv)
        except NotationError as exc:
            raise _move_error(i, here, str(exc)) from None
        moves.append(RecordMove(piece, norm, rnd, line))
    hidden = hidden or any_hidden
    rec = Record(rules=rules, start=start, moves=tuple(moves), players=players,
                 preset=preset or closest_preset(rules), event=event, date=date, seed=seed,
                 result=result, hidden=hidden, tags=tags, start_anywhere=start_anywhere)
    rec._validate_meta()
    return rec


# ---- the text format -------------------------------------------------------------------------------------

_HEADER = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)(?:\s+([A-Za-z0-9_]+))?\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_ROUND = re.compile(r"^(\d+)\.$")
_LABEL = re.compile(r"^([A-Za-z]\d?):(.*)$")
_SINGLE_KEYS = ("Event", "Date", "Rules", "Visibility", "MrXStart", "Seed", "Result", "Reason",
                "EndRound", "CaughtBy")


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def _parse_text(text: str) -> Record:
    lines = text.lstrip("\ufeff").splitlines()
    single: dict[str, tuple[str, int]] = {}
    settings: dict[str, Any] = {}
    players: dict[str, str] = {}
    start: dict[str, int] = {}
    tags: dict[str, str] = {}
    raw_moves: list[tuple[int, str, str, int | None]] = []
    in_moves = False
    current_round: int | None = None
    pending: tuple[str, int, int] | None = None  # a label waiting for its move: piece, line, round
    for n, raw in enumerate(lines, 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            if in_moves:
                raise RecordError(f"line {n}: a header after the moves", line=n)
            m = _HEADER.match(line)
            if not m:
                raise RecordError(f"line {n}: cannot read header {_q(line)} (write "
                                  '[Key "value"] or [Setting name "value"])', line=n)
            key, name, value = m.group(1), m.group(2), _unescape(m.group(3))
            if key in ("Setting", "Player", "Start"):
                if name is None:
                    raise RecordError(f"line {n}: [{key} ...] names a "
                                      f"{'setting' if key == 'Setting' else 'piece'}", line=n)
                if key == "Setting":
                    if name not in SETTING_KINDS:
                        raise RecordError(f"line {n}: unknown rule setting {_q(name)} (known: "
                                          f"{', '.join(SETTING_KINDS)})", line=n)
                    if name in settings:
                        raise RecordError(f"line {n}: setting {name} given twice", line=n)
                    try:
                        settings[name] = _decode_setting(name, SETTING_KINDS[name], value)
                    except ValueError as exc:
                        raise RecordError(f"line {n}: setting {exc}", line=n) from None
                elif key == "Player":
                    players[name.upper()] = value
                else:
                    if not re.fullmatch(r"\d+", value.strip()):
                        raise RecordError(f"line {n}: start station of {_cut(name)} is a number, not "
                                          f"{_q(value)}", line=n)
                    start[name.upper()] = int(value)
                continue
            if name is not None:
                raise RecordError(f"line {n}: cannot read header {_q(line)}", line=n)
            if key in _SINGLE_KEYS:
                if key in single:
                    raise RecordError(f"line {n}: header {key} given twice", line=n)
                single[key] = (value, n)
            else:
                tags[key] = value
            continue
        in_moves = True
        for token in line.split():
            if pending is not None:
                piece, _, rnd = pending
                raw_moves.append((rnd, piece, token, n))
                pending = None
                continue
            rm = _ROUND.match(token)
            if rm:
                current_round = int(rm.group(1))
                continue
            lm = _LABEL.match(token)
            if not lm:
                raise RecordError(f"line {n}: expected a round number like '3.' or a move like "
                                  f"'D1: T92', found {_q(token)}", line=n)
            if current_round is None:
                raise RecordError(f"line {n}: moves come after a round number like '1.'", line=n)
            piece = lm.group(1).upper()
            if lm.group(2):
                raw_moves.append((current_round, piece, lm.group(2), n))
            else:
                pending = (piece, n, current_round)
    if pending is not None:
        raise RecordError(f"line {pending[1]}: {pending[0]}: without a move (the file ends)",
                          line=pending[1])

    def get(key: str) -> tuple[str, int] | None:
        return single.get(key)

    def as_int(key: str) -> int | None:
        got = get(key)
        if got is None:
            return None
        if not re.fullmatch(r"-?\d+", got[0].strip()):
            raise RecordError(f"line {got[1]}: {key} is a whole number, not {_q(got[0])}",
                              line=got[1])
        return int(got[0])

    def header_value(key: str) -> str | None:
        got = get(key)
        return None if got is None else got[0]

    preset = header_value("Rules")
    rules = _rules_from(preset, settings)
    vis = get("Visibility")
    if vis is not None and vis[0] not in ("full", "public"):
        raise RecordError(f"line {vis[1]}: Visibility is full or public, not {_q(vis[0])}",
                          line=vis[1])
    outcome = None
    res = get("Result")
    if res is not None and res[0] != "*":
        reason = get("Reason")
        caught = get("CaughtBy")
        try:
            outcome = _outcome(res[0], reason[0] if reason else None, as_int("EndRound"),
                               caught[0] if caught else None)
        except RecordError as exc:
            raise RecordError(f"line {res[1]}: {exc}", line=res[1]) from None
    elif res is not None and any(get(k) for k in ("Reason", "EndRound", "CaughtBy")):
        raise RecordError(f"line {res[1]}: Result \"*\" (unfinished) has no Reason, EndRound "
                          "or CaughtBy", line=res[1])
    anywhere = get("MrXStart")
    if anywhere is not None and anywhere[0] not in ("deck", "anywhere"):
        raise RecordError(f"line {anywhere[1]}: MrXStart is deck or anywhere, not "
                          f"{_q(anywhere[0])}", line=anywhere[1])
    return _build(rules=rules, preset=preset, hidden=bool(vis and vis[0] == "public"),
                  start_anywhere=bool(anywhere and anywhere[0] == "anywhere"),
                  event=header_value("Event"), date=header_value("Date"),
                  seed=as_int("Seed"), result=outcome, players=players, start=start,
                  tags=tags, raw_moves=raw_moves)


def _pretty_json(value: Any, indent: int = 0) -> str:
    """JSON with one key a line for the record and its rules; lists of moves one a line;
    everything short on one line."""
    pad = "  " * (indent + 1)
    close = "  " * indent
    flat = json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict) and value and (indent == 0 or len(flat) > 80):
        items = [f"{pad}{json.dumps(k)}: {_pretty_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + close + "}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = [pad + json.dumps(v, ensure_ascii=False) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + close + "]"
    return flat
