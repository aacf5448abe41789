"""The action numbering of SV-RULING-18: ``Discrete(1290)``, one id per distinct move.

Ranges are declared once in :data:`RANGES`; :func:`table` gives the rows for the docs. Symbols, faces and
rail orientations (SV-RULING-4/5) are the rule constants every other module imports from here.

>>> normal_id(HOUSE, 15), decode(15)
(15, ('normal', 0, 15))
>>> fallback_id(3, 2, 7), decode(fallback_id(3, 2, 7))
(907, ('fallback', 3, 2, 7))
"""

from __future__ import annotations

from .hexgrid import N_HEX, hex_name
from .sheets import COLOURS

# Die faces f (SV-RULING-4, SV-SYM-1)
FACES = ("house", "sheep", "sunflower", "super sunflower", "straight rail", "curved rail")
F_HOUSE, F_SHEEP, F_SUNFLOWER, F_SUPER, F_STRAIGHT, F_CURVED = range(6)
DICE = 6  # SV-COMP-1
SLOTS = 5  # SV-BOARD-1: one slot per colour

# Drawn symbols s (SV-RULING-18): house, sheep, sunflower, super sunflower, straight S0..S2, curved C0..C5
HOUSE, SHEEP, SUNFLOWER, SUPER = 0, 1, 2, 3
STRAIGHT = (4, 5, 6)
CURVED = (7, 8, 9, 10, 11, 12)
SYMBOLS = 13
# open sides of each rail symbol (SV-RULING-5): straight = opposite sides, curved = one side between
RAIL_SIDES: dict[int, tuple[int, int]] = {
    4: (0, 3),
    5: (1, 4),
    6: (2, 5),
    7: (0, 2),
    8: (1, 3),
    9: (2, 4),
    10: (3, 5),
    11: (4, 0),
    12: (5, 1),
}
SYMBOL_CODES = ("H", "Sh", "Sf", "SS", "S0", "S1", "S2", "C0", "C1", "C2", "C3", "C4", "C5")
SYMBOL_NAMES = (
    "house",
    "sheep",
    "sunflower",
    "super sunflower",
    *(f"straight rail S{i}" for i in range(3)),
    *(f"curved rail C{i}" for i in range(6)),
)
#: FACE_OF[s] = the die face that draws symbol s
FACE_OF: tuple[int, ...] = (F_HOUSE, F_SHEEP, F_SUNFLOWER, F_SUPER, *(F_STRAIGHT,) * 3, *(F_CURVED,) * 6)
#: SYMBOLS_OF[f] = symbols a die face can draw (a rail face: one per orientation, SV-SYM-7)
SYMBOLS_OF: tuple[tuple[int, ...], ...] = ((HOUSE,), (SHEEP,), (SUNFLOWER,), (SUPER,), STRAIGHT, CURVED)
IS_RAIL = tuple(s in RAIL_SIDES for s in range(SYMBOLS))
IS_SUNFLOWER = tuple(s in (SUNFLOWER, SUPER) for s in range(SYMBOLS))

NORMAL_START, NORMAL_SIZE = 0, SYMBOLS * N_HEX  # 0..389
FALLBACK_START, FALLBACK_SIZE = NORMAL_SIZE, len(FACES) * SLOTS * N_HEX  # 390..1289
NUM_ACTIONS = FALLBACK_START + FALLBACK_SIZE  # 1290

RANGES: tuple[tuple[str, int, int, str, str], ...] = (
    (
        "normal",
        NORMAL_START,
        NORMAL_SIZE,
        "id = 30·s + h",
        "take a die showing face(s), put it on the slot of colour(h), draw symbol s in hex h (SV-TURN-1..3)",
    ),
    (
        "fallback",
        FALLBACK_START,
        FALLBACK_SIZE,
        "id = 390 + 30·(5·f + k) + h",
        "take a die showing face f, put it on slot k, draw a sunflower in hex h (SV-TURN-6; super if f = 3)",
    ),
)


def normal_id(symbol: int, h: int) -> int:
    return NORMAL_START + N_HEX * symbol + h


def fallback_id(face: int, slot: int, h: int) -> int:
    return FALLBACK_START + N_HEX * (SLOTS * face + slot) + h


def decode(action: int) -> tuple:
    """``("normal", s, h)`` or ``("fallback", f, k, h)`` for an id in range (ValueError otherwise)."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action space 0..{NUM_ACTIONS - 1}")
    if action < FALLBACK_START:
        s, h = divmod(action, N_HEX)
        return ("normal", s, h)
    f, rest = divmod(action - FALLBACK_START, SLOTS * N_HEX)
    k, h = divmod(rest, N_HEX)
    return ("fallback", f, k, h)


def describe(action: int, colour_of_hex: tuple[int, ...] | None = None) -> str:
    """Words for an id (the slot colour of a normal move needs the layout's ``colour`` table)."""
    d = decode(action)
    if d[0] == "normal":
        _, s, h = d
        slot = f" on the {COLOURS[colour_of_hex[h]]} slot" if colour_of_hex is not None else ""
        return f"{FACES[FACE_OF[s]]} die{slot}: {SYMBOL_NAMES[s]} in {hex_name(h)}"
    _, f, k, h = d
    drawn = "super sunflower" if f == F_SUPER else "sunflower"
    return f"{FACES[f]} die on the {COLOURS[k]} slot (fallback): {drawn} in {hex_name(h)}"


def table() -> list[tuple[str, int, int, str]]:
    """Rows (kind, first id, last id, meaning with the id formula) for the docs (core.docs.actions_markdown)."""
    return [
        (name, start, start + size - 1, f"{meaning}; `{formula}`") for name, start, size, formula, meaning in RANGES
    ]


def table_markdown() -> str:
    """The SV-RULING-18 table with both directions of the formula."""
    lines = ["| ids | kind | id from move | move from id | move |", "|---|---|---|---|---|"]
    inverse = {
        "normal": "`s = id div 30`, `h = id mod 30`",
        "fallback": "`j = id − 390`: `f = j div 150`, `k = (j div 30) mod 5`, `h = j mod 30`",
    }
    lines += [
        f"| {start}–{start + size - 1} | {name} | `{formula}` | {inverse[name]} | {meaning} |"
        for name, start, size, formula, meaning in RANGES
    ]
    return "\n".join(lines)


class ActionLayout:
    """The one numbering as an object (``game.layout``): ``size``, ``table()``, ``decode``, ``describe``."""

    size = NUM_ACTIONS

    @staticmethod
    def table() -> list[tuple[str, int, int, str]]:
        return table()

    @staticmethod
    def decode(action: int) -> tuple:
        return decode(action)


ACTION_LAYOUT = ActionLayout()
