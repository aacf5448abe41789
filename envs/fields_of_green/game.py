"""The Fields of Green rules engine: one decision at a time, pure Python, seat-indexed.

The game is a stack machine. Each frame on ``_stack`` is a tuple whose first item names it. Decision
frames (``DECISIONS``) wait for the player in their second item; every other frame is a continuation
that ``_advance`` runs at once and that may push further frames. Phase frames (``year``, ``draw`` …)
push the steps of a year, so the whole flow of the rulebook reads top-down in ``_run``.

All randomness is drawn at setup from ``seed`` (pile order, equipment stack, first player, the
2-player offer shuffles), so the state holds no random generator: clones and JSON round trips are
exact, and the same seed with the same actions gives the same game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from functools import lru_cache
from itertools import filterfalse
from pathlib import Path
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr

from ..core.datafiles import DataText
from ..core.protocol import IllegalActionError  # one class for every game (FOG-RUL-16: state unchanged)
from ..core.records import embed_files, make_pins
from ..core.seeding import check_seed
from . import effects
from ._masked import _MASKED  # (its class subclasses tuple, which mypyc cannot compile: a plain module)
from .actions import MARKET_SALES, SPLIT_INDEX, SPLITS, ActionLayout
from .cards import DEFAULT_CARD_SET, EQUIPMENT_DRAW, HAND_SIZE, PILES, CardSet, load_card_set
from .farm import EMPTY, SILO, TOWER, Farm, geometry
from .scoring import Score, score_farm, winners

YEARS = 4  # FOG-GEN-2
TURNS = 6  # Action phase turns per year (FOG-ACT-1)
ACTIONS_PER_GAME = YEARS * TURNS  # actions A-E per player and game: 24 (FOG-ACT-1, FOG-2P-9)
STARTING_COINS = 15  # FOG-SETUP-4
INCOME = {"coins": 3, "water": 2, "food": 1}  # FOG-UPKEEP-4
TOWER_COST = 2  # FOG-ACT-TOWER-2
RESTORE_COST = 1  # FOG-ACT-RESTORE-1
MARKET_BASE, MARKET_PER_FOOD = 2, 2  # FOG-ACT-MARKET-1/2
MAX_TILES_PER_LOCATION = 2  # FOG-EQUIP-10
DEFAULT_DIRECTIONS = ("clockwise", "counterclockwise", "clockwise", "counterclockwise")  # FOG-RUL-4
ENV_NAME = "fields_of_green_v0"  # what records and states pin (SPEC.env_name of the face module)
STATE_FORMAT = "farmgames.fields_of_green.state/1"

#: the decision frames, in a fixed order (the observer's one-hot of the pending decision follows it)
DECISION_KINDS: tuple[str, ...] = (
    "split",
    "pick",
    "act",
    "pay_water",
    "store_water",
    "harvest",
    "keep_equipment",
    "place_equipment",
    "attach",
    "ability_target",
    "ability_option",
)
DECISIONS = frozenset(DECISION_KINDS)
# Continuation frames that act for the seat in their second item. Running one (like applying any
# decision but those in _NO_FARM_DECISIONS) bumps that seat's Farm.version, so observers re-read only farms
# that may have changed; a new frame that changes a farm must be listed here
# (tests/fields_of_green/env/test_observer_incremental.py checks).
_SEAT_FRAMES = frozenset(
    {
        "income_for",
        "draw_fixed",
        "harvest_close",
        "finish_build",
        "immediate",
        "finish_harvest",
        "ops",
        "gain_equipment",
    }
)
# Game.public_version (the public state outside the farms) is bumped by every decision and continuation frame
# except those listed here, which change only the deciding seat's farm (and the harvest markers of the
# farm being harvested, game.harvested). A new frame or decision is therefore counted as public by
# default; listing it here is a promise tests/fields_of_green/env/test_engine_speed.py checks on random games.
_FARM_ONLY_DECISIONS = frozenset(
    {"pay_water", "store_water", "harvest", "place_equipment", "attach", "ability_target", "ability_option"}
)
_FARM_ONLY_FRAMES = frozenset({"income_for", "immediate", "finish_harvest", "ops"})
# Decisions that leave every farm untouched: applying them does not bump Farm.version.
_NO_FARM_DECISIONS = frozenset({"split", "pick", "keep_equipment"})
assert "pick" in _NO_FARM_DECISIONS and "pick" not in _FARM_ONLY_DECISIONS  # what Game._apply's pick path does
assert "act" not in _NO_FARM_DECISIONS and "act" not in _FARM_ONLY_DECISIONS  # what Game._apply's act path does
# Decision frames that _skip_decision may drop; the others are never skipped (a set test saves the call).
# An act frame is dropped by Game._advance itself (no picked card: nothing to act with).
_SKIPPABLE = frozenset({"pick", "attach", "harvest"})
_SPLIT_NONZERO = [sum(1 for c in s if c) for s in SPLITS]
_SPLIT_SUM = [sum(s) for s in SPLITS]
# _SPLIT_CANDIDATES[total][need]: (index, split) of every split drawing `total` cards from >= `need` piles
_SPLIT_CANDIDATES = [
    [
        tuple((i, s) for i, s in enumerate(SPLITS) if _SPLIT_SUM[i] == total and _SPLIT_NONZERO[i] >= need)
        for need in range(4)
    ]
    for total in range(HAND_SIZE + 1)
]


def harvest_cost(farm: Farm, cell: int, locations, equipment) -> tuple[int, int, int]:
    """Harvest cost (coins, water, food) of the location at ``cell`` after the permanent
    ``harvest_discount`` of its equipment, never below 0. Shared by the engine and the bots."""
    cost = locations[farm.grid[cell]].harvest_cost
    dc, dw, df = harvest_discount(farm.equipment.get(cell, ()), equipment)
    return max(cost.coins - dc, 0), max(cost.water - dw, 0), max(cost.food - df, 0)


def harvest_discount(tile_ids, equipment) -> tuple[int, int, int]:
    """Total (coins, water, food) taken off a harvest cost by the permanent tiles ``tile_ids``."""
    coins = water = food = 0
    for tile_id in tile_ids:
        tile = equipment[tile_id]
        if tile.timing == "permanent":
            for op in tile.effect:
                d = op.get("harvest_discount")
                if d:
                    coins += d.get("coins", 0)
                    water += d.get("water", 0)
                    food += d.get("food", 0)
    return coins, water, food


@lru_cache(maxsize=16)
def _cached_card_set(path: str | None, stamp: tuple[int, int] = (0, 0)) -> CardSet:
    return load_card_set(path)


def _card_set_for(card_set: str | Path | DataText | None) -> CardSet:
    """The validated card set: cached per file and modification stamp (an edited file is read again, and
    records pin its hash), per embedded text, or the shipped base set."""
    if card_set is None:
        return _cached_card_set(None)
    if isinstance(card_set, DataText):
        return _cached_embedded(card_set)
    if not isinstance(card_set, (str, Path)):
        raise ValueError(f"card_set must be a path of a card-set YAML file (or None), got {card_set!r}")
    try:
        st = Path(card_set).stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except (OSError, ValueError):
        stamp = (0, 0)  # load_card_set names the problem
    return _cached_card_set(str(card_set), stamp)


@lru_cache(maxsize=8)
def _cached_embedded(data: DataText) -> CardSet:
    return load_card_set(data)


# _SEAT_ORDER[n][first]: the seats in order from the first player (FOG-DRAW-1, FOG-RUL-15); _TURN_PICKS and
# _TURN_ACTS: a 3-4 player turn's frames in that order, as pushed (last-first) by the turn and reveal frames
# (2 players too: a loaded state may hold those frames)
# (speed: prebuilt tuples instead of two comprehensions per turn; frames are immutable, so games share them)
_SEAT_ORDER = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (2, 3, 4)}
_TURN_PICKS = {n: tuple((("reveal",), *(("pick", p) for p in reversed(o))) for o in _SEAT_ORDER[n]) for n in (2, 3, 4)}
_TURN_ACTS = {n: tuple((("end_turn",), *(("act", p) for p in reversed(o))) for o in _SEAT_ORDER[n]) for n in (2, 3, 4)}

# _ACTIONS_2P[first]: the 2-player action phase as pushed (last-first): 12 turns, the seats alternating from the
# first player, each a pick and an act between the turn2 and after_turn2 frames (FOG-2P-5, FOG-RUL-33)
_ACTIONS_2P = tuple(
    tuple(
        reversed(
            [
                frame
                for i in range(2 * TURNS)
                for frame in (
                    ("turn2", i),
                    ("pick", first if i % 2 == 0 else 1 - first),
                    ("act", first if i % 2 == 0 else 1 - first),
                    ("after_turn2", i),
                )
            ]
        )
    )
    for first in range(2)
)

# every split is legal while each pile holds a full hand (FOG-DRAW-2..4: 6 cards from at least 3 piles)
_ALL_SPLITS = tuple(i for i, _ in _SPLIT_CANDIDATES[HAND_SIZE][3])


@lru_cache(maxsize=32)
def _cached_layout(farm_size: int, equipment_tiles: int) -> ActionLayout:
    return ActionLayout(farm_size, equipment_tiles)  # read-only once built: shared by every game


def _mask_of(size: int, actions: Iterable[int]) -> bytes:
    """The plain mask: one byte per action of ``size``, 1 for each of ``actions``."""
    bits = bytearray(size)
    for a in actions:
        bits[a] = 1
    return bytes(bits)


class _MaskTable:
    """Prebuilt mask bytes of one action layout, for ``Game.legal_mask_bytes`` (read-only, shared).

    ``picks[n]`` is the mask of ``layout.pick_choices[n]``, ``all_splits`` that of ``_ALL_SPLITS``; an act's
    mask is joined from ``act_head`` (every id before BUILD), its build, tower and silo blocks (one byte per
    cell each: a copy of ``Farm.frontier_mask()`` or ``no_cells``), ``market[k]`` (selling 0..k food), its
    restore block and ``act_tail`` (every id after it), so the ranges must follow each other (checked).
    Pickles as a reference to the cached table (``_cached_masks``)."""

    __slots__ = (
        "key",
        "zeros",
        "picks",
        "all_splits",
        "splits",
        "split_at",
        "act_head",
        "act_tail",
        "no_cells",
        "market",
    )

    def __init__(self, layout: ActionLayout):
        self.key = (layout.farm_size, layout.equipment_tiles)
        size, cells = layout.size, layout.cells
        L = layout
        if not (L.TOWER == L.BUILD + cells and L.SILO == L.TOWER + cells and L.MARKET == L.SILO + cells):
            raise RuntimeError("the act ranges BUILD, TOWER, SILO, MARKET, RESTORE must follow each other")
        if L.RESTORE != L.MARKET + MARKET_SALES:
            raise RuntimeError("the act ranges BUILD, TOWER, SILO, MARKET, RESTORE must follow each other")
        self.zeros = bytes(size)
        self.picks = tuple(_mask_of(size, choices) for choices in L.pick_choices)
        self.all_splits = _mask_of(size, [L.SPLIT + i for i in _ALL_SPLITS])
        self.splits: dict[tuple[int, ...], bytes] = {}  # split_mask's memo (the one part filled later)
        self.split_at = L.SPLIT
        self.act_head = bytes(L.BUILD)
        self.act_tail = bytes(size - L.RESTORE - cells)
        self.no_cells = bytes(cells)
        self.market = tuple(_mask_of(MARKET_SALES, range(k + 1)) for k in range(MARKET_SALES))

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        return _cached_masks, self.key

    def split_mask(self, sizes: tuple[int, ...]) -> bytes:
        """The mask of the splits legal for these pile sizes (``_legal_split_tuple``), memoised by the capped
        sizes as that is."""
        key = tuple(map(min, sizes, _HAND_CAPS))
        mask = self.splits.get(key)
        if mask is None:
            mask = self.splits[key] = _mask_of(len(self.zeros), map(self.split_at.__add__, _legal_split_memo(key)))
        return mask


@lru_cache(maxsize=32)
def _cached_masks(farm_size: int, equipment_tiles: int) -> _MaskTable:
    return _MaskTable(_cached_layout(farm_size, equipment_tiles))


_HAND_CAPS = (HAND_SIZE,) * len(PILES)


def _legal_split_tuple(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``_legal_splits`` for these pile sizes, fast (tests/fields_of_green/env/test_engine_speed.py compares).

    Speed: the filter over up to 50 candidate splits costs ~9 µs. While every pile still holds a full hand
    (97% of draws in random games) every 6-card split from 3 or more piles is legal: a constant. Other sizes
    are memoised with each pile's size capped at a hand: no split takes more than a hand from a pile, so the
    legal splits are the same, and the at most 7^4 capped keys recur (uncapped, 3% of them did)."""
    if min(sizes) >= HAND_SIZE:
        return _ALL_SPLITS
    return _legal_split_memo(tuple(map(min, sizes, _HAND_CAPS)))


@lru_cache(maxsize=4096)
def _legal_split_memo(sizes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(_legal_splits(list(sizes)))


def _legal_splits(sizes: list[int]) -> list[int]:
    """Indices into SPLITS legal for these pile sizes (FOG-DRAW-2..4, FOG-RUL-14)."""
    total = min(HAND_SIZE, sum(sizes))
    need = min(3, sum(1 for s in sizes if s))  # FOG-RUL-14
    return [
        i
        for i, s in _SPLIT_CANDIDATES[total][need]
        if s[0] <= sizes[0] and s[1] <= sizes[1] and s[2] <= sizes[2] and s[3] <= sizes[3]
    ]


def _shuffle(rng: random.Random, x: list[int]) -> None:
    """``rng.shuffle(x)``: the same permutation, drawing the same bits from ``rng`` (FOG-SETUP-2/9).

    Speed: a game's setup shuffles ≈ 160 cards and ``Random.shuffle`` makes a Python-level ``_randbelow``
    call per card (≈ 40% of a new game). This is CPython's algorithm (``shuffle`` over
    ``_randbelow_with_getrandbits``) with that call inlined and each position's bit count prebuilt
    (``_shuffle_steps``); test_engine_speed.py compares it with ``rng.shuffle`` on many seeds and lengths, so a
    Python whose shuffle differs fails there."""
    getrandbits = rng.getrandbits
    for i, k in _shuffle_steps(len(x)):
        j = getrandbits(k)  # _randbelow(i + 1): k bits, drawn again while j >= i + 1
        while j > i:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


@lru_cache(maxsize=64)
def _shuffle_steps(n: int) -> tuple[tuple[int, int], ...]:
    """The positions ``Random.shuffle`` swaps over ``n`` items, last first, each with ``(i + 1).bit_length()``."""
    return tuple((i, (i + 1).bit_length()) for i in reversed(range(1, n)))


def _card_set_reference(card_set: str | Path | CardSet | DataText | None) -> str | None:
    """What a record stores to reload the set: None for the base set, else the file it came from."""
    if card_set is None:
        return None
    if isinstance(card_set, DataText):
        return card_set.source
    path = card_set.path if isinstance(card_set, CardSet) else str(card_set)
    return None if Path(path) == DEFAULT_CARD_SET else path


def _directions(value: Iterable[str]) -> tuple[str, ...]:
    aliases = {"cw": "clockwise", "left": "clockwise", "ccw": "counterclockwise", "right": "counterclockwise"}
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"pass_directions must be a list of {YEARS} of 'clockwise'/'counterclockwise', got {value!r}")
    out = tuple(aliases.get(v, v) if isinstance(v, str) else v for v in value)
    if len(out) != YEARS or any(v not in ("clockwise", "counterclockwise") for v in out):
        raise ValueError(
            f"pass_directions must list {YEARS} of 'clockwise'/'counterclockwise' (or cw/ccw), got {tuple(value)!r}"
        )
    return out


@mypyc_attr(allow_interpreted_subclasses=True)  # (tests subclass it; __new__ then skips __init__)
class Game:
    """A complete game of Fields of Green for 2-4 players.

    Variant keywords (all validated): ``farm_size`` (odd, 5..25, default 9, FOG-RUL-8), ``card_set``
    (path to a card-set YAML, default the base set), ``fixed_split`` ({year: (F, L, C, B)}, FOG-RUL-3),
    ``pass_directions`` (4 entries, FOG-RUL-4), ``first_player`` (seat or None for a seeded random
    seat, FOG-RUL-28), ``auto_single`` (apply decisions that have exactly one legal action, default
    False).
    """

    # Speed: every attribute is a slot (CPython 3.11 keeps at most 30 instance attributes as inline values;
    # past that every self.x is a dict lookup), and compiled (envs/_native.py) a native attribute; there is no
    # instance dict, so nothing can be set from outside. clone copies every one (test_engine_paths.py checks).
    __slots__ = (
        "cards",
        "num_players",
        "seed",
        "fixed_split",
        "pass_directions",
        "auto_single",
        "geometry",
        "layout",
        "_info",
        "_harvest_base",
        "piles",
        "equipment_stack",
        "first_player",
        "towers_left",
        "silos_left",
        "farms",
        "year",
        "turn",
        "phase",
        "direction",
        "hands",
        "picks",
        "revealed",
        "offer",
        "display",
        "draw_counts",
        "discard",
        "removed_equipment",
        "harvested",
        "history",
        "_stack",
        "current_player",
        "_legal_now",
        "_mask",
        "_masks",
        "public_version",
        "pick_version",
        "variant",
        "_offer_keys",
        "_final_scores",
        "_deal",
    )

    def __init__(
        self,
        num_players: Any = 4,  # (Any: validated below; compiled, a typed argument would raise TypeError first)
        seed: Any = 0,
        *,
        farm_size: Any = 9,
        card_set: Any = None,
        fixed_split: Any = None,
        pass_directions: Any = DEFAULT_DIRECTIONS,
        first_player: Any = None,
        auto_single: Any = False,
        _advance_now: bool = True,  # (False: infostate._fresh sets a deal before the first _advance)
    ):
        if isinstance(num_players, bool) or not isinstance(num_players, int) or not 2 <= num_players <= 4:
            raise ValueError(f"num_players must be 2, 3 or 4 (FOG-GEN-1), got {num_players!r}")
        if (
            isinstance(farm_size, bool)
            or not isinstance(farm_size, int)
            or not (5 <= farm_size <= 25 and farm_size % 2)
        ):
            raise ValueError(f"farm_size must be an odd integer from 5 to 25 (FOG-RUL-8), got {farm_size!r}")
        seed = check_seed(seed)  # a non-negative integer, named when refused
        if first_player is not None and (
            isinstance(first_player, bool) or not isinstance(first_player, int) or not 0 <= first_player < num_players
        ):
            raise ValueError(f"first_player must be a seat 0..{num_players - 1} or None, got {first_player!r}")
        if not isinstance(auto_single, bool):
            raise ValueError(f"auto_single must be True or False, got {auto_single!r}")
        if isinstance(card_set, CardSet):
            self.cards = card_set
        else:
            self.cards = _card_set_for(card_set)
        self.num_players: int = num_players
        self.seed: int = seed
        self.fixed_split = self._check_fixed_split(fixed_split)
        self.pass_directions = _directions(pass_directions)
        self.auto_single: bool = auto_single
        self._deal: Any = None  # (infostate's resampled states set their deal here)
        self.variant: dict[str, Any] = {
            "farm_size": farm_size,
            "card_set": _card_set_reference(card_set),
            "fixed_split": {str(k): list(v) for k, v in self.fixed_split.items()} if self.fixed_split else None,
            "pass_directions": list(self.pass_directions),
            "first_player": first_player,
            "auto_single": self.auto_single,
        }
        self.geometry = geometry(farm_size)
        self.layout = _cached_layout(farm_size, len(self.cards.equipment))
        self._masks = _cached_masks(farm_size, len(self.cards.equipment))
        self._info = self.cards.location_info  # per card id (pile, subtype, ability kind): shared, read-only
        self._harvest_base = self.cards.harvest_base  # card id -> harvest cost, for harvest abilities only
        self._final_scores: tuple[tuple[int, ...], list[Score]] | None = None  # (scores(): kept at the end)
        self._setup(first_player, _advance_now)

    # ------------------------------------------------------------------ setup (FOG-SETUP)

    @staticmethod
    def _check_fixed_split(value: Any) -> dict[int, tuple[int, ...]]:
        if value is None or (isinstance(value, dict) and not value):
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"fixed_split must be a mapping {{year: (F, L, C, B)}}, got {value!r}")
        out = {}
        years = {str(y): y for y in range(1, YEARS + 1)}  # ints, or their text (JSON object keys)
        for year, split in value.items():
            y = years.get(year) if isinstance(year, str) else year
            if isinstance(y, bool) or not isinstance(y, int) or y not in range(1, YEARS + 1):
                raise ValueError(f"fixed_split: year must be an integer 1..{YEARS}, got {year!r}")
            if not isinstance(split, (list, tuple)) or any(type(c) is not int for c in split):
                raise ValueError(f"fixed_split[{year}] must be 4 integer counts (F, L, C, B), got {split!r}")
            s = tuple(split)
            if s not in SPLIT_INDEX or sum(s) != HAND_SIZE or sum(1 for c in s if c) < 3:
                raise ValueError(
                    f"fixed_split[{year}] must be 4 counts adding up to 6 from at least 3 piles (FOG-DRAW-2/3), "
                    f"got {split!r}"
                )
            out[y] = s
        if set(out) != set(range(1, YEARS + 1)):
            raise ValueError(f"fixed_split must give a split for every year 1..{YEARS}, got years {sorted(out)}")
        return out

    def _setup(self, first_player: int | None, advance: bool = True) -> None:
        rng = random.Random(self.seed)
        cards = self.cards
        self.piles: list[list[int]] = []
        for pile in PILES:
            ids = cards.pile_cards(pile)
            _shuffle(rng, ids)
            self.piles.append(ids)  # top of a pile = last item
        self.equipment_stack: list[int] = list(range(len(cards.equipment)))
        _shuffle(rng, self.equipment_stack)  # top = last item, bottom = index 0 (FOG-SETUP-9)
        self.first_player = rng.randrange(self.num_players) if first_player is None else first_player
        # one shuffle key per offer-pile position and year, drawn now so the state needs no RNG (FOG-2P-3)
        self._offer_keys = [[rng.random() for _ in range(2 * HAND_SIZE)] for _ in range(YEARS)]
        self.towers_left = cards.tower_count - self.num_players  # FOG-SETUP-5
        self.silos_left = cards.silo_count - self.num_players
        if self.towers_left < 0 or self.silos_left < 0:
            raise ValueError(f"the card set has too few towers/silos for {self.num_players} players")
        c = self.geometry.centre
        self.farms: list[Farm] = []
        for _ in range(self.num_players):
            farm = Farm(self.geometry, self._info)
            tower, silo = self.geometry.cell(c, c), self.geometry.cell(c, c + 1)  # FOG-FARM-8
            farm.place(tower, TOWER)
            farm.tower_water[tower] = cards.tower_start_water  # FOG-SETUP-6
            farm.tower_capacity[tower] = cards.tower_capacity
            farm.place(silo, SILO)
            farm.silo_capacity[silo] = cards.silo_capacity
            farm.food = min(1, cards.silo_capacity)  # FOG-SETUP-7
            farm.coins = STARTING_COINS
            self.farms.append(farm)
        self.year = 0
        self.turn = 0
        self.phase = "setup"
        self.direction = "clockwise"
        self.hands: list[list[int]] = [[] for _ in range(self.num_players)]
        self.picks: list[int | None] = [None] * self.num_players
        self.revealed = False
        self.offer: list[int] = []
        self.display: list[int] = []
        self.draw_counts: list[list[int]] = [[0] * 4 for _ in range(self.num_players)]
        self.discard: list[int] = []
        self.removed_equipment: list[int] = []
        self.harvested: set[int] = set()
        self.history: list[int] = []
        self._stack: list[tuple] = [("year",)]
        # The current decision's legal actions, computed once per state: a list or prebuilt tuple
        # (legal_actions), or _MASKED when legal_mask_bytes() was asked first and keeps its mask bytes in
        # _mask (apply checks either). None when not computed yet: the engine's steps set it so, and code
        # outside the engine that edits the state sets ``_legal`` (the property below) to None.
        self._legal_now: list[int] | tuple[int, ...] | None = None
        self._mask = b""
        self.current_player: int | None = None  # (set by _advance below: see the current_player note)
        # Bumped whenever a step may change public state outside the farms (see _FARM_ONLY_DECISIONS), so an
        # observer skips comparing piles, hands, picks, counts and phase flags while it stands still.
        # Like Farm.version, not part of the game state (not saved, copied by clone).
        self.public_version = 0
        # Bumped instead of public_version by a 3-4 player pick, which changes only the picker's hand and pick
        # (FOG-ACT-3): an observer then compares only the hand sizes and picks. Not game state either.
        self.pick_version = 0
        if advance:
            self._advance()

    # ------------------------------------------------------------------ public API

    # current_player: the seat that must decide now (the top decision frame's seat), None when the game is over.
    # Speed: a slot, not a property (the adapters read it 2-3 times per step, and a property is a Python call):
    # written where the machine stops (_advance, apply's pick path, clone) and whenever ``_legal`` is reset,
    # which is what every edit of the state from outside does (scenarios, loaded states, the bots' and the
    # resamplers' clones: see _legal). tests/fields_of_green/env/test_engine_current.py compares it with the
    # stack's top after every decision, through clones, JSON, pickles, scenarios and the bots' clones.

    @property
    def _legal(self) -> list[int] | tuple[int, ...] | None:
        """The legal-list cache (``_legal_now``) as code outside the engine sees it. Setting it -- to None,
        after editing the stack, hands or farms -- also reads ``current_player`` from the stack again."""
        return self._legal_now

    @_legal.setter
    def _legal(self, value: list[int] | tuple[int, ...] | None) -> None:
        self._legal_now = value
        stack = self._stack
        top = stack[-1] if stack else ()
        self.current_player = top[1] if len(top) > 1 else None

    @property
    def decision(self) -> tuple | None:
        """The pending decision frame: (kind, seat, context...); None when the game is over."""
        return self._stack[-1] if self._stack else None

    @property
    def decision_kind(self) -> str | None:
        return self._stack[-1][0] if self._stack else None

    @property
    def two_player(self) -> bool:
        return self.num_players == 2

    def is_terminal(self) -> bool:
        return not self._stack

    @property
    def num_actions(self) -> int:
        return self.layout.size

    def legal_actions(self) -> list[int]:
        """Sorted legal action indices for the current decision (empty when the game is over).
        A fresh list each call: callers may shuffle it without touching the engine's cache."""
        legal = self._legal_now
        if legal is None or legal is _MASKED:  # (only a mask kept by legal_mask_bytes: the list afresh)
            legal = self._legal_now = self._compute_legal() if self._stack else []
        return list(legal)

    def legal_mask_bytes(self) -> bytes:
        """``legal_actions()`` as one 0/1 byte per action (``num_actions`` bytes): the optional mask hook of
        ``core.protocol.Game``, which the adapters copy into a mask with one memcpy instead of a loop.

        Speed: the mask is built without the list where that is cheap -- a pick's and a full-piles split's
        are prebuilt per layout (``_MaskTable``), an act's is joined from byte blocks (``_act_mask``) -- and
        kept (``_mask``, with ``_legal_now`` set to ``_MASKED``) for ``apply``'s check, so the env loop never builds
        the legal list; the other decisions' (9 in 40, with ~2-3 legal actions) come from the list. A list
        already computed is turned into bytes. ``tests/fields_of_green/env/test_engine_mask.py`` compares it
        with ``legal_actions()``."""
        legal = self._legal_now
        if legal is not None:  # (one test on the env loop's path, where apply and _advance left None)
            return self._mask if legal is _MASKED else _mask_of(self.layout.size, legal)
        stack = self._stack
        if not stack:
            return self._masks.zeros
        frame = stack[-1]
        kind = frame[0]
        if kind == "pick":  # slots 0..n-1 of the hand or display (FOG-ACT-3, FOG-2P-6): prebuilt per n
            n = len(self.display if self.num_players == 2 else self.hands[frame[1]])
            picks = self._masks.picks
            mask = picks[n] if n < len(picks) else _mask_of(self.layout.size, self._compute_legal())
        elif kind == "act":  # (the kinds in the order of their frequency)
            p = frame[1]
            mask = self._act_mask(p, self.farms[p])
        elif kind == "split":  # (every split is legal while each pile holds a full hand: see _legal_split_tuple)
            sizes = tuple(map(len, self.piles))
            mask = self._masks.all_splits if min(sizes) >= HAND_SIZE else self._masks.split_mask(sizes)
        else:
            mask = _mask_of(self.layout.size, self._compute_legal())
        self._mask = mask
        self._legal_now = _MASKED
        return mask

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.layout.size, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    @property
    def noop_action(self) -> int:
        """The ``noop`` index of the action table (never legal here; the parallel env's "wait")."""
        return self.layout.NOOP

    def deciders(self) -> list[int]:
        """Seats that decide in the current step, in the order the engine applies them: the hidden
        picks of 3-4 players are simultaneous (FOG-ACT-4), so every seat still to pick this turn
        decides together; every other decision is one seat's."""
        frame = self.decision
        if frame is None:
            return []
        seat = frame[1]
        if frame[0] != "pick" or self.two_player:
            return [seat]
        # FOG-RUL-15: picks are collected in seat order from the first player; the seats still to pick
        # this turn are those after the current one in that order that have not picked yet.
        n = self.num_players
        order = [(self.first_player + i) % n for i in range(n)]
        out = [seat]
        for q in order[order.index(seat) + 1 :]:
            hand = self.hands[q]
            if self.picks[q] is None and hand and not (self.auto_single and len(hand) == 1):
                out.append(q)  # (a single-card hand is auto-picked by the engine with auto_single)
        return out

    def legal_actions_for(self, seat: int) -> list[int]:
        """What ``seat`` may choose in this step (see :meth:`deciders`): the current player's legal
        actions, or a later picker's own hand, untouched by the earlier picks of the same turn."""
        if seat == self.current_player:
            return self.legal_actions()
        return [self.layout.PICK + i for i in range(len(self.hands[seat]))]

    def describe_action_for(self, action: int, seat: int) -> str:
        """:meth:`describe_action` for ``seat``'s decision (a later picker's slot names its own card)."""
        kind, arg = self.layout.decode(int(action))
        if kind == "pick" and not self.two_player:
            hand = self.hands[seat]
            name = self.cards.locations[hand[arg]].name if arg < len(hand) else "?"
            return f"pick slot {arg}: {name}"
        return self.describe_action(action)

    def same_setup(self, other: Game) -> bool:
        """Whether ``other`` is a game of the same players, farm size and card set (for load_game)."""
        mine, theirs = self.cards, other.cards
        same_cards = theirs is mine or (theirs.sha256 == mine.sha256 if mine.sha256 else theirs.path == mine.path)
        return other.num_players == self.num_players and other.layout.size == self.layout.size and same_cards

    def apply(self, action: Any) -> None:  # (Any: numpy ints and refused values are handled below)
        """Apply one action for the current player. Raises IllegalActionError, state untouched."""
        # integers only: 3.7, 3.0, "3", True or inf must not silently become an action (FOG-RUL-16);
        # a plain int (type is int: never a bool) skips the isinstance tests
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise IllegalActionError(f"action must be an integer index, got {action!r}")
            action = int(action)
        legal = self._legal_now  # the per-state cache itself: only read here (legal_actions() hands out copies)
        if legal is _MASKED:
            # legal_mask_bytes() kept its mask (the env loop's case, tested first: speed): the action's byte
            # (an index past its end raises IndexError, a negative one is tested)
            try:
                if action < 0 or not self._mask[action]:
                    raise IndexError
            except (IndexError, ValueError):  # (compiled: an int past i64 raises ValueError, not IndexError)
                raise IllegalActionError(self._illegal_message(action, list(self._compute_legal()))) from None
        else:
            if legal is None:
                legal = self._legal_now = self._compute_legal() if self._stack else []
            if action not in legal:
                raise IllegalActionError(self._illegal_message(action, list(legal)))
        self.history.append(action)
        stack = self._stack
        frame = stack[-1]
        if frame[0] == "pick":
            # Speed: after a pick (the most frequent decision, with the act), when the next frame is a decision
            # _advance would stop at -- another seat's pick with cards in hand (3-4 players, 3 picks in 4) or the
            # picker's own act (2 players) -- there is no _advance call (the tests are _advance's; with
            # auto_single _advance runs, as it may apply that decision).
            # tests/fields_of_green/env/test_engine_paths.py plays both ways.
            self._apply(action)  # the pick itself (FOG-ACT-3, FOG-2P-6): _apply's first branch
            if stack and not self.auto_single:
                below = stack[-1]
                kind = below[0]
                if kind == "pick":
                    if self.num_players != 2 and self.hands[below[1]]:
                        self.current_player = below[1]
                        return
                elif kind == "act" and self.picks[below[1]] is not None:
                    self.current_player = below[1]
                    return
            self._advance()
            return
        self._apply(action)
        self._advance()

    def clone(self) -> Game:
        new = Game.__new__(Game)
        new.variant = self.variant
        new._offer_keys = self._offer_keys
        new._deal = self._deal
        # every slot (test_engine_paths.py checks that none is missed): shared read-only values first
        new.cards = self.cards
        new.num_players = self.num_players
        new.seed = self.seed
        new.fixed_split = self.fixed_split
        new.pass_directions = self.pass_directions
        new.auto_single = self.auto_single
        new.geometry = self.geometry
        new.layout = self.layout
        new._info = self._info
        new._harvest_base = self._harvest_base
        new.first_player = self.first_player
        new.towers_left = self.towers_left
        new.silos_left = self.silos_left
        new.year = self.year
        new.turn = self.turn
        new.phase = self.phase
        new.direction = self.direction
        new.revealed = self.revealed
        new.public_version = self.public_version
        new.pick_version = self.pick_version
        new.farms = [f.clone() for f in self.farms]
        new.piles = [p[:] for p in self.piles]
        new.equipment_stack = self.equipment_stack[:]
        new.hands = [h[:] for h in self.hands]
        new.picks = self.picks[:]
        new.offer = self.offer[:]
        new.display = self.display[:]
        new.draw_counts = [d[:] for d in self.draw_counts]
        new.discard = self.discard[:]
        new.removed_equipment = self.removed_equipment[:]
        new.harvested = set(self.harvested)
        new.history = self.history[:]
        new._stack = self._stack[:]
        new._legal_now = None
        new.current_player = self.current_player
        new._mask = self._mask  # (read only while _legal_now is _MASKED)
        new._masks = self._masks
        new._final_scores = None  # clones are edited (scenarios, determinisations): scored afresh
        return new

    def scores(self) -> list[Score]:
        """Score breakdowns of every seat (final once the game is over).

        At the end the scores are kept (the env reads them several times: rewards, infos, winners, the
        single env's final info: ≈ 25 µs each): a terminal state does not change, and the cache is keyed on
        the history's length and every farm's version (Score is frozen, the list a copy); clones start
        without it (``clone`` drops it)."""
        if not self.is_terminal():
            return [score_farm(f, self.cards.locations, self.cards.equipment) for f in self.farms]
        key = (len(self.history), *(f.version for f in self.farms))
        cached = self._final_scores
        if cached is None or cached[0] != key:
            cached = self._final_scores = (
                key,
                [score_farm(f, self.cards.locations, self.cards.equipment) for f in self.farms],
            )
        return list(cached[1])

    def winners(self) -> list[int]:
        return winners(self.scores())

    def returns(self) -> list[float]:
        """+1 for every winner and -1 for every other seat once the game is over; players still tied
        after the tie-breaks all get the winner outcome (FOG-END-13, FOG-RUL-35)."""
        if not self.is_terminal():
            return [0.0] * self.num_players
        win = set(self.winners())
        return [1.0 if p in win else -1.0 for p in range(self.num_players)]

    # ------------------------------------------------------------------ descriptions

    def describe_action(self, action: int) -> str:  # noqa: C901 - one line of text per action kind
        kind, arg = self.layout.decode(int(action))
        label = self.geometry.label
        cards = self.cards
        p = self.current_player
        if kind == "split":
            field, livestock, construction, building = SPLITS[arg]
            return f"draw {field} Field, {livestock} Livestock, {construction} Construction, {building} Building"
        if kind == "pick":
            source = self.display if self.two_player else (self.hands[p] if p is not None else [])
            name = cards.locations[source[arg]].name if p is not None and arg < len(source) else "?"
            return f"pick slot {arg}: {name}"
        if kind == "build":
            card = self.picks[p] if p is not None else None
            name = cards.locations[card].name if card is not None else "the picked card"
            return f"A: build {name} at {label(arg)}"
        if kind == "tower":
            return f"B: build a Water Tower at {label(arg)}"
        if kind == "silo":
            return f"C: build a Silo at {label(arg)}"
        if kind == "market":
            return f"D: go to market, sell {arg} food (+{MARKET_BASE + MARKET_PER_FOOD * arg} coins)"
        if kind == "restore":
            return f"E: restore the fallow card at {label(arg)}"
        if kind == "pay_water":
            return f"pay 1 water from the tower at {label(arg)}"
        if kind == "store_water":
            return f"store 1 water on the tower at {label(arg)}"
        if kind == "harvest":
            code = self.farms[p].grid[arg] if p is not None else -1
            name = cards.locations[code].name if code >= 0 else "?"
            return f"harvest {name} at {label(arg)}"
        if kind == "harvest_end":
            return "end the harvest (unpaid locations turn fallow)"
        if kind == "keep_equipment":
            frame = self.decision
            name = (
                cards.equipment[frame[2][arg]].name
                if frame and frame[0] == "keep_equipment" and arg < len(frame[2])
                else "?"
            )
            return f"keep equipment {arg}: {name}"
        if kind == "place_equipment":
            return f"place the kept equipment on {label(arg)}"
        if kind == "set_aside":
            return "set the kept equipment aside"
        if kind == "attach":
            aside = self.farms[p].set_aside if p is not None else []
            name = cards.equipment[aside[arg]].name if arg < len(aside) else "?"
            return f"attach set-aside {name} to the new location"
        if kind == "attach_done":
            return "attach no more equipment"
        if kind == "ability_target":
            return f"ability: choose the structure at {label(arg)}"
        if kind == "ability_option":
            return f"ability: trade {arg} time(s)"
        return "wait (no decision)"

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        try:
            what = f"{action} ({self.describe_action(action)})"
        except (ValueError, IndexError, TypeError):
            what = repr(action)
        if not self._stack:
            return f"action {what} rejected: the game is over"
        shown = "; ".join(f"{a}: {self.describe_action(a)}" for a in legal[:12])
        more = f"; … {len(legal) - 12} more" if len(legal) > 12 else ""
        return (
            f"action {what} is not legal for player {self.current_player} now "
            f"(decision: {self.decision_kind}); legal actions are {legal} — {shown}{more}"
        )

    def __str__(self) -> str:
        from .render import game_text

        return game_text(self)

    # ------------------------------------------------------------------ records and JSON

    def data_hashes(self) -> dict[str, str]:
        """SHA-256 of every data file this game was built from (records and states pin them)."""
        return {"card_set": self.cards.sha256}

    def record(self, embed: bool = False) -> dict:
        """A game record: seed, players, variant, actions and pins (package and env version, card-set
        hash); ``farmgames.envs.replay`` rebuilds the game. ``embed=True`` carries the card set's text too,
        so the record replays anywhere."""
        record = {
            "game": "fields_of_green",
            "num_players": self.num_players,
            "seed": self.seed,
            "variant": dict(self.variant),
            "actions": list(self.history),
            "pins": make_pins(ENV_NAME, self.data_hashes()),
        }
        return embed_files(record, {"card_set": self.cards.text}) if embed else record

    @classmethod
    def replay(cls, record: dict) -> Game:
        """The game a record describes (checked, pins included; errors name the field or the step)."""
        from types import SimpleNamespace

        from ..core.records import replay

        return replay(record, SimpleNamespace(name="fields_of_green", env_name=ENV_NAME, new_game=cls))  # type: ignore[arg-type]

    def to_json(self, embed: bool = False) -> str:
        """The whole state as JSON, pinned to the card set's hash and the versions (``embed=True``:
        with the card set's text, so it loads anywhere). ``from_json`` checks every invariant."""
        farms = []
        for f in self.farms:
            farms.append(
                {
                    "grid": f.grid,
                    "fallow": sorted(f.fallow),
                    "occupied": f.occupied,
                    "frontier": sorted(f.frontier),
                    "tower_water": sorted(f.tower_water.items()),
                    "tower_capacity": sorted(f.tower_capacity.items()),
                    "silo_capacity": sorted(f.silo_capacity.items()),
                    "food": f.food,
                    "coins": f.coins,
                    "vp_tokens": f.vp_tokens,
                    "equipment": sorted(f.equipment.items()),
                    "set_aside": f.set_aside,
                    "actions_taken": f.actions_taken,
                }
            )
        state = {
            "num_players": self.num_players,
            "seed": self.seed,
            "variant": self.variant,
            "piles": self.piles,
            "equipment_stack": self.equipment_stack,
            "first_player": self.first_player,
            "offer_keys": self._offer_keys,
            "towers_left": self.towers_left,
            "silos_left": self.silos_left,
            "farms": farms,
            "year": self.year,
            "turn": self.turn,
            "phase": self.phase,
            "direction": self.direction,
            "hands": self.hands,
            "picks": self.picks,
            "revealed": self.revealed,
            "offer": self.offer,
            "display": self.display,
            "draw_counts": self.draw_counts,
            "discard": self.discard,
            "removed_equipment": self.removed_equipment,
            "harvested": sorted(self.harvested),
            "history": self.history,
            "stack": [_frame_to_json(f) for f in self._stack],
        }
        out: dict[str, Any] = {"format": STATE_FORMAT, "pins": make_pins(ENV_NAME, self.data_hashes()), "state": state}
        if embed:
            out["files"] = {"card_set": self.cards.text}
        return json.dumps(out)

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """The game a state JSON describes. Every invariant the engine relies on is checked first
        (state.py); a broken one is a ValueError (``StateError``) naming the first violation."""
        from .state import game_from_json

        return game_from_json(cls, text)

    # ------------------------------------------------------------------ the machine

    def _advance(self) -> None:
        """Run continuation frames until a decision is pending or the game is over (and say whose it is)."""
        self._legal_now = None
        stack = self._stack
        while stack:
            frame = stack[-1]
            kind = frame[0]
            if kind in DECISIONS:
                # Speed: the two most frequent decisions tested here, without a call (a pick with cards to
                # pick from and an act with a picked card stand; test_engine_paths.py plays both ways)
                if kind == "pick":
                    if not (self.display if self.num_players == 2 else self.hands[frame[1]]):
                        self._skip_decision(frame)
                        continue
                elif kind == "act":
                    if self.picks[frame[1]] is None:  # the seat picked nothing this turn: no act (FOG-RUL-14)
                        stack.pop()
                        continue
                elif kind in _SKIPPABLE and self._skip_decision(frame):
                    continue
                if self.auto_single:
                    legal = self._compute_legal()
                    if len(legal) == 1:
                        self._apply(legal[0])
                        continue
                    self._legal_now = legal
                self.current_player = frame[1]
                return
            stack.pop()
            if kind in _SEAT_FRAMES:  # most continuations (speed: one call, not _run's name tests first)
                self._run_for_seat(kind, frame)
            else:
                self._run(frame)
        self.phase = "end"
        self.current_player = None
        self.public_version += 1

    def _skip_decision(self, frame: tuple) -> bool:
        """Drop frames where the rules leave nothing to choose (no tile to attach, no harvest ability)."""
        kind = frame[0]
        if kind == "attach":  # (the kinds _advance hands over most often first: it tests picks and acts itself)
            # (speed: no set-aside tile, nothing to attach, without the _attachable call)
            if self.farms[frame[1]].set_aside and self._attachable(frame[1], frame[2]):
                return False
            self._stack.pop()
            return True
        if kind == "harvest":
            # nothing left to choose when no face-up harvest site is still unused (FOG-HARVEST-2/3): the test
            # of _harvest_cells(p, unused_only=True) without building its sorted list (speed)
            farm = self.farms[frame[1]]
            fallow, harvested = farm.fallow, self.harvested
            for cell in self._harvest_sites(farm):
                if cell not in fallow and cell not in harvested:
                    return False
            self._stack.pop()
            self._stack.append(("harvest_close", frame[1]))
            return True
        if kind == "pick":
            if self.display if self.num_players == 2 else self.hands[frame[1]]:
                return False
            self._stack.pop()  # short piles (FOG-RUL-14) can leave a player without cards this turn
            if self.num_players == 2 and self._stack and self._stack[-1][:2] == ("act", frame[1]):
                self._stack.pop()
            return True
        return False

    def _seats(self) -> tuple[int, ...]:
        """Seats in order from the first player (FOG-DRAW-1, FOG-RUL-15): a prebuilt tuple (speed)."""
        return _SEAT_ORDER[self.num_players][self.first_player]

    def _push_in_order(self, frames: list[tuple]) -> None:
        """Push frames so that ``frames[0]`` runs first."""
        self._stack.extend(reversed(frames))

    def _run(self, frame: tuple) -> None:  # noqa: C901 - the rulebook's flow, one branch per frame, read top-down
        kind = frame[0]
        if kind in _SEAT_FRAMES:
            self._run_for_seat(kind, frame)
            return
        self.public_version += 1  # a phase frame (none is in _FARM_ONLY_FRAMES, all of which act for a seat)
        # (the frames of every turn are tested first, the 2-player ones (two per act) before the others: speed)
        if kind == "turn2":
            self.turn = frame[1] // 2 + 1
        elif kind == "after_turn2":
            self.picks = [None] * self.num_players
            if frame[1] % 2 == 1:  # FOG-2P-7/8: refill after each pair
                for _ in range(2):
                    if self.offer:
                        self.display.append(self.offer.pop())
                self.display.sort()
        elif kind == "reveal":
            self._pass_hands()  # FOG-ACT-5
            self.revealed = True  # FOG-ACT-6
            self._stack += _TURN_ACTS[self.num_players][self.first_player]  # acts in seat order, then end_turn
        elif kind == "end_turn":
            self.picks = [None] * self.num_players
            self.revealed = False
        elif kind == "turn":
            self.turn = frame[1]
            self.revealed = False
            self._stack += _TURN_PICKS[self.num_players][self.first_player]  # picks in seat order, then the reveal
        elif kind == "year":
            if self.year == YEARS:
                return  # FOG-END-1: nothing more is pushed; the stack empties and the game ends
            self.year += 1  # FOG-UPKEEP-2
            self.phase = "upkeep"
            self.direction = self.pass_directions[self.year - 1]  # FOG-UPKEEP-3, FOG-RUL-4
            self._push_in_order([("income",), ("draw",), ("actions",), ("harvest_phase",)])
        elif kind == "income":
            if self.year >= 2:  # FOG-UPKEEP-4/5
                self._push_in_order([("income_for", p) for p in self._seats()])
        elif kind == "draw":
            self.phase = "draw"
            self.draw_counts = [[0] * 4 for _ in range(self.num_players)]
            self._push_in_order(self._draw_steps() + [("draw_done",)])
        elif kind == "draw_done":
            if self.two_player:
                self._form_offer()
        elif kind == "actions":
            self.phase = "action"
            if self.two_player:
                self._stack += _ACTIONS_2P[self.first_player]  # FOG-2P-5, FOG-RUL-33 (prebuilt: speed)
            else:
                self._push_in_order([("turn", t) for t in range(1, TURNS + 1)])
        elif kind == "harvest_phase":
            self.phase = "harvest"
            self._push_in_order([("harvest", p) for p in self._seats()] + [("pass_first",)])
        elif kind == "pass_first":
            if self.year < YEARS:
                self.first_player = (self.first_player + 1) % self.num_players  # FOG-HARVEST-12, FOG-2P-12
            self._stack.append(("year",))
        else:  # pragma: no cover - a frame name typo is a programming error
            raise RuntimeError(f"unknown frame {frame!r}")

    def _draw_steps(self) -> list[tuple]:
        """Each seat's draw in seat order: a split decision, or the fixed split of FOG-RUL-3."""
        return [("split", p) if not self.fixed_split else ("draw_fixed", p) for p in self._seats()]

    def _run_for_seat(self, kind: str, frame: tuple) -> None:
        """The continuation frames that act for the seat in ``frame[1]`` (_SEAT_FRAMES), most frequent first
        (kept apart from the phase flow of _run so that a build or harvest step tests a few names, not 20)."""
        if kind not in _FARM_ONLY_FRAMES:
            self.public_version += 1  # see _FARM_ONLY_DECISIONS
        self.farms[frame[1]].version += 1  # see _SEAT_FRAMES
        if kind == "ops":
            self._run_ops(*frame[1:])
        elif kind == "finish_harvest":
            self._finish_harvest(frame[1], frame[2])
        elif kind == "harvest_close":
            self._close_harvest(frame[1])
        elif kind == "income_for":
            self._gain(frame[1], INCOME, -1)  # FOG-UPKEEP-4/5
        elif kind == "immediate":
            self._immediate(frame[1], frame[2])
        elif kind == "finish_build":
            self._finish_build(*frame[1:])
        elif kind == "draw_fixed":
            self._take_split(frame[1], self._fixed_split_now())  # FOG-RUL-3
        elif kind == "gain_equipment":
            self._draw_equipment(frame[1], frame[2])
        else:  # pragma: no cover - a frame listed in _SEAT_FRAMES without a branch here
            raise RuntimeError(f"unknown frame {frame!r}")

    # ------------------------------------------------------------------ legal actions

    # No comprehension or generator in the hot functions of this section and the next (speed: in Python 3.11
    # each is a function of its own, and every variable it reads becomes a cell the enclosing function
    # allocates on every call, whichever branch runs): map(int.__add__), filterfalse and loops instead,
    # the same lists; the rare kinds read their comprehensions in helpers.

    def _compute_legal(self) -> list[int] | tuple[int, ...]:
        frame = self._stack[-1]
        kind, p = frame[0], frame[1]
        if kind == "pick":
            # the slots 0..n-1 of the hand or display, a prebuilt tuple per n (speed; legal_actions copies it)
            n = len(self.display if self.num_players == 2 else self.hands[p])
            try:
                return self.layout.pick_choices[n]
            except IndexError:  # a hand longer than any the rules deal (a scenario's): the plain range
                return list(range(self.layout.PICK, self.layout.PICK + n))
        if kind == "act":  # (kinds in the order of their frequency)
            return self._act_legal(p, self.farms[p])
        L = self.layout
        farm = self.farms[p]
        if kind == "harvest":
            out = list(map(L.HARVEST.__add__, self._harvest_cells(p, unused_only=True, payable=True)))
            out.append(L.HARVEST_END)
            return out
        if kind == "split":
            splits = _legal_split_tuple(tuple(map(len, self.piles)))
            return list(map(L.SPLIT.__add__, splits))
        if kind == "pay_water":
            return list(map(L.PAY_WATER.__add__, farm.towers_in_range(frame[2])))
        if kind == "store_water":
            return list(map(L.STORE_WATER.__add__, farm.towers_with_room()))
        if kind == "keep_equipment":
            return list(range(L.KEEP_EQUIPMENT, L.KEEP_EQUIPMENT + len(frame[2])))
        return self._rare_legal(frame, p, farm)

    def _act_mask(self, p: int, farm: Farm) -> bytes:
        """``_act_legal`` as mask bytes: the same rules, block by block (speed: a join of ready-made bytes and
        ``Farm.frontier_mask``, no loop over the frontier; test_engine_mask.py compares the two)."""
        M = self._masks
        none = M.no_cells
        cost = self.cards.locations[self.picks[p]].cost  # type: ignore[index]
        coins = farm.coins
        frontier = farm.frontier_bits if farm.frontier_of is farm.occupied else farm.frontier_mask()
        build: bytes | bytearray = none
        if coins >= cost.coins and farm.food >= cost.food:  # FOG-ACT-BUILD-3..7
            water = cost.water
            if not water:
                build = frontier
            elif water == 1:  # (the base set's only water cost: any tower holding water in range, at C speed)
                build = farm.watered_frontier(frontier)
            elif sum(farm.tower_water.values()) >= water:
                bits = bytearray(none)
                for c, w in farm.water_by_cell(farm.frontier).items():  # (frontier cells only)
                    if w >= water:
                        bits[c] = 1
                build = bits
        tower = frontier if self.towers_left and coins >= TOWER_COST else none  # FOG-ACT-TOWER-5
        silo = frontier if self.silos_left else none  # FOG-ACT-SILO-5
        food = farm.food  # FOG-ACT-MARKET-4: sell 0 .. min(2, food) food
        market = M.market[food if food < MARKET_SALES - 1 else MARKET_SALES - 1]
        restore: bytes | bytearray = none
        if coins >= RESTORE_COST and farm.fallow:  # FOG-ACT-RESTORE-3
            restore = bytearray(none)
            for c in farm.fallow:
                restore[c] = 1
        return b"".join((M.act_head, build, tower, silo, market, restore, M.act_tail))

    def _rare_legal(self, frame: tuple, p: int, farm: Farm) -> list[int]:
        """The legal actions of the decisions that come up in fewer than 2% of the steps."""
        kind = frame[0]
        L = self.layout
        if kind == "place_equipment":
            tile = self.cards.equipment[frame[2]]
            cells = sorted(c for c in farm.occupied if self._tile_fits(farm, tile, c))
            return [L.PLACE_EQUIPMENT + c for c in cells] + [L.SET_ASIDE]
        if kind == "attach":
            return [L.ATTACH + i for i in self._attachable(p, frame[2])] + [L.ATTACH_DONE]
        if kind == "ability_target":
            pool = farm.tower_capacity if frame[2] == "tower" else farm.silo_capacity
            return [L.ABILITY_TARGET + c for c in sorted(pool)]
        if kind == "ability_option":
            pay, max_times = frame[3], frame[5]
            return [L.ABILITY_OPTION + k for k in range(max_times + 1) if self._can_pay_trade(farm, pay, k)]
        raise RuntimeError(f"no legal actions for frame {frame!r}")  # pragma: no cover

    def _act_legal(self, p: int, farm: Farm) -> list[int]:
        L = self.layout
        frontier = sorted(farm.frontier)
        out = self._build_legal(p, farm, frontier)
        coins = farm.coins
        if self.towers_left and coins >= TOWER_COST:  # FOG-ACT-TOWER-5
            out += map(L.TOWER.__add__, frontier)
        if self.silos_left:  # FOG-ACT-SILO-5
            out += map(L.SILO.__add__, frontier)
        food = farm.food  # FOG-ACT-MARKET-4: sell 0 .. min(2, food) food (a prebuilt range of the layout)
        out += L.market_choices[food if food < MARKET_SALES - 1 else MARKET_SALES - 1]
        if coins >= RESTORE_COST and farm.fallow:  # FOG-ACT-RESTORE-3
            out += map(L.RESTORE.__add__, sorted(farm.fallow))
        return out

    def _build_legal(self, p: int, farm: Farm, frontier: list[int]) -> list[int]:
        """The first block of ``_act_legal``: seat ``p``'s picked card built on each cell of ``frontier`` (the sorted
        frontier) that its cost allows (FOG-ACT-BUILD-3..7)."""
        L = self.layout
        card = self.cards.locations[self.picks[p]]  # type: ignore[index]
        out: list[int] = []
        cost = card.cost
        # (speed: map(int.__add__) instead of list comprehensions, same lists)
        if farm.coins >= cost.coins and farm.food >= cost.food:  # FOG-ACT-BUILD-3..7
            water = cost.water
            if water:
                # no cell can have more water in range than the farm holds: skip the per-cell sums then
                if farm.water >= water:
                    # water in range of every frontier cell at once (Farm.water_by_cell: from the towers out)
                    reach = farm.water_by_cell(farm.frontier)
                    build = L.BUILD
                    for c in frontier:
                        if reach.get(c, 0) >= water:
                            out.append(build + c)
            else:
                out += map(L.BUILD.__add__, frontier)
        return out

    def build_actions(self) -> list[int]:
        """The builds among ``legal_actions()`` of the current act decision, in the same order: the heuristic bot's
        pick compares the cards it may take by them, and the other acts of that decision do not depend on the card
        (tests/fields_of_green/env/test_engine_speed.py compares the two)."""
        frame = self._stack[-1] if self._stack else None
        if frame is None or frame[0] != "act":
            raise ValueError(f"build_actions needs an act decision, the current decision is {frame!r}")
        p = frame[1]
        farm = self.farms[p]
        return self._build_legal(p, farm, sorted(farm.frontier))

    def harvest_cost(self, p: int, cell: int) -> tuple[int, int, int]:
        """Effective harvest cost (coins, water, food) after equipment discounts, never below 0.
        Speed: a harvest card without equipment costs its table entry (CardSet.harvest_base); anything
        else takes the plain path (test_engine_speed.py compares the two)."""
        farm = self.farms[p]
        base = self._harvest_base.get(farm.grid[cell])
        if base is None or cell in farm.equipment:
            return harvest_cost(farm, cell, self.cards.locations, self.cards.equipment)
        return base

    def _harvest_sites(self, farm: Farm) -> tuple[int, ...]:
        """The farm's cells holding a location with a harvest ability, fallow or not, in placement order.

        Speed: a harvest asks for them 3-5 times per decision and they change only when a card is built, so
        they are kept on the farm (Farm.harvest_memo) per occupied list and length; test_engine_speed.py
        compares them with the plain scan after every step of random games."""
        occupied = farm.occupied
        memo = farm.harvest_memo
        size = len(occupied)
        if memo is not None and memo[0] is occupied:
            if memo[1] == size:
                return memo[2]
            # cells are only appended (Farm.place), so the kept sites grow by a scan of the new cells alone
            start, found = memo[1], list(memo[2])
        else:
            start, found = 0, []
        grid, base = farm.grid, self._harvest_base  # towers, silos and other cards are not keys of harvest_base
        for i in range(start, size):
            c = occupied[i]
            if grid[c] in base:
                found.append(c)
        sites = tuple(found)
        farm.harvest_memo = (occupied, size, sites)
        return sites

    def _harvest_cells(self, p: int, unused_only: bool, payable: bool = False) -> list[int]:
        farm = self.farms[p]
        grid, fallow, base = farm.grid, farm.fallow, self._harvest_base
        harvested = self.harvested if unused_only else ()
        # face-up locations with a harvest ability (not yet used), then costs (FOG-HARVEST-2/3)
        out = list(filterfalse(fallow.__contains__, self._harvest_sites(farm)))
        if harvested:
            out = list(filterfalse(harvested.__contains__, out))
        if payable:  # FOG-HARVEST-6..8
            paid = []
            coins, food, equipment = farm.coins, farm.food, farm.equipment
            for cell in out:
                # harvest_cost inlined: the table entry unless the location holds equipment
                c, w, f = (
                    harvest_cost(farm, cell, self.cards.locations, self.cards.equipment)
                    if cell in equipment
                    else base[grid[cell]]
                )
                if coins < c or food < f or (w and farm.water_in_range(cell) < w):
                    continue
                paid.append(cell)
            out = paid
        out.sort()
        return out

    def _tile_fits(self, farm: Farm, tile, cell: int) -> bool:
        """FOG-EQUIP-4/5/6/10: matching face-up host with room and no tile of the same name."""
        code = farm.grid[cell]
        if code == EMPTY or cell in farm.fallow:
            return False
        if tile.host == "WaterTower":
            if code != TOWER:
                return False
        elif tile.host == "Silo":
            if code != SILO:
                return False
        else:
            if code < 0:
                return False
            pile, subtype, ability = self._info[code]
            if pile != tile.host:
                return False
            if tile.keyword is not None and tile.keyword not in (subtype, ability):
                return False
        present = farm.equipment.get(cell, ())
        if len(present) >= MAX_TILES_PER_LOCATION:
            return False
        equipment, name = self.cards.equipment, tile.name
        for t in present:  # (a loop, not all(genexpr): no closure per call)
            if equipment[t].name == name:
                return False
        return True

    def _attachable(self, p: int, cell: int) -> list[int]:
        farm = self.farms[p]
        equipment = self.cards.equipment
        out, names = [], set()
        for i, tile_id in enumerate(farm.set_aside):
            tile = equipment[tile_id]
            if tile.name not in names and self._tile_fits(farm, tile, cell):
                out.append(i)
                names.add(tile.name)  # one slot per design: slots of the same name are interchangeable
        return out

    def _can_pay_trade(self, farm: Farm, pay: dict, times: int) -> bool:
        return farm.coins >= pay.get("coins", 0) * times and farm.food >= pay.get("food", 0) * times

    # ------------------------------------------------------------------ applying decisions

    def _apply(self, action: int) -> None:  # noqa: C901 - one branch per decision kind
        frame = self._stack.pop()
        kind, p = frame[0], frame[1]
        self._legal_now = None
        if kind == "pick":
            # the most frequent decision (2 in 5), first and lean (speed): a pick leaves every farm alone and
            # changes public state (in _NO_FARM_DECISIONS, not in _FARM_ONLY_DECISIONS: asserted at import);
            # with 3-4 players only the picker's hand and pick, which pick_version says
            slot = action - self.layout.PICK
            if self.num_players == 2:
                self.public_version += 1
                self.picks[p] = self.display.pop(slot)  # FOG-2P-6 (the public display)
            else:
                self.pick_version += 1
                self.picks[p] = self.hands[p].pop(slot)  # FOG-ACT-3
            return
        what, arg = self.layout.decoded[action]  # (kind, argument) of an index known to be legal
        farm = self.farms[p]
        if kind == "act":  # the other most frequent decision (2 in 5), without the set tests (asserted at import)
            farm.version += 1  # it changes the farm (see _SEAT_FRAMES) and public state (_FARM_ONLY_DECISIONS)
            self.public_version += 1
            self._act(p, farm, what, arg)
            return
        if kind not in _NO_FARM_DECISIONS:
            farm.version += 1  # see _SEAT_FRAMES
        if kind not in _FARM_ONLY_DECISIONS:
            self.public_version += 1  # see _FARM_ONLY_DECISIONS
        if kind == "harvest":  # the branches most frequent first
            if what == "harvest_end":
                self._end_harvest(p)
            else:
                coins, water, food = self.harvest_cost(p, arg)  # FOG-HARVEST-2/6/7/8
                farm.coins -= coins
                farm.food -= food
                self._stack.append(frame)  # the harvest decision stays open until harvest_end
                self._stack.append(("finish_harvest", p, arg))
                if water:
                    self._stack.append(("pay_water", p, arg, water))
        elif kind == "split":
            self._take_split(p, SPLITS[arg])
        elif kind == "pay_water":
            farm.tower_water[arg] -= 1  # FOG-WATER-1/6
            if frame[3] > 1:
                self._stack.append(("pay_water", p, frame[2], frame[3] - 1))
        elif kind == "store_water":
            farm.tower_water[arg] += 1  # FOG-STORE-5
            self._gain_water(p, frame[2] - 1)
        elif kind == "keep_equipment":
            tiles = frame[2]
            kept = tiles[arg]
            rest = list(tiles)
            del rest[arg]  # the tiles not kept, in drawn order
            self.equipment_stack[0:0] = list(reversed(rest))  # FOG-EQUIP-3, FOG-RUL-19
            self._stack.append(("place_equipment", p, kept))
        elif kind == "place_equipment":
            tile_id = frame[2]
            if what == "set_aside":
                farm.set_aside.append(tile_id)  # FOG-EQUIP-8
            else:
                self._place_tile(p, tile_id, arg)  # FOG-EQUIP-7
        elif kind == "attach":
            if what == "attach":
                self._stack.append(frame)  # more tiles may follow (FOG-RUL-27)
                tile_id = farm.set_aside.pop(arg)
                self._place_tile(p, tile_id, frame[2])  # FOG-EQUIP-9
        elif kind == "ability_target":
            by = frame[3]
            if frame[2] == "tower":
                farm.tower_capacity[arg] += by
            else:
                farm.silo_capacity[arg] += by
        elif kind == "ability_option":
            cell, pay, gain = frame[2], frame[3], frame[4]
            if arg:
                farm.coins -= pay.get("coins", 0) * arg
                farm.food -= pay.get("food", 0) * arg
                times = {}
                for res, amount in gain.items():
                    times[res] = amount * arg
                self._gain(p, times, cell)
        else:  # pragma: no cover
            raise RuntimeError(f"cannot apply to frame {frame!r}")

    def _act(self, p: int, farm: Farm, what: str, arg: int) -> None:
        card = self.picks[p]
        farm.actions_taken += 1
        if what == "build":
            cost = self.cards.locations[card].cost  # type: ignore[index]
            farm.coins -= cost.coins  # FOG-ACT-BUILD-3
            farm.food -= cost.food  # FOG-ACT-BUILD-5
            if cost.water:  # FOG-ACT-BUILD-4: paid from towers in range, one unit per decision
                self._stack.append(("finish_build", p, card, arg))
                self._stack.append(("pay_water", p, arg, cost.water))
            else:
                # Speed: nothing to pay, so the finish_build frame would run next, in this same step: run it
                # now (the decision already bumped this farm's and the public version; test_engine_paths.py
                # plays both ways)
                self._finish_build(p, card, arg)  # type: ignore[arg-type]
            return
        self.discard.append(card)  # type: ignore[arg-type]  # FOG-ACT-11, FOG-ACT-14
        self.picks[p] = None
        if what == "tower":
            farm.coins -= TOWER_COST
            self.towers_left -= 1
            farm.place(arg, TOWER)
            farm.tower_capacity[arg] = self.cards.tower_capacity
            farm.tower_water[arg] = self.cards.tower_start_water  # FOG-ACT-TOWER-4
            if farm.set_aside:  # FOG-RUL-20 (speed: without a tile set aside _skip_decision drops the frame)
                self._stack.append(("attach", p, arg))
        elif what == "silo":
            self.silos_left -= 1
            farm.place(arg, SILO)
            farm.silo_capacity[arg] = self.cards.silo_capacity  # FOG-ACT-SILO-4: empty
            if farm.set_aside:  # FOG-RUL-20, as for a tower
                self._stack.append(("attach", p, arg))
        elif what == "market":
            farm.food -= arg
            farm.coins += MARKET_BASE + MARKET_PER_FOOD * arg  # FOG-ACT-MARKET-1..3
        elif what == "restore":
            farm.coins -= RESTORE_COST
            farm.fallow.discard(arg)  # FOG-ACT-RESTORE-2/4; no immediate ability, no attach (FOG-RUL-21)

    def _finish_build(self, p: int, card: int, cell: int) -> None:
        """FOG-ACT-BUILD-8, FOG-RUL-17: place, then attach set-aside tiles, then the Immediate ability."""
        farm = self.farms[p]
        farm.place(cell, card)
        self.picks[p] = None
        if not farm.set_aside:
            # Speed: with no tile set aside the attach decision is skipped at once (_skip_decision) and the
            # immediate frame would run next, in the same step: run it now instead of pushing both (the
            # state at the next decision is the same; test_engine_speed.py plays both ways)
            self._immediate(p, cell)
            return
        stack = self._stack  # pushed last-first: the attach decision runs first
        stack.append(("immediate", p, cell))
        stack.append(("attach", p, cell))

    def _immediate(self, p: int, cell: int) -> None:
        """FOG-ABIL-1: a new location's Immediate ability applies once, when it is built."""
        ability = self.cards.locations[self.farms[p].grid[cell]].ability
        if ability is not None and ability.kind == "immediate":
            # Speed: an ("ops", p, cell, effect, 0) frame pushed here would run next, in this same step, as
            # this call (it bumps only this farm's version, already bumped by the step): run it now
            # (test_engine_paths.py plays both ways)
            self._run_ops(p, cell, ability.effect, 0)

    def _take_split(self, p: int, split: tuple[int, ...]) -> None:
        drawn: list[int] = []
        counts = self.draw_counts[p]
        for pile_index, count in enumerate(split):
            if count:
                pile = self.piles[pile_index]
                drawn += pile[: -count - 1 : -1]  # FOG-DRAW-5: the top `count` in the order popped one by one
                del pile[-count:]
                counts[pile_index] += count  # FOG-DRAW-6
        if self.num_players == 2:
            self.offer.extend(drawn)  # FOG-2P-2: unseen
        else:
            self.hands[p] = sorted(drawn)  # FOG-DRAW-9

    def _fixed_split_now(self) -> tuple[int, ...]:
        """FOG-RUL-3 split for this year, cut down to what the piles hold (then topped up in pile order)."""
        want = list(self.fixed_split[self.year])
        sizes = [len(pile) for pile in self.piles]
        take = [min(w, s) for w, s in zip(want, sizes)]
        short = min(HAND_SIZE, sum(sizes)) - sum(take)
        for i in range(4):
            extra = min(short, sizes[i] - take[i])
            take[i] += extra
            short -= extra
        return tuple(take)

    def _form_offer(self) -> None:
        """FOG-2P-3/4: shuffle the drawn cards (keys fixed at setup) and turn up 6."""
        keys = self._offer_keys[self.year - 1]
        order = sorted(range(len(self.offer)), key=keys.__getitem__)
        self.offer = [self.offer[i] for i in order]
        self.display = sorted(self.offer.pop() for _ in range(min(HAND_SIZE, len(self.offer))))

    def _pass_hands(self) -> None:
        """FOG-ACT-5, FOG-RUL-29: seat p's hand goes to seat p + 1 clockwise, p - 1 counterclockwise (sorted,
        as new lists). Speed: the seats' hands rotated by slicing, not a loop of index arithmetic
        (test_engine_speed.py compares with that loop)."""
        hands = self.hands
        rotated = hands[-1:] + hands[:-1] if self.direction == "clockwise" else hands[1:] + hands[:1]
        self.hands = list(map(sorted, rotated))

    # ------------------------------------------------------------------ harvest

    def _finish_harvest(self, p: int, cell: int) -> None:
        """Apply a paid harvest ability, then the host's harvest-timed equipment (FOG-EQUIP-12)."""
        self.harvested.add(cell)
        farm = self.farms[p]
        card = self.cards.locations[farm.grid[cell]]
        if cell not in farm.equipment:
            # Speed: without equipment the one ops frame would run next, in this same step: run it now (as in
            # _immediate; test_engine_paths.py plays both ways)
            self._run_ops(p, cell, card.ability.effect, 0)  # type: ignore[union-attr]
            return
        frames = [("ops", p, cell, card.ability.effect, 0)]  # type: ignore[union-attr]
        for tile_id in farm.equipment.get(cell, ()):
            tile = self.cards.equipment[tile_id]
            if tile.timing == "harvest":
                frames.append(("ops", p, cell, tile.effect, 0))
        self._push_in_order(frames)

    def _end_harvest(self, p: int) -> None:
        """FOG-RUL-24: free abilities still unused apply (FOG-RUL-23), then unpaid ones turn fallow."""
        frames = []
        for cell in self._harvest_cells(p, unused_only=True):
            if self.harvest_cost(p, cell) == (0, 0, 0):
                frames.append(("finish_harvest", p, cell))
        self._push_in_order(frames + [("harvest_close", p)])

    def _close_harvest(self, p: int) -> None:
        farm = self.farms[p]
        for cell in self._harvest_cells(p, unused_only=True):
            farm.fallow.add(cell)  # FOG-HARVEST-5
            self.removed_equipment.extend(farm.equipment.pop(cell, ()))  # FOG-HARVEST-14, FOG-EQUIP-13
        self.harvested = set()  # FOG-HARVEST-11

    # ------------------------------------------------------------------ effects

    def _gain(self, p: int, amounts: dict, cell: int) -> None:
        farm = self.farms[p]
        farm.coins += amounts.get("coins", 0)
        farm.vp_tokens += amounts.get("vp", 0)
        food = amounts.get("food")
        if food:
            farm.gain_food(food)  # FOG-STORE-7/8
        water = amounts.get("water")
        if water:
            self._gain_water(p, water)

    def _gain_water(self, p: int, amount: int) -> None:
        """FOG-STORE-5/6, FOG-RUL-12: the owner picks a tower with room per token, unless one tower
        (or none) has room; tokens that find no room are lost."""
        if amount <= 0:
            return
        farm = self.farms[p]
        rooms = farm.towers_with_room()
        if len(rooms) > 1:
            self._stack.append(("store_water", p, amount))
        elif rooms:
            t = rooms[0]
            farm.tower_water[t] = min(farm.tower_capacity[t], farm.tower_water[t] + amount)

    def _run_ops(self, p: int, cell: int, ops: tuple, index: int) -> None:
        farm = self.farms[p]
        stack = self._stack
        for i in range(index, len(ops)):
            op = ops[i]
            mark = len(stack)
            if "gain" in op:
                # a bare gain (no per/max/if: most ops) gains its amounts as written: gain_amounts would copy
                # them, dropping only zeros, which _gain skips anyway (test_engine_speed.py compares)
                self._gain(p, op["gain"] if len(op) == 1 else effects.gain_amounts(farm, cell, op), cell)
            elif not effects.condition_holds(farm, cell, op):
                continue
            elif "gain_equipment" in op:
                stack.append(("gain_equipment", p, op["gain_equipment"]))
            elif "raise_capacity" in op:
                target, by = op["raise_capacity"]["target"], op["raise_capacity"]["by"]
                if target == "host":
                    pool = farm.tower_capacity if farm.grid[cell] == TOWER else farm.silo_capacity
                    pool[cell] += by
                else:
                    stack.append(("ability_target", p, target, by))
            elif "trade" in op:
                t = op["trade"]
                stack.append(("ability_option", p, cell, t["pay"], t["gain"], t["max_times"]))
            if len(stack) > mark and i + 1 < len(ops):
                stack.insert(mark, ("ops", p, cell, ops, i + 1))
                return
            if len(stack) > mark:
                return

    def _draw_equipment(self, p: int, times: int) -> None:
        """FOG-EQUIP-2, FOG-RUL-19: draw up to 3, keep one (a decision), repeat ``times`` times."""
        if not self.equipment_stack:
            return
        drawn = tuple(self.equipment_stack.pop() for _ in range(min(EQUIPMENT_DRAW, len(self.equipment_stack))))
        if times > 1:
            self._stack.append(("gain_equipment", p, times - 1))
        self._stack.append(("keep_equipment", p, drawn))

    def _place_tile(self, p: int, tile_id: int, cell: int) -> None:
        farm = self.farms[p]
        farm.equipment.setdefault(cell, []).append(tile_id)
        tile = self.cards.equipment[tile_id]
        if tile.timing in ("on_place", "permanent") and tile.effect:
            self._stack.append(("ops", p, cell, tile.effect, 0))

    # ------------------------------------------------------------------ bookkeeping for tests and observers

    def pending_equipment(self) -> list[int]:
        """Equipment tiles drawn and not yet kept or placed (they sit in decision frames)."""
        out = []
        for frame in self._stack:
            if frame[0] == "keep_equipment":
                out.extend(frame[2])
            elif frame[0] == "place_equipment":
                out.append(frame[2])
        return out

    # ------------------------------------------------------------------ search (infostate.py)

    def information_state(self, seat: int):
        """What ``seat`` knows, with perfect recall: canonical string and tensor (FOG-INFO-1..8)."""
        from .infostate import information_state

        return information_state(self, seat)

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Game:
        """A complete state drawn from what ``seat`` knows (other hands, unseen picks, pile order,
        Equipment stack, 2-player offer); this game is untouched."""
        from .infostate import resample_from_infostate

        return resample_from_infostate(self, seat, rng)

    def infostate_sampler(self, seat: int):
        """Analyse once for ``seat``; the function returned draws resampled states from an RNG."""
        from .infostate import sampler

        return sampler(self, seat)

    def action_token(self, seat: int, action: int):
        """What ``seat`` observes of the current player's ``action`` (hidden picks are just "pick")."""
        from .infostate import action_token

        return action_token(self, seat, action)

    def view_token(self, seat: int):
        """What ``seat`` sees now beyond the actions (its hand and pick, revealed picks, display)."""
        from .infostate import view_token

        return view_token(self, seat)


def _frame_to_json(frame: tuple) -> list:
    return [list(x) if isinstance(x, tuple) and x and isinstance(x[0], dict) else x for x in frame]
