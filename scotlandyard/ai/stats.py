"""Small statistics for the arena: win rates with Wilson score intervals, and summaries.

The Wilson score interval is the usual choice for a win rate from a few hundred games: unlike
the normal ("Wald") interval it stays inside [0, 1] and keeps its coverage near 0 and 1.

>>> lo, hi = wilson_interval(50, 100)
>>> round(lo, 4), round(hi, 4)
(0.4038, 0.5962)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = ["WinRate", "wilson_interval", "difference_interval", "z_for", "describe_numbers"]


def z_for(confidence: float) -> float:
    """The two-sided standard normal quantile for ``confidence`` (0.95 -> 1.959964)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence lies strictly between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(wins: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for ``wins`` successes in ``n`` trials.

    Returns ``(0.0, 1.0)`` for ``n == 0`` (nothing is known).
    """
    if not isinstance(wins, int) or not isinstance(n, int) or n < 0 or not 0 <= wins <= n:
        raise ValueError(f"need 0 <= wins <= n, whole numbers; got wins={wins!r}, n={n!r}")
    if n == 0:
        return (0.0, 1.0)
    z = z_for(confidence)
    p = wins / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # at the ends the exact bounds are 0 and 1; floating point leaves noise like 3e-17
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return (lo, hi)


def difference_interval(wins_a: int, n_a: int, wins_b: int, n_b: int,
                        confidence: float = 0.95) -> tuple[float, float]:
    """An interval for the difference of two independent win rates, ``wins_a / n_a`` minus
    ``wins_b / n_b``: Newcombe's hybrid score interval (his method 10, 1998), made of the two
    Wilson intervals. Like them it stays inside [-1, 1] and keeps its coverage near the ends,
    where the Wald interval of a difference does not. ``(-1.0, 1.0)`` when either side has
    no games (nothing is known).

    >>> lo, hi = difference_interval(56, 70, 48, 80)   # Newcombe's example: 0.0524 to 0.3339
    >>> round(lo, 4), round(hi, 4)
    (0.0524, 0.3339)
    """
    if n_a == 0 or n_b == 0:
        return (-1.0, 1.0)
    l1, u1 = wilson_interval(wins_a, n_a, confidence)
    l2, u2 = wilson_interval(wins_b, n_b, confidence)
    p1, p2 = wins_a / n_a, wins_b / n_b
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (max(-1.0, lo), min(1.0, hi))


@dataclass(frozen=True)
class WinRate:
    """A side's wins out of ``games`` decided games, with its Wilson interval."""

    wins: int
    games: int
    confidence: float = 0.95

    @property
    def rate(self) -> float:
        """Wins per game (0.0 when no game was played)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson score interval at :attr:`confidence`."""
        return wilson_interval(self.wins, self.games, self.confidence)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON values: wins, games, rate, ci95 (low, high)."""
        lo, hi = self.interval
        return {"wins": self.wins, "games": self.games, "rate": self.rate,
                "ci": [lo, hi], "confidence": self.confidence}

    def __str__(self) -> str:
        lo, hi = self.interval
        return f"{self.rate:6.1%} [{lo:5.1%}, {hi:5.1%}]"


def describe_numbers(values: Sequence[float]) -> dict[str, float | int | None]:
    """Count, mean, median, min and max of ``values`` (``None`` for an empty list)."""
    if not values:
        return {"count": 0, "mean": None, "median": None, "min": None, "max": None}
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"count": n, "mean": sum(ordered) / n, "median": median, "min": ordered[0],
            "max": ordered[-1]}
