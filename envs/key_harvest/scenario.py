"""Build explicit small Key Harvest states for rule tests.

A rule test wants "player 0 has these fields and workers, these counters, this registry, and must now
decide" without playing up to that point. :func:`scenario` starts a normal :class:`Game` (so every
attribute exists with its usual type), then overwrites what you describe. Every field tile and event tile
still exists exactly once: tiles not named anywhere go to the bag, and counters not named lie in the stock.

Example::

    from farmgames.envs.key_harvest.scenario import scenario, sp

    game = scenario(
        num_players=2,
        boards={0: "B3 C2 c3 D3"},            # field tiles; lower case = harvested side up
        workers={0: {"D2": "Supervisor"}},     # worker tiles on the board (farmhands of that seat or townsfolk)
        supply={0: {"wheat": 2, "wine": 1}, 1: {"hops": 3}},
        registry=["A1", "A2", None, "A4", "A5", "A6"],
        stores={1: [("E4", {"wine": 2}), None]},
        bag=["G8", "Spring Rain", "F1"],       # draw order: G8 is drawn first; unnamed tiles are drawn after
        active=0,
    )
    assert 6 + sp("C3") not in game.legal_actions()   # harvested: not pickable ...

Arguments (seats not named are empty: no fields, no workers, no counters):

- ``boards``: ``{seat: "C2 c3 ..."}`` coordinates; upper case unharvested, lower case harvested.
- ``workers``: ``{seat: {coordinate: worker name}}``: farmhands are that seat's own, townsfolk leave the town.
- ``supply``: ``{seat: {crop: count}}``; the stock holds the rest of the 12 counters of each crop.
- ``registry``: 6 coordinates or None (empty space); default: six tiles from the bag.
- ``stores``: ``{seat: [(coordinate, {crop: count}) or None, ...]}``.
- ``fallow``: coordinates in the fallow area.
- ``bag``: draw order of the first items (coordinates or event names); the rest follow in seeded order,
  field tiles before event tiles (so a test draws no event unless it names one).
- ``events``: names of resolved events (on the event spaces), ``removed``: names of removed event tiles.
- ``active`` (also the start player unless ``start_player``), ``taken`` (letters already used, e.g. "ad"),
  ``actions_taken`` (default: the number of letters), ``end_triggered`` / ``turns_left``, ``rounds``.
- ``frames``: extra frames pushed on top of the active player's turn (advanced at once), e.g.
  ``[("harvest", 0, 1, 0)]`` for an event harvest.

The result is validated (``validate_state``) and advanced to its first decision.
"""

from __future__ import annotations

import random
from typing import Any

from .actions import CROP0, REGISTRY0, SPACE0, STORE0
from .board import (
    BIT,
    COUNTERS_PER_CROP,
    CROPS,
    EVENT_TILES,
    EVENTS,
    FARMHANDS,
    NUM_CROPS,
    NUM_EVENT_TILES,
    NUM_SPACES,
    REGISTRY_SPACES,
    STORE_SPACES,
    TOWNSFOLK_BASE,
    WORKERS,
    parse_space,
)
from .game import EVENT0, Game
from .validate import validate_state

__all__ = ["crop", "event_tiles", "registry_id", "scenario", "sp", "store_id", "worker_id"]


def sp(name: str) -> int:
    """Space index of a coordinate ("D5" -> 28); the action id is ``SPACE0 + sp(name)``."""
    return parse_space(name)


def space_id(name: str) -> int:
    return SPACE0 + parse_space(name)


def crop(name: str) -> int:
    """Crop index (wheat 0 ... wine 4); the action id is ``CROP0 + crop(name)``."""
    return CROPS.index(name)


def crop_id(name: str) -> int:
    return CROP0 + crop(name)


def registry_id(space: int) -> int:
    """Action id of registry space 1-6."""
    return REGISTRY0 + space - 1


def store_id(offset: int, space: int) -> int:
    """Action id of store tile ``space`` (1-2) of the store ``offset`` seats clockwise from the actor."""
    return STORE0 + STORE_SPACES * offset + space - 1


def worker_id(name: str) -> int:
    """Action id of a worker by name (62-67 own farmhands, 68-73 townsfolk)."""
    k = [w.name for w in WORKERS].index(name)
    return 62 + k


def event_tiles(name: str) -> list[int]:
    kind = [e.name for e in EVENTS].index(name)
    return [EVENT0 + i for i in range(NUM_EVENT_TILES) if EVENT_TILES[i] == kind]


def _counts(d: dict[str, int] | None) -> list[int]:
    row = [0] * NUM_CROPS
    for name, k in (d or {}).items():
        row[crop(name)] += k
    return row


def _boards(g: Game, boards: dict[int, str], workers: dict[int, dict[str, str]], take: Any) -> None:
    for p, text in boards.items():
        for token in text.split():
            s = take(parse_space(token))
            g.fields[p] |= BIT[s]
            if token[0].isupper():
                g.unharvested[p] |= BIT[s]
    for p, placed in workers.items():
        for coord, name in placed.items():
            s = parse_space(coord)
            k = [w.name for w in WORKERS].index(name)
            tile = FARMHANDS * p + k if k < FARMHANDS else TOWNSFOLK_BASE + k - FARMHANDS
            g.worker_space[tile] = s
            g.worker_at[p][s] = tile
            g.workers[p] |= BIT[s]
            if tile >= TOWNSFOLK_BASE:
                g.town[tile - TOWNSFOLK_BASE] = p


def scenario(
    num_players: int = 2,
    seed: int = 0,
    boards: dict[int, str] | None = None,
    workers: dict[int, dict[str, str]] | None = None,
    supply: dict[int, dict[str, int]] | None = None,
    registry: list[str | None] | None = None,
    stores: dict[int, list] | None = None,
    fallow: list[str] | None = None,
    bag: list[str] | None = None,
    events: list[str] | None = None,
    removed: list[str] | None = None,
    active: int = 0,
    start_player: int | None = None,
    taken: str = "",
    actions_taken: int | None = None,
    end_triggered: bool = False,
    turns_left: int = 0,
    rounds: int = 0,
    frames: list[tuple] | None = None,
) -> Game:
    """A game in the described state, advanced to its first decision (see the module docstring)."""
    g = Game(num_players, seed, first_player=active)
    n = num_players
    g.start_player = active if start_player is None else start_player
    g.active = active
    g.fields, g.unharvested, g.workers = [0] * n, [0] * n, [0] * n
    g.worker_at = [[-1] * NUM_SPACES for _ in range(n)]
    g.worker_space = [-1] * 30
    g.town = [-1] * 6
    used: set[int] = set()

    def take(t: int) -> int:
        if t in used:
            raise ValueError(f"scenario: tile {t} is named twice")
        used.add(t)
        return t

    _boards(g, boards or {}, workers or {}, take)
    g.store = [[-1] * STORE_SPACES for _ in range(n)]
    g.bids = [[[0] * NUM_CROPS for _ in range(STORE_SPACES)] for _ in range(n)]
    for p, row in (stores or {}).items():
        for k, item in enumerate(row):
            if item is not None:
                g.store[p][k] = take(parse_space(item[0]))
                g.bids[p][k] = _counts(item[1])
    g.fallow = [take(parse_space(t)) for t in fallow or []]
    g.events = []
    for name in events or []:
        tile = next(t for t in event_tiles(name) if t not in used)
        g.events.append(take(tile))
    g.removed = []
    for name in removed or []:
        tile = next(t for t in event_tiles(name) if t not in used)
        g.removed.append(take(tile))
    g.removed.sort()
    first: list[int] = []
    for item in bag or []:
        if item in [e.name for e in EVENTS]:
            tile = next(t for t in event_tiles(item) if t not in used)
        else:
            tile = parse_space(item)
        first.append(take(tile))
    if registry is not None:
        g.registry = [take(parse_space(t)) if t else -1 for t in registry]
    rest = [t for t in range(NUM_SPACES + NUM_EVENT_TILES) if t not in used]
    random.Random(seed).shuffle(rest)
    rest.sort(key=lambda t: t >= NUM_SPACES)  # unnamed field tiles are drawn before unnamed events
    if registry is None:
        fields_left = [t for t in rest if t < NUM_SPACES]
        g.registry = fields_left[:REGISTRY_SPACES]
        rest = [t for t in rest if t not in g.registry]
    g.bag = list(reversed(first + rest))  # drawn from the end
    g.supply = [_counts((supply or {}).get(p)) for p in range(n)]
    g.start = [list(row) for row in g.supply]
    g.pool = [sum(g.start[p][c] for p in range(n)) for c in range(NUM_CROPS)]
    g.net = [[0] * NUM_CROPS for _ in range(n)]
    g.min_net = [[0] * NUM_CROPS for _ in range(n)]
    g.stock = [
        COUNTERS_PER_CROP - sum(g.supply[p][c] for p in range(n)) - sum(b[c] for row in g.bids for b in row)
        for c in range(NUM_CROPS)
    ]
    if min(g.stock) < 0:
        raise ValueError("scenario: more than 12 counters of a crop in supplies and bids")
    g.new_in_store = []
    g.taken = sum(1 << "abcd".index(ch) for ch in taken)
    g.actions_taken = len(taken) if actions_taken is None else actions_taken
    g.end_triggered, g.turns_left, g.rounds = end_triggered, turns_left, rounds
    g.stack = [("turn", active)] + list(frames or [])
    g.history = []
    validate_state(g)
    g._advance()
    return g
