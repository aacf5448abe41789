"""The registry hook: run a callback right after a package is first imported.

``farmgames.envs`` registers its ids in PettingZoo's and gymnasium's registries without importing
either package: if one of them is already imported the ids are registered at once, otherwise right
after that package is first imported (a small post-import hook). This keeps the pure rules engines free
of both frameworks, and costs nothing to whoever never uses them.
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

# Post-import hook: run a callback right after a top-level package is first imported.


class _RunAfterImport(importlib.abc.MetaPathFinder):
    """A meta-path finder that never loads anything itself: when a watched module is about to be
    imported, it asks the other finders for the module's spec and wraps the spec's loader so that
    the callbacks run once the module has executed. Unwatched imports pass straight through."""

    def __init__(self) -> None:
        self.pending: dict[str, list[Callable[[], None]]] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _CallbackLoader(spec.loader, self.pending.pop(fullname))
        return spec


class _CallbackLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, callbacks: list[Callable[[], None]]):
        self._loader = loader
        self._callbacks = callbacks

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        # put the real loader back first, so the module looks exactly as if imported normally
        module.__loader__ = self._loader
        spec = getattr(module, "__spec__", None)
        if spec is not None:
            spec.loader = self._loader
        self._loader.exec_module(module)
        for callback in self._callbacks:
            try:
                callback()
            except Exception as exc:  # a failed registration must never break the user's import
                warnings.warn(f"farmgames: could not register environments ({exc!r})", stacklevel=2)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


def _hook() -> _RunAfterImport:
    for finder in sys.meta_path:
        if isinstance(finder, _RunAfterImport):
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


__all__ = ["when_imported"]
