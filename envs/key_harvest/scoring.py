"""Final scoring (KH-SCORE-1..10, KH-RULING-7) and the tie-break chain (KH-SCORE-9, KH-RULING-12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from farmgames.envs.core.scoring import winners as core_winners

from .board import CROPS, NUM_CROPS, NUMBER, groups, worker_kind


@dataclass(frozen=True)
class Score:
    """One player's score: every part and the tie-break keys."""

    largest_group: int  # tiles in the largest group, 1 point each (KH-SCORE-1)
    second_group: int  # tiles in the second-largest group, 2 points each (KH-SCORE-2)
    group_points: int  # largest_group + 2 * second_group
    worker_points: int  # sum of the numbers of the workers on the board (KH-SCORE-5)
    crop_points: int  # majorities won, 0-5 (KH-SCORE-7, KH-SCORE-10)
    majorities: tuple[str, ...]  # the crops whose majority this player won
    field_tiles: int  # tie-break 1 (KH-SCORE-9)
    counters: int  # tie-break 2: counters in the supply

    @property
    def total(self) -> int:
        return self.group_points + self.worker_points + self.crop_points

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.total, self.field_tiles, self.counters)

    def as_dict(self) -> dict[str, Any]:
        # the fields from the instance dict, not dataclasses.asdict's deep copy of each value (ints and one
        # tuple of strings, copied as a list below; tests/key_harvest/test_end_scoring.py compares the two)
        d = dict(vars(self))
        d["majorities"] = list(self.majorities)
        d["total"] = self.total
        return d


def group_sizes(fields: int) -> list[int]:
    """Sizes of the connected groups, largest first (workers never connect: KH-SCORE-3)."""
    return [g.bit_count() for g in groups(fields)]


def majorities(supplies: list[list[int]]) -> list[list[int]]:
    """Crops each seat wins: the unique highest count of at least 1 (KH-SCORE-7, KH-RULING-7)."""
    won: list[list[int]] = [[] for _ in supplies]
    for c in range(NUM_CROPS):
        best = max(s[c] for s in supplies)
        holders = [p for p, s in enumerate(supplies) if s[c] == best]
        if best >= 1 and len(holders) == 1:
            won[holders[0]].append(c)
    return won


def score_player(game: Any, p: int) -> Score:
    """Score seat ``p``. Only supplies count for majorities: store bids count for nobody (KH-SCORE-10)."""
    sizes = group_sizes(game.fields[p]) + [0, 0]
    first, second = sizes[0], sizes[1]  # KH-SCORE-4: equal groups count as largest and second
    won = majorities(game.supply)[p]
    workers = sum(NUMBER[worker_kind(game.worker_at[p][s])] for s in range(56) if game.worker_at[p][s] >= 0)
    return Score(
        largest_group=first,
        second_group=second,
        group_points=first + 2 * second,
        worker_points=workers,
        crop_points=len(won),
        majorities=tuple(CROPS[c] for c in won),
        field_tiles=game.fields[p].bit_count(),
        counters=sum(game.supply[p]),
    )


def winners(scores: list[Score]) -> list[int]:
    """Best total, then more field tiles, then more counters; still tied players share (KH-SCORE-8/9)."""
    return core_winners([s.key for s in scores])
