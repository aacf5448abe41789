"""Game records: what a game needs to be rebuilt exactly (seed, players, variant, actions).

``record()`` of every game returns ``{"game", "num_players", "seed", "variant", "actions"}`` (an env
adds ``"env"`` with its options). :func:`replay` rebuilds the game through a spec;
``farmgames.envs.replay(record)`` finds the spec in the registry by ``record["game"]``.
"""

from __future__ import annotations

from typing import Any

from .protocol import IllegalActionError
from .seeding import check_seed
from .spec import GameSpec

RECORD_KEYS = ("game", "num_players", "seed", "variant", "actions")


class RecordError(ValueError):
    """A record that cannot be replayed (malformed, or an action that was not legal at its step)."""


def check_record(record: Any) -> dict[str, Any]:
    """Shape checks common to every game; RecordError names the first bad field."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in ("game", "num_players", "seed", "actions") if k not in record]
    if missing:
        raise RecordError(f"record: missing field {missing[0]!r} (a record has {', '.join(RECORD_KEYS)})")
    if not isinstance(record["game"], str):
        raise RecordError(f"record field 'game' must be a game name, got {record['game']!r}")
    variant = record.get("variant", {})
    if not isinstance(variant, dict):
        raise RecordError(f"record field 'variant' must be an object of keywords, got {variant!r}")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"record field 'actions' must be a list of integers, got {type(actions).__name__}")
    for i, action in enumerate(actions):
        if isinstance(action, bool) or not isinstance(action, int):
            raise RecordError(f"record step {i}: action must be an integer, got {action!r}")
    try:
        check_seed(record["seed"], "record field 'seed'")
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    return record


def replay(record: dict[str, Any], spec: GameSpec) -> Any:
    """The game a record describes, replayed action by action. Errors name the step."""
    check_record(record)
    if record["game"] != spec.name:
        raise RecordError(f"record is a {record['game']!r} game, not {spec.name!r}")
    variant = {k: v for k, v in record.get("variant", {}).items() if v is not None}
    try:
        game = spec.new_game(num_players=record["num_players"], seed=record["seed"], **variant)
    except TypeError as exc:
        raise RecordError(f"record variant: {exc}") from None
    for i, action in enumerate(record["actions"]):
        try:
            game.apply(action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"record step {i}: {exc}") from exc
    return game


__all__ = ["RECORD_KEYS", "RecordError", "check_record", "replay"]
