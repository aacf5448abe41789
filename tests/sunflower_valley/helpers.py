"""Small helpers for the Sunflower Valley rule tests: sheet pictures from a few named hexes."""

from __future__ import annotations

from farmgames.envs.sunflower_valley.hexgrid import COLS, ROW_LETTERS, ROWS, parse_hex
from farmgames.envs.sunflower_valley.scenario import scenario
from farmgames.envs.sunflower_valley.sheets import COLOUR_TOKENS, LAYOUTS, MOUNTAIN_TOKEN


def picture(letter: str = "A", **cells: str) -> str:
    """A sheet picture of layout ``letter`` with the named hexes drawn (``C1="H", B1="Sh"``), the rest empty."""
    layout = LAYOUTS[letter]
    drawn = {parse_hex(name): tok for name, tok in cells.items()}
    lines = []
    for r in range(ROWS):
        toks = []
        for h in range(r * COLS, (r + 1) * COLS):
            c = layout.colour[h]
            toks.append(drawn.get(h, MOUNTAIN_TOKEN if c < 0 else COLOUR_TOKENS[c]))
        lines.append(f"{ROW_LETTERS[r]} " + ("  " if r % 2 else "") + "   ".join(toks))
    return "\n".join(lines)


def one_sheet(cells: dict[str, str], letter: str = "A", children: bool = False, num_players: int = 2, **kw):
    """A game where seat 0 has exactly ``cells`` drawn (the other seats have fresh sheets)."""
    return scenario(num_players, letter=letter, children=children, sheets={0: picture(letter, **cells)}, **kw)


def score0(cells: dict[str, str], **kw):
    """Seat 0's Score for a sheet with ``cells`` drawn."""
    return one_sheet(cells, **kw).scores()[0]


# Worked example of section 13: layout A, pad C (start house C1)
EXAMPLE_13 = {
    "C1": "H",
    "C4": "H",
    "C6": "H",
    "E5": "H",
    "C2": "S0",
    "C3": "S0",
    "C5": "S0",
    "A1": "Sh",
    "B1": "Sh",
    "D5": "Sh",
    "A4": "Sf",
    "E4": "SS",
    "D6": "C2",
    "E6": "C1",
}
