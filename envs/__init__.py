"""farmgames environments: one registry table for every game.

``import farmgames.envs`` registers, for every row of :data:`GAMES`,

* ``farmgames/<game>-v<N>`` in both of PettingZoo's registries, so that
  ``pettingzoo.make("aec", "farmgames/fields_of_green-v0", num_players=4)`` and
  ``pettingzoo.make("parallel", ...)`` work;
* ``farmgames/<GymName>-v<N>`` in gymnasium's registry (the single-agent env
  :class:`farmgames.wrappers.single_agent.SingleAgentEnv` for that game), so that
  ``gymnasium.make("farmgames/FieldsOfGreen-v0")`` works.

Entry points are strings, so registering imports none of the environment code, and neither pettingzoo
nor gymnasium (see :mod:`._registry`). ``get_spec(name)`` imports a game's face and returns its
:class:`~farmgames.envs.core.spec.GameSpec`; ``replay(record)`` rebuilds any recorded game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from ._native import use_source_if_requested
from ._registry import when_imported

use_source_if_requested()  # FARMGAMES_PURE_PYTHON=1: the plain modules, not the compiled ones (see _native)


@dataclass(frozen=True)
class GameRow:
    """One registered environment: the face module ``farmgames.envs.<game>_v<version>`` defines SPEC
    (the conformance suite checks that the row and the SPEC agree)."""

    game: str
    version: int
    gym_name: str

    @property
    def env_name(self) -> str:
        return f"{self.game}_v{self.version}"

    @property
    def module(self) -> str:
        return f"farmgames.envs.{self.env_name}"

    @property
    def pettingzoo_id(self) -> str:
        return f"farmgames/{self.game}-v{self.version}"

    @property
    def gym_id(self) -> str:
        return f"farmgames/{self.gym_name}-v{self.version}"


#: every environment of the suite, oldest version first
GAMES: tuple[GameRow, ...] = (
    GameRow("fields_of_green", 0, "FieldsOfGreen"),
    GameRow("fields_of_green", 1, "FieldsOfGreen"),
    GameRow("key_harvest", 0, "KeyHarvest"),
    GameRow("sunflower_valley", 0, "SunflowerValley"),
)

#: games registered at run time with :func:`register` (a researcher's own game): row -> SPEC
_EXTRA: dict[str, Any] = {}

GAME_NAMES: tuple[str, ...] = tuple(dict.fromkeys(row.game for row in GAMES))

# kept for users of the single-game release
PETTINGZOO_ID = GAMES[0].pettingzoo_id
GYMNASIUM_ID = GAMES[0].gym_id


def _row(name: str) -> GameRow:
    """The row of ``fields_of_green_v0`` or, for a bare game name, its newest version."""
    for row in reversed(all_rows()):
        if name in (row.env_name, row.game):
            return row
    names = ", ".join(GAME_NAMES)
    raise ValueError(f"unknown game {name!r}; registered games: {names} (or <game>_v<N>)")


def get_spec(name: str) -> Any:
    """The GameSpec of a game (``"fields_of_green"``: newest version; ``"fields_of_green_v0"``: that one)."""
    if not isinstance(name, str):
        raise ValueError(f"game must be a game name, got {name!r}")
    row = _row(name)
    if row.env_name in _EXTRA:
        return _EXTRA[row.env_name]
    return importlib.import_module(row.module).SPEC


def all_rows() -> tuple[GameRow, ...]:
    """The built-in rows and the games registered at run time."""
    return GAMES + tuple(GameRow(s.name, s.version, s.gym_name) for s in _EXTRA.values())


def register(spec: Any, module: str) -> None:
    """Register a game that is not part of the suite (same protocols, same tools): ``module`` is the
    import path of its face (``SPEC``, ``env``, ``parallel_env``). Registers its PettingZoo and
    gymnasium ids too."""
    global GAME_NAMES
    if any(row.env_name == spec.env_name for row in GAMES):
        raise ValueError(f"{spec.env_name} is a built-in game")
    _EXTRA[spec.env_name] = spec
    _MODULES[spec.env_name] = module
    GAME_NAMES = tuple(dict.fromkeys(row.game for row in all_rows()))
    when_imported("pettingzoo", register_pettingzoo)
    when_imported("gymnasium", register_gymnasium)


_MODULES: dict[str, str] = {}


def _module(row: GameRow) -> str:
    return _MODULES.get(row.env_name, row.module)


def face(name: str) -> Any:
    """The versioned face module of a game (``env``, ``raw_env``, ``parallel_env``, ``SPEC``)."""
    return importlib.import_module(_module(_row(name)))


def replay(record: dict[str, Any]) -> Any:
    """The game a record describes (any registered game), replayed action by action."""
    from .core.records import RecordError, check_record
    from .core.records import replay as replay_with

    check_record(record)
    version = (record.get("env") or {}).get("name") if isinstance(record.get("env"), dict) else None
    if version is None and isinstance(record.get("pins"), dict):  # the env version the game was played in
        version = record["pins"].get("env")
    try:
        spec = get_spec(version if isinstance(version, str) else record["game"])
    except ValueError as exc:
        raise RecordError(f"record field 'game': {exc}") from None
    return replay_with(record, spec)


def register_pettingzoo() -> None:
    """Register the PettingZoo ids of every game (idempotent). Imports pettingzoo."""
    from pettingzoo.env_registry.registration import aec_registry, parallel_registry, register

    for row in all_rows():
        if row.pettingzoo_id not in aec_registry:
            register("aec", row.pettingzoo_id, entry_point=f"{_module(row)}:env")
        if row.pettingzoo_id not in parallel_registry:
            register("parallel", row.pettingzoo_id, entry_point=f"{_module(row)}:parallel_env")


def register_gymnasium() -> None:
    """Register the single-agent gymnasium ids (idempotent). Imports gymnasium, not the env modules."""
    import gymnasium

    for row in all_rows():
        if row.gym_id not in gymnasium.registry:
            gymnasium.register(
                id=row.gym_id,
                entry_point="farmgames.wrappers.single_agent:SingleAgentEnv",
                kwargs={"game": row.env_name},
            )


when_imported("pettingzoo", register_pettingzoo)
when_imported("gymnasium", register_gymnasium)

__all__ = [
    "GAMES",
    "GAME_NAMES",
    "GYMNASIUM_ID",
    "GameRow",
    "PETTINGZOO_ID",
    "all_rows",
    "face",
    "get_spec",
    "register",
    "register_gymnasium",
    "register_pettingzoo",
    "replay",
    "when_imported",
]
