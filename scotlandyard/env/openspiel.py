"""Scotland Yard as an OpenSpiel Python game: ``pyspiel.load_game("python_scotland_yard")``.

>>> import pyspiel
>>> import scotlandyard.env.openspiel  # registers the game
>>> game = pyspiel.load_game("python_scotland_yard", {"preset": "new_edition"})
>>> state = game.new_initial_state()  # the deal: one chance node per piece
>>> state.is_chance_node(), len(state.chance_outcomes())  # the first detective's card
(True, 16)
>>> fixed = pyspiel.load_game("python_scotland_yard", {"random_start": False, "seed": 3})
>>> fixed.new_initial_state().current_player()  # the start of seed 3, Mr X to move
0

Needs ``open_spiel`` (the ``openspiel`` extra). Choices, documented in ``docs/env.md``:

- **Two players**: 0 is Mr X, 1 is the detectives' side as *one* player (a coalition that
  shares one information state: the detectives' public view; ``selected`` says which piece
  acts). Zero-sum, terminal rewards ±1.
- Actions are the envs' decisions (``Discrete(2393)``, ``scotlandyard.env.actions``): a
  double move is two Mr X actions, free-order hunters may ``defer``.
- Parameters: ``preset`` (a preset name: a book's, or a small board's of
  :mod:`scotlandyard.small_boards` such as ``tiny``), ``detectives`` (0: the preset's),
  ``random_start`` (default true: the start is dealt at chance nodes, as R-SETUP deals it —
  each hunter in seat order uniformly from the detectives' deck less the cards dealt, then
  Mr X uniformly from his deck less the hunters' stations, what the detectives know; a draw
  with one outcome is dealt without a node — so every game starts from a fresh deal and
  exploitability is over every start, Mr X's hidden one included; false: no chance nodes,
  the start stations drawn from ``seed``), ``seed`` (the start without ``random_start``),
  ``board_features`` (add the observation's board segment).
- ``information_state_string(p)``: the player's whole view (the package's ``PlayerView`` as
  JSON — every public fact, Mr X's own moves for player 0 — plus the selected piece and a
  pending double first step): perfect recall. ``information_state_tensor(p)`` and
  ``observation_tensor(p)``: the envs' observation vector (layout ``sy-obs-1``) of the acting
  piece's view (not perfect recall: a summary of it).
- ``resample_from_infostate(1, sampler)``: a state with the same detectives' information and
  Mr X on a hidden path drawn to fit every public fact (the record reconstruction of
  ``scotlandyard.record``, the possible-location set step by step); for player 0 (who sees
  everything) a clone.
- ``serialize()`` / ``game.deserialize_state(text)``: the start stations and the actions.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import numpy as np
import pyspiel

from ..game import Game
from ..move import MR_X
from ..record import Record
from ..rules import Rules
from ..small_boards import preset_rules
from .actions import DEFER, N_ACTIONS, describe_action
from .encoding import ObservationLayout, encode_view
from .match import Match

_PARAMS = {"preset": "classic", "detectives": 0, "seed": 0, "board_features": False,
           "random_start": True}

_INFO_CACHE = 500_000  # information strings kept per game (then the cache starts again)

_GAME_TYPE = pyspiel.GameType(
    short_name="python_scotland_yard",
    long_name="Python Scotland Yard",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,  # the start (random_start)
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


def _rules(params: dict[str, Any]) -> Rules:
    n = int(params.get("detectives", 0))
    return preset_rules(str(params.get("preset", "classic")), n or None)


class ScotlandYardGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game (see the module doc)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """``params``: ``preset``, ``detectives``, ``seed``, ``random_start``,
        ``board_features``."""
        p = {**_PARAMS, **(params or {})}
        self.rules = _rules(p)
        self.seed = int(p["seed"])
        self.random_start = bool(p["random_start"])
        self.layout = ObservationLayout.for_rules(self.rules, board_features=bool(p["board_features"]))
        # the start from ``seed`` (without random_start; also the state during the draws)
        self.info_cache: dict[tuple[int, tuple[int, ...], tuple[int, ...]], str] = {}
        self.root_match = Match(self.rules)
        self.root_match.reset(seed=self.seed)
        self.start = self.root_match.game.start
        self.hunters = tuple(p for p in self.rules.pieces if p != MR_X)  # seat order
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS, max_chance_outcomes=200 if self.random_start else 0,
            num_players=2,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.rules.last_round * (2 * len(self.rules.pieces) + 2))
        super().__init__(_GAME_TYPE, info, p)

    def __deepcopy__(self, memo: dict[int, Any]) -> ScotlandYardGame:
        """The game is immutable: copies are itself."""
        return self

    def new_initial_state(self, start: dict[str, int] | None = None) -> ScotlandYardState:
        """The start of a game: with ``random_start`` (the default) and no ``start``, the
        chance nodes that deal the start stations (R-SETUP); else the stations of ``start``,
        or of ``seed``."""
        return ScotlandYardState(self, start)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer for the tensors and strings."""
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return _Observer(self.layout, perfect)

    def deserialize_state(self, text: str) -> ScotlandYardState:
        """The state :meth:`ScotlandYardState.serialize` wrote."""
        data = json.loads(text)
        chance = data.get("chance")
        if chance is not None:
            state = self.new_initial_state()
            for a in chance if isinstance(chance, list) else [chance]:  # (an int: Mr X's, v1)
                state.apply_action(int(a))
            while state.is_chance_node():  # a draw of one outcome is not written
                state.apply_action(state.legal_actions()[0])
        else:
            state = self.new_initial_state({str(k): int(v) for k, v in data["start"].items()})
        for a in data["actions"]:
            state.apply_action(int(a))
        return state


class ScotlandYardState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine game plus the envs' turn bookkeeping."""

    def __init__(self, game: ScotlandYardGame, start: dict[str, int] | None = None) -> None:
        """A new game of ``game``'s rules."""
        super().__init__(game)
        self._sy_game = game
        self.chance: tuple[int, ...] = ()  # the stations dealt at chance nodes, in deal order
        self._deal: dict[str, int] = {}  # the start stations dealt so far
        self._at_chance = start is None and game.random_start
        # OpenSpiel clones a state through here, then copies its attributes: start from a
        # copy of the game's first position rather than a new game
        if start is None:
            self.match: Match = copy.deepcopy(game.root_match)
        else:
            self.match = Match(game.rules)
            self.match.reset(start=start)
        self.actions: list[int] = []
        if self._at_chance:
            self._skip_forced_draws()

    # ---- turn -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """0 Mr X, 1 the detectives, chance (Mr X's start, with ``random_start``), or terminal."""
        if self._at_chance:
            return int(pyspiel.PlayerId.CHANCE)
        sel = self.match.selected
        if sel is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return 0 if sel == MR_X else 1

    # ---- the deal: chance nodes -------------------------------------------------------------
    def _dealing(self) -> str:
        """The piece whose start station the chance node draws: the hunters in seat order,
        then Mr X (as R-SETUP's deal, whose joint distribution this is: each hunter uniformly
        from the detectives' deck less the stations dealt, then Mr X uniformly from his deck
        less the hunters' stations, what the detectives know of him)."""
        hunters = self._sy_game.hunters
        return hunters[len(self._deal)] if len(self._deal) < len(hunters) else MR_X

    def _draws(self) -> list[int]:
        """The stations the current chance node may draw (sorted, each equally likely)."""
        rules = self._sy_game.rules
        taken = set(self._deal.values())
        deck = rules.start_deck_mr_x if self._dealing() == MR_X else rules.start_deck_detectives
        return sorted(set(deck) - taken)

    def _skip_forced_draws(self) -> None:
        """Deal the draws that have one outcome (``tiny``'s one detective card) without a
        chance node."""
        while self._at_chance and len(draws := self._draws()) == 1:
            self._deal_one(draws[0])

    def _deal_one(self, station: int) -> None:
        self._deal[self._dealing()] = station
        if MR_X in self._deal:
            self.match.reset(start=dict(self._deal))
            self._at_chance = False

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The stations the piece being dealt may start on, each equally likely (the chance
        node's actions are station numbers; :meth:`_dealing` says whose)."""
        draws = self._draws()
        return [(s, 1.0 / len(draws)) for s in draws]

    def _legal_actions(self, player: int) -> list[int]:
        if self._at_chance:
            return self._draws() if player == int(pyspiel.PlayerId.CHANCE) else []
        return list(self.match.legal_actions()) if player == self.current_player() else []

    def _apply_action(self, action: int) -> None:
        if self._at_chance:
            draws = self._draws()
            if int(action) not in draws:
                who = "Mr X" if self._dealing() == MR_X else self._dealing()
                raise ValueError(f"{action} is not one of {who}'s start stations {draws}")
            self.chance = (*self.chance, int(action))
            self._deal_one(int(action))
            self._skip_forced_draws()
            return
        self.match.apply(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            piece = self._dealing() if self._at_chance else MR_X
            return f"{'Mr X' if piece == MR_X else piece} starts at {action}"
        return describe_action(action)

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return not self._at_chance and self.match.game.is_over()

    def returns(self) -> list[float]:
        """+1 to the winner, -1 to the loser (0 while running)."""
        out = self.match.game.outcome()
        if out is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if out.winner == "mr_x" else [-1.0, 1.0]

    # ---- information -------------------------------------------------------------------------
    def _viewer(self, player: int) -> str:
        sel = self.match.selected
        if player == 0:
            return MR_X
        return sel if sel is not None and sel != MR_X else self._sy_game.rules.hunters[0]

    def info_string(self, player: int) -> str:
        """The player's information (perfect recall, see the module doc). Cached by the
        game per history (the start draw and the actions decide the state): tree
        algorithms such as CFR ask for the same strings every iteration."""
        cache = self._sy_game.info_cache
        key = (player, self.chance, tuple(self.actions))
        text = cache.get(key)
        if text is None:
            m = self.match
            view = m.game.view(self._viewer(player))
            extra = {"selected": m.selected, "wrapped": m.wrapped,
                     "pending": m.pending if player == 0 else None}
            text = json.dumps({"view": view.to_dict(), **extra}, sort_keys=True, default=str)
            if len(cache) >= _INFO_CACHE:
                cache.clear()
            cache[key] = text
        return text

    def obs_vector(self, player: int, layout: ObservationLayout) -> np.ndarray:
        """The envs' observation of the acting piece of ``player`` (``sy-obs-1``)."""
        m = self.match
        viewer = self._viewer(player)
        sel = m.selected
        view = m.game.view(viewer)
        return encode_view(view, selected=sel, pending=m.pending if player == 0 else None,
                           layout=layout)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ScotlandYardState:
        """A state the player cannot tell from this one (see the module doc)."""
        if player_id == 0 or self.is_terminal() or self._at_chance:
            return self.clone()  # type: ignore[no-any-return]
        seed = int(float(probability_sampler()) * 2**31)
        g = self.match.game
        public = Record.from_game(g).public()
        world: Game = public.reconstruct(random.Random(seed))
        if self.chance:  # the same public deal, Mr X's draw from the world
            state = self._sy_game.new_initial_state()
            while state.is_chance_node():
                piece = state._dealing()
                state.apply_action(world.start[piece])
        else:
            state = self._sy_game.new_initial_state(dict(world.start))
        for _piece, move in world.moves:
            target = state.match.game.ply + 1
            while state.match.game.ply < target:
                state.apply_action(state.match.action_toward(move))
        # the detectives' decisions of this round that moved nothing (defers)
        for _ in range(2 * len(self._sy_game.rules.pieces)):
            if (state.match.pointer, state.match.wrapped) == (self.match.pointer, self.match.wrapped):
                break
            state.apply_action(DEFER)
        return state

    def serialize(self) -> str:
        """The start stations and the actions, as JSON."""
        return json.dumps({"start": dict(self.match.game.start), "chance": self.chance,
                           "actions": self.actions})

    def __str__(self) -> str:
        from .render import render_text

        return render_text(self.match.game.view("spectator"), self.match.selected)


class _Observer:
    """OpenSpiel's PyObserver: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, layout: ObservationLayout, perfect_recall: bool) -> None:
        self.layout = layout
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = layout.split(self.tensor)

    def set_from(self, state: ScotlandYardState, player: int) -> None:
        self.tensor[:] = state.obs_vector(player, self.layout)

    def string_from(self, state: ScotlandYardState, player: int) -> str:
        if self.perfect_recall:
            return state.info_string(player)
        v = state.obs_vector(player, self.layout)
        return ",".join(f"{x:.4g}" for x in v)


pyspiel.register_game(_GAME_TYPE, ScotlandYardGame)

__all__ = ["ScotlandYardGame", "ScotlandYardState"]
