"""Sunflower Valley (Солнечная долина): the rules engine and its tools (spec: sunflower_valley.md).

The engine (:class:`~.game.Game`) is pure Python + numpy; the observer, renders, narrator and bots read it.
"""

from .game import Game

__all__ = ["Game"]
