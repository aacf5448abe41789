"""The heuristic bot's projected sheet score, computed on bit masks and one symbol at a time.

``bots.projected`` runs :func:`~.scoring.analyse` (settlements, flocks, rail chains, networks, the
house-sheep matching) on every candidate sheet, and that was ~90% of the bot's time. A candidate is the
decision's sheet with one symbol added, which changes one settlement (a house joins the settlements it
touches), one flock (a sheep) or one rail chain (a rail joins the chains whose ends face it). So
:class:`SheetContext` analyses the decision's sheet once and :meth:`SheetContext.value_with` values a
candidate from it: the changed settlement, flock or chain is merged, and the rest (networks, matching,
hopes) is recomputed on bit masks with precomputed neighbour shifts.

The value is bit for bit ``bots.projected``: the same integer parts, the hopes summed in the same order
(house and sheep hopes are whole numbers, the rail hopes follow in the order of ``scoring.rail_chains``,
which finds a chain at its lowest hex), and the same greedy augmenting-path matching on the same
sheep order and house order (the paired houses and sheep feed the hopes, so not only the matching's
size must agree). tests/speed/test_bot_fast_paths_kh_sv.py compares it with ``bots.projected`` and
``scoring.analyse`` on random sheets and the sheets of played games, both variants (SV-VAR-1).
"""

from __future__ import annotations

from .actions import HOUSE, IS_RAIL, RAIL_SIDES, SHEEP, SUNFLOWER, SUPER
from .hexgrid import COLS, EDGE, N_HEX, NEIGHBOUR, NEIGHBOUR_MASK
from .scoring import EMPTY, EXPRESS_TABLE, PAIR_POINTS, UNPAIRED_POINTS

__all__ = ["SheetContext", "dilate"]

HOPE_HOUSE, HOPE_SHEEP, HOPE_RAIL, HOPE_LOOSE_RAIL = 4.0, 2.0, 3.0, 0.3  # bots.py's weights (checked there)

_ALL = (1 << N_HEX) - 1
_EVEN_ROWS = sum(1 << h for h in range(N_HEX) if (h // COLS) % 2 == 0)
_ODD_ROWS = _ALL & ~_EVEN_ROWS
_NOT_FIRST = sum(1 << h for h in range(N_HEX) if h % COLS)
_NOT_LAST = sum(1 << h for h in range(N_HEX) if h % COLS != COLS - 1)
_EXPRESS_MAX = len(EXPRESS_TABLE) - 1


def dilate(m: int) -> int:
    """Every hex adjacent to a hex of ``m`` (the odd-r offsets of SV-RULING-1 as shifts)."""
    e, o = m & _EVEN_ROWS, m & _ODD_ROWS
    r = ((m & _NOT_LAST) << 1) | ((m & _NOT_FIRST) >> 1) | (m >> 6) | (m << 6)
    r |= ((e & _NOT_FIRST) >> 7) | ((e & _NOT_FIRST) << 5) | ((o & _NOT_LAST) >> 5) | ((o & _NOT_LAST) << 7)
    return r & _ALL


if any(dilate(1 << h) != NEIGHBOUR_MASK[h] for h in range(N_HEX)):  # pragma: no cover
    raise AssertionError("projection.dilate does not match hexgrid.NEIGHBOUR_MASK")


def _components(mask: int) -> tuple[int, ...]:
    """``hexgrid.components`` (in order of the lowest hex) by dilation."""
    out = []
    while mask:
        comp = mask & -mask
        while True:
            grown = (comp | dilate(comp)) & mask
            if grown == comp:
                break
            comp = grown
        out.append(comp)
        mask ^= comp
    return tuple(out)


def _join(parts: tuple[int, ...], bit: int) -> tuple[int, ...]:
    """The components after ``bit`` is added: it joins every part it touches (order: lowest hex)."""
    near = NEIGHBOUR_MASK[bit.bit_length() - 1]
    merged = bit
    out = []
    for c in parts:
        if c & near:
            merged |= c
        else:
            out.append(c)
    out.append(merged)
    out.sort(key=lambda c: c & -c)
    return tuple(out)


# A chain is (hexes mask, length, lowest hex, faced hex at one end, faced hex at the other end): the hex the
# end rail's open side faces (EDGE past the sheet). The chain's end house (SV-DEF-6) is that hex when it is
# a house; it is an open end when that hex is empty. A closed loop faces its own rails at both ends.
Chain = tuple[int, int, int, int, int]


def _chains(sheet: list[int]) -> tuple[Chain, ...]:
    """``scoring.rail_chains`` (same chains, same order) with faced hexes instead of end houses."""
    seen = 0
    out = []
    for start in range(N_HEX):
        v = sheet[start]
        if seen >> start & 1 or v < 0 or not IS_RAIL[v]:
            continue
        seen |= 1 << start
        mask, length, faced = 1 << start, 1, []
        for side in RAIL_SIDES[v]:
            cur, s = start, side
            while True:
                n = NEIGHBOUR[cur][s]
                if n == EDGE:
                    break
                t = sheet[n]
                back = (s + 3) % 6
                if t < 0 or not IS_RAIL[t] or back not in RAIL_SIDES[t] or seen >> n & 1:
                    break
                seen |= 1 << n
                mask |= 1 << n
                length += 1
                a, b = RAIL_SIDES[t]
                cur, s = n, (b if a == back else a)
            faced.append(n)
        out.append((mask, length, start, faced[0], faced[1]))
    return tuple(out)


def _add_rail(chains: tuple[Chain, ...], sheet: list[int], h: int, symbol: int) -> tuple[tuple[Chain, ...], Chain]:
    """The chains after rail ``symbol`` is drawn in empty hex ``h``: it joins the chains whose end rails face
    it back (those ends faced ``h``); a chain joined at both ends becomes a closed loop."""
    joined: list[int] = []  # indices of the chains joined, one per connected side
    outer: list[int] = []  # the faced hex of each unconnected side
    for side in RAIL_SIDES[symbol]:
        n = NEIGHBOUR[h][side]
        t = sheet[n] if n != EDGE else EMPTY
        if n != EDGE and t >= 0 and IS_RAIL[t] and (side + 3) % 6 in RAIL_SIDES[t]:
            for i, c in enumerate(chains):
                if c[0] >> n & 1:
                    joined.append(i)
                    break
        else:
            outer.append(n)
    bit = 1 << h
    if not joined:
        new: Chain = (bit, 1, h, outer[0], outer[1])
    elif len(joined) == 1 or joined[0] != joined[1]:
        mask, length, low, ends = bit, 1, h, list(outer)
        for i in joined:
            m, n_, lo, fa, fb = chains[i]
            mask |= m
            length += n_
            low = min(low, lo)
            ends.append(fb if fa == h else fa)  # the end that faced h now continues into the new rail
        new = (mask, length, low, ends[0], ends[1])
    else:  # both sides join the same chain: a closed loop (its ends face its own rails)
        m, n_, lo, _, _ = chains[joined[0]]
        new = (m | bit, n_ + 1, min(lo, h), h, h)
    out = [c for i, c in enumerate(chains) if i not in joined]
    out.append(new)
    out.sort(key=lambda c: c[2])
    return tuple(out), new


_SEARCHES: dict[tuple[int, int, int], tuple[int | None, int]] = {}


def _search(starts: int, targets: int, empty: int) -> tuple[int | None, int]:
    """(``bots._distance``, the hexes searched): steps through empty hexes from ``starts`` to a hex of
    ``targets``, and every hex of the layers searched. Memoised (bounded dict): candidates that put a symbol
    in the same hex share the empty hexes, and most share a chain's ends and targets."""
    key = (starts, targets, empty)
    out = _SEARCHES.get(key)
    if out is None:
        if len(_SEARCHES) >= 1 << 13:
            _SEARCHES.clear()
        out = _SEARCHES[key] = _search_plain(starts, targets, empty)
    return out


def _search_plain(starts: int, targets: int, empty: int) -> tuple[int | None, int]:
    frontier = seen = starts
    d = 0
    while frontier:
        if frontier & targets:
            return d, seen
        frontier = dilate(frontier) & empty & ~seen
        seen |= frontier
        d += 1
    return None, seen


def _settlement(settlements: tuple[int, ...], x: int) -> int:
    """Index of the settlement holding house hex ``x``."""
    for i, m in enumerate(settlements):
        if m >> x & 1:
            return i
    raise ValueError(f"hex {x} is not a house")  # pragma: no cover


def _networks(houses: int, settlements: tuple[int, ...], chains: tuple[Chain, ...]) -> tuple[list[int], int]:
    """(network root of every settlement, F): settlements joined by chains with a house at each end
    (SV-DEF-7/9, SV-RULING-14); F counts per network the settlements at an end of such a chain of >= 2 rails
    (SV-DEF-8, SV-RULING-6)."""
    k = len(settlements)
    parent = list(range(k))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    long_ends = 0
    for _, length, _, fa, fb in chains:
        if fa >= 0 and fb >= 0 and houses >> fa & 1 and houses >> fb & 1:
            x, y = _settlement(settlements, fa), _settlement(settlements, fb)
            if x != y:
                if length >= 2:
                    long_ends |= 1 << x | 1 << y
                parent[find(x)] = find(y)
    root = [find(i) for i in range(k)]
    express = 0
    if long_ends:
        counted: dict[int, int] = {}
        for i in range(k):
            if long_ends >> i & 1:
                counted[root[i]] = counted.get(root[i], 0) + 1
        express = sum(EXPRESS_TABLE[min(c, _EXPRESS_MAX)] for c in counted.values())
    return root, express


def _matching(
    houses: int, settlements: tuple[int, ...], flocks: tuple[int, ...], root: list[int], children: bool
) -> tuple[int, int, int]:
    """(pairs, paired houses, paired sheep) of ``scoring._matching`` on ``scoring.analyse``'s lists: sheep in
    flock order, each with its eligible houses ascending (SV-RULING-12; SV-VAR-1 adjacency only).

    The same augmenting-path search, on masks: a sheep's eligible houses are a mask, the houses visited in
    one search a mask, and "the next eligible house not visited yet" its lowest bit above the last one
    tried, which is the order in which ``scoring._matching`` walks its list."""
    order: list[int] = []
    rows: list[int] = []
    if children:
        for flock in flocks:
            m = flock
            while m:
                low = m & -m
                s = low.bit_length() - 1
                order.append(s)
                rows.append(NEIGHBOUR_MASK[s] & houses)
                m ^= low
    else:
        clusters: dict[int, int] = {}  # network root -> its houses
        for i, m in enumerate(settlements):
            clusters[root[i]] = clusters.get(root[i], 0) | m
        for flock in flocks:
            near = dilate(flock) & houses
            if not near:
                continue  # sheep with no eligible house: searching from them changes nothing
            row = 0
            for m in clusters.values():
                if m & near:
                    row |= m
            m = flock
            while m:
                low = m & -m
                order.append(low.bit_length() - 1)
                rows.append(row)
                m ^= low
    match: dict[int, int] = {}  # house hex -> index in order
    visited = 0

    def augment(i: int) -> bool:
        nonlocal visited
        row = rows[i]
        cand = row & ~visited
        while cand:
            low = cand & -cand
            visited |= low
            j = low.bit_length() - 1
            owner = match.get(j)
            if owner is None or augment(owner):
                match[j] = i
                return True
            cand = row & ~visited & ~((low << 1) - 1)  # the next eligible houses after j, not visited
        return False

    for i in range(len(order)):
        if rows[i]:
            visited = 0
            augment(i)
    paired_houses = paired_sheep = 0
    for j, i in match.items():
        paired_houses |= 1 << j
        paired_sheep |= 1 << order[i]
    return len(match), paired_houses, paired_sheep


def _chain_term(houses: int, empty: int, settlements: tuple[int, ...], chain: Chain) -> tuple[float | None, int]:
    """(what ``chain`` adds to the hope of ``bots.projected``, or None; the hexes that decide it).

    The hexes that decide it are its open ends and, for a chain from a settlement, every hex the distance
    search reached: a symbol drawn in any other empty hex (no house: the settlements stay) leaves it as it
    is, so a candidate's hope can take the sheet's own term for every chain it does not touch."""
    _, length, _, fa, fb = chain
    a = fa >= 0 and houses >> fa & 1
    b = fb >= 0 and houses >> fb & 1
    if a and b:
        return None, 0
    ends = (1 << fa if fa >= 0 and empty >> fa & 1 else 0) | (1 << fb if fb >= 0 and empty >> fb & 1 else 0)
    if not ends:
        return None, 0  # no empty hex can open an end
    if not a and not b:
        return HOPE_LOOSE_RAIL, ends
    home = settlements[_settlement(settlements, fa if a else fb)]
    d, seen = _search(ends, dilate(houses & ~home) & empty, empty)
    return (HOPE_RAIL * (2.0 if length >= 2 else 1.0) / (1 + d) if d is not None else None), seen


def _bits(m: int) -> tuple[int, ...]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return tuple(out)


class SheetContext:
    """One sheet analysed once, for its own projection and those of the sheets one symbol away."""

    __slots__ = (
        "sheet",
        "mountains",
        "children",
        "houses",
        "sheep",
        "empty",
        "suns",
        "d_points",
        "settlements",
        "flocks",
        "chains",
        "root",
        "express",
        "matching",
        "memo",
        "terms",
        "touching",
        "_base",
    )

    def __init__(self, sheet: list[int] | tuple[int, ...], mountains: tuple[int, ...], children: bool):
        self.sheet = list(sheet)
        self.mountains = mountains
        self.children = children
        houses = sheep = empty = suns = 0
        for h, v in enumerate(self.sheet):
            if v == EMPTY:
                empty |= 1 << h
            elif v == HOUSE:
                houses |= 1 << h
            elif v == SHEEP:
                sheep |= 1 << h
            elif v == SUNFLOWER or v == SUPER:
                suns |= 1 << h
        self.houses, self.sheep, self.empty, self.suns = houses, sheep, empty, suns
        self.d_points = sum((NEIGHBOUR_MASK[m] & suns).bit_count() for m in mountains)  # D (SV-SCORE-D)
        self.settlements = _components(houses)
        self.flocks = _components(sheep)
        self.chains = _chains(self.sheet)
        self.root, self.express = _networks(houses, self.settlements, self.chains)
        self.matching = _matching(houses, self.settlements, self.flocks, self.root, children)
        self.touching = dilate(empty)  # hexes touching an empty hex
        self.memo: dict[float, dict[int, float]] = {}  # the caller's store of answers (per turn share t)
        self.terms: dict[Chain, tuple[float | None, int]] | None = None
        self._base: dict[float, float] = {}

    def value(self, t: float) -> float:
        """``bots.projected`` of the sheet itself."""
        return _total(
            self.houses,
            self.sheep,
            self.empty,
            self.d_points + self.express,
            self.matching,
            self.settlements,
            self.chains,
            t,
            self.touching,
        )

    def _terms(self) -> dict[Chain, tuple[float | None, int]]:
        """The rail terms of the sheet's own chains (``_chain_term``), computed once."""
        if self.terms is None:
            self.terms = {c: _chain_term(self.houses, self.empty, self.settlements, c) for c in self.chains}
        return self.terms

    def base_value(self, t: float) -> float:
        """``value(t)``, kept."""
        v = self._base.get(t)
        if v is None:
            v = self._base[t] = self.value(t)
        return v

    def unpaired_houses(self) -> int:
        """Mask of the houses without a sheep in the maximum matching of ``scoring.analyse``."""
        return self.houses & ~self.matching[1]

    def _parts(self, symbol: int, h: int) -> tuple:
        """The parts of the sheet with ``symbol`` drawn in empty hex ``h``: (houses, sheep, suns, D,
        settlements, flocks, chains, network roots, F, matching). The networks, F and the matching are the
        sheet's own unless the symbol can change them: a house or a sheep next to a flock's eligible
        houses, a rail completing a link between two settlements."""
        bit = 1 << h
        houses, sheep, suns, d_points = self.houses, self.sheep, self.suns, self.d_points
        settlements, flocks, chains = self.settlements, self.flocks, self.chains
        root, express, matching = self.root, self.express, self.matching
        children = self.children
        if symbol == HOUSE:
            houses |= bit
            settlements = _join(settlements, bit)
            root, express = _networks(houses, settlements, chains)
            if children:
                if NEIGHBOUR_MASK[h] & sheep:
                    matching = _matching(houses, settlements, flocks, root, children)
            else:
                i = _settlement(settlements, h)
                cluster = 0
                for j, r in enumerate(root):
                    if r == root[i]:
                        cluster |= settlements[j]
                if dilate(cluster) & sheep:  # some flock may now reach h's cluster
                    matching = _matching(houses, settlements, flocks, root, children)
        elif symbol == SHEEP:
            sheep |= bit
            flocks = _join(flocks, bit)
            if children:
                if NEIGHBOUR_MASK[h] & (houses | self.sheep):  # eligible, or the flock order changes
                    matching = _matching(houses, settlements, flocks, root, children)
            else:
                for merged in flocks:
                    if merged & bit:
                        if dilate(merged) & houses:
                            matching = _matching(houses, settlements, flocks, root, children)
                        break
        elif symbol == SUNFLOWER or symbol == SUPER:
            suns |= bit
            d_points = sum((NEIGHBOUR_MASK[m] & suns).bit_count() for m in self.mountains)
        else:
            chains, new = _add_rail(chains, self.sheet, h, symbol)
            fa, fb = new[3], new[4]
            if fa >= 0 and fb >= 0 and houses >> fa & 1 and houses >> fb & 1:  # a new link (SV-DEF-7)
                root, express = _networks(houses, settlements, chains)
                if not children:
                    matching = _matching(houses, settlements, flocks, root, children)
        return houses, sheep, suns, d_points, settlements, flocks, chains, root, express, matching

    def value_with(self, symbol: int, h: int, t: float) -> float:
        """``bots.projected`` of the sheet with ``symbol`` drawn in empty hex ``h``."""
        houses, sheep, _, d_points, settlements, _, chains, _, express, matching = self._parts(symbol, h)
        empty = self.empty & ~(1 << h)
        if t <= 0:
            return _total(houses, sheep, empty, d_points + express, matching, settlements, chains, t, 0)
        # the hexes touching an empty hex: only h's neighbours can lose that (h is no neighbour of itself)
        near = NEIGHBOUR_MASK[h]
        touching = self.touching & ~near
        for x in _bits(near & ~self.empty & ~self.suns):  # hope counts houses and sheep only
            if NEIGHBOUR_MASK[x] & empty:
                touching |= 1 << x
        terms = None if symbol == HOUSE else self._terms()  # a house changes the settlements (targets)
        return _total(houses, sheep, empty, d_points + express, matching, settlements, chains, t, touching, terms, h)

    def grown(self, symbol: int, h: int) -> SheetContext:
        """The context of the sheet with ``symbol`` drawn in empty hex ``h`` (what the next decision on that
        sheet needs), from this one's parts instead of a new analysis; equal to ``SheetContext(that sheet)``
        (tests/speed/test_bot_fast_paths_kh_sv.py)."""
        out = SheetContext.__new__(SheetContext)
        out.sheet = list(self.sheet)
        out.sheet[h] = symbol
        out.mountains, out.children = self.mountains, self.children
        parts = self._parts(symbol, h)
        out.houses, out.sheep, out.suns, out.d_points, out.settlements, out.flocks, out.chains = parts[:7]
        out.root, out.express, out.matching = parts[7:]
        out.empty = self.empty & ~(1 << h)
        out.touching = dilate(out.empty)
        out.memo, out._base, out.terms = {}, {}, None
        return out


def _total(
    houses: int,
    sheep: int,
    empty: int,
    d_and_f: int,
    matching: tuple[int, int, int],
    settlements: tuple[int, ...],
    chains: tuple[Chain, ...],
    t: float,
    touching: int,
    terms: dict[Chain, tuple[float | None, int]] | None = None,
    h: int = -1,
) -> float:
    """``bots.projected`` from the parts: A + B + D + F, then the hopes (house and sheep hopes are whole
    numbers, so their sum is exact in any order; the rail hopes follow in chain order). ``terms``: the rail
    terms of the sheet a symbol in hex ``h`` away (no house), taken where ``h`` cannot change them."""
    pairs, paired_houses, paired_sheep = matching
    value = PAIR_POINTS * pairs + UNPAIRED_POINTS * (houses.bit_count() - pairs) + d_and_f
    if t <= 0:
        return value
    hope = HOPE_HOUSE * (houses & ~paired_houses & touching).bit_count()
    hope += HOPE_SHEEP * (sheep & ~paired_sheep & touching).bit_count()
    for chain in chains:
        term = terms.get(chain) if terms is not None else None
        if term is None or term[1] >> h & 1:
            term = _chain_term(houses, empty, settlements, chain)
        if term[0] is not None:
            hope += term[0]
    return value + t * hope
