"""docs/key_harvest/env.md carries the generated tables of the current code (actions, phases, layout)."""

from __future__ import annotations

from pathlib import Path

from farmgames.envs.key_harvest.docs import generated_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "key_harvest"


def test_env_md_has_the_generated_tables():
    """KH-RULING-16, KH-RULING-17: the documented action ids and observation layout are the code's."""
    text = (DOCS / "env.md").read_text(encoding="utf-8")
    assert generated_markdown(4) in text, "regenerate: python -m farmgames.envs.key_harvest.docs"


def test_bots_md_exists():
    text = (DOCS / "bots.md").read_text(encoding="utf-8")
    assert "HeuristicBot" in text and "Wilson" in text
