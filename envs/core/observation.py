"""Observation layouts: named float32 arrays declared once, laid out in one flat buffer.

A game's observer declares its arrays as :class:`Entry` rows (name, symbolic dims, shape, meaning,
per-element upper bound); :class:`ObservationLayout` gives the flat size, named views into a flat
buffer, fresh buffers, a markdown table for the docs and the bounds the adapters turn into gymnasium
spaces. Seat rotation helpers put the viewer at index 0 of every player axis.

>>> layout = ObservationLayout.build([("board", ("rows", "cols"), (2, 3), "a grid", 1.0),
...                                   ("score", ("players",), (2,), "points", 9.0)])
>>> layout.size, [e.start for e in layout.entries]
(8, [0, 6])
>>> buf = layout.new_buffer()
>>> buf.views["board"].shape
(2, 3)
>>> viewer_order(4, 2)
[2, 3, 0, 1]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

INF = math.inf

#: a feature-table row: (name, meaning, high); high 1 = flag or one-hot, INF = an unbounded count
Feature = tuple[str, str, float]


@dataclass(frozen=True)
class Entry:
    """One named array of the observation."""

    name: str
    dims: tuple[str, ...]  # symbolic shape, for the docs
    shape: tuple[int, ...]
    meaning: str
    high: np.ndarray  # per element (broadcast to shape), float32
    start: int = 0  # offset in the flat buffer

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.start + self.size


def highs(table: Iterable[Feature]) -> np.ndarray:
    """The ``high`` column of a feature table as a float32 vector."""
    return np.array([h for _, _, h in table], dtype=np.float32)


@dataclass
class ObservationBuffer:
    """A flat float32 observation and its named views (the same memory). Observers may keep what a
    buffer holds in ``memo`` (e.g. for incremental refills); ``mv`` is a memoryview of ``flat`` for
    fast small writes."""

    flat: np.ndarray
    views: dict[str, np.ndarray]
    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    mv: memoryview = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.mv = memoryview(self.flat)  # type: ignore[arg-type]

    def __getstate__(self) -> dict[str, Any]:
        # memoryviews do not pickle, and pickled views would be copies: keep their shapes only
        state = self.__dict__.copy()
        del state["mv"]
        state["views"] = [(name, view.shape) for name, view in self.views.items()]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        shapes = state.pop("views")
        self.__dict__.update(state)
        self.views, start = {}, 0  # the views lie one after the other in the flat buffer
        for name, shape in shapes:
            size = int(np.prod(shape))
            self.views[name] = self.flat[start : start + size].reshape(shape)
            start += size
        self.mv = memoryview(self.flat)  # type: ignore[arg-type]


class ObservationLayout:
    """The declared entries of one observation, their offsets and bounds."""

    def __init__(self, entries: Sequence[Entry]):
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.size = self.entries[-1].stop if self.entries else 0
        self.entry = {e.name: e for e in self.entries}
        self._slices = [(e.name, e.start, e.stop, e.shape) for e in self.entries]

    @classmethod
    def build(cls, spec: Iterable[tuple[str, tuple[str, ...], tuple[int, ...], str, Any]]) -> ObservationLayout:
        """Entries from ``(name, dims, shape, meaning, high)`` rows, laid out in order."""
        entries, start = [], 0
        for name, dims, shape, meaning, high in spec:
            hi = np.broadcast_to(np.asarray(high, np.float32), shape).astype(np.float32)
            entries.append(Entry(name, tuple(dims), tuple(shape), meaning, hi, start))
            start += int(np.prod(shape))
        return cls(entries)

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into a flat float32 buffer of length ``size``."""
        return {name: flat[a:b].reshape(shape) for name, a, b, shape in self._slices}

    def new_buffer(self) -> ObservationBuffer:
        flat = np.zeros(self.size, np.float32)
        return ObservationBuffer(flat, self.views(flat))

    def high(self) -> np.ndarray:
        """Upper bounds of the flat vector (``inf`` for unbounded counts)."""
        if not self.entries:
            return np.zeros(0, np.float32)
        return np.concatenate([e.high.reshape(-1) for e in self.entries]).astype(np.float32)

    def markdown(self, title: str = "") -> str:
        """The layout as a markdown table (for a game's env docs)."""
        lines = [title, ""] if title else []
        lines += ["| array | shape | dims | meaning |", "|---|---|---|---|"]
        lines += [f"| `{e.name}` | {e.shape} | {' × '.join(e.dims)} | {e.meaning} |" for e in self.entries]
        return "\n".join(lines)


def feature_table_markdown(title: str, table: Iterable[Feature]) -> str:
    """One feature table (index, name, meaning, range) as markdown."""
    lines = [f"**{title}**", "", "| # | name | meaning | range |", "|---|---|---|---|"]
    for i, (name, meaning, high) in enumerate(table):
        shown = "0/1" if high == 1 else "≥ 0" if high == INF else f"0..{high:g}"
        lines.append(f"| {i} | `{name}` | {meaning} | {shown} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Seat rotation: every player axis starts with the viewer, then the next seats in turn order.


def viewer_order(num_players: int, viewer: int) -> list[int]:
    """Seats in the order a viewer sees them: ``order[k]`` is the seat shown at index k."""
    return [(viewer + k) % num_players for k in range(num_players)]


def seat_rank(num_players: int, viewer: int) -> list[int]:
    """Inverse of :func:`viewer_order`: ``rank[seat]`` is the index at which ``viewer`` sees ``seat``."""
    return [(p - viewer) % num_players for p in range(num_players)]


def row_views(array: np.ndarray) -> list[memoryview]:
    """One flat float32 memoryview per item of ``array``'s first axis (views of its memory)."""
    assert array.dtype == np.float32 and array.flags.c_contiguous
    flat = memoryview(array.reshape(-1))  # type: ignore[arg-type]
    width = flat.nbytes // 4 // len(array)
    return [flat[i * width : (i + 1) * width] for i in range(len(array))]


def rotated_runs(n: int, width: int, dst: int, src: int, viewer: int) -> list[tuple[int, int, int]]:
    """(dst, src, length) copies that put ``n`` seat-ordered rows of ``width`` floats at ``src`` into
    ``viewer``'s order (viewer first) at ``dst``: rows viewer..n-1, then 0..viewer-1."""
    runs = [(dst, src + viewer * width, (n - viewer) * width)]
    if viewer:
        runs.append((dst + (n - viewer) * width, src, viewer * width))
    return runs


def merge_runs(runs: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Join copies that continue each other in both arrays; as (dst_from, dst_to, src_from, src_to)."""
    out: list[list[int]] = []
    for dst, src, length in runs:
        if out and out[-1][0] + out[-1][2] == dst and out[-1][1] + out[-1][2] == src:
            out[-1][2] += length
        else:
            out.append([dst, src, length])
    return [(dst, dst + length, src, src + length) for dst, src, length in out]


__all__ = [
    "Entry",
    "Feature",
    "INF",
    "ObservationBuffer",
    "ObservationLayout",
    "feature_table_markdown",
    "highs",
    "merge_runs",
    "rotated_runs",
    "row_views",
    "seat_rank",
    "viewer_order",
]
