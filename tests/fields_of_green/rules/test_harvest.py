"""Rule tests: the Harvest phase (spec section 10, rulings FOG-RUL-18, -23..-26)."""

from __future__ import annotations

from .conftest import act, cell, is_legal, legal_kinds

HARVEST_KINDS = {"harvest", "harvest_end"}


def test_FOG_HARVEST_1_every_face_up_harvest_location_incl_new_ones(scen):
    """FOG-HARVEST-1: every face-up location with a Harvest ability is resolved, including one built
    this year."""
    game = scen(
        farms={0: "W T S"},
        legend={"W": "Wheat"},
        picks={0: "Pigs"},
        year=4,
        food={0: 2},
        decision=[("act", 0), ("harvest_phase",)],
    )
    act(game, "build", cell(game, 1, 2))
    assert game.decision == ("harvest", 0)
    assert legal_kinds(game)["harvest"] == sorted([cell(game, 2, 1), cell(game, 1, 2)])


def test_FOG_HARVEST_2_and_RUL_25_pay_whole_cost_then_apply(scen):
    """FOG-HARVEST-2 / FOG-RUL-25: the whole harvest cost is paid, then the effect applies; a cost that
    can be paid only in part cannot be paid at all."""
    game = scen(farms={0: "P T S"}, legend={"P": "Pigs"}, coins={0: 3}, food={0: 1}, year=4, decision=("harvest", 0))
    act(game, "harvest", cell(game, 2, 1))  # 1 coin + 1 food -> 1 VP token
    farm = game.farms[0]
    assert (farm.coins, farm.food, farm.vp_tokens) == (2, 0, 1)
    partial = scen(farms={0: "P T S"}, legend={"P": "Pigs"}, coins={0: 3}, food={0: 0}, year=4, decision=("harvest", 0))
    assert legal_kinds(partial) == {"harvest_end": [0]}


def test_FOG_HARVEST_3_player_orders_each_used_once(scen):
    """FOG-HARVEST-3: the player chooses the order; each ability is used at most once."""
    game = scen(farms={0: "W T S C"}, legend={"W": "Wheat", "C": "Cows"}, food={0: 1}, year=4, decision=("harvest", 0))
    wheat, cows = cell(game, 2, 1), cell(game, 2, 4)
    assert legal_kinds(game)["harvest"] == sorted([wheat, cows])
    act(game, "harvest", cows)  # any order: Cows first
    assert legal_kinds(game) == {"harvest": [wheat], "harvest_end": [0]}
    act(game, "harvest", wheat)
    act(game, "pay_water", cell(game, 2, 2))
    assert game.is_terminal()  # nothing left to use: the harvest closes
    assert game.farms[0].coins == 18 and game.farms[0].food == 2


def test_FOG_HARVEST_4_paying_is_optional(scen):
    """FOG-HARVEST-4: a payable harvest cost may be left unpaid (end the harvest at once)."""
    game = scen(farms={0: "W T S"}, legend={"W": "Wheat"}, year=4, decision=("harvest", 0))
    assert is_legal(game, "harvest", cell(game, 2, 1)) and is_legal(game, "harvest_end")
    act(game, "harvest_end")
    assert game.farms[0].water == 3


def test_FOG_HARVEST_5_and_RUL_24_unpaid_locations_turn_fallow_together(scen):
    """FOG-HARVEST-5 / FOG-RUL-24: unpaid harvest locations (cannot or will not) turn fallow together
    when the player ends the harvest, not before."""
    game = scen(
        farms={0: "W T S C\n. . . P"},
        legend={"W": "Wheat", "C": "Cows", "P": "Pigs"},
        food={0: 1},
        coins={0: 0},
        year=4,
        decision=("harvest", 0),
    )
    wheat, cows, pigs = cell(game, 2, 1), cell(game, 2, 4), cell(game, 3, 4)
    act(game, "harvest", cows)
    farm = game.farms[0]
    assert farm.fallow == set()  # Pigs cannot be paid any more (no food, no coin ... ) but not yet fallow
    assert not is_legal(game, "harvest", pigs)
    act(game, "harvest_end")  # Wheat: will not pay; Pigs: cannot pay
    assert farm.fallow == {wheat, pigs}


def test_FOG_HARVEST_6_water_from_towers_in_range(scen):
    """FOG-HARVEST-6: harvest water comes from towers in range of the location; water only out of
    range does not make it payable (and the location turns fallow)."""
    game = scen(farms={0: "T3 S S W"}, legend={"W": "Wheat"}, farm_size=7, year=4, decision=("harvest", 0))
    assert legal_kinds(game) == {"harvest_end": [0]}
    act(game, "harvest_end")
    assert game.farms[0].fallow == {cell(game, 3, 6)} and game.farms[0].water == 3


def test_FOG_HARVEST_7_food_from_any_silo(scen):
    """FOG-HARVEST-7: harvest food may come from any silo, however far."""
    game = scen(
        farms={0: "S T W W C"},
        legend={"W": "Wheat", "C": "Cows"},
        farm_size=7,
        food={0: 1},
        year=4,
        decision=("harvest", 0),
    )
    cows = cell(game, 3, 6)
    act(game, "harvest", cows)
    assert game.farms[0].food == 0 and game.farms[0].coins == 18


def test_FOG_HARVEST_8_paid_resources_free_space_at_once(scen):
    """FOG-HARVEST-8: paid resources leave at once: the tower paid for Wheat has room for new water in
    the same harvest (Well-like gain), the silo room is free for produced food."""
    game = scen(farms={0: "C T S"}, legend={"C": "Cows"}, food={0: 4}, year=4, decision=("harvest", 0))
    act(game, "harvest", cell(game, 2, 1))
    assert game.farms[0].food == 3  # the paid food left the silo immediately
    game = scen(
        farms={0: "C T S\n. W ."}, legend={"C": "Cows", "W": "Wheat"}, food={0: 4}, year=4, decision=("harvest", 0)
    )
    act(game, "harvest", cell(game, 2, 1))  # Cows eat 1: room for 1
    act(game, "harvest", cell(game, 3, 2))  # Wheat +2 food: 1 stored
    act(game, "pay_water", cell(game, 2, 2))
    assert game.farms[0].food == 4


def test_FOG_HARVEST_9_order_matters_for_food_overflow(scen):
    """FOG-HARVEST-9: food produced is stored at once and overflow is lost; spending stored food first
    keeps more."""
    picture = "C T S\n. W ."
    results = []
    for first in ("cows", "wheat"):
        game = scen(
            farms={0: picture}, legend={"C": "Cows", "W": "Wheat"}, food={0: 3}, year=4, decision=("harvest", 0)
        )
        cows, wheat = cell(game, 2, 1), cell(game, 3, 2)
        order = [cows, wheat] if first == "cows" else [wheat, cows]
        for c in order:
            act(game, "harvest", c)
            if game.decision_kind == "pay_water":
                act(game, "pay_water", cell(game, 2, 2))
        results.append(game.farms[0].food)
    assert results == [4, 3]  # cows first: 3-1+2=4; wheat first: min(4, 5)=4, then -1 = 3


def test_FOG_HARVEST_10_and_RUL_18_equipment_gained_in_harvest_used_at_once(scen):
    """FOG-HARVEST-10 / FOG-RUL-18: equipment gained during the harvest may be used in the same harvest:
    Hens bring a Hose, placed on the waterless Wheat, whose cost drops to nothing."""
    game = scen(
        farms={0: "W T0 S H"},
        legend={"W": "Wheat", "H": "Hens"},
        food={0: 1},
        year=4,
        stack_top=["Hose"],
        decision=("harvest", 0),
    )
    wheat, hens = cell(game, 2, 1), cell(game, 2, 4)
    assert legal_kinds(game) == {"harvest": [hens], "harvest_end": [0]}
    act(game, "harvest", hens)
    assert game.decision_kind == "keep_equipment"
    act(game, "keep_equipment", 0)  # the Hose (top tile) comes first in the draw
    assert game.cards.equipment[game.decision[2]].name == "Hose"
    act(game, "place_equipment", wheat)
    assert game.harvest_cost(0, wheat) == (0, 0, 0)
    act(game, "harvest", wheat)
    assert game.farms[0].food == 2 and game.farms[0].fallow == set()


def test_FOG_HARVEST_11_markers_removed_abilities_unused_again(scen):
    """FOG-HARVEST-11: at the end of the harvest the paid markers are gone and each ability is unused."""
    game = scen(farms={0: "W T S"}, legend={"W": "Wheat"}, year=2, decision=[("harvest", 0), ("harvest", 0)])
    wheat = cell(game, 2, 1)
    act(game, "harvest", wheat)
    act(game, "pay_water", cell(game, 2, 2))
    assert game.decision == ("harvest", 0) and game.harvested == set()  # the next harvest phase
    assert is_legal(game, "harvest", wheat)


def test_FOG_HARVEST_12_first_player_tile_passes_left(scen):
    """FOG-HARVEST-12: after the harvest the First Player tile goes to the left neighbour (seat + 1)."""
    for first in (0, 2):
        game = scen(first_player=first, year=1, decision=[("harvest_phase",)])
        assert game.year == 2 and game.first_player == (first + 1) % 3
        assert game.decision == ("split", (first + 1) % 3)


def test_FOG_HARVEST_13_fallow_cards_skipped(scen):
    """FOG-HARVEST-13: fallow cards take no part in the harvest."""
    game = scen(farms={0: "(W) T S W"}, legend={"W": "Wheat"}, year=4, decision=("harvest", 0))
    assert legal_kinds(game) == {"harvest": [cell(game, 2, 4)], "harvest_end": [0]}


def test_FOG_HARVEST_14_fallow_discards_equipment(scen):
    """FOG-HARVEST-14: a location turning fallow loses all its equipment."""
    game = scen(
        farms={0: "W T S"},
        legend={"W": "Wheat"},
        equipment={0: {(2, 1): ["Scarecrow", "Drill"]}},
        year=4,
        decision=("harvest", 0),
    )
    tiles = list(game.farms[0].equipment[cell(game, 2, 1)])
    act(game, "harvest_end")
    assert game.farms[0].equipment == {} and sorted(game.removed_equipment) == sorted(tiles)


def test_FOG_HARVEST_15_no_actions_during_harvest(scen):
    """FOG-HARVEST-15: during the Harvest phase only harvest decisions exist (no actions A-E)."""
    game = scen(farms={0: "W T S C"}, legend={"W": "Wheat", "C": "Cows"}, year=4, decision=("harvest", 0))
    assert set(legal_kinds(game)) <= HARVEST_KINDS
    for kind in ("build", "tower", "silo", "market", "restore"):
        assert not any(game.layout.decode(a)[0] == kind for a in game.legal_actions())


def test_FOG_HARVEST_16_and_RUL_26_independent_harvests_in_seat_order(scen):
    """FOG-HARVEST-16 / FOG-RUL-26: each player's whole harvest runs in seat order from the first
    player; one player's choices do not change another's options."""
    farms = {p: "W T S" for p in range(3)}
    game = scen(farms=farms, legend={"W": "Wheat"}, first_player=1, year=4, decision=[("harvest_phase",)])
    order = []
    while not game.is_terminal():
        p = game.current_player
        if not order or order[-1] != p:
            order.append(p)
        options = legal_kinds(game)
        if game.decision_kind == "harvest":
            assert options == {"harvest": [cell(game, 2, 1)], "harvest_end": [0]}
        if p == 2:
            act(game, "harvest_end")  # player 2 lets the Wheat go fallow ...
        else:
            game.apply(game.legal_actions()[0])
    assert order == [1, 2, 0]
    assert [bool(f.fallow) for f in game.farms] == [False, False, True]


def test_FOG_RUL_23_free_harvest_ability_applies_automatically(scen):
    """FOG-RUL-23: a harvest ability with no cost applies automatically and never causes fallow."""
    game = scen(farms={0: "B T S"}, legend={"B": "Wild Berries"}, coins={0: 0}, year=4, decision=("harvest", 0))
    assert is_legal(game, "harvest", cell(game, 2, 1))
    act(game, "harvest_end")
    assert game.farms[0].coins == 1 and game.farms[0].fallow == set()


def test_FOG_RUL_24_fallow_only_when_the_harvest_ends(scen):
    """FOG-RUL-24: unpaid locations stay face up while the player is still harvesting."""
    game = scen(farms={0: "W T S C"}, legend={"W": "Wheat", "C": "Cows"}, food={0: 1}, year=4, decision=("harvest", 0))
    act(game, "harvest", cell(game, 2, 4))
    assert game.farms[0].fallow == set() and game.decision == ("harvest", 0)
    act(game, "harvest_end")
    assert game.farms[0].fallow == {cell(game, 2, 1)}


def test_FOG_RUL_25_each_ability_once_per_harvest(scen):
    """FOG-RUL-25: a used ability is not offered again in the same harvest, even if payable."""
    game = scen(farms={0: "C T S\n. C ."}, legend={"C": "Cows"}, food={0: 4}, year=4, decision=("harvest", 0))
    a, b = cell(game, 2, 1), cell(game, 3, 2)
    act(game, "harvest", a)
    assert legal_kinds(game) == {"harvest": [b], "harvest_end": [0]}
    act(game, "harvest_end")
    assert game.farms[0].coins == 18 and game.farms[0].fallow == {b}
