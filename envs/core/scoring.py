"""Ranks, winners and rewards from any game's scores (``Score.key`` tuples, larger is better).

>>> ranks([(3, 1), (5, 0), (3, 1)])
[2, 1, 2]
>>> winners([(3, 1), (5, 0), (5, 0)])
[1, 2]
>>> rewards("margin", [10, 7, 4], [1, -1, -1])
[3.0, -3.0, -6.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def ranks(keys: Sequence[Any]) -> list[int]:
    """Competition ranks (1 = best; equal keys share a rank)."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def winners(keys: Sequence[Any]) -> list[int]:
    """Seats with the best key (all of them share the win)."""
    best = max(keys)
    return [i for i, key in enumerate(keys) if key == best]


def rewards(mode: str, totals: Sequence[float], returns: Sequence[float]) -> list[float]:
    """Final rewards per seat: ``win_loss`` (the game's returns: +1 winners, -1 others), ``score``
    (final score) or ``margin`` (score minus the best other score)."""
    if mode == "win_loss":
        return [float(r) for r in returns]
    if mode == "score":
        return [float(t) for t in totals]
    if mode == "margin":
        return [float(t - max(list(totals[:p]) + list(totals[p + 1 :]))) for p, t in enumerate(totals)]
    raise ValueError(f"unknown reward mode {mode!r}")


def reward_range(mode: str, min_score: float, max_score: float) -> tuple[float, float]:
    """The range of ``rewards(mode, ...)`` for scores within ``[min_score, max_score]``."""
    if mode == "win_loss":
        return (-1.0, 1.0)
    if mode == "score":
        return (float(min_score), float(max_score))
    span = float(max_score - min_score)
    return (-span, span)


__all__ = ["ranks", "reward_range", "rewards", "winners"]
