"""Post-game analysis of a finished game (or one so far): how well Mr X stayed hidden.

For every slot of his travel log: how many stations the detectives could still think him on
(``belief.possible_history``), and the probability the detectives' map ("paths" model,
``belief.probability_map`` of the public view) gave his true station right after that move;
for every round, how close the nearest detective came (fewest moves on the detectives'
network, ``Board.distance``); his black tickets and double moves. The web page charts it
(``state.analysis`` at the end of a game) and ``scotlandyard replay --plot FILE`` draws it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .belief import possible_history, probability_map
from .game import Game
from .move import MR_X


def analyse(game: Game, p_true: Mapping[int, float] | None = None) -> dict[str, Any]:
    """The analysis of ``game`` (which keeps its true history; Mr X's stations are used).
    ``p_true``: the probabilities of his true station already known (by the length of his log
    right after the move; the web server keeps those of the maps it sent), computed here
    only where missing.

    Returns ``{"slots": [{slot, round, ticket, possible, p_true, reveal, double}],
    "rounds": [{round, distance, piece}], "closest": [the three rounds of least distance],
    "black": [slots], "doubles": [rounds]}``; ``p_true`` is ``None`` for the first slot of a
    double move (the map is computed once both steps are on the log).
    """
    replay = Game(game.rules, dict(game.start))
    counts = {slot: len(poss) for slot, _rnd, poss in possible_history(game.view("spectator"))}
    known = p_true or {}
    p_true = {}
    rounds: list[dict[str, Any]] = []

    def note_round() -> None:
        x = replay.station(MR_X)
        best: tuple[int, str] | None = None
        for piece, st in replay.stations.items():
            if piece == MR_X:
                continue
            d = replay.board.distance(st, x)
            if best is None or d < best[0]:
                best = (d, piece)
        if best is not None and replay.log:
            rounds.append({"round": replay.log[-1].round, "distance": best[0], "piece": best[1]})

    for piece, move in game.moves:
        if piece == MR_X and replay.log and (not rounds or rounds[-1]["round"] != replay.log[-1].round):
            note_round()  # the detectives' moves of the last round are done
        before = len(replay.log)
        replay.push(move)
        if piece == MR_X and len(replay.log) > before:
            filled = len(replay.log)
            if filled in known:
                p_true[filled] = float(known[filled])
            else:
                prob = probability_map(replay.view("spectator"), "paths")
                p_true[filled] = float(prob.get(replay.station(MR_X), 0.0))
    if replay.log and (not rounds or rounds[-1]["round"] != replay.log[-1].round):
        note_round()
    slots = [{
        "slot": e.slot, "round": e.round, "ticket": e.ticket.name.lower(),
        "possible": counts.get(e.slot), "p_true": p_true.get(e.slot),
        "reveal": e.reveal, "double": e.double,
    } for e in replay.log]
    closest = sorted(rounds, key=lambda r: (r["distance"], r["round"]))[:3]
    return {
        "slots": slots,
        "rounds": rounds,
        "closest": sorted(closest, key=lambda r: r["round"]),
        "black": [e.slot for e in replay.log if e.ticket.name.lower() == "black"],
        "doubles": sorted({e.round for e in replay.log if e.double}),
    }


def plot(analysis: dict[str, Any], path: str, title: str = "Scotland Yard") -> None:
    """Draw ``analysis`` as a PNG at ``path`` with matplotlib (the ``plot`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slots = analysis["slots"]
    xs = [s["slot"] for s in slots]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.2), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    top.bar(xs, [s["possible"] or 0 for s in slots], color=["#111" if s["ticket"] == "black" else "#9db4cf"
                                                          for s in slots], label="stations Mr X may be on")
    for s in slots:
        if s["reveal"]:
            top.axvline(s["slot"], color="#d7263d", lw=1, ls=":")
    top.set_ylabel("possible stations")
    top.set_title(title)
    ax2 = top.twinx()
    pts = [(s["slot"], s["p_true"]) for s in slots if s["p_true"] is not None]
    ax2.plot([p[0] for p in pts], [p[1] for p in pts], color="#d62828", marker="o", lw=2,
             label="p(true station) on the detectives' map")
    ax2.set_ylim(0, 1.05)
    ax2.set_ylabel("probability of his true station", color="#d62828")
    rounds = analysis["rounds"]
    slot_of_round: dict[int, int] = {}
    for s in slots:
        slot_of_round[s["round"]] = s["slot"]
    bx = [slot_of_round.get(r["round"], 0) for r in rounds]
    bottom.plot(bx, [r["distance"] for r in rounds], color="#1f5fbf", marker="s", lw=2)
    for i, r in enumerate(analysis["closest"]):
        bottom.annotate(f"round {r['round']}: {r['piece']}", (slot_of_round.get(r["round"], 0), r["distance"]),
                        textcoords="offset points", xytext=(4, 8 + 13 * i), fontsize=8,
                        arrowprops={"arrowstyle": "-", "color": "#888", "lw": 0.6})
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.set_ylabel("nearest detective (moves)")
    bottom.set_xlabel("Mr X's log slot (black bars: black tickets; dotted: reveals)")
    bottom.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
