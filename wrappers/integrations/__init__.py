"""Thin adapters for RL libraries that want a shape of their own (``farmgames.wrappers.integrations``).

Every farmgames env already follows PettingZoo and gymnasium; most libraries take it as it is
(docs/libraries.md shows each library's recipe). The modules here cover what a library needs beyond that,
each importing its library only when called:

* :mod:`.rllib`: an RLlib ``MultiAgentEnv`` with ``{"observations", "action_mask"}`` observations (what
  RLlib's action-masking RLModule reads) and a PPO config for self-play across seats;
* :mod:`.tianshou`: Tianshou's ``PettingZooEnv`` over the ``flat_dict`` AEC env;
* :mod:`.torchrl`: TorchRL's ``PettingZooWrapper`` over the parallel env with masks;
* :mod:`.supersuit`: SuperSuit vector envs of the parallel env (``flat`` observations);
* :mod:`.agilerl`: the parallel env with Box observations and masks in ``info["action_mask"]``.
"""

from __future__ import annotations

from typing import Any

from farmgames.envs import face, get_spec

__all__ = ["parallel", "aec"]


def parallel(game: str, **kwargs: Any) -> Any:
    """The parallel env of ``game`` (a name or ``<game>_v<N>``; newest version by default)."""
    return face(get_spec(game).env_name).parallel_env(**kwargs)


def aec(game: str, **kwargs: Any) -> Any:
    """The wrapped AEC env (``env()``) of ``game``."""
    return face(get_spec(game).env_name).env(**kwargs)
