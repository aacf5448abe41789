"""Adapters: the only modules that import pettingzoo or gymnasium.

``env_functions(SPEC)`` gives a game's face module its ``env``, ``raw_env`` and ``parallel_env``:

    SPEC = GameSpec(...)
    env, raw_env, parallel_env = env_functions(SPEC)

and puts the env classes (``<GymName>AECEnv``, ``<GymName>ParallelEnv``) into the face module, so that
they pickle by reference.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..core.spec import GameSpec
from .aec import BoardGameAECEnv
from .parallel import BoardGameParallelEnv
from .wrappers import AssertOutOfBounds, OrderEnforcing

__all__ = ["AssertOutOfBounds", "BoardGameAECEnv", "BoardGameParallelEnv", "OrderEnforcing", "env_functions"]


def env_functions(spec: GameSpec, module: str | None = None) -> tuple[Callable[..., Any], ...]:
    """``(env, raw_env, parallel_env)`` for ``spec``. ``module`` (default ``farmgames.envs.<env_name>``)
    receives the two env classes as attributes."""
    module = module or f"farmgames.envs.{spec.env_name}"
    aec_cls = BoardGameAECEnv.for_spec(spec, f"{spec.gym_name}AECEnv", module)
    par_cls = BoardGameParallelEnv.for_spec(spec, f"{spec.gym_name}ParallelEnv", module)
    face = sys.modules.get(module)
    if face is not None:
        setattr(face, aec_cls.__name__, aec_cls)
        setattr(face, par_cls.__name__, par_cls)

    def raw_env(num_players: int | None = None, render_mode: str | None = None, **variant: Any) -> Any:
        return aec_cls(num_players=num_players, render_mode=render_mode, **variant)

    default_illegal = spec.conventions.env_illegal_action

    def env(num_players: int | None = None, render_mode: str | None = None, **variant: Any) -> Any:
        """The AEC env wrapped the PettingZoo way: bounds checks, then order enforcement (PettingZoo's
        ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, as subclasses with cheaper
        attribute forwarding). Illegal moves are handled by the raw env itself: ``illegal_action``
        defaults to the version's convention (v1 and new games: ``"terminate"``, PettingZoo's classic
        ``TerminateIllegalWrapper`` behaviour; ``raw_env()`` raises)."""
        variant.setdefault("illegal_action", default_illegal)
        return OrderEnforcing(AssertOutOfBounds(raw_env(num_players=num_players, render_mode=render_mode, **variant)))

    def parallel_env(num_players: int | None = None, render_mode: str | None = None, **variant: Any) -> Any:
        """The ParallelEnv (``illegal_action`` defaults as for ``env()``)."""
        variant.setdefault("illegal_action", default_illegal)
        return par_cls(num_players=num_players, render_mode=render_mode, **variant)

    for fn in (raw_env, env, parallel_env):
        fn.__module__ = module
        fn.__qualname__ = fn.__name__
    return env, raw_env, parallel_env
