"""Game records: what a game needs to be rebuilt exactly (seed, players, variant, actions), and what it
depends on (pins).

``record()`` of every game returns ``{"game", "num_players", "seed", "variant", "actions"}`` (an env
adds ``"env"`` with its options) and, from :func:`make_pins`, ``"pins"``: the farmgames package version,
the env version (``fields_of_green_v0``) and the SHA-256 of every data file the game read (a card set,
a board). A record may also carry its data files themselves (``"files"``, see :func:`embed_files`), so
that it replays anywhere. :func:`replay` rebuilds the game through a spec and refuses a record whose
pins do not match what would be loaded now, naming both (an edited card set would otherwise replay
silently to different scores). ``farmgames.envs.replay(record)`` finds the spec in the registry.

Everything here is a :class:`RecordError` (a ``ValueError``) naming the field, the value and what is
allowed, or an ``IllegalActionError`` naming the step.

>>> try:
...     check_record({"game": "g", "num_players": 2, "seed": -1, "actions": []})
... except RecordError as exc:
...     print(exc)
record field 'seed' must be an integer from 0 to 2**63-1, got -1
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .datafiles import MAX_BYTES, DataFileError, DataText, load_json, sha256
from .protocol import IllegalActionError
from .seeding import check_seed
from .spec import GameSpec

RECORD_KEYS = ("game", "num_players", "seed", "variant", "actions")
OPTIONAL_KEYS = ("env", "pins", "files")
MAX_ACTIONS = 1_000_000  # a 4-player Fields of Green game has ~600 decisions
MAX_RECORD_BYTES = 64 << 20
PACKAGE = "farmgames"


class RecordError(ValueError):
    """A record that cannot be replayed (malformed, pinned to other data or versions, or an action that
    was not legal at its step)."""


@functools.lru_cache(maxsize=1)
def package_version() -> str:
    """The installed farmgames version (records and states pin it)."""
    from importlib import metadata

    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "unknown"


def make_pins(env_name: str, data: Mapping[str, str]) -> dict[str, Any]:
    """``{"farmgames": version, "env": "fields_of_green_v0", "data": {name: sha256}}`` for a record or a state."""
    return {PACKAGE: package_version(), "env": env_name, "data": dict(data)}


def _short(text: Any) -> str:
    shown = repr(text)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _check_variant(variant: Any) -> dict[str, Any]:
    if not isinstance(variant, dict):
        raise RecordError(f"record field 'variant' must be an object of keywords, got {_short(variant)}")
    for key in variant:
        if not isinstance(key, str) or not key.isidentifier():
            raise RecordError(f"record field 'variant' has a key {_short(key)} that is not a keyword name")
    return variant


def _check_pins(pins: Any) -> None:
    if not isinstance(pins, dict):
        raise RecordError(f"record field 'pins' must be an object, got {_short(pins)}")
    for key in (PACKAGE, "env"):
        if key in pins and not isinstance(pins[key], str):
            raise RecordError(f"record field 'pins.{key}' must be a string, got {_short(pins[key])}")
    data = pins.get("data", {})
    if not isinstance(data, dict):
        raise RecordError(f"record field 'pins.data' must be an object of sha256 hashes, got {_short(data)}")
    for name, digest in data.items():
        if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise RecordError(f"record field 'pins.data.{name}' must be a sha256 hex digest, got {_short(digest)}")


def _check_files(files: Any) -> None:
    if not isinstance(files, dict):
        raise RecordError(f"record field 'files' must be an object of file texts, got {_short(files)}")
    for name, text in files.items():
        if not isinstance(text, str):
            raise RecordError(f"record field 'files.{name}' must be the file's text, got {type(text).__name__}")
        if len(text) > MAX_BYTES:
            raise RecordError(f"record field 'files.{name}' is larger than {MAX_BYTES} bytes")


def check_record(record: Any) -> dict[str, Any]:
    """Shape checks common to every game; RecordError names the first bad field."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in ("game", "num_players", "seed", "actions") if k not in record]
    if missing:
        raise RecordError(f"record: missing field {missing[0]!r} (a record has {', '.join(RECORD_KEYS)})")
    if not isinstance(record["game"], str):
        raise RecordError(f"record field 'game' must be a game name, got {_short(record['game'])}")
    players = record["num_players"]
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 64:
        raise RecordError(f"record field 'num_players' must be a player count (an integer), got {_short(players)}")
    _check_variant(record.get("variant", {}))
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"record field 'actions' must be a list of integers, got {type(actions).__name__}")
    if len(actions) > MAX_ACTIONS:
        raise RecordError(f"record field 'actions' has {len(actions)} actions, at most {MAX_ACTIONS} are allowed")
    for i, action in enumerate(actions):
        if isinstance(action, bool) or not isinstance(action, int):
            raise RecordError(f"record step {i}: action must be an integer, got {_short(action)}")
    try:
        check_seed(record["seed"], "record field 'seed'")
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    env = record.get("env")
    if env is not None and not (isinstance(env, dict) and isinstance(env.get("name", ""), str)):
        raise RecordError(f"record field 'env' must be an object with the env 'name', got {_short(env)}")
    if "pins" in record:
        _check_pins(record["pins"])
    if "files" in record:
        _check_files(record["files"])
    return record


def embed_files(record: dict[str, Any], texts: Mapping[str, str]) -> dict[str, Any]:
    """A copy of ``record`` carrying the text of its data files (``{"card_set": yaml text}``), so that it
    replays on any machine and from any folder. The pins still hold each file's hash."""
    out = dict(record)
    out["files"] = {name: text for name, text in texts.items()}
    return out


def _game_data_hashes(game: Any) -> dict[str, str]:
    hashes = getattr(game, "data_hashes", None)
    return dict(hashes()) if hashes is not None else {}


def check_pins(record: dict[str, Any], spec: GameSpec, game: Any = None) -> None:
    """Refuse a record pinned to another env version, another package version or other data files than
    ``game`` (built from the record) was loaded with. A record without pins (older releases) passes."""
    pins = record.get("pins")
    if not isinstance(pins, dict):
        return
    env = pins.get("env")
    if env is not None and env != spec.env_name:
        raise RecordError(f"record is pinned to env {env!r}, this is {spec.env_name!r}")
    version = pins.get(PACKAGE)
    if version is not None and version != package_version():
        raise RecordError(
            f"record is pinned to {PACKAGE} {version}, this is {PACKAGE} {package_version()} "
            "(replay it with that version)"
        )
    if game is None:
        return
    have = _game_data_hashes(game)
    for name, want in (pins.get("data") or {}).items():
        got = have.get(name)
        if got is None:
            raise RecordError(f"record pins data file {name!r} (sha256 {want}), which {spec.name} does not use")
        if got != want:
            source = record.get("variant", {}).get(name) or "the default"
            raise RecordError(
                f"record pins {name} sha256 {want}, but {name} {source!r} now has sha256 {got}: the file changed "
                f"since the game was recorded (embed the file in the record with 'files' to replay it anywhere)"
            )


def _variant_with_files(record: dict[str, Any]) -> dict[str, Any]:
    variant = {k: v for k, v in record.get("variant", {}).items() if v is not None}
    pinned = (record.get("pins") or {}).get("data") or {}
    for name, text in (record.get("files") or {}).items():
        if name in pinned and sha256(text) != pinned[name]:
            raise RecordError(
                f"record field 'files.{name}' has sha256 {sha256(text)}, but the record pins {pinned[name]}"
            )
        source = variant.get(name) if isinstance(variant.get(name), str) else f"<record files.{name}>"
        variant[name] = DataText(source=str(source), text=text)
    return variant


def replay(record: dict[str, Any], spec: GameSpec) -> Any:
    """The game a record describes, replayed action by action. Errors name the field or the step."""
    check_record(record)
    if record["game"] != spec.name:
        raise RecordError(f"record is a {record['game']!r} game, not {spec.name!r}")
    check_pins(record, spec)
    variant = _variant_with_files(record)
    try:
        game = spec.new_game(num_players=record["num_players"], seed=record["seed"], **variant)
    except TypeError as exc:
        raise RecordError(f"record field 'variant': {exc}") from None
    except (KeyError, IndexError) as exc:  # a game that does not check a keyword's value itself
        raise RecordError(f"record field 'variant' {_short(variant)}: not a valid setup ({exc!r})") from None
    except RecordError:
        raise
    except ValueError as exc:  # a bad variant value, a card set that does not load (DataFileError …)
        raise RecordError(f"record: {exc}") from None
    check_pins(record, spec, game)
    for i, action in enumerate(record["actions"]):
        try:
            game.apply(action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"record step {i}: {exc}") from exc
    return game


def resolve_paths(record: Any, folder: Path) -> None:
    """Data-file paths in the variant that do not exist relative to the working folder are looked up
    relative to the record's own folder (a record replayed from elsewhere); with pins, the file whose
    hash matches wins. Anything malformed is left for :func:`check_record` to name."""
    from .datafiles import read_text_bounded

    if not isinstance(record, dict):
        return
    variant, pins, files = record.get("variant"), record.get("pins"), record.get("files")
    if not isinstance(variant, dict) or not isinstance(pins, dict) or not isinstance(pins.get("data"), dict):
        return
    files = files if isinstance(files, dict) else {}
    for name, digest in pins["data"].items():
        value = variant.get(name)
        if not isinstance(value, str) or name in files:
            continue
        try:
            if Path(value).is_absolute():
                continue
            found = [p for p in (Path(value), folder / value) if p.is_file()]
            matching = [p for p in found if sha256(read_text_bounded(p)) == digest]
        except (OSError, ValueError):  # unreadable, a NUL in the name …: replay names the problem
            continue
        if matching:
            variant[name] = str(matching[0])
        elif found and not Path(value).is_file():
            variant[name] = str(found[0])  # the pins then name both hashes


def load_record(path: str | Path, limit: int = MAX_RECORD_BYTES) -> dict[str, Any]:
    """Read a record file (bounded), parse and check it; data-file paths inside it are resolved relative
    to the record's folder when they are not found from the working folder."""
    try:
        data = load_json(path, what="record", limit=limit)
    except DataFileError as exc:
        raise RecordError(str(exc)) from None
    record = check_record(data)
    resolve_paths(record, Path(path).parent)
    return record


__all__ = [
    "MAX_ACTIONS",
    "OPTIONAL_KEYS",
    "RECORD_KEYS",
    "RecordError",
    "check_pins",
    "check_record",
    "embed_files",
    "load_record",
    "make_pins",
    "package_version",
    "replay",
    "resolve_paths",
]
