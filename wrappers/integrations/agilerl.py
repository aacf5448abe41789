"""AgileRL: any farmgames game as the parallel env its multi-agent algorithms (IPPO, MADDPG, ...) expect.

    from farmgames.wrappers.integrations.agilerl import agilerl_env
    env = agilerl_env("key_harvest", num_players=2)   # Box observations, info[agent]["action_mask"]

AgileRL reads action masks from ``info[agent]["action_mask"]`` and wants ``Box`` observations: the
parallel env in ``observation_mode="flat"`` gives both. AgileRL 2.58's IPPO tests ``None in masks`` on the
collected masks, which fails for numpy masks ("truth value of an array ... is ambiguous"); with
``mask_as_list=True`` (the default here) the masks in ``info`` are plain lists of 0/1 ints, which it
accepts.
"""

from __future__ import annotations

from typing import Any

from . import parallel

__all__ = ["MaskListInfos", "agilerl_env"]


class MaskListInfos:
    """A thin parallel-env wrapper: ``info[agent]["action_mask"]`` as a list of ints (everything else is
    the wrapped env's)."""

    def __init__(self, env: Any):
        self.env = env

    def __getattr__(self, name: str) -> Any:
        if name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    @staticmethod
    def _lists(infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return {
            a: {**i, "action_mask": i["action_mask"].tolist()} if "action_mask" in i else i for a, i in infos.items()
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, infos = self.env.reset(seed=seed, options=options)
        return obs, self._lists(infos)

    def step(self, actions: dict[str, Any]) -> Any:
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        return obs, rewards, terms, truncs, self._lists(infos)

    @property
    def unwrapped(self) -> Any:
        return self.env.unwrapped


def agilerl_env(game: str, mask_as_list: bool = True, **kwargs: Any) -> Any:
    kwargs.setdefault("observation_mode", "flat")
    env = parallel(game, **kwargs)
    return MaskListInfos(env) if mask_as_list else env
