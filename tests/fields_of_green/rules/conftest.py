"""Fixtures for the rule tests: a small synthetic card set (FOG-RUL-1 allows them) and helpers.

The synthetic set ``SYN`` names every card a rule test needs, so the tests do not depend on the
balance of the shipped base set. Piles hold 12 cards each; plain filler cards ("Plain Building" ...) top them up.
"""

from __future__ import annotations

import pytest

from farmgames.envs.fields_of_green import Game, IllegalActionError
from farmgames.envs.fields_of_green.scenario import at, scenario, write_card_set

SYN_LOCATIONS = {
    "Field": [
        # harvest: pay 1 water -> 2 food
        {
            "name": "Wheat",
            "subtype": "cereal",
            "copies": 3,
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {"water": 1}, "effect": [{"gain": {"food": 2}}]},
        },
        # build cost needs water (2) from towers in range
        {"name": "Rice Paddy", "subtype": "cereal", "cost": {"coins": 2, "water": 2}, "vp": 2},
        {"name": "Melon Patch", "subtype": "fruit", "cost": {"water": 1}, "vp": 1},
        # a free harvest ability (FOG-RUL-23)
        {
            "name": "Wild Berries",
            "subtype": "fruit",
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {}, "effect": [{"gain": {"coins": 1}}]},
        },
        # harvest: 2 water -> 5 food (big producer for overflow tests)
        {
            "name": "Pumpkins",
            "subtype": "vegetable",
            "cost": {"coins": 1},
            "vp": 2,
            "ability": {"kind": "harvest", "cost": {"water": 2}, "effect": [{"gain": {"food": 5}}]},
        },
    ],
    "Livestock": [
        # build cost needs food; harvest: 1 food -> 3 coins
        {
            "name": "Cows",
            "subtype": "dairy",
            "copies": 2,
            "cost": {"coins": 1, "food": 2},
            "vp": 2,
            "ability": {"kind": "harvest", "cost": {"food": 1}, "effect": [{"gain": {"coins": 3}}]},
        },
        # harvest: 1 coin + 1 food -> 1 VP token
        {
            "name": "Pigs",
            "subtype": "meat",
            "copies": 2,
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {"coins": 1, "food": 1}, "effect": [{"gain": {"vp": 1}}]},
        },
        # harvest: 1 food -> gain equipment (FOG-RUL-18)
        {
            "name": "Hens",
            "subtype": "poultry",
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {"food": 1}, "effect": [{"gain_equipment": 1}]},
        },
        {
            "name": "Oxen",
            "subtype": "work",
            "cost": {"coins": 2},
            "vp": 1,
            "ability": {"kind": "immediate", "effect": [{"gain_equipment": 1}]},
        },
    ],
    "Construction": [
        {
            "name": "Well",
            "cost": {"coins": 1},
            "vp": 0,
            "ability": {"kind": "immediate", "effect": [{"gain": {"water": 2}}]},
        },
        {
            "name": "Pantry",
            "cost": {"coins": 1},
            "vp": 0,
            "ability": {"kind": "immediate", "effect": [{"gain": {"food": 3}}]},
        },
        {
            "name": "Toolshed",
            "cost": {"coins": 1},
            "vp": 0,
            "ability": {"kind": "immediate", "effect": [{"gain_equipment": 1}]},
        },
        {
            "name": "Mint",
            "cost": {"coins": 3},
            "vp": 1,
            "ability": {"kind": "immediate", "effect": [{"gain": {"coins": 4}}]},
        },
        {
            "name": "Cistern",
            "cost": {"coins": 1},
            "vp": 0,
            "ability": {"kind": "immediate", "effect": [{"raise_capacity": {"target": "tower", "by": 2}}]},
        },
    ],
    "Building": [
        # End-game: 1 VP per adjacent Field
        {
            "name": "Manor",
            "copies": 2,
            "cost": {"coins": 2},
            "vp": 3,
            "ability": {"kind": "end_game", "effect": [{"gain": {"vp": 1}, "per": {"adjacent": {"type": "Field"}}}]},
        },
        {"name": "Chapel", "copies": 2, "cost": {"coins": 4}, "vp": 5},
        {"name": "Statue", "cost": {"coins": 0}, "vp": 0},
    ],
}

SYN_EQUIPMENT = [
    {
        "name": "Hose",
        "copies": 2,
        "host": "Field",
        "keyword": "harvest",
        "timing": "permanent",
        "effect": [{"harvest_discount": {"water": 1}}],
    },
    {
        "name": "Scarecrow",
        "host": "Field",
        "keyword": "harvest",
        "timing": "harvest",
        "effect": [{"gain": {"food": 1}}],
    },
    {"name": "Drill", "host": "Field", "keyword": "cereal", "timing": "on_place", "effect": [{"gain": {"coins": 2}}]},
    {"name": "Ladder", "host": "Field", "keyword": "fruit", "timing": "end_game", "effect": [{"gain": {"vp": 2}}]},
    {
        "name": "Trough",
        "host": "Livestock",
        "keyword": "harvest",
        "timing": "permanent",
        "effect": [{"harvest_discount": {"food": 1}}],
    },
    {"name": "Vane", "copies": 2, "host": "Building", "timing": "end_game", "effect": [{"gain": {"vp": 2}}]},
    {
        "name": "Valve",
        "host": "WaterTower",
        "timing": "permanent",
        "effect": [{"raise_capacity": {"target": "host", "by": 2}}],
    },
    {"name": "Bin", "host": "Silo", "timing": "permanent", "effect": [{"raise_capacity": {"target": "host", "by": 2}}]},
    {"name": "Crate", "host": "Construction", "timing": "on_place", "effect": [{"gain": {"coins": 1}}]},
]


@pytest.fixture(scope="session")
def syn(tmp_path_factory) -> str:
    """Path of the synthetic card set SYN (12 cards per pile, 11 equipment tiles)."""
    directory = tmp_path_factory.mktemp("syn")
    return str(write_card_set(directory, locations=SYN_LOCATIONS, equipment=SYN_EQUIPMENT, pile_size=12, name="SYN"))


@pytest.fixture
def make_set(tmp_path):
    """Factory: write a synthetic card set with write_card_set(...) keywords, return its path."""
    counter = iter(range(1000))

    def make(**kwargs) -> str:
        kwargs.setdefault("name", f"set{next(counter)}")
        return str(write_card_set(tmp_path, **kwargs))

    return make


@pytest.fixture
def scen(syn):
    """scenario(...) on the synthetic set, 5x5 farm and 3 players unless told otherwise."""

    def make(**kwargs) -> Game:
        kwargs.setdefault("card_set", syn)
        kwargs.setdefault("farm_size", 5)
        kwargs.setdefault("num_players", 3)
        return scenario(**kwargs)

    return make


def legal_kinds(game: Game) -> dict[str, list[int]]:
    """Legal actions grouped by kind: {kind: [arguments]}."""
    out: dict[str, list[int]] = {}
    for a in game.legal_actions():
        kind, arg = game.layout.decode(a)
        out.setdefault(kind, []).append(arg)
    return out


def act(game: Game, kind: str, arg: int = 0) -> None:
    """Apply (kind, arg) — failing loudly with the legal list if it is not legal."""
    game.apply(game.layout.index(kind, arg))


def is_legal(game: Game, kind: str, arg: int = 0) -> bool:
    return game.layout.index(kind, arg) in game.legal_actions()


def cell(game: Game, row: int, col: int) -> int:
    return at(game, row, col)


def assert_rejected(game: Game, kind: str, arg: int = 0) -> None:
    """FOG-RUL-16: an illegal action raises and leaves the state exactly as it was."""
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply(game.layout.index(kind, arg))
    assert game.to_json() == before


def play_random(game: Game, rng, until=None, limit: int = 100000) -> None:
    """Apply random legal actions until ``until(game)`` is true or the game ends."""
    for _ in range(limit):
        if game.is_terminal() or (until is not None and until(game)):
            return
        game.apply(rng.choice(game.legal_actions()))
