"""The objects a step reads attributes of keep at most 30 entries in their instance dict.

CPython 3.11 keeps an instance's attributes as shared-key values (read by ``self.x`` without a dict lookup)
only up to 30 keys; the env adapters, the Key Harvest engine and its observer hold what a step reads in
``__slots__`` for that reason. This test fails when an object grows past the limit again, for every game,
after reset and after some steps (and after a pickle round trip, which sets the slots by name)."""

from __future__ import annotations

import pickle
import random

import pytest

from farmgames.envs import face

GAMES = ("fields_of_green_v0", "fields_of_green_v1", "sunflower_valley_v0", "key_harvest_v0")


def _play(env, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize("game", GAMES)
def test_instance_dicts_stay_small(game: str) -> None:
    rng = random.Random(0)
    env = face(game).env(num_players=4)
    env.reset(seed=1)
    _play(env, 40, rng)
    for copy in (env, pickle.loads(pickle.dumps(env))):
        raw = copy.unwrapped
        _play(copy, 5, rng)
        sizes = {"env": len(raw.__dict__)}
        if game.startswith("key_harvest"):
            sizes["game"] = len(vars(raw.game)) if hasattr(raw.game, "__dict__") else 0
            sizes["observer"] = len(getattr(raw.observer, "__dict__", {}))
        assert all(n <= 30 for n in sizes.values()), sizes
