"""The built-in bots (envs/fields_of_green/bots/): legality, determinism, strength, registry, and the
heuristic bot's recorded decisions (golden games, tests/fields_of_green/data/heuristic_games.json; see the end
of this file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green import bots as bots_module
from farmgames.envs.fields_of_green.bots import (
    BOTS,
    FAST_WEIGHTS,
    LITE_WEIGHTS,
    Bot,
    FastHeuristicBot,
    HeuristicBot,
    HeuristicWeights,
    LiteHeuristicBot,
    RandomBot,
    make_bot,
    play_game,
)


def _checked_game(bots, seed, **variant):
    """Play a full game, asserting every chosen action is in the legal set at that moment."""
    seen = {"actions": 0}

    def check(game, seat, action):
        assert seat == game.current_player
        assert action in game.legal_actions(), (game.decision_kind, action, game.legal_actions())
        seen["actions"] += 1

    game = play_game(bots, seed=seed, on_action=check, **variant)
    assert game.is_terminal()
    return game, seen["actions"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_only_choose_legal_actions_in_complete_games(players):
    bots = [make_bot("heuristic" if i % 2 == 0 else "random", seed=i) for i in range(players)]
    game, count = _checked_game(bots, seed=players)
    assert count > 100
    assert all(f.actions_taken == 24 for f in game.farms)  # 6 actions in each of 4 years


def test_heuristic_plays_variants_and_small_farms():
    variants = [
        {"farm_size": 5},
        {"auto_single": True},
        {"fixed_split": {1: (2, 2, 1, 1), 2: (1, 2, 2, 1), 3: (2, 1, 1, 2), 4: (1, 1, 2, 2)}},
    ]
    for i, variant in enumerate(variants):
        bots = [HeuristicBot(seed=i), make_bot("random", seed=i), HeuristicBot(seed=i + 10)]
        _checked_game(bots, seed=20 + i, **variant)


@pytest.mark.parametrize("name", ["random", "heuristic", "heuristic_lite", "heuristic_fast"])
def test_same_seed_same_game(name):
    def history(bot_seed):
        bots = [make_bot(name, seed=bot_seed + i) for i in range(3)]
        return play_game(bots, seed=7).history

    first = history(1)
    assert first == history(1)
    if name == "random":
        assert first != history(2)


def test_heuristic_does_not_change_the_game_it_looks_at():
    game = Game(num_players=4, seed=3)
    bots = [HeuristicBot(seed=i) for i in range(4)]
    for _ in range(400):  # through draws, picks, actions and the first harvest
        if game.is_terminal():
            break
        before = game.to_json()
        action = bots[game.current_player].act(game)
        assert game.to_json() == before
        game.apply(action)


def test_heuristic_beats_random_clearly():
    """A real threshold: the heuristic must win at least 70% of 40 seeded games against random bots
    (2, 3 and 4 players, heuristic seat rotating). Chance level is 25-50%."""
    wins = 0
    games = 40
    for i in range(games):
        players = 2 + i % 3
        seat = i % players
        bots = [make_bot("heuristic" if s == seat else "random", seed=100 * i + s) for s in range(players)]
        game = play_game(bots, seed=500 + i)
        wins += seat in game.winners()
    assert wins / games >= 0.70, f"heuristic won only {wins}/{games} games against random bots"


def test_registry_and_make_bot():
    assert set(BOTS) == {"random", "heuristic", "heuristic_lite", "heuristic_fast"}
    for name in BOTS:
        bot = make_bot(name, seed=3)
        assert isinstance(bot, Bot)
        assert bot.name == name
        assert bot.seed == 3
    assert isinstance(make_bot("random"), RandomBot)
    with pytest.raises(ValueError) as err:
        make_bot("alphazero")
    assert "alphazero" in str(err.value)
    assert "heuristic" in str(err.value) and "random" in str(err.value)


@pytest.mark.parametrize("name", ["random", "heuristic", "heuristic_lite", "heuristic_fast"])
def test_bot_refuses_a_finished_game(name):
    game = play_game([make_bot("random", seed=i) for i in range(2)], seed=1)
    with pytest.raises(ValueError, match="game is over"):
        make_bot(name).act(game)


def test_heuristic_weights_can_be_overridden():
    bot = HeuristicBot(seed=0, deny=0.0, build_cells=1)
    assert bot.w.deny == 0.0 and bot.w.build_cells == 1
    game = Game(num_players=2, seed=4)
    action = bot.act(game)
    assert action in game.legal_actions()


def test_lite_bot_is_the_heuristic_with_a_narrower_search():
    """``heuristic_lite`` (docs/fields_of_green/bots.md, "A lighter search") is ``HeuristicBot`` with
    ``LITE_WEIGHTS``: fewer cells per card, one tower and silo cell, one cell per design in the draw split;
    the defaults stay the full search (the golden games below are the full bot's)."""
    full, lite = HeuristicWeights(), LiteHeuristicBot(seed=0).w
    assert lite == LITE_WEIGHTS and isinstance(LiteHeuristicBot(seed=0), HeuristicBot)
    assert (full.pick_cells, full.build_cells, full.structure_cells, full.split_cells) == (3, 3, 2, 3)
    assert lite.pick_cells < full.pick_cells and lite.build_cells < full.build_cells
    assert lite.structure_cells < full.structure_cells and lite.split_cells < full.split_cells
    assert LiteHeuristicBot(seed=0, deny=0.0).w == HeuristicWeights(**{**LITE_WEIGHTS.__dict__, "deny": 0.0})
    game, count = _checked_game([LiteHeuristicBot(seed=1), RandomBot(seed=2), LiteHeuristicBot(seed=3)], seed=9)
    assert count > 100 and set(game.winners()) & {0, 2}


def test_fast_bot_is_the_lite_search_narrowed_further():
    """``heuristic_fast`` (docs/fields_of_green/bots.md, "A cheaper search") is ``HeuristicBot`` with
    ``FAST_WEIGHTS``: the lite search, the largest market sale only, the draw split by the designs' own values.
    The defaults keep every cell, every sale and the cheap estimates."""
    full, fast = HeuristicWeights(), FastHeuristicBot(seed=0).w
    assert fast == FAST_WEIGHTS and isinstance(FastHeuristicBot(seed=0), HeuristicBot)
    assert (full.pick_pool, full.pool_in_act, full.market_sales, full.split_own) == (0, False, 0, False)
    assert (fast.pick_pool, fast.pool_in_act, fast.market_sales, fast.split_own) == (0, False, 1, True)
    changed = ("market_sales", "split_own")
    lite = {k: v for k, v in FAST_WEIGHTS.__dict__.items() if k not in changed}
    assert lite == {k: v for k, v in LITE_WEIGHTS.__dict__.items() if k in lite}
    game, count = _checked_game([FastHeuristicBot(seed=1), RandomBot(seed=2), FastHeuristicBot(seed=3)], seed=9)
    assert count > 100 and set(game.winners()) & {0, 2}


def test_fast_bot_beats_random():
    """A real threshold, as for the full bot: at least 70% of 24 seeded games (2-4 players) against random."""
    wins = 0
    for i in range(24):
        players = 2 + i % 3
        seat = i % players
        bots = [make_bot("heuristic_fast" if s == seat else "random", seed=100 * i + s) for s in range(players)]
        wins += seat in play_game(bots, seed=700 + i).winners()
    assert wins / 24 >= 0.70, f"heuristic_fast won only {wins}/24 games against random bots"


def test_split_own_values_designs_without_cells():
    """``split_own``: the draw split asks ``_split_own_value`` (one frontier cell, the best connected) and never
    the cheap estimate over cells (``_quick_card``); the default split never asks for own values."""
    seen: dict = {"own": set(), "quick": 0}
    # (spies as subclasses, not patched methods: the compiled bot calls its own methods directly)
    spies = {}
    for base in (FastHeuristicBot, HeuristicBot):

        class Spy(base):  # type: ignore[valid-type, misc]
            def _split_own_value(self, farm, card, cell, ctx, fc):
                seen["own"].add(cell)
                return super()._split_own_value(farm, card, cell, ctx, fc)

            def _quick_card(self, *args, **kwargs):
                seen["quick"] += 1
                return super()._quick_card(*args, **kwargs)

        spies[base] = Spy
    game = Game(num_players=2, seed=5)
    assert game.decision_kind == "split"
    assert spies[FastHeuristicBot](seed=0).act(game) in game.legal_actions()
    assert len(seen["own"]) == 1 and seen["quick"] == 0
    spies[HeuristicBot](seed=0).act(game)
    assert seen["quick"] > 0 and len(seen["own"]) == 1


@pytest.mark.parametrize("cells", [1, 3])
def test_split_reads_the_split_cells_weight(cells):
    """The draw split values every design on ``split_cells`` frontier cells (``_quick_card``)."""
    seen = []

    class Spy(HeuristicBot):  # (a subclass, not a patched method: the compiled bot calls its methods directly)
        def _quick_card(self, farm, card, ctx, cells=4, fc=None):
            seen.append(cells)
            return super()._quick_card(farm, card, ctx, cells, fc)

    game = Game(num_players=2, seed=5)
    assert game.decision_kind == "split"
    Spy(seed=0, split_cells=cells).act(game)
    assert seen and set(seen) == {cells}


# --------------------------------------------------------------------------------------------
# Golden games: the heuristic bot's exact choices. ``HeuristicBot`` memoises and takes shortcuts for
# speed (docs/fields_of_green/bots.md, "Speed"); these games pin its decisions to those of the plain implementation
# they were recorded with, so any change of behaviour fails here. After an *intended* change of the
# bot (or of the engine or the base card set), regenerate the file and commit it with the change:
#
#     python tests/fields_of_green/test_bots.py --regenerate-golden
#
# and say in the commit why the decisions changed.

GOLDEN = Path(__file__).resolve().parent / "data" / "heuristic_games.json"
GOLDEN_GAMES = [  # seat bots as (name, seed)
    {"num_players": 2, "seed": 101, "bots": [("heuristic", 1), ("heuristic", 2)]},
    {"num_players": 3, "seed": 102, "bots": [("heuristic", 3), ("random", 4), ("heuristic", 5)]},
    {"num_players": 4, "seed": 103, "bots": [("heuristic", 6), ("heuristic", 7), ("heuristic", 8), ("heuristic", 9)]},
]


def _golden_play(spec, make=make_bot):
    bots = [make(name, seed) for name, seed in spec["bots"]]
    game = play_game(bots, seed=spec["seed"], **spec.get("variant", {}))
    return game


def _golden_record(make=make_bot) -> dict:
    games = []
    for spec in GOLDEN_GAMES:
        game = _golden_play(spec, make)
        games.append(
            {
                **spec,
                "bots": [list(b) for b in spec["bots"]],
                "actions": game.history,
                "scores": [s.total for s in game.scores()],
            }
        )
    return {
        "format": "farmgames.heuristic_golden/1",
        "regenerate": "python tests/fields_of_green/test_bots.py --regenerate-golden",
        "games": games,
    }


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("index", range(len(GOLDEN_GAMES)))
def test_heuristic_plays_the_golden_games(golden, index):
    recorded = golden["games"][index]
    spec = GOLDEN_GAMES[index]
    assert recorded["num_players"] == spec["num_players"] and recorded["seed"] == spec["seed"]
    played = _golden_play(spec).history
    expected = recorded["actions"]
    if played != expected:
        step = next((i for i, (a, b) in enumerate(zip(played, expected)) if a != b), min(len(played), len(expected)))
        pytest.fail(
            f"golden game {index} ({spec['num_players']} players, seed {spec['seed']}) differs from step {step} "
            f"of {len(expected)}: played {played[step : step + 5]}, recorded {expected[step : step + 5]}. If the "
            f"change of behaviour is intended, regenerate tests/fields_of_green/data/heuristic_games.json "
            f"(python tests/fields_of_green/test_bots.py --regenerate-golden)."
        )


def test_heuristic_memo_tables_and_shortcuts_agree_with_the_engine(golden, monkeypatch):
    """With ``VERIFY_CACHES`` every memo hit is recomputed and every act the bot plays on its own copy of
    the farm is replayed on a full engine clone; both must agree (and give the golden decisions)."""
    monkeypatch.setattr(bots_module, "VERIFY_CACHES", True)
    assert _golden_play(GOLDEN_GAMES[0]).history == golden["games"][0]["actions"]


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--regenerate-golden"]:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(_golden_record()) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        print("usage: python tests/fields_of_green/test_bots.py --regenerate-golden")
