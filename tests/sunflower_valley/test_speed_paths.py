"""Every speed path of the Sunflower Valley engine and observer against its plain path.

* ``Game.legal_action_array`` (marker words + ``bytes.translate``, cached per state), ``legal_actions`` and
  ``legal_mask_bytes`` (spread hex mask x symbol pattern) equal ``legal_actions_plain`` (the per-row id
  tables) at every state of random games, 2-5 players, both variants, fallback turns included; copies
  (clone, pickle, deepcopy, JSON) never share a stale cache.
* ``apply``'s decode table ``MOVES`` equals ``actions.decode``, and ``apply`` accepts exactly the plain legal
  set (SV-TURN-1..7).
* ``Observer.fill``: the one-turn update (``_advance``), the per-(layout, pad) blocks of a new game, the
  hex-by-hex resync and the precomputed copy runs equal a numpy rebuild (``force_full=True``) at every step,
  also through the AEC env after pickling, deepcopy, ``load_game`` and clones.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from farmgames.envs import sunflower_valley_v0
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.sunflower_valley.actions import (
    F_SUPER,
    FACE_OF,
    HOUSE,
    NUM_ACTIONS,
    SUNFLOWER,
    SUPER,
    SYMBOLS_OF,
    decode,
)
from farmgames.envs.sunflower_valley.game import MOVES, Game, legal_actions_plain
from farmgames.envs.sunflower_valley.observer import Observer
from farmgames.envs.sunflower_valley.scenario import scenario
from farmgames.envs.sunflower_valley.scoring import EMPTY, MOUNTAIN_CELL
from farmgames.envs.sunflower_valley.sheets import LAYOUTS, LETTERS, PADS

from .helpers import EXAMPLE_13, picture

CASES = [(n, children) for n in (2, 3, 4, 5) for children in (False, True)]


def random_games(n: int, children: bool, games: int, seed: int):
    """Every state (the Game object itself, advanced in place) of ``games`` random games."""
    rng = random.Random(seed)
    for k in range(games):
        g = Game(n, seed * 1000 + k, children=children)
        while True:
            yield g
            if g.is_terminal():
                break
            g.apply(rng.choice(legal_actions_plain(g)))


def plain_view(game: Game, seat: int) -> np.ndarray:
    """``seat``'s observation from a new observer's numpy rebuild (the plain path)."""
    o = Observer(game)
    b = o.new_buffer()
    o.fill(game, seat, b, force_full=True)
    return b.flat.copy()


# ---------------------------------------------------------------------------------------------- legal actions


@pytest.mark.parametrize(("n", "children"), CASES)
def test_legal_action_array_equals_the_plain_legal_list(n, children):
    fallbacks = 0
    for g in random_games(n, children, 12, n):
        array = g.legal_action_array()
        plain = legal_actions_plain(g)
        assert array.dtype == np.intp and array.ndim == 1 and not array.flags.writeable
        assert array.tolist() == plain  # same ids, same (ascending) order
        assert g.legal_actions() == plain
        assert g.legal_action_array() is array  # cached: computed once per state
        fresh = g.legal_actions()
        fresh.append(-1)  # a fresh list each call: changing it changes nothing in the game
        assert g.legal_actions() == plain
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[plain] = 1
        assert np.array_equal(g.legal_mask(), mask)
        mask_bytes = g.legal_mask_bytes()  # the spread-mask product, cached per state too
        assert isinstance(mask_bytes, bytes) and mask_bytes == mask.tobytes()
        assert g.legal_mask_bytes() is mask_bytes
        fallbacks += g.fallback()
    assert fallbacks or n == 2  # the fallback path (SV-TURN-6) is exercised too


def test_legal_cache_is_per_state_and_not_shared_by_copies():
    rng = random.Random(7)
    for g in random_games(4, False, 3, 7):
        if g.is_terminal():
            assert g.legal_action_array().size == 0 and g.legal_actions() == []
            assert g.legal_mask_bytes() == bytes(NUM_ACTIONS)
            continue
        array = g.legal_action_array()
        copies = [g.clone(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g), Game.from_json(g.to_json())]
        mask_bytes = g.legal_mask_bytes()
        for c in copies:
            a = c.legal_action_array()
            assert a.tolist() == array.tolist() and not a.flags.writeable
            assert c.legal_mask_bytes() == mask_bytes
        c = copies[0]
        c.apply(rng.choice(c.legal_actions()))  # the clone moves on ...
        assert c.legal_actions() == legal_actions_plain(c)
        assert g.legal_action_array() is array and array.tolist() == legal_actions_plain(g)  # ... g does not
        assert [a for a, x in enumerate(c.legal_mask_bytes()) if x] == legal_actions_plain(c)
        assert g.legal_mask_bytes() is mask_bytes


def test_scenario_and_json_states_list_the_plain_legal_set():
    g = scenario(
        3,
        letter="A",
        sheets={0: picture("A", **EXAMPLE_13)},
        pool={"curved rail": 2, "house": 1, "sheep": 3},
        current=0,
    )
    assert g.legal_actions() == legal_actions_plain(g) and g.legal_actions()
    for letter in LETTERS:
        h = Game(5, 3, letter=letter)
        assert Game.from_json(h.to_json()).legal_actions() == legal_actions_plain(h)


def test_faces_draw_consecutive_symbols_in_face_order():
    """``legal_mask_bytes`` repeats the hex bytes per face: 1, 1, 1, 1, 3 and 6 symbols, in order."""
    assert [s for symbols in SYMBOLS_OF for s in symbols] == list(range(13))
    assert [len(symbols) for symbols in SYMBOLS_OF] == [1, 1, 1, 1, 3, 6]


def test_setup_copies_of_the_blank_sheets_are_fresh_and_plain():
    """Setup copies each layout's blank sheet (mountains, empty hexes) per player: the same as building it
    hex by hex (SV-SHEET-3, SV-SETUP-3), and never shared between players or games."""
    for letter, layout in LAYOUTS.items():
        g = Game(5, 1, letter=letter)
        for p, sheet in enumerate(g.sheets):
            plain = [MOUNTAIN_CELL if c < 0 else EMPTY for c in layout.colour]
            plain[PADS[g.pads[p]].hex] = HOUSE
            assert sheet == plain
        assert len({id(sheet) for sheet in g.sheets}) == 5
        g.apply(g.legal_actions()[0])
        h = Game(5, 1, letter=letter)
        changed = [p for p in range(5) if h.sheets[p] != g.sheets[p]]
        assert len(changed) == 1  # only the mover's sheet, in g only


def test_moves_table_decodes_like_actions():
    for a in range(NUM_ACTIONS):
        h, bit, s, f, gain, k = MOVES[a]
        d = decode(a)
        assert bit == 1 << h
        if d[0] == "normal":
            assert (s, h, f, k) == (d[1], d[2], FACE_OF[d[1]], -1)
            assert gain == (2 if s == HOUSE else 1 if s == SUPER else 0)  # SV-SYM-2/3
        else:
            assert (f, k, h) == d[1:]
            assert (s, gain) == ((SUPER, 1) if f == F_SUPER else (SUNFLOWER, 0))  # SV-TURN-7


def test_apply_accepts_exactly_the_plain_legal_set():
    checked = 0
    for g in random_games(3, True, 2, 5):
        if len(g.history) % 9 and not g.fallback():
            continue
        legal = set(legal_actions_plain(g))
        for a in range(NUM_ACTIONS):
            c = g.clone()
            try:
                c.apply(a)
            except IllegalActionError:
                assert a not in legal and c == g  # rejected with the state untouched
            else:
                assert a in legal
                checked += 1
    assert checked > 100


# ---------------------------------------------------------------------------------------------- observer


@pytest.mark.parametrize(("n", "children"), CASES)
def test_incremental_fill_equals_the_numpy_rebuild_at_every_step(n, children):
    """The mover is filled one turn later each time (the env's pattern, ``_advance``), another seat at the
    same state (copy runs only), and every seat at the end."""
    o = Observer(num_players=n)
    bufs = [o.new_buffer() for _ in range(n)]
    rng = random.Random(n)
    for g in random_games(n, children, 4, 10 + n):
        seats = range(n) if g.is_terminal() else (g.current, rng.randrange(n))
        for seat in seats:
            o.fill(g, seat, bufs[seat])
            assert np.array_equal(bufs[seat].flat, plain_view(g, seat)), (len(g.history), seat)


def test_skipped_states_resync_and_new_games_use_the_fresh_blocks():
    rng = random.Random(3)
    o = Observer(num_players=4)
    buf = o.new_buffer()
    for k in range(12):
        g = Game(4, k, children=k % 2 == 1)
        o.fill(g, k % 4, buf)  # a new game: the per-(layout, pad) blocks
        assert np.array_equal(buf.flat, plain_view(g, k % 4))
        while not g.is_terminal():
            for _ in range(rng.choice([1, 2, 3])):  # two or three turns: the resync path
                if not g.is_terminal():
                    g.apply(rng.choice(g.legal_actions()))
            seat = rng.randrange(4)
            o.fill(g, seat, buf)
            assert np.array_equal(buf.flat, plain_view(g, seat))


def test_fresh_blocks_cover_every_layout_and_pad_and_hand_made_sheets_take_numpy():
    for letter in LAYOUTS:
        for seed in range(4):
            g = Game(5, seed, letter=letter)  # five pads: every unused letter of the layout in turn
            for seat in range(5):
                o = Observer(g)
                b = o.new_buffer()
                o.fill(g, seat, b)
                assert np.array_equal(b.flat, plain_view(g, seat))
    g = scenario(2, letter="A", sheets={1: picture("A", **EXAMPLE_13)})  # drawn sheets: the numpy path
    o = Observer(g)
    b = o.new_buffer()
    o.fill(g, 1, b)
    assert np.array_equal(b.flat, plain_view(g, 1))


def test_switching_between_a_game_and_its_clone_rebuilds():
    rng = random.Random(9)
    g = Game(3, 9)
    o = Observer(g)
    b = o.new_buffer()
    for _ in range(20):
        g.apply(rng.choice(g.legal_actions()))
    c = g.clone()
    c.apply(rng.choice(c.legal_actions()))
    for game in (g, c, g, c):
        game.apply(rng.choice(game.legal_actions()))
        o.fill(game, game.current, b)
        assert np.array_equal(b.flat, plain_view(game, game.current))


def test_a_mismatched_last_action_falls_back_to_the_resync():
    """``_advance`` trusts nothing it cannot check: a history that grew by one without the seat to move
    drawing that hex (a hand-made edit) is diffed hex by hex instead."""
    rng = random.Random(4)
    g = Game(2, 4)
    o = Observer(g)
    b = o.new_buffer()
    o.fill(g, 0, b)
    h = Game(2, 4)
    h.apply(rng.choice(h.legal_actions()))
    g.__dict__.update(h.clone().__dict__)  # same object, the state of another game one turn later
    g.history[-1] = (g.history[-1] + 1) % NUM_ACTIONS
    o.fill(g, 0, b)
    assert np.array_equal(b.flat, plain_view(g, 0))


def _check_env(env, rng: random.Random, steps: int) -> None:
    """Play ``steps`` masked random steps, comparing each observation with the plain view."""
    for _ in range(steps):
        if not env.agents:
            return
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        game = env.unwrapped.game
        seat = env.unwrapped.agent_name_mapping[agent]
        flat = np.concatenate([obs["observation"][e.name].reshape(-1) for e in env.unwrapped.observer.layout.entries])
        assert np.array_equal(flat, plain_view(game, seat))
        if term or trunc:
            env.step(None)
            continue
        plain = np.zeros(NUM_ACTIONS, np.int8)
        plain[legal_actions_plain(game)] = 1
        assert np.array_equal(obs["action_mask"], plain)
        env.step(int(rng.choice(np.flatnonzero(plain))))


@pytest.mark.parametrize(("n", "children"), [(2, True), (4, False), (5, True)])
def test_env_observations_equal_the_plain_view_through_copies_and_loads(n, children):
    rng = random.Random(n)
    env = sunflower_valley_v0.env(num_players=n, children=children)
    env.reset(seed=n)
    _check_env(env, rng, 15)
    for make_copy in (pickle.loads, copy.deepcopy):
        twin = make_copy(pickle.dumps(env)) if make_copy is pickle.loads else make_copy(env)
        _check_env(twin, random.Random(1), 10)  # the copy's own observer, rebuilt then incremental
        _check_env(env, rng, 5)  # the original is unaffected
    raw = env.unwrapped
    later = raw.game.clone()
    for _ in range(7):
        if not later.is_terminal():
            later.apply(rng.choice(later.legal_actions()))
    raw.load_game(later)
    _check_env(env, rng, 10)
    raw.load_game(Game.from_json(raw.game.to_json()))
    _check_env(env, rng, 400)  # to the end (every seat observes the final state)
