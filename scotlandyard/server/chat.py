"""Table chat and the detectives' team chat (``docs/protocol.md``, "Chat").

Who may write and who receives is decided here, by the connection's role only:

* ``table``: written by any seated player (not spectators), read by every connection.
* ``team``: written and read by ``detectives`` connections only (a detective's or police
  piece token, or the ``detectives`` token). Mr X's token, spectators and hot-seat devices
  (where Mr X shares the screen) never receive a team message: not live, not in the history
  sent on connect, not in a record, not in a log line (the server logs no chat text).

Messages are plain text (the page draws them with ``textContent``), at most
:data:`MAX_CHARS` characters after control characters are removed, and each token may send
:data:`BURST` at once, then one every :data:`EVERY` seconds.
"""

from __future__ import annotations

import re
import time
import unicodedata
from typing import TYPE_CHECKING, Any, Literal

from ..move import MR_X
from .protocol import ChatMessage, ChatRecordMessage, ProtocolError, frame_text
from .store import UNAVAILABLE, StoreError

if TYPE_CHECKING:
    from .connections import Connection
    from .table import Table

Channel = Literal["table", "team"]
MAX_CHARS = 300
BURST = 5
EVERY = 2.0
_SPACES = re.compile(r"\s+")
_DB_ERRORS: tuple[type[Exception], ...] = (StoreError, *UNAVAILABLE)


class ChatRefused(Exception):
    """A chat message the server refuses (``code`` is a protocol error code)."""

    def __init__(self, code: Literal["bad_message", "not_allowed", "rate_limited"],
                 message: str) -> None:
        super().__init__(message)
        self.code: Literal["bad_message", "not_allowed", "rate_limited"] = code
        self.message = message


def clean(text: str) -> str:
    """The text as stored: control and format characters removed, runs of white space made
    one space, trimmed; raise :class:`ChatRefused` if nothing is left or it is too long."""
    kept = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch)[0] != "C")
    out = _SPACES.sub(" ", kept).strip()
    if not out:
        raise ChatRefused("bad_message", "a chat message needs some text")
    if len(out) > MAX_CHARS:
        raise ChatRefused("bad_message", f"a chat message has at most {MAX_CHARS} characters "
                                         f"(this one has {len(out)})")
    return out


def may_write(role: str, channel: Channel) -> str | None:
    """Why a connection with ``role`` may not write to ``channel``, or ``None``."""
    if role == "spectator":
        return "spectators read the table chat but do not write"
    if channel == "team" and role != "detectives":
        if role == "hotseat":
            return "a hot-seat device has no team chat (Mr X shares the screen)"
        return "the team chat is the detectives'"
    return None


def receives(role: str, channel: str) -> bool:
    """Whether a connection with ``role`` is sent messages of ``channel``."""
    return channel == "table" or (channel == "team" and role == "detectives")


def message(n: int, at: float, channel: str, author: str, text: str) -> dict[str, Any]:
    """One message as clients get it (inside ``chat`` and ``chat_history`` frames); ``n``: its
    number in its own channel (:func:`channel_numbers`)."""
    return {"n": n, "at": round(at, 3), "channel": channel, "from": author, "text": text}


def channel_numbers(rows: list[tuple[int, float, str, str, str]]) -> dict[int, int]:
    """Each stored message's number within its own channel (1, 2, ... per channel), by its
    number in the game (``rows`` as stored, oldest first). Clients see only these: the table
    chat's numbers run 1, 2, 3 whatever the team wrote in between, so Mr X cannot count the
    detectives' messages."""
    seen: dict[str, int] = {}
    out: dict[int, int] = {}
    for row in sorted(rows, key=lambda r: r[0]):
        seen[row[2]] = seen.get(row[2], 0) + 1
        out[row[0]] = seen[row[2]]
    return out


class ChatLimit:
    """Per token: :data:`BURST` messages at once, then one every :data:`EVERY` seconds."""

    def __init__(self) -> None:
        self.level = float(BURST)
        self.last = time.monotonic()

    def take(self) -> None:
        """Count one message; raise :class:`ChatRefused` (``rate_limited``) when over."""
        now = time.monotonic()
        self.level = min(float(BURST), self.level + (now - self.last) / EVERY)
        self.last = now
        if self.level < 1.0:
            wait = (1.0 - self.level) * EVERY
            raise ChatRefused("rate_limited", f"too many chat messages; wait {wait:.0f} s")
        self.level -= 1.0


class RoomChat:
    """The chat of one room: posting, the history sent on connect, and the agreement to put
    the table chat into the record."""

    def __init__(self, room: Table) -> None:
        """The chat of ``room`` (its messages are in the store)."""
        self.room = room
        self._limits: dict[str, ChatLimit] = {}
        self.rows: list[tuple[int, float, str, str, str]] = []
        """The game's messages (n, at, channel, author, text), oldest first: read from the
        database when the room loads, then kept here, so a connection's history and the
        record need no database call on the event loop."""

    def _readable(self, role: str) -> list[dict[str, Any]]:
        number = channel_numbers(self.rows)
        return [message(number[row[0]], *row[1:]) for row in self.rows if receives(role, row[2])]

    def send_history(self, conn: Connection) -> None:
        """Send a new connection the messages it may read."""
        conn.send(frame_text({"type": "chat_history", "messages": self._readable(conn.role)}))

    async def post(self, conn: Connection, msg: ChatMessage) -> None:
        """Store (in the database's thread) and deliver one message; raise
        :class:`ProtocolError` to refuse it (``not_saved`` if the database refuses: nobody
        got it)."""
        why = may_write(conn.role, msg.channel)
        if why is not None:
            raise ProtocolError("not_allowed", why, msg.id)
        try:
            text = clean(msg.text)
            self._limits.setdefault(conn.token_name, ChatLimit()).take()
        except ChatRefused as exc:
            raise ProtocolError(exc.code, exc.message, msg.id) from None
        server = self.room.server
        try:
            n, at = await server.db.write(server.store.add_chat, self.room.id, msg.channel,
                                          conn.token_name, text)
        except _DB_ERRORS as exc:
            raise ProtocolError("not_saved", f"the chat message was not saved ({exc}); send "
                                             "it again", msg.id) from None
        self.rows.append((n, at, msg.channel, conn.token_name, text))
        self.rows.sort(key=lambda r: r[0])  # posts through other processes may come between
        self.room.chat_posted_here.add(n)  # delivered below, not again by Table.refresh
        if sum(1 for r in self.rows if r[0] <= n) != n:  # another process's post not here yet
            try:
                self.rows = await server.db.read(server.store.chat, self.room.id)
            except _DB_ERRORS:
                pass  # numbered from what is here; the next refresh reads them all
        number = channel_numbers(self.rows).get(n, 1)
        frame = frame_text({"type": "chat", "message": message(number, at, msg.channel,
                                                               conn.token_name, text)})
        for other in list(self.room.connections):
            if receives(other.role, msg.channel):
                other.send(frame)

    # ---- the record ------------------------------------------------------------------------------
    def _sides(self) -> list[str]:
        humans = self.room.humans()
        sides = []
        if MR_X in humans:
            sides.append("mr_x")
        if humans - {MR_X}:
            sides.append("detectives")
        return sides

    def agreements(self) -> dict[str, bool]:
        """Per side with a human player: whether it agreed to the table chat in the record."""
        agreed = self.room.options.get("chat_record", {})
        return {side: bool(agreed.get(side)) for side in self._sides()}

    async def agree(self, conn: Connection, msg: ChatRecordMessage) -> None:
        """A player's side agrees (or withdraws its agreement)."""
        if conn.role == "spectator":
            raise ProtocolError("not_allowed", "spectators have no say in the record", msg.id)
        sides = ["mr_x", "detectives"] if conn.role == "hotseat" else [conn.role]
        before = self.room.options.get("chat_record")
        agreed = dict(before or {})
        for side in sides:
            agreed[side] = msg.agree
        self.room.options["chat_record"] = agreed
        try:
            await self.room.save_options()
        except ProtocolError as exc:
            if before is None:  # nothing changed
                self.room.options.pop("chat_record", None)
            else:
                self.room.options["chat_record"] = before
            raise ProtocolError(exc.code, exc.message, msg.id) from None
        self.room.broadcast_state()

    def record_tags(self) -> dict[str, str]:
        """The table chat as record tags (``Chat1`` = ``"D1: text"``), when every side with a
        human player agreed; else none. Team messages are never part of a record."""
        agreed = self.agreements()
        if not agreed or not all(agreed.values()):
            return {}
        rows = [r for r in self.rows if r[2] == "table"]
        return {f"Chat{i}": f"{author}: {text}".replace('"', "'")
                for i, (_, _, _, author, text) in enumerate(rows, 1)}
