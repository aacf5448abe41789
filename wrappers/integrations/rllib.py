"""Ray RLlib (new API stack): any farmgames game as a ``MultiAgentEnv`` and a masked-PPO self-play config.

    from farmgames.wrappers.integrations.rllib import ppo_config
    config = ppo_config("key_harvest", num_players=2, env_runners=2)
    algo = config.build_algo()
    algo.train()

:class:`RLlibEnv` steps the game's parallel env. Only the agents that decide now get an observation
(``{"observations": float32 vector, "action_mask": float32 0/1}``, what RLlib's
``ActionMaskingTorchRLModule`` reads); the others' ``noop`` is filled in. At the end every agent gets
its final observation (mask all ones), its reward and ``terminateds["__all__"] = True``. One shared
module plays every seat (self-play across seats).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from . import parallel

__all__ = ["ENV_NAME", "RLlibEnv", "make_env", "ppo_config"]

ENV_NAME = "farmgames"

try:  # RLlib's base class when Ray is installed; the env works without it for tests of its logic
    from ray.rllib.env.multi_agent_env import MultiAgentEnv as _Base
except ImportError:  # pragma: no cover - depends on the installed clients
    _Base = object  # type: ignore[assignment,misc]


class RLlibEnv(_Base):  # type: ignore[misc,valid-type]
    """A farmgames game as an RLlib ``MultiAgentEnv`` (see module doc). ``config``: ``game`` plus any
    keyword of the game's ``parallel_env`` (``num_players``, variant keywords, ``reward``)."""

    def __init__(self, config: dict[str, Any] | None = None):
        if _Base is not object:
            super().__init__()
        config = dict(config or {})
        game = config.pop("game", "fields_of_green")
        config["observation_mode"] = "flat_dict"
        self.par = parallel(game, **config)
        self.possible_agents = list(self.par.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.par.observation_space(self.possible_agents[0])
        n = int(self.par.action_space(self.possible_agents[0]).n)
        space = spaces.Dict(
            {
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.par.action_space(a) for a in self.possible_agents}
        self.observation_space = space
        self.action_space = self.action_spaces[self.possible_agents[0]]
        self._obs: dict[str, Any] = {}
        self._deciding: list[str] = []

    def _convert(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def _deciders(self) -> list[str]:
        return [self.possible_agents[s] for s in self.par.deciders()]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self._obs, infos = self.par.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._deciding = self._deciders()
        return {a: self._convert(self._obs[a]) for a in self._deciding}, {a: infos[a] for a in self._deciding}

    def step(self, action_dict: dict[str, Any]) -> Any:
        actions = {a: int(action_dict[a]) if a in action_dict else self.par.NOOP for a in self.par.agents}
        obs, rewards, terms, truncs, infos = self.par.step(actions)
        self._obs = obs
        done = not self.par.agents
        chosen = list(self.possible_agents) if done else self._deciders()
        self._deciding = chosen
        observations = {a: self._convert(obs[a]) for a in chosen}
        terminateds = {a: bool(terms[a]) for a in chosen}
        truncateds = {a: bool(truncs[a]) for a in chosen}
        terminateds["__all__"] = done and any(terms.values())
        truncateds["__all__"] = done and not terminateds["__all__"]
        out_rewards = {a: float(r) for a, r in rewards.items()}
        return observations, out_rewards, terminateds, truncateds, {a: infos[a] for a in chosen}


def make_env(config: dict[str, Any]) -> RLlibEnv:
    """The env creator RLlib calls with its ``env_config`` (registered under :data:`ENV_NAME`)."""
    return RLlibEnv(dict(config))


def ppo_config(
    game: str,
    num_players: int | None = None,
    env_runners: int = 1,
    hidden: tuple[int, ...] = (64, 64),
    train_batch_size: int = 2000,
    minibatch_size: int = 256,
    lr: float = 3e-4,
    **env_kwargs: Any,
) -> Any:
    """A ``PPOConfig`` with action masking and one shared module for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    env_config = {"game": game, **env_kwargs}
    if num_players is not None:
        env_config["num_players"] = num_players
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": list(hidden), "fcnet_hiddens": list(hidden)},
    )
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size, num_epochs=1, lr=lr)
    )
