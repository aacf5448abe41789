"""Every registered game (and the tiny test game) against the core's protocols and PettingZoo's suites.

What is checked for each game and player count: PettingZoo's api_test (wrapped and raw), parallel_api_test,
seed_test, render_test; the mask is the engine's legal set on random play (AEC and parallel); a record
replays to the same state; clone and JSON round trips; determinism; the illegal-action policy leaves the
state unchanged or ends the game with the penalty; observations inside their spaces; hidden information
through the spec's hook; the registry row agrees with SPEC.
"""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from farmgames.envs import all_rows, face, get_spec, replay
from farmgames.envs.core.protocol import Game, IllegalActionError, Observer, Score
from farmgames.envs.core.records import RecordError

from .conftest import GAME_CASES, NAMES, copy_obs, obs_diff, random_states

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _cycles(name: str) -> int:
    return 60 if name.startswith("fields_of_green") else 150


@pytest.mark.parametrize("name", NAMES)
def test_registry_row_agrees_with_the_spec(name):
    spec = get_spec(name)
    row = next(r for r in all_rows() if r.env_name == name)
    assert (row.game, row.version, row.gym_name) == (spec.name, spec.version, spec.gym_name)
    assert spec.env_name == name and spec.pettingzoo_id == row.pettingzoo_id and spec.gym_id == row.gym_id
    mod = face(name)
    for fn in ("env", "raw_env", "parallel_env"):
        assert callable(getattr(mod, fn)), fn
    assert spec.information in ("perfect", "imperfect")
    assert "random" in spec.bots


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_engine_follows_the_protocols(name, players):
    spec = get_spec(name)
    game = spec.new_game(num_players=players, seed=3)
    assert isinstance(game, Game)
    obs = spec.new_observer(game)
    assert isinstance(obs, Observer)
    assert game.current_player is not None and game.legal_actions() == sorted(set(game.legal_actions()))
    for _ in range(30):
        if game.is_terminal():
            break
        game.apply(game.legal_actions()[0])
    for s in game.scores():
        assert isinstance(s, Score) and s.key[0] == s.total and s.as_dict()["total"] == s.total


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_pettingzoo_api_test(name, players):
    mod = face(name)
    api_test(mod.env(num_players=players), num_cycles=_cycles(name))


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_test_raw(name):
    spec = get_spec(name)
    api_test(face(name).raw_env(num_players=spec.max_players), num_cycles=_cycles(name))


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_pettingzoo_parallel_api_test(name, players):
    parallel_api_test(face(name).parallel_env(num_players=players), num_cycles=_cycles(name) * 2)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_seed_and_render_tests(name):
    mod, spec = face(name), get_spec(name)
    n = spec.max_players
    seed_test(lambda: mod.env(num_players=n), num_cycles=40)
    render_test(lambda render_mode=None: mod.env(num_players=n, render_mode=render_mode))


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_mask_is_the_engine_legal_set_and_observations_in_space(name, players):
    mod = face(name)
    env = mod.raw_env(num_players=players)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    for agent in env.agent_iter(max_iter=3000):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        space = env.observation_space(agent)
        assert space.contains(obs), f"step {steps}: observation outside its space"
        legal = env.game.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        for other in env.possible_agents:  # nobody else may act in the AEC env
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(legal)))
        steps += 1
    assert env.game.is_terminal() and steps > 0


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_parallel_masks_are_the_deciders_legal_sets(name, players):
    mod = face(name)
    env = mod.parallel_env(num_players=players)
    observations, infos = env.reset(seed=5)
    rng = np.random.default_rng(5)
    steps = 0
    while env.agents and steps < 3000:
        deciders = env.deciders()
        assert deciders and deciders[0] == env.game.current_player
        actions = {}
        for agent, obs in observations.items():
            seat = env.agent_name_mapping[agent]
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if seat in deciders:
                assert env.NOOP not in legal and legal
            else:
                assert legal == [env.NOOP]
            actions[agent] = int(rng.choice(legal))
        observations, rewards, terms, truncs, infos = env.step(actions)
        steps += 1
    assert env.game.is_terminal()


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_record_replays_and_round_trips(name, players):
    spec = get_spec(name)
    states = list(random_states(spec, players, seed=21, every=7))
    final = states[-1]
    assert final.is_terminal()
    rec = json.loads(json.dumps(final.record()))
    again = replay(rec)
    assert again.to_json() == final.to_json()
    assert [s.total for s in again.scores()] == [s.total for s in final.scores()]
    for state in states[:: max(1, len(states) // 6)]:
        clone = state.clone()
        assert clone.to_json() == state.to_json()
        back = spec.from_json(state.to_json())
        assert back.to_json() == state.to_json() and back.legal_actions() == state.legal_actions()
        if not state.is_terminal():  # the clone is independent
            clone.apply(clone.legal_actions()[0])
            assert back.to_json() == state.to_json() != clone.to_json()


@pytest.mark.parametrize("name", NAMES)
def test_replay_errors_name_the_step(name):
    spec = get_spec(name)
    final = list(random_states(spec, spec.min_players, seed=2))[-1]
    rec = final.record()
    rec["actions"] = rec["actions"][:3] + [10**6] + rec["actions"][4:]
    with pytest.raises(IllegalActionError, match="record step 3"):
        replay(rec)
    with pytest.raises(RecordError, match="actions"):
        replay({**rec, "actions": "nope"})
    with pytest.raises(RecordError, match="game"):
        replay({**rec, "game": "no_such_game"})


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_same_seed_same_actions_same_game(name, players):
    spec = get_spec(name)
    a = list(random_states(spec, players, seed=8))[-1]
    b = list(random_states(spec, players, seed=8))[-1]
    assert a.to_json() == b.to_json()
    c = spec.new_game(num_players=players, seed=9)
    d = spec.new_game(num_players=players, seed=9)
    assert c.to_json() == d.to_json()


@pytest.mark.parametrize("name", NAMES)
def test_illegal_actions(name):
    spec = get_spec(name)
    mod = face(name)
    n = spec.max_players
    env = mod.raw_env(num_players=n)
    env.reset(seed=1)
    before = env.game.to_json()
    legal = set(env.game.legal_actions())
    bad = next((a for a in range(env.space_n) if a not in legal), env.space_n)
    for action in (bad, -1, 1.5, "3", None, True):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert env.game.to_json() == before
    with pytest.raises(IllegalActionError):
        env.game.apply(float("inf"))
    term = mod.raw_env(num_players=n, illegal_action="terminate")
    term.reset(seed=1)
    offender = term.agent_selection
    term.step(bad)
    assert all(term.terminations.values())
    assert term._cumulative_rewards[offender] == term.illegal_reward
    assert term.last_illegal["agent"] == offender and term.last_illegal["action"] == bad
    if spec.conventions.infos == "fixed":
        seat = term.agent_name_mapping[offender]
        for agent in term.possible_agents:
            assert term.infos[agent]["illegal_action"].tolist() == [int(i == seat) for i in range(n)]
    else:
        assert term.infos[offender]["illegal_action"]["action"] == bad
    for agent in term.possible_agents:  # the message (which may list the offender's hand) is the offender's
        if agent != offender:
            assert "message" not in str(term.infos[agent])


@pytest.mark.parametrize("name", NAMES)
def test_bad_keywords_are_refused_with_the_name(name):
    mod, spec = face(name), get_spec(name)
    with pytest.raises(TypeError, match="no_such_keyword"):
        mod.env(no_such_keyword=1)
    with pytest.raises(ValueError, match="num_players"):
        mod.env(num_players=spec.max_players + 1)
    with pytest.raises(ValueError, match="reward"):
        mod.env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        mod.env(render_mode="3d")


@pytest.mark.parametrize("name,players", GAME_CASES)
def test_hidden_information_never_reaches_a_seat(name, players):
    """An observation, mask, text and ansi render of a seat do not change when only what it cannot
    see changes (the spec's hidden_perturbation)."""
    spec = get_spec(name)
    if spec.hidden_perturbation is None:
        assert spec.information == "perfect"
        pytest.skip("perfect information: nothing hidden")
    mod = face(name)
    env = mod.raw_env(num_players=players)
    env.reset(seed=0)
    rng = random.Random(players)
    compared = 0
    for state in random_states(spec, players, seed=40 + players, every=5, limit=600):
        for seat in range(players):
            other = spec.hidden_perturbation(state, seat, rng)
            if other is None:
                continue
            agent = env.possible_agents[seat]
            env.load_game(state.clone())
            base, text = copy_obs(env.observe(agent)), env.observation_text(agent)
            ansi = spec.render_ansi(env.game, seat) if spec.render_ansi else None
            env.load_game(other)
            changed = copy_obs(env.observe(agent))
            assert not obs_diff(base, changed), f"{name}: seat {seat} sees {obs_diff(base, changed)}"
            assert env.observation_text(agent) == text
            if ansi is not None:
                assert spec.render_ansi(env.game, seat) == ansi
            compared += 1
    assert compared > 0


@pytest.mark.parametrize("name", NAMES)
def test_bots_play_full_games(name):
    spec = get_spec(name)
    from farmgames.envs.core.bots import make_bot, play_game

    for n in (spec.min_players, spec.max_players):
        bots = [make_bot(spec.bots, "random", seed=i) for i in range(n)]
        game = play_game(bots, spec.new_game(num_players=n, seed=4))
        assert game.is_terminal() and len(game.winners()) >= 1


@pytest.mark.parametrize("name", NAMES)
def test_env_record_and_facts(name):
    mod, spec = face(name), get_spec(name)
    env = mod.raw_env(num_players=spec.min_players)
    env.reset(seed=3)
    facts = env.game_facts()
    assert facts["name"] == spec.env_name and facts["information"] == spec.information
    rec = env.record()
    assert rec["game"] == spec.name and rec["env"]["name"] == spec.env_name
    assert pickle.loads(pickle.dumps(rec)) == rec
