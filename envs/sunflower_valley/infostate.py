"""Information states and determinisation for Sunflower Valley: perfect information, only future dice hidden.

Every sheet, the dice pool, the slots and all inhabitants are public (SV-INFO-1, SV-RULING-16); the only
chance after setup is the roll of each round (SV-ROUND-2). The engine draws every round's roll at setup
(``Game.rolls``), so a state knows its future dice: a search that cloned it would know them too. What a
seat knows is therefore the public setup, every decision and the rolls of the rounds begun so far; a
resampled state keeps all of that and rolls every later round again (each die uniform over the six faces,
SV-COMP-1). The drawn state keeps the same seed and its own ``rolls``; its information state is computed
by the same replay (tests/search checks it equals the original's).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Hashable
from functools import partial

import numpy as np

from farmgames.envs.core.recall import check_replayed, check_seat, replay_views

from ..core.protocol import InformationState
from ..core.search import ISMCTSBot, PIMCBot
from .actions import DICE, FACES
from .game import Game

__all__ = [
    "ROLLOUT_DEPTH",
    "action_token",
    "information_state",
    "ismcts_25",
    "ismcts_100",
    "pimc_25",
    "pimc_100",
    "resample_from_infostate",
    "sampler",
    "view_token",
]


def action_token(game: Game, seat: int, action: int) -> Hashable:
    """Every decision is public (SV-INFO-1)."""
    return int(action)


def view_token(game: Game, seat: int) -> Hashable:
    """The round and its roll: the only thing no action tells (SV-ROUND-2)."""
    return (game.round, game.rolls[game.round] if game.round < len(game.rolls) else None)


def _replay(game: Game, seat: int) -> list[str]:
    check_seat(game, seat)
    g = Game(game.num_players, game.seed, **game.variant)
    g.rolls = list(game.rolls)  # round 0's roll is public from the start; later ones are revealed in play
    tokens = replay_views(g, game.history, seat, view_token, f"setup letter={g.letter} pads={g.pads} first={g.first}")
    check_replayed(g, game, "its seed, rolls and history")
    return tokens


def information_state(game: Game, seat: int) -> InformationState:
    """``seat``'s information state: the public setup, every decision, the rolls revealed so far (the same for
    every seat but the seat number); the tensor is the seat's observation (everything is public)."""
    tokens = _replay(game, seat)
    head = json.dumps(
        {"game": "sunflower_valley", "seat": seat, "num_players": game.num_players, "variant": game.variant},
        sort_keys=True,
    )
    from .observer import Observer

    obs = Observer(game)
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)
    return InformationState(seat, head + "\n" + "\n".join(tokens), np.array(buf.flat, copy=True))


def sampler(game: Game, seat: int) -> Callable[[random.Random], Game]:
    """The function returned draws states with every later round rolled again."""
    known = game.round + 1  # the rolls of rounds 0..round are on the table

    def draw(rng: random.Random) -> Game:
        g = game.clone()
        rolls = list(game.rolls[:known])
        for _ in range(len(game.rolls) - known):
            counts = [0] * len(FACES)
            for _die in range(DICE):
                counts[rng.randrange(len(FACES))] += 1
            rolls.append(tuple(counts))
        g.rolls = rolls
        return g

    return draw


def resample_from_infostate(game: Game, seat: int, rng: random.Random) -> Game:
    """A complete state with the future dice rolled again (``game`` is untouched)."""
    return sampler(game, seat)(rng)


# ---------------------------------------------------------------------------------------------- search bots

#: games are short (about 24 decisions per seat): playouts run to the end
ROLLOUT_DEPTH = None

pimc_25 = partial(PIMCBot, simulations=25, determinizations=5, rollout_depth=ROLLOUT_DEPTH)
pimc_100 = partial(PIMCBot, simulations=100, determinizations=10, rollout_depth=ROLLOUT_DEPTH)
ismcts_25 = partial(ISMCTSBot, simulations=25, rollout_depth=ROLLOUT_DEPTH)
ismcts_100 = partial(ISMCTSBot, simulations=100, rollout_depth=ROLLOUT_DEPTH)
