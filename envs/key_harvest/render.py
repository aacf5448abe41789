"""Pictures of a Key Harvest state: text (``render_text``), ANSI colour (``ansi_text``) and an RGB image
(``rgb_array``, Pillow, imported inside).

Every picture is viewer-aware: ``viewer`` = a seat shows what that seat may know (its own supply, the
deduced facts about the others, KH-RULING-16); ``viewer=None`` in the text picture is the omniscient view
(every supply), while the RGB picture with ``viewer=None`` shows the public view only (supply totals; every
supply with 2 players), so it can be shown to anyone. Before the end, "scores so far" show the public parts
(groups and workers); crop majorities are added where every supply is known (2 players, or the end).
"""

from __future__ import annotations

from typing import Any

from farmgames.envs.core.observation import viewer_order

from .actions import action_name
from .board import (
    COLS,
    CROP_OF,
    CROPS,
    EVENT_SPACES,
    EVENT_TILES,
    EVENTS,
    FARMHANDS,
    NUM_CROPS,
    NUM_SPACES,
    NUMBER,
    ROW_NAMES,
    ROWS,
    SPACE_NAMES,
    STORE_SPACES,
    TOWNSFOLK_BASE,
    WORKERS,
    worker_kind,
)
from .game import PHASE_OF
from .observer import known_supplies
from .scoring import group_sizes

CROP_LETTER = ("W", "H", "V", "A", "N")  # wheat, hops, vegetables, cider apples, wine (KH-RULING-2 map)
CROP_RGB = ((230, 190, 40), (140, 90, 50), (70, 160, 60), (240, 140, 40), (170, 30, 50))  # KH-COMP-8 colours
PLAYER_RGB = ((200, 40, 40), (40, 90, 200), (40, 150, 70), (200, 170, 20))
ANSI_CROP = ("\x1b[33m", "\x1b[38;5;94m", "\x1b[32m", "\x1b[38;5;208m", "\x1b[31m")
ANSI_RESET = "\x1b[0m"


def tile_name(t: int) -> str:
    return f"{SPACE_NAMES[t]}({CROP_LETTER[CROP_OF[t]]})"


def counters(row: list[int]) -> str:
    return " ".join(f"{CROP_LETTER[c]}{row[c]}" for c in range(NUM_CROPS))


def public_points(game: Any, p: int) -> tuple[int, int]:
    """(group points, worker points) of seat ``p``: public at every moment."""
    sizes = group_sizes(game.fields[p]) + [0, 0]
    workers = sum(NUMBER[worker_kind(game.worker_at[p][s])] for s in range(NUM_SPACES) if game.worker_at[p][s] >= 0)
    return sizes[0] + 2 * sizes[1], workers


def scores_line(game: Any, viewer: int | None, public: bool = False) -> str:
    """Scores so far: full scores when every supply is known to the viewer (``viewer=None`` is omniscient
    unless ``public``), else the public parts."""
    full = game.is_terminal() or game.num_players == 2 or (viewer is None and not public)
    if full:
        return "scores so far: " + ", ".join(f"P{p} {s.total}" for p, s in enumerate(game.scores()))
    parts = [public_points(game, p) for p in range(game.num_players)]
    return "board points so far (groups + workers; majorities hidden): " + ", ".join(
        f"P{p} {g + w}" for p, (g, w) in enumerate(parts)
    )


def board_lines(game: Any, p: int, colour: bool = False) -> list[str]:
    """The country board as hex rows: crop letter upper case = unharvested, lower case = harvested,
    a digit = a farmhand's number, [n] a townsfolk, '.' an empty space; odd rows are shifted right."""
    f, u = game.fields[p], game.unharvested[p]
    out = ["     " + "".join(f"{c + 1:^4}" for c in range(COLS))]
    for r in range(ROWS):
        cells = []
        for c in range(COLS):
            s = r * COLS + c
            tile = game.worker_at[p][s]
            if f >> s & 1:
                letter = CROP_LETTER[CROP_OF[s]]
                sym = letter if u >> s & 1 else letter.lower()
                cell = f"{sym:^4}"
                if colour:
                    cell = ANSI_CROP[CROP_OF[s]] + cell + ANSI_RESET
            elif tile >= 0:
                num = NUMBER[worker_kind(tile)]
                cell = f"[{num}] " if tile >= TOWNSFOLK_BASE else f" {num}  "
            else:
                cell = " .  "
            cells.append(cell)
        out.append(f"  {ROW_NAMES[r]}" + ("   " if r % 2 else " ") + "".join(cells))
    return out


def _supply_text(game: Any, viewer: int | None, q: int) -> str:
    if viewer is None:
        return f"supply {counters(game.supply[q])} (total {sum(game.supply[q])})"
    exact, low, total = known_supplies(game, viewer)
    if exact[q] is not None:
        return f"supply {counters(exact[q])} (total {total[q]})"
    net = game.net[q]
    return (
        f"supply total {total[q]} (hidden; at least {counters(low[q])}; "
        f"public net {' '.join(f'{CROP_LETTER[c]}{net[c]:+d}' for c in range(NUM_CROPS))})"
    )


def _store_text(game: Any, q: int) -> str:
    parts = []
    for k in range(STORE_SPACES):
        t = game.store[q][k]
        if t < 0:
            parts.append(f"{k + 1}: empty")
        else:
            bid = game.bids[q][k]
            bid_text = " ".join(f"{bid[c]}{CROP_LETTER[c]}" for c in range(NUM_CROPS) if bid[c]) or "-"
            new = " (new this turn)" if t in game.new_in_store else ""
            parts.append(f"{k + 1}: {tile_name(t)} bid {bid_text}{new}")
    return "store [" + "; ".join(parts) + "]"


def header_lines(game: Any, viewer: int | None, public: bool = False) -> list[str]:
    n = game.num_players
    who = ("public view" if public else "omniscient view") if viewer is None else f"view of player {viewer}"
    lines = [f"Key Harvest, {n} players ({who})"]
    if game.is_terminal():
        lines.append(
            "GAME OVER"
            + (" (safety limit reached, truncated)" if game.truncated else "")
            + f"; winners: {', '.join(f'P{p}' for p in game.winners())}"
        )
    else:
        f = game.frame
        lines.append(
            f"round {game.rounds + 1}, turn of P{game.active} (start player P{game.start_player}); "
            f"acting: P{f[1]}; phase {PHASE_OF[f[0]]}"
            + (f"; end triggered, {game.turns_left} turns left" if game.end_triggered else "")
        )
        letters = "".join(ch for i, ch in enumerate("abcd") if game.taken >> i & 1) or "-"
        lines.append(f"actions taken: {game.actions_taken}/2, letters used: {letters}")
    if game.history:
        lines.append(f"last action: {game.history[-1]} ({action_name(game.history[-1])})")
    ev = [EVENTS[EVENT_TILES[t - NUM_SPACES]].name for t in game.events]
    lines.append(f"events ({len(ev)}/{EVENT_SPACES}): " + (", ".join(ev) or "none"))
    fields_in_bag = sum(1 for t in game.bag if t < NUM_SPACES)
    lines.append(
        f"bag: {fields_in_bag} field tiles, {len(game.bag) - fields_in_bag} event tiles"
        + (f"; {len(game.removed)} events removed unseen" if game.removed else "")
    )
    lines.append(
        "registry: " + "  ".join(f"{i + 1}:{tile_name(t) if t >= 0 else '--'}" for i, t in enumerate(game.registry))
    )
    lines.append(f"general stock: {counters(game.stock)}")
    town = [f"{WORKERS[6 + t].name}({NUMBER[6 + t]})" for t in range(6) if game.town[t] < 0]
    lines.append("townsfolk in town: " + (", ".join(town) or "none"))
    if game.fallow:
        lines.append("fallow: " + ", ".join(tile_name(t) for t in game.fallow))
    lines.append(scores_line(game, viewer, public))
    return lines


def render_text(game: Any, viewer: int | None, colour: bool = False) -> str:
    """The whole table as text, from ``viewer``'s seat (None: omniscient)."""
    lines = header_lines(game, viewer)
    n = game.num_players
    order = range(n) if viewer is None else viewer_order(n, viewer)
    for q in order:
        tag = " (you)" if q == viewer else ""
        off = [WORKERS[k].name for k in range(FARMHANDS) if game.worker_space[FARMHANDS * q + k] < 0]
        lines.append("")
        lines.append(f"P{q}{tag}, {game.pairs[q]} start pair: {_supply_text(game, viewer, q)}")
        lines.append("  " + _store_text(game, q))
        lines.append("  farmhands beside the board: " + (", ".join(off) or "none"))
        lines += ["  " + line for line in board_lines(game, q, colour)]
    lines.append("")
    lines.append(
        "legend: W wheat, H hops, V vegetables, A cider apples, N wine; upper case unharvested, "
        "lower case harvested; 1-3 farmhand, [4]/[5] townsfolk"
    )
    return "\n".join(lines)


def ansi_text(game: Any, viewer: int | None) -> str:
    return render_text(game, viewer, colour=True)


# ------------------------------------------------------------------------------------------ RGB


def _hex_points(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    import math

    return [
        (cx + r * math.cos(math.radians(60 * i - 30)), cy + r * math.sin(math.radians(60 * i - 30))) for i in range(6)
    ]


def _draw_board(draw: Any, font: Any, game: Any, p: int, x0: int, y0: int, r: float, title: str) -> None:
    w = r * 3**0.5
    draw.text((x0, y0), title, fill=PLAYER_RGB[p], font=font)
    y0 += 30
    f, u = game.fields[p], game.unharvested[p]
    for s in range(NUM_SPACES):
        row, col = divmod(s, COLS)
        cx = x0 + 20 + w / 2 + col * w + (w / 2 if row % 2 else 0)
        cy = y0 + r + row * 1.5 * r
        pts = _hex_points(cx, cy, r - 1)
        tile = game.worker_at[p][s]
        if f >> s & 1:
            base = CROP_RGB[CROP_OF[s]]
            fill = base if u >> s & 1 else tuple(int(v * 0.45 + 255 * 0.55) for v in base)
            draw.polygon(pts, fill=fill, outline=(60, 60, 60))
            label = CROP_LETTER[CROP_OF[s]] if u >> s & 1 else CROP_LETTER[CROP_OF[s]].lower()
            draw.text((cx - 4, cy - 7), label, fill=(0, 0, 0), font=font)
        elif tile >= 0:
            draw.polygon(pts, fill=(235, 235, 235), outline=(60, 60, 60))
            num = NUMBER[worker_kind(tile)]
            colour = (90, 20, 120) if tile >= TOWNSFOLK_BASE else PLAYER_RGB[p]
            draw.ellipse((cx - r * 0.6, cy - r * 0.6, cx + r * 0.6, cy + r * 0.6), fill=colour)
            draw.text((cx - 3, cy - 7), str(num), fill=(255, 255, 255), font=font)
        else:
            draw.polygon(pts, fill=(250, 248, 240), outline=(200, 200, 190))
        if col == 0:
            draw.text((x0 + 2, cy - 7), ROW_NAMES[row], fill=(120, 120, 120), font=font)
    for col in range(COLS):
        draw.text((x0 + 20 + w / 2 + col * w - 3, y0 - 13), str(col + 1), fill=(120, 120, 120), font=font)


def _draw_counters(draw: Any, font: Any, x: int, y: int, row: list[int], size: int = 10) -> int:
    """Counter discs per crop with the count; returns the x after the last."""
    for c in range(NUM_CROPS):
        draw.ellipse((x, y, x + size, y + size), fill=CROP_RGB[c], outline=(40, 40, 40))
        draw.text((x + size + 2, y - 2), str(row[c]), fill=(0, 0, 0), font=font)
        x += size + 20
    return x


def rgb_array(game: Any, viewer: int | None = None) -> Any:
    """An HxWx3 uint8 picture: town board (registry, event spaces, townsfolk, stock, bag), every store and
    country board as hexes, legend, acting player, last action, scores so far (public view by default)."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    n = game.num_players
    r = 16
    board_w, board_h = 450, int(r * 1.5 * 7 + r) + 140
    width = 2 * board_w + 20
    rows_of_boards = (n + 1) // 2
    height = 250 + rows_of_boards * board_h
    img = Image.new("RGB", (width, height), (255, 253, 245))
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    # header
    y = 8
    for line in [t for t in header_lines(game, viewer, public=True) if not t.startswith("last action")][:3]:
        draw.text((10, y), line, fill=(0, 0, 0), font=font)
        y += 14
    if game.history:
        last = game.history[-1]
        draw.text((10, y), f"last action: {last} ({action_name(last)})", fill=(0, 0, 0), font=font)
    y += 18
    # town board: registry
    draw.rectangle((8, y, width - 8, y + 150), outline=(120, 100, 60), fill=(245, 235, 210))
    draw.text((16, y + 4), "Town board - land registry", fill=(80, 60, 20), font=font)
    for i, t in enumerate(game.registry):
        cx, cy = 40 + i * 46, y + 40
        if t >= 0:
            draw.polygon(_hex_points(cx, cy, 18), fill=CROP_RGB[CROP_OF[t]], outline=(60, 60, 60))
            draw.text((cx - 8, cy - 7), SPACE_NAMES[t], fill=(0, 0, 0), font=font)
        else:
            draw.polygon(_hex_points(cx, cy, 18), fill=(230, 225, 210), outline=(160, 160, 160))
        draw.text((cx - 3, cy + 20), str(i + 1), fill=(100, 100, 100), font=font)
    # event spaces
    ex = 320
    draw.text((ex, y + 4), "event spaces", fill=(80, 60, 20), font=font)
    for i in range(EVENT_SPACES):
        x = ex + i * 56
        draw.rectangle(
            (x, y + 20, x + 52, y + 50),
            outline=(120, 100, 60),
            fill=(255, 255, 255) if i < len(game.events) else (235, 225, 200),
        )
        if i < len(game.events):
            name = EVENTS[EVENT_TILES[game.events[i] - NUM_SPACES]].name
            words = name.split()
            for j, wd in enumerate(words[:2]):
                draw.text((x + 3, y + 22 + 12 * j), wd[:9], fill=(0, 0, 0), font=font)
    # townsfolk, stock, bag
    draw.text((16, y + 76), "townsfolk:", fill=(80, 60, 20), font=font)
    tx = 90
    for t in range(6):
        owner = game.town[t]
        label = f"{WORKERS[6 + t].name} {NUMBER[6 + t]}" + ("" if owner < 0 else f" (P{owner})")
        draw.text((tx, y + 76), label, fill=(0, 0, 0) if owner < 0 else (150, 150, 150), font=font)
        tx += len(label) * 6 + 14
    draw.text((16, y + 92), "general stock:", fill=(80, 60, 20), font=font)
    _draw_counters(draw, font, 110, y + 94, game.stock)
    fields_in_bag = sum(1 for t in game.bag if t < NUM_SPACES)
    draw.text(
        (16, y + 112),
        f"bag: {fields_in_bag} field tiles, {len(game.bag) - fields_in_bag} event tiles"
        + (f"   fallow: {', '.join(SPACE_NAMES[t] for t in game.fallow)}" if game.fallow else ""),
        fill=(0, 0, 0),
        font=font,
    )
    draw.text((16, y + 130), scores_line(game, viewer, public=True), fill=(0, 0, 0), font=font)
    y += 160
    # legend
    lx = 10
    for c in range(NUM_CROPS):
        draw.polygon(_hex_points(lx + 8, y + 8, 8), fill=CROP_RGB[c], outline=(60, 60, 60))
        draw.text((lx + 20, y + 2), f"{CROP_LETTER[c]} {CROPS[c]}", fill=(0, 0, 0), font=font)
        lx += 118
    draw.text((lx, y + 2), "pale = harvested; disc = worker, purple = townsfolk", fill=(0, 0, 0), font=font)
    y += 26
    exact, low, total = known_supplies(game, viewer if viewer is not None else -1) if n else ([], [], [])
    for q in range(n):
        bx = 10 + (q % 2) * (board_w + 10)
        by = y + (q // 2) * board_h
        marker = "  <- acting" if q == game.current_player else ""
        active = " (active)" if q == game.active and not game.is_terminal() else ""
        _draw_board(draw, font, game, q, bx, by, r, f"Player {q}{active}{marker}")
        sy = by + int(r * 1.5 * 7 + r) + 40
        draw.text((bx, sy), "store:", fill=(0, 0, 0), font=font)
        sx = bx + 44
        for k in range(STORE_SPACES):
            t = game.store[q][k]
            draw.rectangle((sx, sy - 2, sx + 180, sy + 30), outline=(120, 120, 120))
            if t >= 0:
                draw.polygon(_hex_points(sx + 16, sy + 14, 13), fill=CROP_RGB[CROP_OF[t]], outline=(60, 60, 60))
                draw.text((sx + 8, sy + 7), SPACE_NAMES[t], fill=(0, 0, 0), font=font)
                bx2 = sx + 34
                for c in range(NUM_CROPS):
                    for _ in range(game.bids[q][k][c]):
                        draw.ellipse((bx2, sy + 9, bx2 + 9, sy + 18), fill=CROP_RGB[c], outline=(40, 40, 40))
                        bx2 += 11
            sx += 188
        known = exact[q] if viewer is not None or n == 2 else None
        if viewer is None and n == 2:
            known = [game.start[q][c] + game.net[q][c] for c in range(NUM_CROPS)]
        draw.text((bx, sy + 38), "supply:", fill=(0, 0, 0), font=font)
        if known is not None:
            _draw_counters(draw, font, bx + 50, sy + 40, known)
        else:
            draw.text((bx + 50, sy + 38), f"{total[q]} counters behind the screen", fill=(0, 0, 0), font=font)
        off = [WORKERS[k].name[:4] for k in range(FARMHANDS) if game.worker_space[FARMHANDS * q + k] < 0]
        draw.text((bx, sy + 56), "farmhands off board: " + (" ".join(off) or "none"), fill=(0, 0, 0), font=font)
    return np.asarray(img, dtype=np.uint8)
