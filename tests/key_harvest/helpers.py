"""Small helpers shared by the Key Harvest tests."""

from __future__ import annotations

from farmgames.envs.key_harvest.actions import CROP0, DONE, REGISTRY0, SPACE0, STORE0
from farmgames.envs.key_harvest.board import CROPS, SPACE_NAMES
from farmgames.envs.key_harvest.scenario import scenario

__all__ = ["CROP0", "DONE", "REGISTRY0", "SPACE0", "STORE0", "S", "C", "R", "ST", "play", "scenario"]


def S(name: str) -> int:
    """Action id of a board space."""
    return SPACE0 + SPACE_NAMES.index(name)


def C(name: str) -> int:
    """Action id of a crop."""
    return CROP0 + CROPS.index(name)


def R(space: int) -> int:
    """Action id of registry space 1-6."""
    return REGISTRY0 + space - 1


def ST(offset: int, space: int) -> int:
    """Action id of a store tile (offset clockwise from the actor, space 1-2)."""
    return STORE0 + 2 * offset + space - 1


def play(game, *actions: int):
    for a in actions:
        game.apply(a)
    return game
