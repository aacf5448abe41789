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


# ------------------------------------------------------------------------------------------------
# Compact table text (the environments' "ansi" and "human" render modes, and ``farmgames play``)


def _player_block(game, p: int, width: int = 0) -> list[str]:
    farm = game.farms[p]
    tags = []
    if p == game.first_player:
        tags.append("first player")
    if game.current_player == p:
        tags.append("to decide")
    title = f"player {p}" + (f" ({', '.join(tags)})" if tags else "")
    stats = (f"coins {farm.coins}  food {farm.food}/{farm.food_capacity}  water {farm.water}  "
             f"VP tok {farm.vp_tokens}  aside {len(farm.set_aside)}")
    return [title, stats] + farm_rows(farm, game.cards.locations)


def _side_by_side(blocks: list[list[str]], gap: int = 4) -> list[str]:
    widths = [max(len(line) for line in block) for block in blocks]
    height = max(len(block) for block in blocks)
    out = []
    for i in range(height):
        parts = [(block[i] if i < len(block) else "").ljust(w) for block, w in zip(blocks, widths)]
        out.append((" " * gap).join(parts).rstrip())
    return out


def status_line(game) -> str:
    if game.is_terminal():
        return "Fields of Green — game over"
    where = f"year {game.year}/4, {game.phase}"
    if game.phase == "action":
        where += f", turn {game.turn}/6"
    return (f"Fields of Green — {where}; passing {game.direction}; piles F/L/C/B "
            + "/".join(str(len(p)) for p in game.piles)
            + f"; towers {game.towers_left}, silos {game.silos_left}, equipment {len(game.equipment_stack)}, "
            f"discard {len(game.discard)}")


def farms_text(game, per_row: int = 2) -> str:
    """Every farm with its resources, ``per_row`` farms side by side."""
    blocks = [_player_block(game, p) for p in range(game.num_players)]
    lines: list[str] = []
    for i in range(0, len(blocks), per_row):
        if lines:
            lines.append("")
        lines.extend(_side_by_side(blocks[i:i + per_row]))
    return "\n".join(lines)


def ansi_text(game, viewer: int | None = None) -> str:
    """Compact view: status, farms side by side, the viewer's hand (or the 2-player display), revealed
    picks and the pending decision. Shows only what ``viewer`` may see (no other hands, no face-down
    picks); ``viewer=None`` shows no hand at all."""
    cards = game.cards.locations
    lines = [status_line(game), farms_text(game)]
    if game.two_player:
        if game.display:
            lines.append("display: " + ", ".join(f"{i}:{cards[c].name}" for i, c in enumerate(game.display)))
    elif viewer is not None and game.hands[viewer]:
        lines.append(f"hand of player {viewer}: " + ", ".join(
            f"{i}:{cards[c].name}" for i, c in enumerate(game.hands[viewer])))
    shown = [
        f"player {p}: {cards[c].name}" for p, c in enumerate(game.picks)
        if c is not None and (game.revealed or game.two_player or p == viewer)
    ]
    if shown:
        lines.append("picks: " + "; ".join(shown))
    if game.is_terminal():
        scores = game.scores()
        lines.append("final: " + "; ".join(f"player {p} {s.total} VP" for p, s in enumerate(scores))
                     + f" — winner(s): {', '.join(f'player {w}' for w in game.winners())}")
    else:
        lines.append(f"player {game.current_player} to decide: {game.decision_kind}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# rgb_array: a picture of every farm, drawn with Pillow (imported only here; extra "render")

PILE_COLOUR = {
    "Field": (67, 160, 71),  # green (FOG-CARD-2)
    "Livestock": (211, 47, 47),  # red
    "Construction": (249, 190, 35),  # yellow
    "Building": (126, 48, 160),  # purple
}
TOWER_COLOUR = (30, 110, 220)
SILO_COLOUR = (150, 150, 150)
FALLOW_COLOUR = (70, 62, 56)
EMPTY_COLOUR = (238, 234, 222)
FRONTIER_COLOUR = (224, 218, 200)
BACKGROUND = (250, 248, 242)
INK = (30, 30, 30)


def rgb_array(game, cell_px: int = 30) -> "np.ndarray":
    """An HxWx3 uint8 picture: one panel per farm (card colours by type, towers blue with their water,
    silos grey, fallow cards dark, white dots for equipment), with each player's resources above it
    and the game status on top. Needs Pillow (``pip install 'farmgames[render]'``)."""
    import numpy as np

    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("render_mode='rgb_array' needs Pillow: pip install 'farmgames[render]'") from exc

    g = game.geometry
    cards = game.cards.locations
    font = ImageFont.load_default()
    # one crop box for all farms: the union of their cards plus a margin of one cell (at least 5x5)
    rows = [g.row_col(c)[0] for f in game.farms for c in f.occupied]
    cols = [g.row_col(c)[1] for f in game.farms for c in f.occupied]
    r0, r1 = max(min(rows) - 1, 0), min(max(rows) + 1, g.size - 1)
    c0, c1 = max(min(cols) - 1, 0), min(max(cols) + 1, g.size - 1)
    while r1 - r0 < 4 and (r0 > 0 or r1 < g.size - 1):
        r0, r1 = max(r0 - 1, 0), min(r1 + 1, g.size - 1)
    while c1 - c0 < 4 and (c0 > 0 or c1 < g.size - 1):
        c0, c1 = max(c0 - 1, 0), min(c1 + 1, g.size - 1)
    grid_w, grid_h = (c1 - c0 + 1) * cell_px, (r1 - r0 + 1) * cell_px
    text_h = 40
    panel_w, panel_h = max(grid_w, 200) + 16, grid_h + text_h + 16
    per_row = 2 if game.num_players == 4 else game.num_players
    nrows = (game.num_players + per_row - 1) // per_row
    top = 34
    width, height = per_row * panel_w, top + nrows * panel_h
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    status = status_line(game).replace("—", "-")  # the default bitmap font has no em dash
    head, _, tail = status.partition("; piles")
    draw.text((6, 4), head, fill=INK, font=font)
    if tail:
        draw.text((6, 17), "piles" + tail, fill=INK, font=font)
    for p, farm in enumerate(game.farms):
        x0 = (p % per_row) * panel_w + 8
        y0 = top + (p // per_row) * panel_h
        mark = " *" if game.current_player == p else ""
        first = " (first)" if game.first_player == p else ""
        draw.text((x0, y0), f"player {p}{first}{mark}", fill=INK, font=font)
        draw.text((x0, y0 + 13), f"coins {farm.coins}  food {farm.food}/{farm.food_capacity}  "
                  f"water {farm.water}", fill=INK, font=font)
        draw.text((x0, y0 + 26), f"VP tokens {farm.vp_tokens}  set aside {len(farm.set_aside)}",
                  fill=INK, font=font)
        gy = y0 + text_h
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = g.cell(r, c)
                x, y = x0 + (c - c0) * cell_px, gy + (r - r0) * cell_px
                box = (x + 1, y + 1, x + cell_px - 2, y + cell_px - 2)
                code = farm.grid[cell]
                if code == EMPTY:
                    colour = FRONTIER_COLOUR if cell in farm.frontier else EMPTY_COLOUR
                    draw.rectangle(box, fill=colour)
                    continue
                if code == TOWER:
                    draw.rectangle(box, fill=TOWER_COLOUR)
                    draw.text((x + cell_px // 2 - 3, y + cell_px // 2 - 6), str(farm.tower_water[cell]),
                              fill=(255, 255, 255), font=font)
                elif code == SILO:
                    draw.rectangle(box, fill=SILO_COLOUR)
                    draw.text((x + cell_px // 2 - 3, y + cell_px // 2 - 6), "S", fill=INK, font=font)
                elif cell in farm.fallow:
                    draw.rectangle(box, fill=FALLOW_COLOUR, outline=PILE_COLOUR[cards[code].pile], width=2)
                else:
                    draw.rectangle(box, fill=PILE_COLOUR[cards[code].pile])
                    draw.text((x + 4, y + 3), str(cards[code].vp), fill=(255, 255, 255), font=font)
                for i, _ in enumerate(farm.equipment.get(cell, ())):
                    cx, cy = x + cell_px - 8 - 7 * i, y + cell_px - 8
                    draw.ellipse((cx - 3, cy - 3, cx + 3, cy + 3), fill=(255, 255, 255), outline=INK)
    return np.asarray(image, dtype=np.uint8).copy()
