"""Key Harvest resampling matches the distribution the rules imply (KH-INFO-3, KH-INFO-4, KH-INFO-7).

The expected distributions are worked out from the setup rules alone (KH-SETUP-9..12, KH-SETUP-16), not
from the resampler; a resampler that kept the true hidden values fails every case (checked too).
"""

from __future__ import annotations

import random
from collections import Counter
from math import comb

from farmgames.envs.key_harvest.board import NUM_CROPS, NUM_SPACES
from farmgames.envs.key_harvest.game import Game

from .chisq import check

DRAWS = 3000


def sample(game: Game, seat: int, what, draws: int = DRAWS) -> Counter:
    draw = game.infostate_sampler(seat)
    rng = random.Random(77)
    return Counter(what(draw(rng)) for _ in range(draws))


def test_secret_start_draws_are_hypergeometric() -> None:
    """KH-SETUP-9..12, KH-INFO-7: at the start seat 0 knows its own draw; seat 1's 3 counters are drawn
    from the rest of the pool: P(v) = prod_c C(rest_c, v_c) / C(6, 3)."""
    game = Game(3, seed=5)
    rest = [game.pool[c] - game.start[0][c] for c in range(NUM_CROPS)]
    expected = {}
    total = comb(sum(rest), 3)
    for v in {tuple(s) for s in _vectors(rest)}:
        p = 1.0
        for c in range(NUM_CROPS):
            p *= comb(rest[c], v[c])
        expected[v] = p / total
    counts = sample(game, 0, lambda g: tuple(g.start[1]))
    check(counts, expected, tuple(game.start[1]), "KH seat 1 start draw")
    for other in (game.infostate_sampler(0)(random.Random(i)) for i in range(50)):
        assert other.start[0] == game.start[0]
        assert [a + b for a, b in zip(other.start[1], other.start[2])] == rest


def _vectors(rest: list[int]) -> list[list[int]]:
    out = []
    for a in range(rest[0] + 1):
        for b in range(rest[1] + 1):
            for c in range(rest[2] + 1):
                for d in range(rest[3] + 1):
                    e = 3 - a - b - c - d
                    if 0 <= e <= rest[4]:
                        out.append([a, b, c, d, e])
    return out


def test_removed_events_are_any_unseen_events() -> None:
    """KH-SETUP-16, KH-INFO-4: the 2 removed event tiles are any 2 of the 14 unseen event tiles."""
    game = Game(4, seed=8)
    events = [t for t in game.bag if t >= NUM_SPACES] + game.removed
    counts = sample(game, 2, lambda g: min(g.removed))
    # the smaller of 2 tiles drawn from the sorted list: P(i-th smallest) = (m - 1 - i) / C(m, 2)
    ordered = sorted(events)
    m = len(ordered)
    expected = {t: (m - 1 - i) / comb(m, 2) for i, t in enumerate(ordered) if i < m - 1}
    check(counts, expected, min(game.removed), "KH removed event (smaller id)")


def test_next_bag_tile_follows_the_public_composition() -> None:
    """KH-INFO-3: the next tile out of the bag is an event tile with probability (event tiles in the bag)
    / (tiles in the bag): the composition is public, the order is not."""
    game = Game(3, seed=2)
    fields = sum(1 for t in game.bag if t < NUM_SPACES)
    events = len(game.bag) - fields
    expected = {"field": fields / len(game.bag), "event": events / len(game.bag)}
    counts = sample(game, 1, lambda g: "field" if g.bag[-1] < NUM_SPACES else "event")
    truth = "field" if game.bag[-1] < NUM_SPACES else "event"
    stat_counts = Counter(counts)
    check(stat_counts, expected, truth, "KH next bag tile kind")


def test_start_draws_stay_compatible_with_what_was_spent() -> None:
    """KH-INFO-7, KH-RULING-16: a resampled start draw never lets a player have spent counters he did not
    have (start + lowest public net >= 0 per crop), and supplies keep start + net."""
    rng = random.Random(3)
    game = Game(4, seed=3)
    for _ in range(250):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
    draw = game.infostate_sampler(0)
    for _ in range(100):
        other = draw(rng)
        for q in range(4):
            for c in range(NUM_CROPS):
                assert other.start[q][c] + other.min_net[q][c] >= 0
                assert other.supply[q][c] == other.start[q][c] + other.net[q][c]
