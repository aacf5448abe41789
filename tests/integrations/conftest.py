"""The client matrix: every registered game on its current env conventions, with each RL library's own
documented recipe (docs/libraries.md). Tests carry the ``integration`` marker; they run with
``-m integration`` (``.ci/integrations`` installs the clients and runs them) or ``FARMGAMES_INTEGRATION=1``
and skip, naming the package, when a client is not installed.
"""

from __future__ import annotations

import os

import pytest

from farmgames.envs import GAMES, get_spec

#: every registered env on the current conventions (v0 of Fields of Green keeps its published ones)
GAME_NAMES = [row.env_name for row in GAMES if get_spec(row.env_name).conventions.version >= 1]
GAME_PARAMS = [pytest.param(name, id=name) for name in GAME_NAMES]


def players(name: str) -> int:
    return get_spec(name).min_players


def pytest_configure(config):
    config.addinivalue_line("markers", "integration: RL-library client matrix (tests/integrations, .ci/integrations)")


def pytest_collection_modifyitems(config, items):
    asked = "integration" in (config.getoption("markexpr", "") or "") or os.environ.get("FARMGAMES_INTEGRATION")
    if asked:
        return
    skip = pytest.mark.skip(reason="client matrix: run with -m integration (.ci/integrations installs the clients)")
    for item in items:
        if "integration" in item.keywords:
            item.add_marker(skip)
