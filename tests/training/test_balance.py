"""``farmgames balance`` (training/balance.py): a tiny run writes a complete report."""

from __future__ import annotations

import json

import pytest

from farmgames.training import balance
from farmgames.training.cli import main

SECTIONS = (
    "# Fields of Green — base set balance report",
    "## Headline",
    "## Balance changes",
    "## Score distribution",
    "## Mean score parts",
    "## Action mix",
    "## Strategies",
    "## Card designs",
    "### Field",
    "### Livestock",
    "### Construction",
    "### Building",
    "## Equipment",
)


def test_balance_command_writes_report(tmp_path):
    out = tmp_path / "docs" / "balance.md"
    data = tmp_path / "balance.json"
    code = main(["balance", "--games", "4", "--seed", "3", "--out", str(out), "--json", str(data), "--no-progress"])
    assert code == 0
    text = out.read_text(encoding="utf-8")
    for section in SECTIONS:
        assert section in text, section
    assert "farmgames balance --games 4 --seed 3" in text
    for column in ("pick rate", "build rate", "builders' win rate"):
        assert column in text
    stats = json.loads(data.read_text(encoding="utf-8"))
    assert stats["games"] == 4 and stats["players"] == 4
    assert stats["player_games"] == 16
    assert stats["scores"]["winning"]["n"] >= 4
    assert abs(sum(stats["action_mix"].values()) - 1) < 1e-9
    assert len(stats["designs"]) >= 48
    for row in stats["designs"]:
        assert row["pick_rate"] is None or 0 <= row["pick_rate"] <= 1
        assert row["build_rate"] is None or 0 <= row["build_rate"] <= 1
        assert row["built"] <= row["picked"]
    assert sum(r["built"] for r in stats["designs"]) > 0
    plot = out.with_name("balance_scores.png")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not plot.exists()
    else:
        assert plot.exists() and "![score histogram](balance_scores.png)" in text

    # the report can be re-rendered from the saved statistics without new games
    again = tmp_path / "again.md"
    assert main(["balance", "--from-json", str(data), "--out", str(again), "--plot", "none"]) == 0
    assert again.read_text(encoding="utf-8") == text.replace("![score histogram](balance_scores.png)\n\n", "")


def test_balance_rejects_bad_arguments(tmp_path, capsys):
    out = tmp_path / "b.md"
    assert main(["balance", "--games", "1", "--bots", "alphazero", "--out", str(out), "--no-progress"]) == 2
    assert "valid names" in capsys.readouterr().err
    assert main(["balance", "--games", "1", "--bots", "random,random", "--out", str(out), "--no-progress"]) == 2
    assert not out.exists()


def test_winrate_mode_prints_a_table(capsys):
    code = main(["balance", "--winrate", "--games", "2", "--players", "2", "--only-players", "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "| players | games | heuristic wins |" in text
    assert "farmgames balance --winrate --players 2 --only-players --games 2" in text


def test_aggregate_counts_per_seat():
    games = [balance.simulate_game(seed, 2, ["random", "random"]) for seed in (1, 2)]
    stats = balance.aggregate(games)
    assert stats["player_games"] == 4
    assert stats["baseline_win_rate"] == pytest.approx(sum(len(g["winners"]) for g in games) / 4)
    assert sum(v["player_games"] for v in stats["seats"].values()) == 4
