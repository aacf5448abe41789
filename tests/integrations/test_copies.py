"""The single-agent env and gymnasium's sync vector env of it pickle, deep-copy and cloudpickle, and the
copy steps in lock step with the original (the AEC and parallel envs: tests/conformance/test_conventions.py).
Not marked ``integration``: these need only gymnasium and run with the main suite."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

COPIES = {
    "pickle": lambda e: pickle.loads(pickle.dumps(e)),
    "deepcopy": copy.deepcopy,
    "cloudpickle": lambda e: pickle.loads(pytest.importorskip("cloudpickle").dumps(e)),
}


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", GAME_PARAMS)
def test_single_agent_and_vector_env_copies_step_in_lock_step(name, how):
    import gymnasium

    from farmgames.wrappers import SingleAgentEnv

    env = SingleAgentEnv(game=name, num_players=players(name), opponents="random")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(5):
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    twin = COPIES[how](env)
    for _ in range(200):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        a, b = env.step(action), twin.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        assert np.array_equal(a[4]["action_mask"], b[4]["action_mask"])
        obs, _, term, trunc, info = a
        if term or trunc:
            assert np.array_equal(env.reset(seed=9)[0], twin.reset(seed=9)[0])
            info = env.reset(seed=9)[1]
            twin.reset(seed=9)
    make = functools.partial(SingleAgentEnv, game=name, num_players=players(name), opponents="random")
    venv = gymnasium.vector.SyncVectorEnv([make] * 2)
    obs, infos = venv.reset(seed=1)
    vtwin = COPIES[how](venv)
    for _ in range(30):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]])
        a, b = venv.step(actions), vtwin.step(actions)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        infos = a[4]
