"""Determinism, seeds, rewards (win/loss with shared victories, score, margin), game facts and bounds,
and variant validation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.scenario import scenario

from .conftest import copy_obs, obs_diff, play_aec


def _trajectory(make, seed: int, action_seed: int) -> list:
    env = make()
    env.reset(seed=seed)
    rng = random.Random(action_seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        out.append((agent, copy_obs(obs), reward, termination, truncation, repr(info)))
        if termination or truncation:
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_same_seed_and_actions_give_identical_observations_rewards_infos(players):
    make = lambda: fields_of_green_v0.env(num_players=players, perfect_recall=True)  # noqa: E731
    a, b = _trajectory(make, 11, 5), _trajectory(make, 11, 5)
    assert len(a) == len(b) > 100
    for x, y in zip(a, b):
        assert x[0] == y[0] and x[2:] == y[2:]
        assert not obs_diff(x[1], y[1])
    c = _trajectory(make, 12, 5)
    assert any(obs_diff(x[1], y[1]) for x, y in zip(a, c))


def test_parallel_determinism_with_masks():
    def run():
        env = fields_of_green_v0.parallel_env(num_players=3)
        observations, infos = env.reset(seed=21)
        rng = random.Random(1)
        out = []
        while env.agents:
            actions = {
                a: rng.choice(np.flatnonzero(o["action_mask"]).tolist()) for a, o in sorted(observations.items())
            }
            observations, rewards, terminations, truncations, infos = env.step(actions)
            out.append(({a: copy_obs(o) for a, o in observations.items()}, rewards, terminations, repr(infos)))
        return out

    a, b = run(), run()
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x[1:] == y[1:]
        assert all(not obs_diff(x[0][k], y[0][k]) for k in x[0])


def test_reset_seeds():
    env = fields_of_green_v0.raw_env(num_players=4)
    env.reset(seed=5)
    assert env.game.seed == 5
    assert env.game.to_json() == Game(num_players=4, seed=5).to_json()
    env.reset()
    follow = env.game.seed
    other = fields_of_green_v0.raw_env(num_players=4)
    other.reset(seed=5)
    other.reset()
    assert other.game.seed == follow != 5  # the sequence after a seeded reset is deterministic
    other.reset()
    assert other.game.seed != follow
    with pytest.raises(ValueError):
        env.reset(seed="x")


def test_records_replay_to_the_same_state():
    env = fields_of_green_v0.raw_env(num_players=3, farm_size=7, pass_directions=("ccw", "cw", "ccw", "cw"))
    play_aec(env, seed=4)
    record = env.record()
    assert record["env"]["reward"] == "win_loss" and record["variant"]["farm_size"] == 7
    assert Game.replay(record).to_json() == env.game.to_json()


# ------------------------------------------------------------------------------------------------
# rewards


def _final(env):
    rewards, infos = {}, {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            rewards[agent], infos[agent] = reward, info
            env.step(None)
            continue
        env.step(random.Random(len(env.game.history)).choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return rewards, infos


@pytest.mark.parametrize("mode", ["win_loss", "score", "margin"])
def test_reward_modes(mode):
    env = fields_of_green_v0.env(num_players=3, reward=mode)
    env.reset(seed=3)
    rewards, infos = _final(env)
    game = env.unwrapped.game
    totals = [s.total for s in game.scores()]
    for p, agent in enumerate(env.possible_agents):
        assert infos[agent]["score"] == game.scores()[p].as_dict()
        assert infos[agent]["final_vp"] == totals[p]
        assert infos[agent]["winners"] == [env.possible_agents[w] for w in game.winners()]
        if mode == "win_loss":
            assert rewards[agent] == (1.0 if p in game.winners() else -1.0)
        elif mode == "score":
            assert rewards[agent] == totals[p]
        else:
            assert rewards[agent] == totals[p] - max(t for q, t in enumerate(totals) if q != p)
        lo, hi = env.unwrapped.reward_range
        assert lo <= rewards[agent] <= hi


def test_shared_victory_gives_every_tied_winner_plus_one(env_set):
    # identical farms and coins: a full tie after both tie-breaks (FOG-END-13, FOG-RUL-35)
    game = scenario(num_players=3, farm_size=5, card_set=env_set, coins={0: 7, 1: 7, 2: 4}, decision=[])
    assert game.is_terminal() and game.winners() == [0, 1]
    env = fields_of_green_v0.raw_env(num_players=3, farm_size=5, card_set=env_set)
    env.reset(seed=0)
    env.load_game(game)
    assert env.rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": -1.0}
    assert all(env.terminations.values()) and env.infos["player_2"]["winners"] == ["player_0", "player_1"]
    par = fields_of_green_v0.parallel_env(num_players=3, farm_size=5, card_set=env_set)
    par.reset(seed=0)
    observations, infos = par.load_game(game.clone())
    assert infos["player_0"]["winners"] == ["player_0", "player_1"]


def test_rewards_are_zero_before_the_end_and_given_once():
    env = fields_of_green_v0.env(num_players=2)
    env.reset(seed=8)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        total[agent] += reward
        if not termination:
            assert reward == 0 and info == {}
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        else:
            env.step(None)
    assert sorted(total.values()) in ([-1.0, 1.0], [1.0, 1.0])


# ------------------------------------------------------------------------------------------------
# game facts


def test_game_facts_and_metadata():
    env = fields_of_green_v0.env(num_players=4)
    raw = env.unwrapped
    assert raw.metadata["name"] == "fields_of_green_v0"
    assert raw.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert (raw.min_players, raw.max_players) == (2, 4)
    facts = raw.game_facts()
    assert facts["num_actions"] == raw.layout.size == raw.action_space("player_0").n
    assert facts["max_decisions"] > 1000 and facts["reward_range"] == (-1.0, 1.0)
    score = fields_of_green_v0.raw_env(num_players=4, reward="score")
    assert score.reward_range == (0.0, float(score.max_score)) and score.illegal_reward == 0.0
    fixed = fields_of_green_v0.raw_env(
        num_players=4, fixed_split={1: (2, 2, 1, 1), 2: (2, 2, 1, 1), 3: (2, 2, 1, 1), 4: (2, 2, 1, 1)}
    )
    assert fixed.max_decisions == raw.max_decisions - 4 * 4  # no draw decisions


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bounds_hold_on_random_play(players):
    env = fields_of_green_v0.raw_env(num_players=players, reward="score")
    most = 0
    for seed in range(12):
        steps = play_aec(env, seed=700 + seed)
        most = max(most, steps)
        assert steps <= env.max_decisions
        assert all(0 <= s.total <= env.max_score for s in env.game.scores())
        assert all(env.reward_range[0] <= r <= env.reward_range[1] for r in env._cumulative_rewards.values())
    assert most > 100


def test_bounds_hold_with_the_heuristic_bot():
    from farmgames.envs.fields_of_green.bots import make_bot, play_game

    env = fields_of_green_v0.raw_env(num_players=2, reward="score")
    game = play_game([make_bot("heuristic", 1), make_bot("heuristic", 2)], seed=3)
    assert len(game.history) <= env.max_decisions
    assert all(s.total <= env.max_score for s in game.scores())


# ------------------------------------------------------------------------------------------------
# variants


def test_unknown_keyword_names_the_key_and_lists_valid_ones():
    with pytest.raises(TypeError) as err:
        fields_of_green_v0.env(num_players=4, farmsize=9)
    assert "'farmsize'" in str(err.value) and "farm_size" in str(err.value) and "perfect_recall" in str(err.value)
    with pytest.raises(TypeError, match="max_cycles"):
        fields_of_green_v0.parallel_env(max_cycles=4)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"perfect_recall": "yes"}, "perfect_recall"),
        ({"render_mode": "window"}, "render_mode"),
        ({"farm_size": 8}, "farm_size"),
        ({"first_player": 7}, "first_player"),
        ({"pass_directions": ("cw",)}, "pass_directions"),
        ({"fixed_split": {1: (6, 0, 0, 0)}}, "fixed_split"),
        ({"card_set": "/nonexistent/set.yaml"}, "cannot read"),
    ],
)
def test_bad_values_are_rejected_clearly(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fields_of_green_v0.raw_env(**kwargs)


def test_engine_variants_reach_the_game():
    splits = {y: (2, 2, 1, 1) for y in range(1, 5)}
    env = fields_of_green_v0.raw_env(
        num_players=3,
        farm_size=7,
        fixed_split=splits,
        first_player=2,
        pass_directions=("ccw", "ccw", "cw", "cw"),
        auto_single=True,
    )
    env.reset(seed=1)
    game = env.game
    assert game.geometry.size == 7 and game.first_player == 2 and game.auto_single
    assert game.pass_directions == ("counterclockwise", "counterclockwise", "clockwise", "clockwise")
    assert game.decision_kind == "pick"  # no draw decision with fixed_split
    assert game.draw_counts[0] == [2, 2, 1, 1]
    par = fields_of_green_v0.parallel_env(num_players=2, farm_size=5)
    obs, _ = par.reset(seed=0)
    assert obs["player_0"]["observation"]["farms"].shape[-1] == 5
