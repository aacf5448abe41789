"""The conformance suite runs over every registered game and the tiny test game (Secret Nim).

``CASES`` lists ``(env_name, num_players)`` for every game of the registry at every player count, plus
the test game registered through ``farmgames.envs.register`` exactly as a researcher's own game would.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from farmgames.envs import GAMES, face, get_spec

from . import tiny_game  # noqa: F401  (registers secret_nim_v0)

ENV_NAMES = [row.env_name for row in GAMES] + [tiny_game.SPEC.env_name]
CASES = [(name, n) for name in ENV_NAMES for n in get_spec(name).player_counts]
GAME_CASES = [pytest.param(name, n, id=f"{name}-{n}p") for name, n in CASES]
NAMES = [pytest.param(name, id=name) for name in ENV_NAMES]


def random_states(spec: Any, num_players: int, seed: int, every: int = 1, limit: int = 4000) -> Iterator[Any]:
    """States of one random game (every ``every``-th decision), ending with the final state."""
    rng = random.Random(seed)
    game = spec.new_game(num_players=num_players, seed=seed)
    step = 0
    while not game.is_terminal() and step < limit:
        if step % every == 0:
            yield game
        game.apply(rng.choice(game.legal_actions()))
        step += 1
    yield game


def copy_obs(obs: dict) -> dict:
    return {
        "observation": {k: np.array(v, copy=True) for k, v in obs["observation"].items()},
        "action_mask": np.array(obs["action_mask"], copy=True),
    }


def obs_diff(a: dict, b: dict) -> list[str]:
    """Names of the arrays (and ``action_mask``) that differ."""
    out = [k for k in a["observation"] if not np.array_equal(a["observation"][k], b["observation"][k])]
    if not np.array_equal(a["action_mask"], b["action_mask"]):
        out.append("action_mask")
    return out


@pytest.fixture
def module():
    return face
