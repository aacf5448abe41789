"""Rule tests: public and private information (spec section 14, ruling FOG-RUL-31).

The engine holds the full state; what a seat may see is what ``render.game_text(game, viewer)`` shows
(the text twin of an observation). These tests check that view.
"""

from __future__ import annotations

import random

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.render import game_text

from .conftest import act, cell, play_random

FIXED = {1: (2, 2, 1, 1), 2: (1, 2, 2, 1), 3: (1, 1, 2, 2), 4: (2, 1, 1, 2)}


def section(text: str, seat: int) -> str:
    """The lines of one player's block in a table text."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("player "):
            inside = line.startswith(f"player {seat}:")
        if inside:
            out.append(line)
    return "\n".join(out)


def test_FOG_INFO_1_farms_are_public(scen):
    """FOG-INFO-1: every farm (cards, fallow state, water on towers, equipment, set-aside tiles) is seen
    by every seat."""
    game = scen(
        farms={0: "W T2 S (W)"},
        legend={"W": "Wheat"},
        equipment={0: {(2, 1): ["Hose"]}},
        set_aside={0: ["Vane"]},
        decision=[],
    )
    other = section(game_text(game, viewer=2), 0)
    assert "T2" in other and " F+" in other and " f" in other and "set aside 1" in other
    assert other == section(game_text(game, viewer=0), 0)


def test_FOG_INFO_2_coins_and_vp_tokens_public(scen):
    """FOG-INFO-2: coins and VP tokens of every player are public."""
    game = scen(coins={0: 7}, vp_tokens={0: 3}, decision=[])
    line = section(game_text(game, viewer=1), 0).splitlines()[0]
    assert "coins 7" in line and "VP tokens 3" in line


def test_FOG_INFO_3_hand_only_seen_by_its_holder():
    """FOG-INFO-3: a hand is visible only to its current holder; after passing, the passer no longer
    sees the hand it gave away."""
    game = Game(num_players=3, seed=3, first_player=0, fixed_split=FIXED)
    names = lambda hand: [game.cards.locations[c].name for c in hand]  # noqa: E731
    text = game_text(game, viewer=1)
    assert "hand:" in section(text, 1) and "hand:" not in section(text, 0) and "hand:" not in section(text, 2)
    for _ in range(3):
        act(game, "pick", 0)
    given_away = game.hands[1]  # what seat 0 passed to seat 1 (clockwise)
    mine = section(game_text(game, viewer=0), 0)
    assert "hand: " + ", ".join(names(game.hands[0])) in mine
    assert "hand: " + ", ".join(names(given_away)) not in game_text(game, viewer=0)


def test_FOG_INFO_4_draw_counts_and_pile_sizes_public():
    """FOG-INFO-4: per-player draw counts are public, so every main pile's size is public."""
    game = Game(num_players=4, seed=4, first_player=0)
    play_random(game, random.Random(4), until=lambda g: g.decision_kind == "pick")
    sizes = [33 - sum(game.draw_counts[p][i] for p in range(4)) for i in range(4)]
    assert [len(p) for p in game.piles] == sizes
    assert "piles F/L/C/B: " + "/".join(map(str, sizes)) in game_text(game, viewer=2)


def test_FOG_INFO_5_pile_order_and_equipment_stack_hidden():
    """FOG-INFO-5: the order of the main piles, the offer pile and the Equipment stack is hidden: two
    games that differ only there look the same to a seat."""
    for n in (2, 4):
        a, b = Game(num_players=n, seed=1, first_player=0), Game(num_players=n, seed=2, first_player=0)
        assert a.piles != b.piles and a.equipment_stack != b.equipment_stack
        assert game_text(a, viewer=0) == game_text(b, viewer=0)
    a, b = Game(num_players=2, seed=1, first_player=0), Game(num_players=2, seed=2, first_player=0)
    for g in (a, b):
        while g.decision_kind == "split":
            g.apply(g.legal_actions()[0])
    hide_display = lambda g: [ln for ln in game_text(g, viewer=1).splitlines() if not ln.startswith("display:")]  # noqa: E731
    assert a.offer != b.offer and hide_display(a) == hide_display(b)  # the display itself is public


def test_FOG_INFO_6_tower_and_silo_piles_public(scen):
    """FOG-INFO-6: the Water Tower and Silo piles are face up: their sizes are shown to everyone."""
    game = scen(picks={0: "Chapel"}, decision=("act", 0))
    act(game, "tower", cell(game, 1, 2))
    assert f"towers {game.towers_left}  silos {game.silos_left}" in game_text(game, viewer=1)


def test_FOG_INFO_7_discard_pile_public(scen):
    """FOG-INFO-7: the discard pile is public: its cards are kept face up in order, its size is shown."""
    game = scen(picks={0: "Chapel", 1: "Wheat"}, decision=[("act", 0), ("act", 1)])
    ids = list(game.picks[:2])
    act(game, "market", 0)
    act(game, "market", 0)
    assert game.discard == ids
    assert "discard 2" in game_text(game, viewer=2)


def test_FOG_INFO_8_and_RUL_31_tiles_sent_to_the_bottom_known_to_the_drawer_only(scen):
    """FOG-INFO-8 / FOG-RUL-31: the drawer sees the 3 drawn tiles (its decision lists them); other seats
    see only the stack size; tiles sent to the bottom stay unnamed for them."""
    game = scen(picks={0: "Toolshed"}, stack_top=["Drill", "Ladder", "Hose"], decision=("act", 0))
    act(game, "build", cell(game, 1, 2))
    assert game.current_player == 0
    assert [game.describe_action(a) for a in game.legal_actions()] == [
        "keep equipment 0: Hose",
        "keep equipment 1: Ladder",
        "keep equipment 2: Drill",
    ]
    act(game, "keep_equipment", 0)
    text = game_text(game, viewer=1)
    assert "Ladder" not in text and "Drill" not in text
    assert f"equipment {len(game.equipment_stack)}" in text


def test_FOG_RUL_31_public_and_private(scen):
    """FOG-RUL-31: public: farms, tokens, coins, VP tokens, set-aside tiles, discard, pile sizes and draw
    counts; private: the hand and this turn's pick before the reveal."""
    game = scen(
        hands={0: ["Wheat", "Pigs"], 1: ["Manor", "Cows"]}, picks={0: "Chapel"}, revealed=False, decision=[("pick", 1)]
    )
    view = game_text(game, viewer=1)
    assert "Chapel" not in view and "Wheat" not in view  # seat 0's pick and hand
    assert "hand: Cows, Manor" in view or "hand: Manor, Cows" in view
    assert "Chapel" in game_text(game, viewer=0)
    game.revealed = True
    assert "pick: Chapel" in game_text(game, viewer=1)
