"""The viewer without a browser: record files, frames of every registered game, the HTTP API, a live game."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

from farmgames.envs import get_spec, replay
from farmgames.training.view import build_app, parse_opponents
from farmgames.training.view.frames import Frames, Timeline
from farmgames.training.view.records import find_records, load_records
from farmgames.training.view.server import ViewerApp
from farmgames.training.view.session import PlaySession

from .conftest import get, get_json, post, random_record, registered, running

PNG = b"\x89PNG\r\n\x1a\n"


def test_records_are_found_wherever_the_writer_put_them(fog_record_file: Path, tmp_path: Path) -> None:
    record = json.loads(fog_record_file.read_text())
    assert [r for _, r in load_records(fog_record_file)] == [record]
    wrapped = {"policy": "random", "records": [{"game": 0, "seed": 1, "record": record}, {"game": 1, "vp": 3}]}
    listed = [record, record]
    for data, count in ((wrapped, 1), (listed, 2), ({"results": {"games": listed}}, 2)):
        found = find_records(data)
        assert len(found) == count and all(r == record for _, r in found)
    assert "records[0].record" in find_records(wrapped)[0][0]
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"records": [{"game": 0, "seed": 1, "vp": 3}]}))
    with pytest.raises(ValueError, match="holds no game record"):
        load_records(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        load_records(path)


@pytest.mark.parametrize("name", registered())
def test_every_registered_game_has_frames_for_every_view(name: str) -> None:
    record = random_record(name, limit=60)
    timeline = Timeline(get_spec(name), record)
    frames = Frames(timeline)
    steps = timeline.steps
    for i in sorted({0, 1, steps // 2, steps - 1, steps}):
        for view in [None, *range(timeline.num_players)]:
            frame = frames.frame(i, view)
            assert frame["step"] == i and frame["observations"]
            json.dumps(frame)
            if view is not None and frame["next"] and frame["next"]["seat"] != view:
                assert frame["next"]["alternatives"] is None or get_spec(name).information == "perfect"
    assert len(frames.log(0)) == steps
    spec = get_spec(name)
    if frames.picture is None:  # a seat's view gets a picture only if the game draws one for that seat
        assert spec.information != "perfect" or spec.render_rgb is None
    for view in [None, 0]:
        if frames.has_picture(view):
            png = frames.picture_png(steps // 2, view)
            assert png is not None and png.startswith(PNG) and len(png) > 5_000
    # a state far into the record equals the replay of its actions (snapshots are not shared states)
    assert timeline.state(steps).to_json() == replay(record).to_json()
    assert timeline.state(5).to_json() == replay({**record, "actions": record["actions"][:5]}).to_json()


def test_seat_views_of_fields_of_green_have_pictures(fog_record_file: Path) -> None:
    app = ViewerApp(records=load_records(fog_record_file))
    frames = app.frames(0)
    assert frames.picture is not None, "FoG's rgb_array takes a viewer: seat views get pictures"
    for view in (None, 0, 1):
        png = frames.picture_png(7, view)
        assert png is not None and png.startswith(PNG)


def test_http_api(fog_record_file: Path) -> None:
    app = ViewerApp(records=load_records(fog_record_file))
    steps = len(json.loads(fog_record_file.read_text())["actions"])
    with running(app) as server:
        status, kind, body = get(server, "/")
        assert status == 200 and b"farmgames view" in body and kind.startswith("text/html")
        for name in ("app.js", "style.css"):
            assert get(server, f"/static/{name}")[0] == 200
        assert b"http" not in get(server, "/")[2].replace(b"http-equiv", b""), "the page loads nothing from outside"
        info = get_json(server, "/api/info")
        assert info["mode"] == "record" and info["steps"] == steps and info["views"] == ["all", 0, 1]
        frame = get_json(server, "/api/frame?step=3&view=1")
        assert frame["step"] == 3 and list(frame["observations"]) == ["1"] and frame["picture"]
        assert frame["last"]["text"] and frame["next"]["text"]
        everything = get_json(server, "/api/frame?step=3&view=all")
        assert sorted(everything["observations"]) == ["0", "1"] and everything["next"]["alternatives"]
        assert get_json(server, "/api/frame?step=99999&view=0")["step"] == steps
        status, kind, png = get(server, "/api/picture?step=3&view=0")
        assert status == 200 and kind == "image/png" and png.startswith(PNG)
        assert len(get_json(server, "/api/log?view=0")) == steps
        status, _, body = get(server, "/api/record")
        assert status == 200 and json.loads(body) == json.loads(fog_record_file.read_text())
        assert get(server, "/api/frame?view=7")[0] == 403
        assert get(server, "/api/frame?view=x")[0] == 400
        assert get(server, "/api/frame?record=3")[0] == 404
        assert get(server, "/nothing")[0] == 404
        assert get(server, "/static/../server.py")[0] == 404
        assert get(server, "/api/info", host="evil.example:80")[0] == 403, "DNS rebinding is refused"
        assert post(server, "/api/act", {"action": 1})[0] == 400, "no playing in a record"


def test_a_file_of_several_records(fog_record_file: Path, tmp_path: Path) -> None:
    record = json.loads(fog_record_file.read_text())
    other = random_record("fields_of_green", seed=9, players=3, limit=30)
    path = tmp_path / "evaluation.json"
    path.write_text(json.dumps({"policy": "random", "records": [{"seed": 4, "record": record}, {"record": other}]}))
    with running(ViewerApp(records=load_records(path))) as server:
        info = get_json(server, "/api/info?record=1")
        assert len(info["records"]) == 2 and info["num_players"] == 3 and info["steps"] == 30
        assert get_json(server, "/api/frame?record=1&step=30&view=2")["step"] == 30
        assert get_json(server, "/api/info?record=0")["steps"] == len(record["actions"])


def test_a_live_game_against_a_bot_to_its_end(tmp_path: Path) -> None:
    spec = get_spec("fields_of_green")
    session = PlaySession(spec, 2, human=1, opponents=["random"], seed=2)
    save = tmp_path / "mine.json"
    app = ViewerApp(session=session, save_path=save)
    with running(app) as server:
        info = get_json(server, "/api/info")
        assert info["mode"] == "play" and info["views"] == [1] and info["to_move"] == 1
        assert get(server, "/api/frame?view=0")[0] == 403, "another seat's view is closed during the game"
        assert get(server, "/api/frame?view=all")[0] == 403
        frame = get_json(server, "/api/frame?view=1")
        assert frame["live"] and frame["next"]["seat"] == 1 and frame["next"]["alternatives"]
        assert post(server, "/api/act", {"action": 10**6})[0] == 409
        assert post(server, "/api/act", {"action": "3"})[0] == 400
        rng = random.Random(0)
        moves = 0
        while not info.get("over"):
            frame = get_json(server, "/api/frame?view=1")
            choice = rng.choice(frame["next"]["alternatives"])["action"]
            status, info = post(server, "/api/act", {"action": choice})
            assert status == 200, info
            moves += 1
        assert moves > 10 and info["views"] == ["all", 0, 1] and info["saved"] == str(save)
        final = get_json(server, "/api/frame?view=all")
        assert final["terminal"] and len(final["scores"]) == 2
        record = json.loads(save.read_text())
        assert record["seats"] == ["random", "you"]
        assert replay(record).is_terminal()
        assert post(server, "/api/act", {"action": 0})[0] == 409


def test_command_line_arguments(fog_record_file: Path, tmp_path: Path) -> None:
    from farmgames.training.view import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    app = build_app(parser.parse_args([str(fog_record_file)]))
    assert app.mode == "record"
    spec = get_spec("fields_of_green")
    assert parse_opponents("random,heuristic", None, spec) == (3, ["random", "heuristic"])
    assert parse_opponents(None, None, spec) == (2, ["heuristic"])
    assert parse_opponents("random", 4, spec) == (4, ["random"] * 3)
    with pytest.raises(ValueError, match="--players"):
        parse_opponents("random", 7, spec)
    with pytest.raises(ValueError, match="opponents"):
        parse_opponents("random,random", 4, spec)
    app = build_app(parser.parse_args(["--play", "--bots", "random", "--seed", "1", "--variant", "farm_size=7"]))
    assert app.mode == "play" and app.session.game.geometry.size == 7
    with pytest.raises(ValueError, match="unknown policy"):
        build_app(parser.parse_args(["--play", "--bots", "nobody"]))
    with pytest.raises(ValueError, match="no such file"):
        build_app(parser.parse_args([str(tmp_path / "missing.json")]))
    bad = json.loads(fog_record_file.read_text())
    bad["actions"][5] = 10**5
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="step 5"):
        build_app(parser.parse_args([str(tmp_path / "bad.json")]))


class FirstLegal:
    """A policy that reads the flat observation (as a checkpoint would) and plays the first legal action."""

    seen = 0

    def act(self, observation, action_mask) -> int:
        import numpy as np

        assert observation is not None and observation.ndim == 1
        FirstLegal.seen += 1
        return int(np.flatnonzero(action_mask)[0])


def test_opponents_come_from_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from farmgames.training.view import policy_resolver

    module = types.ModuleType("viewer_test_policies")
    module.FirstLegal = FirstLegal  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "viewer_test_policies", module)
    spec = get_spec("fields_of_green")
    with pytest.raises(ValueError, match="unknown opponent"):
        PlaySession(spec, 2, human=0, opponents=["viewer_test_policies:FirstLegal"], seed=1)
    session = PlaySession(
        spec, 2, human=0, opponents=["viewer_test_policies:FirstLegal"], seed=1, resolver=policy_resolver(spec)
    )
    while not session.over:
        session.act(session.game.legal_actions()[-1])
    assert FirstLegal.seen > 10 and session.record()["seats"] == ["you", "viewer_test_policies:FirstLegal"]
