"""The Fields of Green observer's skip logic against the plain path (docs/profiling.md, eighth pass).

A buffer's fill plan remembers what the buffer holds (cache epoch and change stamp, seat, hand, visible picks,
decision key), and :meth:`Observer.fill` rewrites only what differs. The env alternates two buffers per seat
in a fixed order; here buffers are filled out of order, sparsely, for changing seats, from clones and loaded
states, so that every "the buffer already holds it" shortcut meets a buffer that holds something else.
Each fill is compared, array for array, with ``fill(force_full=True)`` of a second observer and with the
plain numpy reference of ``test_observer_fast`` (which shares no code with the observer). Also: the
per-step functions hold no closure cells and the observer keeps no instance-dict attributes.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green import observer as observer_module
from farmgames.envs.fields_of_green.cards import HAND_SIZE
from farmgames.envs.fields_of_green.observer import Observer

from .test_observer_fast import plain_private, plain_public


class _Pair:
    """A game observed by the observer under test and by a reference observer that gets the same
    perfect-recall hooks (so that "passed" can be compared too)."""

    def __init__(self, game: Game, perfect_recall: bool):
        self.game = game
        self.obs = Observer(game, perfect_recall=perfect_recall)
        self.ref = Observer(game, perfect_recall=perfect_recall)
        self.ref_buf = self.ref.new_buffer()
        # perfect recall, the plain way (FOG-INFO-3): (year, seat, turn) -> the designs of the hand passed on
        self.passed: dict[tuple[int, int, int], list[int]] = {}

    def step(self, rng: random.Random) -> None:
        game = self.game
        action = rng.choice(game.legal_actions())
        seat = game.current_player
        tokens = [o.before_apply(game, seat, action) for o in (self.obs, self.ref)]
        if game.decision_kind == "pick" and game.num_players > 2:
            hand = list(game.hands[seat])
            del hand[action - game.layout.PICK]
            designs = [game.cards.locations[card].design for card in hand]
            self.passed[(game.year, seat, game.turn)] = designs
        game.apply(action)
        for o, token in zip((self.obs, self.ref), tokens):
            o.after_apply(token)

    def check(self, game: Game, seat: int, buf, where: str) -> None:
        self.obs.fill(game, seat, buf)
        self.ref.fill(game, seat, self.ref_buf, force_full=True)
        got, want = buf.views, self.ref_buf.views
        bad = [k for k in want if not np.array_equal(want[k], got[k])]
        assert not bad, f"{where}, seat {seat}: differs from fill(force_full=True) in {bad}"
        plain = {**plain_public(game, seat), **plain_private(game, seat)}
        if self.obs.perfect_recall:
            passed = np.zeros_like(got["passed"])
            for turn in range(1, passed.shape[0] + 1):
                for design in self.passed.get((game.year, seat, turn), []):
                    passed[turn - 1, design] += 1
            plain["passed"] = passed
        bad = [k for k in plain if not np.array_equal(plain[k], got[k])]
        assert not bad, f"{where}, seat {seat}: differs from the plain reference in {bad}"


CASES = [
    (2, 9, False),
    (2, 9, True),
    (3, 9, False),
    (3, 9, True),
    (4, 9, False),
    (4, 9, True),
    (3, 23, True),  # v1's grid
    (4, 23, False),
]


@pytest.mark.parametrize("players, farm_size, recall", CASES)
def test_buffers_filled_out_of_order_equal_the_plain_path(players: int, farm_size: int, recall: bool) -> None:
    """Five buffers shared by every seat, each refilled at random moments for a random seat (mostly the
    deciding one, as the env does), including the same buffer twice in a row and buffers left alone for
    many steps."""
    rng = random.Random(players * 100 + farm_size + recall)
    checked = 0
    for seed in range(2):
        pair = _Pair(Game(num_players=players, seed=40 + seed, farm_size=farm_size), recall)
        bufs = [pair.obs.new_buffer() for _ in range(5)]
        game = pair.game
        while not game.is_terminal():
            if rng.random() < 0.45:
                buf = rng.choice(bufs)
                seat = game.current_player if rng.random() < 0.7 else rng.randrange(players)
                pair.check(game, seat, buf, f"seed {40 + seed}, step {len(game.history)}")
                checked += 1
                if rng.random() < 0.1:  # the same buffer again at once (everything skipped)
                    pair.check(game, seat, buf, f"seed {40 + seed}, step {len(game.history)}, again")
            pair.step(rng)
        for seat in range(players):  # the final state
            pair.check(game, seat, rng.choice(bufs), f"seed {40 + seed}, end")
    assert checked > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_clones_and_loaded_states_share_buffers_with_the_original(players: int) -> None:
    """The observer switches between the game, a clone played on, a JSON round trip and back: every switch
    is a new game to the caches, and a buffer last filled from another game must be rewritten."""
    rng = random.Random(players)
    pair = _Pair(Game(num_players=players, seed=7), perfect_recall=False)
    game = pair.game
    bufs = [pair.obs.new_buffer() for _ in range(3)]
    checked = 0
    while not game.is_terminal():
        seat = game.current_player
        pair.check(game, seat, rng.choice(bufs), f"step {len(game.history)}")
        checked += 1
        if rng.random() < 0.05:
            twin = game.clone() if rng.random() < 0.5 else Game.from_json(game.to_json())
            for _ in range(rng.randrange(1, 6)):
                if twin.is_terminal():
                    break
                twin.apply(rng.choice(twin.legal_actions()))
            for buf in rng.sample(bufs, 2):
                pair.check(twin, rng.randrange(players), buf, f"step {len(game.history)}, twin")
        pair.step(rng)
    assert checked > 100


def _pick_then_own_pick(obs: Observer, game: Game) -> tuple[int, np.ndarray]:
    """Fill a buffer for the next seat while another seat picks, then again at that seat's own pick."""
    while game.decision_kind != "pick":
        game.apply(game.legal_actions()[0])
    seat = (game.current_player + 1) % game.num_players
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)  # someone else's pick: "yours" clear
    game.apply(game.legal_actions()[0])
    assert game.decision_kind == "pick" and game.current_player == seat
    obs.fill(game, seat, buf)  # the viewer's own pick: "yours" set
    return seat, buf.views["decision"]


@pytest.mark.parametrize("broken", [False, True])
def test_a_wrong_skip_key_would_be_caught(monkeypatch: pytest.MonkeyPatch, broken: bool) -> None:
    """The comparisons above can fail: with the viewer's own decisions keyed like someone else's (so that a
    buffer holding another seat's pick looks current at the viewer's own pick), the plain reference
    disagrees; with the real keys it agrees."""
    game = Game(num_players=3, seed=3)
    obs = Observer(game)
    if broken:
        monkeypatch.setattr(obs, "_own_key", {kind: kind for kind in obs._own_key})
    seat, seen = _pick_then_own_pick(obs, game)
    assert np.array_equal(plain_private(game, seat)["decision"], seen) is not broken


def test_the_observer_keeps_its_attributes_in_slots() -> None:
    """CPython 3.11 reads ``self.x`` from inline values only up to 30 instance-dict keys (the observer has
    ~90 attributes): every one is a slot (compiled, a native attribute), and there is no instance dict."""
    game = Game(num_players=4, seed=0)
    obs = Observer(game, perfect_recall=True)
    buf = obs.new_buffer()
    for _ in range(60):
        obs.fill(game, game.current_player, buf)
        game.apply(game.legal_actions()[-1])
    assert not hasattr(obs, "__dict__")
    assert not hasattr(buf.plan, "__dict__")


def test_the_per_step_functions_hold_no_cells() -> None:
    """A local read by a comprehension or lambda is a cell allocated on every call (CPython 3.11; compiled
    functions have no code object and allocate no cells: they are passed over)."""
    hot = [
        Observer.fill,
        Observer._sync,
        Observer._sync_public,
        Observer._sync_farm,
        Observer._sync_harvested,
        Observer._sync_discard,
        Observer._fill_context,
    ]
    code = [(f.__qualname__, f.__code__) for f in hot if hasattr(f, "__code__")]
    assert [name for name, c in code if c.co_cellvars or c.co_freevars] == []
    assert observer_module._STALE != 0 and observer_module._STALE is not None  # equal to no part's key


@pytest.mark.parametrize("players", [2, 4])
def test_the_hand_block_equals_the_plain_rows_for_every_hand_size(players: int) -> None:
    """fill spells out the hand's six slots over the hand padded with the empty slot's index: for 0 to 6
    cards (in any order, the same card twice) the block is the plain row-by-row one, present flag, card
    features and design one-hot, then empty slots; a seventh card is refused (FOG-ACT-8: at most six)."""
    game = Game(num_players=players, seed=5)
    obs = Observer(game)
    buf = obs.new_buffer()
    seat = game.current_player
    rng = random.Random(players)
    ncards = len(game.cards.locations)
    held = game.display if players == 2 else game.hands[seat]
    for k in [*range(HAND_SIZE + 1)] * 3 + [HAND_SIZE, 0, 3]:
        held[:] = [rng.randrange(ncards) for _ in range(k)]
        obs.invalidate()  # (a game edited by hand)
        obs.fill(game, seat, buf)
        assert np.array_equal(buf.views["hand"], plain_private(game, seat)["hand"]), held
        obs.fill(game, seat, buf)  # the same hand again: skipped, still equal
        assert np.array_equal(buf.views["hand"], plain_private(game, seat)["hand"]), held
    held[:] = list(range(HAND_SIZE + 1))
    obs.invalidate()
    with pytest.raises(ValueError, match="does not fit"):
        obs.fill(game, seat, buf)


def test_a_fill_that_raised_half_way_is_not_trusted() -> None:
    """A fill that raises (here at the hand, through a broken table) after writing some parts of a newer
    state leaves the buffer's stamp and the later parts' keys as they were: the next fill of that state
    writes everything it skipped (the plan's epoch token is set before the parts are written)."""
    game = Game(num_players=4, seed=11)
    rng = random.Random(11)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    obs = Observer(game)
    buf = obs.new_buffer()
    seat = game.current_player
    obs.fill(game, seat, buf)
    for _ in range(200):
        game.apply(rng.choice(game.legal_actions()))
        if game.current_player == seat and game.hands[seat] != buf.plan.hand:
            break
    pad, obs._hand_pad = obs._hand_pad, []
    with pytest.raises(IndexError):
        obs.fill(game, seat, buf)
    obs._hand_pad = pad
    obs.fill(game, seat, buf)
    ref = Observer(game)
    ref_buf = ref.new_buffer()
    ref.fill(game, seat, ref_buf, force_full=True)
    assert [k for k in ref_buf.views if not np.array_equal(ref_buf.views[k], buf.views[k])] == []
    plain = {**plain_public(game, seat), **plain_private(game, seat)}
    assert [k for k in plain if not np.array_equal(plain[k], buf.views[k])] == []


def test_the_public_block_is_one_join_of_adjacent_runs_in_the_viewers_order() -> None:
    """fill writes discard .. game as one b"".join of byte views of the seat-ordered caches: the runs are
    adjacent, cover exactly those entries, and the joined bytes are the plain rotation of every seat's
    rows (players, draw_counts) followed by the game features."""
    game = Game(num_players=4, seed=9)
    rng = random.Random(9)
    for _ in range(150):
        game.apply(rng.choice(game.legal_actions()))
    obs = Observer(game)
    entry = obs.layout.entry
    for seat in range(4):
        buf = obs.new_buffer()
        obs.fill(game, seat, buf)
        start, end = entry["discard"].start, entry["game"].start + entry["game"].size
        assert buf.plan.public.nbytes == 4 * (end - start)
        plain = plain_public(game, seat)
        want = np.concatenate([plain[k].reshape(-1) for k in ("discard", "players", "draw_counts", "game")])
        assert np.array_equal(np.frombuffer(b"".join(buf.plan.public_srcs), np.float32), want)


@pytest.mark.parametrize("players, farm_size", [(2, 9), (3, 9), (4, 9), (4, 23)])
def test_the_frontier_changes_only_around_new_cards(players: int, farm_size: int) -> None:
    """What _sync_farm's buildable plane relies on (FOG-FARM-3): between two states the frontier changes only
    at the cards placed in between and their orthogonal neighbours, and only occupied's end grows."""
    rng = random.Random(players + farm_size)
    for seed in range(3):
        game = Game(num_players=players, seed=seed, farm_size=farm_size)
        near = game.geometry.neighbours
        while not game.is_terminal():
            before = [(list(f.occupied), set(f.frontier)) for f in game.farms]
            game.apply(rng.choice(game.legal_actions()))
            for farm, (occupied, frontier) in zip(game.farms, before):
                assert farm.occupied[: len(occupied)] == occupied
                new = farm.occupied[len(occupied) :]
                allowed = set(new).union(*(near[c] for c in new))
                assert farm.frontier ^ frontier <= allowed, (seed, len(game.history))
