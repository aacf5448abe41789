"""Scoring A–G, the definitions behind it and the winner (SV-DEF-*, SV-SCORE-*, SV-WIN-*, SV-VAR-*,
SV-RULING-6, SV-RULING-7, SV-RULING-11, SV-RULING-12, SV-RULING-14), on small explicit sheets of layout A (spec:
sunflower_valley.md)."""

from __future__ import annotations

import pytest

from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.hexgrid import parse_hex
from farmgames.envs.sunflower_valley.scoring import (
    Score,
    analyse,
    express_points,
    majority_points,
    place_points,
    winners,
)
from farmgames.envs.sunflower_valley.sheets import LAYOUTS

from .helpers import EXAMPLE_13, one_sheet, picture, score0

A = LAYOUTS["A"]


def hexes(mask: int) -> set[str]:
    from farmgames.envs.sunflower_valley.hexgrid import bits, hex_name

    return {hex_name(h) for h in bits(mask)}


# ---------------------------------------------------------------- section 13 worked example, part by part


class TestWorkedExample13:
    """§13: layout A, start pad C (the Well, C1)."""

    def sheet(self, **changes):
        cells = {**EXAMPLE_13, **changes}
        return {k: v for k, v in cells.items() if v}

    def test_settlements_chains_and_clusters(self):
        """SV-DEF-2, SV-DEF-6, SV-DEF-7: settlements {C1} {C4} {C6} {E5}; chains C2–C3 (2), C5 (1), D6–E6 (2); one
        cluster."""
        g = one_sheet(self.sheet())
        assert g.pads[0] == "C"
        info = analyse(g.sheets[0], A.mountains)
        assert sorted(hexes(m).pop() for m in info.settlements) == ["C1", "C4", "C6", "E5"]
        lengths = sorted(len(h) for h, a, b in info.chains)
        assert lengths == [1, 2, 2]
        assert len(info.networks) == 1 and len(info.networks[0]) == 4

    def test_pairs_A_and_B(self):
        """Flocks {A1, B1}, {D5}; 3 sheep eligible for all 4 houses: A = 9, B = -5 (SV-SCORE-A1, SV-SCORE-A2,
        SV-SCORE-A3, SV-SCORE-A4, SV-SCORE-A5, SV-SCORE-A6, B1)."""
        s = score0(self.sheet())
        assert (s.houses_with_sheep, s.houses_without_sheep, s.pairs) == (9, -5, 3)

    def test_children_variant_pairs(self):
        """SV-VAR-1: B1–C1 and D5–C6/E5 only: A = 6, B = -10."""
        s = score0(self.sheet(), children=True)
        assert (s.houses_with_sheep, s.houses_without_sheep) == (6, -10)

    def test_mountains_D(self):
        """A3 sees A4, D4 sees E4, E3 sees E4, B5 and D1 see none: D = 3 (SV-SCORE-D1)."""
        assert score0(self.sheet()).mountains == 3

    def test_valley_express_F(self):
        """One railway through the 1-hex stretch C5: 4 counted settlements -> 16 (SV-RULING-14)."""
        assert score0(self.sheet()).valley_express == 16

    def test_valley_express_without_C5(self):
        """Without C5 two isolated railways of 2 counted settlements: 4 + 4 = 8 (SV-SCORE-F4)."""
        info = analyse(one_sheet(self.sheet(C5=None)).sheets[0], A.mountains)
        assert sorted(info.network_points) == [4, 4]
        assert score0(self.sheet(C5=None)).valley_express == 8

    def test_inhabitants_and_purple(self):
        """Inhabitants 2 + 3×2 + 1 = 9; purple region holds 2 sunflowers."""
        g = one_sheet(self.sheet())
        assert g.inhabitants[0] == 9 and g.scores()[0].inhabitant_count == 9
        purple = A.region_mask[2]
        assert (analyse(g.sheets[0], A.mountains).sunflower_mask & purple).bit_count() == 2

    def test_opponent_independent_total(self):
        """A + B + D + F = 9 - 5 + 3 + 16 = 23."""
        s = score0(self.sheet())
        assert s.houses_with_sheep + s.houses_without_sheep + s.mountains + s.valley_express == 23


# ---------------------------------------------------------------- definitions


def test_settlement_of_adjacent_houses():
    """SV-DEF-1, SV-DEF-2: adjacent houses form one settlement; a lone house is a settlement of one."""
    info = analyse(one_sheet({"C1": "H", "C2": "H", "C4": "H"}).sheets[0], A.mountains)
    assert sorted(len(hexes(m)) for m in info.settlements) == [1, 2]


def test_flock_of_adjacent_sheep():
    """SV-DEF-3, SV-DEF-4: adjacent sheep form a flock; a lone sheep is a flock of one."""
    info = analyse(one_sheet({"C1": "H", "A1": "Sh", "B1": "Sh", "E6": "Sh"}).sheets[0], A.mountains)
    assert sorted(len(hexes(m)) for m in info.flocks) == [1, 2]


def test_rail_must_face_back_to_join():
    """SV-DEF-5: C2 (S0, E–W) faces C3, but C3 drawn S1 (NE–SW) does not face back: no chain C1–C4."""
    info = analyse(one_sheet({"C1": "H", "C2": "S0", "C3": "S1", "C4": "H"}).sheets[0], A.mountains)
    assert info.edges == []
    joined = analyse(one_sheet({"C1": "H", "C2": "S0", "C3": "S0", "C4": "H"}).sheets[0], A.mountains)
    assert [n for _, _, n in joined.edges] == [2]


def test_rail_ends_at_sheep_sunflower_mountain_edge():
    """SV-DEF-5, SV-RULING-11: sheep, sunflowers, mountains, empty hexes and the edge never join a rail."""
    for blocker in ("Sh", "Sf"):
        info = analyse(one_sheet({"C1": "H", "C2": "S0", "C3": blocker, "C4": "H"}).sheets[0], A.mountains)
        assert info.edges == []
    # B4 (r) S0 points W into B3 (empty) and E into B5 (mountain): a chain with two free ends
    info = analyse(one_sheet({"C1": "H", "B4": "S0"}).sheets[0], A.mountains)
    assert info.chains == [((parse_hex("B4"),), None, None)]
    info = analyse(one_sheet({"C1": "H", "A6": "S0"}).sheets[0], A.mountains)  # E side is the sheet edge
    assert info.chains[0][1:] == (None, None)


def test_chain_length_and_station_houses():
    """SV-DEF-6, SV-RULING-11: a house accepts rails on any side; the chain length counts rail hexes."""
    # C6 house, D6 C2 (NW–SW) and E6 C1 (NE–W) to E5 house: chain of 2
    info = analyse(one_sheet({"C1": "H", "C6": "H", "D6": "C2", "E6": "C1", "E5": "H"}).sheets[0], A.mountains)
    assert [len(h) for h, _, _ in info.chains] == [2]
    assert [n for _, _, n in info.edges] == [2]


def ring_rails(centre: str) -> dict[str, str]:
    """Curved rails on the six hexes around ``centre``, each joined to its two ring neighbours (a closed loop)."""
    from farmgames.envs.sunflower_valley.actions import RAIL_SIDES, SYMBOL_CODES
    from farmgames.envs.sunflower_valley.hexgrid import NEIGHBOUR, hex_name

    ring = list(NEIGHBOUR[parse_hex(centre)])
    out = {}
    for i, h in enumerate(ring):
        prev, nxt = ring[i - 1], ring[(i + 1) % 6]
        sides = {s for s in range(6) if NEIGHBOUR[h][s] in (prev, nxt)}
        code = next(c for c, pair in RAIL_SIDES.items() if set(pair) == sides)
        out[hex_name(h)] = SYMBOL_CODES[code]
    return out


def test_rail_loop_has_no_end():
    """SV-DEF-6, SV-RULING-14.1: a closed loop of six curved rails around C3 is one chain without ends and
    links nothing, even with a house beside it."""
    ring = ring_rails("C3")
    assert set(ring) == {"C4", "B3", "B2", "C2", "D2", "D3"} and all(v[0] == "C" for v in ring.values())
    info = analyse(one_sheet({"C1": "H", **ring}).sheets[0], A.mountains)
    assert len(info.chains) == 1 and len(info.chains[0][0]) == 6 and info.chains[0][1:] == (None, None)
    assert info.edges == [] and info.express == 0


def test_sheep_transport_over_one_hex_stretch():
    """SV-DEF-7, SV-RULING-11, SV-SCORE-A4: a 1-hex chain C2 links C1 and C3 for sheep; the sheep B3 and D3
    next to C3 ride to C1."""
    base = {"C1": "H", "C3": "H", "B3": "Sh", "D3": "Sh"}
    assert score0(base).pairs == 1
    s = score0({**base, "C2": "S0"})
    assert (s.pairs, s.houses_with_sheep, s.houses_without_sheep) == (2, 6, 0)


def test_transport_is_transitive_through_settlements():
    """SV-DEF-7, SV-SCORE-A4, SV-SCORE-A6: C1 -C2- {C3, C4} -C5- C6; the flock D5, D6, E6, E5 touches only C6 but its
    four sheep reach all four houses through two stretches and a settlement: 4 pairs; without C2, C1 is cut
    off: 3 pairs."""
    cells = {
        "C1": "H",
        "C2": "S0",
        "C3": "H",
        "C4": "H",
        "C5": "S0",
        "C6": "H",
        "D5": "Sh",
        "D6": "Sh",
        "E6": "Sh",
        "E5": "Sh",
    }
    s = score0(cells)
    assert (s.pairs, s.houses_without_sheep) == (4, 0)
    assert score0({**cells, "C2": "Sf"}).pairs == 3


def test_counted_needs_two_hex_stretch():
    """SV-DEF-8, SV-SCORE-F2: settlements joined only by 1-hex stretches are not counted: F = 0."""
    s = score0({"C1": "H", "C2": "S0", "C3": "H"})
    assert s.valley_express == 0


def test_network_is_physically_connected_railway():
    """SV-DEF-9, SV-RULING-14: X =2= Y -1- Z =2= W is one network with 4 counted settlements (16, not 8)."""
    assert score0(EXAMPLE_13).valley_express == 16


# ---------------------------------------------------------------- A / B


def test_pair_by_adjacency():
    """SV-SCORE-A1, SV-SCORE-A3: a sheep next to a house is a pair worth 3."""
    s = score0({"C1": "H", "B1": "Sh"})
    assert (s.pairs, s.houses_with_sheep, s.houses_without_sheep) == (1, 3, 0)


def test_each_sheep_and_house_in_one_pair():
    """SV-SCORE-A2: one sheep serves one house; two sheep for one house make one pair."""
    s = score0({"C1": "H", "C2": "H", "B1": "Sh"})  # B1 touches both houses
    assert (s.pairs, s.houses_without_sheep) == (1, -5)
    s = score0({"C1": "H", "B1": "Sh", "B2": "Sh"})
    assert s.pairs == 1


def test_flock_shares_eligibility():
    """SV-SCORE-A5: B2 touches no house, but its flock mate B1 touches C1 and A1: both sheep pair."""
    cells = {"C1": "H", "A1": "H", "B1": "Sh", "B2": "Sh"}
    assert score0(cells).pairs == 2
    assert score0(cells, children=True).pairs == 1  # SV-VAR-1: adjacency only


def test_settlement_shares_eligibility():
    """SV-SCORE-A6: sheep next to C3 of the settlement C1–C2–C3 pair with its other houses too; each house
    needs its own sheep."""
    cells = {"C1": "H", "C2": "H", "C3": "H", "B3": "Sh", "D3": "Sh"}
    s = score0(cells)
    assert (s.pairs, s.houses_without_sheep) == (2, -5)
    s = score0(cells, children=True)
    assert (s.pairs, s.houses_without_sheep) == (1, -10)


def test_maximum_matching():
    """SV-SCORE-A7, SV-RULING-12: pairs form a maximum matching. Children's variant: A2 touches only A1,
    B1 touches A1 and C1 -> 2 pairs (a greedy B1–A1 would leave A2 alone)."""
    s = score0({"C1": "H", "A1": "H", "A2": "Sh", "B1": "Sh"}, children=True)
    assert s.pairs == 2
    # eligibility sets on a real sheet: flock sheep eligible for every house of the reached clusters
    s = score0({"C1": "H", "A1": "H", "A2": "Sh", "B1": "Sh"})
    assert s.pairs == 2


def test_unpaired_houses_lose_five():
    """SV-SCORE-B1: -5 per house not in a pair."""
    s = score0({"C1": "H", "C4": "H", "E5": "H"})
    assert (s.houses, s.houses_without_sheep, s.houses_with_sheep) == (3, -15, 0)


# ---------------------------------------------------------------- C


def two_sheets(cells0, cells1, num_players=2, **kw):
    from farmgames.envs.sunflower_valley.scenario import scenario

    sheets = {0: picture("A", **cells0), 1: picture("A", **cells1)}
    return scenario(num_players, letter="A", sheets=sheets, **kw)


def test_majority_strictly_more():
    """SV-SCORE-C1: 3 per region where I have more sunflowers than every rival (purple: 2 vs 1)."""
    g = two_sheets({"C1": "H", "A4": "Sf", "B3": "Sf"}, {"C6": "H", "C4": "Sf"})
    assert [s.most_sunflowers for s in g.scores()] == [3, 0]


def test_majority_tie_scores_nothing():
    """SV-SCORE-C2: tied best count in a region: nobody scores it."""
    g = two_sheets({"C1": "H", "A4": "Sf"}, {"C6": "H", "C4": "SS"})
    assert [s.most_sunflowers for s in g.scores()] == [0, 0]


def test_majority_needs_a_sunflower():
    """SV-SCORE-C3: 0 vs 0 scores nothing; the only player with sunflowers in a region scores it."""
    assert majority_points([0, 0, 0], A.region_mask) == [0, 0, 0]
    g = two_sheets({"C1": "H", "A4": "Sf", "C2": "Sf"}, {"C6": "H"})
    assert [s.most_sunflowers for s in g.scores()] == [6, 0]  # purple and blue


def test_super_sunflower_counts_as_sunflower():
    """SV-SYM-4: a super sunflower wins a region and feeds a mountain like an ordinary one."""
    g = two_sheets({"C1": "H", "A4": "SS"}, {"C6": "H", "C4": "Sf"})
    assert [s.most_sunflowers for s in g.scores()] == [0, 0]
    assert score0({"C1": "H", "A4": "SS"}).mountains == score0({"C1": "H", "A4": "Sf"}).mountains == 1


# ---------------------------------------------------------------- D


def test_mountain_counts_adjacent_sunflowers():
    """SV-SCORE-D1: each mountain scores its adjacent sunflowers (A3 touches A2, A4, B2, B3 -> 4; a sunflower
    touching no mountain scores nothing)."""
    s = score0({"C1": "H", "A2": "Sf", "A4": "Sf", "B2": "SS", "B3": "Sf"})
    assert s.mountains == 4
    assert score0({"C1": "H", "C3": "Sf"}).mountains == 0


def test_sunflower_between_two_mountains_counts_twice():
    """SV-SCORE-D2: E4 touches mountains D4 and E3: it counts for both."""
    assert score0({"C1": "H", "E4": "Sf"}).mountains == 2


# ---------------------------------------------------------------- E


def test_inhabitant_places():
    """SV-SCORE-E1, SV-RULING-7: 5 for the most, 3 for the second; examples of the ruling."""
    assert place_points([(9, 4, 2), (9, 3, 5), (7, 3, 1)]) == [5, 3, 0]
    assert place_points([(9, 4, 2), (9, 4, 2), (7, 1, 1)]) == [0, 0, 0]


def test_inhabitant_tie_chain():
    """SV-SCORE-E2, SV-SCORE-E3: ties broken by houses, then sunflowers; still tied -> nobody gets that place."""
    assert place_points([(9, 3, 1), (9, 3, 2), (5, 0, 0)]) == [3, 5, 0]
    assert place_points([(9, 3, 1), (9, 4, 0), (5, 0, 0)]) == [3, 5, 0]
    assert place_points([(9, 3, 1), (8, 2, 2), (8, 2, 2)]) == [5, 0, 0]  # tied second place: nobody
    g = two_sheets({"C1": "H", "C4": "H"}, {"C6": "H", "A4": "SS", "A1": "SS"}, inhabitants={0: 4, 1: 4})
    assert [s.inhabitants for s in g.scores()] == [5, 3]  # 4 = 4, houses 2 > 1


# ---------------------------------------------------------------- F


def test_three_counted_settlements_score_nine():
    """SV-SCORE-F1, SV-SCORE-F5 (the seed's example): three settlements joined by 2-hex stretches score 9:
    C1 =C2 C3= C4 =B4 A5= A6."""
    cells = {"C1": "H", "C2": "S0", "C3": "S0", "C4": "H", "B4": "S1", "A5": "C4", "A6": "H"}
    info = analyse(one_sheet(cells).sheets[0], A.mountains)
    assert len(info.networks) == 1 and [len(c) for c in info.counted] == [3]
    assert score0(cells).valley_express == 9


def test_settlement_counted_once():
    """SV-SCORE-F3, SV-SCORE-F7: the settlement {C4, B4} counts once: C1 =C2 C3= {C4, B4} has 2 counted settlements
    (4 points), not 3 houses (9)."""
    cells = {"C1": "H", "C2": "S0", "C3": "S0", "C4": "H", "B4": "H"}
    s = score0(cells)
    assert s.houses == 3 and s.valley_express == 4


def test_each_isolated_railway_scored_alone():
    """SV-SCORE-F4: two separate railways of 2 counted settlements each: 4 + 4."""
    cells = {"C1": "H", "C2": "S0", "C3": "S0", "C4": "H", "C6": "H", "D6": "C2", "E6": "C1", "E5": "H"}
    info = analyse(one_sheet(cells).sheets[0], A.mountains)
    assert sorted(info.network_points) == [4, 4]


def test_express_table():
    """SV-SCORE-F6, SV-RULING-6, SV-BOARD-2: 0–1 -> 0, 2 -> 4, 3 -> 9, 4 -> 16, 5 -> 25, 6+ -> 36; the seed's
    entry 3 -> 9 is kept (SV-GEN-1: a seed fact wins over a ruling)."""
    assert [express_points(n) for n in range(9)] == [0, 0, 4, 9, 16, 25, 36, 36, 36]


def test_total_is_sum_of_parts():
    """SV-SCORE-G1: G = A + B + C + D + E + F."""
    g = one_sheet(EXAMPLE_13)
    for s in g.scores():
        d = s.as_dict()
        assert d["total"] == sum(d[k] for k in d if k[:2] in {"A_", "B_", "C_", "D_", "E_", "F_"}) == s.total


# ---------------------------------------------------------------- winner


def _score(total, houses=0, sunflowers=0, inhabitants=0):
    return Score(total, 0, 0, 0, 0, 0, 0, houses, sunflowers, inhabitants)


def test_highest_total_wins():
    """SV-WIN-1."""
    assert winners([_score(10), _score(12), _score(3)]) == [1]


def test_total_tie_break_chain():
    """SV-WIN-2: houses, then sunflowers, then inhabitants."""
    assert winners([_score(10, 3), _score(10, 4)]) == [1]
    assert winners([_score(10, 4, 2), _score(10, 4, 5)]) == [1]
    assert winners([_score(10, 4, 5, 9), _score(10, 4, 5, 8)]) == [0]


def test_shared_win():
    """SV-WIN-3: still tied after the chain -> all of them win (returns +1 each)."""
    assert winners([_score(10, 4, 5, 9), _score(10, 4, 5, 9), _score(1)]) == [0, 1]


def test_children_variant_keyword():
    """SV-VAR-2: the children's variant is a flag, off by default; it changes only pairing."""
    assert Game(2, 0).children is False and Game(2, 0, children=True).children is True
    with pytest.raises(ValueError, match="children"):
        Game(2, 0, children="yes")
    a, b = score0(EXAMPLE_13), score0(EXAMPLE_13, children=True)
    assert (a.mountains, a.valley_express) == (b.mountains, b.valley_express)
    assert a.pairs != b.pairs
