"""Random play with invariants after every action (2–5 players, both variants); a slow test plays thousands."""

from __future__ import annotations

import random
import time

import pytest

from farmgames.envs.sunflower_valley.actions import FACE_OF, FALLBACK_START, IS_RAIL, SLOTS, SYMBOLS, decode
from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.scoring import EMPTY, MOUNTAIN_CELL


def check_move(g: Game, before: Game, action: int) -> None:
    p = before.current_player
    d = decode(action)
    h = d[-1]
    colour = before.sheet_map.colour[h]
    assert before.sheets[p][h] == EMPTY and colour >= 0  # symbols only on empty, non-mountain hexes
    changed = [(q, x) for q in range(g.num_players) for x in range(30) if g.sheets[q][x] != before.sheets[q][x]]
    assert changed == [(p, h)]
    if d[0] == "normal":
        assert before.slot_face[colour] < 0  # the slot of the hex's colour was free
        assert g.slot_face[colour] == FACE_OF[d[1]] or g.round == before.round + 1
    else:
        assert not before.empty[p] & before.free_hexes  # fallback only when forced
    for q in range(g.num_players):
        assert g.inhabitants[q] >= before.inhabitants[q]  # never decrease
        assert g.sheets[q].count(MOUNTAIN_CELL) == 5
    if g.round == before.round:  # each die used once per round: pool + slots = the roll
        used = [sum(1 for f in g.slot_face if f == i) for i in range(6)]
        assert [a + b for a, b in zip(g.pool, used, strict=True)] == list(g.roll(g.round))
        assert sum(g.pool) == 6 - g.turn_in_round and (g.turn_in_round < SLOTS or g.is_terminal())
    else:
        assert sum(before.pool) == 2 and sum(g.pool) == 6  # five dice used, one unused


def fuzz(games: int, seed0: int = 0, check_every: int = 1, budget: float | None = None) -> int:
    rng = random.Random(seed0)
    played = 0
    t0 = time.perf_counter()
    for i in range(games):
        n = 2 + i % 4
        g = Game(n, seed0 + i, children=bool(i % 3 == 0))
        k = 0
        while not g.is_terminal():
            legal = g.legal_actions()
            a = rng.choice(legal)
            if k % check_every == 0:
                before = g.clone()
                g.apply(a)
                check_move(g, before, a)
            else:
                g.apply(a)
            k += 1
        assert g.turns == [24] * n  # same number of turns for everyone
        assert sum(g.turns) == len(g.history) == 24 * n
        for p, sheet in enumerate(g.sheets):
            assert sheet.count(EMPTY) == 0 and all(-2 <= v < SYMBOLS for v in sheet)
            assert g.inhabitants[p] == 2 + 2 * (sheet.count(0) - 1) + sheet.count(3)
        for s in g.scores():
            d = s.as_dict()
            assert d["total"] == sum(v for k, v in d.items() if k[1:2] == "_") == s.total  # G = sum of parts
            assert s.key[0] == s.total
        assert g.winners() and g.returns().count(1.0) == len(g.winners())
        played += 1
        if budget is not None and time.perf_counter() - t0 > budget:
            break
    return played


def test_fuzz_random_games():
    """Invariants after every action over ~1000 games (bounded to ~15 s)."""
    assert fuzz(1000, budget=15.0) >= 200


def test_fallback_and_rails_occur():
    """The fuzz reaches the fallback (SV-TURN-6) and draws rails of every orientation."""
    seen_fallback, seen_rails = 0, set()
    rng = random.Random(9)
    for seed in range(60):
        g = Game(4, seed)
        while not g.is_terminal():
            a = rng.choice(g.legal_actions())
            g.apply(a)
            seen_fallback += a >= FALLBACK_START
            if a < FALLBACK_START and IS_RAIL[a // 30]:
                seen_rails.add(a // 30)
    assert seen_fallback > 0 and seen_rails == set(range(4, 13))


@pytest.mark.slow
def test_fuzz_thousands():
    assert fuzz(20_000, seed0=10_000, check_every=3) == 20_000
