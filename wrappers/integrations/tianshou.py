"""Tianshou's ``PettingZooEnv`` over any farmgames game.

    from farmgames.wrappers.integrations.tianshou import tianshou_env
    env = tianshou_env("fields_of_green", num_players=2)    # obs {"agent_id", "obs", "mask"}

The wrapped AEC env in ``observation_mode="flat_dict"``: Tianshou reads ``observation`` as one vector and
``action_mask`` as its mask; infos have the same numeric keys on every step (Tianshou's buffer refuses
keys that come and go).
"""

from __future__ import annotations

from typing import Any

from . import aec

__all__ = ["tianshou_env"]


def tianshou_env(game: str, **kwargs: Any) -> Any:
    from tianshou.env import PettingZooEnv

    kwargs.setdefault("observation_mode", "flat_dict")
    return PettingZooEnv(aec(game, **kwargs))
