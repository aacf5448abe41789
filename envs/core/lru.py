"""Bounded least-recently-used tables over plain dicts, for bots' memo tables.

A dict keeps insertion order, so moving a hit to the end and dropping from the front is an LRU without a
linked list. The install compiles this module with mypyc (``envs/_native.py``), so a compiled bot calls these
as C functions: interpreted, each call was a Python frame, ≈ 2% of the Fields of Green bot's instructions
(docs/profiling.md, "Twenty-first pass").
"""

from __future__ import annotations

from itertools import islice
from typing import Any, Final

MISS: Final = object()  # what ``lru_get`` returns for a key that is not in the table (compare with ``is``)


def lru_get(table: dict[Any, Any], key: Any) -> Any:
    """``table[key]`` moved to the most-recent end, or ``MISS``."""
    value = table.pop(key, MISS)
    if value is not MISS:
        table[key] = value  # most recently used last
    return value


def lru_put(table: dict[Any, Any], key: Any, value: Any, cap: int) -> None:
    """Store and, past ``cap`` entries, drop the oldest eighth (amortised O(1))."""
    table[key] = value
    if len(table) > cap:
        for old in list(islice(table, len(table) - cap + cap // 8)):
            del table[old]
