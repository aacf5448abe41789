"""The observer's incremental ``fill`` (a master copy in seat order, rewritten part by part, memoryview copies)
gives exactly the values of ``fill_plain``, which computes every value from the state.

Compared for every seat in every state of random games (2-4 players), with one observer and two buffers
per seat as the env uses them, with buffers shared between seats, with one observer switching between
games, and through the env (``observe`` of every agent after every step).
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from farmgames.envs import key_harvest_v0
from farmgames.envs.key_harvest.game import Game
from farmgames.envs.key_harvest.hidden import hidden_perturbation
from farmgames.envs.key_harvest.observer import Observer


def plain(obs: Observer, game: Game, seat: int) -> np.ndarray:
    buf = obs.new_buffer()
    obs.fill_plain(game, seat, buf)
    return buf.flat


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fill_equals_plain_fill_every_seat_every_state(n):
    for seed in range(3):
        g = Game(n, 300 + seed)
        obs = Observer(g)
        bufs = [[obs.new_buffer(), obs.new_buffer()] for _ in range(n)]
        rng = random.Random(seed)
        step = 0
        while True:
            for seat in range(n):
                buf = bufs[seat][step & 1]
                obs.fill(g, seat, buf)
                assert np.array_equal(buf.flat, plain(obs, g, seat)), (n, seed, step, seat)
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_actions()))
            step += 1


def test_fill_with_buffers_shared_between_seats_and_games():
    """One buffer filled for changing seats, one observer switching between two games and a perturbed clone."""
    rng = random.Random(7)
    a, b = Game(4, 11), Game(4, 12)
    obs = Observer(a)
    buf = obs.new_buffer()
    for _ in range(400):
        for g in (a, b):
            if g.is_terminal():
                continue
            seat = rng.randrange(4)
            obs.fill(g, seat, buf)
            assert np.array_equal(buf.flat, plain(obs, g, seat))
            other = hidden_perturbation(g, seat, rng)
            if other is not None:
                obs.fill(other, seat, buf)
                assert np.array_equal(buf.flat, plain(obs, other, seat))
            g.apply(rng.choice(g.legal_actions()))


def test_fill_equals_plain_after_pickling_the_observer():
    g = Game(3, 4)
    obs = Observer(g)
    buf = obs.new_buffer()
    obs.fill(g, 1, buf)
    copy = pickle.loads(pickle.dumps(obs))
    rng = random.Random(4)
    for _ in range(60):
        g.apply(rng.choice(g.legal_actions()))
    copy.fill(g, 1, buf)
    assert np.array_equal(buf.flat, plain(obs, g, 1))


@pytest.mark.parametrize("reuse", [False, True])
def test_env_observations_equal_plain_fill(reuse):
    env = key_harvest_v0.raw_env(num_players=4, reuse_buffers=reuse)
    rng = random.Random(1)
    for seed in (0, 1):
        env.reset(seed=seed)
        while not env.game.is_terminal():
            for agent in env.agents:
                seat = env.agent_name_mapping[agent]
                obs = env.observe(agent)["observation"]
                flat = np.concatenate([obs[e.name].reshape(-1) for e in env.observer.layout.entries])
                assert np.array_equal(flat, plain(env.observer, env.game, seat))
            env.step(rng.choice(env.game.legal_actions()))


def test_reset_after_a_hand_edit():
    """Direct writes are not in the change log: after Observer.reset the next fill shows them."""
    g = Game(4, 9)
    obs = Observer(g)
    buf = obs.new_buffer()
    obs.fill(g, 0, buf)
    g.stock[0] -= 1  # a hand edit (scenarios do this before load_game, which resets the observer)
    g.supply[0][0] += 1
    obs.reset(g)
    obs.fill(g, 0, buf)
    assert np.array_equal(buf.flat, plain(obs, g, 0))


def _flat(env, agent: str) -> np.ndarray:
    obs = env.observe(agent)["observation"]
    return np.concatenate([obs[e.name].reshape(-1) for e in env.unwrapped.observer.layout.entries])


def _check_all_seats(env) -> None:
    u = env.unwrapped
    for agent in u.agents:
        seat = u.agent_name_mapping[agent]
        assert np.array_equal(_flat(u, agent), plain(u.observer, u.game, seat)), (len(u.game.history), seat)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("copy", ["pickle", "deepcopy"])
def test_env_copies_load_game_and_clones_fill_like_plain(n, copy):
    """Copies of an env (pickle, deepcopy) mid-game, load_game of a clone and of another game's state: every
    seat's observation in every later state equals the plain fill, in the copy and in the original."""
    import copy as copy_module

    env = key_harvest_v0.raw_env(num_players=n)
    env.reset(seed=20 + n)
    rng = random.Random(n)
    other = Game(n, 99)
    for step in range(240):
        if env.game.is_terminal():
            break
        _check_all_seats(env)
        if step == 40:
            twin = pickle.loads(pickle.dumps(env)) if copy == "pickle" else copy_module.deepcopy(env)
            _check_all_seats(twin)
            twin.step(rng.choice(twin.game.legal_actions()))  # the copy moves on, the original does not
            _check_all_seats(twin)
            _check_all_seats(env)
        if step == 80:
            env.load_game(env.game.clone())
        if step == 120:
            for _ in range(30):
                if not other.is_terminal():
                    other.apply(rng.choice(other.legal_actions()))
            env.load_game(other.clone())
        env.step(rng.choice(env.game.legal_actions()))


def test_fill_after_fill_plain_and_other_observers():
    """A buffer written by fill_plain or by another observer since this observer's last fill is rewritten
    whole, the viewer's own values included."""
    rng = random.Random(3)
    g = Game(4, 8)
    a, b = Observer(g), Observer(g)
    buf = a.new_buffer()
    for step in range(300):
        seat = step % 4 if step % 7 else rng.randrange(4)
        who = a if step % 5 else b
        if step % 11 == 0:
            a.fill_plain(g, (seat + 1) % 4, buf)
        who.fill(g, seat, buf)
        assert np.array_equal(buf.flat, plain(a, g, seat)), step
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_actions()))


def test_fast_fill_reads_no_hidden_information():
    """The fast fill of a perturbed state (others' secret draws, bag order, removed events) equals the
    original's, with the same observer and buffers as it followed the real game."""
    rng = random.Random(5)
    g = Game(4, 21)
    obs = Observer(g)
    bufs = [obs.new_buffer() for _ in range(4)]
    checked = 0
    while not g.is_terminal() and checked < 60:
        seat = g.current_player
        obs.fill(g, seat, bufs[seat])
        other = hidden_perturbation(g, seat, rng)
        if other is not None:
            mine = bufs[seat].flat.copy()
            obs.fill(other, seat, bufs[seat])
            assert np.array_equal(bufs[seat].flat, mine)
            checked += 1
        g.apply(rng.choice(g.legal_actions()))
    assert checked >= 30


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fill_into_fresh_and_reused_buffers_with_two_observers_sharing_the_caches(n):
    """Two observers of two games, interleaved (the turn, counter, own-value and context blocks are shared
    by every observer): after every step, every viewer, into its own reused buffer and into a fresh one."""
    games = [Game(n, 500 + n), Game(n, 600 + n)]
    observers = [Observer(g) for g in games]
    kept = [[o.new_buffer() for _ in range(n)] for o in observers]
    rng = random.Random(n)
    while not all(g.is_terminal() for g in games):
        for g, obs, bufs in zip(games, observers, kept):
            if g.is_terminal():
                continue
            g.apply(rng.choice(g.legal_actions()))
            for seat in range(n):
                want = plain(obs, g, seat)
                obs.fill(g, seat, bufs[seat])
                fresh = obs.new_buffer()
                obs.fill(g, seat, fresh)
                assert np.array_equal(bufs[seat].flat, want) and np.array_equal(fresh.flat, want)
