"""Country board geometry (KH-BOARD-4, KH-GEN-2, KH-RULING-1) and every board fact, loaded once.

Spaces are numbered ``s = 8 * r + c`` (A1 = 0 … G8 = 55). Sets of spaces are Python int bitmasks
(bit ``s``); :func:`dilate` gives all neighbours of a set with a handful of shifts, checked at import
against the neighbour table built from ``data/board.yaml``.
"""

from __future__ import annotations

from .tiles import DataError, data_hashes, load_board, load_events, load_setup, load_tiles, load_workers

_BOARD = load_board()
DATA_HASHES: dict[str, str] = data_hashes()  # pinned by records (read-only)
ROW_NAMES: tuple[str, ...] = tuple(_BOARD["rows"])
ROWS, COLS = len(ROW_NAMES), int(_BOARD["columns"])
NUM_SPACES = ROWS * COLS  # 56 (KH-COMP-2)
SPACE_NAMES: tuple[str, ...] = tuple(f"{ROW_NAMES[s // COLS]}{s % COLS + 1}" for s in range(NUM_SPACES))
CROPS: tuple[str, ...] = tuple(_BOARD["crops"])
NUM_CROPS = len(CROPS)
COUNTERS_PER_CROP = int(_BOARD["counters_per_crop"])  # 12 (KH-COMP-7)
TOTAL_COUNTERS = COUNTERS_PER_CROP * NUM_CROPS  # 60
REGISTRY_SPACES = int(_BOARD["registry_spaces"])  # 6
EVENT_SPACES = int(_BOARD["event_spaces"])  # 10
STORE_SPACES = int(_BOARD["store_spaces"])  # 2

FULL = (1 << NUM_SPACES) - 1


def _neighbours() -> tuple[tuple[int, ...], ...]:
    out = []
    for s in range(NUM_SPACES):
        r, c = divmod(s, COLS)
        offsets = _BOARD["neighbours"]["odd" if r % 2 else "even"]
        nb = []
        for dr, dc in offsets.values():
            rr, cc = r + dr, c + dc
            if 0 <= rr < ROWS and 0 <= cc < COLS:
                nb.append(rr * COLS + cc)
        out.append(tuple(sorted(nb)))
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = _neighbours()
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(1 << t for t in nb) for nb in NEIGHBOURS)
BIT: tuple[int, ...] = tuple(1 << s for s in range(NUM_SPACES))

_EVEN = sum(BIT[s] for s in range(NUM_SPACES) if (s // COLS) % 2 == 0)
_ODD = FULL & ~_EVEN
_NOT_FIRST = sum(BIT[s] for s in range(NUM_SPACES) if s % COLS)
_NOT_LAST = sum(BIT[s] for s in range(NUM_SPACES) if s % COLS != COLS - 1)


def dilate(m: int) -> int:
    """Every space adjacent to a space of ``m`` (odd-r hex offsets of KH-RULING-1, as shifts)."""
    e, o = m & _EVEN, m & _ODD
    r = ((m & _NOT_LAST) << 1) | ((m & _NOT_FIRST) >> 1)
    r |= (e >> 8) | ((e & _NOT_FIRST) >> 9) | ((e & _NOT_FIRST) << 7) | (e << 8)
    r |= ((o & _NOT_LAST) >> 7) | (o >> 8) | (o << 8) | ((o & _NOT_LAST) << 9)
    return r & FULL


def neighbour_counts(m: int) -> tuple[int, int, int, int, int, int]:
    """Masks of the spaces with at least 1, 2, ... 6 neighbours in ``m``: the ten shifts of :func:`dilate`
    (each hits a space at most once) summed bit-parallel by a carry-save adder tree into binary digits
    b0..b3 of every space's count, then compared with 1..6 (~60 int operations, 1.7x faster than one
    saturating counter per threshold: tests/key_harvest/test_speed_paths.py compares it with that count)."""
    e, o = m & _EVEN, m & _ODD
    en, ol = e & _NOT_FIRST, o & _NOT_LAST
    a0, a1, a2 = (m & _NOT_LAST) << 1, (m & _NOT_FIRST) >> 1, e >> 8
    a3, a4, a5 = en >> 9, en << 7, e << 8
    a6, a7, a8, a9 = ol >> 7, o >> 8, o << 8, ol << 9
    # weight 1: three full adders, one more over their sums, a half adder for the tenth shift
    x = a0 ^ a1
    s1, k1 = x ^ a2, (a0 & a1) | (x & a2)
    x = a3 ^ a4
    s2, k2 = x ^ a5, (a3 & a4) | (x & a5)
    x = a6 ^ a7
    s3, k3 = x ^ a8, (a6 & a7) | (x & a8)
    x = s1 ^ s2
    s4, k4 = x ^ s3, (s1 & s2) | (x & s3)
    b0, k5 = (s4 ^ a9) & FULL, s4 & a9
    # weight 2: the five carries k1..k5
    x = k1 ^ k2
    t1, c1 = x ^ k3, (k1 & k2) | (x & k3)
    x = k4 ^ k5
    b1, c2 = (x ^ t1) & FULL, (k4 & k5) | (x & t1)
    # weight 4 and 8
    b2, b3 = (c1 ^ c2) & FULL, c1 & c2 & FULL
    hi = b2 | b3  # count >= 4
    return b0 | b1 | hi, b1 | hi, hi | (b1 & b0), hi, b3 | (b2 & (b1 | b0)), b3 | (b2 & b1)


_COUNTS: dict[int, tuple[int, int, int, int, int, int]] = {}


def cached_neighbour_counts(m: int) -> tuple[int, int, int, int, int, int]:
    """:func:`neighbour_counts` through a cache (a board's field set changes a few times a game, and the
    worker-placement tests ask for its counts at every TURN decision); tests/key_harvest/test_speed_paths.py
    compares it with the plain function."""
    counts = _COUNTS.get(m)
    if counts is None:
        if len(_COUNTS) >= 1 << 14:
            _COUNTS.clear()
        counts = _COUNTS[m] = neighbour_counts(m)
    return counts


def grow_counts(fields: int, tile: int) -> None:
    """A field tile joins ``fields``: put the neighbour counts of the grown board into the cache from those
    of ``fields`` when they are cached (the tile's neighbours count one more: the mask of ">= k+1" gains
    those that had k, ~10 int operations against ~60 for :func:`neighbour_counts`; the game calls it where
    it places a field tile, tests/key_harvest/test_speed_paths.py compares the result with the plain counts)."""
    counts = _COUNTS.get(fields)
    grown = fields | BIT[tile]
    if counts is None or grown == fields or grown in _COUNTS:
        return
    nb = NEIGHBOUR_MASK[tile]
    c0, c1, c2, c3, c4, c5 = counts
    if len(_COUNTS) >= 1 << 14:
        _COUNTS.clear()
    _COUNTS[grown] = (c0 | nb, c1 | (c0 & nb), c2 | (c1 & nb), c3 | (c2 & nb), c4 | (c3 & nb), c5 | (c4 & nb))


if COLS != 8 or any(dilate(BIT[s]) != NEIGHBOUR_MASK[s] for s in range(NUM_SPACES)):  # pragma: no cover
    raise DataError("board.yaml: neighbours: the table does not match the odd-r geometry of KH-RULING-1")


def group_of(space: int, fields: int) -> int:
    """The connected group (bitmask) of field tiles containing ``space`` (KH-ACT-HARVEST-2/3)."""
    # speed: for a space of ``fields``, the group grows from the neighbour table of the tiles it gained last
    # instead of dilating the whole group each round (a 56-bit dilate costs ~0.35 us; most groups harvested
    # have 1-2 tiles); tests/key_harvest/test_speed_paths.py compares it with group_of_plain
    g = BIT[space]
    if not fields & g:
        return group_of_plain(space, fields)
    new = NEIGHBOUR_MASK[space] & fields & ~g
    while new:
        g |= new
        near = 0
        while new:
            low = new & -new
            near |= NEIGHBOUR_MASK[low.bit_length() - 1]
            new ^= low
        new = near & fields & ~g
    return g


def group_of_plain(space: int, fields: int) -> int:
    """:func:`group_of` as the rule reads: add every neighbour in ``fields`` until nothing is added."""
    g = BIT[space]
    while True:
        n = (g | dilate(g)) & fields
        if n == g:
            return g
        g = n


def groups(fields: int) -> list[int]:
    """All connected groups of the field-tile set ``fields``, largest first."""
    out = []
    rest = fields
    while rest:
        low = rest & -rest
        g = group_of(low.bit_length() - 1, fields)
        out.append(g)
        rest &= ~g
    out.sort(key=lambda m: -m.bit_count())
    return out


def spaces(mask: int) -> list[int]:
    """The spaces of a bitmask in increasing order (row-major, A1 first)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def parse_space(name: str) -> int:
    return SPACE_NAMES.index(name.upper())


CROP_OF: tuple[int, ...]
_crop_list, START_PAIRS = load_tiles(list(CROPS), list(SPACE_NAMES))
CROP_OF = tuple(_crop_list)
PAIR_COLOURS: tuple[str, ...] = tuple(sorted(START_PAIRS))
START_TILES = frozenset(s for pair in START_PAIRS.values() for s in pair)
CROP_MASK: tuple[int, ...] = tuple(sum(BIT[s] for s in range(NUM_SPACES) if CROP_OF[s] == k) for k in range(NUM_CROPS))

WORKERS = load_workers()  # 12 kinds: 0-5 farmhands, 6-11 townsfolk
FARMHANDS = 6
NUMBER: tuple[int, ...] = tuple(w.number for w in WORKERS)
EVENTS = load_events()
EVENT_TILES: tuple[int, ...] = tuple(e.index for e in EVENTS for _ in range(e.count))  # tile -> kind
NUM_EVENT_TILES = len(EVENT_TILES)  # 14
SETUP = load_setup()
START_COUNTERS = int(SETUP["start_counters"])
SAFETY_ROUNDS = int(SETUP["safety_rounds"])
FINAL_ROUNDS = int(SETUP["final_rounds"])
END_EVENT = int(SETUP["end_event"])

# worker tile ids: farmhand k of seat p = 6 * p + k (0..23); townsfolk t = 24 + t (24..29)
TOWNSFOLK_BASE = 24
NUM_WORKER_TILES = 30


def worker_kind(tile: int) -> int:
    return tile % 6 if tile < TOWNSFOLK_BASE else 6 + tile - TOWNSFOLK_BASE


TILE_NUMBER: tuple[int, ...] = tuple(NUMBER[worker_kind(t)] for t in range(NUM_WORKER_TILES))  # tile -> number
