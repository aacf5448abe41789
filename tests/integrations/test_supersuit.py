"""SuperSuit: vectorised parallel envs (pettingzoo_env_to_vec_env_v1 + concat_vec_envs_v1) and its
observation wrappers on Box observations, plus a few hundred steps of masked training on top."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_supersuit_vector_env_steps_with_info_masks(name):
    pytest.importorskip("supersuit")
    from farmgames.wrappers.integrations.supersuit import vector_env

    venv = vector_env(name, num_envs=2, num_players=players(name))
    obs, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    rows = obs.shape[0]
    assert rows == 2 * players(name)
    for _ in range(300):
        masks = [info["action_mask"] for info in infos]
        assert all(m.any() for m in masks)
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        obs, rewards, terms, truncs, infos = venv.step(actions)
        assert obs.shape[0] == rows and np.isfinite(obs).all()
    venv.close()


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_supersuit_observation_wrappers_on_box_observations(name):
    ss = pytest.importorskip("supersuit")
    from farmgames.wrappers.integrations import parallel

    env = ss.dtype_v0(parallel(name, num_players=players(name), observation_mode="flat"), np.float32)
    env = ss.normalize_obs_v0(env, env_min=0.0, env_max=1.0)
    env = ss.frame_stack_v1(env, 2)
    observations, infos = env.reset(seed=1)
    agent = env.possible_agents[0]
    assert observations[agent].shape == env.observation_space(agent).shape
    rng = np.random.default_rng(1)
    for _ in range(50):
        if not env.agents:
            break
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        observations, rewards, terms, truncs, infos = env.step(actions)
        assert all(env.observation_space(a).contains(o) for a, o in observations.items())
