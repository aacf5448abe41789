"""Game records in a JSON file, wherever the writer put them.

``farmgames play --save-record`` writes one record; ``evaluate --save-records`` and training evaluations
may write a list of them or an object holding them (``{"records": [...]}``, or results that each carry a
``"record"``). :func:`find_records` walks the JSON (a few levels deep) and keeps every object that is a
game record (``game``, ``num_players``, ``seed``, ``actions``; see :mod:`farmgames.envs.core.records`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from farmgames.envs.core.records import RecordError, check_record

MAX_DEPTH = 4


def is_record(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("game"), str):
        return False
    try:
        check_record(value)
    except RecordError:
        return False
    return True


def find_records(data: Any, where: str = "", depth: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """``(label, record)`` for every game record inside ``data``, in file order; the label says where it
    was found (``records[3]``) and what it is (game, players, seed, seats)."""
    if is_record(data):
        return [(_label(where, data), data)]
    if depth >= MAX_DEPTH:
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(data, list):
        for i, item in enumerate(data):
            found.extend(find_records(item, f"{where}[{i}]", depth + 1))
    elif isinstance(data, dict):
        for key, item in data.items():
            if isinstance(item, (list, dict)):
                found.extend(find_records(item, f"{where}.{key}" if where else str(key), depth + 1))
    return found


def _label(where: str, record: dict[str, Any]) -> str:
    seats = record.get("seats") or record.get("names")
    who = f", {' vs '.join(map(str, seats))}" if isinstance(seats, list) and seats else ""
    head = f"{where}: " if where else ""
    return (
        f"{head}{record['game']}, {record['num_players']} players, seed {record['seed']}, "
        f"{len(record['actions'])} actions{who}"
    )


def load_records(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """The game records of a JSON file; ValueError says why there are none."""
    from farmgames.envs.core.datafiles import DataFileError, load_json

    path = Path(path)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    try:  # bounded: size, nesting depth, numbers (a hostile or endless file is refused, not read to the end)
        data = load_json(path, what="game records")
    except DataFileError as exc:
        raise ValueError(str(exc)) from None
    found = find_records(data)
    if len(found) == 1 and found[0][1] is data:
        try:  # one record: read as the core reads it (data-file paths relative to the record's folder)
            from farmgames.envs.core.records import load_record

            return [(found[0][0], load_record(path))]
        except ImportError:  # pragma: no cover - an older core
            pass
        except RecordError as exc:
            raise ValueError(f"{path}: {exc}") from None
    if not found:
        if isinstance(data, dict):
            try:
                check_record(data)
            except RecordError as exc:
                raise ValueError(f"{path} holds no game record: {exc}") from None
        raise ValueError(
            f"{path} holds no game record (an object with game, num_players, seed, variant, actions, as written "
            "by `farmgames play --save-record` or `farmgames evaluate --save-records`); evaluation results "
            "without actions cannot be replayed"
        )
    return found


__all__ = ["find_records", "is_record", "load_records"]
