"""The one action numbering shared by every decision kind (a single ``Discrete`` space).

The table is declared once in ``ActionLayout.RANGES``; the README's action table is generated from
it (``ActionLayout.table()``). Ranges depend on the farm size (``cells = farm_size**2``) and on the
number of Equipment tiles in the card set (a set-aside slot per tile).
"""

from __future__ import annotations

from ..core.actions import ActionLayout as _CoreLayout
from ..core.actions import ActionRange, count_vectors
from .cards import EQUIPMENT_DRAW, HAND_SIZE, PILES

# Draw splits: every (Field, Livestock, Construction, Building) count vector with sum <= 6. The rules'
# normal case uses the 50 vectors of sum 6 with >= 3 non-zero entries (FOG-DRAW-4); the others are
# reachable only when piles run short (FOG-RUL-14), so the numbering covers them too.
SPLITS: tuple[tuple[int, ...], ...] = count_vectors(len(PILES), HAND_SIZE)
SPLIT_INDEX = {s: i for i, s in enumerate(SPLITS)}
MARKET_SALES = 3  # sell 0, 1 or 2 food (FOG-ACT-MARKET-2)
ABILITY_OPTIONS = 4  # a trade done 0..3 times

# (name, size expression, meaning). Sizes: "cells" = farm_size**2, "tiles" = equipment tiles in the set.
RANGES: tuple[tuple[str, str, str], ...] = (
    ("split", "splits", "upkeep draw: take the split SPLITS[i] = (Field, Livestock, Construction, Building)"),
    ("pick", "hand", "pick the card in hand/display slot i (slots sorted by card id)"),
    ("build", "cells", "A: build the picked location at cell i"),
    ("tower", "cells", "B: build a Water Tower at cell i (discard the pick, pay 2 coins)"),
    ("silo", "cells", "C: build a Silo at cell i (discard the pick)"),
    ("market", "market", "D: go to market selling i food (gain 2 + 2*i coins)"),
    ("restore", "cells", "E: restore the fallow card at cell i (discard the pick, pay 1 coin)"),
    ("pay_water", "cells", "pay one water of the current cost from the tower at cell i"),
    ("store_water", "cells", "put one gained water on the tower at cell i"),
    ("harvest", "cells", "harvest: pay and apply the harvest ability of the location at cell i"),
    ("harvest_end", "one", "harvest: end this harvest (unpaid locations turn fallow)"),
    ("keep_equipment", "draw", "keep drawn equipment tile i (the others go to the bottom)"),
    ("place_equipment", "cells", "place the kept equipment tile on the location at cell i"),
    ("set_aside", "one", "set the kept equipment tile aside"),
    ("attach", "tiles", "while building: attach set-aside tile i to the new location"),
    ("attach_done", "one", "while building: attach no more set-aside tiles"),
    ("ability_target", "cells", "card ability: choose the tower/silo at cell i"),
    ("ability_option", "options", "card ability: do the trade i times"),
    ("noop", "one", "parallel env only: wait (no decision for this agent)"),
)


class ActionLayout(_CoreLayout):
    """The core layout of ``RANGES`` for one farm size and equipment count."""

    # the range starts the core layout sets with setattr (declared for mypy/mypyc; no runtime effect)
    SPLIT: int
    PICK: int
    BUILD: int
    TOWER: int
    SILO: int
    MARKET: int
    RESTORE: int
    PAY_WATER: int
    STORE_WATER: int
    HARVEST: int
    HARVEST_END: int
    KEEP_EQUIPMENT: int
    PLACE_EQUIPMENT: int
    SET_ASIDE: int
    ATTACH: int
    ATTACH_DONE: int
    ABILITY_TARGET: int
    ABILITY_OPTION: int
    NOOP: int

    def __init__(self, farm_size: int, equipment_tiles: int = 30):
        self.farm_size = farm_size
        self.cells = farm_size * farm_size
        self.equipment_tiles = max(1, equipment_tiles)
        sizes = {
            "splits": len(SPLITS),
            "hand": HAND_SIZE,
            "cells": self.cells,
            "market": MARKET_SALES,
            "one": 1,
            "draw": EQUIPMENT_DRAW,
            "tiles": self.equipment_tiles,
            "options": ABILITY_OPTIONS,
        }
        super().__init__((name, sizes[size_key], meaning) for name, size_key, meaning in RANGES)
        # decoded[i] == decode(i), without decode's type and range checks: the engine reads it for actions
        # it has already found legal (speed; tests/fields_of_green/env/test_engine_speed.py compares them)
        self.decoded: tuple[tuple[str, int], ...] = tuple(self.decode(i) for i in range(self.size))
        # market_choices[k]: the market ids selling 0..k food, what the act legality adds for min(2, food)
        self.market_choices: tuple[range, ...] = tuple(
            range(self.MARKET, self.MARKET + k + 1) for k in range(MARKET_SALES)
        )
        # pick_choices[n]: the pick ids of slots 0..n-1, the legal list of a pick from n cards (FOG-ACT-3,
        # FOG-2P-6); up to twice a hand (a 2-player display holds at most HAND_SIZE)
        self.pick_choices: tuple[tuple[int, ...], ...] = tuple(
            tuple(range(self.PICK, self.PICK + n)) for n in range(2 * HAND_SIZE + 1)
        )


__all__ = [
    "ABILITY_OPTIONS",
    "ActionLayout",
    "ActionRange",
    "EQUIPMENT_DRAW",
    "HAND_SIZE",
    "MARKET_SALES",
    "RANGES",
    "SPLITS",
    "SPLIT_INDEX",
]
