"""The Key Harvest observer: exactly what one seat may know (KH-INFO-1..8, KH-RULING-16), as named arrays.

Everything public is written (every country board as planes over the 56 spaces, stores with their bids,
the registry, the town board, event spaces, fallow area, general stock, the bag's known composition, the
turn state and the pending phase with its context), the viewer's own supply, and for every other player
what perfect recall deduces: the supply total, the per-crop net of that player's public gains and losses
(``net_gain`` / ``net_loss``), a per-crop lower bound, and in a 2-player game the full supply.

The deduced fields are computed from the public record only (``Game.net``/``min_net`` are updated by every
open transfer, KH-INFO-6; the 2-player start counters are public, KH-SETUP-18), never from the screens, and
the observer never reads another player's secret start draw, the bag order or the removed events.

Every player axis starts with the viewer, then the next seats clockwise (``viewer_order``). The board
planes of a seat are rewritten only when that board changed since the buffer's last fill (``memo``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from farmgames.envs.core.observation import Feature, ObservationBuffer, ObservationLayout, highs, viewer_order

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
from .game import EXTRA_SUPERVISOR, PHASE_OF, PICK_KINDS, UNLIMITED

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


class Observer:
    """Fills one seat's observation (see the module docstring); ``text`` is the same view in words.

    Entries: ``board`` (planes ``BOARD_PLANES``), ``players`` (``PLAYER_FEATURES`` per seat), ``store_tile``,
    ``townsfolk``, ``registry``, ``tile_places``, ``event_spaces``, ``state`` (``STATE_FEATURES``) and
    ``ctx_spaces``; every player axis starts with the viewer.
    """

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
        self._planes: dict[tuple, np.ndarray] = {}  # board key -> its (56, planes) array, shared by all buffers
        self._blocks: dict[tuple, np.ndarray] = {}  # public key -> the public run, shared by all buffers

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
        """Nothing to forget: buffers remember what they hold in their own ``memo``."""

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

    def fill(self, game: Any, seat: int, buffer: ObservationBuffer) -> None:
        """Write ``seat``'s view. Parts are keyed by their full content: a buffer skips a part it already
        holds, and the observer keeps the arrays of recent boards and public planes for every buffer."""
        v = buffer.views
        n = game.num_players
        order = viewer_order(n, seat)
        memo = buffer.memo
        board = v["board"]
        planes = self._planes
        for k, q in enumerate(order):
            w = game.workers[q]
            key = (game.fields[q], game.unharvested[q], w, tuple(game.worker_at[q][s] for s in spaces(w)) if w else ())
            if memo.get(k) != key:
                plane = planes.get(key)
                if plane is None:
                    if len(planes) > 4096:
                        planes.clear()
                    plane = planes[key] = self._board_planes(game, q)
                board[k] = plane
                memo[k] = key
        key = (
            seat,
            tuple(game.registry),
            tuple(map(tuple, game.store)),
            tuple(game.fields),
            tuple(game.fallow),
            tuple(game.events),
            tuple(game.town),
        )
        if memo.get("public") != key:
            block = self._blocks.get(key)
            if block is None:
                if len(self._blocks) > 2048:
                    self._blocks.clear()
                self._fill_public(game, v, order)
                a, b = self._public
                block = self._blocks[key] = buffer.flat[a:b].copy()
            else:
                a, b = self._public
                buffer.flat[a:b] = block
            memo["public"] = key
        a, b = self._rows
        rows = self._player_rows(game, seat, order)
        if memo.get("players") != rows:  # list comparison is cheaper than writing 50 floats per seat
            buffer.flat[a : a + len(rows)] = rows
            memo["players"] = rows
        a += len(rows)
        row = self._state_row(game, seat)
        if memo.get("state") != row:
            buffer.flat[a:b] = row
            memo["state"] = row
        f = game.frame
        mask = f[3] if f is not None and f[0] == "harvest" else f[4] if f is not None and f[0] == "pick" else 0
        if memo.get("ctx") != mask:
            v["ctx_spaces"][:] = bits(mask)
            memo["ctx"] = mask

    def _fill_public(self, game: Any, v: dict, order: list[int]) -> None:
        rank = {q: k for k, q in enumerate(order)}
        town = v["townsfolk"]
        town[:] = 0.0
        for t in range(6):
            owner = game.town[t]
            town[t, 0 if owner < 0 else 1 + rank[owner]] = 1.0
        st = v["store_tile"]
        st[:] = 0.0
        for k, q in enumerate(order):
            for j in range(STORE_SPACES):
                t = game.store[q][j]
                if t >= 0:
                    st[k, j, t] = 1.0
        reg = v["registry"]
        reg[:] = 0.0
        for i, t in enumerate(game.registry):
            if t >= 0:
                reg[i, t] = 1.0
        places = v["tile_places"]
        places[:] = 0.0
        places[0, [t for t in game.bag if t < NUM_SPACES]] = 1.0
        places[1, game.fallow] = 1.0
        ev = v["event_spaces"]
        ev[:] = 0.0
        for i, t in enumerate(game.events):
            ev[i, EVENT_TILES[t - NUM_SPACES]] = 1.0

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

    def _state_row(self, game: Any, seat: int) -> list[float]:
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
        if f is not None:
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
