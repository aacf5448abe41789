"""The words of Key Harvest for play / replay / playthroughs.

Every decision of Key Harvest is public (bids lie openly, every transfer is made openly, KH-INFO-6), so a
decision line is the same for every viewer; only supplies are hidden, and no line names one.
"""

from __future__ import annotations

from typing import Any

from .board import EVENT_TILES, EVENTS, NUM_SPACES
from .game import PHASE_OF


class Narrator:
    """``decision_line`` / ``phase_summary`` / ``final_table`` (core Narrator protocol)."""

    def __init__(self) -> None:
        self._seen: tuple[int, int, int] | None = None

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        phase = PHASE_OF[game.frame[0]] if game.frame else "-"
        return f"P{seat} [{phase}] {game.describe_action(action)}"

    def phase_summary(self, game: Any) -> str | None:
        """A heading when a new turn starts, naming the events drawn since the last heading."""
        if game.is_terminal():
            return None
        key = (game.turns, len(game.events), game.active)
        if self._seen == key:
            return None
        old = self._seen
        self._seen = key
        lines = []
        if old is not None and key[1] > old[1]:
            names = [EVENTS[EVENT_TILES[t - NUM_SPACES]].name for t in game.events[old[1] :]]
            lines.append("event drawn: " + ", ".join(names))
        if old is None or key[0] != old[0]:
            lines.append(
                f"== round {game.rounds + 1}, turn of P{game.active}"
                + (f" ({game.turns_left} turns left)" if game.end_triggered else "")
                + " =="
            )
        return "\n".join(lines) or None

    def final_table(self, game: Any) -> str:
        scores = game.scores()
        head = "| player | largest | second | groups | workers | majorities | total | field tiles | counters |"
        rows = [head, "|---|---|---|---|---|---|---|---|---|"]
        for p, s in enumerate(scores):
            maj = ", ".join(s.majorities) or "-"
            rows.append(
                f"| P{p} | {s.largest_group} | {s.second_group} | {s.group_points} | {s.worker_points} "
                f"| {s.crop_points} ({maj}) | {s.total} | {s.field_tiles} | {s.counters} |"
            )
        rows.append("")
        rows.append(
            "winners: "
            + ", ".join(f"P{p}" for p in game.winners())
            + (" (safety limit: truncated)" if game.truncated else "")
        )
        return "\n".join(rows)
