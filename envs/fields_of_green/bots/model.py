"""The heuristic bot's read-only model of a card set, shared by every bot that plays with it.

``_Model`` flattens the card and tile records for speed and compiles the card filters of the effect
language; its counting and gains are the engine's (``effects``) over those compiled filters. Also the
per-geometry and per-layout tables the bot reads (tower reach, decoded actions).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import effects, scoring
from ..cards import PILES, CardSet, Equipment, LocationCard
from ..farm import SILO, TOWER, Farm
from ..game import harvest_discount as engine_harvest_discount

_DECODED: dict[int, tuple] = {}
_REACH: dict[int, tuple] = {}


def _reach(geometry) -> list[tuple[int, ...]]:
    """Per cell, the other cells a tower there could ever reach (FOG-WATER-4: adjacent or at distance 2)."""
    return _reach_entry(geometry)[1]


def _reach_sets(geometry) -> tuple[list[frozenset], list[frozenset]]:
    """Per cell, ``_reach`` as a set, and the cell with its neighbours (what a projection's ``near`` is)."""
    return _reach_entry(geometry)[2]


def _reach_entry(geometry) -> tuple:
    """The geometry's reach tables, built once per geometry: (geometry, ``_reach``, ``_reach_sets``)."""
    hit = _REACH.get(id(geometry))
    if hit is None or hit[0] is not geometry:
        if len(_REACH) >= 32:
            _REACH.clear()
        near = [set(n) for n in geometry.neighbours]
        for t, c in geometry.between:
            near[t].add(c)
        hit = _REACH[id(geometry)] = (
            geometry,
            [tuple(sorted(cells)) for cells in near],
            ([frozenset(cells) for cells in near], [frozenset((c, *n)) for c, n in enumerate(geometry.neighbours)]),
        )
    return hit


def _decoded(layout) -> list[tuple[str, int]]:
    """``[layout.decode(a) for a in range(layout.size)]``, built once per layout (layouts are shared)."""
    hit = _DECODED.get(id(layout))
    if hit is None or hit[0] is not layout:
        if len(_DECODED) >= 32:
            _DECODED.clear()
        hit = _DECODED[id(layout)] = (layout, [layout.decode(a) for a in range(layout.size)])
    return hit[1]


class _Card:
    """A location card's numbers as the search reads them: its ``LocationCard`` (a plain dataclass of
    ``cards.py``) flattened into a compiled record, whose fields compiled code reads directly."""

    __slots__ = ("vp", "coins", "water", "food", "kind", "effect", "plans", "h_coins", "h_water", "h_food")

    def __init__(self, card: LocationCard):
        self.vp: int = card.vp
        cost = card.cost
        self.coins: int = cost.coins  # build cost (FOG-CARD-*)
        self.water: int = cost.water
        self.food: int = cost.food
        self.kind: str = card.ability_kind  # immediate | harvest | end_game | none
        self.effect: tuple[dict, ...] = card.ability.effect if card.ability is not None else ()
        self.plans: tuple[_OpPlan, ...] = ()  # the effect's ops compiled (``_Model.plan``), set by the model
        harvest = card.harvest_cost  # zero unless a harvest ability (before equipment discounts)
        self.h_coins: int = harvest.coins
        self.h_water: int = harvest.water
        self.h_food: int = harvest.food


# the op kinds the bot's estimates tell apart (``_OpPlan.kind`` is the index of the first key the op has, else
# OP_OTHER)
OP_KINDS: tuple[str, ...] = ("gain", "gain_equipment", "raise_capacity", "trade")
OP_GAIN, OP_GAIN_EQUIPMENT, OP_RAISE_CAPACITY, OP_TRADE, OP_OTHER = 0, 1, 2, 3, 4


class _Counter:
    """A counter of the effect language (data/FORMAT.md) as ``_Model.count`` reads it: ``kind`` 1 counts the
    neighbours, 2 the farm's cards, each through ``matches`` (``_Model.match_list``); 0 any other counter, read
    by ``_Model.count`` from ``counter`` itself."""

    __slots__ = ("kind", "matches", "counter")

    def __init__(self, kind: int, matches: list[bool], counter: dict):
        self.kind = kind
        self.matches = matches
        self.counter = counter


class _OpPlan:
    """One op's ``if`` / ``per`` / ``max`` / ``gain`` read once into a compiled record, so that ``gain_amounts``
    and ``holds`` read native fields instead of the op's string keys and call the counter directly, not through a
    callable (docs/profiling.md, "Twenty-third pass"). ``const``: the amounts of a gain without "if"/"per",
    which are the same anywhere (shared: callers must not change them)."""

    __slots__ = ("op", "kind", "cond", "at_least", "per", "has_cap", "cap", "gain", "const")

    def __init__(self, op: dict, cond: _Counter | None, per: _Counter | None, const: dict[str, int] | None):
        self.op = op
        # what the op does, tested in the order of the bot's estimates (``HeuristicBot._ops_value``)
        self.kind: int = next((i for i, key in enumerate(OP_KINDS) if key in op), OP_OTHER)
        self.cond = cond
        self.at_least: int = op["if"]["at_least"] if cond is not None else 0
        self.per = per
        cap = op.get("max")
        self.has_cap = cap is not None
        self.cap: int = cap if cap is not None else 0
        self.gain: list[tuple[str, int]] = list(op["gain"].items()) if "gain" in op else []
        self.const = const


def _adjacent(farm: Farm, cell: int, matches: list[bool]) -> int:
    """The neighbours of ``cell`` that a card counter matches (``matches``: ``_Model.match_list``); a fallow card
    never counts (FOG-RUL-7), towers and silos are never fallow."""
    grid, fallow = farm.grid, farm.fallow
    n = 0
    for c in farm.geometry.neighbours[cell]:
        code = grid[c]
        if matches[code - SILO] and (code < 0 or c not in fallow):
            n += 1
    return n


def _on_farm(farm: Farm, matches: list[bool]) -> int:
    """``_adjacent`` over every card of the farm."""
    grid, fallow = farm.grid, farm.fallow
    n = 0
    for c in farm.occupied:
        code = grid[c]
        if matches[code - SILO] and (code < 0 or c not in fallow):
            n += 1
    return n


_MODELS: dict[int, _Model] = {}


def _model_for(cards) -> _Model:
    """The (read-only, shared by every bot) model of a card set."""
    model = _MODELS.get(id(cards))
    if model is None or model.cards is not cards:
        if len(_MODELS) >= 8:
            _MODELS.clear()
        model = _MODELS[id(cards)] = _Model(cards)
    return model


class _Model:
    """Per card set: card and tile records flattened for speed, the compiled card filters, and the
    harvest-location memo of the projection (per weights, see ``_Projection``). Shared by all bots."""

    def __init__(self, cards: CardSet):
        self.cards = cards
        self.cell_memos: dict = {}  # HeuristicWeights -> {footprint key: entry}
        self.locs: list[LocationCard] = cards.locations
        self.tiles: list[Equipment] = cards.equipment
        self.info: list[tuple] = [(c.pile, c.subtype, c.ability_kind) for c in self.locs]  # as Game._info / Farm.info
        # each card's info as a small int (1 + its index among the distinct infos; 0 is "no card"): the bot's
        # per-farm-state tables key what other cards see of a card by it (heuristic._fkey)
        assert len(self.locs) < 65536, "the bot's table keys hold a card index in 16 bits (heuristic._fkey)"
        ids: dict[tuple, int] = {}
        self.info_id: list[int] = [ids.setdefault(info, len(ids) + 1) for info in self.info]
        self.card: list[_Card] = [_Card(c) for c in self.locs]  # the same records, compiled
        self.design: list[int] = [c.design for c in self.locs]  # each card's design (its copies share it)
        # digit width of the neighbour codes in the bot's int table keys (heuristic._own2_key): 8 bits while every
        # grid code + 8 stays below 256
        self.code_bits = 8 if len(self.locs) + 8 <= 256 else 16
        self.global_ops: list[bool] = []  # ability uses farm-wide counters (farm / distinct_subtypes)
        self.adjacent_ops: list[bool] = []  # ability uses adjacency counters
        self.adjacent_max: list[int] = []  # how many more neighbours such an ability may reward
        for card in self.locs:
            ops = card.ability.effect if card.ability else ()
            g = a = False
            most = 0
            for op in ops:
                for key in ("per", "if"):
                    counter = op.get(key)
                    if counter:
                        if "farm" in counter or "distinct_subtypes" in counter or "fallow" in counter:
                            g = True
                        if "adjacent" in counter:
                            a = True
                            if key == "per":
                                most += op.get("max", 4)
                            else:
                                most += counter.get("at_least", 1)
            self.global_ops.append(g)
            self.adjacent_ops.append(a)
            self.adjacent_max.append(min(most, 4))
        self.pile_cards = {pile: cards.pile_cards(pile) for pile in PILES}
        self.any_neighbour_tiles = {i for i, t in enumerate(self.tiles) if t.timing in ("end_game", "harvest")}
        self.harvest_kind = [c.ability_kind == "harvest" for c in self.locs]
        self.vp, self.end_ops = scoring.card_tables(self.locs)  # as the engine's final count
        # the card's ability counts something on the farm ("if" / "per"), so its value depends on the cell
        self.counting = [
            any("if" in op or "per" in op for op in (c.ability.effect if c.ability else ())) for c in self.locs
        ]
        self._match: dict[int, tuple[dict, frozenset]] = {}
        self._match_list: dict[int, tuple[dict, list[bool]]] = {}
        # each op's compiled record (``_OpPlan``), by the op's id (the op itself kept in it, so a reused id misses)
        self._plans: dict[int, _OpPlan] = {}
        self._specs: dict[tuple, tuple] = {}
        self.spec0: list = [None] * len(self.locs)  # harvest_spec(code, ()) once known
        for rec in self.card:
            rec.plans = tuple([self.plan(op) for op in rec.effect])
        self.tile_plans: list[tuple[_OpPlan, ...]] = [tuple([self.plan(op) for op in t.effect]) for t in self.tiles]
        # end-game abilities that only count neighbours (their VP are shared by footprint)
        self.end_local = [
            ops is not None and all("adjacent" in op.get(k, ("adjacent",)) for op in ops for k in ("if", "per"))
            for ops in self.end_ops
        ]

    def harvest_spec(self, code: int, tiles: tuple) -> tuple:
        """(ops, cost, level, trade) of a harvest location with these tiles: its ability's ops then its
        harvest-timed tiles' ops, its harvest cost after discounts, what its counters read (0 nothing,
        1 only its neighbours and its own tiles, 2 more of the farm) and whether it trades."""
        key = (code, tiles)
        spec = self._specs.get(key)
        if spec is None:
            rec = self.locs[code]
            assert rec.ability is not None  # (asked only for harvest locations)
            ops: Sequence[dict] = rec.ability.effect
            if tiles:
                extended = list(ops)
                for tile_id in tiles:
                    if self.tiles[tile_id].timing == "harvest":
                        extended.extend(self.tiles[tile_id].effect)
                ops = extended
            cost = rec.harvest_cost
            dc, dw, df = engine_harvest_discount(tiles, self.tiles)
            coins, water, food = cost.coins - dc, cost.water - dw, cost.food - df
            level, trade = 0, False
            for op in ops:
                trade = trade or "trade" in op
                for k in ("if", "per"):
                    counter = op.get(k)
                    if counter is not None:
                        if "adjacent" in counter or counter.get("equipment") == "here":
                            level = max(level, 1)
                        else:
                            level = 2
            spec = self._specs[key] = (ops, (max(coins, 0), max(water, 0), max(food, 0)), level, trade)
            if not tiles:
                self.spec0[code] = spec
        return spec

    # ---- effects.count / condition_holds / gain_amounts over precompiled filters (the same results)

    def match_codes(self, flt: dict) -> frozenset:
        """Grid codes whose card matches ``flt`` (``effects.info_matches``; fallow checked by the caller)."""
        hit = self._match.get(id(flt))
        if hit is not None and hit[0] is flt:
            return hit[1]
        codes = {code for code, info in enumerate(self.info) if effects.info_matches(info, flt)}
        if effects.info_matches(("WaterTower", None, "none"), flt):  # as Farm.card_info
            codes.add(TOWER)
        if effects.info_matches(("Silo", None, "none"), flt):
            codes.add(SILO)
        out = frozenset(codes)
        self._match[id(flt)] = (flt, out)
        return out

    def match_list(self, flt: dict) -> list[bool]:
        """``match_codes`` as one flag per grid code, indexed by ``code - SILO`` (the lowest code): a list index
        instead of a set lookup per cell counted."""
        hit = self._match_list.get(id(flt))
        if hit is not None and hit[0] is flt:
            return hit[1]
        codes = self.match_codes(flt)
        out = [code + SILO in codes for code in range(len(self.info) - SILO)]
        self._match_list[id(flt)] = (flt, out)
        return out

    def count(self, farm: Farm, cell: int, counter: dict) -> int:
        """``effects.count``: a face-up location matches unless fallow; towers and silos never are. The
        counters over cards use the compiled filters, the others are the engine's."""
        if "adjacent" in counter:
            return _adjacent(farm, cell, self.match_list(counter["adjacent"]))
        if "farm" in counter:
            return _on_farm(farm, self.match_list(counter["farm"]))
        if "distinct_subtypes" in counter:
            kind = counter["distinct_subtypes"]
            info, grid, fallow = self.info, farm.grid, farm.fallow
            seen = set()
            for c in farm.occupied:
                code = grid[c]
                if code >= 0 and c not in fallow:
                    i = info[code]
                    if i[0] == kind and i[1]:
                        seen.add(i[1])
            return len(seen)
        return effects.count(farm, cell, counter)

    def _counter(self, counter: dict) -> _Counter:
        """``counter`` compiled in ``count``'s order of tests."""
        if "adjacent" in counter:
            return _Counter(1, self.match_list(counter["adjacent"]), counter)
        if "farm" in counter:
            return _Counter(2, self.match_list(counter["farm"]), counter)
        return _Counter(0, [], counter)

    def plan(self, op: dict) -> _OpPlan:
        """The op's compiled record, made on its first use."""
        hit = self._plans.get(id(op))
        if hit is not None and hit.op is op:
            return hit
        cond = op.get("if")
        per = op.get("per")
        const = None
        if "gain" in op and cond is None and per is None:
            const = effects.gain_amounts(None, -1, op)  # (no counter is read: the amounts of every farm and cell)
        plan = _OpPlan(
            op,
            self._counter(cond) if cond is not None else None,
            self._counter(per) if per is not None else None,
            const,
        )
        self._plans[id(op)] = plan
        return plan

    def count_of(self, farm: Farm, cell: int, counter: _Counter) -> int:
        """``count`` of a compiled counter (the same loops, over the flags it holds)."""
        kind = counter.kind
        if kind == 1:
            return _adjacent(farm, cell, counter.matches)
        if kind == 2:
            return _on_farm(farm, counter.matches)
        return self.count(farm, cell, counter.counter)

    def holds(self, farm: Farm, cell: int, op: dict) -> bool:
        """``effects.condition_holds`` with these counters."""
        return self.plan_holds(farm, cell, self.plan(op))

    def plan_holds(self, farm: Farm, cell: int, plan: _OpPlan) -> bool:
        """``holds`` of an op's compiled record."""
        cond = plan.cond
        return cond is None or self.count_of(farm, cell, cond) >= plan.at_least

    def gain_amounts(self, farm: Farm, cell: int, op: dict) -> dict[str, int]:
        """``effects.gain_amounts`` with these counters, read from the op's compiled record. An op without
        "if"/"per" gives the same amounts anywhere, so they are kept per op: that dict is shared, callers must
        not change it (tests/fields_of_green/test_bot_fast_paths.py compares both with ``effects``)."""
        return self.plan_amounts(farm, cell, self.plan(op))

    def plan_amounts(self, farm: Farm, cell: int, plan: _OpPlan) -> dict[str, int]:
        """``gain_amounts`` of an op's compiled record."""
        const = plan.const
        if const is not None:
            return const
        cond = plan.cond
        if cond is not None and self.count_of(farm, cell, cond) < plan.at_least:
            return {}
        per = plan.per
        factor = self.count_of(farm, cell, per) if per is not None else 1
        out: dict[str, int] = {}
        has_cap, cap = plan.has_cap, plan.cap
        for res, amount in plan.gain:
            total = amount * factor
            if has_cap:
                total = min(total, cap)
            if total:
                out[res] = total
        return out

    def harvest_cost(self, farm: Farm, cell: int) -> tuple[int, int, int]:
        """Harvest cost after permanent equipment discounts (``game.harvest_cost``, on any farm): the
        engine's function, but the printed cost read from the compiled record (tests/fields_of_green/
        test_bots.py compares the two on every location and tile of the base set)."""
        rec = self.card[farm.grid[cell]]
        tiles = farm.equipment.get(cell)
        if not tiles:
            return max(rec.h_coins, 0), max(rec.h_water, 0), max(rec.h_food, 0)
        dc, dw, df = engine_harvest_discount(tiles, self.tiles)
        return max(rec.h_coins - dc, 0), max(rec.h_water - dw, 0), max(rec.h_food - df, 0)
