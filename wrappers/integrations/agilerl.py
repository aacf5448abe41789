"""AgileRL: any farmgames game as the parallel env its multi-agent algorithms (IPPO, MADDPG, ...) expect.

    from farmgames.wrappers.integrations.agilerl import agilerl_env
    env = agilerl_env("key_harvest", num_players=2)   # Box observations, info[agent]["action_mask"]

AgileRL reads action masks from ``info[agent]["action_mask"]`` and wants ``Box`` observations: the
parallel env in ``observation_mode="flat"`` gives both.
"""

from __future__ import annotations

from typing import Any

from . import parallel

__all__ = ["agilerl_env"]


def agilerl_env(game: str, **kwargs: Any) -> Any:
    kwargs.setdefault("observation_mode", "flat")
    return parallel(game, **kwargs)
