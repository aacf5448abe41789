"""Setup, rounds, turns, symbols, inhabitants and the end (SV-SETUP-*, SV-ROUND-*, SV-TURN-*, SV-SYM-*,
SV-INH-*, SV-END-*, SV-RULING-4, SV-RULING-5, SV-RULING-9, SV-RULING-10, SV-RULING-13, SV-RULING-15, SV-RULING-18;
spec: sunflower_valley.md)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.sunflower_valley.actions import (
    CURVED,
    DICE,
    F_HOUSE,
    F_SHEEP,
    F_SUPER,
    FACE_OF,
    FACES,
    FALLBACK_START,
    HOUSE,
    NUM_ACTIONS,
    RAIL_SIDES,
    SHEEP,
    SLOTS,
    STRAIGHT,
    SUNFLOWER,
    SUPER,
    SYMBOLS,
    decode,
    fallback_id,
    normal_id,
)
from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.hexgrid import hex_name, parse_hex
from farmgames.envs.sunflower_valley.scenario import scenario
from farmgames.envs.sunflower_valley.scoring import EMPTY
from farmgames.envs.sunflower_valley.sheets import COLOURS, LAYOUTS, LETTERS, PADS

from .helpers import picture


def play_random(game: Game, rng: random.Random, turns: int | None = None) -> Game:
    k = 0
    while not game.is_terminal() and (turns is None or k < turns):
        game.apply(rng.choice(game.legal_actions()))
        k += 1
    return game


# ---------------------------------------------------------------- components and setup


def test_components():
    """SV-COMP-1, SV-COMP-3, SV-COMP-4, SV-COMP-5, SV-COMP-6: 6 dice, pads A–F, 2–5 players (5 pencils), one first
    player."""
    assert DICE == 6 and sum(Game(2, 0).pool) == 6
    assert LETTERS == "ABCDEF" and sorted(PADS) == list(LETTERS)
    for n in (2, 3, 4, 5):
        g = Game(n, 0)
        assert g.num_players == n and 0 <= g.first < n
    for bad in (1, 6, True, 2.0, "4"):
        with pytest.raises(ValueError, match="num_players"):
            Game(bad, 0)


def test_board_has_start_scheme_and_playing_side():
    """SV-COMP-2, SV-BOARD-1, SV-BOARD-2, SV-SETUP-8: the start scheme (the pads' pictures) and the playing side (one
    slot per colour, 6 dice ready); at the start all 5 slots are free and the pool holds the round's roll."""
    g = Game(3, 5)
    assert len({p.picture for p in PADS.values()}) == 6
    assert g.slot_face == [-1] * SLOTS and SLOTS == len(COLOURS) == 5
    assert sum(g.pool) == DICE and tuple(g.pool) == g.roll(0)


def test_same_letter_for_everyone():
    """SV-SETUP-1: every sheet uses the common letter's map (mountains in the same places)."""
    g = Game(5, 11)
    mountains = LAYOUTS[g.letter].mountains
    for sheet in g.sheets:
        assert [h for h in range(30) if sheet[h] == -2] == list(mountains)


def test_common_letter_drawn_or_given():
    """SV-SETUP-2: the letter is drawn from the seed (all six occur) unless configured."""
    assert {Game(2, s).letter for s in range(200)} == set(LETTERS)
    assert {Game(2, s, letter="d").letter for s in range(20)} == {"D"}
    with pytest.raises(ValueError, match="letter"):
        Game(2, 0, letter="G")  # SV-RULING-17: no sheets G-H


def test_start_house_from_an_unused_pad():
    """SV-SETUP-3, SV-SETUP-4: each player draws a distinct pad other than the common letter and draws a house in that
    pad's start hex; over many seeds every unused pad occurs and the common letter's never does."""
    seen = Counter()
    for seed in range(300):
        g = Game(5, seed)
        assert len(set(g.pads)) == 5 and g.letter not in g.pads
        for p, pad in enumerate(g.pads):
            sheet = g.sheets[p]
            assert sheet[PADS[pad].hex] == HOUSE
            assert sum(1 for v in sheet if v >= 0) == 1
            seen[(g.letter, pad)] += 1
    for letter in LETTERS:
        assert {pad for (x, pad) in seen if x == letter} == set(LETTERS) - {letter}


def test_two_inhabitants_and_no_more_for_the_start_house():
    """SV-SETUP-5, SV-SETUP-9: two inhabitants each; the start house gives none."""
    assert Game(4, 3).inhabitants == [2, 2, 2, 2]


def test_first_player_random_or_given():
    """SV-SETUP-6, SV-SETUP-7, SV-RULING-13: the first player is a seeded random seat unless configured."""
    assert {Game(4, s).first for s in range(100)} == {0, 1, 2, 3}
    g = Game(4, 7, first_player=2)
    assert g.first == g.current_player == 2
    with pytest.raises(ValueError, match="first_player"):
        Game(4, 0, first_player=4)


def test_general_definitions():
    """SV-GEN-2 (adjacent = shares a side, SV-RULING-1 table), SV-GEN-3 (empty = non-mountain, nothing drawn)."""
    from farmgames.envs.sunflower_valley.hexgrid import NEIGHBOUR, NEIGHBOURS

    assert [hex_name(n) for n in NEIGHBOURS[parse_hex("C3")]] == ["C4", "B3", "B2", "C2", "D2", "D3"]
    assert [hex_name(n) for n in NEIGHBOURS[parse_hex("D3")]] == ["D4", "C4", "C3", "D2", "E3", "E4"]
    for h in range(30):
        for s, n in enumerate(NEIGHBOUR[h]):
            if n >= 0:
                assert NEIGHBOUR[n][(s + 3) % 6] == h  # sides face back
    g = Game(2, 0, letter="A")
    empty = [h for h in range(30) if g.empty[0] >> h & 1]
    assert len(empty) == 24 and not set(empty) & set(LAYOUTS["A"].mountains)


# ---------------------------------------------------------------- rounds


def test_round_phases_roll_then_turns():
    """SV-ROUND-1, SV-ROUND-2: phase A rolls all 6 dice (the pool); in phase B the faces never change, dice only
    leave."""
    g = Game(3, 2)
    start = list(g.pool)
    g.apply(g.legal_actions()[0])
    f = FACE_OF[decode(g.history[0])[1]]
    assert [a - b for a, b in zip(start, g.pool, strict=True)] == [1 if i == f else 0 for i in range(6)]


def test_turns_clockwise_from_first_player_and_wrap():
    """SV-ROUND-3, SV-ROUND-4: turns go first, first+1, ... clockwise, wrapping, until all 5 slots are taken."""
    g = Game(2, 1, first_player=1)
    seats = []
    for _ in range(5):
        seats.append(g.current_player)
        g.apply(g.legal_actions()[0])
    assert seats == [1, 0, 1, 0, 1]
    assert g.round == 1 and g.free_slots == (1 << SLOTS) - 1  # new round


def test_round_has_five_turns_one_die_unused():
    """SV-ROUND-5: every complete round has 5 turns; one die stays in the pool."""
    g = Game(4, 9)
    rng = random.Random(0)
    for _ in range(4):
        before = g.round
        for _ in range(4):
            g.apply(rng.choice(g.legal_actions()))
        assert g.round == before and sum(g.pool) == 2
        g.apply(rng.choice(g.legal_actions()))
        assert g.round == before + 1 and sum(g.pool) == DICE


def test_end_of_round_passes_token():
    """SV-ROUND-6: the first-player token passes clockwise; the dice are re-rolled for the new round."""
    g = Game(3, 4, first_player=2)
    play_random(g, random.Random(1), 5)
    assert g.first == 0 and g.current_player == 0 and tuple(g.pool) == g.roll(1)


@pytest.mark.parametrize("n,rounds,last", [(2, 10, 3), (3, 15, 2), (4, 20, 1), (5, 24, 5)])
def test_equal_turns_and_round_count(n, rounds, last):
    """SV-ROUND-7, SV-RULING-9, SV-ROUND-5, SV-END-3: for every first seat all sheets fill after exactly 24
    turns each, in 10/15/20/24 rounds, the last one of 3/2/1/5 turns; a full sheet is never asked to play."""
    for first in range(n):
        g = Game(n, 100 + first, first_player=first)
        rng = random.Random(first)
        while not g.is_terminal():
            assert g.empty[g.current_player]  # SV-END-3 never fires
            g.apply(rng.choice(g.legal_actions()))
        assert g.turns == [24] * n
        assert g.round + 1 == rounds and g.turn_in_round == last


# ---------------------------------------------------------------- a turn


def test_normal_turn_takes_die_slot_and_hex():
    """SV-TURN-1, SV-TURN-2, SV-TURN-3: take a die showing face(s), occupy the slot of the hex's colour, draw s in
    that hex."""
    g = scenario(2, letter="A", pool={"house": 1, "sheep": 2, "sunflower": 3}, first=0)
    a = normal_id(SHEEP, parse_hex("B1"))  # B1 is green on layout A
    g.apply(a)
    assert g.sheets[0][parse_hex("B1")] == SHEEP
    assert g.pool == [1, 1, 3, 0, 0, 0]
    assert g.slot_face[COLOURS.index("green")] == F_SHEEP
    assert g.current_player == 1


def test_hex_must_match_a_free_slot_colour():
    """SV-TURN-3: only empty hexes whose colour slot is still free (green slot taken: no green hex)."""
    g = scenario(2, letter="A", pool={"sheep": 5}, slots={"green": "house"}, first=1, current=0)
    legal = set(g.legal_actions())
    assert normal_id(SHEEP, parse_hex("B1")) not in legal  # green
    assert normal_id(SHEEP, parse_hex("C2")) in legal  # blue
    with pytest.raises(IllegalActionError):
        g.apply(normal_id(SHEEP, parse_hex("B1")))
    with pytest.raises(IllegalActionError):
        g.apply(normal_id(HOUSE, parse_hex("C2")))  # no house die left


def test_no_passing():
    """SV-TURN-4: there is no pass id; every turn of a game has at least one legal move."""
    rng = random.Random(3)
    for seed in range(10):
        g = Game(3, seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            assert legal
            g.apply(rng.choice(legal))


def fallback_game(pool: dict, slots: dict) -> Game:
    """Seat 0 has no empty hex of the free colours blue and orange (they are full): fallback."""
    cells = {name: "Sh" for k in ("blue", "orange") for name in map(hex_name, LAYOUTS["A"].region(COLOURS.index(k)))}
    cells["C1"] = "H"
    sheets = {0: picture("A", **cells)}
    return scenario(2, letter="A", sheets=sheets, pool=pool, slots=slots, first=1, current=0)


def test_must_use_a_usable_slot_when_possible():
    """SV-TURN-5, SV-RULING-10: with a usable hex, no fallback id is legal."""
    g = Game(2, 0)
    assert all(a < FALLBACK_START for a in g.legal_actions())
    with pytest.raises(IllegalActionError, match="fallback"):
        g.apply(fallback_id(FACE_OF[decode(g.legal_actions()[0])[1]], 0, PADS[g.pads[g.current]].hex ^ 1))


def test_fallback_sunflower_anywhere():
    """SV-TURN-6: no empty hex of a free colour: take any die, any free slot, draw a sunflower in any empty
    hex (here green, whose slot is taken)."""
    g = fallback_game(
        {"house": 1, "sheep": 1, "straight rail": 1}, {"purple": "sheep", "green": "sheep", "red": "house"}
    )
    assert g.fallback()
    legal = g.legal_actions()
    assert legal and all(a >= FALLBACK_START for a in legal)
    kinds = {decode(a)[1:3] for a in legal}
    assert kinds == {(f, k) for f in (F_HOUSE, F_SHEEP, 4) for k in (0, 1)}
    a = fallback_id(4, COLOURS.index("orange"), parse_hex("B1"))  # straight-rail die, orange slot, green hex
    g.apply(a)
    assert g.sheets[0][parse_hex("B1")] == SUNFLOWER
    assert g.slot_face[COLOURS.index("orange")] == 4 and g.inhabitants[0] == 2 + 0


def test_fallback_inhabitant_only_with_super_sunflower():
    """SV-TURN-7, SV-TURN-8, SV-RULING-15: the fallback gives +1 only with the super-sunflower die, and that
    sunflower is recorded as a super sunflower; a house die gives nothing."""
    g = fallback_game({"house": 1, "super sunflower": 2}, {"purple": "sheep", "green": "sheep", "red": "house"})
    before = g.inhabitants[0]
    g.apply(fallback_id(F_HOUSE, 0, parse_hex("A1")))
    assert g.inhabitants[0] == before and g.sheets[0][parse_hex("A1")] == SUNFLOWER
    g = fallback_game({"house": 1, "super sunflower": 2}, {"purple": "sheep", "green": "sheep", "red": "house"})
    g.apply(fallback_id(F_SUPER, 1, parse_hex("A1")))
    assert g.inhabitants[0] == before + 1 and g.sheets[0][parse_hex("A1")] == SUPER


def test_symbols_are_permanent():
    """SV-TURN-9: a hex holds one symbol, never changed: drawn hexes never become legal again."""
    g = Game(2, 8)
    rng = random.Random(8)
    drawn: dict[tuple[int, int], int] = {}
    while not g.is_terminal():
        p = g.current_player
        for a in g.legal_actions():
            assert (p, decode(a)[-1]) not in drawn
        a = rng.choice(g.legal_actions())
        g.apply(a)
        drawn[(p, decode(a)[-1])] = g.sheets[p][decode(a)[-1]]
    for (p, h), v in drawn.items():
        assert g.sheets[p][h] == v


def test_only_symbol_type_and_orientation_matter():
    """SV-TURN-10: one id per (symbol incl. orientation, hex): no cosmetic variants in the numbering."""
    ids = {normal_id(s, h) for s in range(SYMBOLS) for h in range(30)}
    assert len(ids) == SYMBOLS * 30 == FALLBACK_START


# ---------------------------------------------------------------- symbols, dice, inhabitants


def test_die_faces_uniform():
    """SV-SYM-1, SV-RULING-4: identical dice with six faces, each 1/6 (chi-square over 6000 dice)."""
    counts = [0] * 6
    for seed in range(1000):
        for f, c in enumerate(Game(2, seed).roll(0)):
            counts[f] += c
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts)
    assert len(FACES) == 6 and chi2 < 20.5  # p ~ 0.001 for 5 degrees of freedom


def test_house_gives_two_inhabitants_super_one():
    """SV-SYM-2, SV-SYM-3, SV-SYM-8, SV-INH-1: house +2, super sunflower +1, sheep / sunflower / rails nothing."""
    for s, gain in [(HOUSE, 2), (SUPER, 1), (SHEEP, 0), (SUNFLOWER, 0), (4, 0), (9, 0)]:
        g = scenario(2, letter="A", pool=[1, 1, 1, 1, 1, 1], first=0)
        g.apply(normal_id(s, parse_hex("B1")))
        assert g.inhabitants[0] == 2 + gain


def test_inhabitants_formula_and_no_limit():
    """SV-INH-1, SV-INH-2: count = 2 + 2 per house + 1 per super sunflower, without an upper limit."""
    rng = random.Random(5)
    g = play_random(Game(3, 5), rng)
    for p, sheet in enumerate(g.sheets):
        assert g.inhabitants[p] == 2 + 2 * (sheet.count(HOUSE) - 1) + sheet.count(SUPER)
    g = scenario(2, letter="A", inhabitants={0: 500}, pool=[6, 0, 0, 0, 0, 0], first=0)
    g.apply(normal_id(HOUSE, parse_hex("B1")))
    assert g.inhabitants[0] == 502


def test_rail_orientations():
    """SV-SYM-5, SV-SYM-6, SV-SYM-7, SV-RULING-5: straight = opposite sides (3 ways), curved = one side between (6
    ways);
    neighbouring sides never."""
    for s in STRAIGHT:
        a, b = RAIL_SIDES[s]
        assert (b - a) % 6 == 3
    for s in CURVED:
        a, b = RAIL_SIDES[s]
        assert (b - a) % 6 in (2, 4)
    pairs = {frozenset(RAIL_SIDES[s]) for s in (*STRAIGHT, *CURVED)}
    assert len(pairs) == 9 and not any((max(p) - min(p)) % 6 in (1, 5) for p in pairs)
    g = scenario(2, letter="A", pool={"straight rail": 1, "curved rail": 1, "sheep": 4}, first=0)
    b1 = parse_hex("B1")
    legal = set(g.legal_actions())
    assert {s for s in range(SYMBOLS) if normal_id(s, b1) in legal} == {SHEEP, *STRAIGHT, *CURVED}


# ---------------------------------------------------------------- the end


def test_game_ends_when_no_sheet_has_an_empty_hex():
    """SV-END-1, SV-END-2: the end is immediate, even in the middle of a round (4 players: after 1 turn of round 20)."""
    g = play_random(Game(4, 12), random.Random(12))
    assert g.is_terminal() and g.current_player is None and g.legal_actions() == []
    assert all(EMPTY not in s for s in g.sheets) and g.turn_in_round == 1
    with pytest.raises(IllegalActionError, match="over"):
        g.apply(0)
    assert g.returns() != [0.0] * 4 and sorted(set(g.returns())) in ([-1.0, 1.0], [1.0])


def test_full_sheet_is_skipped():
    """SV-END-3: a player whose sheet is full is skipped while others still have empty hexes."""
    full = {hex_name(h): "Sf" for h in range(30) if LAYOUTS["A"].colour[h] >= 0}
    full["C1"] = "H"
    g = scenario(2, letter="A", sheets={1: picture("A", **full)}, pool=[1, 1, 1, 1, 1, 1], first=0)
    assert g.current_player == 0
    g.apply(g.legal_actions()[0])
    assert g.current_player == 0  # seat 1 skipped
    g2 = scenario(2, letter="A", sheets={1: picture("A", **full)}, pool=[1, 1, 1, 1, 1, 1], first=1)
    assert g2.current_player == 0


# ---------------------------------------------------------------- action numbering


def test_action_numbering():
    """SV-RULING-18: Discrete(1290), id = 30·s + h and id = 390 + 30·(5·f + k) + h, decoded back."""
    assert NUM_ACTIONS == 1290 and Game(2, 0).num_actions == 1290
    assert normal_id(0, 0) == 0 and normal_id(12, 29) == 389
    assert fallback_id(0, 0, 0) == 390 and fallback_id(5, 4, 29) == 1289
    for a in range(NUM_ACTIONS):
        d = decode(a)
        assert (normal_id(*d[1:]) if d[0] == "normal" else fallback_id(*d[1:])) == a
    with pytest.raises(ValueError):
        decode(1290)


def test_mask_is_the_legal_set_and_one_block():
    """SV-RULING-18: the mask equals the legal set; exactly one block (normal or fallback) is non-empty, at
    most 312 normal ids; bad action types are rejected without changing the state."""
    rng = random.Random(2)
    for seed in range(30):
        g = Game(2 + seed % 4, seed, children=bool(seed % 2))
        while not g.is_terminal():
            legal = g.legal_actions()
            assert legal == sorted(legal) and len(set(legal)) == len(legal)
            assert np.flatnonzero(g.legal_mask()).tolist() == legal
            normal = [a for a in legal if a < FALLBACK_START]
            assert (len(normal) == len(legal)) != (len(normal) == 0) and len(normal) <= 312
            assert bool(normal) == (not g.fallback())
            g.apply(rng.choice(legal))
    g = Game(2, 0)
    before = g.to_json()
    for bad in (True, 1.0, "3", None, -1, 1290, np.float64(3)):
        with pytest.raises(IllegalActionError):
            g.apply(bad)
    assert g.to_json() == before
    g.apply(np.int64(g.legal_actions()[0]))  # numpy integers are integers
    assert len(g.history) == 1 and type(g.history[0]) is int
