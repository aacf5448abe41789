"""Sunflower Valley, version 0: a roll-and-write for 2–5 players (PettingZoo AEC / parallel environments).

    from farmgames.envs import sunflower_valley_v0
    env = sunflower_valley_v0.env(num_players=4)               # AEC, wrapped (bounds + order checks)
    raw = sunflower_valley_v0.raw_env(num_players=3)           # AEC, unwrapped
    par = sunflower_valley_v0.parallel_env(num_players=2)      # ParallelEnv

Each round the first player rolls six dice; in turn, clockwise, players take a die, put it on a free colour
slot of the board and draw its symbol (house, sheep, sunflower, super sunflower, straight or curved rail)
in an empty hex of that colour on their own sheet, until all five slots are taken. When no sheet has an
empty hex left, sheets are scored: house–sheep pairs (A), unpaired houses (B), sunflower majorities per
colour (C), sunflowers next to mountains (D), inhabitants (E) and the Valley Express railways (F).

| | |
|---|---|
| agents | `player_0` … `player_{n-1}`, n = 2..5 |
| actions | `Discrete(1290)` (SV-RULING-18): `30·s + h` normal turn, `390 + 30·(5·f + k) + h` fallback |
| observation | `Dict` of named arrays (sheets as hex planes, map, dice pool, slots, players) + `action_mask` |
| information | perfect (SV-INFO-1): every sheet, the pool and the slots are public |
| one step | one turn of the player to move; an episode is 24 turns per player |
| rewards | at the end: `win_loss` (+1 winners, -1 the others), `score` or `margin` |

Keywords: ``letter`` (common sheet letter A–F or None = drawn from the seed), ``children`` (the children's
variant: only adjacent house–sheep pairs), ``first_player`` (seat or None = drawn), and the environment's
``reward``, ``illegal_action``, ``render_mode`` ("human" | "ansi" | "rgb_array"). Rules, rulings, the full
action and observation tables: docs/sunflower_valley/env.md; bots: docs/sunflower_valley/bots.md.
"""

from __future__ import annotations

from typing import Any

from .adapters import env_functions
from .core.bots import RandomBot
from .core.lazy import lazy
from .core.search import search_bots
from .core.spec import Bounds, GameSpec, Keyword
from .core.variants import ENV_KEYWORDS as _ENV_KEYWORDS
from .sunflower_valley.game import Game, check_children, check_letter
from .sunflower_valley.observer import Observer

MAX_SCORE = 160  # A <= 36, C <= 15, D <= 30, E <= 5, F <= 72 on a 25-hex sheet (loose)
MIN_SCORE = -125  # B: every hex a house without sheep


def _bounds(game: Game) -> Bounds:
    return Bounds(max_decisions=24 * game.num_players, max_score=MAX_SCORE, min_score=MIN_SCORE)


def _first_player(value: Any) -> Any:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 5):
        raise ValueError(f"first_player must be a seat 0..4 or None, got {value!r}")
    return value


SPEC = GameSpec(
    name="sunflower_valley",
    version=0,
    gym_name="SunflowerValley",
    title="Sunflower Valley",
    min_players=2,  # SV-COMP-5
    max_players=5,
    default_players=4,
    new_game=Game,
    new_observer=Observer,
    from_json=Game.from_json,
    bounds=_bounds,
    keywords=(
        Keyword(
            "letter", None, "common sheet letter A–F, or None: drawn from the seed (SV-SETUP-2)", "game", check_letter
        ),
        Keyword(
            "children",
            False,
            "the children's variant: only adjacent house–sheep pairs (SV-VAR-1/2)",
            "game",
            check_children,
        ),
        Keyword(
            "first_player",
            None,
            "first player's seat, or None: drawn from the seed (SV-SETUP-7)",
            "game",
            _first_player,
        ),
        *_ENV_KEYWORDS,
    ),
    bots={
        "random": RandomBot,
        "heuristic": lazy("farmgames.envs.sunflower_valley.bots:HeuristicBot"),
        **search_bots("farmgames.envs.sunflower_valley.infostate"),  # PIMC / IS-MCTS (docs/benchmark.md)
    },
    render_ansi=lazy("farmgames.envs.sunflower_valley.render:ansi_text"),
    render_rgb=lazy("farmgames.envs.sunflower_valley.render:rgb_array"),
    narrator=lazy("farmgames.envs.sunflower_valley.narrate:Narrator"),
    information="perfect",
    hidden_perturbation=None,
    rules="sunflower_valley.md",
)

env, raw_env, parallel_env = env_functions(SPEC)
SunflowerValleyAECEnv: type = globals()["SunflowerValleyAECEnv"]  # set by env_functions
SunflowerValleyParallelEnv: type = globals()["SunflowerValleyParallelEnv"]


def docs_markdown(num_players: int = 4) -> str:
    """The generated parts of docs/sunflower_valley/env.md: action table, observation layout, keywords, facts."""
    from .core.docs import spec_markdown

    return spec_markdown(SPEC, num_players)


__all__ = [
    "SPEC",
    "SunflowerValleyAECEnv",
    "SunflowerValleyParallelEnv",
    "docs_markdown",
    "env",
    "parallel_env",
    "raw_env",
]
