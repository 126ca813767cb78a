"""Exact exploitability on a small board: OpenSpiel's CFR on ``python_scotland_yard``.

Usage: python benchmarks/cfr_small.py [--preset tiny] [--iterations 50] [--algo cfr|cfr+]

The game is ``pyspiel.load_game("python_scotland_yard", {"preset": P, "random_start":
True})``: a small board of :mod:`scotlandyard.small_boards`, the start dealt at chance nodes
(the detective's card where he has more than one, then Mr X's from his possible start
stations, which the detectives do not see), the detectives' side one player. Each printed row is OpenSpiel's ``exploitability`` (NashConv / 2: how much
a best response gains against the policy, averaged over the two players; 0 is a Nash
equilibrium) of CFR's average policy after that many iterations, computed exactly over the
whole game tree, with Mr X's expected result under that policy (+1 win, -1 loss). The
uniform random policy is the baseline in the same run (the row "uniform").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402
from open_spiel.python.algorithms.get_all_states import get_all_states  # noqa: E402

import scotlandyard.env.openspiel  # noqa: E402,F401  (registers the game)
from scotlandyard.small_boards import SMALL_PRESETS, SUB_BOARDS  # noqa: E402


def checkpoints(n: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... up to ``n`` (and ``n``)."""
    out, k = [], 1
    while k <= n:
        for m in (1, 2, 5):
            if m * k <= n:
                out.append(m * k)
        k *= 10
    return sorted({*out, n})


def run(preset: str, iterations: int, algo: str, out: object = sys.stdout) -> list[tuple[int, float, float]]:
    """Run CFR; print and return ``(iteration, exploitability, Mr X's value)`` rows (iteration
    0 is the uniform policy)."""
    game = pyspiel.load_game("python_scotland_yard", {"preset": preset, "random_start": True})
    states = get_all_states(game, include_terminals=False, include_chance_states=False)
    infosets = [{s.information_state_string(p) for s in states.values() if s.current_player() == p}
                for p in (0, 1)]
    print(f"preset {preset}: {len(SUB_BOARDS[preset])} stations, "
          f"{SMALL_PRESETS[preset].description}", file=out)  # type: ignore[arg-type]
    print(f"{len(states)} decision states; information sets: Mr X {len(infosets[0])}, "
          f"detectives {len(infosets[1])}; algorithm {algo}", file=out)  # type: ignore[arg-type]
    root = game.new_initial_state()
    rows = []

    def show(it: int, pol: os_policy.Policy, took: float) -> None:
        e = float(exploitability.exploitability(game, pol))
        v = float(expected_game_score.policy_value(root, [pol, pol])[0])
        rows.append((it, e, v))
        label = "uniform" if it == 0 else f"{it:,}"
        print(f"{label:>9}  {e:14.4f}  {v:+12.4f}  {took:8.1f}", file=out)  # type: ignore[arg-type]

    print(f"{'iteration':>9}  {'exploitability':>14}  {'Mr X value':>12}  {'seconds':>8}",
          file=out)  # type: ignore[arg-type]
    show(0, os_policy.UniformRandomPolicy(game), 0.0)
    solver = cfr.CFRPlusSolver(game) if algo == "cfr+" else cfr.CFRSolver(game)
    t0 = time.perf_counter()
    marks = set(checkpoints(iterations))
    for it in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if it in marks:
            show(it, solver.average_policy(), time.perf_counter() - t0)
    return rows


def main() -> None:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="tiny", choices=[p for p in SMALL_PRESETS if p != "corner"])
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--algo", choices=["cfr", "cfr+"], default="cfr")
    args = ap.parse_args()
    run(args.preset, args.iterations, args.algo)


if __name__ == "__main__":
    main()
