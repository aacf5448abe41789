"""Sheet layouts and pads as validated data (SV-SHEET-*, SV-RULING-1, SV-RULING-2, SV-RULING-3, SV-RULING-8,
SV-COMP-3): the data files agree
with the rulebook's region tables, and broken files are rejected naming file, entry and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from farmgames.envs.sunflower_valley.hexgrid import NEIGHBOUR, NEIGHBOUR_MASK, components, hex_name, parse_hex
from farmgames.envs.sunflower_valley.scoring import EXPRESS_TABLE
from farmgames.envs.sunflower_valley.sheets import (
    COLOURS,
    LAYOUTS,
    PADS,
    DataError,
    load_layouts,
    load_pads,
)

# The region tables of SV-RULING-2, copied from the rulebook (mountain, blue, orange, purple, green, red).
REGIONS = {
    "A": ("A3 B5 D1 D4 E3", "C2 C3 D2 E1 E2", "A5 A6 B6 C6 D6", "A4 B3 C4 D3 E4", "A1 A2 B1 B2 C1", "B4 C5 D5 E5 E6"),
    "B": ("A3 B5 C4 D2 D5", "A4 A5 A6 B3 B4", "C3 D3 D4 E4 E5", "C1 D1 E1 E2 E3", "A1 A2 B1 B2 C2", "B6 C5 C6 D6 E6"),
    "C": ("A3 C3 D1 D5 E4", "D2 D3 E1 E2 E3", "B4 B5 B6 C5 C6", "C4 D4 D6 E5 E6", "A1 A2 B1 C1 C2", "A4 A5 A6 B2 B3"),
    "D": ("A3 B5 C3 D5 E3", "A4 A5 A6 B3 B4", "A1 A2 B1 B2 C2", "C1 D1 D2 E1 E2", "C4 C5 D3 D4 E4", "B6 C6 D6 E5 E6"),
    "E": ("B1 B3 C5 D1 E3", "D2 D3 D4 E1 E2", "A1 A2 A3 A4 A5", "D5 D6 E4 E5 E6", "A6 B4 B5 B6 C6", "B2 C1 C2 C3 C4"),
    "F": ("B5 C3 D1 D5 E4", "A1 A2 A3 B1 B2", "C1 C2 D2 E1 E2", "A5 A6 B4 B6 C6", "A4 B3 C4 D3 E3", "C5 D4 D6 E5 E6"),
}
# SV-RULING-3: pad -> (picture, hex) and the colour of that hex per layout ("-" = the layout's own pad)
PAD_TABLE = {
    "A": ("Windmill", "A2", "- green green orange orange blue"),
    "B": ("Chapel", "A5", "orange - red blue orange purple"),
    "C": ("Well", "C1", "green purple - purple red orange"),
    "D": ("Tower", "E5", "red orange purple - purple red"),
    "E": ("Bridge", "E2", "blue purple blue purple - orange"),
    "F": ("Barn", "C6", "orange red orange red green -"),
}


def test_hex_grid():
    """SV-RULING-1, SV-SHEET-5: 30 hexes A1..E6, h = 6r + c, odd-r neighbours, side numbering E NE NW W SW SE."""
    assert [hex_name(h) for h in (0, 5, 6, 29)] == ["A1", "A6", "B1", "E6"]
    assert all(parse_hex(hex_name(h)) == h for h in range(30))
    b1 = [hex_name(n) if n >= 0 else None for n in NEIGHBOUR[parse_hex("B1")]]
    assert b1 == ["B2", "A2", "A1", None, "C1", "C2"]
    c1 = [hex_name(n) if n >= 0 else None for n in NEIGHBOUR[parse_hex("C1")]]
    assert c1 == ["C2", "B1", None, None, None, "D1"]


@pytest.mark.parametrize("letter", "ABCDEF")
def test_layouts_match_rulebook(letter):
    """SV-RULING-2, SV-SHEET-1, SV-SHEET-2, SV-SHEET-3, SV-SHEET-6, SV-SHEET-7, SV-RULING-8: each map = the
    rulebook's table: 5 mountains, five colours
    blue/orange/purple/green/red of 5 connected hexes, no adjacent mountains, every region touches a mountain."""
    lay = LAYOUTS[letter]
    mountains, *regions = REGIONS[letter]
    assert {hex_name(h) for h in lay.mountains} == set(mountains.split())
    assert COLOURS == ("blue", "orange", "purple", "green", "red")
    for k, names in enumerate(regions):
        assert {hex_name(h) for h in lay.region(k)} == set(names.split()), COLOURS[k]
        assert len(components(lay.region_mask[k])) == 1
        assert any(NEIGHBOUR_MASK[h] & lay.mountain_mask for h in lay.region(k))
    assert not any(NEIGHBOUR_MASK[m] & lay.mountain_mask for m in lay.mountains)
    assert lay.coloured_mask.bit_count() == 25


def test_pads_match_rulebook():
    """SV-RULING-3, SV-COMP-3, SV-SHEET-4: one picture and start hex per pad; the colour table; the five
    usable start hexes of every layout span at least 4 colours; no start hex is a mountain."""
    for pad, (pic, name, colours) in PAD_TABLE.items():
        assert PADS[pad].picture == pic and hex_name(PADS[pad].hex) == name
        for letter, colour in zip("ABCDEF", colours.split(), strict=True):
            c = LAYOUTS[letter].colour[PADS[pad].hex]
            assert c >= 0
            if colour != "-":
                assert COLOURS[c] == colour
    for letter, lay in LAYOUTS.items():
        assert len({lay.colour[p.hex] for p in PADS.values() if p.letter != letter}) >= 4


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_broken_sheet_files_name_file_entry_field(tmp_path):
    """Data validation: errors name the file, the entry and the field."""
    good = (Path(__file__).parents[2] / "envs/sunflower_valley/data/sheets.yaml").read_text()
    bad = good.replace("- g g ^ p o o", "- g g ^ p o x", 1)
    with pytest.raises(DataError, match=r"bad\.yaml: layouts\.A: rows\[0\]\[5\]: unknown token 'x'"):
        load_layouts(write(tmp_path, "bad.yaml", bad))
    bad = good.replace("- g g ^ p o o", "- g g g p o o", 1)
    with pytest.raises(DataError, match=r"m\.yaml: layouts\.A: rows: must have 5 mountains"):
        load_layouts(write(tmp_path, "m.yaml", bad))
    bad = good.replace("  F:\n", "  G:\n")
    with pytest.raises(DataError, match=r"g\.yaml: layouts: must have exactly the entries"):
        load_layouts(write(tmp_path, "g.yaml", bad))
    bad = good.replace("- g g ^ p o o", "- g g ^ p o", 1)
    with pytest.raises(DataError, match=r"layouts\.A: rows\[0\]: must hold 6"):
        load_layouts(write(tmp_path, "s.yaml", bad))


def test_broken_pad_files(tmp_path):
    """Data validation of pads.yaml: hex names, distinct hexes, mountains under a start hex."""
    good = (Path(__file__).parents[2] / "envs/sunflower_valley/data/pads.yaml").read_text()
    with pytest.raises(DataError, match=r"p\.yaml: pads\.A: hex: not a hex name"):
        load_pads(write(tmp_path, "p.yaml", good.replace("hex: A2", "hex: Z9")))
    with pytest.raises(DataError, match="distinct"):
        load_pads(write(tmp_path, "q.yaml", good.replace("hex: A5", "hex: A2")))
    pads = load_pads(write(tmp_path, "r.yaml", good.replace("hex: A2", "hex: A3")))  # A3 is a mountain on A
    with pytest.raises(DataError, match="is a mountain"):
        load_layouts(pads=pads)


def test_express_table_on_the_board():
    """SV-BOARD-2: the board's Valley Express table is data of the scoring module (SV-RULING-6)."""
    assert EXPRESS_TABLE[3] == 9 and len(EXPRESS_TABLE) == 7
