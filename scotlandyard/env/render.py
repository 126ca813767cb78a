"""``rgb_array`` rendering: the public position drawn on the London board with matplotlib
(the Agg backend, no window), as a ``uint8[H, W, 3]`` array.

Only a spectator's view is drawn: the hunters, Mr X where his pawn stands (the last log slot
is a reveal), his possible locations (R-BELIEF) as rings, and the round. Needs matplotlib
(the ``plot`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..board import BoardName, Transport, london
from ..move import MR_X
from ..view import PlayerView

_LINE = {Transport.TAXI: ("#d9b53a", 0.6), Transport.BUS: ("#3a9d5d", 1.0),
         Transport.UNDERGROUND: ("#c0392b", 1.6), Transport.FERRY: ("#222222", 1.2)}
_PIECE_COLOURS = ("#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


def render_text(view: PlayerView, selected: str | None) -> str:
    """A few lines describing the public position of ``view``."""
    lines = [f"round {view.round}, " + (f"{selected} to act" if selected else
                                         (view.outcome.describe() if view.outcome else ""))]
    lines.append("  " + "  ".join(f"{p}@{s}" for p, s in view.stations.items()))
    lines.append("  log: " + " ".join(view.public_log()))
    lines.append(f"  Mr X may be on {len(view.possible)} stations")
    return "\n".join(lines)


class RendersPosition:
    """``render()`` and ``close()`` for the envs (they have ``match``, ``rules``,
    ``render_mode``, ``_started`` and ``_renderer``)."""

    match: Any
    rules: Any
    render_mode: str | None
    _started: bool
    _renderer: BoardRenderer | None

    def render(self) -> str | np.ndarray | None:
        """The public position (the spectator's view): text for ``ansi`` (printed for
        ``human``), an RGB image ``uint8[H, W, 3]`` for ``rgb_array`` (matplotlib, Agg)."""
        if self.render_mode is None or not self._started:
            return None
        view = self.match.game.view("spectator")
        if self.render_mode == "rgb_array":
            if self._renderer is None:
                self._renderer = BoardRenderer(self.rules.board)
            return self._renderer.draw(view, self.match.selected)
        text = render_text(view, self.match.selected)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Release the renderer's figure, if any."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


class BoardRenderer:
    """Draws positions of one board; the lines and stations are drawn once, the pieces on
    every :meth:`draw`."""

    def __init__(self, board: BoardName = "classic", *, width_px: int = 640, dpi: int = 80) -> None:
        """A renderer for ``board`` (``"classic"`` or ``"2014"``), ``width_px`` pixels wide."""
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.collections import LineCollection
            from matplotlib.figure import Figure
        except ModuleNotFoundError as exc:  # pragma: no cover - the plot extra is missing
            raise ModuleNotFoundError(
                "render_mode='rgb_array' needs matplotlib: pip install 'scotlandyard[plot]'") from exc
        b = london(board)
        self.board = b
        w_in = width_px / dpi
        self.fig = Figure(figsize=(w_in, w_in * b.height / b.width), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        ax = self.fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, b.width)
        ax.set_ylim(b.height, 0)
        ax.set_axis_off()
        for t, links in b.edges.items():
            colour, lw = _LINE[t]
            segs = [(b.positions[u], b.positions[v]) for u, v in links]
            ax.add_collection(LineCollection(segs, colors=colour, linewidths=lw,
                                             linestyles="dashed" if t == Transport.FERRY else "solid"))
        xy = np.array([b.positions[s] for s in b.all_stations])
        ax.scatter(xy[:, 0], xy[:, 1], s=6, c="#555555", zorder=2)
        self.ax = ax
        self._xy = xy
        self._dynamic: list[Any] = []

    def draw(self, view: PlayerView, selected: str | None = None) -> np.ndarray:
        """The image of ``view``'s public facts (``selected``: the piece to act, named in the
        title)."""
        for artist in self._dynamic:
            artist.remove()
        self._dynamic = []
        ax, xy = self.ax, self._xy
        poss = sorted(view.possible)
        if poss:
            p = xy[np.array(poss) - 1]
            self._dynamic.append(ax.scatter(p[:, 0], p[:, 1], s=60, facecolors="none",
                                            edgecolors="#e377c2", linewidths=1.2, zorder=3))
        hunters = [q for q in view.stations if q != MR_X]
        for k, q in enumerate(hunters):
            x, y = self.board.positions[view.stations[q]]
            colour = "#7f7f7f" if q.startswith("P") else _PIECE_COLOURS[k % len(_PIECE_COLOURS)]
            self._dynamic.append(ax.scatter([x], [y], s=140, c=colour, edgecolors="white", zorder=4))
            self._dynamic.append(ax.text(x, y, q, fontsize=6, color="white", ha="center",
                                         va="center", zorder=5))
        x_at = view.stations.get(MR_X)
        if x_at:
            x, y = self.board.positions[x_at]
            self._dynamic.append(ax.scatter([x], [y], s=160, c="black", marker="X", zorder=4))
        title = f"round {view.round}" + (f", {selected} to act" if selected else "")
        if view.outcome is not None:
            title = view.outcome.describe()
        self._dynamic.append(ax.text(8, 20, title, fontsize=9, zorder=6,
                                     bbox={"facecolor": "white", "alpha": 0.8, "linewidth": 0}))
        self.canvas.draw()  # type: ignore[no-untyped-call]
        rgba = np.asarray(self.canvas.buffer_rgba())  # type: ignore[no-untyped-call]
        return np.ascontiguousarray(rgba[:, :, :3])

    def close(self) -> None:
        """Drop the figure."""
        self.fig.clear()
