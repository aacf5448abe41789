"""Property tests of the engine's state handling (hypothesis; the bounded profile is set in conftest).

Clones are independent, JSON round trips and game records are exact, and everything random comes from
the seed: the same seed with the same actions gives the same game bit for bit.
"""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from farmgames.envs.fields_of_green import Game

seeds = st.integers(min_value=0, max_value=2**31 - 1)
players = st.sampled_from([2, 3, 4])
steps = st.integers(min_value=0, max_value=1500)
variants = st.fixed_dictionaries(
    {},
    optional={
        "farm_size": st.sampled_from([5, 9, 11]),
        "auto_single": st.booleans(),
        "pass_directions": st.lists(st.sampled_from(["cw", "ccw"]), min_size=4, max_size=4),
        "fixed_split": st.sampled_from(
            [{y: (2, 2, 1, 1) for y in range(1, 5)}, {y: (1, 1, 1, 3) for y in range(1, 5)}]
        ),
    },
)


def advance(game: Game, rng: random.Random, n: int) -> list[int]:
    """Apply up to n random legal actions; return them."""
    done = []
    for _ in range(n):
        if game.is_terminal():
            break
        action = rng.choice(game.legal_actions())
        game.apply(action)
        done.append(action)
    return done


@given(seed=seeds, n=players, k=steps, variant=variants)
def test_clone_is_independent(seed, n, k, variant):
    """Mutating a clone (playing on, poking its containers) never changes the original."""
    game = Game(num_players=n, seed=seed, **variant)
    rng = random.Random(seed)
    advance(game, rng, k)
    before = game.to_json()
    twin = game.clone()
    assert twin.to_json() == before and twin.legal_actions() == game.legal_actions()
    advance(twin, random.Random(seed + 1), 400)
    twin.farms[0].grid[0] = 5
    twin.farms[0].fallow.add(1)
    twin.farms[0].tower_water[0] = 99
    twin.farms[0].equipment.setdefault(2, []).append(7)
    twin.farms[0].set_aside.append(3)
    twin.piles[0].append(1)
    twin.hands[0].append(1)
    twin.discard.append(1)
    twin.equipment_stack.append(0)
    twin.history.append(0)
    twin._stack.append(("year",))
    assert game.to_json() == before


@given(seed=seeds, n=players, k=steps, variant=variants)
def test_json_round_trip_and_identical_continuation(seed, n, k, variant):
    """from_json(to_json()) gives the same JSON, the same legal actions, and the same future."""
    game = Game(num_players=n, seed=seed, **variant)
    advance(game, random.Random(seed), k)
    text = game.to_json()
    json.loads(text)  # valid JSON
    copy = Game.from_json(text)
    assert copy.to_json() == text
    assert copy.legal_actions() == game.legal_actions() and copy.decision == game.decision
    assert (copy.legal_mask() == game.legal_mask()).all()
    a, b = random.Random(seed + 2), random.Random(seed + 2)
    for _ in range(80):
        if game.is_terminal():
            break
        game.apply(a.choice(game.legal_actions()))
        copy.apply(b.choice(copy.legal_actions()))
        assert copy.to_json() == game.to_json()
    assert copy.is_terminal() == game.is_terminal()
    if game.is_terminal():
        assert copy.scores() == game.scores() and copy.winners() == game.winners()


@given(seed=seeds, n=players, k=steps, variant=variants)
def test_replay_rebuilds_the_game(seed, n, k, variant):
    """Game.replay(record()) gives an identical state (JSON-serialisable record)."""
    game = Game(num_players=n, seed=seed, **variant)
    advance(game, random.Random(seed), k)
    record = json.loads(json.dumps(game.record()))
    assert Game.replay(record).to_json() == game.to_json()


@given(seed=seeds, n=players, variant=variants)
def test_same_seed_same_actions_same_game(seed, n, variant):
    """Same seed + same actions = same game, bit for bit, at every step."""
    a, b = Game(num_players=n, seed=seed, **variant), Game(num_players=n, seed=seed, **variant)
    assert a.to_json() == b.to_json()
    rng = random.Random(seed)
    while not a.is_terminal():
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
        assert a.decision == b.decision
    assert a.to_json() == b.to_json() and a.scores() == b.scores()


@given(a=seeds, b=seeds, n=players)
def test_different_seeds_different_pile_orders(a, b, n):
    """Different seeds shuffle the main piles differently (and the equipment stack)."""
    if a == b:
        return
    ga, gb = Game(num_players=n, seed=a), Game(num_players=n, seed=b)
    assert ga.piles != gb.piles
    assert ga.equipment_stack != gb.equipment_stack
    assert [sorted(p) for p in ga.piles] == [sorted(p) for p in gb.piles]
