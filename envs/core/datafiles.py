"""Bounded, code-free loading of the data files a game reads (card sets, boards, tiles) and of files
named inside records.

A data file is something users download and share, so loading it must never run code or exhaust
memory: YAML is parsed with PyYAML's safe loader with a size limit, a nesting-depth limit and a limit on
the number of nodes **with aliases expanded** (a few KB of nested aliases expand to billions of nodes:
such a file is refused while it is parsed; ordinary anchors, which PyYAML's own ``safe_dump`` writes
for shared objects, still load); integers outside ``±MAX_INT`` are refused (huge numbers overflow
later). Files named inside records are read with :func:`read_text_bounded` (regular files only, at most
``MAX_BYTES``). Every refusal is a :class:`DataFileError` naming the file and what is allowed.
``sha256`` pins a file's content in records and states.

>>> load_yaml_text("a: &x [1]\\nb: *x", "x.yaml")
{'a': [1], 'b': [1]}
>>> laughs = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\\n" + "".join(
...     f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\\n" for p, c in zip("abcdefgh", "bcdefghi"))
>>> try:
...     load_yaml_text(laughs, "lol.yaml")
... except DataFileError as exc:
...     print(exc)
lol.yaml: more than 200000 YAML nodes once aliases are expanded
"""

from __future__ import annotations

import hashlib
import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1 << 20  # 1 MiB: the base card set is 30 KB
MAX_DEPTH = 32
MAX_NODES = 200_000
MAX_INT = 10**9
MAX_JSON_BYTES = 64 << 20  # records and states: a 4-player game record is ~2 KB, a state ~20 KB
MAX_JSON_DEPTH = 64


class DataFileError(ValueError):
    """A data file that cannot be used: unreadable, too large, not plain YAML, or out of bounds."""


def read_text_bounded(path: str | Path, limit: int = MAX_BYTES, what: str = "file") -> str:
    """The UTF-8 text of ``path``, reading at most ``limit`` bytes (an endless or huge file is refused,
    never read to the end)."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except OSError as exc:
        raise DataFileError(f"{p}: cannot read {what} ({exc.strerror or exc})") from None
    except ValueError as exc:  # an embedded NUL byte in the path
        raise DataFileError(f"{path!r}: not a usable file name ({exc})") from None
    if not stat.S_ISREG(mode):  # a device, FIFO or folder could block or never end
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise DataFileError(f"{p}: cannot read {what}: it is {kind}")
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
    """PyYAML's safe loader with limits on the *expanded* document: an alias counts as the whole node it
    names, so nested aliases (a "billion laughs" file) hit ``MAX_NODES`` while the file is composed, long
    before anything is built; recursive aliases are refused; nesting is limited to ``MAX_DEPTH``."""

    def __init__(self, stream: str, source: str):
        super().__init__(stream)
        self._source = source
        self._depth = 0
        self._nodes = 0  # nodes composed, aliases expanded
        self._size: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded nodes, expanded height)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            anchor = self.peek_event().anchor
            node = super().compose_node(parent, index)
            size = self._size.get(id(node))
            if size is None:
                raise DataFileError(f"{self._source}: YAML alias *{anchor} refers to a node that contains it")
            self._count(size[0], self._depth + size[1])
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise DataFileError(f"{self._source}: YAML nested deeper than {MAX_DEPTH} levels")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        children: list[Any] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [item for pair in node.value for item in pair]
        sizes = [self._size.get(id(c), (1, 1)) for c in children]
        size = (1 + sum(n for n, _ in sizes), 1 + max((h for _, h in sizes), default=0))
        self._size[id(node)] = size
        self._count(1, self._depth + size[1])
        return node

    def _count(self, nodes: int, depth: int) -> None:
        self._nodes += nodes
        if self._nodes > MAX_NODES:
            raise DataFileError(f"{self._source}: more than {MAX_NODES} YAML nodes once aliases are expanded")
        if depth > MAX_DEPTH:
            raise DataFileError(f"{self._source}: YAML nested deeper than {MAX_DEPTH} levels once aliases are expanded")


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
    if not isinstance(text, str):
        raise DataFileError(f"{source}: YAML must be text, got {type(text).__name__}")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # lone surrogates, e.g. from a JSON "\\ud800" escape
        raise DataFileError(f"{source}: not UTF-8 text ({exc.reason} at character {exc.start})") from None
    if size > MAX_BYTES:
        raise DataFileError(f"{source}: larger than {MAX_BYTES} bytes")
    loader = None
    try:
        loader = _BoundedLoader(text, source)  # the reader refuses control characters already here
        data = loader.get_single_data()
    except DataFileError:
        raise
    except yaml.YAMLError as exc:
        raise DataFileError(f"{source}: not valid YAML: {exc}") from None
    except RecursionError:
        raise DataFileError(f"{source}: YAML nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
    _check_numbers(data, source)
    return data


def load_yaml(path: str | Path, what: str = "data file") -> Any:
    """Read and parse a YAML data file within the limits above."""
    return load_yaml_text(read_text_bounded(path, what=what), str(path))


class _NoAliasDumper(yaml.SafeDumper):  # type: ignore[misc]
    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any) -> str:
    """YAML text of plain data without anchors or aliases (which :func:`load_yaml` refuses), even when
    the same list or mapping object appears twice."""
    text: str = yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True)
    return text


def _json_path(keys: tuple[Any, ...]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys).lstrip(".") or "value"


def _check_json(data: Any, source: str, max_int: int) -> None:
    """Depth and number limits, naming the field (one walk, no recursion)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        item, at = stack.pop()
        if isinstance(item, (dict, list)):
            if len(at) >= MAX_JSON_DEPTH:
                raise DataFileError(f"{source}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((v, (*at, k)) for k, v in pairs)
        elif isinstance(item, int) and not isinstance(item, bool) and not -max_int <= item <= max_int:
            digits = len(str(abs(item)))
            raise DataFileError(f"{source}: {_json_path(at)} = a {digits}-digit integer, outside ±{max_int}")
        elif isinstance(item, float) and abs(item) > 1e300:
            raise DataFileError(f"{source}: {_json_path(at)} = {item} is too large")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def load_json_text(text: str | bytes, source: str, limit: int = MAX_JSON_BYTES, max_int: int = 2**63) -> Any:
    """Parse JSON (a record, a state, checkpoint metadata) within limits: size, nesting depth, integers
    within ``±max_int``, no NaN/Infinity. Refusals are :class:`DataFileError` naming ``source``."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise DataFileError(f"{source}: larger than {limit} bytes")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise DataFileError(f"{source}: JSON nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, too many digits, bad bytes
        raise DataFileError(f"{source} is not JSON: {exc}") from None
    _check_json(data, source, max_int)
    return data


def load_json(path: str | Path, what: str = "JSON file", limit: int = MAX_JSON_BYTES) -> Any:
    """Read (bounded) and parse a JSON file within the limits of :func:`load_json_text`."""
    return load_json_text(read_text_bounded(path, limit=limit, what=what), str(path), limit=limit)


def sha256(text: str | bytes) -> str:
    """The hex SHA-256 of a file's content (records pin data files by it)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text).hexdigest()


@dataclass(frozen=True)
class DataText:
    """A data file's text with the name it came from: read from disk by :func:`read_data`, or carried
    inside a record (``record["files"]``) so the record replays anywhere. A game's data keyword
    (``card_set=``) accepts one in place of a path."""

    source: str
    text: str

    @property
    def sha256(self) -> str:
        return sha256(self.text)


def read_data(value: str | Path | DataText, what: str = "data file") -> DataText:
    """The text of a data file given by path (bounded read) or already as :class:`DataText`."""
    if isinstance(value, DataText):
        if not isinstance(value.text, str) or len(value.text) > MAX_BYTES:
            raise DataFileError(f"{value.source}: {what} must be text of at most {MAX_BYTES} bytes")
        return value
    if not isinstance(value, (str, Path)):
        raise DataFileError(f"{what} must be a file path, got {value!r}")
    return DataText(source=str(value), text=read_text_bounded(value, what=what))


__all__ = [
    "DataFileError",
    "DataText",
    "MAX_BYTES",
    "dump_yaml",
    "MAX_INT",
    "MAX_JSON_BYTES",
    "load_json",
    "load_json_text",
    "load_yaml",
    "load_yaml_text",
    "read_data",
    "read_text_bounded",
    "sha256",
]
