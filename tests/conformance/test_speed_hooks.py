"""The adapters' fast paths against the plain ones, for every registered game and Secret Nim.

* ``env()``'s ``last`` reads its own env (before reset, PettingZoo's error), also in pickled and deep copies.
* ``current_player`` is None exactly when ``is_terminal()`` (the AEC step reads only ``current_player``).
* ``legal_action_array()`` / ``legal_mask_bytes()`` (the optional hooks of ``core.protocol.Game``): equal
  to ``legal_actions()`` at every state of random games; the AEC mask written through them equals the mask
  built from the legal list.
* The ``fixed`` infos of the current conventions: before the end the arrays are shared read-only zeros
  (a write raises, never reaching another agent's info); at the end every agent has fresh arrays.
* Fresh observations in ``dict`` mode are per-name copies: equal to the observer's buffer, never sharing
  memory with it or with an earlier observation.
"""

from __future__ import annotations

import pickle
from copy import deepcopy

import numpy as np
import pytest

from farmgames.envs import face, get_spec

from .conftest import ENV_NAMES, GAME_CASES, NAMES, random_states

HOOKS = ("legal_action_array", "legal_mask_bytes")


def _has_hook(name: str, hook: str) -> bool:
    probe = get_spec(name).new_game(num_players=get_spec(name).min_players, seed=0)
    return callable(getattr(probe, hook, None))


class _MaskTooLong:
    """A game whose ``legal_mask_bytes`` gives one byte too many (a proxy, not a patched method: a compiled
    engine's methods cannot be replaced on the instance)."""

    def __init__(self, game):
        self._game = game

    def __getattr__(self, name: str):
        return getattr(self._game, name)

    def legal_mask_bytes(self) -> bytes:
        return self._game.legal_mask_bytes() + b"\x00"


def _as_list(hook: str, value, num_actions: int) -> list[int]:
    if hook == "legal_mask_bytes":
        assert type(value) is bytes and len(value) == num_actions and set(value) <= {0, 1}
        return [i for i, b in enumerate(value) if b]
    assert isinstance(value, np.ndarray) and value.dtype == np.intp and value.ndim == 1
    assert not value.flags.writeable, "the cached array must be read-only"
    return value.tolist()


@pytest.mark.parametrize("name", ENV_NAMES)
def test_wrapped_last_reads_its_own_env_after_reset_and_in_copies(name):
    env = face(name).env(num_players=get_spec(name).min_players)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for how in (deepcopy, lambda e: pickle.loads(pickle.dumps(e))):
        twin = how(env)
        obs, _, term, trunc, info = twin.last()
        mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
        twin.step(int(rng.choice(np.flatnonzero(mask))))  # the copy moves on, the original stays
        assert twin.last()[0] is twin.unwrapped.last()[0]  # (an unchanged state hands out the same object)
        assert env.last()[0] is env.unwrapped.last()[0]
        assert twin.last()[0] is not env.last()[0]
        assert len(twin.unwrapped.game.history) == len(env.unwrapped.game.history) + 1


@pytest.mark.parametrize(("name", "players"), GAME_CASES)
def test_current_player_is_none_exactly_when_the_game_is_over(name, players):
    spec = get_spec(name)
    states = 0
    for seed in range(2):
        for game in random_states(spec, players, seed):
            assert (game.current_player is None) == game.is_terminal(), f"seed {seed}, step {len(game.history)}"
            states += 1
        assert game.is_terminal()  # (played to the end: the final state was checked too)
    assert states > 10


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize(("name", "players"), GAME_CASES)
def test_legal_hooks_equal_legal_actions(name, players, hook):
    if not _has_hook(name, hook):
        pytest.skip(f"{name} has no {hook} hook (the adapters use another path)")
    spec = get_spec(name)
    checked = 0
    for seed in range(3):
        for game in random_states(spec, players, seed, limit=600):
            first = _as_list(hook, getattr(game, hook)(), int(game.num_actions))
            assert first == sorted(game.legal_actions())
            assert _as_list(hook, getattr(game, hook)(), int(game.num_actions)) == first  # asking twice: the same
            checked += 1
    assert checked > 10


@pytest.mark.parametrize(("name", "players"), GAME_CASES)
def test_aec_mask_through_the_hook_equals_the_plain_mask(name, players):
    env = face(name).raw_env(num_players=players)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(300):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
        if term or trunc:
            env.step(None)
            continue
        plain = np.zeros(env.action_space(agent).n, np.int8)
        plain[env.unwrapped.game.legal_actions()] = 1
        assert np.array_equal(mask, plain)
        assert np.array_equal(env.action_mask(agent), plain)
        env.step(int(rng.choice(np.flatnonzero(plain))))


@pytest.mark.parametrize(("name", "players"), GAME_CASES)
def test_parallel_masks_through_the_hook_equal_the_plain_masks(name, players):
    """The parallel env's first decider takes the hook (the current player), later pickers of a simultaneous
    step and waiting agents the list path: every agent's mask equals the one built from the legal lists."""
    env = face(name).parallel_env(num_players=players)
    observations, _ = env.reset(seed=5)
    noop = env.unwrapped.NOOP
    rng = np.random.default_rng(5)
    steps = 0
    while env.agents and steps < 200:
        game, seats = env.unwrapped.game, env.unwrapped.agent_name_mapping
        deciders = game.deciders() if hasattr(game, "deciders") else [game.current_player]
        actions = {}
        for agent in env.agents:
            obs = observations[agent]
            mask = obs["action_mask"] if isinstance(obs, dict) else env.unwrapped.action_mask(agent)
            seat = seats[agent]
            if seat in deciders:
                legal = game.legal_actions() if seat == game.current_player else game.legal_actions_for(seat)
            else:
                legal = [] if noop is None else [noop]
            plain = np.zeros(env.action_space(agent).n, np.int8)
            plain[legal] = 1
            assert np.array_equal(mask, plain), f"{agent}, step {steps}"
            actions[agent] = int(rng.choice(np.flatnonzero(plain))) if legal else None
        observations, *_ = env.step({a: v for a, v in actions.items() if v is not None})
        steps += 1
    assert steps >= 3


CURRENT = [p for p in NAMES if get_spec(p.values[0]).conventions.infos == "fixed"]


@pytest.mark.parametrize("name", CURRENT)
def test_fixed_infos_are_read_only_zeros_until_fresh_final_arrays(name):
    spec = get_spec(name)
    env = face(name).raw_env(num_players=spec.min_players)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    during = []
    while env.agents:
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            final = dict(env.infos)
            break
        during.append(info)
        for key in ("winners", "scores", "illegal_action"):
            assert not info[key].any()
            with pytest.raises(ValueError):
                info[key][0] = 1  # read-only: a write cannot leak into another agent's or step's info
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert during, "the game must have decisions"
    arrays = [info[key] for info in final.values() for key in ("winners", "scores", "illegal_action")]
    assert all(a.flags.writeable for a in arrays)
    assert all(not np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1 :])
    assert sum(int(info["winners"].sum()) for info in final.values()) >= len(final)  # each agent sees the winners
    assert not any(np.shares_memory(a, during[0]["winners"]) for a in arrays)


@pytest.mark.parametrize("name", CURRENT)
def test_fresh_dict_observations_copy_every_named_array(name):
    spec = get_spec(name)
    env = face(name).raw_env(num_players=spec.min_players)
    env.reset(seed=5)
    seat = env.agent_name_mapping[env.agent_selection]
    obs = env.observe(env.agent_selection)
    buffer = env._slots[seat][env._slot_of[seat]].buf
    assert obs["observation"].keys() == buffer.views.keys()
    for key, array in obs["observation"].items():
        assert np.array_equal(array, buffer.views[key]) and array.dtype == np.float32
        assert not np.shares_memory(array, buffer.flat)
        assert array.shape == env.observation_space(env.agent_selection)["observation"][key].shape


def test_a_mask_hook_of_the_wrong_length_is_refused():
    """``write_action_mask`` copies ``legal_mask_bytes()`` with one memcpy: bytes of another length than the
    action space raise (naming both lengths) instead of resizing or misplacing the mask."""
    name = next((n for n in ENV_NAMES if _has_hook(n, "legal_mask_bytes")), None)
    if name is None:
        pytest.skip("no registered game has a legal_mask_bytes hook")
    env = face(name).raw_env(num_players=get_spec(name).min_players)
    env.reset(seed=0)
    raw = env.unwrapped
    good = raw.game.legal_mask_bytes()
    raw.game = _MaskTooLong(raw.game)  # an engine bug
    seat = raw.agent_name_mapping[raw.agent_selection]
    bits = bytearray(raw.space_n)
    with pytest.raises(ValueError, match=f"gave {len(good) + 1} bytes; the action space has {raw.space_n}"):
        raw.write_action_mask(seat, bits)
    assert bits == bytearray(raw.space_n)  # untouched


@pytest.mark.parametrize("name", CURRENT)
def test_fresh_masks_have_memory_of_their_own(name):
    """A fresh observation's mask is written once into memory of its own (``_observation``): it equals
    ``action_mask()``, shares memory with no slot and no other handed-out mask, and is never written again
    while the game goes on."""
    spec = get_spec(name)
    env = face(name).raw_env(num_players=spec.min_players)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and np.array_equal(mask, env.action_mask(agent))
        slots = env._slots[env.agent_name_mapping[agent]]
        assert not any(np.shares_memory(mask, s.mask) for s in slots)
        assert not any(np.shares_memory(mask, m) for m, _ in kept)
        kept.append((mask, mask.copy()))
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert len(kept) > 5
    for mask, copy in kept:
        np.testing.assert_array_equal(mask, copy)


@pytest.mark.parametrize(("name", "players"), GAME_CASES)
@pytest.mark.parametrize("illegal_at", [None, 7])
def test_live_last_and_dead_steps_read_the_agents_dicts(name, players, illegal_at):
    """``last()`` during play returns the reward and flags without reading the dicts, and ``step`` tells a
    dead step by one flag (``_over``): both the same as the dicts say at every step, through the end, an
    illegal action's termination (``illegal_action="terminate"``) and the dead steps after it."""
    env = face(name).raw_env(num_players=players, illegal_action="terminate")
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    for seed in range(2):
        env.reset(seed=seed)
        for step in range(2000):
            if not env.agents:
                break
            agent = env.agent_selection
            obs, reward, term, trunc, info = env.last()
            assert (reward, term, trunc) == (raw._cumulative_rewards[agent], raw.terminations[agent], False)
            assert type(reward) is float and info is raw.infos[agent]
            assert raw._over == any(raw.terminations.values()) == all(raw.terminations.values())
            if term or trunc:
                env.step(None)
            elif step == illegal_at:
                mask = np.zeros(env.action_space(agent).n, np.int8)
                mask[raw.game.legal_actions()] = 1
                env.step(int(np.flatnonzero(mask == 0)[0]))  # an illegal action ends the game for everyone
                assert raw._over and all(raw.terminations.values())
            else:
                env.step(int(rng.choice(raw.game.legal_actions())))
        assert not env.agents, "the game did not end"
