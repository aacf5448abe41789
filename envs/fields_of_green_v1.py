"""Fields of Green, version 1: the public environment module (PettingZoo naming convention).

    from farmgames.envs import fields_of_green_v1
    env = fields_of_green_v1.env(num_players=4)              # AEC, wrapped; an illegal action ends the game
    raw = fields_of_green_v1.raw_env(num_players=3)          # AEC, unwrapped; an illegal action raises
    par = fields_of_green_v1.parallel_env(num_players=2)     # ParallelEnv
    flat = fields_of_green_v1.env(observation_mode="flat")   # one float32 Box, mask in info["action_mask"]

The same game as ``fields_of_green_v0`` with the current env conventions
(:data:`farmgames.envs.core.spec.CURRENT`) and a larger default grid. What changed from v0
(docs/fields_of_green/env_versions.md has the reasons and the measurements):

* ``farm_size`` defaults to 23 (v0: 9). The rules put no bound on a farm; on a 9x9 grid about 46% of the
  decisions of heuristic games are taken with the farm touching the edge. Over 1000 heuristic games per
  player count on a 25x25 grid, a centred 23x23 grid is touched in 0.1-0.3% of games (21x21: up to 1.7%).
* Observations are fresh arrays (v0: the env's own buffers, reused two states later); ``reuse_buffers=True``
  is the zero-copy opt-in.
* ``env()`` and ``parallel_env()`` end the game on an illegal action with the lowest reward for the
  offender (PettingZoo's classic ``TerminateIllegalWrapper`` convention); ``raw_env()`` still raises.
* Once the game is over every action is marked legal in the mask (the Pgx convention): samplers and
  ``-inf`` logit masks never see an empty mask. The env ignores actions of done agents.
* Infos have the same numeric keys on every step: ``winners`` (int8 0/1 over seats), ``scores`` (float32
  over seats, final scores at the end, zeros before), ``illegal_action`` (int8 over seats, 1 at the
  offender); details of an illegal action in ``env.unwrapped.last_illegal``.
* ``observation_mode`` (``dict`` | ``flat_dict`` | ``flat``) and ``info_mask`` keywords; finite Box bounds.

Keywords: every engine option (``farm_size``, ``card_set``, ``fixed_split``, ``pass_directions``,
``first_player``, ``auto_single``), the observer's ``perfect_recall`` and the environment's own (``reward``,
``illegal_action``, ``observation_mode``, ``info_mask``, ``reuse_buffers``, ``render_mode``). See
docs/env.md for the game and docs/fields_of_green/env_versions.md for the version history.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import fields_of_green_v0 as _v0
from .adapters import env_functions
from .core.spec import CURRENT, Keyword
from .core.variants import valid_keywords

#: the default grid of v1: the smallest centred grid that heuristic farms touch in under 1% of games
FARM_SIZE = 23


def _keywords() -> tuple[Keyword, ...]:
    rows = []
    for kw in _v0.SPEC.keywords:
        if kw.name == "farm_size":
            kw = replace(kw, default=FARM_SIZE, meaning=f"odd grid size 5..25 (FOG-RUL-8); v1 default {FARM_SIZE}")
        rows.append(kw)
    return tuple(rows)


def _new_game(num_players: int = 4, seed: int = 0, **variant: Any) -> Any:
    variant.setdefault("farm_size", FARM_SIZE)
    return _v0.Game(num_players=num_players, seed=seed, **variant)


SPEC = replace(_v0.SPEC, version=1, keywords=_keywords(), new_game=_new_game, conventions=CURRENT)

env, raw_env, parallel_env = env_functions(SPEC)
FieldsOfGreenAECEnv: type = globals()["FieldsOfGreenAECEnv"]  # set by env_functions
FieldsOfGreenParallelEnv: type = globals()["FieldsOfGreenParallelEnv"]
VALID_KEYWORDS = valid_keywords(SPEC)


def docs_markdown(num_players: int = 4) -> str:
    """The generated tables of this version (actions, observation layout, keywords, game facts)."""
    from .core.docs import spec_markdown

    return spec_markdown(SPEC, num_players, perfect_recall=True)


__all__ = [
    "FARM_SIZE",
    "SPEC",
    "VALID_KEYWORDS",
    "FieldsOfGreenAECEnv",
    "FieldsOfGreenParallelEnv",
    "docs_markdown",
    "env",
    "parallel_env",
    "raw_env",
]
