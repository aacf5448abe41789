"""Hidden information: KH-INFO-1, KH-INFO-2, KH-INFO-3, KH-INFO-4, KH-INFO-5, KH-INFO-6, KH-INFO-7, KH-INFO-8,
KH-RULING-16, KH-SETUP-18, the observer layout and the hidden perturbation.

Black-box: a seat's observation, mask, text and renders do not change when only what it cannot see changes
(``SPEC.hidden_perturbation``), and do change when its own supply changes.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.key_harvest.bots import HeuristicBot
from farmgames.envs.key_harvest.game import Game
from farmgames.envs.key_harvest.hidden import hidden_perturbation
from farmgames.envs.key_harvest.observer import Observer, known_supplies
from farmgames.envs.key_harvest.render import ansi_text, render_text, rgb_array

from .helpers import ST, S, play, scenario


def states(n: int, seed: int, every: int = 9, limit: int = 900):
    rng = random.Random(seed)
    g = Game(n, seed)
    step = 0
    while not g.is_terminal() and step < limit:
        if step % every == 0:
            yield g
        g.apply(rng.choice(g.legal_actions()))
        step += 1


def view(game, seat):
    obs = Observer(game)
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)
    mask = game.legal_mask() if game.current_player == seat else np.zeros(93, np.int8)
    return buf.flat.copy(), mask, obs.text(game, seat), ansi_text(game, seat)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_info_1_3_4_7_ruling_16_perturbations_are_invisible(n):
    """KH-INFO-1, KH-INFO-3, KH-INFO-4, KH-INFO-7, KH-RULING-16: the bag order, the removed events and another
    player's secret start draw
    never reach a seat's observation, mask, text or renders."""
    rng = random.Random(n)
    kinds = set()
    compared = 0
    for g in states(n, 50 + n):
        for seat in range(n):
            other = hidden_perturbation(g, seat, rng)
            if other is None:
                continue
            assert other.to_json() != g.to_json()
            kinds.add("start" if other.start != g.start else "removed" if other.removed != g.removed else "bag")
            a, b = view(g, seat), view(other, seat)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2] and a[3] == b[3]
            compared += 1
    assert compared > 20
    assert kinds == ({"bag"} if n == 2 else {"bag", "removed", "start"})


def test_rgb_public_view_is_invisible_to_perturbations():
    """KH-INFO-7: the RGB picture (public view) is unchanged by every hidden perturbation."""
    rng = random.Random(0)
    for g in list(states(4, 3, every=60, limit=400))[:4]:
        other = hidden_perturbation(g, 0, rng)
        assert other is not None and np.array_equal(rgb_array(g), rgb_array(other))


def test_own_supply_change_is_seen():
    """KH-INFO-8: the viewer's own supply is in its observation (a change of it changes obs and text)."""
    g = Game(4, 2)
    seat = 1
    before = view(g, seat)
    other = g.clone()
    x = next(c for c in range(5) if g.start[seat][c])  # one start counter of crop x becomes crop y
    y = (x + 1) % 5
    for row in (other.supply[seat], other.start[seat]):
        row[x] -= 1
        row[y] += 1
    after = view(other, seat)
    assert not np.array_equal(before[0], after[0]) and before[2] != after[2]
    seen_by_other = view(other, 2)
    assert np.array_equal(view(g, 2)[0], seen_by_other[0])  # another seat does not see it


def test_info_2_5_public_parts_in_the_observation():
    """KH-INFO-2, KH-INFO-5: boards, stores, registry, town, events, fallow and the general stock are open to all."""
    g = scenario(
        num_players=3,
        boards={2: "C2 c3"},
        workers={2: {"C4": "Apprentice"}},
        stores={1: [("E6", {"wine": 1}), None]},
        fallow=["G8"],
        events=["Tithe"],
    )
    obs = Observer(g)
    buf = obs.new_buffer()
    obs.fill(g, 0, buf)
    v = buf.views
    s = lambda name: S(name) - 6  # noqa: E731
    assert v["board"][2][s("C2"), 1] == 1 and v["board"][2][s("C3"), 2] == 1 and v["board"][2][s("C4"), 9] == 1
    assert v["store_tile"][1][0][s("E6")] == 1 and v["tile_places"][1][s("G8")] == 1
    assert obs.state_feature(buf, "events_out_tithe") == 1 and list(obs.state_feature(buf, "stock_")) == g.stock
    assert v["townsfolk"][:, 0].sum() == 6


def test_info_6_public_transfers_give_the_net():
    """KH-INFO-6, KH-RULING-16: a payment is public: a third player sees both nets and totals change."""
    g = scenario(num_players=3, supply={0: {"wine": 2}, 2: {"hops": 1}}, stores={1: [("A1", {"wine": 2}), None]})
    play(g, 4, ST(1, 1))
    exact, low, total = known_supplies(g, 2)
    assert total == [0, 4, 1] and exact[0] is None and low[1] == [0, 0, 0, 0, 4]
    assert g.net[0] == [0, 0, 0, 0, -2] and g.net[1] == [0, 0, 0, 0, 4]


def test_info_7_totals_always_known_two_player_supplies_known():
    """KH-INFO-7, KH-SETUP-18: every supply total is known; with 2 players every composition is known."""
    for n in (2, 3, 4):
        for g in list(states(n, 7, every=40))[:5]:
            exact, low, total = known_supplies(g, 0)
            assert total == [sum(s) for s in g.supply]
            for q in range(n):
                if n == 2 or q == 0:
                    assert exact[q] == g.supply[q]
                else:
                    assert exact[q] is None and all(lo <= s for lo, s in zip(low[q], g.supply[q]))


def test_info_8_layout_bounds_and_seat_first():
    """KH-INFO-8, KH-RULING-16: every value within the declared finite bounds; the viewer is first on player axes."""
    for n in (2, 4):
        for g in states(n, 11, every=5):
            obs = Observer(g)
            hi = obs.layout.high()
            assert np.isfinite(hi).all()
            for seat in range(n):
                buf = obs.new_buffer()
                obs.fill(g, seat, buf)
                assert (buf.flat >= 0).all() and (buf.flat <= hi).all()
                assert obs.state_feature(buf, "own_").tolist() == g.supply[seat]
                assert obs.player_feature(buf, "supply_total")[0] == sum(g.supply[seat])
                exact, low, total = known_supplies(g, seat)  # the observer's rows say what known_supplies says
                order = [(seat + k) % n for k in range(n)]
                assert obs.player_feature(buf, "supply_total").tolist() == [total[q] for q in order]
                for c, crop in enumerate(("wheat", "hops", "vegetables", "cider_apples", "wine")):
                    assert obs.player_feature(buf, f"supply_min_{crop}").tolist() == [low[q][c] for q in order]


def test_incremental_fill_equals_fresh_fill():
    """The observer's memo (board planes rewritten only when a board changed) gives the same values as a fresh
    buffer, for every seat through random games."""
    g = Game(4, 5)
    obs = Observer(g)
    bufs = [obs.new_buffer() for _ in range(4)]
    rng = random.Random(5)
    while not g.is_terminal():
        for seat in range(4):
            obs.fill(g, seat, bufs[seat])
            fresh = obs.new_buffer()
            obs.fill(g, seat, fresh)
            assert np.array_equal(bufs[seat].flat, fresh.flat)
        for _ in range(7):
            if not g.is_terminal():
                g.apply(rng.choice(g.legal_actions()))


def test_heuristic_bot_reads_only_its_seat():
    """Bots read only what their seat may know: the heuristic's choice is the same on every perturbation."""
    rng = random.Random(1)
    checked = 0
    for n in (2, 3, 4):
        for g in states(n, 20 + n, every=3, limit=600):
            seat = g.current_player
            other = hidden_perturbation(g, seat, rng)
            if other is None:
                continue
            assert HeuristicBot(seed=4).act(g) == HeuristicBot(seed=4).act(other)
            checked += 1
    assert checked > 50


def test_text_names_hidden_supplies_only_as_totals():
    """KH-INFO-1: a seat's text shows another player's secret supply only as a total and deduced bounds."""
    g = Game(3, 0)
    text = render_text(g, 0)
    assert "hidden" in text and "(you)" in text
    assert "hidden" not in render_text(Game(2, 0), 0)
