"""The face module on the shared adapters: PettingZoo API tests, renders, docs tables, bots and narrator."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from farmgames.envs.core.bots import RandomBot, play_game
from farmgames.envs.sunflower_valley.bots import HeuristicBot, projected
from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.narrate import Narrator
from farmgames.envs.sunflower_valley.render import ansi_text, rgb_array


@pytest.fixture(scope="module")
def face():
    from farmgames.envs import sunflower_valley_v0

    return sunflower_valley_v0


def test_import_and_spec(face):
    assert face.SPEC.name == "sunflower_valley" and face.SPEC.information == "perfect"
    assert face.SPEC.hidden_perturbation is None and face.SPEC.min_players == 2 and face.SPEC.max_players == 5
    env = face.env(num_players=4)
    env.reset(seed=1)
    assert env.action_space("player_0").n == 1290


def test_pettingzoo_api_test(face):
    from pettingzoo.test import api_test, parallel_api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(face.env(num_players=4), num_cycles=200)
        parallel_api_test(face.parallel_env(num_players=3), num_cycles=200)


def test_env_keywords(face):
    env = face.env(num_players=2, letter="E", children=True, first_player=1)
    env.reset(seed=3)
    game = env.unwrapped.game
    assert game.letter == "E" and game.children and game.first == 1
    with pytest.raises(ValueError, match="letter"):
        face.env(num_players=2, letter="Q")
    with pytest.raises(ValueError, match="num_players"):
        face.env(num_players=6)


def test_renders():
    g = Game(5, 2)
    rng = random.Random(2)
    for _ in range(37):
        g.apply(rng.choice(g.legal_actions()))
    img = rgb_array(g)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 400
    text = ansi_text(g, 0)
    assert "player 4" in text and "last action" in text and "(you)" in text


def test_docs_tables(face):
    md = face.docs_markdown(4)
    assert "390" in md and "sheets" in md and "letter" in md


def test_heuristic_bot_plays_legal_and_beats_random():
    wins = 0
    for seed in range(30):
        n = 2 + seed % 4
        bots = [HeuristicBot(seed)] + [RandomBot(seed + q) for q in range(1, n)]
        g = play_game(bots, Game(n, seed))
        wins += 0 in g.winners()
    assert wins >= 25


def test_heuristic_bot_is_deterministic_and_leaves_state():
    g = Game(3, 5)
    before = g.to_json()
    a, b = HeuristicBot(1).act(g), HeuristicBot(1).act(g)
    assert a == b and a in g.legal_actions() and g.to_json() == before


def test_projection_values_a_pair():
    from .helpers import one_sheet

    lone = one_sheet({"C1": "H"})
    paired = one_sheet({"C1": "H", "B1": "Sh"})
    m = lone.sheet_map.mountains
    assert projected(paired.sheets[0], m, False, 0.0) - projected(lone.sheets[0], m, False, 0.0) == 8


def test_narrator():
    g = Game(2, 0)
    n = Narrator()
    line = n.decision_line(g, g.current_player, g.legal_actions()[0], None)
    assert line.startswith("r1") and "player" in line
    rng = random.Random(0)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
        n.phase_summary(g)
    assert "winner" in n.final_table(g) and "game over" in n.phase_summary(g)
    assert n.setup_note(g).startswith(f"layout {g.letter}") and n.score_line(g).startswith("scores:")
    assert n.table(g, 0) == str(g) and n.decision_kind(Game(2, 1)) == "turn"


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_heuristic_win_rate_vs_random(n):
    """One heuristic bot against n-1 random bots, 300 seeded games per player count (the full 1000-game
    measurement with Wilson intervals: tests/sunflower_valley/winrate.py, docs/sunflower_valley/bots.md)."""
    from .winrate import win_rate

    r = win_rate(n, 300)
    assert r["wilson95"][0] > 0.95
