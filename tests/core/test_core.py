"""The shared core on its own: action and observation layouts, keywords, scoring, records, seeds, bots,
and that the conformance suite's hidden-information check can fail."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from farmgames.envs.core.actions import ActionLayout, count_vectors
from farmgames.envs.core.bots import MISS, RandomBot, lru_get, lru_put, make_bot, play_game
from farmgames.envs.core.observation import ObservationLayout, merge_runs, rotated_runs, seat_rank, viewer_order
from farmgames.envs.core.records import RecordError, check_record
from farmgames.envs.core.scoring import ranks, reward_range, rewards, winners
from farmgames.envs.core.seeding import check_seed, derive_seed
from farmgames.envs.core.spec import GameSpec
from farmgames.envs.core.variants import check_bool, check_keywords

from conformance import tiny_game


def test_action_layout_round_trips_and_refuses_bad_indices():
    layout = ActionLayout([("a", 3, "first"), ("b", 0, "empty"), ("c", 2, "last")])
    assert layout.size == 5 and layout.A == 0 and layout.C == 3
    for i in range(layout.size):
        kind, arg = layout.decode(i)
        assert layout.index(kind, arg) == i
    for bad in (-1, 5, True, 1.0):
        with pytest.raises(ValueError):
            layout.decode(bad)
    with pytest.raises(ValueError, match="out of range"):
        layout.index("c", 2)
    with pytest.raises(ValueError, match="twice"):
        ActionLayout([("a", 1, ""), ("a", 1, "")])
    assert layout.table()[2] == ("c", 3, 4, "last")
    assert len(count_vectors(4, 6)) == 210 and all(sum(v) <= 6 for v in count_vectors(4, 6))


def test_observation_layout_views_share_the_flat_buffer_and_pickle():
    layout = ObservationLayout.build([("x", ("a", "b"), (2, 3), "grid", 1.0), ("y", ("c",), (4,), "counts", 9.0)])
    buf = layout.new_buffer()
    buf.views["y"][:] = [1, 2, 3, 4]
    assert buf.flat[6:].tolist() == [1, 2, 3, 4]
    assert layout.high().tolist() == [1.0] * 6 + [9.0] * 4
    copy = pickle.loads(pickle.dumps(buf))
    copy.views["x"][0, 0] = 7.0  # the unpickled views are views of the unpickled flat buffer
    assert copy.flat[0] == 7.0 and buf.flat[0] == 0.0
    assert "| `x` | (2, 3) | a × b | grid |" in layout.markdown()


def test_seat_rotation():
    assert viewer_order(3, 1) == [1, 2, 0] and seat_rank(3, 1) == [2, 0, 1]
    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros(12, np.float32)
    for dst_a, dst_b, src_a, src_b in merge_runs(rotated_runs(4, 3, 0, 0, 2)):
        out[dst_a:dst_b] = rows.reshape(-1)[src_a:src_b]
    assert out.reshape(4, 3)[:, 0].tolist() == [6, 9, 0, 3]


def test_scoring_ranks_winners_rewards():
    assert ranks([(5, 1), (5, 1), (3, 9)]) == [1, 1, 3]
    assert winners([(5, 1), (5, 2)]) == [1]
    assert rewards("score", [4, 6], [-1, 1]) == [4.0, 6.0]
    assert rewards("margin", [4, 6], [-1, 1]) == [-2.0, 2.0]
    assert rewards("win_loss", [4, 6], [-1, 1]) == [-1.0, 1.0]
    assert reward_range("margin", 0, 10) == (-10.0, 10.0)
    with pytest.raises(ValueError, match="reward mode"):
        rewards("points", [1], [1])


def test_seeds_are_checked_and_derived_stably():
    assert check_seed(5) == 5 and check_seed(np.int64(3)) == 3
    for bad in (-1, True, 1.5, "1", None, 2**64):
        with pytest.raises(ValueError, match="seed"):
            check_seed(bad)
    assert derive_seed(1, 2) == derive_seed(1, 2) and 0 <= derive_seed(9) < 2**31


def test_keyword_checks_name_the_value_and_never_coerce():
    spec = tiny_game.SPEC
    n, game, observer, env = check_keywords(spec, 2, None, {"pile": 5, "reward": "score"})
    assert (n, game, env["reward"], env["illegal_action"]) == (2, {"pile": 5}, "score", "raise")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        check_keywords(spec, 2, None, {"illegal_action": "ignore"})
    with pytest.raises(ValueError, match="num_players must be one of 2, got 3"):
        check_keywords(spec, 3, None, {})
    with pytest.raises(ValueError, match="num_players"):
        check_keywords(spec, True, None, {})
    with pytest.raises(TypeError, match="unknown keyword 'colour'.*valid keywords are: num_players"):
        check_keywords(spec, 2, None, {"colour": 1})
    check = check_bool("perfect_recall")
    assert check(np.bool_(True)) is True
    for bad in ("no", 1, None):
        with pytest.raises(ValueError, match="perfect_recall must be True or False"):
            check(bad)


def test_record_checks():
    good = {"game": "secret_nim", "num_players": 2, "seed": 1, "variant": {}, "actions": [0, 1]}
    assert check_record(good) is good
    for field, bad in (("actions", [0, None]), ("actions", "01"), ("variant", [1]), ("seed", -3), ("game", 7)):
        with pytest.raises(RecordError, match=field if field != "actions" else "action"):
            check_record({**good, field: bad})
    with pytest.raises(RecordError, match="missing field 'seed'"):
        check_record({k: v for k, v in good.items() if k != "seed"})


def test_random_bot_and_play_loop():
    spec = tiny_game.SPEC
    game = play_game([make_bot(spec.bots, "random", 1), make_bot(spec.bots, "greedy", 2)], spec.new_game(seed=3))
    assert game.is_terminal() and sum(game.stones) == game.stones[0] + game.stones[1]
    with pytest.raises(ValueError, match="unknown bot 'smart'; valid names: greedy, random"):
        make_bot(spec.bots, "smart")
    with pytest.raises(ValueError, match="bot seed"):
        RandomBot(seed=1.5)  # type: ignore[arg-type]
    table: dict = {}
    for i in range(20):
        lru_put(table, i, i * i, cap=8)
    assert len(table) <= 8 and lru_get(table, 19) == 361 and lru_get(table, 0) is MISS


def test_spec_checks_player_range():
    with pytest.raises(ValueError, match="not a range"):
        GameSpec(
            name="x",
            version=0,
            gym_name="X",
            title="X",
            min_players=3,
            max_players=2,
            new_game=object,
            new_observer=object,
            from_json=object,
            bounds=object,
        )


class _LeakyObserver(tiny_game.Observer):
    """Writes the other player's secret bonus: the conformance check must catch it."""

    def fill(self, game, seat, buffer):
        super().fill(game, seat, buffer)
        buffer.views["bonus"][0] = game.bonus[1 - seat]


def test_hidden_information_check_catches_a_leak():
    spec = tiny_game.SPEC
    game = spec.new_game(seed=0)
    rng = random.Random(0)
    honest, leaky = spec.new_observer(game), _LeakyObserver(game)
    other = spec.hidden_perturbation(game, 0, rng)
    for obs, should_differ in ((honest, False), (leaky, True)):
        a, b = obs.new_buffer(), obs.new_buffer()
        obs.fill(game, 0, a)
        obs.fill(other, 0, b)
        assert (not np.array_equal(a.flat, b.flat)) is should_differ
