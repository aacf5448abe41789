"""Random legal play with invariants checked after every action (2-4 players, every variant knob).

Each decision is also checked against small independent re-implementations of the rules it depends
on (water range by path search, the action table of FOG-ACT-*, the draw splits of FOG-RUL-14, the
equipment fit of FOG-EQUIP-4..10), so the fuzzer finds wrong legal sets, not only crashes.

The fast suite plays a few hundred games; ``-m slow`` plays thousands.
"""

from __future__ import annotations

import random
from collections import Counter, deque

import numpy as np
import pytest

from farmgames.envs.fields_of_green import SPLITS, Game, IllegalActionError
from farmgames.envs.fields_of_green.farm import EMPTY, SILO, TOWER, Farm

PARTS = ("printed_vp", "equipment", "coins", "food", "empty_towers", "end_game")
DIRECTIONS = ("clockwise", "counterclockwise")


# ---------------------------------------------------------------- independent rule oracles


def water_distance_ok(farm: Farm, tower: int, target: int) -> bool:
    """FOG-WATER-2/3: a path of length <= 2 whose inner cells hold cards."""
    g = farm.geometry
    dist = {tower: 0}
    todo = deque([tower])
    while todo:
        c = todo.popleft()
        if dist[c] == 2:
            continue
        for n in g.neighbours[c]:
            if n == target:
                return True
            if n not in dist and farm.grid[n] != EMPTY:
                dist[n] = dist[c] + 1
                todo.append(n)
    return False


def towers_in_range(farm: Farm, target: int) -> list[int]:
    size = farm.geometry.size
    r, c = divmod(target, size)
    near = [t for t, w in farm.tower_water.items() if w > 0 and abs(t // size - r) + abs(t % size - c) <= 2]
    return sorted(t for t in near if water_distance_ok(farm, t, target))


def frontier(farm: Farm) -> list[int]:
    """Empty cells orthogonally adjacent to a card (FOG-FARM-3)."""
    grid, near = farm.grid, farm.geometry.neighbours
    return sorted({n for c, code in enumerate(grid) if code != EMPTY for n in near[c] if grid[n] == EMPTY})


def expected_act(game: Game, p: int) -> set[tuple[str, int]]:
    """FOG-ACT-BUILD-7, FOG-ACT-TOWER-5, FOG-ACT-SILO-5, FOG-ACT-MARKET-4, FOG-ACT-RESTORE-3."""
    farm = game.farms[p]
    card = game.cards.locations[game.picks[p]]
    out: set[tuple[str, int]] = set()
    free = frontier(farm)
    for c in free:
        water = sum(farm.tower_water[t] for t in towers_in_range(farm, c))
        if farm.coins >= card.coin_cost and farm.food >= card.food_cost and water >= card.water_cost:
            out.add(("build", c))
        if game.towers_left > 0 and farm.coins >= 2:
            out.add(("tower", c))
        if game.silos_left > 0:
            out.add(("silo", c))
    out |= {("market", k) for k in range(min(2, farm.food) + 1)}
    if farm.coins >= 1:
        out |= {("restore", c) for c in farm.fallow}
    return out


def expected_splits(game: Game) -> set[int]:
    sizes = [len(p) for p in game.piles]
    total, need = min(6, sum(sizes)), min(3, sum(1 for s in sizes if s))
    return {
        i
        for i, s in enumerate(SPLITS)
        if sum(s) == total and all(c <= z for c, z in zip(s, sizes)) and sum(1 for c in s if c) >= need
    }


def tile_fits(game: Game, farm: Farm, tile_id: int, cell: int) -> bool:
    tile = game.cards.equipment[tile_id]
    code = farm.grid[cell]
    if code == EMPTY or cell in farm.fallow:
        return False
    if code == TOWER:
        ok = tile.host_type == "WaterTower"
    elif code == SILO:
        ok = tile.host_type == "Silo"
    else:
        card = game.cards.locations[code]
        ok = card.pile == tile.host_type and tile.keyword in (None, card.subtype, card.ability_kind)
    here = [game.cards.equipment[t].name for t in farm.equipment.get(cell, [])]
    return ok and len(here) < 2 and tile.name not in here


def harvest_cost(game: Game, farm: Farm, cell: int) -> tuple[int, int, int]:
    cost = game.cards.locations[farm.grid[cell]].harvest_cost
    c, w, f = cost.coins, cost.water, cost.food
    for t in farm.equipment.get(cell, []):
        tile = game.cards.equipment[t]
        if tile.timing == "permanent":
            for op in tile.effect:
                d = op.get("harvest_discount", {})
                c, w, f = c - d.get("coins", 0), w - d.get("water", 0), f - d.get("food", 0)
    return max(c, 0), max(w, 0), max(f, 0)


def check_decision(game: Game, full_piles: bool = True) -> None:
    """The legal set of the pending decision against the oracles."""
    legal = game.legal_actions()
    assert legal, "a pending decision always has a legal action (FOG-ACT-13)"
    mask = game.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.layout.size,)
    assert np.flatnonzero(mask).tolist() == legal == sorted(set(legal))
    decoded = {game.layout.decode(a) for a in legal}
    kind, p = game.decision_kind, game.current_player
    farm = game.farms[p]
    if kind == "act":
        assert decoded == expected_act(game, p)
    elif kind == "split":
        assert {arg for _, arg in decoded} == expected_splits(game)
    elif kind == "pay_water":
        target = game.decision[2]
        assert decoded == {("pay_water", t) for t in towers_in_range(farm, target)}  # FOG-WATER-1
        assert sum(farm.tower_water[t] for t in towers_in_range(farm, target)) >= game.decision[3]
    elif kind == "store_water":
        rooms = {t for t, w in farm.tower_water.items() if w < farm.tower_capacity[t]}
        assert decoded == {("store_water", t) for t in rooms} and len(rooms) > 1
    elif kind == "place_equipment":
        tile = game.decision[2]
        cells = {c for c in farm.occupied if tile_fits(game, farm, tile, c)}
        assert decoded == {("place_equipment", c) for c in cells} | {("set_aside", 0)}
    elif kind == "harvest":
        payable = set()
        for c in farm.occupied:
            code = farm.grid[c]
            if code < 0 or c in farm.fallow or c in game.harvested:
                continue
            if game.cards.locations[code].ability_kind != "harvest":
                continue
            coins, water, food = harvest_cost(game, farm, c)
            in_range = sum(farm.tower_water[t] for t in towers_in_range(farm, c))
            if farm.coins >= coins and farm.food >= food and in_range >= water:
                payable.add(("harvest", c))
        assert decoded == payable | {("harvest_end", 0)}  # FOG-HARVEST-15: nothing else
    elif kind == "pick":
        source = game.display if game.two_player else game.hands[p]
        assert decoded == {("pick", i) for i in range(len(source))}
        assert source, "an empty hand or display is skipped (FOG-RUL-14)"
        if not game.two_player and full_piles:
            assert len(source) == 7 - game.turn  # FOG-ACT-8


# ---------------------------------------------------------------- state invariants


def connected(farm: Farm) -> bool:
    seen = {farm.occupied[0]}
    todo = deque(seen)
    while todo:
        for n in farm.geometry.neighbours[todo.popleft()]:
            if farm.grid[n] != EMPTY and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(farm.occupied)


def check_state(game: Game, start_first: int, full_piles: bool = True) -> None:
    cards = game.cards
    n_cards, n_tiles = len(cards.locations), len(cards.equipment)
    located: list[int] = [c for pile in game.piles for c in pile]
    located += [c for h in game.hands for c in h] + [c for c in game.picks if c is not None]
    located += game.offer + game.display + game.discard
    placed_tiles: list[int] = []
    towers = silos = 0
    for p, farm in enumerate(game.farms):
        assert farm.coins >= 0 and farm.food >= 0 and farm.vp_tokens >= 0, p
        assert farm.food <= farm.food_capacity  # FOG-STORE-4/10
        assert sorted(farm.occupied) == [c for c in range(len(farm.grid)) if farm.grid[c] != EMPTY]
        assert len(farm.occupied) == len(set(farm.occupied))
        assert sorted(farm.frontier) == frontier(farm)
        assert connected(farm)  # FOG-FARM-3
        for t, w in farm.tower_water.items():
            assert farm.grid[t] == TOWER and 0 <= w <= farm.tower_capacity[t]  # FOG-STORE-2
        assert set(farm.tower_capacity) == set(farm.tower_water)
        assert all(farm.grid[s] == SILO for s in farm.silo_capacity)
        assert sum(1 for c in farm.grid if c == TOWER) == len(farm.tower_water)
        assert sum(1 for c in farm.grid if c == SILO) == len(farm.silo_capacity)
        towers += len(farm.tower_water)
        silos += len(farm.silo_capacity)
        assert all(farm.grid[c] >= 0 for c in farm.fallow)  # only location cards go fallow
        located += [c for c in farm.grid if c >= 0]
        for c, tiles in farm.equipment.items():
            assert tiles and c not in farm.fallow and farm.grid[c] != EMPTY  # FOG-EQUIP-13
            names = [cards.equipment[t].name for t in tiles]
            assert len(tiles) <= 2 and len(set(names)) == len(names)  # FOG-EQUIP-10
            placed_tiles += tiles
        placed_tiles += farm.set_aside
        # FOG-ACT-1/ACT-7/2P-9: six actions per player per year
        done = {"upkeep": game.year - 1, "draw": game.year - 1, "harvest": game.year, "end": 4}
        if game.phase == "action" or not full_piles:  # short piles: fewer cards, fewer actions
            assert farm.actions_taken <= 6 * game.year
        else:
            assert farm.actions_taken == 6 * done[game.phase], (game.phase, game.year, farm.actions_taken)
    counts = Counter(located)
    assert len(located) == n_cards and set(counts) == set(range(n_cards))  # every card exactly once
    assert towers + game.towers_left == cards.tower_count and game.towers_left >= 0
    assert silos + game.silos_left == cards.silo_count and game.silos_left >= 0
    tiles = game.equipment_stack + placed_tiles + game.removed_equipment + game.pending_equipment()
    assert sorted(tiles) == list(range(n_tiles))  # every tile exactly once
    assert 1 <= game.year <= 4
    if game.phase in ("upkeep", "draw", "action"):
        assert game.first_player == (start_first + game.year - 1) % game.num_players  # FOG-HARVEST-12
    if game.two_player and game.phase == "action" and game.decision_kind == "pick":
        assert len(game.display) + len(game.offer) <= 12


def check_final(game: Game) -> None:
    assert game.is_terminal() and game.legal_actions() == [] and game.current_player is None
    scores = game.scores()
    for farm, s in zip(game.farms, scores):
        assert s.total == sum(getattr(s, part) for part in PARTS)  # FOG-END-2
        printed = farm.vp_tokens + sum(
            game.cards.locations[farm.grid[c]].vp for c in farm.occupied if farm.grid[c] >= 0 and c not in farm.fallow
        )
        assert s.printed_vp == printed
        assert (s.coins, s.food, s.coins_held) == (farm.coins // 3, farm.food // 2, farm.coins)
        assert s.empty_towers == sum(1 for w in farm.tower_water.values() if w == 0)
        assert s.equipment >= len(farm.set_aside)
        assert s.locations == len(farm.occupied) - len(farm.fallow)
    best = max((s.total, s.locations, s.coins_held) for s in scores)
    assert game.winners() == [i for i, s in enumerate(scores) if (s.total, s.locations, s.coins_held) == best]
    win = set(game.winners())
    assert game.returns() == [1.0 if i in win else -1.0 for i in range(game.num_players)]


def random_variant(rng: random.Random) -> dict:
    variant: dict = {"farm_size": rng.choice([5, 9, 9, 11])}
    if rng.random() < 0.25:
        variant["fixed_split"] = {
            y: rng.choice([(2, 2, 1, 1), (3, 1, 1, 1), (1, 1, 2, 2), (0, 2, 2, 2)]) for y in range(1, 5)
        }
    if rng.random() < 0.3:
        variant["pass_directions"] = [rng.choice(DIRECTIONS) for _ in range(4)]
    if rng.random() < 0.25:
        variant["auto_single"] = True
    return variant


def play_checked(seed: int, num_players: int | None = None, reject_every: int = 40, card_set=None) -> Game:
    rng = random.Random(seed)
    n = num_players or rng.choice([2, 3, 4])
    full = card_set is None
    game = Game(num_players=n, seed=seed, card_set=card_set, **random_variant(rng))
    start_first = game.first_player
    steps = 0
    while not game.is_terminal():
        check_decision(game, full)
        legal = game.legal_actions()
        if steps % reject_every == 0:  # FOG-RUL-16: an unlisted action changes nothing
            bad = rng.choice([a for a in range(game.layout.size) if a not in set(legal)])
            before = game.to_json()
            with pytest.raises(IllegalActionError):
                game.apply(bad)
            assert game.to_json() == before
        frame, p = game.decision, game.current_player
        water_before = dict(game.farms[p].tower_water)
        action = rng.choice(legal)
        game.apply(action)
        if frame[0] == "pay_water" and game.decision == frame[:3] + (frame[3] - 1,):
            tower = game.layout.decode(action)[1]  # the unit came from the chosen tower only
            expected = {**water_before, tower: water_before[tower] - 1}
            assert game.farms[p].tower_water == expected
        check_state(game, start_first, full)
        steps += 1
    check_final(game)
    return game


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("chunk", range(8))
def test_random_games_keep_every_invariant(chunk):
    """Random legal play (2-4 players, farm sizes 5/9/11, fixed splits, pass directions, auto_single):
    every decision's legal set matches the rule oracles and every state keeps the invariants
    (FOG-STORE-*, FOG-FARM-3, FOG-EQUIP-10/13, FOG-ACT-1/8, FOG-END-2)."""
    for seed in range(chunk * 1000, chunk * 1000 + 20):
        play_checked(seed)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_player_count_is_fuzzed(n):
    """Every player count gets its own random games on the default variant too."""
    for seed in range(10):
        game = play_checked(10_000 + seed, num_players=n)
        assert game.num_players == n


SCARCE = {  # a tiny set: piles, towers, silos and the Equipment stack run out (FOG-RUL-14, -19, -30)
    "Field": [
        {
            "name": "Wheat",
            "subtype": "cereal",
            "copies": 4,
            "cost": {"coins": 1},
            "vp": 1,
            "ability": {"kind": "harvest", "cost": {"water": 1}, "effect": [{"gain": {"food": 2}}]},
        },
        {
            "name": "Paddy",
            "subtype": "vegetable",
            "copies": 2,
            "cost": {"coins": 1, "water": 2},
            "vp": 2,
            "ability": {"kind": "harvest", "cost": {}, "effect": [{"gain_equipment": 1}]},
        },
    ],
    "Livestock": [
        {
            "name": "Cows",
            "subtype": "dairy",
            "copies": 4,
            "cost": {"coins": 1, "food": 1},
            "vp": 2,
            "ability": {
                "kind": "harvest",
                "cost": {"food": 1, "coins": 1},
                "effect": [{"gain": {"vp": 1, "water": 2}}],
            },
        },
    ],
    "Construction": [
        {
            "name": "Toolshed",
            "copies": 4,
            "cost": {"coins": 1},
            "ability": {"kind": "immediate", "effect": [{"gain_equipment": 2}]},
        },
        {
            "name": "Depot",
            "copies": 2,
            "cost": {"coins": 1},
            "ability": {
                "kind": "immediate",
                "effect": [
                    {"raise_capacity": {"target": "silo", "by": 1}},
                    {"trade": {"pay": {"coins": 1}, "gain": {"food": 2}, "max_times": 2}},
                ],
            },
        },
    ],
    "Building": [
        {
            "name": "Manor",
            "copies": 3,
            "cost": {"coins": 2},
            "vp": 3,
            "ability": {"kind": "end_game", "effect": [{"gain": {"vp": 1}, "per": {"adjacent": {"type": "Field"}}}]},
        },
    ],
}
SCARCE_TILES = [
    {
        "name": "Hose",
        "copies": 2,
        "host": "Field",
        "keyword": "harvest",
        "timing": "permanent",
        "effect": [{"harvest_discount": {"water": 1}}],
    },
    {
        "name": "Scarecrow",
        "host": "Field",
        "keyword": "harvest",
        "timing": "harvest",
        "effect": [{"gain": {"food": 1}}],
    },
    {
        "name": "Valve",
        "host": "WaterTower",
        "timing": "permanent",
        "effect": [{"raise_capacity": {"target": "host", "by": 1}}],
    },
    {"name": "Bin", "host": "Silo", "timing": "on_place", "effect": [{"gain": {"food": 1}}]},
    {"name": "Vane", "host": "Building", "timing": "end_game", "effect": [{"gain": {"vp": 2}}]},
]


@pytest.fixture(scope="module")
def scarce_set(tmp_path_factory) -> str:
    from farmgames.envs.fields_of_green.scenario import write_card_set

    path = write_card_set(
        tmp_path_factory.mktemp("scarce"),
        locations=SCARCE,
        equipment=SCARCE_TILES,
        pile_size=9,
        towers={"count": 7, "capacity": 3, "start_water": 3},
        silos={"count": 6, "capacity": 4},
        name="scarce",
    )
    return str(path)


def test_random_games_with_exhausted_piles(scarce_set):
    """Tiny card set: main piles, tower and silo piles and the Equipment stack run out; short draws,
    skipped turns and empty equipment draws keep every invariant (FOG-RUL-14, -19, -30)."""
    for seed in range(40):
        play_checked(20_000 + seed, card_set=scarce_set)


@pytest.mark.slow
def test_thousands_of_random_games():
    """The long fuzz: 3000 random games with all invariants."""
    for seed in range(100_000, 103_000):
        play_checked(seed, reject_every=200)
