"""Shared helpers for the environment tests: random play, copies of observations, a synthetic card set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.scenario import write_card_set

# A tiny card set for scenario tests (FOG-RUL-1 allows synthetic sets): only the cards a test names.
ENV_LOCATIONS = {
    "Field": [
        {"name": "Melon Patch", "subtype": "fruit", "copies": 2, "cost": {"coins": 1, "water": 1}, "vp": 1},
        {
            "name": "Wheat",
            "subtype": "cereal",
            "copies": 2,
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {"water": 1}, "effect": [{"gain": {"food": 2}}]},
        },
    ],
    "Livestock": [
        {
            "name": "Cows",
            "subtype": "dairy",
            "copies": 2,
            "cost": {"coins": 1, "food": 2},
            "vp": 2,
            "ability": {"kind": "harvest", "cost": {"food": 1}, "effect": [{"gain": {"coins": 3}}]},
        },
        {
            "name": "Hens",
            "subtype": "poultry",
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "immediate", "effect": [{"gain_equipment": 1}]},
        },
    ],
    "Construction": [
        {
            "name": "Well",
            "cost": {"coins": 1},
            "vp": 0,
            "ability": {"kind": "immediate", "effect": [{"gain": {"water": 2}}]},
        },
    ],
    "Building": [
        {"name": "Chapel", "cost": {"coins": 4}, "vp": 5},
    ],
}
ENV_EQUIPMENT = [
    {
        "name": "Hose",
        "copies": 2,
        "host": "Field",
        "keyword": "harvest",
        "timing": "permanent",
        "effect": [{"harvest_discount": {"water": 1}}],
    },
    {"name": "Vane", "copies": 2, "host": "Building", "timing": "end_game", "effect": [{"gain": {"vp": 2}}]},
    {"name": "Crate", "host": "Construction", "timing": "on_place", "effect": [{"gain": {"coins": 1}}]},
]


@pytest.fixture(scope="session")
def env_set(tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("envset")
    return str(write_card_set(directory, locations=ENV_LOCATIONS, equipment=ENV_EQUIPMENT, pile_size=12, name="ENVSET"))


def copy_obs(obs: dict) -> dict:
    """A deep copy of one agent's observation (the env reuses its buffers)."""
    return {
        "observation": {k: v.copy() for k, v in obs["observation"].items()},
        "action_mask": obs["action_mask"].copy(),
    }


def obs_equal(a: dict, b: dict) -> bool:
    if a["observation"].keys() != b["observation"].keys():
        return False
    return all(np.array_equal(a["observation"][k], b["observation"][k]) for k in a["observation"]) and np.array_equal(
        a["action_mask"], b["action_mask"]
    )


def obs_diff(a: dict, b: dict) -> list[str]:
    return [k for k in a["observation"] if not np.array_equal(a["observation"][k], b["observation"][k])] + (
        [] if np.array_equal(a["action_mask"], b["action_mask"]) else ["action_mask"]
    )


def random_states(num_players: int, seed: int, every: int = 7, **variant):
    """Yield (game, step) at every ``every``-th decision of one seeded random game (the game object is
    shared: clone it to keep a state)."""
    rng = random.Random(seed)
    game = Game(num_players=num_players, seed=seed, **variant)
    step = 0
    while not game.is_terminal():
        if step % every == 0:
            yield game, step
        game.apply(rng.choice(game.legal_actions()))
        step += 1
    yield game, step


def play_aec(env, seed: int, rng: random.Random | None = None, check=None) -> int:
    """Play one game in an AEC env with uniformly random masked actions; ``check(env, agent, obs)`` is
    called before every live step. Returns the number of decisions."""
    rng = rng or random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
    return steps


def pytest_collection_modifyitems(config, items):
    """Slow-marked tests here run only when asked for (``-m slow`` or FARMGAMES_SLOW=1), so that
    ``pytest tests/fields_of_green/env`` stays fast; the CI command deselects them with ``-m "not slow"`` anyway."""
    import os

    if "slow" in (config.getoption("markexpr", "") or "") or os.environ.get("FARMGAMES_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow (or FARMGAMES_SLOW=1)")
    for item in items:
        if "slow" in item.keywords and "tests/fields_of_green/env/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
