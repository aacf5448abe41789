"""Key Harvest: tile bidding and placement for 2-4 players, with hidden crop counters (rules: key_harvest.md)."""

from .game import Game
from .scoring import Score

__all__ = ["Game", "Score"]
