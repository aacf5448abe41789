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

from functools import lru_cache
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
from .board import BIT, NEIGHBOUR_MASK, NUM_CROPS, NUMBER, STORE_SPACES, group_of, groups, worker_kind
from .observer import known_supplies

__all__ = ["HeuristicBot", "RandomBot", "group_points", "points_with", "tile_value"]

STALL_ROUNDS = 40  # from this round on, any registry tile of positive value is taken


@lru_cache(maxsize=1 << 16)
def group_points(fields: int) -> int:
    """Largest + 2 x second group of a field-tile set (KH-SCORE-1/2).

    Speed: a pure function of one int, memoised (bounded LRU, shared by every bot): ``tile_value`` asks for the
    same board with and without each candidate tile, decision after decision, and the flood fill of
    ``groups`` was ~70% of the bot's time. tests/speed/test_bot_fast_paths.py compares it with the plain
    count."""
    return _group_points(fields)


def _group_points(fields: int) -> int:
    sizes = [g.bit_count() for g in _groups(fields)] + [0, 0]
    return sizes[0] + 2 * sizes[1]


# The board's flood fills, memoised the same way (pure functions of ints; tuples, so no caller can change a
# cached answer). Checked against board.groups / board.group_of in tests/speed/test_bot_fast_paths.py.
@lru_cache(maxsize=1 << 16)
def _groups(fields: int) -> tuple[int, ...]:
    return tuple(groups(fields))


@lru_cache(maxsize=1 << 16)
def _group_of(space: int, fields: int) -> int:
    return group_of(space, fields)


@lru_cache(maxsize=1 << 17)
def points_with(fields: int, tile: int) -> int:
    """``group_points(fields | BIT[tile])`` from the (memoised) groups of ``fields``: the new tile joins every
    group it touches into one (KH-SCORE-1: groups are connected field tiles), the others stay as they are.
    Speed: no flood fill per candidate tile, and memoised (the registry and store tiles are valued again at
    every decision while the board stays the same); tests/speed/test_bot_fast_paths.py compares it with the
    plain count on random boards."""
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
        handler = getattr(self, "_" + f[0], None)
        choice = handler(game, f[1], legal, f) if handler else None
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

    def _best_store(self, game: Any, p: int) -> tuple[float, int | None]:
        best, arg = -1e9, None
        for a in game.store_choices(p):
            v = self._store_value(game, p, a)
            if v > best:
                best, arg = v, a
        return best, arg

    def _best_registry(self, game: Any, p: int) -> tuple[float, int | None]:
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
        crops = [a for a in legal if a >= CROP0]
        return max(crops, key=lambda a: self._crop_value(game, p, a - CROP0)) if crops else DONE

    def _worker_space(self, game: Any, p: int, legal: list[int]) -> int:
        """The space touching most unharvested own tiles (benefits that harvest), then the first."""
        cand = [a for a in legal if SPACE0 <= a < SPACE0 + 56]
        if not cand:
            return DONE
        u = game.unharvested[p]
        return max(cand, key=lambda a: ((NEIGHBOUR_MASK[a - SPACE0] & u).bit_count(), -a))

    # ---- phases

    def _turn(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        if TAKE_STORE in legal and self._best_store(game, p)[0] > 0.25:
            return TAKE_STORE
        supply = sum(game.supply[p])
        if HARVEST in legal:
            best = max((game.unharvested[p] & g).bit_count() for g in _groups(game.fields[p]))
            if best >= 2 or supply < 2:
                return HARVEST
        if TAKE_REGISTRY in legal:
            value = self._best_registry(game, p)[0]
            stalling = game.rounds >= STALL_ROUNDS  # keep the bag moving toward the end (KH-END-1, KH-END-6)
            if value >= 1.0 or value > 0.0 and (supply >= 4 or stalling):  # surplus counters also do
                return TAKE_REGISTRY
        if PLAY_WORKER in legal and self._best_worker(game, p) is not None:
            return PLAY_WORKER
        if HARVEST in legal:
            return HARVEST
        return DONE

    def _best_worker(self, game: Any, p: int) -> int | None:
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
        return max(cand, key=lambda a: (_group_of(a - SPACE0, fields) & u).bit_count())

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
        return TAKE_STORE if TAKE_STORE in legal and self._best_store(game, p)[0] > 0.25 else DONE

    def _registry(self, game: Any, p: int, legal: list[int], f: tuple) -> int | None:
        value, arg = self._best_registry(game, p)
        if f[2] and (value < 1.5 or sum(game.supply[p]) < 2):
            return DONE
        return arg

    def _bid(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        crops = [a - CROP0 for a in legal if a >= CROP0]
        bid = game.bids[p][f[2]]
        size = sum(bid)
        known = known_supplies(game, p)  # once per decision (it was read twice)
        if size and (size >= 3 or not self._someone_can_pay(game, p, bid, known) or not crops):
            return DONE
        if size and sum(game.supply[p]) <= 1:
            return DONE
        exact, low, _ = known

        def held(c: int) -> int:
            return sum((exact[q] or low[q])[c] for q in range(game.num_players) if q != p)

        return CROP0 + min(crops, key=lambda c: (held(c), -game.supply[p][c], c))

    def _someone_can_pay(self, game: Any, p: int, bid: list[int], known: tuple | None = None) -> bool:
        exact, low, total = known_supplies(game, p) if known is None else known
        size = sum(bid)
        for q in range(game.num_players):
            if q == p or total[q] < size:
                continue
            if exact[q] is not None and any(exact[q][c] < bid[c] for c in range(NUM_CROPS)):
                continue
            return True
        return False

    def _extra(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        if TAKE_STORE in legal and self._best_store(game, p)[0] > 0.25:
            return TAKE_STORE
        if HARVEST in legal:
            return HARVEST
        if TAKE_REGISTRY in legal and self._best_registry(game, p)[0] >= 1.0:
            return TAKE_REGISTRY
        return DONE

    def _give(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return DONE

    def _tithe(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return max(legal, key=lambda a: (game.supply[p][a - CROP0], -a))

    def _enclose(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        def rival_value(a: int) -> float:
            t = game.registry[a - REGISTRY0]
            return max(tile_value(game, q, t) for q in range(game.num_players) if q != p) - tile_value(game, p, t)

        return max(legal, key=rival_value)

    def _survey(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        value, arg = self._best_registry(game, p)
        return arg if arg is not None and value > 0 else DONE

    def _remove(self, game: Any, p: int, legal: list[int], f: tuple) -> int:
        return min(legal, key=lambda a: NUMBER[worker_kind(game.worker_at[p][a - SPACE0])])
