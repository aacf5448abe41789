"""The heuristic bot's anticipated pick and act (envs/fields_of_green/bots/anticipation.py): the decisions are
those made without anticipating, in whole seeded games, and an anticipation applies only where nothing its
decision could read has changed."""

from __future__ import annotations

import dataclasses
import pickle
import random
import re
from pathlib import Path

import numpy as np
import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.bots import FastHeuristicBot, HeuristicBot, LiteHeuristicBot, RandomBot
from farmgames.envs.fields_of_green.bots import anticipation as A
from farmgames.envs.fields_of_green.farm import Farm
from farmgames.wrappers.single_agent import SingleAgentEnv

BOT_SOURCES = Path(A.__file__).parent


@pytest.fixture
def tally(monkeypatch):
    """Counts the anticipations checked against a real decision and those that applied."""
    seen = {"checked": 0, "applied": 0}
    applies_to = A.Anticipation.applies_to

    def spy(self, game, weights, rng):
        ok = applies_to(self, game, weights, rng)
        seen["checked"] += 1
        seen["applied"] += ok
        return ok

    monkeypatch.setattr(A.Anticipation, "applies_to", spy)
    return seen


def _play(seed: int, bot: HeuristicBot, learner: int, anticipate: bool, **variant) -> tuple[list[int], tuple]:
    """A 2-player game: a random player in seat ``learner``, ``bot`` in the other; the bot anticipates whenever
    the random player is to decide (as a worker process lets it while the learner thinks)."""
    game = Game(num_players=2, seed=seed, **variant)
    chooser = random.Random(seed)
    made = 0
    while not game.is_terminal():
        if game.current_player == learner:
            if anticipate:
                made += bot.anticipate(game, learner)
            game.apply(chooser.choice(game.legal_actions()))
        else:
            game.apply(bot.act(game))
    assert not anticipate or made > 0
    return list(game.history), bot.rng.getstate()


@pytest.mark.parametrize(
    ("make", "variant"),
    [
        (HeuristicBot, {}),
        (FastHeuristicBot, {}),
        (LiteHeuristicBot, {}),
        (HeuristicBot, {"farm_size": 5}),
        (HeuristicBot, {"fixed_split": {1: (2, 2, 1, 1), 2: (1, 2, 2, 1), 3: (2, 1, 1, 2), 4: (1, 1, 2, 2)}}),
    ],
)
def test_anticipated_decisions_are_the_decisions_made_without(tally, make, variant):
    """Whole games, each seat: the same actions and the bot's random state the same at the end, whether it
    anticipated or not; and most anticipations applied (the test would pass vacuously if none did)."""
    for seed in range(3):
        for learner in (0, 1):
            plain = _play(seed, make(seed=seed + 7), learner, False, **variant)
            ahead = _play(seed, make(seed=seed + 7), learner, True, **variant)
            assert ahead[0] == plain[0], (seed, learner)
            assert ahead[1] == plain[1], (seed, learner)
    assert tally["applied"] > 0.8 * tally["checked"] > 0, tally


def test_the_single_agent_env_anticipates_only_while_its_learner_decides(tally):
    """``SingleAgentEnv.anticipate``: True at its learner's act against the heuristic bot (2 players), False
    where nothing can be anticipated; the episodes equal those played without it."""
    kw = {"game": "fields_of_green_v0", "num_players": 2, "opponents": "heuristic"}
    plain, ahead = SingleAgentEnv(**kw), SingleAgentEnv(**kw)
    chooser = random.Random(3)
    for seed in (1, 2):
        plain.reset(seed=seed)
        ahead.reset(seed=seed)
        made = done = 0
        while not done:
            kind = ahead.game.decision_kind
            assert ahead.game.current_player == ahead.learner_seat
            made_now = ahead.anticipate()
            if kind != "act":  # only the learner's act is followed by the bot's pick
                assert made_now is False, kind
            made += made_now
            np.testing.assert_array_equal(ahead.action_masks(), plain.action_masks())
            action = chooser.choice(np.flatnonzero(ahead.action_masks()).tolist())
            a, b = plain.step(action), ahead.step(action)
            np.testing.assert_array_equal(a[0], b[0])
            assert a[1:4] == b[1:4]
            done = b[2] or b[3]
        assert made > 10
        assert ahead.anticipate() is False  # the episode is over
    assert tally["applied"] > 0
    for other in ({"opponents": "random"}, {"num_players": 4}):  # a random bot cannot; nor a 4-player game
        env = SingleAgentEnv(**{**kw, **other})
        env.reset(seed=0)
        while env.game.decision_kind != "act":
            env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.anticipate() is False, other


def _anticipated(seed: int = 4) -> tuple[Game, HeuristicBot, int]:
    """A game where seat 0 (random) is to choose its act, and the heuristic bot in seat 1 has anticipated."""
    game = Game(num_players=2, seed=seed)
    bot, other = HeuristicBot(seed=1), RandomBot(seed=2)
    while not (game.current_player == 0 and game.decision_kind == "act" and game.turn >= 2):
        game.apply((other if game.current_player == 0 else bot).act(game))
    game.legal_mask_bytes()  # (as the env leaves it: the mask kept, no list)
    state, cache = game.to_json(), game._legal_now
    assert bot.anticipate(game, 0)
    assert game.to_json() == state and game._legal_now is cache  # the game is left exactly as it was
    return game, bot, 0


def _market(game: Game) -> int:
    return next(a for a in game.legal_actions() if game.layout.decode(a)[0] == "market")


def test_an_anticipation_applies_when_only_unread_state_differs(tally):
    """The other seat's farm, the history, the discard pile and the version counters are not read: the
    anticipated pick applies after any act of the other seat that changes nothing else."""
    game, bot, seat = _anticipated()
    build = next(a for a in game.legal_actions() if game.layout.decode(a)[0] == "build")
    game.apply(build)  # not the assumed act (a market sale): another farm, history and discard
    if game.decision_kind == "act" or game.current_player == seat:  # pragma: no cover - a build with follow-ups
        pytest.skip("the build has follow-up decisions in this seed")
    fresh = HeuristicBot(seed=1)
    fresh.rng.setstate(bot.rng.getstate())
    assert bot.act(game) == fresh.act(game)
    assert tally == {"checked": 1, "applied": 1}
    assert bot.rng.getstate() == fresh.rng.getstate()


@pytest.mark.parametrize(
    "change",
    [
        "draw from the bot's generator",
        "replace the bot's weights",
        "the bot's coins",
        "the display",
        "the last silos",
        "the equipment stack",
    ],
)
def test_an_anticipation_does_not_apply_when_an_input_differs(tally, change):
    game, bot, seat = _anticipated()
    game.apply(_market(game))
    me = 1 - seat
    assert game.current_player == me and game.decision_kind == "pick"
    if change == "draw from the bot's generator":
        bot.rng.random()
    elif change == "replace the bot's weights":
        bot.w = dataclasses.replace(bot.w)  # equal numbers, another object: compared by identity
    elif change == "the bot's coins":
        game.farms[me].coins += 1
    elif change == "the display":
        game.display.reverse()
        if game.display == game.display[::-1]:  # pragma: no cover - a palindromic display
            pytest.skip("the display reads the same reversed")
    elif change == "the last silos":
        game.silos_left = 1 if game.silos_left > 1 else 2  # "any left after one more" changes
        game._legal_now = None
    elif change == "the equipment stack":
        game.equipment_stack.reverse()
        if game.equipment_stack == game.equipment_stack[::-1]:  # pragma: no cover
            pytest.skip("the stack reads the same reversed")
    game._legal_now = None
    state = bot.rng.getstate()
    fresh = HeuristicBot(seed=1, weights=bot.w)
    fresh.rng.setstate(state)
    assert bot.act(game) == fresh.act(game)
    assert tally == {"checked": 1, "applied": 0}
    assert bot.rng.getstate() == fresh.rng.getstate()


def test_supplies_compare_as_any_left_before_and_after_one_more():
    game, bot, seat = _anticipated()
    real = bot._anticipated.game.clone()
    assert A.same_inputs(bot._anticipated.game, real, seat)
    for name in A.ANY_LEFT:
        for a, b, same in ((5, 2, True), (9, 3, True), (2, 1, False), (1, 0, False), (0, 0, True)):
            x, y = bot._anticipated.game.clone(), real.clone()
            setattr(x, name, a)
            setattr(y, name, b)
            assert A.same_inputs(x, y, seat) is same, (name, a, b)


class _Peeking(HeuristicBot):
    """Reads the other seat's coins before each pick (a decision that depends on that farm)."""

    def _decide_pick(self, game, legal):
        peek = game.farms[1 - game.current_player].coins
        return super()._decide_pick(game, legal) if peek >= 0 else legal[0]


def test_a_decision_that_reads_the_hidden_farm_is_not_anticipated(tally):
    """The anticipated decision runs with the other seat's farm hidden: a read of it raises, so nothing is
    anticipated, and the games are those of the plain bot."""
    for learner in (0, 1):
        game = Game(num_players=2, seed=9)
        bot, plain = _Peeking(seed=3), _Peeking(seed=3)
        chooser = random.Random(0)
        twin = game.clone()
        made = 0
        while not game.is_terminal():
            if game.current_player == learner:
                made += bot.anticipate(game, learner)
                action = chooser.choice(game.legal_actions())
            else:
                action = bot.act(game)
                assert action == plain.act(twin)
            game.apply(action)
            twin.apply(action)
        assert made == 0
    assert tally["checked"] == 0


def test_a_pickled_bot_carries_no_anticipation():
    game, bot, seat = _anticipated()
    assert bot._anticipated is not None
    copy = pickle.loads(pickle.dumps(bot))
    assert copy._anticipated is None
    game.apply(_market(game))
    assert copy.act(game) == bot.act(game)


def test_the_listed_attributes_exist_and_the_bot_never_names_the_unread_ones():
    """The names the comparison skips or coarsens are the engine's (a rename would compare nothing); and no
    bot module reads one of the skipped game attributes (grep: a new read must move it back to the compared)."""
    game_attrs = set(A._GAME_ATTRS)
    assert set(A.NOT_READ) <= game_attrs and set(A.ANY_LEFT) <= game_attrs and "farms" in game_attrs
    assert A.FARM_NOT_READ <= set(A._FARM_ATTRS)
    assert set(A._COMPARED) | set(A.NOT_READ) | set(A.ANY_LEFT) | {"farms"} == game_attrs
    assert set(A._FARM_ATTRS) == set(getattr(Farm, "__mypyc_attrs__", None) or Farm.__slots__)
    for path in BOT_SOURCES.glob("*.py"):
        if path.name == "anticipation.py":
            continue
        text = path.read_text()
        for name in A.NOT_READ:
            assert not re.search(rf"\.{name}\b(?!\s*\()", text), f"{path.name} reads game.{name}"  # (set.discard())
