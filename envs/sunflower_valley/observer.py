"""One seat's observation of Sunflower Valley as named float32 arrays, declared once in :data:`LAYOUT_ROWS`.

Everything is public (SV-INFO-1, SV-RULING-16), so every viewer sees the same facts; only the player axes
are rotated so that index 0 is the viewer, index 1 the next seat clockwise, and so on. Hex axes use the
engine's index ``h = 6·r + c`` (SV-RULING-1). Values are raw counts and flags with finite upper bounds.

Speed: one flat source vector in seat order is kept per game and a fill copies it into the buffer through a
few precomputed memoryview runs in the viewer's order. One turn later (the usual case) only what that turn
changed is written: the drawn hex's non-zero planes, three counts, the mover's inhabitants and turns, the
flags, the slot and the pool (``_advance``). A new game's sheets are copied from per-(layout, pad) blocks;
other states are diffed hex by hex against the last fill (``_resync``) or rebuilt with numpy. The numpy
rebuild (``fill(..., force_full=True)``) is the plain path the tests compare every fast one with.
``python -m farmgames.envs.sunflower_valley.observer`` prints the layout table for the docs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from farmgames.envs.core.observation import (
    ObservationBuffer,
    ObservationLayout,
    feature_table_markdown,
    merge_runs,
    rotated_runs,
)

from .actions import DICE, FACES, HOUSE, RAIL_SIDES, SHEEP, SLOTS, STRAIGHT, SUNFLOWER, SUPER
from .game import MAX_PLAYERS, MOVES, Game
from .hexgrid import N_HEX
from .scoring import EMPTY, MOUNTAIN_CELL
from .sheets import COLOURS, LAYOUTS, LETTERS, PADS, REGION_SIZE

MAX_TURNS = N_HEX - 5 - 1  # 24 empty hexes after the start house (SV-RULING-9)
MAX_ROUNDS = 24  # 5 players x 24 turns / 5 turns per round
MAX_INHABITANTS = 2 + 2 * MAX_TURNS  # every turn a house (SV-INH-1)

SHEET_PLANES: tuple[tuple[str, str, float], ...] = (
    ("empty", "nothing drawn yet, not a mountain (SV-GEN-3)", 1.0),
    ("house", "a house (SV-SYM-2)", 1.0),
    ("sheep", "a sheep", 1.0),
    ("sunflower", "a sunflower or super sunflower (they score alike, SV-SYM-4)", 1.0),
    ("super_sunflower", "a super sunflower (SV-SYM-3)", 1.0),
    ("straight_rail", "a straight rail (SV-SYM-6)", 1.0),
    ("curved_rail", "a curved rail (SV-SYM-5)", 1.0),
    *(
        (f"rail_side_{s}", f"a rail open on side {s} ({n}) (SV-RULING-5)", 1.0)
        for s, n in enumerate(("E", "NE", "NW", "W", "SW", "SE"))
    ),
)
VALLEY_PLANES: tuple[tuple[str, str, float], ...] = (
    *((c, f"the hex is {c} (SV-RULING-2/8)", 1.0) for c in COLOURS),
    ("mountain", "the hex is a mountain (SV-SHEET-3)", 1.0),
)
PLAYER_FEATURES: tuple[tuple[str, str, float], ...] = (
    ("inhabitants", "inhabitants (SV-INH-1)", float(MAX_INHABITANTS)),
    ("turns", "turns taken", float(MAX_TURNS)),
    ("houses", "houses drawn (incl. the start house)", float(MAX_TURNS + 1)),
    ("sheep", "sheep drawn", float(MAX_TURNS)),
    ("sunflowers", "sunflowers incl. super sunflowers", float(MAX_TURNS)),
    ("rails", "rail hexes", float(MAX_TURNS)),
    ("first_player", "holds the first-player token", 1.0),
    ("to_move", "is the player to move", 1.0),
    *((f"pad_{x}", f"start pad {x} (SV-SETUP-3)", 1.0) for x in LETTERS),
    *((f"empty_{c}", f"empty {c} hexes", float(REGION_SIZE)) for c in COLOURS),
    *((f"sunflowers_{c}", f"sunflowers in the {c} region (scoring C)", float(REGION_SIZE)) for c in COLOURS),
)
GAME_FEATURES: tuple[tuple[str, str, float], ...] = (
    *((f"pool_{f.replace(' ', '_')}", f"dice showing {f} in the pool (SV-ROUND-2)", float(DICE)) for f in FACES),
    ("round", "current round, 1-based (SV-ROUND-1)", float(MAX_ROUNDS)),
    ("turn_in_round", "turns taken this round = occupied slots (SV-ROUND-4)", float(SLOTS)),
    ("fallback", "the player to move must use the fallback (SV-TURN-6)", 1.0),
    ("children", "the children's variant is on (SV-VAR-1)", 1.0),
    ("over", "the game is over (SV-END-1)", 1.0),
)
SLOT_STATES: tuple[tuple[str, str, float], ...] = (
    ("free", "no die on the slot yet (SV-TURN-2)", 1.0),
    *((f"die_{f.replace(' ', '_')}", f"a die showing {f} is on the slot", 1.0) for f in FACES),
)
_P = len(PLAYER_FEATURES)
_PF = {name: i for i, (name, _, _) in enumerate(PLAYER_FEATURES)}
_GF = {name: i for i, (name, _, _) in enumerate(GAME_FEATURES)}
_PAD, _EMPTY, _SUN = _PF["pad_A"], _PF["empty_blue"], _PF["sunflowers_blue"]
_ROUND = _GF["round"]
_SLOT_W = len(SLOT_STATES)


def _col(table) -> np.ndarray:
    return np.array([h for _, _, h in table], np.float32)


def layout_rows(num_players: int) -> list[tuple[str, tuple[str, ...], tuple[int, ...], str, Any]]:
    """The declared entries (name, dims, shape, meaning, high) for ``num_players`` seats. Few entries on
    purpose: every entry is a view the env hands out and two copies per player axis in a fill."""
    n = num_players
    return [
        (
            "sheets",
            ("players", "planes", "hexes"),
            (n, len(SHEET_PLANES), N_HEX),
            "every sheet (viewer first) as hex planes: SHEET_PLANES",
            _col(SHEET_PLANES)[None, :, None],
        ),
        (
            "players",
            ("players", "features"),
            (n, _P),
            "per player (viewer first): PLAYER_FEATURES",
            _col(PLAYER_FEATURES),
        ),
        (
            "valley",
            ("planes", "hexes"),
            (len(VALLEY_PLANES), N_HEX),
            "the common sheet map (SV-SETUP-1): colour of each hex or mountain, VALLEY_PLANES",
            1.0,
        ),
        (
            "slots",
            ("colours", "states"),
            (SLOTS, _SLOT_W),
            "the board's colour slots blue, orange, purple, green, red: SLOT_STATES (one-hot)",
            1.0,
        ),
        (
            "game",
            ("features",),
            (len(GAME_FEATURES),),
            "the dice pool and the round: GAME_FEATURES",
            _col(GAME_FEATURES),
        ),
    ]


# plane values per symbol code (0..12), and the colour planes per letter
_SYMBOL_PLANES = np.zeros((13, len(SHEET_PLANES)), np.float32)
for _s in range(13):
    row = _SYMBOL_PLANES[_s]
    if _s == HOUSE:
        row[1] = 1
    elif _s == SHEEP:
        row[2] = 1
    elif _s in (SUNFLOWER, SUPER):
        row[3] = 1
        row[4] = _s == SUPER
    else:
        row[5 if _s in STRAIGHT else 6] = 1
        for _side in RAIL_SIDES[_s]:
            row[7 + _side] = 1
_EMPTY_PLANES = np.zeros(len(SHEET_PLANES), np.float32)
_EMPTY_PLANES[0] = 1
_NO_PLANES = np.zeros(len(SHEET_PLANES), np.float32)
_VALLEY = {}
for _letter, _lay in LAYOUTS.items():
    v = np.zeros((len(VALLEY_PLANES), N_HEX), np.float32)
    for _h, _c in enumerate(_lay.colour):
        v[_c if _c >= 0 else len(COLOURS), _h] = 1
    _VALLEY[_letter] = v
del _s, _side, _letter, _lay, _h, _c, row, v
_PLANE_VALUES = tuple(tuple(float(x) for x in row) for row in _SYMBOL_PLANES)
_EMPTY_VALUES = tuple(float(x) for x in _EMPTY_PLANES)
_NO_VALUES = (0.0,) * len(SHEET_PLANES)
# planes per sheet code + 2 (-2 mountain, -1 empty, 0..12 symbols) and the colour one-hot per letter
_FULL_PLANES = np.vstack([_NO_PLANES, _EMPTY_PLANES, _SYMBOL_PLANES]).astype(np.float32)
_COLOUR_ONEHOT = {
    letter: np.array([[float(c == k) for k in range(len(COLOURS))] for c in lay.colour], np.float32)
    for letter, lay in LAYOUTS.items()
}
# the planes a drawn symbol sets, as offsets from its hex's place in the "empty" plane (one turn's write)
_SET_PLANES = tuple(tuple(j * N_HEX for j in range(len(SHEET_PLANES)) if row[j]) for row in _PLANE_VALUES)
_PLANE_SIZE = len(SHEET_PLANES) * N_HEX
_IS_SUNFLOWER = tuple(s in (SUNFLOWER, SUPER) for s in range(13))
# PLAYER_FEATURES column counted per drawn symbol code
_COUNT_COLUMN = tuple(
    _PF["houses"]
    if s == HOUSE
    else _PF["sheep"]
    if s == SHEEP
    else _PF["sunflowers"]
    if s in (SUNFLOWER, SUPER)
    else _PF["rails"]
    for s in range(13)
)


def _numpy_source(codes: np.ndarray, letter: str, pads: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The sheet planes (players, planes, hexes) and the players' per-sheet columns (dynamic columns 0) of
    sheets ``codes`` (players x hexes), from scratch with numpy: the plain path."""
    planes = _FULL_PLANES[codes + 2].transpose(0, 2, 1)
    onehot = _COLOUR_ONEHOT[letter]
    sun = (codes == SUNFLOWER) | (codes == SUPER)
    players = np.zeros((len(codes), _P), np.float32)
    players[:, _EMPTY : _EMPTY + len(COLOURS)] = (codes == EMPTY) @ onehot
    players[:, _SUN : _SUN + len(COLOURS)] = sun @ onehot
    players[:, _PF["houses"]] = (codes == HOUSE).sum(1)
    players[:, _PF["sheep"]] = (codes == SHEEP).sum(1)
    players[:, _PF["sunflowers"]] = sun.sum(1)
    players[:, _PF["rails"]] = (codes >= STRAIGHT[0]).sum(1)
    for p, pad in enumerate(pads):
        players[p, _PAD + LETTERS.index(pad)] = 1
    return planes, players


# a new game's sheets (mountains, the start house, SV-SETUP-3) per (layout letter, pad letter): the sheet
# and memoryviews of its planes and per-sheet columns from _numpy_source, filled on first use (36 at most)
_FRESH: dict[tuple[str, str], tuple[list[int], memoryview, memoryview]] = {}


def _fresh_block(letter: str, pad: str) -> tuple[list[int], memoryview, memoryview]:
    block = _FRESH.get((letter, pad))
    if block is None:
        sheet = [MOUNTAIN_CELL if c < 0 else EMPTY for c in LAYOUTS[letter].colour]
        sheet[PADS[pad].hex] = HOUSE
        planes, players = _numpy_source(np.array([sheet], np.intp), letter, [pad])
        block = _FRESH[(letter, pad)] = (
            sheet,
            memoryview(np.ascontiguousarray(planes, np.float32).reshape(-1)),
            memoryview(np.ascontiguousarray(players, np.float32).reshape(-1)),
        )
    return block


_VALLEY_RUNS = {letter: memoryview(v.reshape(-1)) for letter, v in _VALLEY.items()}


class Observer:
    """Fills a seat's view of a game into buffers of :attr:`layout` (see the module docstring).

    The observer keeps one flat source vector laid out exactly like a buffer but in seat order (the view
    of seat 0); a fill brings it up to date and copies it into the buffer through memoryview runs that put
    the viewer first on every player axis (``core.observation.rotated_runs``). After editing a game by
    hand (not through ``apply``), call :meth:`reset`."""

    def __init__(self, game: Game | None = None, num_players: int | None = None):
        n = num_players if num_players is not None else game.num_players if game is not None else MAX_PLAYERS
        self.num_players = n
        self.layout = ObservationLayout.build(layout_rows(n))
        self._src = np.zeros(self.layout.size, np.float32)
        self._src_mv = memoryview(self._src)
        self._v = self.layout.views(self._src)
        self._runs = [self._make_runs(n, seat) for seat in range(n)]
        # speed: the runs as (buffer slice, source memoryview) pairs, sliced once here instead of per fill
        self._copies = [[(slice(a, b), self._src_mv[c:d]) for a, b, c, d in runs] for runs in self._runs]
        at = {e.name: e.start for e in self.layout.entries}
        self._sheets_at, self._players_at, self._valley_at, self._slots_at, self._game_at = (
            at["sheets"],
            at["players"],
            at["valley"],
            at["slots"],
            at["game"],
        )
        self._slot_zeros = memoryview(np.zeros(SLOTS * _SLOT_W, np.float32))
        self._game: Any = None
        self._seen: list[list[int]] = []
        self._colour: tuple[int, ...] = ()  # the game's hex colours (SV-RULING-2)
        self._history = -1
        self._first: int = 0
        self._current: int | None = None
        self._round = 0

    def _make_runs(self, n: int, seat: int) -> list[tuple[int, int, int, int]]:
        runs = []
        for e in self.layout.entries:
            if e.dims and e.dims[0] == "players":
                runs += rotated_runs(n, e.size // n, e.start, e.start, seat)
            else:
                runs.append((e.start, e.start, e.size))
        return merge_runs(runs)

    def reset(self, game: Game) -> None:
        """Forget the cached state (also call it after editing a game by hand)."""
        self._game = None

    def new_buffer(self) -> ObservationBuffer:
        return self.layout.new_buffer()

    def fill(self, game: Game, seat: int, buffer: ObservationBuffer, force_full: bool = False) -> None:
        """``seat``'s view of ``game`` into ``buffer``; ``force_full`` rebuilds the source with numpy (the
        plain path) instead of updating it."""
        if force_full or game is not self._game:
            self._rebuild(game, force_full)
            self._write_state(game)
        else:
            steps = len(game.history) - self._history
            if steps and (steps != 1 or not self._advance(game)):
                self._resync(game)
        mv = buffer.mv
        for where, run in self._copies[seat]:
            mv[where] = run

    def _rebuild(self, game: Game, plain: bool = False) -> None:
        """The seat-ordered sheets, per-sheet columns and map from scratch: copied from the per-(layout,
        pad) blocks when every sheet is as set up, else with numpy (always with ``plain``)."""
        self._game = game
        self._history = len(game.history)
        self._seen = [list(sheet) for sheet in game.sheets]
        self._colour = game.sheet_map.colour
        blocks = None if plain else [_fresh_block(game.letter, pad) for pad in game.pads]
        if blocks is not None and all(b[0] == sheet for b, sheet in zip(blocks, game.sheets, strict=True)):
            src = self._src_mv
            i, j = self._sheets_at, self._players_at
            for _, planes, row in blocks:
                src[i : i + _PLANE_SIZE] = planes
                src[j : j + _P] = row
                i += _PLANE_SIZE
                j += _P
            k = self._valley_at
            src[k : k + len(VALLEY_PLANES) * N_HEX] = _VALLEY_RUNS[game.letter]
            return
        v = self._v
        v["sheets"][:], v["players"][:] = _numpy_source(np.array(game.sheets, np.intp), game.letter, game.pads)
        v["valley"][:] = _VALLEY[game.letter]

    def _resync(self, game: Game) -> None:
        """Any later (or earlier) state of the same game: the sheet planes and per-sheet counts of every hex
        that differs from the last fill, then every dynamic value."""
        self._history = len(game.history)
        src = self._src_mv
        colour = game.sheet_map.colour
        for p, sheet in enumerate(game.sheets):
            seen = self._seen[p]
            for h in range(N_HEX):
                new, old = sheet[h], seen[h]
                if new == old:
                    continue
                seen[h] = new
                values = _PLANE_VALUES[new] if new >= 0 else _EMPTY_VALUES if new == EMPTY else _NO_VALUES
                i = self._sheets_at + p * _PLANE_SIZE + h
                for value in values:
                    src[i] = value
                    i += N_HEX
                row = self._players_at + p * _P
                k = colour[h]
                for code, sign in ((old, -1.0), (new, 1.0)):
                    if code == EMPTY:
                        src[row + _EMPTY + k] += sign
                    elif code >= 0:
                        src[row + _COUNT_COLUMN[code]] += sign
                        if code == SUNFLOWER or code == SUPER:
                            src[row + _SUN + k] += sign
        self._write_state(game)

    def _advance(self, game: Game) -> bool:
        """The state one ``apply`` after the last fill: write only what that turn changed (the drawn hex
        went from empty to its symbol, SV-TURN-3/6). False, with nothing written, when the last action does
        not match the player who was to move (the caller then resyncs)."""
        p = self._current
        if p is None:
            return False
        h, _, s, f, _, k = MOVES[game.history[-1]]
        seen = self._seen[p]
        if seen[h] != EMPTY or game.sheets[p][h] != s:
            return False
        seen[h] = s
        self._history += 1
        src = self._src_mv
        i = self._sheets_at + p * _PLANE_SIZE + h
        src[i] = 0.0  # the "empty" plane; the symbol's planes were all 0 on an empty hex
        for offset in _SET_PLANES[s]:
            src[i + offset] = 1.0
        base = self._players_at
        row = base + p * _P
        colour = self._colour[h]
        src[row + _EMPTY + colour] -= 1.0
        src[row + _COUNT_COLUMN[s]] += 1.0
        if _IS_SUNFLOWER[s]:
            src[row + _SUN + colour] += 1.0
        src[row] = game.inhabitants[p]
        src[row + 1] = game.turns[p]
        if k < 0:  # a normal turn's die goes to the slot of the hex's colour (SV-TURN-2)
            k = colour
        first, current = game.first, game.current
        if first != self._first:
            src[base + self._first * _P + 6] = 0.0
            src[base + first * _P + 6] = 1.0
        if current != p:
            src[row + 7] = 0.0
            if current is not None:
                src[base + current * _P + 7] = 1.0
        self._first, self._current = first, current
        i = self._slots_at
        if game.round != self._round:  # all slots were taken: a new round (SV-ROUND-4/6)
            self._round = game.round
            src[i : i + SLOTS * _SLOT_W] = self._slot_zeros
            for slot in range(SLOTS):
                src[i + slot * _SLOT_W] = 1.0
            self._write_game(game)
            return True
        i += k * _SLOT_W
        src[i] = 0.0
        src[i + 1 + f] = 1.0
        i = self._game_at  # same round: one die left the pool, one more turn taken
        src[i + f] = game.pool[f]
        i += _ROUND
        src[i + 1] = game.turn_in_round
        src[i + 2] = not (game.empty[current] & game.free_hexes) if current is not None else False
        src[i + 4] = current is None
        return True

    def _write_state(self, game: Game) -> None:
        """Every dynamic value (players' inhabitants, turns and flags, slots, pool and round) from scratch."""
        src = self._src_mv
        i = self._players_at
        first, current = game.first, game.current
        for p in range(game.num_players):
            src[i] = game.inhabitants[p]
            src[i + 1] = game.turns[p]
            src[i + 6] = p == first
            src[i + 7] = p == current
            i += _P
        i = self._slots_at
        src[i : i + SLOTS * _SLOT_W] = self._slot_zeros
        for k, f in enumerate(game.slot_face):
            src[i + k * _SLOT_W + 1 + f] = 1.0
        self._first, self._current, self._round = first, current, game.round
        self._write_game(game)

    def _write_game(self, game: Game) -> None:
        src, i = self._src_mv, self._game_at
        for f, count in enumerate(game.pool):
            src[i + f] = count
        i += _ROUND
        src[i] = game.round + 1
        src[i + 1] = game.turn_in_round
        src[i + 2] = game.fallback()
        src[i + 3] = game.children
        src[i + 4] = game.current is None

    def text(self, game: Game, seat: int) -> str:
        """The observation as text: the whole table (all public) from ``seat``'s chair."""
        return f"you are player {seat}\n{game}"

    def markdown(self) -> str:
        """The layout table and its feature tables (for docs/sunflower_valley/env.md)."""
        parts = [self.layout.markdown()]
        for title, table in (
            ("SHEET_PLANES (per hex of each sheet)", SHEET_PLANES),
            ("SLOT_STATES (per colour slot)", SLOT_STATES),
            ("VALLEY_PLANES (per hex of the common map)", VALLEY_PLANES),
            ("PLAYER_FEATURES (per player, viewer first)", PLAYER_FEATURES),
            ("GAME_FEATURES", GAME_FEATURES),
        ):
            parts.append(feature_table_markdown(title, table))
        return "\n\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(Observer(num_players=4).markdown())
