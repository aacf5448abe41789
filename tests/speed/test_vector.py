"""The batched env (wrappers/vector.py) against its plain path: N single-agent envs stepped one by one (on
their own plain path: the raw env's ``step`` and ``observe``, not the direct observations both share).

Every observation, mask, reward, termination and final info must be the same (no test here times anything)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.wrappers.single_agent import SingleAgentEnv
from farmgames.wrappers.vector import BatchedSingleAgentEnv, SB3BatchedVecEnv


def _legal(mask, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


class _FirstLegal:
    """A policy that reads observations (so the batch asks it), deterministic, with a batched form."""

    name = "first-legal"

    def __init__(self):
        self.calls = self.batches = self.batched_rows = 0

    def act(self, observation, action_mask):
        assert observation.dtype == np.float32
        self.calls += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[int(observation.sum()) % len(legal)])

    def act_batch(self, observations, masks):
        self.batches += 1
        self.batched_rows += len(observations)
        return [self.act(o, m) for o, m in zip(observations, masks, strict=True)]


def _plain_single(kwargs: dict) -> SingleAgentEnv:
    """A single env on its plain path (every action through the raw env's ``step``, every observation
    through its ``observe``), the reference for the batch's direct observations."""
    env = SingleAgentEnv(**kwargs)
    env._direct = False
    return env


def _compare(kwargs: dict, n: int, steps: int, seed: int = 3) -> BatchedSingleAgentEnv:
    singles = [_plain_single(kwargs) for _ in range(n)]
    batch = BatchedSingleAgentEnv(n, **kwargs)
    obs_b, _ = batch.reset(seed=seed)
    obs_s = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    rng = random.Random(seed)
    ended = 0
    for _ in range(steps):
        masks_b = batch.action_masks()
        for i, env in enumerate(singles):
            np.testing.assert_array_equal(obs_b[i], obs_s[i])
            np.testing.assert_array_equal(masks_b[i], env.action_masks())
        actions = [_legal(masks_b[i], rng) for i in range(n)]
        obs_b, rew_b, term_b, trunc_b, infos = batch.step(actions)
        for i, env in enumerate(singles):
            obs, reward, terminated, truncated, info = env.step(actions[i])
            assert rew_b[i] == reward and term_b[i] == terminated and not trunc_b[i]
            if terminated:
                ended += 1
                final_obs, final_info = batch.final_infos[i]
                np.testing.assert_array_equal(final_obs, obs)
                np.testing.assert_array_equal(infos["final_obs"][i], obs)
                assert infos["_final_obs"][i]
                info.pop("action_mask")
                np.testing.assert_equal(final_info, info)
                obs, _ = env.reset()
            else:
                assert i not in batch.final_infos
            obs_s[i] = obs
    assert ended > 0, "no episode ended: play longer"
    return batch


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game": "fields_of_green", "num_players": 2, "opponents": "random"},
        {"game": "fields_of_green", "num_players": 3, "opponents": "random", "reward": "margin", "reward_scale": 0.05},
        {"game": "key_harvest", "num_players": 2, "opponents": "random"},
        {"game": "sunflower_valley", "num_players": 2, "opponents": "random"},
    ],
)
def test_batched_env_equals_single_envs_step_by_step(kwargs):
    _compare(kwargs, n=3, steps=260)


def test_batched_env_with_heuristic_opponents_equals_single_envs():
    _compare({"game": "fields_of_green", "num_players": 2, "opponents": "heuristic"}, n=2, steps=120)


def test_observation_reading_opponents_are_batched_and_play_as_in_single_envs():
    policy = _FirstLegal()
    _compare({"game": "fields_of_green", "num_players": 2, "opponents": policy}, n=4, steps=230)
    assert policy.batches > 0 and policy.batched_rows > 1.5 * policy.batches  # several games per call on average


def test_illegal_action_takes_the_single_env_path():
    batch = BatchedSingleAgentEnv(2, game="fields_of_green", num_players=2, opponents="random")
    single = SingleAgentEnv(game="fields_of_green", num_players=2, opponents="random")
    batch.reset(seed=5)
    single.reset(seed=6)
    bad = int(np.flatnonzero(~batch.action_masks()[1])[0])
    good = int(np.flatnonzero(batch.action_masks()[0])[0])
    _, rewards, terminations, _, infos = batch.step([good, bad])
    _, reward, terminated, _, info = single.step(bad)
    assert terminations[1] and terminated and rewards[1] == reward == -1.0
    assert batch.final_infos[1][1]["illegal_action"] == info["illegal_action"] == 1


def test_buffers_are_preallocated_and_copies_are_handed_out():
    batch = BatchedSingleAgentEnv(2, game="fields_of_green", num_players=2, opponents="random")
    obs, _ = batch.reset(seed=0)
    assert obs.shape == batch.observation_space.shape and obs.dtype == np.float32
    assert batch.action_masks().dtype == bool and batch.action_masks().shape == (2, batch.single_action_space.n)
    # copy=True: each reset and step hands out a new array that no later step writes into
    kept = obs.copy()
    rng = random.Random(0)
    for _ in range(30):
        nxt, *_ = batch.step(np.array([_legal(m, rng) for m in batch.action_masks()]))
        assert nxt is not obs and np.array_equal(obs, kept)
    lean = BatchedSingleAgentEnv(2, game="fields_of_green", num_players=2, opponents="random", copy=False)
    assert lean.reset(seed=0)[0] is lean._obs and lean.action_masks() is lean._masks


def test_sb3_adapter_steps_and_reports_episode_ends():
    pytest.importorskip("stable_baselines3")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    vec = SB3BatchedVecEnv(2, game="fields_of_green", num_players=2, opponents="random")
    vec.seed(0)
    obs = vec.reset()
    assert obs.shape == (2, vec.observation_space.shape[0])
    assert is_masking_supported(vec)
    rng = random.Random(0)
    done_seen = False
    for _ in range(200):
        masks = get_action_masks(vec)
        assert masks.shape == (2, vec.action_space.n)
        obs, rewards, dones, infos = vec.step(np.array([_legal(m, rng) for m in masks]))
        for done, info in zip(dones, infos, strict=True):
            if done:
                done_seen = True
                assert "terminal_observation" in info and "learner_won" in info
    assert done_seen


def test_batched_env_refuses_non_integer_actions():
    batch = BatchedSingleAgentEnv(2, game="fields_of_green", num_players=2, opponents="random")
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="integers"):
        batch.step(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="2 actions"):
        batch.step([1])
