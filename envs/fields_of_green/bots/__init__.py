"""Built-in bots for Fields of Green: the core's uniform random bot and a rules-aware heuristic bot.

Pure Python over the engine's public API (no gymnasium / pettingzoo imports), so the environments,
the training code, the balance report and the benchmarks all share these players.

    >>> from farmgames.envs.fields_of_green.bots import make_bot, play_game
    >>> game = play_game([make_bot("heuristic", seed=1), make_bot("random", seed=2)], seed=0)
    >>> game.is_terminal()
    True

The package: ``heuristic`` (``HeuristicBot``'s decisions, its weights and memo tables), ``projection``
(``_Projection``: a farm played through the remaining harvests and counted like the final score) and
``model`` (``_Model``: a card set flattened for the bot, counting with the engine's effect code). ``Bot``,
``RandomBot``, the registry lookup and the play loop are the game-independent ones of ``envs/core/bots.py``;
``make_bot`` and ``play_game`` here keep the Fields of Green signatures. See docs/fields_of_green/bots.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...core import bots as _core
from ...core.bots import Bot, RandomBot
from .heuristic import FAST_WEIGHTS, LITE_WEIGHTS, FastHeuristicBot, HeuristicBot, HeuristicWeights, LiteHeuristicBot

__all__ = [
    "BOTS",
    "FAST_WEIGHTS",
    "LITE_WEIGHTS",
    "Bot",
    "FastHeuristicBot",
    "HeuristicBot",
    "HeuristicWeights",
    "LiteHeuristicBot",
    "RandomBot",
    "make_bot",
    "play_game",
]

# Set to True (tests, debugging) to recompute every memo hit of ``HeuristicBot`` the slow way and replay
# every act it plays on its own copy of a farm on a full engine clone, asserting they agree.
VERIFY_CACHES = False

# "heuristic_lite": the heuristic with a narrower search, ~1.3x cheaper, as strong; "heuristic_fast": narrower
# still (docs/fields_of_green/bots.md)
BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "heuristic_lite": LiteHeuristicBot,
    "heuristic_fast": FastHeuristicBot,
}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A bot by registry name (``BOTS``): ``random``, ``heuristic``, ``heuristic_lite`` or ``heuristic_fast``."""
    return _core.make_bot(BOTS, name, seed)


def play_game(
    bots: Sequence[Bot | Callable[[Any], int]],
    seed: int = 0,
    game: Any = None,
    on_action: Callable[[Any, int, int], None] | None = None,
    **variant: Any,
) -> Any:
    """Play a complete game with ``bots[seat]`` deciding for each seat; returns the finished Game (a new
    ``Game(num_players=len(bots), seed=seed, **variant)`` unless ``game`` is given).
    ``on_action(game, seat, action)`` is called before each action is applied."""
    if game is None:
        from ..game import Game

        game = Game(num_players=len(bots), seed=seed, **variant)
    return _core.play_game(bots, game, on_action)
