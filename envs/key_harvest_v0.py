"""Key Harvest, version 0: tile bidding and tile placement for 2-4 players with hidden crop counters.

    from farmgames.envs import key_harvest_v0
    env = key_harvest_v0.env(num_players=4)              # AEC, wrapped (bounds + order checks)
    raw = key_harvest_v0.raw_env(num_players=3)          # AEC, unwrapped
    par = key_harvest_v0.parallel_env(num_players=2)     # ParallelEnv (one decider per step)

Rules: ``shared/rules/key_harvest.md`` (rule IDs KH-...); summary, rulings and tables in docs/key_harvest/env.md.

Each player builds fields on a 56-hex country board: take field tiles from the land registry into the
store with an open bid of crop counters (action d), move store tiles to the board (action c; a rival's tile
costs exactly its bid, paid to the owner), harvest connected groups for counters (action a) and play workers
(action b) with one-time benefits. Up to two different actions per turn, (c) never after (d). Events drawn
from the bag interrupt play for every player; the 10th event starts the last two rounds. Score: 1 point per
tile of the largest group, 2 per tile of the second, the numbers of the workers on the board, and 1 point
per crop majority.

Agents: ``player_0`` … ``player_{n-1}``; the agent to act is the engine's ``current_player`` (the active
player, or the player an event is being resolved for).

Action space: ``Discrete(93)``, one atomic decision per step (KH-RULING-17): 0 done / end turn / decline;
1-5 action letters; 6-61 board spaces A1..G8; 62-67 own farmhands; 68-73 townsfolk; 74-79 registry spaces;
80-87 store tiles (offset clockwise from the acting player, space 1-2); 88-92 crops (wheat, hops,
vegetables, cider apples, wine). The mask allows only the ids of the current phase.

Observation: a dict ``{"observation": {name: float32 array}, "action_mask": int8[93]}``; the arrays
(every board as planes over the 56 spaces, stores with bids, registry, stock, known bag composition, event
spaces, the viewer's supply and the deduced facts about the others, the phase and its context) are listed
in docs/key_harvest/env.md, generated from the observer's layout. Imperfect information: another player's
start draw (3-4 players), the bag order and the removed events never reach an observation.

Rewards: at the end only (``reward`` = "win_loss" | "score" | "margin"). Keywords: ``first_player``
(None or a seat), ``reward``, ``illegal_action`` ("raise" | "terminate"), ``render_mode``
("human" | "ansi" | "rgb_array").
"""

from __future__ import annotations

from typing import Any

from .adapters import env_functions
from .core.bots import RandomBot
from .core.search import search_bots
from .core.spec import Bounds, GameSpec, Keyword
from .core.variants import ENV_KEYWORDS as _ENV_KEYWORDS
from .key_harvest.game import Game
from .key_harvest.observer import Observer

MAX_SCORE = 84 + 39 + 5  # groups a + 2b with a + b <= 56; all 12 worker numbers of a player; 5 majorities


def _bounds(game: Game) -> Bounds:
    """Decisions: at most 103 rounds of turns (safety limit + the two final rounds) with a generous 300
    decisions each, plus the 14 events for every player."""
    n = game.num_players
    return Bounds(max_decisions=103 * n * 300 + 14 * n * 150, max_score=MAX_SCORE)


def _first_player(value: Any) -> Any:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4):
        raise ValueError(f"first_player must be None or a seat, got {value!r}")
    return value


def _heuristic(seed: int = 0) -> Any:
    from .key_harvest.bots import HeuristicBot

    return HeuristicBot(seed=seed)


def _ansi(game: Game, viewer: int | None) -> str:
    from .key_harvest.render import ansi_text

    return ansi_text(game, viewer)


def _rgb(game: Game) -> Any:
    from .key_harvest.render import rgb_array

    return rgb_array(game)


def _narrator() -> Any:
    from .key_harvest.narrate import Narrator

    return Narrator()


def _hidden_perturbation(game: Game, seat: int, rng: Any) -> Game | None:
    from .key_harvest.hidden import hidden_perturbation

    return hidden_perturbation(game, seat, rng)


SPEC = GameSpec(
    name="key_harvest",
    version=0,
    gym_name="KeyHarvest",
    title="Key Harvest",
    min_players=2,  # KH-COMP-9
    max_players=4,
    new_game=Game,
    new_observer=Observer,
    from_json=Game.from_json,
    bounds=_bounds,
    keywords=(
        Keyword(
            "first_player", None, "a seat, or None for a seeded random start player (KH-SETUP-4)", check=_first_player
        ),
        *_ENV_KEYWORDS,
    ),
    bots={
        "random": RandomBot,
        "heuristic": _heuristic,
        **search_bots("farmgames.envs.key_harvest.infostate"),  # PIMC / IS-MCTS (docs/benchmark.md)
    },
    render_ansi=_ansi,
    render_rgb=_rgb,
    narrator=_narrator,
    information="imperfect",
    hidden_perturbation=_hidden_perturbation,
    rules="key_harvest.md",
    score_info_key="final_score",
)

env, raw_env, parallel_env = env_functions(SPEC)
KeyHarvestAECEnv: type = globals()["KeyHarvestAECEnv"]  # set by env_functions
KeyHarvestParallelEnv: type = globals()["KeyHarvestParallelEnv"]


def docs_markdown(num_players: int = 4) -> str:
    """The generated parts of docs/key_harvest/env.md: keywords, facts, observation layout."""
    from .core.docs import spec_markdown

    return spec_markdown(SPEC, num_players)


__all__ = ["SPEC", "KeyHarvestAECEnv", "KeyHarvestParallelEnv", "docs_markdown", "env", "parallel_env", "raw_env"]
