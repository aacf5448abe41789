"""Game-agnostic picture helpers: Pillow import guard, palettes, fonts, text panels, legends, title bars.

Every game's ``rgb_array`` is built from these blocks so the pictures of the suite read the same way: a
title bar on top (game, phase, whose turn, the last action, scores so far), the game's own board in the
middle, a legend explaining every colour and symbol at the bottom. Pure Python + numpy + Pillow; Pillow
is imported only when a picture is drawn (extra ``render``), so importing this module costs nothing.

Blocks are functions ``block(draw, x, y, width, ...) -> height``: they draw at ``(x, y)`` and return the
height they used. :func:`measure` runs a block on a scratch image to learn its height first, so a picture
can be sized before it is drawn. Text goes through :func:`plain`, because the font bundled with Pillow
(the one used everywhere, so pictures are identical on every machine) has no dashes or arrows.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

Colour = tuple[int, int, int]

BACKGROUND: Colour = (250, 248, 242)
PANEL: Colour = (255, 255, 255)
INK: Colour = (30, 30, 30)
MUTED: Colour = (110, 110, 110)
RULE: Colour = (205, 200, 188)
TITLE_BG: Colour = (46, 64, 52)
TITLE_INK: Colour = (255, 255, 255)
TITLE_MUTED: Colour = (200, 214, 200)
HIGHLIGHT: Colour = (255, 193, 7)
WHITE: Colour = (255, 255, 255)

#: one colour per seat (player 0, 1, …), distinct from the usual board colours; wraps around
SEAT_COLOURS: tuple[Colour, ...] = (
    (0, 114, 178),  # blue
    (213, 94, 0),  # vermilion
    (0, 158, 115),  # bluish green
    (204, 121, 167),  # reddish purple
    (86, 180, 233),  # sky blue
    (230, 159, 0),  # orange
)

_ASCII = str.maketrans(
    {
        "\u2014": "-",
        "\u2013": "-",
        "\u2012": "-",
        "\u2212": "-",
        "\u2192": "->",
        "\u2190": "<-",
        "\u2191": "^",
        "\u2193": "v",
        "\u2713": "ok",
        "\u2717": "x",
        "\u00d7": "x",
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2264": "<=",
        "\u2265": ">=",
        "\u2022": "\u00b7",
    }
)


def require_pillow() -> tuple[Any, Any, Any]:
    """``(Image, ImageDraw, ImageFont)`` from Pillow, or an ImportError that says how to install it."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "pictures (render_mode='rgb_array', farmgames view) need Pillow: pip install 'farmgames[render]'"
        ) from exc
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=16)
def font(size: int = 13) -> Any:
    """Pillow's bundled font at ``size`` px (the same glyphs on every machine); the bitmap font if this
    Pillow cannot scale it."""
    _, _, image_font = require_pillow()
    try:
        return image_font.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1
        return image_font.load_default()


def plain(text: str) -> str:
    """``text`` with the characters the bundled font lacks (dashes, arrows, curly quotes) made ASCII."""
    return str(text).translate(_ASCII)


def seat_colour(seat: int) -> Colour:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def text_width(draw: Any, text: str, size: int = 13) -> int:
    left, _, right, _ = draw.textbbox((0, 0), plain(text), font=font(size))
    return int(right - left)


def line_height(size: int = 13) -> int:
    return size + max(3, size // 3)


def ink_on(colour: Colour) -> Colour:
    """Black or white, whichever reads better on ``colour`` (relative luminance)."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else WHITE


def wrap(draw: Any, text: str, width: int, size: int = 13, max_lines: int | None = None) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` px (a word that is too long is cut);
    with ``max_lines`` the last line ends in ``…`` when text was left out."""
    words = plain(text).split()
    lines: list[str] = []
    current = ""
    for word in words:
        trial = f"{current} {word}".strip()
        if text_width(draw, trial, size) <= width or not current:
            current = trial
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    lines = [_cut(draw, line, width, size) for line in lines]
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = _cut(draw, lines[-1] + "\u2026", width, size, force_ellipsis=True)
    return lines


def _cut(draw: Any, text: str, width: int, size: int, force_ellipsis: bool = False) -> str:
    if text_width(draw, text, size) <= width and not (force_ellipsis and not text.endswith("\u2026")):
        return text
    base = text.rstrip("\u2026")
    while base and text_width(draw, base + "\u2026", size) > width:
        base = base[:-1]
    return base + "\u2026"


def short_label(name: str, max_chars: int = 10) -> str:
    """A compact label of a name for a small cell: the name if short, else its words cut to fit
    (``"Honeycrisp Pear Orchard"`` -> ``"Honeycr Pear Orch"`` when the cell is tiny)."""
    name = plain(name)
    if len(name) <= max_chars:
        return name
    words = name.split()
    per = max(3, max_chars // max(1, min(len(words), 3)))
    return " ".join(w[:per] for w in words[:3])


# ------------------------------------------------------------------------------------------------ blocks


def measure(block: Callable[..., int], *args: Any, **kwargs: Any) -> int:
    """The height ``block(draw, 0, 0, *args, **kwargs)`` would use (drawn on a scratch image)."""
    image_mod, draw_mod, _ = require_pillow()
    scratch = draw_mod.Draw(image_mod.new("RGB", (4, 4)))
    return int(block(scratch, 0, 0, *args, **kwargs))


def text_lines(
    draw: Any,
    x: int,
    y: int,
    width: int,
    lines: Sequence[str],
    size: int = 13,
    fill: Colour = INK,
    max_lines_each: int | None = None,
) -> int:
    """Lines of text wrapped to ``width``; returns the height used."""
    step = line_height(size)
    h = 0
    for line in lines:
        for part in wrap(draw, line, width, size, max_lines_each) or [""]:
            draw.text((x, y + h), part, fill=fill, font=font(size))
            h += step
    return h


def text_panel(
    draw: Any,
    x: int,
    y: int,
    width: int,
    lines: Sequence[str],
    title: str | None = None,
    size: int = 13,
    fill: Colour = PANEL,
    border: Colour = RULE,
    pad: int = 6,
) -> int:
    """A boxed block of wrapped lines with an optional title; returns its height."""
    inner = width - 2 * pad
    h = pad
    body_y = y + pad
    if title:
        body_y += line_height(size + 1)
        h += line_height(size + 1)
    body = measure(text_lines, inner, lines, size) if lines else 0
    h += body + pad
    draw.rectangle((x, y, x + width - 1, y + h - 1), fill=fill, outline=border)
    if title:
        draw.text((x + pad, y + pad), plain(title), fill=INK, font=font(size + 1))
    if lines:
        text_lines(draw, x + pad, body_y, inner, lines, size)
    return h


@dataclass(frozen=True)
class LegendItem:
    """One legend entry: a swatch (``"box"``, ``"dot"``, ``"outline"``, ``"corner"``) in ``colour`` with an optional
    symbol drawn on it, and the words that explain it."""

    label: str
    colour: Colour
    shape: str = "box"
    symbol: str = ""
    symbol_colour: Colour | None = None


def _swatch(draw: Any, x: int, y: int, item: LegendItem, s: int) -> None:
    if item.shape == "dot":
        draw.ellipse((x + 3, y + 3, x + s - 3, y + s - 3), fill=item.colour, outline=INK)
    elif item.shape == "corner":
        draw.rectangle((x, y, x + s, y + s), fill=(120, 120, 120), outline=RULE)
        draw.polygon([(x + s // 2, y), (x + s, y), (x + s, y + s // 2)], fill=item.colour, outline=INK)
    elif item.shape == "outline":
        draw.rectangle((x, y, x + s, y + s), fill=PANEL, outline=item.colour, width=3)
    else:
        draw.rectangle((x, y, x + s, y + s), fill=item.colour, outline=RULE)
    if item.symbol:
        ink = item.symbol_colour or ink_on(item.colour)
        draw.text((x + 3, y + 2), plain(item.symbol), fill=ink, font=font(11))


def legend_box(
    draw: Any, x: int, y: int, width: int, items: Sequence[LegendItem], title: str = "Legend", size: int = 12
) -> int:
    """Swatches with their meaning, flowed left to right in rows; returns the height used."""
    pad, s, gap = 6, size + 4, 14
    row_h = s + 6
    title_h = line_height(size + 1)
    cx, cy = x + pad, y + pad + title_h
    placed: list[tuple[int, int, LegendItem]] = []
    for item in items:
        w = s + 6 + text_width(draw, item.label, size)
        if cx + w > x + width - pad and cx > x + pad:
            cx, cy = x + pad, cy + row_h
        placed.append((cx, cy, item))
        cx += w + gap
    h = cy + row_h + pad - y
    draw.rectangle((x, y, x + width - 1, y + h - 1), fill=PANEL, outline=RULE)
    draw.text((x + pad, y + pad), plain(title), fill=INK, font=font(size + 1))
    for ix, iy, item in placed:
        _swatch(draw, ix, iy, item, s)
        draw.text((ix + s + 6, iy + 2), plain(item.label), fill=INK, font=font(size))
    return h


@dataclass(frozen=True)
class TitleInfo:
    """What the title bar says: the game and where it stands, who decides now and what (``acting=None``:
    the game is over, ``acting_text`` then names the result), the last action (already worded for the
    picture's viewer) and the scores so far (one per seat, or None)."""

    title: str
    status: str = ""
    acting: int | None = None
    acting_text: str = ""
    last: str = ""
    scores: Sequence[float | int | str] | None = None
    score_label: str = ""
    viewer: int | None = None


def title_bar(draw: Any, x: int, y: int, width: int, info: TitleInfo) -> int:
    """The dark band on top of every picture; returns its height."""
    pad = 8
    inner = width - 2 * pad
    h = pad
    lines: list[tuple[str, int, Colour]] = []
    head = info.title + (f" - {info.status}" if info.status else "")
    if info.viewer is not None:
        head += f"   (view of player {info.viewer})"
    for part in wrap(draw, head, inner, 16, 2):
        lines.append((part, 16, TITLE_INK))
    if info.acting is not None:
        turn = f"to decide: player {info.acting}" + (f" - {info.acting_text}" if info.acting_text else "")
    else:
        turn = "game over" + (f" - {info.acting_text}" if info.acting_text else "")
    for part in wrap(draw, turn, inner - 18, 13, 2):
        lines.append((part, 13, HIGHLIGHT))
    if info.last:
        for part in wrap(draw, "last: " + info.last, inner, 13, 2):
            lines.append((part, 13, TITLE_MUTED))
    total = h + sum(line_height(size) for _, size, _ in lines)
    if info.scores is not None:
        total += 24
    total += pad - 2
    draw.rectangle((x, y, x + width - 1, y + total - 1), fill=TITLE_BG)
    cy = y + h
    first_turn_line = True
    for text, size, colour in lines:
        tx = x + pad
        if colour == HIGHLIGHT and first_turn_line and info.acting is not None:
            draw.rectangle((tx, cy + 2, tx + 11, cy + 13), fill=seat_colour(info.acting), outline=WHITE)
            tx += 18
            first_turn_line = False
        elif colour == HIGHLIGHT and info.acting is not None:
            tx += 18
        draw.text((tx, cy), text, fill=colour, font=font(size))
        cy += line_height(size)
    if info.scores is not None:
        score_chips(draw, x + pad, cy + 2, inner, info.scores, info.score_label)
    return total


def score_chips(draw: Any, x: int, y: int, width: int, scores: Sequence[float | int | str], label: str = "") -> int:
    """``P0 12 | P1 9 …`` as coloured chips in one row; returns the height used."""
    cx = x
    if label:
        draw.text((cx, y + 2), plain(label), fill=TITLE_MUTED, font=font(12))
        cx += text_width(draw, label, 12) + 8
    for seat, value in enumerate(scores):
        text = f"P{seat} {value}"
        w = text_width(draw, text, 12) + 12
        if cx + w > x + width:
            break
        colour = seat_colour(seat)
        draw.rounded_rectangle((cx, y, cx + w, y + 18), radius=5, fill=colour)
        draw.text((cx + 6, y + 2), text, fill=ink_on(colour), font=font(12))
        cx += w + 6
    return 20


# ------------------------------------------------------------------------------------------------ output


def new_image(width: int, height: int, colour: Colour = BACKGROUND) -> tuple[Any, Any]:
    """``(image, draw)`` of a fresh RGB picture."""
    image_mod, draw_mod, _ = require_pillow()
    image = image_mod.new("RGB", (max(1, int(width)), max(1, int(height))), colour)
    return image, draw_mod.Draw(image)


def to_array(image: Any) -> Any:
    """An HxWx3 uint8 numpy array of a Pillow image (a copy, writeable)."""
    import numpy as np

    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def png_bytes(picture: Any) -> bytes:
    """PNG bytes of an HxWx3 uint8 array (or a Pillow image); deterministic for equal pixels."""
    image_mod, _, _ = require_pillow()
    image = picture if hasattr(picture, "save") else image_mod.fromarray(picture)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


# ------------------------------------------------------------------------------------------------ history


_PREVIOUS: dict[tuple[Any, ...], tuple[tuple[int, ...], Any]] = {}
_PREVIOUS_MAX = 8


def previous_state(
    game: Any, rebuild: Callable[[dict[str, Any]], Any], same: Callable[[Any, Any], bool] | None = None
) -> Any | None:
    """The state just before ``game``'s last action, rebuilt from its record (``rebuild(record)`` replays
    one), or None at the start or when the history does not replay to ``game`` (e.g. a state built by a
    scenario): ``same(replayed, game)`` compares what may be compared (public things only, so a copy of
    ``game`` that differs in hidden things gets the same answer). Cached: drawing every step of a game in
    order costs one clone per step, not a replay. The returned state is shared: read it, never change it."""
    history = tuple(getattr(game, "history", ()) or ())
    if not history:
        return None
    try:
        record = game.record()
    except Exception:  # noqa: BLE001 - a game without records has no previous state to show
        return None
    key = (record.get("game"), record.get("num_players"), record.get("seed"), repr(record.get("variant")))
    hit = _PREVIOUS.get(key + (len(history) - 1,))
    if hit is not None and hit[0] == history[:-1]:
        before = hit[1]
    else:
        try:
            before = rebuild({**record, "actions": list(history[:-1])})
        except Exception:  # noqa: BLE001 - not replayable: no last action to show
            return None
    after = before.clone()
    try:
        after.apply(history[-1])
    except Exception:  # noqa: BLE001
        return None
    if same is not None and not same(after, game):
        return None
    if len(_PREVIOUS) >= _PREVIOUS_MAX:
        _PREVIOUS.pop(next(iter(_PREVIOUS)))
    _PREVIOUS[key + (len(history),)] = (history, after)
    return before


__all__ = [
    "BACKGROUND",
    "HIGHLIGHT",
    "INK",
    "MUTED",
    "PANEL",
    "RULE",
    "SEAT_COLOURS",
    "TITLE_BG",
    "LegendItem",
    "TitleInfo",
    "font",
    "ink_on",
    "legend_box",
    "line_height",
    "measure",
    "new_image",
    "plain",
    "png_bytes",
    "previous_state",
    "require_pillow",
    "score_chips",
    "seat_colour",
    "short_label",
    "text_lines",
    "text_panel",
    "text_width",
    "title_bar",
    "to_array",
    "wrap",
]
