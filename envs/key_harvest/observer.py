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

import struct
from typing import Any

import numpy as np

from farmgames.envs.core.observation import (
    Feature,
    ObservationBuffer,
    ObservationLayout,
    highs,
    merge_runs,
    rotated_runs,
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


def known_supplies(game: Any, viewer: int) -> tuple[list[list[int] | None], list[list[int]], list[int]]:
    """What ``viewer`` knows of every seat's supply, from the public record (KH-INFO-7, KH-RULING-16):
    (exact supply or None, per-crop lower bound, total). Also used by the heuristic bot."""
    n = game.num_players
    two = n == 2
    exact: list[list[int] | None] = []
    low: list[list[int]] = []
    total: list[int] = []
    for q in range(n):
        net = game.net[q]
        total.append(sum(game.start[q]) + sum(net))  # the start total is public (3; scenarios may differ)
        if q == viewer:
            row = list(game.supply[q])
        elif two:  # the 2-player start counters are public (KH-SETUP-18)
            row = [game.start[q][c] + net[c] for c in range(NUM_CROPS)]
        else:
            row = None
        exact.append(row)
        low.append(row if row is not None else [net[c] - game.min_net[q][c] for c in range(NUM_CROPS)])
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


# (decision frame, event kind) -> read-only (state[_PHASE0:], ctx_spaces) blocks: the context part of the
# observation depends on nothing else (see Observer._context), so every observer shares them
_CONTEXTS: dict[tuple, tuple[memoryview, memoryview]] = {}


def _ctx_mask(f: tuple | None) -> int:
    """``ctx_spaces`` of a decision frame: HARVEST's group, PICK's allowed spaces."""
    return f[3] if f is not None and f[0] == "harvest" else f[4] if f is not None and f[0] == "pick" else 0


class Observer:
    """Fills one seat's observation (see the module docstring); ``text`` is the same view in words.

    Entries: ``board`` (planes ``BOARD_PLANES``), ``players`` (``PLAYER_FEATURES`` per seat), ``store_tile``,
    ``townsfolk``, ``registry``, ``tile_places``, ``event_spaces``, ``state`` (``STATE_FEATURES``) and
    ``ctx_spaces``; every player axis starts with the viewer.
    """

    _pack_own_row = struct.Struct(f"{1 + 2 * NUM_CROPS}f").pack_into  # supply_known, supply_exact_*, supply_min_*
    _pack_own_state = struct.Struct(f"{2 * NUM_CROPS}f").pack_into  # own_*, start_pool_others_*
    _pack_workers = struct.Struct(f"{2 * FARMHANDS}f").pack_into  # farmhand_off_*, rebenefit_*
    _pack_counters = struct.Struct(f"{2 + 4 * NUM_CROPS}f").pack_into  # supply_total .. net_loss_*
    _pack_bids = struct.Struct(f"{2 * NUM_CROPS + 2}f").pack_into  # bid1_*, bid2_*, store1_new, store2_new
    _pack_stock = struct.Struct(f"{NUM_CROPS}f").pack_into  # stock_*
    _pack_tiles = struct.Struct(f"{2 + len(EVENTS)}f").pack_into  # bag_fields, bag_events, events_out_*
    _pack_turn = struct.Struct("17f").pack_into  # letter_a .. rebenefit_surveyor

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
        """The fast path's master copy and caches (see ``fill``); rebuilt after unpickling."""
        e, n = self.layout.entry, self.num_players
        self._master = self.layout.new_buffer()
        self._seen: dict[str, Any] = {}  # part -> copies of the inputs it was last written from
        self._board_seen: list[tuple] = [(0, 0, [-1] * NUM_SPACES)] * n  # (fields, unharvested, worker_at) written
        mv = self._master.mv
        board, players, state = e["board"].start, e["players"].start, e["state"].start
        self._board_mv = [
            mv[board + q * NUM_SPACES * N_PLANES : board + (q + 1) * NUM_SPACES * N_PLANES] for q in range(n)
        ]
        self._row_mv = [mv[players + q * NPF : players + (q + 1) * NPF] for q in range(n)]
        self._own: list[tuple | None] = [None] * n  # per viewer: the blocks of what only it sees (None: stale)
        self._plans: dict[int, tuple] = {}  # id(buffer.flat) -> its copies and offsets (see _plan)
        self._state0 = state
        self._game: Any = None  # the game the master follows, its change log and the log entries applied
        self._log: list[int] | None = None
        self._pos = 0
        self._context_view = mv[state + _PHASE0 : e["state"].stop]
        self._ctx_view = mv[e["ctx_spaces"].start : e["ctx_spaces"].stop]
        assert e["state"].stop == e["ctx_spaces"].start and e["registry"].stop == e["tile_places"].start
        assert e["tile_places"].stop == e["event_spaces"].start

    def __getstate__(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "layout": self.layout, "_rows": self._rows, "_public": self._public}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
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
    # test_observer_fast.py compares them on random games of 2-4 players, every seat, every state):
    #
    # * ``fill_plain`` writes every value from the state: the readable definition of the observation;
    # * ``fill`` (the env's hot path, ~10x faster) keeps one *master* copy of the observation in seat
    #   order, as seen by nobody, and brings it up to date with the state in ``_sync``: each part is
    #   rewritten only when the inputs it is computed from differ from the copies kept at its last write
    #   (list comparisons run in C and cost ~50 ns). The buffer then receives the master in the viewer's
    #   rotation through a dozen memcpys between memoryviews prepared once per buffer and seat
    #   (``_plan``), and the few values that depend on the viewer are written last: its own supply in its
    #   player row and in ``state``, the pool of the others' start counters and the townsfolk columns.
    #   The master holds no hidden value: its player rows are what every seat knows of every seat.

    def fill_plain(self, game: Any, seat: int, buffer: ObservationBuffer) -> None:
        """Write ``seat``'s view from scratch (the reference for :meth:`fill`)."""
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
        """Write ``seat``'s view (the same values as :meth:`fill_plain`, see the comment above)."""
        self._sync(game)
        plan = self._plans.get(id(buffer.flat))
        if plan is None or plan[0] is not buffer.flat or plan[1] != seat:
            plan = self._plan(buffer, seat)
        for dst, src in plan[2]:
            dst[:] = src
        own = self._own[seat]
        if own is None:  # its supply or the town changed (the change log says so), or a new game
            own = self._own_blocks(game, seat)
        plan[3][:] = own[4]
        plan[4][:] = own[5]
        plan[5][:] = own[6]

    def _plan(self, buffer: ObservationBuffer, seat: int) -> tuple:
        """The copies from the master into ``buffer`` for ``seat`` (rotated player axes; the master's
        townsfolk entry is copied too, to join runs, then overwritten) and the views of the values that
        are the viewer's own; kept per buffer (a few buffers per env)."""
        e, n = self.layout.entry, self.num_players
        runs = []
        for name in ("board", "store_tile", "players"):
            width = e[name].size // n
            runs += rotated_runs(n, width, e[name].start, e[name].start, seat)
        runs.append((e["townsfolk"].start, e["townsfolk"].start, e["event_spaces"].stop - e["townsfolk"].start))
        runs.append((e["state"].start, e["state"].start, e["ctx_spaces"].stop - e["state"].start))
        dst, src = buffer.mv, self._master.mv
        copies = [(dst[a:b], src[c:d]) for a, b, c, d in merge_runs(sorted(runs))]
        row = e["players"].start + _PF["supply_known"]
        state = e["state"].start + _SF["own_wheat"]
        views = (dst[row : row + 1 + 2 * NUM_CROPS], dst[state : state + 2 * NUM_CROPS])
        plan = (buffer.flat, seat, copies, *views, dst[e["townsfolk"].start : e["townsfolk"].stop])
        if len(self._plans) > 64:  # buffers of envs long gone
            self._plans.clear()
        self._plans[id(buffer.flat)] = plan
        return plan

    def _own_blocks(self, game: Any, seat: int) -> tuple:
        """What only ``seat`` sees, with the inputs it was computed from: its row's supply_known, exact and
        lower bound (its own supply), ``own_*`` and ``start_pool_others_*`` of ``state``, ``townsfolk``."""
        n, own = self.num_players, game.supply[seat]
        row = np.array([1, *own, *own], np.float32)
        state = np.array([*own, *others_start_pool(game, seat)], np.float32)
        town = np.zeros((6, n + 1), np.float32)
        for t, owner in enumerate(game.town):
            town[t, 0 if owner < 0 else 1 + (owner - seat) % n] = 1.0
        blocks = (None, None, None, None, *map(memoryview, (row, state, town.reshape(-1))))
        self._own[seat] = blocks
        return blocks

    def _sync(self, game: Any) -> None:
        """Bring the master (seat order, seen by nobody) up to date with ``game``: the parts named in the
        engine's change log since the last sync (``Game.changes``, CH_* tags), everything for a game this
        observer has not followed (another game, a clone, a loaded state); the turn flags, turn values and
        decision context (which change at most decisions) by comparison with what was written."""
        log = game.changes
        if self._game is not game or self._log is not log or len(log) < self._pos:
            self._sync_all(game)
        elif len(log) > self._pos:
            self._sync_changes(game, set(log[self._pos :]))
        self._pos = len(log)
        self._sync_flags(game)
        self._sync_state(game)

    def _sync_all(self, game: Any) -> None:
        n, v = self.num_players, self._master.views
        self._game, self._log = game, game.changes
        self._master.flat[:] = 0.0
        self._seen = {}
        self._own = [None] * n
        self._board_seen = [(0, 0, [-1] * NUM_SPACES)] * n
        for q in range(n):
            self._sync_board(game, q)
            self._write_store(game, v, q, q)
            self._write_counters(game, q)
            self._write_bids(game, q)
        self._write_registry(game, v)
        self._write_places(game, v)
        self._write_events(game, v)
        self._write_workers(game)
        self._write_stock(game)
        self._write_tiles(game)

    def _sync_changes(self, game: Any, tags: set[int]) -> None:  # noqa: C901 - one branch per tag
        n, v = self.num_players, self._master.views
        for tag in tags:
            if tag < CH_COUNTERS:
                self._sync_board(game, tag - CH_BOARD)
            elif tag < CH_BIDS:
                self._write_counters(game, tag - CH_COUNTERS)
                self._own[tag - CH_COUNTERS] = None
            elif tag < CH_STORE:
                self._write_bids(game, tag - CH_BIDS)
            elif tag < CH_STOCK:
                q = tag - CH_STORE
                self._write_store(game, v, q, q)
                self._write_bids(game, q)  # its store*_new flags
            elif tag == CH_STOCK:
                self._write_stock(game)
            elif tag == CH_REGISTRY:
                self._write_registry(game, v)
            elif tag == CH_BAG:
                self._write_places(game, v)
                self._write_tiles(game)
            elif tag == CH_EVENTS:
                self._write_events(game, v)
                self._write_tiles(game)
            elif tag == CH_WORKERS:
                self._write_workers(game)
                self._own = [None] * n  # the townsfolk entry
            elif tag == CH_NEW:
                for q in range(n):
                    self._write_bids(game, q)

    def _sync_board(self, game: Any, q: int) -> None:
        """Rewrite the planes of the spaces of board ``q`` whose tile or worker changed."""
        old_f, old_u, old_at = self._board_seen[q]
        f, u, at = game.fields[q], game.unharvested[q], game.worker_at[q]
        mv = self._board_mv[q]
        for s in spaces((f ^ old_f) | (u ^ old_u)):
            on, up = f >> s & 1, u >> s & 1
            o = N_PLANES * s
            mv[o], mv[o + 1], mv[o + 2], mv[o + 3 + CROP_OF[s]] = on, up, on - up, on
        if at != old_at:
            for s in range(NUM_SPACES):
                if at[s] != old_at[s]:
                    o, tile = N_PLANES * s + 8, at[s]
                    if tile < 0:
                        mv[o], mv[o + 1], mv[o + 2] = 0, 0, 0
                    else:
                        mv[o], mv[o + 1], mv[o + 2] = 1, NUMBER[worker_kind(tile)], tile >= TOWNSFOLK_BASE
        self._board_seen[q] = (f, u, list(at))

    # the master's player rows: PLAYER_FEATURES of every seat as the others see it, by segment

    def _sync_flags(self, game: Any) -> None:
        f = game.stack[-1] if game.stack else None
        acting = f[1] if f is not None else -1
        flags = (game.active, acting, game.start_player, acting if game.event_depth else -1)
        if self._seen.get("flags") != flags:
            self._seen["flags"] = flags
            active, acting, start, event_player = flags
            for q, row in enumerate(self._row_mv):
                row[0], row[1], row[2], row[3] = q == active, q == acting, q == start, q == event_player

    def _write_workers(self, game: Any) -> None:
        ws, reb = game.worker_space, game.rebenefit
        for q, row in enumerate(self._row_mv):
            b, r = FARMHANDS * q, reb >> FARMHANDS * q
            self._pack_workers(
                row,
                4 * _PF["farmhand_off_apprentice"],
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

    def _write_counters(self, game: Any, q: int) -> None:
        net, mn, st = game.net[q], game.min_net[q], game.start[q]
        if self.num_players == 2:  # the 2-player start counters are public (KH-SETUP-18)
            ex = [st[c] + net[c] for c in range(NUM_CROPS)]
            known, low = 1, ex
        else:
            ex, known, low = [0] * NUM_CROPS, 0, [net[c] - mn[c] for c in range(NUM_CROPS)]
        self._pack_counters(
            self._row_mv[q],
            4 * _PF["supply_total"],
            sum(st) + sum(net),
            known,
            *ex,
            *low,
            *[x if x > 0 else 0 for x in net],
            *[-x if x < 0 else 0 for x in net],
        )

    def _write_bids(self, game: Any, q: int) -> None:
        new = game.new_in_store
        (b0, b1), (t0, t1) = game.bids[q], game.store[q]
        self._pack_bids(self._row_mv[q], 4 * _PF["bid1_wheat"], *b0, *b1, t0 >= 0 and t0 in new, t1 >= 0 and t1 in new)

    # the master's state (but the viewer's own supply and pool) and ctx_spaces

    def _write_stock(self, game: Any) -> None:
        self._pack_stock(self._master.flat, 4 * self._state0, *game.stock)

    def _write_tiles(self, game: Any) -> None:
        in_bag = NUM_EVENT_TILES - len(game.events) - len(game.removed)  # counts only (KH-INFO-3/4)
        out = [0] * len(EVENTS)
        for t in game.events:
            out[EVENT_TILES[t - NUM_SPACES]] += 1
        self._pack_tiles(
            self._master.flat, 4 * (self._state0 + _SF["bag_fields"]), len(game.bag) - in_bag, in_bag, *out
        )

    def _sync_state(self, game: Any) -> None:
        seen, flat, s0 = self._seen, self._master.flat, 4 * self._state0
        t, reb, pend = game.taken, game.rebenefit >> TOWNSFOLK_BASE, game.pending_extra
        key = (t, game.actions_taken, game.end_triggered, game.turns_left, game.rounds, len(game.events), pend, reb)
        if seen.get("turn") != key:
            seen["turn"] = key
            self._pack_turn(
                flat,
                s0 + 4 * _SF["letter_a"],
                t & 1,
                t >> 1 & 1,
                t >> 2 & 1,
                t >> 3 & 1,
                *key[1:6],
                pend & EXTRA_SUPERVISOR,
                pend >> 1 & 1,
                reb & 1,
                reb >> 1 & 1,
                reb >> 2 & 1,
                reb >> 3 & 1,
                reb >> 4 & 1,
                reb >> 5 & 1,
            )
        f = game.stack[-1] if game.stack else None
        key = (f, EVENT_TILES[game.events[-1] - NUM_SPACES] if game.event_depth and game.events else -1)
        if seen.get("context") != key:
            seen["context"] = key
            blocks = _CONTEXTS.get(key)
            if blocks is None:  # the plain computation, cut to the context part, and ctx_spaces
                out = [0.0] * NSF
                if f is not None:
                    self._context(game, f, out)
                if len(_CONTEXTS) >= 8192:  # a few MB, shared by every observer
                    _CONTEXTS.clear()
                context = memoryview(np.array(out[_PHASE0:], np.float32))  # type: ignore[arg-type]
                blocks = _CONTEXTS[key] = (context, memoryview(bits(_ctx_mask(f))))  # type: ignore[arg-type]
            self._context_view[:] = blocks[0]
            self._ctx_view[:] = blocks[1]

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
