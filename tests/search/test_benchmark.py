"""``farmgames benchmark``: the protocol's report and the ladder's files (tiny runs)."""

from __future__ import annotations

import json

import pytest

from farmgames.training.benchmark import deal_seeds, leaderboard_header, record_of
from farmgames.training.cli import main


def test_deals_are_fixed() -> None:
    assert deal_seeds(3) == deal_seeds(3) and len(set(deal_seeds(50))) == 50


def test_benchmark_writes_json_and_a_leaderboard_row(tmp_path, capsys) -> None:
    pytest.importorskip("openskill")  # the ratings (the train extra)
    out = tmp_path / "r.json"
    docs = tmp_path / "docs"
    code = main(
        [
            "benchmark",
            "--game",
            "fields_of_green",
            "--ladder",
            "--deals",
            "1",
            "--opponents",
            "random",
            "heuristic",
            "--docs",
            str(docs),
            "--log",
            str(tmp_path / "l.jsonl"),
        ]
    )
    assert code == 0
    ladder = json.loads((docs / "fields_of_green" / "ladder.json").read_text())
    assert len(ladder["games"]) == 2 and set(ladder["ratings"]) == {"random", "heuristic"}
    assert "| heuristic |" in (docs / "fields_of_green" / "ladder.md").read_text()
    code = main(
        [
            "benchmark",
            "--game",
            "fields_of_green",
            "--policy",
            "random",
            "--deals",
            "2",
            "--opponents",
            "heuristic",
            "--out",
            str(out),
            "--docs",
            str(docs),
        ]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert res["overall"]["games"] == 4  # 2 deals x 2 seat rotations
    assert res["rating"] is not None and res["players"] == 2
    printed = capsys.readouterr().out
    assert leaderboard_header(["heuristic"]).splitlines()[0] in printed
    assert "| random | fields_of_green_v1 | 2 | 4 |" in printed


def test_records_count_shared_wins_as_a_fraction() -> None:
    rows = [
        {"seats": ["a", "b"], "scores": [5, 5], "winners": [0, 1], "ranks": [1, 1], "deal": 0},
        {"seats": ["b", "a"], "scores": [3, 7], "winners": [1], "ranks": [2, 1], "deal": 0},
    ]
    rec = record_of(rows, "a", "b")
    assert rec["games"] == 2 and rec["wins"] == 1.5 and rec["mean_margin"] == 2.0
