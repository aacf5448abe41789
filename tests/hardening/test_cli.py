"""Fail fast, lose nothing, no tracebacks (issue 12): output paths are checked before a long job, a played
game's record is written even when the game is interrupted or an error happens, and user mistakes on
the command line get a message naming the value, the field and what is allowed."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from farmgames.envs.fields_of_green.game import Game
from farmgames.training import play as play_cmd
from farmgames.training.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _answers(count: int, then: BaseException):
    """A human who answers '1' ``count`` times, then raises ``then``."""
    state = {"n": 0}

    def read(prompt: str) -> str:
        state["n"] += 1
        if state["n"] > count:
            raise then
        return "1"

    return read


def test_save_record_folder_is_made_before_the_game(tmp_path):
    """Before: --save-record into a missing folder played the whole game, then failed."""
    path = tmp_path / "new" / "folder" / "game.json"
    assert play_cmd.play(players=2, seed=0, bots="random", save_record=str(path), out=io.StringIO()) == 0
    record = json.loads(path.read_text())
    assert Game.replay(record).is_terminal()


def test_save_record_onto_a_folder_is_refused_before_the_game(tmp_path, capsys):
    asked = []
    code = main(["play", "--save-record", str(tmp_path), "--human", "0", "--quiet"])
    assert code == 2 and not asked
    err = capsys.readouterr().err
    assert "--save-record" in err and str(tmp_path) in err and "folder" in err


def test_interrupted_game_keeps_its_record(tmp_path):
    path = tmp_path / "game.json"
    out = io.StringIO()
    status = play_cmd.play(
        players=2, seed=3, bots="random", human=0, save_record=str(path), out=out, read=_answers(5, KeyboardInterrupt())
    )
    assert status == 130
    record = json.loads(path.read_text())
    assert len(record["actions"]) >= 5 and record["seats"][0] == "you"
    assert "interrupted" in out.getvalue() and "record written" in out.getvalue()
    replayed = Game.replay(record)
    assert replayed.history == record["actions"]


def test_a_game_stopped_by_an_error_keeps_its_record(tmp_path):
    path = tmp_path / "game.json"
    with pytest.raises(RuntimeError, match="disk on fire"):
        play_cmd.play(
            players=3,
            seed=4,
            bots="random",
            human=2,
            save_record=str(path),
            out=io.StringIO(),
            read=_answers(3, RuntimeError("disk on fire")),
        )
    record = json.loads(path.read_text())
    assert record["actions"] and Game.replay(record).history == record["actions"]


def test_record_falls_back_to_a_named_file(tmp_path, monkeypatch, capsys):
    """If the path fails after the game after all (here: its folder became a file), the record goes to a
    named file in the working folder instead of being lost."""
    from farmgames.training.outputs import write_text

    monkeypatch.chdir(tmp_path)
    blocker = tmp_path / "was_a_folder"
    blocker.write_text("")
    where = write_text(blocker / "game.json", "{}", what="record")
    assert where.parent == tmp_path and where.name.startswith("farmgames-record-") and where.read_text() == "{}"
    assert str(where) in capsys.readouterr().err


def test_evaluate_json_onto_a_folder_fails_before_the_games(tmp_path, capsys):
    """Before: evaluate --json into a folder played every game, then lost the results."""
    code = main(
        [
            "evaluate",
            "--policy",
            "random",
            "--opponents",
            "random",
            "--games",
            "500",
            "--no-progress",
            "--json",
            str(tmp_path),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--json" in err and "folder" in err
    out = tmp_path / "deep" / "er" / "res.json"
    assert main(["evaluate", "--policy", "random", "--games", "2", "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["games"] == 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["evaluate", "--policy", "random", "--variant", "colour=1", "--games", "1", "--no-progress"],
            ["--variant", "'colour'", "valid keywords"],
        ),
        (
            ["league", "--policies", "random", "random", "--variant", "colour=1", "--games", "1", "--no-progress"],
            ["--variant", "'colour'"],
        ),
        (["balance", "--card-set", "missing.yaml", "--games", "2", "--no-progress"], ["missing.yaml", "cannot read"]),
        (["balance", "--variant", "farm_size=8", "--games", "2", "--no-progress"], ["farm_size", "8"]),
        (["evaluate", "--policy", "nosuchmod:Bot", "--games", "1", "--no-progress"], ["nosuchmod"]),
        (["convert-checkpoint", "x.zip"], ["--trust-checkpoint", "x.zip"]),
        (["convert-checkpoint", "x.zip", "--trust-checkpoint"], ["x.zip", "does not exist"]),
    ],
)
def test_user_mistakes_get_messages_not_tracebacks(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_train_mistakes_name_the_config_key(tmp_path, capsys):
    smoke = (ROOT / "configs" / "fields_of_green" / "smoke.yaml").read_text()
    config = tmp_path / "c.yaml"
    config.write_text(smoke.replace("opponents: random", "opponents: nosuchmod:Bot"))
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "'env.opponents'" in err and "nosuchmod" in err
    existing = tmp_path / "a_file"
    existing.write_text("x")
    config.write_text(smoke)
    assert main(["train", "--config", str(config), "--out", str(existing)]) == 2
    err = capsys.readouterr().err
    assert "'out'" in err and "existing file" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"variant": ["x"]}, ["variant", "['x']"]),
        ({"actions": [None]}, ["step 0", "None"]),
        ({"seed": -2}, ["seed", "-2"]),
        ({"actions": ["first", 99999]}, ["step 1", "99999"]),
    ],
)
def test_replay_command_names_the_field_or_step(change, words, tmp_path, capsys):
    game = Game(num_players=2, seed=0)
    record = game.record()
    record.update(change)
    record["actions"] = [game.legal_actions()[0] if a == "first" else a for a in record["actions"]]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--final"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_convert_checkpoint_writes_a_loadable_twin(tmp_path):
    pytest.importorskip("sb3_contrib")
    from farmgames.training.checkpoint import read_meta, safe_path
    from farmgames.training.policy import MaskablePPOPolicy

    from .test_checkpoints import _make_model_zip

    zip_path = _make_model_zip(tmp_path / "old.zip")
    with pytest.raises(ValueError, match="no old.safetensors"):
        MaskablePPOPolicy(zip_path)
    assert main(["convert-checkpoint", str(zip_path), "--trust-checkpoint"]) == 0
    assert read_meta(safe_path(zip_path))["architecture"]["net_arch"] == [32]
    assert MaskablePPOPolicy(zip_path).action_size > 0


def test_configs_are_read_bounded(tmp_path, capsys):
    """A config of nested aliases (a few KB, 10**9 nodes) is refused while it is parsed."""
    lines = ["a: &a [" + ", ".join(["x"] * 10) + "]"]
    lines += [f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]" for p, c in zip("abcdefgh", "bcdefghi")]
    config = tmp_path / "lol.yaml"
    config.write_text("\n".join(lines) + "\nname: *i\n")
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "lol.yaml" in err and "aliases" in err and "Traceback" not in err


def test_interrupted_training_keeps_its_model(tmp_path, monkeypatch):
    """Ctrl-C during training: the model so far is saved (zip and code-free twin), the summary says so."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from farmgames.training.checkpoint import read_meta

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "learn", interrupted)
    out = tmp_path / "run"
    assert main(["train", "--config", str(ROOT / "configs" / "fields_of_green" / "smoke.yaml"), "--out", str(out)]) == 0
    assert (out / "final.zip").is_file() and read_meta(out / "final.safetensors")["game"] == "fields_of_green"
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True
