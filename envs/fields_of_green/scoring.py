"""Final scoring (FOG-END-2..8) and the tie-break chain (FOG-END-10..13)."""

from __future__ import annotations

from dataclasses import dataclass

from mypy_extensions import mypyc_attr

from . import effects
from .farm import TOWER, Farm

PARTS = ("printed_vp", "equipment", "coins", "food", "empty_towers", "end_game")


@mypyc_attr(native_class=False)  # (compiled: a plain frozen dataclass, as_dict reads vars())
@dataclass(frozen=True)
class Score:
    """One player's final score: the six items of FOG-END-3..8 and the tie-break keys."""

    printed_vp: int  # item 1: printed VP of face-up cards + VP tokens (FOG-END-3)
    equipment: int  # item 2: end-game VP of placed equipment + 1 per set-aside tile (FOG-END-4)
    coins: int  # item 3: floor(coins / 3) (FOG-END-5)
    food: int  # item 4: floor(food / 2) (FOG-END-6)
    empty_towers: int  # item 5: 1 per tower holding no water (FOG-END-7)
    end_game: int  # item 6: End-game abilities of face-up locations (FOG-END-8)
    locations: int  # tie-break 1: face-up cards incl. towers and silos (FOG-END-11, FOG-RUL-22)
    coins_held: int  # tie-break 2: coins held (FOG-END-12, FOG-RUL-36)

    @property
    def total(self) -> int:
        return self.printed_vp + self.equipment + self.coins + self.food + self.empty_towers + self.end_game

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.total, self.locations, self.coins_held)

    def as_dict(self) -> dict:
        # the fields (plain ints) from the instance dict: dataclasses.asdict deep-copies each value (~3k opcodes
        # at a game's end, where the infos ask it per seat; tests/fields_of_green/rules/test_scoring.py compares)
        return {**vars(self), "total": self.total}


def end_game_vp(farm: Farm, cell: int, ops, gain_amounts=effects.gain_amounts) -> int:
    """VP of the End-game ``ops`` of the card (or the tile's host) at ``cell`` (FOG-END-4, FOG-END-8).
    ``gain_amounts``: the effect code's, or one with the same results (the heuristic bot's compiled filters)."""
    vp = 0
    for op in ops:
        vp += gain_amounts(farm, cell, op).get("vp", 0)
    return vp


_TABLES: dict[int, tuple] = {}


def card_tables(cards) -> tuple[list[int], list]:
    """Per card id of a card list: its printed VP and its End-game ops (None if it has no End-game
    ability), built once per list (the lists of a card set are shared and never change)."""
    hit = _TABLES.get(id(cards))
    if hit is None or hit[0] is not cards:
        if len(_TABLES) >= 16:
            _TABLES.clear()
        vp = [card.vp for card in cards]
        end_ops = [c.ability.effect if c.ability is not None and c.ability.kind == "end_game" else None for c in cards]
        hit = _TABLES[id(cards)] = (cards, vp, end_ops)
    return hit[1], hit[2]


def vp_items(
    farm: Farm, vp: list[int], end_ops: list, equipment, ability_vp=end_game_vp, gain_amounts=effects.gain_amounts
):
    """The items of FOG-END-3, 4, 7 and 8 -- every item but the coins and the food -- as
    ``(printed_vp, equipment, empty_towers, end_game)``. ``vp``, ``end_ops``: ``card_tables`` of the card
    list; ``ability_vp(farm, cell, ops)``: the End-game VP of a location's ability (default
    ``end_game_vp``); ``gain_amounts``: for the tiles' End-game ops. The heuristic bot's projection counts
    its farms with these (and fractional coins and food)."""
    printed = farm.vp_tokens
    end_game = 0
    grid, fallow = farm.grid, farm.fallow
    for cell in farm.occupied:
        code = grid[cell]
        if code < 0 or cell in fallow:
            continue
        printed += vp[code]
        ops = end_ops[code]
        if ops is not None:
            end_game += ability_vp(farm, cell, ops)
    equipment_vp = len(farm.set_aside)
    for cell, tiles in farm.equipment.items():
        for tile_id in tiles:
            tile = equipment[tile_id]
            if tile.timing == "end_game":
                equipment_vp += end_game_vp(farm, cell, tile.effect, gain_amounts)
    empty = sum(1 for cell, w in farm.tower_water.items() if w == 0 and grid[cell] == TOWER)
    return printed, equipment_vp, empty, end_game


def score_farm(farm: Farm, cards, equipment) -> Score:
    """Score one farm. ``cards``/``equipment`` are the card set's physical card and tile lists.
    Scoring consumes nothing (FOG-END-9); fallow cards score nothing (FOG-RUL-37)."""
    printed, equipment_vp, empty, end_game = vp_items(farm, *card_tables(cards), equipment)
    return Score(
        printed_vp=printed,
        equipment=equipment_vp,
        coins=farm.coins // 3,
        food=farm.food // 2,
        empty_towers=empty,
        end_game=end_game,
        locations=farm.face_up_locations(),
        coins_held=farm.coins,
    )


def winners(scores: list[Score]) -> list[int]:
    """Seats that win: best total, then most locations, then most coins; the rest share (FOG-END-10..13)."""
    best = max(s.key for s in scores)
    return [i for i, s in enumerate(scores) if s.key == best]
