"""The modules compiled with mypyc (envs/_native.py, setup.py) decide exactly as their Python source.

Seeded games of the Fields of Green bots are played in two subprocesses, one running the install as it is
(compiled where the build compiled) and one with ``FARMGAMES_PURE_PYTHON=1`` (the ``.py`` source): every
action, the final scores and states must agree, and so must every observation, mask, reward and info of
seeded random ``env()`` games of v0 and v1 (the engine and observer are compiled too). The golden games of
test_bots.py pin the same decisions in the suite's own process, which runs the compiled modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from farmgames.envs import _native

_SCRIPT = r"""
import json
from farmgames.envs._native import compiled_modules
from farmgames.envs.fields_of_green import bots
from farmgames.envs.fields_of_green.bots import make_bot
from farmgames.envs.fields_of_green.game import Game

GAMES = (
    (2, 3, ("heuristic", "heuristic_fast"), False),
    (3, 11, ("heuristic_lite", "heuristic", "random"), False),
    (4, 5, ("heuristic_fast", "heuristic", "heuristic_lite", "heuristic"), False),
    (2, 8, ("heuristic", "heuristic"), True),
)
runs = []
for players, seed, names, verify in GAMES:
    bots.VERIFY_CACHES = verify  # (the memo checks run compiled too)
    game = Game(num_players=players, seed=seed)
    seats = [make_bot(name, seed=seed * 10 + i) for i, name in enumerate(names)]
    actions = []
    while not game.is_terminal():
        action = seats[game.current_player].act(game)
        actions.append(action)
        game.apply(action)
    runs.append({"actions": actions, "scores": [s.total for s in game.scores()], "state": game.to_json()})

import hashlib, random
import numpy as np
from farmgames.envs import fields_of_green_v0, fields_of_green_v1

envs = []
for module, players, seed in ((fields_of_green_v0, 4, 1), (fields_of_green_v0, 2, 2), (fields_of_green_v1, 3, 3)):
    env, rng, digest = module.env(num_players=players), random.Random(seed), hashlib.sha256()
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        for name, array in sorted(obs["observation"].items()):
            digest.update(name.encode() + np.ascontiguousarray(array).tobytes())
        items = sorted((k, v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info.items())
        digest.update(obs["action_mask"].tobytes() + repr((agent, reward, term, trunc, items)).encode())
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
    envs.append(digest.hexdigest())
print(json.dumps({"compiled": compiled_modules(), "runs": runs, "envs": envs}))
"""


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_PYTHON_VARIABLE}
    if pure:
        env[_native.PURE_PYTHON_VARIABLE] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_pure_python_switch_loads_every_module_from_its_source() -> None:
    """FARMGAMES_PURE_PYTHON=1 at run time: none of the listed modules comes from an extension."""
    assert set(_play(pure=True)["compiled"].values()) == {False}


@pytest.mark.skipif(
    not any(_native.compiled_modules().values()), reason="this install has no compiled modules (a plain build)"
)
def test_compiled_modules_decide_as_their_source() -> None:
    """The same seeded games, action by action and score by score, compiled and from the source (FoG bots,
    2-4 players, with and without the memo checks); the same observations, masks, rewards and infos of
    random env() games, step by step (digests)."""
    compiled, source = _play(pure=False), _play(pure=True)
    assert all(compiled["compiled"].values()), compiled["compiled"]
    assert len(compiled["runs"]) == len(source["runs"]) == 4
    for ours, reference in zip(compiled["runs"], source["runs"]):
        assert len(ours["actions"]) > 50  # (complete games)
        assert ours == reference
    assert len(compiled["envs"]) == 3 and compiled["envs"] == source["envs"]


def test_compiled_module_list_names_real_modules() -> None:
    """Every listed module exists as a .py source beside whatever the build made of it."""
    for name, compiled in _native.compiled_modules().items():
        full = f"{_native.PACKAGE}.{name}"
        assert compiled == _native.is_compiled(sys.modules[full])
        parent, _, leaf = full.rpartition(".")
        # (found through the package's path: a mypyc module's __file__ need not be where it was loaded from)
        assert any(os.path.isfile(os.path.join(entry, leaf + ".py")) for entry in sys.modules[parent].__path__), name


def test_a_pickled_bot_decides_as_the_original_from_there_on() -> None:
    """A bot (compiled or not) pickled mid-game, with its game, plays the rest of the game as the original
    does: its memo tables and model are rebuilt, its random state and weights kept (HeuristicBot.__getstate__)."""
    import pickle

    from farmgames.envs.fields_of_green.bots import FastHeuristicBot, make_bot
    from farmgames.envs.fields_of_green.game import Game

    game = Game(num_players=2, seed=21)
    seats = [make_bot("heuristic", seed=1), FastHeuristicBot(seed=2, deny=0.3)]
    for _ in range(60):
        game.apply(seats[game.current_player].act(game))
    copy_game, copy_seats = pickle.loads(pickle.dumps((game, seats)))
    assert copy_seats[1].w == seats[1].w and copy_seats[1].w.deny == 0.3
    played, replayed = [], []
    for g, bots, out in ((game, seats, played), (copy_game, copy_seats, replayed)):
        while not g.is_terminal():
            out.append(bots[g.current_player].act(g))
            g.apply(out[-1])
    assert len(played) > 50 and played == replayed
