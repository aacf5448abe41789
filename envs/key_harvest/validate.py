"""Consistency checks of a Key Harvest state: used by ``Game.from_json`` and by the fuzz tests.

``validate_state`` raises ``ValueError`` naming the first violation.
"""

from __future__ import annotations

from typing import Any

from .board import (
    BIT,
    COUNTERS_PER_CROP,
    FARMHANDS,
    FULL,
    NUM_CROPS,
    NUM_EVENT_TILES,
    NUM_SPACES,
    PAIR_COLOURS,
    REGISTRY_SPACES,
    STORE_SPACES,
    TOWNSFOLK_BASE,
)

_FRAME_NAMES = {
    "turn",
    "harvest",
    "pick",
    "subst",
    "hiring",
    "worker",
    "space",
    "remove",
    "store",
    "replace",
    "registry",
    "bid",
    "extra",
    "deed",
    "crop",
    "give",
    "take",
    "tithe",
    "enclose",
    "survey",
    "action_end",
    "refill",
    "event_for",
    "event_done",
    "miller",
}


def _fail(msg: str) -> None:
    raise ValueError(f"Key Harvest state: {msg}")


def _check_types(g: Any) -> None:
    n = g.num_players
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
        _fail(f"field 'num_players' must be 2..4, got {n!r}")
    if isinstance(g.seed, bool) or not isinstance(g.seed, int) or g.seed < 0:
        _fail(f"field 'seed' must be a non-negative integer, got {g.seed!r}")
    for key in ("fields", "unharvested", "workers", "pairs", "supply", "start", "net", "min_net", "store", "bids"):
        if not isinstance(getattr(g, key), list) or len(getattr(g, key)) != n:
            _fail(f"field {key!r} must hold one entry per player")
    for key, size in (
        ("stock", NUM_CROPS),
        ("registry", REGISTRY_SPACES),
        ("town", 6),
        ("worker_space", 30),
        ("pool", NUM_CROPS),
        ("roles", NUM_CROPS),
    ):
        value = getattr(g, key)
        if not isinstance(value, list) or len(value) != size or not all(isinstance(v, int) for v in value):
            _fail(f"field {key!r} must be a list of {size} integers")
    if sorted(g.roles) != list(range(NUM_CROPS)):
        _fail("field 'roles' must be a permutation of the crops")
    if len(set(g.pairs)) != n or any(c not in PAIR_COLOURS for c in g.pairs):
        _fail(f"field 'pairs' must name {n} different start pairs")
    if not 0 <= g.start_player < n or not 0 <= g.active < n:
        _fail("field 'start_player'/'active' is not a seat")


def _check_counters(g: Any) -> None:
    """KH-COMP-7: 60 counters conserved across stock, supplies and bids; supplies = start + public net."""
    for c in range(NUM_CROPS):
        total = g.stock[c] + sum(s[c] for s in g.supply) + sum(b[c] for row in g.bids for b in row)
        if total != COUNTERS_PER_CROP:
            _fail(f"crop {c}: {total} counters in stock, supplies and bids, not {COUNTERS_PER_CROP}")
        if g.stock[c] < 0:
            _fail(f"field 'stock' crop {c} is negative")
    for p in range(g.num_players):
        for c in range(NUM_CROPS):
            if g.supply[p][c] < 0:
                _fail(f"field 'supply' of player {p} crop {c} is negative")
            if g.supply[p][c] != g.start[p][c] + g.net[p][c]:
                _fail(f"field 'supply' of player {p} crop {c} differs from start + public net")
            if g.min_net[p][c] > min(0, g.net[p][c]) or g.start[p][c] + g.min_net[p][c] < 0:
                _fail(f"field 'min_net' of player {p} crop {c} is inconsistent")
    for c in range(NUM_CROPS):
        if sum(g.start[p][c] for p in range(g.num_players)) != g.pool[c]:
            _fail(f"field 'start' crop {c}: the start draws do not add up to the pool")


def _check_tiles(g: Any) -> None:
    """Each field tile and event tile in exactly one place."""
    where: dict[int, str] = {}

    def put(t: int, place: str) -> None:
        if not isinstance(t, int) or not 0 <= t < NUM_SPACES + NUM_EVENT_TILES:
            _fail(f"{place}: {t!r} is not a tile")
        if t in where:
            _fail(f"tile {t} is both in {where[t]} and in {place}")
        where[t] = place

    _boards_and_stores(g, put)
    _town_and_bag(g, put)
    if len(where) != NUM_SPACES + NUM_EVENT_TILES:
        missing = sorted(set(range(NUM_SPACES + NUM_EVENT_TILES)) - set(where))
        _fail(f"tiles {missing} are nowhere")
    if len(g.events) > 10:
        _fail("more than 10 event tiles resolved")


def _boards_and_stores(g: Any, put: Any) -> None:
    for p in range(g.num_players):
        f, u, w = g.fields[p], g.unharvested[p], g.workers[p]
        if f & ~FULL or u & ~f or f & w:
            _fail(f"board of player {p}: unharvested outside fields, or a worker on a field tile")
        for s in range(NUM_SPACES):
            if f & BIT[s]:
                put(s, f"board {p}")
        for k in range(STORE_SPACES):
            t = g.store[p][k]
            if t >= 0:
                if t >= NUM_SPACES:
                    _fail(f"store {p} space {k + 1} holds an event tile")
                put(t, f"store {p}")
            elif any(g.bids[p][k]):
                _fail(f"store {p} space {k + 1} has a bid without a tile")
            elif t != -1:
                _fail(f"store {p} space {k + 1}: {t!r} is not a tile")


def _town_and_bag(g: Any, put: Any) -> None:
    for i, t in enumerate(g.registry):
        if t >= 0:
            if t >= NUM_SPACES:
                _fail(f"registry space {i + 1} holds an event tile")
            put(t, "the registry")
    for t in g.bag:
        put(t, "the bag")
    for t in g.fallow:
        if t >= NUM_SPACES:
            _fail("the fallow area holds an event tile")
        put(t, "the fallow area")
    for t in g.events:
        if t < NUM_SPACES:
            _fail("an event space holds a field tile")
        put(t, "the event spaces")
    for t in g.removed:
        put(t, "the removed events")


def _check_workers(g: Any) -> None:
    for p in range(g.num_players):
        mask = 0
        for s, tile in enumerate(g.worker_at[p]):
            if tile < 0:
                continue
            mask |= BIT[s]
            if g.worker_space[tile] != s:
                _fail(f"worker tile {tile} on board {p} space {s} disagrees with field 'worker_space'")
            owner = tile // FARMHANDS if tile < TOWNSFOLK_BASE else g.town[tile - TOWNSFOLK_BASE]
            if owner != p:
                _fail(f"worker tile {tile} lies on board {p} but belongs to {owner}")
        if mask != g.workers[p]:
            _fail(f"field 'workers' of player {p} disagrees with field 'worker_at'")
    for tile, s in enumerate(g.worker_space):
        if s >= 0:
            owner = tile // FARMHANDS if tile < TOWNSFOLK_BASE else g.town[tile - TOWNSFOLK_BASE]
            if not 0 <= owner < g.num_players or g.worker_at[owner][s] != tile:
                _fail(f"worker tile {tile}: field 'worker_space' points to an empty space")


def _check_stack(g: Any) -> None:
    if g.over:
        if g.stack:
            _fail("a finished game has pending frames")
        return
    if not g.stack:
        _fail("an unfinished game has no pending frame")
    for f in g.stack:
        if not f or f[0] not in _FRAME_NAMES:
            _fail(f"unknown frame {f!r}")
        if f[0] not in ("refill", "event_done", "event_for") and not (
            isinstance(f[1], int) and 0 <= f[1] < g.num_players
        ):
            _fail(f"frame {f!r}: player is not a seat")
    if g.stack[0] != ("turn", g.active):
        _fail("the bottom frame must be the active player's turn")
    if not 0 <= g.actions_taken <= 2:
        _fail("field 'actions_taken' must be 0..2 (KH-TURN-2)")


def validate_state(g: Any) -> None:
    """Raise ValueError naming the first inconsistency of ``g``."""
    _check_types(g)
    _check_counters(g)
    _check_tiles(g)
    _check_workers(g)
    _check_stack(g)
