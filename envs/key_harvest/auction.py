"""Counters changing hands: store payments (KH-ACT-PLACE-2..4, 9) and the exchange procedure (KH-RULING-13)."""

from __future__ import annotations

from itertools import compress
from typing import Any

from .board import NUM_CROPS

CH_STOCK, CH_BIDS = 16, 8  # the change-log tags of game.py (kept equal by tests/key_harvest/test_speed_paths.py)
# set of crops given (bit c) -> 1 for each crop not in it: compress(stock, _NOT_GIVEN[g]) are their stocks
_NOT_GIVEN = tuple(tuple(int(not g >> y & 1) for y in range(NUM_CROPS)) for g in range(1 << NUM_CROPS))


def can_pay(supply: list[int], bid: list[int]) -> bool:
    """Exact payment possible: as many counters of exactly the same crops (KH-ACT-PLACE-3/9)."""
    for s, b in zip(supply, bid):  # (Game.has_store_choice / store_choices inline it, unrolled over the crops)
        if s < b:
            return False
    return True


def settle(game: Any, p: int, owner: int, slot: int) -> None:
    """Pay for the store tile at ``owner``'s ``slot`` taken by ``p`` (KH-ACT-PLACE-2/3/4)."""
    bid = game.bids[owner][slot]
    for c in range(NUM_CROPS):
        k = bid[c]
        if not k:
            continue
        if owner == p:  # own store: the bid goes to the general stock
            game.stock[c] += k
            game.changes.append(CH_STOCK)
        else:  # pay the owner the same crops; the owner also takes the bid behind the screen
            game._lose(p, c, k)
            game._gain(owner, c, 2 * k)
        bid[c] = 0
    game.changes.append(CH_BIDS + owner)


def giveable(supply: list[int], stock: list[int], given: int, count: int) -> list[int]:
    """Crops that may be given next in an exchange (KH-RULING-13): afterwards the stock must still hold at
    least ``count + 1`` counters of crops not given in this exchange, so the take phase can complete."""
    # speed: the stock of the crops not given summed by compress over a selector per given-set (_NOT_GIVEN)
    # instead of a generator per crop; tests/key_harvest/test_speed_paths.py compares it with giveable_plain
    out = []
    for c in range(NUM_CROPS):
        if supply[c] and sum(compress(stock, _NOT_GIVEN[given | 1 << c])) >= count + 1:
            out.append(c)
    return out


def giveable_plain(supply: list[int], stock: list[int], given: int, count: int) -> list[int]:
    """:func:`giveable` as the ruling reads."""
    out = []
    for c in range(NUM_CROPS):
        if not supply[c]:
            continue
        g = given | 1 << c
        if sum(stock[y] for y in range(NUM_CROPS) if not g >> y & 1) >= count + 1:
            out.append(c)
    return out
