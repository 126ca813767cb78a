"""R-BOARD: the shipped board against the verified facts and the rule books' examples."""

from __future__ import annotations

import json

import pytest

from scotlandyard import Transport, london
from scotlandyard.board import bits_to_set, board_document, set_to_bits

from .conftest import shared_dir

T, B, U, F = Transport.TAXI, Transport.BUS, Transport.UNDERGROUND, Transport.FERRY


def test_r_board_package_file_matches_verified_facts() -> None:
    facts = json.loads((shared_dir() / "board" / "london.json").read_text())
    doc = board_document()
    for t in ("taxi", "bus", "underground", "ferry"):
        assert doc["edges"][t] == facts["edges"][t], t
    assert doc["variants"] == facts["variants"]
    assert doc["start_positions"] == facts["start_positions"]
    assert {int(k): v for k, v in doc["positions"].items()} == {int(k): v for k, v in facts["positions"].items()}
    for name in ("classic", "2014"):
        board = london(name)  # type: ignore[arg-type]
        for t in Transport:
            expected = {tuple(e) for e in facts["edges"][t.label]}
            if name == "2014":
                expected -= {tuple(e) for e in facts["variants"]["new_edition_2014"]["remove"].get(t.label, [])}
            assert set(board.edges[t]) == expected


@pytest.mark.parametrize("name", ["classic", "2014"])
def test_r_board_rule_book_examples(name: str) -> None:
    b = london(name)  # type: ignore[arg-type]
    assert set(b.neighbours_of(74, T)) == {92, 73, 58, 75}
    assert set(b.neighbours_of(74, B)) == {58, 94}
    assert set(b.neighbours_of(74, U)) == {46}
    assert set(b.neighbours_of(153, T)) == {139, 152, 154, 166, 167}
    ferry = {tuple(sorted(e)) for e in b.edges[F]}
    assert ferry == {(157, 194), (115, 157), (108, 115)}


def test_r_board_2014_has_no_taxi_13_14() -> None:
    assert 14 in london("classic").neighbours_of(13, T)
    assert 14 not in london("2014").neighbours_of(13, T)
    assert 14 in london("2014").neighbours_of(13, B)  # the bus still runs there
    assert london("classic").link_count(T) == 346 and london("2014").link_count(T) == 345


def test_r_board_counts_and_two_way_links() -> None:
    b = london()
    assert b.stations == 199
    assert [b.link_count(t) for t in Transport] == [346, 99, 20, 3]
    for t in Transport:
        for s in b.all_stations:
            for d in b.neighbours_of(s, t):
                assert s in b.neighbours_of(d, t)
    assert sorted(s for s in b.all_stations if Transport.UNDERGROUND in b.stop_types(s)) == [
        1, 13, 46, 67, 74, 79, 89, 93, 111, 128, 140, 153, 163, 185]
    assert all(Transport.TAXI in b.stop_types(s) for s in b.all_stations)
    assert b.stop_types(74) == {T, B, U}
    assert b.stop_types(194) == {T, F}


def test_distances_detectives_without_ferry_mr_x_with() -> None:
    b = london()
    assert b.distance(74, 74) == 0
    assert b.distance(74, 92) == 1
    assert b.distance(74, 46) == 1  # one underground move
    assert b.distance(194, 157, ferry=True) == 1
    assert b.distance(194, 157, ferry=False) > 1
    for a in (1, 74, 128, 199):
        for c in (2, 100, 157):
            assert b.distance(a, c) == b.distance(c, a)
            assert b.distance(a, c, ferry=True) <= b.distance(a, c)
    # every station reachable on the detectives' network
    assert max(b.distance_row(1)[1:]) < 255


def test_bitset_helpers_and_expand() -> None:
    b = london()
    s = frozenset({1, 74, 199})
    assert bits_to_set(set_to_bits(s)) == s
    assert bits_to_set(b.expand(1 << 74, 0)) == {58, 73, 75, 92}
    assert bits_to_set(b.expand(1 << 194, 4)) == {192, 193, 195, 157}
    both = b.expand((1 << 74) | (1 << 1), 1)
    assert bits_to_set(both) == {58, 94, 46}


def test_expand_is_the_union_of_the_stations_lines_at_every_size() -> None:
    # expand takes three paths by the number of stations (one, a few station by station, more
    # a byte at a time): each against the union of the stations' neighbours
    import random

    b = london()
    rng = random.Random(7)
    for n in [*range(0, 30), 45, 80, 199]:
        for t in range(5):
            stations = rng.sample(range(1, b.stations + 1), n)
            bits = set_to_bits(frozenset(stations))
            want = set()
            for s in stations:
                want |= bits_to_set(b.masks[t][s])
            assert bits_to_set(b.expand(bits, t)) == want, (n, t)


def test_bad_station_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="R-BOARD: no station 0"):
        london().neighbours_of(0, T)
    with pytest.raises(ValueError, match="unknown board"):
        london("paris")  # type: ignore[arg-type]


def test_positions_inside_drawing_space() -> None:
    b = london()
    for s in b.all_stations:
        x, y = b.position(s)
        assert 0 <= x <= b.width and 0 <= y <= b.height
