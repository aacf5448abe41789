"""Action layouts: one ``Discrete`` numbering made of named ranges, declared once.

A game declares its ranges as ``(name, size, meaning)`` rows; the layout gives each range its first
index, maps ``(kind, argument) <-> index`` and prints the docs table.

>>> layout = ActionLayout([("take", 2, "take i+1 stones"), ("pass", 1, "pass")])
>>> layout.size, layout.index("pass"), layout.decode(1)
(3, 2, ('take', 1))
>>> count_vectors(2, 1)
((0, 0), (0, 1), (1, 0))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product


@dataclass(frozen=True)
class ActionRange:
    name: str
    start: int
    size: int
    meaning: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class ActionLayout:
    """Maps (kind, argument) <-> action index for ranges laid out in the declared order. Each range's
    first index is also an attribute in capitals (``layout.BUILD + cell``)."""

    def __init__(self, rows: Iterable[tuple[str, int, str]]):
        self.ranges: dict[str, ActionRange] = {}
        start = 0
        for name, size, meaning in rows:
            if name in self.ranges:
                raise ValueError(f"action range {name!r} is declared twice")
            if size < 0:
                raise ValueError(f"action range {name!r} has a negative size {size}")
            self.ranges[name] = ActionRange(name, start, size, meaning)
            start += size
        self.size = start
        self._kind_of = [""] * self.size
        for r in self.ranges.values():
            for i in range(r.start, r.stop):
                self._kind_of[i] = r.name
        for name, r in self.ranges.items():
            setattr(self, name.upper(), r.start)

    def index(self, kind: str, arg: int = 0) -> int:
        r = self.ranges[kind]
        if not 0 <= arg < r.size:
            raise ValueError(f"argument {arg} out of range for action kind {kind!r} (0..{r.size - 1})")
        return r.start + arg

    def decode(self, action: int) -> tuple[str, int]:
        """(kind, argument) of an action index."""
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < self.size:
            raise ValueError(f"action {action!r} is outside the action space 0..{self.size - 1}")
        kind = self._kind_of[action]
        return kind, action - self.ranges[kind].start

    def table(self) -> list[tuple[str, int, int, str]]:
        """Rows (kind, first index, last index, meaning) for docs."""
        return [(r.name, r.start, r.stop - 1, r.meaning) for r in self.ranges.values()]


def count_vectors(n: int, max_sum: int) -> tuple[tuple[int, ...], ...]:
    """Every vector of ``n`` non-negative counts with sum <= ``max_sum``, in lexicographic order."""
    return tuple(v for v in product(range(max_sum + 1), repeat=n) if sum(v) <= max_sum)


__all__ = ["ActionLayout", "ActionRange", "count_vectors"]
