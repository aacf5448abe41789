"""Records pin what they depend on (card-set hash, package and env version), can carry their card set,
replay from any folder, and every malformed record is refused with a message naming the field or step
(issue 12: "Records and states name the card set only by path", "Tracebacks instead of messages")."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from farmgames import envs
from farmgames.envs.core.datafiles import sha256
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.core.records import RecordError, check_record, load_record, package_version
from farmgames.envs.fields_of_green.cards import DEFAULT_CARD_SET
from farmgames.envs.fields_of_green.game import Game


def _play(game: Game, seed: int = 0) -> Game:
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    return game


def _edited_set(folder: Path, name: str = "my_set.yaml") -> Path:
    """A copy of the base set (one VP value edited below, when a test wants it)."""
    path = folder / name
    path.write_text(DEFAULT_CARD_SET.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _bump_first_vp(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    i = text.index("vp: ")
    j = text.index("\n", i)
    path.write_text(text[:i] + f"vp: {int(text[i + 4 : j]) + 5}" + text[j:], encoding="utf-8")


def test_record_pins_card_set_hash_and_versions():
    record = _play(Game(num_players=3, seed=1)).record()
    pins = record["pins"]
    assert pins["data"]["card_set"] == sha256(DEFAULT_CARD_SET.read_bytes())
    assert pins["farmgames"] == package_version() and pins["env"] == "fields_of_green_v0"
    assert json.loads(json.dumps(record)) == record  # plain JSON
    assert envs.replay(record).to_json() == Game.replay(record).to_json()


def test_env_record_carries_pins_too():
    env = envs.face("fields_of_green").raw_env(num_players=2)
    env.reset(seed=3)
    assert env.record()["pins"]["data"]["card_set"] == sha256(DEFAULT_CARD_SET.read_bytes())


def test_edited_card_set_is_refused_naming_both_hashes(tmp_path):
    """Before: after one VP value was edited, the record replayed silently to different final scores."""
    path = _edited_set(tmp_path)
    game = _play(Game(num_players=2, seed=4, card_set=str(path)))
    record = json.loads(json.dumps(game.record()))
    old = sha256(path.read_bytes())
    _bump_first_vp(path)
    new = sha256(path.read_bytes())
    with pytest.raises(RecordError) as err:
        envs.replay(record)
    assert old in str(err.value) and new in str(err.value) and "card_set" in str(err.value)


def test_embedded_card_set_replays_anywhere(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    path = _edited_set(tmp_path / "a")
    game = _play(Game(num_players=4, seed=2, card_set=str(path)), seed=2)
    record = game.record(embed=True)
    assert record["files"]["card_set"] == path.read_text(encoding="utf-8")
    saved = tmp_path / "game.json"
    saved.write_text(json.dumps(record), encoding="utf-8")
    path.unlink()  # the card set is gone: the record still replays (a third machine, another folder)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = envs.replay(load_record(saved))
    assert [s.total for s in again.scores()] == [s.total for s in game.scores()]
    assert again.cards.sha256 == game.cards.sha256


def test_tampered_embedded_card_set_is_refused(tmp_path):
    path = _edited_set(tmp_path)
    record = _play(Game(num_players=2, seed=5, card_set=str(path))).record(embed=True)
    record["files"]["card_set"] = record["files"]["card_set"].replace("vp: 1", "vp: 9", 1)
    with pytest.raises(RecordError, match="files.card_set.*sha256"):
        envs.replay(record)


def test_relative_card_set_path_replays_from_another_folder(tmp_path, monkeypatch):
    """Before: a record with card_set 'sets/my_set.yaml' failed when replayed from another folder."""
    play_dir = tmp_path / "study"
    (play_dir / "sets").mkdir(parents=True)
    _edited_set(play_dir / "sets")
    monkeypatch.chdir(play_dir)
    game = _play(Game(num_players=3, seed=6, card_set="sets/my_set.yaml"), seed=6)
    (play_dir / "game.json").write_text(json.dumps(game.record()), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    again = envs.replay(load_record("study/game.json"))
    assert again.to_json() == game.to_json().replace('"sets/my_set.yaml"', json.dumps(again.variant["card_set"]))
    assert [s.total for s in again.scores()] == [s.total for s in game.scores()]


def test_other_env_or_package_version_is_refused():
    record = Game(num_players=2, seed=0).record()
    record["pins"] = dict(record["pins"], env="fields_of_green_v7")
    with pytest.raises(RecordError, match="fields_of_green_v7"):
        envs.replay(record)
    record["pins"] = dict(record["pins"], env="fields_of_green_v0", farmgames="0.0.1")
    with pytest.raises(RecordError, match=r"0\.0\.1.*" + package_version().replace(".", r"\.")):
        envs.replay(record)


def test_unpinned_records_of_older_releases_still_replay():
    record = _play(Game(num_players=2, seed=8)).record()
    del record["pins"]
    assert envs.replay(record).is_terminal()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"variant": ["farm_size", 9]}, ["variant", "['farm_size', 9]"]),
        ({"actions": [0, None]}, ["step 1", "None"]),
        ({"actions": [0, 1.5]}, ["step 1", "1.5"]),
        ({"actions": "012"}, ["actions", "list"]),
        ({"seed": -3}, ["seed", "-3"]),
        ({"seed": 2.0}, ["seed", "2.0"]),
        ({"num_players": True}, ["num_players", "True"]),
        ({"num_players": 9}, ["num_players", "9"]),
        ({"game": ["fields_of_green"]}, ["game"]),
        ({"game": "chess"}, ["game", "chess"]),
        ({"variant": {"farm_size": 8}}, ["farm_size", "8"]),
        ({"variant": {"colour": 1}}, ["variant", "colour"]),
        ({"variant": {"first_player": True}}, ["first_player", "True"]),
        ({"variant": {"auto_single": "no"}}, ["auto_single", "'no'"]),
        ({"variant": {"fixed_split": {"1.5": [2, 2, 1, 1]}}}, ["fixed_split", "1.5"]),
        ({"pins": {"data": {"card_set": "abc"}}}, ["pins.data.card_set", "abc"]),
        ({"files": {"card_set": 3}}, ["files.card_set"]),
        ({"env": "fields_of_green_v0"}, ["env"]),
    ],
)
def test_malformed_records_are_refused_with_the_field(change, words):
    record = Game(num_players=2, seed=1).record()
    record.update(change)
    with pytest.raises(ValueError) as err:
        envs.replay(record)
    assert type(err.value).__name__ in ("RecordError", "IllegalActionError"), err.value
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_illegal_action_names_the_step():
    record = _play(Game(num_players=2, seed=1)).record()
    record["actions"][17] = 9999
    with pytest.raises(IllegalActionError, match="record step 17"):
        envs.replay(record)


def test_card_set_path_inside_a_record_is_read_bounded(tmp_path):
    """A record whose card set points at an endless file (a device, a FIFO) or a huge one is refused at
    once instead of reading until memory runs out (or blocking)."""
    record = Game(num_players=2, seed=1).record()
    del record["pins"]
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as f:
        f.truncate(50 << 20)  # 50 MB (sparse)
    for target, words in (
        ("/dev/zero", "not a regular file"),
        (str(fifo), "not a regular file"),
        (str(huge), "larger than"),
        (str(tmp_path), "folder"),
        ("missing.yaml", "cannot read"),
    ):
        record["variant"] = {"card_set": target}
        start = time.perf_counter()
        with pytest.raises(RecordError, match=words):
            envs.replay(record)
        assert time.perf_counter() - start < 2


def test_record_files_are_read_bounded(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match="nested"):
        load_record(deep)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"game": "fields_of_green", "pad": "x" * 5000}))
    with pytest.raises(RecordError, match="larger than"):
        load_record(big, limit=1000)
    digits = tmp_path / "digits.json"
    digits.write_text('{"seed": ' + "9" * 5000 + "}")
    with pytest.raises(RecordError):
        load_record(digits)
    nan = tmp_path / "nan.json"
    nan.write_text('{"game": "fields_of_green", "num_players": 2, "seed": NaN, "actions": []}')
    with pytest.raises(RecordError, match="NaN"):
        load_record(nan)


def test_check_record_alone_names_the_first_bad_field():
    with pytest.raises(RecordError, match="missing field 'actions'"):
        check_record({"game": "fields_of_green", "num_players": 2, "seed": 0})
    with pytest.raises(RecordError, match="JSON object"):
        check_record([1, 2])
