"""Consistency checks of a Key Harvest state: used by ``Game.from_json`` and by the fuzz tests.

``validate_state`` raises ``ValueError`` naming the first violation.
"""

from __future__ import annotations

from typing import Any

from .board import (
    BIT,
    COUNTERS_PER_CROP,
    END_EVENT,
    EVENT_SPACES,
    FARMHANDS,
    FINAL_ROUNDS,
    FULL,
    NUM_CROPS,
    NUM_EVENT_TILES,
    NUM_SPACES,
    PAIR_COLOURS,
    REGISTRY_SPACES,
    SAFETY_ROUNDS,
    STORE_SPACES,
    TOTAL_COUNTERS,
    TOWNSFOLK_BASE,
)


def _fail(msg: str) -> None:
    raise ValueError(f"Key Harvest state: {msg}")


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        _fail(f"field {name!r} must be an integer {lo}..{hi}, got {value!r}")
    return value


def _ints(value: Any, name: str, size: int | None, lo: int, hi: int) -> None:
    if not isinstance(value, list) or (size is not None and len(value) != size):
        _fail(f"field {name!r} must be a list of {size if size is not None else 'some'} integers")
    for v in value:
        _int(v, name, lo, hi)


def _rows(value: Any, name: str, n: int, size: int, lo: int, hi: int) -> None:
    if not isinstance(value, list) or len(value) != n:
        _fail(f"field {name!r} must hold one entry per player")
    for row in value:
        _ints(row, name, size, lo, hi)


def _bool(value: Any, name: str) -> None:
    if not isinstance(value, bool):
        _fail(f"field {name!r} must be true or false, got {value!r}")


def _check_types(g: Any) -> None:
    """Every field has its type, length and range (so nothing later indexes out of range)."""
    n = _int(g.num_players, "num_players", 2, 4)
    _int(g.seed, "seed", 0, 2**63 - 1)
    if g.first_player is not None:
        _int(g.first_player, "first_player", 0, n - 1)
    _ints(g.history, "history", None, 0, 92)
    _int(g.start_player, "start_player", 0, n - 1)
    _int(g.active, "active", 0, n - 1)
    if (
        not isinstance(g.pairs, list)
        or len(g.pairs) != n
        or len(set(map(str, g.pairs))) != n
        or any(c not in PAIR_COLOURS for c in g.pairs)
    ):
        _fail(f"field 'pairs' must name {n} different start pairs")
    for key in ("fields", "unharvested", "workers"):
        _ints(getattr(g, key), key, n, 0, FULL)
    _rows(g.worker_at, "worker_at", n, NUM_SPACES, -1, 29)
    _ints(g.worker_space, "worker_space", 30, -1, NUM_SPACES - 1)
    _ints(g.town, "town", 6, -1, n - 1)
    _ints(g.roles, "roles", NUM_CROPS, 0, NUM_CROPS - 1)
    if sorted(g.roles) != list(range(NUM_CROPS)):
        _fail("field 'roles' must be a permutation of the crops")
    _ints(g.pool, "pool", NUM_CROPS, 0, COUNTERS_PER_CROP)
    _ints(g.stock, "stock", NUM_CROPS, 0, COUNTERS_PER_CROP)
    for key, lo, hi in (  # scenarios may start a player with more than 3 counters of a crop
        ("start", 0, COUNTERS_PER_CROP),
        ("supply", 0, COUNTERS_PER_CROP),
        ("net", -COUNTERS_PER_CROP, TOTAL_COUNTERS),
        ("min_net", -COUNTERS_PER_CROP, 0),
    ):
        _rows(getattr(g, key), key, n, NUM_CROPS, lo, hi)
    _ints(g.registry, "registry", REGISTRY_SPACES, -1, NUM_SPACES - 1)
    for key in ("bag", "events", "removed", "fallow", "new_in_store"):
        _ints(getattr(g, key), key, None, 0, NUM_SPACES + NUM_EVENT_TILES - 1)
    _rows(g.store, "store", n, STORE_SPACES, -1, NUM_SPACES - 1)
    if not isinstance(g.bids, list) or len(g.bids) != n:
        _fail("field 'bids' must hold one entry per player")
    for row in g.bids:
        _rows(row, "bids", STORE_SPACES, NUM_CROPS, 0, COUNTERS_PER_CROP)
    _int(g.taken, "taken", 0, 15)
    _int(g.actions_taken, "actions_taken", 0, 2)  # KH-TURN-2
    _int(g.rebenefit, "rebenefit", 0, (1 << 30) - 1)
    _int(g.pending_extra, "pending_extra", 0, 3)
    _int(g.event_depth, "event_depth", 0, n * 14)
    _int(g.turns_left, "turns_left", 0, FINAL_ROUNDS * n + 1)
    _int(g.rounds, "rounds", 0, SAFETY_ROUNDS + FINAL_ROUNDS + 1)
    _int(g.turns, "turns", 0, (SAFETY_ROUNDS + FINAL_ROUNDS + 1) * n)
    for key in ("end_triggered", "truncated", "over"):
        _bool(getattr(g, key), key)
    if len(g.events) > EVENT_SPACES:
        _fail("more than 10 event tiles resolved")
    if len(g.events) >= END_EVENT and not g.end_triggered and not g.event_depth:
        _fail("field 'end_triggered' must be set once the 10th event is resolved (KH-END-1)")
    if g.end_triggered and not g.over and g.turns_left < 1:
        _fail("field 'turns_left' must be at least 1 once the end is triggered")


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


_FRAME_ARGS = {  # frame name -> number of items after the name
    "turn": 1,
    "harvest": 3,
    "pick": 4,
    "subst": 1,
    "hiring": 1,
    "worker": 2,
    "space": 3,
    "remove": 1,
    "store": 2,
    "replace": 3,
    "registry": 2,
    "bid": 3,
    "extra": 2,
    "deed": 1,
    "crop": 3,
    "give": 4,
    "take": 3,
    "tithe": 1,
    "enclose": 1,
    "survey": 1,
    "action_end": 1,
    "refill": 0,
    "event_for": 2,
    "event_done": 0,
    "miller": 2,
}


def _check_frame(g: Any, f: tuple) -> None:  # noqa: C901 - one branch per frame kind
    name = f[0] if f and isinstance(f[0], str) else None
    if name not in _FRAME_ARGS or len(f) != 1 + _FRAME_ARGS[name]:
        _fail(f"unknown or malformed frame {f!r}")
    n = g.num_players
    if name == "event_for":
        _int(f[1], "stack", 0, 6)
        _int(f[2], "stack", 0, n - 1)
        return
    if name in ("refill", "event_done"):
        return
    p = _int(f[1], "stack", 0, n - 1)
    if name == "harvest":
        _int(f[2], "stack", 0, 1)
        _int(f[3], "stack", 0, FULL)
    elif name == "pick":
        if f[2] not in ("unskilled", "foreman", "casual", "rain"):
            _fail(f"frame {f!r}: unknown pick")
        _int(f[3], "stack", 1, 3)
        _int(f[4], "stack", 0, FULL)
    elif name in ("worker", "space"):
        if f[-1] not in ("turn", "hiring"):
            _fail(f"frame {f!r}: unknown context")
        if name == "space":
            tile = _int(f[2], "stack", 0, 29)
            if (
                g.worker_space[tile] >= 0
                or (tile < TOWNSFOLK_BASE and tile // FARMHANDS != p)
                or (tile >= TOWNSFOLK_BASE and g.town[tile - TOWNSFOLK_BASE] != -1)
            ):
                _fail(f"frame {f!r}: that worker is not playable")
    elif name in ("store", "registry"):
        _int(f[2], "stack", 0, 1)
    elif name == "replace":
        tile = _int(f[2], "stack", 0, 29)
        _int(f[3], "stack", 0, 1)
        owner = tile // FARMHANDS if tile < TOWNSFOLK_BASE else g.town[tile - TOWNSFOLK_BASE]
        if g.worker_space[tile] >= 0 or owner != p:
            _fail(f"frame {f!r}: the displaced worker must be off the board and belong to the player")
    elif name == "bid":
        slot = _int(f[2], "stack", 0, 1)
        _int(f[3], "stack", 0, TOTAL_COUNTERS)
        if g.store[p][slot] < 0:
            _fail(f"frame {f!r}: no tile to bid on")
    elif name == "extra":
        _int(f[2], "stack", 1, 3)
    elif name == "crop":
        if f[2] not in ("apprentice", "brewer", "brewer2"):
            _fail(f"frame {f!r}: unknown crop benefit")
        _int(f[3], "stack", 0 if f[2] == "brewer2" else -1, NUM_CROPS - 1 if f[2] == "brewer2" else -1)
    elif name == "give":
        if f[2] not in (2, 3, 99):
            _fail(f"frame {f!r}: unknown exchange limit")
        _int(f[3], "stack", 0, 31)
        _int(f[4], "stack", 0, min(f[2], TOTAL_COUNTERS))
    elif name == "take":
        _int(f[2], "stack", 1, TOTAL_COUNTERS)
        _int(f[3], "stack", 1, 31)
    elif name == "miller":
        if not isinstance(f[2], (list, tuple)):
            _fail(f"frame {f!r}: the Miller's spaces must be a list")
        for s in f[2]:
            _int(s, "stack", 0, NUM_SPACES - 1)


def _check_stack(g: Any) -> None:
    if not isinstance(g.stack, list):
        _fail("field 'stack' must be a list of frames")
    if g.over:
        if g.stack:
            _fail("a finished game has pending frames")
        return
    if not g.stack:
        _fail("an unfinished game has no pending frame")
    for f in g.stack:
        _check_frame(g, f)
    if g.stack[0] != ("turn", g.active) or any(f[0] == "turn" for f in g.stack[1:]):
        _fail("the bottom frame (and only it) must be the active player's turn")
    if sum(1 for f in g.stack if f[0] == "event_done") != g.event_depth:
        _fail("field 'event_depth' disagrees with the events being resolved")
    for t in g.new_in_store:
        if not any(t in row for row in g.store):
            _fail(f"field 'new_in_store': tile {t} is in no store")


def validate_state(g: Any) -> None:
    """Raise ValueError naming the first inconsistency of ``g``."""
    _check_types(g)
    _check_counters(g)
    _check_tiles(g)
    _check_workers(g)
    _check_stack(g)
