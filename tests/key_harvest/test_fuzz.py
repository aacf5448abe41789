"""Random play with invariants after every action, and clone / JSON / replay determinism.

Invariants: the 60 counters are conserved across stock, supplies and bids; every field tile and event tile is
in exactly one place (``validate_state``); at most two turn actions per turn and (c) never after (d)
(KH-TURN-2, KH-TURN-4); the game ends by the end rule (KH-END-1, KH-END-2, KH-END-3) or the safety limit (KH-END-6),
and the limit is never
reached in random play (the closest approach is printed); each final score is the sum of its parts.
"""

from __future__ import annotations

import json
import random

import pytest

from farmgames.envs.key_harvest.actions import TAKE_STORE
from farmgames.envs.key_harvest.board import SAFETY_ROUNDS
from farmgames.envs.key_harvest.game import Game
from farmgames.envs.key_harvest.validate import validate_state


def run(n: int, seed: int, check_every: int = 1) -> Game:
    rng = random.Random(seed * 31 + n)
    g = Game(n, seed)
    step = 0
    while not g.is_terminal():
        legal = g.legal_actions()
        assert legal == sorted(legal) and legal
        a = rng.choice(legal)
        if g.phase in ("TURN", "EXTRA") and a == TAKE_STORE:
            assert not g.taken & 8, "KH-TURN-4: (c) after (d)"
        turn = g.turns
        g.apply(a)
        if g.turns == turn:
            assert g.actions_taken <= 2
        step += 1
        if step % check_every == 0:
            validate_state(g)
    validate_state(g)
    for s in g.scores():
        d = s.as_dict()
        assert d["total"] == d["group_points"] + d["worker_points"] + d["crop_points"] == s.total == s.key[0]
        assert d["group_points"] == d["largest_group"] + 2 * d["second_group"]
    assert sum(g.stock) + sum(map(sum, g.supply)) == 60  # bids returned at the end (KH-END-5)
    return g


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_every_invariant(n):
    """KH-TURN-2, KH-TURN-4, KH-COMP-7, KH-END-1, KH-END-6: random games, the state checked after every action."""
    most = 0
    for seed in range(12):
        g = run(n, seed)
        assert not g.truncated and len(g.events) == 10 and g.end_triggered
        most = max(most, g.rounds)
    assert most < SAFETY_ROUNDS
    print(f"{n} players: most rounds {most} of {SAFETY_ROUNDS}")


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_many_random_games(n):
    """KH-END-6: thousands of random games, none reaches the safety limit."""
    most = 0
    for seed in range(1000, 3000):
        g = run(n, seed, check_every=25)
        assert not g.truncated
        most = max(most, g.rounds)
    print(f"{n} players: most rounds {most} of {SAFETY_ROUNDS}")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_clone_json_and_replay_determinism(n):
    """Clones are independent, JSON round trips exact, records replay to the same game."""
    rng = random.Random(n)
    g = Game(n, 77)
    snapshots = []
    while not g.is_terminal():
        if rng.random() < 0.05:
            snapshots.append((g.clone(), g.to_json()))
        g.apply(rng.choice(g.legal_actions()))
    for clone, text in snapshots:
        assert clone.to_json() == text
        back = Game.from_json(text)
        assert back.to_json() == text and back.legal_actions() == clone.legal_actions()
        if not clone.is_terminal():
            clone.apply(clone.legal_actions()[-1])
            assert back.to_json() == text != clone.to_json()
    again = Game.replay(json.loads(json.dumps(g.record())))
    assert again.to_json() == g.to_json()
    assert Game(n, 77).to_json() == Game(n, 77).to_json() != Game(n, 78).to_json()


def test_from_json_rejects_inconsistent_states():
    """from_json validates: the first violation is named."""
    g = Game(3, 1)
    d = json.loads(g.to_json())
    d["stock"][0] += 1
    with pytest.raises(ValueError, match="crop 0"):
        Game.from_json(json.dumps(d))
    d = json.loads(g.to_json())
    d["bag"].append(d["registry"][0])
    with pytest.raises(ValueError, match="both in"):
        Game.from_json(json.dumps(d))
    d = json.loads(g.to_json())
    del d["supply"]
    with pytest.raises(ValueError, match="supply"):
        Game.from_json(json.dumps(d))
    with pytest.raises(ValueError, match="Key Harvest"):
        Game.from_json("[1, 2]")
    d = json.loads(g.to_json())
    d["supply"][1][0] += 1
    d["stock"][0] -= 1
    with pytest.raises(ValueError, match="start"):
        Game.from_json(json.dumps(d))


def test_seeds_are_checked():
    """Seeds: non-negative integers only, the value named."""
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            Game(2, bad)


def test_mutated_states_are_refused_or_play_on():
    """from_json refuses a broken state with a ValueError; an accepted one plays on to the end."""
    odd = [None, True, -1, 0, 1, 3, 99, 10**12, 1.5, "", "x", [], [0], {}, [1, 2]]
    rng = random.Random(0)
    g = Game(3, 4)
    states = []
    while not g.is_terminal():
        if rng.random() < 0.05:
            states.append(json.loads(g.to_json()))
        g.apply(rng.choice(g.legal_actions()))
    for i in range(300):
        data = json.loads(json.dumps(states[i % len(states)]))
        key = rng.choice(sorted(data))
        target, slot = data, key
        while isinstance(target[slot], list) and target[slot] and rng.random() < 0.6:
            target, slot = target[slot], rng.randrange(len(target[slot]))
        target[slot] = rng.choice(odd)
        try:
            game = Game.from_json(json.dumps(data))
        except ValueError:
            continue
        for _ in range(20_000):
            if game.is_terminal():
                break
            game.apply(rng.choice(game.legal_actions()))
        assert game.is_terminal()


def test_records_carry_pins():
    """Records pin the package, the env version and every data file's SHA-256."""
    rec = Game(2, 1).record()
    assert rec["pins"]["env"] == "key_harvest_v0" and set(rec["pins"]["data"]) == {
        "board",
        "tiles",
        "workers",
        "events",
        "setup",
    }
