"""Output files of the commands: checked before a long job starts, written so nothing is lost.

``check_output(path, flag)`` runs before the first game or training step: the folder is created (or must
be creatable), the path must not be a folder, and a test write must succeed, so ``play --save-record
missing/dir/game.json`` or ``evaluate --json some_folder`` fail at once with a message naming the flag
and the path, instead of after the whole run. ``write_text(path, text)`` writes atomically (a temporary
file renamed into place) and, if the path cannot be written after all, falls back to a named file in the
working folder (never losing a played game)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


class OutputError(ValueError):
    """An output path that cannot be written; names the command-line flag and the path."""


def check_output(path: str | Path, flag: str) -> Path:
    """``path`` as a Path, after checking it can be written (its folder is created)."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{flag} {path}: is a folder; give a file name (e.g. {path / 'result.json'})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{flag} {path}: cannot create the folder {path.parent} ({exc.strerror or exc})") from None
    probe = path.parent / f".{path.name}.write_test"
    try:
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise OutputError(f"{flag} {path}: cannot write in {path.parent} ({exc.strerror or exc})") from None
    return path


def write_text(path: str | Path, text: str, what: str = "output") -> Path:
    """Write ``text`` to ``path`` atomically; if that fails, to ``farmgames-<what>-<time>.json`` in the
    working folder (or the temp folder), saying so on stderr. Returns where it was written."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return path
    except OSError as exc:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for folder in (Path.cwd(), Path(os.environ.get("TMPDIR", "/tmp"))):
            fallback = folder / f"farmgames-{what}-{stamp}-{os.getpid()}{path.suffix or '.json'}"
            try:
                fallback.write_text(text, encoding="utf-8")
            except OSError:
                continue
            print(f"could not write {path} ({exc.strerror or exc}); saved the {what} to {fallback}", file=sys.stderr)
            return fallback
        raise


__all__ = ["OutputError", "check_output", "write_text"]
