"""Hidden-information perturbations (KH-INFO-7): a copy of a game differing only in what a seat cannot see.

Three things are hidden from ``seat``: the order of the bag, the 2 removed event tiles (3-4 players) and
the other players' secret start draws (3-4 players). A perturbation changes one of them and keeps the whole
public record fixed (boards, stores, bids, registry, events, every public transfer: ``Game.net`` and
``min_net``); a changed start draw changes that player's supply by the same amounts, so supply = start + net
still holds, and the draw stays compatible with every counter that player ever spent.
"""

from __future__ import annotations

import random
from typing import Any

from .board import EVENT_TILES, NUM_CROPS, NUM_SPACES


def _start_swaps(game: Any, seat: int) -> list[tuple[int, int, int, int]]:
    """(a, x, b, y): player a gives up a start counter of crop x for one of crop y, player b the reverse."""
    if game.num_players == 2:  # the 2-player start counters are public (KH-SETUP-18)
        return []
    others = [q for q in range(game.num_players) if q not in (seat, game.current_player)]
    out = []
    for a in others:
        for b in others:
            if a >= b:
                continue
            for x in range(NUM_CROPS):
                if game.start[a][x] - 1 + game.min_net[a][x] < 0:
                    continue
                for y in range(NUM_CROPS):
                    if x != y and game.start[b][y] - 1 + game.min_net[b][y] >= 0:
                        out.append((a, x, b, y))
    return out


def _removed_swaps(game: Any) -> list[tuple[int, int]]:
    """(index in removed, index in bag) of event tiles of different kinds."""
    out = []
    for i, r in enumerate(game.removed):
        for j, t in enumerate(game.bag):
            if t >= NUM_SPACES and EVENT_TILES[t - NUM_SPACES] != EVENT_TILES[r - NUM_SPACES]:
                out.append((i, j))
    return out


def hidden_perturbation(game: Any, seat: int, rng: random.Random) -> Any | None:
    """A clone of ``game`` with one hidden thing changed, or None if nothing hidden from ``seat`` can change."""
    if game.is_terminal():
        return None
    kinds = []
    if len(game.bag) >= 2:
        kinds.append("bag")
    removed = _removed_swaps(game)
    if removed:
        kinds.append("removed")
    swaps = _start_swaps(game, seat)
    if swaps:
        kinds.append("start")
    if not kinds:
        return None
    other = game.clone()
    kind = rng.choice(kinds)
    if kind == "bag":
        before = list(other.bag)
        while other.bag == before:
            rng.shuffle(other.bag)
    elif kind == "removed":
        i, j = rng.choice(removed)
        other.removed[i], other.bag[j] = other.bag[j], other.removed[i]
        other.removed.sort()
    else:
        a, x, b, y = rng.choice(swaps)
        for p, lose, win in ((a, x, y), (b, y, x)):
            other.start[p][lose] -= 1
            other.start[p][win] += 1
            other.supply[p][lose] -= 1
            other.supply[p][win] += 1
    return other
