"""The hex grid of a Sunflower Valley sheet (SV-RULING-1): 30 pointy-top hexes, rows A–E, columns 1–6.

Rows B and D are shifted right by half a hex ("odd-r"). Hex index ``h = 6·r + c`` (A1 = 0 … E6 = 29).
Sides: 0 = E, 1 = NE, 2 = NW, 3 = W, 4 = SW, 5 = SE; the side opposite ``s`` is ``(s + 3) % 6``.
Everything here is computed once at import (neighbour tables, bit masks) so the engine only indexes.

>>> hex_name(0), hex_name(29), parse_hex("C4")
('A1', 'E6', 15)
>>> [hex_name(n) if n >= 0 else '-' for n in NEIGHBOUR[parse_hex("B1")]]
['B2', 'A2', 'A1', '-', 'C1', 'C2']
"""

from __future__ import annotations

ROWS = 5
COLS = 6
N_HEX = ROWS * COLS
ROW_LETTERS = "ABCDE"
SIDE_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
EDGE = -1  # "neighbour" past the sheet edge

# (dr, dc) per side for even rows (A, C, E) and odd rows (B, D): SV-RULING-1 table
_EVEN = ((0, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0))
_ODD = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, 0), (1, 1))


def opposite(side: int) -> int:
    """The side facing back from the neighbour on ``side``."""
    return (side + 3) % 6


def hex_name(h: int) -> str:
    """``C4`` for index 15."""
    r, c = divmod(h, COLS)
    return f"{ROW_LETTERS[r]}{c + 1}"


def parse_hex(name: str) -> int:
    """Index of a hex name like ``"C4"`` (case-insensitive); ValueError for anything else."""
    if not isinstance(name, str) or len(name.strip()) != 2:
        raise ValueError(f"not a hex name (row A-E + column 1-6): {name!r}")
    row, col = name.strip().upper()
    if row not in ROW_LETTERS or col not in "123456":
        raise ValueError(f"not a hex name (row A-E + column 1-6): {name!r}")
    return ROW_LETTERS.index(row) * COLS + int(col) - 1


def _neighbour(h: int, side: int) -> int:
    r, c = divmod(h, COLS)
    dr, dc = (_ODD if r % 2 else _EVEN)[side]
    r2, c2 = r + dr, c + dc
    return r2 * COLS + c2 if 0 <= r2 < ROWS and 0 <= c2 < COLS else EDGE


#: NEIGHBOUR[h][side] = neighbouring hex index or EDGE
NEIGHBOUR: tuple[tuple[int, ...], ...] = tuple(tuple(_neighbour(h, s) for s in range(6)) for h in range(N_HEX))
#: NEIGHBOURS[h] = the existing neighbours of h (SV-GEN-2 "adjacent")
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(n for n in row if n != EDGE) for row in NEIGHBOUR)
#: NEIGHBOUR_MASK[h] = bit mask of NEIGHBOURS[h]
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(1 << n for n in ns) for ns in NEIGHBOURS)
ALL_HEXES_MASK = (1 << N_HEX) - 1


def bits(mask: int) -> list[int]:
    """Hex indices of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def components(mask: int) -> list[int]:
    """Connected components (by adjacency) of the hexes in ``mask``, each as a bit mask, in order of
    their lowest hex."""
    out = []
    while mask:
        comp = frontier = mask & -mask
        while frontier:
            grow = 0
            for h in bits(frontier):
                grow |= NEIGHBOUR_MASK[h]
            frontier = grow & mask & ~comp
            comp |= frontier
        out.append(comp)
        mask &= ~comp
    return out


def centre(h: int, size: float = 1.0) -> tuple[float, float]:
    """(x, y) of a hex centre for drawing, pointy-top, hex width ``size`` (odd rows shifted right)."""
    r, c = divmod(h, COLS)
    return (c + 0.5 * (r % 2) + 0.5) * size, (r * 0.8660254037844386 + 0.5773502691896258) * size
