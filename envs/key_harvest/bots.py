"""Bots for Key Harvest: the core uniform ``RandomBot`` and a rules-aware ``HeuristicBot``.

The heuristic reads only what its seat may know (docs/key_harvest/bots.md): the public table, its own
supply, and for the others what :func:`~.observer.known_supplies` deduces from the public record. It never
looks at the bag order, the removed events or another player's screen.

Values it uses:

- **tile value** of a coordinate for a seat: the change in that seat's group points (largest + 2 × second,
  KH-SCORE-1/2) if the tile were on its board, plus 0.3 per own field tile it touches (a reachable, growing
  group) plus 0.5 for the counter it will yield; minus the points of an own worker it would displace.
- **store price**: taking a rival's store tile costs the bid (counters lost) and hands the rival twice the
  bid, so the price is 1.5 × the bid's size; own store tiles cost nothing more (the bid is already paid).
- **bid pricing**: a bid is raised (up to 3 counters) until no rival can pay it exactly: a rival whose
  supply total (always public) is below the bid size cannot, nor one whose known supply lacks a bid crop;
  crops are chosen that the rivals are least known to hold.
- **worker timing**: workers are played when a worker of number 2 or more fits (points at the end, and a
  benefit now), highest number first; the Supervisor's / Carter's extra action is used at once.
- **crops**: counters are taken in the crop where one more counter makes or keeps a majority (KH-SCORE-7).
- **stalling**: from round 40 on any registry tile of positive value is taken, so the bag keeps moving.
"""

from __future__ import annotations

import math
from operator import add
from typing import Any

from farmgames.envs.core.bots import Bot, RandomBot

from .actions import (
    CROP0,
    DONE,
    FARMHAND0,
    HARVEST,
    PLAY_WORKER,
    REGISTRY0,
    SPACE0,
    STORE0,
    TAKE_REGISTRY,
    TAKE_STORE,
    TOWNSFOLK0,
)
from .auction import can_pay
from .board import (
    BIT,
    FARMHANDS,
    NEIGHBOUR_MASK,
    NUM_CROPS,
    NUM_SPACES,
    NUMBER,
    STORE_SPACES,
    TOWNSFOLK_BASE,
    group_of,
    groups,
    worker_kind,
)
from .observer import deduced_supply, known_supplies

__all__ = ["HeuristicBot", "RandomBot", "group_points", "points_with", "tile_value"]

STALL_ROUNDS = 40  # from this round on, any registry tile of positive value is taken
_ABOVE_ZERO = math.nextafter(0.0, 1.0)  # v >= _ABOVE_ZERO is v > 0.0 for floats


def group_points(fields: int) -> int:
    """Largest + 2 x second group of a field-tile set (KH-SCORE-1/2).

    Speed: a pure function of one int, memoised (a bounded dict of ints, shared by every bot; ints are not
    tracked by the garbage collector, so the memo adds nothing to its passes, unlike an ``lru_cache``'s
    link lists): ``tile_value`` asks for the same board with and without each candidate tile, decision
    after decision, and the flood fill of ``groups`` was ~70% of the bot's time.
    tests/speed/test_bot_fast_paths_kh_sv.py compares it with the plain count."""
    points = _POINTS.get(fields)
    if points is None:
        if len(_POINTS) >= _MEMO_SIZE:
            _POINTS.clear()
        points = _POINTS[fields] = _group_points(fields)
    return points


def _group_points(fields: int) -> int:
    sizes = [g.bit_count() for g in _groups(fields)] + [0, 0]
    return sizes[0] + 2 * sizes[1]


# The board's flood fills, memoised the same way (pure functions of ints; tuples, so no caller can change a
# cached answer). Checked against board.groups / board.group_of in tests/speed/test_bot_fast_paths_kh_sv.py.
_GROUPS: dict[int, tuple[int, ...]] = {}
_MEMO_SIZE = 1 << 16
_POINTS: dict[int, int] = {}  # group_points' memo
_GROWN: dict[int, int] = {}  # fields | BIT[tile] -> tile, for boards valued one tile ahead (small: ints)
_POINTS_WITH: dict[int, int] = {}  # points_with's memo


def _groups(fields: int) -> tuple[int, ...]:
    """``tuple(board.groups(fields))``, memoised (bounded dict). Speed: a board grows a tile at a time, so
    the groups of a new board are usually those of a memoised board one tile smaller with that tile's
    neighbours merged (``_merge_groups``) instead of a flood fill of the whole board."""
    out = _GROUPS.get(fields)
    if out is None:
        tile = _GROWN.get(fields)  # the board one tile smaller that _base_value_plain valued this tile on
        before = _GROUPS.get(fields ^ BIT[tile]) if tile is not None else None
        if before is not None:
            out = _merge_groups(before, tile)
        else:
            m = fields
            while m:  # another memoised board one tile smaller
                low = m & -m
                before = _GROUPS.get(fields ^ low)
                if before is not None:
                    out = _merge_groups(before, low.bit_length() - 1)
                    break
                m ^= low
            else:
                out = tuple(groups(fields))
        if len(_GROUPS) >= _MEMO_SIZE:
            _GROUPS.clear()
        _GROUPS[fields] = out
    return out


def _merge_groups(before: tuple[int, ...], tile: int) -> tuple[int, ...]:
    """The groups after a field tile is added to a board with groups ``before`` (KH-SCORE-1: the tile joins
    every group it touches), in ``board.groups``' order: largest first, equal sizes by their lowest space."""
    near = NEIGHBOUR_MASK[tile]
    merged = BIT[tile]
    out = []
    for g in before:
        if g & near:
            merged |= g
        else:
            out.append(g)
    out.append(merged)
    out.sort(key=lambda m: (-m.bit_count(), m & -m))
    return tuple(out)


def _group_of(space: int, fields: int) -> int:
    """``board.group_of(space, fields)`` for a space of ``fields``: its group among the memoised groups."""
    bit = BIT[space]
    if fields & bit:
        for g in _groups(fields):
            if g & bit:
                return g
    return group_of(space, fields)


def points_with(fields: int, tile: int) -> int:
    """``group_points(fields | BIT[tile])`` from the (memoised) groups of ``fields``: the new tile joins every
    group it touches into one (KH-SCORE-1: groups are connected field tiles), the others stay as they are.
    Speed: no flood fill per candidate tile, and memoised (the registry and store tiles are valued again at
    every decision while the board stays the same); tests/speed/test_bot_fast_paths.py compares it with the
    plain count on random boards."""
    key = fields << 6 | tile  # one int key (fields < 2**56, tile < 64): a dict of ints, see group_points
    points = _POINTS_WITH.get(key)
    if points is None:
        if len(_POINTS_WITH) >= 2 * _MEMO_SIZE:
            _POINTS_WITH.clear()
        points = _POINTS_WITH[key] = _points_with(fields, tile)
    return points


def _points_with(fields: int, tile: int) -> int:
    bit = BIT[tile]
    if fields & bit:
        return group_points(fields)
    near = NEIGHBOUR_MASK[tile]
    merged = bit
    sizes = []
    for g in _groups(fields):
        if g & near:
            merged |= g
        else:
            sizes.append(g.bit_count())
    sizes.append(merged.bit_count())
    sizes.sort(reverse=True)
    return sizes[0] + 2 * sizes[1] if len(sizes) > 1 else sizes[0]


def _base_value_plain(f: int, tile: int) -> float:
    """The worker-free part of ``_tile_value``: ``points_with(f, tile) - group_points(f) + 0.3 * touch +
    0.5`` with the same float operations in the same order (the gain is an int), so
    ``_base_value_plain(f, t) - lost`` is bit for bit ``_tile_value`` (and ``x - 0 == x`` where no worker is
    lost). Speed: both group counts from the memoised groups of ``f`` in one pass (the groups are largest
    first, so the two largest groups the tile does not touch are the first two met); compared with
    ``_tile_value`` in tests/speed/test_bot_fast_paths_kh_sv.py."""
    gs = _groups(f)
    n = len(gs)
    bit = BIT[tile]
    near = NEIGHBOUR_MASK[tile]
    if not f & bit:
        if len(_GROWN) >= 1 << 12:
            _GROWN.clear()
        _GROWN[f | bit] = tile
    if f & bit:
        gain = 0
    elif not near & f:  # a new group of one: the two largest stay (or it becomes the second / the only one)
        gain = 0 if n > 1 else (2 if n else 1)
    else:
        points = gs[0].bit_count() + 2 * gs[1].bit_count() if n > 1 else gs[0].bit_count()
        merged, a, b = 1, 0, 0  # the new group; the two largest groups it does not touch
        for g in gs:
            if g & near:
                merged += g.bit_count()
            elif not a:
                a = g.bit_count()
            elif not b:
                b = g.bit_count()
        if merged >= a:
            gain = merged + 2 * a - points
        elif merged >= b:
            gain = a + 2 * merged - points
        else:
            gain = a + 2 * b - points
    return gain + 0.3 * (near & f).bit_count() + 0.5


def _rivals_low(game: Any, p: int) -> list[int]:
    """Per crop, the largest lower bound ``p`` knows of a rival's supply: the max over the rivals of
    ``low[q][c]`` of :func:`~.observer.known_supplies` (exact with 2 players, KH-SETUP-18; else net minus
    lowest net, KH-INFO-7), read straight from the public record."""
    n = game.num_players
    out: list[int] | None = None
    for q in range(n):
        if q != p:
            row = deduced_supply(game, q)
            out = row if out is None else list(map(max, out, row))
    return out if out is not None else [0] * NUM_CROPS


_HANDLERS: dict[type, dict[str, Any]] = {}  # bot class -> {phase: its method (unbound)}, see act
_UNKNOWN = object()

_BOARD_VALUES: dict[int, dict[int, float]] = {}  # fields -> {tile: _base_value_plain(fields, tile)}


def _board_values(f: int) -> dict[int, float]:
    """The per-board table of tile values (filled as tiles are asked for, bounded).

    Speed: a board changes a few times a game, but its registry and store tiles were valued again at every
    TURN, REGISTRY, STORE, EXTRA and SURVEY decision (the registry six tiles at a time, and the registry
    itself changes every few turns, so a table of whole registries rarely hit); a dict lookup per tile
    replaces the valuation. tests/speed/test_bot_fast_paths_kh_sv.py compares it with ``_tile_value``."""
    table = _BOARD_VALUES.get(f)
    if table is None:
        if len(_BOARD_VALUES) >= 1 << 14:
            _BOARD_VALUES.clear()
        table = _BOARD_VALUES[f] = {}
    return table


def _best_overlap(f: int, u: int) -> int:
    """Most unharvested tiles in one group of ``f`` (the TURN decision's harvest test)."""
    best = 0
    for g in _groups(f):
        k = (u & g).bit_count()
        if k > best:
            best = k
    return best


def _harvest_choice(f: int, u: int, cand: tuple[int, ...]) -> int:
    """The HARVEST decision's space, plainly: the first candidate whose group holds most unharvested tiles."""
    return max(cand, key=lambda a: (_group_of(a - SPACE0, f) & u).bit_count())


def _rivals_held(game: Any, p: int) -> list[int]:
    """Per crop, what ``p`` knows its rivals hold together: the sum over the rivals of
    ``(exact or low)[q][c]`` of :func:`~.observer.known_supplies` (exact with 2 players, KH-SETUP-18; else
    net minus lowest net, KH-INFO-7), read straight from the public record without building every seat's
    rows (the BID decision asks for it); tests/speed/test_bot_fast_paths_kh_sv.py compares the two."""
    n = game.num_players
    if n == 2:
        return deduced_supply(game, 1 - p)
    held = [0] * NUM_CROPS
    for q in range(n):
        if q != p:
            held = list(map(add, held, deduced_supply(game, q)))
    return held


def _value_for(game: Any, q: int, tile: int) -> float:
    """``tile_value(game, q, tile)`` from the per-board table (the same float operations)."""
    f = game.fields[q]
    table = _board_values(f)
    v = table.get(tile)
    if v is None:
        v = table[tile] = _base_value_plain(f, tile)
    w = game.worker_at[q][tile]
    return v - NUMBER[worker_kind(w)] if w >= 0 else v


def tile_value(game: Any, p: int, tile: int) -> float:
    """What a field tile on its coordinate is worth to seat ``p`` (see the module docstring)."""
    f = game.fields[p]
    return _tile_value(f, group_points(f), game.worker_at[p], tile)


def _tile_value(f: int, points: int, workers: Any, tile: int) -> float:
    """``tile_value`` on fields ``f`` whose ``group_points`` are ``points`` (known once for many tiles)."""
    gain = points_with(f, tile) - points
    touch = (NEIGHBOUR_MASK[tile] & f).bit_count()
    w = workers[tile]
    lost = NUMBER[worker_kind(w)] if w >= 0 else 0
    return gain + 0.3 * touch + 0.5 - lost


class HeuristicBot(Bot):
    """Rules-aware one-step heuristic (module docstring); deterministic apart from ties (seeded)."""

    name = "heuristic"

    def act(self, game: Any) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return legal[0]
        f = game.frame
        table = _HANDLERS.get(type(self))
        if table is None:
            table = _HANDLERS[type(self)] = {}
        handler = table.get(f[0], _UNKNOWN)
        if handler is _UNKNOWN:  # the phase's method, looked up once per class (a subclass may override it)
            handler = table[f[0]] = getattr(type(self), "_" + f[0], None)
        choice = handler(self, game, f[1], legal, f) if handler else None
        if choice is None or choice not in legal:
            choice = DONE if DONE in legal else legal[0]
        return int(choice)

    # ---- values

    def _store_value(self, game: Any, p: int, action: int) -> float:
        o, k = divmod(action - STORE0, STORE_SPACES)
        owner = game.store_owner(p, o)
        tile = game.store[owner][k]
        price = 0.0 if owner == p else 1.5 * sum(game.bids[owner][k])
        return tile_value(game, p, tile) - price

    def _best_store(self, game: Any, p: int, stop_above: float = math.inf) -> tuple[float, int | None]:
        """The best store tile and its value: ``_store_value`` over ``store_choices``, in their order; with
        ``stop_above``, the first one found above that level instead (``_store_above``).

        Speed: the board's part of each value from the per-board table (``_board_values``), with the same
        float operations (a zero worker loss or price is not subtracted: ``x - 0 == x``), and a tile is only
        checked against the rule of ``game.store_choices`` (KH-ACT-PLACE-1/3/9, KH-EVENT-6: not new to a store
        this turn, a rival's bid payable exactly) when it would beat the best so far;
        tests/speed/test_bot_fast_paths_kh_sv.py compares it with the plain maximum."""
        best, arg = -1e9, None
        f, workers, n = game.fields[p], game.worker_at[p], game.num_players
        store, bids, new, supply = game.store, game.bids, game.new_in_store, game.supply[p]
        table = _board_values(f)
        for o in range(n):
            owner = (p + o) % n
            for k in range(STORE_SPACES):
                tile = store[owner][k]
                if tile < 0:
                    continue
                v = table.get(tile)
                if v is None:
                    v = table[tile] = _base_value_plain(f, tile)
                w = workers[tile]
                if w >= 0:
                    v -= NUMBER[worker_kind(w)]
                if owner != p:
                    v -= 1.5 * sum(bids[owner][k])
                if v > best and tile not in new and (o == 0 or can_pay(supply, bids[owner][k])):
                    best, arg = v, STORE0 + STORE_SPACES * o + k
                    if v > stop_above:
                        return best, arg
        return best, arg

    def _best_registry(self, game: Any, p: int) -> tuple[float, int | None]:
        """``_best_registry_plain`` with the board's part of each value from the per-board table."""
        best, arg = -1e9, None
        f, workers = game.fields[p], game.worker_at[p]
        table = _board_values(f)
        for i, t in enumerate(game.registry):
            if t >= 0:
                v = table.get(t)
                if v is None:
                    v = table[t] = _base_value_plain(f, t)
                w = workers[t]
                if w >= 0:
                    v -= NUMBER[worker_kind(w)]
                if v > best:
                    best, arg = v, REGISTRY0 + i
        return best, arg

    def _store_above(self, game: Any, p: int, level: float) -> bool:
        """``self._best_store(game, p)[0] > level``, stopping at the first store tile above ``level``: a
        legal tile above ``level`` either beats the best so far (and ends the scan) or the best so far was
        above ``level`` already (and ended it), so the answer is the full scan's; compared with it in
        tests/speed/test_bot_fast_paths_kh_sv.py."""
        return self._best_store(game, p, level)[0] > level

    def _registry_at_least(self, game: Any, p: int, level: float) -> bool:
        """``self._best_registry(game, p)[0] >= level``, stopping at the first registry tile that reaches it."""
        f, workers = game.fields[p], game.worker_at[p]
        table = _board_values(f)
        for t in game.registry:
            if t >= 0:
                v = table.get(t)
                if v is None:
                    v = table[t] = _base_value_plain(f, t)
                w = workers[t]
                if w >= 0:
                    v -= NUMBER[worker_kind(w)]
                if v >= level:
                    return True
        return False

    def _best_registry_plain(self, game: Any, p: int) -> tuple[float, int | None]:
        best, arg = -1e9, None
        f = game.fields[p]
        points, workers = group_points(f), game.worker_at[p]
        for i, t in enumerate(game.registry):
            if t >= 0:
                v = _tile_value(f, points, workers, t)
                if v > best:
                    best, arg = v, REGISTRY0 + i
        return best, arg

    def _crop_value(self, game: Any, p: int, c: int) -> float:
        _, low, _ = known_supplies(game, p)
        mine = game.supply[p][c]
        rival = max((low[q][c] for q in range(game.num_players) if q != p), default=0)
        flip = 1.0 if mine <= rival < mine + 1 else 0.0
        lead = 0.4 if mine > rival else 0.0
        return flip + lead + 0.01 * game.stock[c]

    def _pick_crop(self, game: Any, p: int, legal: list[int]) -> int:
        """The crop of the best ``_crop_value``, the first of equals. Speed: the rivals' known lower bounds
        are read once for all crops (``_rivals_low``), not once per crop; the same float operations as
        ``_crop_value``, compared with it in tests/speed/test_bot_fast_paths_kh_sv.py."""
        crops = [a for a in legal if a >= CROP0]
        if not crops:
            return DONE
        rivals = _rivals_low(game, p)
        supply, stock = game.supply[p], game.stock
        best, arg = None, DONE
        for a in crops:
            c = a - CROP0
            mine, rival = supply[c], rivals[c]
            flip = 1.0 if mine <= rival < mine + 1 else 0.0
            lead = 0.4 if mine > rival else 0.0
            v = flip + lead + 0.01 * stock[c]
            if best is None or v > best:
                best, arg = v, a
        return arg

    def _worker_space(self, game: Any, p: int, legal: list[int]) -> int:
        """The space touching most unharvested own tiles (benefits that harvest), then the first: the max of
        ``_worker_space_plain`` as one loop (no key function, no candidate list); compared with it in
        tests/speed/test_bot_fast_paths_kh_sv.py."""
        u = game.unharvested[p]
        best, arg = -1, DONE
        for a in legal:
            if SPACE0 <= a < SPACE0 + NUM_SPACES:
                c = (NEIGHBOUR_MASK[a - SPACE0] & u).bit_count()
                if c > best or c == best and a < arg:
                    best, arg = c, a
        return arg

    def _worker_space_plain(self, game: Any, p: int, legal: list[int]) -> int:
        cand = [a for a in legal if SPACE0 <= a < SPACE0 + 56]
        if not cand:
            return DONE
        u = game.unharvested[p]
        return max(cand, key=lambda a: ((NEIGHBOUR_MASK[a - SPACE0] & u).bit_count(), -a))

    # ---- phases

    def _turn(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        """Store, harvest, registry, worker, harvest, done: the first that is worth it (module docstring).
        The store and registry tests stop at the first tile that passes (``_store_above``,
        ``_registry_at_least``: the same answers as comparing the best value)."""
        if TAKE_STORE in legal and self._store_above(game, p, 0.25):
            return TAKE_STORE
        supply = sum(game.supply[p])
        if HARVEST in legal:
            if supply < 2 or _best_overlap(game.fields[p], game.unharvested[p]) >= 2:
                return HARVEST
        if TAKE_REGISTRY in legal:
            if self._registry_at_least(game, p, 1.0):
                return TAKE_REGISTRY
            stalling = game.rounds >= STALL_ROUNDS  # keep the bag moving toward the end (KH-END-1, KH-END-6)
            if (supply >= 4 or stalling) and self._registry_at_least(game, p, _ABOVE_ZERO):  # surplus counters
                return TAKE_REGISTRY
        if PLAY_WORKER in legal and self._best_worker(game, p) is not None:
            return PLAY_WORKER
        if HARVEST in legal:
            return HARVEST
        return DONE

    def _best_worker(self, game: Any, p: int) -> int | None:
        """``_best_worker_plain``: the highest-numbered (> 1) available worker with a space, the first of its
        number (KH-ACT-WORKER-2..5).

        Speed: the numbers are tried from the highest down, so ``worker_spaces`` is asked until the first that
        fits instead of once per number met, and the available workers are read off ``worker_space`` and
        ``town`` without building the list; tests/speed/test_bot_fast_paths_kh_sv.py compares the two."""
        ws, town, b = game.worker_space, game.town, FARMHANDS * p
        first: dict[int, int] = {}  # number -> its first available tile, in available_workers' order
        for k in range(FARMHANDS):
            if ws[b + k] < 0:
                first.setdefault(NUMBER[k], b + k)
        for t in range(6):
            if town[t] < 0:
                first.setdefault(NUMBER[FARMHANDS + t], TOWNSFOLK_BASE + t)
        for num in sorted(first, reverse=True):
            if num <= 1:
                break
            if game.worker_spaces(p, num):
                return first[num]
        return None

    def _best_worker_plain(self, game: Any, p: int) -> int | None:
        best, arg = 1, None
        fits: dict[int, bool] = {}  # worker_spaces(p, num) is a query of the state: asked once per number
        for tile in game.available_workers(p):
            num = NUMBER[worker_kind(tile)]
            if num > best:
                fit = fits.get(num)
                if fit is None:
                    fit = fits[num] = bool(game.worker_spaces(p, num))
                if fit:
                    best, arg = num, tile
        return arg

    def _harvest(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        cand = [a for a in legal if a != DONE]
        if not cand:
            return DONE
        if f[3]:  # the group is fixed: harvest it all
            return cand[0]
        fields, u = game.fields[p], game.unharvested[p]
        if u & ~fields:  # pragma: no cover - unharvested tiles are field tiles; the plain path otherwise
            return _harvest_choice(fields, u, tuple(cand))
        # the candidates whose group holds most unharvested tiles, the first of them (as _harvest_choice)
        best, in_best = -1, 0
        for g in _groups(fields):
            k = (g & u).bit_count()
            if k > best:
                best, in_best = k, g
            elif k == best:
                in_best |= g
        for a in cand:
            if BIT[a - SPACE0] & in_best:
                return a
        return _harvest_choice(fields, u, tuple(cand))  # pragma: no cover - every candidate is a field tile

    def _pick(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        cand = [a for a in legal if a != DONE]
        return cand[0] if cand else DONE

    def _subst(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return self._pick_crop(game, p, legal)

    _crop = _subst
    _take = _subst

    def _hiring(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return PLAY_WORKER if PLAY_WORKER in legal and self._best_worker(game, p) is not None else DONE

    def _worker(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        def number(a: int) -> int:
            return NUMBER[a - FARMHAND0] if a < TOWNSFOLK0 else NUMBER[6 + a - TOWNSFOLK0]

        return max(legal, key=lambda a: (number(a), -a))

    def _space(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return self._worker_space(game, p, legal)

    _replace = _space

    def _store(self, game: Any, p: int, legal: list[int], f: tuple) -> int | None:
        value, arg = self._best_store(game, p)
        if arg is not None and (value > 0.25 or DONE not in legal):
            return arg
        return DONE

    def _deed(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return TAKE_STORE if TAKE_STORE in legal and self._store_above(game, p, 0.25) else DONE

    def _registry(self, game: Any, p: int, legal: list[int], f: tuple) -> int | None:
        if f[2] and sum(game.supply[p]) < 2:  # a second tile: declined whatever it is worth
            return DONE
        value, arg = self._best_registry(game, p)
        if f[2] and value < 1.5:
            return DONE
        return arg

    def _bid(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        crops = [a - CROP0 for a in legal if a >= CROP0]
        bid = game.bids[p][f[2]]
        size = sum(bid)
        supply = game.supply[p]
        if size and (size >= 3 or not self._someone_can_pay(game, p, bid) or not crops):
            return DONE
        if size and sum(supply) <= 1:
            return DONE
        if len(crops) == 1:  # the only crop to bid: nothing to compare
            return CROP0 + crops[0]
        held = _rivals_held(game, p)
        # min(crops, key=lambda c: (held[c], -supply[c], c)) as one loop without key tuples
        best = crops[0]
        bh, bs = held[best], supply[best]
        for c in crops[1:]:
            h, s = held[c], supply[c]
            if h < bh or h == bh and (s > bs or s == bs and c < best):
                best, bh, bs = c, h, s
        return CROP0 + best

    def _someone_can_pay(self, game: Any, p: int, bid: list[int], known: tuple | None = None) -> bool:
        """Some rival may pay ``bid`` exactly: its supply total (public) is large enough and, where its supply
        is known exactly, it holds every bid crop. Without ``known`` it reads what ``known_supplies`` would
        give straight from the public record (totals always; exact rows with 2 players, KH-SETUP-18)
        instead of building every seat's rows; tests/speed/test_bot_fast_paths_kh_sv.py compares both."""
        size = sum(bid)
        if known is not None:
            exact, _, total = known
            for q in range(game.num_players):
                if q == p or total[q] < size:
                    continue
                if exact[q] is not None and any(exact[q][c] < bid[c] for c in range(NUM_CROPS)):
                    continue
                return True
            return False
        n = game.num_players
        for q in range(n):
            if q == p:
                continue
            start, net = game.start[q], game.net[q]
            if sum(start) + sum(net) < size:
                continue
            if n == 2 and any(start[c] + net[c] < bid[c] for c in range(NUM_CROPS)):
                continue
            return True
        return False

    def _extra(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        if TAKE_STORE in legal and self._store_above(game, p, 0.25):
            return TAKE_STORE
        if HARVEST in legal:
            return HARVEST
        if TAKE_REGISTRY in legal and self._registry_at_least(game, p, 1.0):
            return TAKE_REGISTRY
        return DONE

    def _give(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return DONE

    def _tithe(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return max(legal, key=lambda a: (game.supply[p][a - CROP0], -a))

    def _enclose(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        def rival_value(a: int) -> float:
            t = game.registry[a - REGISTRY0]
            return max(_value_for(game, q, t) for q in range(game.num_players) if q != p) - _value_for(game, p, t)

        return max(legal, key=rival_value)

    def _survey(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        value, arg = self._best_registry(game, p)
        return arg if arg is not None and value > 0 else DONE

    def _remove(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return min(legal, key=lambda a: NUMBER[worker_kind(game.worker_at[p][a - SPACE0])])
