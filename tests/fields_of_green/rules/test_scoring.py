"""Rule tests: end of game, scoring and tie-breaks (spec section 12, rulings FOG-RUL-22, -35..-37)."""

from __future__ import annotations

import pytest

from farmgames.envs.fields_of_green.scoring import PARTS

from .conftest import act, cell

FULL = "W T0 S\nM . ."  # Wheat (2,1) T(2,2) S(2,3); Manor (3,1) next to the Wheat
LEGEND = {"W": "Wheat", "M": "Manor", "X": "Plain Building", "C": "Chapel", "B": "Wild Berries"}


def test_FOG_END_1_game_ends_after_year_4_harvest(scen):
    """FOG-END-1: the game ends when the year-4 Harvest is complete, not earlier."""
    game = scen(year=3, decision=[("harvest_phase",)])
    assert not game.is_terminal() and game.year == 4 and game.decision_kind == "split"
    game = scen(farms={0: "W T S"}, legend=LEGEND, year=4, decision=[("harvest_phase",)])
    assert game.decision == ("harvest", 0) and not game.is_terminal()
    act(game, "harvest_end")
    assert game.is_terminal() and game.legal_actions() == [] and game.current_player is None


def test_FOG_END_2_score_is_the_sum_of_six_items(scen):
    """FOG-END-2: the final score is the sum of the six items."""
    game = scen(
        farms={0: FULL},
        legend=LEGEND,
        coins={0: 8},
        food={0: 3},
        vp_tokens={0: 2},
        equipment={0: {(3, 1): ["Vane"]}},
        set_aside={0: ["Hose"]},
        decision=[],
    )
    s = game.scores()[0]
    assert PARTS == ("printed_vp", "equipment", "coins", "food", "empty_towers", "end_game")
    assert [getattr(s, part) for part in PARTS] == [1 + 3 + 2, 2 + 1, 2, 1, 1, 1]
    assert s.total == 14 == sum(getattr(s, part) for part in PARTS)


def test_FOG_END_3_and_RUL_37_printed_vp_of_face_up_cards_plus_tokens(scen):
    """FOG-END-3 / FOG-RUL-37: printed VP of face-up cards (fallow cards score none) plus VP tokens."""
    game = scen(farms={0: "(C) T S C"}, legend=LEGEND, vp_tokens={0: 4}, decision=[])
    assert game.scores()[0].printed_vp == 5 + 4


def test_FOG_END_4_equipment_item(scen):
    """FOG-END-4: End-game VP of placed equipment plus 1 VP per set-aside tile."""
    game = scen(
        farms={0: "M T S"},
        legend=LEGEND,
        equipment={0: {(2, 1): ["Vane"]}},
        set_aside={0: ["Hose", "Vane"]},
        decision=[],
    )
    assert game.scores()[0].equipment == 2 + 2


@pytest.mark.parametrize("coins,vp", [(0, 0), (2, 0), (3, 1), (8, 2), (9, 3), (100, 33)])
def test_FOG_END_5_one_vp_per_three_coins(scen, coins, vp):
    """FOG-END-5: floor(coins / 3)."""
    assert scen(coins={0: coins}, decision=[]).scores()[0].coins == vp


@pytest.mark.parametrize("food,vp", [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2)])
def test_FOG_END_6_one_vp_per_two_food(scen, food, vp):
    """FOG-END-6: floor(food / 2)."""
    assert scen(food={0: food}, decision=[]).scores()[0].food == vp


def test_FOG_END_7_one_vp_per_empty_tower(scen):
    """FOG-END-7: 1 VP per Water Tower holding 0 water."""
    game = scen(farms={0: "T0 S T1\n. . T0"}, decision=[])
    assert game.scores()[0].empty_towers == 2
    assert scen(decision=[]).scores()[0].empty_towers == 0


def test_FOG_END_8_end_game_abilities_of_face_up_locations(scen):
    """FOG-END-8: End-game abilities of face-up locations (Manor: 1 VP per adjacent Field)."""
    game = scen(farms={0: "W T S\nM . .\nB . ."}, legend=LEGEND, decision=[])
    assert game.scores()[0].end_game == 2  # Wheat above, Berries below
    game = scen(farms={0: "W T S\n(M) . ."}, legend=LEGEND, decision=[])
    assert game.scores()[0].end_game == 0


def test_FOG_END_9_and_RUL_36_scoring_consumes_nothing(scen):
    """FOG-END-9 / FOG-RUL-36: coins and food counted for VP stay held; the coin tie-break uses them."""
    game = scen(coins={0: 10}, food={0: 3}, decision=[])
    s = game.scores()[0]
    assert (s.coins, s.food, s.coins_held) == (3, 1, 10)
    assert (game.farms[0].coins, game.farms[0].food) == (10, 3)
    assert game.scores() == game.scores()


def test_FOG_END_10_highest_score_wins(scen):
    """FOG-END-10: the player with the highest final score wins."""
    game = scen(vp_tokens={1: 1}, decision=[])
    assert game.winners() == [1] and game.returns() == [-1.0, 1.0, -1.0]


def test_FOG_END_11_and_RUL_22_tie_break_locations(scen):
    """FOG-END-11 / FOG-RUL-22: tied players: most locations wins; face-up cards incl. towers and silos
    count, fallow cards do not."""
    game = scen(farms={0: "T S X", 1: "(X) T S (X)"}, legend=LEGEND, decision=[])
    s = game.scores()
    assert [x.total for x in s] == [5, 5, 5]
    assert [x.locations for x in s] == [3, 2, 2]
    assert game.winners() == [0]


def test_FOG_END_12_tie_break_coins(scen):
    """FOG-END-12: still tied: most coins wins."""
    game = scen(coins={0: 16, 1: 15, 2: 17}, decision=[])
    assert [s.total for s in game.scores()] == [5, 5, 5]
    assert game.winners() == [2]


def test_FOG_END_13_and_RUL_35_shared_victory(scen):
    """FOG-END-13 / FOG-RUL-35: players still tied share the victory: all get the winner outcome."""
    game = scen(coins={0: 17, 1: 15, 2: 17}, decision=[])
    assert game.winners() == [0, 2] and game.returns() == [1.0, -1.0, 1.0]


def test_FOG_RUL_35_ties_in_two_player_and_fixed_split_modes(scen):
    """FOG-RUL-35: the same tie chain in every mode (2 players, fixed splits)."""
    fixed = {y: (2, 2, 1, 1) for y in range(1, 5)}
    game = scen(num_players=2, decision=[], fixed_split=fixed)
    assert game.winners() == [0, 1] and game.returns() == [1.0, 1.0]
    game = scen(num_players=2, farms={1: "T S X"}, legend=LEGEND, decision=[])
    assert game.winners() == [1]


def test_FOG_RUL_37_fallow_card_scores_nothing(scen):
    """FOG-RUL-37: a fallow card scores no printed VP, has no End-game ability and carries no tile."""
    game = scen(farms={0: "W T S\n(M) . ."}, legend=LEGEND, decision=[])
    s = game.scores()[0]
    assert s.printed_vp == 1 and s.end_game == 0
    with pytest.raises(ValueError):
        scen(farms={0: "W T S\n(M) . ."}, legend=LEGEND, equipment={0: {(3, 1): ["Vane"]}}, decision=[])
    assert cell(game, 3, 1) in game.farms[0].fallow


SCORE_FIELDS = [
    "printed_vp",
    "equipment",
    "coins",
    "food",
    "empty_towers",
    "end_game",
    "locations",
    "coins_held",
]


def test_score_as_dict_equals_the_dataclass_fields_plus_total():
    """``Score.as_dict`` (the fields from the instance dict, speed) equals ``dataclasses.asdict`` plus the total,
    keys in the same order, on the final scores of random games."""
    import dataclasses
    import random

    from farmgames.envs.fields_of_green import Game

    for seed in range(3):
        game, rng = Game(num_players=2 + seed, seed=seed), random.Random(seed)
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
        for s in game.scores():
            d = s.as_dict()
            assert d == {**dataclasses.asdict(s), "total": s.total} and list(d) == [*SCORE_FIELDS, "total"]
            assert d["total"] == sum(d[part] for part in PARTS)
