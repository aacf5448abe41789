"""Sheet layouts A–F and the start pictures of the pads, loaded from ``data/*.yaml`` and validated.

A :class:`Layout` is one printed sheet map (SV-RULING-2): the colour of every hex (or mountain), the five
colour regions and their bit masks. A :class:`Pad` is one pad's start picture and its hex (SV-RULING-3).
Loading checks every constraint the rulebook states for the maps (SV-SHEET-2/3, SV-RULING-2/3); an error
names the file, the entry and the field, e.g. ``sheets.yaml: layouts.B: rows[2][3]: unknown token 'x'``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from farmgames.envs.core.datafiles import DataFileError, load_yaml, read_text_bounded, sha256

from .hexgrid import COLS, N_HEX, NEIGHBOUR_MASK, ROWS, components, hex_name, parse_hex

DATA_DIR = Path(__file__).parent / "data"
SHEETS_FILE = DATA_DIR / "sheets.yaml"
PADS_FILE = DATA_DIR / "pads.yaml"

LETTERS = "ABCDEF"  # pads / layouts (SV-COMP-3, SV-COMP-6)
COLOURS = ("blue", "orange", "purple", "green", "red")  # slot order k = 0..4 (SV-RULING-8, SV-RULING-18)
COLOUR_TOKENS = "bopgr"  # map tokens in COLOURS order
MOUNTAIN_TOKEN = "^"
MOUNTAIN = -1  # colour index of a mountain hex
REGION_SIZE = 5  # SV-SHEET-2
MOUNTAINS = 5  # SV-SHEET-3
MIN_START_COLOURS = 4  # SV-RULING-2: usable start hexes of a layout span at least 4 colours


class DataError(ValueError):
    """A data file breaks its format; the message names file, entry and field."""


@dataclass(frozen=True)
class Layout:
    """One sheet map. ``colour[h]`` is 0..4 (``COLOURS``) or ``MOUNTAIN``."""

    letter: str
    colour: tuple[int, ...]
    region_mask: tuple[int, ...]  # per colour: bit mask of its 5 hexes
    mountain_mask: int
    mountains: tuple[int, ...]
    coloured_mask: int  # the 25 non-mountain hexes

    def region(self, k: int) -> tuple[int, ...]:
        return tuple(h for h in range(N_HEX) if self.colour[h] == k)

    def picture(self) -> str:
        """The map as in the rulebook (rows B and D indented)."""
        lines = []
        for r in range(ROWS):
            toks = [MOUNTAIN_TOKEN if c < 0 else COLOUR_TOKENS[c] for c in self.colour[r * COLS : (r + 1) * COLS]]
            lines.append(("  " if r % 2 else "") + "   ".join(toks))
        return "\n".join(lines)


@dataclass(frozen=True)
class Pad:
    """One pad: its letter, start picture and the start hex the picture marks (SV-SETUP-3)."""

    letter: str
    picture: str
    hex: int


def _fail(file: Path, where: str, message: str) -> DataError:
    return DataError(f"{file.name}: {where}: {message}")


def _read(file: Path, key: str) -> dict[str, Any]:
    try:
        doc = load_yaml(file)  # bounded, alias-free safe loading
    except DataFileError as exc:
        raise DataError(f"{file.name}: cannot read: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get(key), dict):
        raise _fail(file, key, f"the file must be a mapping with a '{key}' mapping")
    letters = list(doc[key])
    if sorted(str(x) for x in letters) != list(LETTERS):
        raise _fail(file, key, f"must have exactly the entries {', '.join(LETTERS)}, got {letters}")
    return doc[key]


def load_pads(file: Path = PADS_FILE) -> dict[str, Pad]:
    """The six pads of ``pads.yaml`` (validated)."""
    pads = {}
    for letter, entry in _read(file, "pads").items():
        where = f"pads.{letter}"
        if not isinstance(entry, dict) or set(entry) != {"picture", "hex"}:
            raise _fail(file, where, "must be a mapping with exactly the fields picture, hex")
        picture = entry["picture"]
        if not isinstance(picture, str) or not picture.strip():
            raise _fail(file, f"{where}: picture", f"must be a non-empty name, got {picture!r}")
        try:
            h = parse_hex(entry["hex"])
        except ValueError as exc:
            raise _fail(file, f"{where}: hex", str(exc)) from None
        pads[letter] = Pad(letter, picture.strip(), h)
    names = [p.picture for p in pads.values()]
    if len(set(names)) != len(names):
        raise _fail(file, "pads", f"pictures must be distinct, got {names}")
    hexes = [p.hex for p in pads.values()]
    if len(set(hexes)) != len(hexes):
        raise _fail(file, "pads", "start hexes must be distinct")
    return dict(sorted(pads.items()))


def _parse_rows(file: Path, where: str, entry: Any) -> list[int]:
    if not isinstance(entry, dict) or set(entry) != {"rows"}:
        raise _fail(file, where, "must be a mapping with exactly the field rows")
    rows = entry["rows"]
    if not isinstance(rows, list) or len(rows) != ROWS:
        raise _fail(file, f"{where}: rows", f"must be a list of {ROWS} rows (A..E)")
    colour = []
    for r, row in enumerate(rows):
        toks = row.split() if isinstance(row, str) else None
        if not toks or len(toks) != COLS:
            raise _fail(file, f"{where}: rows[{r}]", f"must hold {COLS} space-separated tokens, got {row!r}")
        for c, tok in enumerate(toks):
            if tok == MOUNTAIN_TOKEN:
                colour.append(MOUNTAIN)
            elif len(tok) == 1 and tok in COLOUR_TOKENS:
                colour.append(COLOUR_TOKENS.index(tok))
            else:
                raise _fail(file, f"{where}: rows[{r}][{c}]", f"unknown token {tok!r} (allowed: b o p g r ^)")
    return colour


def check_layout(colour: list[int], pads: dict[str, Pad], letter: str, file: Path = SHEETS_FILE) -> Layout:
    """Build a Layout and assert the map constraints of SV-SHEET-2/3 and SV-RULING-2/3."""
    where = f"layouts.{letter}: rows"
    mountain_mask = sum(1 << h for h in range(N_HEX) if colour[h] == MOUNTAIN)
    mountains = tuple(h for h in range(N_HEX) if colour[h] == MOUNTAIN)
    if len(mountains) != MOUNTAINS:
        raise _fail(file, where, f"must have {MOUNTAINS} mountains (SV-SHEET-3), got {len(mountains)}")
    for h in mountains:
        if NEIGHBOUR_MASK[h] & mountain_mask:
            raise _fail(file, where, f"mountain {hex_name(h)} is adjacent to another mountain (SV-RULING-2)")
    region_mask = []
    for k, name in enumerate(COLOURS):
        mask = sum(1 << h for h in range(N_HEX) if colour[h] == k)
        size = mask.bit_count()
        if size != REGION_SIZE:
            raise _fail(file, where, f"region {name} must have {REGION_SIZE} hexes (SV-SHEET-2), got {size}")
        if len(components(mask)) != 1:
            raise _fail(file, where, f"region {name} is not connected (SV-RULING-2)")
        if not any(NEIGHBOUR_MASK[h] & mountain_mask for h in range(N_HEX) if mask >> h & 1):
            raise _fail(file, where, f"region {name} touches no mountain (SV-RULING-2)")
        region_mask.append(mask)
    for pad in pads.values():
        if colour[pad.hex] == MOUNTAIN:
            raise _fail(file, where, f"start hex {hex_name(pad.hex)} of pad {pad.letter} is a mountain (SV-RULING-2)")
    usable = {colour[p.hex] for p in pads.values() if p.letter != letter}
    if len(usable) < MIN_START_COLOURS:
        raise _fail(file, where, f"usable start hexes span {len(usable)} colours, need {MIN_START_COLOURS}")
    return Layout(
        letter, tuple(colour), tuple(region_mask), mountain_mask, mountains, ((1 << N_HEX) - 1) & ~mountain_mask
    )


def load_layouts(file: Path = SHEETS_FILE, pads: dict[str, Pad] | None = None) -> dict[str, Layout]:
    """The six layouts of ``sheets.yaml`` (validated against the pads' start hexes)."""
    pads = load_pads() if pads is None else pads
    out = {}
    for letter, entry in _read(file, "layouts").items():
        out[letter] = check_layout(_parse_rows(file, f"layouts.{letter}", entry), pads, letter, file)
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def components_data() -> tuple[dict[str, Layout], dict[str, Pad]]:
    """The shipped layouts and pads, loaded once."""
    pads = load_pads()
    return load_layouts(pads=pads), pads


LAYOUTS, PADS = components_data()


@lru_cache(maxsize=1)
def data_hashes() -> dict[str, str]:
    """SHA-256 of the two data files (records and states pin them)."""
    return {"sheets": sha256(read_text_bounded(SHEETS_FILE)), "pads": sha256(read_text_bounded(PADS_FILE))}
