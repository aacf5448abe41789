"""Rule tests: farm geometry and resource storage (spec sections 4 and 5, rulings FOG-RUL-8, -10..-12)."""

from __future__ import annotations

import random

import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.farm import EMPTY, geometry

from .conftest import act, assert_rejected, cell, is_legal, legal_kinds

# ---------------------------------------------------------------- 4. the farm


@pytest.mark.parametrize("size", [5, 9, 11])
def test_FOG_FARM_1_and_RUL_8_bounded_square_grid(size):
    """FOG-FARM-1 / FOG-RUL-8: a farm is a farm_size x farm_size grid, one card per cell, cells
    (row, col) 0-based from the top-left; outside cells do not exist."""
    game = Game(num_players=3, seed=0, farm_size=size)
    g = game.geometry
    assert len(game.farms[0].grid) == size * size and game.layout.cells == size * size
    assert g.cell(0, 0) == 0 and g.cell(1, 2) == size + 2 and g.row_col(size * size - 1) == (size - 1, size - 1)
    for bad in [(-1, 0), (0, size), (size, 0)]:
        with pytest.raises(ValueError):
            g.cell(*bad)


@pytest.mark.parametrize("size", [3, 4, 8, 27, 9.0, True])
def test_FOG_RUL_8_farm_size_must_be_odd_5_to_25(size):
    """FOG-RUL-8: farm_size is an odd integer from 5 to 25."""
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, farm_size=size)


def test_FOG_RUL_8_placement_at_the_edge(scen):
    """FOG-RUL-8: the grid is a finite table: at the edge there are no cells beyond it to build on."""
    picture = """
    . . W . .
    . . W . .
    . . T S .
    . . . . .
    . . . . .
    """
    game = scen(farms={0: picture}, legend={"W": "Wheat"}, picks={0: "Statue"}, decision=("act", 0))
    cells = legal_kinds(game)["build"]
    assert all(0 <= c < 25 for c in cells)
    assert sorted(cells) == sorted(
        cell(game, r, c) for r, c in [(0, 1), (0, 3), (1, 1), (1, 3), (2, 1), (2, 4), (3, 2), (3, 3)]
    )


def test_FOG_FARM_2_adjacency_is_orthogonal():
    """FOG-FARM-2: adjacent = sharing an edge; diagonal cells are not adjacent."""
    g = geometry(5)
    assert sorted(g.neighbours[g.cell(2, 2)]) == sorted(g.cell(r, c) for r, c in [(1, 2), (3, 2), (2, 1), (2, 3)])
    assert sorted(g.neighbours[g.cell(0, 0)]) == [g.cell(0, 1), g.cell(1, 0)]


def test_FOG_FARM_3_new_card_next_to_an_existing_card(scen):
    """FOG-FARM-3: locations, towers and silos all go on empty cells adjacent to a card of the farm."""
    game = scen(farms={0: "T S W"}, legend={"W": "Wheat"}, picks={0: "Statue"}, decision=("act", 0))
    farm = game.farms[0]
    expected = sorted(
        c
        for c in range(25)
        if farm.grid[c] == EMPTY and any(farm.grid[n] != EMPTY for n in game.geometry.neighbours[c])
    )
    kinds = legal_kinds(game)
    assert kinds["build"] == kinds["tower"] == kinds["silo"] == expected
    assert len(expected) == 7


def test_FOG_FARM_4_no_gaps_diagonals_or_stacking(scen):
    """FOG-FARM-4: a gap, a diagonal-only contact and stacking on a card are all illegal."""
    game = scen(picks={0: "Statue"}, decision=("act", 0))
    for kind in ("build", "tower", "silo"):
        assert_rejected(game, kind, cell(game, 0, 2))  # gap
        assert_rejected(game, kind, cell(game, 1, 1))  # diagonal to the tower only
        assert_rejected(game, kind, cell(game, 2, 2))  # on the tower


def test_FOG_FARM_5_cards_never_move():
    """FOG-FARM-5: once placed a card keeps its cell for the rest of the game (fallow happens in place)."""
    game = Game(num_players=3, seed=21)
    rng = random.Random(21)
    placed: list[dict[int, int]] = [{} for _ in range(3)]
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
        for p, farm in enumerate(game.farms):
            for c, code in placed[p].items():
                assert farm.grid[c] == code
            placed[p] = {c: farm.grid[c] for c in farm.occupied}


def test_FOG_FARM_6_nothing_built_on_a_fallow_card(scen):
    """FOG-FARM-6: a fallow card keeps its cell; no card may be built on top of it."""
    game = scen(farms={0: "(W) T S"}, legend={"W": "Wheat"}, picks={0: "Statue"}, decision=("act", 0))
    fallow = cell(game, 2, 1)
    for kind in ("build", "tower", "silo"):
        assert fallow not in legal_kinds(game)[kind]
        assert_rejected(game, kind, fallow)


def test_FOG_FARM_7_and_RUL_7_fallow_card_anchors_and_carries_water(scen):
    """FOG-FARM-7 / FOG-RUL-7: a fallow card anchors adjacency and carries water paths."""
    game = scen(farms={0: "(W) T1 S"}, legend={"W": "Wheat"}, picks={0: "Melon Patch"}, decision=("act", 0))
    beyond = cell(game, 2, 0)  # only neighbour on the farm: the fallow Wheat; 2 steps from the tower
    assert is_legal(game, "build", beyond)
    act(game, "build", beyond)
    assert legal_kinds(game) == {"pay_water": [cell(game, 2, 2)]}
    act(game, "pay_water", cell(game, 2, 2))
    assert game.farms[0].water == 0  # the tower paid through the fallow card


# ---------------------------------------------------------------- 5. storage


def test_FOG_STORE_1_water_only_on_towers(scen):
    """FOG-STORE-1: water exists only on towers; a player with every tower full cannot gain more."""
    game = scen(picks={0: "Well"}, decision=("act", 0))
    assert game.farms[0].water == sum(game.farms[0].tower_water.values()) == 3
    act(game, "build", cell(game, 1, 2))  # Well: +2 water, the only tower is full
    assert game.farms[0].water == 3


def test_FOG_STORE_2_and_RUL_10_tower_capacity(scen):
    """FOG-STORE-2 / FOG-RUL-10: a tower holds at most 3 water unless an effect raises that tower's
    capacity; a new tower still starts with exactly 3."""
    game = scen(
        farms={0: "T1 S T1"}, picks={0: "Cistern", 1: "Statue"}, coins={1: 5}, decision=[("act", 0), ("act", 1)]
    )
    act(game, "build", cell(game, 1, 2))  # Cistern: +2 capacity to a chosen tower
    assert game.decision_kind == "ability_target"
    act(game, "ability_target", cell(game, 2, 4))
    farm = game.farms[0]
    assert farm.tower_capacity == {cell(game, 2, 2): 3, cell(game, 2, 4): 5}
    act(game, "tower", cell(game, 1, 2))
    assert game.farms[1].tower_water[cell(game, 1, 2)] == 3 and game.farms[1].tower_capacity[cell(game, 1, 2)] == 3


def test_FOG_STORE_3_and_STORE_4_food_in_silos_of_4(scen):
    """FOG-STORE-3: food exists only in silos; FOG-STORE-4: a silo holds at most 4 food."""
    game = scen(farms={0: "T S S"}, food={0: 0}, picks={0: "Pantry"}, decision=("act", 0))
    farm = game.farms[0]
    assert farm.food_capacity == 8
    with pytest.raises(ValueError):
        scen(food={0: 5}, decision=[])  # one silo cannot hold 5
    act(game, "build", cell(game, 1, 2))
    assert farm.food == 3


def test_FOG_STORE_5_and_RUL_12_player_chooses_tower_for_gained_water(scen):
    """FOG-STORE-5 / FOG-RUL-12: each gained water token goes on a tower with room that the player
    chooses; the choice is skipped when only one tower has room."""
    game = scen(farms={0: "T0 S T2\n. . T3"}, picks={0: "Well"}, decision=("act", 0))
    a, b, full = cell(game, 2, 2), cell(game, 2, 4), cell(game, 3, 4)
    act(game, "build", cell(game, 1, 2))  # Well: +2 water
    assert game.decision_kind == "store_water"
    assert legal_kinds(game) == {"store_water": sorted([a, b])}
    act(game, "store_water", b)
    assert game.is_terminal()  # second token: only tower a has room -> no question
    assert game.farms[0].tower_water == {a: 1, b: 3, full: 3}


def test_FOG_STORE_6_water_without_room_is_lost(scen):
    """FOG-STORE-6: gained water that finds no tower with room is lost."""
    game = scen(farms={0: "T2 S"}, picks={0: "Well"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].water == 3 and game.is_terminal()


def test_FOG_STORE_7_and_STORE_8_food_stored_overflow_lost(scen):
    """FOG-STORE-7: gained food goes into silos with room; FOG-STORE-8: the rest is lost."""
    game = scen(food={0: 2}, picks={0: "Pantry"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))  # +3 food, room for 2
    assert game.farms[0].food == 4


def test_FOG_STORE_9_overflow_checked_at_each_gain(scen):
    """FOG-STORE-9: a token that cannot be stored when gained is lost for good, even if room appears
    later (here: 5 food from Pumpkins into 2 free spaces, then Cows eat 1 food)."""
    game = scen(
        farms={0: "C T S P"}, legend={"C": "Cows", "P": "Pumpkins"}, food={0: 2}, year=4, decision=("harvest", 0)
    )
    act(game, "harvest", cell(game, 2, 4))  # Pumpkins: 2 water -> 5 food
    act(game, "pay_water", cell(game, 2, 2))
    act(game, "pay_water", cell(game, 2, 2))
    assert game.farms[0].food == 4
    act(game, "harvest", cell(game, 2, 1))  # Cows eat 1 food
    assert game.farms[0].food == 3


def test_FOG_STORE_10_and_RUL_11_food_is_one_pool(scen):
    """FOG-STORE-10 / FOG-RUL-11: food moves freely between silos: one pool whose capacity is the sum."""
    game = scen(farms={0: "T S\n. S/6"}, food={0: 9}, picks={0: "Cows"}, decision=("act", 0))
    farm = game.farms[0]
    assert farm.food_capacity == 10 and farm.food == 9
    act(game, "build", cell(game, 1, 2))  # 2 food from "either" silo
    assert farm.food == 7


def test_FOG_STORE_11_and_RUL_11_water_never_moves(scen):
    """FOG-STORE-11 / FOG-RUL-11: there is no way to move water; paying takes it from the chosen tower
    and gaining adds it to one, the others never change."""
    game = scen(farms={0: "T1 S T1"}, picks={0: "Melon Patch"}, decision=("act", 0))
    a, b = cell(game, 2, 2), cell(game, 2, 4)
    act(game, "build", cell(game, 1, 4))  # only the tower at (2,4) is in range
    assert legal_kinds(game) == {"pay_water": [b]}
    act(game, "pay_water", b)
    assert game.farms[0].tower_water == {a: 1, b: 0}
    assert not any("move" in kind for kind in game.layout.ranges)


def test_FOG_STORE_12_coins_and_vp_tokens_unlimited(scen):
    """FOG-STORE-12: coins and VP tokens have no storage limit."""
    game = scen(
        farms={0: "T S P"}, legend={"P": "Pigs"}, coins={0: 1000}, vp_tokens={0: 500}, year=4, decision=("harvest", 0)
    )
    act(game, "harvest", cell(game, 2, 4))
    assert (game.farms[0].coins, game.farms[0].vp_tokens) == (999, 501)


def test_FOG_STORE_13_food_for_any_cost_from_any_silo(scen):
    """FOG-STORE-13: food has no distance rule: Cows are built far from every silo."""
    picture = """
    . . . . .
    . . . . .
    W W T S .
    . . . . .
    . . . . .
    """
    game = scen(farms={0: picture}, legend={"W": "Wheat"}, food={0: 2}, picks={0: "Cows"}, decision=("act", 0))
    far = cell(game, 2, 0)
    assert is_legal(game, "build", cell(game, 1, 0))
    act(game, "build", cell(game, 1, 0))
    assert game.farms[0].food == 0 and far in game.farms[0].occupied
