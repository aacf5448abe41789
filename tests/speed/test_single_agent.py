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
    # the direct path's observation is a joined bytearray's view: an ordinary writable, aligned array
    assert obs.flags.writeable and obs.flags.c_contiguous and obs.flags.aligned
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


# ---------------------------------------------------------------- direct observations against the AEC env's


def _plain(env: SingleAgentEnv) -> SingleAgentEnv:
    """The same env on its plain path: every action through the raw PettingZoo env's ``step``, every
    observation through its ``observe`` (what the direct observations must reproduce exactly)."""
    env._direct = False
    return env


def _aec_state(env: SingleAgentEnv) -> dict:
    raw = env._raw
    return {
        "agent_selection": raw.agent_selection,
        "agents": list(raw.agents),
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "infos": raw.infos,
        "version": raw._version,
        "history": list(raw.game.history),
        "recall_log": list(raw._recall_log),
    }


DIRECT_CASES = [
    {"game": "fields_of_green_v0", "num_players": 2, "opponents": "random"},
    {"game": "fields_of_green_v0", "num_players": 3, "opponents": "random", "reward": "margin", "reward_scale": -0.05},
    {"game": "fields_of_green", "num_players": 3, "opponents": "random", "perfect_recall": True},
    {"game": "fields_of_green", "num_players": 2, "opponents": "heuristic"},
    {"game": "key_harvest", "num_players": 2, "opponents": "random"},
    {"game": "sunflower_valley", "num_players": 3, "opponents": "random", "reward": "score"},
]


@pytest.mark.parametrize("kwargs", DIRECT_CASES)
def test_direct_observations_equal_the_aec_env(kwargs):
    """Observations, masks, rewards (to the sign of a zero), terminations, infos and the raw env's AEC
    state after every learner step and reset; then a pickled copy of each goes on in lock step."""
    fast, plain = SingleAgentEnv(**kwargs), _plain(SingleAgentEnv(**kwargs))
    assert fast._direct
    rng = random.Random(5)
    a, b = fast.reset(seed=7), plain.reset(seed=7)
    ended = 0
    steps = 100 if kwargs["opponents"] == "heuristic" else 900 if kwargs["game"] == "key_harvest" else 300
    for step in range(steps):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_equal(a[-1], b[-1])
        np.testing.assert_equal(_aec_state(fast), _aec_state(plain))
        np.testing.assert_array_equal(fast.action_masks(), plain.action_masks())
        if step == steps // 2:
            fast, plain = pickle.loads(pickle.dumps(fast)), pickle.loads(pickle.dumps(plain))
        action = _legal(fast.action_masks(), rng)
        a, b = fast.step(action), plain.step(action)
        assert a[1:4] == b[1:4] and type(a[1]) is type(b[1]) is float
        assert np.copysign(1.0, a[1]) == np.copysign(1.0, b[1])  # -0.0 stays -0.0 (a negative scale)
        if a[2]:
            ended += 1
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_equal(a[-1], b[-1])
            np.testing.assert_equal(_aec_state(fast), _aec_state(plain))
            a, b = fast.reset(), plain.reset()
    assert ended or kwargs["opponents"] == "heuristic"


class _Reader:
    """An opponent that reads observations (the direct loop hands it to the raw env's step)."""

    name = "reader"

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return int(legal[int(observation.sum() * 7) % len(legal)])


def test_engine_direct_loop_with_observation_reading_and_bot_opponents():
    kwargs = {"game": "fields_of_green", "num_players": 3, "opponents": [_Reader(), "random"]}
    fast, plain = SingleAgentEnv(**kwargs), _plain(SingleAgentEnv(**kwargs))
    rng = random.Random(2)
    a, b = fast.reset(seed=1), plain.reset(seed=1)
    for _ in range(250):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_equal(_aec_state(fast), _aec_state(plain))
        action = _legal(fast.action_masks(), rng)
        a, b = fast.step(action), plain.step(action)
        assert a[1:4] == b[1:4]
        if a[2]:
            a, b = fast.reset(), plain.reset()


@pytest.mark.parametrize("game", ["fields_of_green_v0", "fields_of_green"])
def test_a_bots_illegal_action_fails_as_on_the_aec_path(game):
    """An engine-refused action of a bot goes to the raw env's own step: the same error either way (v0
    raises IllegalActionError; on v1 the raw env ends the game and the next bot step is refused)."""
    errors = []
    for direct in (True, False):
        env = SingleAgentEnv(game=game, num_players=2, opponents="random")
        env._direct = direct
        env.reset(seed=3)
        bot = env.opponents[1 - env.learner_seat]._bot
        bot.act = lambda game: 10**6  # never legal
        with pytest.raises(Exception) as caught:
            for _ in range(200):
                env.step(_legal(env.action_masks(), random.Random(0)))
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
