"""The single-agent env's fast path (``SingleAgentEnv._learner_obs``) against the flatten wrapper's plain path.

Every learner observation and mask must equal what ``FlattenObservation.observe`` makes of the raw env's
observation (the layout checkpoints were trained on); the info and ``action_masks()`` give the same mask; a
pickled copy goes on in lock step. (No test here times anything.)"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from farmgames.wrappers.single_agent import SingleAgentEnv


def _legal(mask, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def _check_step(env: SingleAgentEnv, obs: np.ndarray, info: dict) -> None:
    plain = env._aec.observe(env._learner_agent)
    np.testing.assert_array_equal(obs, plain["observation"])
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape
    np.testing.assert_array_equal(info["action_mask"], plain["action_mask"])
    np.testing.assert_array_equal(env.action_masks(), plain["action_mask"].astype(bool))
    assert env.action_masks().dtype == bool


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game": "fields_of_green_v0", "num_players": 2, "opponents": "random"},
        {"game": "fields_of_green", "num_players": 3, "opponents": "random", "perfect_recall": True},
        {"game": "fields_of_green", "num_players": 2, "opponents": "heuristic"},
        {"game": "key_harvest", "num_players": 2, "opponents": "random"},
        {"game": "sunflower_valley", "num_players": 3, "opponents": "random"},
    ],
)
def test_fast_observations_equal_the_flatten_wrapper(kwargs):
    env = SingleAgentEnv(**kwargs)
    rng = random.Random(1)
    obs, info = env.reset(seed=2)
    kept = []  # earlier observations must not change when the env steps on (fresh arrays)
    ended = 0
    for step in range(400 if kwargs["opponents"] == "random" else 120):
        _check_step(env, obs, info)
        if step % 25 == 0:
            kept.append((obs, obs.copy(), info["action_mask"], info["action_mask"].copy()))
        obs, reward, terminated, truncated, info = env.step(_legal(env.action_masks(), rng))
        if terminated or truncated:
            ended += 1
            _check_step(env, obs, info)
            obs, info = env.reset()
    for a, a_copy, m, m_copy in kept:
        np.testing.assert_array_equal(a, a_copy)
        np.testing.assert_array_equal(m, m_copy)
    assert ended or kwargs["opponents"] == "heuristic"


def test_pickled_copy_steps_in_lock_step():
    env = SingleAgentEnv(game="fields_of_green", num_players=2, opponents="random")
    env.reset(seed=4)
    rng = random.Random(4)
    for _ in range(30):
        env.step(_legal(env.action_masks(), rng))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(60):
        action = _legal(env.action_masks(), rng)
        a = env.step(action)
        b = copy.step(action)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
        if a[2]:
            break
