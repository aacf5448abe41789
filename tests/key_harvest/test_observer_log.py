"""The fast fill's change-log dispatch and shared caches (envs/key_harvest/observer.py).

``fill`` calls the handler of every new tag in log order, repeats included (no set): that is right only
if every handler is idempotent and the parts are independent of the order they are written in. The
``_COUNTERS`` cache is shared by observers of every player count (its 2-player keys can never equal a 3-4
player key).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.key_harvest.game import CH_STOCK, CH_TURN, Game
from farmgames.envs.key_harvest.observer import Observer


def plain(obs: Observer, game: Game, seat: int) -> np.ndarray:
    buf = obs.new_buffer()
    obs.fill_plain(game, seat, buf)
    return buf.flat


def _all_tags(n: int) -> list[int]:
    return [t for t in range(CH_STOCK) if t & 3 < n] + list(range(CH_STOCK, CH_TURN + 1))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_handlers_are_idempotent_in_any_order(n):
    """After a fill, every handler called again (each tag twice, shuffled) changes nothing in the master."""
    g = Game(n, 80 + n)
    obs = Observer(g)
    buf = obs.new_buffer()
    rng = random.Random(n)
    while not g.is_terminal():
        obs.fill(g, 0, buf)
        before = obs._master.flat.copy()
        tags = _all_tags(n) * 2
        rng.shuffle(tags)
        for tag in tags:
            obs._handlers[tag](g)
        assert np.array_equal(obs._master.flat, before), len(g.history)
        g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_repeated_and_reordered_log_tags_fill_like_plain(n):
    """A log whose new tags repeat (the engine may log a part twice in one step) and a fill after several
    steps give the plain values."""
    g = Game(n, 90 + n)
    obs = Observer(g)
    bufs = [obs.new_buffer() for _ in range(n)]
    rng = random.Random(10 + n)
    while not g.is_terminal():
        for _ in range(rng.randrange(1, 4)):
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_actions()))
            g.changes += rng.sample(_all_tags(n), 3)  # repeats of tags that may or may not have been logged
        seat = rng.randrange(n)
        obs.fill(g, seat, bufs[seat])
        assert np.array_equal(bufs[seat].flat, plain(obs, g, seat)), len(g.history)


def test_counters_cache_shared_by_two_and_four_player_observers():
    """A 2-player and a 4-player game interleaved (one _COUNTERS cache): every fill equals the plain fill."""
    games = [Game(2, 5), Game(4, 5), Game(3, 6)]
    observers = [Observer(g) for g in games]
    bufs = [[o.new_buffer() for _ in range(g.num_players)] for o, g in zip(observers, games)]
    rng = random.Random(2)
    while not all(g.is_terminal() for g in games):
        for g, obs, b in zip(games, observers, bufs):
            if g.is_terminal():
                continue
            g.apply(rng.choice(g.legal_actions()))
            for seat in range(g.num_players):
                obs.fill(g, seat, b[seat])
                assert np.array_equal(b[seat].flat, plain(obs, g, seat))
