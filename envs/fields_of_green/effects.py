"""The effect language of card and equipment abilities: checking on load, and counting on a farm.

Abilities are data (FOG-ABIL-6, FOG-RUL-1): a list of operations from ``data/FORMAT.md``. This module
checks their shape when a card set is loaded and evaluates counters and conditions against a farm.
Operations that change the game (gains, equipment, choices) are carried out by ``game.Game``, which
owns the decision stack they may push onto.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .farm import SILO, SILO_INFO, TOWER, TOWER_INFO

GAIN_RESOURCES = ("coins", "water", "food", "vp")
PAY_RESOURCES = ("coins", "food")
VERBS = ("gain", "gain_equipment", "raise_capacity", "trade", "harvest_discount")
COUNTERS = ("adjacent", "farm", "distinct_subtypes", "equipment", "set_aside", "fallow")
FILTER_KEYS = ("type", "subtype", "ability")
MAX_TRADE_TIMES = 3

# Which verbs each timing may use (ability kinds and equipment timings share this table).
ALLOWED: dict[str, tuple[str, ...]] = {
    "immediate": ("gain", "gain_equipment", "raise_capacity", "trade"),
    "harvest": ("gain", "gain_equipment", "raise_capacity", "trade"),
    "end_game": ("gain",),
    "on_place": ("gain", "gain_equipment", "raise_capacity"),
    "permanent": ("harvest_discount", "raise_capacity"),
}

Problem = Callable[[str, str], Exception]


def _nonneg_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_amounts(value: Any, allowed: tuple[str, ...], field: str, where: Problem) -> dict[str, int]:
    if not isinstance(value, dict) or not value:
        raise where(field, f"must be a non-empty mapping of {'/'.join(allowed)} to amounts, got {value!r}")
    for key, amount in value.items():
        if key not in allowed:
            raise where(field, f"has unknown resource {key!r} (allowed: {', '.join(allowed)})")
        if not _nonneg_int(amount):
            raise where(f"{field}.{key}", f"must be an integer >= 0, got {amount!r}")
    return dict(value)


def _vocabulary() -> dict[str, tuple[str, ...]]:
    """What filters and counters may name: the card vocabulary of cards.py (imported when a card set is
    checked, as cards.py imports this module)."""
    from .cards import ABILITY_KINDS, ALL_SUBTYPES, HOST_TYPES, SUBTYPES

    return {
        "type": HOST_TYPES + ("any",),
        "subtype": ALL_SUBTYPES,
        "ability": ABILITY_KINDS,
        "distinct_subtypes": tuple(pile for pile, names in SUBTYPES.items() if names),  # Field, Livestock
    }


def _check_filter(value: Any, field: str, where: Problem) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where(field, f"must be a filter mapping, got {value!r}")
    for key, item in value.items():
        if key not in FILTER_KEYS:
            raise where(field, f"has unknown key {key!r} (allowed: {', '.join(FILTER_KEYS)})")
        choices = _vocabulary()[key]
        if item not in choices:
            raise where(f"{field}.{key}", f"must be one of {', '.join(choices)}, got {item!r}")
    return dict(value)


def _check_counter(value: Any, field: str, where: Problem, extra: tuple[str, ...] = ()) -> dict:
    if not isinstance(value, dict):
        raise where(field, f"must be a counter mapping, got {value!r}")
    keys = [k for k in value if k not in extra]
    if len(keys) != 1 or keys[0] not in COUNTERS:
        raise where(field, f"must have exactly one counter key of {', '.join(COUNTERS)}, got {sorted(value)!r}")
    key = keys[0]
    arg = value[key]
    out = {k: value[k] for k in extra if k in value}
    if key in ("adjacent", "farm"):
        out[key] = _check_filter(arg, f"{field}.{key}", where)
    elif key == "distinct_subtypes":
        kinds = _vocabulary()["distinct_subtypes"]
        if arg not in kinds:
            raise where(f"{field}.{key}", f"must be {' or '.join(kinds)}, got {arg!r}")
        out[key] = arg
    elif key == "equipment":
        if arg not in ("here", "farm"):
            raise where(f"{field}.{key}", f"must be here or farm, got {arg!r}")
        out[key] = arg
    else:
        if arg is not True:
            raise where(f"{field}.{key}", f"must be true, got {arg!r}")
        out[key] = True
    return out


def _check_condition(value: Any, field: str, where: Problem) -> dict:
    cond = _check_counter(value, field, where, extra=("at_least",))
    cond.setdefault("at_least", 1)
    if not _nonneg_int(cond["at_least"]):
        raise where(f"{field}.at_least", f"must be an integer >= 0, got {cond['at_least']!r}")
    return cond


def check_effect(raw: Any, timing: str, where: Problem, equipment_host: str | None = None) -> tuple[dict, ...]:  # noqa: C901 - one branch per op of the effect language, read top-down
    """Validate an effect list for one timing and return it normalised (a tuple of op dicts)."""
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise where("", f"must be a list of operations, got {raw!r}")
    allowed = ALLOWED[timing]
    ops = []
    for i, op in enumerate(raw):
        field = f"[{i}]"
        if not isinstance(op, dict):
            raise where(field, f"must be a mapping with one verb, got {op!r}")
        verbs = [k for k in op if k in VERBS]
        others = [k for k in op if k not in VERBS]
        if len(verbs) != 1:
            raise where(field, f"must have exactly one verb of {', '.join(VERBS)}, got {sorted(op)!r}")
        verb = verbs[0]
        if verb not in allowed:
            raise where(f"{field}.{verb}", f"is not allowed with timing {timing!r} (allowed: {', '.join(allowed)})")
        modifiers = ("per", "max", "if") if verb == "gain" else ("if",)
        for key in others:
            if key not in modifiers:
                raise where(f"{field}.{key}", f"is not a modifier of {verb!r} (allowed: {', '.join(modifiers)})")
        out: dict[str, Any] = {}
        arg = op[verb]
        if verb == "gain":
            resources = ("vp",) if timing == "end_game" else GAIN_RESOURCES
            out["gain"] = _check_amounts(arg, resources, f"{field}.gain", where)
            if "per" in op:
                out["per"] = _check_counter(op["per"], f"{field}.per", where)
            if "max" in op:
                if not _nonneg_int(op["max"]):
                    raise where(f"{field}.max", f"must be an integer >= 0, got {op['max']!r}")
                out["max"] = op["max"]
        elif verb == "gain_equipment":
            if not _nonneg_int(arg) or arg < 1:
                raise where(f"{field}.gain_equipment", f"must be an integer >= 1, got {arg!r}")
            out["gain_equipment"] = arg
        elif verb == "raise_capacity":
            if not isinstance(arg, dict) or set(arg) - {"target", "by"}:
                raise where(f"{field}.raise_capacity", f"must be a mapping with target and by, got {arg!r}")
            target = arg.get("target")
            targets = ("host",) if timing == "permanent" else ("tower", "silo", "host")
            if target not in targets:
                raise where(f"{field}.raise_capacity.target", f"must be one of {', '.join(targets)}, got {target!r}")
            if target == "host" and equipment_host not in ("WaterTower", "Silo"):
                raise where(f"{field}.raise_capacity.target", "'host' needs equipment hosted on a WaterTower or Silo")
            by = arg.get("by", 1)
            if not _nonneg_int(by) or by < 1:
                raise where(f"{field}.raise_capacity.by", f"must be an integer >= 1, got {by!r}")
            out["raise_capacity"] = {"target": target, "by": by}
        elif verb == "trade":
            if not isinstance(arg, dict) or set(arg) - {"pay", "gain", "max_times"}:
                raise where(f"{field}.trade", f"must be a mapping with pay, gain and max_times, got {arg!r}")
            times = arg.get("max_times", 1)
            if not _nonneg_int(times) or not 1 <= times <= MAX_TRADE_TIMES:
                raise where(
                    f"{field}.trade.max_times", f"must be an integer from 1 to {MAX_TRADE_TIMES}, got {times!r}"
                )
            out["trade"] = {
                "pay": _check_amounts(arg.get("pay"), PAY_RESOURCES, f"{field}.trade.pay", where),
                "gain": _check_amounts(arg.get("gain"), GAIN_RESOURCES, f"{field}.trade.gain", where),
                "max_times": times,
            }
        elif verb == "harvest_discount":
            if equipment_host is None or equipment_host in ("WaterTower", "Silo"):
                raise where(f"{field}.harvest_discount", "is only for equipment on a location with a harvest ability")
            out["harvest_discount"] = _check_amounts(
                arg, ("coins", "water", "food"), f"{field}.harvest_discount", where
            )
        if "if" in op:
            out["if"] = _check_condition(op["if"], f"{field}.if", where)
        ops.append(out)
    return tuple(ops)


# --------------------------------------------------------------------------------------------
# Evaluation against a farm. ``farm`` is a game.Farm; ``cell`` is the card's (or host's) cell.


def matches(farm, cell: int, flt: dict) -> bool:
    """Does the face-up card at ``cell`` match a FILTER? Fallow cards never match (FOG-RUL-7)."""
    info = farm.card_info(cell)
    return info is not None and info_matches(info, flt)


def info_matches(info: tuple, flt: dict) -> bool:
    """Does a card with ``info`` = (type, sub-type, ability kind) match a FILTER?"""
    kind, subtype, ability = info
    want = flt.get("type", "any")
    if want != "any" and want != kind:
        return False
    if "subtype" in flt and flt["subtype"] != subtype:
        return False
    if "ability" in flt and flt["ability"] != ability:
        return False
    return True


# Speed: count reads the grid codes that match a filter from this memo instead of calling ``matches`` per cell
# (a chain of three Python calls per neighbour or occupied cell: about a fifth of a harvest step's engine work).
# Keyed by the filter dict's identity and checked against it and the card-info table (Farm.info) it was built
# for: card sets are read-only and the entry keeps the dict alive, so its id is not reused while it is here.
_MATCH_CODES: dict[int, tuple[dict, Sequence, frozenset[int]]] = {}
_SUBTYPE_OF: dict[str, tuple[Sequence, dict[int, str]]] = {}
# id(info) -> (info, {card info: its grid codes}, {filter items: match codes}): what a miss builds from
_INFO_GROUPS: dict[int, tuple[Sequence, dict[tuple, list[int]], dict[tuple, frozenset[int]]]] = {}


def match_codes(info: Sequence, flt: dict) -> frozenset[int]:
    """The grid codes (location card ids, ``TOWER``, ``SILO``) of the cards that match ``flt`` face up: a cell
    holding one of them ``matches`` unless it is fallow (FOG-RUL-7). ``info`` is the farm's card-info table."""
    hit = _MATCH_CODES.get(id(flt))
    if hit is not None and hit[0] is flt and hit[1] is info:
        return hit[2]
    return _new_match_codes(info, flt)


def _new_match_codes(info: Sequence, flt: dict) -> frozenset[int]:
    # (a miss costs one info_matches per distinct card info, ~15, not one per card id: a card set's many
    # filter dicts of the same content share their codes)
    table = _INFO_GROUPS.get(id(info))
    if table is None or table[0] is not info:
        groups: dict[tuple, list[int]] = {TOWER_INFO: [TOWER], SILO_INFO: [SILO]}  # as Farm.card_info says
        for code, card in enumerate(info):
            groups.setdefault(card, []).append(code)
        if len(_INFO_GROUPS) > 16:
            _INFO_GROUPS.clear()
        table = _INFO_GROUPS[id(info)] = (info, groups, {})
    key = tuple(sorted(flt.items()))
    out = table[2].get(key)
    if out is None:
        codes: list[int] = []
        for card, ids in table[1].items():
            if info_matches(card, flt):
                codes += ids
        out = table[2][key] = frozenset(codes)
    if len(_MATCH_CODES) > 4096:  # (many card sets loaded in one process: start again)
        _MATCH_CODES.clear()
    _MATCH_CODES[id(flt)] = (flt, info, out)
    return out


def subtype_of(info: Sequence, kind: str) -> dict[int, str]:
    """Location card id -> sub-type, for the cards of type ``kind`` with a sub-type (``distinct_subtypes``)."""
    hit = _SUBTYPE_OF.get(kind)
    if hit is not None and hit[0] is info:
        return hit[1]
    return _new_subtype_of(info, kind)


def _new_subtype_of(info: Sequence, kind: str) -> dict[int, str]:
    out = {code: card[1] for code, card in enumerate(info) if card[0] == kind and card[1]}
    _SUBTYPE_OF[kind] = (info, out)
    return out


def count(farm, cell: int, counter: dict) -> int:
    """The value of a COUNTER for the card at ``cell``.

    Speed: the card counters test each cell's grid code against ``match_codes`` (``subtype_of``) instead of
    calling ``matches`` (three Python calls a cell). A fallow cell never counts (FOG-RUL-7: only location cards
    turn fallow, and towers and silos are never fallow). The same values as ``plain_count``
    (tests/fields_of_green/env/test_engine_speed.py compares them on the farms of random games). Plain loops,
    not ``sum(map(codes.__contains__, ...))``: on 4-30 cells the loop is about twice as fast; and no
    comprehension (none allocates a closure per call)."""
    if "adjacent" in counter:  # the orthogonal neighbours (data/FORMAT.md: adjacent)
        codes = match_codes(farm.info, counter["adjacent"])
        grid, fallow = farm.grid, farm.fallow
        total = 0
        for n in farm.geometry.neighbours[cell]:
            if grid[n] in codes and n not in fallow:
                total += 1
        return total
    if "farm" in counter:  # every card of the farm
        codes = match_codes(farm.info, counter["farm"])
        grid, fallow = farm.grid, farm.fallow
        total = 0
        for c in farm.occupied:
            if grid[c] in codes and c not in fallow:
                total += 1
        return total
    if "distinct_subtypes" in counter:
        subtypes = subtype_of(farm.info, counter["distinct_subtypes"])
        grid, fallow = farm.grid, farm.fallow
        seen = set()
        for c in farm.occupied:
            sub = subtypes.get(grid[c])  # (None for cards of other types, towers and silos)
            if sub is not None and c not in fallow:
                seen.add(sub)
        return len(seen)
    if "equipment" in counter:
        if counter["equipment"] == "here":
            return len(farm.equipment.get(cell, ()))
        return sum(map(len, farm.equipment.values()))
    if "set_aside" in counter:
        return len(farm.set_aside)
    if "fallow" in counter:
        return len(farm.fallow)
    raise ValueError(f"unknown counter {counter!r}")


def plain_count(farm, cell: int, counter: dict) -> int:
    """``count`` as the rules read, one ``matches`` per cell (the reference test_engine_speed.py compares)."""
    if "adjacent" in counter:
        return sum(1 for n in farm.geometry.neighbours[cell] if matches(farm, n, counter["adjacent"]))
    if "farm" in counter:
        return sum(1 for c in farm.occupied if matches(farm, c, counter["farm"]))
    if "distinct_subtypes" in counter:
        kind = counter["distinct_subtypes"]
        infos = [farm.card_info(c) for c in farm.occupied]
        return len({i[1] for i in infos if i is not None and i[0] == kind and i[1]})
    if "equipment" in counter:
        if counter["equipment"] == "here":
            return len(farm.equipment.get(cell, ()))
        return sum(len(v) for v in farm.equipment.values())
    if "set_aside" in counter:
        return len(farm.set_aside)
    if "fallow" in counter:
        return len(farm.fallow)
    raise ValueError(f"unknown counter {counter!r}")


def condition_holds(farm, cell: int, op: dict, count: Callable[[Any, int, dict], int] = count) -> bool:
    """Is the op's ``if`` condition met (or has it none)? ``count``: as for ``gain_amounts``."""
    cond = op.get("if")
    return cond is None or count(farm, cell, cond) >= cond["at_least"]


def gain_amounts(farm, cell: int, op: dict, count: Callable[[Any, int, dict], int] = count) -> dict[str, int]:
    """Resolve a ``gain`` op (with its per/max/if modifiers) to plain amounts. ``count``: this module's
    ``count`` or one with the same results (the heuristic bot passes its compiled-filter counter)."""
    cond = op.get("if")
    if cond is not None and count(farm, cell, cond) < cond["at_least"]:  # condition_holds
        return {}
    factor = count(farm, cell, op["per"]) if "per" in op else 1
    cap = op.get("max")
    out = {}
    for res, amount in op["gain"].items():
        total = amount * factor
        if cap is not None:
            total = min(total, cap)
        if total:
            out[res] = total
    return out
