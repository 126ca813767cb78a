"""The versus protocol of benchmarks/nijssen_winands.py: its arms, its rounds, its table.

No game is played here: ``run_arena`` is replaced by a stand-in that records its calls and
returns made-up results, so the tests check the protocol and the statistics, not strength.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from scotlandyard.ai.arena import ArenaConfig, ArenaResult
from scotlandyard.ai.arena.play import GameResult
from scotlandyard.ai.stats import difference_interval
from tests.conftest import load_benchmark

nw = load_benchmark("nijssen_winands")


@pytest.mark.parametrize(("a", "n_a", "b", "n_b", "lo", "hi"), [
    # Newcombe (1998), Statistics in Medicine 17:873-890, table II, method 10
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
    (10, 10, 0, 10, 0.6075, 1.0),
    (0, 10, 0, 20, -0.1611, 0.2775),
])
def test_difference_interval_is_newcombes_hybrid_score_interval(
        a: int, n_a: int, b: int, n_b: int, lo: float, hi: float) -> None:
    got_lo, got_hi = difference_interval(a, n_a, b, n_b)
    assert got_lo == pytest.approx(lo, abs=5e-5) and got_hi == pytest.approx(hi, abs=5e-5)
    # swapping the arms mirrors the interval
    m_lo, m_hi = difference_interval(b, n_b, a, n_a)
    assert (m_lo, m_hi) == pytest.approx((-got_hi, -got_lo))


def test_difference_interval_knows_nothing_without_games_and_rejects_bad_counts() -> None:
    assert difference_interval(3, 5, 0, 0) == (-1.0, 1.0)
    with pytest.raises(ValueError):
        difference_interval(6, 5, 1, 5)


def test_fisher_exact_matches_published_values() -> None:
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70
    assert nw.fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert nw.fisher_exact(5, 10, 5, 10) == 1.0
    assert nw.fisher_exact(10, 10, 0, 10) == pytest.approx(2 / 184756)


def test_versus_arms_hold_both_roles_at_each_budget_and_share_the_curve_points() -> None:
    plan = nw.versus_arms([1000, 4000], [1000, 4000, 16000], ("mr_x", "detectives"),
                          ("mcts",), 4000)
    sections = [s for s, _, _ in plan]
    for b in (1000, 4000):
        mr_x = [(a, r) for s, a, r in plan if s == f"equal budget {b}: mcts as Mr X"]
        det = [(a, r) for s, a, r in plan
               if s == f"equal budget {b}: mcts as detectives (roles swapped)"]
        assert len(mr_x) == len(det) == 1
        # the roles swapped against the same nw-vs-nw arm, both sides at the same budget
        assert mr_x[0][1] == det[0][1] == nw.Arm(f"nw vs nw, {b}", "nw", "nw", b, b)
        assert (mr_x[0][0].mr_x, mr_x[0][0].detectives) == ("mcts", "nw")
        assert (det[0][0].mr_x, det[0][0].detectives) == ("nw", "mcts")
        assert mr_x[0][0].mr_x_playouts == mr_x[0][0].detectives_playouts == b
    # each curve: three points against nw at 4000, each against the one before, then 16k - 1k
    for side, section in (("mr_x", "budget curve: mcts Mr X"),
                          ("detectives", "budget curve: mcts detectives")):
        rows = [(a, r) for s, a, r in plan if s == section]
        budgets = [a.mr_x_playouts if side == "mr_x" else a.detectives_playouts
                   for a, _ in rows]
        assert budgets == [1000, 4000, 16000]
        assert [r for _, r in rows] == [None, rows[0][0], rows[1][0]]
        last = [(a, r) for s, a, r in plan if s == f"{section}: 16000 over 1000"]
        assert last == [(rows[2][0], rows[0][0])]
    assert len(sections) == 4 + 2 * 4
    # the equal-budget arm at 4000 is the 4000 point of both curves: one run, not two
    args = argparse.Namespace(games=10, seconds=None, seed=2012, workers=1, backend="local",
                              best_opt={})
    hashes = {nw.versus_config(a, args).config_hash
              for _, arm, ref in plan for a in (arm, ref) if a is not None}
    assert len(hashes) == 10


def test_versus_arms_without_a_third_point_add_no_endpoint_row() -> None:
    plan = nw.versus_arms([], [1000, 4000], ("mr_x",), ("mcts",), 4000)
    assert [s for s, _, _ in plan] == ["budget curve: mcts Mr X"] * 2


def _args(**kw: Any) -> argparse.Namespace:
    base: dict[str, Any] = dict(games=4, seconds=None, seed=2012, workers=1, backend="local", best_opt={},
                budgets=[1000], curve=[], curve_sides=["mr_x"], curve_agents=["mcts"],
                curve_fixed=None, equal_sides=["mr_x", "detectives"], max_new_games=None,
                no_progress=True, out="unused", round_size=None)
    base.update(kw)
    return argparse.Namespace(**base)


class FakeArena:
    """Stands in for run_arena: records (arm, games asked, max_games) and 'plays' games in
    which Mr X wins when mcts plays him, the detectives win when mcts plays them, and nw
    against nw splits them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []
        self.done: dict[str, int] = {}

    def __call__(self, cfg: ArenaConfig, out: Path, progress: bool = True, *,
                 max_games: int | None = None) -> ArenaResult:
        h = cfg.config_hash
        self.calls.append((f"{cfg.mr_x}-{cfg.detectives}", cfg.games, max_games))
        have = self.done.get(h, 0)
        todo = max(0, cfg.games - have)
        if max_games is not None:
            todo = min(todo, max_games)
        self.done[h] = have + todo
        games = []
        for i in range(self.done[h]):
            winner = ("mr_x" if cfg.mr_x == "mcts" else "detectives" if cfg.detectives == "mcts"
                      else ("mr_x" if i % 2 else "detectives"))
            games.append(GameResult(index=i, seed=i, winner=winner, reason="x", round=5,
                                    plies=20, moves={"mr_x": 5, "detectives": 15},
                                    think={"mr_x": 1.0, "detectives": 3.0},
                                    think_max={"mr_x": 0.5, "detectives": 0.5}))
        return ArenaResult(cfg, out, games, todo)


def test_rounds_bring_every_arm_to_a_rounds_games_before_any_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeArena()
    monkeypatch.setattr(nw, "run_arena", fake)
    rows = nw.run_versus(_args(games=5, round_size=2))
    # three runs (mcts-nw, nw-nw, nw-mcts), rounds of 2: 2, 4, then the last round to 5
    assert [g for _, g, _ in fake.calls] == [2] * 3 + [4] * 3 + [5] * 3
    assert sorted({a for a, _, _ in fake.calls}) == ["mcts-nw", "nw-mcts", "nw-nw"]
    assert all(r["games"] == 5 for r in rows)
    # without --round-size: one round
    fake2 = FakeArena()
    monkeypatch.setattr(nw, "run_arena", fake2)
    nw.run_versus(_args(games=5))
    assert [g for _, g, _ in fake2.calls] == [5] * 3


def test_rounds_keep_max_new_games_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeArena()
    monkeypatch.setattr(nw, "run_arena", fake)
    rows = nw.run_versus(_args(games=6, round_size=3, max_new_games=1))
    assert all(m == 1 for _, _, m in fake.calls)
    assert all(r["games"] == 2 for r in rows)  # two rounds, one new game each


def test_versus_rows_give_the_difference_its_interval_p_and_the_issues_aim(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nw, "run_arena", FakeArena())
    rows = nw.run_versus(_args(games=40, curve=[1000, 4000, 16000], curve_fixed=4000))
    by = {r["section"]: r for r in rows}
    mr_x = by["equal budget 1000: mcts as Mr X"]
    det = by["equal budget 1000: mcts as detectives (roles swapped)"]
    # the fake: mcts wins every game, nw vs nw splits 20/40
    assert (mr_x["side"], mr_x["wins"], mr_x["games"]) == ("mr_x", 40, 40)
    assert (det["side"], det["wins"], det["games"]) == ("detectives", 40, 40)
    for r in (mr_x, det):
        assert r["diff"] == pytest.approx(0.5)
        assert r["p"] == pytest.approx(nw.fisher_exact(40, 40, 20, 40))
        assert r["dci"] == pytest.approx(difference_interval(40, 40, 20, 40))
    assert (mr_x["aim"], det["aim"]) == (0.10, 0.05)
    assert nw.aim_verdict(mr_x) == "+10: met, interval above"
    assert nw.aim_verdict(det) == "+5: met, interval above"
    # a curve of ours aims at a rise; its first point has nothing to compare with
    curve = [r for r in rows if r["section"].startswith("budget curve: mcts Mr X")]
    assert "aim" not in curve[0] and "p" not in curve[0]
    assert [r["aim"] for r in curve[1:]] == [0.0, 0.0, 0.0]
    assert nw.aim_verdict(curve[1]) == "rising: not met"  # mcts wins all at every budget


@pytest.mark.parametrize(("wins", "ref", "n", "aim", "verdict"), [
    (60, 40, 100, 0.10, "+10: met"),                      # +20, p = 0.007, interval +6 to +33
    (380, 200, 400, 0.10, "+10: met, interval above"),    # interval +39 to +50
    (20, 12, 40, 0.10, "+10: not shown (p >= 0.05)"),     # +20, p = 0.11
    (42, 40, 100, 0.10, "+10: not met"),                  # +2, interval -11 to +15
    (200, 300, 400, 0.05, "+5: not met, interval below"),  # interval -31 to -18
    (40, 30, 60, 0.0, "rising: not shown (p >= 0.05)"),   # +17, p = 0.095
    (30, 30, 60, 0.0, "rising: not met"),
])
def test_aim_verdict(wins: int, ref: int, n: int, aim: float, verdict: str) -> None:
    row = {"aim": aim, "diff": (wins - ref) / n, "p": nw.fisher_exact(wins, n, ref, n),
           "dci": difference_interval(wins, n, ref, n)}
    assert nw.aim_verdict(row) == verdict
    assert nw.aim_verdict({"diff": 0.5, "p": 0.0, "dci": (0.4, 0.6)}) == ""  # no aim, no cell


def test_versus_table_has_a_cell_per_column_and_marks_empty_arms(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeArena()
    monkeypatch.setattr(nw, "run_arena", fake)
    rows = nw.run_versus(_args(games=10, curve=[1000, 4000, 16000], curve_fixed=4000))
    rows[1]["games"] = 0  # as an arm that has not played yet
    for k in ("diff", "p", "dci", "aim"):
        rows[1].pop(k, None)
    lines = nw.versus_table(rows).splitlines()
    widths = {line.count("|") for line in lines}
    assert widths == {12}, lines
    assert "difference 95% CI" in lines[0] and "aim" in lines[0]
    assert "no games yet" in lines[3]
    assert "+10: met" in lines[2]


def test_write_versus_replaces_its_block_and_keeps_the_rest(tmp_path: Path) -> None:
    doc = tmp_path / "experiments.md"
    doc.write_text("# Experiments\n\nintro\n\n## Other\n\nkept text\n")
    args = _args(games=400)
    nw.write_versus(doc, "| table one |\n", args)
    nw.write_versus(doc, "| table two |\n", args)
    text = doc.read_text()
    assert text.count(nw.VERSUS_BEGIN) == 1 and text.count(nw.VERSUS_END) == 1
    assert "table two" in text and "table one" not in text
    assert "## Other\n\nkept text" in text and text.startswith("# Experiments\n\nintro")
    assert "UTC (load " in text


def test_table_7_10_plays_each_budget_and_sample_and_pools_them(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = FakeArena()
    monkeypatch.setattr(nw, "run_arena", fake)
    args = argparse.Namespace(games=4, round_size=2, budgets=[1000, 2500], samples=[11, 2012],
                              workers=1, backend="local", out=str(tmp_path), no_progress=True,
                              max_new_games=None)
    rows = nw.run_table_7_10(args)
    # rounds of 2 over the four runs (two budgets x two start samples), then to 4
    assert [g for _, g, _ in fake.calls] == [2] * 4 + [4] * 4
    assert [(r["budget"], r["sample"]) for r in rows] == [
        (1000, "11"), (1000, "2012"), (1000, "pooled"),
        (2500, "11"), (2500, "2012"), (2500, "pooled")]
    pooled = [r for r in rows if r["sample"] == "pooled"]
    assert all(r["games"] == 8 and r["wins"] == 4 for r in pooled)  # the fake splits games


def test_table_7_10_text_judges_against_the_thesis_with_both_intervals() -> None:
    rows = [{"budget": 1000, "sample": "pooled", "wins": 172, "games": 400},   # 43.0%
            {"budget": 1000, "sample": "11", "wins": 60, "games": 200},        # 30.0%
            {"budget": 2500, "sample": "pooled", "wins": 0, "games": 0}]
    text = nw.table_7_10_text(rows)
    lines = text.splitlines()
    assert len(lines) == 5 and all(line.count("|") == 10 for line in lines)
    assert "43.0 +/- 3.1" in lines[2] and "+0.0" in lines[2] and lines[2].endswith("yes |")
    # 30% on 200 games: half-width 6.4, combined with 3.1: 7.1 < 13.0 points
    assert "-13.0" in lines[3] and "7.1" in lines[3] and "**no**" in lines[3]
    assert "0/0" in lines[4]


@pytest.mark.parametrize("side", ["mr_x", "detectives"])
def test_the_paper_runs_base_arm_is_nw_setting_for_setting(side: str) -> None:
    """Every arm of the paper's comparisons starts from ``nw``: the ``mcts`` agent given the
    base options plays with exactly ``nw``'s settings (a base that left the later switches to
    the ``mcts`` agent's defaults once played its detectives with a ticket reserve)."""
    import dataclasses

    from scotlandyard.ai import make_agent

    def differ_from_nw(opts: dict[str, Any]) -> set[str]:
        got, ref = make_agent(nw.AGENT, side=side, **opts).options, make_agent("nw", side=side).options
        return {f.name for f in dataclasses.fields(ref) if getattr(got, f.name) != getattr(ref, f.name)}

    assert differ_from_nw(nw.options(side)) == set()
    # and a switch changes only its own settings
    assert differ_from_nw(nw.options(side, "coalition", on=False)) == {"coalition_reduction"}


def test_write_doc_replaces_only_its_own_section(tmp_path: Path) -> None:
    """``--write`` rewrites "Nijssen & Winands (2012), re-run" and its subsections, and keeps
    every other section of docs/experiments.md (it once rewrote the whole file)."""
    doc = tmp_path / "experiments.md"
    before = "# Experiments\n\n## Session 11\n\nkept one\n\n"
    after = (f"{nw.VERSUS_BEGIN}\n## Our agents\n\nversus text\n{nw.VERSUS_END}\n\n"
             "## Learned parts\n\nkept two\n")
    doc.write_text(before + f"{nw.PAPER_HEADING}\n\nold table\n\n### Reading\n\nold reading\n\n"
                   + after)
    rows = [{"comparison": "coalition", "variant": "on", "side": "detectives", "paper": "x",
             "hash": "h", "wins": 3, "games": 4, "rate": 0.75, "ci": (0.3, 0.95), "errors": 0}]
    args = _args(games=4, budget=1000, quick=False)
    nw.write_doc(doc, "| new table |\n", args, rows)
    text = doc.read_text()
    assert text.startswith(before + nw.PAPER_HEADING)
    assert "| new table |" in text and "old table" not in text and "old reading" not in text
    assert text.endswith(after) and text.count(nw.PAPER_HEADING) == 1
    # a file without the section gets it at the end, the rest untouched
    doc.write_text(before)
    nw.write_doc(doc, "| new table |\n", args, rows)
    assert doc.read_text().startswith(before) and doc.read_text().count("| new table |") == 1
