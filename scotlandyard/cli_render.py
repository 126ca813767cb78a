"""What the terminal shows: rich renderables built from a :class:`PlayerView` alone.

Every screen of the terminal game and of ``scotlandyard replay`` is drawn from a view, so a
detective's screen can hold nothing the detectives' view does not (the hidden-information
rule of DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .move import MR_X, TICKET_NAMES, Move
from .rules import Preset, Rules
from .view import PlayerView

TICKET_COLUMNS = TICKET_NAMES
LOG_ROW = 8  # log slots per table row (three rows of eight fit 80 columns)


def piece_name(piece: str) -> str:
    """``Mr X`` for ``X``, the id otherwise."""
    return "Mr X" if piece == MR_X else piece


def headline(view: PlayerView) -> Text:
    """``Round 3 of 22 · D2 to move`` (or the result)."""
    rules = view.rules
    if view.outcome is not None:
        return Text(f"Game over — {view.outcome.describe()}", style="bold")
    if view.pending_take:
        who = f"Mr X takes a ticket from {view.pending_take}"
    elif view.to_move == MR_X:
        who = "Mr X to move"
    elif rules.free_order and len(view.pieces_to_move) > 1:
        who = f"detectives to move, any order: {', '.join(view.pieces_to_move)}"
    else:
        who = f"{view.to_move} to move"
    return Text(f"Round {view.round} of {rules.last_round} · {who}", style="bold")


def _count(c: int | None) -> str:
    return "∞" if c is None else str(c)


def pieces_table(view: PlayerView) -> Table:
    """Every piece's station and tickets. Mr X's station appears only if the view has it
    (his own view, a reveal, or the end of the game)."""
    table = Table(title="Pieces", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("piece")
    table.add_column("station", justify="right")
    for name in TICKET_COLUMNS:
        table.add_column(name, justify="right")
    pooled = view.rules.pooled_supply is not None
    for piece in (MR_X, *view.rules.hunters):
        if piece == MR_X:
            if view.mr_x_station is None:
                station = "?"
            elif view.side == "mr_x" or view.all_shown:
                station = str(view.mr_x_station)
            else:
                station = f"{view.mr_x_station} (seen)"
        else:
            station = str(view.stations[piece])
        counts = view.tickets[piece]
        cells = [_count(counts[k]) if k in counts else "" for k in TICKET_COLUMNS]
        label = piece_name(piece)
        if pooled and piece.startswith("D"):
            label += " (pool)"
        elif piece.startswith("P"):
            label += " (police)"
        table.add_row(label, station, *cells)
    return table


def log_table(view: PlayerView) -> Table:
    """Mr X's travel log, every slot: ticket and station (``?`` while hidden), reveal slots
    marked ``*``; empty slots ``·``."""
    rules = view.rules
    reveal = set(rules.reveal_slots)
    entries = {e.slot: e for e in view.log}
    table = Table(title="Mr X's travel log (* reveal slot)", title_justify="left",
                  show_edge=False, pad_edge=False, show_header=False, box=None)
    slots = list(range(1, rules.log_slots + 1))
    for start in range(0, len(slots), LOG_ROW):
        row = slots[start:start + LOG_ROW]
        while len(table.columns) < len(row):
            table.add_column(justify="center", min_width=5)
        heads = [f"{s}{'*' if s in reveal else ''}" for s in row]
        cells = []
        for s in row:
            e = entries.get(s)
            if e is None:
                cells.append("·")
            else:
                mark = "!" if e.voluntary else ""
                cells.append(f"{e.ticket.letter}{'?' if e.station is None else e.station}{mark}")
        table.add_row(*[Text(h, style="dim") for h in heads])
        table.add_row(*cells)
    return table


def possible_text(view: PlayerView, *, to_player: bool = True) -> Text:
    """Where Mr X may be, from public facts (count and list); addressed to Mr X on his own
    screen when ``to_player``."""
    poss = sorted(view.possible)
    if to_player and view.side == "mr_x" and view.outcome is None:
        lead = f"The detectives can narrow you down to {len(poss)} station"
    else:
        lead = f"Mr X may be on {len(poss)} station"
    lead += "" if len(poss) == 1 else "s"
    return Text(f"{lead}: {', '.join(map(str, poss))}")


def group_moves(moves: Sequence[Move]) -> list[str]:
    """Legal moves as short lines: one per piece in free order; Mr X's double moves counted."""
    if not moves:
        return []
    by_piece: dict[str | None, list[Move]] = {}
    for m in moves:
        by_piece.setdefault(m.piece, []).append(m)
    lines = []
    for piece, ms in by_piece.items():
        singles = [m for m in ms if not m.is_double]
        doubles = len(ms) - len(singles)
        text = " ".join(m.with_piece(None).notation() for m in singles)
        if doubles:
            text += f"  (+ {doubles} double moves: type 'moves' to list them)"
        lines.append(f"{piece}: {text}" if piece else text)
    return lines


def legal_text(view: PlayerView) -> Text:
    """The viewer's legal moves (when its side is to move)."""
    lines = group_moves(view.legal_moves)
    if not lines:
        return Text("")
    return Text("Legal moves: " + "\n             ".join(lines))


def status(view: PlayerView, *, show_moves: bool = True, to_player: bool = True
           ) -> RenderableType:
    """The whole screen of one side: headline, pieces and tickets, the log, where Mr X may
    be, and the legal moves. ``to_player=False`` narrates (a replay) instead of addressing
    the player whose view it is."""
    parts: list[RenderableType] = [headline(view)]
    if to_player and view.side == "mr_x" and view.mr_x_station is not None \
            and view.outcome is None:
        parts.append(Text(f"You are on {view.mr_x_station}.", style="bold"))
    parts += [pieces_table(view), log_table(view)]
    if view.outcome is None:
        parts.append(possible_text(view, to_player=to_player))
    if show_moves and view.legal_moves:
        parts.append(legal_text(view))
    return Group(*parts)


def mr_x_path(view: PlayerView) -> str:
    """Mr X's path as far as the view shows it: ``132 → T45 → B58+...``."""
    start = view.start.get(MR_X)
    parts = [str(start) if start is not None else "?"]
    for e in view.log:
        parts.append(f"{e.ticket.letter}{'?' if e.station is None else e.station}")
    return " → ".join(parts)


def presets_table(presets: Sequence[Preset]) -> Table:
    """The presets: name (and aliases), the book, the detectives it allows and prints."""
    table = Table(title="Books", title_justify="left")
    for col in ("preset", "book", "source", "detectives", "in the book", "differences"):
        table.add_column(col, overflow="fold")
    for p in presets:
        lo, hi, default = p.detectives
        count = str(lo) if lo == hi else f"{lo}-{hi} (default {default})"
        printed = ", ".join(map(str, p.book_detectives)) or "not printed"
        name = " / ".join((p.name, *p.aliases))
        table.add_row(name, p.title, p.source, count, printed, p.description)
    return table


def rules_table(presets: dict[str, Rules]) -> Table:
    """Every setting of each preset, one column a preset."""
    table = Table(title="Rule presets" if len(presets) > 1 else "Rules", title_justify="left")
    table.add_column("setting", no_wrap=True)
    for name in presets:
        table.add_column(name, overflow="fold")
    dicts = {name: r.to_dict() for name, r in presets.items()}
    first = next(iter(dicts.values()))
    for key in first:
        cells = []
        for d in dicts.values():
            v = d[key]
            if isinstance(v, list):
                cells.append(" ".join(map(str, v)) if v else "-")
            else:
                cells.append("-" if v is None else str(v).lower() if isinstance(v, bool) else str(v))
        table.add_row(key, *cells)
    return table
