"""Fields of Green rules engine (pure Python: no gymnasium or pettingzoo imports).

>>> from farmgames.envs.fields_of_green import Game, load_card_set
>>> game = Game(num_players=4, seed=0)
>>> game.legal_actions()[:3]  # the first player's draw splits
[38, 42, 45]
"""

from .actions import SPLITS, ActionLayout
from .cards import CardSet, CardSetError, Equipment, LocationCard, load_card_set
from .game import Game, IllegalActionError
from .scoring import Score

__all__ = [
    "ActionLayout",
    "CardSet",
    "CardSetError",
    "Equipment",
    "Game",
    "IllegalActionError",
    "LocationCard",
    "SPLITS",
    "Score",
    "load_card_set",
]
