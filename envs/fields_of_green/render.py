"""Text pictures of a game: farms as grids, resources, phase. Used by ``str(game)`` and ansi render.

Symbols: ``T`` water tower (digit = water held), ``S`` silo, ``F``/``L``/``C``/``B`` face-up
locations by pile, lower case = fallow, ``+`` = carries equipment, ``.`` empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .farm import EMPTY, SILO, TOWER, Farm

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

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
    lines = [
        head,
        "piles F/L/C/B: "
        + "/".join(str(len(p)) for p in game.piles)
        + f"  towers {game.towers_left}  silos {game.silos_left}  equipment {len(game.equipment_stack)}"
        + f"  discard {len(game.discard)}",
    ]
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
    stats = (
        f"coins {farm.coins}  food {farm.food}/{farm.food_capacity}  water {farm.water}  "
        f"VP tok {farm.vp_tokens}  aside {len(farm.set_aside)}"
    )
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
    return (
        f"Fields of Green — {where}; passing {game.direction}; piles F/L/C/B "
        + "/".join(str(len(p)) for p in game.piles)
        + f"; towers {game.towers_left}, silos {game.silos_left}, equipment {len(game.equipment_stack)}, "
        f"discard {len(game.discard)}"
    )


def farms_text(game, per_row: int = 2) -> str:
    """Every farm with its resources, ``per_row`` farms side by side."""
    blocks = [_player_block(game, p) for p in range(game.num_players)]
    lines: list[str] = []
    for i in range(0, len(blocks), per_row):
        if lines:
            lines.append("")
        lines.extend(_side_by_side(blocks[i : i + per_row]))
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
        lines.append(
            f"hand of player {viewer}: " + ", ".join(f"{i}:{cards[c].name}" for i, c in enumerate(game.hands[viewer]))
        )
    shown = [
        f"player {p}: {cards[c].name}"
        for p, c in enumerate(game.picks)
        if c is not None and (game.revealed or game.two_player or p == viewer)
    ]
    if shown:
        lines.append("picks: " + "; ".join(shown))
    if game.is_terminal():
        scores = game.scores()
        lines.append(
            "final: "
            + "; ".join(f"player {p} {s.total} VP" for p, s in enumerate(scores))
            + f" — winner(s): {', '.join(f'player {w}' for w in game.winners())}"
        )
    else:
        lines.append(f"player {game.current_player} to decide: {game.decision_kind}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# decisions in words, for a viewer (the pictures' "last action" line and the browser viewer)

#: what the seat to decide is asked, by decision kind
DECISION_WORDS = {
    "split": "choose a draw split (Field/Livestock/Construction/Building)",
    "pick": "pick a card",
    "act": "take an action (A build, B tower, C silo, D market, E restore)",
    "pay_water": "pay water for the harvest",
    "store_water": "store water on a tower",
    "harvest": "harvest a location, or end the harvest",
    "keep_equipment": "keep one of the drawn equipment tiles",
    "place_equipment": "place the kept equipment, or set it aside",
    "attach": "attach set-aside equipment, or stop",
    "ability_target": "choose a structure for an ability",
    "ability_option": "choose how many times to trade",
}


def decision_hidden(game, seat: int, viewer: int | None) -> bool:
    """Would the words of ``seat``'s pending decision in ``game`` tell ``viewer`` something it may not
    know? A 3-4 player pick names a card of a hidden hand, keeping equipment names a tile drawn face down
    (FOG-INFO); ``viewer=None`` is the public view."""
    if viewer == seat:
        return False
    kind = game.decision_kind
    return (kind == "pick" and not game.two_player) or kind == "keep_equipment"


def decision_text(game, seat: int, action: int, viewer: int | None) -> str:
    """``seat`` taking ``action`` in ``game`` (the state before it), worded for ``viewer``: the action's
    description, or what anyone sees when the choice is hidden from ``viewer``."""
    if decision_hidden(game, seat, viewer):
        if game.decision_kind == "pick":
            return f"player {seat} picks a card (face down)"
        return f"player {seat} keeps one of the drawn equipment tiles"
    return f"player {seat}: {game.describe_action(action)}"


# ------------------------------------------------------------------------------------------------
# rgb_array: a picture of every farm, drawn with Pillow (imported only when drawing; extra "render")

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
FRONTIER_COLOUR = (214, 226, 200)
BACKGROUND = (250, 248, 242)
INK = (30, 30, 30)


def _legend_items():
    from ..core.render import LegendItem

    return [
        *(LegendItem(f"{pile} (printed VP)", colour, symbol="2") for pile, colour in PILE_COLOUR.items()),
        LegendItem("Water Tower (water held/capacity)", TOWER_COLOUR, symbol="3"),
        LegendItem("Silo", SILO_COLOUR, symbol="S"),
        LegendItem("fallow card (dark, pile colour outline)", FALLOW_COLOUR),
        LegendItem("empty: may be built next to the farm", FRONTIER_COLOUR),
        LegendItem("equipment tile on the card", (255, 255, 255), shape="dot"),
        LegendItem("player to decide (coloured frame)", (255, 193, 7), shape="outline"),
        LegendItem("cell of the last action", LAST_COLOUR, shape="outline"),
        LegendItem("harvested this harvest (white corner)", (255, 255, 255), shape="corner"),
    ]


def _crop(game) -> tuple[int, int, int, int]:
    """One crop box for all farms: the union of their cards plus a margin of one cell (at least 5x5)."""
    g = game.geometry
    rows = [g.row_col(c)[0] for f in game.farms for c in f.occupied]
    cols = [g.row_col(c)[1] for f in game.farms for c in f.occupied]
    r0, r1 = max(min(rows) - 1, 0), min(max(rows) + 1, g.size - 1)
    c0, c1 = max(min(cols) - 1, 0), min(max(cols) + 1, g.size - 1)
    while r1 - r0 < 4 and (r0 > 0 or r1 < g.size - 1):
        r0, r1 = max(r0 - 1, 0), min(r1 + 1, g.size - 1)
    while c1 - c0 < 4 and (c0 > 0 or c1 < g.size - 1):
        c0, c1 = max(c0 - 1, 0), min(c1 + 1, g.size - 1)
    return r0, r1, c0, c1


#: action kinds whose argument is a cell of the acting player's farm (the last one is outlined)
CELL_KINDS = frozenset(
    ("build", "tower", "silo", "restore", "pay_water", "store_water", "harvest", "place_equipment", "ability_target")
)
LAST_COLOUR = (255, 87, 34)


def last_cell(game, previous, viewer: int | None) -> tuple[int, int] | None:
    """``(seat, cell)`` the last action happened at, when it names a cell the viewer may know of."""
    if previous is None or not game.history or previous.current_player is None:
        return None
    seat = previous.current_player
    if decision_hidden(previous, seat, viewer):
        return None
    kind, arg = game.layout.decode(int(game.history[-1]))
    return (seat, arg) if kind in CELL_KINDS else None


def _draw_cell(draw, game, farm, cell: int, box: tuple[int, int, int, int]) -> None:
    """One farm cell: colour by kind, the card's name (short), its printed VP, water, equipment dots."""
    from ..core.render import font, ink_on, wrap

    cards = game.cards.locations
    x, y, x1, y1 = box
    size = x1 - x
    small = 10 if size >= 44 else 8
    code = farm.grid[cell]
    if code == EMPTY:
        draw.rectangle(box, fill=FRONTIER_COLOUR if cell in farm.frontier else EMPTY_COLOUR)
        return
    if code == TOWER:
        draw.rectangle(box, fill=TOWER_COLOUR)
        draw.text((x + 3, y + 2), "Tower", fill=(255, 255, 255), font=font(small))
        water = f"{farm.tower_water[cell]}/{farm.tower_capacity.get(cell, 0)}"
        draw.text((x + 3, y1 - small - 6), water, fill=(255, 255, 255), font=font(small + 3))
    elif code == SILO:
        draw.rectangle(box, fill=SILO_COLOUR)
        draw.text((x + 3, y + 2), "Silo", fill=INK, font=font(small))
        draw.text((x + 3, y1 - small - 6), "S", fill=INK, font=font(small + 3))
    else:
        card = cards[code]
        fallow = cell in farm.fallow
        colour = PILE_COLOUR[card.pile]
        if fallow:
            draw.rectangle(box, fill=FALLOW_COLOUR, outline=colour, width=3)
            ink = (215, 210, 200)
        else:
            draw.rectangle(box, fill=colour)
            ink = ink_on(colour)
        lines = wrap(draw, card.name, size - 6, small, max_lines=3 if size >= 44 else 2)
        for i, line in enumerate(lines):
            draw.text((x + 3, y + 2 + i * (small + 2)), line, fill=ink, font=font(small))
        vp = "fallow" if fallow else f"{card.vp}"
        draw.text((x + 3, y1 - small - 5), vp, fill=ink, font=font(small + (0 if fallow else 2)))
    for i, _ in enumerate(farm.equipment.get(cell, ())):
        cx, cy = x1 - 7 - 9 * i, y1 - 7
        draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=(255, 255, 255), outline=INK)


def _draw_farm(draw, game, p: int, x0: int, y0: int, width: int, crop, cell_px: int, scores, mark=None) -> None:
    """One player's panel: a header in the seat colour, resources, then the farm grid with axes."""
    from ..core.render import HIGHLIGHT, PANEL, RULE, font, ink_on, seat_colour, text_width

    r0, r1, c0, c1 = crop
    g = game.geometry
    farm = game.farms[p]
    acting = game.current_player == p
    height = _farm_height(crop, cell_px)
    draw.rectangle(
        (x0, y0, x0 + width - 1, y0 + height - 1),
        fill=PANEL,
        outline=HIGHLIGHT if acting else RULE,
        width=4 if acting else 1,
    )
    colour = seat_colour(p)
    draw.rectangle((x0 + 4, y0 + 4, x0 + width - 5, y0 + 24), fill=colour)
    tags = (["first player"] if game.first_player == p else []) + (["to decide"] if acting else [])
    title = f"player {p}" + (f"  ({', '.join(tags)})" if tags else "")
    draw.text((x0 + 9, y0 + 7), title, fill=ink_on(colour), font=font(14))
    score = f"{scores[p]} VP" if scores is not None else ""
    if score:
        draw.text((x0 + width - 12 - text_width(draw, score, 14), y0 + 7), score, fill=ink_on(colour), font=font(14))
    stats = (
        f"coins {farm.coins}   food {farm.food}/{farm.food_capacity}   water {farm.water}   "
        f"VP tokens {farm.vp_tokens}   set aside {len(farm.set_aside)}"
    )
    draw.text((x0 + 9, y0 + 30), stats, fill=INK, font=font(12))
    gx, gy = x0 + 28, y0 + 50 + 14
    harvesting = game.phase == "harvest" and acting
    for c in range(c0, c1 + 1):
        draw.text((gx + (c - c0) * cell_px + cell_px // 2 - 4, gy - 14), str(c), fill=(110, 110, 110), font=font(11))
    for r in range(r0, r1 + 1):
        draw.text((x0 + 10, gy + (r - r0) * cell_px + cell_px // 2 - 6), str(r), fill=(110, 110, 110), font=font(11))
        for c in range(c0, c1 + 1):
            x, y = gx + (c - c0) * cell_px, gy + (r - r0) * cell_px
            cell = g.cell(r, c)
            _draw_cell(draw, game, farm, cell, (x + 1, y + 1, x + cell_px - 2, y + cell_px - 2))
            if harvesting and cell in game.harvested:
                x1 = x + cell_px - 2
                draw.polygon([(x1 - 13, y + 1), (x1, y + 1), (x1, y + 14)], fill=(255, 255, 255), outline=INK)
    if mark is not None and mark[0] == p:
        r, c = g.row_col(mark[1])
        if r0 <= r <= r1 and c0 <= c <= c1:
            x, y = gx + (c - c0) * cell_px, gy + (r - r0) * cell_px
            draw.rectangle((x - 1, y - 1, x + cell_px, y + cell_px), outline=LAST_COLOUR, width=4)


def _farm_height(crop, cell_px: int) -> int:
    r0, r1, _, _ = crop
    return 50 + 14 + (r1 - r0 + 1) * cell_px + 10


def _cards_lines(game, viewer: int | None) -> list[str]:
    """The cards a viewer may see outside the farms: the 2-player display, revealed picks, its own hand
    and pick."""
    cards = game.cards.locations
    lines = []
    if game.two_player and game.display:
        lines.append("display: " + ", ".join(f"{i}: {cards[c].name}" for i, c in enumerate(game.display)))
    if viewer is not None and not game.two_player and game.hands[viewer]:
        lines.append(
            f"hand of player {viewer}: " + ", ".join(f"{i}: {cards[c].name}" for i, c in enumerate(game.hands[viewer]))
        )
    shown = [
        f"player {p}: {cards[c].name}"
        for p, c in enumerate(game.picks)
        if c is not None and (game.revealed or game.two_player or p == viewer)
    ]
    if shown:
        lines.append("picks: " + "; ".join(shown))
    return lines


def _title_info(game, viewer: int | None, previous):
    from ..core.render import TitleInfo

    if game.is_terminal():
        status = "game over"
    else:
        status = f"year {game.year}/4, {game.phase}" + (f", turn {game.turn}/6" if game.phase == "action" else "")
        status += f"; passing {game.direction}"
    status += (
        "; piles F/L/C/B "
        + "/".join(str(len(p)) for p in game.piles)
        + f"; towers {game.towers_left}, silos {game.silos_left}, equipment {len(game.equipment_stack)}"
    )
    last = ""
    if previous is not None and game.history:
        last = decision_text(previous, previous.current_player, game.history[-1], viewer)
    seat = game.current_player
    kind = game.decision_kind
    scores = [s.total for s in game.scores()]
    asked = DECISION_WORDS.get(kind, kind or "")
    if game.is_terminal():
        asked = "winner(s): " + ", ".join(f"player {w}" for w in game.winners())
    return TitleInfo(
        title="Fields of Green",
        status=status,
        acting=seat,
        acting_text=asked,
        last=last,
        scores=scores,
        score_label="final VP" if game.is_terminal() else "VP so far",
        viewer=viewer,
    )


def _public_same(a, b) -> bool:
    return ansi_text(a) == ansi_text(b)


def rgb_array(game, cell_px: int = 58, viewer: int | None = None, previous=None) -> np.ndarray:
    """An HxWx3 uint8 picture of the table, readable at a glance: a title bar (year, phase and turn,
    who decides what, the last action, scores so far), one panel per farm (cards coloured by type with
    their names and printed VP, towers with their water, silos, fallow cards, equipment dots, grid
    coordinates as in the action texts) and a legend. ``viewer=None`` shows only public things (so
    anyone may see it); ``viewer=seat`` adds that seat's hand and pick and words the last action as that
    seat saw it. ``previous`` is the state before the last action (rebuilt from the record when not
    given). Needs Pillow (``pip install 'farmgames[render]'``)."""
    from ..core import render as core

    if previous is None:
        previous = core.previous_state(game, type(game).replay, _public_same)
    crop = _crop(game)
    r0, r1, c0, c1 = crop
    panel_w = max(28 + (c1 - c0 + 1) * cell_px + 12, 380)
    per_row = 2 if game.num_players == 4 else game.num_players
    nrows = (game.num_players + per_row - 1) // per_row
    gap = 10
    width = per_row * panel_w + (per_row + 1) * gap
    info = _title_info(game, viewer, previous)
    mark = last_cell(game, previous, viewer)
    title_h = core.measure(core.title_bar, width, info)
    extra = _cards_lines(game, viewer)
    extra_h = core.measure(core.text_panel, width - 2 * gap, extra, "cards in view") + gap if extra else 0
    legend = _legend_items()
    legend_h = core.measure(core.legend_box, width - 2 * gap, legend)
    farm_h = _farm_height(crop, cell_px)
    height = title_h + gap + nrows * (farm_h + gap) + extra_h + legend_h + gap
    image, draw = core.new_image(width, height, BACKGROUND)
    core.title_bar(draw, 0, 0, width, info)
    y = title_h + gap
    for p in range(game.num_players):
        x0 = gap + (p % per_row) * (panel_w + gap)
        y0 = y + (p // per_row) * (farm_h + gap)
        _draw_farm(draw, game, p, x0, y0, panel_w, crop, cell_px, info.scores, mark)
    y += nrows * (farm_h + gap)
    if extra:
        y += core.text_panel(draw, gap, y, width - 2 * gap, extra, "cards in view") + gap
    core.legend_box(draw, gap, y, width - 2 * gap, legend)
    return core.to_array(image)
