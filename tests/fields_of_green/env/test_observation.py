"""Observations: the declared layout and spaces, in-place updates equal to a rebuild, hidden information
(FOG-INFO, FOG-RUL-31), perfect recall, buffer reuse, and the text view."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.hidden import hidden_perturbation, swap_with_pile
from farmgames.envs.fields_of_green.observer import FARM_PLANES, Observer, layout_markdown

from .conftest import copy_obs, obs_diff, play_aec, random_states


def test_layout_and_spaces_agree():
    env = fields_of_green_v0.raw_env(num_players=4, perfect_recall=True)
    env.reset(seed=0)
    space = env.observation_space("player_0")
    inner = space["observation"]
    names = [e.name for e in env.observer.entries]
    assert set(inner.spaces) == set(names) and "passed" in names
    assert space["action_mask"].shape == (env.layout.size,) and space["action_mask"].dtype == np.int8
    assert env.observer.size == sum(int(np.prod(inner[n].shape)) for n in names)
    obs = env.observe(env.agent_selection)
    assert space.contains(obs)
    assert obs["observation"]["farms"].shape == (4, len(FARM_PLANES), 9, 9)
    for name, arr in obs["observation"].items():
        assert arr.dtype == np.float32 and arr.shape == inner[name].shape
    assert "passed" not in fields_of_green_v0.raw_env(num_players=4).observation_space("player_0")["observation"].spaces
    assert env.observation_space("player_1") is env.observation_space("player_1")
    small = fields_of_green_v0.raw_env(num_players=2, farm_size=5)
    assert small.observation_space("player_0")["observation"]["farms"].shape == (2, len(FARM_PLANES), 5, 5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_observation_is_in_its_space(players):
    env = fields_of_green_v0.raw_env(num_players=players, perfect_recall=True)

    def check(env, agent, obs):
        assert env.observation_space(agent).contains(obs)

    play_aec(env, seed=players, check=check)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_incremental_observation_equals_a_fresh_rebuild(players):
    env = fields_of_green_v0.raw_env(num_players=players)
    rng = random.Random(players)
    checked = 0

    def check(env, agent, obs):
        nonlocal checked
        if rng.random() < 0.3:
            fresh = Observer(env.game)  # no cache: built from scratch
            for seat, a in enumerate(env.possible_agents):
                mine = env.observe(a)["observation"]
                ref = fresh.observe(env.game, seat)
                bad = [k for k in ref if not np.array_equal(ref[k], mine[k])]
                assert not bad, f"step {len(env.game.history)} seat {seat}: {bad}"
            checked += 1

    for seed in range(5):
        play_aec(env, seed=seed, rng=rng, check=check)
    assert checked > 150


def test_observation_buffers_keep_the_previous_observation():
    env = fields_of_green_v0.raw_env(num_players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    first = env.observe(agent)
    assert env.observe(agent) is first  # unchanged state: the same arrays
    kept = copy_obs(first)
    env.step(int(np.flatnonzero(first["action_mask"])[0]))
    second = env.observe(agent)
    assert second is not first and not obs_diff(first, kept)  # obs / next_obs pairs stay valid


# ------------------------------------------------------------------------------------------------
# Hidden information: changing only what a viewer may not know leaves its observation unchanged.


_swap_with_pile = swap_with_pile


def _perturb_hidden(game: Game, viewer: int, rng: random.Random) -> Game:
    return hidden_perturbation(game, viewer, rng) or game.clone()


_ENVS: dict = {}


def _observation(game: Game, seat: int, perfect_recall: bool = False) -> dict:
    key = (game.num_players, perfect_recall)
    if key not in _ENVS:
        _ENVS[key] = fields_of_green_v0.raw_env(num_players=game.num_players, perfect_recall=perfect_recall)
    env = _ENVS[key]
    env.load_game(game)
    return copy_obs(env.observe(env.possible_agents[seat])), env.observation_text(env.possible_agents[seat])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hidden_information_does_not_reach_the_observation(players):
    rng = random.Random(10 + players)
    compared = 0
    for seed in (300 + players, 400 + players):
        for game, step in random_states(players, seed=seed, every=5):
            for viewer in range(players):
                base, base_text = _observation(game, viewer)
                other, other_text = _observation(_perturb_hidden(game, viewer, rng), viewer)
                assert not obs_diff(base, other), f"step {step}, viewer {viewer}: {obs_diff(base, other)}"
                assert base_text == other_text
                compared += 1
    assert compared > 100


def test_hidden_information_check_is_not_vacuous():
    """The viewer's own hand and a revealed pick do show up in its observation."""
    for game, _step in random_states(4, seed=5, every=3):
        if game.decision_kind == "pick" and len(game.hands[game.current_player]) > 1:
            break
    viewer = game.current_player
    base, _ = _observation(game, viewer)
    changed = game.clone()
    changed.hands[viewer][0] = _swap_with_pile(changed, random.Random(0), changed.hands[viewer][0])
    changed.hands[viewer].sort()
    assert "hand" in obs_diff(base, _observation(changed, viewer)[0])
    # a face-down pick of another player: hidden before the reveal, shown after it
    other = (viewer + 1) % 4
    g = game.clone()
    g.picks[other] = g.hands[other][0]
    before, _ = _observation(g, viewer)
    assert not before["observation"]["revealed"][1].any()
    g.revealed = True
    after, _ = _observation(g, viewer)
    assert after["observation"]["revealed"][1].any()


def test_the_drawing_player_sees_its_equipment_choice():
    env = fields_of_green_v0.raw_env(num_players=3)
    rng = random.Random(3)
    seen = 0
    for seed in range(40):
        env.reset(seed=seed)
        while not env.game.is_terminal() and seen < 3:
            game = env.game
            if game.decision_kind == "keep_equipment":
                obs = env.observe(env.agent_selection)["observation"]
                assert obs["decision_tiles"][: len(game.decision[2])].any(axis=1).all()
                others = [a for a in env.possible_agents if a != env.agent_selection]
                assert not any(env.observe(a)["observation"]["decision_tiles"].any() for a in others)
                seen += 1
            env.step(rng.choice(game.legal_actions()))
        if seen >= 3:
            break
    assert seen >= 1


def test_perfect_recall_remembers_passed_hands_for_this_year():
    env = fields_of_green_v0.raw_env(num_players=4, perfect_recall=True)
    env.reset(seed=6)
    game = env.game
    rng = random.Random(6)
    expected: dict[int, dict[int, np.ndarray]] = {}
    design = [c.design for c in game.cards.locations]
    while game.year == 1:
        if game.decision_kind == "pick":
            seat, turn = game.current_player, game.turn
            action = rng.choice(game.legal_actions())
            slot = action - env.layout.PICK
            row = np.zeros(env.observer.D, np.float32)
            for i, card in enumerate(game.hands[seat]):
                if i != slot:
                    row[design[card]] += 1
            if turn <= 5:
                expected.setdefault(seat, {})[turn] = row
            env.step(action)
        else:
            env.step(rng.choice(game.legal_actions()))
        if game.year == 1 and game.phase == "harvest":
            for seat, rows in expected.items():
                passed = env.observe(env.possible_agents[seat])["observation"]["passed"]
                for turn, row in rows.items():
                    assert np.array_equal(passed[turn - 1], row)
            text = env.observation_text(env.possible_agents[0])
            assert "you passed on in turn 1:" in text
            break
    while game.year == 1 or game.phase != "action":
        env.step(rng.choice(game.legal_actions()))
    assert not env.observe(env.possible_agents[0])["observation"]["passed"].any()  # a new year forgets


def test_text_view_and_markdown():
    env = fields_of_green_v0.raw_env(num_players=3)
    env.reset(seed=2)
    game = env.game
    while game.decision_kind != "pick":
        env.step(game.legal_actions()[0])
    seat = game.current_player
    text = env.observation_text(env.possible_agents[seat])
    assert text.startswith(f"view of player {seat}")
    for card in game.hands[seat]:
        assert game.cards.locations[card].name in text
    assert "your decision: pick a card" in text
    md = layout_markdown(num_players=3, farm_size=7)
    for entry in Observer(Game(3, farm_size=7), perfect_recall=True).entries:
        assert f"`{entry.name}`" in md
    for name, _, _ in FARM_PLANES:
        assert f"`{name}`" in md
    out = subprocess.run(
        [sys.executable, "-m", "farmgames.envs.fields_of_green.docs", "2", "5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and "| `farms` | (2, 31, 5, 5)" in out.stdout
