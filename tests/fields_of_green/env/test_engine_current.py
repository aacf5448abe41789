"""``Game.current_player`` is a slot (speed), written where the machine stops; here against its plain reading.

The plain reading is the seat of the top decision frame, None once the stack is empty. The slot is written by
``_advance``, ``apply``'s pick path and ``clone``, and re-read from the stack whenever ``_legal`` is reset,
which every edit of the state from outside the engine does: a loaded state, a scenario, the heuristic bot's
hypothetical act (it pushes an ``("act", p)`` frame onto a clone), the information-state resampler and the
hidden-card perturbation. Each of those is checked below, and pickles and deep copies keep the slot.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.bots.heuristic import HeuristicBot
from farmgames.envs.fields_of_green.hidden import hidden_perturbation
from farmgames.envs.fields_of_green.scenario import scenario

FIXED = {y: (2, 2, 1, 1) for y in range(1, 5)}  # FOG-RUL-3


def _plain(game: Game) -> int | None:
    return game._stack[-1][1] if game._stack else None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_current_player_is_the_top_frames_seat_after_every_decision(players):
    checked = 0
    for seed in range(6):
        kw: dict = {"auto_single": seed % 2 == 1}
        if seed % 3 == 2:
            kw["fixed_split"] = FIXED
        game = Game(num_players=players, seed=seed, **kw)
        rng = random.Random(seed)
        while True:
            assert game.current_player == _plain(game), (seed, game.decision)
            checked += 1
            if rng.random() < 0.05:
                copies = [game.clone(), Game.from_json(game.to_json()), pickle.loads(pickle.dumps(game))]
                for other in [*copies, copy.deepcopy(game)]:
                    assert other.current_player == _plain(other) == game.current_player
            if game.is_terminal():
                break
            if rng.random() < 0.5:
                game.legal_mask_bytes()
            legal = list(game._compute_legal())
            game.apply(legal[rng.randrange(len(legal))])
        assert game.current_player is None
    assert checked > 500


def test_resetting_legal_from_outside_reads_the_stack_again():
    """What the heuristic bot does on a clone: push a decision frame, reset _legal, read current_player."""
    game = Game(num_players=4, seed=1)
    while game.decision_kind != "pick":
        game.apply(game.legal_actions()[0])
    g = game.clone()
    other = (g.current_player + 1) % 4
    g._stack.append(("act", other))
    g._legal = None
    assert g.current_player == other == _plain(g)
    g._stack.clear()
    g._legal = None
    assert g.current_player is None
    g._stack.append(("year",))  # a continuation on top (a scenario before its _advance): no seat
    g._legal = None
    assert g.current_player is None


def test_heuristic_bots_hypothetical_acts_and_clones_name_the_right_seat():
    found = 0
    for seed, players in ((0, 3), (1, 4), (2, 2)):
        game = Game(num_players=players, seed=seed)
        rng = random.Random(seed)
        while not game.is_terminal() and found < 60:
            if game.decision_kind == "pick":
                p = game.current_player
                for action in game.legal_actions()[:2]:
                    g = HeuristicBot._hypothetical_act(game, p, action)
                    if g is not None:
                        assert g.current_player == _plain(g) == p
                        found += 1
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert found >= 60


def test_resampled_perturbed_and_scenario_states_name_the_right_seat():
    for seed, players in ((3, 2), (4, 3), (5, 4)):
        game = Game(num_players=players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not game.is_terminal():
            if steps % 17 == 0:
                viewer = steps % players
                resampled = game.resample_from_infostate(viewer, random.Random(steps))
                assert resampled.current_player == _plain(resampled) == game.current_player
                perturbed = hidden_perturbation(game, viewer, random.Random(steps))
                if perturbed is not None:
                    assert perturbed.current_player == _plain(perturbed)
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            steps += 1
    for decision in (("split", 1), [("harvest", 2), ("harvest", 0)], [("split", 2), ("split", 0)]):
        game = scenario(num_players=3, decision=decision)
        assert game.current_player == _plain(game)
