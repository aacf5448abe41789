"""A player's farm: grid geometry, placement, water range and storage (FOG-FARM, FOG-WATER, FOG-STORE).

Cells are flat indices ``row * size + col`` on a ``size x size`` grid (FOG-RUL-8). A cell holds
``EMPTY``, ``TOWER``, ``SILO`` or a location card id. Food is one pool whose capacity is the sum of the
silos' capacities (FOG-STORE-10, FOG-RUL-11); water is tracked per tower and never moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from mypy_extensions import mypyc_attr

EMPTY = -1
TOWER = -2
SILO = -3
# what Farm.card_info says of a Water Tower and a Silo: (type, subtype, ability kind)
TOWER_INFO: tuple[str, None, str] = ("WaterTower", None, "none")
SILO_INFO: tuple[str, None, str] = ("Silo", None, "none")


@mypyc_attr(allow_interpreted_subclasses=True)  # (compiled: __new__ skips __init__ (unpickling), tp_init runs it)
class Geometry:
    """Adjacency and distance-2 paths of one grid size, computed once and shared by every farm."""

    def __init__(self, size: int):
        self.size = size
        self.cells = size * size
        self.centre = size // 2
        self.neighbours: list[tuple[int, ...]] = []
        for cell in range(self.cells):
            r, c = divmod(cell, size)
            near = [(r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)]
            self.neighbours.append(tuple(rr * size + cc for rr, cc in near if 0 <= rr < size and 0 <= cc < size))
        # between[(tower, target)] = cells that may carry the water path at distance 2 (FOG-WATER-4)
        self.between: dict[tuple[int, int], tuple[int, ...]] = {}
        for t in range(self.cells):
            for n in self.neighbours[t]:
                for c in self.neighbours[n]:
                    if c != t and c not in self.neighbours[t]:
                        self.between[(t, c)] = tuple(sorted(set(self.between.get((t, c), ())) | {n}))
        # reach2[t] = ((cell, between cells), ...) for every cell at distance 2 of t, in cell order: the same
        # facts as ``between`` listed per tower, for Farm.water_by_cell
        self.reach2: list[tuple[tuple[int, tuple[int, ...]], ...]] = [() for _ in range(self.cells)]
        for (t, c), path in sorted(self.between.items()):
            self.reach2[t] += ((c, path),)
        # pair_paths[tower * cells + cell]: () when the two are adjacent, the ``between`` cells at distance 2, None
        # out of reach (the same facts as ``neighbours`` and ``between``, for Farm.tower_in_range: one list index
        # instead of a tuple scan and a dict lookup by a tuple key)
        self.pair_paths: list[tuple[int, ...] | None] = [None] * (self.cells * self.cells)
        for t in range(self.cells):
            for n in self.neighbours[t]:
                self.pair_paths[t * self.cells + n] = ()
        for (t, c), path in self.between.items():
            self.pair_paths[t * self.cells + c] = path
        # neighbour_bits[cell]: its neighbours as an int holding one byte per cell (byte n is 1 for neighbour n,
        # as int.from_bytes(mask, "little") reads a frontier_mask), for Farm.watered_frontier
        self.neighbour_bits: list[int] = [sum(1 << (8 * n) for n in near) for near in self.neighbours]

    def cell(self, row: int, col: int) -> int:
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise ValueError(f"cell ({row}, {col}) is outside the {self.size}x{self.size} farm (FOG-RUL-8)")
        return row * self.size + col

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.size)

    def label(self, cell: int) -> str:
        r, c = divmod(cell, self.size)
        return f"({r},{c})"


@cache
def geometry(size: int) -> Geometry:
    return Geometry(size)


# (compiled: with interpreted subclasses allowed, __new__ skips __init__ (clone, unpickling); calling the
# class runs it)
@mypyc_attr(allow_interpreted_subclasses=True)
class Farm:
    """Everything one player owns. Public information except nothing: a farm is fully public (FOG-INFO-1)."""

    __slots__ = (
        "geometry",
        "info",
        "grid",
        "fallow",
        "occupied",
        "frontier",
        "tower_water",
        "tower_capacity",
        "silo_capacity",
        "food",
        "coins",
        "vp_tokens",
        "equipment",
        "set_aside",
        "actions_taken",
        "version",
        "harvest_memo",
        "frontier_of",
        "frontier_bits",
    )

    def __init__(self, geometry: Geometry, info: Sequence[tuple[str, str | None, str]]):
        self.geometry = geometry
        self.info = info  # per card id: (pile, subtype, ability kind); shared, read-only
        self.grid: list[int] = [EMPTY] * geometry.cells
        self.fallow: set[int] = set()
        self.occupied: list[int] = []
        self.frontier: set[int] = set()
        self.tower_water: dict[int, int] = {}
        self.tower_capacity: dict[int, int] = {}
        self.silo_capacity: dict[int, int] = {}
        self.food = 0
        self.coins = 0
        self.vp_tokens = 0
        self.equipment: dict[int, list[int]] = {}
        self.set_aside: list[int] = []
        self.actions_taken = 0
        # Bumped by the engine (Game._apply / Game._run) whenever a step may have changed this farm, so
        # observers re-read only farms whose version moved (observer.py). Not part of the game state.
        self.version = 0
        # Game._harvest_sites' cache: (the occupied list, its length, the harvest-ability cells). Cells are
        # only ever added to a farm, by place (occupied grows); a new occupied list (clone, loaded state)
        # misses. Not part of the game state.
        self.harvest_memo: tuple[list[int], int, tuple[int, ...]] | None = None
        # frontier_mask's bytes: ``frontier_bits`` is the frontier while ``frontier_of`` is ``occupied`` (the
        # list they were built for; place keeps them up to date then). Not part of the game state.
        self.frontier_of: list[int] | None = None
        self.frontier_bits = bytearray()

    def clone(self) -> Farm:
        new = Farm.__new__(Farm)
        new.geometry = self.geometry
        new.info = self.info
        new.grid = self.grid[:]
        new.fallow = set(self.fallow)
        new.occupied = self.occupied[:]
        new.frontier = set(self.frontier)
        new.tower_water = dict(self.tower_water)
        new.tower_capacity = dict(self.tower_capacity)
        new.silo_capacity = dict(self.silo_capacity)
        new.food = self.food
        new.coins = self.coins
        new.vp_tokens = self.vp_tokens
        new.equipment = {k: v[:] for k, v in self.equipment.items()}
        new.set_aside = self.set_aside[:]
        new.actions_taken = self.actions_taken
        new.version = self.version
        new.harvest_memo = None
        new.frontier_of = None  # (rebuilt when asked: bots clone far more often than masks are asked)
        new.frontier_bits = self.frontier_bits  # (never read or written while frontier_of is None)
        return new

    # ---- placement (FOG-FARM-3..7)

    def place(self, cell: int, code: int) -> None:
        """Put a card (location id, TOWER or SILO) on an empty cell and update the frontier (FOG-FARM-3), and
        its bytes where frontier_mask built them."""
        grid, frontier, occupied = self.grid, self.frontier, self.occupied
        grid[cell] = code
        occupied.append(cell)
        frontier.discard(cell)
        if self.frontier_of is occupied:  # the same update in bytes (see frontier_mask)
            bits = self.frontier_bits
            bits[cell] = 0
            for n in self.geometry.neighbours[cell]:
                if grid[n] == EMPTY:
                    frontier.add(n)
                    bits[n] = 1
            return
        for n in self.geometry.neighbours[cell]:
            if grid[n] == EMPTY:
                frontier.add(n)

    def frontier_mask(self) -> bytearray:
        """``frontier`` as one 0/1 byte per cell (FOG-FARM-3), for Game.legal_mask_bytes (an act's build, tower
        and silo blocks). Do not write to it.

        Speed: built from the frontier on the first call for this ``occupied`` list, then kept up to date by
        place (the only method that changes the frontier, and it only appends to ``occupied``), so a mask costs
        no loop over the frontier while farms that are never asked (bots' clones) pay nothing; a new occupied
        list (clone, loaded state) rebuilds it. tests/fields_of_green/env/test_engine_mask.py compares it with
        the frontier after every step of random games."""
        if self.frontier_of is not self.occupied:
            bits = self.frontier_bits = bytearray(self.geometry.cells)
            for cell in self.frontier:
                bits[cell] = 1
            self.frontier_of = self.occupied
        return self.frontier_bits

    def card_info(self, cell: int) -> tuple[str, str | None, str] | None:
        """(type, subtype, ability kind) of the face-up card at ``cell``; None if empty or fallow."""
        code = self.grid[cell]
        if code >= 0:
            return None if cell in self.fallow else self.info[code]
        if code == TOWER:
            return TOWER_INFO
        if code == SILO:
            return SILO_INFO
        return None

    # ---- water (FOG-WATER-1..7)

    def tower_in_range(self, tower: int, cell: int) -> bool:
        """FOG-WATER-4: adjacent, or at distance 2 with a card on a cell between them. (Speed: both read from
        ``Geometry.pair_paths``; tests/fields_of_green/env/test_engine_speed.py compares it with the rule read from
        ``neighbours`` and ``between``.)"""
        geometry = self.geometry
        path = geometry.pair_paths[tower * geometry.cells + cell]
        if path is None:
            return False
        if not path:
            return True  # adjacent
        grid = self.grid
        for b in path:  # (a loop, not any(genexpr): no closure per call)
            if grid[b] != EMPTY:
                return True
        return False

    def _reach_bits(self, cell: int) -> int:
        """The cells in water range of ``cell`` (and ``cell`` itself when a neighbour holds a card), as an int of
        one byte per cell (byte n is 1 for cell n, as ``int.from_bytes(mask, "little")`` reads a frontier mask).
        FOG-WATER-4 (adjacent, or at distance 2 with a card on a cell between them) is symmetric, so these are
        also the cells a tower on ``cell`` reaches: its neighbours and, through each neighbour holding a card,
        that card's neighbours. A few ORs of ``Geometry.neighbour_bits`` instead of a ``between`` lookup a pair."""
        geometry = self.geometry
        bits_of, grid = geometry.neighbour_bits, self.grid
        reach = bits_of[cell]
        for b in geometry.neighbours[cell]:
            if grid[b] != EMPTY:
                reach |= bits_of[b]
        return reach

    def range_mask(self, cell: int) -> bytearray:
        """One byte per cell, 1 for each cell in water range of ``cell`` (``cell`` itself not): the cells where
        a tower reaches ``cell`` (see ``_reach_bits``)."""
        near = bytearray(self._reach_bits(cell).to_bytes(self.geometry.cells, "little"))
        near[cell] = 0  # (reached back through its neighbours)
        return near

    def towers_in_range(self, cell: int) -> list[int]:
        """Tower cells in range of ``cell`` that hold water, in cell order. Speed: one :meth:`range_mask` byte
        per tower instead of :meth:`tower_in_range` (each water payment asks this); test_engine_speed.py
        compares it with the plain filter."""
        near = self.range_mask(cell)
        out = []
        for t, w in sorted(self.tower_water.items()):
            if w and near[t]:
                out.append(t)
        return out

    def water_in_range(self, cell: int) -> int:
        """Water on the towers in range of ``cell`` (FOG-WATER-4). Speed: one :meth:`range_mask` byte per tower
        instead of :meth:`tower_in_range` (the engine asks this for each harvest location with a water cost, the
        bots far more); tests/fields_of_green/env/test_engine_speed.py compares it with the plain sum over that
        method."""
        near = self.range_mask(cell)
        total = 0
        for t, w in self.tower_water.items():
            if w and near[t]:
                total += w
        return total

    def water_by_cell(self, cells: set[int] | frozenset[int]) -> dict[int, int]:
        """``{cell: water_in_range(cell)}`` for the cells of ``cells`` with water in range (FOG-WATER-4).

        Speed: the act legality asks it for the whole frontier of a build with a water cost. It walks out
        from the towers (each reaches at most 4 neighbours and 8 cells at distance 2) instead of testing
        every cell against every tower; tests/fields_of_green/env/test_engine_speed.py compares it with
        :meth:`water_in_range`."""
        out: dict[int, int] = {}
        geometry = self.geometry
        neighbours, reach2, grid = geometry.neighbours, geometry.reach2, self.grid
        for t, w in self.tower_water.items():
            if not w:
                continue
            for n in neighbours[t]:
                if n in cells:
                    out[n] = out.get(n, 0) + w
            for c, path in reach2[t]:
                if c in cells:
                    for b in path:
                        if grid[b] != EMPTY:
                            out[c] = out.get(c, 0) + w
                            break
        return out

    def watered_frontier(self, frontier: bytes | bytearray) -> bytes:
        """One byte per cell, 1 for each cell of ``frontier`` (the frontier_mask: empty cells only) in range of a
        tower holding water (FOG-WATER-4): where a card costing one water may be built (FOG-ACT-BUILD-4).

        Speed: ``water_by_cell`` walks every tower's 12 cells in Python (several µs on a late farm); here each
        watered tower's reach (``_reach_bits``) is OR-ed as an int of one byte per cell and cut to the frontier
        by one AND. tests/fields_of_green/env/test_engine_speed.py compares it with
        ``water_by_cell`` on the farms of random games."""
        reach = 0
        for t, w in self.tower_water.items():
            if w:
                reach |= self._reach_bits(t)  # (the tower's own byte is off the frontier)
        return (reach & int.from_bytes(frontier, "little")).to_bytes(self.geometry.cells, "little")

    def towers_with_room(self) -> list[int]:
        """Tower cells with room for a water token, in cell order (FOG-STORE-5)."""
        capacity = self.tower_capacity
        out = []
        for t, w in sorted(self.tower_water.items()):  # (a loop: no closure per call)
            if w < capacity[t]:
                out.append(t)
        return out

    @property
    def water(self) -> int:
        total = 0
        for w in self.tower_water.values():  # (compiled, a typed loop is cheaper than the builtin sum)
            total += w
        return total

    @property
    def food_capacity(self) -> int:
        total = 0
        for c in self.silo_capacity.values():  # (as water: the bots' projections ask it at every harvest)
            total += c
        return total

    def gain_food(self, amount: int) -> int:
        """Store food up to capacity; the rest is lost (FOG-STORE-7/8). Returns the amount lost."""
        room = self.food_capacity - self.food
        stored = min(room, amount)
        self.food += stored
        return amount - stored

    # ---- counting

    def face_up_locations(self) -> int:
        """Tie-break count: face-up cards including towers and silos (FOG-RUL-22)."""
        return len(self.occupied) - len(self.fallow)
