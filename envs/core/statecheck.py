"""Checks for ``from_json`` of any game: a state is data someone may have edited, so every invariant the
engine relies on is checked before the engine sees it, and the first violation is named.

A game's ``from_json`` parses with :func:`~.datafiles.load_json_text` (bounded), then reads the state
through a :class:`StateReader`, which names the field path in each refusal (``state.farms[1].coins``),
and counts components with :func:`exactly_once` (every card, tile, tower in exactly one place).

>>> r = StateReader({"coins": -1}, "state")
>>> try:
...     r.integer("coins", 0, 99)
... except StateError as exc:
...     print(exc)
state.coins must be an integer from 0 to 99, got -1
>>> try:
...     exactly_once({"pile": [0, 1], "hand": [1]}, 3, "card")
... except StateError as exc:
...     print(exc)
card 1 is both in pile and in hand
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class StateError(ValueError):
    """A game state (``from_json``) that breaks an invariant of the engine; the message names it."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class StateReader:
    """Typed access to one JSON object of a state, naming ``path.key`` in every refusal."""

    def __init__(self, data: Any, path: str):
        if not isinstance(data, dict):
            raise StateError(f"{path} must be an object, got {_shown(data)}")
        self.data: dict[str, Any] = data
        self.path = path

    def at(self, key: str) -> str:
        return f"{self.path}.{key}"

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise StateError(f"{self.path}: missing field {key!r}")
        return self.data[key]

    def integer(self, key: str, low: int, high: int) -> int:
        return check_int(self.raw(key), self.at(key), low, high)

    def flag(self, key: str) -> bool:
        value = self.raw(key)
        if not isinstance(value, bool):
            raise StateError(f"{self.at(key)} must be true or false, got {_shown(value)}")
        return value

    def choice(self, key: str, allowed: Iterable[Any]) -> Any:
        value = self.raw(key)
        options = tuple(allowed)
        if isinstance(value, (list, dict)) or value not in options:
            raise StateError(f"{self.at(key)} must be one of {', '.join(map(repr, options))}, got {_shown(value)}")
        return value

    def items(self, key: str, length: int | None = None, max_length: int | None = None) -> list[Any]:
        return check_list(self.raw(key), self.at(key), length, max_length)

    def integers(
        self, key: str, low: int, high: int, length: int | None = None, max_length: int | None = None
    ) -> list[int]:
        return check_ints(self.raw(key), self.at(key), low, high, length, max_length)

    def child(self, key: str) -> StateReader:
        return StateReader(self.raw(key), self.at(key))


def check_int(value: Any, path: str, low: int, high: int) -> int:
    """An integer (never a bool or float) in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise StateError(f"{path} must be an integer from {low} to {high}, got {_shown(value)}")
    return value


def check_list(value: Any, path: str, length: int | None = None, max_length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise StateError(f"{path} must be a list, got {_shown(value)}")
    if length is not None and len(value) != length:
        raise StateError(f"{path} must have {length} entries, got {len(value)}")
    if max_length is not None and len(value) > max_length:
        raise StateError(f"{path} must have at most {max_length} entries, got {len(value)}")
    return value


def check_ints(
    value: Any, path: str, low: int, high: int, length: int | None = None, max_length: int | None = None
) -> list[int]:
    items = check_list(value, path, length, max_length)
    for i, item in enumerate(items):
        check_int(item, f"{path}[{i}]", low, high)
    return items


def check_unique(values: Iterable[Any], path: str) -> None:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            raise StateError(f"{path} lists {_shown(value)} twice")
        seen.add(value)


def exactly_once(places: Mapping[str, Iterable[int]], count: int, what: str) -> None:
    """Every id ``0..count-1`` of a component (``what``: "card", "equipment tile") lies in exactly one
    of ``places`` (name -> ids there); names the first id that is missing, unknown or found twice."""
    where: dict[int, str] = {}
    for place, ids in places.items():
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < count:
                raise StateError(f"{place}: {_shown(i)} is not a {what} of this game (ids 0..{count - 1})")
            if i in where:
                other = where[i]
                detail = f"twice in {place}" if other == place else f"both in {other} and in {place}"
                raise StateError(f"{what} {i} is {detail}")
            where[i] = place
    if len(where) != count:
        lost = min(set(range(count)) - set(where))
        raise StateError(f"{what} {lost} is nowhere (each {what} must be in exactly one place)")


__all__ = ["StateError", "StateReader", "check_int", "check_ints", "check_list", "check_unique", "exactly_once"]
