"""SuperSuit vector envs of any farmgames game.

    from farmgames.wrappers.integrations.supersuit import vector_env
    venv = vector_env("key_harvest", num_envs=4, num_players=2)   # gymnasium VectorEnv, one row per agent

The parallel env in ``observation_mode="flat"`` (a float32 ``Box``; SuperSuit's observation wrappers need
Box observations), masks in ``info["action_mask"]`` (all ones once a game is over). Every agent submits an
action every step; an agent with nothing to decide has ``noop`` as its only legal action.
"""

from __future__ import annotations

from typing import Any

from . import parallel

__all__ = ["vector_env"]


def vector_env(game: str, num_envs: int = 1, num_cpus: int = 0, base_class: str = "gymnasium", **kwargs: Any) -> Any:
    """``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(parallel_env(observation_mode="flat")), ...)``."""
    import supersuit as ss

    kwargs.setdefault("observation_mode", "flat")
    env = ss.pettingzoo_env_to_vec_env_v1(parallel(game, **kwargs))
    return ss.concat_vec_envs_v1(env, num_envs, num_cpus=num_cpus, base_class=base_class)
