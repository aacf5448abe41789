"""TorchRL's ``PettingZooWrapper`` over any farmgames game.

    from farmgames.wrappers.integrations.torchrl import torchrl_env
    env = torchrl_env("sunflower_valley", num_players=2)
    td = env.rollout(10)         # masks under ("agents", "action_mask")

The parallel env with ``flat_dict`` observations and ``use_mask=True``; all agents in one group, so one
policy plays every seat (self-play). Non-deciders' masks allow only ``noop``.
"""

from __future__ import annotations

from typing import Any

from . import parallel

__all__ = ["torchrl_env"]


def torchrl_env(game: str, seed: int | None = None, device: str = "cpu", **kwargs: Any) -> Any:
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    kwargs.setdefault("observation_mode", "flat_dict")
    env = parallel(game, **kwargs)
    return PettingZooWrapper(
        env=env, use_mask=True, group_map=None, categorical_actions=True, seed=seed, device=device, done_on_any=True
    )
