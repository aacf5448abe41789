"""Action (d) and the refill: KH-ACT-BID-1, KH-ACT-BID-2, KH-ACT-BID-3, KH-ACT-BID-4, KH-ACT-BID-5, KH-ACT-BID-6,
KH-ACT-BID-7, KH-ACT-BID-8, KH-ACT-BID-9, KH-ACT-BID-10, KH-DRAW-1, KH-DRAW-2, KH-DRAW-3, KH-DRAW-4, KH-DRAW-5,
KH-DRAW-6, KH-DRAW-7, KH-DRAW-8, KH-DRAW-9, KH-RULING-11."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import parse_space

from .helpers import DONE, ST, C, R, S, play, scenario

W, H, V, A, N = range(5)
REG = ["A1", "A2", "A3", "A4", "A5", "A6"]


def test_bid_1_2_10_empty_store_spaces_lowest_first():
    """KH-ACT-BID-1, KH-ACT-BID-2, KH-ACT-BID-10: tiles go only into empty store spaces, the lower-numbered first; at
    most 2."""
    g = scenario(supply={0: {"wheat": 3}}, registry=REG, stores={0: [("G8", {"hops": 1}), None]}, bag=["B1"])
    play(g, 5, R(1), C("wheat"), DONE)
    assert g.store[0] == [parse_space("G8"), parse_space("A1")] and g.phase == "TURN"  # full: no second tile


def test_bid_3_4_bid_right_after_each_tile_at_least_one():
    """KH-ACT-BID-3, KH-ACT-BID-4: right after taking a tile the player bids 1 or more counters; 0 only after one."""
    g = scenario(supply={0: {"wheat": 2, "wine": 1}}, registry=REG, bag=["B1", "B2"])
    play(g, 5, R(1))
    assert g.phase == "BID" and DONE not in g.legal_actions()
    assert set(g.legal_actions()) == {C("wheat"), C("wine")}
    play(g, C("wheat"), C("wine"), DONE)
    assert g.bids[0][0] == [1, 0, 0, 0, 1] and g.phase == "REGISTRY"


def test_bid_5_no_counters_no_d():
    """KH-ACT-BID-5: without counters in the supply action (d) is impossible."""
    g = scenario(boards={0: "G1"}, registry=REG)
    assert 5 not in g.legal_actions()


def test_bid_6_7_bids_fixed_and_tiles_stay():
    """KH-ACT-BID-6, KH-ACT-BID-7: a bid never changes and a store tile cannot be discarded (no id does either)."""
    g = scenario(boards={0: "G1", 1: "G7"}, supply={0: {"wheat": 2}}, registry=REG, bag=["B1", "B2"])
    play(g, 5, R(1), C("wheat"), DONE, R(1), C("wheat"), DONE)
    bids = [list(b) for b in g.bids[0]]
    play(g, DONE)  # P0 ends; P1's turn: nothing touches P0's store
    play(g, DONE)
    assert g.bids[0] == bids and g.store[0][0] >= 0 and g.store[0][1] >= 0


def test_bid_8_bids_are_public():
    """KH-ACT-BID-8: every bid is open: another seat's observation shows it."""
    from farmgames.envs.key_harvest.observer import Observer

    g = scenario(num_players=3, stores={2: [("A1", {"wine": 2, "hops": 1}), None]})
    obs = Observer(g)
    buf = obs.new_buffer()
    obs.fill(g, 0, buf)
    bid = [obs.player_feature(buf, f"bid1_{c}")[2] for c in ("wheat", "hops", "vegetables", "cider_apples", "wine")]
    assert bid == [0, 1, 0, 0, 2]


def test_bid_9_draw_1_2_9_refill_after_each_tile():
    """KH-ACT-BID-9, KH-DRAW-1, KH-DRAW-2, KH-DRAW-9: after each tile (with its bid) the registry is refilled from the
    bag,
    unharvested, into the lowest empty space, before the next decision."""
    g = scenario(supply={0: {"wheat": 2}}, registry=REG, bag=["G8", "G7"])
    play(g, 5, R(3), C("wheat"), DONE)
    assert g.registry[2] == parse_space("G8") and g.phase == "REGISTRY"
    play(g, R(1), C("wheat"))  # the supply is empty: the bid ends by itself, the refill runs
    assert g.registry[0] == parse_space("G7") and g.phase == "TURN"


def test_draw_3_4_5_event_resolved_then_draw_again():
    """KH-DRAW-3, KH-DRAW-4, KH-DRAW-5, KH-RULING-11: a drawn event is resolved at once, placed on the next event
    space, and the
    refill continues until the registry is full."""
    g = scenario(supply={0: {"wheat": 1}}, registry=REG, bag=["Market Day", "G8"])
    play(g, 5, R(2), C("wheat"))  # supply empty: BID ends by itself, the refill draws Market Day
    from farmgames.envs.key_harvest.scenario import event_tiles

    assert len(g.events) == 1 and g.events[0] in event_tiles("Market Day")  # on the first event space
    assert g.registry[1] == parse_space("G8") and g.phase == "TURN"  # nobody could exchange: drawn again


def test_draw_6_effects_during_events_do_not_refill():
    """KH-DRAW-6, KH-RULING-11: an Enclosure empties a registry space; the running loop (not the event) fills it."""
    g = scenario(supply={0: {"wheat": 1}}, registry=REG, bag=["Enclosure", "G8", "G7"])
    play(g, 5, R(1), C("wheat"))
    assert g.phase == "ENCLOSE" and g.registry[0] == -1
    play(g, R(4))
    assert g.fallow == [parse_space("A4")]
    assert g.registry[0] == parse_space("G8") and g.registry[3] == parse_space("G7")


def test_draw_7_no_draws_after_the_tenth_event():
    """KH-DRAW-7, KH-END-1: once the 10th event is resolved no more tiles are drawn."""
    g = scenario(
        supply={0: {"wheat": 1}},
        registry=REG,
        bag=["Tithe", "G8"],
        events=[
            "Harvest Festival",
            "Harvest Festival",
            "Hiring Fair",
            "Hiring Fair",
            "Spring Rain",
            "Spring Rain",
            "Market Day",
            "Market Day",
            "Deed Day",
        ],
    )
    play(g, 5, R(1), C("wheat"))
    assert len(g.events) == 10 and g.end_triggered
    assert g.registry[0] == -1 and g.bag[-1] == parse_space("G8")


def test_draw_8_second_tile_again_from_six():
    """KH-DRAW-8: taking a second tile, the player again chooses from 6 registry tiles."""
    g = scenario(supply={0: {"wheat": 2}}, registry=REG, bag=["G8"])
    play(g, 5, R(1), C("wheat"), DONE)
    assert len([a for a in g.legal_actions() if 74 <= a <= 79]) == 6


def test_store_ids_rotate_with_the_actor():
    """KH-RULING-17: store ids count seats clockwise from the acting player."""
    g = scenario(num_players=3, active=2, supply={2: {"hops": 1}}, stores={0: [("A1", {"hops": 1}), None]})
    play(g, 4)
    assert g.legal_actions() == [ST(1, 1)]
    assert "store of player 0" in g.describe_action(ST(1, 1))
    assert S("A1") == 6
