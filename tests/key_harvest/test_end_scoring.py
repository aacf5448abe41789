"""End of the game and scoring: KH-END-1, KH-END-2, KH-END-3, KH-END-4, KH-END-5, KH-END-6, KH-SCORE-1, KH-SCORE-2,
KH-SCORE-3, KH-SCORE-4, KH-SCORE-5, KH-SCORE-6, KH-SCORE-7, KH-SCORE-8, KH-SCORE-9, KH-SCORE-10, KH-WORK-8, KH-WORK-9,
KH-RULING-7, KH-RULING-8, KH-RULING-9, KH-RULING-12, KH-GEN-1, and the
§17 worked example part by part."""

from __future__ import annotations

from farmgames.envs.key_harvest.board import BIT, parse_space
from farmgames.envs.key_harvest.scoring import Score, group_sizes, majorities, winners

from .helpers import DONE, C, R, S, play, scenario

W, H, V, A, N = range(5)
REG = ["A1", "A2", "A3", "A4", "A5", "A6"]
NINE = [
    "Harvest Festival",
    "Harvest Festival",
    "Hiring Fair",
    "Hiring Fair",
    "Spring Rain",
    "Spring Rain",
    "Market Day",
    "Market Day",
    "Deed Day",
]


def mask(text: str) -> int:
    return sum(BIT[parse_space(t)] for t in text.split())


# ---------------------------------------------------------------------------------------- §17 worked example

EX_BOARD = "B3 B4 C2 C3 C4 D3 D4 F3 F4 F5 G4 G5 A8"


def example(end: bool = True):
    """The §17 final position: P0's board, Supervisor D2, Miller E4, supply 2 wheat 2 hops 1 wine, a store tile
    with a bid of 2 wine; P1's supply 1 wheat 3 hops 2 cider apples 1 wine."""
    return scenario(
        num_players=2,
        boards={0: EX_BOARD, 1: "G8"},
        workers={0: {"D2": "Supervisor", "E4": "Miller"}},
        supply={0: {"wheat": 2, "hops": 2, "wine": 1}, 1: {"wheat": 1, "hops": 3, "cider apples": 2, "wine": 1}},
        stores={0: [("E7", {"wine": 2}), None]},
        end_triggered=end,
        turns_left=1 if end else 0,
    )


def test_example_placement_check():
    """§17: D2 touches D3, C2, C3 (3 fields, no worker) and E4 touches D3, D4, F3, F4 (4 fields, no worker), so the
    Supervisor and the Miller could be placed there (KH-ACT-WORKER-3, KH-ACT-WORKER-4)."""
    g = scenario(num_players=2, boards={0: EX_BOARD, 1: "G8"})
    play(g, 2, 66)  # Supervisor
    assert S("D2") in g.legal_actions()
    g = scenario(num_players=2, boards={0: EX_BOARD, 1: "G8"}, workers={0: {"D2": "Supervisor"}})
    play(g, 2, 68)  # Miller
    assert S("E4") in g.legal_actions()


def test_example_groups():
    """§17, KH-SCORE-3: groups 7, 5, 1; E4 holds a worker so it does not join the two large groups."""
    g = example()
    assert group_sizes(g.fields[0]) == [7, 5, 1]
    assert group_sizes(g.fields[0] | mask("E4")) == [13, 1]  # as a field it would join them


def test_example_score_parts_and_total():
    """§17, KH-SCORE-1, KH-SCORE-2, KH-SCORE-5, KH-SCORE-7, KH-SCORE-10, KH-END-5: 7 x 1 + 5 x 2, A8 0, workers 3 + 4,
    counters 1 (the 2 wine of the store
    bid go to the stock first): 25; the opponent takes hops and cider apples."""
    g = example()
    stock_wine = g.stock[N]
    play(g, DONE)  # the last turn ends: the game is over
    assert g.is_terminal() and g.stock[N] == stock_wine + 2 and g.bids[0][0] == [0] * 5
    assert g.store[0][0] == parse_space("E7")  # KH-END-4: the tile stays in the store
    s0, s1 = g.scores()
    assert (s0.largest_group, s0.second_group, s0.group_points) == (7, 5, 17)
    assert s0.worker_points == 7 and s0.majorities == ("wheat",) and s0.crop_points == 1
    assert s0.total == 25 == s0.as_dict()["total"] and s0.key == (25, 13, 5)
    assert set(s1.majorities) == {"hops", "cider apples"} and s1.crop_points == 2
    assert majorities([[2, 2, 0, 0, 3], [1, 3, 0, 2, 1]])[0] == [W, N]  # counting the bid would be wrong


def test_example_six_and_six_and_tie_break():
    """§17: groups of 6 and 6 give 6 x 1 + 6 x 2 = 18; on 25 all, more field tiles wins (13 against fewer), then
    more counters (KH-SCORE-9)."""
    six = mask("A1 A2 A3 A4 A5 A6") | mask("G1 G2 G3 G4 G5 G6")
    assert group_sizes(six) == [6, 6]
    a = Score(7, 5, 17, 7, 1, ("wheat",), field_tiles=13, counters=5)
    b = Score(7, 5, 17, 7, 1, ("hops",), field_tiles=12, counters=7)
    assert winners([a, b]) == [0]
    c = Score(7, 5, 17, 7, 1, ("hops",), field_tiles=13, counters=7)
    assert winners([a, c]) == [1]


# ---------------------------------------------------------------------------------------------------- end


def test_end_1_2_3_ruling_8_two_rounds_after_the_tenth_event():
    """KH-END-1, KH-END-2, KH-END-3, KH-RULING-8: the 10th event triggers the end; the active player finishes the
    turn; two full
    rounds follow from the left, and the trigger player takes the very last turn."""
    g = scenario(boards={0: "G1", 1: "G8"}, supply={0: {"wheat": 1}}, registry=REG, bag=["Tithe", "B1"], events=NINE)
    play(g, 5, R(1), C("wheat"))
    assert g.end_triggered and g.active == 0 and g.phase == "TURN"
    order = []
    while not g.is_terminal():
        order.append(g.active)
        play(g, DONE)
    assert order == [0, 1, 0, 1, 0]  # the rest of the trigger turn, then P1, P0, P1, P0


def test_end_4_5_ruling_9_store_tiles_stay_and_bids_go_to_stock():
    """KH-END-4, KH-END-5, KH-RULING-9: tiles left in stores stay there and score nothing; their bids go to the
    stock."""
    g = example()
    play(g, DONE)
    s0 = g.scores()[0]
    assert s0.field_tiles == 13 and g.store[0][0] >= 0 and sum(g.stock) + 12 == 60


def test_end_6_safety_limit_truncates():
    """KH-END-6, KH-RULING-8: after 100 complete rounds without the trigger the game ends, scored, truncated."""
    g = scenario(boards={0: "G1", 1: "G8"}, rounds=99)
    play(g, DONE)
    assert not g.is_terminal()
    play(g, DONE)
    assert g.is_terminal() and g.truncated and g.rounds == 100 and len(g.scores()) == 2


# ------------------------------------------------------------------------------------------------ scoring


def test_score_1_2_4_largest_and_second_group():
    """KH-SCORE-1, KH-SCORE-2, KH-SCORE-4: 1 point per tile of the largest group, 2 per tile of the second; equal
    groups count as
    largest and second; a single group scores 0 for the second; harvested tiles count alike."""
    g = scenario(boards={0: "A1 a2 A3", 1: "G1 G2 E1 E2"})
    s0, s1 = g.scores()
    assert (s0.largest_group, s0.second_group, s0.group_points) == (3, 0, 3)
    assert (s1.largest_group, s1.second_group, s1.group_points) == (2, 2, 6)


def test_score_3_workers_do_not_connect():
    """KH-SCORE-3: worker tiles never connect field tiles when groups are counted."""
    g = scenario(boards={0: "C2 C4"}, workers={0: {"C3": "Casual"}})
    s = g.scores()[0]
    assert (s.largest_group, s.second_group) == (1, 1)


def test_score_5_work_8_9_workers_score_their_number():
    """KH-SCORE-5, KH-WORK-8, KH-WORK-9: each worker on the board scores its number; a replaced worker scores
    nothing."""
    g = scenario(boards={0: "C2 C3 D3 C4"}, workers={0: {"D2": "Apprentice", "G8": "Surveyor"}})
    assert g.scores()[0].worker_points == 1 + 5
    play(g, 2, 66, S("D2"), DONE)  # Supervisor replaces the Apprentice
    assert g.scores()[0].worker_points == 3 + 5


def test_score_6_7_10_ruling_7_gen_1_crop_majorities():
    """KH-SCORE-6, KH-SCORE-7, KH-SCORE-10, KH-RULING-7, KH-GEN-1: for each crop the unique highest supply (at least
    1) scores 1
    point; shared or empty scores nobody; only supplies count (0-5 points). The public rule replaces the
    withdrawn 1 point per 2 counters."""
    won = majorities([[3, 1, 0, 0, 2], [3, 0, 0, 1, 1], [0, 0, 0, 0, 0]])
    assert won == [[1, 4], [3], []]
    g = scenario(supply={0: {"wheat": 8}}, stores={1: [("A1", {"wheat": 12 - 8}), None]})
    assert g.scores()[0].crop_points == 1 and g.scores()[1].crop_points == 0  # bids count for nobody
    assert g.scores()[0].total == 1  # 8 counters are worth 1 point, not 4


def test_score_8_9_ruling_12_winner_and_tie_break_chain():
    """KH-SCORE-8, KH-SCORE-9, KH-RULING-12: most points wins; ties: more field tiles, then more counters, else
    shared."""
    a = Score(3, 0, 3, 0, 0, (), field_tiles=3, counters=2)
    b = Score(1, 1, 3, 0, 0, (), field_tiles=2, counters=9)
    assert winners([a, b]) == [0]
    c = Score(3, 0, 3, 0, 0, (), field_tiles=3, counters=2)
    assert winners([a, c]) == [0, 1]
    g = example()
    play(g, DONE)
    assert g.winners() == [0] and g.returns() == [1.0, -1.0]


def test_score_as_dict_equals_the_dataclass_fields_with_majorities_as_a_list():
    """``Score.as_dict`` (the fields from the instance dict, speed) equals ``dataclasses.asdict`` with the
    majorities as a list, plus the total, keys in the same order, on the final scores of random games."""
    import dataclasses
    import random

    from farmgames.envs.key_harvest import Game

    for seed in range(3):
        game, rng = Game(num_players=2 + seed, seed=seed), random.Random(seed)
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
        for s in game.scores():
            want = {**dataclasses.asdict(s), "total": s.total}
            want["majorities"] = list(s.majorities)
            d = s.as_dict()
            assert d == want and list(d) == list(want) and type(d["majorities"]) is list
