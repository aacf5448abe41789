"""Information states and resampling, for every registered game that implements the search protocol.

A resampled state must give the seat the identical information state and observation (and legal actions
when it is to act), leave the original game untouched, vary in what the seat cannot see, and be a real
state of the game (it plays on to the end). The Fields of Green information rules are FOG-INFO-1..8.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from farmgames.envs import GAMES, get_spec
from farmgames.envs.core.protocol import InformationState, SearchableGame

SEARCHABLE = [
    (row.env_name, n)
    for row in GAMES
    for n in get_spec(row.env_name).player_counts
    if isinstance(get_spec(row.env_name).new_game(num_players=n, seed=0), SearchableGame)
]
CASES = [pytest.param(name, n, id=f"{name}-{n}p") for name, n in SEARCHABLE]


def states(spec: Any, n: int, seed: int, points: int = 4) -> list[Any]:
    """Clones of one random game at ``points`` random decisions, and its final state."""
    rng = random.Random(seed)
    game = spec.new_game(num_players=n, seed=seed)
    seen = []
    while not game.is_terminal():
        seen.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return [seen[i] for i in sorted(rng.sample(range(len(seen)), min(points, len(seen))))] + [game]


def observation(spec: Any, game: Any, seat: int) -> np.ndarray:
    obs = spec.new_observer(game)
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)
    return np.array(buf.flat, copy=True)


def test_the_search_protocol_covers_fields_of_green() -> None:
    assert {name for name, _ in SEARCHABLE} >= {"fields_of_green_v0", "fields_of_green_v1"}


@pytest.mark.parametrize("name,n", CASES)
def test_resampled_states_give_the_seat_the_same_information(name: str, n: int) -> None:
    """FOG-INFO-1..8: same information state (string and tensor), observation, legal actions; original
    untouched; the resampled state is a real game state that plays on to the end."""
    same_information(name, n, seeds=range(1), points=3)


@pytest.mark.slow
@pytest.mark.parametrize("name,n", CASES)
def test_resampled_states_give_the_seat_the_same_information_many_games(name: str, n: int) -> None:
    same_information(name, n, seeds=range(1, 13), points=8)


def same_information(name: str, n: int, seeds: range, points: int) -> None:
    spec = get_spec(name)
    for seed in seeds:
        for game in states(spec, n, seed, points):
            rng = random.Random(seed)
            before = game.to_json()
            for seat in range(n):
                info = game.information_state(seat)
                assert isinstance(info, InformationState) and info.seat == seat
                assert info.tensor.dtype == np.float32 and info.tensor.ndim == 1
                obs = observation(spec, game, seat)
                for _ in range(3):
                    other = game.resample_from_infostate(seat, rng)
                    assert other is not game
                    again = other.information_state(seat)
                    assert again.string == info.string
                    assert np.array_equal(again.tensor, info.tensor)
                    assert np.array_equal(observation(spec, other, seat), obs)
                    assert other.is_terminal() == game.is_terminal()
                    if game.current_player == seat:
                        assert other.legal_actions() == game.legal_actions()
                    play = random.Random(seed)
                    while not other.is_terminal():
                        other.apply(play.choice(other.legal_actions()))
            assert game.to_json() == before


@pytest.mark.parametrize("name,n", CASES)
def test_hidden_parts_vary_across_draws(name: str, n: int) -> None:
    """What the seat cannot see (FOG-INFO-3/5/8: other hands, piles, stack, offer) changes between draws."""
    spec = get_spec(name)
    game = states(spec, n, seed=3, points=1)[0]
    rng = random.Random(0)
    for seat in range(n):
        draws = {game.resample_from_infostate(seat, rng).to_json() for _ in range(8)}
        assert len(draws) > 1


@pytest.mark.parametrize("name,n", CASES)
def test_information_states_have_perfect_recall(name: str, n: int) -> None:
    """A later information state extends the earlier one: nothing the seat knew is forgotten."""
    spec = get_spec(name)
    rng = random.Random(5)
    game = spec.new_game(num_players=n, seed=5)
    earlier = [game.information_state(p).string for p in range(n)]
    for _ in range(40):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
        now = [game.information_state(p).string for p in range(n)]
        for p in range(n):
            assert now[p].startswith(earlier[p])
        earlier = now


@pytest.mark.parametrize("name,n", CASES)
def test_resampling_is_seeded(name: str, n: int) -> None:
    spec = get_spec(name)
    game = states(spec, n, seed=1, points=1)[0]
    a = game.resample_from_infostate(0, random.Random(9)).to_json()
    b = game.resample_from_infostate(0, random.Random(9)).to_json()
    assert a == b
