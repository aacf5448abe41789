"""docs/sunflower_valley/env.md: its generated tables are current, its example runs."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "sunflower_valley"


def test_generated_tables_are_current():
    from farmgames.envs import sunflower_valley_v0
    from farmgames.envs.sunflower_valley.actions import table_markdown

    text = (DOCS / "env.md").read_text()
    block = text.split("<!-- generated: begin -->\n", 1)[1].split("\n<!-- generated: end -->", 1)[0]
    assert block == sunflower_valley_v0.docs_markdown(4)
    assert table_markdown() in text


def test_example_runs():
    text = (DOCS / "env.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "env.md", "exec"), {})


def test_bots_doc_names_the_value():
    text = (DOCS / "bots.md").read_text()
    assert "projected" in text and "Wilson" in text


def test_training_configs():
    """configs/sunflower_valley: the Fields of Green schema with env.game = sunflower_valley (loaded through
    the training config checker once the game is registered)."""
    import yaml

    from farmgames.envs import all_rows

    root = Path(__file__).resolve().parents[2] / "configs" / "sunflower_valley"
    for name, opponents in (("ppo_2p_vs_random.yaml", "random"), ("ppo_2p_vs_heuristic.yaml", "heuristic")):
        f = root / name
        doc = yaml.safe_load(f.read_text())
        assert doc["env"]["game"] == "sunflower_valley_v0" and doc["env"]["opponents"] == opponents
        if any(row.game == "sunflower_valley" for row in all_rows()):
            from farmgames.training.config import load_config

            assert load_config(f).env.game.startswith("sunflower_valley")
