"""The speed tricks of the observation path (docs/profiling.md, "Observer and AEC hot path") change no value:

* the incremental observer (caches refreshed per state, buffers rewritten only where they changed,
  farms skipped while ``Farm.version`` stands still) equals a from-scratch ``fill(force_full=True)``
  for every agent, on random games of every player count and variant, in the AEC and parallel envs;
* ``Farm.version`` moves whenever a step changes a farm (the engine invariant the observer relies on);
* the bytearray-backed action masks equal the engine's legal actions;
* ``env()``'s wrappers are PettingZoo's classes and behave like the plain PettingZoo wrappers.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.observer import Observer

VARIANTS = [
    (2, {}),
    (3, {}),
    (4, {}),
    (4, {"perfect_recall": True}),
    (3, {"farm_size": 7, "auto_single": True}),
    (2, {"farm_size": 5}),
]


def _reference(env) -> tuple[Observer, list]:
    """A second observer on the env's game and one buffer per seat, filled from scratch each time."""
    ref = Observer(env.game, perfect_recall=env.perfect_recall)
    return ref, [ref.new_buffer() for _ in range(env.num_players)]


def _assert_same(env, ref: Observer, bufs: list, seat: int, where: str) -> None:
    obs = env.observe(env.possible_agents[seat])
    ref.fill(env.game, seat, bufs[seat], force_full=True)
    expected = bufs[seat].views
    # perfect-recall memory ("passed") is what this env saw being picked, not derived from the state
    bad = [k for k in expected if k != "passed" and not np.array_equal(expected[k], obs["observation"][k])]
    assert not bad, f"{where}, seat {seat}: {bad}"
    mask = np.zeros(env.layout.size, np.int8)
    mask[env.legal_actions(env.possible_agents[seat])] = 1
    assert obs["action_mask"].dtype == np.int8 and np.array_equal(obs["action_mask"], mask), f"{where}, seat {seat}"


@pytest.mark.parametrize("players,variant", VARIANTS)
def test_incremental_aec_observations_equal_a_full_fill(players, variant):
    env = fields_of_green_v0.raw_env(num_players=players, **variant)
    rng = random.Random(players)
    checked = 0
    for seed in range(3):
        env.reset(seed=100 + seed)
        ref, bufs = _reference(env)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            where = f"seed {100 + seed}, step {len(env.game.history)}"
            # the acting agent at every step (its buffers alternate), all agents now and then
            seats = range(players) if rng.random() < 0.15 else [env.agent_name_mapping[agent]]
            for seat in seats:
                _assert_same(env, ref, bufs, seat, where)
                checked += 1
            if termination or truncation:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 300


def test_incremental_parallel_observations_equal_a_full_fill():
    env = fields_of_green_v0.parallel_env(num_players=4)
    rng = random.Random(1)
    steps = 0
    for seed in range(2):
        observations, _ = env.reset(seed=seed)
        ref, bufs = _reference(env)
        while True:
            for agent, obs in observations.items():
                assert obs is env.observe(agent)
                _assert_same(env, ref, bufs, env.agent_name_mapping[agent], f"seed {seed}, step {steps}")
            if not env.agents:
                break
            actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
            observations, *_ = env.step(actions)
            steps += 1
    assert steps > 100


def test_force_full_equals_a_new_observer_and_buffers_of_another_observer_are_rewritten():
    game = Game(num_players=3, seed=4)
    rng = random.Random(4)
    for _ in range(120):
        game.apply(rng.choice(game.legal_actions()))
    a, b = Observer(game), Observer(game)
    buf = a.new_buffer()
    for seat in range(3):
        a.fill(game, seat, buf)
        b.fill(game, (seat + 1) % 3, buf)  # another observer and seat: everything is rewritten
        expected = Observer(game).observe(game, (seat + 1) % 3)
        assert all(np.array_equal(expected[k], buf.views[k]) for k in expected)
        a.fill(game, seat, buf, force_full=True)
        expected = Observer(game).observe(game, seat)
        assert all(np.array_equal(expected[k], buf.views[k]) for k in expected)


def _farm_state(farm) -> tuple:
    return (
        list(farm.grid),
        sorted(farm.fallow),
        list(farm.occupied),
        sorted(farm.frontier),
        sorted(farm.tower_water.items()),
        sorted(farm.tower_capacity.items()),
        sorted(farm.silo_capacity.items()),
        farm.food,
        farm.coins,
        farm.vp_tokens,
        sorted((c, list(t)) for c, t in farm.equipment.items()),
        list(farm.set_aside),
        farm.actions_taken,
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_farm_version_moves_whenever_a_step_changes_the_farm(players):
    """The observer re-reads only farms whose version moved (game._SEAT_FRAMES)."""
    changed = 0
    for seed in range(6):
        game = Game(num_players=players, seed=seed, auto_single=seed % 2 == 1)
        rng = random.Random(seed)
        while not game.is_terminal():
            before = [(f.version, _farm_state(f)) for f in game.farms]
            game.apply(rng.choice(game.legal_actions()))
            for (version, state), farm in zip(before, game.farms):
                if farm.version == version:
                    assert _farm_state(farm) == state, f"seed {seed}, step {len(game.history)}"
                elif _farm_state(farm) != state:
                    changed += 1
    assert changed > 200


def test_observation_dict_and_mask_are_reused_and_the_mask_is_an_int8_array():
    env = fields_of_green_v0.raw_env(num_players=4)
    env.reset(seed=2)
    agent = env.agent_selection
    first = env.observe(agent)
    mask = first["action_mask"]
    assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (env.layout.size,)
    assert sorted(np.flatnonzero(mask).tolist()) == env.game.legal_actions()
    assert env.observation_space(agent).contains(first)
    others = [a for a in env.possible_agents if a != agent]
    assert not any(env.observe(a)["action_mask"].any() for a in others)


# ------------------------------------------------------------------------------------------------
# env()'s wrappers: PettingZoo's classes, PettingZoo's behaviour


def _pettingzoo_wrapped(**kw):
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(fields_of_green_v0.raw_env(**kw)))


def test_env_is_wrapped_with_pettingzoo_wrappers():
    env = fields_of_green_v0.env(num_players=3)
    assert isinstance(env, OrderEnforcingWrapper) and isinstance(env.env, AssertOutOfBoundsWrapper)
    assert env.unwrapped is env.env.env and str(env) == "fields_of_green_v0"


def test_env_behaves_like_the_plain_pettingzoo_wrappers_before_reset():
    for env in (fields_of_green_v0.env(num_players=3), _pettingzoo_wrapped(num_players=3)):
        for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
            with pytest.raises(AttributeError, match="cannot be accessed before reset"):
                getattr(env, name)
        with pytest.raises(AttributeError, match="before reset"):
            env.last()
        with pytest.raises(Exception, match="reset"):
            env.step(0)
        assert env.possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("players", [2, 4])
def test_env_plays_exactly_like_the_plain_pettingzoo_wrappers(players, caplog):
    fast, plain = fields_of_green_v0.env(num_players=players), _pettingzoo_wrapped(num_players=players)
    rng = random.Random(players)
    fast.reset(seed=7)
    plain.reset(seed=7)
    for agent, other in zip(fast.agent_iter(), plain.agent_iter()):
        assert agent == other and fast.agents == plain.agents
        a, b = fast.last(), plain.last()
        assert a[1:] == b[1:] and fast._cumulative_rewards == plain._cumulative_rewards
        assert (a[0] is None) == (b[0] is None)
        assert all(np.array_equal(a[0]["observation"][k], b[0]["observation"][k]) for k in a[0]["observation"])
        assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
        for attr in ("rewards", "terminations", "truncations", "infos"):
            assert getattr(fast, attr) == getattr(plain, attr)
        if a[2] or a[3]:
            action = None
        else:
            legal = np.flatnonzero(a[0]["action_mask"])
            action = [int, np.int64, np.int32][rng.randrange(3)](legal[rng.randrange(len(legal))])
        fast.step(action)
        plain.step(action)
    assert not fast.agents and not plain.agents
    fast.step(None)  # PettingZoo's warning: step after the end
    assert "step() called after all agents are terminated" in caplog.text


def test_env_asserts_actions_outside_the_space_like_pettingzoo():
    env = fields_of_green_v0.env(num_players=2)
    env.reset(seed=0)
    for action in (-1, env.unwrapped.layout.size, 3.5, "1", None):
        with pytest.raises(AssertionError, match="action space"):
            env.step(action)
    assert env.unwrapped.game.history == []
