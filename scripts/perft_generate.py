#!/usr/bin/env python3
"""Write ``tests/perft/*.perft``: exact move-tree counts from ``Game`` (the reference).

Usage: python scripts/perft_generate.py [--check-only]

Every case is a fixed position (a seeded start, or a start and the moves that reach a
mid-game position found by seeded random play: double moves and black tickets available, a
voluntary reveal with takes pending, the detectives' free order mid-round, passes, the end
in sight). Counts come from ``game_perft``; each is checked against the kernel
(``Position.perft``) and, for the classic five-detective positions, against the independent
naive loop of ``../shared/bench/py_naive.py`` when it is there (imported, not copied).
``--check-only`` recomputes the files' counts and reports any difference.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scotlandyard import Game, Rules  # noqa: E402
from scotlandyard.kernel import PerftCase, Position, game_perft, read_perft  # noqa: E402

OUT = ROOT / "tests" / "perft"
GAME_BUDGET = 60_000  # the deepest depth whose parent level has at most this many positions


def find(rules: Rules, want: Callable[[Game], bool], seed: int, tries: int = 400
         ) -> tuple[int, list[str]]:
    """A seed and the moves of seeded random play that reach a position where ``want``."""
    for k in range(tries):
        s = seed * 1000 + k
        g = Game.new(rules, seed=s)
        rng = random.Random(s)
        while not g.is_over():
            if want(g):
                return s, [m.notation() for _, m in g.moves]
            ms = g.legal_moves()
            g.push(ms[rng.randrange(len(ms))])
    raise SystemExit(f"no position found for {rules.variant} seed {seed}")


def mr_x_with(double: bool, black: bool, min_round: int) -> Callable[[Game], bool]:
    def want(g: Game) -> bool:
        if g.to_move != "X" or g.pending_take or g.round < min_round:
            return False
        t = g.tickets("X")
        ms = g.legal_moves()
        return ((not double or (bool(t[4]) and any(m.is_double for m in ms)))  # type: ignore[index]
                and (not black or bool(t[3])))  # type: ignore[index]
    return want


def free_order_mid_round(g: Game) -> bool:
    return g.side_to_move == "detectives" and 1 < len(g.pieces_to_move) < len(g.pieces) - 1 \
        and g.round >= 3


def pending_take(g: Game) -> bool:
    return g.pending_take is not None


def before_reveal(g: Game) -> bool:
    return g.to_move == "X" and not g.pending_take and len(g.log) + 1 in g.rules.reveal_slots \
        and g.round > 1


def hunter_passes(g: Game) -> bool:
    return g.side_to_move == "detectives" and any(m.is_pass for m in g.legal_moves())


def last_round(g: Game) -> bool:
    return g.round == g.rules.last_round and g.to_move == "X"


def cases() -> dict[str, list[PerftCase]]:
    """Every case, by file name."""
    files: dict[str, list[PerftCase]] = {}

    def add(file: str, cid: str, preset: str, seed: int, moves: list[str] | None = None,
            detectives: int | None = None, changes: dict[str, Any] | None = None,
            depth: int = 4) -> None:
        files.setdefault(file, []).append(PerftCase(
            id=cid, preset=preset, detectives=detectives, rules_changes=changes or {},
            seed=seed, moves=moves or [], counts=[depth]))  # depth wanted, counts later

    def add_found(file: str, cid: str, preset: str, want: Callable[[Game], bool], seed: int,
                  detectives: int | None = None, changes: dict[str, Any] | None = None,
                  depth: int = 4) -> None:
        c = PerftCase(id=cid, preset=preset, detectives=detectives, rules_changes=changes or {})
        s, moves = find(c.rules(), want, seed)
        add(file, cid, preset, s, moves, detectives, changes, depth)

    # classic (1983), 5 and 3 detectives
    add("classic", "classic-start-seed-1", "classic", 1)
    add("classic", "classic-start-seed-2", "classic", 2)
    add("classic", "classic3-start-seed-3", "classic", 3, detectives=3)
    add_found("classic", "classic-mid-double-black", "classic", mr_x_with(True, True, 4), 11)
    add_found("classic", "classic-before-reveal", "classic", before_reveal, 12)
    add_found("classic", "classic-detective-passes", "classic", hunter_passes, 13)
    add_found("classic", "classic-last-round", "classic", last_round, 14)
    add_found("classic", "classic1-mid-double", "classic", mr_x_with(True, False, 3), 15,
              detectives=1)
    # the Polish and Russian books (Mr X 4/3/2 and 4/3/3, reveals at moves 3, 8, 13, 18)
    add("classic", "classic-pl-start-seed-4", "classic_pl", 4)
    add_found("classic", "classic-pl-mid-double-black", "classic_pl", mr_x_with(True, True, 4),
              16)
    add("classic", "classic-ru-start-seed-5", "classic_ru", 5)
    add_found("classic", "classic-ru-before-reveal", "classic_ru", before_reveal, 17)
    # new edition (2014): police, free order, unlimited Mr X
    add("new_edition", "new4-start-seed-1", "new_edition", 1, detectives=4, depth=3)
    add("new_edition", "new3-start-seed-2", "new_edition", 2, detectives=3, depth=3)
    add("new_edition", "new2-start-seed-3", "new_edition", 3, detectives=2, depth=3)
    add_found("new_edition", "new3-free-order-mid-round", "new_edition", free_order_mid_round,
              21, detectives=3)
    add_found("new_edition", "new4-mid-double-black", "new_edition", mr_x_with(True, True, 2),
              22, detectives=4, depth=3)
    add_found("new_edition", "new1-mid-double", "new_edition", mr_x_with(True, False, 3), 23,
              detectives=1, depth=3)
    add_found("new_edition", "new4-last-round", "new_edition", last_round, 24, detectives=4)
    scarce = {"detective_tickets": [5, 3, 1]}  # detectives run dry: R-END (3), R-ORDER-FREE
    add_found("new_edition", "new2-scarce-detective-passes", "new_edition", hunter_passes, 25,
              detectives=2, changes=scarce)
    add_found("new_edition", "new2-scarce-police-keep-hunting", "new_edition", hunter_passes,
              26, detectives=2, changes={**scarce, "police_keep_hunting": True})
    # two-player variants
    add("two_players", "classic-2p-start-seed-5", "classic_2p", 5)
    add_found("two_players", "classic-2p-mid-double", "classic_2p", mr_x_with(True, True, 4), 31)
    add("two_players", "new-2p-start-seed-6", "new_edition_2p", 6, depth=3)
    add_found("two_players", "new-2p-free-order-mid-round", "new_edition_2p",
              free_order_mid_round, 32)
    # R-VAR-EXTRA-REVEAL
    xr = {"extra_reveal": True}
    add("extra_reveal", "classic4-extra-reveal-start", "classic", 1, detectives=4, changes=xr)
    add_found("extra_reveal", "classic4-extra-reveal-takes-pending", "classic", pending_take,
              41, detectives=4, changes=xr)
    add_found("extra_reveal", "classic5-extra-reveal-mid-double", "classic",
              mr_x_with(True, True, 4), 42, changes=xr)
    add_found("extra_reveal", "new3-extra-reveal-takes-pending", "new_edition", pending_take,
              43, detectives=3, changes=xr, depth=3)
    return files


def counts_for(case: PerftCase, depth: int) -> list[int]:
    """Game's counts to ``depth``; a depth is left out when the level above it has more than
    GAME_BUDGET positions (each of them is one push and one legal_moves call)."""
    game = case.game()
    out = game_perft(game, 1)
    while len(out) < depth and out[-1] <= GAME_BUDGET:
        out = game_perft(game, len(out) + 1)
    return out


def load_naive() -> ModuleType | None:
    path = ROOT.parent / "shared" / "bench" / "py_naive.py"
    if not path.exists():
        path = Path("/work/shared/bench/py_naive.py")
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("py_naive", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def naive_perft(naive: ModuleType, game: Game, depth: int) -> list[int]:
    """The same counts through py_naive's NaiveGame, set to ``game``'s position."""
    ng = naive.NaiveGame(naive.Board(), random.Random(0), track=False)
    names = (naive.TAXI, naive.BUS, naive.UNDERGROUND, naive.BLACK, naive.DOUBLE)
    ng.mrx = game.station("X")
    ng.detectives = [game.station(p) for p in game.pieces[1:]]
    ng.mrx_tickets = {names[k]: v for k, v in enumerate(game.tickets("X").values())}
    ng.detective_tickets = [{names[k]: v for k, v in enumerate(game.tickets(p).values())}
                            for p in game.pieces[1:]]
    ng.round = game.round
    ng.slot = len(game.log)
    ng.to_move = game.pieces.index(game.to_move)  # type: ignore[arg-type]
    counts = [0] * depth

    def walk(g: Any, d: int) -> None:
        moves = g.legal_moves()
        counts[d] += len(moves)
        if d + 1 == depth:
            return
        for m in moves:
            h = copy.copy(g)  # the board is shared; the mutable parts are copied
            h.detectives = list(g.detectives)
            h.mrx_tickets = dict(g.mrx_tickets)
            h.detective_tickets = [dict(t) for t in g.detective_tickets]
            h.push(m)
            if not h.is_over():
                walk(h, d + 1)

    walk(ng, 0)
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args()
    naive = load_naive()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.check_only:
        bad = 0
        for path in sorted(OUT.glob("*.perft")):
            for case in read_perft(path):
                got = game_perft(case.game(), len(case.counts))
                if got != case.counts:
                    bad += 1
                    print(f"{path.name} {case.id}: file {case.counts}, Game {got}")
        raise SystemExit(1 if bad else 0)
    for file, cs in cases().items():
        text = [f"# {file}.perft: exact move-tree counts from Game (the reference engine).\n"
                f"# Written by scripts/perft_generate.py; format in docs/kernel.md.\n"]
        for case in cs:
            t = time.perf_counter()
            case.counts = counts_for(case, case.counts[0])
            game = case.game()
            kernel = Position.from_game(game).perft(len(case.counts))
            if kernel != case.counts:
                raise SystemExit(f"{case.id}: Game {case.counts} but the kernel {kernel}")
            note = ""
            rules = case.rules()
            if naive is not None and rules == Rules.classic(5) and not game.is_over():
                d = min(3, len(case.counts))
                got = naive_perft(naive, game, d)
                if got != case.counts[:d]:
                    raise SystemExit(f"{case.id}: Game {case.counts[:d]} but py_naive {got}")
                note = f"  # py_naive agrees to depth {d}"
            block = case.to_text()
            if note:
                block = block.replace(f"perft 1 {case.counts[0]}\n",
                                      f"perft 1 {case.counts[0]}{note}\n", 1)
            text.append(block)
            print(f"{file}: {case.id} {case.counts} ({time.perf_counter() - t:.1f}s){note}")
        (OUT / f"{file}.perft").write_text("\n".join(text), encoding="utf-8")


if __name__ == "__main__":
    main()
