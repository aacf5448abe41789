"""Human-readable card and equipment text, generated from the card records (FOG-ABIL-6, FOG-RUL-1).

Card texts are data, so the words a player reads must come from the same records the engine runs;
writing them by hand would let text and behaviour drift apart. Everything here is a pure function of
a validated record (``cards.LocationCard`` / ``cards.Equipment``), so it works for any card set that
follows ``data/FORMAT.md``, not only the base set.

Examples::

    Amberstalk Barley (Field, cereal) — cost 1 coin — 1 VP — Harvest: pay 1 water: gain 2 food.
    Seep Hose (Field – harvest, permanent): harvest cost 1 water less.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import SUBTYPES

# Display names of location types, and which pile a sub-type belongs to (for "cereal Field").
_TYPE_SINGULAR = {
    "Field": "Field",
    "Livestock": "Livestock",
    "Construction": "Construction",
    "Building": "Building",
    "WaterTower": "Water Tower",
    "Silo": "Silo",
    "any": "card",
}
_TYPE_PLURAL = {
    "Field": "Fields",
    "Livestock": "Livestock",
    "Construction": "Constructions",
    "Building": "Buildings",
    "WaterTower": "Water Towers",
    "Silo": "Silos",
    "any": "cards",
}
_SUBTYPE_PILE = {subtype: pile for pile, names in SUBTYPES.items() for subtype in names}
_SUBTYPE_WORD = {"work": "work-animal"}
_ABILITY_WORD = {"immediate": "an Immediate", "harvest": "a Harvest", "end_game": "an End-game"}
_KEYWORD_WORD = {"immediate": "immediate", "harvest": "harvest", "end_game": "end-game"}
_ABILITY_LABEL = {"immediate": "Immediate", "harvest": "Harvest", "end_game": "End of game"}
_TIMING_LABEL = {
    "on_place": "when placed",
    "permanent": "permanent",
    "harvest": "harvest bonus",
    "end_game": "end of game",
}
_RESOURCE_ORDER = ("coins", "water", "food", "vp")


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _resource(res: str, n: int, end_game: bool = False) -> str:
    """'1 coin', '2 coins', '3 water', '1 food'; VP is end-game VP at final scoring, else tokens."""
    if res == "coins":
        return f"{n} {_plural(n, 'coin', 'coins')}"
    if res == "vp":
        return f"{n} VP" if end_game else f"{n} VP {_plural(n, 'token', 'tokens')}"
    return f"{n} {res}"


def _join(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if not parts:
        return "nothing"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _amounts(amounts: Mapping[str, int], end_game: bool = False) -> str:
    order = [r for r in _RESOURCE_ORDER if r in amounts] + [r for r in amounts if r not in _RESOURCE_ORDER]
    return _join([_resource(r, amounts[r], end_game) for r in order])


def cost_text(cost: Any) -> str:
    """A Cost record (or mapping) as '2 coins, 1 water'; 'nothing' when free."""
    values = cost if isinstance(cost, Mapping) else {r: getattr(cost, r, 0) for r in ("coins", "water", "food")}
    parts = [_resource(r, values[r]) for r in ("coins", "water", "food") if values.get(r)]
    return ", ".join(parts) if parts else "nothing"


# --------------------------------------------------------------------------------------------
# Filters and counters


def filter_noun(flt: Mapping[str, Any] | None, n: int = 1) -> str:
    """A FILTER as a noun phrase: 'Field', 'cereal Fields', 'Livestock with a Harvest ability', 'card'."""
    flt = flt or {}
    kind = flt.get("type", "any")
    subtype = flt.get("subtype")
    if subtype is not None and kind == "any":
        kind = _SUBTYPE_PILE.get(subtype, "any")
    noun = (_TYPE_SINGULAR if n == 1 else _TYPE_PLURAL).get(kind, kind)
    if subtype is not None:
        noun = f"{_SUBTYPE_WORD.get(subtype, subtype)} {noun}"
    ability = flt.get("ability")
    if ability is not None:
        noun += f" with {_ABILITY_WORD.get(ability, ability)} ability"
    return noun


def _subject(on_equipment: bool) -> str:
    return "its host" if on_equipment else "this card"


def per_text(counter: Mapping[str, Any], on_equipment: bool = False) -> str:
    """A COUNTER after 'per': 'adjacent Livestock', 'different Field sub-type', ..."""
    if "adjacent" in counter:
        return f"adjacent {filter_noun(counter['adjacent'])}"
    if "farm" in counter:
        return f"{filter_noun(counter['farm'])} in your farm"
    if "distinct_subtypes" in counter:
        return f"different {counter['distinct_subtypes']} sub-type in your farm"
    if "equipment" in counter:
        if counter["equipment"] == "here":
            return f"placed equipment tile on {_subject(on_equipment)}"
        return "placed equipment tile in your farm"
    if "set_aside" in counter:
        return "set-aside equipment tile"
    if "fallow" in counter:
        return "fallow card in your farm"
    return str(dict(counter))


def condition_text(cond: Mapping[str, Any], on_equipment: bool = False) -> str:
    """An ``if`` condition: 'if at least 2 adjacent Fields', 'if your farm has at least 3 different ...'."""
    n = cond.get("at_least", 1)
    if "adjacent" in cond:
        return f"if at least {n} adjacent {filter_noun(cond['adjacent'], n)}"
    if "farm" in cond:
        return f"if your farm has at least {n} {filter_noun(cond['farm'], n)}"
    if "distinct_subtypes" in cond:
        kind = cond["distinct_subtypes"]
        return f"if your farm has at least {n} different {kind} {_plural(n, 'sub-type', 'sub-types')}"
    if "equipment" in cond:
        tiles = _plural(n, "placed equipment tile", "placed equipment tiles")
        if cond["equipment"] == "here":
            return f"if {_subject(on_equipment)} holds at least {n} {tiles}"
        return f"if your farm holds at least {n} {tiles}"
    if "set_aside" in cond:
        return f"if you have at least {n} set-aside equipment {_plural(n, 'tile', 'tiles')}"
    if "fallow" in cond:
        return f"if your farm has at least {n} fallow {_plural(n, 'card', 'cards')}"
    return f"if {dict(cond)}"


# --------------------------------------------------------------------------------------------
# Operations


def op_text(op: Mapping[str, Any], timing: str, host: str | None = None) -> str:
    """One operation of an effect list. ``timing`` is the ability kind or equipment timing (for the
    meaning of VP); ``host`` is the equipment's host type, or None for a location's own ability."""
    on_equipment = host is not None
    end_game = timing == "end_game"
    if "gain" in op:
        amounts = op["gain"]
        verb = "score" if end_game else "gain"
        text = f"{verb} {_amounts(amounts, end_game)}"
        if "per" in op:
            text += f" per {per_text(op['per'], on_equipment)}"
        if "max" in op:
            each = " each" if len(amounts) > 1 else ""
            text += f" (max {op['max']}{each})"
    elif "gain_equipment" in op:
        n = op["gain_equipment"]
        text = "gain equipment (draw 3, keep 1)" if n == 1 else f"gain equipment {n} times (each: draw 3, keep 1)"
    elif "raise_capacity" in op:
        arg = op["raise_capacity"]
        target, by = arg["target"], arg.get("by", 1)
        if target == "host":
            target = "silo" if host == "Silo" else "tower"
            which = "this"
        else:
            which = "one of your"
        store = "water tower" if target == "tower" else "silo"
        if which == "one of your":
            store += "s"
        held = "water" if target == "tower" else "food"
        text = f"{which} {store} holds {by} more {held}"
    elif "trade" in op:
        arg = op["trade"]
        times = arg.get("max_times", 1)
        repeat = "once" if times == 1 else f"up to {times} times"
        text = f"you may pay {_amounts(arg['pay'])} to gain {_amounts(arg['gain'])}, {repeat}"
    elif "harvest_discount" in op:
        text = f"harvest cost {_amounts(op['harvest_discount'])} less"
    else:
        text = str(dict(op))
    if "if" in op and op["if"].get("at_least", 1) > 0:  # 'at least 0' always holds: nothing to say
        text += f" {condition_text(op['if'], on_equipment)}"
    return text


def effect_text(effect: Any, timing: str, host: str | None = None) -> str:
    """An effect list, operations in order separated by '; ' (no final full stop)."""
    ops = list(effect or ())
    if not ops:
        return "no effect"
    return "; ".join(op_text(op, timing, host) for op in ops)


# --------------------------------------------------------------------------------------------
# Whole cards


def ability_text(ability: Any) -> str:
    """'Harvest: pay 1 water: gain 2 food', 'Harvest (free): ...', 'End of game: ...'."""
    if ability is None:
        return ""
    label = _ABILITY_LABEL.get(ability.kind, ability.kind)
    body = effect_text(ability.effect, ability.kind)
    if ability.kind == "harvest":
        cost = cost_text(ability.cost)
        label = f"{label} (free)" if cost == "nothing" else f"{label}: pay {cost}"
    return f"{label}: {body}"


def location_text(card: Any) -> str:
    """One line for a location card: name (pile, sub-type) — build cost — printed VP — ability."""
    kind = card.pile if card.subtype is None else f"{card.pile}, {card.subtype}"
    parts = [f"{card.name} ({kind})", f"cost {cost_text(card.cost)}", f"{card.vp} VP"]
    if card.ability is not None:
        parts.append(ability_text(card.ability))
    return " — ".join(parts) + "."


def equipment_text(tile: Any) -> str:
    """One line for an equipment tile: name (host – keyword, timing): effect."""
    host = _TYPE_SINGULAR.get(tile.host, tile.host)
    if tile.keyword:
        host += f" – {_KEYWORD_WORD.get(tile.keyword, tile.keyword)}"
    timing = _TIMING_LABEL.get(tile.timing, tile.timing)
    body = effect_text(tile.effect, tile.timing, tile.host)
    if tile.timing == "harvest":
        body = f"when its host's harvest is applied, {body}"
    return f"{tile.name} ({host}, {timing}): {body}."
