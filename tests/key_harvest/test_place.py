"""Action (c), displaced workers and extra actions: KH-ACT-PLACE-1, KH-ACT-PLACE-2, KH-ACT-PLACE-3, KH-ACT-PLACE-4,
KH-ACT-PLACE-5, KH-ACT-PLACE-6, KH-ACT-PLACE-7, KH-ACT-PLACE-8, KH-ACT-PLACE-9, KH-ACT-PLACE-10, KH-ACT-PLACE-11,
KH-RULING-14, KH-RULING-15."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import parse_space

from .helpers import DONE, ST, C, R, S, play, scenario

W, H, V, A, N = range(5)
APPRENTICE, SUPERVISOR = 62, 66
SURVEYOR = 73


def bit(name: str) -> int:
    return 1 << parse_space(name)


def test_place_1_one_or_two_tiles_from_any_stores():
    """KH-ACT-PLACE-1: 1 or 2 tiles from own and other stores, e.g. from two different opponents."""
    g = scenario(
        num_players=3,
        supply={0: {"wheat": 2, "hops": 1}},
        stores={1: [("A1", {"wheat": 1}), None], 2: [("G8", {"hops": 1}), ("G7", {"wheat": 1})]},
    )
    play(g, 4)
    assert set(g.legal_actions()) == {ST(1, 1), ST(2, 1), ST(2, 2)}  # 0 only after the first tile
    play(g, ST(1, 1))
    assert DONE in g.legal_actions()
    play(g, ST(2, 1))
    assert g.fields[0] == bit("A1") | bit("G8") and g.phase == "TURN"


def test_place_2_own_store_bid_returns_to_stock():
    """KH-ACT-PLACE-2: taking an own store tile returns its bid to the general stock."""
    g = scenario(stores={0: [("A1", {"wine": 2}), None]})
    stock = g.stock[N]
    play(g, 4, ST(0, 1))
    assert g.stock[N] == stock + 2 and g.bids[0][0] == [0] * 5 and g.store[0] == [-1, -1]


def test_place_3_4_pay_owner_exactly_owner_takes_both():
    """KH-ACT-PLACE-3, KH-ACT-PLACE-4: pay the owner exactly the bid's crops; the owner takes payment and bid behind
    the screen."""
    g = scenario(supply={0: {"wine": 2, "hops": 1}}, stores={1: [("A1", {"wine": 2}), None]})
    play(g, 4, ST(1, 1))
    assert g.supply[0] == [0, 1, 0, 0, 0] and g.supply[1] == [0, 0, 0, 0, 4]


def test_place_5_unharvested_on_its_coordinate():
    """KH-ACT-PLACE-5, KH-TILE-3: the tile goes on its own coordinate, unharvested side up."""
    g = scenario(stores={0: [("E6", {"wine": 1}), None]})
    play(g, 4, ST(0, 1))
    assert g.fields[0] == bit("E6") == g.unharvested[0]


def test_place_9_exact_payment_or_nothing():
    """KH-ACT-PLACE-9: a tile whose bid cannot be paid exactly may not be taken."""
    g = scenario(boards={0: "G1"}, supply={0: {"wine": 1, "hops": 5}}, stores={1: [("A1", {"wine": 2}), None]})
    assert 4 not in g.legal_actions()


def test_place_6_7_displaced_worker_replaced_with_benefit():
    """KH-ACT-PLACE-6, KH-ACT-PLACE-7, KH-RULING-15: the tile replaces an own worker there; the worker may be
    re-placed at once
    on a legal space and gives its benefit again (not an action)."""
    g = scenario(boards={0: "C2 C3"}, workers={0: {"C4": "Apprentice"}}, stores={0: [("C4", {"wine": 1}), None]})
    play(g, 4, ST(0, 1))
    assert g.phase == "REPLACE" and DONE in g.legal_actions() and S("B2") in g.legal_actions()
    assert g.fields[0] & bit("C4") and g.worker_space[0] == -1
    play(g, S("B2"))
    assert g.phase == "CROP"  # the Apprentice's benefit again
    play(g, C("hops"))
    assert g.supply[0][H] == 1 and g.worker_space[0] == parse_space("B2") and g.actions_taken == 1


def test_place_8_declined_worker_goes_back():
    """KH-ACT-PLACE-8: a displaced worker that is not re-placed returns to its supply (townsfolk to the town)."""
    g = scenario(boards={0: "D3 D4 F3 F4"}, workers={0: {"E4": "Miller"}}, stores={0: [("E4", {"wine": 1}), None]})
    play(g, 4, ST(0, 1))  # no space touches 4 fields now: REPLACE is skipped, the Miller goes back at once
    assert g.town[0] == -1 and g.worker_space[24] == -1
    g = scenario(boards={0: "C2 C3"}, workers={0: {"C4": "Apprentice"}}, stores={0: [("C4", {"wine": 1}), None]})
    play(g, 4, ST(0, 1))
    assert g.phase == "REPLACE"
    play(g, DONE)
    assert g.worker_space[0] == -1 and g.workers[0] == 0 and 0 in [t for t in g.available_workers(0)]


def test_place_11_no_benefit_for_surveyor_placed_tile():
    """KH-ACT-PLACE-11 (1), KH-RULING-15: a worker displaced by the Surveyor's tile may be re-placed, no benefit."""
    five = "C4 C5 D3 D5 E4"
    g = scenario(
        boards={0: five + " G2"},
        workers={0: {"G1": "Apprentice"}},
        registry=["G1", "A2", "A3", "A4", "A5", "A6"],
        bag=["G8"],
    )
    play(g, 2, SURVEYOR, S("D4"), R(1))
    assert g.phase == "REPLACE" and g.frame[3] == 1
    play(g, S("F1"))  # F1 touches G1 and G2
    assert g.phase == "TURN" and sum(g.supply[0]) == 0


def test_place_11_one_replacement_benefit_per_tile_and_turn():
    """KH-ACT-PLACE-11 (2), KH-RULING-15: the same worker tile gives a re-placement benefit once per turn."""
    g = scenario(
        boards={0: "C2 C3 G2"},
        workers={0: {"C4": "Apprentice"}},
        stores={0: [("C4", {"wine": 1}), ("B2", {"wine": 1})]},
    )
    play(g, 4, ST(0, 1), S("B2"), C("hops"))  # re-placed on B2: benefit
    assert g.phase == "STORE"
    play(g, ST(0, 2))  # B2 arrives: displaced again
    assert g.phase == "REPLACE"
    play(g, S("G1"))
    assert g.phase == "TURN" and g.supply[0][H] == 1  # no second benefit


def test_place_10_ruling_14_supervisor_replaced_during_c_offers_extra_after():
    """KH-ACT-PLACE-10, KH-RULING-14: a Supervisor re-placed during (c) offers its extra action once the (c) is
    complete; (c) is used, so (a) or (d)."""
    g = scenario(
        boards={0: "C2 C3 D3 C4"},
        workers={0: {"D4": "Supervisor"}},
        supply={0: {"wheat": 1}},
        stores={0: [("D4", {"wine": 1}), ("G8", {"wine": 1})]},
    )
    play(g, 4, ST(0, 1))
    assert g.phase == "REPLACE"
    play(g, S("D2"))
    assert g.phase == "STORE" and g.pending_extra  # the action is not complete yet: a second tile could follow
    play(g, DONE)
    assert g.phase == "EXTRA" and set(g.legal_actions()) == {DONE, 1, 5}


def test_place_10_extra_c_follows_every_rule():
    """KH-ACT-PLACE-10: an extra (c) pays exactly like any action (c)."""
    g = scenario(boards={0: "D3 D4 F3 F4"}, supply={0: {"wine": 2}}, stores={1: [("A1", {"wine": 2}), None]})
    play(g, 2, 70, S("E4"))  # Carter
    assert g.phase == "EXTRA"
    play(g, 4, ST(1, 1))
    assert g.supply[0][N] == 0 and g.supply[1][N] == 4


def test_ruling_14_extra_lost_during_an_event():
    """KH-RULING-14: a Supervisor placed during an event (Hiring Fair) gives no extra action."""
    g = scenario(
        boards={0: "C2 C3 D3 C4 G8"},
        supply={0: {"wheat": 2}},
        bag=["Hiring Fair", "A1"],
        registry=["A2", "A3", "A4", "A5", "A6", "A7"],
    )
    play(g, 5, R(1), C("wheat"), DONE)  # refill draws the Hiring Fair
    assert g.phase == "HIRING" and g.current_player == 0
    play(g, 2, SUPERVISOR, S("D2"))
    assert g.phase != "EXTRA" and g.pending_extra == 0
