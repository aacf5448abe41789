"""One agent's information state as named float32 arrays, filled in place (FOG-INFO, FOG-RUL-31).

The layout is declared once, in :data:`LAYOUT` (array name, shape, meaning) and in the feature
tables it refers to (:data:`CARD_FEATURES`, :data:`CELL_PLANES`, :data:`PLAYER_FEATURES`,
:data:`GAME_FEATURES`, :data:`DECISION_FEATURES`, :data:`TILE_FEATURES`). The environments build
their gymnasium spaces from it and ``docs/fields_of_green/env.md`` prints it
(``python -m farmgames.envs.fields_of_green.docs`` writes the markdown table).

Everything is seen from the viewing seat: player axes are rotated so that index 0 is the viewer,
index 1 the next seat clockwise (its left neighbour, FOG-RUL-29), and so on. Cell axes are the
engine's ``(row, col)`` grid (FOG-RUL-8). Values are raw counts and flags (no scaling).

What an agent may NOT see is never written: other players' hands, this turn's picks of others before
the reveal (FOG-ACT-4), the order of the main piles, the 2-player offer pile and the Equipment stack
(FOG-INFO-5), and tiles another player drew or put on the bottom (FOG-INFO-8). Only the deciding
agent sees its decision's private context (the tiles it drew, the tile it keeps).

Speed (docs/profiling.md, "Observer and AEC hot path"): everything public is the same for every
viewer, so it is cached once per game state in seat order -- each farm's grid planes, the player,
draw-count and game features, the equipment and discard counts -- and updated incrementally: a farm is
re-read only when the engine bumped its ``Farm.version`` (and then only the cells whose card, water,
fallow state or equipment changed), other values only where a cheap summary (sizes, picks, counts)
moved. Filling a buffer copies, in the viewer's rotated order, only the parts that changed since that
buffer was last filled for the same seat (everything the first time), through memoryviews rather than
numpy calls; the buffer's fill plan remembers what it holds (cache epoch and change stamp, hand, visible
picks, a key of its decision arrays), and the frequent blocks (the picks before the reveal, the decision
arrays of someone else's decision or of the viewer's split, pick, harvest or act) are ready-made bytes.
Per-card and per-tile feature rows are computed once per card set. The cache is keyed on the ``Game``
object and its action count; call :meth:`Observer.invalidate` after editing a game by hand.
``fill(..., force_full=True)`` rebuilds from scratch; tests/fields_of_green/env/test_observer_incremental.py,
test_observer_fast.py and test_observer_skip.py check that both agree with each other and with a plain
recomputation (buffers filled in and out of order, clones, loaded states, perfect recall).

The engine stays free of gymnasium/pettingzoo: this module only needs numpy.
"""

from __future__ import annotations

import itertools
import operator
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr

from ..core.observation import INF, Entry, ObservationLayout, highs, merge_runs, rotated_runs, row_views
from ..core.observation import ObservationBuffer as _CoreBuffer
from .cards import ALL_SUBTYPES, EQUIPMENT_DRAW, EQUIPMENT_TIMINGS, HOST_TYPES, PILES
from .farm import EMPTY, SILO, TOWER
from .game import DECISION_KINDS, HAND_SIZE, TURNS, YEARS, Game

# ---------------------------------------------------------------------------------------------
# Feature tables: (name, meaning, high). high 1 = flag or one-hot, INF = an unbounded count.

CARD_FEATURES: tuple[tuple[str, str, float], ...] = (
    *((f"pile_{p.lower()}", f"location type {p} (FOG-CARD-1)", 1.0) for p in PILES),
    *((f"subtype_{s}", f"sub-type {s} (FOG-CARD-3/4)", 1.0) for s in ALL_SUBTYPES),
    ("cost_coins", "build cost: coins (FOG-CARD-6)", INF),
    ("cost_water", "build cost: water (FOG-CARD-7)", INF),
    ("cost_food", "build cost: food (FOG-CARD-7)", INF),
    ("vp", "printed VP (FOG-CARD-8)", INF),
    ("ability_immediate", "has an Immediate ability (FOG-CARD-9)", 1.0),
    ("ability_harvest", "has a Harvest ability", 1.0),
    ("ability_end_game", "has an End-game ability", 1.0),
    ("harvest_coins", "harvest cost: coins (on a farm: after equipment discounts)", INF),
    ("harvest_water", "harvest cost: water (on a farm: after equipment discounts)", INF),
    ("harvest_food", "harvest cost: food (on a farm: after equipment discounts)", INF),
)
C = len(CARD_FEATURES)
_CF = {name: i for i, (name, _, _) in enumerate(CARD_FEATURES)}

CELL_PLANES: tuple[tuple[str, str, float], ...] = (
    ("occupied", "a card is on the cell (location, fallow card, tower or silo)", 1.0),
    ("buildable", "empty and orthogonally adjacent to a card: a legal placement cell (FOG-FARM-3)", 1.0),
    ("fallow", "the location card is face down (FOG-CARD-13)", 1.0),
    ("tower", "a Water Tower", 1.0),
    ("silo", "a Silo", 1.0),
    ("water", "water on this tower (FOG-STORE-1)", INF),
    ("tower_capacity", "this tower's capacity (FOG-RUL-10)", INF),
    ("silo_capacity", "this silo's capacity (FOG-RUL-10)", INF),
    ("equipment", "equipment tiles placed on this location (FOG-EQUIP-10)", INF),
    ("harvested", "its harvest ability was already used in the current Harvest phase", 1.0),
)
FARM_PLANES: tuple[tuple[str, str, float], ...] = tuple((f"card_{n}", m, h) for n, m, h in CARD_FEATURES) + CELL_PLANES
Q = len(FARM_PLANES)
_FP = {name: i for i, (name, _, _) in enumerate(FARM_PLANES)}

PLAYER_FEATURES: tuple[tuple[str, str, float], ...] = (
    ("coins", "coins held (FOG-INFO-2)", INF),
    ("food", "food in the silos (one pool, FOG-RUL-11)", INF),
    ("food_capacity", "sum of silo capacities", INF),
    ("water", "water on all towers", INF),
    ("water_capacity", "sum of tower capacities", INF),
    ("vp_tokens", "VP tokens gained", INF),
    ("set_aside", "set-aside equipment tiles (1 VP each at the end, FOG-EQUIP-14)", INF),
    ("towers", "Water Towers on the farm", INF),
    ("silos", "Silos on the farm", INF),
    ("fallow", "fallow cards on the farm", INF),
    ("locations", "face-up cards incl. towers and silos (tie-break 1, FOG-RUL-22)", INF),
    ("actions_taken", "actions A-E taken so far in the game", INF),
    ("hand_size", "cards in hand (3-4 players; public count)", INF),
    ("picked", "has a card picked this turn (face down until the reveal; only the fact is public)", 1.0),
    ("first_player", "holds the First Player tile", 1.0),
    ("to_act", "must decide now", 1.0),
)
U = len(PLAYER_FEATURES)
_PF = {name: i for i, (name, _, _) in enumerate(PLAYER_FEATURES)}

PHASES = ("upkeep", "draw", "action", "harvest", "end")
GAME_FEATURES: tuple[tuple[str, str, float], ...] = (
    *((f"year_{y}", f"year {y} (FOG-GEN-2)", 1.0) for y in range(1, YEARS + 1)),
    *(
        (f"turn_{t}", f"Action phase turn {t} (FOG-ACT-1; 2 players: t = pair of picks)", 1.0)
        for t in range(1, TURNS + 1)
    ),
    *((f"phase_{p}", f"phase {p}", 1.0) for p in PHASES),
    ("clockwise", "this year's passing direction is clockwise (FOG-RUL-4)", 1.0),
    ("counterclockwise", "this year's passing direction is counterclockwise", 1.0),
    ("two_player", "the 2-player variant (section 13)", 1.0),
    ("revealed", "this turn's picks are revealed (FOG-ACT-6)", 1.0),
    *((f"pile_{p.lower()}", f"cards left in the {p} pile (FOG-INFO-4)", INF) for p in PILES),
    ("towers_left", "Water Tower pile size (FOG-INFO-6)", INF),
    ("silos_left", "Silo pile size (FOG-INFO-6)", INF),
    ("equipment_stack", "tiles in the Equipment stack (order hidden, FOG-INFO-5)", INF),
    ("offer_pile", "2 players: cards in the face-down offer pile", INF),
    ("display", "2 players: cards in the face-up display", INF),
    ("discard_pile", "cards in the discard pile", INF),
)
V = len(GAME_FEATURES)
_GF = {name: i for i, (name, _, _) in enumerate(GAME_FEATURES)}

DECISION_FEATURES: tuple[tuple[str, str, float], ...] = (
    *((f"kind_{k}", f"the pending decision (anyone's) is {k!r}", 1.0) for k in DECISION_KINDS),
    ("yours", "the pending decision is the viewer's; the context below is filled only then", 1.0),
    ("for_build", "pay_water/attach: for the location being built at decision_cell", 1.0),
    ("for_harvest", "pay_water: for the harvest cost of the location at decision_cell", 1.0),
    ("water_due", "pay_water: water still to pay, one unit per decision (FOG-WATER-6)", INF),
    ("water_to_store", "store_water: gained water still to place (FOG-RUL-12)", INF),
    ("trade_pay_coins", "ability_option: coins paid per trade", INF),
    ("trade_pay_food", "ability_option: food paid per trade", INF),
    ("trade_gain_coins", "ability_option: coins gained per trade", INF),
    ("trade_gain_water", "ability_option: water gained per trade", INF),
    ("trade_gain_food", "ability_option: food gained per trade", INF),
    ("trade_gain_vp", "ability_option: VP tokens gained per trade", INF),
    ("trade_max_times", "ability_option: most trades allowed", INF),
    ("target_tower", "ability_target: choose a tower", 1.0),
    ("target_silo", "ability_target: choose a silo", 1.0),
    ("raise_by", "ability_target: capacity added to the chosen structure", INF),
)
K = len(DECISION_FEATURES)
_DF = {name: i for i, (name, _, _) in enumerate(DECISION_FEATURES)}

TILE_FEATURES_FIXED: tuple[tuple[str, str, float], ...] = (
    *((f"host_{h}", f"may be placed on a {h} (FOG-EQUIP-4, FOG-RUL-20)", 1.0) for h in HOST_TYPES),
    *((f"timing_{t}", f"timing {t} (FOG-EQUIP-12)", 1.0) for t in EQUIPMENT_TIMINGS),
)

RECALL_TURNS = TURNS - 1  # nothing is passed after turn 6 (FOG-ACT-8)


_highs = highs


def _float_view(array: np.ndarray) -> Any:
    """A memoryview of a float32 array, typed ``Any``: typeshed calls a memoryview's items ints, so mypy would
    refuse the float stores and mypyc (envs/_native.py) would check every value read as an int."""
    return memoryview(array)  # type: ignore[arg-type]  # (an ndarray is a buffer; numpy's stubs do not say so)


@mypyc_attr(allow_interpreted_subclasses=True)  # (compiled: __new__ skips __init__, for unpickling)
class Observer:
    """Fills one agent's observation arrays for a game (see the module docstring).

    >>> game = Game(num_players=4, seed=0)
    >>> obs = Observer(game)
    >>> views = obs.observe(game, seat=game.current_player)
    >>> views["farms"].shape
    (4, 31, 9, 9)
    """

    # Speed: every attribute in a slot (CPython 3.11 reads ``self.x`` from inline values only up to 30
    # instance-dict keys; this observer has ~90), compiled a native attribute; no instance dict
    # (tests/fields_of_green/env/test_observer_skip.py checks).
    __slots__ = (
        "D",
        "E",
        "T",
        "_around",
        "_buffers",
        "_cache_mv",
        "_card_row_views",
        "_card_rows",
        "_cell_at",
        "_counts",
        "_counts_at",
        "_current",
        "_decision_at",
        "_decision_card_at",
        "_decision_end",
        "_design",
        "_design_of",
        "_zero_row",
        "_discard_counts",
        "_discard_mv",
        "_discard_seen",
        "_draw_at",
        "_draws",
        "_entry",
        "_epoch",
        "_epochs",
        "_equip_mv",
        "_equip_plan",
        "_equip_stamp",
        "_equipment_counts",
        "_farm_cache",
        "_farm_stamp",
        "_farm_views",
        "_farms",
        "_first",
        "_flag_bytes",
        "_flags_key",
        "_frame",
        "_fs",
        "_full_row_views",
        "_full_rows",
        "_game",
        "_hand_at",
        "_hand_bytes",
        "_hand_rows",
        "_hand_sizes",
        "_hand_pad",
        "_harvest_card",
        "_harvest_cells",
        "_harvest_owner",
        "_hist",
        "_kept_at",
        "_order",
        "_order_list",
        "_passed",
        "_passed_at",
        "_passed_views",
        "_picks",
        "_pub",
        "_pub_b",
        "_pub_mv",
        "_pub_plan",
        "_pub_runs",
        "_public",
        "_picked",
        "_recall_year",
        "_revealed_at",
        "_revealed_bytes",
        "_seat_at",
        "_snap",
        "_stamp",
        "_tile_design",
        "_tile_design_of",
        "_zero_tiles",
        "_tile_row_views",
        "_tile_rows",
        "_tiles_at",
        "_to_act_at",
        "_versions",
        "_flags_dst",
        "_own_revealed",
        "_decision_none",
        "_decision_other",
        "_decision_own",
        "_own_key",
        "_act_head",
        "_act_tail",
        "card_set",
        "cells",
        "design_names",
        "entries",
        "farm_size",
        "layout",
        "num_players",
        "perfect_recall",
        "size",
        "tile_names",
        "two_player",
    )
    # (compiled: attributes that hold None or values of several types, declared Any for mypy/mypyc)
    _game: Any
    # (the epoch tokens are compared by identity in fill: a list of objects, so that compiled code hands out the
    # tuple itself, not a new box of an unboxed tuple[int, int] that is never the same object)
    _epochs: list[Any]
    _harvest_owner: Any
    _current: Any
    _first: Any
    _flags_key: Any
    _counts: Any
    _public: Any
    _picked: Any
    # float32 memoryviews made by the core's row_views (the observer's own come from _float_view: Any already)
    _passed_views: Any
    _farm_views: Any
    _card_row_views: Any
    _full_row_views: Any
    _tile_row_views: Any

    def __init__(self, game: Game, perfect_recall: bool = False):
        cards = game.cards
        self.num_players = n = game.num_players
        self.farm_size = s = game.geometry.size
        self.cells = s * s
        self.perfect_recall = bool(perfect_recall)
        self.card_set = cards
        self.D = D = len(cards.location_designs)
        self.E = E = len(cards.equipment_designs)
        self.T = T = len(TILE_FEATURES_FIXED) + E
        self.two_player = n == 2
        # per cell: the cell and its orthogonal neighbours, where placing a card there may change the frontier
        self._around = [(cell, *near) for cell, near in enumerate(game.geometry.neighbours)]
        self.design_names = [d.name for d in cards.location_designs]
        self.tile_names = [e.name for e in cards.equipment_designs]

        card_hi = _highs(CARD_FEATURES)
        tile_hi = np.concatenate([_highs(TILE_FEATURES_FIXED), np.ones(E, np.float32)])
        design_hi = np.ones(D, np.float32)
        spec = [
            (
                "farms",
                ("players", "farm_planes", "rows", "cols"),
                (n, Q, s, s),
                "every farm as grid planes, viewer first (planes: FARM_PLANES)",
                _highs(FARM_PLANES)[None, :, None, None],
            ),
            (
                "placed_equipment",
                ("players", "equipment_designs"),
                (n, E),
                "equipment tiles on each farm, per design (FOG-INFO-1)",
                np.full((1, E), INF, np.float32),
            ),
            (
                "set_aside_equipment",
                ("players", "equipment_designs"),
                (n, E),
                "set-aside tiles of each player, per design (FOG-EQUIP-8)",
                np.full((1, E), INF, np.float32),
            ),
            (
                "discard",
                ("designs",),
                (D,),
                "discard pile contents per design (FOG-INFO-7)",
                np.full(D, INF, np.float32),
            ),
            (
                "players",
                ("players", "player_features"),
                (n, U),
                "resources and public status of every player, viewer first (PLAYER_FEATURES)",
                _highs(PLAYER_FEATURES)[None, :],
            ),
            (
                "draw_counts",
                ("players", "piles"),
                (n, 4),
                "cards each player drew from each main pile this year (FOG-DRAW-6)",
                np.full((1, 4), INF, np.float32),
            ),
            ("game", ("game_features",), (V,), "public game state (GAME_FEATURES)", _highs(GAME_FEATURES)),
            (
                "revealed",
                ("players", "card_features + designs"),
                (n, C + D),
                "each player's picked card once visible: the viewer's own always, others' after the reveal "
                "(2 players: at once); zero when none (CARD_FEATURES, then design one-hot)",
                np.concatenate([card_hi, design_hi])[None, :],
            ),
            (
                "hand",
                ("hand_slots", "1 + card_features + designs"),
                (HAND_SIZE, 1 + C + D),
                "3-4 players: the viewer's hand; 2 players: the face-up display. Slot i is pick action i "
                "(cards sorted by id). Columns: present flag, CARD_FEATURES, design one-hot",
                np.concatenate([[1.0], card_hi, design_hi]).astype(np.float32)[None, :],
            ),
            (
                "decision",
                ("decision_features",),
                (K,),
                "the pending decision and its context (DECISION_FEATURES)",
                _highs(DECISION_FEATURES),
            ),
            (
                "decision_card",
                ("card_features + designs",),
                (C + D,),
                "the viewer's decision: the picked card being resolved (act, building) or the location "
                "being harvested (pay_water) (CARD_FEATURES, then design one-hot)",
                np.concatenate([card_hi, design_hi]),
            ),
            (
                "decision_cell",
                ("rows", "cols"),
                (s, s),
                "the viewer's decision: the cell concerned (build target, harvested location, new location "
                "taking set-aside tiles)",
                np.ones((1, 1), np.float32),
            ),
            (
                "decision_tiles",
                ("draw_slots", "tile_features"),
                (EQUIPMENT_DRAW, T),
                "keep_equipment: the drawn tiles, slot i = keep action i (TILE_FEATURES; private to the drawer)",
                tile_hi[None, :],
            ),
            (
                "decision_kept",
                ("tile_features",),
                (T,),
                "place_equipment: the kept tile to place or set aside (TILE_FEATURES)",
                tile_hi,
            ),
        ]
        if self.perfect_recall:
            spec.append(
                (
                    "passed",
                    ("turns 1-5", "designs"),
                    (RECALL_TURNS, D),
                    "perfect recall: per design, the cards of the hand the viewer passed on after its pick "
                    "in each turn of this year (3-4 players; FOG-INFO-3)",
                    np.full((1, D), INF, np.float32),
                )
            )
        self.layout = ObservationLayout.build(spec)
        self.entries: tuple[Entry, ...] = self.layout.entries
        self.size = self.layout.size
        self._entry = self.layout.entry
        # the decision arrays are adjacent: zeroed together at every fill
        first, last = self._entry["decision"], self._entry["decision_kept"]
        self._decision_at, self._decision_end = first.start, last.start + last.size
        assert self._decision_end - self._decision_at == sum(
            self._entry[k].size
            for k in ("decision", "decision_card", "decision_cell", "decision_tiles", "decision_kept")
        )

        # ---- per-card and per-tile feature rows, computed once
        ncards = len(cards.locations)
        self._card_rows = np.zeros((ncards, C), np.float32)
        self._design = np.zeros(ncards, np.int64)
        for i, card in enumerate(cards.locations):
            self._card_rows[i] = self._card_features(card)
            self._design[i] = card.design
        self._full_rows = np.zeros((ncards, C + D), np.float32)  # card features + design one-hot
        self._full_rows[:, :C] = self._card_rows
        self._full_rows[np.arange(ncards), C + self._design] = 1.0
        self._hand_rows = np.concatenate([np.ones((ncards, 1), np.float32), self._full_rows], axis=1)
        self._harvest_card = [c.ability_kind == "harvest" for c in cards.locations]
        self._design_of = [int(d) for d in self._design]  # the same, as a list of Python ints
        self._zero_row = _float_view(np.zeros(D, np.float32))  # clears a row of `passed`
        ntiles = len(cards.equipment)
        self._tile_rows = np.zeros((ntiles, T), np.float32)
        self._tile_design = np.zeros(ntiles, np.int64)
        nfixed = len(TILE_FEATURES_FIXED)
        for i, tile in enumerate(cards.equipment):
            self._tile_rows[i, HOST_TYPES.index(tile.host)] = 1.0
            self._tile_rows[i, len(HOST_TYPES) + EQUIPMENT_TIMINGS.index(tile.timing)] = 1.0
            self._tile_rows[i, nfixed + tile.design] = 1.0
            self._tile_design[i] = tile.design
        self._tile_design_of = [int(d) for d in self._tile_design]  # the same, as a list of Python ints
        self._zero_tiles = _float_view(np.zeros(E, np.float32))  # clears a row of the equipment counts
        # seat rotation: order[viewer][k] = seat shown at index k
        self._order = [np.array([(v + k) % n for k in range(n)], np.int64) for v in range(n)]
        self._order_list = [[(v + k) % n for k in range(n)] for v in range(n)]
        self._passed = np.zeros((n, RECALL_TURNS, D), np.float32)
        self._recall_year = 0
        self._init_fast_paths()
        self._buffers = [self.new_buffer() for _ in range(n)]
        self._epoch = -1
        self.invalidate()

    def _init_fast_paths(self) -> None:
        """Caches, flat offsets and copy plans for :meth:`fill`.

        Speed: an observation step changes a few dozen of the 11,533 values, and one numpy call costs
        about as much as copying a whole farm. So the hot path writes through ``memoryview`` objects of
        the float32 arrays (a slice copy is a memcpy, a scalar store ~30 ns, no numpy dispatch) using
        offsets computed here once; ``tests/fields_of_green/env/test_observer_incremental.py`` compares every value it
        writes with a from-scratch fill on random games."""
        n, D, E = self.num_players, self.D, self.E
        entry = self._entry
        self._fs = Q * self.cells  # floats per farm in "farms"
        # seat-ordered caches shared by every viewer (refreshed by _sync, copied rotated by fill)
        self._farm_cache = np.zeros((n, Q, self.cells), np.float32)
        self._cache_mv = _float_view(self._farm_cache.reshape(-1))
        self._equipment_counts = np.zeros((2, n, E), np.float32)  # placed, set aside (per seat)
        self._equip_mv = _float_view(self._equipment_counts.reshape(-1))
        self._discard_counts = np.zeros(D, np.float32)
        self._discard_mv = _float_view(self._discard_counts)
        # players | draw_counts | game, in seat order (the same block as in the observation, unrotated)
        self._pub = np.zeros(n * U + n * 4 + V, np.float32)
        self._pub_mv = _float_view(self._pub)
        # ready-made memoryviews of single rows and blocks (slicing a memoryview costs as much as the copy)
        self._farm_views = _row_views(self._farm_cache)
        self._card_row_views = _row_views(self._card_rows)  # card features
        self._full_row_views = _row_views(self._full_rows)  # card features + design one-hot
        self._tile_row_views = _row_views(self._tile_rows)
        self._passed_views = _row_views(self._passed)
        # Byte patterns (speed): a card's row of `hand` / `revealed` as bytes, so that a whole block is one
        # C-level b"".join and one memcpy instead of a clear plus one row copy per card (fill; the rows are
        # the same float32 values as _hand_rows / _full_rows, tests/fields_of_green/test_observer_fast.py
        # compares the blocks with the plain row-by-row path)
        hand_row = self._hand_rows.shape[1] * 4
        self._hand_bytes = [row.tobytes() for row in self._hand_rows] + [bytes(hand_row)]  # [-1]: an empty slot
        self._hand_pad = [[-1] * (HAND_SIZE - k) for k in range(HAND_SIZE + 1)]  # a hand of k cards: the rest
        self._revealed_bytes: dict[int | None, bytes] = {c: row.tobytes() for c, row in enumerate(self._full_rows)}
        self._revealed_bytes[None] = bytes(self._full_rows.shape[1] * 4)  # no visible pick: a zero row
        self._flag_bytes: dict[tuple, bytes] = {}  # GAME_FEATURES one-hots per (year, turn, phase, ...) key
        # the whole `revealed` block before the reveal: the viewer's own pick in row 0, nothing else
        rest = bytes((n - 1) * self._full_rows.shape[1] * 4)
        self._own_revealed = {c: row + rest for c, row in self._revealed_bytes.items()}
        # the decision arrays (decision .. decision_kept) as blocks: the pending decision's kind one-hot,
        # someone else's or the viewer's own (`yours` set, no context: the context is written on top); for the
        # viewer's act the block is _act_head + the picked card's row + _act_tail (fill)
        size = self._decision_end - self._decision_at

        def block(kind: str | None, yours: bool) -> bytes:
            values = np.zeros(size, np.float32)
            if kind is not None:
                values[_DECISION_INDEX[kind]] = 1.0
                values[_YOURS] = yours
            return values.tobytes()

        self._decision_none = block(None, False)
        self._decision_other = {k: block(k, False) for k in DECISION_KINDS}
        self._decision_own = {k: block(k, True) for k in DECISION_KINDS}
        self._own_key: dict[str, Any] = {k: ("own", k) for k in DECISION_KINDS}
        card_at = 4 * (entry["decision_card"].start - self._decision_at)
        self._act_head = self._decision_own["act"][:card_at]
        self._act_tail = self._decision_own["act"][card_at + 4 * (C + D) :]
        self._pub_b = _float_view(self._pub).cast("B")
        # offsets of the parts fill writes
        self._revealed_at = entry["revealed"].start
        self._hand_at = entry["hand"].start
        self._decision_card_at = entry["decision_card"].start
        self._cell_at = entry["decision_cell"].start
        self._tiles_at = entry["decision_tiles"].start
        self._kept_at = entry["decision_kept"].start
        if self.perfect_recall:
            self._passed_at = entry["passed"].start
        # public block (_pub) offsets: per seat, its hand_size (then picked, first_player, to_act)
        self._seat_at = [p * U + _SEAT_FEATURES_AT for p in range(n)]
        self._to_act_at = [p * U + _PF["to_act"] for p in range(n)]
        self._draw_at = n * U  # draw counts, 4 per seat
        self._counts_at = n * U + 4 * n + _PILES_AT  # GAME_FEATURES from pile_field on
        flags_b = 4 * (self._counts_at - _PILES_AT)  # GAME_FEATURES (the one-hots), as a byte offset
        self._flags_dst = self._pub_b[flags_b : flags_b + 4 * _PILES_AT]
        # rotated copy plans per viewer: (dst_from, dst_to, src_from, src_to) slices, adjacent runs merged
        pl, dc, gm = entry["players"], entry["draw_counts"], entry["game"]
        pe, se = entry["placed_equipment"], entry["set_aside_equipment"]
        self._pub_plan = [
            _merge_runs(
                _rotated_runs(n, U, pl.start, 0, v)
                + _rotated_runs(n, 4, dc.start, n * U, v)
                + [(gm.start, n * U + 4 * n, V)]
            )
            for v in range(n)
        ]
        self._equip_plan = [
            _merge_runs(_rotated_runs(n, E, pe.start, 0, v) + _rotated_runs(n, E, se.start, n * E, v)) for v in range(n)
        ]
        # Speed: the discard counts and the rotated public block are adjacent in the observation, and a buffer
        # takes them as one b"".join of their source runs (byte views of the live caches) in the viewer's
        # order and one memcpy: ~0.1 µs a fill less than a slice copy per run (1 run for viewer 0, 5 for the
        # others) and the discard's change test (test_observer_fast.py compares the block with the plain path)
        ds = entry["discard"].start
        discard_b = self._discard_mv.cast("B")
        self._pub_runs = []
        for v in range(n):
            runs = sorted(
                [(ds, ds + D, discard_b)] + [(a, b, self._pub_b[4 * c : 4 * d]) for a, b, c, d in self._pub_plan[v]],
                key=_first_item,
            )
            assert all(r[1] == q[0] for r, q in zip(runs, runs[1:])), "the public parts must be adjacent"
            self._pub_runs.append((ds, runs[-1][1], tuple(r[2] for r in runs)))

    # ------------------------------------------------------------------ layout helpers

    @staticmethod
    def _card_features(card) -> np.ndarray:
        row = np.zeros(C, np.float32)
        row[_CF[f"pile_{card.pile.lower()}"]] = 1.0
        if card.subtype:
            row[_CF[f"subtype_{card.subtype}"]] = 1.0
        row[_CF["cost_coins"]] = card.cost.coins
        row[_CF["cost_water"]] = card.cost.water
        row[_CF["cost_food"]] = card.cost.food
        row[_CF["vp"]] = card.vp
        if card.ability_kind != "none":
            row[_CF[f"ability_{card.ability_kind}"]] = 1.0
        hc = card.harvest_cost
        row[_CF["harvest_coins"]] = hc.coins
        row[_CF["harvest_water"]] = hc.water
        row[_CF["harvest_food"]] = hc.food
        return row

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into a flat float32 buffer of length ``self.size``."""
        return self.layout.views(flat)

    def new_buffer(self) -> ObservationBuffer:
        """A fresh flat buffer and its named views, for :meth:`fill`."""
        flat = np.zeros(self.size, np.float32)
        return ObservationBuffer(flat, self.views(flat))

    def feature_names(self, entry: str) -> list[str]:
        """Names of the last (or, for farms, the plane) axis of an entry, for docs and debugging."""
        D = [f"design:{n}" for n in self.design_names]
        tiles = [n for n, _, _ in TILE_FEATURES_FIXED] + [f"tile:{n}" for n in self.tile_names]
        return {
            "farms": [n for n, _, _ in FARM_PLANES],
            "players": [n for n, _, _ in PLAYER_FEATURES],
            "draw_counts": list(PILES),
            "placed_equipment": list(self.tile_names),
            "set_aside_equipment": list(self.tile_names),
            "revealed": [n for n, _, _ in CARD_FEATURES] + D,
            "hand": ["present"] + [n for n, _, _ in CARD_FEATURES] + D,
            "game": [n for n, _, _ in GAME_FEATURES],
            "discard": list(self.design_names),
            "decision": [n for n, _, _ in DECISION_FEATURES],
            "decision_card": [n for n, _, _ in CARD_FEATURES] + D,
            "decision_cell": [],
            "decision_tiles": tiles,
            "decision_kept": tiles,
            "passed": list(self.design_names),
        }[entry]

    # ------------------------------------------------------------------ cache

    def invalidate(self) -> None:
        """Forget cached state: the next observation rebuilds every farm from the game."""
        self._game = None
        self._hist = -1

    def reset(self, game: Game | None = None) -> None:
        """Start of a new game (forgets perfect-recall memory too)."""
        self.invalidate()
        self._passed[:] = 0.0
        self._recall_year = 0

    def _rebuild(self, game: Game) -> None:
        n = self.num_players
        self._farm_cache.fill(0.0)
        self._snap = [_FarmSnapshot() for _ in range(n)]
        self._farms: list = list(game.farms)  # the Farm objects synced ...
        self._versions = [-1] * n  # ... and their Farm.version then
        self._equipment_counts.fill(0.0)
        self._discard_counts.fill(0.0)
        self._discard_seen = 0
        self._harvest_owner = None
        self._harvest_cells: frozenset = frozenset()
        self._pub.fill(0.0)  # what _sync last wrote into it (all zero now):
        self._current = self._first = None  # to_act and first_player flags set
        self._hand_sizes = [0] * n
        self._picks: list = [None] * n  # (the picked flags follow them)
        self._draws: list = [[0] * 4 for _ in range(n)]
        self._flags_key = self._counts = None  # GAME_FEATURES (None: never written)
        self._public = None  # the Game.public_version the public values were last compared at (None: never)
        self._picked = None  # the Game.pick_version the hand sizes and picks were last compared at
        self._game = game
        # change stamps: when each part of the caches last changed, so that an observation buffer filled
        # earlier for the same seat copies only the parts changed since (see fill); a new epoch (new
        # game, invalidate) forces a full write
        self._epoch = next(_EPOCHS)  # unique across observers: a buffer is trusted only by its filler
        # ... and per seat, the token a buffer's plan holds while it is current for that seat and epoch (fill
        # tests it by identity: one test instead of the epoch's and the seat's)
        self._epochs = [(self._epoch, seat) for seat in range(n)]
        self._stamp = 0
        self._farm_stamp = [0] * n
        self._equip_stamp = 0

    def _sync(self, game: Game, hist: int) -> None:
        """Bring the seat-ordered caches up to date with ``game`` (incrementally; :meth:`fill` calls it only
        when the game or its action count, ``hist``, changed since the last sync).

        Speed: this runs once per state. Farms are compared only when the engine bumped their
        ``Farm.version``, the public values outside the farms only when it bumped ``Game.public_version``
        (game._FARM_ONLY_DECISIONS: most harvest, water and equipment steps leave it alone, and a pick
        leaves every farm alone); then only cheap summaries (sizes, picks, counts) are compared and the
        few values that moved written. ``fill(force_full=True)`` is the plain path the tests compare with."""
        farms = game.farms
        if game is not self._game or farms != self._farms:  # (a farm replaced by hand: start afresh)
            self._rebuild(game)
        self._hist = hist
        self._stamp += 1
        prev = self._current  # the seat that decided at the last sync (None: unknown)
        # Speed: the versions read one by one in a list display (specialised attribute loads);
        # list(map(attrgetter("version"), farms)) measured ~2.1k instructions per step more
        n, f = self.num_players, farms
        if n == 4:
            versions = [f[0].version, f[1].version, f[2].version, f[3].version]
        elif n == 3:
            versions = [f[0].version, f[1].version, f[2].version]
        else:
            versions = [f[0].version, f[1].version]
        old = self._versions
        if versions != old:
            # Speed: usually only the farm of the seat that decided last moved (90% of the farm syncs): that
            # one is synced first and the loop over every seat runs only when another farm moved as well
            # (the order of _sync_farm calls does not matter: each writes its own seat's parts)
            if prev is not None and versions[prev] != old[prev]:
                self._sync_farm(game, prev)
                old[prev] = versions[prev]
            if versions != old:
                for seat in range(n):
                    if versions[seat] != old[seat]:
                        self._sync_farm(game, seat)
                self._versions = versions  # (else the old list is now equal)
        stack = game._stack
        self._frame = frame = stack[-1] if stack else None  # game.decision
        current = frame[1] if frame is not None else None
        if current != prev:
            pmv, at = self._pub_mv, self._to_act_at
            if prev is not None:
                pmv[at[prev]] = 0.0
            if current is not None:
                pmv[at[current]] = 1.0
            self._current = current
        # harvest markers (FOG-HARVEST-3): game.harvested belongs to the player harvesting now
        if game.phase == "harvest" or self._harvest_owner is not None:
            self._sync_harvested(game, current if game.phase == "harvest" else None)
        if game.public_version != self._public:
            self._sync_public(game, prev)
            self._public, self._picked = game.public_version, game.pick_version
        elif game.pick_version != self._picked:  # only 3-4 player picks since: hand sizes and picks alone
            self._sync_public(game, prev, seats_only=True)
            self._picked = game.pick_version

    def _sync_public(self, game: Game, prev: int | None, seats_only: bool = False) -> None:  # noqa: C901
        """Per-seat public status, draw counts, GAME_FEATURES and the discard counts: only the values that
        changed are written (``prev``: the seat that decided at the last sync, whose values usually moved;
        ``seats_only``: only the hand sizes and picks can have moved, Game.pick_version; one branch per part).

        Speed: plain attribute loads (specialised by CPython 3.11) and whole tuple and list comparisons;
        ``operator.attrgetter`` for the scalars and ``map(len)`` over the lists measured ~3.7k instructions
        per step more (a generic attribute lookup each)."""
        pmv, at = self._pub_mv, self._seat_at
        first = game.first_player
        if first != self._first:
            if self._first is not None:
                pmv[at[self._first] + 2] = 0.0  # first_player
            pmv[at[first] + 2] = 1.0
            self._first = first
        h, n, picks = game.hands, self.num_players, game.picks
        if n == 4:  # (speed: as the farm versions in _sync, a list display rather than list(map(len, ...)))
            sizes = [len(h[0]), len(h[1]), len(h[2]), len(h[3])]
        elif n == 3:
            sizes = [len(h[0]), len(h[1]), len(h[2])]
        else:
            sizes = [len(h[0]), len(h[1])]
        old_sizes, old_picks = self._hand_sizes, self._picks
        if sizes != old_sizes or picks != old_picks:
            # Speed: a pick changes only the picker's hand size and pick, an act only the actor's pick: the
            # seat that decided last is written first, then every seat only if the lists still differ (a
            # reveal passes every hand, a new turn clears every pick). Two memoryview stores per seat cost less
            # than comparing the old values seat by seat.
            if prev is not None:
                a = at[prev]
                pmv[a] = old_sizes[prev] = sizes[prev]
                card = old_picks[prev] = picks[prev]
                pmv[a + 1] = card is not None
            if sizes != old_sizes or picks != old_picks:
                for p in range(n):
                    a = at[p]
                    pmv[a] = sizes[p]
                    pmv[a + 1] = picks[p] is not None
                self._hand_sizes, self._picks = sizes, list(picks)  # (else the old lists are now equal)
        if seats_only:
            return
        draws = game.draw_counts
        if draws != self._draws:
            for p, (new, old) in enumerate(zip(draws, self._draws)):
                if new != old:
                    _PACK_DRAW.pack_into(self._pub_b, 4 * (self._draw_at + 4 * p), *new)
            self._draws = [list(d) for d in draws]
        discard, piles = game.discard, game.piles
        counts = (  # GAME_FEATURES from pile_field on, in their order (the four piles spelled out: one tuple)
            len(piles[0]),
            len(piles[1]),
            len(piles[2]),
            len(piles[3]),
            game.towers_left,
            game.silos_left,
            len(game.equipment_stack),
            len(game.offer),
            len(game.display),
            len(discard),
        )
        if counts != self._counts:
            _PACK_COUNTS.pack_into(self._pub_b, 4 * self._counts_at, *counts)
            self._counts = counts
            if len(discard) != self._discard_seen:  # (the discard counts move only with its size)
                self._sync_discard(discard)
        key = (game.year, game.turn, game.phase, game.direction, game.revealed)
        if key != self._flags_key:
            flags = self._flag_bytes.get(key)
            if flags is None:  # a new (year, turn, phase, direction, revealed): packed once per observer
                flags = self._flag_bytes[key] = self._flags(game)
            self._flags_dst[:] = flags
            self._flags_key = key

    def _sync_harvested(self, game: Game, owner: int | None) -> None:
        harvested = game.harvested if owner is not None else _NO_CELLS
        if owner == self._harvest_owner and harvested == self._harvest_cells:  # (a set equals a frozenset)
            return
        cells = frozenset(harvested)  # (copied only when it changed)
        cmv, at = self._cache_mv, _FP["harvested"] * self.cells
        if self._harvest_owner is not None and self._harvest_cells:
            base = self._harvest_owner * self._fs + at
            for cell in self._harvest_cells:
                cmv[base + cell] = 0.0
            self._farm_stamp[self._harvest_owner] = self._stamp
        if owner is not None and cells:
            base = owner * self._fs + at
            for cell in cells:
                cmv[base + cell] = 1.0
            self._farm_stamp[owner] = self._stamp
        self._harvest_owner, self._harvest_cells = owner, cells

    def _sync_discard(self, discard: list[int]) -> None:
        # (speed: Python ints and a memoryview; numpy scalar indexing cost ~2k instructions a card)
        design, counts = self._design_of, self._discard_mv
        if len(discard) < self._discard_seen:  # never in play; a hand-edited game: count afresh
            self._discard_counts.fill(0.0)
            self._discard_seen = 0
        for card in discard[self._discard_seen :]:
            counts[design[card]] += 1.0
        self._discard_seen = len(discard)

    def _flags(self, game: Game) -> bytes:
        """The one-hot GAME_FEATURES (up to the pile sizes) of ``game``, packed as float32."""
        flags = [0] * _PILES_AT
        year, phase = game.year, game.phase
        if 1 <= year <= YEARS:
            flags[year - 1] = 1  # year_1 is feature 0
        if phase == "action" and 1 <= game.turn <= TURNS:
            flags[_TURN_BASE + game.turn - 1] = 1
        if phase in _PHASE_INDEX:
            flags[_PHASE_INDEX[phase]] = 1
        flags[_CLOCKWISE if game.direction == "clockwise" else _COUNTERCLOCKWISE] = 1
        flags[_TWO_PLAYER] = self.two_player
        flags[_REVEALED] = game.revealed
        return _PACK_FLAGS.pack(*flags)

    def _sync_farm(self, game: Game, seat: int) -> None:  # noqa: C901 - one branch per farm part (speed)
        """Farm ``seat``'s planes in the cache and its PLAYER_FEATURES in ``_pub``: what changed since the
        snapshot. The counts and sums among the features are rewritten only in the branch that sees
        their container change; the four plain numbers always."""
        farm = game.farms[seat]
        snap = self._snap[seat]
        cmv, cells = self._cache_mv, self.cells
        base = seat * self._fs  # farm `seat` in the flat cache; plane q, cell c at base + q * cells + c
        pmv, row = self._pub_mv, seat * U  # its PLAYER_FEATURES row
        changed = False
        occupied = farm.occupied
        if len(occupied) != snap.occupied:  # new cards (most acts place one)
            grid = farm.grid
            for cell in occupied[snap.occupied :]:
                code = grid[cell]
                at = base + cell
                if code >= 0:
                    # the card's CARD_FEATURES down the card planes of this cell: one strided memoryview
                    # copy (the plain path is the numpy a[:C, cell] = row of fill(force_full=True)'s rebuild)
                    cmv[at : at + C * cells : cells] = self._card_row_views[code]
                    if self._harvest_card[code] and cell in farm.equipment:  # (else the printed cost,
                        hc = game.harvest_cost(seat, cell)  # just copied with the card) after discounts
                        at += _HARVEST_COST_PLANE * cells
                        cmv[at], cmv[at + cells], cmv[at + 2 * cells] = hc
                elif code == TOWER:
                    cmv[at + _TOWER_PLANE * cells] = 1.0
                elif code == SILO:
                    cmv[at + _SILO_PLANE * cells] = 1.0
                cmv[base + _OCCUPIED_PLANE * cells + cell] = 1.0
            changed = True
            # buildable (FOG-FARM-3): Farm.place is the only change to the frontier (farm.py, frontier_mask),
            # and it changes the placed cell and its neighbours alone; so these cells of the new cards are
            # rewritten from the frontier (speed: no set operations or snapshot copy, ~1 us an act less;
            # test_observer_skip.py checks the engine keeps to it). After a rebuild, the whole frontier.
            frontier, around = farm.frontier, self._around
            at = base + _BUILDABLE_PLANE * cells
            if snap.occupied:
                for new in occupied[snap.occupied :]:
                    for cell in around[new]:
                        cmv[at + cell] = cell in frontier
            else:  # (the plane is zero after a rebuild)
                for cell in frontier:
                    cmv[at + cell] = 1.0
            snap.occupied = len(occupied)
            pmv[row + _PF_LOCATIONS] = len(occupied) - len(farm.fallow)
        if farm.fallow != snap.fallow:
            at = base + _FP["fallow"] * cells
            for cell in farm.fallow ^ snap.fallow:
                cmv[at + cell] = 1.0 if cell in farm.fallow else 0.0
            snap.fallow = set(farm.fallow)
            changed = True
            pmv[row + _PF["fallow"]] = len(farm.fallow)
            pmv[row + _PF["locations"]] = len(occupied) - len(farm.fallow)
        if farm.tower_water != snap.water:
            at = base + _FP["water"] * cells
            for cell, w in farm.tower_water.items():
                cmv[at + cell] = w
            snap.water = dict(farm.tower_water)
            changed = True
            pmv[row + _PF["water"]] = sum(snap.water.values())
            pmv[row + _PF["towers"]] = len(snap.water)
        if farm.tower_capacity != snap.tower_capacity:
            at = base + _FP["tower_capacity"] * cells
            for cell, cap in farm.tower_capacity.items():
                cmv[at + cell] = cap
            snap.tower_capacity = dict(farm.tower_capacity)
            changed = True
            pmv[row + _PF["water_capacity"]] = sum(snap.tower_capacity.values())
        if farm.silo_capacity != snap.silo_capacity:
            at = base + _FP["silo_capacity"] * cells
            for cell, cap in farm.silo_capacity.items():
                cmv[at + cell] = cap
            snap.silo_capacity = dict(farm.silo_capacity)
            changed = True
            pmv[row + _PF["food_capacity"]] = sum(snap.silo_capacity.values())  # Farm.food_capacity
            pmv[row + _PF["silos"]] = len(snap.silo_capacity)
        # (the two equipment branches write through memoryviews with Python ints, like the rest: numpy scalar
        # indexing and a numpy int index cost ~1 µs a tile)
        if farm.equipment != snap.equipment:
            at = base + _FP["equipment"] * cells
            grid = farm.grid
            for cell in set(snap.equipment) | set(farm.equipment):
                tiles = farm.equipment.get(cell, ())
                if list(tiles) == snap.equipment.get(cell, []):
                    continue
                cmv[at + cell] = len(tiles)
                code = grid[cell]
                if code >= 0 and self._harvest_card[code]:  # discounts change the harvest cost
                    hcc = base + _HARVEST_COST_PLANE * cells + cell  # (compiled: not hc, a tuple above)
                    cmv[hcc], cmv[hcc + cells], cmv[hcc + 2 * cells] = game.harvest_cost(seat, cell)
            changed = True
            snap.equipment = {cell: list(tiles) for cell, tiles in farm.equipment.items()}
            emv, design, at = self._equip_mv, self._tile_design_of, seat * self.E  # placed, then set aside
            emv[at : at + self.E] = self._zero_tiles
            for tiles in farm.equipment.values():
                for tile in tiles:
                    emv[at + design[tile]] += 1.0
            self._equip_stamp = self._stamp
        if farm.set_aside != snap.set_aside:
            emv, design, at = self._equip_mv, self._tile_design_of, (self.num_players + seat) * self.E
            emv[at : at + self.E] = self._zero_tiles
            for tile in farm.set_aside:
                emv[at + design[tile]] += 1.0
            snap.set_aside = list(farm.set_aside)
            self._equip_stamp = self._stamp
            pmv[row + _PF["set_aside"]] = len(snap.set_aside)
        if changed:
            self._farm_stamp[seat] = self._stamp
        pmv[row] = farm.coins  # (speed: two memoryview stores ~40 ns, a struct pack_into of both ~90)
        pmv[row + 1] = farm.food
        pmv[row + _PF_VP_TOKENS] = farm.vp_tokens
        pmv[row + _PF_ACTIONS_TAKEN] = farm.actions_taken

    # ------------------------------------------------------------------ perfect recall

    def pick_context(self, game: Game, seat: int) -> tuple | None:
        """Before applying a 3-4 player pick with perfect recall: what :meth:`note_pick` needs (the
        seat, year, turn and the hand it holds); None when there is nothing to remember."""
        if not self.perfect_recall or self.two_player or game.decision_kind != "pick":
            return None
        return (seat, game.year, game.turn, list(game.hands[seat]))

    @property
    def wants_actions(self) -> bool:
        """The adapters call :meth:`before_apply`/:meth:`after_apply` only with perfect recall."""
        return self.perfect_recall

    def before_apply(self, game: Game, seat: int, action: int) -> tuple | None:
        """Core Observer hook: the pick context and slot, when ``action`` is a pick to remember."""
        pick = self.pick_context(game, seat)
        return None if pick is None else (*pick, action - game.layout.PICK)

    def after_apply(self, token: tuple | None) -> None:
        """Core Observer hook: the action was applied; remember the passed hand."""
        if token is not None:
            self.note_pick(*token)

    def note_pick(self, seat: int, year: int, turn: int, hand: list[int], slot: int) -> None:
        """After a pick was applied: remember the hand ``seat`` passed on (its hand minus the pick)."""
        if year != self._recall_year:
            self._passed[:] = 0.0
            self._recall_year = year
        if 1 <= turn <= RECALL_TURNS:
            # (speed: through the seat's memoryview with Python ints; numpy scalar indexing cost ~2k
            # instructions a card)
            row, design, at = self._passed_views[seat], self._design_of, (turn - 1) * self.D
            row[at : at + self.D] = self._zero_row
            for i, card in enumerate(hand):
                if i != slot:
                    row[at + design[card]] += 1.0

    # ------------------------------------------------------------------ filling

    def observe(self, game: Game, seat: int) -> dict[str, np.ndarray]:
        """Fill and return the observation of ``seat`` in this observer's own per-seat buffer (the
        arrays are overwritten by the next call for the same seat: copy them to keep them)."""
        buf = self._buffers[seat]
        self.fill(game, seat, buf)
        return buf.views

    def fill(self, game: Game, seat: int, buf: ObservationBuffer, force_full: bool = False) -> None:  # noqa: C901
        """Write ``seat``'s observation of ``game`` into ``buf`` (from :meth:`new_buffer`).

        Incremental: ``buf``'s fill plan remembers what the buffer was last filled with (cache epoch, change
        stamp, seat, hand, visible picks, decision), and only the parts that changed since are rewritten; a
        buffer filled for another seat or game is rewritten entirely. ``force_full=True`` rebuilds this
        observer's caches from ``game`` and rewrites every value (the reference the incremental path is
        tested against; perfect-recall memory is kept). Do not write into ``buf`` yourself."""
        if force_full:
            self.invalidate()
        hist = len(game.history)
        if game is not self._game or hist != self._hist:
            self._sync(game, hist)
        plan, epoch = buf.plan, self._epochs[seat]
        if plan is None or plan.epoch is not epoch:
            # nothing in buf can be trusted: every part is written (the plan's views are kept when they
            # belong to this observer and seat); until the end of this fill the stamp says "nothing"
            if plan is None or plan.seat != seat or plan.observer is not self:
                plan = buf.plan = _FillPlan(self, buf, seat)
            plan.epoch, plan.stamp = epoch, -1
            plan.hand = plan.revealed = plan.decision_key = _STALE
        since = plan.stamp

        # ---- farms (viewer first): only those changed since buf was filled
        stamps = self._farm_stamp
        for dst, src, p in plan.farms:
            if stamps[p] > since:
                dst[:] = src
        if self._equip_stamp > since:
            for dst, src in plan.equipment:
                dst[:] = src
        # ---- the discard counts, then players, this year's draw counts and the public game state (_pub
        # rotated): always, one join of the runs (see _init_fast_paths)
        plan.public[:] = b"".join(plan.public_srcs)

        # ---- picked cards the viewer may see: its own always, others' after the reveal (2 players: at once).
        # Speed: before the reveal the whole block depends on the viewer's own pick alone, a ready-made block
        # per card (_own_revealed); after it, one row per seat in the viewer's order, joined (the rows spelled
        # out per player count: ~100 ns less than map)
        picks = game.picks
        visible: Any  # (compiled: a list or an int/None below)
        block: Any
        rows: Any
        if self.two_player or game.revealed:
            visible = picks[seat:] + picks[:seat]
            if visible != plan.revealed:
                rows = self._revealed_bytes
                if len(visible) == 4:
                    block = (rows[visible[0]], rows[visible[1]], rows[visible[2]], rows[visible[3]])
                elif len(visible) == 3:
                    block = (rows[visible[0]], rows[visible[1]], rows[visible[2]])
                else:
                    block = (rows[visible[0]], rows[visible[1]])
                plan.revealed_b[:] = b"".join(block)
                plan.revealed = visible
        else:
            visible = picks[seat]  # (an int or None: never equal to a list above)
            if visible != plan.revealed:
                plan.revealed_b[:] = self._own_revealed[visible]
                plan.revealed = visible

        # ---- hand (own hand, or the public 2-player display); slot i is pick action i
        hand = game.display if self.two_player else game.hands[seat]
        if hand != plan.hand:
            if len(hand) > HAND_SIZE:
                raise ValueError(f"a hand of {len(hand)} cards does not fit the observation ({HAND_SIZE} slots)")
            # Speed: the six slots spelled out over the hand padded with the empty slot's index (-1): ~150 ns
            # less than building the join's items with map (test_observer_fast.py: the plain row-by-row path)
            h, rows = hand + self._hand_pad[len(hand)], self._hand_bytes
            plan.hand_b[:] = b"".join((rows[h[0]], rows[h[1]], rows[h[2]], rows[h[3]], rows[h[4]], rows[h[5]]))
            plan.hand = hand[:]

        # ---- pending decision and, for the viewer's own decision, its context.
        # Speed: the decision arrays of the frequent cases (someone else's decision; the viewer's own split,
        # pick or harvest, which have no context; its act, whose context is the picked card) are ready-made
        # blocks, written only when the buffer holds another (decision_key; None: always written)
        frame = self._frame  # game.decision, read by _sync
        if frame is None:
            key = None
            plan.decision_b[:] = self._decision_none
        elif frame[1] != seat:
            key = frame[0]
            if key != plan.decision_key:
                plan.decision_b[:] = self._decision_other[key]
        else:
            kind = frame[0]
            if kind in _NO_CONTEXT:
                key = self._own_key[kind]
                if key != plan.decision_key:
                    plan.decision_b[:] = self._decision_own[kind]
            elif kind == "act":
                card = picks[seat]
                key = (_ACT, card)
                if key != plan.decision_key:  # the act's block around the picked card's row: one join
                    plan.decision_b[:] = b"".join((self._act_head, self._revealed_bytes[card], self._act_tail))
            else:
                key = None
                plan.decision_b[:] = self._decision_own[kind]
                self._fill_context(game, seat, frame, buf.mv, plan)
        plan.decision_key = key

        if self.perfect_recall:
            if game.year != self._recall_year:
                self._passed[:] = 0.0
                self._recall_year = game.year
            plan.passed[:] = self._passed_views[seat]
        plan.stamp = self._stamp

    def _fill_context(self, game: Game, seat: int, frame: tuple, mv: Any, plan: _FillPlan) -> None:
        """The viewer's own decision context, into the zeroed decision arrays of ``mv`` (a float32 memoryview,
        ``Any`` as in :func:`_float_view`)."""
        kind = frame[0]
        d = self._decision_at
        card = None  # the card shown in decision_card
        if kind == "act":
            card = game.picks[seat]
        elif kind == "pay_water":
            cell, due = frame[2], frame[3]
            mv[d + _DF["water_due"]] = due
            mv[self._cell_at + cell] = 1.0
            code = game.farms[seat].grid[cell]
            if code == EMPTY:  # paying a build cost: the card is still the pick (FOG-ACT-BUILD-8)
                mv[d + _DF["for_build"]] = 1.0
                card = game.picks[seat]
            else:
                mv[d + _DF["for_harvest"]] = 1.0
                card = code if code >= 0 else None
        elif kind == "store_water":
            mv[d + _DF["water_to_store"]] = frame[2]
        elif kind == "keep_equipment":
            rows = self._tile_row_views
            for dst, tile in zip(plan.tiles_rows, frame[2]):
                dst[:] = rows[tile]
        elif kind == "place_equipment":
            plan.kept[:] = self._tile_row_views[frame[2]]
        elif kind == "attach":
            cell = frame[2]
            mv[self._cell_at + cell] = 1.0
            mv[d + _DF["for_build"]] = 1.0
            code = game.farms[seat].grid[cell]
            if code >= 0:
                card = code
        elif kind == "ability_target":
            mv[d + (_DF["target_tower"] if frame[2] == "tower" else _DF["target_silo"])] = 1.0
            mv[d + _DF["raise_by"]] = frame[3]
        elif kind == "ability_option":
            cell, pay, gain, times = frame[2], frame[3], frame[4], frame[5]
            if cell >= 0:
                mv[self._cell_at + cell] = 1.0
                code = game.farms[seat].grid[cell]
                if code >= 0:
                    card = code
            mv[d + _DF["trade_pay_coins"]] = pay.get("coins", 0)
            mv[d + _DF["trade_pay_food"]] = pay.get("food", 0)
            for res in ("coins", "water", "food", "vp"):
                mv[d + _DF[f"trade_gain_{res}"]] = gain.get(res, 0)
            mv[d + _DF["trade_max_times"]] = times
        if card is not None:
            plan.decision_card[:] = self._full_row_views[card]

    # ------------------------------------------------------------------ text

    def text(self, game: Game, seat: int) -> str:  # noqa: C901 - one paragraph per part of the observation
        """The same information as :meth:`observe`, as readable text for a person at ``seat``."""
        from .render import farm_rows

        cards = game.cards.locations
        tiles = game.cards.equipment
        label = game.geometry.label
        order = [int(p) for p in self._order[seat]]
        lines = []
        others = ", ".join(f"player {p}" for p in order[1:])
        lines.append(f"view of player {seat} (then, in seat order: {others})")
        phase = game.phase + (f", turn {game.turn}/{TURNS}" if game.phase == "action" else "")
        lines.append(
            f"year {game.year}/{YEARS}, {phase}, passing {game.direction}, first player: player {game.first_player}"
            + (", picks revealed" if game.revealed and not self.two_player else "")
        )
        lines.append(
            "piles F/L/C/B: "
            + "/".join(str(len(p)) for p in game.piles)
            + f"; towers left {game.towers_left}, silos left {game.silos_left}, "
            f"equipment stack {len(game.equipment_stack)}"
            + (f", offer pile {len(game.offer)}" if self.two_player else "")
        )
        lines.append(f"discard ({len(game.discard)}): " + (_counted(cards[c].name for c in game.discard) or "-"))
        for p in order:
            f = game.farms[p]
            who = f"you (player {p})" if p == seat else f"player {p}"
            status = []
            if p == game.current_player:
                status.append("to decide")
            if p == game.first_player:
                status.append("first player")
            if not self.two_player:
                status.append(f"hand {len(game.hands[p])}")
                if game.picks[p] is not None:
                    status.append("has picked")
            lines.append(
                f"{who}: coins {f.coins}, food {f.food}/{f.food_capacity}, "
                f"water {f.water}/{sum(f.tower_capacity.values())} on {len(f.tower_water)} tower(s), "
                f"VP tokens {f.vp_tokens}, actions {f.actions_taken}; " + ", ".join(status)
            )
            lines.append("  drew this year F/L/C/B: " + "/".join(str(x) for x in game.draw_counts[p]))
            lines.extend("  " + row for row in farm_rows(f, cards))
            for cell in sorted(f.occupied):
                code = f.grid[cell]
                if code < 0:
                    if f.equipment.get(cell):
                        kind = "Water Tower" if code == TOWER else "Silo"
                        lines.append(
                            f"  {label(cell)} {kind} with " + ", ".join(tiles[t].name for t in f.equipment[cell])
                        )
                    continue
                extra = []
                if cell in f.fallow:
                    extra.append("fallow")
                if f.equipment.get(cell):
                    extra.append("equipment: " + ", ".join(tiles[t].name for t in f.equipment[cell]))
                if self._harvest_card[code] and cell not in f.fallow:
                    hc = game.harvest_cost(p, cell)
                    extra.append(f"harvest cost {hc[0]}c/{hc[1]}w/{hc[2]}f")
                    if game.phase == "harvest" and p == game.current_player and cell in game.harvested:
                        extra.append("harvested")
                lines.append(f"  {label(cell)} {cards[code].name}" + (f" [{'; '.join(extra)}]" if extra else ""))
            if f.set_aside:
                lines.append("  set aside: " + ", ".join(tiles[t].name for t in f.set_aside))
            card = game.picks[p]
            if card is not None and (p == seat or self.two_player or game.revealed):
                lines.append(f"  picked: {cards[card].name}")
        hand = game.display if self.two_player else game.hands[seat]
        title = "display" if self.two_player else "your hand"
        lines.append(f"{title}:" + ("" if hand else " (empty)"))
        for i, card in enumerate(hand):
            lines.append(f"  slot {i}: {_card_text(cards[card])}")
        frame = game.decision
        if frame is None:
            lines.append("the game is over")
        elif frame[1] != seat:
            lines.append(f"waiting for player {frame[1]} ({frame[0]})")
        else:
            lines.append("your decision: " + self._context_text(game, seat, frame))
        if self.perfect_recall and not self.two_player:
            if game.year != self._recall_year:
                self._passed[:] = 0.0
                self._recall_year = game.year
            for t in range(RECALL_TURNS):
                row = self._passed[seat, t]
                if row.any():
                    names = ", ".join(
                        f"{self.design_names[d]}" + (f" x{int(row[d])}" if row[d] > 1 else "")
                        for d in np.flatnonzero(row)
                    )
                    lines.append(f"you passed on in turn {t + 1}: {names}")
        return "\n".join(lines)

    def _context_text(self, game: Game, seat: int, frame: tuple) -> str:
        kind = frame[0]
        cards = game.cards.locations
        tiles = game.cards.equipment
        label = game.geometry.label
        farm = game.farms[seat]
        if kind == "split":
            return "choose this year's draw split (6 cards from at least 3 piles)"
        if kind == "pick":
            return "pick a card" + (" from the display" if self.two_player else " from your hand")
        if kind == "act":
            card = game.picks[seat]
            return f"choose an action (A-E) with {cards[card].name}" if card is not None else "choose an action"
        if kind == "pay_water":
            cell, due = frame[2], frame[3]
            code = farm.grid[cell]
            what = (
                f"building {cards[game.picks[seat]].name}"  # type: ignore[index]
                if code == EMPTY and game.picks[seat] is not None
                else f"harvesting {cards[code].name}"
                if code >= 0
                else "this cost"
            )
            return f"pay water for {what} at {label(cell)}: {due} still to pay, one unit per decision"
        if kind == "store_water":
            return f"place gained water on a tower with room: {frame[2]} to place"
        if kind == "harvest":
            return "harvest: pay a harvest cost, or end the harvest (unpaid locations turn fallow)"
        if kind == "keep_equipment":
            return "keep one equipment tile: " + "; ".join(f"{i}: {tiles[t].name}" for i, t in enumerate(frame[2]))
        if kind == "place_equipment":
            return f"place {tiles[frame[2]].name} on a matching location, or set it aside"
        if kind == "attach":
            return f"attach set-aside equipment to the new location at {label(frame[2])}, or stop"
        if kind == "ability_target":
            return f"choose a {frame[2]} to hold {frame[3]} more"
        if kind == "ability_option":
            pay, gain, times = frame[3], frame[4], frame[5]
            return f"trade up to {times} time(s): pay {pay} to gain {gain}"
        return kind

    # ------------------------------------------------------------------ docs

    def markdown(self) -> str:
        """The observation layout as markdown tables (for docs/fields_of_green/env.md)."""
        lines = [
            f"Observation layout for {self.num_players} players, farm_size {self.farm_size}, "
            f"{self.D} location designs, {self.E} equipment designs"
            + (", perfect_recall" if self.perfect_recall else "")
            + f": {self.size} float32 values.",
            "",
            "| array | shape | dims | meaning |",
            "|---|---|---|---|",
        ]
        for e in self.entries:
            lines.append(f"| `{e.name}` | {e.shape} | {' × '.join(e.dims)} | {e.meaning} |")
        lines.append(
            "| `action_mask` (beside `observation`) | "
            f"({Game(num_players=self.num_players, farm_size=self.farm_size).layout.size},) | actions | "
            "int8, 1 = legal now (see the action table) |"
        )
        for title, table in (
            ("FARM_PLANES (axis 1 of `farms`; card planes are zero on empty cells, towers and silos)", FARM_PLANES),
            ("PLAYER_FEATURES (axis 1 of `players`)", PLAYER_FEATURES),
            (
                "CARD_FEATURES (card columns of `revealed`, `hand`, `decision_card`; then one column per design)",
                CARD_FEATURES,
            ),
            ("GAME_FEATURES (`game`)", GAME_FEATURES),
            ("DECISION_FEATURES (`decision`)", DECISION_FEATURES),
            (
                "TILE_FEATURES (`decision_tiles`, `decision_kept`; then one column per equipment design)",
                TILE_FEATURES_FIXED,
            ),
        ):
            lines += ["", f"**{title}**", "", "| # | name | meaning | range |", "|---|---|---|---|"]
            for i, (name, meaning, high) in enumerate(table):
                lines.append(f"| {i} | `{name}` | {meaning} | {'0/1' if high == 1 else '≥ 0'} |")
        return "\n".join(lines)


@mypyc_attr(native_class=False)  # (a subclass of the core's plain dataclass)
@dataclass
class ObservationBuffer(_CoreBuffer):
    """The core buffer plus its fill plan, which also remembers what the buffer holds (cache epoch, change
    stamp, seat, hand, visible picks, decision), so that a refill for the same seat rewrites only what
    changed since."""

    plan: _FillPlan | None = field(default=None, repr=False)


@mypyc_attr(allow_interpreted_subclasses=True)
class _FarmSnapshot:
    """What the cache last saw of one farm."""

    __slots__ = ("occupied", "fallow", "water", "tower_capacity", "silo_capacity", "equipment", "set_aside")

    def __init__(self):
        self.occupied = 0
        self.fallow: set = set()
        self.water: dict = {}
        self.tower_capacity: dict = {}
        self.silo_capacity: dict = {}
        self.equipment: dict = {}
        self.set_aside: list = []


@mypyc_attr(allow_interpreted_subclasses=True)
class _FillPlan:
    """Ready-made memoryviews of one buffer's parts for one viewing seat, each paired with its source
    in the observer's caches, so that :meth:`Observer.fill` copies with ``dst[:] = src`` (a memcpy) or, for
    the public block (discard .. game), ``dst[:] = b"".join(srcs)`` over its rotated source runs."""

    __slots__ = (
        "observer",
        "seat",
        "epoch",
        "stamp",
        "hand",
        "revealed",
        "decision_key",
        "decision_b",
        "farms",
        "equipment",
        "public",
        "public_srcs",
        "revealed",
        "revealed_b",
        "hand",
        "hand_b",
        "decision_card",
        "tiles_rows",
        "kept",
        "passed",
    )
    # (compiled: attributes of several types, declared Any for mypy/mypyc)
    epoch: Any
    stamp: Any
    hand: Any
    revealed: Any
    decision_key: Any
    passed: Any

    def __init__(self, obs: Observer, buf: ObservationBuffer, seat: int):
        mv, fs, n = buf.mv, obs._fs, obs.num_players
        W, HW, T = C + obs.D, 1 + C + obs.D, obs.T
        self.observer, self.seat = obs, seat
        # what the buffer holds (fill): the epoch token (Observer._epochs) and the stamp of the caches it was
        # last filled from (-1: nothing trusted), and the hand, visible picks and decision key it was last
        # written with (_STALE: unknown, always rewritten)
        self.epoch, self.stamp = -1, -1
        self.hand = self.revealed = self.decision_key = _STALE
        self.farms = [(mv[k * fs : (k + 1) * fs], obs._farm_views[p], p) for k, p in enumerate(obs._order_list[seat])]
        self.equipment = [(mv[a:b], obs._equip_mv[c:d]) for a, b, c, d in obs._equip_plan[seat]]
        start, end, self.public_srcs = obs._pub_runs[seat]  # discard .. game, as bytes, and its sources
        self.public = mv[start:end].cast("B")
        at = obs._revealed_at
        self.revealed = mv[at : at + n * W]
        self.revealed_b = self.revealed.cast("B")  # the same block as bytes, for the byte patterns
        at = obs._hand_at
        self.hand = mv[at : at + HAND_SIZE * HW]
        self.hand_b = self.hand.cast("B")
        self.decision_b = mv[obs._decision_at : obs._decision_end].cast("B")  # decision .. decision_kept, bytes
        self.decision_card = mv[obs._decision_card_at : obs._decision_card_at + W]
        at = obs._tiles_at
        self.tiles_rows = [mv[at + i * T : at + (i + 1) * T] for i in range(EQUIPMENT_DRAW)]
        self.kept = mv[obs._kept_at : obs._kept_at + T]
        size = RECALL_TURNS * obs.D
        self.passed = mv[obs._passed_at : obs._passed_at + size] if obs.perfect_recall else None


_row_views, _rotated_runs, _merge_runs = row_views, rotated_runs, merge_runs


_PHASE_INDEX = {p: _GF[f"phase_{p}"] for p in PHASES}
_TURN_BASE = _GF["turn_1"]
_PILES_AT = _GF["pile_field"]
_CLOCKWISE, _COUNTERCLOCKWISE = _GF["clockwise"], _GF["counterclockwise"]
_TWO_PLAYER, _REVEALED = _GF["two_player"], _GF["revealed"]
assert _GF["year_1"] == 0 and [n for n, _, _ in GAME_FEATURES[_PILES_AT:]] == [
    "pile_field",
    "pile_livestock",
    "pile_construction",
    "pile_building",
    "towers_left",
    "silos_left",
    "equipment_stack",
    "offer_pile",
    "display",
    "discard_pile",
]
_DECISION_INDEX = {k: _DF[f"kind_{k}"] for k in DECISION_KINDS}
_YOURS = _DF["yours"]
_NO_CONTEXT = frozenset({"split", "pick", "harvest"})  # decisions Observer._fill_context writes nothing for
# PLAYER_FEATURES: first those read from the farm (Observer._sync_farm), then four read from the game
_SEAT_FEATURES_AT = _PF["hand_size"]
assert _PF["picked"] == _SEAT_FEATURES_AT + 1  # Observer._sync_public writes them together
_PF_LOCATIONS, _PF_VP_TOKENS, _PF_ACTIONS_TAKEN = _PF["locations"], _PF["vp_tokens"], _PF["actions_taken"]
# planes written by Observer._sync_farm for a new card (a plane's values start at plane * cells)
_HARVEST_COST_PLANE = _FP["card_harvest_coins"]
assert _FP["card_harvest_food"] == _HARVEST_COST_PLANE + 2 and _HARVEST_COST_PLANE + 3 == C
_TOWER_PLANE, _SILO_PLANE, _OCCUPIED_PLANE = _FP["tower"], _FP["silo"], _FP["occupied"]
_BUILDABLE_PLANE = _FP["buildable"]
assert (_PF["coins"], _PF["food"]) == (0, 1)
assert [n for n, _, _ in PLAYER_FEATURES] == [
    "coins",
    "food",
    "food_capacity",
    "water",
    "water_capacity",
    "vp_tokens",
    "set_aside",
    "towers",
    "silos",
    "fallow",
    "locations",
    "actions_taken",
    "hand_size",
    "picked",
    "first_player",
    "to_act",
]
# Python values straight into float32 memory (one call, no intermediate array)
_EPOCHS = itertools.count()  # cache epochs (see Observer._rebuild)
_PACK_DRAW = struct.Struct("=4f")
_PACK_FLAGS = struct.Struct(f"={_PILES_AT}f")
_PACK_COUNTS = struct.Struct(f"={V - _PILES_AT}f")
assert len(PILES) == 4  # Observer._sync_public reads the four piles one by one
_first_item = operator.itemgetter(0)
_NO_CELLS: frozenset = frozenset()
assert HAND_SIZE == 6  # Observer.fill spells out the hand's six slots
_STALE = object()  # a buffer part's key when its contents are unknown: equal to nothing (Observer.fill)
_ACT = object()  # tags the decision key of the viewer's own act: (_ACT, picked card)


def _counted(names: Iterable[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} x{c}" if c > 1 else name for name, c in sorted(counts.items()))


def _card_text(card) -> str:
    try:
        return card.text
    except Exception:  # card_text is optional sugar; never let it break an observation text
        return card.name


def layout_markdown(num_players: int = 4, farm_size: int = 9, perfect_recall: bool = True) -> str:
    """Markdown of the observation layout for the default card set."""
    return Observer(Game(num_players=num_players, seed=0, farm_size=farm_size), perfect_recall).markdown()
