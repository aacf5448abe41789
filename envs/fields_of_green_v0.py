"""Fields of Green, version 0: the public environment module (PettingZoo naming convention).

    from farmgames.envs import fields_of_green_v0
    env = fields_of_green_v0.env(num_players=4)              # AEC, wrapped (bounds + order checks)
    raw = fields_of_green_v0.raw_env(num_players=3)          # AEC, unwrapped
    par = fields_of_green_v0.parallel_env(num_players=2)     # ParallelEnv

Keywords: every engine option (``farm_size``, ``card_set``, ``fixed_split``, ``pass_directions``,
``first_player``, ``auto_single``) and the environment's own: ``reward`` ("win_loss" | "score" |
"margin"), ``illegal_action`` ("raise" | "terminate"), ``perfect_recall`` (bool), ``render_mode``
("human" | "ansi" | "rgb_array"). See docs/env.md.
"""

from .fields_of_green.aec import (
    ENV_KEYWORDS,
    GAME_KEYWORDS,
    VALID_KEYWORDS,
    FieldsOfGreenAECEnv,
    env,
    game_bounds,
    raw_env,
)
from .fields_of_green.parallel import FieldsOfGreenParallelEnv, parallel_env

AECEnvClass = FieldsOfGreenAECEnv
ParallelEnvClass = FieldsOfGreenParallelEnv

__all__ = [
    "ENV_KEYWORDS", "GAME_KEYWORDS", "VALID_KEYWORDS", "FieldsOfGreenAECEnv", "FieldsOfGreenParallelEnv",
    "env", "game_bounds", "parallel_env", "raw_env",
]
