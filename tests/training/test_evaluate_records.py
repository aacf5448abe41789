"""``evaluate --save-records``: every game of an evaluation as a record that replays and opens in the viewer."""

from __future__ import annotations

import json

from farmgames.envs import replay
from farmgames.training.cli import main
from farmgames.training.view.records import load_records


def test_evaluate_saves_records_that_replay_and_open_in_the_viewer(tmp_path, capsys):
    out = tmp_path / "games.json"
    summary = tmp_path / "eval.json"
    code = main(
        [
            "evaluate",
            "--game",
            "key_harvest",
            "--policy",
            "heuristic",
            "--opponents",
            "random",
            "--games",
            "4",
            "--seed",
            "5",
            "--no-progress",
            "--save-records",
            str(out),
            "--json",
            str(summary),
        ]
    )
    assert code == 0
    records = json.loads(out.read_text())["records"]
    results = json.loads(summary.read_text())["records"]
    assert len(records) == 4 and "game_records" not in json.loads(summary.read_text())
    for record, result in zip(records, results):
        game = replay(record)
        assert game.is_terminal() and [s.total for s in game.scores()] == result["scores"]
        assert record["players"][result["seat"]] == "heuristic"
    assert len(load_records(out)) == 4


def test_save_records_path_is_checked_before_the_games(tmp_path, capsys):
    """A folder given as the file: refused before any game is played, naming the option."""
    args = ["evaluate", "--game", "key_harvest", "--policy", "random", "--games", "2", "--no-progress"]
    code = main([*args, "--save-records", str(tmp_path)])
    assert code == 2
    captured = capsys.readouterr()
    assert "--save-records" in captured.err and "is a folder" in captured.err
    assert "win rate" not in captured.out  # no game was played
