"""Rule tests: the two-player variant (spec section 13, rulings FOG-RUL-33, -34)."""

from __future__ import annotations

import random

from farmgames.envs.fields_of_green import SPLITS, Game
from farmgames.envs.fields_of_green.render import game_text

from .conftest import act, legal_kinds, play_random
from .test_upkeep_draw import NORMAL_SPLITS


def drawn_cards(game: Game) -> list[int]:
    """Let both players draw (first legal split); return the 12 cards taken from the piles."""
    before = [list(p) for p in game.piles]
    while game.decision_kind == "split":
        game.apply(game.legal_actions()[0])
    return sorted(c for b, p in zip(before, game.piles) for c in b[len(p) :])


def test_FOG_2P_1_upkeep_and_draw_as_usual():
    """FOG-2P-1: upkeep as in section 7: each player chooses a 6-card split under FOG-DRAW-1..8."""
    game = Game(num_players=2, seed=1, first_player=1)
    assert game.decision == ("split", 1)
    assert {SPLITS[a] for a in legal_kinds(game)["split"]} == NORMAL_SPLITS
    act(game, "split", SPLITS.index((3, 2, 1, 0)))
    assert game.decision == ("split", 0) and game.draw_counts[1] == [3, 2, 1, 0]


def test_FOG_2P_2_players_do_not_see_their_draw():
    """FOG-2P-2: the drawn cards do not go to a hand."""
    game = Game(num_players=2, seed=2)
    drawn = drawn_cards(game)
    assert len(drawn) == 12 and game.hands == [[], []]


def test_FOG_2P_3_twelve_cards_shuffled_into_the_offer_pile():
    """FOG-2P-3: the 12 drawn cards are shuffled together into one face-down offer pile."""
    orders = set()
    for seed in range(4):
        game = Game(num_players=2, seed=seed, first_player=0)
        drawn = drawn_cards(game)
        assert sorted(game.offer + game.display) == drawn
        orders.add(tuple(game.offer))
        # not simply the draw order: the offer is not sorted by the order the piles gave them
    assert len(orders) == 4


def test_FOG_2P_4_display_of_six():
    """FOG-2P-4: the top 6 offer cards are turned face up as the display."""
    game = Game(num_players=2, seed=3)
    drawn_cards(game)
    assert len(game.display) == 6 and len(game.offer) == 6
    assert game.phase == "action" and game.decision_kind == "pick"


def test_FOG_2P_5_and_RUL_33_alternate_turns_first_player_first():
    """FOG-2P-5 / FOG-RUL-33: players alternate strictly, starting with this year's first player."""
    for first in (0, 1):
        game = Game(num_players=2, seed=5, first_player=first)
        drawn_cards(game)
        pickers = []
        rng = random.Random(first)
        while game.phase == "action":
            if game.decision_kind == "pick":
                pickers.append(game.current_player)
            game.apply(rng.choice(game.legal_actions()))
        assert pickers == [first, 1 - first] * 6


def test_FOG_2P_6_and_RUL_34_take_a_card_and_act_at_once_in_the_open():
    """FOG-2P-6 / FOG-RUL-34: the active player takes a display card and immediately performs an action
    with it; the pick is open (nothing hidden, nothing passed)."""
    game = Game(num_players=2, seed=6, first_player=0)
    drawn_cards(game)
    card = game.display[2]
    act(game, "pick", 2)
    assert game.decision == ("act", 0) and game.picks[0] == card and card not in game.display
    assert f"pick: {game.cards.locations[card].name}" in game_text(game, viewer=1)
    assert set(legal_kinds(game)) <= {"build", "tower", "silo", "market", "restore"}
    act(game, "market", 0)
    assert game.current_player == 1 and game.decision_kind == "pick"


def test_FOG_2P_7_8_10_display_sizes_and_refills():
    """FOG-2P-7: after each pair of turns 2 offer cards are added; FOG-2P-8: with the offer empty, play
    goes on without refills; FOG-2P-10: display sizes 6,5,6,5,6,5,6,5,4,3,2,1."""
    for seed in range(3):
        game = Game(num_players=2, seed=seed)
        rng = random.Random(seed)
        play_random(game, rng, until=lambda g: g.decision_kind == "pick")
        for year in range(1, 5):
            sizes, offers = [], []
            while game.phase == "action" and game.year == year:
                if game.decision_kind == "pick":
                    sizes.append(len(game.display))
                    offers.append(len(game.offer))
                game.apply(rng.choice(game.legal_actions()))
            assert sizes == [6, 5, 6, 5, 6, 5, 6, 5, 4, 3, 2, 1], (seed, year)
            assert offers == [6, 6, 4, 4, 2, 2, 0, 0, 0, 0, 0, 0]
            play_random(game, rng, until=lambda g: g.decision_kind == "pick")


def test_FOG_2P_9_six_cards_and_six_actions_each():
    """FOG-2P-9: each player takes 6 cards and performs 6 actions per year."""
    game = Game(num_players=2, seed=9)
    rng = random.Random(9)
    while not game.is_terminal():
        if game.phase == "harvest":
            assert [f.actions_taken for f in game.farms] == [6 * game.year] * 2
        game.apply(rng.choice(game.legal_actions()))
    assert [f.actions_taken for f in game.farms] == [24, 24]


def test_FOG_2P_11_and_RUL_33_no_passing_direction_ignored():
    """FOG-2P-11 / FOG-RUL-33: no hands are passed and the Year Track direction changes nothing: the
    same actions give the same game whatever pass_directions says."""
    a = Game(num_players=2, seed=11, pass_directions=["cw"] * 4)
    b = Game(num_players=2, seed=11, pass_directions=["ccw"] * 4)
    rng = random.Random(11)
    while not a.is_terminal():
        assert a.legal_actions() == b.legal_actions() and a.display == b.display and a.hands == [[], []]
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
    assert b.is_terminal() and [s.total for s in a.scores()] == [s.total for s in b.scores()]


def test_FOG_2P_12_rest_unchanged_first_player_alternates():
    """FOG-2P-12: actions, harvest, equipment, scoring are unchanged (Market always legal, six-part
    score); the First Player tile passes to the other player after each harvest."""
    game = Game(num_players=2, seed=12, first_player=0)
    rng = random.Random(12)
    firsts = {}
    while not game.is_terminal():
        firsts.setdefault(game.year, game.first_player)
        if game.decision_kind == "act":
            assert game.layout.index("market", 0) in game.legal_actions()
        game.apply(rng.choice(game.legal_actions()))
    assert firsts == {1: 0, 2: 1, 3: 0, 4: 1}
    s = game.scores()[0]
    assert s.total == s.printed_vp + s.equipment + s.coins + s.food + s.empty_towers + s.end_game
