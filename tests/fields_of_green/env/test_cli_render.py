"""Render modes, the play / replay / playthroughs commands, records, and the golden playthroughs."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.render import ansi_text, game_text, rgb_array
from farmgames.training import play as play_cmd
from farmgames.training import playthroughs
from farmgames.training import replay as replay_cmd
from farmgames.training.cli import main

from .conftest import play_aec


def test_render_modes(capsys):
    env = fields_of_green_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    while env.unwrapped.game.decision_kind != "pick":
        env.step(env.unwrapped.legal_actions()[0])
    text = env.render()
    assert isinstance(text, str) and "player 3" in text and "hand of player" in text
    picture = fields_of_green_v0.env(num_players=3, render_mode="rgb_array")
    picture.reset(seed=0)
    for _ in range(40):
        obs, *_ = picture.last()
        picture.step(int(np.flatnonzero(obs["action_mask"])[0]))
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.shape[0] > 100
    assert len({tuple(c) for c in image.reshape(-1, 3)[::50]}) > 4  # coloured cards, not a blank page
    human = fields_of_green_v0.parallel_env(num_players=2, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None and "Fields of Green" in capsys.readouterr().out
    silent = fields_of_green_v0.raw_env(num_players=2)
    silent.reset(seed=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert silent.render() is None


def test_text_pictures_hide_what_the_viewer_may_not_see():
    game = Game(num_players=3, seed=4)
    while game.decision_kind != "pick" or game.current_player == game.first_player:
        game.apply(game.legal_actions()[0])
    picker = (game.first_player) % 3  # has picked already, face down
    viewer = game.current_player
    hidden = game.cards.locations[game.picks[picker]].name
    assert f"player {picker}: {hidden}" not in ansi_text(game, viewer)
    assert f"player {picker}: {hidden}" in ansi_text(game, picker)
    assert "hand:" in game_text(game) and game_text(game, viewer).count("hand:") == 1
    assert rgb_array(game).shape[2] == 3


def test_play_command_bots_and_record(tmp_path):
    out = io.StringIO()
    path = tmp_path / "game.json"
    assert play_cmd.play(players=3, seed=2, bots="random,heuristic,random", save_record=str(path), out=out) == 0
    text = out.getvalue()
    assert "=== after the Action phase of year 1 ===" in text and "=== after the Harvest phase of year 4 ===" in text
    assert "final scores" in text and ("winner: player" in text or "shared victory" in text)
    assert "revealed:" in text and len(text.splitlines()) < 800
    record = json.loads(path.read_text())
    assert record["seats"] == ["random", "heuristic", "random"]
    game = Game.replay(record)
    assert game.is_terminal()
    final = [s.total for s in game.scores()]
    out = io.StringIO()
    assert replay_cmd.replay(str(path), final=True, out=out) == 0
    assert f"player 0: {final[0]} VP" in out.getvalue()
    out = io.StringIO()
    assert replay_cmd.replay(str(path), viewer=1, out=out) == 0
    assert out.getvalue().count("--- step") == len(record["actions"])
    assert "(hidden from the viewer)" in out.getvalue()


def test_play_with_a_human_seat_hides_others_and_handles_input():
    answers = iter(["", "x", "?", "99"] + ["1"] * 2000)
    out = io.StringIO()
    status = play_cmd.play(players=3, seed=1, bots="random", human=1, out=out, read=lambda prompt: next(answers))
    text = out.getvalue()
    assert status == 0 and "final scores" in text
    assert "please type a number" in text and "view of player 1" in text
    # other players' picks are never named before the reveal
    for line in text.splitlines():
        if "player 0  pick slot" in line or "player 2  pick slot" in line:
            raise AssertionError(f"a hidden pick was shown: {line}")
    assert "picks a card (face down)" in text


def test_play_human_eof_and_quit_stop_cleanly():
    def eof(prompt):
        raise EOFError

    out = io.StringIO()
    assert play_cmd.play(players=2, seed=0, bots="random", human=0, out=out, read=eof) == 1
    assert "game stopped (input closed)" in out.getvalue()
    out = io.StringIO()
    assert play_cmd.play(players=2, seed=0, human=1, bots="random", out=out, read=lambda p: "q") == 1


def test_cli_entry_points(tmp_path, capsys):
    assert (
        main(
            [
                "play",
                "--players",
                "2",
                "--bots",
                "random",
                "--seed",
                "3",
                "--quiet",
                "--save-record",
                str(tmp_path / "r.json"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "final scores" in out and "after the Harvest phase of year 4" in out
    assert main(["replay", str(tmp_path / "r.json"), "--final"]) == 0
    assert main(["play", "--bots", "random,random"]) == 2  # 2 names for 4 players
    assert "one name per seat" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}")
    assert main(["replay", str(tmp_path / "bad.json")]) == 2
    assert "not a Fields of Green game record" in capsys.readouterr().err


def test_record_of_a_wrong_action_is_reported(tmp_path):
    env = fields_of_green_v0.raw_env(num_players=2)
    play_aec(env, seed=1)
    record = env.record()
    record["actions"][5] = env.layout.NOOP
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="step 5"):
        replay_cmd.replay(str(path), out=io.StringIO())


def test_golden_playthroughs_match():
    problems = playthroughs.check(playthroughs.DEFAULT_DIR)
    assert not problems, (
        "golden playthroughs differ (if the change is intended and reviewed, regenerate with "
        "`farmgames playthroughs --write tests/playthroughs`):\n" + "\n\n".join(problems.values())
    )
