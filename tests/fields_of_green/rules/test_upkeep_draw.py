"""Rule tests: Upkeep phase and the draw (spec section 7, rulings FOG-RUL-3, -4, -14, -30)."""

from __future__ import annotations

import random
from itertools import product

import pytest

from farmgames.envs.fields_of_green import SPLITS, Game
from farmgames.envs.fields_of_green.cards import PILES

from .conftest import act, legal_kinds, play_random

NORMAL_SPLITS = {s for s in product(range(7), repeat=4) if sum(s) == 6 and sum(1 for c in s if c) >= 3}


def legal_splits(game: Game) -> set[tuple[int, ...]]:
    assert game.decision_kind == "split"
    return {SPLITS[arg] for arg in legal_kinds(game)["split"]}


def to_year(game: Game, year: int, rng=None) -> None:
    """Play (first legal action, or random) until the first split decision of ``year``."""
    rng = rng or random.Random(0)
    play_random(game, rng, until=lambda g: g.year == year and g.decision_kind == "split")


def test_FOG_UPKEEP_1_order_year_direction_income_draw(scen):
    """FOG-UPKEEP-1: move the Year token, read the direction, collect income, then draw."""
    game = scen(farms={0: "T1 S"}, coins={0: 4}, food={0: 0}, year=1, decision=[("year",)])
    assert game.decision == ("split", 0)  # the draw comes last ...
    assert game.year == 2 and game.direction == "counterclockwise"  # ... after year and direction
    farm = game.farms[0]
    assert (farm.coins, farm.water, farm.food) == (7, 3, 1)  # ... and after income
    assert game.phase == "draw"


def test_FOG_UPKEEP_2_year_token_moves_each_year():
    """FOG-UPKEEP-2: the Year token shows the current year, 1 then 2, 3, 4."""
    game = Game(num_players=3, seed=5)
    seen = []
    rng = random.Random(5)
    while not game.is_terminal():
        if not seen or seen[-1] != game.year:
            seen.append(game.year)
        game.apply(rng.choice(game.legal_actions()))
    assert seen == [1, 2, 3, 4]


def test_FOG_UPKEEP_3_and_RUL_4_direction_per_year():
    """FOG-UPKEEP-3 / FOG-RUL-4: the year's passing direction comes from the Year Track: by default
    clockwise, counterclockwise, clockwise, counterclockwise; configurable with pass_directions."""
    for dirs, expected in [
        (None, ["clockwise", "counterclockwise", "clockwise", "counterclockwise"]),
        (["ccw", "ccw", "cw", "cw"], ["counterclockwise", "counterclockwise", "clockwise", "clockwise"]),
    ]:
        kwargs = {} if dirs is None else {"pass_directions": dirs}
        game = Game(num_players=3, seed=2, **kwargs)
        got = []
        for year in range(1, 5):
            to_year(game, year)
            got.append(game.direction)
        assert got == expected
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, pass_directions=["cw", "cw", "cw"])
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, pass_directions=["up", "cw", "cw", "cw"])


@pytest.mark.parametrize("year", [2, 3, 4])
def test_FOG_UPKEEP_4_income_in_years_2_to_4(scen, year):
    """FOG-UPKEEP-4: in years 2, 3 and 4 every player gains 1 food, 2 water and 3 coins."""
    game = scen(
        farms={p: "T0 S" for p in range(3)},
        coins={p: p for p in range(3)},
        food={p: 0 for p in range(3)},
        year=year - 1,
        decision=[("year",)],
    )
    assert game.year == year
    for p, farm in enumerate(game.farms):
        assert (farm.coins, farm.water, farm.food) == (p + 3, 2, 1)


def test_FOG_UPKEEP_5_no_income_in_year_1():
    """FOG-UPKEEP-5: year 1 skips income; the draw still happens."""
    game = Game(num_players=4, seed=0)
    assert game.year == 1 and game.decision_kind == "split"
    assert all((f.coins, f.water, f.food) == (15, 3, 1) for f in game.farms)


def test_FOG_UPKEEP_6_income_overflow_is_lost(scen):
    """FOG-UPKEEP-6: income water and food are stored by section 5, overflow is lost."""
    game = scen(farms={0: "T2 S"}, food={0: 4}, coins={0: 0}, year=1, decision=[("year",)])
    farm = game.farms[0]
    assert (farm.water, farm.food, farm.coins) == (3, 4, 3)  # 1 water and 1 food lost


def test_FOG_UPKEEP_7_draw_follows_income():
    """FOG-UPKEEP-7: after income every player draws a hand."""
    game = Game(num_players=3, seed=1, first_player=0)
    to_year(game, 2)
    seats = []
    while game.decision_kind == "split":
        seats.append(game.current_player)
        game.apply(game.legal_actions()[0])
    assert sorted(seats) == [0, 1, 2]
    assert all(len(h) == 6 for h in game.hands)


# ---------------------------------------------------------------- 7.1 the draw


@pytest.mark.parametrize("first", [0, 2, 3])
def test_FOG_DRAW_1_draw_order_clockwise_from_first_player(first):
    """FOG-DRAW-1: players draw one at a time from the first player clockwise, whatever the direction."""
    game = Game(num_players=4, seed=3, first_player=first, pass_directions=["ccw"] * 4)
    order = []
    while game.decision_kind == "split":
        order.append(game.current_player)
        game.apply(game.legal_actions()[0])
    assert order == [(first + i) % 4 for i in range(4)]


def test_FOG_DRAW_2_six_cards_each():
    """FOG-DRAW-2: each player draws exactly 6 cards from the four main piles."""
    game = Game(num_players=4, seed=3)
    while game.decision_kind == "split":
        assert all(sum(SPLITS[a]) == 6 for a in legal_kinds(game)["split"])
        game.apply(random.Random(1).choice(game.legal_actions()))
    assert [len(h) for h in game.hands] == [6] * 4
    assert sum(len(p) for p in game.piles) == 132 - 24


def test_FOG_DRAW_3_at_least_three_piles():
    """FOG-DRAW-3: the 6 cards come from at least 3 different piles: 6-0-0-0 and 3-3-0-0 are illegal."""
    game = Game(num_players=3, seed=0)
    splits = legal_splits(game)
    assert all(sum(1 for c in s if c) >= 3 for s in splits)
    assert (6, 0, 0, 0) not in splits and (3, 3, 0, 0) not in splits and (0, 2, 0, 4) not in splits


def test_FOG_DRAW_4_and_RUL_14_exactly_50_normal_splits():
    """FOG-DRAW-4 / FOG-RUL-14: with full piles exactly the 50 splits are legal, incl. 3-2-1-0, 2-1-1-2, 1-4-0-1."""
    game = Game(num_players=4, seed=0)
    splits = legal_splits(game)
    assert splits == NORMAL_SPLITS and len(splits) == 50
    assert {(3, 2, 1, 0), (2, 1, 1, 2), (1, 4, 0, 1)} <= splits


def test_FOG_DRAW_5_blind_draw_from_the_tops():
    """FOG-DRAW-5: the whole split is fixed first; all cards come from the tops of the piles at once."""
    game = Game(num_players=3, seed=8, first_player=0)
    split = (1, 2, 0, 3)
    tops = [pile[len(pile) - k :] if k else [] for pile, k in zip(game.piles, split)]
    before = [len(p) for p in game.piles]
    game.apply(game.layout.index("split", SPLITS.index(split)))
    assert sorted(game.hands[0]) == sorted(c for t in tops for c in t)
    assert [len(p) for p in game.piles] == [b - k for b, k in zip(before, split)]
    assert game.decision == ("split", 1)  # one action = the whole draw: no card-by-card choice


def test_FOG_DRAW_6_draw_counts_are_recorded_publicly():
    """FOG-DRAW-6: how many cards each player took from each pile is recorded (public)."""
    game = Game(num_players=3, seed=8, first_player=1)
    act(game, "split", SPLITS.index((3, 2, 1, 0)))
    act(game, "split", SPLITS.index((0, 1, 1, 4)))
    assert game.draw_counts[1] == [3, 2, 1, 0] and game.draw_counts[2] == [0, 1, 1, 4]
    assert game.draw_counts[0] == [0, 0, 0, 0]
    assert '"draw_counts": [[0, 0, 0, 0], [3, 2, 1, 0], [0, 1, 1, 4]]' in game.to_json()


def test_FOG_DRAW_7_not_more_than_a_pile_holds(scen):
    """FOG-DRAW-7 / FOG-RUL-14: a split may not take more cards from a pile than it holds."""
    game = scen(pile_sizes={"Field": 1}, decision=("split", 0))
    splits = legal_splits(game)
    assert splits and all(s[0] <= 1 for s in splits)
    assert (1, 2, 2, 1) in splits and (2, 2, 1, 1) not in splits


def test_FOG_DRAW_8_and_RUL_30_empty_pile_stays_empty(scen):
    """FOG-DRAW-8 / FOG-RUL-30: an empty pile stays empty; the discard pile is never shuffled back."""
    game = scen(pile_sizes={"Field": 0}, discard=["Wheat"], year=1, decision=[("harvest_phase",)])
    assert game.year == 2 and game.decision_kind == "split"
    assert game.piles[0] == [] and len(game.discard) == 12  # the whole Field pile
    discard = list(game.discard)
    while game.decision_kind == "split":
        assert all(SPLITS[a][0] == 0 for a in legal_kinds(game)["split"])
        game.apply(game.legal_actions()[0])
    assert game.piles[0] == [] and game.discard == discard


def test_FOG_DRAW_9_drawn_cards_are_the_hand():
    """FOG-DRAW-9: the 6 drawn cards are the player's hand for the year."""
    game = Game(num_players=3, seed=4, first_player=0)
    split = (2, 2, 1, 1)
    expected = sorted(c for pile, k in zip(game.piles, split) for c in (pile[len(pile) - k :] if k else []))
    act(game, "split", SPLITS.index(split))
    while game.decision_kind == "split":
        game.apply(game.legal_actions()[0])
    assert game.decision == ("pick", 0) and game.hands[0] == expected


def test_FOG_DRAW_10_action_phase_after_everyone_drew():
    """FOG-DRAW-10: the Action phase starts only after every player has drawn."""
    game = Game(num_players=4, seed=4, first_player=1)
    for _ in range(3):
        game.apply(game.legal_actions()[0])
        assert game.decision_kind == "split" and game.phase == "draw"
    game.apply(game.legal_actions()[0])
    assert game.decision_kind == "pick" and game.phase == "action"
    assert all(len(h) == 6 for h in game.hands)


def test_FOG_DRAW_11_and_RUL_3_fixed_split_config():
    """FOG-DRAW-11 / FOG-RUL-3: no official introductory draw; an optional fixed_split config draws
    without a decision, default off."""
    assert Game(num_players=3, seed=0).decision_kind == "split"
    fixed = {1: (3, 1, 1, 1), 2: (1, 3, 1, 1), 3: (1, 1, 3, 1), 4: (1, 1, 1, 3)}
    game = Game(num_players=3, seed=0, fixed_split=fixed)
    assert game.decision_kind == "pick"
    assert game.draw_counts == [[3, 1, 1, 1]] * 3
    for p in range(3):
        assert [game.cards.locations[c].pile for c in game.hands[p]].count("Field") == 3
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, fixed_split={1: (6, 0, 0, 0), 2: (3, 1, 1, 1), 3: (3, 1, 1, 1), 4: (3, 1, 1, 1)})
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, fixed_split={1: (3, 1, 1, 1)})


def _expected_splits(sizes: list[int]) -> set[tuple[int, ...]]:
    total = min(6, sum(sizes))
    need = min(3, sum(1 for s in sizes if s))
    return {
        s
        for s in product(range(7), repeat=4)
        if sum(s) == total and all(c <= z for c, z in zip(s, sizes)) and sum(1 for c in s if c) >= need
    }


@pytest.mark.parametrize(
    "sizes",
    [
        [8, 8, 8, 8],
        [1, 8, 8, 8],
        [0, 8, 8, 8],
        [0, 0, 8, 8],
        [0, 0, 0, 8],
        [1, 1, 1, 1],
        [0, 2, 0, 1],
        [2, 2, 2, 0],
        [0, 0, 0, 0],
        [0, 1, 0, 0],
        [3, 0, 0, 3],
    ],
)
def test_FOG_RUL_14_short_piles(scen, sizes):
    """FOG-RUL-14: legal splits are c_i <= size_i, sum = min(6, total), at least min(3, non-empty piles)
    contributing piles; never empty."""
    game = scen(pile_sizes=dict(zip(PILES, sizes)), decision=("split", 0))
    expected = _expected_splits(sizes)
    assert expected and legal_splits(game) == expected
    act(game, "split", SPLITS.index(sorted(expected)[0]))
    assert len(game.hands[0]) == min(6, sum(sizes))


def test_FOG_RUL_14_short_hand_still_plays(scen):
    """FOG-RUL-14: a player who could draw fewer than 6 cards plays the cards they have; with no
    cards at all their turn is skipped."""
    game = scen(
        num_players=3,
        pile_sizes={"Field": 0, "Livestock": 0, "Construction": 1, "Building": 1},
        decision=[("split", 0), ("split", 1), ("pick", 0), ("pick", 1)],
    )
    act(game, "split", SPLITS.index((0, 0, 1, 1)))
    assert len(game.hands[0]) == 2
    assert legal_kinds(game)["split"] == [SPLITS.index((0, 0, 0, 0))]
    act(game, "split", SPLITS.index((0, 0, 0, 0)))
    assert game.decision == ("pick", 0)
    act(game, "pick", 0)
    assert game.is_terminal()  # seat 1 had no card: its pick is skipped
