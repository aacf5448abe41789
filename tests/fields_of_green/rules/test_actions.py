"""Rule tests: the Action phase and the five actions (spec sections 8 and 9, except water range)."""

from __future__ import annotations

import random

import pytest

from farmgames.envs.fields_of_green import Game, IllegalActionError
from farmgames.envs.fields_of_green.render import game_text

from .conftest import act, assert_rejected, cell, is_legal, legal_kinds, play_random

FIXED = {1: (2, 2, 1, 1), 2: (1, 2, 2, 1), 3: (1, 1, 2, 2), 4: (2, 1, 1, 2)}
CORE = {"build", "tower", "silo", "market", "restore"}


def first_pick(game: Game) -> None:
    play_random(game, random.Random(0), until=lambda g: g.decision_kind == "pick")


def decisions_of_turn(game: Game, rng: random.Random) -> list[tuple[str, int]]:
    """(kind, seat) of the pick/act decisions of the current turn, playing randomly."""
    turn, year = game.turn, game.year
    out = []
    while not game.is_terminal() and game.phase == "action" and (game.turn, game.year) == (turn, year):
        if game.decision_kind in ("pick", "act"):
            out.append((game.decision_kind, game.current_player))
        game.apply(rng.choice(game.legal_actions()))
    return out


# ---------------------------------------------------------------- 8. turn structure


def test_FOG_ACT_1_six_turns_per_action_phase():
    """FOG-ACT-1: the Action phase has exactly 6 turns."""
    game = Game(num_players=3, seed=1, fixed_split=FIXED)
    rng = random.Random(1)
    turns: dict[int, set[int]] = {}
    while not game.is_terminal():
        if game.decision_kind == "pick":
            turns.setdefault(game.year, set()).add(game.turn)
        game.apply(rng.choice(game.legal_actions()))
    assert turns == {y: {1, 2, 3, 4, 5, 6} for y in range(1, 5)}


@pytest.mark.parametrize("first", [0, 1, 2])
def test_FOG_ACT_2_and_RUL_15_everyone_picks_then_everyone_acts(first):
    """FOG-ACT-2 / FOG-RUL-15: all players pick (collected in seat order from the first player, hidden),
    then each resolves an action in seat order from the first player."""
    game = Game(num_players=3, seed=2, first_player=first, fixed_split=FIXED)
    seats = [(first + i) % 3 for i in range(3)]
    for _ in range(3):
        got = decisions_of_turn(game, random.Random(first))
        assert got == [("pick", p) for p in seats] + [("act", p) for p in seats]


def test_FOG_ACT_3_pick_one_card_from_hand(scen):
    """FOG-ACT-3: the player takes 1 card from their hand and keeps it apart (the pick)."""
    game = scen(hands={0: ["Wheat", "Pigs", "Well"]}, decision=[("pick", 0)])
    hand = list(game.hands[0])
    act(game, "pick", 1)
    assert game.picks[0] == hand[1] and game.hands[0] == [hand[0], hand[2]]
    assert legal_kinds(scen(hands={0: ["Wheat", "Pigs"]}, decision=[("pick", 0)])) == {"pick": [0, 1]}


def test_FOG_ACT_4_and_RUL_15_pick_hidden_until_reveal():
    """FOG-ACT-4 / FOG-RUL-15: a pick stays hidden: the next player's decision does not depend on it and
    the table shown to another seat does not reveal it."""
    base = Game(num_players=3, seed=4, first_player=0, fixed_split=FIXED)
    after = []
    for slot in range(2):
        game = base.clone()
        act(game, "pick", slot)
        assert not game.revealed
        after.append((game.decision, game.legal_actions(), game_text(game, viewer=1).split("player 1")[0]))
        name = game.cards.locations[game.picks[0]].name
        assert f"pick: {name}" not in game_text(game, viewer=1)
        assert f"pick: {name}" in game_text(game, viewer=0)
    assert after[0] == after[1]


@pytest.mark.parametrize("direction,step", [("cw", 1), ("ccw", -1)])
def test_FOG_ACT_5_and_RUL_29_pass_to_neighbour(direction, step):
    """FOG-ACT-5 / FOG-RUL-29: clockwise passes to the left neighbour (seat+1), counterclockwise to the
    right neighbour (seat-1)."""
    game = Game(num_players=4, seed=5, first_player=0, fixed_split=FIXED, pass_directions=[direction] * 4)
    kept = {}
    for p in range(4):
        assert game.decision == ("pick", p)
        kept[p] = game.hands[p][1:]  # what is left after picking slot 0
        act(game, "pick", 0)
    assert game.decision_kind == "act"
    for p in range(4):
        assert game.hands[(p + step) % 4] == kept[p]


def test_FOG_ACT_6_reveal_when_all_have_picked():
    """FOG-ACT-6: picks are turned up together once every player has picked."""
    game = Game(num_players=3, seed=6, first_player=0, fixed_split=FIXED)
    for p in range(3):
        assert not game.revealed and game.decision == ("pick", p)
        act(game, "pick", 0)
    assert game.revealed and all(c is not None for c in game.picks) and game.decision == ("act", 0)


def test_FOG_ACT_7_one_action_per_player_per_turn():
    """FOG-ACT-7: each player performs exactly one of the five actions with their revealed card."""
    game = Game(num_players=4, seed=7, fixed_split=FIXED)
    rng = random.Random(7)
    for _turn in range(1, 7):
        before = [f.actions_taken for f in game.farms]
        decisions_of_turn(game, rng)
        assert [f.actions_taken for f in game.farms] == [b + 1 for b in before]


@pytest.mark.parametrize("n", [3, 4])
def test_FOG_ACT_8_hand_sizes_seven_minus_t(n):
    """FOG-ACT-8: in turn t each hand holds 7-t cards before the pick; turn 6 passes nothing."""
    game = Game(num_players=n, seed=8)
    rng = random.Random(8)
    seen = 0
    while not game.is_terminal():
        if game.decision_kind == "pick":
            assert len(game.hands[game.current_player]) == 7 - game.turn
            seen += 1
        game.apply(rng.choice(game.legal_actions()))
    assert seen == n * 6 * 4


def test_FOG_ACT_9_phase_ends_with_empty_hands():
    """FOG-ACT-9: the Action phase ends after turn 6 with all hands empty."""
    game = Game(num_players=3, seed=9, fixed_split=FIXED)
    play_random(game, random.Random(9), until=lambda g: g.phase == "harvest")
    assert game.turn == 6 and all(h == [] for h in game.hands) and all(p is None for p in game.picks)
    assert all(f.actions_taken == 6 for f in game.farms)


def test_FOG_ACT_10_the_five_actions(scen):
    """FOG-ACT-10: A Build Location, B Build Water Tower, C Build Silo, D Go to Market, E Restore."""
    game = scen(farms={0: "(W) T S"}, legend={"W": "Wheat"}, picks={0: "Wheat"}, decision=("act", 0))
    assert set(legal_kinds(game)) == CORE


@pytest.mark.parametrize("kind,arg", [("tower", (1, 2)), ("silo", (1, 2)), ("market", 0), ("restore", (2, 1))])
def test_FOG_ACT_11_actions_B_to_E_discard_the_card(scen, kind, arg):
    """FOG-ACT-11: B-E may be taken with any card and discard it; A builds the card itself."""
    game = scen(farms={0: "(W) T S"}, legend={"W": "Wheat"}, picks={0: "Chapel"}, decision=("act", 0))
    card = game.picks[0]
    act(game, kind, cell(game, *arg) if isinstance(arg, tuple) else arg)
    assert game.discard == [card] and game.picks[0] is None
    assert card not in game.farms[0].grid


def test_FOG_ACT_11_action_A_builds_the_card(scen):
    """FOG-ACT-11: action A puts the picked card itself on the farm (not in the discard)."""
    game = scen(picks={0: "Chapel"}, decision=("act", 0))
    card = game.picks[0]
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].grid[cell(game, 1, 2)] == card and game.discard == []


def test_FOG_ACT_12_and_RUL_16_impossible_action_not_offered_and_rejected(scen):
    """FOG-ACT-12 / FOG-RUL-16: an action whose conditions cannot be met is not offered; submitting it
    raises IllegalActionError naming it and listing the legal ones; the state is unchanged."""
    game = scen(picks={0: "Chapel"}, coins={0: 1}, decision=("act", 0))
    kinds = legal_kinds(game)
    assert "build" not in kinds and "tower" not in kinds and "restore" not in kinds
    before = game.to_json()
    bad = game.layout.index("build", cell(game, 1, 2))
    with pytest.raises(IllegalActionError) as err:
        game.apply(bad)
    text = str(err.value)
    assert str(bad) in text and "build Chapel" in text and "go to market" in text
    assert str(game.legal_actions()) in text
    assert game.to_json() == before
    assert_rejected(game, "tower", cell(game, 1, 2))
    assert_rejected(game, "restore", cell(game, 2, 2))


@pytest.mark.parametrize("bad", [-1, 10**6, "market", None, 2.5])
def test_FOG_RUL_16_malformed_actions_rejected_state_unchanged(scen, bad):
    """FOG-RUL-16: indices outside the action space, non-integers and near-integers are rejected with
    IllegalActionError (never rounded to some legal action) and the state stays exactly as it was."""
    game = scen(picks={0: "Chapel"}, decision=("act", 0))
    if bad == 2.5:
        bad = game.legal_actions()[0] + 0.5
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply(bad)
    assert game.to_json() == before


def test_FOG_RUL_16_integer_like_actions_accepted(scen):
    """FOG-RUL-16: numpy integers (and integral floats) name the same action as the plain int."""
    import numpy as np

    game = scen(picks={0: "Chapel"}, decision=("act", 0))
    game.apply(np.int64(game.layout.index("market", 1)))
    assert game.farms[0].coins == 19


def test_FOG_RUL_16_no_action_after_the_end(scen):
    """FOG-RUL-16: once the game is over every action is rejected."""
    game = scen(decision=[])
    assert game.is_terminal() and game.legal_actions() == [] and not game.legal_mask().any()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(game.layout.index("market", 0))


def test_FOG_ACT_13_market_always_legal(make_set):
    """FOG-ACT-13: with no coins, food, fallow cards, towers or silos left, Market is still legal."""
    from farmgames.envs.fields_of_green.scenario import scenario

    path = make_set(
        towers={"count": 3, "capacity": 3, "start_water": 3},
        silos={"count": 3, "capacity": 4},
        locations={"Building": [{"name": "Dear", "cost": {"coins": 9}}]},
    )
    game = scenario(
        num_players=3, card_set=path, farm_size=5, coins={0: 0}, food={0: 0}, picks={0: "Dear"}, decision=("act", 0)
    )
    assert game.towers_left == 0 and game.silos_left == 0
    assert legal_kinds(game) == {"market": [0]}


def test_FOG_ACT_14_single_public_discard_pile(scen):
    """FOG-ACT-14: discarded cards go face up to one common discard pile (in order)."""
    game = scen(picks={0: "Chapel", 1: "Wheat", 2: "Pigs"}, decision=[("act", 0), ("act", 1), ("act", 2)])
    ids = list(game.picks)
    act(game, "market", 0)
    act(game, "silo", cell(game, 1, 2))
    act(game, "market", 1)
    assert game.discard == ids
    assert "discard 3" in str(game)


def test_FOG_ACT_15_and_RUL_30_discards_never_return():
    """FOG-ACT-15 / FOG-RUL-30: the discard pile only grows and its cards never come back into play."""
    game = Game(num_players=4, seed=15)
    rng = random.Random(15)
    prev: list[int] = []
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
        assert game.discard[: len(prev)] == prev
        prev = list(game.discard)
        in_play = {c for h in game.hands for c in h} | {c for p in game.piles for c in p}
        in_play |= {c for c in game.picks if c is not None}
        in_play |= {c for f in game.farms for c in f.grid if c >= 0}
        assert not in_play & set(prev)
    assert prev


# ---------------------------------------------------------------- 9.1 A - Build Location


def test_FOG_ACT_BUILD_1_card_added_to_own_farm(scen):
    """FOG-ACT-BUILD-1: the picked card goes onto the player's own farm, face up."""
    game = scen(picks={1: "Chapel"}, decision=("act", 1))
    card = game.picks[1]
    act(game, "build", cell(game, 3, 3))
    assert game.farms[1].grid[cell(game, 3, 3)] == card and cell(game, 3, 3) not in game.farms[1].fallow
    assert card not in game.farms[0].grid


def test_FOG_ACT_BUILD_2_target_cell_adjacent_and_empty(scen):
    """FOG-ACT-BUILD-2: the target is an empty cell orthogonally adjacent to the farm (at the start:
    next to the tower or silo)."""
    game = scen(picks={0: "Chapel"}, decision=("act", 0))
    expected = sorted(cell(game, r, c) for r, c in [(1, 2), (3, 2), (2, 1), (1, 3), (3, 3), (2, 4)])
    assert legal_kinds(game)["build"] == expected
    for r, c in [(2, 2), (2, 3), (0, 0), (1, 1), (1, 4)]:
        assert_rejected(game, "build", cell(game, r, c))


def test_FOG_ACT_BUILD_3_pay_coin_cost(scen):
    """FOG-ACT-BUILD-3: the coin cost is paid."""
    game = scen(picks={0: "Chapel"}, coins={0: 6}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].coins == 2


PADDY_FARM = """
. . . . .
. . . . .
T1 W T2 S .
. . . . .
. . . . .
"""


def test_FOG_ACT_BUILD_4_water_from_towers_in_range(scen):
    """FOG-ACT-BUILD-4: the water cost is paid from towers in range of the target cell only."""
    game = scen(farms={0: PADDY_FARM}, legend={"W": "Wheat"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    far_tower, near_tower = cell(game, 2, 0), cell(game, 2, 2)
    act(game, "build", cell(game, 1, 2))  # tower (2,0) is 3 steps away
    assert game.decision_kind == "pay_water"
    assert legal_kinds(game) == {"pay_water": [near_tower]}
    assert_rejected(game, "pay_water", far_tower)
    act(game, "pay_water", near_tower)
    act(game, "pay_water", near_tower)
    farm = game.farms[0]
    assert farm.tower_water == {far_tower: 1, near_tower: 0}
    assert game.cards.locations[farm.grid[cell(game, 1, 2)]].name == "Rice Paddy"


def test_FOG_ACT_BUILD_5_food_cost_illegal_only_because_of_food(scen):
    """FOG-ACT-BUILD-5: the food cost is paid from the silos; 1 food short makes the build illegal."""
    short = scen(picks={0: "Cows"}, food={0: 1}, coins={0: 15}, decision=("act", 0))
    assert "build" not in legal_kinds(short)
    game = scen(picks={0: "Cows"}, food={0: 2}, coins={0: 15}, decision=("act", 0))
    assert "build" in legal_kinds(game)
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].food == 0 and game.farms[0].coins == 14


def test_FOG_ACT_BUILD_6_no_partial_payment(scen):
    """FOG-ACT-BUILD-6: the full cost is paid or nothing is built: with 1 of 2 water in range the
    Paddy cannot be built although coins suffice; a completed build paid everything."""
    game = scen(farms={0: "T1 S"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    assert "build" not in legal_kinds(game)
    game = scen(farms={0: "T2 S"}, picks={0: "Rice Paddy"}, coins={0: 2}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    act(game, "pay_water", cell(game, 2, 2))
    act(game, "pay_water", cell(game, 2, 2))
    farm = game.farms[0]
    assert (farm.coins, farm.water) == (0, 0) and game.is_terminal()


def test_FOG_ACT_BUILD_7_legal_only_where_the_whole_cost_can_be_paid(scen):
    """FOG-ACT-BUILD-7: action A is offered exactly at the cells where the complete cost is payable."""
    game = scen(farms={0: PADDY_FARM}, legend={"W": "Wheat"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    # every adjacent empty cell except (1,0) and (3,0): those reach only the 1-water tower
    expected = sorted(cell(game, r, c) for r, c in [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3), (2, 4)])
    assert legal_kinds(game)["build"] == expected
    assert sorted(game.farms[0].frontier) == sorted(expected + [cell(game, 1, 0), cell(game, 3, 0)])
    no_water = scen(farms={0: "T0 S"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    assert "build" not in legal_kinds(no_water)


def test_FOG_ACT_BUILD_8_and_RUL_17_pay_place_attach_then_immediate(scen):
    """FOG-ACT-BUILD-8 / FOG-RUL-17: pay, place face up, attach set-aside tiles, then the Immediate
    ability."""
    game = scen(picks={0: "Mint"}, coins={0: 5}, set_aside={0: ["Crate"]}, decision=("act", 0))
    target = cell(game, 1, 2)
    act(game, "build", target)
    farm = game.farms[0]
    assert game.decision_kind == "attach"
    assert game.cards.locations[farm.grid[target]].name == "Mint"  # placed
    assert farm.coins == 2  # paid, Immediate (+4) not yet applied
    act(game, "attach", 0)  # Crate: +1 coin when placed
    assert farm.equipment[target] and farm.coins == 2 + 1 + 4
    assert game.is_terminal()


def test_FOG_ACT_BUILD_9_own_immediate_cannot_pay_the_cost(scen):
    """FOG-ACT-BUILD-9: Mint (3 coins, Immediate: +4 coins) cannot be built with 2 coins."""
    game = scen(picks={0: "Mint"}, coins={0: 2}, decision=("act", 0))
    assert "build" not in legal_kinds(game)


def test_FOG_ACT_BUILD_10_harvest_and_end_game_not_resolved_on_build(scen):
    """FOG-ACT-BUILD-10: building a Harvest or End-game card resolves nothing."""
    game = scen(
        farms={0: "W T S"}, legend={"W": "Wheat"}, picks={0: "Manor", 1: "Wheat"}, decision=[("act", 0), ("act", 1)]
    )
    before = [(f.coins, f.food, f.water, f.vp_tokens) for f in game.farms]
    act(game, "build", cell(game, 1, 1))  # Manor next to the Wheat
    act(game, "build", cell(game, 1, 2))
    after = [(f.coins, f.food, f.water, f.vp_tokens) for f in game.farms]
    assert after[0] == (before[0][0] - 2,) + before[0][1:]
    assert after[1] == (before[1][0] - 1,) + before[1][1:]


def test_FOG_ACT_BUILD_11_build_although_harvest_cost_unpayable(scen):
    """FOG-ACT-BUILD-11: a Field needing harvest water may be built where no tower is in range."""
    game = scen(farms={0: "T S W"}, legend={"W": "Wheat"}, picks={0: "Wheat"}, decision=("act", 0))
    far = cell(game, 1, 4)
    assert not game.farms[0].tower_in_range(cell(game, 2, 2), far)
    assert is_legal(game, "build", far)
    act(game, "build", far)
    assert game.cards.locations[game.farms[0].grid[far]].name == "Wheat"


# ---------------------------------------------------------------- 9.3 B - Build Water Tower


def test_FOG_ACT_TOWER_1_to_4_build_water_tower(scen):
    """FOG-ACT-TOWER-1: the card is discarded; FOG-ACT-TOWER-2: 2 coins; FOG-ACT-TOWER-3: the top tower
    card goes on a cell adjacent to the farm; FOG-ACT-TOWER-4: it receives 3 water."""
    game = scen(picks={0: "Chapel"}, coins={0: 5}, decision=("act", 0))
    card, left = game.picks[0], game.towers_left
    assert legal_kinds(game)["tower"] == legal_kinds(game)["build"]  # same adjacent empty cells
    act(game, "tower", cell(game, 3, 3))
    farm = game.farms[0]
    assert game.discard == [card]  # TOWER-1
    assert farm.coins == 3  # TOWER-2
    assert game.towers_left == left - 1 and farm.grid[cell(game, 3, 3)] == -2  # TOWER-3
    assert farm.tower_water[cell(game, 3, 3)] == 3 and farm.water == 6  # TOWER-4


def test_FOG_ACT_TOWER_5_illegal_without_coins_or_towers(scen, make_set):
    """FOG-ACT-TOWER-5: illegal with fewer than 2 coins or an empty Water Tower pile."""
    from farmgames.envs.fields_of_green.scenario import scenario

    assert "tower" not in legal_kinds(scen(picks={0: "Statue"}, coins={0: 1}, decision=("act", 0)))
    assert "tower" in legal_kinds(scen(picks={0: "Statue"}, coins={0: 2}, decision=("act", 0)))
    path = make_set(towers={"count": 3, "capacity": 3, "start_water": 3})
    game = scenario(num_players=3, card_set=path, farm_size=5, picks={0: "Plain Field"}, decision=("act", 0))
    assert game.towers_left == 0 and "tower" not in legal_kinds(game)


# ---------------------------------------------------------------- 9.4 C - Build Silo


def test_FOG_ACT_SILO_1_to_4_build_silo(scen):
    """FOG-ACT-SILO-1: the card is discarded; FOG-ACT-SILO-2: it costs nothing; FOG-ACT-SILO-3: the top
    silo goes on an adjacent cell; FOG-ACT-SILO-4: the new silo is empty and only adds storage."""
    game = scen(picks={0: "Chapel"}, coins={0: 0}, food={0: 3}, decision=("act", 0))
    card, left = game.picks[0], game.silos_left
    assert "silo" in legal_kinds(game)
    act(game, "silo", cell(game, 2, 1))
    farm = game.farms[0]
    assert game.discard == [card]
    assert farm.coins == 0
    assert game.silos_left == left - 1 and farm.grid[cell(game, 2, 1)] == -3
    assert farm.food == 3 and farm.food_capacity == 8


def test_FOG_ACT_SILO_5_illegal_when_pile_empty(make_set):
    """FOG-ACT-SILO-5: no silo can be built from an empty Silo pile."""
    from farmgames.envs.fields_of_green.scenario import scenario

    path = make_set(silos={"count": 3, "capacity": 4})
    game = scenario(num_players=3, card_set=path, farm_size=5, picks={0: "Plain Field"}, decision=("act", 0))
    assert game.silos_left == 0 and "silo" not in legal_kinds(game)
    path = make_set(silos={"count": 4, "capacity": 4})
    game = scenario(num_players=3, card_set=path, farm_size=5, picks={0: "Plain Field"}, decision=("act", 0))
    assert "silo" in legal_kinds(game)


# ---------------------------------------------------------------- 9.5 D - Go to Market


@pytest.mark.parametrize("sold,gain", [(0, 2), (1, 4), (2, 6)])
def test_FOG_ACT_MARKET_1_to_3_market_yields_2_4_6(scen, sold, gain):
    """FOG-ACT-MARKET-1: discard and gain 2 coins; FOG-ACT-MARKET-2: sell 0-2 food at 2 coins each;
    FOG-ACT-MARKET-3: 2, 4 or 6 coins."""
    game = scen(picks={0: "Wheat"}, coins={0: 0}, food={0: 3}, decision=("act", 0))
    card = game.picks[0]
    assert legal_kinds(game)["market"] == [0, 1, 2]
    act(game, "market", sold)
    assert game.farms[0].coins == gain and game.farms[0].food == 3 - sold and game.discard == [card]


@pytest.mark.parametrize("food,options", [(0, [0]), (1, [0, 1]), (2, [0, 1, 2]), (4, [0, 1, 2])])
def test_FOG_ACT_MARKET_4_cannot_sell_more_food_than_held(scen, food, options):
    """FOG-ACT-MARKET-4: at most the food held may be sold; the market itself is always legal."""
    game = scen(picks={0: "Wheat"}, food={0: food}, decision=("act", 0))
    assert legal_kinds(game)["market"] == options
    if food < 2:
        assert_rejected(game, "market", food + 1)


# ---------------------------------------------------------------- 9.6 E - Restore Location


def test_FOG_ACT_RESTORE_1_and_2_restore_fallow_card(scen):
    """FOG-ACT-RESTORE-1: discard and pay 1 coin; FOG-ACT-RESTORE-2: one own fallow card turns face up."""
    game = scen(
        farms={0: "(W) T S (M)"},
        legend={"W": "Wheat", "M": "Manor"},
        picks={0: "Pigs"},
        coins={0: 3},
        decision=("act", 0),
    )
    card = game.picks[0]
    farm = game.farms[0]
    assert legal_kinds(game)["restore"] == sorted([cell(game, 2, 1), cell(game, 2, 4)])
    act(game, "restore", cell(game, 2, 4))
    assert farm.coins == 2 and game.discard == [card]
    assert farm.fallow == {cell(game, 2, 1)}


def test_FOG_ACT_RESTORE_3_needs_a_fallow_card_and_a_coin(scen):
    """FOG-ACT-RESTORE-3: illegal without a fallow card or with 0 coins."""
    assert "restore" not in legal_kinds(scen(picks={0: "Pigs"}, decision=("act", 0)))
    broke = scen(farms={0: "(W) T S"}, legend={"W": "Wheat"}, picks={0: "Pigs"}, coins={0: 0}, decision=("act", 0))
    assert "restore" not in legal_kinds(broke)
    assert_rejected(broke, "restore", cell(broke, 2, 1))


def test_FOG_ACT_RESTORE_4_and_RUL_21_restored_card_counts_again(scen):
    """FOG-ACT-RESTORE-4 / FOG-RUL-21: a restored card's type, VP and Harvest ability count again; its
    Immediate ability does not trigger again."""
    game = scen(
        farms={0: "(W) T S (P)"},
        legend={"W": "Wheat", "P": "Pantry"},
        picks={0: "Pigs"},
        food={0: 0},
        decision=[("act", 0), ("harvest", 0)],
        year=4,
    )
    wheat, pantry = cell(game, 2, 1), cell(game, 2, 4)
    assert game.scores()[0].printed_vp == 0
    act(game, "restore", wheat)
    assert game.scores()[0].printed_vp == 1
    assert game.decision == ("harvest", 0) and is_legal(game, "harvest", wheat)  # takes part in harvest
    game2 = scen(
        farms={0: "(W) T S (P)"},
        legend={"W": "Wheat", "P": "Pantry"},
        picks={0: "Pigs"},
        food={0: 0},
        decision=("act", 0),
    )
    act(game2, "restore", pantry)
    assert game2.farms[0].food == 0  # Pantry's Immediate (+3 food) does not fire


def test_FOG_ACT_RESTORE_5_lost_equipment_not_returned(scen):
    """FOG-ACT-RESTORE-5: equipment discarded when the card went fallow does not come back."""
    game = scen(
        farms={0: "T0 S W"},
        legend={"W": "Wheat"},
        equipment={0: {(2, 4): ["Scarecrow"]}},
        picks={0: "Pigs"},
        year=4,
        decision=[("harvest", 0), ("act", 0)],
    )
    wheat = cell(game, 2, 4)
    tile = game.farms[0].equipment[wheat][0]
    act(game, "harvest_end")  # cannot pay the water: fallow, Scarecrow discarded
    assert wheat in game.farms[0].fallow and game.removed_equipment == [tile]
    act(game, "restore", wheat)
    assert wheat not in game.farms[0].fallow and game.farms[0].equipment.get(wheat) is None
    assert game.removed_equipment == [tile]


def test_FOG_ACT_RESTORE_6_and_RUL_21_no_attach_when_restoring(scen):
    """FOG-ACT-RESTORE-6 / FOG-RUL-21: restoring is not building: matching set-aside tiles stay aside."""
    game = scen(
        farms={0: "(W) T S"}, legend={"W": "Wheat"}, set_aside={0: ["Hose"]}, picks={0: "Pigs"}, decision=("act", 0)
    )
    act(game, "restore", cell(game, 2, 1))
    assert game.is_terminal()  # no attach decision followed
    assert len(game.farms[0].set_aside) == 1 and game.farms[0].equipment == {}


# ---------------------------------------------------------------- 9.7 ability timing


def test_FOG_ABIL_1_immediate_resolves_once_after_building(scen):
    """FOG-ABIL-1: an Immediate ability resolves once, right after its location is built."""
    game = scen(picks={0: "Pantry"}, food={0: 0}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].food == 3


def _market_policy(game: Game) -> int:
    kinds = legal_kinds(game)
    if game.decision_kind == "act":
        return game.layout.index("market", 0)
    if "harvest" in kinds:
        return game.layout.index("harvest", kinds["harvest"][0])
    return game.legal_actions()[0]


def test_FOG_ABIL_2_harvest_ability_every_harvest(scen):
    """FOG-ABIL-2: a Harvest ability is used in every Harvest phase while its location is face up."""
    game = scen(farms={0: "W T S"}, legend={"W": "Wheat"}, food={0: 0}, year=3, decision=[("harvest_phase",)])
    wheat = cell(game, 2, 1)
    used = []
    while not game.is_terminal():
        if game.decision == ("harvest", 0):
            assert is_legal(game, "harvest", wheat)
            used.append(game.year)
        game.apply(_market_policy(game))
    assert used[0] == 3 and used[-1] == 4
    assert wheat not in game.farms[0].fallow


def test_FOG_ABIL_3_end_game_only_at_scoring(scen):
    """FOG-ABIL-3: an End-game ability acts only in final scoring."""
    game = scen(farms={0: "W T S"}, legend={"W": "Wheat"}, picks={0: "Manor"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 1))  # next to the Wheat
    farm = game.farms[0]
    assert farm.vp_tokens == 0
    assert game.scores()[0].end_game == 1


def test_FOG_ABIL_4_and_RUL_37_fallow_card_has_no_type_vp_or_ability(scen):
    """FOG-ABIL-4 / FOG-RUL-37: a fallow card has no type (Manor does not count it), no VP and no
    abilities (no harvest, no end-game)."""
    game = scen(farms={0: "(W) T S\n(M) . ."}, legend={"W": "Wheat", "M": "Manor"}, origin=(2, 1), decision=[])
    s = game.scores()[0]
    assert s.printed_vp == 0 and s.end_game == 0
    game = scen(
        farms={0: "(W) T S\nM . ."},
        legend={"W": "Wheat", "M": "Manor"},
        origin=(2, 1),
        year=4,
        decision=[("harvest", 0)],
    )
    assert game.is_terminal()  # the fallow Wheat offers no harvest
    s = game.scores()[0]
    assert s.printed_vp == 3 and s.end_game == 0  # Manor: fallow Wheat is no Field


def test_FOG_ABIL_5_ability_gains_stored_overflow_lost(scen):
    """FOG-ABIL-5: resources from abilities are stored by section 5 (overflow lost)."""
    game = scen(picks={0: "Pantry"}, food={0: 3}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].food == 4


def test_FOG_ABIL_6_ability_texts_are_data(make_set):
    """FOG-ABIL-6: abilities are card data: a set may define its own (here: Immediate +2 VP tokens)."""
    from farmgames.envs.fields_of_green.scenario import scenario

    path = make_set(
        locations={
            "Construction": [{"name": "Shrine", "ability": {"kind": "immediate", "effect": [{"gain": {"vp": 2}}]}}]
        }
    )
    game = scenario(num_players=3, card_set=path, farm_size=5, picks={0: "Shrine"}, decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.farms[0].vp_tokens == 2
