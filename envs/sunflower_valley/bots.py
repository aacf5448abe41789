"""Bots for Sunflower Valley: the core ``RandomBot`` and a rules-aware greedy ``HeuristicBot``.

The heuristic bot (docs/sunflower_valley/bots.md) scores every candidate move by the change of a projected
final score of its own sheet and takes the best one (ties broken by its seeded generator):

    projected = A + B + D + F                      (exact, scoring.analyse on the sheet after the move)
              + t * (4 * unpaired houses that still touch an empty hex
                     + 2 * unpaired sheep that still touch an empty hex
                     + 3 * (2 if the chain has >= 2 rail hexes else 1) / (1 + d)  per rail chain from a
                           settlement whose free end faces an empty hex, d = empty hexes from that end to the
                           nearest hex next to another settlement (none if unreachable)
                     + 0.3 * rail chains with two free ends facing empty hexes)
              + 1.6 * inhabitants                  (E is a race, and houses also break ties)
              + C change in the move's region      (3 when the sunflower makes it the region's strict leader,
                                                    1 when it ties the leader)

Die choice: from that value it subtracts ``1 / (players - 1)`` times the best value the next player would keep
with the dice and slots left after the move (within a round only; a new round rolls new dice), so heads-up
it takes the die and colour its rival wants most when its own options are close.

``t`` = the share of its 24 turns still to come (hope is worth less late in the game). Sunflowers are
valued locally (adjacent mountains + C change - 0.5 per touched unpaired house, whose empty neighbours
it uses up); rails are only tried where both open sides face a house, an empty hex or a rail facing back
(any other rail can never link two settlements). In the fallback it takes a super-sunflower die when
there is one and draws where a sunflower is worth most. It reads only public information (SV-INFO-1).
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import Any

from farmgames.envs.core.bots import Bot, RandomBot

from .actions import (
    F_SUPER,
    FACE_OF,
    FALLBACK_START,
    HOUSE,
    IS_RAIL,
    RAIL_SIDES,
    SHEEP,
    SLOTS,
    SUNFLOWER,
    SUPER,
    SYMBOLS_OF,
)
from .hexgrid import EDGE, N_HEX, NEIGHBOUR, NEIGHBOUR_MASK, NEIGHBOURS
from .projection import SheetContext
from .scoring import EMPTY, PAIR_POINTS, UNPAIRED_POINTS, analyse

__all__ = ["HeuristicBot", "RandomBot", "projected"]

TOTAL_TURNS = 24
HOPE_HOUSE, HOPE_SHEEP, HOPE_RAIL, HOPE_LOOSE_RAIL = 4.0, 2.0, 3.0, 0.3
INHABITANT_VALUE = 1.6
LEAD_VALUE, TIE_VALUE = 3.0, 1.0


def projected(sheet: list[int], mountains: tuple[int, ...], children: bool, t: float) -> float:
    """The heuristic's projected own-sheet score (module docstring): exact A+B+D+F plus hopes."""
    info = analyse(sheet, mountains, children)
    empty = sum(1 << h for h in range(N_HEX) if sheet[h] == EMPTY)
    value = PAIR_POINTS * len(info.pairs) + UNPAIRED_POINTS * (info.houses - len(info.pairs))
    value += info.mountain_points + info.express
    if t <= 0:
        return value
    paired_sheep = {s for s, _ in info.pairs}
    paired_houses = {h for _, h in info.pairs}
    hope = 0.0
    for h in range(N_HEX):
        v = sheet[h]
        if v == HOUSE and h not in paired_houses and NEIGHBOUR_MASK[h] & empty:
            hope += HOPE_HOUSE
        elif v == SHEEP and h not in paired_sheep and NEIGHBOUR_MASK[h] & empty:
            hope += HOPE_SHEEP
    settle_of = {}
    for i, m in enumerate(info.settlements):
        for h in range(N_HEX):
            if m >> h & 1:
                settle_of[h] = i
    for hexes, a, b in info.chains:
        if a is not None and b is not None:
            continue
        ends = [e for x in {hexes[0], hexes[-1]} for e in _open_ends(sheet, x) if sheet[e] == EMPTY]
        if not ends:
            continue
        if a is None and b is None:
            hope += HOPE_LOOSE_RAIL
            continue
        home = settle_of[a if a is not None else b]
        targets = 0
        for i, m in enumerate(info.settlements):
            if i != home:
                for h in range(N_HEX):
                    if m >> h & 1:
                        targets |= NEIGHBOUR_MASK[h]
        d = _distance(ends, targets & empty, empty)
        if d is not None:
            hope += HOPE_RAIL * (2.0 if len(hexes) >= 2 else 1.0) / (1 + d)
    return value + t * hope


_CONTEXTS: dict[tuple, SheetContext] = {}  # (sheet, mountains, children) -> its context
_GROWN: dict[tuple, tuple[SheetContext, int, int]] = {}  # a sheet one move on -> (context before, symbol, hex)
_CONTEXTS_MAX = 1 << 9  # a context is read at two decisions (the denial pass, then its own seat)


def _context(sheet: tuple[int, ...], mountains: tuple[int, ...], children: bool) -> SheetContext:
    """The sheet analysed once (``projection.SheetContext``), memoised on its contents (bounded dict shared by
    every bot), with a memo of the candidate values asked of it.

    Speed: a decision values every candidate of its own sheet, one symbol away from it, and for the denial
    term every candidate of the next seat, which that seat then values again at its own decision on the same
    sheet and turn count; ``scoring.analyse`` per candidate was ~90% of the bot's time. The context merges
    the one settlement, flock or chain a symbol changes instead; tests/speed/test_bot_fast_paths_kh_sv.py
    compares its values with ``projected`` on random and played sheets. A sheet the bot itself moved on
    (``_GROWN``, noted in ``act``) gets its context grown from the one before the move."""
    key = (sheet, mountains, children)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        if len(_CONTEXTS) >= _CONTEXTS_MAX:
            _CONTEXTS.clear()
            _GROWN.clear()
        before = _GROWN.pop(key, None)
        ctx = _CONTEXTS[key] = before[0].grown(before[1], before[2]) if before else SheetContext(*key)
    return ctx


def _note_move(sheet: list[int], mountains: tuple[int, ...], children: bool, symbol: int, h: int) -> None:
    """Note that ``symbol`` is about to be drawn in hex ``h`` of ``sheet`` (see ``_context``)."""
    before = _CONTEXTS.get((tuple(sheet), mountains, children))
    if before is not None:
        after = list(sheet)
        after[h] = symbol
        if len(_GROWN) >= _CONTEXTS_MAX:
            _GROWN.clear()
        _GROWN[(tuple(after), mountains, children)] = (before, symbol, h)


def _projected(sheet: tuple[int, ...], mountains: tuple[int, ...], children: bool, t: float) -> float:
    """``projected`` through the memoised context (bit for bit the same value)."""
    return _context(sheet, mountains, children).value(t)


def _unpaired_houses(sheet: tuple[int, ...], mountains: tuple[int, ...], children: bool) -> int:
    """Mask of the houses of ``sheet`` without a sheep (``HeuristicBot._unpaired_house_mask``), memoised."""
    return _context(sheet, mountains, children).unpaired_houses()


@lru_cache(maxsize=1 << 12)
def _hexes_of(mask: int) -> tuple[int, ...]:
    """The hexes of a mask, ascending (memoised: regions, and the empty hexes of the free colours)."""
    return tuple(h for h in range(N_HEX) if mask >> h & 1)


@lru_cache(maxsize=256)
def _symbols_in(mask: int) -> Any:
    """A getter of the symbols a sheet has in the hexes of ``mask`` (a region), as one tuple."""
    hexes = _hexes_of(mask)
    if len(hexes) == 1:  # itemgetter of one item gives the item, not a tuple
        return lambda sheet: (sheet[hexes[0]],)
    return itemgetter(*hexes)


@lru_cache(maxsize=16)
def _die_keys(colour: tuple[int, ...]) -> tuple[int, ...]:
    """``8 * face + colour`` of every normal move id on a layout: the die it takes (SV-TURN-1..3)."""
    return tuple(8 * FACE_OF[a // N_HEX] + colour[a % N_HEX] for a in range(FALLBACK_START))


_MINUS_INF = float("-inf")


def _open_ends(sheet: list[int], h: int) -> list[int]:
    """Neighbours that rail hex ``h``'s open sides face (not past the edge)."""
    return [n for side in RAIL_SIDES[sheet[h]] if (n := NEIGHBOUR[h][side]) != EDGE]


def _distance(starts: list[int], targets: int, empty: int) -> int | None:
    """Steps through empty hexes from any of ``starts`` to a hex of ``targets`` (None if unreachable)."""
    frontier = sum(1 << h for h in starts)
    seen = frontier
    d = 0
    while frontier:
        if frontier & targets:
            return d
        grow = 0
        for h in range(N_HEX):
            if frontier >> h & 1:
                grow |= NEIGHBOUR_MASK[h]
        frontier = grow & empty & ~seen
        seen |= frontier
        d += 1
    return None


def _rail_useful(sheet: list[int], h: int, s: int) -> bool:
    """Both open sides face a house, an empty hex or a rail that faces back (else it can never link)."""
    for side in RAIL_SIDES[s]:
        n = NEIGHBOUR[h][side]
        if n == EDGE:
            return False
        v = sheet[n]
        if v == HOUSE or v == EMPTY:
            continue
        if v >= 0 and IS_RAIL[v] and (side + 3) % 6 in RAIL_SIDES[v]:
            continue
        return False
    return True


class HeuristicBot(Bot):
    """Greedy over the projected score of its own sheet (see the module docstring)."""

    name = "heuristic"
    denial = 1.0  # weight (divided by the number of rivals) of the next player's best remaining move; 0: off

    def act(self, game: Any) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return legal[0]
        p = game.current_player
        if legal[0] >= FALLBACK_START:
            return self._fallback(game, p, legal)
        values = self._values(game, p, legal)
        if self.denial and game.turn_in_round < SLOTS - 1:
            values = self._with_denial(game, p, values)
        best, best_value = legal[0], float("-inf")
        for a in legal:
            value = values[a] + self.rng.random() * 1e-3
            if value > best_value:
                best, best_value = a, value
        s, h = divmod(best, N_HEX)
        _note_move(game.sheets[p], game.sheet_map.mountains, game.children, s, h)
        return best

    def _values(self, game: Any, p: int, moves: list[int]) -> dict[int, float]:
        """The projected-score change of every normal move in ``moves`` for seat ``p``'s sheet.

        Speed: the sheet's context (``_context``) values each candidate from the one analysis of the sheet
        and keeps the values (the next seat asks for the same ones, see ``_with_denial``); a sunflower's
        region majority is computed once per colour, the mountains next to it from the layout's mask."""
        sheet = game.sheets[p]
        layout = game.sheet_map
        t = max(TOTAL_TURNS - game.turns[p] - 1, 0) / TOTAL_TURNS
        ctx = _context(tuple(sheet), layout.mountains, game.children)
        final = ctx.memo.get(t)  # move -> value, for every move but sunflowers (they read other sheets)
        if final is None:
            final = ctx.memo[t] = {}
        base = None
        unpaired_near = None
        majority: dict[int, float] = {}
        out = {}
        for a in moves:
            value = final.get(a)
            if value is not None:
                out[a] = value
                continue
            s, h = divmod(a, N_HEX)
            if s == SUNFLOWER or s == SUPER:
                k = layout.colour[h]
                lead = majority.get(k)
                if lead is None:
                    lead = majority[k] = self._majority_value(game, p, h)
                if unpaired_near is None:
                    unpaired_near = ctx.unpaired_houses()
                near = NEIGHBOUR_MASK[h]  # _sunflower_value, with the same float operations
                value = (near & layout.mountain_mask).bit_count() + lead - 0.5 * (near & unpaired_near).bit_count()
                out[a] = value + (INHABITANT_VALUE if s == SUPER else 0)
                continue
            if IS_RAIL[s] and not _rail_useful(sheet, h, s):
                value = -1.0
            else:
                if base is None:
                    base = ctx.base_value(t)
                value = ctx.value_with(s, h, t) - base
                if s == HOUSE:
                    value += 2 * INHABITANT_VALUE
            out[a] = final[a] = value
        return out

    def _with_denial(self, game: Any, p: int, values: dict[int, float]) -> dict[int, float]:
        """Subtract ``denial / rivals`` x the best move the next player keeps after each of my moves (only within
        the round: the last slot of a round starts a new roll)."""
        q = (p + 1) % game.num_players
        free = game.free_hexes & game.empty[q]
        if q == p or not free:
            return values
        theirs = (
            [a for a in game.legal_actions_for_sheet(q) if a < FALLBACK_START]
            if hasattr(game, "legal_actions_for_sheet")
            else self._moves_for(game, q)
        )
        opp = self._values(game, q, theirs)
        best_by: dict[int, float] = {}  # 8 * face + colour -> the next seat's best value with that die
        die = _die_keys(game.sheet_map.colour)
        for a, v in opp.items():
            key = die[a]
            if v > best_by.get(key, _MINUS_INF):
                best_by[key] = v
        kept = [(key >> 3, key & 7, w) for key, w in best_by.items()]
        out = {}
        pool = game.pool
        weight = self.denial / (game.num_players - 1)
        left_by: dict[int, float] = {}  # 8 * face + colour of my move -> the best the next seat keeps
        for a, v in values.items():
            key = die[a]
            left = left_by.get(key)
            if left is None:
                f, k = key >> 3, key & 7
                rest = (w for g, c, w in kept if c != k and (g != f or pool[f] > 1))
                left = left_by[key] = max(rest, default=0.0)
            out[a] = v - weight * left
        return out

    @staticmethod
    def _moves_for(game: Any, q: int) -> list[int]:
        """The normal moves seat ``q`` would have with the current pool and free slots."""
        hexes = _hexes_of(game.empty[q] & game.free_hexes)
        bases = [N_HEX * s for f, count in enumerate(game.pool) if count for s in SYMBOLS_OF[f]]
        return [b + h for b in bases for h in hexes]

    @staticmethod
    def _unpaired_house_mask(sheet: list[int], mountains: tuple[int, ...], children: bool) -> int:
        return _unpaired_houses(tuple(sheet), mountains, children)

    @staticmethod
    def _majority_value(game: Any, p: int, h: int) -> float:
        """C change of one more sunflower of ``p`` in the region of ``h``."""
        k = game.sheet_map.colour[h]
        region = game.sheet_map.region_mask[k]
        symbols = _symbols_in(region)  # the region's 5 hexes read at once, not a scan of the sheet
        mine, rival = 0, -1
        for q, sheet in enumerate(game.sheets):
            seen = symbols(sheet)
            c = seen.count(SUNFLOWER) + seen.count(SUPER)
            if q == p:
                mine = c
            elif c > rival:
                rival = c
        if mine > rival:
            return 0.0
        if mine + 1 > rival:
            return LEAD_VALUE
        return TIE_VALUE if mine + 1 == rival else 0.0

    def _sunflower_value(self, game: Any, p: int, h: int, unpaired: int) -> float:
        mountains = sum(1 for n in NEIGHBOURS[h] if game.sheet_map.colour[n] < 0)
        return mountains + self._majority_value(game, p, h) - 0.5 * (NEIGHBOUR_MASK[h] & unpaired).bit_count()

    def _fallback(self, game: Any, p: int, legal: list[int]) -> int:
        faces = {(a - FALLBACK_START) // (SLOTS * N_HEX) for a in legal}
        face = F_SUPER if F_SUPER in faces else min(faces)
        unpaired = self._unpaired_house_mask(game.sheets[p], game.sheet_map.mountains, game.children)
        best, best_value = None, float("-inf")
        for a in legal:
            f, rest = divmod(a - FALLBACK_START, SLOTS * N_HEX)
            if f != face:
                continue
            value = self._sunflower_value(game, p, rest % N_HEX, unpaired) + self.rng.random() * 1e-3
            if value > best_value:
                best, best_value = a, value
        return best


assert FACE_OF[SUPER] == F_SUPER
