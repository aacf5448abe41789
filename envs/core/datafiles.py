"""Bounded, code-free loading of the data files a game reads (card sets, boards, tiles) and of files
named inside records.

A data file is something users download and share, so loading it must never run code or exhaust
memory: YAML is parsed with PyYAML's safe loader, with **aliases refused** (a few KB of nested aliases
expand to billions of nodes), a size limit, a nesting-depth limit and a node-count limit; integers
outside ``±MAX_INT`` are refused (huge numbers overflow later). Every refusal is a :class:`DataFileError`
naming the file and what is allowed. ``sha256`` pins a file's content in records and states.

>>> load_yaml_text("a: [1, 2]", "x.yaml")
{'a': [1, 2]}
>>> try:
...     load_yaml_text("a: &x [1]\\nb: *x", "x.yaml")
... except DataFileError as exc:
...     print(exc)
x.yaml: YAML aliases (*x) are not allowed in data files
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1 << 20  # 1 MiB: the base card set is 30 KB
MAX_DEPTH = 32
MAX_NODES = 200_000
MAX_INT = 10**9


class DataFileError(ValueError):
    """A data file that cannot be used: unreadable, too large, not plain YAML, or out of bounds."""


def read_text_bounded(path: str | Path, limit: int = MAX_BYTES, what: str = "file") -> str:
    """The UTF-8 text of ``path``, reading at most ``limit`` bytes (an endless or huge file is refused,
    never read to the end)."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise DataFileError(f"{p}: cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise DataFileError(f"{p}: {what} is larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{p}: {what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


class _BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type information
    """PyYAML's safe loader without aliases, with depth and node limits."""

    def __init__(self, stream: str, source: str):
        super().__init__(stream)
        self._source = source
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise DataFileError(f"{self._source}: YAML aliases (*{event.anchor}) are not allowed in data files")
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise DataFileError(f"{self._source}: more than {MAX_NODES} YAML nodes")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise DataFileError(f"{self._source}: YAML nested deeper than {MAX_DEPTH} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_numbers(value: Any, source: str, where: str = "") -> None:
    stack = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and not -MAX_INT <= item <= MAX_INT:
            shown = str(item) if len(str(item)) < 30 else f"a {len(str(abs(item)))}-digit number"
            raise DataFileError(f"{source}: {at or 'value'} = {shown} is outside ±{MAX_INT}")
        if isinstance(item, float) and (item != item or abs(item) > MAX_INT):
            raise DataFileError(f"{source}: {at or 'value'} = {item} is not a finite number within ±{MAX_INT}")
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))


def load_yaml_text(text: str, source: str) -> Any:
    """Parse YAML text from ``source`` (a name for messages) within the limits above."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise DataFileError(f"{source}: larger than {MAX_BYTES} bytes")
    loader = _BoundedLoader(text, source)
    try:
        data = loader.get_single_data()
    except DataFileError:
        raise
    except yaml.YAMLError as exc:
        raise DataFileError(f"{source}: not valid YAML: {exc}") from None
    except RecursionError:
        raise DataFileError(f"{source}: YAML nested too deeply") from None
    finally:
        loader.dispose()
    _check_numbers(data, source)
    return data


def load_yaml(path: str | Path, what: str = "data file") -> Any:
    """Read and parse a YAML data file within the limits above."""
    return load_yaml_text(read_text_bounded(path, what=what), str(path))


def sha256(text: str | bytes) -> str:
    """The hex SHA-256 of a file's content (records pin data files by it)."""
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


__all__ = ["DataFileError", "MAX_BYTES", "MAX_INT", "load_yaml", "load_yaml_text", "read_text_bounded", "sha256"]
