"""Text pictures of a game: farms as grids, resources, phase. Used by ``str(game)`` and ansi render.

Symbols: ``T`` water tower (digit = water held), ``S`` silo, ``F``/``L``/``C``/``B`` face-up
locations by pile, lower case = fallow, ``+`` = carries equipment, ``.`` empty.
"""

from __future__ import annotations

from .farm import EMPTY, SILO, TOWER, Farm

PILE_LETTER = {"Field": "F", "Livestock": "L", "Construction": "C", "Building": "B"}


def farm_rows(farm: Farm, cards) -> list[str]:
    """The farm's bounding box (plus a margin of one cell) as rows of 3-character cells."""
    g = farm.geometry
    rows = [g.row_col(c)[0] for c in farm.occupied]
    cols = [g.row_col(c)[1] for c in farm.occupied]
    r0, r1 = max(min(rows) - 1, 0), min(max(rows) + 1, g.size - 1)
    c0, c1 = max(min(cols) - 1, 0), min(max(cols) + 1, g.size - 1)
    out = ["    " + "".join(f"{c:>3}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        line = f"{r:>3} "
        for c in range(c0, c1 + 1):
            cell = g.cell(r, c)
            code = farm.grid[cell]
            if code == EMPTY:
                sym = "  ."
            elif code == TOWER:
                sym = f" T{farm.tower_water[cell]}"
            elif code == SILO:
                sym = "  S"
            else:
                letter = PILE_LETTER[cards[code].pile]
                sym = " " + (letter.lower() if cell in farm.fallow else letter)
                sym += "+" if farm.equipment.get(cell) else " "
            line += sym
        out.append(line)
    return out


def farm_summary(farm: Farm) -> str:
    return (
        f"coins {farm.coins}  food {farm.food}/{farm.food_capacity}  water {farm.water}  "
        f"VP tokens {farm.vp_tokens}  set aside {len(farm.set_aside)}"
    )


def game_text(game, viewer: int | None = None) -> str:
    """The whole table as text. With ``viewer`` only what that seat may see (FOG-INFO); without it,
    everything public plus every hand (for debugging and transcripts)."""
    cards = game.cards.locations
    head = (
        f"Fields of Green — year {game.year}/4, {game.phase}"
        + (f", turn {game.turn}" if game.phase == "action" else "")
        + f", first player {game.first_player}, passing {game.direction}"
    )
    lines = [head, "piles F/L/C/B: " + "/".join(str(len(p)) for p in game.piles)
             + f"  towers {game.towers_left}  silos {game.silos_left}  equipment {len(game.equipment_stack)}"
             + f"  discard {len(game.discard)}"]
    if game.two_player and game.display:
        lines.append("display: " + ", ".join(cards[c].name for c in game.display))
    for p, farm in enumerate(game.farms):
        mark = " <- to decide" if game.current_player == p else ""
        lines.append(f"player {p}: {farm_summary(farm)}{mark}")
        lines.extend("  " + row for row in farm_rows(farm, cards))
        if viewer is None or viewer == p:
            if game.hands[p]:
                lines.append("  hand: " + ", ".join(cards[c].name for c in game.hands[p]))
            if game.picks[p] is not None:
                lines.append(f"  pick: {cards[game.picks[p]].name}")
        elif game.picks[p] is not None and (game.revealed or game.two_player):
            lines.append(f"  pick: {cards[game.picks[p]].name}")
    if game.is_terminal():
        for p, s in enumerate(game.scores()):
            lines.append(f"player {p} final: {s.total} VP {s.as_dict()}")
        lines.append(f"winners: {game.winners()}")
    return "\n".join(lines)
