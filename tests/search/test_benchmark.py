"""``farmgames benchmark``: the protocol's report and the ladder's files (tiny runs)."""

from __future__ import annotations

import json

import pytest

from farmgames.training.benchmark import deal_seeds, label, leaderboard_header, record_of, shipped_checkpoints
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
    shipped = [label(p) for p in shipped_checkpoints("fields_of_green")[-1:]]  # the shipped PPO entrant joins
    assert shipped == ["ppo_v1_2p_vs_random"]
    entrants = {"random", "heuristic", *shipped}
    ladder = json.loads((docs / "fields_of_green" / "ladder.json").read_text())
    pairs = len(entrants) * (len(entrants) - 1) // 2
    assert len(ladder["games"]) == 2 * pairs and set(ladder["ratings"]) == entrants  # 1 deal x 2 rotations a pair
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
    games = 4 * (1 + len(shipped))  # 2 deals x 2 seat rotations per opponent: heuristic and the shipped PPO
    assert res["overall"]["games"] == games
    assert res["rating"] is not None and res["players"] == 2
    printed = capsys.readouterr().out
    assert leaderboard_header(["heuristic", *shipped]).splitlines()[0] in printed
    assert f"| random | fields_of_green_v1 | 2 | {games} |" in printed


def test_records_count_shared_wins_as_a_fraction() -> None:
    rows = [
        {"seats": ["a", "b"], "scores": [5, 5], "winners": [0, 1], "ranks": [1, 1], "deal": 0},
        {"seats": ["b", "a"], "scores": [3, 7], "winners": [1], "ranks": [2, 1], "deal": 0},
    ]
    rec = record_of(rows, "a", "b")
    assert rec["games"] == 2 and rec["wins"] == 1.5 and rec["mean_margin"] == 2.0


@pytest.mark.parametrize("game", ["fields_of_green", "sunflower_valley", "key_harvest"])
def test_every_game_ships_a_checkpoint_its_ladder_can_load(game: str) -> None:
    """The checkpoint ``--ladder`` picks up (docs/<game>/baselines/*.safetensors, the last one) loads against
    the game's newest version: a checkpoint of another version or observation layout would stop the run."""
    pytest.importorskip("sb3_contrib")
    from farmgames.training.arena import Arena
    from farmgames.training.policy import load_policy

    shipped = shipped_checkpoints(game)
    assert shipped, f"no PPO checkpoint shipped for {game}"
    arena = Arena(2, game=game)
    try:
        policy = load_policy(shipped[-1], seed=0, env_facts=arena.facts)
    finally:
        arena.close()
    assert hasattr(policy, "act")


def test_shipped_checkpoints_are_filtered_by_env_version() -> None:
    """fields_of_green_v0 and _v1 share docs/fields_of_green/baselines/: each version's ladder only takes the
    checkpoints trained on it (a v1 checkpoint would stop a v0 run with a size mismatch)."""
    every = shipped_checkpoints("fields_of_green")
    assert every, "the v1 PPO checkpoint is shipped"
    assert shipped_checkpoints("fields_of_green", env="fields_of_green_v1") == every
    assert shipped_checkpoints("fields_of_green", env="fields_of_green_v0") == []


def test_a_shipped_checkpoint_does_not_play_itself(tmp_path) -> None:
    pytest.importorskip("openskill")
    shipped = shipped_checkpoints("fields_of_green", env="fields_of_green_v1")[-1]
    out = tmp_path / "r.json"
    code = main(
        ["benchmark", "--game", "fields_of_green", "--policy", shipped, "--deals", "1", "--opponents", "random"]
        + ["--out", str(out), "--docs", str(tmp_path / "docs")]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert res["overall"]["games"] == 2  # 1 deal x 2 seat rotations against random only
