"""The observation (SV-INFO-1: everything public) from one declared layout: rotation, values, bounds and the
incremental fill checked against a from-scratch fill."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.sunflower_valley.actions import HOUSE, SLOTS, normal_id
from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.hexgrid import parse_hex
from farmgames.envs.sunflower_valley.observer import GAME_FEATURES, PLAYER_FEATURES, SHEET_PLANES, Observer
from farmgames.envs.sunflower_valley.scenario import scenario

from .helpers import EXAMPLE_13, picture

PF = [name for name, _, _ in PLAYER_FEATURES]
SP = [name for name, _, _ in SHEET_PLANES]
GF = [name for name, _, _ in GAME_FEATURES]


def observe(game, seat):
    o = Observer(game)
    b = o.new_buffer()
    o.fill(game, seat, b)
    return o, b.views


def test_layout_is_declared_once_with_finite_highs():
    o = Observer(num_players=5)
    assert np.isfinite(o.layout.high()).all()
    assert [e.name for e in o.layout.entries] == ["sheets", "players", "valley", "slots", "game"]
    assert "sheets" in o.markdown() and "rail_side_0" in o.markdown()


def test_viewer_first_on_every_player_axis():
    """Player axes start with the viewer, then clockwise (SV-INFO-1: the others' sheets are all there)."""
    g = scenario(3, letter="A", sheets={1: picture("A", C1="H", B1="Sh")}, inhabitants={1: 7}, first=2)
    _, v = observe(g, 1)
    assert v["players"][0, PF.index("inhabitants")] == 7
    assert v["sheets"][0, SP.index("sheep"), parse_hex("B1")] == 1
    assert v["players"][1, PF.index("first_player")] == 1  # seat 2 is next after the viewer 1
    _, v0 = observe(g, 0)
    assert v0["players"][1, PF.index("inhabitants")] == 7


def test_sheet_planes_and_rail_sides():
    g = scenario(2, letter="A", sheets={0: picture("A", **EXAMPLE_13)})
    _, v = observe(g, 0)
    s = v["sheets"][0]
    d6 = parse_hex("D6")  # C2 = sides NW (2) and SW (4)
    assert s[SP.index("curved_rail"), d6] == 1
    assert [s[SP.index(f"rail_side_{k}"), d6] for k in range(6)] == [0, 0, 1, 0, 1, 0]
    assert s[SP.index("super_sunflower"), parse_hex("E4")] == 1 and s[SP.index("sunflower"), parse_hex("E4")] == 1
    assert s[SP.index("empty"), parse_hex("A3")] == 0 and s[:, parse_hex("A3")].sum() == 0  # mountain
    assert v["valley"][5, parse_hex("A3")] == 1  # mountain plane of the common map
    assert v["players"][0, PF.index("houses")] == 4 and v["players"][0, PF.index("sunflowers_purple")] == 2
    assert v["players"][0, PF.index("pad_C")] == 1 and v["players"][1, PF.index("empty_blue")] == 5


def test_pool_slots_and_game_features():
    g = scenario(
        2, letter="A", pool={"house": 2, "sheep": 3}, slots={"red": "super sunflower"}, round=3, first=1, current=0
    )
    _, v = observe(g, 0)
    assert v["game"][:6].tolist() == [2, 3, 0, 0, 0, 0] and GF[:2] == ["pool_house", "pool_sheep"]
    assert v["slots"][4].tolist() == [0, 0, 0, 0, 1, 0, 0] and v["slots"][0, 0] == 1
    assert v["game"][GF.index("round")] == 4 and v["game"][GF.index("turn_in_round")] == 1
    g.apply(normal_id(HOUSE, parse_hex("B1")))
    assert g.slot_face.count(-1) == SLOTS - 2


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_incremental_fill_equals_fresh_fill(n):
    """The cached, incremental fill agrees with a from-scratch fill after every action, for every seat."""
    g = Game(n, 40 + n, children=n == 3)
    o = Observer(g)
    bufs = [o.new_buffer() for _ in range(n)]
    rng = random.Random(n)
    while True:
        for seat in range(n):
            o.fill(g, seat, bufs[seat])
            fresh = Observer(g)
            fb = fresh.new_buffer()
            fresh.fill(g, seat, fb, force_full=True)
            assert np.array_equal(bufs[seat].flat, fb.flat)
            assert (fb.flat >= 0).all() and (fb.flat <= o.layout.high()).all()
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_actions()))


def test_text_view():
    g = Game(2, 3)
    assert Observer(g).text(g, 1).startswith("you are player 1")


def test_incremental_fill_with_skipped_states_and_resets():
    """Fills at irregular intervals (one or two turns apart), random seats and occasional resets still equal
    a fresh observer's fill (both variants, 2–5 players)."""
    rng = random.Random(5)
    for seed in range(40):
        n = 2 + seed % 4
        g = Game(n, seed, children=seed % 2 == 0)
        o = Observer(g)
        bufs = [o.new_buffer() for _ in range(n)]
        while not g.is_terminal():
            for _ in range(rng.choice([1, 1, 1, 2])):
                if not g.is_terminal():
                    g.apply(rng.choice(g.legal_actions()))
            seat = rng.randrange(n)
            o.fill(g, seat, bufs[seat])
            if rng.random() < 0.05:
                o.reset(g)
            fresh = Observer(g)
            fb = fresh.new_buffer()
            fresh.fill(g, seat, fb)
            assert np.array_equal(bufs[seat].flat, fb.flat), (seed, len(g.history))
