"""The London board (R-BOARD): stations, links per transport, bitmasks and distances.

Stations are ints 1..199. Sets of stations are Python ints used as bitsets (bit ``s`` is
station ``s``) inside hot code and ``frozenset[int]`` at the public API.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from importlib import resources
from operator import getitem
from typing import Any, Literal, get_args

STATION_BIT: tuple[int, ...] = tuple(1 << s for s in range(256))
"""``STATION_BIT[s]``: station ``s`` as a bitset (``1 << s``, made once)."""

BoardName = Literal["classic", "2014", "tiny", "small", "corner"]
"""The boards: London (1983 and 2014) and the small boards of ``scotlandyard/data/small_boards.json``
(:func:`small_board_document`)."""
BOARD_NAMES: tuple[str, ...] = get_args(BoardName)


class Transport(IntEnum):
    """A kind of line on the board."""

    TAXI = 0
    BUS = 1
    UNDERGROUND = 2
    FERRY = 3

    @property
    def label(self) -> str:
        """The transport's name as written in the board file (``"taxi"`` ...)."""
        return self.name.lower()


TRANSPORTS: tuple[Transport, ...] = tuple(Transport)


def bits_to_set(bits: int) -> frozenset[int]:
    """Return the stations of the bitset ``bits`` as a frozenset."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return frozenset(out)


def set_to_bits(stations: Iterable[int]) -> int:
    """Return the bitset of an iterable of stations."""
    bits = 0
    for s in stations:
        bits |= 1 << s
    return bits


def iter_bits(bits: int) -> list[int]:
    """Return the stations of ``bits`` in increasing order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


@dataclass(frozen=True, eq=False)
class Board:
    """One board: its links per transport, stop types, positions and distance tables.

    Get one with :func:`london` (cached); ``Board`` values are immutable and shared.
    """

    name: BoardName
    stations: int
    edges: dict[Transport, tuple[tuple[int, int], ...]]
    positions: dict[int, tuple[float, float]]
    width: float
    height: float
    start_positions: dict[str, dict[str, tuple[int, ...]]]
    # the stations a piece may stand on: every station of London, a small board's own
    playable: frozenset[int] = field(repr=False)
    # neighbours[t][s]: stations one line of transport t away from s (sorted tuple)
    neighbours: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)
    # masks[t][s]: the same as a bitset; masks[4][s] is any transport incl. ferry (black)
    masks: tuple[tuple[int, ...], ...] = field(repr=False)
    # expand[t][chunk][byte]: OR of masks[t] of the stations of that byte (fast set image)
    _expand: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)
    _dist_land: tuple[bytes, ...] = field(repr=False)
    _dist_ferry: tuple[bytes, ...] = field(repr=False)

    # ---- queries -----------------------------------------------------------------------
    def neighbours_of(self, station: int, transport: Transport | int) -> tuple[int, ...]:
        """Stations one line of ``transport`` away from ``station``."""
        self._check(station)
        return self.neighbours[int(transport)][station]

    def any_neighbours(self, station: int, ferry: bool = True) -> frozenset[int]:
        """Stations one line of any transport away (ferry included unless ``ferry=False``)."""
        self._check(station)
        bits = self.masks[4][station] if ferry else (
            self.masks[0][station] | self.masks[1][station] | self.masks[2][station])
        return bits_to_set(bits)

    def stop_types(self, station: int) -> frozenset[Transport]:
        """The transports that stop at ``station`` (taxi everywhere, some bus/underground/ferry)."""
        self._check(station)
        return frozenset(t for t in TRANSPORTS if self.neighbours[t][station])

    def position(self, station: int) -> tuple[float, float]:
        """The station's centre in the board's drawing space (``width`` x ``height``, y down)."""
        self._check(station)
        return self.positions[station]

    def distance(self, a: int, b: int, *, ferry: bool = False) -> int:
        """Fewest moves from ``a`` to ``b`` (ignoring tickets and pieces).

        ``ferry=False`` is the detectives' network; ``ferry=True`` is Mr X's (black tickets
        may cross the Thames by ferry).
        """
        self._check(a)
        self._check(b)
        return (self._dist_ferry if ferry else self._dist_land)[a][b]

    def distance_row(self, station: int, *, ferry: bool = False) -> bytes:
        """Distances from ``station`` to every station (index by station number)."""
        self._check(station)
        return (self._dist_ferry if ferry else self._dist_land)[station]

    def expand(self, bits: int, transport: int) -> int:
        """Bitset of every station one ``transport`` line from a station of ``bits``.

        ``transport`` 0..3 is a :class:`Transport`; 4 means any line (a black ticket).
        This is the possible-location step: station by station for a few stations, a byte of
        stations at a time otherwise.
        """
        n = bits.bit_count()
        if n == 1:  # one station (after a reveal): its mask
            return self.masks[transport][bits.bit_length() - 1]
        if n <= 10:  # few stations: their masks (a small table, kept in cache), from the
            masks = self.masks[transport]  # highest station down (no negated copy a bit;
            bit = STATION_BIT              # about 30% cheaper a station than the lowest up)
            out = 0
            while bits:
                s = bits.bit_length() - 1
                out |= masks[s]
                bits ^= bit[s]
            return out
        lo = ((bits & -bits).bit_length() - 1) >> 3  # the first and last byte that has a station
        hi = (bits.bit_length() + 7) >> 3
        out = 0  # each byte's stations from its row (looked up in C: map), zero rows skipped
        for got in map(getitem, self._expand[transport][lo:hi],
                       (bits >> (lo << 3)).to_bytes(hi - lo, "little")):
            if got:
                out |= got
        return out

    def _check(self, station: int) -> None:
        if not (isinstance(station, int) and 1 <= station <= self.stations):
            raise ValueError(f"R-BOARD: no station {station!r} (stations are 1..{self.stations})")

    @property
    def all_stations(self) -> range:
        """Every station number."""
        return range(1, self.stations + 1)

    def link_count(self, transport: Transport) -> int:
        """Number of undirected links of ``transport``."""
        return len(self.edges[transport])


def _bfs_table(n: int, adj: list[int]) -> tuple[bytes, ...]:
    rows: list[bytes] = [bytes(n + 1)]
    for src in range(1, n + 1):
        dist = bytearray([255] * (n + 1))
        dist[src] = 0
        q = deque([src])
        while q:
            u = q.popleft()
            d = dist[u] + 1
            m = adj[u]
            while m:
                low = m & -m
                v = low.bit_length() - 1
                m ^= low
                if dist[v] == 255:
                    dist[v] = d
                    q.append(v)
        rows.append(bytes(dist))
    return tuple(rows)


def _build(doc: dict[str, Any], name: BoardName) -> Board:
    n = int(doc["stations"])
    edges: dict[Transport, list[tuple[int, int]]] = {
        t: [(int(e[0]), int(e[1])) for e in doc["edges"][t.label]] for t in TRANSPORTS
    }
    if name == "2014":
        for tname, removed in doc["variants"]["new_edition_2014"]["remove"].items():
            t = Transport[tname.upper()]
            gone = {tuple(e) for e in removed}
            edges[t] = [e for e in edges[t] if e not in gone]
    small = small_board_document()["boards"]
    playable = frozenset(range(1, n + 1))
    starts = {
        ed: {"detectives": tuple(v["detectives"]), "mr_x": tuple(v["mr_x"])}
        for ed, v in doc["start_positions"].items()
    }
    if name in small:  # a small board: the classic links between its stations
        playable = frozenset(int(s) for s in small[name]["stations"])
        edges = {t: [e for e in v if e[0] in playable and e[1] in playable]
                 for t, v in edges.items()}
        deck = small[name]["start_positions"]
        starts = {name: {"detectives": tuple(deck["detectives"]), "mr_x": tuple(deck["mr_x"])}}
    elif name not in ("classic", "2014"):
        raise ValueError(f"R-BOARD: unknown board {name!r} ({', '.join(BOARD_NAMES)})")
    nb: list[list[list[int]]] = [[[] for _ in range(n + 1)] for _ in TRANSPORTS]
    for t, links in edges.items():
        for a, b in links:
            nb[t][a].append(b)
            nb[t][b].append(a)
    neighbours = tuple(tuple(tuple(sorted(x)) for x in per) for per in nb)
    masks_l = [[set_to_bits(neighbours[t][s]) for s in range(n + 1)] for t in range(4)]
    masks_l.append([masks_l[0][s] | masks_l[1][s] | masks_l[2][s] | masks_l[3][s] for s in range(n + 1)])
    masks = tuple(tuple(m) for m in masks_l)
    expand = []
    for k in range(5):
        per_chunk = []
        for chunk in range(26):
            table = [0] * 256
            for byte in range(1, 256):
                low = byte & -byte
                s = chunk * 8 + low.bit_length() - 1
                table[byte] = table[byte ^ low] | (masks[k][s] if 1 <= s <= n else 0)
            per_chunk.append(tuple(table))
        expand.append(tuple(per_chunk))
    land = [masks[0][s] | masks[1][s] | masks[2][s] for s in range(n + 1)]
    positions = {int(k): (float(v[0]), float(v[1])) for k, v in doc["positions"].items()}
    return Board(
        name=name,
        stations=n,
        edges={t: tuple(v) for t, v in edges.items()},
        positions=positions,
        width=float(doc["position_space"]["width"]),
        height=float(doc["position_space"]["height"]),
        start_positions=starts,
        playable=playable,
        neighbours=neighbours,
        masks=masks,
        _expand=tuple(expand),
        _dist_land=_bfs_table(n, land),
        _dist_ferry=_bfs_table(n, list(masks[4])),
    )


@cache
def board_document() -> dict[str, Any]:
    """The package's board file (``scotlandyard/data/london.json``) as parsed JSON."""
    text = resources.files("scotlandyard").joinpath("data/london.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


@cache
def small_board_document() -> dict[str, Any]:
    """The small boards (``scotlandyard/data/small_boards.json``) as parsed JSON: under
    ``"boards"``, each board's ``stations``, ``start_positions`` and ``description``."""
    text = resources.files("scotlandyard").joinpath("data/small_boards.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


@cache
def london(name: BoardName = "classic") -> Board:
    """The London board: ``"classic"`` (1983) or ``"2014"`` (no taxi 13-14), or a small board
    cut from the classic one (``"tiny"``, ``"small"``, ``"corner"``: see
    :func:`small_board_document`; :attr:`Board.playable` holds its stations). Cached."""
    return _build(board_document(), name)
