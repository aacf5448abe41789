"""farmgames environments.

``import farmgames.envs`` registers

* ``farmgames/fields_of_green-v0`` in both of PettingZoo's registries, so that
  ``pettingzoo.make("aec", "farmgames/fields_of_green-v0", num_players=4)`` and
  ``pettingzoo.make("parallel", "farmgames/fields_of_green-v0", num_players=4)`` work;
* ``farmgames/FieldsOfGreen-v0`` in gymnasium's registry (the single-agent env of
  ``farmgames.wrappers.single_agent``), so that ``gymnasium.make("farmgames/FieldsOfGreen-v0")`` works.

Entry points are strings, so registering imports none of the environment code. Registering does not
import pettingzoo or gymnasium either: if one of them is already imported the id is registered at once,
otherwise right after that package is first imported (a small post-import hook, below). This keeps
``import farmgames.envs.fields_of_green`` (the pure rules engine, which imports this package first)
free of both frameworks, and costs nothing to whoever never uses them.
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from typing import Callable

PETTINGZOO_ID = "farmgames/fields_of_green-v0"
GYMNASIUM_ID = "farmgames/FieldsOfGreen-v0"
PETTINGZOO_AEC_ENTRY = "farmgames.envs.fields_of_green_v0:env"
PETTINGZOO_PARALLEL_ENTRY = "farmgames.envs.fields_of_green_v0:parallel_env"
GYMNASIUM_ENTRY = "farmgames.wrappers.single_agent:FieldsOfGreenSingleAgentEnv"


def register_pettingzoo() -> None:
    """Register the PettingZoo ids (idempotent). Imports pettingzoo."""
    from pettingzoo.env_registry.registration import aec_registry, parallel_registry, register

    if PETTINGZOO_ID not in aec_registry:
        register("aec", PETTINGZOO_ID, entry_point=PETTINGZOO_AEC_ENTRY)
    if PETTINGZOO_ID not in parallel_registry:
        register("parallel", PETTINGZOO_ID, entry_point=PETTINGZOO_PARALLEL_ENTRY)


def register_gymnasium() -> None:
    """Register the single-agent gymnasium id (idempotent). Imports gymnasium, not the env module."""
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ID, entry_point=GYMNASIUM_ENTRY)


# ------------------------------------------------------------------------------------------------
# Post-import hook: run a callback right after a top-level package is first imported.


class _RunAfterImport(importlib.abc.MetaPathFinder):
    """A meta-path finder that never loads anything itself: when a watched module is about to be
    imported, it asks the other finders for the module's spec and wraps the spec's loader so that
    the callbacks run once the module has executed. Unwatched imports pass straight through."""

    def __init__(self) -> None:
        self.pending: dict[str, list[Callable[[], None]]] = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _CallbackLoader(spec.loader, self.pending.pop(fullname))
        return spec


class _CallbackLoader(importlib.abc.Loader):
    def __init__(self, loader, callbacks: list[Callable[[], None]]):
        self._loader = loader
        self._callbacks = callbacks

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        # put the real loader back first, so the module looks exactly as if imported normally
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        for callback in self._callbacks:
            try:
                callback()
            except Exception as exc:  # a failed registration must never break the user's import
                warnings.warn(f"farmgames: could not register environments ({exc!r})", stacklevel=2)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _hook() -> _RunAfterImport:
    for finder in sys.meta_path:
        if type(finder).__name__ == "_RunAfterImport" and type(finder).__module__ == __name__:
            return finder
    finder = _RunAfterImport()
    sys.meta_path.insert(0, finder)
    return finder


def when_imported(module: str, callback: Callable[[], None]) -> None:
    """Run ``callback`` now if ``module`` is already imported, else right after its first import."""
    if module in sys.modules:
        try:
            callback()
        except Exception as exc:  # never break ``import farmgames.envs``
            warnings.warn(f"farmgames: could not register environments ({exc!r})", stacklevel=2)
    else:
        _hook().pending.setdefault(module, []).append(callback)


when_imported("pettingzoo", register_pettingzoo)
when_imported("gymnasium", register_gymnasium)

__all__ = [
    "GYMNASIUM_ID", "PETTINGZOO_ID", "register_gymnasium", "register_pettingzoo", "when_imported",
]
