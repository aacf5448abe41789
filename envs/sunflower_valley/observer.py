"""One seat's observation of Sunflower Valley as named float32 arrays, declared once in :data:`LAYOUT_ROWS`.

Everything is public (SV-INFO-1, SV-RULING-16), so every viewer sees the same facts; only the player axes
are rotated so that index 0 is the viewer, index 1 the next seat clockwise, and so on. Hex axes use the
engine's index ``h = 6·r + c`` (SV-RULING-1). Values are raw counts and flags with finite upper bounds.

Speed: the per-sheet hex planes (the only large part) are cached per game in seat order and updated only
for the hexes that changed since the last fill (a list comparison per sheet finds them); a fill copies the
cache into the buffer in the viewer's order and rewrites the small vectors.
``python -m farmgames.envs.sunflower_valley.observer`` prints the layout table for the docs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from farmgames.envs.core.observation import ObservationBuffer, ObservationLayout, feature_table_markdown

from .actions import DICE, FACES, HOUSE, RAIL_SIDES, SHEEP, SLOTS, STRAIGHT, SUNFLOWER, SUPER
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
_MOUNTAIN_PLANES = np.zeros(len(SHEET_PLANES), np.float32)
_VALLEY = {}
for _letter, _lay in LAYOUTS.items():
    v = np.zeros((len(VALLEY_PLANES), N_HEX), np.float32)
    for _h, _c in enumerate(_lay.colour):
        v[_c if _c >= 0 else len(COLOURS), _h] = 1
    _VALLEY[_letter] = v
del _s, _side, _letter, _lay, _h, _c, row, v


class Observer:
    """Fills a seat's view of a game into buffers of :attr:`layout` (see the module docstring)."""

    def __init__(self, game: Game | None = None, num_players: int | None = None):
        n = num_players if num_players is not None else game.num_players if game is not None else MAX_PLAYERS
        self.num_players = n
        self.layout = ObservationLayout.build(layout_rows(n))
        self._game: Any = None
        self._planes = np.zeros((n, len(SHEET_PLANES), N_HEX), np.float32)
        self._seen: list[list[int]] = []
        if game is not None:
            self.reset(game)

    def reset(self, game: Game) -> None:
        self._game = None

    def new_buffer(self) -> ObservationBuffer:
        return self.layout.new_buffer()

    def _sync(self, game: Game) -> None:
        """Bring the seat-ordered sheet planes up to date with ``game`` (only changed hexes)."""
        planes = self._planes
        if game is not self._game:
            self._game = game
            self._seen = [[-3] * N_HEX for _ in range(game.num_players)]
            self._stats = [None] * game.num_players
        regions = game.sheet_map.region_mask
        for p, sheet in enumerate(game.sheets):
            seen = self._seen[p]
            if seen == sheet:
                continue
            for h in range(N_HEX):
                v = sheet[h]
                if seen[h] != v:
                    planes[p, :, h] = _SYMBOL_PLANES[v] if v >= 0 else _EMPTY_PLANES if v == EMPTY else _MOUNTAIN_PLANES
                    seen[h] = v
            sun = sum(1 << h for h in range(N_HEX) if sheet[h] == SUNFLOWER or sheet[h] == SUPER)
            empty = sum(1 << h for h in range(N_HEX) if sheet[h] == EMPTY)
            self._stats[p] = (
                [(empty & m).bit_count() for m in regions],
                [(sun & m).bit_count() for m in regions],
                sheet.count(HOUSE),
                sheet.count(SHEEP),
                sun.bit_count(),
                sum(1 for x in sheet if x >= 4),
            )

    def fill(self, game: Game, seat: int, buffer: ObservationBuffer, force_full: bool = False) -> None:
        if force_full:
            self._game = None
        self._sync(game)
        n = game.num_players
        order = [(seat + k) % n for k in range(n)]
        v = buffer.views
        sheets = v["sheets"]
        sheets[: n - seat] = self._planes[seat:]
        if seat:
            sheets[n - seat :] = self._planes[:seat]
        v["valley"][:] = _VALLEY[game.letter]
        letter = v["letter"]
        letter[:] = 0
        letter[LETTERS.index(game.letter)] = 1
        pads = v["pads"]
        pads[:] = 0
        empty_c, sun_c, players = v["empty_by_colour"], v["sunflowers_by_colour"], v["players"]
        stats = self._stats
        for i, p in enumerate(order):
            pads[i, LETTERS.index(game.pads[p])] = 1
            by_empty, by_sun, houses, sheep, suns, rails = stats[p]
            empty_c[i] = by_empty
            sun_c[i] = by_sun
            players[i] = (
                game.inhabitants[p],
                game.turns[p],
                houses,
                sheep,
                suns,
                rails,
                p == game.first,
                p == game.current,
            )
        v["pool"][:] = game.pool
        slots = v["slots"]
        slots[:] = 0
        for k, f in enumerate(game.slot_face):
            slots[k, 0 if f < 0 else 1 + f] = 1
        v["game"][:] = (game.round + 1, game.turn_in_round, game.fallback(), game.children, game.is_terminal())

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
