"""Every snippet of docs/libraries.md ("Use with your library") runs as shown, in the venv of its library
(a snippet whose library is not installed is skipped, naming it)."""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "libraries.md"
NEEDS = {"sb3_contrib", "supersuit", "torchrl", "tianshou", "ray", "agilerl"}


def _snippets() -> list:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for match in re.finditer(r"```python\n(.*?)```", text, flags=re.S):
        headers = re.findall(r"\*\*([^*]+)\*\*", text[: match.start()])
        name = headers[-1].split("/")[0].strip().replace(" ", "_") if headers else "snippet"
        out.append(pytest.param(match.group(1), id=name))
    return out


pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def test_every_library_has_a_snippet():
    assert len(_snippets()) >= 7


@pytest.mark.parametrize("code", _snippets())
def test_snippet_runs(code, tmp_path, monkeypatch):
    imported = {m.split(".")[0] for m in re.findall(r"^\s*(?:from|import)\s+([\w.]+)", code, flags=re.M)}
    for module in sorted(imported & NEEDS):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed here (.ci/integrations runs it in its venv)")
    if "ray" not in imported:  # (Ray's socket paths must stay short: it keeps its own /tmp/ray)
        # what a snippet leaves in the temp dir (SB3's default logger makes a /tmp/SB3-<time> folder per
        # learn()) goes to this test's own folder
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # Ray on loopback
    exec(compile(code, str(DOC), "exec"), {"__name__": "__snippet__"})  # noqa: S102 - our own documentation
