"""The Key Harvest rules engine: one atomic decision per step (KH-RULING-16/17), pure Python.

The game is a stack machine. Each frame on ``stack`` is a tuple whose first item names it. Decision
frames (the phases of §16, lower-case) wait for the player in their second item; every other frame is a
continuation that :meth:`Game._advance` runs at once and that may push further frames (the refill loop,
one event for one player, the Miller's automatic harvest, the end of an action). A phase whose only legal
id is 0 is skipped as if 0 had been chosen; a phase with no legal id is not entered (§16).

Boards are int bitmasks over the 56 spaces (``fields``, ``unharvested``, ``workers`` per seat), so group
searches, worker placement checks and clones are cheap. All randomness is drawn at setup from ``seed``
(start player, start pairs, crop roles, secret draws, removed events and the bag order, which is a
shuffled list drawn from its end), so the state holds no generator: clones and JSON round trips are exact.
"""

from __future__ import annotations

import json
import random
from itertools import compress
from typing import Any

import numpy as np

from farmgames.envs.core.datafiles import load_json_text
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.core.records import make_pins
from farmgames.envs.core.seeding import check_seed

from . import auction
from .actions import (
    CROP0,
    DONE,
    FARMHAND0,
    HARVEST,
    LETTER_A,
    LETTER_B,
    LETTER_C,
    LETTER_D,
    LETTER_OF_ACTION,
    NUM_ACTIONS,
    PLAY_WORKER,
    REGISTRY0,
    REMOVE_WORKER,
    SPACE0,
    STORE0,
    TAKE_REGISTRY,
    TAKE_STORE,
    TOWNSFOLK0,
    action_name,
)
from .board import (
    BIT,
    COUNTERS_PER_CROP,
    CROP_OF,
    CROPS,
    DATA_HASHES,
    END_EVENT,
    EVENT_TILES,
    EVENTS,
    FARMHANDS,
    FINAL_ROUNDS,
    FULL,
    NEIGHBOUR_MASK,
    NUM_CROPS,
    NUM_EVENT_TILES,
    NUM_SPACES,
    NUMBER,
    PAIR_COLOURS,
    REGISTRY_SPACES,
    SAFETY_ROUNDS,
    SETUP,
    SPACE_NAMES,
    START_COUNTERS,
    START_PAIRS,
    STORE_SPACES,
    TILE_NUMBER,
    TOWNSFOLK_BASE,
    WORKERS,
    cached_neighbour_counts,
    dilate,
    group_of,
    grow_counts,
    spaces,
    worker_kind,
)
from .scoring import Score, score_player, winners

GAME_NAME = "key_harvest"
ENV_NAME = "key_harvest_v0"
EVENT0 = NUM_SPACES  # bag items: 0-55 field tiles, 56-69 event tiles (kind EVENT_TILES[item - 56])
UNLIMITED = 99  # the Merchant's exchange has no limit (KH-RULING-5)
# Change log for incremental observers (Observer.fill): every write to one of these parts of the state
# appends its tag to ``Game.changes`` (tests/key_harvest/test_speed_paths.py checks, decision by decision
# on random games, that every part that changed was logged). Setup and direct writes are not logged: an
# observer syncs completely with a game it has not followed.
CH_BOARD, CH_COUNTERS, CH_BIDS, CH_STORE = 0, 4, 8, 12  # + seat: board, supply/net/min_net, bids, store
CH_STOCK, CH_REGISTRY, CH_BAG, CH_EVENTS, CH_WORKERS, CH_NEW = 16, 17, 18, 19, 20, 21  # bag: bag and fallow
CH_TURN = 22  # taken, actions_taken, rebenefit, pending_extra, end_triggered, turns_left, rounds
# Game._placement: (empty spaces not next to a worker, (number, bit) of replaceable own workers, neighbour
# counts, numbers with a space as bits, the spaces of each number 1..5)
Placement = tuple[int, tuple[tuple[int, int], ...], tuple[int, ...], int, tuple[int, ...]]
_PLACEMENTS: dict[tuple, tuple] = {}  # Game._placement's cache (pure function of its key)
_PLAYABLE: dict[tuple, bool] = {}  # Game.can_play_worker's cache (same key)
# numbers-with-a-space mask (bit number) -> (worker kind, WORKER id) of the kinds so numbered, in id order
_WORKER_IDS = tuple(
    tuple((k, FARMHAND0 + k if k < FARMHANDS else TOWNSFOLK0 + k - FARMHANDS) for k in range(12) if ok >> NUMBER[k] & 1)
    for ok in range(64)
)
# (fields, workers) -> spaces_for_one, Game._spaces_for_one. Not an int key fields << 56 | workers: the two
# big-int operations cost more than the tuple (+0.35% of the engine's instructions, callgrind, collections
# included), though the tuples kept are tracked by the garbage collector
_ONE_SPACES: dict[tuple[int, int], int] = {}
_NEAR_FIELDS: dict[int, int] = {}  # fields -> dilate(fields), Game._spaces_for_one


def _worker_neighbours(workers: int) -> int:
    """``dilate(workers)`` as the union of the neighbour masks of its spaces: a board holds a few workers, and
    four int operations per worker cost less than a dilate's ~25 (test_speed_paths.py compares the two)."""
    near = 0
    while workers:
        low = workers & -workers
        near |= NEIGHBOUR_MASK[low.bit_length() - 1]
        workers ^= low
    return near


def spaces_for_one(fields: int, workers: int) -> int:
    """Where a worker numbered 1 may go: empty spaces not next to a worker and next to a field tile
    (KH-ACT-WORKER-3/4; ``_worker_spaces(placement, 1)`` without the neighbour counts, which cost 5x more)."""
    return FULL & ~(fields | workers) & ~(dilate(workers) if workers else 0) & dilate(fields)


# SPACE ids of the spaces of a bitmask, 8 spaces per table lookup (the HARVEST, PICK, SPACE, REMOVE and
# REPLACE lists: 2-3x faster than a bit at a time from 6 spaces on; tests/key_harvest/test_speed_paths.py
# compares it with [SPACE0 + s for s in spaces(mask)])
_BYTE_SPACE_IDS = tuple(
    tuple(tuple(SPACE0 + 8 * k + j for j in range(8) if b >> j & 1) for b in range(256)) for k in range(NUM_SPACES // 8)
)


def space_ids(mask: int) -> list[int]:
    """``[SPACE0 + s for s in spaces(mask)]`` (increasing) for a mask of the 56 spaces."""
    if not mask & (mask - 1):  # speed: no space or one (over half of random play's masks), without the loop
        return [SPACE0 - 1 + mask.bit_length()] if mask else []
    out: list[int] = []
    k = 0
    while mask:
        b = mask & 255
        if b:
            out += _BYTE_SPACE_IDS[k][b]
        mask >>= 8
        k += 1
    return out


# the CROP ids in CROPS order: compress(_CROP_IDS, counts) is [CROP0 + c for c in range(NUM_CROPS) if counts[c]]
# as a C loop (the SUBSTITUTE, CROP and TITHE lists; BID unrolls it; tests/key_harvest/test_speed_paths.py
# compares them)
_CROP_IDS = tuple(CROP0 + c for c in range(NUM_CROPS))
# the same for the registry (the ENCLOSE and SURVEY lists; REGISTRY unrolls it): compress(_REGISTRY_IDS,
# map(_FILLED, registry)) is [REGISTRY0 + i for i, t in enumerate(registry) if t >= 0] (_FILLED(t) is -1 < t,
# a tile id; test_speed_paths.py)
_REGISTRY_IDS = tuple(REGISTRY0 + i for i in range(REGISTRY_SPACES))
_FILLED = (-1).__lt__
_NO_COUNTERS = [0] * NUM_CROPS  # a supply without counters (can_take_registry, the REGISTRY list)
_EMPTY_REGISTRY = [-1] * REGISTRY_SPACES  # a registry without tiles (can_take_registry)
# seats clockwise after p, by player count (has_store_choice / store_choices: the stores at offsets 1..n-1,
# KH-RULING-17); those two unroll the store spaces of board.yaml, two per store
_OTHER_SEATS = {n: tuple(tuple((p + o) % n for o in range(1, n)) for p in range(n)) for n in (2, 3, 4)}
assert STORE_SPACES == 2 and NUM_CROPS == 5 and REGISTRY_SPACES == 6, "unrolled: store spaces, crops, registry"
assert max(NUMBER) == 5, "Game._placement_plain unrolls the worker numbers 1..5"

# decision frame name -> §16 phase
PHASE_OF = {
    "turn": "TURN",
    "harvest": "HARVEST",
    "pick": "PICK",
    "subst": "SUBSTITUTE",
    "hiring": "HIRING",
    "worker": "WORKER",
    "space": "SPACE",
    "remove": "REMOVE",
    "store": "STORE",
    "replace": "REPLACE",
    "registry": "REGISTRY",
    "bid": "BID",
    "extra": "EXTRA",
    "deed": "DEED",
    "crop": "CROP",
    "give": "GIVE",
    "take": "TAKE",
    "tithe": "TITHE",
    "enclose": "ENCLOSE",
    "survey": "SURVEY",
}
CONTINUATIONS = frozenset({"action_end", "refill", "event_for", "event_done", "miller"})
PICK_KINDS = ("unskilled", "foreman", "casual", "rain")  # the first two harvest, the others turn back
EXTRA_SUPERVISOR, EXTRA_CARTER = 1, 2


_CROP_VERBS = {
    "bid": "bid",
    "subst": "take instead",
    "crop": "take",
    "give": "give back",
    "take": "take",
    "tithe": "return",
}
_SPACE_VERBS = {
    "harvest": "harvest",
    "pick": "pick",
    "space": "place the worker on",
    "remove": "remove the worker on",
    "replace": "re-place the worker on",
}


def check_players(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
        raise ValueError(f"num_players must be 2, 3 or 4 (KH-COMP-9), got {n!r}")
    return n


# The state a JSON record carries (to_json/from_json); with the decision stack, the change log and the cached
# legal list it is every slot of a Game.
STATE_FIELDS: tuple[str, ...] = (
    "num_players",
    "seed",
    "first_player",
    "history",
    "start_player",
    "pairs",
    "fields",
    "unharvested",
    "workers",
    "worker_at",
    "worker_space",
    "town",
    "roles",
    "start",
    "pool",
    "supply",
    "net",
    "min_net",
    "stock",
    "registry",
    "removed",
    "bag",
    "events",
    "fallow",
    "store",
    "bids",
    "new_in_store",
    "active",
    "taken",
    "actions_taken",
    "rebenefit",
    "pending_extra",
    "event_depth",
    "end_triggered",
    "turns_left",
    "rounds",
    "turns",
    "truncated",
    "over",
)


class Game:
    """A Key Harvest game for 2-4 players (seats 0..n-1, clockwise = increasing seat)."""

    name = GAME_NAME
    # speed: the state in slots (a Game has 42 attributes, beyond the 30 that 3.11 keeps in an instance's
    # shared-key values, so every self.x was a dict lookup; slots are read at a fixed offset: -4.6% of the
    # engine's instructions); "__dict__" keeps room for other attributes (the kept final scores, a resampled
    # deal, an instance's _advance stand-in). clone copies every slot; to_json/from_json go by STATE_FIELDS.
    # speed: ``current_player`` is a slot, not a property over the stack: the adapters read it 2-3 times per env
    # step, and a property is a Python call each time. Written where the machine stops (apply, _advance,
    # from_json's terminal state); tests/key_harvest/test_speed_paths.py checks it against the stack's top
    # (``stack[-1][1] if stack else None``) after every decision of random games, clones and loaded states.
    __slots__ = (*STATE_FIELDS, "stack", "changes", "_legal", "current_player", "__dict__")

    def __init__(self, num_players: int = 4, seed: int = 0, first_player: int | None = None):
        self.num_players = check_players(num_players)
        self.seed = check_seed(seed)
        if first_player is not None and (
            isinstance(first_player, bool) or not isinstance(first_player, int) or not 0 <= first_player < num_players
        ):
            raise ValueError(f"first_player must be None or a seat 0..{num_players - 1}, got {first_player!r}")
        self.first_player = first_player
        self.history: list[int] = []
        self.changes: list[int] = []  # the change log (CH_* tags)
        self._legal: list[int] | None = None
        self.current_player: int | None = None  # the seat whose decision is pending, None at the end
        self._setup(random.Random(self.seed))
        self._advance()

    # ------------------------------------------------------------------------------------------ setup

    def _setup(self, rng: random.Random) -> None:
        """KH-SETUP-1..18 with KH-RULING-10: every random choice from one seeded generator."""
        n = self.num_players
        self.start_player = rng.randrange(n) if self.first_player is None else self.first_player  # KH-SETUP-4
        colours = list(PAIR_COLOURS)
        rng.shuffle(colours)
        self.pairs = colours[:n]  # KH-SETUP-7: start pairs dealt at random
        self.fields = [0] * n  # bitmask of field tiles on each country board
        self.unharvested = [0] * n  # subset of fields lying unharvested side up
        self.workers = [0] * n  # bitmask of spaces holding a worker
        self.worker_at = [[-1] * NUM_SPACES for _ in range(n)]
        self.worker_space = [-1] * 30  # worker tile -> space on its owner's board, -1 off the board
        self.town = [-1] * 6  # townsfolk -> seat holding it, -1 on the town board (KH-SETUP-5)
        for p, colour in enumerate(self.pairs):  # KH-SETUP-6/8
            for s in START_PAIRS[colour]:
                self.fields[p] |= BIT[s]
                self.unharvested[p] |= BIT[s]
        # start counters (KH-SETUP-9..12)
        rule = SETUP["player_counts"][n]
        roles = list(range(NUM_CROPS))
        rng.shuffle(roles)
        self.roles = roles  # roles[i] = the crop filling role i of setup.yaml (public, KH-SETUP-18)
        self.start = [[0] * NUM_CROPS for _ in range(n)]
        order = [(self.start_player + k) % n for k in range(n)]
        if rule["open"]:  # 2 players: one of the doubled crop and two singles each, dealt openly
            for k, p in enumerate(order):
                self.start[p][roles[4]] += 1
                self.start[p][roles[2 * k]] += 1
                self.start[p][roles[2 * k + 1]] += 1
        else:  # 3-4 players: secret draws from a bag of the given proportions
            pool = [roles[i] for i, count in enumerate(rule["roles"]) for _ in range(count)]
            rng.shuffle(pool)
            for k, p in enumerate(order):
                for c in pool[START_COUNTERS * k : START_COUNTERS * (k + 1)]:
                    self.start[p][c] += 1
        self.pool = [0] * NUM_CROPS  # the start-counter pool's composition (public)
        for i, count in enumerate(rule["roles"]):
            self.pool[roles[i]] += count
        self.supply = [list(row) for row in self.start]
        self.net = [[0] * NUM_CROPS for _ in range(n)]  # public net of gains and losses since setup
        self.min_net = [[0] * NUM_CROPS for _ in range(n)]  # lowest net so far (perfect-recall lower bound)
        self.stock = [COUNTERS_PER_CROP - self.pool[c] for c in range(NUM_CROPS)]  # KH-SETUP-14
        # tiles (KH-SETUP-15/16)
        placed = {s for colour in self.pairs for s in START_PAIRS[colour]}
        bag = [s for s in range(NUM_SPACES) if s not in placed]
        rng.shuffle(bag)
        self.registry = [bag.pop() for _ in range(REGISTRY_SPACES)]
        events = [EVENT0 + i for i in range(NUM_EVENT_TILES)]
        rng.shuffle(events)
        k = rule["removed_events"]
        self.removed = sorted(events[:k])  # KH-SETUP-16: removed unseen (KH-INFO-4)
        bag += events[k:]
        rng.shuffle(bag)
        self.bag = bag  # drawn from the end (KH-DRAW-1)
        self.events: list[int] = []  # resolved event tiles on the event spaces, in order (KH-DRAW-4)
        self.fallow: list[int] = []  # KH-BOARD-7
        self.store = [[-1] * STORE_SPACES for _ in range(n)]
        self.bids = [[[0] * NUM_CROPS for _ in range(STORE_SPACES)] for _ in range(n)]
        self.new_in_store: list[int] = []  # tiles that entered a store this turn (KH-EVENT-6)
        # turn and end state
        self.active = self.start_player
        self.taken = 0  # letters used this turn (KH-TURN-3)
        self.actions_taken = 0  # turn actions counting toward the limit of two (KH-TURN-2, KH-TURN-7)
        self.rebenefit = 0  # worker tiles that gave a re-placement benefit this turn (KH-ACT-PLACE-11)
        self.pending_extra = 0  # EXTRA_SUPERVISOR | EXTRA_CARTER awaiting the end of the action (KH-RULING-14)
        self.event_depth = 0
        self.end_triggered = False
        self.turns_left = 0
        self.rounds = 0  # complete rounds played (KH-END-6)
        self.turns = 0
        self.truncated = False
        self.over = False
        self.stack: list[tuple] = [("turn", self.start_player)]

    # ------------------------------------------------------------------------------------ protocol

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def frame(self) -> tuple | None:
        """The pending decision frame (phase name, acting seat, context...), None at the end."""
        return self.stack[-1] if self.stack else None

    @property
    def phase(self) -> str | None:
        """The §16 phase of the pending decision (TURN, HARVEST, ...), None at the end."""
        return PHASE_OF[self.stack[-1][0]] if self.stack else None

    def is_terminal(self) -> bool:
        return self.over

    def legal_actions(self) -> list[int]:
        # _legal is the list the machine stopped at: every way to a state (__init__, from_json, clone, scenario)
        # runs _advance or sets it, so it is None only inside a constructor; ``over`` is still tested (a state
        # marked over by hand has no legal action)
        return [] if self.over else self._legal.copy()  # type: ignore[union-attr]

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if not self.over and self._legal:
            mask[self._legal] = 1
        return mask

    def apply(self, action: int) -> None:
        if type(action) is not int:  # plain ints (the usual case) need no conversion
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise IllegalActionError(f"action must be an integer id, got {action!r}")
            action = int(action)
        if self.over:
            raise IllegalActionError("the game is over")
        if action not in self._legal:
            raise IllegalActionError(
                f"action {action} ({self._safe_name(action)}) is not legal in phase {self.phase}; legal: {self._legal}"
            )
        self.history.append(action)
        stack = self.stack
        f = stack[-1]
        _DO[f[0]](self, f, action)
        # speed: _advance inlined, with one table for both kinds of frame (_STEP: a continuation's handler runs
        # it and returns None, a decision frame's returns its legal ids, a list, never None): the call and the
        # name test per frame were ~4% of a decision. tests/key_harvest/test_speed_paths.py plays every action
        # both ways (apply_plain: the action's handler, then _advance)
        # The one test ``not legal`` serves a continuation (None) and a phase with no legal id ([]): decision
        # frames, ~3 in 4 of the frames run, skip the test for None.
        step = _STEP
        while stack:
            f = stack[-1]
            legal = step[f[0]](self, f)
            if not legal:
                if legal is not None:  # a phase with no legal id is not entered; else a continuation ran
                    stack.pop()
            elif legal == _ONLY_DONE:
                _DO[f[0]](self, f, DONE)
            else:
                self._legal = legal
                self.current_player = f[1]
                return
        self._legal = []
        self.current_player = None

    def _safe_name(self, action: int) -> str:
        try:
            return action_name(action)
        except ValueError:
            return "out of range"

    def clone(self) -> Game:
        """An independent copy: every slot of the state, its lists copied to their depth; a new change log (an
        observer syncs completely with a game it has not followed); attributes outside the slots carried over
        but the kept final scores (clones are edited: hidden perturbations, scenarios; scored afresh).
        tests/key_harvest/test_speed_paths.py checks every slot against the original and that no list is shared."""
        g = Game.__new__(Game)
        g.num_players = self.num_players
        g.seed = self.seed
        g.first_player = self.first_player
        g.start_player = self.start_player
        g.active = self.active
        g.taken = self.taken
        g.actions_taken = self.actions_taken
        g.rebenefit = self.rebenefit
        g.pending_extra = self.pending_extra
        g.event_depth = self.event_depth
        g.end_triggered = self.end_triggered
        g.turns_left = self.turns_left
        g.rounds = self.rounds
        g.turns = self.turns
        g.truncated = self.truncated
        g.over = self.over
        g.fields = list(self.fields)
        g.unharvested = list(self.unharvested)
        g.workers = list(self.workers)
        g.worker_space = list(self.worker_space)
        g.town = list(self.town)
        g.registry = list(self.registry)
        g.stock = list(self.stock)
        g.bag = list(self.bag)
        g.events = list(self.events)
        g.removed = list(self.removed)
        g.fallow = list(self.fallow)
        g.new_in_store = list(self.new_in_store)
        g.stack = list(self.stack)
        g.history = list(self.history)
        g.pairs = list(self.pairs)
        g.roles = list(self.roles)
        g.pool = list(self.pool)
        g.worker_at = [list(row) for row in self.worker_at]
        g.start = [list(row) for row in self.start]
        g.supply = [list(row) for row in self.supply]
        g.net = [list(row) for row in self.net]
        g.min_net = [list(row) for row in self.min_net]
        g.store = [list(row) for row in self.store]
        g.bids = [[list(b) for b in row] for row in self.bids]
        g._legal = None if self._legal is None else list(self._legal)
        g.current_player = self.current_player
        g.changes = []
        extra = self.__dict__
        if extra:
            g.__dict__.update(extra)
            g.__dict__.pop("_final_scores", None)
        return g

    def scores(self) -> list[Score]:
        """Every part of each seat's score (KH-SCORE-1..10); before the end, the score as it stands.

        At the end the scores are kept (the env reads them 3-4 times: rewards, infos, winners): a terminal
        state does not change, and the cache is keyed on the history's length (Score is frozen, the list
        a copy); clones start without it. A hand edit of a terminal state would need ``_final_scores = None``."""
        if not self.over:
            return [score_player(self, p) for p in range(self.num_players)]
        cached = self.__dict__.get("_final_scores")
        if cached is None or cached[0] != len(self.history):
            cached = self._final_scores = (len(self.history), [score_player(self, p) for p in range(self.num_players)])
        return list(cached[1])

    def winners(self) -> list[int]:
        return winners(self.scores())

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.num_players
        won = set(self.winners())
        return [1.0 if p in won else -1.0 for p in range(self.num_players)]

    def data_hashes(self) -> dict[str, str]:
        """SHA-256 of every data file the game was built from (records pin them)."""
        return dict(DATA_HASHES)

    def record(self) -> dict[str, Any]:
        """Seed, players, variant, actions and pins (package and env version, data-file hashes)."""
        return {
            "game": GAME_NAME,
            "num_players": self.num_players,
            "seed": self.seed,
            "variant": {"first_player": self.first_player},
            "actions": list(self.history),
            "pins": make_pins(ENV_NAME, DATA_HASHES),
        }

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        game = cls(record["num_players"], record["seed"], **record.get("variant", {}))
        for a in record["actions"]:
            game.apply(a)
        return game

    # ------------------------------------------------------------------------------------ helpers

    def store_owner(self, p: int, offset: int) -> int:
        """Seat of the store at ``offset`` clockwise from ``p`` (ids 80-87, KH-RULING-17)."""
        return (p + offset) % self.num_players

    def worker_owner(self, tile: int) -> int:
        return tile // FARMHANDS if tile < TOWNSFOLK_BASE else self.town[tile - TOWNSFOLK_BASE]

    def available_workers(self, p: int) -> list[int]:
        """Worker tiles ``p`` may play (KH-ACT-WORKER-2): own farmhands off the board, townsfolk in town."""
        out = [FARMHANDS * p + k for k in range(FARMHANDS) if self.worker_space[FARMHANDS * p + k] < 0]
        out += [TOWNSFOLK_BASE + t for t in range(6) if self.town[t] < 0]
        return out

    def worker_spaces(self, p: int, number: int) -> int:
        """Bitmask of spaces where a worker numbered ``number`` may be played (KH-ACT-WORKER-3..5)."""
        return self._worker_spaces(self._placement(p), number)

    def _placement(self, p: int) -> Placement:
        """What :meth:`worker_spaces` needs for every number at once: the empty spaces not next to a worker,
        (number, bit) of the own workers that may be replaced by a higher one, the neighbour counts, the
        numbers that have a space (bit ``number``: the WORKER list and can_play_worker read it) and the spaces
        of each number 1..5.
        Cached by its inputs (:meth:`_worker_key`: worker_space and town say which tile is on which space of
        which board, validate_state keeps worker_at consistent with them);
        tests/key_harvest/test_speed_paths.py compares it with the plain computation."""
        key = self._worker_key(p)
        placement = _PLACEMENTS.get(key)
        if placement is None:
            if len(_PLACEMENTS) >= 1 << 12:  # about 1 MB
                _PLACEMENTS.clear()
            placement = _PLACEMENTS[key] = self._placement_plain(p)
        return placement

    def _placement_plain(self, p: int) -> Placement:
        # speed: the spaces next to a worker as the union of its neighbour masks, in the loop over the workers
        # (no dilate of the worker set, ~0.35 us), and the numbers' tile lookup inlined; tests compare the
        # placement with plain_worker_spaces (tests/key_harvest/test_speed_paths.py)
        f, w = self.fields[p], self.workers[p]
        lower = []
        near_workers = 0
        if w:
            at = self.worker_at[p]
            for s in spaces(w):  # own workers with a strictly lower number may be replaced (KH-ACT-WORKER-5)
                nb = NEIGHBOUR_MASK[s]
                near_workers |= nb
                if not nb & w:
                    lower.append((TILE_NUMBER[at[s]], BIT[s]))
        empty = FULL & ~(f | w) & ~near_workers
        counts = cached_neighbour_counts(f)
        # the spaces of a worker numbered 1..5 (KH-ACT-WORKER-3..5): the empty spaces and the own workers of a
        # strictly lower number, with enough field neighbours. speed: the replaceable workers' bits gathered
        # by number once and the five numbers unrolled as a running union (a loop over ``lower`` for each
        # number was ~3x the operations; tests/key_harvest/test_speed_paths.py compares the placement with
        # plain_worker_spaces for every number)
        below = [0, 0, 0, 0, 0, 0]  # below[k]: bits of the replaceable own workers numbered k
        for num, bit in lower:
            below[num] |= bit
        c1 = empty & counts[0]
        acc = empty | below[1]
        c2 = acc & counts[1]
        acc |= below[2]
        c3 = acc & counts[2]
        acc |= below[3]
        c4 = acc & counts[3]
        acc |= below[4]
        c5 = acc & counts[4]
        ok = (2 if c1 else 0) | (4 if c2 else 0) | (8 if c3 else 0) | (16 if c4 else 0) | (32 if c5 else 0)
        return empty, tuple(lower), counts, ok, (c1, c2, c3, c4, c5)

    @staticmethod
    def _worker_spaces(placement: Placement, number: int) -> int:
        return placement[4][number - 1]

    def _worker_key(self, p: int) -> tuple:
        """What :meth:`_placement` and :meth:`can_play_worker` of seat ``p`` depend on: the board's fields,
        where its farmhands are, where every townsfolk is (town and space)."""
        ws, b = self.worker_space, FARMHANDS * p
        return (p, self.fields[p], *ws[b : b + FARMHANDS], *ws[TOWNSFOLK_BASE:], *self.town)

    def can_play_worker(self, p: int) -> bool:
        """Some available worker (KH-ACT-WORKER-2) has a space. Asked at every TURN decision, it depends only
        on the board's fields and where the workers are, so it is cached like :meth:`_placement`."""
        # speed: the plain path's first test before the cache key (a 20-item tuple): the farmhands numbered 1
        # are the seat's first two (Apprentice, Casual), and one off the board with a space (``_spaces_for_one``)
        # answers ~80% of the calls of random play (tests/key_harvest/test_speed_paths.py compares the answer
        # with _can_play_worker_plain)
        ws, b = self.worker_space, FARMHANDS * p
        if ws[b] < 0 or ws[b + 1] < 0:
            one = _ONE_SPACES.get((self.fields[p], self.workers[p]))  # _spaces_for_one's cache, looked up here
            if one is None:
                one = self._spaces_for_one(p)
            if one:
                return True
        key = self._worker_key(p)
        playable = _PLAYABLE.get(key)
        if playable is None:
            if len(_PLAYABLE) >= 1 << 12:
                _PLAYABLE.clear()
            playable = _PLAYABLE[key] = self._can_play_worker_plain(p)
        return playable

    def _can_play_worker_plain(self, p: int) -> bool:
        """The numbers of the available workers, each tried once."""
        ws, town, b = self.worker_space, self.town, FARMHANDS * p
        numbers = 0  # bit k: a worker numbered k is available
        for k in range(FARMHANDS):
            if ws[b + k] < 0:
                numbers |= 1 << NUMBER[k]
        for t in range(6):
            if town[t] < 0:
                numbers |= 1 << NUMBER[FARMHANDS + t]
        if not numbers:
            return False
        if numbers & 2 and self._spaces_for_one(p):  # a worker numbered 1 with a space
            return True
        return bool(numbers & self._placement(p)[3])  # a number available and with a space

    def _spaces_for_one(self, p: int) -> int:
        """Where a worker numbered 1 may go on ``p``'s board (:func:`spaces_for_one`), cached by the board's
        fields and workers, which change a few times a game: asked at most TURN decisions, and the two
        dilations of 56-bit ints cost ~10x a lookup (tests/key_harvest/test_speed_paths.py compares it with
        the plain function)."""
        key = (self.fields[p], self.workers[p])
        one = _ONE_SPACES.get(key)
        if one is None:  # a third of the calls: the fields' neighbours from a cache by the fields, the workers'
            # (1-3 of them) as the union of their neighbour masks (_worker_neighbours)
            f, w = key
            near_fields = _NEAR_FIELDS.get(f)
            if near_fields is None:
                if len(_NEAR_FIELDS) >= 1 << 12:
                    _NEAR_FIELDS.clear()
                near_fields = _NEAR_FIELDS[f] = dilate(f)
            if len(_ONE_SPACES) >= 1 << 12:
                _ONE_SPACES.clear()
            one = _ONE_SPACES[key] = FULL & ~(f | w) & ~_worker_neighbours(w) & near_fields
        return one

    def has_store_choice(self, p: int) -> bool:
        """``store_choices(p)`` is not empty (the same tests, stopping at the first tile): a tile of the own
        store needs no payment (KH-ACT-PLACE-1), another store's an exact payment of its bid (KH-ACT-PLACE-3/9);
        never a tile that entered a store this turn (KH-EVENT-6)."""
        # speed: asked at every TURN decision, so unrolled over the two store spaces, the other seats from a
        # table and can_pay (auction.can_pay) unrolled over the five crops, the supply unpacked once (a C-level
        # all(map(ge, supply, bid)) builds a map object per bid: -1.4% of the engine's instructions);
        # tests/key_harvest/test_speed_paths.py compares it with bool(store_choices(p)) and store_choices with
        # the plain reading on random games
        store, new = self.store, self.new_in_store
        t0, t1 = store[p]
        if (t0 >= 0 and t0 not in new) or (t1 >= 0 and t1 not in new):
            return True
        s0, s1, s2, s3, s4 = self.supply[p]
        bids = self.bids
        for owner in _OTHER_SEATS[self.num_players][p]:
            t0, t1 = store[owner]
            if t0 >= 0 and t0 not in new:
                b0, b1, b2, b3, b4 = bids[owner][0]
                if s0 >= b0 and s1 >= b1 and s2 >= b2 and s3 >= b3 and s4 >= b4:
                    return True
            if t1 >= 0 and t1 not in new:
                b0, b1, b2, b3, b4 = bids[owner][1]
                if s0 >= b0 and s1 >= b1 and s2 >= b2 and s3 >= b3 and s4 >= b4:
                    return True
        return False

    def store_choices(self, p: int) -> list[int]:
        """Store-tile ids ``p`` may take now (KH-ACT-PLACE-1/3/9, KH-EVENT-6): own tiles freely, another store's
        for an exact payment of its bid, never a tile that entered a store this turn."""
        # speed: the tests of has_store_choice, listing every tile (test_speed_paths.py: a plain loop)
        store, new, bids = self.store, self.new_in_store, self.bids
        out = []
        t0, t1 = store[p]
        if t0 >= 0 and t0 not in new:
            out.append(STORE0)
        if t1 >= 0 and t1 not in new:
            out.append(STORE0 + 1)
        s0, s1, s2, s3, s4 = self.supply[p]
        for o, owner in enumerate(_OTHER_SEATS[self.num_players][p], 1):
            t0, t1 = store[owner]
            if t0 >= 0 and t0 not in new:
                b0, b1, b2, b3, b4 = bids[owner][0]
                if s0 >= b0 and s1 >= b1 and s2 >= b2 and s3 >= b3 and s4 >= b4:
                    out.append(STORE0 + STORE_SPACES * o)
            if t1 >= 0 and t1 not in new:
                b0, b1, b2, b3, b4 = bids[owner][1]
                if s0 >= b0 and s1 >= b1 and s2 >= b2 and s3 >= b3 and s4 >= b4:
                    out.append(STORE0 + STORE_SPACES * o + 1)
        return out

    def can_take_registry(self, p: int) -> bool:
        """Action (d) possible (KH-ACT-BID-1/2/5): an empty store space, counters to bid, a registry tile."""
        # speed: counters to bid as "the supply is not all zeros" and a registry tile as "the registry is not all
        # empty" (-1), each one C list comparison (any() and count() + len() cost -0.9% more of the engine's
        # instructions, max(registry) >= 0 +0.7%; the state's rows are lists, validate_state checks it);
        # tests/key_harvest/test_speed_paths.py compares it with the plain reading
        return -1 in self.store[p] and self.supply[p] != _NO_COUNTERS and self.registry != _EMPTY_REGISTRY

    def _gain(self, p: int, crop: int, k: int = 1) -> None:
        """Counters into ``p``'s supply: every transfer is public (KH-INFO-6), so the net is tracked."""
        self.supply[p][crop] += k
        self.net[p][crop] += k
        self.changes.append(CH_COUNTERS + p)

    def _lose(self, p: int, crop: int, k: int = 1) -> None:
        self.supply[p][crop] -= k
        net = self.net[p]
        net[crop] -= k
        self.changes.append(CH_COUNTERS + p)
        if net[crop] < self.min_net[p][crop]:
            self.min_net[p][crop] = net[crop]

    def _take_from_stock(self, p: int, crop: int) -> None:
        self.stock[crop] -= 1
        self.changes.append(CH_STOCK)
        self._gain(p, crop)

    def _give_to_stock(self, p: int, crop: int) -> None:
        self._lose(p, crop)
        self.stock[crop] += 1
        self.changes.append(CH_STOCK)

    def _harvest_tile(self, p: int, s: int) -> None:
        """Turn one tile and take its crop, or a substitute (KH-ACT-HARVEST-6..10, 14)."""
        self.unharvested[p] &= ~BIT[s]
        self.changes.append(CH_BOARD + p)
        crop = CROP_OF[s]
        if self.stock[crop]:
            self._take_from_stock(p, crop)
        elif any(self.stock):
            self.stack.append(("subst", p))  # KH-ACT-HARVEST-14: the player picks a present crop
        # else: KH-ACT-HARVEST-9, nothing is taken

    def _place_field(self, p: int, tile: int, surveyed: bool) -> None:
        """A field tile onto its own space, unharvested (KH-ACT-PLACE-5/6, KH-TILE-3)."""
        grow_counts(self.fields[p], tile)  # speed: the neighbour counts of the new board, from the old board's
        self.fields[p] |= BIT[tile]
        self.unharvested[p] |= BIT[tile]
        self.changes.append(CH_BOARD + p)
        w = self.worker_at[p][tile]
        if w >= 0:  # KH-ACT-PLACE-6/7: the worker is displaced and may be re-placed at once
            self._lift_worker(p, w)
            self.stack.append(("replace", p, w, int(surveyed)))

    def _lift_worker(self, p: int, tile: int) -> None:
        s = self.worker_space[tile]
        self.worker_space[tile] = -1
        self.worker_at[p][s] = -1
        self.workers[p] &= ~BIT[s]
        self.changes += (CH_BOARD + p, CH_WORKERS)

    def _return_worker(self, tile: int) -> None:
        """Back to its supply: farmhands beside the board, townsfolk to the town (KH-ACT-WORKER-6/7)."""
        if tile >= TOWNSFOLK_BASE:
            self.town[tile - TOWNSFOLK_BASE] = -1
            self.changes.append(CH_WORKERS)

    def _place_worker(self, p: int, tile: int, s: int) -> None:
        old = self.worker_at[p][s]
        if old >= 0:  # KH-ACT-WORKER-5/6: a lower own worker is replaced and goes back
            self._lift_worker(p, old)
            self._return_worker(old)
        self.worker_space[tile] = s
        self.worker_at[p][s] = tile
        self.workers[p] |= BIT[s]
        self.changes += (CH_BOARD + p, CH_WORKERS)
        if tile >= TOWNSFOLK_BASE:
            self.town[tile - TOWNSFOLK_BASE] = p

    def _benefit(self, p: int, tile: int, s: int) -> None:
        """The one-time benefit of a newly placed worker (KH-ACT-WORKER-8/9/12, KH-RULING-4/5)."""
        b = WORKERS[worker_kind(tile)].benefit
        nb = NEIGHBOUR_MASK[s]
        own_turn = p == self.active and self.event_depth == 0
        if b == "take_one":
            self.stack.append(("crop", p, "apprentice", -1))
        elif b == "unharvest_adjacent":
            self.stack.append(("pick", p, "casual", 1, nb))
        elif b == "harvest_adjacent":
            self.stack.append(("pick", p, "unskilled", 2, nb))
        elif b == "exchange_two":
            self.stack.append(("give", p, 2, 0, 0))
        elif b == "extra_action":
            if own_turn:
                self.pending_extra |= EXTRA_SUPERVISOR
                self.changes.append(CH_TURN)
        elif b == "harvest_anywhere":
            self.stack.append(("pick", p, "foreman", 3, FULL))
        elif b == "harvest_all_adjacent":
            self.stack.append(("miller", p, tuple(spaces(self.unharvested[p] & nb))))
        elif b == "take_two_same":
            self.stack.append(("crop", p, "brewer", -1))
        elif b == "extra_store":
            if own_turn and not self.taken & (LETTER_C | LETTER_D):
                self.pending_extra |= EXTRA_CARTER
                self.changes.append(CH_TURN)
        elif b == "exchange_any":
            self.stack.append(("give", p, UNLIMITED, 0, 0))
        elif b == "harvest_group":
            self.stack.append(("harvest", p, 1, 0))
        elif b == "survey":
            self.stack.append(("survey", p))

    def _extra_letters(self, p: int, kinds: int) -> list[int]:
        """Letters an extra action may use (KH-RULING-14)."""
        t = self.taken
        out = []
        if kinds & EXTRA_SUPERVISOR and not t & LETTER_A and self.unharvested[p]:
            out.append(HARVEST)
        if not t & (LETTER_C | LETTER_D) and self.has_store_choice(p):
            out.append(TAKE_STORE)
        if kinds & EXTRA_SUPERVISOR and not t & LETTER_D and self.can_take_registry(p):
            out.append(TAKE_REGISTRY)
        return out

    def _letter_frame(self, p: int, action: int) -> tuple:
        """The decision frame the letter of ``action`` opens for ``p``; _d_turn and _d_extra read it from
        _OPENS instead (tests/key_harvest/test_speed_paths.py compares the two)."""
        name, *rest = _LETTER_FRAMES[action]
        return (name, p, *rest)

    # ------------------------------------------------------------------------------- the machine

    def _advance(self) -> None:
        """Run the continuations on top of the stack and the phases with no choice, up to the next decision
        with a choice (§16): a phase with no legal id is not entered, one whose only legal id is 0 is played
        as if 0 had been chosen. (``apply`` runs the same loop inlined; this one serves setup and loading.)"""
        stack = self.stack
        while stack:
            f = stack[-1]
            if f[0] in CONTINUATIONS:
                _RUN[f[0]](self, f)
                continue
            legal = _LEGAL[f[0]](self, f)
            if not legal:
                stack.pop()
            elif legal == [DONE]:
                _DO[f[0]](self, f, DONE)
            else:
                self._legal = legal
                self.current_player = f[1]
                return
        self._legal = []
        self.current_player = None

    # TURN (KH-TURN-1..7)
    def _l_turn(self, f: tuple) -> list[int]:
        p = f[1]
        out = [DONE]
        if self.actions_taken >= 2:
            return out
        t = self.taken
        if not t & LETTER_A and self.unharvested[p]:
            out.append(HARVEST)
        if not t & LETTER_B:
            if self.can_play_worker(p):
                out.append(PLAY_WORKER)
            if self.workers[p]:
                out.append(REMOVE_WORKER)
        if not t & (LETTER_C | LETTER_D) and self.has_store_choice(p):
            out.append(TAKE_STORE)
        if not t & LETTER_D and self.can_take_registry(p):  # one statement of the rule (inlined it saved 0.4%)
            out.append(TAKE_REGISTRY)
        return out

    def _d_turn(self, f: tuple, action: int) -> None:
        p = f[1]
        if action == DONE:
            self._end_turn()
            return
        self.taken |= LETTER_OF_ACTION[action]
        self.actions_taken += 1
        self.changes.append(CH_TURN)
        stack = self.stack  # two appends cost fewer instructions than += of a new tuple
        stack.append(_ACTION_END[p])  # ("action_end", p)
        stack.append(_OPENS[action][p])  # self._letter_frame(p, action)

    def _end_turn(self) -> None:
        """KH-TURN-5, KH-END-3, KH-END-6."""
        n = self.num_players
        if self.rebenefit:
            self.changes.append(CH_WORKERS)
        if self.new_in_store:
            self.changes.append(CH_NEW)
        self.taken = self.actions_taken = self.rebenefit = self.pending_extra = 0
        self.new_in_store = []
        self.changes.append(CH_TURN)  # and rounds, turns_left below
        self.turns += 1
        nxt = (self.active + 1) % n
        if nxt == self.start_player:
            self.rounds += 1
        if self.end_triggered:
            self.turns_left -= 1
            if self.turns_left == 0:
                self._finish()
                return
        elif self.rounds >= SAFETY_ROUNDS and nxt == self.start_player:
            self.truncated = True
            self._finish()
            return
        self.active = nxt
        self.stack[-1] = _TURN[nxt]  # the ending turn's frame replaced by ("turn", nxt); _finish empties the stack

    def _finish(self) -> None:
        """KH-END-4/5: store tiles stay, their bids go to the general stock."""
        for p in range(self.num_players):
            for k in range(STORE_SPACES):
                for c in range(NUM_CROPS):
                    self.stock[c] += self.bids[p][k][c]
                    self.bids[p][k][c] = 0
            self.changes.append(CH_BIDS + p)
        self.changes.append(CH_STOCK)
        self.over = True
        self.stack.clear()  # in place: the machine's loop (_advance) holds this list

    def _c_action_end(self, f: tuple) -> None:
        self.stack.pop()
        if self.pending_extra:
            kinds, self.pending_extra = self.pending_extra, 0
            self.changes.append(CH_TURN)
            self.stack.append(("extra", f[1], kinds))

    # HARVEST (KH-ACT-HARVEST-1..14): ("harvest", p, free, group)
    def _l_harvest(self, f: tuple) -> list[int]:
        _, p, free, group = f
        cand = self.unharvested[p] & group if group else self.unharvested[p]
        out = [DONE] if free or group else []
        out += space_ids(cand)
        return out

    def _d_harvest(self, f: tuple, action: int) -> None:
        _, p, free, group = f
        self.stack.pop()
        if action == DONE:
            return
        s = action - SPACE0
        self.stack.append(("harvest", p, free, group or group_of(s, self.fields[p])))
        self._harvest_tile(p, s)

    # PICK: ("pick", p, kind, left, allowed)
    def _l_pick(self, f: tuple) -> list[int]:
        _, p, kind, _left, allowed = f
        if kind in ("unskilled", "foreman"):
            cand = self.unharvested[p] & allowed
        else:
            cand = self.fields[p] & ~self.unharvested[p] & allowed
        return [DONE, *space_ids(cand)]

    def _d_pick(self, f: tuple, action: int) -> None:
        _, p, kind, left, allowed = f
        self.stack.pop()
        if action == DONE:
            return
        if left > 1:
            self.stack.append(("pick", p, kind, left - 1, allowed))
        s = action - SPACE0
        if kind in ("unskilled", "foreman"):
            self._harvest_tile(p, s)
        else:  # KH-ACT-HARVEST-12: Casual or Spring Rain turn a tile back
            self.unharvested[p] |= BIT[s]
            self.changes.append(CH_BOARD + p)

    # SUBSTITUTE
    def _l_subst(self, f: tuple) -> list[int]:
        return list(compress(_CROP_IDS, self.stock))  # the crops present in the stock

    def _d_subst(self, f: tuple, action: int) -> None:
        self.stack.pop()
        self._take_from_stock(f[1], action - CROP0)

    # HIRING (Hiring Fair)
    def _l_hiring(self, f: tuple) -> list[int]:
        p = f[1]
        out = [DONE]
        if self.can_play_worker(p):
            out.append(PLAY_WORKER)
        if self.workers[p]:
            out.append(REMOVE_WORKER)
        return out

    def _d_hiring(self, f: tuple, action: int) -> None:
        p = f[1]
        self.stack.pop()
        if action == PLAY_WORKER:
            self.stack.append(("worker", p, "hiring"))
        elif action == REMOVE_WORKER:
            self.stack.append(("remove", p))

    # WORKER / SPACE / REMOVE (KH-ACT-WORKER-1..12)
    def _l_worker(self, f: tuple) -> list[int]:
        """The playable workers (KH-ACT-WORKER-2..5): the available tiles whose number has a space, read from
        the cached placement's number mask (a list cache by the same key missed ~80% of random play's calls;
        tests/key_harvest/test_speed_paths.py compares it with :meth:`_l_worker_plain`)."""
        p = f[1]
        b = FARMHANDS * p
        off = self.worker_space[b : b + FARMHANDS] + self.town  # worker kind k is available when off[k] < 0
        out = []
        for k, a in _WORKER_IDS[self._placement(p)[3]]:  # a loop, not a comprehension: no cell for ``off``
            if off[k] < 0:
                out.append(a)
        return out

    def _l_worker_plain(self, p: int) -> list[int]:
        out = []
        ok: dict[int, bool] = {}
        placement = self._placement(p)
        for tile in self.available_workers(p):
            num = NUMBER[worker_kind(tile)]
            if num not in ok:
                ok[num] = bool(self._worker_spaces(placement, num))
            if ok[num]:
                k = worker_kind(tile)
                out.append(FARMHAND0 + k if k < FARMHANDS else TOWNSFOLK0 + k - FARMHANDS)
        return out

    def _d_worker(self, f: tuple, action: int) -> None:
        p = f[1]
        tile = FARMHANDS * p + action - FARMHAND0 if action < TOWNSFOLK0 else TOWNSFOLK_BASE + action - TOWNSFOLK0
        self.stack[-1] = ("space", p, tile, f[2])

    def _l_space(self, f: tuple) -> list[int]:
        return space_ids(self.worker_spaces(f[1], TILE_NUMBER[f[2]]))  # the worker's number

    def _d_space(self, f: tuple, action: int) -> None:
        _, p, tile, _ctx = f
        self.stack.pop()
        s = action - SPACE0
        self._place_worker(p, tile, s)
        self._benefit(p, tile, s)

    def _l_remove(self, f: tuple) -> list[int]:
        return space_ids(self.workers[f[1]])

    def _d_remove(self, f: tuple, action: int) -> None:
        p = f[1]
        self.stack.pop()
        tile = self.worker_at[p][action - SPACE0]
        self._lift_worker(p, tile)
        self._return_worker(tile)  # KH-ACT-WORKER-7/10

    # STORE (action (c), KH-ACT-PLACE-1..11): ("store", p, taken)
    def _l_store(self, f: tuple) -> list[int]:
        return ([DONE] if f[2] else []) + self.store_choices(f[1])

    def _d_store(self, f: tuple, action: int) -> None:
        _, p, n = f
        self.stack.pop()
        if action == DONE:
            return
        o, k = divmod(action - STORE0, STORE_SPACES)
        owner = self.store_owner(p, o)
        tile = self.store[owner][k]
        auction.settle(self, p, owner, k)
        self.store[owner][k] = -1
        self.changes.append(CH_STORE + owner)
        if n + 1 < 2:
            self.stack.append(("store", p, n + 1))
        self._place_field(p, tile, surveyed=False)

    # REPLACE (KH-ACT-PLACE-7/8/11, KH-RULING-15): ("replace", p, tile, surveyed)
    def _l_replace(self, f: tuple) -> list[int]:
        return [DONE, *space_ids(self.worker_spaces(f[1], TILE_NUMBER[f[2]]))]

    def _d_replace(self, f: tuple, action: int) -> None:
        _, p, tile, surveyed = f
        self.stack.pop()
        if action == DONE:
            self._return_worker(tile)  # KH-ACT-PLACE-8
            return
        s = action - SPACE0
        self._place_worker(p, tile, s)
        if not surveyed and not self.rebenefit >> tile & 1:  # KH-ACT-PLACE-11 (1) and (2)
            self.rebenefit |= 1 << tile
            self.changes += (CH_WORKERS, CH_TURN)
            self._benefit(p, tile, s)

    # REGISTRY and BID (action (d), KH-ACT-BID-1..10): ("registry", p, taken), ("bid", p, slot, count)
    def _l_registry(self, f: tuple) -> list[int]:
        p = f[1]
        out = [DONE] if f[2] else []
        if -1 in self.store[p] and self.supply[p] != _NO_COUNTERS:  # KH-ACT-BID-1/2 (see can_take_registry)
            # the tiles in the registry. speed: unrolled over the six spaces (compress over a map builds two
            # iterator objects: -0.8% of the engine's instructions); test_speed_paths.py compares the lists
            r0, r1, r2, r3, r4, r5 = self.registry
            i0, i1, i2, i3, i4, i5 = _REGISTRY_IDS
            if r0 >= 0:
                out.append(i0)
            if r1 >= 0:
                out.append(i1)
            if r2 >= 0:
                out.append(i2)
            if r3 >= 0:
                out.append(i3)
            if r4 >= 0:
                out.append(i4)
            if r5 >= 0:
                out.append(i5)
        return out

    def _d_registry(self, f: tuple, action: int) -> None:
        _, p, n = f
        self.stack.pop()
        if action == DONE:
            return
        i = action - REGISTRY0
        tile = self.registry[i]
        self.registry[i] = -1
        slot = self.store[p].index(-1)  # KH-ACT-BID-10: lowest empty space
        self.store[p][slot] = tile
        self.new_in_store.append(tile)
        self.changes += (CH_REGISTRY, CH_STORE + p, CH_NEW)
        if n + 1 < 2:
            self.stack.append(("registry", p, n + 1))
        self.stack.append(("refill",))  # KH-ACT-BID-9
        self.stack.append(("bid", p, slot, 0))  # KH-ACT-BID-3

    def _l_bid(self, f: tuple) -> list[int]:
        # the crops in the supply, 0 after the first counter. speed: unrolled over the five crops (a bid is ~15%
        # of random play's decisions; compress(_CROP_IDS, supply) builds an iterator object per list: -0.8% of
        # the engine's instructions); tests/key_harvest/test_speed_paths.py compares it with the plain list
        s0, s1, s2, s3, s4 = self.supply[f[1]]
        c0, c1, c2, c3, c4 = _CROP_IDS
        out = [DONE] if f[3] else []
        if s0:
            out.append(c0)
        if s1:
            out.append(c1)
        if s2:
            out.append(c2)
        if s3:
            out.append(c3)
        if s4:
            out.append(c4)
        return out

    def _d_bid(self, f: tuple, action: int) -> None:
        _, p, slot, count = f
        if action == DONE:
            self.stack.pop()
            return
        c = action - CROP0
        self._lose(p, c)
        self.bids[p][slot][c] += 1
        self.changes.append(CH_BIDS + p)
        self.stack[-1] = ("bid", p, slot, count + 1)  # the frame replaced: one more counter bid

    # refill loop with events (KH-DRAW-1..9, KH-RULING-11)
    def _c_refill(self, f: tuple) -> None:
        reg, bag = self.registry, self.bag
        while not self.end_triggered and -1 in reg and bag:
            item = bag.pop()
            if item < EVENT0:
                reg[reg.index(-1)] = item
                self.changes += (CH_BAG, CH_REGISTRY)
                continue
            self.events.append(item)
            self.changes += (CH_BAG, CH_EVENTS)
            self._start_event(EVENT_TILES[item - EVENT0])
            return
        self.stack.pop()

    def _start_event(self, kind: int) -> None:
        """KH-EVENT-3: resolved for each player in clockwise order from the active player."""
        n = self.num_players
        self.event_depth += 1
        self.stack.append(("event_done",))
        for k in reversed(range(n)):
            self.stack.append(("event_for", kind, (self.active + k) % n))

    def _c_event_done(self, f: tuple) -> None:
        self.stack.pop()
        self.event_depth -= 1
        if len(self.events) >= END_EVENT and not self.end_triggered:  # KH-END-1, KH-DRAW-7, KH-RULING-8
            self.end_triggered = True
            self.turns_left = FINAL_ROUNDS * self.num_players + 1
            self.changes.append(CH_TURN)

    def _c_event_for(self, f: tuple) -> None:
        """One event for one player (KH-RULING-6)."""
        _, kind, q = f
        self.stack.pop()
        effect = EVENTS[kind].effect
        if effect == "harvest_group":
            self.stack.append(("harvest", q, 1, 0))
        elif effect == "hiring":
            self.stack.append(("hiring", q))
        elif effect == "unharvest_two":
            self.stack.append(("pick", q, "rain", 2, FULL))
        elif effect == "exchange_three":
            self.stack.append(("give", q, 3, 0, 0))
        elif effect == "deed":
            if q != self.active:
                self.stack.append(("deed", q))
        elif effect == "tithe":
            if sum(self.supply[q]) >= 5:
                self.stack.append(("tithe", q))
        elif effect == "enclose":
            if q == self.active:
                self.stack.append(("enclose", q))

    def _c_miller(self, f: tuple) -> None:
        _, p, todo = f
        self.stack.pop()
        if todo:
            self.stack.append(("miller", p, todo[1:]))
            self._harvest_tile(p, todo[0])

    # EXTRA (KH-RULING-14): ("extra", p, kinds)
    def _l_extra(self, f: tuple) -> list[int]:
        return [DONE] + self._extra_letters(f[1], f[2])

    def _d_extra(self, f: tuple, action: int) -> None:
        p = f[1]
        self.stack.pop()
        if action == DONE:
            return
        self.taken |= LETTER_OF_ACTION[action]  # the letter counts as taken, not toward the limit (KH-TURN-7)
        self.changes.append(CH_TURN)
        self.stack += (_ACTION_END[p], _OPENS[action][p])  # ("action_end", p), self._letter_frame(p, action)

    # DEED (Deed Day)
    def _l_deed(self, f: tuple) -> list[int]:
        return [DONE] + ([TAKE_STORE] if self.has_store_choice(f[1]) else [])

    def _d_deed(self, f: tuple, action: int) -> None:
        self.stack.pop()
        if action == TAKE_STORE:
            self.stack.append(("store", f[1], 0))

    # CROP (Apprentice, Brewer): ("crop", p, kind, first)
    def _l_crop(self, f: tuple) -> list[int]:
        _, _p, kind, first = f
        if kind == "brewer2":
            return [DONE] + ([CROP0 + first] if self.stock[first] else [])
        return [DONE, *compress(_CROP_IDS, self.stock)]

    def _d_crop(self, f: tuple, action: int) -> None:
        _, p, kind, _first = f
        self.stack.pop()
        if action == DONE:
            return
        c = action - CROP0
        self._take_from_stock(p, c)
        if kind == "brewer":
            self.stack.append(("crop", p, "brewer2", c))

    # GIVE / TAKE (exchange procedure, KH-RULING-13): ("give", p, limit, given_mask, count), ("take", p, left, mask)
    def _l_give(self, f: tuple) -> list[int]:
        _, p, limit, given, count = f
        if count >= limit:
            return [DONE]
        return [DONE] + [CROP0 + c for c in auction.giveable(self.supply[p], self.stock, given, count)]

    def _d_give(self, f: tuple, action: int) -> None:
        _, p, limit, given, count = f
        self.stack.pop()
        if action == DONE:
            if count:
                self.stack.append(("take", p, count, given))
            return
        c = action - CROP0
        self._give_to_stock(p, c)
        self.stack.append(("give", p, limit, given | 1 << c, count + 1))

    def _l_take(self, f: tuple) -> list[int]:
        given, stock = f[3], self.stock
        out = []  # the crops in the stock not given in this exchange (a loop: no cells, see _l_worker)
        for c in range(NUM_CROPS):
            if stock[c] and not given >> c & 1:
                out.append(CROP0 + c)
        return out

    def _d_take(self, f: tuple, action: int) -> None:
        _, p, left, given = f
        self.stack.pop()
        self._take_from_stock(p, action - CROP0)
        if left > 1:
            self.stack.append(("take", p, left - 1, given))

    # TITHE / ENCLOSE / SURVEY
    def _l_tithe(self, f: tuple) -> list[int]:
        return list(compress(_CROP_IDS, self.supply[f[1]]))

    def _d_tithe(self, f: tuple, action: int) -> None:
        self.stack.pop()
        self._give_to_stock(f[1], action - CROP0)

    def _l_enclose(self, f: tuple) -> list[int]:
        return list(compress(_REGISTRY_IDS, map(_FILLED, self.registry)))

    def _d_enclose(self, f: tuple, action: int) -> None:
        self.stack.pop()
        i = action - REGISTRY0
        self.fallow.append(self.registry[i])
        self.registry[i] = -1
        self.changes += (CH_BAG, CH_REGISTRY)

    def _l_survey(self, f: tuple) -> list[int]:
        return [DONE, *compress(_REGISTRY_IDS, map(_FILLED, self.registry))]

    def _d_survey(self, f: tuple, action: int) -> None:
        p = f[1]
        self.stack.pop()
        if action == DONE:
            return
        i = action - REGISTRY0
        tile = self.registry[i]
        self.registry[i] = -1
        self.changes.append(CH_REGISTRY)
        if self.event_depth == 0:
            self.stack.append(("refill",))  # KH-RULING-5: outside an event the registry is refilled
        self._place_field(p, tile, surveyed=True)

    # --------------------------------------------------------------------------------- words

    def describe_action(self, action: int) -> str:
        """The meaning of ``action`` in the current phase, for the acting player."""
        f = self.frame
        if f is None:
            return action_name(action)
        p = f[1]
        if SPACE0 <= action < SPACE0 + NUM_SPACES:
            s = action - SPACE0
            verb = _SPACE_VERBS.get(f[0], "space")
            if f[0] == "pick":
                verb = "harvest" if f[2] in ("unskilled", "foreman") else "turn back"
            return f"{verb} {SPACE_NAMES[s]} ({CROPS[CROP_OF[s]]})"
        if STORE0 <= action < STORE0 + 4 * STORE_SPACES:
            o, k = divmod(action - STORE0, STORE_SPACES)
            owner = self.store_owner(p, o)
            t = self.store[owner][k]
            name = SPACE_NAMES[t] if t >= 0 else "empty"
            return f"take {name} from the store of player {owner} (space {k + 1})"
        if REGISTRY0 <= action < REGISTRY0 + REGISTRY_SPACES:
            t = self.registry[action - REGISTRY0]
            name = SPACE_NAMES[t] if t >= 0 else "empty"
            return f"registry space {action - REGISTRY0 + 1} ({name})"
        if action == DONE:
            return "end the turn" if f[0] == "turn" else "done / decline"
        if CROP0 <= action < CROP0 + NUM_CROPS:
            return f"{_CROP_VERBS.get(f[0], 'crop')} {CROPS[action - CROP0]}"
        return action_name(action)

    # ------------------------------------------------------------------ search (infostate.py)

    def information_state(self, seat: int) -> Any:
        """What ``seat`` knows, with perfect recall: canonical string and tensor (KH-INFO-1..8)."""
        from .infostate import information_state

        return information_state(self, seat)

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Game:
        """A complete state drawn from what ``seat`` knows (other start draws, removed events, bag order)."""
        from .infostate import resample_from_infostate

        return resample_from_infostate(self, seat, rng)

    def infostate_sampler(self, seat: int) -> Any:
        """Analyse once for ``seat``; the function returned draws resampled states from an RNG."""
        from .infostate import sampler

        return sampler(self, seat)

    def action_token(self, seat: int, action: int) -> Any:
        """What ``seat`` observes of the current player's ``action``: all of it (KH-INFO-6)."""
        return int(action)

    def view_token(self, seat: int) -> Any:
        """What ``seat`` sees beyond the actions: tiles drawn from the bag and its own supply."""
        from .infostate import view_token

        return view_token(self, seat)

    def __str__(self) -> str:
        from .render import render_text

        return render_text(self, None)

    # ---------------------------------------------------------------------------------- JSON

    _FIELDS = STATE_FIELDS

    def to_json(self) -> str:
        d = {k: getattr(self, k) for k in self._FIELDS}
        d["game"] = GAME_NAME
        d["stack"] = [list(f) for f in self.stack]
        d["legal"] = self._legal
        d["pins"] = make_pins(ENV_NAME, DATA_HASHES)  # the env version and data files the state belongs to
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Game:
        """A state from ``to_json`` text, validated: ValueError names the first violation."""
        try:
            d = load_json_text(text, "Key Harvest JSON state")  # bounded: size, depth, numbers
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a Key Harvest JSON state: {exc}") from None
        if not isinstance(d, dict) or d.get("game") != GAME_NAME:
            raise ValueError("not a Key Harvest JSON state: field 'game' must be 'key_harvest'")
        pins = d.get("pins")
        if pins is not None:  # states from older releases carry none
            if not isinstance(pins, dict) or pins.get("env") != ENV_NAME:
                raise ValueError(f"Key Harvest JSON state: pins.env must be {ENV_NAME!r}, got {pins!r}")
            if pins.get("data") != DATA_HASHES:
                raise ValueError(
                    "Key Harvest JSON state: pins.data (the data files' sha256) does not match the data files "
                    f"loaded now: {pins.get('data')!r} != {DATA_HASHES!r}"
                )
        g = cls.__new__(cls)
        for k in cls._FIELDS:
            if k not in d:
                raise ValueError(f"Key Harvest JSON state: field {k!r} is missing")
            setattr(g, k, d[k])
        stack = d.get("stack")
        if not isinstance(stack, list) or not all(isinstance(f, list) and f for f in stack):
            raise ValueError("Key Harvest JSON state: field 'stack' must be a list of frames")
        g.stack = [tuple(tuple(x) if isinstance(x, list) else x for x in f) for f in stack]
        g.changes = []
        from .validate import validate_state

        try:
            validate_state(g)
            g._legal = None
            if g.over:
                g._legal = []
                g.current_player = None
            else:
                g._advance()
        except (TypeError, IndexError, KeyError, AttributeError) as exc:  # a safety net: never a crash
            raise ValueError(f"Key Harvest JSON state: inconsistent ({exc!r})") from None
        if not g.over and not g._legal:
            raise ValueError("Key Harvest JSON state: no decision is pending")
        if d.get("legal") is not None and d["legal"] != g._legal:
            raise ValueError("Key Harvest JSON state: field 'legal' does not match the state's legal actions")
        return g


# the decision frame each action letter opens: (name, *context after the seat)
_LETTER_FRAMES = {
    HARVEST: ("harvest", 0, 0),
    PLAY_WORKER: ("worker", "turn"),
    REMOVE_WORKER: ("remove",),
    TAKE_STORE: ("store", 0),
    TAKE_REGISTRY: ("registry", 0),
}
# speed: the frames the machine pushes most, built once per seat (a frame is an immutable tuple, so one
# object serves every game; observers that compare frames by identity see the same context for it):
# _OPENS[action][p] == Game._letter_frame(p, action), _ACTION_END[p] == ("action_end", p), _TURN[p] == ("turn", p)
_OPENS = {a: tuple((name, p, *rest) for p in range(4)) for a, (name, *rest) in _LETTER_FRAMES.items()}
_ACTION_END = tuple(("action_end", p) for p in range(4))
_TURN = tuple(("turn", p) for p in range(4))

# frame name -> unbound handler, looked up once (the machine's hot path)
_LEGAL = {name: getattr(Game, "_l_" + name) for name in PHASE_OF}
_DO = {name: getattr(Game, "_d_" + name) for name in PHASE_OF}
_RUN = {name: getattr(Game, "_c_" + name) for name in CONTINUATIONS}
_STEP = {**_LEGAL, **_RUN}  # Game.apply's loop: decision frames give their legal ids, continuations None
_ONLY_DONE = [DONE]
