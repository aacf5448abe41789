"""Action (a) harvest: KH-ACT-HARVEST-1, KH-ACT-HARVEST-2, KH-ACT-HARVEST-3, KH-ACT-HARVEST-4, KH-ACT-HARVEST-5,
KH-ACT-HARVEST-6, KH-ACT-HARVEST-7, KH-ACT-HARVEST-8, KH-ACT-HARVEST-9, KH-ACT-HARVEST-10, KH-ACT-HARVEST-11,
KH-ACT-HARVEST-12, KH-ACT-HARVEST-13, KH-ACT-HARVEST-14, KH-GEN-3."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import CROPS

from .helpers import DONE, C, S, play, scenario

W, H, V, A, N = range(5)


def test_harvest_1_2_4_one_connected_group_through_harvested_tiles():
    """KH-ACT-HARVEST-1, KH-ACT-HARVEST-2, KH-ACT-HARVEST-4: one connected group; harvested tiles link it; any of its
    unharvested tiles, not
    necessarily adjacent to each other."""
    g = scenario(boards={0: "C2 c3 C4 F6"})
    play(g, 1)
    assert set(g.legal_actions()) == {S("C2"), S("C4"), S("F6")}
    play(g, S("C2"))
    assert set(g.legal_actions()) == {DONE, S("C4")}  # linked through the harvested C3; F6 is another group
    play(g, S("C4"))
    assert g.phase == "TURN"
    assert g.supply[0][CROPS.index("wheat")] == 1 and g.supply[0][CROPS.index("vegetables")] == 1


def test_harvest_3_workers_never_connect():
    """KH-ACT-HARVEST-3: a worker between two fields does not connect them."""
    g = scenario(boards={0: "C2 C4"}, workers={0: {"C3": "Apprentice"}})
    play(g, 1, S("C2"))
    assert g.phase == "TURN"  # C4 is not in C2's group


def test_harvest_5_harvested_tile_yields_nothing():
    """KH-ACT-HARVEST-5: a tile lying harvested side up cannot be picked."""
    g = scenario(boards={0: "c2 C3"})
    play(g, 1)
    assert S("C2") not in g.legal_actions() and S("C3") in g.legal_actions()


def test_harvest_6_10_one_counter_of_the_crop_behind_the_screen():
    """KH-ACT-HARVEST-6, KH-ACT-HARVEST-10: each harvested tile gives one counter of its crop from the stock into the
    supply."""
    g = scenario(boards={0: "C2 C3"})
    stock = list(g.stock)
    play(g, 1, S("C3"), DONE)
    assert g.supply[0][H] == 1 and g.stock[H] == stock[H] - 1


def test_harvest_7_8_14_substitute_chosen_and_tile_turned():
    """KH-ACT-HARVEST-7, KH-ACT-HARVEST-8, KH-ACT-HARVEST-14: crop missing from the stock: the player picks a present
    crop (cannot decline);
    the tile is turned anyway."""
    g = scenario(boards={0: "C2 C3"}, supply={1: {"wheat": 12, "hops": 11}})
    play(g, 1, S("C2"))
    assert g.phase == "SUBSTITUTE"
    assert set(g.legal_actions()) == {C("hops"), C("vegetables"), C("cider apples"), C("wine")}
    assert DONE not in g.legal_actions()
    assert not g.unharvested[0] & (1 << 17)  # C2 already turned
    play(g, C("wine"))
    assert g.supply[0][N] == 1 and g.phase == "HARVEST"


def test_harvest_9_empty_stock_turns_and_takes_nothing():
    """KH-ACT-HARVEST-9: with an empty general stock the tile is turned and nothing is taken."""
    full = {c: 12 for c in CROPS}
    g = scenario(boards={0: "C2 C3"}, supply={1: full})
    play(g, 1, S("C2"))
    assert g.phase == "HARVEST" and sum(g.supply[0]) == 0 and not g.unharvested[0] & (1 << 17)


def test_harvest_11_12_stays_harvested():
    """KH-ACT-HARVEST-11, KH-ACT-HARVEST-12: a harvested tile stays harvested in later turns (only Casual/Spring Rain
    turn back)."""
    g = scenario(boards={0: "C2 C3", 1: "F6"})
    play(g, 1, S("C2"), S("C3"), DONE)  # P0 ends
    play(g, DONE)  # P1 passes
    assert 1 not in g.legal_actions()  # nothing unharvested: (a) is not possible


def test_harvest_13_at_least_one_tile():
    """KH-ACT-HARVEST-13: a harvest turns at least one tile: 0 only after the first pick; no (a) without tiles."""
    g = scenario(boards={0: "C2 C3"})
    play(g, 1)
    assert DONE not in g.legal_actions()
    play(g, S("C2"))
    assert DONE in g.legal_actions()
    g = scenario(boards={0: "c2"})
    assert 1 not in g.legal_actions()


def test_gen_3_supply_excludes_bids():
    """KH-GEN-3: counters bid in a store are not part of the supply."""
    g = scenario(supply={0: {"wheat": 2}})
    play(g, 5, 74, C("wheat"), DONE)
    assert g.supply[0][W] == 1 and g.bids[0][0][W] == 1
