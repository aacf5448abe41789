"""Wrappers for training: flat observations for PettingZoo envs, and a single-agent gymnasium env.

* :func:`flatten_observations` (:class:`FlattenObservation` for AEC, :class:`FlattenObservationParallel`
  for parallel envs): ``{"observation": float32 vector, "action_mask": int8 vector}`` per agent.
* :class:`FieldsOfGreenSingleAgentEnv`: the learner plays one seat against opponent policies; registered
  as ``farmgames/FieldsOfGreen-v0`` by ``import farmgames.envs``; exposes ``action_masks()`` for
  sb3-contrib's MaskablePPO.

Nothing here imports torch or stable-baselines3.
"""

from .flatten import (
    FlattenObservation,
    FlattenObservationParallel,
    flat_observation_space,
    flatten_observations,
    unflatten_observation,
)
from .single_agent import CheckpointPool, FieldsOfGreenSingleAgentEnv, env_facts

__all__ = [
    "CheckpointPool",
    "FieldsOfGreenSingleAgentEnv",
    "FlattenObservation",
    "FlattenObservationParallel",
    "env_facts",
    "flat_observation_space",
    "flatten_observations",
    "unflatten_observation",
]
