"""The face module and the PettingZoo environments built from SPEC (api_test, hidden information through the
env, renders, facts)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs import key_harvest_v0
from farmgames.envs.core.bots import make_bot, play_game
from farmgames.envs.key_harvest.game import Game
from farmgames.envs.key_harvest.narrate import Narrator

SPEC = key_harvest_v0.SPEC


def test_spec_facts():
    """KH-COMP-9, KH-RULING-17: 2-4 players, Discrete(93), imperfect information with a perturbation."""
    assert SPEC.name == "key_harvest" and SPEC.min_players == 2 and SPEC.max_players == 4
    assert SPEC.information == "imperfect" and SPEC.hidden_perturbation is not None
    env = key_harvest_v0.raw_env(num_players=3)
    env.reset(seed=1)
    assert env.action_space("player_0").n == 93


@pytest.mark.parametrize("n", [2, 4])
def test_pettingzoo_api_test(n):
    from pettingzoo.test import api_test

    api_test(key_harvest_v0.env(num_players=n), num_cycles=200)


def test_parallel_api_test():
    from pettingzoo.test import parallel_api_test

    parallel_api_test(key_harvest_v0.parallel_env(num_players=3), num_cycles=200)


def test_env_masks_are_the_engine_legal_set():
    env = key_harvest_v0.raw_env(num_players=4)
    env.reset(seed=3)
    rng = random.Random(0)
    for _ in range(300):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        legal = env.game.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        assert env.observation_space(agent)["observation"].contains(obs["observation"])
        env.step(rng.choice(legal))


def test_env_hidden_information():
    """KH-INFO-7 through the env: observation and text of a seat unchanged under hidden perturbations."""
    env = key_harvest_v0.raw_env(num_players=4)
    env.reset(seed=0)
    rng = random.Random(2)
    g = Game(4, 9)
    for _ in range(150):
        g.apply(rng.choice(g.legal_actions()))
    for seat in range(4):
        other = SPEC.hidden_perturbation(g, seat, rng)
        agent = env.possible_agents[seat]
        env.load_game(g.clone())
        a = {k: np.array(v) for k, v in env.observe(agent)["observation"].items()}
        text = env.observation_text(agent)
        env.load_game(other)
        b = env.observe(agent)["observation"]
        assert all(np.array_equal(a[k], b[k]) for k in a) and env.observation_text(agent) == text


def test_renders():
    env = key_harvest_v0.raw_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=4)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    env = key_harvest_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=4)
    assert "Key Harvest" in env.render()


def test_bots_and_narrator():
    for n in (2, 4):
        bots = [make_bot(SPEC.bots, "heuristic" if p == 0 else "random", seed=p) for p in range(n)]
        lines = []
        narrator = Narrator()

        def note(game, seat, action, lines=lines, narrator=narrator):
            lines.append(narrator.decision_line(game, seat, action, None))

        g = play_game(bots, Game(n, 5), on_action=note)
        assert g.is_terminal() and lines and "| P0 |" in narrator.final_table(g)
    assert SPEC.bounds(Game(4, 0)).max_decisions > 1000


def test_record_replays_through_the_registry_when_registered():
    """The record replays through farmgames.envs.replay once the lead's registry row exists (else the engine)."""
    g = Game(3, 2)
    rng = random.Random(1)
    for _ in range(80):
        g.apply(rng.choice(g.legal_actions()))
    rec = g.record()
    assert rec["game"] == "key_harvest" and Game.replay(rec).to_json() == g.to_json()
