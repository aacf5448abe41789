"""A game's narrator for the game-free loops of play / replay / playthroughs, with plain defaults.

``SPEC.narrator()`` gives a game's words (:class:`farmgames.envs.core.protocol.Narrator` plus optional
extras such as ``reveal_line`` or ``table``). :class:`Narration` asks the game's narrator first and falls
back on what every game has (``describe_action``, ``render_ansi``, ``scores``), so a new game can run
every command before it writes a word of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["Narration"]


class Narration:
    """The narrator of ``spec`` (or plain defaults where the game's narrator has no such method)."""

    def __init__(self, spec: Any):
        self.spec = spec
        self.own = spec.narrator() if spec.narrator is not None else None
        self._before: Any = None

    def _hook(self, name: str) -> Any:
        return getattr(self.own, name, None)

    @property
    def playthrough_dir(self) -> str:
        """The golden transcripts of this game version (the narrator's ``playthrough_dirs[version]``, else
        ``tests/<game>/playthroughs/v<N>``)."""
        dirs = getattr(self.own, "playthrough_dirs", {})
        return str(dirs.get(self.spec.version, f"tests/{self.spec.name}/playthroughs/v{self.spec.version}"))

    # ------------------------------------------------------------------ one decision

    def hidden(self, game: Any, seat: int, viewer: int | None) -> bool:
        hook = self._hook("hidden")
        return bool(hook(game, seat, viewer)) if hook else False

    def describe(self, game: Any, seat: int, action: int) -> str:
        for_seat = getattr(game, "describe_action_for", None)
        return str(for_seat(action, seat) if for_seat is not None else game.describe_action(action))

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        if self.own is not None:
            return str(self.own.decision_line(game, seat, action, viewer))
        text = "(hidden)" if self.hidden(game, seat, viewer) else self.describe(game, seat, action)
        return f"step {len(game.history):<5} player {seat}  {text}"

    def after_action(self, game: Any, quiet: bool = False) -> list[str]:
        """What to print once an action was applied: a reveal (unless ``quiet``), a phase summary."""
        out = []
        reveal = self._hook("reveal_line")
        if reveal is not None and not quiet:
            text = reveal(game)
            if text:
                out.append(text)
        summary = self.own.phase_summary(game) if self.own is not None else None
        if summary:
            out.append(summary)
        return out

    # ------------------------------------------------------------------ whole games

    def setup_note(self, game: Any) -> str:
        hook = self._hook("setup_note")
        return str(hook(game)) if hook else ""

    def final_table(self, game: Any) -> str:
        if self.own is not None:
            return str(self.own.final_table(game))
        lines = ["=== final scores ==="]
        lines += [f"player {p}: {s.total}  {s.as_dict()}" for p, s in enumerate(game.scores())]
        winners = game.winners()
        lines.append(
            ("winner: " if len(winners) == 1 else "shared victory: ") + ", ".join(f"player {w}" for w in winners)
        )
        return "\n".join(lines)

    def table(self, game: Any, viewer: int | None) -> str:
        hook = self._hook("table")
        if hook is not None:
            return str(hook(game, viewer))
        if self.spec.render_ansi is not None:
            return str(self.spec.render_ansi(game, viewer))
        return f"{len(game.history)} decisions, player {game.current_player} to decide"

    def score_line(self, game: Any) -> str:
        hook = self._hook("score_line")
        if hook is not None:
            return str(hook(game))
        return "scores: " + "; ".join(f"player {p}: {s.total} {s.as_dict()}" for p, s in enumerate(game.scores()))

    def human_view(self, env: Any, seat: int, legal: list[int]) -> list[str]:
        hook = self._hook("human_view")
        if hook is not None:
            return list(hook(env, seat, legal))
        agent = env.possible_agents[seat]
        lines = [self.table(env.game, seat)]
        lines += [f"  {i:>3}) {env.describe_action(a, agent)}" for i, a in enumerate(legal, 1)]
        return lines

    # ------------------------------------------------------------------ playthroughs

    def state_text(self, game: Any) -> str:
        hook = self._hook("state_text")
        return str(hook(game)) if hook else self.table(game, None)

    def decision_kind(self, game: Any) -> str:
        hook = self._hook("decision_kind")
        return str(hook(game)) if hook else str(getattr(game, "decision_kind", "decision"))

    def legal_listing(self, game: Any, legal: list[int]) -> tuple[str, list[str]] | None:
        hook = self._hook("legal_listing")
        return hook(game, legal) if hook else None

    def playthrough_setup(self, directory: Path) -> tuple[dict[str, Any], str]:
        hook = self._hook("playthrough_setup")
        return hook(directory) if hook else ({}, "")

    def playthrough_missing(self, directory: Path) -> str | None:
        hook = self._hook("playthrough_missing")
        return hook(directory) if hook else None

    def freeze_playthrough_data(self, directory: Path) -> list[Path]:
        hook = self._hook("freeze_playthrough_data")
        return list(hook(directory)) if hook else []
