"""Action (b) and workers: KH-ACT-WORKER-1, KH-ACT-WORKER-2, KH-ACT-WORKER-3, KH-ACT-WORKER-4, KH-ACT-WORKER-5,
KH-ACT-WORKER-6, KH-ACT-WORKER-7, KH-ACT-WORKER-8, KH-ACT-WORKER-9, KH-ACT-WORKER-10, KH-ACT-WORKER-11,
KH-ACT-WORKER-12, KH-WORK-1, KH-WORK-2, KH-WORK-3, KH-WORK-4, KH-WORK-5, KH-WORK-6, KH-WORK-7, KH-WORK-8, KH-WORK-9,
KH-WORK-10, KH-RULING-4, KH-RULING-5 (every benefit)."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import CROPS, parse_space

from .helpers import DONE, C, R, S, play, scenario

APPRENTICE, CASUAL, UNSKILLED, LABOURER, SUPERVISOR, FOREMAN = range(62, 68)
MILLER, BREWER, CARTER, MERCHANT, REEVE, SURVEYOR = range(68, 74)
L = "C2 C3 C4 D3"  # D2 touches C2 C3 D3 (3 fields); B3 touches C3 C4 (2); B2 touches C2 C3 (2)
W, H, V, A, N = range(5)


def bit(name: str) -> int:
    return 1 << parse_space(name)


def test_worker_2_playable_workers():
    """KH-ACT-WORKER-2, KH-WORK-1: own farmhands not on the board and townsfolk on the town board (with a legal
    space); a townsfolk on another board is not offered (KH-WORK-10)."""
    g = scenario(boards={0: L, 1: "F3 F4 G3 G4"}, workers={1: {"F5": "Apprentice"}})
    play(g, 2)
    assert g.phase == "WORKER"
    assert set(g.legal_actions()) == {APPRENTICE, CASUAL, UNSKILLED, LABOURER, SUPERVISOR, FOREMAN}
    g = scenario(boards={0: "D3 D4 F3 F4"}, workers={1: {"A1": "Miller"}})
    play(g, 2)
    assert MILLER not in g.legal_actions() and BREWER in g.legal_actions()  # 4 fields around E4


def test_worker_3_enough_adjacent_fields():
    """KH-ACT-WORKER-3: the space must touch at least as many field tiles as the worker's number."""
    g = scenario(boards={0: L})
    play(g, 2, SUPERVISOR)
    assert S("D2") in g.legal_actions() and S("B3") not in g.legal_actions()
    g = scenario(boards={0: L})
    play(g, 2, LABOURER)
    assert {S("B3"), S("B2"), S("D2")} <= set(g.legal_actions()) and S("C1") not in g.legal_actions()


def test_worker_4_not_next_to_another_worker():
    """KH-ACT-WORKER-4: never onto a space adjacent to another worker tile."""
    g = scenario(boards={0: L}, workers={0: {"B3": "Apprentice"}})
    play(g, 2, LABOURER)
    assert S("B2") not in g.legal_actions() and S("D4") in g.legal_actions()


def test_worker_5_work_3_4_empty_or_lower_own_worker():
    """KH-ACT-WORKER-5, KH-WORK-3, KH-WORK-4: an empty space or an own worker with a strictly lower number; a 3
    replaces a
    1 or a 2, not another 3; never a field tile."""
    g = scenario(boards={0: L}, workers={0: {"D2": "Labourer"}})
    play(g, 2, SUPERVISOR)
    assert S("D2") in g.legal_actions() and S("C3") not in g.legal_actions()
    g = scenario(boards={0: L}, workers={0: {"D2": "Foreman"}})
    play(g, 2)
    assert SUPERVISOR not in g.legal_actions()  # D2 is the only 3-space and holds a 3


def test_worker_6_replaced_worker_goes_back():
    """KH-ACT-WORKER-6: the replaced farmhand goes beside the board, a replaced townsfolk back to the town; both
    may be played again."""
    g = scenario(boards={0: L}, workers={0: {"D2": "Apprentice"}})
    play(g, 2, SUPERVISOR, S("D2"))
    assert g.worker_space[0] == -1 and g.worker_at[0][parse_space("D2")] == 4
    five = "C4 C5 D3 D5 E4"  # D4 touches all five
    g = scenario(boards={0: five}, workers={0: {"D4": "Miller"}})
    play(g, 2, REEVE, S("D4"))
    assert g.town[0] == -1 and g.town[4] == 0  # Miller back in town, Reeve on P0's board


def test_worker_7_10_remove_goes_back_without_benefit():
    """KH-ACT-WORKER-7, KH-ACT-WORKER-10: removing returns the worker (farmhand beside the board, townsfolk to town)
    and gives
    and costs nothing."""
    g = scenario(boards={0: "D3 D4 F3 F4 G7"}, workers={0: {"E4": "Miller", "C1": "Apprentice"}})
    supply = [list(r) for r in g.supply]
    play(g, 3, S("E4"))
    assert g.town[0] == -1 and g.phase == "TURN" and g.supply == supply
    g = scenario(boards={0: "G7"}, workers={0: {"C1": "Apprentice"}})
    play(g, 3, S("C1"))
    assert g.worker_space[0] == -1 and g.workers[0] == 0


def test_worker_1_play_or_remove_not_both():
    """KH-ACT-WORKER-1: one worker played or one removed per turn, never both."""
    g = scenario(boards={0: L + " G7"}, workers={0: {"F8": "Casual"}})
    play(g, 2, APPRENTICE, S("C1"))
    play(g, DONE)  # decline the Apprentice's counter
    assert g.phase == "TURN" and 3 not in g.legal_actions() and 2 not in g.legal_actions()


def test_worker_8_9_12_apprentice_benefit_optional():
    """KH-ACT-WORKER-8, KH-ACT-WORKER-9, KH-ACT-WORKER-12, KH-RULING-4 Apprentice: take 1 counter of a crop in the
    stock; may decline."""
    g = scenario(boards={0: L})
    play(g, 2, APPRENTICE, S("C1"))
    assert g.phase == "CROP" and DONE in g.legal_actions() and len(g.legal_actions()) == 6
    play(g, C("wine"))
    assert g.supply[0][N] == 1


def test_worker_11_conditions_checked_only_on_placement():
    """KH-ACT-WORKER-11: a worker whose placement conditions are not true stays on the board."""
    g = scenario(boards={0: "A1", 1: "G1"}, workers={0: {"G8": "Miller"}})
    play(g, DONE, DONE)
    assert g.worker_at[0][parse_space("G8")] == 24


def test_ruling_4_casual_turns_one_adjacent_tile_back():
    """KH-RULING-4 Casual, KH-ACT-HARVEST-12: turn 1 adjacent harvested tile back to unharvested."""
    g = scenario(boards={0: "c2 c3 C4 D3"})
    play(g, 2, CASUAL, S("C1"))
    assert g.phase == "PICK" and set(g.legal_actions()) == {DONE, S("C2")}
    play(g, S("C2"))
    assert g.unharvested[0] & bit("C2") and g.phase == "TURN"


def test_ruling_4_unskilled_harvests_two_adjacent():
    """KH-RULING-4 Unskilled: harvest up to 2 unharvested tiles adjacent to it (no group requirement)."""
    g = scenario(boards={0: L})
    play(g, 2, UNSKILLED, S("B3"))
    assert set(g.legal_actions()) == {DONE, S("C3"), S("C4")}
    play(g, S("C3"), S("C4"))
    assert g.supply[0][H] == 1 and g.supply[0][V] == 1 and g.phase == "TURN"


def test_ruling_4_labourer_exchanges_two():
    """KH-RULING-4 Labourer, KH-RULING-13: give up to 2, then take as many of crops not given."""
    g = scenario(boards={0: L}, supply={0: {"wheat": 3}})
    play(g, 2, LABOURER, S("B3"))
    assert g.phase == "GIVE" and set(g.legal_actions()) == {DONE, C("wheat")}
    play(g, C("wheat"), C("wheat"))
    assert g.phase == "TAKE" and C("wheat") not in g.legal_actions()
    play(g, C("wine"), C("hops"))
    assert g.supply[0] == [1, 1, 0, 0, 1]


def test_ruling_4_supervisor_extra_action():
    """KH-RULING-4 Supervisor, KH-RULING-14: an extra (a), (c) or (d) not yet taken, offered at once."""
    g = scenario(boards={0: L}, supply={0: {"wheat": 1}})
    play(g, 2, SUPERVISOR, S("D2"))
    assert g.phase == "EXTRA" and set(g.legal_actions()) == {DONE, 1, 5}
    play(g, DONE)
    assert g.phase == "TURN" and g.pending_extra == 0


def test_ruling_4_foreman_harvests_three_anywhere():
    """KH-RULING-4 Foreman: harvest up to 3 unharvested tiles anywhere on the board."""
    g = scenario(boards={0: L + " G8"})
    play(g, 2, FOREMAN, S("D2"))
    assert S("G8") in g.legal_actions() and DONE in g.legal_actions()
    play(g, S("G8"), S("C2"), S("C3"))
    assert g.phase == "TURN" and sum(g.supply[0]) == 3


def test_ruling_5_miller_harvests_all_adjacent_automatically():
    """KH-RULING-5 Miller, KH-ACT-WORKER-12: every adjacent unharvested tile, automatically."""
    g = scenario(boards={0: "D3 D4 F3 f4"})
    play(g, 2, MILLER, S("E4"))
    assert g.phase == "TURN" and g.supply[0] == [0, 0, 1, 1, 1]  # D3 apples, D4 wine, F3 vegetables


def test_ruling_5_brewer_two_of_one_crop():
    """KH-RULING-5 Brewer: 0, 1 or 2 counters, all of one crop."""
    g = scenario(boards={0: "D3 D4 F3 F4"})
    play(g, 2, BREWER, S("E4"), C("hops"))
    assert g.phase == "CROP" and set(g.legal_actions()) == {DONE, C("hops")}
    play(g, C("hops"))
    assert g.supply[0][H] == 2


def test_ruling_5_carter_extra_c_only_before_c_and_d():
    """KH-RULING-5 Carter, KH-RULING-14: an extra (c) only if neither (c) nor (d) was taken this turn."""
    g = scenario(boards={0: "D3 D4 F3 F4"}, supply={0: {"wheat": 1}}, stores={0: [("A1", {"hops": 1}), None]})
    play(g, 2, CARTER, S("E4"))
    assert g.phase == "EXTRA" and set(g.legal_actions()) == {DONE, 4}
    play(g, 4, 80)
    assert g.fields[0] & bit("A1") and g.actions_taken == 1
    g = scenario(boards={0: "D3 D4 F3 F4", 1: "G1"}, supply={0: {"wheat": 1}}, stores={0: [None, ("A1", {"hops": 1})]})
    play(g, 5, R(1), C("wheat"))  # (d) first
    play(g, 2, CARTER, S("E4"))
    assert g.phase != "EXTRA" and g.active == 1  # no extra; two actions: the turn is over


def test_ruling_5_merchant_exchanges_any_number():
    """KH-RULING-5 Merchant: exchange any number of counters."""
    five = "C4 C5 D3 D5 E4"
    g = scenario(boards={0: five}, supply={0: {"wheat": 4}})
    play(g, 2, MERCHANT, S("D4"), C("wheat"), C("wheat"), C("wheat"), C("wheat"))
    assert g.phase == "TAKE"
    play(g, C("wine"), C("wine"), C("wine"), C("hops"))
    assert g.supply[0] == [0, 1, 0, 0, 3]


def test_ruling_5_reeve_harvests_a_group_optionally():
    """KH-RULING-5 Reeve: harvest one connected group as in action (a), not an action (0 legal at once)."""
    five = "C4 C5 D3 D5 E4"
    g = scenario(boards={0: five})
    play(g, 2, REEVE, S("D4"))
    assert g.phase == "HARVEST" and DONE in g.legal_actions()
    play(g, S("C4"))
    assert set(g.legal_actions()) == {DONE, S("C5"), S("D3"), S("D5"), S("E4")}  # one group around D4
    play(g, DONE)
    assert g.phase == "TURN" and not g.taken & 1 and 1 in g.legal_actions()  # letter (a) still free


def test_ruling_5_surveyor_takes_a_registry_tile_free():
    """KH-RULING-5 Surveyor: a registry tile straight onto the board, no bid; then the registry is refilled."""
    five = "C4 C5 D3 D5 E4"
    g = scenario(boards={0: five}, registry=["A1", "A2", "A3", "A4", "A5", "A6"], bag=["G8"])
    play(g, 2, SURVEYOR, S("D4"))
    assert g.phase == "SURVEY" and DONE in g.legal_actions()
    play(g, R(2))
    assert g.fields[0] & bit("A2") and g.unharvested[0] & bit("A2") and g.registry[1] == parse_space("G8")
    assert sum(g.supply[0]) == 0


def test_work_10_townsfolk_stays_with_its_player():
    """KH-WORK-10: a townsfolk on a board belongs to that player; others can neither play nor remove it."""
    g = scenario(boards={0: "D3 D4 F3 F4", 1: "D3 D4"[0:0] + "A5 A6 B5 B6"}, workers={0: {"E4": "Miller"}}, active=1)
    assert g.current_player == 1
    play(g, 2)
    assert MILLER not in g.legal_actions()
    assert g.town[0] == 0


def test_crops_named_in_ids():
    assert [C(c) for c in CROPS] == [88, 89, 90, 91, 92]
