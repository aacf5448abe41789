"""Flatten the structured observation of a farmgames PettingZoo env into one float32 vector.

Every farmgames env gives each agent ``{"observation": Dict of named Boxes, "action_mask": int8
vector}``. Most RL code wants one flat vector; these wrappers turn ``"observation"`` into a single
``float32`` ``Box`` (built with :func:`gymnasium.spaces.flatten_space` / :func:`gymnasium.spaces.flatten`,
so the order is the Dict's key order and :func:`unflatten_observation` gives the named parts back) and
leave ``"action_mask"`` untouched::

    from farmgames.envs import fields_of_green_v0
    from farmgames.wrappers import flatten_observations

    env = flatten_observations(fields_of_green_v0.env(num_players=2))          # AEC
    penv = flatten_observations(fields_of_green_v0.parallel_env(num_players=2))  # parallel
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.last()
    obs["observation"].shape   # (observation_size,), float32
    obs["action_mask"]         # int8, 1 = legal
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

__all__ = [
    "FlattenObservation",
    "FlattenObservationParallel",
    "flatten_observations",
    "flat_observation_space",
    "unflatten_observation",
]


def _structured_space(space: spaces.Space) -> spaces.Space:
    """The ``"observation"`` part of an agent's observation space."""
    if not isinstance(space, spaces.Dict) or "observation" not in space.spaces or "action_mask" not in space.spaces:
        raise TypeError(
            "expected an observation space Dict({'observation': ..., 'action_mask': ...}) as farmgames envs "
            f"give, got {space!r}"
        )
    return space["observation"]


def flat_observation_space(space: spaces.Space) -> spaces.Box:
    """The float32 ``Box`` that :func:`gymnasium.spaces.flatten` maps ``space`` onto."""
    if isinstance(space, spaces.Box) and len(space.shape) == 1 and space.dtype == np.float32:
        return space
    flat = spaces.flatten_space(space)
    if not isinstance(flat, spaces.Box):
        raise TypeError(f"cannot flatten {space!r} into one Box")
    return spaces.Box(
        low=flat.low.astype(np.float32), high=flat.high.astype(np.float32), shape=flat.shape, dtype=np.float32
    )


def _box_slices(space: spaces.Space):
    """For a Dict of Boxes: [(key, start, stop)] in flatten order, else None (use spaces.flatten)."""
    if not isinstance(space, spaces.Dict) or not all(isinstance(s, spaces.Box) for s in space.spaces.values()):
        return None
    out, start = [], 0
    for key, sub in space.spaces.items():
        size = int(np.prod(sub.shape))
        out.append((key, start, start + size))
        start += size
    return out


def _flatten(space: spaces.Space, value: Any, slices=None) -> np.ndarray:
    """Same result as ``gymnasium.spaces.flatten(space, value)`` as float32; a Dict of Boxes (the
    farmgames case) takes a fast path that fills one new array."""
    if slices is not None:
        out = np.empty(slices[-1][2] if slices else 0, dtype=np.float32)
        for key, start, stop in slices:
            out[start:stop] = np.ravel(value[key])
        return out
    if isinstance(space, spaces.Box) and len(space.shape) == 1 and space.dtype == np.float32:
        return np.array(value, dtype=np.float32)
    return np.asarray(spaces.flatten(space, value), dtype=np.float32)


def unflatten_observation(space: spaces.Space, flat: np.ndarray):
    """The structured (named) observation back from a flat vector. ``space`` is the unflattened env's
    observation space for that agent (``Dict`` with ``"observation"`` and ``"action_mask"``) or its
    ``"observation"`` part."""
    if isinstance(space, spaces.Dict) and "action_mask" in space.spaces:
        space = space["observation"]
    return spaces.unflatten(space, np.asarray(flat))


class _Spaces:
    """Per-agent cache of (structured space, flat Box, full flat Dict space)."""

    def __init__(self, env):
        self._env = env
        self._cache: dict = {}

    def get(self, agent):
        if agent not in self._cache:
            full = self._env.observation_space(agent)
            inner = _structured_space(full)
            flat = flat_observation_space(inner)
            both = spaces.Dict({"observation": flat, "action_mask": full["action_mask"]})
            self._cache[agent] = (inner, flat, both, _box_slices(inner))
        return self._cache[agent]

    def flatten(self, agent, obs):
        if obs is None:
            return None
        inner, _, _, slices = self.get(agent)
        return {
            "observation": _flatten(inner, obs["observation"], slices),
            "action_mask": np.array(obs["action_mask"], copy=True),
        }


class FlattenObservation(BaseWrapper):
    """AEC wrapper: ``observe(agent)["observation"]`` becomes one float32 vector; the mask is kept."""

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise TypeError(f"FlattenObservation wraps a PettingZoo AECEnv, got {type(env).__name__}")
        super().__init__(env)
        self._flat = _Spaces(env)

    def observation_space(self, agent):
        return self._flat.get(agent)[2]

    def observe(self, agent):
        return self._flat.flatten(agent, self.env.observe(agent))

    def structured_observation_space(self, agent) -> spaces.Space:
        """The wrapped env's ``"observation"`` space (use with :func:`unflatten_observation`)."""
        return self._flat.get(agent)[0]


class FlattenObservationParallel(BaseParallelWrapper):
    """Parallel wrapper: every agent's ``"observation"`` becomes one float32 vector; the mask is kept."""

    def __init__(self, env: ParallelEnv):
        if not isinstance(env, ParallelEnv):
            raise TypeError(f"FlattenObservationParallel wraps a PettingZoo ParallelEnv, got {type(env).__name__}")
        super().__init__(env)
        self._flat = _Spaces(env)

    def observation_space(self, agent):
        return self._flat.get(agent)[2]

    def structured_observation_space(self, agent) -> spaces.Space:
        return self._flat.get(agent)[0]

    def reset(self, seed=None, options=None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return {a: self._flat.flatten(a, o) for a, o in obs.items()}, infos

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        return {a: self._flat.flatten(a, o) for a, o in obs.items()}, rewards, terminations, truncations, infos


def flatten_observations(env):
    """Wrap an AEC or parallel farmgames env so each observation is ``{"observation": float32 vector,
    "action_mask": int8 vector}``."""
    if isinstance(env, AECEnv):
        return FlattenObservation(env)
    if isinstance(env, ParallelEnv):
        return FlattenObservationParallel(env)
    raise TypeError(f"flatten_observations wraps a PettingZoo AECEnv or ParallelEnv, got {type(env).__name__}")
