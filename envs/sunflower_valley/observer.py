"""One seat's observation of Sunflower Valley as named float32 arrays, declared once in :data:`LAYOUT_ROWS`.

Everything is public (SV-INFO-1, SV-RULING-16), so every viewer sees the same facts; only the player axes
are rotated so that index 0 is the viewer, index 1 the next seat clockwise, and so on. Hex axes use the
engine's index ``h = 6·r + c`` (SV-RULING-1). Values are raw counts and flags with finite upper bounds.

Speed: one flat source vector in seat order is kept per game; the sheet planes and per-sheet counts (the
large part) change only for the hexes that changed since the last fill (a list comparison per sheet finds
them), the small vectors are rewritten, and a fill copies the source into the buffer through a dozen
memoryview runs in the viewer's order.
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

from .actions import DICE, FACE_OF, FACES, FALLBACK_START, HOUSE, RAIL_SIDES, SHEEP, SLOTS, STRAIGHT, SUNFLOWER, SUPER
from .game import MAX_PLAYERS, Game
from .hexgrid import N_HEX
from .scoring import EMPTY
from .sheets import COLOURS, LAYOUTS, LETTERS, REGION_SIZE

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
)
GAME_FEATURES: tuple[tuple[str, str, float], ...] = (
    ("round", "current round, 1-based (SV-ROUND-1)", float(MAX_ROUNDS)),
    ("turn_in_round", "turns taken this round = occupied slots (SV-ROUND-4)", float(SLOTS)),
    ("fallback", "the player to move must use the fallback (SV-TURN-6)", 1.0),
    ("children", "the children's variant is on (SV-VAR-1)", 1.0),
    ("over", "the game is over (SV-END-1)", 1.0),
)
_P = len(PLAYER_FEATURES)


def _col(table) -> np.ndarray:
    return np.array([h for _, _, h in table], np.float32)


def layout_rows(num_players: int) -> list[tuple[str, tuple[str, ...], tuple[int, ...], str, Any]]:
    """The declared entries (name, dims, shape, meaning, high) for ``num_players`` seats."""
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
            "valley",
            ("planes", "hexes"),
            (len(VALLEY_PLANES), N_HEX),
            "the common sheet map: colour of each hex or mountain (VALLEY_PLANES)",
            1.0,
        ),
        ("letter", ("letters",), (len(LETTERS),), "one-hot common sheet letter A–F (SV-SETUP-1)", 1.0),
        ("pads", ("players", "letters"), (n, len(LETTERS)), "one-hot start pad of each player (SV-SETUP-3)", 1.0),
        (
            "empty_by_colour",
            ("players", "colours"),
            (n, len(COLOURS)),
            "empty hexes per colour region",
            float(REGION_SIZE),
        ),
        (
            "sunflowers_by_colour",
            ("players", "colours"),
            (n, len(COLOURS)),
            "sunflowers per colour region (scoring C)",
            float(REGION_SIZE),
        ),
        ("players", ("players", "features"), (n, _P), "per player: PLAYER_FEATURES", _col(PLAYER_FEATURES)),
        ("pool", ("faces",), (len(FACES),), "dice in the pool per face (SV-ROUND-2)", float(DICE)),
        (
            "slots",
            ("colours", "state"),
            (SLOTS, 1 + len(FACES)),
            "per colour slot: free flag, then one-hot face of the die on it (SV-TURN-2)",
            1.0,
        ),
        ("game", ("features",), (len(GAME_FEATURES),), "GAME_FEATURES", _col(GAME_FEATURES)),
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
_SLOT_W = 1 + len(FACES)  # one slot's row: free flag + face one-hot
# PLAYER_FEATURES column counted per drawn symbol code
_COUNT_COLUMN = tuple(2 if s == HOUSE else 3 if s == SHEEP else 4 if s in (SUNFLOWER, SUPER) else 5 for s in range(13))


class Observer:
    """Fills a seat's view of a game into buffers of :attr:`layout` (see the module docstring).

    The observer keeps one flat source vector laid out exactly like a buffer but in seat order (the view
    of seat 0); a fill brings it up to date and copies it into the buffer through memoryview runs that put
    the viewer first on every player axis (``core.observation.rotated_runs``)."""

    def __init__(self, game: Game | None = None, num_players: int | None = None):
        n = num_players if num_players is not None else game.num_players if game is not None else MAX_PLAYERS
        self.num_players = n
        self.layout = ObservationLayout.build(layout_rows(n))
        self._src = np.zeros(self.layout.size, np.float32)
        self._src_mv = memoryview(self._src)
        self._v = self.layout.views(self._src)
        self._runs = [self._make_runs(n, seat) for seat in range(n)]
        self._at = {e.name: e.start for e in self.layout.entries}
        self._slot_zeros = memoryview(np.zeros(SLOTS * (1 + len(FACES)), np.float32))
        self._history = -1
        self._mover = 0
        self._first: int = 0
        self._current: int | None = None
        self._round = 0
        self._game: Any = None
        self._seen: list[list[int]] = []

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

    def _sync(self, game: Game) -> int:
        """Bring the seat-ordered source up to date with ``game``: sheet planes and per-sheet counts change
        only for the hexes that changed since the last fill."""
        v = self._v
        if game is not self._game:
            self._game = game
            self._history = -1
            self._seen = [[-3] * N_HEX for _ in range(game.num_players)]  # -3: nothing known yet
            for name in ("sheets", "empty_by_colour", "sunflowers_by_colour", "players", "pads"):
                v[name][:] = 0
            v["valley"][:] = _VALLEY[game.letter]
            v["letter"][:] = 0
            v["letter"][LETTERS.index(game.letter)] = 1
            for p, pad in enumerate(game.pads):
                v["pads"][p, LETTERS.index(pad)] = 1
        steps = len(game.history)
        if steps == self._history:
            return 0
        mode = 1 if steps == self._history + 1 and self._history >= 0 else 2
        # one turn since the last fill: only the hex it drew changed
        hexes: Any = (game.history[-1] % N_HEX,) if mode == 1 else range(N_HEX)
        self._history = steps
        src = self._src_mv
        at = self._at
        colour = game.sheet_map.colour
        plane_size = len(SHEET_PLANES) * N_HEX
        for p, sheet in enumerate(game.sheets):
            seen = self._seen[p]
            for h in hexes:
                new, old = sheet[h], seen[h]
                if new == old:
                    continue
                seen[h] = new
                self._mover = p
                values = _PLANE_VALUES[new] if new >= 0 else _EMPTY_VALUES if new == EMPTY else _NO_VALUES
                i = at["sheets"] + p * plane_size + h
                for value in values:
                    src[i] = value
                    i += N_HEX
                k = colour[h]
                for code, sign in ((old, -1.0), (new, 1.0)):
                    if code == EMPTY:
                        src[at["empty_by_colour"] + p * len(COLOURS) + k] += sign
                    elif code >= 0:
                        src[at["players"] + p * _P + _COUNT_COLUMN[code]] += sign
                        if code == SUNFLOWER or code == SUPER:
                            src[at["sunflowers_by_colour"] + p * len(COLOURS) + k] += sign
        return mode

    def fill(self, game: Game, seat: int, buffer: ObservationBuffer, force_full: bool = False) -> None:
        if force_full:
            self._game = None
        mode = self._sync(game)
        if mode == 2:
            self._write_state(game)
        elif mode == 1:
            self._write_step(game)
        mv, src = buffer.mv, self._src_mv
        for a, b, c, d in self._runs[seat]:
            mv[a:b] = src[c:d]

    def _write_state(self, game: Game) -> None:
        """Every small vector (players' dynamic features, pool, slots, game features) from scratch."""
        src, at = self._src_mv, self._at
        i = at["players"]
        first, current = game.first, game.current
        for p in range(game.num_players):
            src[i] = game.inhabitants[p]
            src[i + 1] = game.turns[p]
            src[i + 6] = p == first
            src[i + 7] = p == current
            i += _P
        i = at["pool"]
        for f, count in enumerate(game.pool):
            src[i + f] = count
        i = at["slots"]
        src[i : i + SLOTS * _SLOT_W] = self._slot_zeros
        for k, f in enumerate(game.slot_face):
            src[i + k * _SLOT_W + 1 + f] = 1.0
        self._first, self._current, self._round = first, current, game.round
        self._write_game(game)

    def _write_step(self, game: Game) -> None:
        """Only what one turn changed: the mover's inhabitants and turns, the first/to-move flags, the die
        taken from the pool and the slot it went to (everything on a new round), the game features."""
        src, at = self._src_mv, self._at
        action = game.history[-1]
        if action < FALLBACK_START:
            h = action % N_HEX
            f, k = FACE_OF[action // N_HEX], game.sheet_map.colour[h]
        else:
            f, rest = divmod(action - FALLBACK_START, SLOTS * N_HEX)
            k, h = divmod(rest, N_HEX)
        mover = self._mover
        i = at["players"] + mover * _P
        src[i] = game.inhabitants[mover]
        src[i + 1] = game.turns[mover]
        first, current, base = game.first, game.current, at["players"]
        if first != self._first:
            src[base + self._first * _P + 6] = 0.0
            src[base + first * _P + 6] = 1.0
        if current != self._current:
            if self._current is not None:
                src[base + self._current * _P + 7] = 0.0
            if current is not None:
                src[base + current * _P + 7] = 1.0
        self._first, self._current = first, current
        if game.round != self._round:
            self._round = game.round
            i = at["pool"]
            for face, count in enumerate(game.pool):
                src[i + face] = count
            i = at["slots"]
            src[i : i + SLOTS * _SLOT_W] = self._slot_zeros
            for slot in range(SLOTS):
                src[i + slot * _SLOT_W] = 1.0
        else:
            src[at["pool"] + f] = game.pool[f]
            i = at["slots"] + k * _SLOT_W
            src[i] = 0.0
            src[i + 1 + f] = 1.0
        self._write_game(game)

    def _write_game(self, game: Game) -> None:
        src, i = self._src_mv, self._at["game"]
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
            ("VALLEY_PLANES (per hex of the common map)", VALLEY_PLANES),
            ("PLAYER_FEATURES (per player, viewer first)", PLAYER_FEATURES),
            ("GAME_FEATURES", GAME_FEATURES),
        ):
            parts.append(feature_table_markdown(title, table))
        return "\n\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(Observer(num_players=4).markdown())
