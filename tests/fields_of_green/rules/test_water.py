"""Rule tests: water range (spec section 9.2, rulings FOG-RUL-5, -6, -7)."""

from __future__ import annotations

import random
from collections import deque

import pytest

from farmgames.envs.fields_of_green.farm import EMPTY, TOWER, Farm, geometry

from .conftest import act, cell, is_legal, legal_kinds


def bfs_distance(farm: Farm, tower: int, target: int) -> int | None:
    """FOG-WATER-3 written out: shortest orthogonal path from the tower (0) to the target, each step 1,
    every cell strictly between must hold a card. None if there is no such path."""
    g = farm.geometry
    dist = {tower: 0}
    todo = deque([tower])
    while todo:
        c = todo.popleft()
        for n in g.neighbours[c]:
            if n in dist:
                continue
            dist[n] = dist[c] + 1
            if n == target:
                return dist[n]
            if farm.grid[n] != EMPTY:  # only cards carry the path further
                todo.append(n)
    return None


def in_range(farm: Farm, tower: int, target: int) -> bool:
    d = bfs_distance(farm, tower, target)
    return d is not None and d <= 2


def melon_cells(game) -> set[tuple[int, int]]:
    """Cells where a Melon Patch (cost: 1 water) may be built."""
    return {game.geometry.row_col(c) for c in legal_kinds(game).get("build", [])}


LINE_FARM = """
. . . . .
. . . . .
. T1 . . .
. W W W .
. . . . .
"""

NO_CORNER_FARM = """
. . . . .
. . . . X
. . T1 . X
. . X X X
. . . . .
"""


def test_FOG_WATER_1_build_water_only_from_towers_in_range(scen):
    """FOG-WATER-1: water for a build comes from towers in range of the target cell: a tower with
    water out of range does not make the build legal and cannot pay."""
    game = scen(
        farms={0: "T0 S W T1"}, legend={"W": "Wheat"}, farm_size=7, picks={0: "Melon Patch"}, decision=("act", 0)
    )
    cells = melon_cells(game)
    assert (2, 6) in cells and (2, 3) not in cells  # (2,3) touches only the empty tower's range
    act(game, "build", cell(game, 2, 6))
    assert legal_kinds(game) == {"pay_water": [cell(game, 3, 6)]}


def test_FOG_WATER_1_harvest_water_only_from_towers_in_range(scen):
    """FOG-WATER-1 (harvest cost): water comes from towers in range of the location."""
    game = scen(farms={0: "T1 S S W\n. . . T1"}, legend={"W": "Wheat"}, farm_size=7, year=4, decision=("harvest", 0))
    wheat = cell(game, 3, 6)
    act(game, "harvest", wheat)
    assert legal_kinds(game) == {"pay_water": [cell(game, 4, 6)]}  # (3,3) is 3 steps away


def test_FOG_WATER_2_distance_two_in_three_out(scen):
    """FOG-WATER-2: a tower is in range at distance <= 2, not at 3."""
    game = scen(farms={0: "T1 W W"}, legend={"W": "Wheat"}, farm_size=7, picks={0: "Melon Patch"}, decision=("act", 0))
    cells = melon_cells(game)
    assert (3, 2) in cells and (2, 4) in cells and (4, 4) in cells  # distance 1, 2, 2
    assert (3, 6) not in cells and (2, 5) not in cells and (4, 5) not in cells  # distance 3


def test_FOG_WATER_3_cells_between_must_hold_cards(scen):
    """FOG-WATER-3: the path may not cross an empty cell: straight two steps over an empty cell is out
    of range, two steps over a card is in range."""
    game = scen(farms={0: LINE_FARM}, legend={"W": "Wheat"}, picks={0: "Melon Patch"}, decision=("act", 0))
    cells = melon_cells(game)
    assert (2, 2) in cells and (4, 1) in cells  # adjacent; straight over the Wheat at (3,1)
    assert (2, 3) not in cells  # straight over the empty (2,2)
    assert (4, 2) not in cells and (2, 4) not in cells


@pytest.mark.parametrize("middle", ["W", "(W)", "T0", "S"])
def test_FOG_WATER_3_and_RUL_5_any_card_carries_the_path(scen, middle):
    """FOG-WATER-3 / FOG-RUL-5: the cell between may hold a face-up location, a fallow card, a tower or a
    silo."""
    game = scen(farms={0: f"T1 {middle}"}, legend={"W": "Wheat"}, picks={0: "Melon Patch"}, decision=("act", 0))
    assert (2, 4) in melon_cells(game)
    act(game, "build", cell(game, 2, 4))
    assert legal_kinds(game) == {"pay_water": [cell(game, 2, 2)]}


def test_FOG_WATER_4_diagonal_range_needs_a_corner_card(scen):
    """FOG-WATER-4: a diagonal cell is in range only if a cell adjacent to both holds a card: (1,3) is
    diagonal to the tower with both corners empty, so a Melon Patch cannot be built there, while (1,2)
    and (2,3) right next to it can."""
    game = scen(
        farms={0: NO_CORNER_FARM}, legend={"X": "Plain Building"}, picks={0: "Melon Patch"}, decision=("act", 0)
    )
    farm = game.farms[0]
    assert cell(game, 1, 3) in farm.frontier
    cells = melon_cells(game)
    assert (1, 2) in cells and (2, 3) in cells and (1, 3) not in cells
    assert (3, 1) in cells  # diagonal with the corner (3,2) occupied
    corner = scen(farms={0: "T1 S"}, picks={0: "Melon Patch"}, decision=("act", 0))
    assert (1, 3) in melon_cells(corner) and (3, 3) in melon_cells(corner)  # corner (2,3) is the silo


def test_FOG_WATER_4_equals_the_path_definition_on_random_farms():
    """FOG-WATER-4 is equivalent to FOG-WATER-3: on random connected farms the engine's range test
    agrees with a shortest-path search for every tower and cell."""
    rng = random.Random(4)
    g = geometry(7)
    for _ in range(60):
        farm = Farm(g, [])
        farm.place(g.cell(3, 3), TOWER)
        farm.tower_water[g.cell(3, 3)] = 1
        for _ in range(rng.randrange(1, 14)):
            c = rng.choice(sorted(farm.frontier))
            if rng.random() < 0.3:
                farm.place(c, TOWER)
                farm.tower_water[c] = 1
            else:
                farm.place(c, -3)
        for t in farm.tower_water:
            for c in range(g.cells):
                if c != t:
                    assert farm.tower_in_range(t, c) == in_range(farm, t, c), (g.row_col(t), g.row_col(c))


def test_FOG_WATER_5_target_empty_or_holding_the_location(scen):
    """FOG-WATER-5: when building, the target cell is empty; when harvesting, it holds the location."""
    game = scen(farms={0: "T1 S"}, picks={0: "Melon Patch"}, decision=("act", 0))
    assert game.farms[0].grid[cell(game, 1, 2)] == EMPTY and (1, 2) in melon_cells(game)
    game = scen(farms={0: "T1 W"}, legend={"W": "Wheat"}, year=4, decision=("harvest", 0))
    assert is_legal(game, "harvest", cell(game, 2, 3))


SPLIT_FARM = """
. . . . . . .
. . . . . . .
. . . . W T1 .
. . . T1 S . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_FOG_WATER_6_and_RUL_6_cost_split_over_towers(scen):
    """FOG-WATER-6 / FOG-RUL-6: a water cost may be split over several towers in range."""
    game = scen(farms={0: SPLIT_FARM}, legend={"W": "Wheat"}, farm_size=7, picks={0: "Rice Paddy"}, decision=("act", 0))
    near, far = cell(game, 3, 3), cell(game, 2, 5)
    target = cell(game, 2, 3)
    assert is_legal(game, "build", target)  # 1 + 1 water from two towers
    act(game, "build", target)
    assert legal_kinds(game) == {"pay_water": sorted([near, far])}
    act(game, "pay_water", far)
    assert legal_kinds(game) == {"pay_water": [near]}
    act(game, "pay_water", near)
    assert game.farms[0].water == 0


def test_FOG_RUL_6_no_nearest_tower_requirement(scen):
    """FOG-RUL-6: the player may pay from a farther tower in range although a nearer one has water."""
    game = scen(
        farms={0: SPLIT_FARM}, legend={"W": "Wheat"}, farm_size=7, picks={0: "Melon Patch"}, decision=("act", 0)
    )
    act(game, "build", cell(game, 2, 3))
    act(game, "pay_water", cell(game, 2, 5))  # distance 2; the tower at distance 1 keeps its water
    assert game.farms[0].tower_water == {cell(game, 3, 3): 1, cell(game, 2, 5): 0}


def test_FOG_WATER_7_gained_water_to_any_tower(scen):
    """FOG-WATER-7: range applies only to paying; gained water may go to any tower with room."""
    game = scen(farms={0: "T0 S W T0"}, legend={"W": "Wheat"}, farm_size=7, picks={0: "Well"}, decision=("act", 0))
    act(game, "build", cell(game, 4, 3))  # Well far from the tower at (3,6)
    far = cell(game, 3, 6)
    assert not game.farms[0].tower_in_range(far, cell(game, 4, 3))
    assert far in legal_kinds(game)["store_water"]
    act(game, "store_water", far)
    act(game, "store_water", far)
    assert game.farms[0].tower_water[far] == 2


def test_FOG_RUL_5_distance_counting():
    """FOG-RUL-5: the tower counts 0, each step 1 (the target too): along a line of cards the cells at
    distance 1 and 2 are in range, 3 is not; an empty cell is never crossed."""
    g = geometry(9)
    farm = Farm(g, [])
    farm.place(g.cell(4, 1), TOWER)
    for col in range(2, 8):
        farm.place(g.cell(4, col), -3)
    t = g.cell(4, 1)
    assert [farm.tower_in_range(t, g.cell(4, col)) for col in range(2, 6)] == [True, True, False, False]
    assert [bfs_distance(farm, t, g.cell(4, col)) for col in range(2, 6)] == [1, 2, 3, 4]
    assert farm.tower_in_range(t, g.cell(3, 2)) and not farm.tower_in_range(t, g.cell(2, 1))
