"""The batched env's speed tricks against their plain paths (wrappers/vector.py), and the SB3 adapter's
episode infos against SB3's own Monitor + DummyVecEnv (tests/speed/test_vector.py compares the batch with N
single envs step by step)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.wrappers.vector import BatchedSingleAgentEnv, SB3BatchedVecEnv, copy_runs

GAMES = [
    {"game": "fields_of_green_v0", "num_players": 2, "opponents": "random"},
    {"game": "key_harvest", "num_players": 2, "opponents": "random"},
    {"game": "sunflower_valley", "num_players": 2, "opponents": "random"},
]


def _legal(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def test_copy_runs_merge_parts_adjacent_in_both_layouts():
    src = [("a", 0, 2), ("b", 2, 5), ("c", 5, 6), ("d", 6, 10)]
    dst = [("c", 0, 1), ("d", 1, 5), ("a", 5, 7), ("b", 7, 10)]  # a,b adjacent and c,d adjacent in both
    runs = copy_runs(src, dst)
    assert runs == [(0, 5, 5), (5, 0, 5)]
    flat = np.arange(10.0)
    out = np.empty(10)
    for s, d, n in runs:
        out[d : d + n] = flat[s : s + n]
    plain = np.concatenate([flat[a:b] for name, a, b in sorted(src, key=lambda t: [x[0] for x in dst].index(t[0]))])
    np.testing.assert_array_equal(out, plain)
    assert copy_runs(src, src) == [(0, 0, 10)]


@pytest.mark.parametrize("kwargs", GAMES, ids=lambda k: k["game"])
def test_double_buffer_hands_out_what_the_copying_env_does_and_keeps_it_one_step(kwargs):
    """``copy=False, double_buffer=True`` (kept buffers, one memcpy per step) against the default ``copy=True``: the
    same observations and masks every step, and the array of step t is still intact after step t + 1
    (SB3 stores it then) while the buffer of step t + 1 is a different one."""
    n = 3
    plain = BatchedSingleAgentEnv(n, **kwargs)
    lean = BatchedSingleAgentEnv(n, copy=False, double_buffer=True, **kwargs)
    obs_p, _ = plain.reset(seed=11)
    obs_l, _ = lean.reset(seed=11)
    rng = random.Random(0)
    ended = 0
    for _ in range(260):
        np.testing.assert_array_equal(obs_l, obs_p)
        masks = plain.action_masks()
        np.testing.assert_array_equal(lean.action_masks(), masks)
        actions = [_legal(m, rng) for m in masks]
        kept, kept_copy = obs_l, obs_l.copy()
        obs_p, rew_p, term_p, _, info_p = plain.step(actions)
        obs_l, rew_l, term_l, _, info_l = lean.step(actions)
        assert obs_l is not kept
        np.testing.assert_array_equal(kept, kept_copy)  # the previous step's array survived this step
        np.testing.assert_array_equal(rew_l, rew_p)
        np.testing.assert_array_equal(term_l, term_p)
        ended += int(term_p.sum())
        for i in np.flatnonzero(term_p):
            np.testing.assert_array_equal(info_l["final_obs"][i], info_p["final_obs"][i])
    assert ended > 0, "no episode ended: play longer"


@pytest.mark.parametrize("kwargs", GAMES, ids=lambda k: k["game"])
def test_mask_rows_from_the_engine_hooks_equal_the_list_path(kwargs):
    """Games with ``legal_mask_bytes()`` / ``legal_action_array()`` get their mask rows from one memcpy / one
    numpy store (the raw env's ``write_action_mask``); with the raw envs' hooks turned off the rows are set
    from ``legal_actions()``: the same masks."""
    fast = BatchedSingleAgentEnv(2, **kwargs)
    slow = BatchedSingleAgentEnv(2, **kwargs)
    if fast._games[0].raw._legal_hook is None:
        pytest.skip(f"{kwargs['game']} has no mask hook")
    for g in slow._games:
        g.raw._legal_hook = None
    fast.reset(seed=4)
    slow.reset(seed=4)
    rng = random.Random(4)
    for _ in range(150):
        masks = fast.action_masks()
        np.testing.assert_array_equal(slow.action_masks(), masks)
        assert masks.any(axis=1).all()
        actions = [_legal(m, rng) for m in masks]
        fast.step(actions)
        slow.step(actions)


@pytest.mark.parametrize(
    "kwargs",
    [
        {
            "game": "fields_of_green_v0",
            "num_players": 2,
            "opponents": "random",
            "reward": "margin",
            "reward_scale": 0.05,
        },
        {"game": "sunflower_valley", "num_players": 2, "opponents": "random"},  # the fixed info convention
    ],
    ids=lambda k: k["game"],
)
def test_sb3_adapter_episode_infos_equal_monitor_over_dummy_vec_env(kwargs):
    """The adapter's ``info["episode"]`` (return and length; ``t`` is wall time) and terminal observations
    against SB3's Monitor-wrapped single envs in a DummyVecEnv, same seeds and actions."""
    pytest.importorskip("stable_baselines3")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from farmgames.wrappers.single_agent import SingleAgentEnv

    n = 3
    vec = SB3BatchedVecEnv(n, **kwargs)
    ref = DummyVecEnv([lambda: Monitor(SingleAgentEnv(**kwargs)) for _ in range(n)])
    assert vec.env_is_wrapped(Monitor) == [True] * n
    vec.seed(7)
    ref.seed(7)
    obs, obs_ref = vec.reset(), ref.reset()
    rng = random.Random(7)
    episodes = 0
    for _ in range(300):
        np.testing.assert_array_equal(obs, obs_ref)
        masks = get_action_masks(vec)
        np.testing.assert_array_equal(masks, get_action_masks(ref))
        actions = np.array([_legal(m, rng) for m in masks])
        kept = obs.copy()
        before = obs
        obs, rewards, dones, infos = vec.step(actions)
        obs_ref, rewards_ref, dones_ref, infos_ref = ref.step(actions)
        np.testing.assert_array_equal(before, kept)  # SB3 stores the previous observations after the step
        np.testing.assert_array_equal(rewards, rewards_ref)
        np.testing.assert_array_equal(dones, dones_ref)
        for done, info, info_ref in zip(dones, infos, infos_ref, strict=True):
            if not done:
                assert "episode" not in info
                continue
            episodes += 1
            assert info["episode"]["r"] == info_ref["episode"]["r"]
            assert info["episode"]["l"] == info_ref["episode"]["l"]
            np.testing.assert_array_equal(info["terminal_observation"], info_ref["terminal_observation"])
            assert info["TimeLimit.truncated"] == info_ref["TimeLimit.truncated"]
            for key in ("learner_won", "learner_score", "learner_margin"):
                assert info[key] == info_ref[key], key
    assert episodes >= 3, "too few episodes ended: play longer"


@pytest.mark.parametrize("kwargs", GAMES, ids=lambda k: k["game"])
def test_masks_asked_through_the_games_are_the_batchs(kwargs):
    """``call("action_masks")`` and the SB3 adapter's ``env_method("action_masks", indices=...)`` answer with the
    batch's masks: a single env inside the batch does not observe for itself, so its own mask would be that of
    its last own step (the batch's reset and steps bypass it)."""
    pytest.importorskip("stable_baselines3")
    batch = BatchedSingleAgentEnv(3, **kwargs)
    vec = SB3BatchedVecEnv(batch)
    vec.seed(0)
    vec.reset()
    rng = random.Random(0)
    for _ in range(40):
        masks = batch.action_masks()
        np.testing.assert_array_equal(np.stack(batch.call("action_masks")), masks)
        np.testing.assert_array_equal(np.stack(vec.env_method("action_masks", indices=[2, 0])), masks[[2, 0]])
        vec.step_async(np.array([_legal(m, rng) for m in masks]))
        vec.step_wait()
    vec.close()
