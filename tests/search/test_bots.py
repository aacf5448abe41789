"""The search bots (envs/core/search.py): full games through the Policy protocol, seeding, settings."""

from __future__ import annotations

import random

import pytest

from farmgames.envs import get_spec
from farmgames.envs.core.bots import make_bot
from farmgames.envs.core.search import BUDGETS, ISMCTSBot, PIMCBot, leaf_values, sampler_for

from .test_infostate import SEARCHABLE

GAMES = sorted({name for name, _ in SEARCHABLE})


@pytest.mark.parametrize("name", GAMES)
def test_every_searchable_game_registers_the_search_bots(name: str) -> None:
    bots = get_spec(name).bots
    for b in BUDGETS:
        assert make_bot(bots, f"ismcts_{b}", seed=1).simulations == b
        assert make_bot(bots, f"pimc_{b}", seed=1).simulations == b


@pytest.mark.parametrize("name", GAMES)
def test_ismcts_plays_full_games_through_the_policy_protocol(name: str) -> None:
    """The bot behind training's Policy protocol (BotPolicy: act(observation, mask) after attach) plays a
    whole game in the PettingZoo env and every action it takes is legal."""
    from farmgames.training.arena import Arena
    from farmgames.training.policy import load_policy

    arena = Arena(2, game=name)
    try:
        policies = [
            load_policy("ismcts_25", seed=1, env_facts=arena.facts),
            load_policy("pimc_25", seed=2, env_facts=arena.facts),
        ]
        result = arena.play(policies, seed=3)
    finally:
        arena.close()
    assert result.decisions > 0 and result.winners


def mid_game(name: str, n: int = 3, steps: int = 30):
    spec = get_spec(name)
    n = max(spec.min_players, min(n, spec.max_players))
    game = spec.new_game(num_players=n, seed=2)
    rng = random.Random(2)
    for _ in range(steps):
        game.apply(rng.choice(game.legal_actions()))
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    return game


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("cls", [ISMCTSBot, PIMCBot])
def test_search_is_seeded_and_leaves_the_game_alone(name: str, cls) -> None:
    game = mid_game(name)
    before = game.to_json()
    a = cls(seed=4, simulations=12, rollout_depth=10).act(game)
    b = cls(seed=4, simulations=12, rollout_depth=10).act(game)
    assert a == b and a in game.legal_actions()
    assert game.to_json() == before


def test_settings_are_checked() -> None:
    for bad in (0, -1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="simulations"):
            ISMCTSBot(simulations=bad)
    with pytest.raises(ValueError, match="rollout_depth"):
        PIMCBot(rollout_depth=-1)
    with pytest.raises(ValueError, match="determinizations"):
        PIMCBot(determinizations=0)


def test_a_game_without_the_search_protocol_is_refused() -> None:
    class Plain:
        current_player = 0

    with pytest.raises(TypeError, match="SearchableGame"):
        sampler_for(Plain(), 0)


def test_leaf_values() -> None:
    game = mid_game(GAMES[0], n=2)
    values = leaf_values(game)
    assert len(values) == 2 and all(-1 <= v <= 1 for v in values)
    rng = random.Random(0)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    assert leaf_values(game) == [float(r) for r in game.returns()]
