"""The speed paths of ``env()`` against PettingZoo's own wrappers (envs/adapters/wrappers.py): the fast
``agent_iter`` iterator and the direct step of an in-range int play exactly like
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw_env()))``, with the same errors."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from farmgames.envs import key_harvest_v0


def _plain(n: int) -> OrderEnforcingWrapper:
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(key_harvest_v0.raw_env(num_players=n)))


@pytest.mark.parametrize("n", [2, 4])
def test_env_plays_like_the_plain_pettingzoo_wrappers(n):
    fast, plain = key_harvest_v0.env(num_players=n), _plain(n)
    rng = random.Random(n)
    for seed in (3, 4):
        fast.reset(seed=seed)
        plain.reset(seed=seed)
        steps = 0
        for agent, other in zip(fast.agent_iter(), plain.agent_iter(), strict=True):
            assert agent == other and fast.agents == plain.agents
            a, b = fast.last(), plain.last()
            assert a[1:4] == b[1:4]
            assert all(np.array_equal(x, y) for x, y in zip(a[0]["observation"].values(), b[0]["observation"].values()))
            assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
            if a[2] or a[3]:
                action = None
            else:
                legal = np.flatnonzero(a[0]["action_mask"])
                pick = int(legal[rng.randrange(len(legal))])
                action = (pick, np.int64(pick), np.array(pick))[steps % 3]  # ints take the direct path
            fast.step(action)
            plain.step(action)
            steps += 1
        assert fast.rewards == plain.rewards and steps > 100


def test_iterator_and_step_errors_are_pettingzoo_s():
    fast, plain = key_harvest_v0.env(num_players=3), _plain(3)
    for env in (fast, plain):
        env.reset(seed=1)
        it = iter(env.agent_iter(max_iter=3))  # the failed next() below counts too
        agent = next(it)
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)  # no step since the last agent
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        assert next(it) in env.possible_agents
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        with pytest.raises(StopIteration):
            next(it)  # max_iter reached
        with pytest.raises(AssertionError):
            env.step(93)  # out of range: AssertOutOfBoundsWrapper's assertion
        with pytest.raises(AssertionError):
            env.step(-1)
        assert agent in env.possible_agents
    for env in (key_harvest_v0.env(num_players=3), _plain(3)):
        with pytest.raises(Exception) as info:
            env.agent_iter()  # before reset
        assert "reset" in str(info.value)
