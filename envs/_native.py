"""Which modules ship compiled with mypyc, whether this install has them, and the switch back to the source.

``setup.py`` compiles the modules of :data:`COMPILED_MODULES` with mypyc when the package is installed: the
same Python source turned into a C extension, so a compiled module makes exactly the decisions of its source
(tests/fields_of_green/test_compiled.py plays seeded games both ways), only faster (docs/profiling.md,
"Fifteenth pass"). The ``.py`` files stay beside the extensions and are the documentation and the reference.

* ``FARMGAMES_PURE_PYTHON=1`` when installing skips the compile; an install that cannot compile (no C
  compiler) keeps the plain modules as well (the extensions are optional).
* ``FARMGAMES_PURE_PYTHON=1`` at run time imports the plain ``.py`` modules even where the extensions are
  installed (for a debugger, ``cProfile`` or ``line_profiler``, which cannot look inside compiled code).
* :func:`compiled_modules` tells which of the modules this process runs compiled.

Only the standard library is imported here: ``setup.py`` reads :data:`COMPILED_MODULES` from this file.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Modules under ``farmgames.envs``, compiled as one group. Each must type-check under mypy as mypyc compiles it
# (setup.py's options): the Fields of Green heuristic bot's search, and the engine and observer that it and every
# env step call. Together, so that the hot objects (Game, Farm, Observer) are native classes read only from
# compiled code: compiling a part of the engine made the step slower, since interpreted code reads a native
# object's attributes more slowly than a slot (docs/profiling.md, "Fifteenth pass" and "Sixteenth pass").
# cards.py (frozen dataclasses, cached properties) and the loaders stay plain Python. ``core.lru``: the bot's memo
# tables' two helpers, called from its hottest paths (compiled, a C call instead of a Python frame each).
COMPILED_MODULES: tuple[str, ...] = (
    "fields_of_green.bots.heuristic",
    "fields_of_green.bots.projection",
    "fields_of_green.bots.model",
    "fields_of_green.farm",
    "fields_of_green.effects",
    "fields_of_green.scoring",
    "fields_of_green.game",
    "fields_of_green.observer",
    "core.lru",
)
PACKAGE = "farmgames.envs"
PURE_PYTHON_VARIABLE = "FARMGAMES_PURE_PYTHON"


def pure_python_requested() -> bool:
    """``FARMGAMES_PURE_PYTHON`` is set to something other than empty or ``0``."""
    return os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of a compiled module before the extension's finder does."""

    def __init__(self, names: Sequence[str]):
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        leaf = fullname.rpartition(".")[2] + ".py"
        for entry in path or ():
            candidate = os.path.join(entry, leaf)
            if os.path.isfile(candidate):
                return importlib.util.spec_from_file_location(fullname, candidate)
        return None


def use_source_if_requested() -> None:
    """Called by ``farmgames.envs`` before any game module loads: with ``FARMGAMES_PURE_PYTHON`` set,
    the compiled modules are imported from their ``.py`` files."""
    if pure_python_requested() and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder([f"{PACKAGE}.{name}" for name in COMPILED_MODULES]))


def is_compiled(module: ModuleType) -> bool:
    """The module was loaded from a C extension (not from its ``.py`` source)."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def compiled_modules() -> dict[str, bool]:
    """For each module of :data:`COMPILED_MODULES`: whether this process runs it compiled."""
    return {name: is_compiled(importlib.import_module(f"{PACKAGE}.{name}")) for name in COMPILED_MODULES}
