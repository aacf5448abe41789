"""Component data of Key Harvest, loaded from ``data/*.yaml`` and validated on load.

Every error names the file, the entry and the field (``DataError``). The loaded facts are module constants
(one source of truth): the board geometry lives in :mod:`.board`, everything else here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from farmgames.envs.core.datafiles import DataFileError
from farmgames.envs.core.datafiles import load_yaml as bounded_yaml

DATA = Path(__file__).with_name("data")


class DataError(ValueError):
    """A component data file is malformed: the message names file, entry and field."""


DATA_FILES = ("board.yaml", "tiles.yaml", "workers.yaml", "events.yaml", "setup.yaml")


def load_yaml(name: str, directory: Path = DATA) -> Any:
    """A data file through the core's bounded loader (no aliases expanding without bound, size, depth and
    number limits): component files are things users edit and share."""
    try:
        return bounded_yaml(directory / name, what="Key Harvest data file")
    except DataFileError as exc:
        raise DataError(f"{name}: cannot be read ({exc})") from None


def data_hashes(directory: Path = DATA) -> dict[str, str]:
    """SHA-256 of every data file (records pin them: an edited file would replay to another game)."""
    out = {}
    for name in DATA_FILES:
        digest = hashlib.sha256((directory / name).read_bytes()).hexdigest()
        out[name.removesuffix(".yaml")] = digest
    return out


def field(entry: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``entry[key]`` checked for type; the error names the file/entry (``where``) and the field."""
    if not isinstance(entry, dict):
        raise DataError(f"{where}: entry must be a mapping, got {entry!r}")
    if key not in entry:
        raise DataError(f"{where}: field {key!r} is missing")
    value = entry[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise DataError(f"{where}: field {key!r} has the wrong type ({value!r})")
    return value


@dataclass(frozen=True)
class WorkerKind:
    """One worker tile design (KH-RULING-4/5): ``index`` 0-5 farmhands, 6-11 townsfolk."""

    index: int
    name: str
    number: int
    benefit: str
    townsfolk: bool


@dataclass(frozen=True)
class EventKind:
    index: int
    name: str
    count: int
    effect: str
    who: str


FARMHAND_BENEFITS = (
    "take_one",
    "unharvest_adjacent",
    "harvest_adjacent",
    "exchange_two",
    "extra_action",
    "harvest_anywhere",
)
TOWNSFOLK_BENEFITS = (
    "harvest_all_adjacent",
    "take_two_same",
    "extra_store",
    "exchange_any",
    "harvest_group",
    "survey",
)
EVENT_EFFECTS = ("harvest_group", "hiring", "unharvest_two", "exchange_three", "deed", "tithe", "enclose")


def load_board(directory: Path = DATA) -> dict[str, Any]:
    data = load_yaml("board.yaml", directory)
    where = "board.yaml"
    rows = field(data, "rows", list, where)
    cols = field(data, "columns", int, where)
    if len(rows) * cols != 56:
        raise DataError(f"{where}: field 'rows'/'columns' give {len(rows) * cols} spaces, not 56 (KH-COMP-2)")
    nb = field(data, "neighbours", dict, where)
    for parity in ("even", "odd"):
        sides = field(nb, parity, dict, f"{where}: neighbours")
        if len(sides) != 6:
            raise DataError(f"{where}: neighbours.{parity}: field count must be 6 sides, got {len(sides)}")
        for side, off in sides.items():
            if not (isinstance(off, list) and len(off) == 2 and all(isinstance(v, int) for v in off)):
                raise DataError(f"{where}: neighbours.{parity}.{side}: offset must be [dr, dc], got {off!r}")
    crops = field(data, "crops", list, where)
    if len(crops) != 5 or len(set(crops)) != 5:
        raise DataError(f"{where}: field 'crops' must name 5 different crops (KH-COMP-7/8)")
    for key in ("registry_spaces", "event_spaces", "store_spaces", "counters_per_crop"):
        field(data, key, int, where)
    return data


def load_tiles(crops: list[str], names: list[str], directory: Path = DATA) -> tuple[list[int], dict[str, tuple]]:
    """Crop index of each of the 56 spaces (row-major) and the start pairs ``{colour: (s1, s2)}``."""
    data = load_yaml("tiles.yaml", directory)
    entries = field(data, "tiles", list, "tiles.yaml")
    crop_of: dict[int, int] = {}
    pairs: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        where = f"tiles.yaml: tiles[{i}]"
        coord = field(entry, "coordinate", str, where)
        if coord not in names:
            raise DataError(f"{where}: field 'coordinate' {coord!r} is not a board space (KH-TILE-3)")
        space = names.index(coord)
        if space in crop_of:
            raise DataError(f"{where}: field 'coordinate' {coord!r} appears twice (KH-BOARD-3)")
        crop = field(entry, "crop", str, where)
        if crop not in crops:
            raise DataError(f"{where}: field 'crop' {crop!r} is not one of {crops}")
        crop_of[space] = crops.index(crop)
        if entry.get("start_pair") is not None:
            pairs.setdefault(field(entry, "start_pair", str, where), []).append(space)
    if len(crop_of) != 56:
        missing = [n for s, n in enumerate(names) if s not in crop_of]
        raise DataError(f"tiles.yaml: tiles: field 'coordinate' misses {missing} (KH-COMP-2: 56 tiles)")
    if len(pairs) != 4 or any(len(v) != 2 for v in pairs.values()):
        raise DataError(f"tiles.yaml: tiles: field 'start_pair' must form 4 pairs of 2 (KH-TILE-6), got {pairs}")
    return [crop_of[s] for s in range(56)], {k: tuple(v) for k, v in pairs.items()}


def load_workers(directory: Path = DATA) -> tuple[WorkerKind, ...]:
    data = load_yaml("workers.yaml", directory)
    out: list[WorkerKind] = []
    for group, allowed, lo, hi in (("farmhands", FARMHAND_BENEFITS, 1, 3), ("townsfolk", TOWNSFOLK_BENEFITS, 4, 5)):
        entries = field(data, group, list, "workers.yaml")
        if len(entries) != 6:
            raise DataError(f"workers.yaml: {group}: must list 6 tiles (KH-COMP-4/5), got {len(entries)}")
        for i, entry in enumerate(entries):
            where = f"workers.yaml: {group}[{i}]"
            name = field(entry, "name", str, where)
            number = field(entry, "number", int, where)
            if not lo <= number <= hi:
                raise DataError(f"{where}: field 'number' {number} outside {lo}..{hi} (KH-WORK-5)")
            benefit = field(entry, "benefit", str, where)
            if benefit != allowed[i]:
                raise DataError(f"{where}: field 'benefit' {benefit!r}: expected {allowed[i]!r} at this position")
            out.append(WorkerKind(len(out), name, number, benefit, group == "townsfolk"))
    return tuple(out)


def load_events(directory: Path = DATA) -> tuple[EventKind, ...]:
    data = load_yaml("events.yaml", directory)
    entries = field(data, "events", list, "events.yaml")
    out: list[EventKind] = []
    for i, entry in enumerate(entries):
        where = f"events.yaml: events[{i}]"
        effect = field(entry, "effect", str, where)
        if i >= len(EVENT_EFFECTS) or effect != EVENT_EFFECTS[i]:
            raise DataError(f"{where}: field 'effect' {effect!r} unknown or out of order ({EVENT_EFFECTS})")
        who = field(entry, "who", str, where)
        if who not in ("all", "others", "active"):
            raise DataError(f"{where}: field 'who' {who!r} must be all, others or active")
        out.append(EventKind(i, field(entry, "name", str, where), field(entry, "count", int, where), effect, who))
    if len(out) != 7 or sum(e.count for e in out) != 14:
        raise DataError("events.yaml: events: must be 7 kinds with 14 tiles in all (KH-COMP-6, KH-EVENT-4)")
    return tuple(out)


def load_setup(directory: Path = DATA) -> dict[str, Any]:
    data = load_yaml("setup.yaml", directory)
    counts = field(data, "player_counts", dict, "setup.yaml")
    for n in (2, 3, 4):
        where = f"setup.yaml: player_counts[{n}]"
        if n not in counts:
            raise DataError(f"setup.yaml: player_counts: entry {n} is missing")
        entry = counts[n]
        roles = field(entry, "roles", list, where)
        if len(roles) != 5 or sum(roles) != 3 * n:
            raise DataError(f"{where}: field 'roles' must give 5 counts summing to {3 * n} (KH-SETUP-9..11)")
        field(entry, "open", bool, where)
        field(entry, "removed_events", int, where)
    for key in ("start_counters", "safety_rounds", "final_rounds", "end_event"):
        field(data, key, int, "setup.yaml")
    return data
