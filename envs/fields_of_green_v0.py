"""Fields of Green, version 0: the public environment module (PettingZoo naming convention).

    from farmgames.envs import fields_of_green_v0
    env = fields_of_green_v0.env(num_players=4)              # AEC, wrapped (bounds + order checks)
    raw = fields_of_green_v0.raw_env(num_players=3)          # AEC, unwrapped
    par = fields_of_green_v0.parallel_env(num_players=2)     # ParallelEnv

Keywords: every engine option (``farm_size``, ``card_set``, ``fixed_split``, ``pass_directions``,
``first_player``, ``auto_single``), the observer's ``perfect_recall`` (bool) and the environment's own:
``reward`` ("win_loss" | "score" | "margin"), ``illegal_action`` ("raise" | "terminate"),
``render_mode`` ("human" | "ansi" | "rgb_array"). See docs/fields_of_green/env.md.
"""

from __future__ import annotations

from typing import Any

from .adapters import env_functions
from .core.bots import RandomBot
from .core.lazy import lazy
from .core.search import search_bots
from .core.spec import LEGACY, Bounds, GameSpec, Keyword
from .core.variants import ENV_KEYWORDS as _ENV_KEYWORDS
from .core.variants import check_bool, valid_keywords
from .fields_of_green.bounds import game_bounds
from .fields_of_green.game import DEFAULT_DIRECTIONS, Game
from .fields_of_green.observer import Observer


def _bounds(game: Game) -> Bounds:
    b = game_bounds(game.cards, game.num_players, fixed_split=bool(game.fixed_split))
    return Bounds(max_decisions=b["max_decisions"], max_score=b["max_score"])


SPEC = GameSpec(
    name="fields_of_green",
    version=0,
    gym_name="FieldsOfGreen",
    title="Fields of Green",
    min_players=2,  # FOG-GEN-1
    max_players=4,
    new_game=Game,
    new_observer=Observer,
    from_json=Game.from_json,
    bounds=_bounds,
    keywords=(
        Keyword("farm_size", 9, "odd grid size 5..25 (FOG-RUL-8)"),
        Keyword("card_set", None, "path of a card-set YAML (data/FORMAT.md); default the base set"),
        Keyword("fixed_split", None, "{year: (F, L, C, B)} for every year: no draw decisions (FOG-RUL-3)"),
        Keyword(
            "pass_directions", DEFAULT_DIRECTIONS, "4 entries of clockwise/counterclockwise (or cw/ccw) (FOG-RUL-4)"
        ),
        Keyword("first_player", None, "a seat, or None for a seeded random seat (FOG-RUL-28)"),
        Keyword("auto_single", False, "apply decisions with exactly one legal action automatically"),
        *_ENV_KEYWORDS,
        Keyword(
            "perfect_recall",
            False,
            "add `passed`: the hands this agent passed on this year",
            "observer",
            check_bool("perfect_recall"),
        ),
    ),
    bots={
        "random": RandomBot,
        "heuristic": lazy("farmgames.envs.fields_of_green.bots:HeuristicBot"),
        # a narrower search, 1.37x less CPU per decision, equal strength over 2,000 games (docs/fields_of_green/bots.md)
        "heuristic_lite": lazy("farmgames.envs.fields_of_green.bots:LiteHeuristicBot"),
        # narrower still: 1.5x less CPU per decision, equal strength over 2,000 games (docs/fields_of_green/bots.md)
        "heuristic_fast": lazy("farmgames.envs.fields_of_green.bots:FastHeuristicBot"),
        **search_bots("farmgames.envs.fields_of_green.infostate"),  # PIMC / IS-MCTS (docs/benchmark.md)
    },
    render_ansi=lazy("farmgames.envs.fields_of_green.render:ansi_text"),
    render_rgb=lazy("farmgames.envs.fields_of_green.render:rgb_array"),
    narrator=lazy("farmgames.envs.fields_of_green.narrate:Narrator"),
    information="imperfect",
    hidden_perturbation=lazy("farmgames.envs.fields_of_green.hidden:hidden_perturbation"),
    rules="fields_of_green.md",
    score_info_key="final_vp",
    conventions=LEGACY,  # v0 keeps the env behaviour it was published with (docs/fields_of_green/env_versions.md)
)

env, raw_env, parallel_env = env_functions(SPEC)
FieldsOfGreenAECEnv: type  # set by env_functions
FieldsOfGreenParallelEnv: type
AECEnvClass = FieldsOfGreenAECEnv = globals()["FieldsOfGreenAECEnv"]
ParallelEnvClass = FieldsOfGreenParallelEnv = globals()["FieldsOfGreenParallelEnv"]

# the keyword names of v0, as before the shared core (kept for users)
GAME_KEYWORDS: dict[str, Any] = SPEC.keywords_for("game")
ENV_KEYWORDS: dict[str, Any] = {**SPEC.keywords_for("env"), **SPEC.keywords_for("observer")}
VALID_KEYWORDS = valid_keywords(SPEC)


def docs_markdown(num_players: int = 4) -> str:
    """The generated parts of docs/fields_of_green/env.md: action table, observation layout, keywords,
    game facts."""
    from .core.docs import spec_markdown

    return spec_markdown(SPEC, num_players, perfect_recall=True)


__all__ = [
    "ENV_KEYWORDS",
    "GAME_KEYWORDS",
    "SPEC",
    "VALID_KEYWORDS",
    "FieldsOfGreenAECEnv",
    "FieldsOfGreenParallelEnv",
    "docs_markdown",
    "env",
    "game_bounds",
    "parallel_env",
    "raw_env",
]
