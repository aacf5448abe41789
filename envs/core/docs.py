"""Generated documentation tables of a game: actions, observation layout, keywords, game facts."""

from __future__ import annotations

from typing import Any

from .spec import GameSpec
from .variants import all_keywords


def keywords_markdown(spec: GameSpec) -> str:
    """The keyword table (name, default, where it goes, meaning) from the spec's one table."""
    lines = ["| keyword | default | meaning |", "|---|---|---|"]
    for kw in all_keywords(spec):
        shown = list(kw.default) if isinstance(kw.default, tuple) else kw.default
        lines.append(f"| `{kw.name}` | `{shown!r}` | {kw.meaning} |")
    return "\n".join(lines)


def actions_markdown(rows: list[tuple[str, int, int, str]]) -> str:
    """An action table from ``(kind, first, last, meaning)`` rows."""
    lines = ["| kind | first | last | meaning |", "|---|---|---|---|"]
    lines += [f"| `{k}` | {a} | {b} | {m} |" for k, a, b, m in rows]
    return "\n".join(lines)


def facts_markdown(spec: GameSpec, **variant: Any) -> str:
    """Bounds per player count."""
    lines = ["| players | actions | max decisions per game | max final score |", "|---|---|---|---|"]
    for n in spec.player_counts:
        game = spec.new_game(num_players=n, seed=0, **variant)
        b = spec.bounds(game)
        lines.append(f"| {n} | {game.num_actions} | {b.max_decisions} | {b.max_score:g} |")
    return "\n".join(lines)


def spec_markdown(spec: GameSpec, num_players: int | None = None, **observer: Any) -> str:
    """Every generated table of a game's env page: actions (where the game has an action layout with
    ``table()``), observation layout, keywords and facts."""
    n = num_players or spec.default_players or spec.max_players
    game = spec.new_game(num_players=n, seed=0)
    obs = spec.new_observer(game, **observer)
    lines = []
    layout = getattr(game, "layout", None)
    if layout is not None and hasattr(layout, "table"):
        lines += [f"### Action table ({game.num_actions} actions)", "", actions_markdown(layout.table()), ""]
    markdown = getattr(obs, "markdown", None)
    lines += ["### Observation layout", "", markdown() if markdown else obs.layout.markdown(), ""]
    lines += ["### Keywords", "", keywords_markdown(spec), "", "### Game facts", "", facts_markdown(spec)]
    return "\n".join(lines)


__all__ = ["actions_markdown", "facts_markdown", "keywords_markdown", "spec_markdown"]
