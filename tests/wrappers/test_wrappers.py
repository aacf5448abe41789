"""Wrappers: flat observations (AEC and parallel), the single-agent env under gymnasium's and SB3's
checkers, the learner's reward being its own (2, 3, 4 players), the gymnasium id, seeding, opponents."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

import farmgames.envs  # noqa: F401  (registers the ids)
from farmgames.envs import fields_of_green_v0
from farmgames.envs.core.bots import make_bot as _make_bot
from farmgames.wrappers import (
    FieldsOfGreenSingleAgentEnv,
    FlattenObservation,
    FlattenObservationParallel,
    env_facts,
    flatten_observations,
    unflatten_observation,
)


def make_bot(name, seed=0):
    return _make_bot(fields_of_green_v0.SPEC.bots, name, seed)


def _masked_choice(rng, mask):
    legal = np.flatnonzero(mask)
    assert legal.size, "empty action mask"
    return int(rng.choice(legal))


# ------------------------------------------------------------------ flatten (AEC)


@pytest.mark.parametrize("num_players", [2, 4])
def test_flatten_aec_shapes_and_masks(num_players):
    raw = fields_of_green_v0.env(num_players=num_players)
    env = flatten_observations(raw)
    assert isinstance(env, FlattenObservation)
    env.reset(seed=3)
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        box = space["observation"]
        assert isinstance(box, spaces.Box) and box.dtype == np.float32 and len(box.shape) == 1
        assert space["action_mask"] == raw.observation_space(agent)["action_mask"]
        inner = raw.observation_space(agent)["observation"]
        assert box.shape[0] == spaces.flatdim(inner)
    steps = 0
    while not game.is_terminal():
        agent = env.agent_selection
        obs = env.observe(agent)
        flat = obs["observation"]
        assert flat.dtype == np.float32 and flat.shape == env.observation_space(agent)["observation"].shape
        assert env.observation_space(agent)["observation"].contains(flat)
        # same numbers as gymnasium's flatten of the structured observation
        structured = env.unwrapped.observe(agent)
        expected = spaces.flatten(raw.observation_space(agent)["observation"], structured["observation"])
        np.testing.assert_array_equal(flat, expected.astype(np.float32))
        # the mask is the engine's legal set for the deciding agent
        np.testing.assert_array_equal(obs["action_mask"].astype(bool), game.legal_mask())
        assert obs["action_mask"].dtype == np.int8
        # env.last() goes through the wrapper too
        last_obs = env.last()[0]
        np.testing.assert_array_equal(last_obs["observation"], flat)
        env.step(_masked_choice(rng, obs["action_mask"]))
        steps += 1
        if steps > 40 and num_players == 4:
            break  # enough for shapes; the 2-player game is played to the end
    if num_players == 2:
        assert game.is_terminal()


def test_unflatten_round_trip():
    raw = fields_of_green_v0.env(num_players=2)
    env = flatten_observations(raw)
    env.reset(seed=1)
    agent = env.agent_selection
    flat = env.observe(agent)["observation"]
    named = unflatten_observation(raw.observation_space(agent), flat)
    structured = raw.observe(agent)["observation"]
    assert set(named) == set(structured)
    for key in structured:
        np.testing.assert_array_equal(np.asarray(named[key]), np.asarray(structured[key]))
    assert env.structured_observation_space(agent) == raw.observation_space(agent)["observation"]


# ------------------------------------------------------------------ flatten (parallel)


def test_flatten_parallel_shapes_and_masks():
    raw = fields_of_green_v0.parallel_env(num_players=3)
    env = flatten_observations(raw)
    assert isinstance(env, FlattenObservationParallel)
    obs, infos = env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(30):
        if not env.agents:
            break
        assert set(obs) >= set(env.agents)
        actions = {}
        for agent in env.agents:
            o = obs[agent]
            space = env.observation_space(agent)
            assert o["observation"].dtype == np.float32
            assert space["observation"].contains(o["observation"])
            assert o["action_mask"].shape == (env.action_space(agent).n,)
            assert o["action_mask"].any()
            actions[agent] = _masked_choice(rng, o["action_mask"])
        obs, rewards, terms, truncs, infos = env.step(actions)


def test_flatten_rejects_other_things():
    with pytest.raises(TypeError):
        flatten_observations(object())


# ------------------------------------------------------------------ single-agent env


def test_single_agent_passes_gymnasium_and_sb3_checkers():
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random")
    assert isinstance(env.observation_space, spaces.Box) and env.observation_space.dtype == np.float32
    assert isinstance(env.action_space, spaces.Discrete)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbounded raw counts -> "not normalised" warnings
        gym_check(env, skip_render_check=True)
        sb3_check(FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random"), warn=False)


def test_gymnasium_make():
    env = gymnasium.make("farmgames/FieldsOfGreen-v0", num_players=2, opponents="random")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].any()
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.observation_space.contains(obs)
    env.close()


class _Spy:
    """An opponent that plays the random bot and records when it acted (to see who ended the game)."""

    needs_observation = False

    def __init__(self, seed=0):
        self.bot = make_bot("random", seed)
        self.acted_at: list[int] = []

    def reset(self, seed=None):
        self.acted_at = []
        if seed is not None:
            self.bot = make_bot("random", seed)

    def attach(self, game, seat):
        self.game = game

    def act(self, observation, action_mask):
        self.acted_at.append(len(self.game.history))
        return self.bot.act(self.game)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_learner_reward_is_its_own(num_players):
    """The reward after the learner's action is the LEARNER's return (PettingZoo's SB3 tutorial once
    trained on the opponent's reward): it equals game.returns()[learner_seat] whoever moved last."""
    spies = [_Spy(k) for k in range(num_players - 1)]
    env = FieldsOfGreenSingleAgentEnv(num_players=num_players, opponents=spies, learner_seat="rotate")
    rng = np.random.default_rng(num_players)
    seen_seats = set()
    differs = 0
    for episode in range(2 * num_players):
        obs, info = env.reset(seed=100 + episode) if episode == 0 else env.reset()
        seat = env.learner_seat
        seen_seats.add(seat)
        total, rewards = 0.0, []
        terminated = False
        while not terminated:
            obs, reward, terminated, truncated, info = env.step(_masked_choice(rng, info["action_mask"]))
            rewards.append(reward)
            total += reward
            assert not truncated
        game = env.game
        assert game.is_terminal()
        returns = game.returns()
        assert total == pytest.approx(returns[seat])
        assert rewards[-1] == pytest.approx(returns[seat]) and all(r == 0 for r in rewards[:-1])
        assert info["returns"][seat] == returns[seat]
        assert info["learner_won"] == (seat in game.winners())
        assert info["learner_vp"] == game.scores()[seat].total
        differs += any(r != returns[seat] for r in returns)
        assert sum(len(s.acted_at) for s in spies) + info["decisions"] == len(game.history)
    assert seen_seats == set(range(num_players))  # rotation visits every seat
    assert differs > 0  # some game where another seat's return differs from the learner's


def test_reward_is_own_when_an_opponent_ends_the_game():
    """Force the final decision onto an opponent: the learner still gets its own return."""
    found = 0
    for seed in range(12):
        env = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random", learner_seat=0)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        terminated = False
        while not terminated:
            before = len(env.game.history)
            obs, reward, terminated, _, info = env.step(_masked_choice(rng, info["action_mask"]))
        if len(env.game.history) - before > 1:  # opponents moved after the learner's last action
            found += 1
            assert reward == env.game.returns()[0]
    assert found >= 1


def test_seeding_and_rotation_are_reproducible():
    a = FieldsOfGreenSingleAgentEnv(num_players=3, opponents="random")
    b = FieldsOfGreenSingleAgentEnv(num_players=3, opponents="random")
    seats_a, seats_b = [], []
    for i in range(4):
        oa, ia = a.reset(seed=7) if i == 0 else a.reset()
        ob, ib = b.reset(seed=7) if i == 0 else b.reset()
        np.testing.assert_array_equal(oa, ob)
        seats_a.append(a.learner_seat)
        seats_b.append(b.learner_seat)
        for _ in range(5):
            action = int(np.flatnonzero(ia["action_mask"])[0])
            oa, ra, ta, _, ia = a.step(action)
            ob, rb, tb, _, ib = b.step(action)
            np.testing.assert_array_equal(oa, ob)
            assert ra == rb and ta == tb
    assert seats_a == seats_b
    assert len(set(seats_a[:3])) == 3  # rotate: a new seat each episode
    # options fix one episode's deal and seat
    o1, _ = a.reset(options={"game_seed": 11, "learner_seat": 2})
    assert a.learner_seat == 2 and a.game_seed == 11


def test_action_masks_and_illegal_actions():
    env = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="heuristic", learner_seat=1)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (env.action_space.n,)
    np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
    np.testing.assert_array_equal(mask, env.game.legal_mask())
    assert env.game.current_player == 1
    illegal = int(np.flatnonzero(~mask)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    strict = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_opponent_specs_are_checked():
    with pytest.raises(ValueError, match="one policy per other seat"):
        FieldsOfGreenSingleAgentEnv(num_players=3, opponents=["random"])
    with pytest.raises(ValueError, match="learner_seat"):
        FieldsOfGreenSingleAgentEnv(num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="resolver"):
        FieldsOfGreenSingleAgentEnv(num_players=2, opponents="no/such/model.zip")
    env = FieldsOfGreenSingleAgentEnv(num_players=3, opponents=["random", "heuristic"], learner_seat=0)
    env.reset(seed=0)
    assert env.opponent_names == {1: "random", 2: "heuristic"}


def test_env_facts_match_the_env():
    facts = env_facts(num_players=2)
    env = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random")
    assert facts["observation_size"] == env.observation_space.shape[0]
    assert facts["action_size"] == env.action_space.n
    assert env_facts(num_players=4)["observation_size"] != facts["observation_size"]


@pytest.mark.parametrize("reward", ["score", "margin"])
def test_reward_modes_are_the_learners_own(reward):
    env = FieldsOfGreenSingleAgentEnv(
        num_players=3, opponents="random", learner_seat=1, reward=reward, reward_scale=0.5
    )
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    total, done = 0.0, False
    while not done:
        obs, r, done, _, info = env.step(_masked_choice(rng, info["action_mask"]))
        total += r
    expected = info["learner_vp"] if reward == "score" else info["learner_margin"]
    assert total == pytest.approx(0.5 * expected)


# ------------------------------------------------------------------ generic over games


def test_single_agent_env_with_game_name():
    from farmgames.wrappers import BotPolicy, SingleAgentEnv

    env = SingleAgentEnv(game="fields_of_green_v0", num_players=2, opponents="random")
    alias = FieldsOfGreenSingleAgentEnv(num_players=2, opponents="random")
    assert env.metadata["name"] == "FieldsOfGreen-v0" and alias.game_name == "fields_of_green_v0"
    newest = SingleAgentEnv(game="fields_of_green", num_players=2, opponents="random")
    assert newest.game_name == farmgames.envs.get_spec("fields_of_green").env_name  # a bare name: newest version
    assert env.observation_space == alias.observation_space and env.action_space == alias.action_space
    a, ia = env.reset(seed=5)
    b, ib = alias.reset(seed=5)
    np.testing.assert_array_equal(a, b)  # the alias is the same env
    assert SingleAgentEnv(game="fields_of_green_v0").num_players == fields_of_green_v0.SPEC.default_players
    assert isinstance(
        SingleAgentEnv(num_players=2, opponents=BotPolicy(fields_of_green_v0.SPEC, "random")).reset(seed=0)[0],
        np.ndarray,
    )
    with pytest.raises(ValueError, match="registered games"):
        SingleAgentEnv(game="chess")
    with pytest.raises(ValueError, match="num_players must be one of 2, 3, 4"):
        SingleAgentEnv(game="fields_of_green", num_players=5)
    with pytest.raises(ValueError, match="unknown bot"):
        BotPolicy("fields_of_green", "alphazero")


@pytest.mark.parametrize("row", farmgames.envs.GAMES, ids=[r.env_name for r in farmgames.envs.GAMES])
def test_single_agent_env_plays_every_registered_game(row):
    """Players from the spec, opponents from its bot table: one complete episode of every game."""
    from farmgames.wrappers import SingleAgentEnv, env_facts

    spec = farmgames.envs.get_spec(row.env_name)
    n = spec.min_players
    env = SingleAgentEnv(game=row.env_name, num_players=n, opponents="random", learner_seat=n - 1)
    assert env_facts(n, game=row.env_name)["observation_size"] == env.observation_space.shape[0]
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        obs, reward, done, truncated, info = env.step(_masked_choice(rng, info["action_mask"]))
    assert info["learner_score"] == env.game.scores()[n - 1].total
    made = gymnasium.make(row.gym_id, num_players=n, opponents="random")
    made.reset(seed=1)
    assert made.unwrapped.game_name == row.env_name


def test_wrappers_never_import_training():
    """The arrow points one way: using the single-agent env with bot opponents loads no training module."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from farmgames.wrappers import SingleAgentEnv\n"
        "env = SingleAgentEnv(game='fields_of_green', num_players=2, opponents='heuristic')\n"
        "obs, info = env.reset(seed=0)\n"
        "for _ in range(20):\n"
        "    obs, r, done, _, info = env.step(int(np.flatnonzero(info['action_mask'])[0]))\n"
        "bad = sorted(m for m in sys.modules if m.startswith('farmgames.training') or m in ('torch', 'sb3_contrib'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"wrappers imported {out.stdout.strip()}"
