"""Fixtures of the viewer tests: records of every registered game, and servers that stop themselves.

Servers bind 127.0.0.1 on a port the OS picks and run in a daemon thread; every fixture stops its server
(and a watchdog stops it anyway after ``SERVER_SECONDS``), so no test leaves a listener behind.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from farmgames.envs import GAMES, get_spec
from farmgames.training.view.server import ViewerApp, ViewerServer

SERVER_SECONDS = 120
MAX_ACTIONS = 160  # records of other games are cut here (the viewer shows unfinished games too)


def registered() -> list[str]:
    """The newest version of every game of the suite (what a new record is written with); games
    registered at run time by other tests (the conformance suite's Secret Nim) are not the suite's."""
    newest: dict[str, str] = {}
    for row in GAMES:
        newest[row.game] = row.env_name
    return list(newest.values())


def random_record(name: str, seed: int = 3, players: int | None = None, limit: int = MAX_ACTIONS) -> dict[str, Any]:
    """A game of random moves, as the engine records it."""
    spec = get_spec(name)
    game = spec.new_game(num_players=players or spec.min_players, seed=seed)
    rng = random.Random(seed)
    while not game.is_terminal() and len(game.history) < limit:
        game.apply(rng.choice(game.legal_actions()))
    return dict(game.record())


@contextlib.contextmanager
def running(app: ViewerApp) -> Iterator[ViewerServer]:
    server = ViewerServer(app, 0).start()
    watchdog = threading.Timer(SERVER_SECONDS, server.shutdown)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield server
    finally:
        watchdog.cancel()
        server.stop()


def get(server: ViewerServer, path: str, host: str | None = None) -> tuple[int, str, bytes]:
    """(status, content type, body) of a GET; errors are returned, not raised."""
    request = urllib.request.Request(server.url + path.lstrip("/"))
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=20) as res:
            return res.status, res.headers.get("Content-Type", ""), res.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def post(server: ViewerServer, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(
        server.url + path.lstrip("/"),
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def get_json(server: ViewerServer, path: str) -> Any:
    status, kind, body = get(server, path)
    assert status == 200, (path, status, body[:300])
    assert kind.startswith("application/json")
    return json.loads(body)


@pytest.fixture(scope="session")
def fog_record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record written by ``farmgames play --save-record`` (2 players, random bots)."""
    from farmgames.training.cli import main

    path = tmp_path_factory.mktemp("records") / "g.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert (
            main(["play", "--players", "2", "--bots", "random", "--seed", "4", "--quiet", "--save-record", str(path)])
            == 0
        )
    return path
