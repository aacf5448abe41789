"""The action mask is exactly the engine's legal set; masked actions are accepted, unmasked ones rejected
without any change; the "terminate" mode; the parallel env's simultaneous picks and NOOP masks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game, IllegalActionError

from .conftest import play_aec, random_states


def _check_mask(env, agent, obs):
    game = env.unwrapped.game
    seat = env.unwrapped.agent_name_mapping[agent]
    assert game.current_player == seat
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    assert legal == game.legal_actions()
    assert legal and env.unwrapped.NOOP not in legal
    assert obs["action_mask"].dtype == np.int8
    # every other agent sees an empty mask
    for other in env.agents:
        if other != agent:
            assert not env.observe(other)["action_mask"].any()


@pytest.mark.parametrize("players,games", [(2, 40), (3, 30), (4, 30)])
def test_mask_equals_engine_legal_set_every_step(players, games):
    env = fields_of_green_v0.env(num_players=players)
    for g in range(games):
        play_aec(env, seed=1000 * players + g, check=_check_mask)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_mask_equals_engine_legal_set_many_games(players):
    env = fields_of_green_v0.raw_env(num_players=players, perfect_recall=True)
    for g in range(700):
        play_aec(env, seed=50_000 + 1000 * players + g, check=_check_mask)


def _unmasked_sample(mask: np.ndarray, rng: random.Random, k: int) -> list[int]:
    illegal = np.flatnonzero(mask == 0).tolist()
    return rng.sample(illegal, min(k, len(illegal)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_masked_accepted_unmasked_rejected_without_change(players):
    env = fields_of_green_v0.raw_env(num_players=players)
    env.reset(seed=0)
    rng = random.Random(players)
    checked = 0
    for game, _step in random_states(players, seed=70 + players, every=7 if players == 2 else 11):
        if game.is_terminal():
            break
        env.load_game(game.clone())
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"].copy()
        before = env.game.to_json()
        # unmasked: rejected, nothing changes (engine state, selection, rewards)
        for action in _unmasked_sample(mask, rng, 6) + [env.NOOP, -1, env.layout.size, None, 1.5]:
            with pytest.raises(IllegalActionError):
                env.step(action)
            assert env.game.to_json() == before
            assert env.agent_selection == agent and not any(env.terminations.values())
            assert np.array_equal(env.observe(agent)["action_mask"], mask)
        # masked: every one accepted (each on a fresh copy of the state)
        for action in np.flatnonzero(mask).tolist():
            env.load_game(game.clone())
            env.step(action)
            assert env.game.history[-1] == action
        checked += 1
    assert checked > 12


def test_wrapped_env_rejects_out_of_space_actions():
    env = fields_of_green_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(env.unwrapped.layout.size + 5)


def test_numpy_integer_actions_are_accepted():
    env = fields_of_green_v0.env(num_players=2)
    env.reset(seed=3)
    obs, *_ = env.last()
    action = np.flatnonzero(obs["action_mask"])[0]
    env.step(np.int64(action))
    env.step(np.int32(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert len(env.unwrapped.game.history) == 2


@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_terminate_mode_aec(make):
    env = getattr(fields_of_green_v0, make)(num_players=3, illegal_action="terminate")
    env.reset(seed=5)
    for _ in range(7):  # a few legal steps first
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    offender = env.agent_selection
    before = env.unwrapped.game.to_json()
    env.step(env.unwrapped.NOOP)  # never legal in the AEC env
    assert env.unwrapped.game.to_json() == before
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0 and all(r == 0 for a, r in env.rewards.items() if a != offender)
    info = env.infos[offender]["illegal_action"]
    assert info["agent"] == offender and info["action"] == env.unwrapped.NOOP and "not legal" in info["message"]
    seen = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        assert termination and "illegal_action" in info
        assert not obs["action_mask"].any()
        seen[agent] = reward
        env.step(None)
    assert seen[offender] == -1.0 and sorted(seen) == env.possible_agents and not env.agents


def test_terminate_mode_reward_is_the_lower_reward_bound():
    env = fields_of_green_v0.raw_env(num_players=2, illegal_action="terminate", reward="margin")
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(None)
    assert env.rewards[agent] == env.reward_range[0] == -env.max_score


def test_parallel_masks_picks_and_noop():
    env = fields_of_green_v0.parallel_env(num_players=4)
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=8)
    noop = env.NOOP
    pick_steps = 0
    while env.agents:
        game = env.game
        deciders = env.deciders()
        for agent in env.agents:
            seat = env.agent_name_mapping[agent]
            legal = np.flatnonzero(observations[agent]["action_mask"]).tolist()
            if seat in deciders:
                assert noop not in legal and legal
                if seat == game.current_player:
                    assert legal == game.legal_actions()
                else:  # a later picker of the same turn: its own hand
                    assert game.decision_kind == "pick"
                    assert legal == [env.layout.PICK + i for i in range(len(game.hands[seat]))]
            else:
                assert legal == [noop]
        if game.decision_kind == "pick":
            # every player still to pick this turn picks in this one step
            assert len(deciders) == sum(1 for p in range(4) if game.picks[p] is None)
            pick_steps += 1 if len(deciders) == 4 else 0
        actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
    assert pick_steps == 4 * 6  # all four pick together in every turn of every year
    assert env.game.is_terminal()


@pytest.mark.parametrize(
    "players,variant",
    [
        (4, {"auto_single": True}),
        (3, {"auto_single": True, "perfect_recall": True}),
        (3, {"fixed_split": {y: (1, 2, 2, 1) for y in range(1, 5)}, "pass_directions": ("ccw",) * 4}),
        (2, {"auto_single": True}),
    ],
)
def test_parallel_variants_play_complete_games(players, variant):
    env = fields_of_green_v0.parallel_env(num_players=players, **variant)
    rng = np.random.default_rng(players)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            deciders = env.deciders()
            assert deciders and all(
                np.flatnonzero(observations[a]["action_mask"]).tolist() == [env.NOOP]
                for a in env.agents
                if env.agent_name_mapping[a] not in deciders
            )
            if variant.get("auto_single"):
                assert all(observations[env.possible_agents[s]]["action_mask"].sum() >= 2 for s in deciders)
            actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
            observations, rewards, terminations, truncations, infos = env.step(actions)
        assert env.game.is_terminal()


def test_parallel_raise_checks_everything_before_applying():
    env = fields_of_green_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=3)
    # reach the first pick step (3 simultaneous pickers)
    while env.game.decision_kind != "pick":
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
        observations, *_ = env.step(actions)
    good = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    assert len(env.deciders()) == 3
    before = env.game.to_json()
    last = env.possible_agents[(env.game.first_player + 2) % 3]  # the last picker in engine order
    for bad in (env.NOOP, 5, None):
        with pytest.raises(IllegalActionError):
            env.step({**good, last: bad})
        assert env.game.to_json() == before and env.agents == env.possible_agents
    with pytest.raises(IllegalActionError, match="submitted no action"):
        env.step({a: v for a, v in good.items() if a != last})
    assert env.game.to_json() == before
    env.step(good)
    assert env.game.revealed


def test_parallel_waiting_agents_must_noop():
    env = fields_of_green_v0.parallel_env(num_players=2)
    observations, _ = env.reset(seed=0)
    waiting = [a for a in env.agents if env.agent_name_mapping[a] not in env.deciders()]
    decider = [a for a in env.agents if a not in waiting][0]
    actions = {decider: int(np.flatnonzero(observations[decider]["action_mask"])[0]), waiting[0]: 3}
    with pytest.raises(IllegalActionError):
        env.step(actions)
    actions.pop(waiting[0])  # a missing waiting agent counts as NOOP
    env.step(actions)


def test_parallel_terminate_mode():
    env = fields_of_green_v0.parallel_env(num_players=3, illegal_action="terminate")
    observations, _ = env.reset(seed=2)
    before = env.game.to_json()
    agent = [a for a in env.agents if env.agent_name_mapping[a] in env.deciders()][0]
    actions = {a: env.NOOP for a in env.agents}  # the decider's NOOP is illegal
    observations, rewards, terminations, truncations, infos = env.step(actions)
    assert env.game.to_json() == before
    assert all(terminations.values()) and not any(truncations.values()) and env.agents == []
    assert rewards[agent] == -1.0 and sum(rewards.values()) == -1.0
    assert infos[agent]["illegal_action"]["agent"] == agent


def test_auto_single_never_presents_a_forced_decision():
    env = fields_of_green_v0.raw_env(num_players=4, auto_single=True)

    def check(env, agent, obs):
        assert obs["action_mask"].sum() >= 2

    for seed in range(3):
        play_aec(env, seed=seed, check=check)


def test_legal_actions_and_descriptions():
    env = fields_of_green_v0.env(num_players=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    agent = env.agent_selection
    assert env.unwrapped.legal_actions() == game.legal_actions()
    assert env.unwrapped.legal_actions("player_0" if agent != "player_0" else "player_1") == []
    text = env.unwrapped.describe_action(game.legal_actions()[0])
    assert text.startswith("draw ")
    assert env.unwrapped.describe_action(env.unwrapped.NOOP) == "wait (no decision)"
    # pick descriptions name the card in that agent's own hand
    while game.decision_kind != "pick":
        env.step(game.legal_actions()[0])
    seat = game.current_player
    names = [game.cards.locations[c].name for c in game.hands[seat]]
    assert [env.unwrapped.describe_action(env.unwrapped.layout.PICK + i) for i in range(len(names))] == [
        f"pick slot {i}: {n}" for i, n in enumerate(names)
    ]


def test_game_property_is_the_engine():
    env = fields_of_green_v0.env(num_players=2)
    env.reset(seed=9)
    assert isinstance(env.unwrapped.game, Game) and env.unwrapped.game.seed == 9
