"""An independent re-implementation of the sheet scoring (SV-DEF-1..9, SV-SCORE-A1..A7, B1, D1, D2, F1..F7,
SV-RULING-12, SV-RULING-14) with networkx graphs, checked against the engine on many played sheets."""

from __future__ import annotations

import random

import pytest

from farmgames.envs.core.bots import RandomBot, play_game
from farmgames.envs.sunflower_valley.actions import HOUSE, IS_RAIL, RAIL_SIDES, SHEEP, SUNFLOWER, SUPER
from farmgames.envs.sunflower_valley.bots import HeuristicBot
from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.hexgrid import NEIGHBOUR, NEIGHBOURS
from farmgames.envs.sunflower_valley.scoring import analyse, express_points

nx = pytest.importorskip("networkx")


def reference(sheet: list[int], mountains, children: bool) -> tuple[int, int, int, int]:
    """(pairs, houses, D, F) by graph construction: rail hexes joined to each other or to houses (SV-DEF-5)."""
    houses = [h for h in range(30) if sheet[h] == HOUSE]
    sheep = [h for h in range(30) if sheet[h] == SHEEP]
    rails = [h for h in range(30) if sheet[h] >= 0 and IS_RAIL[sheet[h]]]
    town = nx.Graph()
    town.add_nodes_from(houses)
    town.add_edges_from((a, b) for a in houses for b in NEIGHBOURS[a] if b in houses)
    settlement = {h: i for i, comp in enumerate(nx.connected_components(town)) for h in comp}
    track = nx.Graph()
    track.add_nodes_from(rails)
    station: dict[int, set[int]] = {r: set() for r in rails}
    for r in rails:
        for side in RAIL_SIDES[sheet[r]]:
            n = NEIGHBOUR[r][side]
            if n < 0:
                continue
            if sheet[n] == HOUSE:
                station[r].add(n)
            elif sheet[n] >= 0 and IS_RAIL[sheet[n]] and (side + 3) % 6 in RAIL_SIDES[sheet[n]]:
                track.add_edge(r, n)
    links = nx.Graph()
    links.add_nodes_from(set(settlement.values()))
    long_ends = set()
    for chain in nx.connected_components(track):
        ends = [settlement[h] for r in chain for h in station[r]]
        if len(ends) == 2 and ends[0] != ends[1]:
            links.add_edge(ends[0], ends[1])
            if len(chain) >= 2:
                long_ends.update(ends)
    cluster = {s: i for i, comp in enumerate(nx.connected_components(links)) for s in comp}
    flock_graph = nx.Graph()
    flock_graph.add_nodes_from(sheep)
    flock_graph.add_edges_from((a, b) for a in sheep for b in NEIGHBOURS[a] if b in sheep)
    pairs = nx.Graph()
    pairs.add_nodes_from(("s", x) for x in sheep)
    pairs.add_nodes_from(("h", x) for x in houses)
    for flock in nx.connected_components(flock_graph):
        reached = {cluster[settlement[h]] for s in flock for h in NEIGHBOURS[s] if h in settlement}
        for s in flock:
            for h in houses:
                ok = h in NEIGHBOURS[s] if children else cluster[settlement[h]] in reached
                if ok:
                    pairs.add_edge(("s", s), ("h", h))
    matching = nx.bipartite.maximum_matching(pairs, top_nodes=[("s", x) for x in sheep]) if sheep else {}
    n_pairs = len(matching) // 2
    sun = {h for h in range(30) if sheet[h] in (SUNFLOWER, SUPER)}
    d = sum(len(sun & set(NEIGHBOURS[m])) for m in mountains)
    f = 0
    for comp in nx.connected_components(links):
        f += express_points(len(comp & long_ends))
    return n_pairs, len(houses), d, f


def sheets(count: int):
    rng = random.Random(0)
    for seed in range(count):
        n = 2 + seed % 4
        bots = [HeuristicBot(seed + q) if q % 2 == 0 else RandomBot(seed + q) for q in range(n)]
        game = play_game(bots, Game(n, seed, children=seed % 5 == 0))
        for sheet in game.sheets:
            yield sheet, game.sheet_map.mountains, game.children
        # and a few half-filled sheets
        partial = Game(n, seed + 1000)
        for _ in range(rng.randrange(5, 60)):
            if not partial.is_terminal():
                partial.apply(rng.choice(partial.legal_actions()))
        for sheet in partial.sheets:
            yield sheet, partial.sheet_map.mountains, seed % 3 == 0


def synthetic(count: int):
    """Random sheets heavy in houses, sheep and rails (many chains, loops, networks)."""
    from farmgames.envs.sunflower_valley.sheets import LAYOUTS

    rng = random.Random(1)
    symbols = [HOUSE] * 3 + [SHEEP] * 2 + [SUNFLOWER, SUPER, -1] + list(range(4, 13)) * 2
    for i in range(count):
        layout = LAYOUTS["ABCDEF"[i % 6]]
        sheet = [-2 if c < 0 else rng.choice(symbols) for c in layout.colour]
        yield sheet, layout.mountains, i % 4 == 0


def test_engine_scoring_matches_a_graph_reference():
    checked = 0
    for sheet, mountains, children in [*sheets(60), *synthetic(600)]:
        info = analyse(sheet, mountains, children)
        want = reference(sheet, mountains, children)
        assert (len(info.pairs), info.houses, info.mountain_points, info.express) == want, sheet
        checked += 1
    assert checked > 900
