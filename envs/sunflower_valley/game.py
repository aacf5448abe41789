"""The Sunflower Valley rules engine: one AEC step = one turn (SV-RULING-18), pure Python, seat-indexed.

State: every sheet as a list of 30 symbol codes plus a bit mask of its empty hexes, the inhabitants, the
dice pool (dice per face), the five colour slots, and the round / turn counters. Everything random (the
common letter, the start pads, the first player, every round's roll) is drawn from ``seed`` at setup, so
clones and JSON round trips are exact and the same seed with the same actions is the same game.

Speed: the legal set is read off two bit masks -- the player's empty hexes and the hexes whose colour
slot is still free. A normal turn's legal set is a product (available symbols x usable hexes), built
as the bytes of an intp array from per-hex words and one ``bytes.translate`` per symbol: the read-only index
array of ``legal_action_array`` (cached per state; ``legal_actions`` is its list); ``legal_mask_bytes`` is
the same set as one 0/1 byte per id, the usable hexes' bytes repeated per symbol (cached per state).
``apply`` checks one move in O(1) from a per-id decode table. ``legal_actions_plain`` is the reference the
tests compare with.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.core.records import make_pins
from farmgames.envs.core.seeding import MAX_SEED, check_seed

from .actions import (
    ACTION_LAYOUT,
    DICE,
    F_SUPER,
    FACE_OF,
    FACES,
    FALLBACK_START,
    HOUSE,
    NUM_ACTIONS,
    SLOTS,
    SUNFLOWER,
    SUPER,
    SYMBOL_CODES,
    SYMBOLS,
    SYMBOLS_OF,
    describe,
)
from .hexgrid import COLS, N_HEX, ROW_LETTERS, ROWS, hex_name
from .scoring import EMPTY, MOUNTAIN_CELL, Score, score_all, winners
from .sheets import COLOUR_TOKENS, COLOURS, LAYOUTS, LETTERS, MOUNTAIN_TOKEN, PADS, Layout, data_hashes

GAME_NAME = "sunflower_valley"
ENV_NAME = "sunflower_valley_v0"  # the env version records and states are pinned to
MIN_PLAYERS, MAX_PLAYERS = 2, 5  # SV-COMP-5, SV-COMP-6
START_INHABITANTS = 2  # SV-SETUP-5
HOUSE_INHABITANTS = 2  # SV-SYM-2
SUPER_INHABITANTS = 1  # SV-SYM-3, SV-TURN-7
ALL_SLOTS = (1 << SLOTS) - 1
JSON_FORMAT = 1

# _TAB[b][r][bits] = the ids of base b (0..12 = normal symbol s; 13 + 5f + k = fallback face f, slot k) for the
# hexes of row r whose bits (6 per row) are set, ascending: legal sets are concatenations of these.
_BASES = [30 * s for s in range(SYMBOLS)] + [FALLBACK_START + 30 * j for j in range(len(FACES) * SLOTS)]
_TAB: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(tuple(base + COLS * r + c for c in range(COLS) if m >> c & 1) for m in range(64)) for r in range(ROWS))
    for base in _BASES
)


def legal_actions_plain(game: Game) -> list[int]:
    """The legal ids of the player to move, ascending, from per-row id tables: the reference for the fast
    ``Game.legal_action_array`` (and its path for the fallback turns, SV-TURN-5/6)."""
    p = game.current
    if p is None:
        return []
    pool = game.pool
    out: list[int] = []
    m = game.empty[p] & game.free_hexes
    if m:
        r0, r1, r2, r3, r4 = m & 63, (m >> 6) & 63, (m >> 12) & 63, (m >> 18) & 63, m >> 24
        for f in range(6):
            if pool[f]:
                for s in SYMBOLS_OF[f]:
                    t = _TAB[s]
                    out += t[0][r0]
                    out += t[1][r1]
                    out += t[2][r2]
                    out += t[3][r3]
                    out += t[4][r4]
        return out
    m = game.empty[p]  # fallback (SV-TURN-6): any free slot, any empty hex
    r0, r1, r2, r3, r4 = m & 63, (m >> 6) & 63, (m >> 12) & 63, (m >> 18) & 63, m >> 24
    free = game.free_slots
    for f in range(6):
        if pool[f]:
            for k in range(SLOTS):
                if free >> k & 1:
                    t = _TAB[SYMBOLS + SLOTS * f + k]
                    out += t[0][r0]
                    out += t[1][r1]
                    out += t[2][r2]
                    out += t[3][r3]
                    out += t[4][r4]
    return out


# --- speed tables (tests/sunflower_valley/test_speed_paths.py checks every one against the plain path)

# The legal index array of a normal turn is the product (available symbols s) x (usable hexes h) of the ids
# 30·s + h, ascending. Speed: it is built as the bytes of an intp array without a Python loop per id or per
# symbol: _WORDS[j][bits] holds, for the hexes 10j..10j+9 set in ``bits``, one 8-byte word per hex with a
# marker byte 64 + h and a marker byte 128 + h; ``bytes.translate`` with the table of symbol s turns the
# markers into the two low bytes of 30·s + h (the six high bytes stay 0), and numpy reads the joined bytes
# as a read-only intp array (little-endian 8-byte intp; other platforms take the plain path).
_FAST_ARRAY = np.dtype(np.intp) == np.dtype("<i8")
_INTP = np.dtype(np.intp)
_WORDS: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(
        b"".join(bytes((64 + 10 * j + c, 128 + 10 * j + c, 0, 0, 0, 0, 0, 0)) for c in range(10) if x >> c & 1)
        for x in range(1024)
    )
    for j in range(3)
)


def _symbol_table(s: int) -> bytes:
    table = bytearray(256)
    for h in range(N_HEX):
        table[64 + h], table[128 + h] = (N_HEX * s + h) & 255, (N_HEX * s + h) >> 8
    return bytes(table)


def _pools(left: int, faces: int) -> list[tuple[int, ...]]:
    """Every pool of ``faces`` counts summing to at most ``left`` dice."""
    if faces == 0:
        return [()]
    return [(c, *rest) for c in range(left + 1) for rest in _pools(left - c, faces - 1)]


_SYMBOL_TABLES = tuple(_symbol_table(s) for s in range(SYMBOLS))
# _TABLES_OF_POOL[pool] = the translate tables of the symbols a die of the pool can draw, ascending (SV-SYM-7)
_TABLES_OF_POOL: dict[tuple[int, ...], tuple[bytes, ...]] = {
    pool: tuple(_SYMBOL_TABLES[s] for f, count in enumerate(pool) if count for s in SYMBOLS_OF[f])
    for pool in _pools(DICE, len(FACES))
}
# The same product as a 0/1 byte per id (``legal_mask_bytes``): _HEX_BYTES[bits] is one byte per hex of a run
# of 10 (1 when set in ``bits``); the usable hexes' 30 bytes, repeated once per symbol of every face with a
# die in the pool and zeros for the others, are the bytes of the normal ids 30·s + h (the faces draw the
# consecutive symbols SYMBOLS_OF[f] in face order, SV-SYM-7; a test checks it).
_HEX_BYTES: tuple[bytes, ...] = tuple(bytes(x >> c & 1 for c in range(10)) for x in range(1024))
_ZERO_1, _ZERO_3, _ZERO_6 = bytes(N_HEX), bytes(3 * N_HEX), bytes(6 * N_HEX)
_ZERO_FALLBACK = bytes(NUM_ACTIONS - FALLBACK_START)
# every layout's sheet before anything is drawn: mountains and empty hexes (a copy per player at setup)
_BLANK_SHEETS = {letter: [MOUNTAIN_CELL if c < 0 else EMPTY for c in lay.colour] for letter, lay in LAYOUTS.items()}
_NO_ACTIONS = np.zeros(0, np.intp)
_NO_ACTIONS.setflags(write=False)
# MOVES[id] = (hex, its bit, symbol drawn, die face, inhabitants gained, slot or -1 = the hex's colour): the
# decode ``apply`` does with divmod, once per id (SV-SYM-2/3, SV-TURN-6/7)
MOVES: tuple[tuple[int, int, int, int, int, int], ...] = tuple(
    (
        a % N_HEX,
        1 << a % N_HEX,
        a // N_HEX,
        FACE_OF[a // N_HEX],
        HOUSE_INHABITANTS if a // N_HEX == HOUSE else SUPER_INHABITANTS if a // N_HEX == SUPER else 0,
        -1,
    )
    if a < FALLBACK_START
    else (
        (a - FALLBACK_START) % N_HEX,
        1 << (a - FALLBACK_START) % N_HEX,
        SUPER if (a - FALLBACK_START) // (SLOTS * N_HEX) == F_SUPER else SUNFLOWER,
        (a - FALLBACK_START) // (SLOTS * N_HEX),
        SUPER_INHABITANTS if (a - FALLBACK_START) // (SLOTS * N_HEX) == F_SUPER else 0,
        (a - FALLBACK_START) // N_HEX % SLOTS,
    )
    for a in range(NUM_ACTIONS)
)


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < low
        or (high is not None and value > high)
    ):
        allowed = f"an integer >= {low}" if high is None else f"an integer {low}..{high}"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_letter(value: Any) -> str | None:
    """The ``letter`` keyword: None (drawn from the seed, SV-SETUP-2) or one of A–F."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 1 or value.upper() not in LETTERS:
        raise ValueError(f"letter must be one of A-F or None, got {value!r}")
    return value.upper()


def check_children(value: Any) -> bool:
    """The ``children`` keyword (SV-VAR-1/2): a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"children must be True or False, got {value!r}")
    return bool(value)


class Game:
    """A game of Sunflower Valley for 2–5 players.

    Keywords: ``letter`` (common sheet letter A–F, or None for a seeded draw, SV-SETUP-2), ``children``
    (the children's variant, SV-VAR-1/2, default False), ``first_player`` (seat, or None for a seeded draw,
    SV-SETUP-7).
    """

    name = GAME_NAME
    layout = ACTION_LAYOUT  # the action numbering (SV-RULING-18); the sheet map is ``sheet_map``

    def __init__(
        self,
        num_players: int = 4,
        seed: int = 0,
        *,
        letter: str | None = None,
        children: bool = False,
        first_player: int | None = None,
    ):
        self.num_players = n = _check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        self.seed = check_seed(seed)
        letter = check_letter(letter)
        self.children = check_children(children)
        if first_player is not None:
            first_player = _check_int("first_player", first_player, 0, n - 1)
        self.variant = {"letter": letter, "children": self.children, "first_player": first_player}
        rng = random.Random(self.seed)
        self.letter = letter if letter is not None else rng.choice(LETTERS)  # SV-SETUP-1/2
        self.sheet_map: Layout = LAYOUTS[self.letter]
        unused = [x for x in LETTERS if x != self.letter]
        self.pads = rng.sample(unused, n)  # SV-SETUP-3/4: distinct unused pads
        first = first_player if first_player is not None else rng.randrange(n)  # SV-SETUP-6/7
        coloured = self.sheet_map.coloured_mask
        self.sheets = []
        self.empty = []
        blank = _BLANK_SHEETS[self.letter]
        for p in range(n):
            sheet = blank[:]  # mountains and empty hexes (SV-SHEET-3), copied from the layout's blank sheet
            start = PADS[self.pads[p]].hex
            sheet[start] = HOUSE  # the first house (SV-SETUP-3), no inhabitants for it (SV-SETUP-9)
            self.sheets.append(sheet)
            self.empty.append(coloured & ~(1 << start))
        self.inhabitants = [START_INHABITANTS] * n
        self.turns = [0] * n
        self.remaining = sum(m.bit_count() for m in self.empty)
        rounds = -(-self.remaining // SLOTS)
        rnd = rng.random
        self.rolls: list[tuple[int, ...]] = []
        for _ in range(rounds):
            counts = [0] * len(FACES)
            for _die in range(DICE):
                counts[int(rnd() * 6)] += 1
            self.rolls.append(tuple(counts))
        self.round = 0
        self.first = first
        self.history: list[int] = []
        self._scores: list[Score] | None = None
        self._start_round(first)

    # ------------------------------------------------------------------ rounds (SV-ROUND)

    def roll(self, round_index: int) -> tuple[int, ...]:
        """Dice per face rolled in phase A of round ``round_index`` (0-based, SV-ROUND-2)."""
        while len(self.rolls) <= round_index:  # only if a hand-made state needs more rounds than setup drew
            rng = random.Random(self.seed * 1_000_003 + len(self.rolls))
            counts = [0] * len(FACES)
            for _die in range(DICE):
                counts[rng.randrange(6)] += 1
            self.rolls.append(tuple(counts))
        return self.rolls[round_index]

    def _start_round(self, first: int) -> None:
        self.first = first
        self.pool = list(self.roll(self.round))
        self.slot_face = [-1] * SLOTS
        self.free_slots = ALL_SLOTS
        self.free_hexes = self.sheet_map.coloured_mask
        self.turn_in_round = 0
        self.current = self._next_seat(first)

    def _next_seat(self, seat: int) -> int:
        """``seat`` or the next clockwise whose sheet still has an empty hex (SV-END-3)."""
        empty = self.empty
        while not empty[seat]:
            seat = (seat + 1) % self.num_players
        return seat

    # ------------------------------------------------------------------ protocol members

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def current_player(self) -> int | None:
        return self.current

    def is_terminal(self) -> bool:
        return self.current is None

    def fallback(self) -> bool:
        """True when the player to move has no empty hex of a free slot's colour (SV-TURN-5/6)."""
        return self.current is not None and not (self.empty[self.current] & self.free_hexes)

    #: the legal index array of this state (``legal_action_array``), None until asked; ``apply`` clears it
    _legal: np.ndarray | None = None

    def legal_actions(self) -> list[int]:
        """The sorted legal ids of the player to move (a fresh list; see ``legal_action_array``)."""
        return self.legal_action_array().tolist()

    def legal_action_array(self) -> np.ndarray:
        """The legal ids as a read-only intp array, computed at most once per state (the AEC env writes
        its mask with it). Equal to :func:`legal_actions_plain`, in the same (ascending) order."""
        legal = self._legal
        if legal is None:
            p = self.current
            if p is None:
                legal = _NO_ACTIONS
            else:
                m = self.empty[p] & self.free_hexes
                tables = _TABLES_OF_POOL.get(tuple(self.pool)) if m and _FAST_ARRAY else None
                if tables is not None:  # normal turn: marker words translated per symbol (see _WORDS)
                    w = _WORDS[0][m & 1023] + _WORDS[1][m >> 10 & 1023] + _WORDS[2][m >> 20]
                    legal = np.frombuffer(b"".join(map(w.translate, tables)), _INTP)
                else:  # the fallback (SV-TURN-6), a few per cent of the turns
                    legal = np.array(legal_actions_plain(self), np.intp)
                    legal.setflags(write=False)
            self._legal = legal
        return legal

    #: the legal ids as mask bytes (``legal_mask_bytes``), None until asked; ``apply`` clears it
    _mask_bytes: bytes | None = None

    def legal_mask_bytes(self) -> bytes:
        """The legal ids as ``num_actions`` bytes, 1 at every legal id and 0 elsewhere, computed at most once
        per state: an env can copy it into an int8 mask in one memcpy (no index array, no numpy call)."""
        mask = self._mask_bytes
        if mask is None:
            p = self.current
            m = self.empty[p] & self.free_hexes if p is not None else 0
            if m:  # normal turn: the usable hexes' bytes once per symbol a die of the pool draws
                pool = self.pool
                h = _HEX_BYTES[m & 1023] + _HEX_BYTES[m >> 10 & 1023] + _HEX_BYTES[m >> 20]
                mask = b"".join(
                    (
                        h if pool[0] else _ZERO_1,
                        h if pool[1] else _ZERO_1,
                        h if pool[2] else _ZERO_1,
                        h if pool[3] else _ZERO_1,
                        h * 3 if pool[4] else _ZERO_3,
                        h * 6 if pool[5] else _ZERO_6,
                        _ZERO_FALLBACK,
                    )
                )
            else:  # the fallback (SV-TURN-6) or the end
                out = bytearray(NUM_ACTIONS)
                for a in legal_actions_plain(self):
                    out[a] = 1
                mask = bytes(out)
            self._mask_bytes = mask
        return mask

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[self.legal_action_array()] = 1
        return mask

    def _reject(self, action: Any, why: str) -> IllegalActionError:
        return IllegalActionError(f"illegal action {action!r}: {why}")

    def apply(self, action: int) -> None:
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, np.integer):
                raise self._reject(action, "an action must be an integer id")
            action = int(action)
        p = self.current
        if p is None:
            raise self._reject(action, "the game is over")
        if not 0 <= action < NUM_ACTIONS:
            raise self._reject(action, f"outside the action space 0..{NUM_ACTIONS - 1}")
        pool = self.pool
        empty = self.empty[p]
        h, bit, s, f, gain, k = MOVES[action]  # the decode of the id, precomputed
        if k < 0:  # normal turn (SV-TURN-1..3)
            if not empty & self.free_hexes & bit:
                raise self._reject(action, f"{hex_name(h)} is not an empty hex of a free slot's colour")
            if not pool[f]:
                raise self._reject(action, f"no die in the pool shows {FACES[f]}")
            k = self.sheet_map.colour[h]
        else:  # fallback (SV-TURN-6/7, SV-RULING-15): a sunflower, super with the super die
            if empty & self.free_hexes:
                raise self._reject(action, "the fallback is only allowed without a usable hex (SV-TURN-5)")
            if not self.free_slots >> k & 1:
                raise self._reject(action, f"the {COLOURS[k]} slot is taken")
            if not pool[f]:
                raise self._reject(action, f"no die in the pool shows {FACES[f]}")
            if not empty & bit:
                raise self._reject(action, f"{hex_name(h)} is not an empty hex")
        self.sheets[p][h] = s
        self.empty[p] = empty & ~bit
        pool[f] -= 1
        self.slot_face[k] = f
        self.free_slots &= ~(1 << k)
        self.free_hexes &= ~self.sheet_map.region_mask[k]
        if gain:  # SV-SYM-2/3
            self.inhabitants[p] += gain
        self.turns[p] += 1
        self.turn_in_round += 1
        self.remaining -= 1
        self.history.append(action)
        self._scores = None
        self._legal = self._mask_bytes = None
        if not self.remaining:  # SV-END-1/2: no sheet has an empty hex
            self.current = None
        elif not self.free_slots:  # SV-ROUND-4/6: all slots taken -> phase C, next round
            self.round += 1
            self._start_round((self.first + 1) % self.num_players)
        else:  # SV-ROUND-3: clockwise
            self.current = self._next_seat((p + 1) % self.num_players)

    # ------------------------------------------------------------------ results

    def scores(self) -> list[Score]:
        """Every player's Score (final at the end; the score "so far" before)."""
        if self._scores is None:
            self._scores = score_all(self.sheets, self.inhabitants, self.sheet_map, self.children)
        return list(self._scores)

    def winners(self) -> list[int]:
        return winners(self.scores())

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.num_players
        won = set(self.winners())
        return [1.0 if p in won else -1.0 for p in range(self.num_players)]

    def describe_action(self, action: int) -> str:
        return describe(action, self.sheet_map.colour)

    # ------------------------------------------------------------------ copies, records, JSON

    def clone(self) -> Game:
        g = object.__new__(Game)
        d = self.__dict__.copy()
        d["sheets"] = [s[:] for s in self.sheets]
        for key in ("empty", "inhabitants", "turns", "pool", "slot_face", "history", "rolls"):
            d[key] = d[key][:]
        d["variant"] = dict(self.variant)
        d["pads"] = self.pads[:]
        g.__dict__ = d  # the cached legal array (read-only) is shared until either side applies
        return g

    def __getstate__(self) -> dict[str, Any]:
        """Pickle and deepcopy without the cached legal ids (a copied array would be writeable)."""
        state = self.__dict__.copy()
        state.pop("_legal", None)
        state.pop("_mask_bytes", None)
        return state

    def data_hashes(self) -> dict[str, str]:
        """SHA-256 of the data files the game was built from (the sheet maps and the pads)."""
        return data_hashes()

    def record(self) -> dict[str, Any]:
        """Seed, players, variant, actions and pins (package and env version, data hashes)."""
        return {
            "game": GAME_NAME,
            "num_players": self.num_players,
            "seed": self.seed,
            "variant": dict(self.variant),
            "actions": list(self.history),
            "pins": make_pins(ENV_NAME, data_hashes()),
        }

    def state_dict(self) -> dict[str, Any]:
        return {
            "format": JSON_FORMAT,
            "game": GAME_NAME,
            "pins": make_pins(ENV_NAME, data_hashes()),
            "num_players": self.num_players,
            "seed": self.seed,
            "variant": dict(self.variant),
            "letter": self.letter,
            "pads": list(self.pads),
            "rolls": [list(r) for r in self.rolls],
            "round": self.round,
            "first": self.first,
            "turn_in_round": self.turn_in_round,
            "current": self.current,
            "pool": list(self.pool),
            "slot_face": list(self.slot_face),
            "sheets": [list(s) for s in self.sheets],
            "inhabitants": list(self.inhabitants),
            "turns": list(self.turns),
            "history": list(self.history),
        }

    def to_json(self) -> str:
        return json.dumps(self.state_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Game:
        """A state from :meth:`to_json`; ValueError naming the first inconsistency."""
        try:
            data = json.loads(text)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"not a Sunflower Valley JSON state: {exc}") from None
        return game_from_state(data)

    def same_setup(self, other: Any) -> bool:
        """Whether ``other`` fits an env built for this game (players and variant rules)."""
        return isinstance(other, Game) and other.num_players == self.num_players and other.children == self.children

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.state_dict() == other.state_dict()

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ text

    def sheet_text(self, seat: int) -> str:
        """One sheet as in the rulebook (rows B and D indented); empty hexes show their colour letter."""
        lines = [("     " + "".join(f"{c + 1:<4}" for c in range(COLS))).rstrip()]
        colour = self.sheet_map.colour
        sheet = self.sheets[seat]
        for r in range(ROWS):
            toks = []
            for h in range(r * COLS, (r + 1) * COLS):
                v = sheet[h]
                toks.append(
                    MOUNTAIN_TOKEN
                    if v == MOUNTAIN_CELL
                    else COLOUR_TOKENS[colour[h]]
                    if v == EMPTY
                    else SYMBOL_CODES[v]
                )
            lines.append(f"  {ROW_LETTERS[r]}  " + ("  " if r % 2 else "") + "".join(f"{t:<4}" for t in toks).rstrip())
        return "\n".join(lines)

    def status_text(self) -> str:
        pool = ", ".join(f"{c}×{FACES[f]}" for f, c in enumerate(self.pool) if c) or "empty"
        slots = ", ".join(f"{COLOURS[k]}: {FACES[f] if f >= 0 else 'free'}" for k, f in enumerate(self.slot_face))
        who = "game over" if self.current is None else f"player {self.current} to move"
        return (
            f"Sunflower Valley, layout {self.letter}, round {self.round + 1}, turn {self.turn_in_round + 1} of the "
            f"round, first player {self.first}, {who}{' (fallback)' if self.fallback() else ''}\n"
            f"pool: {pool}\nslots: {slots}"
        )

    # ------------------------------------------------------------------ search (infostate.py)

    def information_state(self, seat: int) -> Any:
        """What ``seat`` knows, with perfect recall: everything public and the rolls so far (SV-INFO-1)."""
        from .infostate import information_state

        return information_state(self, seat)

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Game:
        """A complete state with every later round's roll drawn again; this game is untouched."""
        from .infostate import resample_from_infostate

        return resample_from_infostate(self, seat, rng)

    def infostate_sampler(self, seat: int) -> Any:
        """The function returned draws resampled states from an RNG."""
        from .infostate import sampler

        return sampler(self, seat)

    def action_token(self, seat: int, action: int) -> Any:
        """Every decision is public (SV-INFO-1)."""
        return int(action)

    def view_token(self, seat: int) -> Any:
        """The round and its roll (SV-ROUND-2)."""
        from .infostate import view_token

        return view_token(self, seat)

    def __str__(self) -> str:
        parts = [self.status_text()]
        for p in range(self.num_players):
            pad = PADS[self.pads[p]]
            parts.append(
                f"player {p}: pad {pad.letter} ({pad.picture}, start {hex_name(pad.hex)}), "
                f"{self.inhabitants[p]} inhabitants, {self.turns[p]} turns\n{self.sheet_text(p)}"
            )
        return "\n\n".join(parts)

    def __repr__(self) -> str:
        return (
            f"Game(num_players={self.num_players}, seed={self.seed}, variant={self.variant}, turn={len(self.history)})"
        )


def _need(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(f"invalid Sunflower Valley state: {message}")


def _int_list(data: dict, key: str, length: int, low: int, high: int) -> list[int]:
    value = data.get(key)
    _need(isinstance(value, list) and len(value) == length, f"{key} must be a list of {length} integers")
    for i, v in enumerate(value):
        _need(
            not isinstance(v, bool) and isinstance(v, int) and low <= v <= high,
            f"{key}[{i}] must be an integer {low}..{high}, got {v!r}",
        )
    return list(value)


def _check_sheet(p: int, sheet: Any, layout: Layout, start: int) -> list[int]:
    _need(isinstance(sheet, list) and len(sheet) == N_HEX, f"sheets[{p}] must be a list of {N_HEX} codes")
    for h, v in enumerate(sheet):
        where = f"sheets[{p}][{hex_name(h)}]"
        _need(not isinstance(v, bool) and isinstance(v, int), f"{where} must be an integer code")
        if layout.colour[h] < 0:
            _need(v == MOUNTAIN_CELL, f"{where} is a mountain and must hold {MOUNTAIN_CELL} (SV-SHEET-3)")
        else:
            _need(EMPTY <= v < SYMBOLS, f"{where} must be {EMPTY} (empty) or a symbol 0..{SYMBOLS - 1}, got {v}")
    _need(sheet[start] == HOUSE, f"sheets[{p}][{hex_name(start)}] must hold the start house (SV-SETUP-3)")
    return list(sheet)


def _check_header(data: Any) -> tuple[int, dict, str, Layout]:
    _need(isinstance(data, dict), "the state must be a JSON object")
    _need(data.get("format") == JSON_FORMAT, f"format must be {JSON_FORMAT}, got {data.get('format')!r}")
    _need(data.get("game") == GAME_NAME, f"game must be {GAME_NAME!r}, got {data.get('game')!r}")
    pins = data.get("pins")
    if pins is not None:
        _need(isinstance(pins, dict) and pins.get("env") == ENV_NAME, f"pins.env must be {ENV_NAME!r}")
        _need(pins.get("data") == data_hashes(), "pins.data does not match the sheet and pad files loaded now")
    n = data.get("num_players")
    _need(
        not isinstance(n, bool) and isinstance(n, int) and MIN_PLAYERS <= n <= MAX_PLAYERS,
        f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}",
    )
    seed = data.get("seed")
    _need(
        not isinstance(seed, bool) and isinstance(seed, int) and 0 <= seed <= MAX_SEED,
        f"seed must be an integer 0..2**63-1, got {seed!r}",
    )
    variant = data.get("variant")
    _need(
        isinstance(variant, dict) and set(variant) == {"letter", "children", "first_player"},
        "variant must hold exactly letter, children, first_player",
    )
    try:
        check_letter(variant["letter"])
        check_children(variant["children"])
        if variant["first_player"] is not None:
            _check_int("variant.first_player", variant["first_player"], 0, n - 1)
    except ValueError as exc:
        raise ValueError(f"invalid Sunflower Valley state: variant: {exc}") from None
    letter = data.get("letter")
    _need(letter in tuple(LETTERS), f"letter must be one of A-F, got {letter!r}")
    _need(variant["letter"] in (None, letter), f"letter {letter!r} differs from variant.letter {variant['letter']!r}")
    return n, variant, letter, LAYOUTS[letter]


def _check_round(data: dict, n: int, rolls: list[tuple[int, ...]]) -> tuple[int, list[int], list[int]]:
    rnd = data.get("round")
    _need(
        not isinstance(rnd, bool) and isinstance(rnd, int) and 0 <= rnd < len(rolls),
        f"round must be an index into rolls (0..{len(rolls) - 1}), got {rnd!r}",
    )
    slot_face = _int_list(data, "slot_face", SLOTS, -1, len(FACES) - 1)
    pool = _int_list(data, "pool", len(FACES), 0, DICE)
    used = [0] * len(FACES)
    for f in slot_face:
        if f >= 0:
            used[f] += 1
    _need(
        [a + b for a, b in zip(pool, used, strict=True)] == list(rolls[rnd]),
        f"pool {pool} plus the dice on the slots must equal round {rnd}'s roll {list(rolls[rnd])} (SV-ROUND-2)",
    )
    occupied = sum(1 for f in slot_face if f >= 0)
    _need(
        type(data.get("turn_in_round")) is int and data.get("turn_in_round") == occupied,
        f"turn_in_round must equal the {occupied} occupied slots, got {data.get('turn_in_round')!r}",
    )
    _need(occupied < SLOTS or data.get("current") is None, "all slots are taken but the round did not end")
    return rnd, slot_face, pool


def game_from_state(data: Any) -> Game:
    """A Game from a :meth:`Game.state_dict`, checked field by field (ValueError on the first violation)."""
    n, variant, letter, layout = _check_header(data)
    pads = data.get("pads")
    _need(
        isinstance(pads, list)
        and len(pads) == n
        and all(isinstance(x, str) for x in pads)
        and len(set(pads)) == n
        and all(x in tuple(LETTERS) and x != letter for x in pads),
        f"pads must be {n} distinct letters other than the common letter {letter} (SV-SETUP-4), got {pads!r}",
    )
    raw_sheets = data.get("sheets")
    _need(isinstance(raw_sheets, list) and len(raw_sheets) == n, f"sheets must be a list of {n} sheets")
    sheets = [_check_sheet(p, s, layout, PADS[pads[p]].hex) for p, s in enumerate(raw_sheets)]
    inhabitants = _int_list(data, "inhabitants", n, 0, 10_000)
    turns = _int_list(data, "turns", n, 0, N_HEX)
    for p, sheet in enumerate(sheets):
        houses, supers = sheet.count(HOUSE), sheet.count(SUPER)
        want = START_INHABITANTS + HOUSE_INHABITANTS * (houses - 1) + SUPER_INHABITANTS * supers
        _need(inhabitants[p] == want, f"inhabitants[{p}] must be {want} (SV-INH-1), got {inhabitants[p]}")
        drawn = sum(1 for v in sheet if v >= 0) - 1
        _need(turns[p] == drawn, f"turns[{p}] must equal the {drawn} symbols drawn after setup, got {turns[p]}")
    raw_rolls = data.get("rolls")
    _need(isinstance(raw_rolls, list) and raw_rolls, "rolls must be a non-empty list")
    rolls = [tuple(_int_list({"roll": r}, "roll", len(FACES), 0, DICE)) for r in raw_rolls]
    for i, r in enumerate(rolls):
        _need(sum(r) == DICE, f"rolls[{i}] must count {DICE} dice, got {sum(r)}")
    rnd, slot_face, pool = _check_round(data, n, rolls)
    history = data.get("history")
    _need(
        isinstance(history, list)
        and all(not isinstance(a, bool) and isinstance(a, int) and 0 <= a < NUM_ACTIONS for a in history),
        "history must be a list of action ids",
    )
    _need(len(history) == sum(turns), f"history holds {len(history)} actions but {sum(turns)} turns were taken")
    first, current = data.get("first"), data.get("current")
    _need(
        not isinstance(first, bool) and isinstance(first, int) and 0 <= first < n,
        f"first must be a seat, got {first!r}",
    )
    empty = [sum(1 << h for h in range(N_HEX) if s[h] == EMPTY) for s in sheets]
    remaining = sum(m.bit_count() for m in empty)
    if remaining:
        _need(
            not isinstance(current, bool) and isinstance(current, int) and 0 <= current < n and empty[current],
            f"current must be a seat with an empty hex, got {current!r}",
        )
    else:
        _need(current is None, f"every sheet is full, so current must be null (SV-END-1), got {current!r}")
    g = object.__new__(Game)
    g.num_players, g.seed, g.children, g.variant = n, data["seed"], bool(variant["children"]), dict(variant)
    g.letter, g.sheet_map, g.pads = letter, layout, list(pads)
    g.sheets, g.empty, g.inhabitants, g.turns, g.remaining = sheets, empty, inhabitants, turns, remaining
    g.rolls, g.round, g.first, g.history, g._scores = rolls, rnd, first, list(history), None
    g.pool, g.slot_face, g.turn_in_round, g.current = pool, slot_face, data["turn_in_round"], current
    g.free_slots = sum(1 << k for k in range(SLOTS) if slot_face[k] < 0)
    g.free_hexes = 0
    for k in range(SLOTS):
        if slot_face[k] < 0:
            g.free_hexes |= layout.region_mask[k]
    return g
