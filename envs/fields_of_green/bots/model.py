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
            [frozenset(cells) for cells in near],
        )
    return hit[1]


def _reach_sets(geometry) -> list[frozenset]:
    _reach(geometry)
    return _REACH[id(geometry)][2]


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

    __slots__ = ("vp", "coins", "water", "food", "kind", "effect", "h_coins", "h_water", "h_food")

    def __init__(self, card: LocationCard):
        self.vp: int = card.vp
        cost = card.cost
        self.coins: int = cost.coins  # build cost (FOG-CARD-*)
        self.water: int = cost.water
        self.food: int = cost.food
        self.kind: str = card.ability_kind  # immediate | harvest | end_game | none
        self.effect: tuple[dict, ...] = card.ability.effect if card.ability is not None else ()
        harvest = card.harvest_cost  # zero unless a harvest ability (before equipment discounts)
        self.h_coins: int = harvest.coins
        self.h_water: int = harvest.water
        self.h_food: int = harvest.food


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
        # gains without "if"/"per": the same amounts anywhere
        self._const_gains: dict[int, tuple[dict, dict[str, int]]] = {}
        self._specs: dict[tuple, tuple] = {}
        self.spec0: list = [None] * len(self.locs)  # harvest_spec(code, ()) once known
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
            matches = self.match_list(counter["adjacent"])
            grid, fallow = farm.grid, farm.fallow
            n = 0
            for c in farm.geometry.neighbours[cell]:
                code = grid[c]
                if matches[code - SILO] and (code < 0 or c not in fallow):
                    n += 1
            return n
        if "farm" in counter:
            matches = self.match_list(counter["farm"])
            grid, fallow = farm.grid, farm.fallow
            n = 0
            for c in farm.occupied:
                code = grid[c]
                if matches[code - SILO] and (code < 0 or c not in fallow):
                    n += 1
            return n
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

    def holds(self, farm: Farm, cell: int, op: dict) -> bool:
        """``effects.condition_holds`` with these counters."""
        return effects.condition_holds(farm, cell, op, self.count)

    def gain_amounts(self, farm: Farm, cell: int, op: dict) -> dict[str, int]:
        """``effects.gain_amounts`` with these counters. An op without "if"/"per" gives the same amounts
        anywhere, so they are kept per op: the dict may be shared, callers must not change it."""
        hit = self._const_gains.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        if "if" not in op and "per" not in op:
            out = effects.gain_amounts(farm, cell, op)
            self._const_gains[id(op)] = (op, out)
            return out
        return effects.gain_amounts(farm, cell, op, self.count)

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
