"""``Game.from_json`` checks every invariant the Fields of Green engine relies on and names the first
violation (issue 12: "Of 300 well-typed but broken states none was rejected; a third crashed later with
IndexError/KeyError/RuntimeError, others were silently truncated")."""

from __future__ import annotations

import copy
import json
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farmgames.envs.core.statecheck import StateError
from farmgames.envs.fields_of_green.cards import DEFAULT_CARD_SET
from farmgames.envs.fields_of_green.farm import SILO, TOWER
from farmgames.envs.fields_of_green.game import Game

from .mutate import mutate, mutate_stack


def _played(num_players: int, seed: int, steps: int) -> Game:
    game = Game(num_players=num_players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


@cache
def _states() -> tuple[str, ...]:
    """States from seeded random games at every stage (2-4 players), as JSON texts."""
    out = []
    for n in (2, 3, 4):
        for seed in range(2):
            game = Game(num_players=n, seed=seed)
            rng = random.Random(seed)
            while not game.is_terminal():
                if rng.random() < 0.06:
                    out.append(game.to_json())
                game.apply(rng.choice(game.legal_actions()))
            out.append(game.to_json())
    return tuple(out)


def _data(game: Game) -> dict:
    return json.loads(game.to_json())


def _refused(data: dict, *words: str) -> str:
    with pytest.raises(ValueError) as err:
        Game.from_json(json.dumps(data))
    assert isinstance(err.value, StateError), repr(err.value)
    for word in words:
        assert word in str(err.value), (word, str(err.value))
    return str(err.value)


def test_valid_states_round_trip_at_every_stage():
    for text in _states():
        assert Game.from_json(text).to_json() == text


def _first_card_in_pile(d: dict) -> int:
    return next(p[-1] for p in d["state"]["piles"] if p)


def test_duplicate_card_is_named():
    d = _data(_played(3, 1, 40))
    card = _first_card_in_pile(d)
    d["state"]["discard"].append(card)
    _refused(d, f"location card {card} is both in state.piles", "state.discard")


def test_missing_card_is_named():
    d = _data(_played(3, 1, 40))
    card = d["state"]["piles"][0].pop()
    _refused(d, f"location card {card} is nowhere")


def test_unknown_card_is_named():
    d = _data(_played(4, 2, 10))
    d["state"]["discard"].append(10_000)
    _refused(d, "state.discard", "10000")


def test_missing_farm_and_wrong_player_count():
    d = _data(_played(3, 0, 30))
    d["state"]["farms"].pop()
    _refused(d, "state.farms must have 3 entries, got 2")
    d = _data(_played(3, 0, 30))
    d["state"]["num_players"] = 4
    _refused(d, "4")  # hands/picks/farms sized for 3
    d = _data(_played(3, 0, 30))
    d["state"]["picks"].append(None)
    _refused(d, "state.picks must have 3 entries")


def test_each_tile_tower_and_silo_exactly_once():
    d = _data(_played(2, 3, 60))
    stack = d["state"]["equipment_stack"]
    stack.append(stack[0])
    _refused(d, f"equipment tile {stack[0]} is twice in state.equipment_stack")
    d = _data(_played(2, 3, 60))
    d["state"]["towers_left"] -= 1
    _refused(d, "Water Tower")
    d = _data(_played(2, 3, 60))
    d["state"]["silos_left"] += 1
    _refused(d, "Silo")


def test_card_in_the_wrong_pile():
    d = _data(Game(num_players=2, seed=0))
    piles = d["state"]["piles"]
    piles[0].append(piles[1].pop())
    _refused(d, "state.piles[0]", "Livestock, not a Field")


def test_resources_within_bounds():
    game = _played(4, 5, 50)
    d = _data(game)
    d["state"]["farms"][1]["coins"] = -4
    _refused(d, "state.farms[1].coins", "-4")
    d = _data(game)
    d["state"]["farms"][0]["food"] = 999
    _refused(d, "state.farms[0].food", "999")
    d = _data(game)
    d["state"]["farms"][0]["tower_water"][0][1] = 99
    _refused(d, "tower_water", "over its capacity")
    d = _data(game)
    d["state"]["farms"][0]["coins"] = 10**30
    _refused(d, "coins")
    d = _data(game)
    d["state"]["farms"][0]["coins"] = 3.0
    _refused(d, "coins", "3.0")


def test_farm_grid_consistency():
    game = _played(3, 2, 80)
    d = _data(game)
    farm = d["state"]["farms"][0]
    farm["frontier"] = farm["frontier"][:-1]
    _refused(d, "state.farms[0].frontier")
    d = _data(game)
    d["state"]["farms"][0]["occupied"].append(0)
    _refused(d, "state.farms[0].occupied")
    d = _data(game)
    farm = d["state"]["farms"][0]
    tower = next(c for c, code in enumerate(farm["grid"]) if code == TOWER)
    farm["grid"][tower] = SILO
    _refused(d, "state.farms[0]")


def test_frames_consistent_with_the_phase():
    game = _played(3, 0, 3)  # year 1, draw or action phase
    d = _data(game)
    assert d["state"]["stack"][-1][0] in ("split", "pick")
    d["state"]["stack"][-1] = ["harvest", 0]
    _refused(d, "'harvest' decision cannot be pending in phase")
    d = _data(game)
    d["state"]["stack"].append(["year"])
    _refused(d, "top frame 'year' is not a decision")
    d = _data(game)
    d["state"]["stack"].append(["teleport", 0])
    _refused(d, "state.stack[", "frame name")
    d = _data(game)
    d["state"]["stack"].append(["pick", 7])
    _refused(d, "seat", "7")
    d = _data(game)
    d["state"]["stack"].append(["ops", 0, 40, [{"gain": {"coins": 1000}}], 0])
    _refused(d, "not the effect of any card")
    d = _data(game)
    d["state"]["stack"] = []
    _refused(d, "stack is empty")


def test_pending_decision_must_be_playable():
    game = _played(3, 4, 12)
    while game.decision_kind != "act":
        game.apply(game.legal_actions()[0])
    d = _data(game)
    seat = game.current_player
    d["state"]["picks"][seat] = None
    d["state"]["discard"].append(game.picks[seat])
    _refused(d, "must act, but has no picked card")


def test_state_pins_the_card_set(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(DEFAULT_CARD_SET.read_text(encoding="utf-8"), encoding="utf-8")
    game = _played(2, 1, 30)
    game = Game.from_json(game.to_json().replace('"card_set": null', json.dumps({"card_set": str(path)})[1:-1]))
    text = game.to_json()
    old = game.cards.sha256
    path.write_text(path.read_text(encoding="utf-8").replace("vp: 1", "vp: 2", 1), encoding="utf-8")
    with pytest.raises(StateError) as err:
        Game.from_json(text)
    assert old in str(err.value) and game.cards.sha256 not in ("", None)
    embedded = json.loads(text)
    embedded["files"] = {"card_set": DEFAULT_CARD_SET.read_text(encoding="utf-8")}
    path.unlink()
    assert Game.from_json(json.dumps(embedded)).to_json() == text


def test_not_json_or_not_a_state():
    for text, words in (
        ("{", "is not JSON"),
        ("[]", "must be an object"),
        ('{"format": 1}', "format"),
        ("[" * 50_000, "nested"),
        ('{"format": "farmgames.fields_of_green.state/1"}', "state"),
    ):
        with pytest.raises(StateError, match=words):
            Game.from_json(text)


def _play_on(game: Game, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5000):
        if game.is_terminal():
            break
        legal = game.legal_actions()
        assert legal, "a running game with no legal action"
        game.apply(rng.choice(legal))
    assert game.is_terminal()
    game.scores()
    game.returns()


def check_mutated_state(text: str, seed: int, edits: int) -> bool:
    """A mutated state is refused with a ValueError, or it round-trips and plays on to the end without
    an exception. Returns whether it was accepted."""
    data = mutate(json.loads(text), random.Random(seed), edits)
    try:
        game = Game.from_json(json.dumps(data))
    except ValueError:
        return False
    again = game.to_json()
    assert Game.from_json(again).to_json() == again
    _play_on(game, seed)
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 10_000), seed=st.integers(0, 2**32), edits=st.integers(1, 3))
def test_property_mutated_states_are_refused_or_play_on(index, seed, edits):
    states = _states()
    check_mutated_state(states[index % len(states)], seed, edits)


@cache
def _frames() -> tuple:
    return tuple(f for text in _states() for f in json.loads(text)["state"]["stack"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 10_000), seed=st.integers(0, 2**32), edits=st.integers(1, 3))
def test_property_mutated_decision_stacks_are_refused_or_play_on(index, seed, edits):
    """The engine's flow itself mutated (frames inserted, dropped, duplicated, swapped; another phase):
    before the checks of the offer along the frames and of sub-decisions, such states crashed later."""
    states = _states()
    rng = random.Random(seed)
    data = mutate_stack(json.loads(states[index % len(states)]), rng, list(_frames()), edits)
    try:
        game = Game.from_json(json.dumps(data))
    except ValueError:
        return
    _play_on(game, seed)


def test_mutations_are_mostly_refused_and_sometimes_accepted():
    """Control for the property test: the mutations reach both outcomes (accepted ones play on)."""
    states = _states()
    accepted = sum(check_mutated_state(states[i % len(states)], i, 1) for i in range(300))
    assert 10 < accepted < 200


def test_three_hundred_broken_states_are_all_rejected():
    """The issue's experiment: well-typed but broken states (a card duplicated or moved to a second place,
    a farm missing, a wrong player count, a bogus frame); before, none of 300 was rejected."""
    rng = random.Random(12)
    states = _states()
    rejected = 0
    for i in range(300):
        d = json.loads(states[i % len(states)])
        s = d["state"]
        kind = i % 5
        if kind == 0:
            place = rng.choice([p for p in s["piles"] if p] or [s["discard"]])
            s["discard"].append(place[0])  # a card in two places
        elif kind == 1:
            s["farms"].pop(rng.randrange(len(s["farms"])))
        elif kind == 2:
            s["num_players"] = rng.choice([n for n in (2, 3, 4) if n != s["num_players"]])
        elif kind == 3:
            s["stack"].append(rng.choice([["pick", 9], ["act"], ["ops", 0], ["harvest", 0, 1], ["year", 1]]))
        else:
            s["equipment_stack"] = s["equipment_stack"] + [copy.deepcopy(s["equipment_stack"][:1] or [99])[0]]
        try:
            Game.from_json(json.dumps(d))
        except ValueError:
            rejected += 1
    assert rejected == 300
