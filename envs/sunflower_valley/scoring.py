"""Final scoring A–G (SV-SCORE-*, SV-RULING-6/7/11/12/14) and the winner's tie-breaks (SV-WIN-*).

A sheet is the engine's list of 30 symbol codes (``EMPTY``, ``MOUNTAIN_CELL`` or a symbol of
:mod:`.actions`). :func:`analyse` finds settlements, flocks, rail chains, rail networks and the maximum
house–sheep matching of one sheet; :func:`score_all` adds the parts that compare players (C and E).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import HOUSE, IS_RAIL, RAIL_SIDES, SHEEP, SUNFLOWER, SUPER
from .hexgrid import EDGE, N_HEX, NEIGHBOUR, NEIGHBOUR_MASK, bits, components

EMPTY = -1  # nothing drawn yet (SV-GEN-3)
MOUNTAIN_CELL = -2  # a mountain hex: never drawn in (SV-SHEET-3)

PAIR_POINTS = 3  # SV-SCORE-A1
UNPAIRED_POINTS = -5  # SV-SCORE-B1
MAJORITY_POINTS = 3  # SV-SCORE-C1
PLACE_POINTS = (5, 3)  # SV-SCORE-E1: first and second most inhabitants
EXPRESS_TABLE = (0, 0, 4, 9, 16, 25, 36)  # SV-RULING-6: counted settlements 0..6+ -> points


def express_points(counted: int) -> int:
    """Valley Express points for one network with ``counted`` counted settlements (SV-RULING-6)."""
    return EXPRESS_TABLE[min(counted, len(EXPRESS_TABLE) - 1)]


def symbol_mask(sheet: list[int], *symbols: int) -> int:
    return sum(1 << h for h in range(N_HEX) if sheet[h] in symbols)


@dataclass
class SheetAnalysis:
    """Everything scoring reads off one sheet (hex sets as bit masks or hex lists)."""

    settlements: list[int]  # bit masks (SV-DEF-2)
    flocks: list[int]  # bit masks (SV-DEF-4)
    chains: list[tuple[tuple[int, ...], int | None, int | None]]  # (rail hexes, end house, end house) SV-DEF-6
    edges: list[tuple[int, int, int]]  # (settlement X, settlement Y, chain length), X != Y (SV-RULING-14.1)
    networks: list[list[int]]  # settlement indices per rail network/cluster (SV-DEF-7/9)
    counted: list[list[int]]  # counted settlements per network (SV-DEF-8)
    pairs: list[tuple[int, int]]  # (sheep hex, house hex) of a maximum matching (SV-RULING-12)
    houses: int
    sheep: int
    sunflowers: int
    super_sunflowers: int
    sunflower_mask: int
    mountain_points: int  # D
    express: int  # F
    network_points: list[int] = field(default_factory=list)


def rail_chains(sheet: list[int]) -> list[tuple[tuple[int, ...], int | None, int | None]]:
    """Every maximal rail chain (SV-DEF-5/6): (its rail hexes in order, house at one end or None, house at the
    other end or None). A closed loop of rails has no ends (None, None)."""
    seen = [False] * N_HEX
    out = []
    for start in range(N_HEX):
        if seen[start] or sheet[start] < 0 or not IS_RAIL[sheet[start]]:
            continue
        seen[start] = True
        halves: list[list[int]] = []
        ends: list[int | None] = []
        for side in RAIL_SIDES[sheet[start]]:
            walk: list[int] = []
            cur, s, end = start, side, None
            while True:
                n = NEIGHBOUR[cur][s]
                if n == EDGE:
                    break
                t = sheet[n]
                if t == HOUSE:
                    end = n
                    break
                back = (s + 3) % 6
                if t < 0 or not IS_RAIL[t] or back not in RAIL_SIDES[t] or seen[n]:
                    break  # SV-DEF-5: anything else ends the rail (a loop stops where it started)
                seen[n] = True
                walk.append(n)
                a, b = RAIL_SIDES[t]
                cur, s = n, (b if a == back else a)
            halves.append(walk)
            ends.append(end)
        hexes = tuple(reversed(halves[0])) + (start,) + tuple(halves[1])
        out.append((hexes, ends[0], ends[1]))
    return out


def _matching(eligible: list[list[int]]) -> list[int]:
    """Maximum bipartite matching (augmenting paths): ``eligible[i]`` = house indices sheep i may pair with;
    returns match[house] = sheep index or -1."""
    n_houses = 1 + max((h for row in eligible for h in row), default=-1)
    match = [-1] * n_houses

    def augment(i: int, visited: list[bool]) -> bool:
        for j in eligible[i]:
            if not visited[j]:
                visited[j] = True
                if match[j] < 0 or augment(match[j], visited):
                    match[j] = i
                    return True
        return False

    for i in range(len(eligible)):
        augment(i, [False] * n_houses)
    return match


def analyse(sheet: list[int], mountains: tuple[int, ...], children: bool = False) -> SheetAnalysis:
    """Settlements, flocks, rails, networks and pairs of one sheet, and the sheet-only points D and F."""
    house_mask = symbol_mask(sheet, HOUSE)
    sheep_mask = symbol_mask(sheet, SHEEP)
    sun_mask = symbol_mask(sheet, SUNFLOWER, SUPER)
    settlements = components(house_mask)
    settle_of = {}
    for i, m in enumerate(settlements):
        for h in bits(m):
            settle_of[h] = i
    chains = rail_chains(sheet)
    parent = list(range(len(settlements)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    edges = []
    for hexes, a, b in chains:
        if a is not None and b is not None and settle_of[a] != settle_of[b]:
            x, y = settle_of[a], settle_of[b]
            edges.append((x, y, len(hexes)))
            parent[find(x)] = find(y)
    groups: dict[int, list[int]] = {}
    for i in range(len(settlements)):
        groups.setdefault(find(i), []).append(i)
    networks = list(groups.values())
    long_ends = {x for x, y, n in edges if n >= 2} | {y for x, y, n in edges if n >= 2}
    counted = [[i for i in net if i in long_ends] for net in networks]
    network_points = [express_points(len(c)) for c in counted]

    flocks = components(sheep_mask)
    houses = bits(house_mask)
    house_index = {h: j for j, h in enumerate(houses)}
    sheep_hexes: list[int] = []
    eligible: list[list[int]] = []
    for flock in flocks:
        near = 0
        for s in bits(flock):
            near |= NEIGHBOUR_MASK[s]
        clusters = {find(settle_of[h]) for h in bits(near & house_mask)}
        cluster_houses = [house_index[h] for h in houses if find(settle_of[h]) in clusters]
        for s in bits(flock):
            sheep_hexes.append(s)
            if children:  # SV-VAR-1: adjacency only
                eligible.append([house_index[h] for h in bits(NEIGHBOUR_MASK[s] & house_mask)])
            else:  # SV-RULING-12.2
                eligible.append(cluster_houses)
    match = _matching(eligible)
    pairs = sorted((sheep_hexes[i], houses[j]) for j, i in enumerate(match) if i >= 0)
    d_points = sum((NEIGHBOUR_MASK[m] & sun_mask).bit_count() for m in mountains)
    return SheetAnalysis(
        settlements=settlements,
        flocks=flocks,
        chains=chains,
        edges=edges,
        networks=networks,
        counted=counted,
        pairs=pairs,
        houses=len(houses),
        sheep=sheep_mask.bit_count(),
        sunflowers=sun_mask.bit_count(),
        super_sunflowers=symbol_mask(sheet, SUPER).bit_count(),
        sunflower_mask=sun_mask,
        mountain_points=d_points,
        express=sum(network_points),
        network_points=network_points,
    )


@dataclass(frozen=True)
class Score:
    """One player's score: the six categories A–F (SV-SCORE-*), G = their sum, and the tie-break counts."""

    houses_with_sheep: int  # A: 3 per pair
    houses_without_sheep: int  # B: -5 per unpaired house
    most_sunflowers: int  # C: 3 per colour region won outright
    mountains: int  # D: sunflowers next to each mountain
    inhabitants: int  # E: 5 / 3 for the first / second place
    valley_express: int  # F: table points per rail network
    pairs: int
    houses: int  # tie-break 1 (SV-WIN-2)
    sunflowers: int  # tie-break 2
    inhabitant_count: int  # tie-break 3

    @property
    def total(self) -> int:
        """G (SV-SCORE-G1)."""
        return (
            self.houses_with_sheep
            + self.houses_without_sheep
            + self.most_sunflowers
            + self.mountains
            + self.inhabitants
            + self.valley_express
        )

    @property
    def key(self) -> tuple[int, int, int, int]:
        """SV-WIN-1/2: total, then houses, sunflowers, inhabitants (larger is better)."""
        return (self.total, self.houses, self.sunflowers, self.inhabitant_count)

    def as_dict(self) -> dict[str, int]:
        return {
            "A_houses_with_sheep": self.houses_with_sheep,
            "B_houses_without_sheep": self.houses_without_sheep,
            "C_most_sunflowers": self.most_sunflowers,
            "D_mountains": self.mountains,
            "E_inhabitants": self.inhabitants,
            "F_valley_express": self.valley_express,
            "pairs": self.pairs,
            "houses": self.houses,
            "sunflowers": self.sunflowers,
            "inhabitant_count": self.inhabitant_count,
            "total": self.total,
        }


def majority_points(sun_masks: list[int], region_masks: tuple[int, ...]) -> list[int]:
    """C for every player: 3 per region where the player has strictly more sunflowers than each rival
    (SV-SCORE-C1..C3)."""
    out = [0] * len(sun_masks)
    for region in region_masks:
        counts = [(m & region).bit_count() for m in sun_masks]
        best = max(counts)
        if best > 0 and counts.count(best) == 1:
            out[counts.index(best)] += MAJORITY_POINTS
    return out


def place_points(keys: list[tuple[int, ...]]) -> list[int]:
    """E for every player from (inhabitants, houses, sunflowers) keys (SV-RULING-7)."""
    out = [0] * len(keys)
    order = sorted(set(keys), reverse=True)
    place = 0
    for key in order:
        group = [p for p, k in enumerate(keys) if k == key]
        if len(group) == 1 and place < len(PLACE_POINTS):
            out[group[0]] = PLACE_POINTS[place]
        place += len(group)
    return out


def score_all(sheets: list[list[int]], inhabitants: list[int], layout, children: bool = False) -> list[Score]:
    """Every player's Score for these sheets (final when the game is over, "so far" before)."""
    facts = [analyse(s, layout.mountains, children) for s in sheets]
    c = majority_points([f.sunflower_mask for f in facts], layout.region_mask)
    e = place_points([(inh, f.houses, f.sunflowers) for inh, f in zip(inhabitants, facts, strict=True)])
    return [
        Score(
            houses_with_sheep=PAIR_POINTS * len(f.pairs),
            houses_without_sheep=UNPAIRED_POINTS * (f.houses - len(f.pairs)),
            most_sunflowers=c[p],
            mountains=f.mountain_points,
            inhabitants=e[p],
            valley_express=f.express,
            pairs=len(f.pairs),
            houses=f.houses,
            sunflowers=f.sunflowers,
            inhabitant_count=inhabitants[p],
        )
        for p, f in enumerate(facts)
    ]


def winners(scores: list[Score]) -> list[int]:
    """Seats with the best key (SV-WIN-1..3: still tied after the tie-breaks = shared win)."""
    best = max(s.key for s in scores)
    return [p for p, s in enumerate(scores) if s.key == best]
