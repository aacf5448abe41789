"""The Key Harvest observer: exactly what one seat may know (KH-INFO-1..8, KH-RULING-16), as named arrays.

Everything public is written (every country board as planes over the 56 spaces, stores with their bids,
the registry, the town board, event spaces, fallow area, general stock, the bag's known composition, the
turn state and the pending phase with its context), the viewer's own supply, and for every other player
what perfect recall deduces: the supply total, the per-crop net of that player's public gains and losses
(``net_gain`` / ``net_loss``), a per-crop lower bound, and in a 2-player game the full supply.

The deduced fields are computed from the public record only (``Game.net``/``min_net`` are updated by every
open transfer, KH-INFO-6; the 2-player start counters are public, KH-SETUP-18), never from the screens, and
the observer never reads another player's secret start draw, the bag order or the removed events.

Every player axis starts with the viewer, then the next seats clockwise (``viewer_order``). ``fill`` is
incremental (a master copy in seat order, rewritten part by part when its inputs change) and gives exactly
the values of ``fill_plain``, which computes everything from the state (see the comment above them).
"""

from __future__ import annotations

import itertools
import struct
from functools import partial
from operator import add, sub
from typing import Any

import numpy as np

from farmgames.envs.core.observation import (
    Feature,
    ObservationBuffer,
    ObservationLayout,
    highs,
    merge_runs,
    viewer_order,
)

from .actions import PHASE_INDEX, PHASES
from .board import (
    COUNTERS_PER_CROP,
    CROP_OF,
    CROPS,
    EVENT_SPACES,
    EVENT_TILES,
    EVENTS,
    FARMHANDS,
    NUM_CROPS,
    NUM_EVENT_TILES,
    NUM_SPACES,
    NUMBER,
    REGISTRY_SPACES,
    SAFETY_ROUNDS,
    START_COUNTERS,
    STORE_SPACES,
    TILE_NUMBER,
    TOTAL_COUNTERS,
    TOWNSFOLK_BASE,
    WORKERS,
    spaces,
    worker_kind,
)
from .game import (
    CH_BAG,
    CH_BIDS,
    CH_BOARD,
    CH_COUNTERS,
    CH_EVENTS,
    CH_NEW,
    CH_REGISTRY,
    CH_STOCK,
    CH_STORE,
    CH_TURN,
    CH_WORKERS,
    EXTRA_SUPERVISOR,
    PHASE_OF,
    PICK_KINDS,
    UNLIMITED,
)

BOARD_PLANES: tuple[Feature, ...] = (
    ("field", "a field tile lies on the space", 1.0),
    ("unharvested", "the field tile lies unharvested side up", 1.0),
    ("harvested", "the field tile lies harvested side up", 1.0),
    *((f"crop_{c.replace(' ', '_')}", f"the field tile's crop is {c}", 1.0) for c in CROPS),
    ("worker", "a worker tile lies on the space (owned by the board's player, KH-WORK-10)", 1.0),
    ("worker_number", "the number on that worker (1-5)", 5.0),
    ("townsfolk", "that worker is a townsfolk tile", 1.0),
)
N_PLANES = len(BOARD_PLANES)
LIMITS = (2, 3, UNLIMITED)  # exchange limits: Labourer, Market Day, Merchant

_CROP_PLANES = np.zeros((NUM_SPACES, NUM_CROPS), np.float32)
for _s in range(NUM_SPACES):
    _CROP_PLANES[_s, CROP_OF[_s]] = 1.0


def bits(mask: int) -> np.ndarray:
    """A 56-space bitmask as a float32 0/1 vector."""
    raw = np.frombuffer(mask.to_bytes(8, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little")[:NUM_SPACES].astype(np.float32)


def deduced_supply(game: Any, q: int) -> list[int]:
    """Per crop, what every other player deduces of seat ``q``'s supply from the public record: exact with
    2 players (the start counters are public, KH-SETUP-18: start + net), else the lower bound net minus the
    lowest net seen (KH-INFO-7). The one definition the observer and the heuristic bot read."""
    if game.num_players == 2:
        return list(map(add, game.start[q], game.net[q]))
    return list(map(sub, game.net[q], game.min_net[q]))


def known_supplies(game: Any, viewer: int) -> tuple[list[list[int] | None], list[list[int]], list[int]]:
    """What ``viewer`` knows of every seat's supply, from the public record (KH-INFO-7, KH-RULING-16):
    (exact supply or None, per-crop lower bound, total). Also used by the heuristic bot."""
    n = game.num_players
    two = n == 2
    exact: list[list[int] | None] = []
    low: list[list[int]] = []
    total: list[int] = []
    for q in range(n):
        total.append(sum(game.start[q]) + sum(game.net[q]))  # the start total is public (3; scenarios may differ)
        row = list(game.supply[q]) if q == viewer else deduced_supply(game, q)
        exact.append(row if q == viewer or two else None)
        low.append(row)
    return exact, low, total


def others_start_pool(game: Any, viewer: int) -> list[int]:
    """Counters of each crop in the other players' start counters together (public pool minus own)."""
    return [game.pool[c] - game.start[viewer][c] for c in range(NUM_CROPS)]


def _one_hot(names: tuple[str, ...] | list[str], prefix: str, meaning: str) -> list[Feature]:
    return [(f"{prefix}_{n.lower().replace(' ', '_')}", f"{meaning}: {n}", 1.0) for n in names]


CROP_KEYS = tuple(c.replace(" ", "_") for c in CROPS)

#: one row per player (viewer first): turn roles, workers, supply knowledge, the store's bids
PLAYER_FEATURES: tuple[Feature, ...] = (
    ("active", "the active player (whose turn it is)", 1.0),
    ("acting", "the acting player (who decides now)", 1.0),
    ("start_player", "the start player", 1.0),
    ("event_player", "the player the current event is being resolved for", 1.0),
    *((f"farmhand_off_{w.name.lower()}", f"{w.name} lies beside the board (playable)", 1.0) for w in WORKERS[:6]),
    *(
        (f"rebenefit_{w.name.lower()}", f"{w.name} gave a re-placement benefit this turn (KH-ACT-PLACE-11)", 1.0)
        for w in WORKERS[:6]
    ),
    ("supply_total", "counters behind the screen (always known, KH-INFO-7)", float(TOTAL_COUNTERS)),
    ("supply_known", "the per-crop supply below is exact (the viewer; everyone with 2 players)", 1.0),
    *((f"supply_exact_{c}", f"{c} in the supply where known, else 0", float(COUNTERS_PER_CROP)) for c in CROP_KEYS),
    *(
        (
            f"supply_min_{c}",
            f"deduced lower bound of {c} (net minus lowest net so far; exact where known)",
            float(COUNTERS_PER_CROP),
        )
        for c in CROP_KEYS
    ),
    *(
        (f"net_gain_{c}", f"positive part of the public net of {c} since setup (KH-INFO-6)", float(COUNTERS_PER_CROP))
        for c in CROP_KEYS
    ),
    *(
        (f"net_loss_{c}", "negative part of that net (at most the start counters)", float(START_COUNTERS))
        for c in CROP_KEYS
    ),
    *(
        (f"bid{k + 1}_{c}", f"{c} in the open bid of store space {k + 1} (KH-ACT-BID-8)", float(COUNTERS_PER_CROP))
        for k in range(STORE_SPACES)
        for c in CROP_KEYS
    ),
    *(
        (f"store{k + 1}_new", f"the tile of store space {k + 1} entered a store this turn (KH-EVENT-6)", 1.0)
        for k in range(STORE_SPACES)
    ),
)
NPF = len(PLAYER_FEATURES)
_PF = {name: i for i, (name, _, _) in enumerate(PLAYER_FEATURES)}

#: the table-wide state and the pending decision's context
STATE_FEATURES: tuple[Feature, ...] = (
    *((f"stock_{c}", f"general stock of {c} (KH-INFO-5)", float(COUNTERS_PER_CROP)) for c in CROP_KEYS),
    *((f"own_{c}", f"{c} in the viewer's own supply", float(COUNTERS_PER_CROP)) for c in CROP_KEYS),
    *(
        (f"start_pool_others_{c}", f"{c} in the other players' start counters together (pool minus own)", 3.0)
        for c in CROP_KEYS
    ),
    ("bag_fields", "field tiles in the bag (KH-INFO-3)", float(NUM_SPACES)),
    ("bag_events", "event tiles in the bag", float(NUM_EVENT_TILES)),
    *((f"events_out_{e.name.lower().replace(' ', '_')}", f"resolved tiles of {e.name}", 2.0) for e in EVENTS),
    *((f"letter_{ch}", f"action ({ch}) used this turn (KH-TURN-3)", 1.0) for ch in "abcd"),
    ("actions_taken", "turn actions taken toward the limit of two (KH-TURN-2)", 2.0),
    ("end_triggered", "the 10th event was drawn (KH-END-1)", 1.0),
    ("turns_left", "turns left after the trigger, this one included (KH-RULING-8)", 9.0),
    ("rounds", "complete rounds played (KH-END-6)", float(SAFETY_ROUNDS + 3)),
    ("events", "events resolved", float(EVENT_SPACES)),
    ("pending_supervisor", "a Supervisor's extra action awaits the end of the action", 1.0),
    ("pending_carter", "a Carter's extra action awaits the end of the action", 1.0),
    *((f"rebenefit_{w.name.lower()}", f"{w.name} gave a re-placement benefit this turn", 1.0) for w in WORKERS[6:]),
    *_one_hot(PHASES, "phase", "the current phase (§16)"),
    *_one_hot([w.name for w in WORKERS], "worker", "SPACE/REPLACE: the worker being placed"),
    *_one_hot([e.name for e in EVENTS], "event", "the event being resolved"),
    *_one_hot(list(PICK_KINDS), "pick", "PICK: whose pick"),
    ("free_harvest", "HARVEST: an event's or the Reeve's (0 legal at once)", 1.0),
    ("surveyed", "REPLACE: displaced by the Surveyor's tile (no benefit)", 1.0),
    ("hiring", "WORKER/SPACE: during a Hiring Fair", 1.0),
    ("picks_left", "PICK: picks left", 3.0),
    ("done_in_phase", "STORE/REGISTRY: tiles taken in this phase; BID: counters bid", float(TOTAL_COUNTERS)),
    ("exchange_count", "GIVE: counters given; TAKE: counters still to take", float(TOTAL_COUNTERS)),
    *_one_hot(["2", "3", "none"], "limit", "GIVE: the exchange limit (Labourer, Market Day, Merchant)"),
    *((f"ctx_{c}", f"GIVE/TAKE: {c} given in this exchange; CROP: the Brewer's first crop", 1.0) for c in CROP_KEYS),
    *((f"bid_space_{k + 1}", f"BID: bidding on store space {k + 1}", 1.0) for k in range(STORE_SPACES)),
    ("extra_supervisor", "EXTRA: the Supervisor's extra action is offered", 1.0),
    ("extra_carter", "EXTRA: the Carter's extra action is offered", 1.0),
)
NSF = len(STATE_FEATURES)
_SF = {name: i for i, (name, _, _) in enumerate(STATE_FEATURES)}
_PHASE0, _WORKER0, _EVENT0, _PICK0 = (
    _SF["phase_turn"],
    _SF["worker_apprentice"],
    _SF["event_harvest_festival"],
    _SF["pick_unskilled"],
)
_LIMIT0, _CTXC0, _BIDS0 = _SF["limit_2"], _SF["ctx_wheat"], _SF["bid_space_1"]
TILE_PLACES = ("bag", "fallow")


# decision frame (None at the end), or (frame, event kind) during an event -> the float block of
# state[_PHASE0:] followed by ctx_spaces: the context part of the observation depends on nothing else (see
# Observer._context), so every observer shares them
_CONTEXTS: dict[Any, bytes] = {}  # (bytes: not tracked by the garbage collector, unlike memoryviews)
# byte b -> the float32 bytes of its 8 bits, low bit first (``bits`` of a bitmask, 8 spaces at a time)
_BYTE_FLOATS = tuple(struct.pack("8f", *(b >> j & 1 for j in range(8))) for b in range(256))
_TOWNS: dict[tuple, bytes] = {}  # (players, viewer, *town) -> the townsfolk entry's floats
# see Observer._write_counters: the packed (signed bytes) key -> bytes of supply_total .. net_loss_* (bytes keys
# and values: not tracked by the garbage collector, so the cache's growth triggers no collections)
_COUNTERS: dict[bytes, bytes] = {}
_TURNS: dict[tuple, bytes] = {}  # see Observer._write_turn -> bytes of letter_a .. rebenefit_surveyor

# offsets in a player row (PLAYER_FEATURES) of the fast path's single writes
_TOTAL, _EXACT0, _LOW0 = _PF["supply_total"], _PF["supply_exact_wheat"], _PF["supply_min_wheat"]
_GAIN0, _LOSS0, _NEW0 = _PF["net_gain_wheat"], _PF["net_loss_wheat"], _PF["store1_new"]
_BAG_FIELDS = _SF["bag_fields"]  # then bag_events
assert _SF["bag_events"] == _BAG_FIELDS + 1
_BIDS_AT, _WORKERS_AT = 4 * _PF["bid1_wheat"], 4 * _PF["farmhand_off_apprentice"]  # byte offsets in a row
_FARMHAND_BITS = (1 << FARMHANDS) - 1
assert NUM_CROPS == 5  # _counters_block is unrolled over the crops
_NOT_NEW = (False, False)

# The fast fill copies the master into a buffer as a few runs (see the comment above Observer.fill_plain)
_MEMO = "key_harvest.fill"  # buffer.memo key: the stamp of the plan whose own values the buffer holds
_STAMPS = itertools.count(1)  # plan stamps, unique in the process


class _Plan:
    """A buffer's copies from the master ((dst, src) memoryview pairs: every value but the viewer's own, in
    the viewer's rotation, runs merged where they continue each other) in three groups: the boards and
    stores, the public planes (registry .. event_spaces, one run) and the rest; the master's versions of
    the first two that the buffer holds (-1: none); the views of the viewer's own values and the own blocks
    last written there."""

    __slots__ = ("flat", "seat", "boards", "public", "copies", "boards_v", "public_v", "own_dst", "stamp", "own")

    def __init__(self, flat: np.ndarray, seat: int, groups: tuple[list, Any, list], own_dst: tuple, stamp: int):
        self.flat, self.seat, self.own_dst, self.stamp = flat, seat, own_dst, stamp
        self.boards, self.public, self.copies = groups
        self.boards_v = self.public_v = -1
        self.own: tuple | None = None


def _ctx_mask(f: tuple | None) -> int:
    """``ctx_spaces`` of a decision frame: HARVEST's group, PICK's allowed spaces."""
    return f[3] if f is not None and f[0] == "harvest" else f[4] if f is not None and f[0] == "pick" else 0


class Observer:
    """Fills one seat's observation (see the module docstring); ``text`` is the same view in words.

    Entries: ``board`` (planes ``BOARD_PLANES``), ``players`` (``PLAYER_FEATURES`` per seat), ``store_tile``,
    ``townsfolk``, ``registry``, ``tile_places``, ``event_spaces``, ``state`` (``STATE_FEATURES``) and
    ``ctx_spaces``; every player axis starts with the viewer.
    """

    # slots: ~32 attributes are more than the 30 that CPython 3.11 keeps as shared-key instance values
    __slots__ = (
        "_bag_seen",
        "_board_mv",
        "_board_seen",
        "_boards_v",
        "_context_bytes",
        "_counters_bytes",
        "_counters_seen",
        "_fallow_seen",
        "_flags_seen",
        "_frame_seen",
        "_game",
        "_handlers",
        "_log",
        "_master",
        "_new_seen",
        "_own",
        "_plans",
        "_pools",
        "_pos",
        "_public",
        "_public_v",
        "_registry_seen",
        "_row_mv",
        "_rows",
        "_seat_plan",
        "_state0",
        "_store_seen",
        "_town_seen",
        "_towns",
        "_turn_bytes",
        "_workers_seen",
        "layout",
        "num_players",
    )

    _pack_own_row = struct.Struct(f"{1 + 2 * NUM_CROPS}f").pack  # supply_known, supply_exact_*, supply_min_*
    _pack_own_state = struct.Struct(f"{2 * NUM_CROPS}f").pack  # own_*, start_pool_others_*
    _pack_workers = struct.Struct(f"{2 * FARMHANDS}f").pack_into  # farmhand_off_*, rebenefit_*
    _pack_counters = struct.Struct(f"{2 + 4 * NUM_CROPS}f").pack  # supply_total .. net_loss_*
    _pack_key = struct.Struct(f"{1 + 2 * NUM_CROPS}h").pack  # the _COUNTERS key (small ints as int16)
    _pack_bids = struct.Struct(f"{2 * NUM_CROPS}f").pack_into  # bid1_*, bid2_*
    _pack_stock = struct.Struct(f"{NUM_CROPS}f").pack_into  # stock_*
    _pack_tiles = struct.Struct(f"{2 + len(EVENTS)}f").pack_into  # bag_fields, bag_events, events_out_*
    _pack_turn = struct.Struct("17f").pack  # letter_a .. rebenefit_surveyor
    _pack_context = struct.Struct(f"{NSF - _PHASE0}f").pack  # phase_turn .. extra_carter

    def __init__(self, game: Any, **_: Any):
        n = game.num_players
        self.num_players = P = n
        self.layout = ObservationLayout.build(
            [
                (
                    "board",
                    ("players", "spaces", "planes"),
                    (P, NUM_SPACES, N_PLANES),
                    "every country board, viewer first (planes: BOARD_PLANES)",
                    np.broadcast_to(highs(BOARD_PLANES), (P, NUM_SPACES, N_PLANES)),
                ),
                (
                    "store_tile",
                    ("players", "store spaces", "spaces"),
                    (P, STORE_SPACES, NUM_SPACES),
                    "coordinate of the field tile in each store space (one-hot)",
                    1.0,
                ),
                (
                    "townsfolk",
                    ("townsfolk", "town+players"),
                    (6, P + 1),
                    "where each townsfolk is: index 0 the town board, 1+k the k-th seat from the viewer",
                    1.0,
                ),
                (
                    "registry",
                    ("registry spaces", "spaces"),
                    (REGISTRY_SPACES, NUM_SPACES),
                    "coordinate of the field tile on each registry space 1-6 (one-hot)",
                    1.0,
                ),
                (
                    "tile_places",
                    ("bag/fallow", "spaces"),
                    (len(TILE_PLACES), NUM_SPACES),
                    "field tile still in the bag (KH-INFO-3); field tile in the fallow area (KH-BOARD-7)",
                    1.0,
                ),
                (
                    "event_spaces",
                    ("event spaces", "event kinds"),
                    (EVENT_SPACES, len(EVENTS)),
                    "kind of the event on each event space (one-hot): " + ", ".join(e.name for e in EVENTS),
                    1.0,
                ),
                (
                    "players",
                    ("players", "features"),
                    (P, NPF),
                    "per player, viewer first (PLAYER_FEATURES)",
                    np.broadcast_to(highs(PLAYER_FEATURES), (P, NPF)),
                ),
                ("state", ("features",), (NSF,), "table and decision context (STATE_FEATURES)", highs(STATE_FEATURES)),
                (
                    "ctx_spaces",
                    ("spaces",),
                    (NUM_SPACES,),
                    "HARVEST: the group fixed by the first pick; PICK: the spaces allowed",
                    1.0,
                ),
            ]
        )
        e = self.layout.entry
        self._rows = (e["players"].start, e["state"].stop)  # players then state: one contiguous run
        self._public = (e["store_tile"].start, e["event_spaces"].stop)  # the public planes: one run
        assert e["players"].stop == e["state"].start and e["store_tile"].stop == e["townsfolk"].start
        self._init_caches()

    def _init_caches(self) -> None:
        """The fast path's master copy, the buffers' copy plans and what was last written (see ``fill``);
        rebuilt after unpickling."""
        e, n = self.layout.entry, self.num_players
        self._master = self.layout.new_buffer()
        mv = self._master.mv
        board, players, state = e["board"].start, e["players"].start, e["state"].start
        self._board_mv = [
            mv[board + q * NUM_SPACES * N_PLANES : board + (q + 1) * NUM_SPACES * N_PLANES] for q in range(n)
        ]
        self._row_mv = [mv[players + q * NPF : players + (q + 1) * NPF] for q in range(n)]
        counters = 4 * (players + _TOTAL)  # supply_total .. net_loss_* of each row, as bytes (_COUNTERS blocks)
        self._counters_bytes = [
            mv.cast("B")[counters + 4 * q * NPF : counters + 4 * (q * NPF + 2 + 4 * NUM_CROPS)] for q in range(n)
        ]
        self._state0 = state
        assert e["store_tile"].stop == e["townsfolk"].start and e["townsfolk"].stop == e["registry"].start
        assert e["registry"].stop == e["tile_places"].start and e["tile_places"].stop == e["event_spaces"].start
        assert e["state"].stop == e["ctx_spaces"].start and _SF["bag_fields"] == 3 * NUM_CROPS
        self._plans: dict[int, _Plan] = {}  # id(buffer.flat) -> its plan (see _plan)
        self._seat_plan: list[_Plan | None] = [None] * n  # per seat: the plan fill used last
        self._make_handlers()
        # state's context part and ctx_spaces, as bytes (the _CONTEXTS blocks are bytes)
        self._context_bytes = mv.cast("B")[4 * (state + _PHASE0) : 4 * e["ctx_spaces"].stop]
        turn = state + _SF["letter_a"]
        self._turn_bytes = mv.cast("B")[4 * turn : 4 * (turn + 17)]  # letter_a .. rebenefit_surveyor (_TURNS)
        assert _SF["rebenefit_surveyor"] == _SF["letter_a"] + 16
        assert NUM_SPACES % 8 == 0
        # versions of the master's boards and stores, and of its public planes: bumped by every write there,
        # so a buffer whose plan holds the current version already has those values (see fill)
        self._boards_v = self._public_v = 0
        self._game: Any = None  # the game the master follows, its change log and the log entries applied
        self._log: list[int] | None = None
        self._pos = 0
        self._forget()

    def _forget(self) -> None:
        """Drop the record of what the master shows (the next writes start from a zeroed master)."""
        n = self.num_players
        self._own: list[tuple | None] = [None] * n  # per viewer: its own values as float blocks (None: stale)
        self._pools: list[tuple[int, ...] | None] = [None] * n  # per viewer: others_start_pool
        self._towns: list[bytes | None] = [None] * n  # per viewer: its townsfolk block (None: the town changed)
        self._board_seen: list[tuple] = [(0, 0, 0, [-1] * NUM_SPACES)] * n  # fields, unharvested, workers, at
        self._counters_seen: list[bytes | None] = [None] * n  # the _COUNTERS block written
        self._new_seen: list[tuple | None] = [None] * n  # store*_new flags written
        self._store_seen = [[-1] * STORE_SPACES for _ in range(n)]
        self._workers_seen: list[tuple | None] = [None] * n  # (farmhand spaces, rebenefit bits) written
        self._town_seen: list[int] | None = None  # the town the own blocks were computed with
        self._registry_seen = [-1] * REGISTRY_SPACES
        self._bag_seen: list[int] = []  # the bag and fallow that tile_places shows
        self._fallow_seen: list[int] = []
        self._flags_seen: tuple = (-1, -1, -1, -1)  # active, acting, start player, event player
        self._frame_seen: Any = ()  # the context the context part shows: frame or (frame, event kind); () none

    def __getstate__(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "layout": self.layout, "_rows": self._rows, "_public": self._public}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._init_caches()

    @staticmethod
    def player_feature(buffer: ObservationBuffer, name: str) -> np.ndarray:
        """One column of ``players`` (viewer first), by its PLAYER_FEATURES name."""
        return buffer.views["players"][:, _PF[name]]

    @staticmethod
    def state_feature(buffer: ObservationBuffer, name: str) -> np.ndarray:
        """One value, or a run of values by prefix (e.g. ``"stock_"``), of ``state``."""
        if name in _SF:
            return buffer.views["state"][_SF[name]]
        idx = [i for n, i in _SF.items() if n.startswith(name)]
        return buffer.views["state"][idx]

    def reset(self, game: Any) -> None:
        """Forget the game followed (the next fill syncs completely): also call it after editing a game by hand,
        since ``fill`` follows the engine's change log and direct writes are not logged."""
        self._game = None

    def new_buffer(self) -> ObservationBuffer:
        return self.layout.new_buffer()

    # ------------------------------------------------------------------------------------------ fill

    def _board_planes(self, game: Any, q: int) -> np.ndarray:
        plane = np.zeros((NUM_SPACES, N_PLANES), np.float32)
        f, u = bits(game.fields[q]), bits(game.unharvested[q])
        plane[:, 0] = f
        plane[:, 1] = u
        plane[:, 2] = f - u
        plane[:, 3:8] = _CROP_PLANES * f[:, None]
        for s in spaces(game.workers[q]):
            tile = game.worker_at[q][s]
            plane[s, 8] = 1.0
            plane[s, 9] = NUMBER[worker_kind(tile)]
            plane[s, 10] = 1.0 if tile >= TOWNSFOLK_BASE else 0.0
        plane.setflags(write=False)
        return plane

    # The observation is computed by two paths that give the same values (tests/key_harvest/
    # test_observer_fast.py compares them on random games of 2-4 players, every seat, every state, with
    # buffers shared, games switched, copies of envs, loaded and cloned games):
    #
    # * ``fill_plain`` writes every value from the state: the readable definition of the observation;
    # * ``fill`` (the env's hot path) keeps one *master* copy of the observation in seat order, as seen by
    #   nobody, brought up to date first: the engine's change log (``Game.changes``) names the parts
    #   written since the last sync, and each part is rewritten only where its inputs differ from the
    #   copies kept at its last write (a store space, a registry space, a crop of a player's counters, a
    #   flag's old and new row...). A buffer has a plan (``_plan``): the memoryview copies that put the
    #   master in the viewer's rotation, runs merged where they continue each other, in three groups: the
    #   boards and stores (1-4 runs, 11 KB for 4 players), the public planes (1 run) and the rest (3-5
    #   runs). The rest is copied at every fill; the first two only when the master's version of them (one
    #   counter each, bumped by every write there) differs from the one the plan last copied: about half
    #   and a quarter of the fills. (A region log per buffer, every part tracked, cost more than it saved:
    #   env() 4p step ~10% more CPU; two counters cost two compares per fill.)
    #   The values that depend on the viewer (its own supply in its row and in ``state``, the pool of the
    #   others' start counters, the townsfolk columns) lie outside every copy and are written when they
    #   change. A plan's own values and versions are trusted only while the buffer's ``memo`` holds the
    #   plan's stamp (``fill_plain`` and other observers' fills change it), else the buffer receives
    #   everything.
    #   The master holds no hidden value: its player rows are what every seat knows of every seat.
    #   Buffers filled by ``fill`` must not be written by anyone else (the env hands out copies, or its
    #   own buffers read-only by contract).

    def fill_plain(self, game: Any, seat: int, buffer: ObservationBuffer) -> None:
        """Write ``seat``'s view from scratch (the reference for :meth:`fill`)."""
        buffer.memo.pop(_MEMO, None)  # whatever fill left there is overwritten
        v = buffer.views
        order = viewer_order(game.num_players, seat)
        buffer.flat[:] = 0.0
        for k, q in enumerate(order):
            v["board"][k] = self._board_planes(game, q)
        self._fill_public(game, v, order)
        a, b = self._rows
        rows = self._player_rows(game, seat, order)
        buffer.flat[a : a + len(rows)] = rows
        buffer.flat[a + len(rows) : b] = self._state_row(game, seat)
        v["ctx_spaces"][:] = bits(_ctx_mask(game.frame))

    def fill(self, game: Any, seat: int, buffer: ObservationBuffer) -> None:
        """Write ``seat``'s view (the same values as :meth:`fill_plain`, see the comment above).

        First the master (seat order, seen by nobody) is brought up to date with ``game``: the parts named
        in the engine's change log since the last fill (``Game.changes``, CH_* tags, dispatched from a table:
        CH_BOARD .. CH_STORE + 3 are 4 per-seat tags each, seat = tag & 3), everything for a game this
        observer has not followed (another game, a clone, a loaded state); the turn flags and decision
        context (which change at most decisions) by comparison with what was written. Then the master is
        copied into the viewer's rotation."""
        log = game.changes
        pos = self._pos
        new = len(log) - pos  # tags logged since the last fill
        if self._log is not log or self._game is not game or new < 0:
            self._sync_all(game)
        elif new == 1:  # one tag (a third of the fills): no slice
            self._handlers[log[pos]](game)
        elif new:
            # Speed: every tag in log order, repeats included (no set: 2-6 new tags repeat a tag in ~2% of the
            # fills); a handler rewrites its part from the state where it differs from what was written, so
            # a second call writes nothing and the order of the parts does not matter
            handlers = self._handlers
            for tag in log[pos:]:
                handlers[tag](game)
        self._pos = len(log)
        self._sync_decision(game)
        flat = buffer.flat
        plan = self._seat_plan[seat]  # the plan of this seat's last buffer (one buffer per seat: a hit)
        if plan is None or plan.flat is not flat or buffer.memo.get(_MEMO) != plan.stamp:
            plan = self._plans.get(id(flat))
            if plan is None or plan.flat is not flat or plan.seat != seat or buffer.memo.get(_MEMO) != plan.stamp:
                plan = self._plan(buffer, seat)
            self._seat_plan[seat] = plan
        # Speed: the boards and stores (10 KB, up to 4 copies) and the public planes change at about half and
        # a quarter of the steps: a buffer skips them while the master's versions equal those it was last
        # given (its plan's, -1 for a new plan; the memo stamp above says the buffer still holds them)
        if plan.boards_v != self._boards_v:
            plan.boards_v = self._boards_v
            for dst, src in plan.boards:
                dst[:] = src
        if plan.public_v != self._public_v:
            plan.public_v = self._public_v
            dst, src = plan.public
            dst[:] = src
        for dst, src in plan.copies:  # 3 (the viewer seat 0) or 5 memcpys of ~1.5 KB (4 players)
            dst[:] = src
        own = self._own[seat]
        if own is None:  # its supply or the town changed (the change log says so), or a new game
            own = self._own_blocks(game, seat)
        if plan.own is not own:
            plan.own = own
            row, state, town = plan.own_dst
            row[:], state[:], town[:] = own

    def _plan(self, buffer: ObservationBuffer, seat: int) -> _Plan:
        """The copies from the master into ``buffer`` for ``seat`` (player axes rotated, the viewer's own
        values left out, runs merged where they continue each other) and the views of the own values; kept
        per buffer."""
        e, n = self.layout.entry, self.num_players
        boards: list[tuple[int, int, int]] = []  # (dst, src, length)
        runs: list[tuple[int, int, int]] = []
        wb, ws, p0 = NUM_SPACES * N_PLANES, STORE_SPACES * NUM_SPACES, e["players"].start
        own0, own1 = _PF["supply_known"], _PF["net_gain_wheat"]  # the viewer's own part of its row
        for q in range(n):
            k = (q - seat) % n
            boards.append((e["board"].start + k * wb, e["board"].start + q * wb, wb))
            boards.append((e["store_tile"].start + k * ws, e["store_tile"].start + q * ws, ws))
            a, b = p0 + k * NPF, p0 + q * NPF
            runs += [(a, b, own0), (a + own1, b + own1, NPF - own1)] if q == seat else [(a, b, NPF)]
        public, state = e["registry"].start, e["state"].start
        runs.append((state, state, NUM_CROPS))  # stock_*
        tail = state + _SF["bag_fields"]
        runs.append((tail, tail, e["ctx_spaces"].stop - tail))  # bag_fields .. the end of ctx_spaces
        dst, src = buffer.mv, self._master.mv
        stop = e["event_spaces"].stop
        groups = (
            [(dst[a:b], src[c:d]) for a, b, c, d in merge_runs(sorted(boards))],
            (dst[public:stop], src[public:stop]),  # registry, tile_places, event_spaces
            [(dst[a:b], src[c:d]) for a, b, c, d in merge_runs(sorted(runs))],
        )
        town, own_state = e["townsfolk"], state + _SF["own_wheat"]
        b = dst.cast("B")  # the own blocks are bytes
        own_dst = (
            b[4 * (p0 + own0) : 4 * (p0 + own1)],
            b[4 * own_state : 4 * (own_state + 2 * NUM_CROPS)],
            b[4 * town.start : 4 * town.stop],
        )
        plan = _Plan(buffer.flat, seat, groups, own_dst, next(_STAMPS))
        buffer.memo[_MEMO] = plan.stamp
        if len(self._plans) > 64:  # buffers of envs long gone
            self._plans.clear()
        self._plans[id(buffer.flat)] = plan
        return plan

    def _own_blocks(self, game: Any, seat: int) -> tuple:
        """What only ``seat`` sees, as float blocks (bytes): its row's supply_known, exact and lower bound (its
        own supply), ``own_*`` and ``start_pool_others_*`` of ``state``, ``townsfolk``; the blocks depend only
        on the keys they are cached by, so every observer shares them."""
        town = self._towns[seat]
        if town is None:
            n = self.num_players
            key = (n, seat, *game.town)
            town = _TOWNS.get(key)
            if town is None:
                values = [0.0] * (6 * (n + 1))
                for t, owner in enumerate(game.town):
                    values[t * (n + 1) + (0 if owner < 0 else 1 + (owner - seat) % n)] = 1.0
                if len(_TOWNS) >= 4096:
                    _TOWNS.clear()
                town = _TOWNS[key] = struct.pack(f"{len(values)}f", *values)
            self._towns[seat] = town
        pool = self._pools[seat]
        if pool is None:  # the start counters do not change during a game: kept until the next full sync
            pool = self._pools[seat] = tuple(others_start_pool(game, seat))
        own = game.supply[seat]
        # packed afresh (a cache by (*pool, *own) missed ~23% of calls, and every miss kept two GC-tracked tuples)
        blocks = (self._pack_own_row(1, *own, *own), self._pack_own_state(*own, *pool), town)
        self._own[seat] = blocks
        return blocks

    def _sync_all(self, game: Any) -> None:
        self._game, self._log = game, game.changes
        self._master.flat[:] = 0.0
        self._boards_v += 1  # the zeroing is a write there (a handler below may find nothing to write)
        self._public_v += 1
        self._forget()
        for q in range(self.num_players):
            self._sync_board(q, game)
            self._write_store_fast(q, game)
            self._write_counters(game, q)
            self._write_bids(q, game)
        self._write_registry_fast(game)
        self._write_places_fast(game)
        self._write_events_fast(game)
        self._write_workers(game)
        self._write_stock(game)
        self._write_tiles(game)
        self._write_turn(game)

    def _make_handlers(self) -> None:
        """The change log's handlers by tag (see fill)."""
        assert CH_COUNTERS - CH_BOARD == CH_BIDS - CH_COUNTERS == CH_STORE - CH_BIDS == CH_STOCK - CH_STORE == 4
        assert (CH_STOCK, CH_REGISTRY, CH_BAG, CH_EVENTS, CH_WORKERS, CH_NEW, CH_TURN) == tuple(range(16, 23))
        per_seat = (self._sync_board, self._on_counters, self._write_bids, self._write_store_fast)
        # one table for every tag, called with the game alone: the per-seat handlers (CH_BOARD .. CH_STORE + 3,
        # seat = tag & 3) as partials that pass the seat first (no tag arithmetic in fill's loop)
        self._handlers = [partial(h, q) for h in per_seat for q in range(4)] + [
            self._write_stock,  # CH_STOCK
            self._write_registry_fast,  # CH_REGISTRY
            self._on_bag,  # CH_BAG
            self._on_events,  # CH_EVENTS
            self._write_workers,  # CH_WORKERS
            self._write_new_all,  # CH_NEW
            self._write_turn,  # CH_TURN
        ]

    def _on_counters(self, q: int, game: Any) -> None:
        self._write_counters(game, q)
        self._own[q] = None  # its own supply

    def _on_bag(self, game: Any) -> None:
        """tile_places and the bag's two counts. Speed: not the events out (a 16-float pack): an event leaves
        the bag into ``events`` only with CH_EVENTS logged too (``_on_events`` writes them)."""
        self._write_places_fast(game)
        in_bag = NUM_EVENT_TILES - len(game.events) - len(game.removed)  # counts only (KH-INFO-3/4)
        mv, i = self._master.mv, self._state0 + _BAG_FIELDS
        mv[i], mv[i + 1] = len(game.bag) - in_bag, in_bag

    def _on_events(self, game: Any) -> None:
        self._write_events_fast(game)
        self._write_tiles(game)
        self._write_turn(game)  # the events count

    def _sync_board(self, q: int, game: Any) -> None:
        """Rewrite the planes of the spaces of board ``q`` whose tile or worker changed (the worker planes
        read ``worker_at`` only on the spaces in ``workers``, as ``_board_planes`` does)."""
        self._boards_v += 1  # see fill
        old_f, old_u, old_w, old_at = self._board_seen[q]
        f, u, w, at = game.fields[q], game.unharvested[q], game.workers[q], game.worker_at[q]
        mv = self._board_mv[q]
        for s in spaces((f ^ old_f) | (u ^ old_u)):
            on, up = f >> s & 1, u >> s & 1
            o = N_PLANES * s
            mv[o], mv[o + 1], mv[o + 2], mv[o + 3 + CROP_OF[s]] = on, up, on - up, on
        if w != old_w or at != old_at:
            for s in spaces(w | old_w):
                o = N_PLANES * s + 8
                if w >> s & 1:
                    tile = at[s]
                    mv[o], mv[o + 1], mv[o + 2] = 1, TILE_NUMBER[tile], tile >= TOWNSFOLK_BASE
                else:
                    mv[o], mv[o + 1], mv[o + 2] = 0, 0, 0
            old_at = list(at)
        self._board_seen[q] = (f, u, w, old_at)

    # the master's player rows: PLAYER_FEATURES of every seat as the others see it, by segment

    def _write_workers(self, game: Any) -> None:
        """The rows whose farmhands or farmhand rebenefits changed; the own blocks if the town changed."""
        ws, reb, seen = game.worker_space, game.rebenefit, self._workers_seen
        for q, row in enumerate(self._row_mv):
            b = FARMHANDS * q
            key = (ws[b : b + FARMHANDS], reb >> b & _FARMHAND_BITS)
            if seen[q] != key:
                seen[q] = key
                r = key[1]
                self._pack_workers(
                    row,
                    _WORKERS_AT,
                    ws[b] < 0,
                    ws[b + 1] < 0,
                    ws[b + 2] < 0,
                    ws[b + 3] < 0,
                    ws[b + 4] < 0,
                    ws[b + 5] < 0,
                    r & 1,
                    r >> 1 & 1,
                    r >> 2 & 1,
                    r >> 3 & 1,
                    r >> 4 & 1,
                    r >> 5 & 1,
                )
        if self._town_seen != game.town:  # the townsfolk entry of every viewer
            self._town_seen = list(game.town)
            self._own = [None] * self.num_players
            self._towns = [None] * self.num_players

    def _write_counters(self, game: Any, q: int) -> None:
        """supply_total .. net_loss_* of row ``q``: a float block per (2 players, start counters, net) or (3-4
        players, start total, net, lowest net), what the block is computed from; shared by every observer
        (blocks repeat: ~80% hits after a few dozen games)."""
        net, st = game.net[q], game.start[q]
        if self.num_players == 2:  # the 2-player start counters are public (KH-SETUP-18): the key is (start, net)
            key = self._pack_key(-1, *st, *net)  # -1: no start total, so never a 3-4 player key
        else:  # 3-4 players: only the public start total, net and the lowest net
            key = self._pack_key(sum(st), *net, *game.min_net[q])
        block = _COUNTERS.get(key)
        if block is None:
            block = self._counters_block(game, q, key)
        if self._counters_seen[q] is not block:
            self._counters_seen[q] = block
            self._counters_bytes[q][:] = block

    def _counters_block(self, game: Any, q: int, key: bytes) -> bytes:
        """The ``_write_counters`` block of one key, computed and kept (no comprehension: ~17% of the calls
        miss, the states are that varied)."""
        st, n0, n1, n2, n3, n4 = game.start[q], *game.net[q]
        if self.num_players == 2:
            s0, s1, s2, s3, s4 = st
            known, e0, e1, e2, e3, e4 = 1, s0 + n0, s1 + n1, s2 + n2, s3 + n3, s4 + n4
            l0, l1, l2, l3, l4 = e0, e1, e2, e3, e4
        else:
            m0, m1, m2, m3, m4 = game.min_net[q]
            known = e0 = e1 = e2 = e3 = e4 = 0
            l0, l1, l2, l3, l4 = n0 - m0, n1 - m1, n2 - m2, n3 - m3, n4 - m4
        if len(_COUNTERS) >= 1 << 15:  # ~3 MB at most
            _COUNTERS.clear()
        block = _COUNTERS[key] = self._pack_counters(
            sum(st) + n0 + n1 + n2 + n3 + n4,
            known,
            e0,
            e1,
            e2,
            e3,
            e4,
            l0,
            l1,
            l2,
            l3,
            l4,
            n0 if n0 > 0 else 0,
            n1 if n1 > 0 else 0,
            n2 if n2 > 0 else 0,
            n3 if n3 > 0 else 0,
            n4 if n4 > 0 else 0,
            -n0 if n0 < 0 else 0,
            -n1 if n1 < 0 else 0,
            -n2 if n2 < 0 else 0,
            -n3 if n3 < 0 else 0,
            -n4 if n4 < 0 else 0,
        )
        return block

    def _write_bids(self, q: int, game: Any) -> None:
        (b0, b1) = game.bids[q]
        self._pack_bids(self._row_mv[q], _BIDS_AT, *b0, *b1)

    def _write_new(self, game: Any, q: int) -> None:
        """store1_new, store2_new of row ``q`` (KH-EVENT-6), when they changed (tile ids are >= 0, so an empty
        space, -1, is never in ``new_in_store``)."""
        new = game.new_in_store
        t0, t1 = game.store[q]
        flags = (t0 in new, t1 in new)
        if self._new_seen[q] != flags:
            self._new_seen[q] = flags
            row = self._row_mv[q]
            row[_NEW0], row[_NEW0 + 1] = flags

    def _write_new_all(self, game: Any) -> None:
        """The store*_new flags of every row (``new_in_store`` changed)."""
        new, seen = game.new_in_store, self._new_seen
        for q, (t0, t1) in enumerate(game.store):
            flags = (t0 in new, t1 in new) if new else _NOT_NEW
            if seen[q] != flags:
                seen[q] = flags
                row = self._row_mv[q]
                row[_NEW0], row[_NEW0 + 1] = flags

    def _write_store_fast(self, q: int, game: Any) -> None:
        """The one-hot store_tile rows of store ``q`` whose tile changed, and its store*_new flags."""
        old, cur = self._store_seen[q], game.store[q]
        if old != cur:
            self._boards_v += 1  # see fill
            mv, base = self._master.mv, self.layout.entry["store_tile"].start + q * STORE_SPACES * NUM_SPACES
            for j in range(STORE_SPACES):
                if old[j] != cur[j]:
                    if old[j] >= 0:
                        mv[base + j * NUM_SPACES + old[j]] = 0
                    if cur[j] >= 0:
                        mv[base + j * NUM_SPACES + cur[j]] = 1
            self._store_seen[q] = list(cur)
        self._write_new(game, q)

    # the master's public planes and state (but the viewer's own supply and pool) and ctx_spaces

    def _write_registry_fast(self, game: Any) -> None:
        old, cur = self._registry_seen, game.registry
        if old != cur:
            self._public_v += 1  # see fill
            mv, base = self._master.mv, self.layout.entry["registry"].start
            for i, t in enumerate(cur):
                if old[i] != t:
                    if old[i] >= 0:
                        mv[base + i * NUM_SPACES + old[i]] = 0
                    if t >= 0:
                        mv[base + i * NUM_SPACES + t] = 1
            self._registry_seen = list(cur)

    def _write_places_fast(self, game: Any) -> None:
        """tile_places: the bag only loses tiles from its end and the fallow area only gains (KH-DRAW-1,
        KH-BOARD-7), so only those tiles are written; any other change rewrites the row."""
        self._public_v += 1  # see fill
        mv, base = self._master.mv, self.layout.entry["tile_places"].start
        bag, old = game.bag, self._bag_seen
        k = len(bag)
        if k <= len(old) and old[:k] == bag:
            for t in old[k:]:
                if t < NUM_SPACES:
                    mv[base + t] = 0
            del old[k:]  # (the kept copy shortened in place: no list copy)
        else:
            for t in old:
                if t < NUM_SPACES:
                    mv[base + t] = 0
            for t in bag:
                if t < NUM_SPACES:
                    mv[base + t] = 1
            self._bag_seen = list(bag)
        fallow, old = game.fallow, self._fallow_seen
        base += NUM_SPACES
        m = len(old)
        if fallow[:m] != old:
            for t in old:
                mv[base + t] = 0
            old = self._fallow_seen = []
            m = 0
        for t in fallow[m:]:
            mv[base + t] = 1
            old.append(t)  # (the kept copy grown in place)

    def _write_events_fast(self, game: Any) -> None:
        self._public_v += 1  # see fill
        self._write_events(game, self._master.views)

    def _write_stock(self, game: Any) -> None:
        self._pack_stock(self._master.flat, 4 * self._state0, *game.stock)

    def _write_tiles(self, game: Any) -> None:
        in_bag = NUM_EVENT_TILES - len(game.events) - len(game.removed)  # counts only (KH-INFO-3/4)
        out = [0] * len(EVENTS)
        for t in game.events:
            out[EVENT_TILES[t - NUM_SPACES]] += 1
        self._pack_tiles(self._master.flat, 4 * (self._state0 + _BAG_FIELDS), len(game.bag) - in_bag, in_bag, *out)

    def _write_turn(self, game: Any) -> None:
        """letter_a .. rebenefit_surveyor of ``state`` (logged as CH_TURN; the events count as CH_EVENTS): a
        float block per value of what they are computed from, shared by every observer."""
        key = (
            game.taken,
            game.actions_taken,
            game.end_triggered,
            game.turns_left,
            game.rounds,
            len(game.events),
            game.pending_extra,
            game.rebenefit >> TOWNSFOLK_BASE,
        )
        block = _TURNS.get(key)
        if block is None:
            t, taken, end, left, rounds, events, pend, reb = key
            if len(_TURNS) >= 1 << 14:  # ~1.5 MB at most
                _TURNS.clear()
            block = _TURNS[key] = self._pack_turn(
                t & 1,
                t >> 1 & 1,
                t >> 2 & 1,
                t >> 3 & 1,
                taken,
                end,
                left,
                rounds,
                events,
                pend & EXTRA_SUPERVISOR,
                pend >> 1 & 1,
                reb & 1,
                reb >> 1 & 1,
                reb >> 2 & 1,
                reb >> 3 & 1,
                reb >> 4 & 1,
                reb >> 5 & 1,
            )
        self._turn_bytes[:] = block

    def _sync_decision(self, game: Any) -> None:
        """What depends on the pending decision: the active, acting, start and event player flags of the rows
        (``_write_flags``), the context part of ``state`` and ``ctx_spaces`` (a shared block per frame and
        event kind, see _CONTEXTS)."""
        try:  # (3.11: a try costs nothing until it raises)
            f = game.stack[-1]
        except IndexError:  # the end of the game
            f, acting = None, -1
        else:
            acting = f[1]
        depth = game.event_depth
        flags = (game.active, acting, game.start_player, acting if depth else -1)
        old = self._flags_seen
        if old != flags:  # ~25% of the fills, mostly the acting player alone
            self._flags_seen = flags
            self._write_flags(old, flags)
        # the context: the frame alone outside events (a frame is a tuple: the same object, the same block;
        # nothing to build), (frame, event kind) during an event (a new pair: always looked up). A frame
        # starts with its name (a str), so it never equals such a pair
        if depth and game.events:
            context: Any = (f, EVENT_TILES[game.events[-1] - NUM_SPACES])
        elif f is self._frame_seen:
            return
        else:
            context = f
        self._frame_seen = context
        block = _CONTEXTS.get(context)
        if block is None:  # out of line (a comprehension here would make its locals cells, 3.11)
            block = self._context_block(game, f, context)
        self._context_bytes[:] = block

    def _write_flags(self, old: tuple, flags: tuple) -> None:
        """The active, acting, start and event player columns: a changed flag clears its old row and sets its
        new one (out of line: ~25% of the fills change a flag)."""
        rows = self._row_mv
        for i in range(4):
            a, b = old[i], flags[i]
            if a != b:
                if a >= 0:
                    rows[a][i] = 0
                if b >= 0:
                    rows[b][i] = 1

    def _context_block(self, game: Any, f: tuple | None, context: Any) -> bytes:
        """The plain computation cut to the context part of ``state``, and ``ctx_spaces`` (as bits()), kept
        in _CONTEXTS."""
        out = [0.0] * NSF
        if f is not None:
            self._context(game, f, out)
        if len(_CONTEXTS) >= 8192:  # a few MB, shared by every observer
            _CONTEXTS.clear()
        m = _ctx_mask(f)
        ctx = b"".join([_BYTE_FLOATS[m >> i & 255] for i in range(0, NUM_SPACES, 8)])
        block = _CONTEXTS[context] = self._pack_context(*out[_PHASE0:]) + ctx
        return block

    def _write_store(self, game: Any, v: dict, k: int, q: int) -> None:
        st = v["store_tile"][k]
        st[:] = 0.0
        for j, t in enumerate(game.store[q]):
            if t >= 0:
                st[j, t] = 1.0

    def _write_registry(self, game: Any, v: dict) -> None:
        reg = v["registry"]
        reg[:] = 0.0
        for i, t in enumerate(game.registry):
            if t >= 0:
                reg[i, t] = 1.0

    def _write_places(self, game: Any, v: dict) -> None:
        places = v["tile_places"]
        places[:] = 0.0
        places[0, [t for t in game.bag if t < NUM_SPACES]] = 1.0
        places[1, game.fallow] = 1.0

    def _write_events(self, game: Any, v: dict) -> None:
        ev = v["event_spaces"]
        ev[:] = 0.0
        for i, t in enumerate(game.events):
            ev[i, EVENT_TILES[t - NUM_SPACES]] = 1.0

    def _fill_public(self, game: Any, v: dict, order: list[int]) -> None:
        rank = {q: k for k, q in enumerate(order)}
        town = v["townsfolk"]
        town[:] = 0.0
        for t in range(6):
            owner = game.town[t]
            town[t, 0 if owner < 0 else 1 + rank[owner]] = 1.0
        for k, q in enumerate(order):
            self._write_store(game, v, k, q)
        self._write_registry(game, v)
        self._write_places(game, v)
        self._write_events(game, v)

    def _player_rows(self, game: Any, seat: int, order: list[int]) -> list[float]:
        """PLAYER_FEATURES for every seat, viewer first (the same facts as :func:`known_supplies`)."""
        f = game.stack[-1] if game.stack else None
        acting = f[1] if f is not None else -1
        event_player = acting if game.event_depth else -1
        active, start, two = game.active, game.start_player, game.num_players == 2
        out: list[float] = []
        reb, ws, new = game.rebenefit, game.worker_space, game.new_in_store
        for q in order:
            net = game.net[q]
            b = FARMHANDS * q
            out += (q == active, q == acting, q == start, q == event_player)
            out += (ws[b] < 0, ws[b + 1] < 0, ws[b + 2] < 0, ws[b + 3] < 0, ws[b + 4] < 0, ws[b + 5] < 0)
            r = reb >> b
            out += (r & 1, r >> 1 & 1, r >> 2 & 1, r >> 3 & 1, r >> 4 & 1, r >> 5 & 1)
            out.append(sum(game.start[q]) + sum(net))
            if q == seat or two:
                ex = game.supply[q] if q == seat else [game.start[q][c] + net[c] for c in range(NUM_CROPS)]
                out.append(1)
                out += ex
                out += ex
            else:
                mn = game.min_net[q]
                out.append(0)
                out += (0, 0, 0, 0, 0)
                out += [net[c] - mn[c] for c in range(NUM_CROPS)]
            out += [x if x > 0 else 0 for x in net]
            out += [-x if x < 0 else 0 for x in net]
            out += game.bids[q][0]
            out += game.bids[q][1]
            t0, t1 = game.store[q]
            out += (t0 >= 0 and t0 in new, t1 >= 0 and t1 in new)
        return out

    def _state_row(self, game: Any, seat: int, context: bool = True) -> list[float]:
        out = [0.0] * NSF
        out[0:5] = game.stock
        out[5:10] = game.supply[seat]
        out[10:15] = others_start_pool(game, seat)
        events_in_bag = NUM_EVENT_TILES - len(game.events) - len(game.removed)  # counts only (KH-INFO-3/4)
        out[15], out[16] = len(game.bag) - events_in_bag, events_in_bag
        for t in game.events:
            out[17 + EVENT_TILES[t - NUM_SPACES]] += 1
        i = 17 + len(EVENTS)
        out[i : i + 4] = [game.taken >> j & 1 for j in range(4)]
        out[i + 4 : i + 11] = (
            game.actions_taken,
            game.end_triggered,
            game.turns_left,
            game.rounds,
            len(game.events),
            game.pending_extra & EXTRA_SUPERVISOR,
            game.pending_extra >> 1 & 1,
        )
        i += 11
        out[i : i + 6] = [game.rebenefit >> (TOWNSFOLK_BASE + t) & 1 for t in range(6)]
        f = game.frame
        if f is not None and context:
            self._context(game, f, out)
        return out

    def _context(self, game: Any, f: tuple, out: list[float]) -> None:  # noqa: C901 - one branch per phase
        name = f[0]
        out[_PHASE0 + PHASE_INDEX[PHASE_OF[name]]] = 1.0
        if game.event_depth and game.events:
            out[_EVENT0 + EVENT_TILES[game.events[-1] - NUM_SPACES]] = 1.0
        if name in ("space", "replace"):
            out[_WORKER0 + worker_kind(f[2])] = 1.0
            if name == "replace":
                out[_SF["surveyed"]] = float(f[3])
            elif f[3] == "hiring":
                out[_SF["hiring"]] = 1.0
        elif name == "worker" and f[2] == "hiring":
            out[_SF["hiring"]] = 1.0
        elif name == "harvest":
            out[_SF["free_harvest"]] = float(f[2])
        elif name == "pick":
            out[_PICK0 + PICK_KINDS.index(f[2])] = 1.0
            out[_SF["picks_left"]] = f[3]
        elif name in ("store", "registry"):
            out[_SF["done_in_phase"]] = f[2]
        elif name == "bid":
            out[_BIDS0 + f[2]] = 1.0
            out[_SF["done_in_phase"]] = f[3]
        elif name in ("give", "take"):
            if name == "give":
                out[_LIMIT0 + LIMITS.index(f[2])] = 1.0
            out[_SF["exchange_count"]] = f[4] if name == "give" else f[2]
            for c in range(NUM_CROPS):
                out[_CTXC0 + c] = f[3] >> c & 1
        elif name == "crop" and f[3] >= 0:
            out[_CTXC0 + f[3]] = 1.0
        elif name == "extra":
            out[_SF["extra_supervisor"]] = f[2] & EXTRA_SUPERVISOR
            out[_SF["extra_carter"]] = f[2] >> 1 & 1

    def text(self, game: Any, seat: int) -> str:
        from .render import render_text

        return render_text(game, seat)
