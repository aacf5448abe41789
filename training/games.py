"""The ``--game`` option every command shares, and player counts from the game's spec.

Commands never name a game: they take ``--game``, look its :class:`~farmgames.envs.core.spec.GameSpec`
up in the registry and read players, bots and words from it. ``--game fields_of_green`` is the newest
version of a game; the default is ``fields_of_green_v0``, the version of the single-game release, so that
every command (and every config without ``env.game``) behaves as it did before there were several games
and versions, and the shipped configs, baselines, balance report and golden transcripts stay reproducible.
"""

from __future__ import annotations

import argparse
from typing import Any

import farmgames.envs as envs
from farmgames.envs import get_spec

DEFAULT_GAME = "fields_of_green_v0"

__all__ = ["DEFAULT_GAME", "add_checkpoint_options", "add_game_argument", "check_players", "game_type", "player_counts"]


def game_type(text: str) -> str:
    """argparse ``type`` of ``--game``: a registered game (or ``<game>_v<N>``); the error lists them."""
    try:
        get_spec(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_game_argument(parser: argparse.ArgumentParser, default: str | None = DEFAULT_GAME) -> None:
    shown = default or "a checkpoint's game, else " + DEFAULT_GAME
    parser.add_argument(
        "--game",
        type=game_type,
        default=default,
        metavar="GAME",
        help=f"which game: {', '.join(envs.GAME_NAMES)} (or <game>_v<N>; default {shown})",
    )


def player_counts(spec: Any) -> str:
    return ", ".join(str(n) for n in spec.player_counts)


def check_players(spec: Any, players: Any, option: str = "--players") -> int:
    """``players`` if the game allows it, else ValueError naming the allowed counts."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in spec.player_counts:
        raise ValueError(f"{option} must be one of {player_counts(spec)} for {spec.name}, got {players!r}")
    return players


def add_checkpoint_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that plays checkpoint policies (evaluate, league)."""
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads for checkpoint policies (default 1: small batches, no oversubscription)",
    )
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="load stable-baselines3 .zip checkpoints that have no .safetensors file beside them (that unpickles "
        "them: a zip can run code; only for files you trust)",
    )
