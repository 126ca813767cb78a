"""Location categorization (Nijssen & Winands 2012, section V): bias the detectives' guess of
Mr X's station by what Mr X did in self-play.

Each possible location gets a category: its minimum distance (detectives' network) to the
nearest detective or police piece, 1, 2, 3, 4 or 5+. One general table (the same for every
detective) holds a weight per category, learned from self-play:

    weight[c] = (times Mr X stood on a location of category c) /
                (possible locations of category c, summed over the positions seen)

that is, how likely a possible location of category c is to be the true one. A determinization
draws Mr X's station by one-step roulette: each possible location with probability
proportional to its category's weight.

Learn the table with :func:`.learn.learn_categorization`, or from the shell::

    python -m scotlandyard.ai.categorization --games 200 --out scotlandyard/data/categorization.json

The package ships the table it learned in ``scotlandyard/data/categorization.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ...board import Board, london
from ...move import MR_X
from ...view import PlayerView

CATEGORIES = ("1", "2", "3", "4", "5+")
#: How a determinization draws from the table (:meth:`CategoryWeights.location_weights`).
ROULETTES = ("one_step", "two_step")
DATA_FILE = "data/categorization.json"
#: The table of the ``nw`` agent, estimated as Nijssen's thesis does (``estimate="frequency"``):
#: ``categorization_weights="thesis"``.
THESIS_FILE = "data/categorization_thesis.json"
#: How a table is estimated from its counts: ``"ratio"`` (this package's first reading: hits of
#: a category over the possible locations of that category) or ``"frequency"`` (the thesis's:
#: how often Mr X's true location was of the category, over all the decisions counted) or
#: ``"presence"`` (how often Mr X's true location was of the category, over the decisions at
#: which the category held a possible location: a category's ``a / n`` in the paper's words).
ESTIMATES = ("ratio", "frequency", "presence")


def category(station: int, hunters: Iterable[int], board: Board) -> int:
    """The category index (0..4 for "1".."5+") of ``station``: its distance to the nearest of
    ``hunters`` on the detectives' network, capped at 5."""
    best = 5
    for h in hunters:
        d = board.distance_row(h)[station]
        if d < best:
            best = d
    return max(best, 1) - 1


@dataclass(frozen=True)
class CategoryWeights:
    """A learned general table: one weight per category, with the counts it came from."""

    weights: tuple[float, ...]
    hits: tuple[int, ...] = (0, 0, 0, 0, 0)
    available: tuple[int, ...] = (0, 0, 0, 0, 0)
    games: int = 0
    meta: Mapping[str, Any] = field(default_factory=dict)
    #: decisions at which the category held at least one possible location
    present: tuple[int, ...] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.weights) != len(CATEGORIES) or any(
                not isinstance(w, int | float) or w < 0 for w in self.weights):
            raise ValueError(f"categorization needs {len(CATEGORIES)} weights >= 0, not "
                             f"{self.weights!r}")
        if not any(self.weights):
            raise ValueError("categorization weights are all zero")

    @classmethod
    def uniform(cls) -> CategoryWeights:
        """Every category alike (a uniform determinization)."""
        return cls((1.0,) * len(CATEGORIES))

    @classmethod
    def from_counts(cls, hits: Iterable[int], available: Iterable[int], games: int = 0,
                    meta: Mapping[str, Any] | None = None, estimate: str = "ratio",
                    present: Iterable[int] | None = None) -> CategoryWeights:
        """Weights from counts (add-one smoothed so that no category is ever impossible):
        ``estimate="ratio"`` ``(hits + 1) / (available + 2)`` per category; ``"frequency"``
        ``(hits + 1) / (all hits + 5)``, the share of the decisions at which Mr X's true
        location was of the category; ``"presence"`` ``(hits + 1) / (present + 2)``, how often
        the true location was of the category when the category held a possible location
        (needs ``present``)."""
        if estimate not in ESTIMATES:
            raise ValueError(f"estimate is {', '.join(map(repr, ESTIMATES))}, not {estimate!r}")
        h = tuple(int(x) for x in hits)
        a = tuple(int(x) for x in available)
        n = tuple(int(x) for x in present) if present is not None else (0,) * len(h)
        if estimate == "presence" and present is None:
            raise ValueError("estimate='presence' needs the present counts")
        if estimate == "frequency":
            total = sum(h) + len(h)
            w = tuple((hi + 1) / total for hi in h)
        elif estimate == "presence":
            if any(hi > ni for hi, ni in zip(h, n, strict=True)):
                raise ValueError(f"a category cannot hold the true location more often than it "
                                 f"holds a possible one: hits {h}, present {n}")
            w = tuple((hi + 1) / (ni + 2) for hi, ni in zip(h, n, strict=True))
        else:
            w = tuple((hi + 1) / (av + 2) for hi, av in zip(h, a, strict=True))
        if estimate != "ratio":
            meta = {**dict(meta or {}), "estimate": estimate}
        return cls(w, h, a, games, dict(meta or {}), n)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the data file's content)."""
        return {
            "model": "minimum distance to the nearest detective, general table, one-step roulette",
            "categories": list(CATEGORIES),
            "weights": [round(w, 6) for w in self.weights],
            "hits": list(self.hits),
            "available": list(self.available),
            "present": list(self.present),
            "games": self.games,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CategoryWeights:
        """Read :meth:`to_dict` output (checked)."""
        if not isinstance(data, Mapping) or "weights" not in data:
            raise ValueError("a categorization table is an object with 'weights'")
        if list(data.get("categories", CATEGORIES)) != list(CATEGORIES):
            raise ValueError(f"categorization categories must be {list(CATEGORIES)}")
        return cls(tuple(float(w) for w in data["weights"]),
                   tuple(int(x) for x in data.get("hits", (0,) * 5)),
                   tuple(int(x) for x in data.get("available", (0,) * 5)),
                   int(data.get("games", 0)), dict(data.get("meta", {})),
                   tuple(int(x) for x in data.get("present", (0,) * 5)))

    def save(self, path: str | Path) -> None:
        """Write the table as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> CategoryWeights:
        """Read a table written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def location_weights(self, view: PlayerView, roulette: str = "one_step") -> dict[int, float]:
        """The roulette weight of each possible location in ``view`` (public facts only).

        ``roulette="one_step"``: each location weighs its category's weight. ``"two_step"``:
        a category is drawn first, with probability proportional to its weight among the
        categories that hold a possible location, then a location of it uniformly; as one
        draw, each location weighs its category's weight divided by the number of possible
        locations of that category."""
        if roulette not in ROULETTES:
            raise ValueError(f"roulette is {' or '.join(map(repr, ROULETTES))}, not {roulette!r}")
        board = london(view.rules.board)
        hunters = [s for p, s in view.stations.items() if p != MR_X]
        cats = {s: category(s, hunters, board) for s in sorted(view.possible)}
        if roulette == "one_step":
            return {s: self.weights[c] for s, c in cats.items()}
        sizes = [0] * len(CATEGORIES)
        for c in cats.values():
            sizes[c] += 1
        return {s: self.weights[c] / sizes[c] for s, c in cats.items()}


@cache
def default_weights() -> CategoryWeights:
    """The table the package ships (``scotlandyard/data/categorization.json``)."""
    text = resources.files("scotlandyard").joinpath(DATA_FILE).read_text()
    return CategoryWeights.from_dict(json.loads(text))


@cache
def thesis_weights() -> CategoryWeights:
    """The ``nw`` agent's table, estimated as the thesis does
    (``scotlandyard/data/categorization_thesis.json``)."""
    text = resources.files("scotlandyard").joinpath(THESIS_FILE).read_text()
    return CategoryWeights.from_dict(json.loads(text))


def resolve_weights(spec: CategoryWeights | str | Path | Mapping[str, Any] | None
                    ) -> CategoryWeights:
    """A table from a :class:`CategoryWeights`, a path, a dict, ``None`` (the shipped one) or
    ``"thesis"`` (:func:`thesis_weights`, the ``nw`` agent's)."""
    if spec is None:
        return default_weights()
    if isinstance(spec, str) and spec == "thesis":
        return thesis_weights()
    if isinstance(spec, CategoryWeights):
        return spec
    if isinstance(spec, str | Path):
        return CategoryWeights.load(spec)
    return CategoryWeights.from_dict(spec)
