"""The web protocol's message schemas (pydantic), as written in ``docs/protocol.md``.

Client messages are parsed with :func:`parse_client_message`, which sorts every bad frame
into one of the protocol's error codes; server messages are built with the ``*_message``
helpers so that every frame has the documented shape.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from ..rules import Rules, RulesError, preset_info

MAX_FRAME_BYTES = 4096
"""The largest client frame the server reads (larger: ``too_large``)."""

ErrorCode = Literal[
    "bad_json", "bad_message", "unknown_type", "illegal_move", "not_your_turn", "not_allowed",
    "bad_token", "too_large", "game_over", "rate_limited", "not_taken", "not_saved",
    "damaged",
]
Role = Literal["mr_x", "detectives", "spectator", "hotseat"]
ClientId = Annotated[str, Field(max_length=64)] | int | None
Piece = Annotated[str, Field(pattern=r"^(X|D[1-5]|P[1-4])$")]
AgentName = Annotated[str, Field(min_length=1, max_length=40)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ---- client -> server -------------------------------------------------------------------------
class MoveMessage(_Strict):
    """``{"type": "move", "move": "T92", "id": "c1"}``: make a move (notation)."""

    type: Literal["move"]
    move: Annotated[str, Field(min_length=1, max_length=64)]
    id: ClientId = None


class PingMessage(_Strict):
    """``{"type": "ping", "id": ..}``: answered by ``pong``."""

    type: Literal["ping"]
    id: ClientId = None


class SyncMessage(_Strict):
    """``{"type": "sync"}``: answered by a fresh ``state``."""

    type: Literal["sync"]
    id: ClientId = None


class TakeoverMessage(_Strict):
    """``{"type": "takeover", "piece": "D2", "agent": "easy"}``: an AI plays a human seat."""

    type: Literal["takeover"]
    piece: Piece
    agent: AgentName
    id: ClientId = None


class ReclaimMessage(_Strict):
    """``{"type": "reclaim", "piece": "D2"}``: a human takes an AI seat back."""

    type: Literal["reclaim"]
    piece: Piece
    id: ClientId = None


class ChatMessage(_Strict):
    """``{"type": "chat", "channel": "table", "text": "hello"}``: a chat message (plain text,
    at most 300 characters once control characters are removed)."""

    type: Literal["chat"]
    channel: Literal["table", "team"] = "table"
    text: Annotated[str, Field(min_length=1, max_length=1000)]
    id: ClientId = None


class ChatRecordMessage(_Strict):
    """``{"type": "chat_record", "agree": true}``: this side agrees (or no longer agrees) that
    the table chat goes into the game record."""

    type: Literal["chat_record"]
    agree: bool
    id: ClientId = None


class RematchMessage(_Strict):
    """``{"type": "rematch", "swap": true}``: offer a rematch after the end (``swap``: the
    sides change hands), or accept the one offered (same ``swap``); ``"decline": true``
    withdraws or declines."""

    type: Literal["rematch"]
    swap: bool = False
    decline: bool = False
    id: ClientId = None


class TakebackMessage(_Strict):
    """``{"type": "takeback"}``: take back this side's last move (against the AI: at once;
    against people: an offer the other side accepts with ``{"type": "takeback", "accept":
    true}`` or declines with ``false``)."""

    type: Literal["takeback"]
    accept: bool | None = None
    id: ClientId = None


ClientMessage = Annotated[
    MoveMessage | PingMessage | SyncMessage | TakeoverMessage | ReclaimMessage | ChatMessage
    | ChatRecordMessage | RematchMessage | TakebackMessage,
    Field(discriminator="type"),
]
CLIENT_TYPES = frozenset({"move", "ping", "sync", "takeover", "reclaim", "chat", "chat_record",
                          "rematch", "takeback"})
_CLIENT: TypeAdapter[BaseModel] = TypeAdapter(ClientMessage)


class ProtocolError(Exception):
    """A client frame the server refuses: ``code`` is one of the protocol's error codes."""

    def __init__(self, code: ErrorCode, message: str, client_id: Any = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.client_id = client_id


def _client_id(data: dict[str, Any]) -> str | int | None:
    """The frame's ``id`` if it is a usable one (so errors can echo it), else ``None``."""
    cid = data.get("id")
    if isinstance(cid, bool):
        return None
    if isinstance(cid, int) or (isinstance(cid, str) and len(cid) <= 64):
        return cid
    return None


def parse_client_message(frame: str | bytes | None) -> BaseModel:
    """Validate one client frame; raise :class:`ProtocolError` with the right code if bad."""
    if frame is None or isinstance(frame, bytes):
        if isinstance(frame, bytes) and len(frame) > MAX_FRAME_BYTES:
            raise ProtocolError("too_large", f"frame of {len(frame)} bytes; at most "
                                             f"{MAX_FRAME_BYTES} are read")
        raise ProtocolError("bad_message", "send JSON text frames, not binary ones")
    try:
        frame.encode("utf-8")
    except UnicodeEncodeError:  # the server hands on a text frame that is not UTF-8 escaped
        raise ProtocolError("bad_message", "the text frame is not valid UTF-8") from None
    size = len(frame.encode("utf-8", "surrogatepass"))
    if size > MAX_FRAME_BYTES:
        raise ProtocolError("too_large", f"frame of {size} bytes; at most {MAX_FRAME_BYTES} are read")
    try:  # orjson refuses lone surrogates itself, so what it parses needs no more checks
        data = orjson.loads(frame)
    except orjson.JSONDecodeError:  # the slower parse says what is wrong (or takes it)
        data = _parse_slowly(frame)
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a \"type\"")
    cid = _client_id(data)
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a \"type\" string", cid)
    if kind not in CLIENT_TYPES:
        shown = kind if len(kind) <= 30 else kind[:30] + "..."
        raise ProtocolError("unknown_type", f"unknown message type {shown!r} (known: "
                                            f"{', '.join(sorted(CLIENT_TYPES))})", cid)
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", f"bad {kind!r} message: {_explain(exc)}", cid) from None


def _parse_slowly(frame: str) -> Any:
    """The frame parsed by :mod:`json` (numbers orjson does not take, such as integers over
    64 bits), or :class:`ProtocolError` saying why it cannot be."""
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" escapes decode to lone surrogates, not text
        raise ProtocolError("bad_message", "the frame has a lone surrogate (an unpaired "
                            "\\ud800-\\udfff escape), which is not Unicode text") from None
    return data


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(x) for x in err["loc"][1:]) or "message"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


# ---- server -> client -------------------------------------------------------------------------
class SeatInfo(BaseModel):
    """One seat as every client sees it."""

    kind: Literal["human", "ai"]
    agent: str | None
    connected: bool
    note: str | None = None
    open: bool = False
    away: float | None = None


class Commitment(BaseModel):
    """The published hash of one log slot."""

    slot: int
    hash: str


class Opening(BaseModel):
    """One log slot opened at the end: its station and salt."""

    slot: int
    station: int
    salt: str


class WelcomeMessage(BaseModel):
    """The first frame on a connection."""

    type: Literal["welcome"] = "welcome"
    game_id: str
    pieces: list[str]
    role: Role
    token_name: str
    absent_timeout: float | None = None


class StateMessage(BaseModel):
    """The connection's view of the game, the seats, and the commitments."""

    type: Literal["state"] = "state"
    view: dict[str, Any]
    seats: dict[str, SeatInfo]
    commitments: list[Commitment]
    openings: list[Opening] | None
    version: int
    clock: dict[str, Any] | None = None
    chat_record: dict[str, bool] | None = None
    rematch: dict[str, Any] | None = None
    takeback: dict[str, Any] | None = None
    absent: dict[str, Any] | None = None


class AckMessage(BaseModel):
    """A move was accepted and committed."""

    type: Literal["ack"] = "ack"
    id: str | int | None
    version: int


class PongMessage(BaseModel):
    """The answer to ``ping``."""

    type: Literal["pong"] = "pong"
    id: str | int | None = None


class ChatEntry(BaseModel):
    """One chat message as clients get it."""

    n: int
    at: float
    channel: Literal["table", "team"]
    from_: str = Field(alias="from")
    text: str


class ChatFrame(BaseModel):
    """A new chat message, sent to every connection that may read its channel."""

    type: Literal["chat"] = "chat"
    message: ChatEntry


class ChatHistoryFrame(BaseModel):
    """Sent after ``welcome``: the messages of the game this connection may read."""

    type: Literal["chat_history"] = "chat_history"
    messages: list[ChatEntry]


class NoticeFrame(BaseModel):
    """Something every connection should be told: ``timeout_ai`` (the AI made ``piece``'s move
    when its time ran out), ``timeout_lost`` (``side`` lost on time), ``takeback`` (moves from
    ``ply`` on were taken back), ``absent_ai`` (the computer plays ``piece``, at ``agent``,
    for its absent player)."""

    type: Literal["notice"] = "notice"
    code: Literal["timeout_ai", "timeout_lost", "takeback", "absent_ai"]
    piece: str | None = None
    agent: str | None = None
    side: Literal["mr_x", "detectives"] | None = None
    ply: int | None = None


class RematchReadyFrame(BaseModel):
    """Sent to each connection of a player who accepted the rematch: its link to the new game
    (its own new token; never broadcast)."""

    type: Literal["rematch_ready"] = "rematch_ready"
    game_id: str
    link: str
    token_name: str


class ErrorMessage(BaseModel):
    """A refused frame; never changes the game."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    id: str | int | None = None


def frame_text(obj: Any) -> str:
    """A server frame (a JSON-ready object) as compact JSON text, encoded by orjson (a state
    frame is encoded once per view per move, so the encoder is a good part of the server's
    work); what orjson refuses (a lone surrogate echoed in a client's id, an integer over 64
    bits) is encoded by :mod:`json`, as before."""
    try:
        return orjson.dumps(obj).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(obj, separators=(",", ":"))


def state_frame(view_text: str, shared_text: str) -> str:
    """A ``state`` frame from its view's JSON text and the JSON object of the fields every
    connection shares (``Room.shared_state``): the same text as ``frame_text`` of the whole
    message, with each part encoded once."""
    return '{"type":"state","view":' + view_text + "," + shared_text[1:]


def error_frame(code: ErrorCode, message: str, client_id: Any = None) -> str:
    """An ``error`` frame as JSON text."""
    return ErrorMessage(code=code, message=message, id=client_id).model_dump_json()


# ---- REST bodies ------------------------------------------------------------------------------
def _known_preset(name: str) -> str:
    """A preset name or alias of the core's preset table, as its name."""
    try:
        info = preset_info(name)
    except RulesError as exc:
        raise ValueError(str(exc)) from None
    if not info.book:  # a small board's research preset: London is the web app's board
        raise ValueError(f"the web app plays the books' presets ({', '.join(Rules.BOOK_PRESETS)})"
                         f", not the research preset {info.name!r}")
    return info.name


# the core's preset table decides (scotlandyard.rules.PRESET_TABLE); aliases are accepted
PresetName = Annotated[str, Field(max_length=40), AfterValidator(_known_preset)]


class SeatRequest(BaseModel):
    """One seat of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "ai"] = "human"
    agent: AgentName | None = None


Seconds = Annotated[float, Field(ge=1, le=86400)]


class ClockRequest(BaseModel):
    """The ``clock`` of ``POST /api/games``: ``per_move`` and/or Fischer ``initial`` +
    ``increment`` seconds, and what a timeout does (``ai``: the AI makes that move; ``lose``:
    the side loses on time)."""

    model_config = ConfigDict(extra="forbid")

    per_move: Seconds | None = None
    initial: Seconds | None = None
    increment: Annotated[float, Field(ge=0, le=3600)] = 0.0
    on_timeout: Literal["ai", "lose"] = "ai"
    agent: AgentName | None = None

    @model_validator(mode="after")
    def _some_limit(self) -> ClockRequest:
        if self.per_move is None and self.initial is None:
            raise ValueError("a clock needs per_move or initial (seconds)")
        if self.increment and self.initial is None:
            raise ValueError("increment is for a Fischer clock: give initial too")
        return self


TokenName = Annotated[str, Field(pattern=r"^(X|detectives|D[1-5]|P[1-4]|all)$")]


class JoinRequest(BaseModel):
    """The body of ``POST /api/games/{id}/join``: ``{"seat": "D1"}`` or ``{"side":
    "detectives"}``."""

    model_config = ConfigDict(extra="forbid")

    seat: Piece | None = None
    side: Literal["mr_x", "detectives"] | None = None

    @model_validator(mode="after")
    def _one(self) -> JoinRequest:
        if (self.seat is None) == (self.side is None):
            raise ValueError("give either seat (a piece) or side (mr_x or detectives)")
        return self


class CreateGame(BaseModel):
    """The body of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")

    public: bool = False
    play_as: TokenName | None = None
    clock: ClockRequest | None = None

    preset: PresetName = "classic"
    detectives: Annotated[int, Field(ge=1, le=5, strict=True)] | None = None
    extra_reveal: bool = False
    seed: Annotated[int, Field(ge=0, le=2**63 - 1, strict=True)] | None = None
    hotseat: bool = False
    seats: dict[str, SeatRequest] = Field(default_factory=dict)
    on_absent: Literal["ai", "wait"] = "ai"
    """A player leaves: the computer takes the seat after ``--absent-timeout`` (``ai``), or
    the others wait for him (``wait``; after the same time any player may hand it over)."""
    absent_agent: AgentName | None = None
    """The level the computer plays an absent seat at (default: the game's AI level)."""
