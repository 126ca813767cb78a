"""The terminal game loop, kept apart from the terminal itself so tests can drive it.

:class:`TerminalGame` plays one game between two controllers — ``"human"`` or an agent name
(``scotlandyard.ai.agent_names()``) — printing to a rich ``Console`` and reading lines from a
``read`` callable. Every screen is drawn from a :class:`~scotlandyard.view.PlayerView`:
Mr X's screen from his view, the detectives' from theirs.

Hot-seat (both sides human): before Mr X's turn the screen is cleared and the loop waits for
"Pass to Mr X, press Enter"; after his move it is cleared again for the detectives
("Pass to the detectives, press Enter"), so his station is never on the detectives' screen.
``undo`` takes back the human side's last move, and only against an AI (in hot-seat it would
put Mr X's last move back on screen).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule

from . import cli_render as render
from .ai import Budget, agent_names, make_agent
from .game import Game
from .move import MR_X, Move, NotationError
from .view import PlayerView

HUMAN = "human"
Side = str  # "mr_x" | "detectives"

HELP = """\
Type a move in notation, or a command.
  T92        taxi to 92 (B bus, U underground, K black ticket)
  B58+K74    Mr X's double move: two steps joined by +
  T92!       Mr X reveals himself voluntarily (house rule), then take:D1:B ...
  D2:T92     name the piece where the detectives choose their order
  pass       a piece with no legal move
Commands:
  moves      list every legal move
  show       draw the screen again
  undo       take back your last move (against the AI only)
  help       this text
  quit       stop the game (saved with --save, unfinished)"""


class QuitGame(Exception):
    """The player typed ``quit`` (or the input ended)."""


def check_controller(name: str) -> str:
    """``name`` if it is ``human`` or a registered agent; raises ``ValueError`` otherwise."""
    if ":" in name and name not in agent_names():  # a trained policy, module:attribute
        from .ai import register_policy

        register_policy(name)
    known = [HUMAN, *agent_names()]
    if name not in known:
        raise ValueError(f"unknown player {name!r} (choose from: {', '.join(known)})")
    return name


@dataclass
class TerminalGame:
    """One game in the terminal. ``read()`` returns the next line typed (raising ``EOFError``
    when input ends); ``clear()`` wipes the screen (default: the console's, scrollback
    included)."""

    game: Game
    mr_x: str = HUMAN
    detectives: str = HUMAN
    out: Console = field(default_factory=Console)
    read: Callable[[], str] = input
    clear: Callable[[], None] | None = None
    seed: int | None = None
    budget: Budget = field(default_factory=Budget)
    quit: bool = field(default=False, init=False)
    _screen: Side | None = field(default=None, init=False)
    _human_plies: list[int] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        check_controller(self.mr_x)
        check_controller(self.detectives)
        self._agents = {
            side: make_agent(name, side) for side, name in
            (("mr_x", self.mr_x), ("detectives", self.detectives)) if name != HUMAN}
        self._rng = random.Random(self.seed)

    # ---- who is who -------------------------------------------------------------------------
    @property
    def hot_seat(self) -> bool:
        """Both sides are human (one screen passed between them)."""
        return self.mr_x == HUMAN and self.detectives == HUMAN

    def controller(self, side: Side) -> str:
        """``human`` or the agent name playing ``side``."""
        return self.mr_x if side == "mr_x" else self.detectives

    @property
    def watcher(self) -> str:
        """Whose view the screen shows when an AI moves: the human side's, else a spectator's."""
        if self.mr_x == HUMAN and not self.hot_seat:
            return MR_X
        if self.detectives == HUMAN and not self.hot_seat:
            return self.game.rules.hunters[0]
        return "spectator"

    def players(self) -> dict[str, str]:
        """Names for the record: ``human`` or ``NAME (AI)`` per piece."""
        def label(name: str) -> str:
            return name if name == HUMAN else f"{name} (AI)"
        return {p: label(self.mr_x if p == MR_X else self.detectives) for p in self.game.pieces}

    # ---- the loop ----------------------------------------------------------------------------
    def run(self) -> Game:
        """Play until the game ends or a player quits; returns the game."""
        game = self.game
        self.out.print(f"[bold]Scotland Yard[/] — {escape(game.rules.edition)} rules, "
                       f"{game.rules.detectives} detectives"
                       f"{f' + {game.rules.police} police' if game.rules.police else ''}. "
                       f"Mr X: {escape(self.mr_x)}; detectives: {escape(self.detectives)}. "
                       "Type 'help' for help.")
        try:
            while not game.is_over():
                side = game.side_to_move
                assert side is not None
                if self.controller(side) == HUMAN:
                    self._human_turn(side)
                else:
                    self._ai_turn(side)
        except QuitGame:
            self.quit = True
            self.out.print(f"Game stopped after {game.ply} moves.")
            return game
        self._finish()
        return game

    def _wipe(self) -> None:
        if self.clear is not None:
            self.clear()
        elif self.out.is_terminal:
            # clear the screen and the scrollback, so nobody can scroll up to Mr X's screen
            self.out.file.write("\x1b[H\x1b[2J\x1b[3J")
            self.out.file.flush()
        else:
            self.out.print(Rule("screen cleared"))

    def _ask(self, prompt: str) -> str:
        self.out.print(prompt, end="", markup=False, highlight=False)
        try:
            return self.read()
        except (EOFError, KeyboardInterrupt):
            self.out.print()
            raise QuitGame from None

    def _hand_over(self, side: Side) -> None:
        """Hot-seat: clear the screen and wait for the other side to take the keyboard."""
        if self._screen == side:
            return
        self._wipe()
        who = "Mr X" if side == "mr_x" else "the detectives"
        self._ask(f"Pass to {who}, press Enter ")
        self._screen = side

    def _viewer(self, side: Side) -> str:
        return MR_X if side == "mr_x" else self.game.pieces_to_move[0]

    def _human_turn(self, side: Side) -> None:
        game = self.game
        if self.hot_seat:
            self._hand_over(side)
        view = game.view(self._viewer(side))
        self.out.print()
        self.out.print(render.status(view))
        while True:
            text = self._ask(self._prompt(view)).strip()
            low = text.lower()
            if not text:
                continue
            if low in ("quit", "exit", "q"):
                raise QuitGame
            if low in ("help", "h", "?"):
                self.out.print(HELP, markup=False, highlight=False)
                continue
            if low in ("moves", "m"):
                self._list_moves(view)
                continue
            if low in ("show", "board"):
                self.out.print(render.status(view))
                continue
            if low == "undo":
                if self._undo():
                    return
                continue
            move = self._read_move(text, view)
            if move is None:
                continue
            self._human_plies.append(game.ply)
            game.push(move)
            self.out.print(f"{render.piece_name(self._mover(move, side))} played "
                           f"{move.with_piece(None).notation()}.", markup=False, highlight=False)
            return

    def _mover(self, move: Move, side: Side) -> str:
        if side == "mr_x":
            return MR_X
        return move.piece or self.game.moves[-1][0]

    def _prompt(self, view: PlayerView) -> str:
        if view.side == "mr_x":
            return "Mr X, your move > " if not view.pending_take else (
                f"Mr X, take a ticket from {view.pending_take} (take:{view.pending_take}:T/B/U) > ")
        pieces = view.pieces_to_move
        if len(pieces) > 1:
            return f"Detectives ({', '.join(pieces)}), your move > "
        return f"{pieces[0]}, your move > "

    def _list_moves(self, view: PlayerView) -> None:
        moves = [m.notation() for m in view.legal_moves]
        self.out.print(f"{len(moves)} legal moves: " + " ".join(moves), markup=False,
                       highlight=False)

    def _hint(self, view: PlayerView) -> str:
        legal = view.legal_moves
        some = [m.notation() for m in legal if not m.is_double][:8]
        more = len(legal) - len(some)
        return (f"Legal moves include {', '.join(some)}"
                + (f" and {more} more" if more > 0 else "") + " (type 'moves' for all, 'help' for help).")

    def _read_move(self, text: str, view: PlayerView) -> Move | None:
        """The legal move that ``text`` means, or ``None`` after saying what is wrong."""
        game = self.game
        try:
            move = Move.parse(text)
        except NotationError as exc:
            self._complain(str(exc), view)
            return None
        if view.side == "detectives" and game.rules.free_order and move.piece is None \
                and not move.is_pass:
            # "T92" in free order: fine if exactly one piece can make it
            fits = [m for m in view.legal_moves if m.with_piece(None) == move]
            if len(fits) == 1:
                move = fits[0]
            elif len(fits) > 1:
                self._complain(f"several pieces can play {text}: "
                               f"{', '.join(m.notation() for m in fits)}; name the piece, "
                               f"e.g. {fits[0].notation()}", view)
                return None
            else:
                why = game.why_illegal(move.with_piece(view.pieces_to_move[0]))
                self._complain(why or f"no piece can play {text}", view)
                return None
        elif view.side == "detectives" and game.rules.free_order and move.is_pass \
                and move.piece is None:
            move = move.with_piece(view.pieces_to_move[0])
        why = game.why_illegal(move)
        if why is not None:
            self._complain(why, view)
            return None
        return move

    def _complain(self, why: str, view: PlayerView) -> None:
        self.out.print(f"Not a legal move: {why}", style="red", markup=False, highlight=False)
        self.out.print(self._hint(view), markup=False, highlight=False)

    def _undo(self) -> bool:
        """Take back the human side's last move (and the AI's replies); True if done."""
        if self.hot_seat:
            self.out.print("undo is only for games against the AI: in hot-seat it would show "
                           "Mr X's move to the detectives.", markup=False)
            return False
        if not self._human_plies:
            self.out.print("Nothing to undo yet.")
            return False
        target = self._human_plies.pop()
        while self.game.ply > target:
            self.game.pop()
        self.out.print(f"Took back your last move (back to move {target + 1}).")
        return True

    def _ai_turn(self, side: Side) -> None:
        game = self.game
        agent = self._agents[side]
        view = game.view(self._viewer(side))
        legal = list(view.legal_moves)
        move = agent.choose(view, legal, self._rng, self.budget)
        if move not in legal:
            raise RuntimeError(f"agent {agent.name} chose {move}, not a legal move")
        game.push(move)
        seen = game.view(self.watcher).history[-1]
        who = render.piece_name(seen.piece)
        self.out.print(f"Round {seen.round}: {who} ({escape(self.controller(side))}) played "
                       f"{seen.notation}.", highlight=False)

    def _finish(self) -> None:
        game = self.game
        view = game.view("spectator")  # the game is over: everything is shown
        if self.hot_seat:
            self._wipe()
        self.out.print()
        self.out.print(render.status(view, show_moves=False))
        out = view.outcome
        if out is not None:
            self.out.print(f"[bold]Game over:[/] {escape(out.describe())}")
        self.out.print(f"Mr X's path: {render.mr_x_path(view)}", highlight=False)
