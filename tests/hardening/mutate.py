"""Structure-aware mutations of JSON-like data (records, states, card sets, configs) for the hardening
property and fuzz tests: one random edit somewhere in the tree, driven by a ``random.Random``."""

from __future__ import annotations

import copy
import random
from typing import Any

ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    3,
    7,
    99,
    100,
    10**9,
    10**12,
    -(10**6),
    2**63,
    1.5,
    38.9,
    float("inf"),
    "",
    "x",
    "0",
    "38",
    "clockwise",
    "tower",
    "pick",
    [],
    [0],
    [1, 2],
    {},
    {"a": 1},
)


def paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys / indices) into ``data``, the root included."""
    out = [prefix]
    stack = [(data, prefix)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                out.append(at + (k,))
                stack.append((v, at + (k,)))
        elif isinstance(item, list):
            for i, v in enumerate(item):
                out.append(at + (i,))
                stack.append((v, at + (i,)))
    return out


def _get(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def _new_value(rng: random.Random, old: Any) -> Any:
    roll = rng.random()
    if isinstance(old, bool) or roll < 0.3:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    if isinstance(old, int):
        return rng.choice([old + 1, old - 1, old + rng.randint(-5, 5), -old, old * 2, 0, rng.randint(-3, 400)])
    if isinstance(old, float):
        return rng.choice([old + 0.5, -old, 1.0, 0.999999, 2.0])
    if isinstance(old, str):
        return rng.choice([old + "x", old.upper(), "", old[:-1], "clockwise", "counterclockwise"])
    return copy.deepcopy(rng.choice(ODD_VALUES))


def mutate(data: Any, rng: random.Random, edits: int = 1) -> Any:
    """A deep copy of ``data`` with ``edits`` random edits: replace a value, drop, duplicate or swap
    list items, drop or add a key, or move a value to another place."""
    data = copy.deepcopy(data)
    for _ in range(edits):
        all_paths = paths(data)
        path = rng.choice(all_paths)
        if not path:
            continue
        parent, key = _get(data, path[:-1]), path[-1]
        op = rng.random()
        if op < 0.45:
            parent[key] = _new_value(rng, parent[key])
        elif op < 0.55 and isinstance(parent, list):
            del parent[key]
        elif op < 0.65 and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op < 0.75 and isinstance(parent, list) and len(parent) > 1:
            other = rng.randrange(len(parent))
            parent[key], parent[other] = parent[other], parent[key]
        elif op < 0.82 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.88 and isinstance(parent, dict):
            parent[rng.choice(["extra", "coins", "format", "seed", str(key) + "_"])] = copy.deepcopy(parent[key])
        elif op < 0.94 and isinstance(parent, list):
            # move an item to another list (keeps the multiset of ids: tests the cross-checks)
            lists = [
                p for p in all_paths if isinstance(_get(data, p), list) and p[: len(path)] != path and p != path[:-1]
            ]
            if lists:
                target = _get(data, rng.choice(lists))
                target.insert(rng.randint(0, len(target)), parent.pop(key))
        else:
            source = _get(data, rng.choice(all_paths))
            parent[key] = copy.deepcopy(source)
    return data


def mutate_stack(state: dict, rng: random.Random, pool: list, edits: int = 1) -> dict:
    """A copy of a Fields of Green state JSON with its decision stack edited: frames from other states
    inserted, frames dropped, duplicated or swapped, sometimes another phase (the engine's flow, mutated)."""
    data = copy.deepcopy(state)
    stack = data["state"]["stack"]
    for _ in range(edits):
        op = rng.random()
        if op < 0.4 or not stack:
            stack.insert(rng.randint(0, len(stack)), copy.deepcopy(rng.choice(pool)))
        elif op < 0.7:
            del stack[rng.randrange(len(stack))]
        elif op < 0.85:
            i = rng.randrange(len(stack))
            stack.insert(i, copy.deepcopy(stack[i]))
        else:
            i, j = rng.randrange(len(stack)), rng.randrange(len(stack))
            stack[i], stack[j] = stack[j], stack[i]
    if rng.random() < 0.3:
        data["state"]["phase"] = rng.choice(["upkeep", "draw", "action", "harvest"])
    return data
