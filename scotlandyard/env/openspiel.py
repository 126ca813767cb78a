"""Scotland Yard as an OpenSpiel Python game: ``pyspiel.load_game("python_scotland_yard")``.

>>> import pyspiel
>>> import scotlandyard.env.openspiel  # registers the game
>>> game = pyspiel.load_game("python_scotland_yard", {"preset": "new_edition", "seed": 3})
>>> state = game.new_initial_state()
>>> state.current_player()
0

Needs ``open_spiel`` (the ``openspiel`` extra). Choices, documented in ``docs/env.md``:

- **Two players**: 0 is Mr X, 1 is the detectives' side as *one* player (a coalition that
  shares one information state: the detectives' public view; ``selected`` says which piece
  acts). Zero-sum, terminal rewards ±1.
- Actions are the envs' decisions (``Discrete(2393)``, ``scotlandyard.env.actions``): a
  double move is two Mr X actions, free-order hunters may ``defer``.
- Parameters: ``preset`` (a preset name: a book's, or a small board's of
  :mod:`scotlandyard.small_boards` such as ``tiny``), ``detectives`` (0: the preset's),
  ``seed`` (the start stations, drawn per R-SETUP from it), ``random_start`` (default false:
  no chance nodes, vary ``seed`` for other starts; true: the root is a chance node drawing
  Mr X's start uniformly from his possible start stations — his deck less the hunters'
  stations, what the detectives know — so that exploitability is over his hidden start too),
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
           "random_start": False}

_INFO_CACHE = 500_000  # information strings kept per game (then the cache starts again)

_GAME_TYPE = pyspiel.GameType(
    short_name="python_scotland_yard",
    long_name="Python Scotland Yard",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,  # only with random_start
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
        """``params``: ``preset``, ``detectives``, ``seed``, ``board_features``."""
        p = {**_PARAMS, **(params or {})}
        self.rules = _rules(p)
        self.seed = int(p["seed"])
        self.random_start = bool(p["random_start"])
        self.layout = ObservationLayout.for_rules(self.rules, board_features=bool(p["board_features"]))
        # the hunters' start stations (from ``seed``) and Mr X's possible starts around them
        self.info_cache: dict[tuple[int, int | None, tuple[int, ...]], str] = {}
        self.root_match = Match(self.rules)
        self.root_match.reset(seed=self.seed)
        self.start = self.root_match.game.start
        hunters = {s for piece, s in self.start.items() if piece != MR_X}
        self.mr_x_starts = tuple(sorted(set(self.rules.start_deck_mr_x) - hunters))
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
        """The start of a game (stations from ``seed``, or ``start``; with ``random_start``
        and no ``start``, the chance node that draws Mr X's station)."""
        return ScotlandYardState(self, start)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer for the tensors and strings."""
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return _Observer(self.layout, perfect)

    def deserialize_state(self, text: str) -> ScotlandYardState:
        """The state :meth:`ScotlandYardState.serialize` wrote."""
        data = json.loads(text)
        if data.get("chance") is not None:
            state = self.new_initial_state()
            state.apply_action(int(data["chance"]))
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
        self.chance: int | None = None  # Mr X's start drawn at the chance node
        self._at_chance = start is None and game.random_start
        # OpenSpiel clones a state through here, then copies its attributes: start from a
        # copy of the game's first position rather than a new game
        if start is None:
            self.match: Match = copy.deepcopy(game.root_match)
        else:
            self.match = Match(game.rules)
            self.match.reset(start=start)
        self.actions: list[int] = []

    # ---- turn -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """0 Mr X, 1 the detectives, chance (Mr X's start, with ``random_start``), or terminal."""
        if self._at_chance:
            return int(pyspiel.PlayerId.CHANCE)
        sel = self.match.selected
        if sel is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return 0 if sel == MR_X else 1

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Mr X's possible start stations, each equally likely (the chance node's actions are
        station numbers)."""
        starts = self._sy_game.mr_x_starts
        return [(s, 1.0 / len(starts)) for s in starts]

    def _legal_actions(self, player: int) -> list[int]:
        if self._at_chance:
            return list(self._sy_game.mr_x_starts) if player == int(pyspiel.PlayerId.CHANCE) else []
        return list(self.match.legal_actions()) if player == self.current_player() else []

    def _apply_action(self, action: int) -> None:
        if self._at_chance:
            if int(action) not in self._sy_game.mr_x_starts:
                raise ValueError(f"{action} is not one of Mr X's start stations "
                                 f"{list(self._sy_game.mr_x_starts)}")
            self.match.reset(start={**self._sy_game.start, MR_X: int(action)})
            self.chance = int(action)
            self._at_chance = False
            return
        self.match.apply(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            return f"Mr X starts at {action}"
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
        if self.chance is not None:
            state = self._sy_game.new_initial_state()
            state.apply_action(world.start[MR_X])
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
