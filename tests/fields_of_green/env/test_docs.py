"""docs/fields_of_green/env.md: its Python examples run, and it documents every observation array and action kind."""

from __future__ import annotations

import re
from pathlib import Path

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green_v0 import docs_markdown

DOC = Path(__file__).resolve().parents[3] / "docs" / "fields_of_green" / "env.md"


def test_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["env"].agents == []  # the parallel example ran to the end


def test_aec_example_is_ten_lines():
    first = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S).group(1)
    code = [line for line in first.splitlines() if line.strip()]
    assert len(code) <= 11


def test_every_array_and_action_kind_is_documented():
    text = DOC.read_text(encoding="utf-8")
    env = fields_of_green_v0.raw_env(num_players=4, perfect_recall=True)
    for entry in env.observer.entries:
        assert f"`{entry.name}`" in text
    for kind, *_ in env.layout.table():
        assert f"`{kind}`" in text
    # the generated tables are current (regenerate: fields_of_green_v0.docs_markdown(), see the doc)
    generated = docs_markdown()
    for line in generated.splitlines():
        if line.startswith("| `") and "design" not in line:
            assert line in text, f"docs/fields_of_green/env.md is out of date: {line}"
