"""Card and equipment records, and loading a card set from YAML with validation (FOG-RUL-1, FOG-RUL-2).

Card data is data: the engine never names a card. A malformed file raises :class:`CardSetError`
naming the file, the entry and the field, so a user editing their own set sees where it went wrong.
Card sets are files people share: they are read with the core's bounded, alias-free YAML loader
(:mod:`farmgames.envs.core.datafiles`), every number has an upper bound (:data:`LIMITS`), and the set
keeps its text and SHA-256 so records and states pin exactly the cards they were played with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core.datafiles import DataFileError, DataText, load_yaml_text, read_data
from . import effects

PILES: tuple[str, ...] = ("Field", "Livestock", "Construction", "Building")
SUBTYPES: dict[str, tuple[str, ...]] = {
    "Field": ("cereal", "fruit", "vegetable"),
    "Livestock": ("dairy", "meat", "poultry", "work"),
    "Construction": (),
    "Building": (),
}
ALL_SUBTYPES: tuple[str, ...] = SUBTYPES["Field"] + SUBTYPES["Livestock"]
HOST_TYPES: tuple[str, ...] = PILES + ("WaterTower", "Silo")
ABILITY_KINDS: tuple[str, ...] = ("immediate", "harvest", "end_game")
EQUIPMENT_TIMINGS: tuple[str, ...] = ("on_place", "permanent", "harvest", "end_game")
RESOURCES: tuple[str, ...] = ("coins", "water", "food")
# Card counts of the rules that the action numbering needs too (actions.py sits below game.py, which
# imports it, so they are defined here and game.py imports them).
HAND_SIZE = 6  # cards drawn into a hand each year (FOG-DRAW-2); also the largest 2-player display (FOG-2P-10)
EQUIPMENT_DRAW = 3  # tiles drawn when gaining equipment (FOG-EQUIP-2)

DEFAULT_CARD_SET = Path(__file__).parent / "data" / "base_set.yaml"

# Upper bounds of every number in a card set (data/FORMAT.md "Limits"): far above any sensible design,
# low enough that the engine, its observation tensors and the action table stay small.
LIMITS: dict[str, int] = {
    "pile_size": 200,  # cards per main pile
    "equipment_count": 200,  # equipment tiles
    "towers.count": 100,
    "silos.count": 100,
    "capacity": 50,  # towers.capacity, silos.capacity, towers.start_water
    "amount": 99,  # every cost, VP and effect number (gain, by, max, at_least, gain_equipment …)
    "name": 60,  # characters of a card or set name
}


class CardSetError(DataFileError):
    """A card-set file that does not follow data/FORMAT.md (a ``DataFileError``, so a ``ValueError``)."""


@dataclass(frozen=True)
class Cost:
    coins: int = 0
    water: int = 0
    food: int = 0

    def is_free(self) -> bool:
        return not (self.coins or self.water or self.food)


@dataclass(frozen=True, eq=False)  # effects hold dicts: identity hashing keeps cards usable as keys
class Ability:
    kind: str  # immediate | harvest | end_game
    effect: tuple[dict, ...]
    cost: Cost = Cost()  # harvest cost (FOG-CARD-10); zero for other kinds


@dataclass(frozen=True, eq=False)
class LocationCard:
    """One design of location card; ``copies`` physical cards share it."""

    design: int  # index of the design in the set (stable: file order)
    name: str
    pile: str
    subtype: str | None
    cost: Cost
    vp: int
    ability: Ability | None
    copies: int

    @property
    def coin_cost(self) -> int:
        return self.cost.coins

    @property
    def water_cost(self) -> int:
        return self.cost.water

    @property
    def food_cost(self) -> int:
        return self.cost.food

    @property
    def ability_kind(self) -> str:
        return self.ability.kind if self.ability else "none"

    @property
    def harvest_cost(self) -> Cost:
        return self.ability.cost if self.ability and self.ability.kind == "harvest" else Cost()

    @property
    def text(self) -> str:
        from .card_text import location_text

        return location_text(self)


@dataclass(frozen=True, eq=False)
class Equipment:
    design: int
    name: str
    host: str  # a pile name, WaterTower or Silo
    keyword: str | None  # an ability kind or a sub-type the host must have (FOG-EQUIP-5)
    timing: str
    effect: tuple[dict, ...]
    copies: int

    @property
    def host_type(self) -> str:
        return self.host

    @property
    def text(self) -> str:
        from .card_text import equipment_text

        return equipment_text(self)


@dataclass
class CardSet:
    """A validated card set. ``locations`` and ``equipment`` list physical cards (copies expanded),
    so ``cards.locations[i]`` is card id ``i`` in the engine."""

    name: str
    path: str  # the file it came from (or where an embedded copy came from)
    location_designs: list[LocationCard]
    equipment_designs: list[Equipment]
    tower_count: int = 20
    tower_capacity: int = 3
    tower_start_water: int = 3
    silo_count: int = 14
    silo_capacity: int = 4
    pile_size: int = 33
    locations: list[LocationCard] = field(default_factory=list)
    equipment: list[Equipment] = field(default_factory=list)
    text: str = field(default="", repr=False)  # the YAML it was loaded from (records can embed it)
    sha256: str = ""  # of ``text``: what records and states pin

    def __post_init__(self) -> None:
        self.locations = [d for d in self.location_designs for _ in range(d.copies)]
        self.equipment = [e for e in self.equipment_designs for _ in range(e.copies)]

    def pile_cards(self, pile: str) -> list[int]:
        """Card ids of one main pile, in id order (a fresh list: setup shuffles it)."""
        return list(self._pile_ids.get(pile, ()))

    # Read-only tables derived once from the cards (every game of the set shares them; speed: a game used
    # to rebuild the first two at setup, ≈ 10 µs, and the engine read the third through two properties and
    # a Cost per harvest check). tests/fields_of_green/env/test_engine_speed.py compares them with the
    # cards' own fields. The set is not edited after loading (``locations`` is built in __post_init__).

    @cached_property
    def _pile_ids(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, list[int]] = {}
        for i, c in enumerate(self.locations):
            out.setdefault(c.pile, []).append(i)
        return {pile: tuple(ids) for pile, ids in out.items()}

    @cached_property
    def location_info(self) -> tuple[tuple[str, str | None, str], ...]:
        """Per card id: (pile, subtype, ability kind), what Farm.info and the filters read."""
        return tuple((c.pile, c.subtype, c.ability_kind) for c in self.locations)

    @cached_property
    def harvest_base(self) -> dict[int, tuple[int, int, int]]:
        """Card id -> (coins, water, food) harvest cost before equipment (FOG-CARD-10), for exactly the
        cards with a harvest ability: ``code in harvest_base`` is the test "has a harvest ability"."""
        return {
            i: (c.ability.cost.coins, c.ability.cost.water, c.ability.cost.food)
            for i, c in enumerate(self.locations)
            if c.ability is not None and c.ability.kind == "harvest"
        }


# --------------------------------------------------------------------------------------------
# Loading and validation


class _Where:
    """Builds error messages that name file, entry and field."""

    def __init__(self, path: str, entry: str):
        self.path, self.entry = path, entry

    def error(self, field_name: str, problem: str) -> CardSetError:
        where = f"{self.entry}: " if self.entry else ""
        return CardSetError(f"{self.path}: {where}{field_name} {problem}")


def _int(where: _Where, name: str, value: Any, minimum: int = 0, maximum: int = LIMITS["amount"]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise where.error(name, f"must be an integer >= {minimum}, got {value!r}")
    if value > maximum:
        raise where.error(name, f"must be at most {maximum} (the limits of data/FORMAT.md), got {value!r}")
    return value


def _bounded_effect(where: _Where, field_name: str, effect: tuple[dict, ...]) -> tuple[dict, ...]:
    """Every number inside an effect (amounts, ``by``, ``max``, ``at_least``, ``gain_equipment``) is at
    most LIMITS["amount"] (effects.check_effect has checked the shapes and lower bounds)."""
    top = LIMITS["amount"]
    stack: list[tuple[Any, str]] = [(op, f"{field_name}[{i}]") for i, op in enumerate(effect)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}") for k, v in item.items())
        elif isinstance(item, int) and not isinstance(item, bool) and item > top:
            raise where.error(at, f"must be at most {top} (the limits of data/FORMAT.md), got {item!r}")
    return effect


def _name(where: _Where, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise where.error("name", "must be a non-empty string")
    if len(value) > LIMITS["name"] or not value.isprintable():
        raise where.error("name", f"must be printable text of at most {LIMITS['name']} characters, got {value!r}")
    return value


def _mapping(where: _Where, name: str, value: Any, allowed: tuple[str, ...]) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.error(name, f"must be a mapping, got {value!r}")
    for key in value:
        if key not in allowed:
            raise where.error(name, f"has unknown key {key!r} (allowed: {', '.join(allowed)})")
    return value


def _cost(where: _Where, name: str, value: Any) -> Cost:
    raw = _mapping(where, name, value, RESOURCES)
    return Cost(**{k: _int(where, f"{name}.{k}", v) for k, v in raw.items()})


def _ability(where: _Where, raw: Any) -> Ability | None:
    if raw is None:
        return None
    raw = _mapping(where, "ability", raw, ("kind", "cost", "effect"))
    kind = raw.get("kind")
    if kind not in ABILITY_KINDS:
        raise where.error("ability.kind", f"must be one of {', '.join(ABILITY_KINDS)}, got {kind!r}")
    if "cost" in raw and kind != "harvest":
        raise where.error("ability.cost", "is only allowed on a harvest ability")
    cost = _cost(where, "ability.cost", raw.get("cost"))
    effect = effects.check_effect(
        raw.get("effect"), timing=kind, where=lambda f, p: where.error(f"ability.effect{f}", p)
    )
    effect = _bounded_effect(where, "ability.effect", effect)
    if not effect:
        raise where.error("ability.effect", "must list at least one operation (an ability that does nothing is a typo)")
    return Ability(kind=kind, effect=effect, cost=cost)


def _location(path: str, pile: str, index: int, raw: Any, design: int) -> LocationCard:
    name = raw.get("name") if isinstance(raw, dict) else None
    where = _Where(path, f"locations.{pile}[{index}]" + (f" {name!r}" if name else ""))
    raw = _mapping(where, "entry", raw, ("name", "subtype", "copies", "cost", "vp", "ability"))
    name = _name(where, name)
    subtype = raw.get("subtype")
    allowed = SUBTYPES[pile]
    if allowed and subtype not in allowed:
        raise where.error("subtype", f"must be one of {', '.join(allowed)} for a {pile}, got {subtype!r}")
    if not allowed and subtype is not None:
        raise where.error("subtype", f"must be omitted for a {pile} (FOG-CARD-5), got {subtype!r}")
    return LocationCard(
        design=design,
        name=name,
        pile=pile,
        subtype=subtype,
        cost=_cost(where, "cost", raw.get("cost")),
        vp=_int(where, "vp", raw.get("vp", 0)),
        ability=_ability(where, raw.get("ability")),
        copies=_int(where, "copies", raw.get("copies", 1), minimum=1, maximum=LIMITS["pile_size"]),
    )


def _equipment(path: str, index: int, raw: Any, design: int) -> Equipment:
    name = raw.get("name") if isinstance(raw, dict) else None
    where = _Where(path, f"equipment[{index}]" + (f" {name!r}" if name else ""))
    raw = _mapping(where, "entry", raw, ("name", "copies", "host", "keyword", "timing", "effect"))
    name = _name(where, name)
    host = raw.get("host")
    if host not in HOST_TYPES:
        raise where.error("host", f"must be one of {', '.join(HOST_TYPES)}, got {host!r}")
    keyword = raw.get("keyword")
    if keyword is not None:
        if host in ("WaterTower", "Silo"):
            raise where.error("keyword", "must be omitted for a WaterTower or Silo host")
        if keyword not in ABILITY_KINDS + SUBTYPES[host]:
            raise where.error("keyword", f"must be an ability kind or a {host} sub-type, got {keyword!r}")
    timing = raw.get("timing")
    if timing not in EQUIPMENT_TIMINGS:
        raise where.error("timing", f"must be one of {', '.join(EQUIPMENT_TIMINGS)}, got {timing!r}")
    if timing == "harvest" and keyword != "harvest":
        raise where.error("keyword", "must be 'harvest' for a tile with timing harvest (it adds to the host's harvest)")
    effect = effects.check_effect(
        raw.get("effect"), timing=timing, where=lambda f, p: where.error(f"effect{f}", p), equipment_host=host
    )
    effect = _bounded_effect(where, "effect", effect)
    if any("harvest_discount" in op for op in effect) and keyword != "harvest":
        raise where.error(
            "keyword", "must be 'harvest' for a tile with harvest_discount (its host needs a harvest ability)"
        )
    return Equipment(
        design=design,
        name=name,
        host=host,
        keyword=keyword,
        timing=timing,
        effect=effect,
        copies=_int(where, "copies", raw.get("copies", 1), minimum=1, maximum=LIMITS["equipment_count"]),
    )


def load_card_set(path: str | Path | DataText | None = None) -> CardSet:
    """Load and validate a card set: a path (read with a size limit), a :class:`DataText` (a set carried
    inside a record), or ``None`` for the shipped base set. Errors are :class:`CardSetError`."""
    if path is None:
        path = DEFAULT_CARD_SET
    if isinstance(path, DataText):
        source = path.source
    elif isinstance(path, (str, Path)):
        source = str(path)
    else:
        raise CardSetError(f"card_set must be a path of a card-set YAML file (or None), got {path!r}")
    shown = Path(source).name if source == str(DEFAULT_CARD_SET) else source
    try:
        data = read_data(path, what="card set")
        raw = load_yaml_text(data.text, shown)
    except CardSetError:
        raise
    except DataFileError as exc:
        raise CardSetError(str(exc)) from None
    return _card_set(raw, shown, source, data)


def _card_set(raw: Any, shown: str, source: str, data: DataText) -> CardSet:  # noqa: C901 - one check per field
    top = _Where(shown, "")
    raw = _mapping(
        top, "top level", raw, ("name", "towers", "silos", "locations", "equipment", "pile_size", "equipment_count")
    )
    towers = _mapping(top, "towers", raw.get("towers"), ("count", "capacity", "start_water"))
    silos = _mapping(top, "silos", raw.get("silos"), ("count", "capacity"))
    tower_count = _int(top, "towers.count", towers.get("count", 20), minimum=2, maximum=LIMITS["towers.count"])
    tower_capacity = _int(top, "towers.capacity", towers.get("capacity", 3), minimum=1, maximum=LIMITS["capacity"])
    tower_start_water = _int(top, "towers.start_water", towers.get("start_water", 3), maximum=LIMITS["capacity"])
    if tower_start_water > tower_capacity:
        raise top.error(
            "towers.start_water", f"({tower_start_water}) must not exceed towers.capacity ({tower_capacity})"
        )
    silo_count = _int(top, "silos.count", silos.get("count", 14), minimum=2, maximum=LIMITS["silos.count"])
    silo_capacity = _int(top, "silos.capacity", silos.get("capacity", 4), minimum=1, maximum=LIMITS["capacity"])
    pile_size = _int(top, "pile_size", raw.get("pile_size", 33), minimum=1, maximum=LIMITS["pile_size"])
    equipment_count = _int(
        top, "equipment_count", raw.get("equipment_count", 30), minimum=0, maximum=LIMITS["equipment_count"]
    )

    piles = _mapping(top, "locations", raw.get("locations"), PILES)
    designs: list[LocationCard] = []
    names: set[str] = set()
    for pile in PILES:
        entries = piles.get(pile)
        if not isinstance(entries, list) or not entries:
            raise top.error(f"locations.{pile}", "must be a non-empty list of cards")
        for i, entry in enumerate(entries):
            card = _location(shown, pile, i, entry, len(designs))
            if card.name in names:
                raise _Where(shown, f"locations.{pile}[{i}] {card.name!r}").error(
                    "name", f"{card.name!r} is used twice"
                )
            names.add(card.name)
            designs.append(card)
        total = sum(c.copies for c in designs if c.pile == pile)
        if total != pile_size:
            raise top.error(
                f"locations.{pile}", f"copies add up to {total}, the pile must have {pile_size} (FOG-COMP-1..4)"
            )

    entries = raw.get("equipment") or []
    if not isinstance(entries, list):
        raise top.error("equipment", "must be a list")
    tiles: list[Equipment] = []
    for i, entry in enumerate(entries):
        tile = _equipment(shown, i, entry, len(tiles))
        if tile.name in {t.name for t in tiles}:
            raise _Where(shown, f"equipment[{i}] {tile.name!r}").error("name", f"{tile.name!r} is used twice")
        tiles.append(tile)
    if sum(t.copies for t in tiles) != equipment_count:
        raise top.error(
            "equipment", f"copies add up to {sum(t.copies for t in tiles)}, expected {equipment_count} (FOG-COMP-7)"
        )

    set_name = raw.get("name", Path(source).stem)
    if not isinstance(set_name, (str, int)) or len(str(set_name)) > LIMITS["name"]:
        raise top.error("name", f"must be text of at most {LIMITS['name']} characters, got {set_name!r}")
    return CardSet(
        name=str(set_name),
        path=source,
        location_designs=designs,
        equipment_designs=tiles,
        tower_count=tower_count,
        tower_capacity=tower_capacity,
        tower_start_water=tower_start_water,
        silo_count=silo_count,
        silo_capacity=silo_capacity,
        pile_size=pile_size,
        text=data.text,
        sha256=data.sha256,
    )
