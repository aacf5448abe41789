"""``lazy("package.module:name")``: a callable that imports its target on first use.

A game's face names its bots, renders, narrator and hidden-information hook in ``GameSpec`` without
importing them (the heuristic bot and the Pillow picture code cost import time nobody playing with
random agents should pay).

>>> dumps = lazy("json:dumps")
>>> dumps([1, 2])
'[1, 2]'
>>> dumps
lazy('json:dumps')
"""

from __future__ import annotations

import importlib
from typing import Any


class lazy:  # noqa: N801 - reads like the function it stands for
    """Import ``module:attribute`` on the first call and forward every call to it (picklable: only the
    name is kept)."""

    __slots__ = ("target", "_fn")

    def __init__(self, target: str):
        if ":" not in target:
            raise ValueError(f"lazy target must be 'module:attribute', got {target!r}")
        self.target = target
        self._fn: Any = None

    def resolve(self) -> Any:
        if self._fn is None:
            module, _, name = self.target.partition(":")
            obj: Any = importlib.import_module(module)
            for part in name.split("."):
                obj = getattr(obj, part)
            self._fn = obj
        return self._fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.target!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (lazy, (self.target,))


__all__ = ["lazy"]
