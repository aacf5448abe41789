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
        self._turn: tuple[int, int] | None = None
        self._events = 0
        self._triggered = False

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        """``P1 [BID] crop wine`` (the state before the action), after a heading when a new turn begins."""
        phase = PHASE_OF[game.frame[0]] if game.frame else "-"
        self._events, self._triggered = len(game.events), game.end_triggered
        line = f"P{seat} [{phase}] {game.describe_action(action)}"
        key = (game.turns, game.active)
        if key != self._turn:
            self._turn = key
            left = f" ({game.turns_left} turns left)" if game.end_triggered else ""
            line = f"== round {game.rounds + 1}, turn of P{game.active}{left} ==\n{line}"
        return line

    def phase_summary(self, game: Any) -> str | None:
        """The events drawn by the last action (KH-DRAW-3), and the start of the end (KH-END-1)."""
        lines = []
        if len(game.events) > self._events:
            names = [EVENTS[EVENT_TILES[t - NUM_SPACES]].name for t in game.events[self._events :]]
            lines.append("event drawn: " + ", ".join(names))
        if game.end_triggered and not self._triggered:
            lines.append("the 10th event: this turn is finished, then two more rounds (KH-END-1..3)")
        self._events, self._triggered = len(game.events), game.end_triggered
        return "\n".join(lines) or None

    def final_table(self, game: Any) -> str:
        scores = game.scores()
        head = "| player | largest | second | groups | workers | majorities | total | field tiles | counters |"
        rows = [head, "|---|---|---|---|---|---|---|---|---|"]
        for p, sc in enumerate(scores):
            maj = ", ".join(sc.majorities) or "-"
            rows.append(
                f"| P{p} | {sc.largest_group} | {sc.second_group} | {sc.group_points} | {sc.worker_points} "
                f"| {sc.crop_points} ({maj}) | {sc.total} | {sc.field_tiles} | {sc.counters} |"
            )
        rows.append("")
        rows.append(
            "winners: "
            + ", ".join(f"P{p}" for p in game.winners())
            + (" (safety limit: truncated)" if game.truncated else "")
        )
        return "\n".join(rows)
