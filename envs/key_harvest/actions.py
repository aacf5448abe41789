"""The fixed ``Discrete(93)`` action numbering of KH-RULING-17 (§16) and the decision phases.

This module is the one source of truth for ids: the engine, observer, bots and docs import from here.
"""

from __future__ import annotations

from .board import CROPS, NUM_SPACES, REGISTRY_SPACES, SPACE_NAMES, STORE_SPACES, WORKERS

NUM_ACTIONS = 93
DONE = 0  # done / end turn / decline / send the displaced worker back
HARVEST, PLAY_WORKER, REMOVE_WORKER, TAKE_STORE, TAKE_REGISTRY = 1, 2, 3, 4, 5  # action letters (a) (b) (b) (c) (d)
SPACE0 = 6  # board space s -> 6 + s (A1 = 6 ... G8 = 61)
FARMHAND0 = 62  # the acting player's farmhands 62-67
TOWNSFOLK0 = 68  # townsfolk 68-73
REGISTRY0 = 74  # registry spaces 1-6 -> 74-79
STORE0 = 80  # store tile 80 + 2*offset + (space - 1)
CROP0 = 88  # crops 88-92 in CROPS order

# letters as bits of the turn's "taken" mask (KH-TURN-3)
LETTER_A, LETTER_B, LETTER_C, LETTER_D = 1, 2, 4, 8
LETTER_OF_ACTION = {
    HARVEST: LETTER_A,
    PLAY_WORKER: LETTER_B,
    REMOVE_WORKER: LETTER_B,
    TAKE_STORE: LETTER_C,
    TAKE_REGISTRY: LETTER_D,
}

PHASES = (
    "TURN",
    "HARVEST",
    "PICK",
    "SUBSTITUTE",
    "HIRING",
    "WORKER",
    "SPACE",
    "REMOVE",
    "STORE",
    "REPLACE",
    "REGISTRY",
    "BID",
    "EXTRA",
    "DEED",
    "CROP",
    "GIVE",
    "TAKE",
    "TITHE",
    "ENCLOSE",
    "SURVEY",
)
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}

_LETTERS = {
    DONE: "done",
    HARVEST: "(a) harvest",
    PLAY_WORKER: "(b) play a worker",
    REMOVE_WORKER: "(b) remove a worker",
    TAKE_STORE: "(c) store tiles to the board",
    TAKE_REGISTRY: "(d) registry tiles to the store",
}


def action_name(action: int) -> str:
    """The meaning of an id, independent of the phase (the §16 table)."""
    if action in _LETTERS:
        return _LETTERS[action]
    if SPACE0 <= action < SPACE0 + NUM_SPACES:
        return f"space {SPACE_NAMES[action - SPACE0]}"
    if FARMHAND0 <= action < FARMHAND0 + 6:
        w = WORKERS[action - FARMHAND0]
        return f"farmhand {w.name} ({w.number})"
    if TOWNSFOLK0 <= action < TOWNSFOLK0 + 6:
        w = WORKERS[6 + action - TOWNSFOLK0]
        return f"townsfolk {w.name} ({w.number})"
    if REGISTRY0 <= action < REGISTRY0 + REGISTRY_SPACES:
        return f"registry space {action - REGISTRY0 + 1}"
    if STORE0 <= action < STORE0 + 4 * STORE_SPACES:
        o, k = divmod(action - STORE0, STORE_SPACES)
        return f"store tile: {'own store' if o == 0 else f'store of the player {o} to the left'}, space {k + 1}"
    if CROP0 <= action < CROP0 + len(CROPS):
        return f"crop {CROPS[action - CROP0]}"
    raise ValueError(f"action {action!r} is outside 0..{NUM_ACTIONS - 1}")


def action_table_markdown() -> str:
    """The §16 id table, generated for docs/key_harvest/env.md."""
    rows = [
        ("0", "done / end turn / decline / send the displaced worker back"),
        ("1-5", "action letter: 1 (a) harvest, 2 (b) play a worker, 3 (b) remove a worker, 4 (c), 5 (d)"),
        (f"{SPACE0}-{SPACE0 + NUM_SPACES - 1}", "board space 6 + 8r + c (A1 = 6 ... G8 = 61)"),
        (f"{FARMHAND0}-{FARMHAND0 + 5}", "own farmhands: " + ", ".join(w.name for w in WORKERS[:6])),
        (f"{TOWNSFOLK0}-{TOWNSFOLK0 + 5}", "townsfolk: " + ", ".join(w.name for w in WORKERS[6:])),
        (f"{REGISTRY0}-{REGISTRY0 + 5}", "registry spaces 1-6"),
        (f"{STORE0}-{STORE0 + 7}", "store tile 80 + 2*offset + (space - 1), offset clockwise from the acting player"),
        (f"{CROP0}-{CROP0 + 4}", "crop: " + ", ".join(CROPS)),
    ]
    return "\n".join(["| ids | meaning |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows])
