"""The words of Fields of Green for ``farmgames play``, ``replay`` and ``playthroughs`` (hidden-info aware).

The tools are game-free loops (:mod:`farmgames.training.play` and friends); what they print about a
game comes from ``SPEC.narrator()``, an instance of :class:`Narrator`. Everything that would show what
a viewing seat may not know (other players' picks before the reveal, the equipment tiles another player
draws) is hidden when a ``viewer`` is given; ``viewer=None`` narrates omnisciently.

The class follows :class:`farmgames.envs.core.protocol.Narrator` (``decision_line``, ``phase_summary``,
``final_table``) and adds what the loops ask for when a game has it: the reveal of simultaneous picks,
the human seat's choices, replay's table and score line, and the playthrough transcripts' state text,
legal-action listing and frozen card set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .actions import SPLITS
from .observer import _card_text
from .render import ansi_text, farms_text, status_line

__all__ = ["CARD_SET", "Narrator"]

CARD_SET = "card_set.yaml"  # the frozen card set the playthroughs use, beside the transcripts
HIDDEN_KINDS = ("keep_equipment",)  # decisions never shown to other seats ("pick" too, unless 2 players)


class Narrator:
    """What the tools print about a Fields of Green game. Stateful only in one way: ``decision_line``
    remembers the state before the action, so that ``reveal_line`` and ``phase_summary`` (called after
    the action) can tell what changed."""

    #: the golden transcripts' folder per env version (relative to the checkout), named in their header
    playthrough_dirs = {0: "tests/playthroughs"}

    def __init__(self) -> None:
        self._before: tuple[int, str, bool] | None = None

    # ------------------------------------------------------------------ the Narrator protocol

    def hidden(self, game: Any, seat: int, viewer: int | None) -> bool:
        """Would describing ``seat``'s current decision reveal something ``viewer`` may not know?"""
        if viewer is None or seat == viewer:
            return False
        kind = game.decision_kind
        return (kind == "pick" and not game.two_player) or kind in HIDDEN_KINDS

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        """``y2 t3      player 1  A: build Wheat at B2`` (the state before the action)."""
        self._before = (game.year, game.phase, game.revealed)
        where = f"y{game.year}" + (f" t{game.turn}" if game.phase == "action" else f" {game.phase}")
        if self.hidden(game, seat, viewer):
            text = (
                "picks a card (face down)" if game.decision_kind == "pick" else "keeps one of the drawn equipment tiles"
            )
        else:
            text = game.describe_action_for(action, seat)
        return f"{where:<10} player {seat}  {text}"

    def reveal_line(self, game: Any) -> str | None:
        """The picks of a turn once they are revealed (3-4 players), after the action that revealed them."""
        if self._before is None:
            return None
        revealed = self._before[2]
        if game.revealed and not revealed and not game.two_player:
            cards = game.cards.locations
            picks = "; ".join(f"player {p}: {cards[c].name}" for p, c in enumerate(game.picks) if c is not None)
            return f"{'':<10} revealed: {picks}"
        return None

    def phase_summary(self, game: Any) -> str | None:
        """The farms after every Action and every Harvest phase."""
        if self._before is None:
            return None
        year, phase, _ = self._before
        if phase == game.phase and year == game.year:
            return None
        titles = {
            "action": f"after the Action phase of year {year}",
            "harvest": f"after the Harvest phase of year {year}",
        }
        if phase not in titles:
            return None
        return f"\n=== {titles[phase]} ===\n{farms_text(game)}\n"

    def final_table(self, game: Any) -> str:
        lines = [
            "=== final scores (FOG-END-2..13) ===",
            "player  total  printed+tokens  equipment  coins  food  empty towers  end-game  locations  coins held",
        ]
        for p, s in enumerate(game.scores()):
            lines.append(
                f"{p:>6}  {s.total:>5}  {s.printed_vp:>14}  {s.equipment:>9}  {s.coins:>5}  {s.food:>4}  "
                f"{s.empty_towers:>12}  {s.end_game:>8}  {s.locations:>9}  {s.coins_held:>10}"
            )
        winners = game.winners()
        lines.append(
            ("winner: " if len(winners) == 1 else "shared victory: ") + ", ".join(f"player {w}" for w in winners)
        )
        return "\n".join(lines)

    # ------------------------------------------------------------------ play

    def setup_note(self, game: Any) -> str:
        return f", first player {game.first_player}"

    def human_view(self, env: Any, seat: int, legal: list[int]) -> list[str]:
        """The seat's view of the table, its decision and its numbered legal actions."""
        game = env.game
        agent = env.possible_agents[seat]
        lines = [ansi_text(game, seat), env.observer.text(game, seat).splitlines()[-1]]  # "your decision: …"
        if game.decision_kind == "split":  # 50 options: a compact table of (Field, Livestock, Construction, Building)
            lines.append("  draw split as Field/Livestock/Construction/Building:")
            cells = [f"{i:>3}) {'/'.join(map(str, SPLITS[a - game.layout.SPLIT]))}" for i, a in enumerate(legal, 1)]
            lines += ["  " + "   ".join(cells[row : row + 6]) for row in range(0, len(cells), 6)]
            return lines
        cards = game.cards.locations
        hand = game.display if game.two_player else game.hands[seat]
        for i, action in enumerate(legal, 1):
            text = env.describe_action(action, agent)
            if game.decision_kind == "pick":
                text = f"pick slot {action - game.layout.PICK}: {_card_text(cards[hand[action - game.layout.PICK]])}"
            lines.append(f"  {i:>3}) {text}")
        return lines

    # ------------------------------------------------------------------ replay

    def table(self, game: Any, viewer: int | None) -> str:
        """The table as ``viewer`` sees it; an omniscient replay (``None``) shows every hand."""
        text = ansi_text(game, viewer)
        if viewer is None and not game.two_player:
            cards = game.cards.locations
            hands = [f"  player {p}: " + ", ".join(cards[c].name for c in h) for p, h in enumerate(game.hands) if h]
            if hands:
                text += "\nhands:\n" + "\n".join(hands)
        return text

    def score_line(self, game: Any) -> str:
        return "scores: " + "; ".join(f"player {p}: {s.total} VP {s.as_dict()}" for p, s in enumerate(game.scores()))

    # ------------------------------------------------------------------ playthroughs

    def state_text(self, game: Any) -> str:
        """The whole table, every hand included (a transcript is omniscient)."""
        cards = game.cards.locations
        lines = [status_line(game), farms_text(game)]
        if game.two_player:
            lines.append(
                "display: "
                + (", ".join(cards[c].name for c in game.display) or "-")
                + f"; offer pile {len(game.offer)}"
            )
        for p in range(game.num_players):
            parts = []
            if game.hands[p]:
                parts.append("hand " + ", ".join(cards[c].name for c in game.hands[p]))
            if game.picks[p] is not None:
                parts.append("pick " + cards[game.picks[p]].name)
            if game.farms[p].set_aside:
                parts.append("set aside " + ", ".join(game.cards.equipment[t].name for t in game.farms[p].set_aside))
            if parts:
                lines.append(f"player {p}: " + "; ".join(parts))
        if game.decision is not None:
            lines.append(f"pending: {game.decision_kind} for player {game.current_player}")
        return "\n".join(lines)

    def decision_kind(self, game: Any) -> str:
        return str(game.decision_kind)

    def legal_listing(self, game: Any, legal: list[int]) -> tuple[str, list[str]] | None:
        """Draw splits (50 of them) compactly as index F/L/C/B; None: one line per action."""
        if game.decision_kind != "split":
            return None
        first = game.layout.SPLIT
        return (
            f"legal actions ({len(legal)}), draw splits as index F/L/C/B:",
            [f"{a} {'/'.join(map(str, SPLITS[a - first]))}" for a in legal],
        )

    def playthrough_setup(self, directory: Path) -> tuple[dict[str, Any], str]:
        """``(variant, header note)``: the transcripts play the frozen card set beside them, so that balance
        edits of the base set do not churn the goldens while rule and encoding changes do."""
        return {"card_set": str(Path(directory) / CARD_SET)}, f"card set {CARD_SET} (frozen copy of the base set)"

    def playthrough_missing(self, directory: Path) -> str | None:
        path = Path(directory) / CARD_SET
        return None if path.exists() else f"{path} is missing"

    def freeze_playthrough_data(self, directory: Path) -> list[Path]:
        """Copy the current base card set beside the transcripts (``farmgames playthroughs --write``)."""
        from .cards import DEFAULT_CARD_SET

        path = Path(directory) / CARD_SET
        path.write_text(Path(DEFAULT_CARD_SET).read_text(encoding="utf-8"), encoding="utf-8")
        return [path]
