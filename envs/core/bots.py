"""Bots that read the engine directly, the uniform random bot, and the play loop for any game.

>>> from farmgames.envs.core.bots import RandomBot
>>> RandomBot(seed=3)
RandomBot(seed=3)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .lru import MISS, lru_get, lru_put  # (re-exported: the bots' memo tables)

__all__ = ["MISS", "Bot", "RandomBot", "lru_get", "lru_put", "make_bot", "play_game"]


class Bot:
    """A player: ``act(game)`` returns a legal action for ``game.current_player``."""

    name = "bot"

    def __init__(self, seed: int = 0):
        # integers only (numpy integers too); bools, floats and strings are refused, never coerced
        if isinstance(seed, bool) or type(seed).__name__ == "bool_" or not hasattr(seed, "__index__"):
            raise ValueError(f"bot seed must be an integer, got {seed!r}")
        self.seed = int(seed.__index__())
        self.rng = random.Random(self.seed)

    def act(self, game: Any) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, game: Any) -> int:
        return self.act(game)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(Bot):
    """Uniform over the legal actions, from its own seeded ``random.Random``."""

    name = "random"

    def act(self, game: Any) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return int(legal[0])
        return int(self.rng.choice(legal))


def make_bot(bots: Mapping[str, Callable[..., Bot]], name: str, seed: int = 0) -> Bot:
    """A bot by name from a game's bot table (``GameSpec.bots``)."""
    try:
        factory = bots[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; valid names: {', '.join(sorted(bots))}") from None
    return factory(seed=seed)


def play_game(
    bots: Sequence[Bot | Callable[[Any], int]],
    game: Any,
    on_action: Callable[[Any, int, int], None] | None = None,
) -> Any:
    """Play ``game`` to its end with ``bots[seat]`` deciding for each seat; returns the game.
    ``on_action(game, seat, action)`` is called before each action is applied."""
    while not game.is_terminal():
        seat = game.current_player
        bot = bots[seat]
        action = bot.act(game) if hasattr(bot, "act") else bot(game)
        if on_action is not None:
            on_action(game, seat, action)
        game.apply(action)
    return game
