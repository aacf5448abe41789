"""Build a Sunflower Valley state from readable sheet pictures, for small explicit rule scenarios.

A rule test wants "player 0's sheet looks like this, the pool holds these dice, these slots are taken,
player 1 moves" without playing up to it. :func:`scenario` starts a normal :class:`Game` (so every attribute
exists with its usual type) and overwrites what you describe; the result passes ``Game.from_json``'s checks.

Example::

    from farmgames.envs.sunflower_valley.scenario import scenario

    game = scenario(
        num_players=2, letter="A",
        sheets={0: '''
                 1   2   3   4   5   6
            A   Sh   g   ^   Sf  o   o
            B     Sh  g   p   r   ^   o
            C   H   S0  S0  H   S0  H
            D     ^   b   p   ^   Sh  C2
            E   b   b   ^   SS  H   C1
        '''},
        pool={"house": 2, "sheep": 2, "curved rail": 1}, slots={"blue": "sunflower"}, current=0,
    )

Sheet pictures
--------------
Five rows A–E of six tokens (columns 1–6), separated by white space; rows B and D may be indented (as in
the rulebook), a header line of column numbers and a leading row letter per line are optional (so
``game.sheet_text(seat)`` reads back). Tokens:

=====================  =========================================================================
token                  meaning
=====================  =========================================================================
``.``                  empty hex (any colour)
``b o p g r``          empty hex, checked to have that colour (blue, orange, purple, green, red)
``^``                  mountain (must be a mountain of the layout)
``H`` ``Sh``           house, sheep
``Sf`` ``SS``          sunflower, super sunflower
``S0`` ``S1`` ``S2``   straight rail: sides E–W, NE–SW, NW–SE (SV-RULING-5)
``C0`` … ``C5``        curved rail: C0 = E–NW, C1 = NE–W, C2 = NW–SW, C3 = W–SE, C4 = SW–E, C5 = SE–NE
=====================  =========================================================================

Tokens are case-insensitive. Other arguments (per seat ``{seat: value}``; seats not named keep the setup):
``pads`` (pad letter whose start hex is the start house; default: the first unused pad whose start hex holds
a house in the picture), ``inhabitants`` (default 2 + 2 per house after the start house + 1 per super
sunflower, SV-INH-1), ``pool`` (dice per face: ``{"house": 2, ...}`` or 6 counts), ``slots`` (``{colour:
face}`` of the dice already on the board this round), ``round`` (0-based), ``first`` (first player of the
round), ``current`` (the player to move; default the next seat after the slots taken). ``letter``,
``children`` and ``seed`` go to :class:`Game`.
"""

from __future__ import annotations

from typing import Any

from .actions import DICE, FACES, HOUSE, SLOTS, SUPER, SYMBOL_CODES, normal_id
from .game import HOUSE_INHABITANTS, START_INHABITANTS, SUPER_INHABITANTS, Game
from .hexgrid import COLS, N_HEX, ROW_LETTERS, ROWS, hex_name
from .scoring import EMPTY, MOUNTAIN_CELL
from .sheets import COLOUR_TOKENS, COLOURS, LETTERS, MOUNTAIN_TOKEN, PADS

TOKENS = {code.upper(): s for s, code in enumerate(SYMBOL_CODES)}


def parse_sheet(picture: str, colour: tuple[int, ...]) -> list[int]:
    """A sheet list (engine codes) from a picture, checked against the layout's ``colour`` table."""
    rows = []
    for line in picture.strip("\n").splitlines():
        toks = line.split()
        if not toks or all(t.isdigit() for t in toks):
            continue  # blank line or the column header
        if len(toks) == COLS + 1 and toks[0].upper() in ROW_LETTERS and len(toks[0]) == 1:
            toks = toks[1:]
        if len(toks) != COLS:
            raise ValueError(f"sheet picture row {len(rows) + 1}: expected {COLS} tokens, got {line.strip()!r}")
        rows.append(toks)
    if len(rows) != ROWS:
        raise ValueError(f"a sheet picture has {ROWS} rows A-E, got {len(rows)}")
    sheet = []
    for h, tok in enumerate(t for row in rows for t in row):
        c = colour[h]
        if tok == MOUNTAIN_TOKEN or c < 0:
            if tok != MOUNTAIN_TOKEN or c >= 0:
                raise ValueError(
                    f"{hex_name(h)}: {tok!r} but the layout has {'a mountain' if c < 0 else 'no mountain'}"
                )
            sheet.append(MOUNTAIN_CELL)
        elif tok == ".":
            sheet.append(EMPTY)
        elif tok.lower() in COLOUR_TOKENS and len(tok) == 1:
            if COLOUR_TOKENS.index(tok.lower()) != c:
                raise ValueError(f"{hex_name(h)}: picture says {tok!r} but the hex is {COLOURS[c]}")
            sheet.append(EMPTY)
        elif tok.upper() in TOKENS:
            sheet.append(TOKENS[tok.upper()])
        else:
            raise ValueError(f"{hex_name(h)}: unknown token {tok!r}")
    return sheet


def _face(name: Any) -> int:
    if isinstance(name, int) and 0 <= name < len(FACES):
        return name
    if isinstance(name, str) and name.lower().replace("_", " ") in FACES:
        return FACES.index(name.lower().replace("_", " "))
    raise ValueError(f"not a die face: {name!r} (one of {', '.join(FACES)})")


def _pool(value: Any) -> list[int]:
    if isinstance(value, dict):
        counts = [0] * len(FACES)
        for name, count in value.items():
            counts[_face(name)] += int(count)
        return counts
    counts = [int(x) for x in value]
    if len(counts) != len(FACES):
        raise ValueError(f"pool must give {len(FACES)} counts, got {value!r}")
    return counts


def _pick_pads(game: Game, sheets: dict[int, list[int]], pads: dict[int, str]) -> list[str]:
    out = list(game.pads)
    for seat, letter in pads.items():
        out[seat] = letter.upper()
    for seat, sheet in sheets.items():
        if seat in pads:
            continue
        used = {out[p] for p in range(game.num_players) if p != seat and (p in pads or p in sheets)}
        fits = [x for x in LETTERS if x != game.letter and x not in used and sheet[PADS[x].hex] == HOUSE]
        if not fits:
            raise ValueError(f"sheet of seat {seat}: no unused pad's start hex holds a house (give pads=)")
        out[seat] = out[seat] if out[seat] in fits else fits[0]
    if len(set(out)) != len(out) or game.letter in out:
        raise ValueError(f"pads must be distinct and differ from the common letter {game.letter}, got {out}")
    for p, letter in enumerate(out):
        if p not in sheets:  # a fresh sheet: move its start house to the pad's hex
            sheet = [MOUNTAIN_CELL if c < 0 else EMPTY for c in game.sheet_map.colour]
            sheet[PADS[letter].hex] = HOUSE
            game.sheets[p] = sheet
    return out


def scenario(
    num_players: int = 2,
    *,
    letter: str = "A",
    sheets: dict[int, str] | None = None,
    pads: dict[int, str] | None = None,
    inhabitants: dict[int, int] | None = None,
    pool: Any = None,
    slots: dict[str, Any] | None = None,
    round: int = 0,  # noqa: A002 - the rulebook's word
    first: int = 0,
    current: int | None = None,
    children: bool = False,
    seed: int = 0,
) -> Game:
    """A game state as described (see the module docstring)."""
    game = Game(num_players, seed, letter=letter, children=children, first_player=first)
    parsed = {p: parse_sheet(pic, game.sheet_map.colour) for p, pic in (sheets or {}).items()}
    for p, sheet in parsed.items():
        game.sheets[p] = sheet
    game.pads = _pick_pads(game, parsed, pads or {})
    history = []
    for p, sheet in enumerate(game.sheets):
        start = PADS[game.pads[p]].hex
        game.empty[p] = sum(1 << h for h in range(N_HEX) if sheet[h] == EMPTY)
        drawn = [h for h in range(N_HEX) if sheet[h] >= 0 and h != start]
        game.turns[p] = len(drawn)
        history += [normal_id(sheet[h], h) for h in drawn]  # what was drawn (not a replayable order)
        houses, supers = sheet.count(HOUSE), sheet.count(SUPER)
        game.inhabitants[p] = START_INHABITANTS + HOUSE_INHABITANTS * max(houses - 1, 0) + SUPER_INHABITANTS * supers
    for p, value in (inhabitants or {}).items():
        game.inhabitants[p] = int(value)
    game.history = history
    game.remaining = sum(m.bit_count() for m in game.empty)
    game.round = round
    slot_face = [-1] * SLOTS
    for name, face in (slots or {}).items():
        slot_face[COLOURS.index(name)] = _face(face)
    counts = _pool(pool) if pool is not None else None
    roll = list(game.roll(round))
    if counts is None:
        counts = roll[:]
        for f in slot_face:
            if f >= 0:
                counts[f] -= 1
        if min(counts) < 0:
            raise ValueError(f"the slots' dice are not in round {round}'s roll {roll}: give pool=")
    used = [a + sum(1 for f in slot_face if f == i) for i, a in enumerate(counts)]
    if sum(used) != DICE or min(counts) < 0:
        raise ValueError(f"pool {counts} and the dice on the slots must be the {DICE} dice (SV-ROUND-2)")
    game.rolls[round] = tuple(used)
    game.pool, game.slot_face, game.first = counts, slot_face, first
    game.turn_in_round = sum(1 for f in slot_face if f >= 0)
    game.free_slots = sum(1 << k for k in range(SLOTS) if slot_face[k] < 0)
    game.free_hexes = 0
    for k in range(SLOTS):
        if slot_face[k] < 0:
            game.free_hexes |= game.sheet_map.region_mask[k]
    game._scores = None
    if not game.remaining:
        game.current = None
    else:
        seat = current if current is not None else (first + game.turn_in_round) % num_players
        game.current = game._next_seat(seat)
    return game


def picture(game: Game, seat: int) -> str:
    """The sheet of ``seat`` as a picture :func:`parse_sheet` reads back."""
    return game.sheet_text(seat)
