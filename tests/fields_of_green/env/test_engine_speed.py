"""The engine's speed tricks (docs/profiling.md, "The 3x target") against their plain paths, on random games:

* ``Game.public_version`` moves whenever a step changes public state outside the farms (the observer skips its
  public comparisons while it stands still: game._FARM_ONLY_DECISIONS / _FARM_ONLY_FRAMES), but for a 3-4
  player pick that changes only the picker's hand and pick, which moves ``Game.pick_version`` instead (the
  observer then compares only hand sizes and picks);
* ``ActionLayout.decoded`` equals ``decode``; the memoised draw splits equal ``_legal_splits``;
* ``Farm.water_in_range`` equals the plain sum over ``tower_in_range`` (FOG-WATER-4);
* ``_harvest_cells`` (one comprehension) equals the plain loop over the farm (FOG-HARVEST-2/3/6..8);
* the act legality (map/range lists, the total-water shortcut) equals the plain comprehension of the rules
  (FOG-ACT-BUILD-3..7, FOG-ACT-TOWER-5, FOG-ACT-SILO-5, FOG-ACT-MARKET-4, FOG-ACT-RESTORE-3), and
  ``Game.build_actions`` is its build block;
* ``apply``'s plain-int fast path refuses what the plain checks refuse (FOG-RUL-16);
* the card set's derived tables (pile ids, location info, harvest costs) equal the cards' own fields, and
  ``Game.harvest_cost``'s table path equals the plain ``harvest_cost`` (FOG-CARD-10, FOG-EQUIP-11);
* ``Farm.water_by_cell`` and ``Farm.towers_in_range`` equal the plain tests over ``tower_in_range``, the
  geometry's ``reach2`` lists ``between`` (FOG-WATER-4);
* a bare gain op gains what ``effects.gain_amounts`` resolves; ``_take_split``'s slices draw what one
  ``pop`` per card draws (FOG-DRAW-5/6), from full and short piles; ``_gain`` stores food as
  ``Farm.gain_food`` (FOG-STORE-7/8);
* ``effects.count`` over ``effects.match_codes`` equals ``effects.plain_count`` (one ``matches`` per cell).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.actions import MARKET_SALES
from farmgames.envs.fields_of_green.farm import EMPTY
from farmgames.envs.fields_of_green.game import (
    _FARM_ONLY_DECISIONS,
    _FARM_ONLY_FRAMES,
    RESTORE_COST,
    TOWER_COST,
    _legal_split_tuple,
    _legal_splits,
    harvest_cost,
)


def _public_state(game: Game) -> tuple:
    """Everything public outside the farms (and the harvest markers), as plain values."""
    return (
        [len(p) for p in game.piles],
        [list(h) for h in game.hands],
        list(game.picks),
        [list(d) for d in game.draw_counts],
        list(game.discard),
        list(game.display),
        len(game.offer),
        list(game.equipment_stack),
        game.towers_left,
        game.silos_left,
        game.first_player,
        (game.year, game.turn, game.phase, game.direction, game.revealed),
    )


FIXED = {y: (2, 2, 1, 1) for y in range(1, 5)}  # FOG-RUL-3: the draw_fixed frame instead of split decisions


def _games(players: int, count: int):
    for seed in range(count):
        variant = {"fixed_split": FIXED} if seed % 3 == 2 else {}
        game = Game(num_players=players, seed=seed, auto_single=seed % 2 == 1, **variant)
        rng = random.Random(seed)
        yield seed, game, rng


def _plain_draw(game: Game, split, seat: int) -> list[int]:
    """The rules' draw of ``split`` for ``seat``, one ``pop`` per card (FOG-DRAW-5/6): the cards drawn, in order."""
    drawn = []
    for pile_index, count in enumerate(split):
        for _ in range(count):
            drawn.append(game.piles[pile_index].pop())
        game.draw_counts[seat][pile_index] += count
    return drawn


@pytest.mark.parametrize("players", [2, 3, 4])
def test_game_version_moves_whenever_a_step_changes_public_state(players):
    moved = stood = picked = 0
    for seed, game, rng in _games(players, 6):
        while not game.is_terminal():
            version, picks, before = game.public_version, game.pick_version, _public_state(game)
            kind, seat = game.decision_kind, game.current_player
            game.apply(rng.choice(game.legal_actions()))
            after = _public_state(game)
            if game.public_version != version:
                moved += after != before
                continue
            where = f"seed {seed}, step {len(game.history)} ({kind})"
            if game.pick_version != picks:  # FOG-ACT-3: only the picker's hand and pick moved
                picked += 1
                assert players > 2 and kind == "pick", where
                assert after[1][seat] != before[1][seat] and after[2][seat] != before[2][seat], where
                for part in (1, 2):  # hands, picks: the other seats' are unchanged
                    after[part][seat] = before[part][seat]
                assert after == before, where
            else:
                stood += 1
                assert kind in _FARM_ONLY_DECISIONS, f"seed {seed}: a {kind} step left Game.public_version alone"
                assert after == before, where
    assert moved > 200 and stood > 10  # both branches were exercised
    assert (picked > 50) == (players > 2)  # the pick branch with 3-4 players, never with 2


def test_farm_only_kinds_are_real_frame_and_decision_names():
    from farmgames.envs.fields_of_green.game import _SEAT_FRAMES, DECISIONS

    assert _FARM_ONLY_DECISIONS <= DECISIONS
    assert _FARM_ONLY_FRAMES <= _SEAT_FRAMES  # a farm-only frame acts for a seat, so it bumps that farm


def test_decoded_equals_decode():
    for farm_size in (5, 9, 23):
        layout = Game(num_players=2, farm_size=farm_size).layout
        assert len(layout.decoded) == layout.size
        assert all(layout.decoded[i] == layout.decode(i) for i in range(layout.size))


def test_memoised_splits_equal_the_plain_filter():
    rng = random.Random(0)
    for _ in range(500):
        sizes = [rng.choice([0, 0, 1, 2, 3, 5, 6, 20]) for _ in range(4)]
        assert list(_legal_split_tuple(tuple(sizes))) == _legal_splits(sizes)
    # the constant for piles that all hold a full hand (the usual draw), and the sizes just below it
    for _ in range(200):
        sizes = [rng.choice([5, 6, 7, 12, 30]) for _ in range(4)]
        assert list(_legal_split_tuple(tuple(sizes))) == _legal_splits(sizes)
    assert len(_legal_split_tuple((6, 6, 6, 6))) > len(_legal_split_tuple((6, 6, 6, 1)))


def _plain_water_in_range(farm, cell: int) -> int:
    return sum(w for t, w in farm.tower_water.items() if w and farm.tower_in_range(t, cell))


def _plain_act_legal(game: Game, p: int) -> list[int]:
    """The act legality as the rules list it, one comprehension per action kind."""
    L, farm = game.layout, game.farms[p]
    cost = game.cards.locations[game.picks[p]].cost
    frontier = sorted(farm.frontier)
    out = []
    if farm.coins >= cost.coins and farm.food >= cost.food:
        out += [L.BUILD + c for c in frontier if _plain_water_in_range(farm, c) >= cost.water]
    if game.towers_left and farm.coins >= TOWER_COST:
        out += [L.TOWER + c for c in frontier]
    if game.silos_left:
        out += [L.SILO + c for c in frontier]
    out += [L.MARKET + k for k in range(min(MARKET_SALES - 1, farm.food) + 1)]
    if farm.coins >= RESTORE_COST:
        out += [L.RESTORE + c for c in sorted(farm.fallow)]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_water_in_range_and_act_legality_equal_the_plain_rules(players):
    acts = 0
    for _seed, game, rng in _games(players, 4):
        while not game.is_terminal():
            if len(game.history) % 7 == 0:
                for farm in game.farms:
                    for cell in range(game.geometry.cells):
                        assert farm.water_in_range(cell) == _plain_water_in_range(farm, cell)
            if game.decision_kind == "act":
                legal = game.legal_actions()
                assert legal == _plain_act_legal(game, game.current_player)
                # the builds alone (the heuristic bot's pick): the build block of the legal list, in its order
                assert game.build_actions() == [a for a in legal if game.layout.decoded[a][0] == "build"]
                acts += 1
            else:
                with pytest.raises(ValueError, match="build_actions needs an act decision"):
                    game.build_actions()
            game.apply(rng.choice(game.legal_actions()))
    assert acts > 50


def _plain_harvest_cells(game: Game, p: int, unused_only: bool, payable: bool) -> list[int]:
    farm, out = game.farms[p], []
    for cell in farm.occupied:
        code = farm.grid[cell]
        if code < 0 or cell in farm.fallow or game.cards.locations[code].ability_kind != "harvest":
            continue
        if unused_only and cell in game.harvested:
            continue
        if payable:
            coins, water, food = harvest_cost(farm, cell, game.cards.locations, game.cards.equipment)
            if farm.coins < coins or farm.food < food or (water and _plain_water_in_range(farm, cell) < water):
                continue
        out.append(cell)
    return sorted(out)


@pytest.mark.parametrize("players", [2, 4])
def test_harvest_cells_equal_the_plain_loop(players):
    found = 0
    for _seed, game, rng in _games(players, 4):
        while not game.is_terminal():
            p = game.current_player
            for unused_only, payable in ((False, False), (True, False), (True, True)):
                cells = game._harvest_cells(p, unused_only, payable)
                assert cells == _plain_harvest_cells(game, p, unused_only, payable)
                found += len(cells)
            game.apply(rng.choice(game.legal_actions()))
    assert found > 100


def test_apply_int_fast_path_refuses_what_the_plain_checks_refuse():
    """FOG-RUL-16: ``apply`` skips its isinstance tests for a plain ``int`` only; bools (an int subclass),
    numpy bools, floats, strings and None are still refused, numpy integers still accepted as ints."""
    from farmgames.envs.core.protocol import IllegalActionError

    game = Game(num_players=2, seed=0)
    first = game.legal_actions()[0]
    for bad in (True, False, np.bool_(True), float(first), str(first), None):
        with pytest.raises(IllegalActionError):
            game.apply(bad)
    assert game.history == []
    game.apply(np.int64(first))
    assert game.history == [first] and type(game.history[0]) is int


@pytest.mark.parametrize("players", [2, 4])
def test_final_scores_are_kept_and_equal_a_fresh_count(players):
    """``Game.scores()`` keeps a terminal state's scores (FOG-END-3..8; the env reads them several times):
    every read equals a fresh count of the farms, is a new list, and a clone or a changed farm is counted
    afresh."""
    from farmgames.envs.fields_of_green.scoring import score_farm

    for _, game, rng in _games(players, 3):
        while not game.is_terminal():
            assert game._final_scores is None  # nothing kept before the end
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])

        def fresh(g: Game) -> list:
            return [score_farm(f, g.cards.locations, g.cards.equipment) for f in g.farms]

        first, second = game.scores(), game.scores()
        assert first == second == fresh(game) and first is not second
        assert game.clone()._final_scores is None
        farm = game.farms[0]
        farm.fallow.update(farm.grid)  # a hand edit of a terminal farm (as a scenario would), version moved
        farm.version += 1
        assert fresh(game)[0] != first[0]  # the edit changes the score, so a stale read would show
        assert game.scores() == fresh(game)


def test_card_set_tables_equal_the_cards():
    from farmgames.envs.fields_of_green.cards import PILES

    cards = Game(num_players=2).cards
    for pile in PILES:
        ids = cards.pile_cards(pile)
        assert ids == [i for i, c in enumerate(cards.locations) if c.pile == pile]
        ids.append(-1)  # a fresh list each call: setup shuffles it
        assert -1 not in cards.pile_cards(pile)
    assert cards.location_info == tuple((c.pile, c.subtype, c.ability_kind) for c in cards.locations)
    plain = {
        i: (c.harvest_cost.coins, c.harvest_cost.water, c.harvest_cost.food)
        for i, c in enumerate(cards.locations)
        if c.ability_kind == "harvest"
    }
    assert cards.harvest_base == plain and len(plain) > 20
    assert any(cost == (0, 0, 0) for cost in plain.values())  # free harvests are keys too


def _plain_towers_in_range(farm, cell: int) -> list[int]:
    return [t for t in sorted(farm.tower_water) if farm.tower_water[t] and farm.tower_in_range(t, cell)]


def _plain_tower_in_range(farm, tower: int, cell: int) -> bool:
    """FOG-WATER-4 from the coordinates: adjacent, or two steps apart with a card on a cell next to both."""
    size = farm.geometry.size
    (r1, c1), (r2, c2) = divmod(tower, size), divmod(cell, size)
    distance = abs(r1 - r2) + abs(c1 - c2)
    if distance == 1:
        return True
    if distance != 2:
        return False
    between = [
        r * size + c
        for r in range(size)
        for c in range(size)
        if abs(r - r1) + abs(c - c1) == 1 and abs(r - r2) + abs(c - c2) == 1
    ]
    return any(farm.grid[b] != EMPTY for b in between)


@pytest.mark.parametrize("players", [2, 4])
def test_tower_in_range_equals_the_rule_from_coordinates(players):
    """``Farm.tower_in_range`` reads ``Geometry.pair_paths``; the rule from the cells' coordinates agrees on every
    pair of cells of the farms of random games (FOG-WATER-4)."""
    checked = 0
    for _seed, game, rng in _games(players, 2):
        while not game.is_terminal():
            if len(game.history) % 23 == 0:
                farm = game.farms[len(game.history) % players]
                cells = range(farm.geometry.cells)
                for t in cells:
                    for c in cells:
                        if t != c:
                            assert farm.tower_in_range(t, c) == _plain_tower_in_range(farm, t, c), (t, c)
                            checked += 1
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 10_000


def test_reach2_lists_between():
    from farmgames.envs.fields_of_green.farm import geometry

    for size in (5, 9, 11):
        g = geometry(size)
        listed = {(t, c): path for t in range(g.cells) for c, path in g.reach2[t]}
        assert listed == g.between
        assert all([c for c, _ in g.reach2[t]] == sorted(c for c, _ in g.reach2[t]) for t in range(g.cells))


@pytest.mark.parametrize("players", [2, 4])
def test_water_by_cell_towers_in_range_and_harvest_costs_equal_the_plain_paths(players):
    compared = with_equipment = 0
    for _seed, game, rng in _games(players, 5):
        while not game.is_terminal():
            if len(game.history) % 5 == 0:
                for p, farm in enumerate(game.farms):
                    every = set(range(game.geometry.cells))
                    plain = {c: _plain_water_in_range(farm, c) for c in sorted(every)}
                    assert farm.water_by_cell(every) == {c: w for c, w in plain.items() if w}
                    some = set(farm.frontier)
                    assert farm.water_by_cell(some) == {c: plain[c] for c in some if plain[c]}
                    for cell in range(game.geometry.cells):
                        assert farm.towers_in_range(cell) == _plain_towers_in_range(farm, cell)
                    for cell in farm.occupied:
                        if farm.grid[cell] in game.cards.harvest_base:
                            plain_cost = harvest_cost(farm, cell, game.cards.locations, game.cards.equipment)
                            assert game.harvest_cost(p, cell) == plain_cost
                            compared += 1
                            with_equipment += cell in farm.equipment
            game.apply(rng.choice(game.legal_actions()))
        # equipment with a harvest discount (FOG-EQUIP-11) on every harvest location: the plain path then
        discounts = [i for i, t in enumerate(game.cards.equipment) if any("harvest_discount" in op for op in t.effect)]
        for p, farm in enumerate(game.farms):
            for cell in [c for c in farm.occupied if farm.grid[c] in game.cards.harvest_base]:
                farm.equipment.setdefault(cell, []).append(discounts[cell % len(discounts)])
                plain_cost = harvest_cost(farm, cell, game.cards.locations, game.cards.equipment)
                assert game.harvest_cost(p, cell) == plain_cost
                with_equipment += plain_cost != game.cards.harvest_base[farm.grid[cell]]
    assert compared > 100 and with_equipment > 10


def test_a_bare_gain_gains_what_gain_amounts_resolves():
    """Game._run_ops hands a gain op without per/max/if to _gain as written (FOG-ABIL-6)."""
    from farmgames.envs.fields_of_green import effects

    game = Game(num_players=2, seed=3)
    farm = game.farms[0]
    cell = farm.occupied[0]
    ops = [op for c in game.cards.locations if c.ability for op in c.ability.effect if "gain" in op and len(op) == 1]
    ops += [{"gain": {"coins": 0, "food": 1}}, {"gain": {"water": 0, "vp": 2}}]  # zeros: dropped by gain_amounts
    assert len(ops) > 20
    for op in ops:
        a, b = game.clone(), game.clone()
        a._gain(0, op["gain"], cell)
        b._gain(0, effects.gain_amounts(b.farms[0], cell, op), cell)
        assert a.to_json() == b.to_json()


def test_take_split_draws_what_one_pop_per_card_draws():
    from farmgames.envs.fields_of_green.actions import SPLITS

    for players in (2, 4):
        for index in range(0, len(SPLITS), 3):
            game = Game(num_players=players, seed=index)
            split = SPLITS[index]
            plain = game.clone()
            drawn = _plain_draw(plain, split, 1)
            if players == 2:
                plain.offer.extend(drawn)
            else:
                plain.hands[1] = sorted(drawn)
            game._take_split(1, split)
            assert game.to_json() == plain.to_json()


def test_setup_shuffle_equals_random_shuffle():
    """game._shuffle draws the permutation Random.shuffle draws, leaving the generator in the same state."""
    from farmgames.envs.fields_of_green.game import _shuffle

    for seed in range(200):
        for length in (0, 1, 2, 3, 7, 33, 66, 130):
            a, b = random.Random(seed), random.Random(seed)
            x, y = list(range(length)), list(range(length))
            a.shuffle(x)
            _shuffle(b, y)
            assert x == y and a.random() == b.random()


class _PlainBuildGame(Game):
    """The engine with the build's continuation as the rules list it: attach, then the immediate frame."""

    def _finish_build(self, p: int, card: int, cell: int) -> None:
        self.farms[p].place(cell, card)
        self.picks[p] = None
        self._push_in_order([("attach", p, cell), ("immediate", p, cell)])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_build_shortcut_plays_as_the_plain_frames(players):
    """Game._finish_build runs the immediate ability at once when nothing is set aside (FOG-RUL-17,
    FOG-ABIL-1): every decision, state and legal list equals the plain engine's, and the same farms' versions
    move in the same steps."""
    builds = with_tiles = 0
    for seed, game, rng in _games(players, 6):
        variant = {"fixed_split": FIXED} if game.fixed_split else {}
        plain = _PlainBuildGame(num_players=players, seed=seed, auto_single=game.auto_single, **variant)
        while not game.is_terminal():
            assert game.decision == plain.decision and game.legal_actions() == plain.legal_actions()
            assert game.to_json() == plain.to_json()
            before = [f.version for f in game.farms], [f.version for f in plain.farms]
            action = rng.choice(game.legal_actions())
            if game.decision_kind in ("act", "pay_water") and game.layout.decoded[action][0] in ("build", "pay_water"):
                builds += 1
                with_tiles += bool(game.farms[game.current_player].set_aside)
            game.apply(action)
            plain.apply(action)
            moved = [a != b for a, b in zip(before[0], (f.version for f in game.farms))]
            assert moved == [a != b for a, b in zip(before[1], (f.version for f in plain.farms))]
        assert plain.is_terminal() and game.to_json() == plain.to_json()
    assert builds > 50 and with_tiles > 0


def test_market_choices_are_the_plain_ranges():
    layout = Game(num_players=2).layout
    for k in range(MARKET_SALES):
        assert list(layout.market_choices[k]) == [layout.MARKET + i for i in range(k + 1)]  # FOG-ACT-MARKET-4


@pytest.mark.parametrize("players", [2, 4])
def test_kept_harvest_sites_equal_the_plain_scan(players):
    """Game._harvest_sites (kept on the farm per occupied list and length) after every step, on clones and
    on loaded states: the cells of locations with a harvest ability in placement order (FOG-HARVEST-2)."""

    def plain(game: Game, farm) -> tuple:
        return tuple(
            c
            for c in farm.occupied
            if farm.grid[c] >= 0 and game.cards.locations[farm.grid[c]].ability_kind == "harvest"
        )

    kept = 0
    for _seed, game, rng in _games(players, 4):
        while not game.is_terminal():
            for farm in game.farms:
                kept += farm.harvest_memo is not None and farm.harvest_memo[0] is farm.occupied
                assert game._harvest_sites(farm) == plain(game, farm)
            if len(game.history) % 50 == 0:
                clone = game.clone()
                assert all(f.harvest_memo is None for f in clone.farms)  # clones start afresh
                for other in (clone, Game.from_json(game.to_json())):
                    assert [other._harvest_sites(f) for f in other.farms] == [plain(other, f) for f in other.farms]
            game.apply(rng.choice(game.legal_actions()))
    assert kept > 100


def test_pick_path_matches_the_version_rules():
    """Game._apply's pick path moves a version and no farm's, as _NO_FARM_DECISIONS / _FARM_ONLY_DECISIONS say:
    public_version with 2 players, pick_version with 3-4."""
    from farmgames.envs.fields_of_green.game import _NO_FARM_DECISIONS

    assert "pick" in _NO_FARM_DECISIONS and "pick" not in _FARM_ONLY_DECISIONS
    for players in (2, 4):
        game = Game(num_players=players, seed=1)
        while game.decision_kind != "pick":
            game.apply(game.legal_actions()[0])
        versions, public, picks = [f.version for f in game.farms], game.public_version, game.pick_version
        game._apply(game.legal_actions()[-1])
        assert [f.version for f in game.farms] == versions
        if players == 2:  # the display is public (FOG-2P-6)
            assert (game.public_version, game.pick_version) == (public + 1, picks)
        else:  # only the picker's hand and pick (FOG-ACT-3)
            assert (game.public_version, game.pick_version) == (public, picks + 1)


def test_prebuilt_seat_orders_and_turn_frames_equal_the_plain_rules():
    """FOG-DRAW-1, FOG-RUL-15: seats from the first player; a 3-4 player turn pushes the picks in that order
    and then the reveal, the reveal the acts in that order and then end_turn (FOG-ACT-2..6)."""
    from farmgames.envs.fields_of_green.game import _SEAT_ORDER, _TURN_ACTS, _TURN_PICKS

    for n in (2, 3, 4):
        for first in range(n):
            order = [(first + i) % n for i in range(n)]
            assert list(_SEAT_ORDER[n][first]) == order
            # (2 players too: a loaded state may hold turn and reveal frames)
            assert list(reversed(_TURN_PICKS[n][first])) == [("pick", p) for p in order] + [("reveal",)]
            assert list(reversed(_TURN_ACTS[n][first])) == [("act", p) for p in order] + [("end_turn",)]


def test_hot_functions_allocate_no_cells():
    """The comment above Game._compute_legal: the functions every step runs read no variable from a nested
    comprehension or generator (in Python 3.11 each such variable is a cell allocated on every call)."""
    from farmgames.envs.fields_of_green import effects
    from farmgames.envs.fields_of_green.farm import Farm

    hot = [
        Game.apply,
        Game.legal_actions,
        Game._advance,
        Game._skip_decision,
        Game._run,
        Game._run_for_seat,
        Game._compute_legal,
        Game._act_legal,
        Game._apply,
        Game._act,
        Game._harvest_sites,
        Game._harvest_cells,
        Game._tile_fits,
        Game._finish_build,
        Game._run_ops,
        Game._gain,
        Farm.place,
        Farm.tower_in_range,
        Farm.towers_in_range,
        Farm.water_in_range,
        Farm.water_by_cell,
        Farm.towers_with_room,
        effects.count,
    ]
    # (a function compiled by mypyc, envs/_native.py, has no code object and keeps its locals in C)
    assert [f.__qualname__ for f in hot if hasattr(f, "__code__") and f.__code__.co_cellvars] == []


def test_passing_by_rotation_equals_the_plain_loop():
    """Game._pass_hands: seat p's hand goes to seat p + 1 clockwise, p - 1 counterclockwise (FOG-ACT-5,
    FOG-RUL-29), sorted, in new lists."""
    for n in (3, 4):
        for direction, step in (("clockwise", 1), ("counterclockwise", -1)):
            game = Game(num_players=n, seed=n)
            game.hands = [[9 * p + 3, 9 * p + 1, 9 * p + 2][: 3 - p % 2] for p in range(n)]
            game.direction = direction
            before = [h[:] for h in game.hands]
            plain = [[] for _ in range(n)]
            for p in range(n):
                plain[(p + step) % n] = sorted(before[p])
            old = game.hands
            game._pass_hands()
            assert game.hands == plain
            assert not any(h is o for h in game.hands for o in old)


def _counters(cards) -> list[dict]:
    """Every counter ("per" and "if") of the card set's abilities and tiles, plus one per filter key."""
    out = []
    effects_ = [c.ability.effect for c in cards.location_designs if c.ability is not None]
    effects_ += [t.effect for t in cards.equipment_designs if t.effect]
    for effect in effects_:
        for op in effect:
            for key in ("per", "if"):
                if key in op:
                    out.append(op[key])
    out += [{"adjacent": {"type": t}} for t in ("WaterTower", "Silo", "any")]
    out += [{"farm": {"type": t}} for t in ("WaterTower", "Silo", "Field")]
    out += [{"farm": {}}, {"adjacent": {"ability": "harvest"}}, {"distinct_subtypes": "Field"}]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_count_over_match_codes_equals_one_matches_per_cell(players):
    """effects.count (the grid codes of effects.match_codes, minus the fallow cells) equals effects.plain_count
    (one ``matches`` per cell, FOG-RUL-7: fallow cards never match) for every counter of the card set, on every
    cell of the farms of random games (fallow cards included), and the memo answers the same after a miss."""
    from farmgames.envs.fields_of_green import effects

    fallow_seen = nonzero = 0
    for seed, game, rng in _games(players, 3):
        counters = _counters(game.cards)
        assert len(counters) > 30
        step = 0
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
            step += 1
            if step % 7:
                continue
            for farm in game.farms:
                fallow_seen += bool(farm.fallow)
                for cell in range(farm.geometry.cells):
                    for counter in counters:
                        value = effects.count(farm, cell, counter)
                        assert value == effects.plain_count(farm, cell, counter), (seed, cell, counter)
                        nonzero += value > 0
    assert fallow_seen > 10 and nonzero > 1000
    flt = {"type": "Field"}  # a new dict: a miss, then a hit, the same codes as the plain test
    game = Game(num_players=players, seed=1)
    info = game.farms[0].info
    codes = effects.match_codes(info, flt)
    assert effects.match_codes(info, flt) is codes
    assert codes == {code for code, card in enumerate(info) if effects.info_matches(card, flt)}


def test_gain_stores_food_as_farm_gain_food():
    """Game._gain's store (FOG-STORE-7/8) equals Farm.gain_food, with room, full and over capacity."""
    rng = random.Random(5)
    game = Game(num_players=2, seed=5)
    for _ in range(300):
        a, b = game.clone(), game.clone()
        capacity = {cell: rng.randrange(0, 6) for cell in game.farms[0].silo_capacity}
        a.farms[0].silo_capacity, b.farms[0].silo_capacity = dict(capacity), dict(capacity)
        food = rng.randrange(0, 8)
        a.farms[0].food = b.farms[0].food = min(food, sum(a.farms[0].silo_capacity.values()))
        amounts = {"food": rng.randrange(0, 9), "coins": rng.randrange(0, 3)}
        a._gain(0, amounts, -1)
        b.farms[0].coins += amounts["coins"]
        b.farms[0].gain_food(amounts["food"])
        assert a.to_json() == b.to_json()


def test_take_split_from_short_piles_draws_what_one_pop_per_card_draws():
    """_take_split's reversed slice when a pile holds exactly the count drawn, or one more (FOG-DRAW-5, FOG-RUL-14)."""
    from farmgames.envs.fields_of_green.actions import SPLITS

    for index in range(len(SPLITS)):
        split = SPLITS[index]
        for extra in (0, 1):
            game = Game(num_players=4, seed=index)
            for i, count in enumerate(split):
                del game.piles[i][: len(game.piles[i]) - count - extra]
            plain = game.clone()
            drawn = _plain_draw(plain, split, 0)
            plain.hands[0] = sorted(drawn)
            game._take_split(0, split)
            assert game.to_json() == plain.to_json()


@pytest.mark.parametrize("farm_size", [5, 9, 25])
def test_watered_frontier_is_the_frontier_with_water_in_range(farm_size):
    """Farm.watered_frontier (the build block of an act costing one water, FOG-WATER-4, FOG-ACT-BUILD-4) equals
    the frontier cells with water in range by the plain tower_in_range sum, on every farm of random games; so
    does Farm.range_mask (what towers_in_range and water_in_range read) from every cell; the geometry's
    neighbour_bits are the neighbour lists."""
    geometry = Game(num_players=2, farm_size=farm_size).geometry
    for cell, near in enumerate(geometry.neighbours):
        assert [n for n in range(geometry.cells) if geometry.neighbour_bits[cell] >> (8 * n) & 0xFF] == list(near)
    watered = 0
    for seed in range(3):
        game = Game(num_players=4, seed=seed, farm_size=farm_size, auto_single=seed % 2 == 1)
        rng = random.Random(seed)
        while not game.is_terminal():
            for farm in game.farms:
                frontier = bytes(farm.frontier_mask())
                plain = bytes(
                    1 if frontier[c] and _plain_water_in_range(farm, c) >= 1 else 0 for c in range(game.geometry.cells)
                )
                assert farm.watered_frontier(frontier) == plain
                watered += sum(plain)
                if len(game.history) % 23 == 0:  # Farm.range_mask: tower_in_range from every cell, both ways
                    cells = range(game.geometry.cells)
                    for cell in cells:
                        near = farm.range_mask(cell)
                        assert [t for t in cells if near[t]] == [t for t in cells if farm.tower_in_range(t, cell)]
            game.apply(rng.choice(game.legal_actions()))
    assert watered > 1000
