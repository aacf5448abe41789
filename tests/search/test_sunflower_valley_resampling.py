"""Sunflower Valley resampling: perfect information (SV-INFO-1, SV-RULING-16), only future dice redrawn."""

from __future__ import annotations

import random
from collections import Counter
from math import comb

from farmgames.envs.sunflower_valley.actions import DICE
from farmgames.envs.sunflower_valley.game import Game

from .chisq import check


def test_next_round_is_rolled_again_with_fair_dice() -> None:
    """SV-ROUND-2, SV-COMP-1: houses in the next round's roll ~ Binomial(6, 1/6); this round's roll, the
    pool and every sheet stay as they are."""
    game = Game(3, seed=6)
    draw = game.infostate_sampler(1)
    rng = random.Random(8)
    counts: Counter = Counter()
    for _ in range(3000):
        other = draw(rng)
        assert other.rolls[: game.round + 1] == game.rolls[: game.round + 1]
        assert other.pool == game.pool and other.sheets == game.sheets
        counts[other.rolls[game.round + 1][0]] += 1
    expected = {k: comb(DICE, k) * (1 / 6) ** k * (5 / 6) ** (DICE - k) for k in range(DICE + 1)}
    check(counts, expected, game.rolls[game.round + 1][0], "SV houses in the next roll")
