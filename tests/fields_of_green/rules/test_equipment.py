"""Rule tests: Equipment (spec section 11, rulings FOG-RUL-2, -17..-20, -27)."""

from __future__ import annotations

import random

import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.scenario import scenario

from .conftest import act, assert_rejected, cell, legal_kinds

FARM = """
. . . . .
. . M . .
. W T S C
. . B . .
. . . . .
"""  # W Wheat (cereal, harvest), M Melon Patch (fruit, no ability), B Wild Berries (fruit, harvest), C Cows
LEGEND = {"W": "Wheat", "M": "Melon Patch", "B": "Wild Berries", "C": "Cows"}


def names(game: Game, tiles) -> list[str]:
    return [game.cards.equipment[t].name for t in tiles]


def gain_tile(scen, tile: str, **kwargs) -> Game:
    """Player 0 builds a Toolshed at (1,3) with ``tile`` on top of the Equipment stack, keeps that tile
    and returns the game at the place_equipment decision."""
    kwargs.setdefault("farms", {0: FARM})
    kwargs.setdefault("legend", LEGEND)
    game = scen(picks={0: "Toolshed"}, stack_top=[tile], decision=("act", 0), **kwargs)
    act(game, "build", cell(game, 1, 3))
    assert game.decision_kind == "keep_equipment" and names(game, game.decision[2])[0] == tile
    act(game, "keep_equipment", 0)
    assert game.decision_kind == "place_equipment"
    return game


def place_cells(game: Game) -> set[tuple[int, int]]:
    return {game.geometry.row_col(c) for c in legal_kinds(game).get("place_equipment", [])}


def test_FOG_EQUIP_1_equipment_only_through_effects(scen):
    """FOG-EQUIP-1: no action draws equipment by itself; only an effect (here a Toolshed) does."""
    game = scen(picks={0: "Wheat", 1: "Toolshed"}, decision=[("act", 0), ("act", 1)])
    stack = list(game.equipment_stack)
    act(game, "build", cell(game, 1, 2))
    assert game.equipment_stack == stack and game.decision == ("act", 1)
    act(game, "build", cell(game, 1, 2))
    assert game.decision_kind == "keep_equipment"


def test_FOG_EQUIP_2_and_RUL_19_draw_top_three(scen):
    """FOG-EQUIP-2 / FOG-RUL-19: gaining equipment draws the top 3 tiles of the stack."""
    game = scen(picks={0: "Toolshed"}, stack_top=["Drill", "Ladder", "Hose"], decision=("act", 0))
    size = len(game.equipment_stack)
    act(game, "build", cell(game, 1, 2))
    assert names(game, game.decision[2]) == ["Hose", "Ladder", "Drill"]  # top first
    assert len(game.equipment_stack) == size - 3
    assert legal_kinds(game) == {"keep_equipment": [0, 1, 2]}


def test_FOG_EQUIP_3_and_RUL_19_keep_one_rest_to_the_bottom(scen):
    """FOG-EQUIP-3 / FOG-RUL-19: keep exactly 1; the other 2 go to the bottom of the stack, in the order
    they were drawn (they come up again in that order)."""
    game = scen(picks={0: "Toolshed"}, stack_top=["Drill", "Ladder", "Hose"], decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    hose, ladder, drill = game.decision[2]
    act(game, "keep_equipment", 1)
    assert game.decision == ("place_equipment", 0, ladder)
    assert game.equipment_stack[:2] == [drill, hose]  # index 0 = bottom; drawn later = deeper
    assert ladder not in game.equipment_stack


def test_FOG_RUL_19_short_or_empty_stack(make_set):
    """FOG-RUL-19: fewer than 3 tiles -> draw them all; an empty stack gives nothing; no refusal."""
    shed = {"Construction": [{"name": "Toolshed", "ability": {"kind": "immediate", "effect": [{"gain_equipment": 1}]}}]}
    tiles = [
        {"name": "Hose", "host": "Field", "timing": "on_place", "effect": [{"gain": {"coins": 1}}]},
        {"name": "Vane", "host": "Building", "timing": "end_game", "effect": [{"gain": {"vp": 2}}]},
    ]
    path = make_set(locations=shed, equipment=tiles)
    game = scenario(num_players=3, card_set=path, farm_size=5, picks={0: "Toolshed"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert len(game.decision[2]) == 2 and game.equipment_stack == []
    assert legal_kinds(game) == {"keep_equipment": [0, 1]}  # keeping one is compulsory
    act(game, "keep_equipment", 0)
    assert len(game.equipment_stack) == 1
    empty = make_set(locations=shed)
    game = scenario(num_players=3, card_set=empty, farm_size=5, picks={0: "Toolshed"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.is_terminal()  # nothing drawn, nothing to decide


def test_FOG_EQUIP_4_only_on_face_up_location_of_the_named_type(scen):
    """FOG-EQUIP-4: a tile goes only on a face-up location of its type (Trough: Livestock - harvest)."""
    game = gain_tile(scen, "Trough")
    assert place_cells(game) == {(2, 4)}  # the Cows only
    game = gain_tile(scen, "Trough", farms={0: FARM.replace("C", "(C)")})
    assert place_cells(game) == set()  # a fallow Cows is no Livestock
    assert legal_kinds(game) == {"set_aside": [0]}


def test_FOG_EQUIP_5_keyword_must_match(scen):
    """FOG-EQUIP-5: a keyword narrows the host: Hose (Field - harvest) not on the ability-less Melon;
    Drill (Field - cereal) only on the cereal Wheat; Ladder (Field - fruit) on fruit only."""
    assert place_cells(gain_tile(scen, "Hose")) == {(2, 1), (3, 2)}
    assert place_cells(gain_tile(scen, "Drill")) == {(2, 1)}
    assert place_cells(gain_tile(scen, "Ladder")) == {(1, 2), (3, 2)}


def test_FOG_EQUIP_6_and_RUL_20_typed_tiles_not_on_towers_or_silos(scen):
    """FOG-EQUIP-6 / FOG-RUL-20: towers and silos take only WaterTower / Silo tiles."""
    assert (2, 2) not in place_cells(gain_tile(scen, "Hose")) and (2, 3) not in place_cells(gain_tile(scen, "Hose"))
    assert place_cells(gain_tile(scen, "Valve")) == {(2, 2)}
    assert place_cells(gain_tile(scen, "Bin")) == {(2, 3)}


def test_FOG_EQUIP_7_kept_tile_placed_at_once(scen):
    """FOG-EQUIP-7: the kept tile may go at once on any matching location (its on-place effect applies)."""
    game = gain_tile(scen, "Drill", coins={0: 5})
    wheat = cell(game, 2, 1)
    act(game, "place_equipment", wheat)
    assert names(game, game.farms[0].equipment[wheat]) == ["Drill"]
    assert game.farms[0].coins == 5 - 1 + 2


def test_FOG_RUL_17_tile_gained_by_immediate_may_go_on_the_new_location(scen):
    """FOG-RUL-17: equipment gained by a build's Immediate ability may go on that new location."""
    game = gain_tile(scen, "Crate", coins={0: 5})
    shed = cell(game, 1, 3)
    assert place_cells(game) == {(1, 3)}
    act(game, "place_equipment", shed)
    assert names(game, game.farms[0].equipment[shed]) == ["Crate"] and game.farms[0].coins == 5


def test_FOG_EQUIP_8_set_aside(scen):
    """FOG-EQUIP-8: a tile that cannot or will not be placed is set aside next to the farm."""
    game = gain_tile(scen, "Vane")  # no Building on the farm
    assert legal_kinds(game) == {"set_aside": [0]}
    tile = game.decision[2]
    act(game, "set_aside")
    assert game.farms[0].set_aside == [tile]
    game = gain_tile(scen, "Drill")  # could be placed, the player prefers not to
    act(game, "set_aside")
    assert names(game, game.farms[0].set_aside) == ["Drill"] and game.farms[0].equipment == {}


def test_FOG_EQUIP_9_and_RUL_27_attach_set_aside_tiles_while_building(scen):
    """FOG-EQUIP-9 / FOG-RUL-27: set-aside tiles may be attached only while building a location they
    match, several at once up to the cap."""
    game = scen(
        set_aside={0: ["Hose", "Drill", "Scarecrow", "Vane"]}, picks={0: "Wheat"}, coins={0: 10}, decision=("act", 0)
    )
    target = cell(game, 1, 2)
    act(game, "build", target)
    assert game.decision_kind == "attach"
    assert names(game, [game.farms[0].set_aside[i] for i in legal_kinds(game)["attach"]]) == [
        "Hose",
        "Drill",
        "Scarecrow",
    ]
    act(game, "attach", 1)  # Drill: +2 coins when placed
    assert game.farms[0].coins == 9 + 2
    act(game, "attach", 0)  # Hose
    assert game.is_terminal()  # cap of 2 reached: no more attach decision
    assert sorted(names(game, game.farms[0].equipment[target])) == ["Drill", "Hose"]
    assert sorted(names(game, game.farms[0].set_aside)) == ["Scarecrow", "Vane"]


def test_FOG_EQUIP_9_no_attach_at_other_times(scen):
    """FOG-EQUIP-9: not when building a non-matching location, not at Market, never otherwise."""
    game = scen(
        set_aside={0: ["Hose"], 1: ["Hose"]}, picks={0: "Chapel", 1: "Wheat"}, decision=[("act", 0), ("act", 1)]
    )
    act(game, "build", cell(game, 1, 2))
    assert game.decision == ("act", 1)  # Chapel is no Field: no attach decision
    act(game, "market", 0)
    assert game.is_terminal()
    assert all(len(f.set_aside) == 1 for f in game.farms[:2])
    game = scen(set_aside={0: ["Hose"]}, picks={0: "Wheat"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert legal_kinds(game) == {"attach": [0], "attach_done": [0]}
    act(game, "attach_done")
    assert game.is_terminal() and len(game.farms[0].set_aside) == 1


def test_FOG_EQUIP_10_and_RUL_2_at_most_two_different_tiles(scen):
    """FOG-EQUIP-10 / FOG-RUL-2: at most 2 tiles per location, and never two of the same name."""
    game = gain_tile(scen, "Hose", equipment={0: {(2, 1): ["Hose"]}})
    assert (2, 1) not in place_cells(game)  # a second Hose: same name
    assert_rejected(game, "place_equipment", cell(game, 2, 1))
    game = gain_tile(scen, "Scarecrow", equipment={0: {(2, 1): ["Hose"]}})
    assert (2, 1) in place_cells(game)
    game = gain_tile(scen, "Scarecrow", equipment={0: {(2, 1): ["Hose", "Drill"]}})
    assert (2, 1) not in place_cells(game)  # full
    with pytest.raises(ValueError):
        scen(farms={0: FARM}, legend=LEGEND, equipment={0: {(2, 1): ["Hose", "Hose"]}}, decision=[])


def test_FOG_EQUIP_10_attach_offers_one_tile_per_name(scen):
    """FOG-EQUIP-10: with two Hoses set aside only one can be attached to the new Field."""
    game = scen(set_aside={0: ["Hose", "Hose"]}, picks={0: "Wheat"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert legal_kinds(game) == {"attach": [0], "attach_done": [0]}
    act(game, "attach", 0)
    assert game.is_terminal() and names(game, game.farms[0].set_aside) == ["Hose"]


def test_FOG_EQUIP_11_placed_tiles_never_move():
    """FOG-EQUIP-11: a placed tile stays on its location until it is discarded (FOG-EQUIP-13)."""
    where: dict[int, tuple[int, int]] = {}
    for seed in range(6):
        game = Game(num_players=4, seed=seed)
        rng = random.Random(seed)
        where.clear()
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
            now = {t: (p, c) for p, f in enumerate(game.farms) for c, ts in f.equipment.items() for t in ts}
            for t, loc in where.items():
                assert now.get(t, loc) == loc
                if t not in now:
                    assert t in game.removed_equipment
            where.update(now)


def test_FOG_EQUIP_12_timings(scen):
    """FOG-EQUIP-12: on_place acts once when placed; permanent while it lies there (Hose: harvest cost
    1 water less; Valve: tower capacity +2); harvest acts when the host harvests (Scarecrow)."""
    game = scen(
        farms={0: FARM},
        legend=LEGEND,
        equipment={0: {(2, 1): ["Hose", "Scarecrow"]}},
        food={0: 0},
        year=4,
        decision=("harvest", 0),
    )
    wheat = cell(game, 2, 1)
    assert game.harvest_cost(0, wheat) == (0, 0, 0)
    act(game, "harvest", wheat)
    assert game.farms[0].food == 3 and game.farms[0].water == 3  # 2 + Scarecrow 1, no water paid
    game = gain_tile(scen, "Valve")
    act(game, "place_equipment", cell(game, 2, 2))
    assert game.farms[0].tower_capacity[cell(game, 2, 2)] == 5
    game = gain_tile(scen, "Drill", coins={0: 5})
    act(game, "place_equipment", cell(game, 2, 1))
    assert game.farms[0].coins == 6
    game2 = scen(
        farms={0: FARM},
        legend=LEGEND,
        equipment={0: {(2, 1): ["Drill"]}},
        coins={0: 6},
        year=4,
        decision=("harvest", 0),
    )
    act(game2, "harvest", cell(game2, 2, 1))
    act(game2, "pay_water", cell(game2, 2, 2))
    assert game2.farms[0].coins == 6  # on_place does not repeat


def test_FOG_EQUIP_13_and_RUL_19_fallow_removes_tiles_from_the_game(scen):
    """FOG-EQUIP-13 / FOG-RUL-19: tiles of a location that turns fallow leave the game (not to the
    stack, not returned when restored)."""
    game = scen(
        farms={0: FARM},
        legend=LEGEND,
        equipment={0: {(2, 1): ["Drill"]}},
        picks={0: "Pigs"},
        year=4,
        decision=[("harvest", 0), ("act", 0)],
    )
    drill = game.farms[0].equipment[cell(game, 2, 1)][0]
    stack = list(game.equipment_stack)
    act(game, "harvest_end")
    assert game.removed_equipment == [drill] and game.equipment_stack == stack
    act(game, "restore", cell(game, 2, 1))
    assert game.farms[0].equipment == {} and drill not in game.equipment_stack


def test_FOG_EQUIP_14_set_aside_tile_worth_1_vp(scen):
    """FOG-EQUIP-14: each set-aside tile scores 1 VP."""
    game = scen(set_aside={0: ["Hose", "Drill", "Vane"]}, decision=[])
    assert game.scores()[0].equipment == 3


def test_FOG_EQUIP_15_end_game_equipment_scores(scen):
    """FOG-EQUIP-15: equipment with an End-game ability scores at the end (Ladder 2, Vane 2)."""
    game = scen(farms={0: FARM}, legend=LEGEND, equipment={0: {(1, 2): ["Ladder"]}}, decision=[])
    assert game.scores()[0].equipment == 2
    game = scen(
        farms={0: "H T S"},
        legend={"H": "Chapel"},
        equipment={0: {(2, 1): ["Vane"]}},
        set_aside={0: ["Ladder"]},
        decision=[],
    )
    assert game.scores()[0].equipment == 3


def test_FOG_RUL_18_tile_from_harvest_adds_to_a_later_harvest_in_the_phase(scen):
    """FOG-RUL-18: a harvest-timed tile gained during the harvest works for a location harvested later
    in the same phase (Scarecrow from the Hens onto the still unharvested Wheat)."""
    game = scen(
        farms={0: "W T S H"},
        legend={"W": "Wheat", "H": "Hens"},
        food={0: 1},
        year=4,
        stack_top=["Scarecrow"],
        decision=("harvest", 0),
    )
    wheat = cell(game, 2, 1)
    act(game, "harvest", cell(game, 2, 4))
    act(game, "keep_equipment", 0)
    act(game, "place_equipment", wheat)
    act(game, "harvest", wheat)
    act(game, "pay_water", cell(game, 2, 2))
    assert game.farms[0].food == 3  # 1 - 1 (Hens) + 2 (Wheat) + 1 (Scarecrow)


def test_FOG_RUL_20_tower_build_attaches_tower_tiles(scen):
    """FOG-RUL-20: building a Water Tower counts as building a location for WaterTower tiles."""
    game = scen(set_aside={0: ["Valve", "Bin", "Hose"]}, picks={0: "Statue"}, decision=("act", 0))
    act(game, "tower", cell(game, 1, 2))
    farm = game.farms[0]
    assert names(game, [farm.set_aside[i] for i in legal_kinds(game)["attach"]]) == ["Valve"]
    act(game, "attach", legal_kinds(game)["attach"][0])
    assert farm.tower_capacity[cell(game, 1, 2)] == 5 and farm.tower_water[cell(game, 1, 2)] == 3
    game = scen(set_aside={0: ["Valve", "Bin"]}, picks={0: "Statue"}, decision=("act", 0))
    act(game, "silo", cell(game, 1, 2))
    assert names(game, [game.farms[0].set_aside[i] for i in legal_kinds(game)["attach"]]) == ["Bin"]
