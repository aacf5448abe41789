"""Every command takes ``--game``: registered games are accepted (players and bots from their spec), an
unknown game is refused with a message that lists the registered ones."""

from __future__ import annotations

import json

import pytest

import farmgames.envs as envs
from farmgames.training.cli import main

COMMANDS = [
    ["play"],
    ["replay", "record.json"],
    ["playthroughs", "--check"],
    ["evaluate", "--policy", "random"],
    ["league", "--policies", "random", "random"],
    ["train", "--config", "x.yaml"],
    ["bench", "--smoke"],
    ["balance"],
]
ROWS = envs.all_rows()


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_unknown_game_is_refused_with_the_registered_games(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--game", "chess"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown game 'chess'" in err and "registered games" in err
    for name in envs.GAME_NAMES:
        assert name in err


@pytest.mark.parametrize("row", ROWS, ids=[r.env_name for r in ROWS])
def test_every_command_plays_every_registered_game(row, tmp_path, capsys):
    """play, replay, evaluate, league and balance with the fewest players of each game and its random bot."""
    spec = envs.get_spec(row.env_name)
    n, game = str(spec.min_players), row.env_name
    record = tmp_path / "game.json"
    assert (
        main(["play", "--game", game, "--players", n, "--bots", "random", "--quiet", "--save-record", str(record)]) == 0
    )
    assert json.loads(record.read_text())["game"] == spec.name
    assert main(["replay", str(record), "--final"]) == 0
    assert "scores:" in capsys.readouterr().out
    out = tmp_path / "eval.json"
    args = ["--game", game, "--players", n, "--games", "1", "--no-progress", "--json", str(out)]
    assert main(["evaluate", "--policy", "random", "--opponents", "random", *args]) == 0
    assert json.loads(out.read_text())["game"] == spec.env_name
    assert main(["league", "--policies", *(["random"] * spec.min_players), *args]) == 0
    report = tmp_path / "balance.md"
    assert (
        main(
            [
                "balance",
                "--game",
                game,
                "--players",
                n,
                "--bots",
                "random",
                "--games",
                "2",
                "--no-progress",
                "--plot",
                "none",
                "--out",
                str(report),
            ]
        )
        == 0
    )
    text = report.read_text()
    assert "## Score distribution" in text and "## Seats" in text and "## Game length" in text


def test_player_counts_come_from_the_spec(capsys):
    spec = envs.get_spec("fields_of_green_v0")
    too_many = str(spec.max_players + 1)
    assert main(["play", "--players", too_many]) == 2
    assert f"--players must be one of {', '.join(map(str, spec.player_counts))}" in capsys.readouterr().err
    assert main(["evaluate", "--policy", "random", "--players", too_many, "--games", "1", "--no-progress"]) == 2
    assert main(["balance", "--players", too_many, "--games", "1", "--no-progress"]) == 2
    assert "--players must be one of" in capsys.readouterr().err


def test_config_game_is_validated():
    from farmgames.training.config import ConfigError, config_from_dict

    assert config_from_dict({}).env.game == "fields_of_green_v0"
    assert config_from_dict({"env": {"game": "fields_of_green"}}).env.game == "fields_of_green"
    with pytest.raises(ConfigError, match="'env.game' is not a registered game: unknown game 'chess'; registered"):
        config_from_dict({"env": {"game": "chess"}})
    spec = envs.get_spec("fields_of_green_v0")
    with pytest.raises(ConfigError, match="'env.num_players' must be one of"):
        config_from_dict({"env": {"num_players": spec.max_players + 1}})
