"""Wrappers for training, generic over every registered game (no game names here).

* :func:`flatten_observations` (:class:`FlattenObservation` for AEC, :class:`FlattenObservationParallel`
  for parallel envs): ``{"observation": float32 vector, "action_mask": int8 vector}`` per agent.
* :class:`SingleAgentEnv`: the learner plays one seat of any game against opponent policies;
  registered as ``farmgames/<GymName>-v<N>`` for every game by ``import farmgames.envs``; exposes
  ``action_masks()`` for sb3-contrib's MaskablePPO. :class:`FieldsOfGreenSingleAgentEnv` is the same
  env with the game fixed.
* :class:`BotPolicy`: a game's bot (``SPEC.bots``) as a Policy.

Nothing here imports torch, stable-baselines3 or :mod:`farmgames.training`.
"""

from .flatten import (
    FlattenObservation,
    FlattenObservationParallel,
    flat_observation_space,
    flatten_observations,
    unflatten_observation,
)
from .policies import BotPolicy, OpponentPool, Policy, load_object, policy_name
from .single_agent import FieldsOfGreenSingleAgentEnv, SingleAgentEnv, env_facts, make_flat_aec

__all__ = [
    "BotPolicy",
    "FieldsOfGreenSingleAgentEnv",
    "FlattenObservation",
    "FlattenObservationParallel",
    "OpponentPool",
    "Policy",
    "SingleAgentEnv",
    "env_facts",
    "flat_observation_space",
    "flatten_observations",
    "load_object",
    "make_flat_aec",
    "policy_name",
    "unflatten_observation",
]
