"""Events: KH-EVENT-1, KH-EVENT-2, KH-EVENT-3, KH-EVENT-4, KH-EVENT-5, KH-EVENT-6, KH-RULING-6 (every kind), KH-TURN-7
(events are never turn actions)."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import parse_space

from .helpers import DONE, ST, C, R, S, play, scenario

W, H, V, A, N = range(5)
REG = ["A1", "A2", "A3", "A4", "A5", "A6"]


def draw(event: str, **kw):
    """P0 takes registry tile 1 with a one-wheat bid; the refill draws ``event`` first, then B1."""
    supply = kw.pop("supply", {})
    supply.setdefault(0, {"wheat": 1})
    g = scenario(registry=REG, bag=[event, "B1", "B2"], supply=supply, **kw)
    play(g, 5, R(1))
    play(g, C("wheat"))
    if g.phase == "BID":
        play(g, DONE)
    return g


def test_event_1_2_3_harvest_festival_for_every_player_in_order():
    """KH-EVENT-1, KH-EVENT-2, KH-EVENT-3, KH-RULING-6 Harvest Festival: every player, clockwise from the active one,
    may harvest a
    group as in action (a) (0 legal at once)."""
    g = draw("Harvest Festival", num_players=3, active=1, boards={0: "C2", 1: "E6", 2: "G8"}, supply={1: {"wheat": 1}})
    assert g.phase == "HARVEST" and g.current_player == 1 and DONE in g.legal_actions()
    play(g, S("E6"))
    assert g.current_player == 2
    play(g, S("G8"))
    assert g.current_player == 0
    play(g, S("C2"))
    assert g.current_player == 1 and g.phase in ("REGISTRY", "TURN")
    assert [sum(s) for s in g.supply] == [2, 1, 1]  # P0 held 1 wheat; P1 bid its own


def test_event_5_turn_7_event_harvest_is_no_turn_action():
    """KH-EVENT-5, KH-TURN-7: what a player does in an event uses none of their turn actions."""
    g = draw("Harvest Festival", boards={0: "C2 E6", 1: "G8"}, supply={0: {"wheat": 2}})
    play(g, S("C2"))  # P0 harvests in the event (its group is then done)
    play(g, DONE)  # P1 declines
    play(g, DONE)  # P0: no second registry tile
    assert g.phase == "TURN" and g.actions_taken == 1 and 1 in g.legal_actions()  # (a) still free


def test_ruling_6_hiring_fair_play_or_remove_with_benefit():
    """KH-RULING-6 Hiring Fair: each player may play or remove one worker as in (b); benefits apply."""
    g = draw("Hiring Fair", boards={0: "C2", 1: "G8"}, workers={1: {"F8": "Casual"}})
    assert g.phase == "HIRING" and set(g.legal_actions()) == {DONE, 2}
    play(g, 2, 62, S("C1"))
    assert g.phase == "CROP" and g.current_player == 0
    play(g, C("hops"))
    assert g.phase == "HIRING" and g.current_player == 1 and set(g.legal_actions()) == {DONE, 2, 3}
    play(g, 3, S("F8"))
    assert g.workers[1] == 0


def test_ruling_6_spring_rain_two_tiles_back():
    """KH-RULING-6 Spring Rain, KH-ACT-HARVEST-12: up to 2 own harvested tiles back to unharvested."""
    g = draw("Spring Rain", boards={0: "c2 c3 c4", 1: "G8"})
    assert g.phase == "PICK" and set(g.legal_actions()) == {DONE, S("C2"), S("C3"), S("C4")}
    play(g, S("C2"), S("C4"))
    assert g.unharvested[0] == (1 << parse_space("C2")) | (1 << parse_space("C4"))


def test_ruling_6_market_day_exchange_three():
    """KH-RULING-6 Market Day, KH-RULING-13: exchange up to 3 counters."""
    g = draw("Market Day", boards={1: "G8"}, supply={0: {"wheat": 1, "hops": 4}})
    assert g.phase == "GIVE" and g.current_player == 0
    play(g, C("hops"), C("hops"), C("hops"))
    assert g.phase == "TAKE"
    play(g, C("wine"), C("wine"), C("wine"))
    assert g.supply[0] == [0, 1, 0, 0, 3]


def test_ruling_13_exchange_give_condition():
    """KH-RULING-13: a crop may be given only if the stock keeps enough counters of crops not given."""
    full = {"hops": 12, "vegetables": 12, "cider apples": 12, "wine": 11}
    g = draw("Market Day", boards={1: "G8"}, supply={0: {"wheat": 1, "wine": 1}, 1: full})
    # stock: wheat 11 (12 - 1 bid), wine 0: giving wine leaves 11 wheat for the take phase; giving wheat
    # leaves nothing else (wine 0 + the given wheat may not be taken back)
    assert g.phase == "GIVE" and set(g.legal_actions()) == {DONE, C("wine")}


def test_ruling_6_deed_day_event_6_others_take_c_not_new_tiles():
    """KH-RULING-6 Deed Day, KH-EVENT-6: every player but the active one may take an action (c), paying as
    usual, but not a tile that entered a store this turn."""
    g = draw(
        "Deed Day",
        num_players=3,
        boards={1: "G8", 2: "G1"},
        supply={1: {"wheat": 2, "wine": 1}},
        stores={2: [("E6", {"wine": 1}), None]},
    )
    assert g.phase == "DEED" and g.current_player == 1 and set(g.legal_actions()) == {DONE, 4}
    play(g, 4)
    assert g.legal_actions() == [ST(1, 1)]  # P2's tile; P0's new A1 (bid 1 wheat) is excluded
    play(g, ST(1, 1))
    assert g.fields[1] & (1 << parse_space("E6")) and g.supply[2][N] == 2
    assert g.current_player == 0 or g.phase in ("REGISTRY", "TURN")  # P2 could take nothing: skipped


def test_ruling_6_tithe_must_return_one_at_five():
    """KH-RULING-6 Tithe: a player holding 5 or more must return 1 counter of their choice."""
    g = draw("Tithe", boards={1: "G8"}, supply={0: {"wheat": 6}, 1: {"hops": 4}})
    assert g.phase == "TITHE" and g.current_player == 0 and g.legal_actions() == [C("wheat")]
    play(g, C("wheat"))
    assert g.supply[0][W] == 4 and g.supply[1][H] == 4  # P1 holds 4: nothing


def test_ruling_6_enclosure_active_player_only():
    """KH-RULING-6 Enclosure, KH-BOARD-7: the active player must send one registry tile to the fallow area."""
    g = draw("Enclosure", boards={1: "G8"})
    assert g.phase == "ENCLOSE" and g.current_player == 0 and DONE not in g.legal_actions()
    play(g, R(2))
    assert g.fallow == [parse_space("A2")] and g.registry[1] == parse_space("B2")


def test_event_4_all_kinds_present():
    """KH-EVENT-4: seven kinds, two of each, and each kind resolves in play (above); the drawn tile lies on the
    event spaces in drawing order (KH-DRAW-4)."""
    g = draw("Tithe", boards={1: "G8"})
    from farmgames.envs.key_harvest.scenario import event_tiles

    assert len(g.events) == 1 and g.events[0] in event_tiles("Tithe")
