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

from farmgames.envs.core.observation import Feature, ObservationBuffer, ObservationLayout, highs

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


class Observer:
    """Fills one seat's observation (see the module docstring); ``text`` is the same view in words."""

    def __init__(self, game: Any, **_: Any):
        n = game.num_players
        self.num_players = n
        P = n
        self.layout = ObservationLayout.build(
            [
                (
                    "board",
                    ("players", "spaces", "planes"),
                    (P, NUM_SPACES, N_PLANES),
                    "every country board, viewer first (planes: " + ", ".join(f[0] for f in BOARD_PLANES) + ")",
                    np.broadcast_to(highs(BOARD_PLANES), (P, NUM_SPACES, N_PLANES)),
                ),
                (
                    "farmhands_off",
                    ("players", "farmhands"),
                    (P, FARMHANDS),
                    "farmhand beside its owner's board (playable): " + ", ".join(w.name for w in WORKERS[:6]),
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
                    "store_tile",
                    ("players", "store spaces", "spaces"),
                    (P, STORE_SPACES, NUM_SPACES),
                    "coordinate of the field tile in each store space (one-hot)",
                    1.0,
                ),
                (
                    "store_bid",
                    ("players", "store spaces", "crops"),
                    (P, STORE_SPACES, NUM_CROPS),
                    "the open bid next to each store tile (KH-ACT-BID-8)",
                    float(COUNTERS_PER_CROP),
                ),
                (
                    "store_new",
                    ("players", "store spaces"),
                    (P, STORE_SPACES),
                    "the store tile entered a store this turn (KH-EVENT-6)",
                    1.0,
                ),
                (
                    "registry",
                    ("registry spaces", "spaces"),
                    (REGISTRY_SPACES, NUM_SPACES),
                    "coordinate of the field tile on each registry space 1-6 (one-hot)",
                    1.0,
                ),
                ("stock", ("crops",), (NUM_CROPS,), "general stock per crop (KH-INFO-5)", float(COUNTERS_PER_CROP)),
                ("bag_fields", ("spaces",), (NUM_SPACES,), "field tile still in the bag (KH-INFO-3)", 1.0),
                (
                    "bag_counts",
                    ("fields/events",),
                    (2,),
                    "field tiles and event tiles in the bag",
                    np.array([NUM_SPACES, NUM_EVENT_TILES], np.float32),
                ),
                ("fallow", ("spaces",), (NUM_SPACES,), "field tile in the fallow area (KH-BOARD-7)", 1.0),
                (
                    "event_spaces",
                    ("event spaces", "event kinds"),
                    (EVENT_SPACES, len(EVENTS)),
                    "kind of the event on each event space (one-hot): " + ", ".join(e.name for e in EVENTS),
                    1.0,
                ),
                ("events_out", ("event kinds",), (len(EVENTS),), "resolved tiles of each event kind", 2.0),
                ("supply_own", ("crops",), (NUM_CROPS,), "the viewer's own supply per crop", float(COUNTERS_PER_CROP)),
                ("supply_total", ("players",), (P,), "every supply's total (always known)", float(TOTAL_COUNTERS)),
                (
                    "supply_exact",
                    ("players", "crops"),
                    (P, NUM_CROPS),
                    "supply per crop where known (the viewer; everyone with 2 players), else 0",
                    float(COUNTERS_PER_CROP),
                ),
                ("supply_known", ("players",), (P,), "the row of supply_exact is known", 1.0),
                (
                    "supply_min",
                    ("players", "crops"),
                    (P, NUM_CROPS),
                    "deduced lower bound per crop (net minus the lowest net so far; exact where known)",
                    float(COUNTERS_PER_CROP),
                ),
                (
                    "net_gain",
                    ("players", "crops"),
                    (P, NUM_CROPS),
                    "positive part of the per-crop net of public gains and losses since setup",
                    float(COUNTERS_PER_CROP),
                ),
                (
                    "net_loss",
                    ("players", "crops"),
                    (P, NUM_CROPS),
                    "negative part of that net (at most the 3 start counters)",
                    float(START_COUNTERS),
                ),
                (
                    "start_pool_others",
                    ("crops",),
                    (NUM_CROPS,),
                    "counters per crop in the other players' start counters together (pool minus own)",
                    3.0,
                ),
                ("active", ("players",), (P,), "the active player (whose turn it is)", 1.0),
                ("acting", ("players",), (P,), "the acting player (who decides now)", 1.0),
                ("start_player", ("players",), (P,), "the start player", 1.0),
                ("letters", ("a,b,c,d",), (4,), "action letters used this turn (KH-TURN-3)", 1.0),
                (
                    "turn",
                    ("features",),
                    (5,),
                    "actions taken toward the limit, end triggered, turns left, rounds played, events resolved",
                    np.array([2, 1, 2 * P + 1, SAFETY_ROUNDS + 3, EVENT_SPACES], np.float32),
                ),
                ("pending_extra", ("supervisor,carter",), (2,), "an extra action awaits the end of the action", 1.0),
                (
                    "rebenefit",
                    ("players", "farmhands"),
                    (P, FARMHANDS),
                    "farmhand gave a re-placement benefit this turn (KH-ACT-PLACE-11)",
                    1.0,
                ),
                ("rebenefit_townsfolk", ("townsfolk",), (6,), "townsfolk gave a re-placement benefit this turn", 1.0),
                ("phase", ("phases",), (len(PHASES),), "the current phase (one-hot): " + ", ".join(PHASES), 1.0),
                ("ctx_worker", ("worker kinds",), (12,), "worker being placed or re-placed (SPACE, REPLACE)", 1.0),
                ("ctx_event", ("event kinds",), (len(EVENTS),), "event being resolved", 1.0),
                ("ctx_event_player", ("players",), (P,), "the player the event is being resolved for", 1.0),
                (
                    "ctx_spaces",
                    ("spaces",),
                    (NUM_SPACES,),
                    "HARVEST: the group fixed by the first pick; PICK: the spaces allowed",
                    1.0,
                ),
                ("ctx_pick", ("pick kinds",), (len(PICK_KINDS),), "PICK: " + ", ".join(PICK_KINDS), 1.0),
                (
                    "ctx_flags",
                    ("features",),
                    (3,),
                    "free harvest (event/Reeve: 0 any), Surveyor-placed (no re-placement benefit), Hiring Fair",
                    1.0,
                ),
                (
                    "ctx_count",
                    ("features",),
                    (3,),
                    "picks left (PICK) / counters left to take (TAKE); tiles or counters done in this phase; "
                    "exchange counters given",
                    np.array([3, TOTAL_COUNTERS, TOTAL_COUNTERS], np.float32),
                ),
                (
                    "ctx_limit",
                    ("2,3,none",),
                    (3,),
                    "GIVE: the exchange limit (Labourer 2, Market Day 3, Merchant)",
                    1.0,
                ),
                (
                    "ctx_crops",
                    ("crops",),
                    (NUM_CROPS,),
                    "GIVE/TAKE: crops given in this exchange; CROP: the Brewer's first crop",
                    1.0,
                ),
                ("ctx_bid_space", ("store spaces",), (STORE_SPACES,), "BID: the store space being bid on", 1.0),
                ("ctx_extra", ("supervisor,carter",), (2,), "EXTRA: whose extra action is offered", 1.0),
            ]
        )

    def reset(self, game: Any) -> None:
        """Nothing to forget: buffers remember what they hold in their own ``memo``."""

    def new_buffer(self) -> ObservationBuffer:
        return self.layout.new_buffer()

    # ------------------------------------------------------------------------------------------ fill

    def _board_key(self, game: Any, q: int) -> tuple:
        at = game.worker_at[q]
        return (game.fields[q], game.unharvested[q], game.workers[q], tuple(at[s] for s in spaces(game.workers[q])))

    def _write_board(self, game: Any, q: int, plane: np.ndarray) -> None:
        f, u = bits(game.fields[q]), bits(game.unharvested[q])
        plane[:, 0] = f
        plane[:, 1] = u
        plane[:, 2] = f - u
        plane[:, 3:8] = _CROP_PLANES * f[:, None]
        plane[:, 8:11] = 0.0
        for s in spaces(game.workers[q]):
            tile = game.worker_at[q][s]
            plane[s, 8] = 1.0
            plane[s, 9] = NUMBER[worker_kind(tile)]
            plane[s, 10] = 1.0 if tile >= TOWNSFOLK_BASE else 0.0

    def fill(self, game: Any, seat: int, buffer: ObservationBuffer) -> None:
        v = buffer.views
        n = game.num_players
        order = [(seat + k) % n for k in range(n)]
        rank = {q: k for k, q in enumerate(order)}
        memo = buffer.memo
        board = v["board"]
        for k, q in enumerate(order):
            key = self._board_key(game, q)
            if memo.get(("board", k)) != key:
                self._write_board(game, q, board[k])
                memo[("board", k)] = key
        self._fill_public(game, v, order, rank)
        self._fill_supplies(game, seat, v, order)
        self._fill_turn(game, v, order, rank)
        self._fill_context(game, v, rank)

    def _fill_public(self, game: Any, v: dict, order: list[int], rank: dict) -> None:
        off = v["farmhands_off"]
        off[:] = 0.0
        for k, q in enumerate(order):
            for j in range(FARMHANDS):
                if game.worker_space[FARMHANDS * q + j] < 0:
                    off[k, j] = 1.0
        town = v["townsfolk"]
        town[:] = 0.0
        for t in range(6):
            owner = game.town[t]
            town[t, 0 if owner < 0 else 1 + rank[owner]] = 1.0
        st, sb, sn = v["store_tile"], v["store_bid"], v["store_new"]
        st[:] = 0.0
        sn[:] = 0.0
        for k, q in enumerate(order):
            for j in range(STORE_SPACES):
                t = game.store[q][j]
                sb[k, j] = game.bids[q][j]
                if t >= 0:
                    st[k, j, t] = 1.0
                    if t in game.new_in_store:
                        sn[k, j] = 1.0
        reg = v["registry"]
        reg[:] = 0.0
        for i, t in enumerate(game.registry):
            if t >= 0:
                reg[i, t] = 1.0
        v["stock"][:] = game.stock
        bag_fields = v["bag_fields"]
        bag_fields[:] = 0.0
        fields_in_bag = [t for t in game.bag if t < NUM_SPACES]
        bag_fields[fields_in_bag] = 1.0
        v["bag_counts"][:] = (len(fields_in_bag), len(game.bag) - len(fields_in_bag))
        fallow = v["fallow"]
        fallow[:] = 0.0
        fallow[game.fallow] = 1.0
        ev, out = v["event_spaces"], v["events_out"]
        ev[:] = 0.0
        out[:] = 0.0
        for i, t in enumerate(game.events):
            kind = EVENT_TILES[t - NUM_SPACES]
            ev[i, kind] = 1.0
            out[kind] += 1.0

    def _fill_supplies(self, game: Any, seat: int, v: dict, order: list[int]) -> None:
        exact, low, total = known_supplies(game, seat)
        v["supply_own"][:] = game.supply[seat]
        for k, q in enumerate(order):
            v["supply_total"][k] = total[q]
            v["supply_known"][k] = 1.0 if exact[q] is not None else 0.0
            v["supply_exact"][k] = exact[q] if exact[q] is not None else 0
            v["supply_min"][k] = low[q]
            net = game.net[q]
            v["net_gain"][k] = [max(x, 0) for x in net]
            v["net_loss"][k] = [max(-x, 0) for x in net]
        v["start_pool_others"][:] = others_start_pool(game, seat)

    def _fill_turn(self, game: Any, v: dict, order: list[int], rank: dict) -> None:
        for name in ("active", "acting", "start_player"):
            v[name][:] = 0.0
        v["active"][rank[game.active]] = 1.0
        if game.current_player is not None:
            v["acting"][rank[game.current_player]] = 1.0
        v["start_player"][rank[game.start_player]] = 1.0
        v["letters"][:] = [game.taken >> i & 1 for i in range(4)]
        v["turn"][:] = (game.actions_taken, game.end_triggered, game.turns_left, game.rounds, len(game.events))
        v["pending_extra"][:] = (game.pending_extra & EXTRA_SUPERVISOR, game.pending_extra >> 1 & 1)
        reb = v["rebenefit"]
        for k, q in enumerate(order):
            reb[k] = [game.rebenefit >> (FARMHANDS * q + j) & 1 for j in range(FARMHANDS)]
        v["rebenefit_townsfolk"][:] = [game.rebenefit >> (TOWNSFOLK_BASE + t) & 1 for t in range(6)]

    def _fill_context(self, game: Any, v: dict, rank: dict) -> None:
        for name in (
            "phase",
            "ctx_worker",
            "ctx_event",
            "ctx_event_player",
            "ctx_spaces",
            "ctx_pick",
            "ctx_flags",
            "ctx_count",
            "ctx_limit",
            "ctx_crops",
            "ctx_bid_space",
            "ctx_extra",
        ):
            v[name][:] = 0.0
        f = game.frame
        if f is None:
            return
        name = f[0]
        v["phase"][PHASE_INDEX[PHASE_OF[name]]] = 1.0
        if game.event_depth and game.events:
            v["ctx_event"][EVENT_TILES[game.events[-1] - NUM_SPACES]] = 1.0
            v["ctx_event_player"][rank[f[1]]] = 1.0
        if name in ("space", "replace"):
            v["ctx_worker"][worker_kind(f[2])] = 1.0
            if name == "replace":
                v["ctx_flags"][1] = float(f[3])
            elif f[3] == "hiring":
                v["ctx_flags"][2] = 1.0
        elif name == "worker" and f[2] == "hiring":
            v["ctx_flags"][2] = 1.0
        elif name == "harvest":
            v["ctx_flags"][0] = float(f[2])
            v["ctx_spaces"][:] = bits(f[3])
        elif name == "pick":
            v["ctx_pick"][PICK_KINDS.index(f[2])] = 1.0
            v["ctx_count"][0] = f[3]
            v["ctx_spaces"][:] = bits(f[4])
        elif name in ("store", "registry"):
            v["ctx_count"][1] = f[2]
        elif name == "bid":
            v["ctx_bid_space"][f[2]] = 1.0
            v["ctx_count"][1] = f[3]
        elif name == "give":
            v["ctx_limit"][LIMITS.index(f[2])] = 1.0
            v["ctx_count"][2] = f[4]
            v["ctx_crops"][:] = [f[3] >> c & 1 for c in range(NUM_CROPS)]
        elif name == "take":
            v["ctx_count"][0] = min(f[2], 3)
            v["ctx_count"][2] = f[2]
            v["ctx_crops"][:] = [f[3] >> c & 1 for c in range(NUM_CROPS)]
        elif name == "crop" and f[3] >= 0:
            v["ctx_crops"][f[3]] = 1.0
        elif name == "extra":
            v["ctx_extra"][:] = (f[2] & EXTRA_SUPERVISOR, f[2] >> 1 & 1)

    def text(self, game: Any, seat: int) -> str:
        from .render import render_text

        return render_text(game, seat)
