"""The fast fill skips the copies of the master's boards and stores, and of its public planes, into a
buffer whose plan holds the master's current versions of them (envs/key_harvest/observer.py, ``fill``).

Checked against ``fill_plain`` with buffers filled out of order and sparsely (a seat's buffer left alone for
many steps, then filled), and the trick's invariant itself: every write to those regions of the master
bumps their version.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.key_harvest.game import Game
from farmgames.envs.key_harvest.observer import Observer


def plain(obs: Observer, game: Game, seat: int) -> np.ndarray:
    buf = obs.new_buffer()
    obs.fill_plain(game, seat, buf)
    return buf.flat


def _regions(obs: Observer) -> tuple[slice, slice]:
    e = obs.layout.entry
    return slice(e["board"].start, e["store_tile"].stop), slice(e["registry"].start, e["event_spaces"].stop)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sparse_out_of_order_fills_equal_plain(n):
    """One buffer per seat (as the env keeps them); each step fills a random subset of the seats in a
    random order, so a buffer misses board, store and public changes for several steps."""
    for seed in range(3):
        g = Game(n, 700 + 10 * n + seed)
        obs = Observer(g)
        bufs = [obs.new_buffer() for _ in range(n)]
        rng = random.Random(seed)
        step = 0
        while not g.is_terminal():
            seats = [s for s in range(n) if rng.random() < 0.3]
            rng.shuffle(seats)
            for seat in seats:
                obs.fill(g, seat, bufs[seat])
                assert np.array_equal(bufs[seat].flat, plain(obs, g, seat)), (n, seed, step, seat)
            g.apply(rng.choice(g.legal_actions()))
            step += 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_write_to_the_skipped_regions_bumps_their_version(n):
    """The invariant the skip relies on: the master's boards/stores and public planes never change while
    their version stays (the versions may bump without a change)."""
    g = Game(n, 40 + n)
    obs = Observer(g)
    buf = obs.new_buffer()
    boards, public = _regions(obs)
    rng = random.Random(n)
    obs.fill(g, 0, buf)
    changed = [0, 0]
    while not g.is_terminal():
        before = obs._master.flat.copy(), obs._boards_v, obs._public_v
        g.apply(rng.choice(g.legal_actions()))
        obs.fill(g, g.current_player or 0, buf)
        master = obs._master.flat
        for k, (region, v) in enumerate(((boards, obs._boards_v), (public, obs._public_v))):
            if not np.array_equal(master[region], before[0][region]):
                changed[k] += 1
                assert v != before[1 + k], k
    assert min(changed) > 5  # the games do change both regions


def test_a_buffer_with_current_versions_skips_the_copies():
    """The skip is taken: a second fill with no change in between leaves the boards and public regions of
    the buffer alone (a buffer filled by ``fill`` is written by nobody else, by contract), and a new
    version rewrites them."""
    g = Game(4, 3)
    obs = Observer(g)
    buf = obs.new_buffer()
    boards, public = _regions(obs)
    obs.fill(g, 1, buf)
    buf.flat[boards] = 7.0
    buf.flat[public] = 7.0
    obs.fill(g, 1, buf)
    assert (buf.flat[boards] == 7.0).all() and (buf.flat[public] == 7.0).all()
    obs._boards_v += 1
    obs._public_v += 1
    obs.fill(g, 1, buf)
    assert np.array_equal(buf.flat, plain(obs, g, 1))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seat_buffers_kept_across_clones_and_loaded_states(n):
    """The same per-seat buffers while the observer switches between a game, a clone that moved on and a
    state loaded from JSON (each switch is a full sync, which must bump both versions): every fill equals
    the plain fill."""
    rng = random.Random(30 + n)
    g = Game(n, 60 + n)
    obs = Observer(g)
    bufs = [obs.new_buffer() for _ in range(n)]
    for step in range(200):
        if g.is_terminal():
            break
        others = [g]
        if step % 9 == 0:
            twin = g.clone()
            for _ in range(rng.randrange(1, 6)):
                if not twin.is_terminal():
                    twin.apply(rng.choice(twin.legal_actions()))
            others += [twin, Game.from_json(twin.to_json()), g]
        for game in others:
            seat = rng.randrange(n)
            obs.fill(game, seat, bufs[seat])
            assert np.array_equal(bufs[seat].flat, plain(obs, game, seat)), (n, step, seat)
        g.apply(rng.choice(g.legal_actions()))
