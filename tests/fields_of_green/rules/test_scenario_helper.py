"""The scenario helper itself: placement, conservation of cards and tiles, errors, round trips."""

from __future__ import annotations

import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.farm import SILO, TOWER
from farmgames.envs.fields_of_green.scenario import at, cells_of, scenario


def all_cards(game: Game) -> list[int]:
    out = [c for p in game.piles for c in p] + [c for h in game.hands for c in h]
    out += [c for c in game.picks if c is not None] + game.offer + game.display + game.discard
    out += [c for f in game.farms for c in f.grid if c >= 0]
    return sorted(out)


def test_docstring_example_on_the_base_set():
    game = scenario(
        num_players=3,
        farm_size=5,
        legend={"B": "Amberstalk Barley"},
        farms={
            0: """
            .  .  .  .  .
            .  .  B  .  .
            .  .  T2 S  .
            .  .  .  .  .
            .  .  .  .  .
        """
        },
        coins={0: 5},
        food={0: 2},
        picks={0: "Windrow Rye"},
        decision=("act", 0),
    )
    assert game.layout.index("build", at(game, 1, 3)) in game.legal_actions()
    assert cells_of(game, 0, "Amberstalk Barley") == [(1, 2)] and cells_of(game, 0, "Water Tower") == [(2, 2)]
    assert game.farms[0].tower_water == {at(game, 2, 2): 2}
    assert all_cards(game) == list(range(132))


def test_picture_placement_rules(scen):
    game = scen(farms={0: "W T S", 1: ". X\nT S"}, legend={"W": "Wheat", "X": "Statue"}, decision=[])
    assert cells_of(game, 0, "Wheat") == [(2, 1)]  # the first T lands on the centre cell
    assert cells_of(game, 1, "Statue") == [(1, 3)] and cells_of(game, 1, "Water Tower") == [(2, 2)]
    game = scen(farms={0: "X X"}, legend={"X": "Plain Building"}, origin=(0, 0), decision=[])
    assert sorted(game.farms[0].occupied) == [0, 1]
    farm = scen(farms={0: "T2/5 S/7"}, decision=[]).farms[0]
    assert farm.tower_capacity == {at(game, 2, 2): 5} and farm.silo_capacity == {at(game, 2, 3): 7}
    assert farm.grid[at(game, 2, 2)] == TOWER and farm.grid[at(game, 2, 3)] == SILO


def test_towers_silos_and_tiles_are_conserved(scen):
    game = scen(farms={0: "T S T S"}, farm_size=7, set_aside={1: ["Hose"]}, equipment={}, decision=[])
    assert game.towers_left + sum(len(f.tower_water) for f in game.farms) == 20
    assert game.silos_left + sum(len(f.silo_capacity) for f in game.farms) == 14
    tiles = game.equipment_stack + [t for f in game.farms for t in f.set_aside]
    assert sorted(tiles) == list(range(len(game.cards.equipment)))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"farms": {0: "T . S"}}, "connected"),
        ({"farms": {0: "T S Q"}}, "legend"),
        ({"farms": {0: "T S\nT"}}, "lengths"),
        ({"farms": {0: "T4 S"}}, "capacity"),
        ({"farms": {0: "T S W W W W"}, "legend": {"W": "Wheat"}}, "outside"),
        ({"legend": {"T1": "Wheat"}}, "legend key"),
        ({"picks": {0: "No Such Card"}}, "no location card"),
        ({"set_aside": {0: ["Nope"]}}, "no equipment"),
        ({"food": {0: 9}}, "exceeds"),
    ],
)
def test_scenario_errors(scen, kwargs, match):
    with pytest.raises(ValueError, match=match):
        scen(decision=[], **kwargs)


def test_scenario_state_round_trips(scen):
    game = scen(farms={0: "W T1 S (W)"}, legend={"W": "Wheat"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    copy = Game.from_json(game.to_json())
    assert copy.to_json() == game.to_json() and copy.legal_actions() == game.legal_actions()
    assert game.clone().to_json() == game.to_json()
