"""Pictures of a Sunflower Valley game: ANSI text for terminals and an RGB image of every sheet (Pillow).

The image draws each sheet as the paper sheet looks: pointy-top hexes tinted by colour region, grey
mountains, and the drawn symbols (house, sheep, sunflower, super sunflower, straight and curved rails
joining the side midpoints of their open sides); the header names the round, the player to move, the
last action and the dice; each sheet shows its player's inhabitants and score so far (A–F = total); a legend
closes the picture. Pillow is imported inside :func:`rgb_array` only.
"""

from __future__ import annotations

import math
from typing import Any

from .actions import FACES, FALLBACK_START, HOUSE, RAIL_SIDES, SHEEP, SUNFLOWER, SUPER, SYMBOL_CODES
from .hexgrid import COLS, N_HEX, ROW_LETTERS, ROWS, hex_name
from .scoring import EMPTY, MOUNTAIN_CELL
from .sheets import COLOUR_TOKENS, COLOURS, PADS

# region tints (paper-like) and their ANSI 256 backgrounds, in COLOURS order
TINTS = ((150, 200, 235), (248, 190, 120), (200, 165, 225), (160, 215, 140), (240, 140, 135))
ANSI_BG = (117, 215, 183, 114, 210)
MOUNTAIN_TINT = (150, 145, 140)
INK = (40, 35, 30)
PAPER = (250, 247, 236)
RAIL = (90, 60, 40)


def _score_line(score) -> str:
    d = score.as_dict()
    parts = " ".join(f"{k[0]}{d[k]:+d}" if d[k] else f"{k[0]}0" for k in list(d)[:6])
    return f"{parts} = {score.total}"


def _last_action(game) -> str:
    if not game.history:
        return "none yet"
    return game.describe_action(game.history[-1])


def ansi_text(game, viewer: int | None = None) -> str:
    """The table in ANSI colours (every sheet: all information is public, SV-INFO-1)."""
    reset = "\x1b[0m"
    lines = [game.status_text(), f"last action: {_last_action(game)}"]
    scores = game.scores()
    for p in range(game.num_players):
        pad = PADS[game.pads[p]]
        you = " (you)" if viewer == p else ""
        mark = " <- to move" if game.current_player == p else ""
        lines.append(
            f"\nplayer {p}{you}: pad {pad.letter} ({pad.picture}), {game.inhabitants[p]} inhabitants, "
            f"score so far {_score_line(scores[p])}{mark}"
        )
        sheet = game.sheets[p]
        for r in range(ROWS):
            row = "  " + ROW_LETTERS[r] + " " + ("  " if r % 2 else "")
            for h in range(r * COLS, (r + 1) * COLS):
                v, c = sheet[h], game.sheet_map.colour[h]
                if v == MOUNTAIN_CELL:
                    row += "\x1b[48;5;245m ^^ " + reset
                else:
                    tok = COLOUR_TOKENS[c] + " " if v == EMPTY else SYMBOL_CODES[v]
                    row += f"\x1b[48;5;{ANSI_BG[c]}m\x1b[38;5;16m {tok:<2} " + reset
            lines.append(row)
    return "\n".join(lines)


def _hex_points(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    return [
        (cx + radius * math.cos(math.radians(30 + 60 * k)), cy - radius * math.sin(math.radians(30 + 60 * k)))
        for k in range(6)
    ]


def _side_mid(cx: float, cy: float, radius: float, side: int) -> tuple[float, float]:
    d = radius * math.sqrt(3) / 2
    a = math.radians(60 * side)
    return cx + d * math.cos(a), cy - d * math.sin(a)


def _draw_symbol(draw, v: int, cx: float, cy: float, radius: float) -> None:
    u = radius / 10
    if v == HOUSE:
        draw.rectangle((cx - 4 * u, cy - 1 * u, cx + 4 * u, cy + 5 * u), fill=(205, 70, 55), outline=INK, width=2)
        draw.polygon(
            [(cx - 5.5 * u, cy - u), (cx, cy - 6 * u), (cx + 5.5 * u, cy - u)], fill=(120, 40, 35), outline=INK
        )
        draw.rectangle((cx - 1.2 * u, cy + 1.5 * u, cx + 1.2 * u, cy + 5 * u), fill=(250, 220, 120))
    elif v == SHEEP:
        for dx, dy in ((-2.5, 0), (2.5, 0), (0, -2), (0, 2), (-1.5, 1.8), (1.5, -1.8)):
            draw.ellipse(
                (cx + (dx - 3) * u, cy + (dy - 3) * u, cx + (dx + 3) * u, cy + (dy + 3) * u),
                fill=(255, 255, 255),
                outline=(255, 255, 255),
            )
        draw.ellipse((cx + 3.5 * u, cy - 2.5 * u, cx + 7 * u, cy + 1 * u), fill=INK)
        for dx in (-2.5, 2):
            draw.line((cx + dx * u, cy + 4 * u, cx + dx * u, cy + 6.5 * u), fill=INK, width=2)
    elif v in (SUNFLOWER, SUPER):
        petals = (255, 200, 0) if v == SUNFLOWER else (255, 140, 0)
        for k in range(10 if v == SUPER else 8):
            a = 2 * math.pi * k / (10 if v == SUPER else 8)
            px, py = cx + 3.8 * u * math.cos(a), cy + 3.8 * u * math.sin(a)
            draw.ellipse((px - 2.4 * u, py - 2.4 * u, px + 2.4 * u, py + 2.4 * u), fill=petals, outline=(200, 140, 0))
        draw.ellipse((cx - 2.8 * u, cy - 2.8 * u, cx + 2.8 * u, cy + 2.8 * u), fill=(110, 70, 30))
        if v == SUPER:
            draw.text((cx - 2 * u, cy - 3.5 * u), "*", fill=(255, 255, 255))
    elif v in RAIL_SIDES:
        a, b = RAIL_SIDES[v]
        p0, p1 = _side_mid(cx, cy, radius, a), _side_mid(cx, cy, radius, b)
        pts = [
            (
                (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * cx + t * t * p1[0],
                (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * cy + t * t * p1[1],
            )
            for t in (i / 16 for i in range(17))
        ]
        draw.line(pts, fill=RAIL, width=max(int(3.2 * u), 3), joint="curve")
        draw.line(pts, fill=(215, 200, 170), width=max(int(1.0 * u), 1))


def _draw_sheet(draw, game, p: int, x0: float, y0: float, radius: float, fonts) -> None:
    small, big = fonts
    w = math.sqrt(3) * radius
    sheet = game.sheets[p]
    pad = PADS[game.pads[p]]
    to_move = game.current_player == p
    title = f"player {p}  pad {pad.letter} ({pad.picture}, start {hex_name(pad.hex)})" + (
        "   <- to move" if to_move else ""
    )
    if game.first == p:
        title += "   [first player]"
    draw.text((x0, y0), title, fill=(180, 30, 30) if to_move else INK, font=big)
    score = game.scores()[p]
    draw.text((x0, y0 + 22), f"inhabitants {game.inhabitants[p]}   turns {game.turns[p]}", fill=INK, font=small)
    draw.text(
        (x0, y0 + 40), f"score {'' if game.is_terminal() else 'so far '}{_score_line(score)}", fill=INK, font=small
    )
    top = y0 + 74
    for h in range(N_HEX):
        r, c = divmod(h, COLS)
        cx = x0 + 22 + (c + 0.5 * (r % 2) + 0.5) * w
        cy = top + radius + r * 1.5 * radius
        colour = game.sheet_map.colour[h]
        fill = MOUNTAIN_TINT if colour < 0 else TINTS[colour]
        draw.polygon(_hex_points(cx, cy, radius - 1), fill=fill, outline=INK, width=2)
        if colour < 0:
            u = radius / 10
            draw.polygon(
                [(cx - 6 * u, cy + 4 * u), (cx - 1 * u, cy - 5 * u), (cx + 4 * u, cy + 4 * u)],
                fill=(110, 100, 95),
                outline=INK,
            )
            draw.polygon(
                [(cx - 2.5 * u, cy - 2.2 * u), (cx - 1 * u, cy - 5 * u), (cx + 0.6 * u, cy - 2.2 * u)],
                fill=(255, 255, 255),
            )
            draw.polygon(
                [(cx + 1 * u, cy + 4 * u), (cx + 4 * u, cy - 1.5 * u), (cx + 7 * u, cy + 4 * u)],
                fill=(125, 115, 110),
                outline=INK,
            )
        elif sheet[h] >= 0:
            _draw_symbol(draw, sheet[h], cx, cy, radius)
        if c == 0:
            draw.text((x0 + 2 + 0.5 * (r % 2) * w, cy - 7), ROW_LETTERS[r], fill=INK, font=small)
        if r == 0:
            draw.text((cx - 3, top - 14), str(c + 1), fill=INK, font=small)


def _legend(draw, x0: float, y0: float, radius: float, fonts) -> None:
    small, _ = fonts
    items = [
        (HOUSE, "house"),
        (SHEEP, "sheep"),
        (SUNFLOWER, "sunflower"),
        (SUPER, "super sunflower"),
        (4, "straight rail"),
        (8, "curved rail"),
    ]
    x = x0
    for v, label in items:
        _draw_symbol(draw, v, x + radius, y0 + radius, radius)
        draw.text((x + 2 * radius + 4, y0 + radius - 7), label, fill=INK, font=small)
        x += 2 * radius + 14 + 8 * len(label)
    x, y0 = x0, y0 + 2 * radius + 6
    for k, name in enumerate(COLOURS):
        draw.rectangle((x, y0 + radius - 8, x + 16, y0 + radius + 8), fill=TINTS[k], outline=INK)
        draw.text((x + 20, y0 + radius - 7), name, fill=INK, font=small)
        x += 30 + 8 * len(name)
    draw.rectangle((x, y0 + radius - 8, x + 16, y0 + radius + 8), fill=MOUNTAIN_TINT, outline=INK)
    draw.text((x + 20, y0 + radius - 7), "mountain", fill=INK, font=small)


def rgb_array(game, radius: int = 30) -> Any:
    """An H×W×3 uint8 picture of the table (see the module docstring)."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    fonts = (ImageFont.load_default(size=14), ImageFont.load_default(size=17))
    w = math.sqrt(3) * radius
    sheet_w = max(int(22 + (COLS + 0.5) * w + 30), 470)
    sheet_h = int(74 + (ROWS * 1.5 + 0.5) * radius + 24)
    per_row = 2 if game.num_players <= 4 else 3
    rows = -(-game.num_players // per_row)
    width = max(per_row * sheet_w + 20, 900)
    header = 76
    height = header + rows * sheet_h + 100
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    small, big = fonts
    who = "game over" if game.is_terminal() else f"player {game.current_player} to move"
    fb = " (fallback: sunflower anywhere)" if game.fallback() else ""
    draw.text(
        (10, 8), f"Sunflower Valley - layout {game.letter} - round {game.round + 1} - {who}{fb}", fill=INK, font=big
    )
    last = game.history[-1] if game.history else None
    who_last = "" if last is None else f" ({'fallback' if last >= FALLBACK_START else 'normal'})"
    draw.text((10, 32), f"last action: {_last_action(game)}{who_last}", fill=INK, font=small)
    pool = "  ".join(f"{c}x {FACES[f]}" for f, c in enumerate(game.pool) if c) or "empty"
    slots = "  ".join(f"{COLOURS[k]}: {FACES[f] if f >= 0 else 'free'}" for k, f in enumerate(game.slot_face))
    draw.text((10, 52), f"dice pool: {pool}     slots: {slots}", fill=INK, font=small)
    for p in range(game.num_players):
        row, col = divmod(p, per_row)
        _draw_sheet(draw, game, p, 10 + col * sheet_w, header + row * sheet_h, radius, fonts)
    if game.is_terminal():
        won = ", ".join(str(p) for p in game.winners())
        draw.text((10, height - 96), f"final: winner(s) player {won}", fill=(180, 30, 30), font=big)
    _legend(draw, 10, height - 70, 14, fonts)
    return np.asarray(img, dtype=np.uint8)


def save_png(game, path: str) -> None:
    from PIL import Image

    Image.fromarray(rgb_array(game)).save(path)
