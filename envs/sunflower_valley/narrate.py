"""The words of Sunflower Valley for the play / replay / playthrough tools (core Narrator protocol).

Everything is public (SV-INFO-1), so the viewer never hides anything.
"""

from __future__ import annotations

from typing import Any

from .actions import FACES
from .hexgrid import hex_name
from .sheets import COLOURS, PADS

__all__ = ["Narrator"]


class Narrator:
    """``decision_line`` / ``phase_summary`` / ``final_table`` of a Sunflower Valley game."""

    def __init__(self) -> None:
        self._round: int | None = None

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        """``r3 t2  player 1  sheep die on the green slot: sheep in B1`` (the state before the action)."""
        self._round = game.round
        return f"r{game.round + 1:<2} t{game.turn_in_round + 1}  player {seat}  {game.describe_action(action)}"

    def phase_summary(self, game: Any) -> str | None:
        """A heading when a new round started (phase A: the roll) or the game ended."""
        if game.is_terminal():
            return "game over: every sheet is full (SV-END-1)"
        if self._round is not None and game.round == self._round:
            return None
        self._round = game.round
        pool = ", ".join(f"{c}× {FACES[f]}" for f, c in enumerate(game.pool) if c)
        return f"round {game.round + 1}: player {game.first} is first player and rolls {pool}"

    def final_table(self, game: Any) -> str:
        scores = game.scores()
        names = ["A pairs", "B unpaired", "C sunflowers", "D mountains", "E inhabitants", "F express", "total"]
        keys = [
            "A_houses_with_sheep",
            "B_houses_without_sheep",
            "C_most_sunflowers",
            "D_mountains",
            "E_inhabitants",
            "F_valley_express",
            "total",
        ]
        head = "player " + " ".join(f"{n:>13}" for n in names)
        lines = [head]
        for p, s in enumerate(scores):
            d = s.as_dict()
            lines.append(f"{p:>6} " + " ".join(f"{d[k]:>13}" for k in keys))
        won = game.winners() if game.is_terminal() else []
        if won:
            lines.append(f"winner(s): {', '.join(f'player {p}' for p in won)} (ties: houses, sunflowers, inhabitants)")
        return "\n".join(lines)

    # ------------------------------------------------------------------ optional extras of the tools

    def setup_note(self, game: Any) -> str:
        """Layout, start pads and first player (SV-SETUP-1..7)."""
        pads = ", ".join(
            f"player {p}: pad {x} ({PADS[x].picture}, {hex_name(PADS[x].hex)})" for p, x in enumerate(game.pads)
        )
        return f"layout {game.letter}; {pads}; first player {game.first}" + (
            "; children's variant" if game.children else ""
        )

    def table(self, game: Any, viewer: int | None) -> str:
        """The plain-text table (every sheet, pool, slots): all public (SV-INFO-1)."""
        return str(game)

    def state_text(self, game: Any) -> str:
        return str(game)

    def score_line(self, game: Any) -> str:
        return "scores: " + "; ".join(f"player {p}: {s.total}" for p, s in enumerate(game.scores()))

    def decision_kind(self, game: Any) -> str:
        return "fallback" if game.fallback() else "turn"

    def slot_name(self, k: int) -> str:
        return COLOURS[k]
