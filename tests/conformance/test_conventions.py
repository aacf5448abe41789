"""The env conventions of every registered game and env version (``GameSpec.conventions``).

Games on the current conventions (every new game, Fields of Green v1): fresh observations, ``env()`` and
``parallel_env()`` end the game on an illegal action while ``raw_env()`` raises, all-ones masks once the
game is over (samplers and ``-inf`` logit masks never see an empty mask), the same numeric info keys on
every step, observation modes, finite bounds. Every version: AEC, wrapped AEC and parallel envs pickle,
deep-copy and cloudpickle, and the copy steps in lock step with the original.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test import parallel_seed_test

from farmgames.envs import face, get_spec

from .conftest import ENV_NAMES, NAMES

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CURRENT = [pytest.param(n, id=n) for n in ENV_NAMES if get_spec(n).conventions.version >= 1]
LEGACY = [pytest.param(n, id=n) for n in ENV_NAMES if get_spec(n).conventions.version == 0]


def _cloudpickle(obj):
    cloudpickle = pytest.importorskip("cloudpickle")
    return pickle.loads(cloudpickle.dumps(obj))


COPIES = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
    "cloudpickle": _cloudpickle,
}


def _same(a, b) -> bool:
    """Deep equality of observations / infos (dicts, arrays, numbers)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b)) and np.asarray(a).dtype == np.asarray(b).dtype
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _mask(obs, info):
    return obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]


def _players(name: str) -> int:
    return get_spec(name).min_players


def _aec_lockstep(env, twin, rng, steps: int) -> int:
    done = 0
    for _ in range(steps):
        if not env.agents:
            break
        a = env.last()
        b = twin.last()
        assert env.agent_selection == twin.agent_selection
        for x, y in zip(a, b):
            assert _same(x, y)
        obs, _, term, trunc, info = a
        action = None if term or trunc else int(rng.choice(np.flatnonzero(_mask(obs, info))))
        env.step(action)
        twin.step(action)
        done += 1
    assert _same(env.rewards, twin.rewards) and _same(env.infos, twin.infos)
    return done


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("make", ["env", "raw_env"])
@pytest.mark.parametrize("name", NAMES)
def test_aec_copies_step_in_lock_step(name, make, how):
    mod = face(name)
    kwargs = {"perfect_recall": True} if "perfect_recall" in {k.name for k in get_spec(name).keywords} else {}
    env = getattr(mod, make)(num_players=_players(name), **kwargs)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    twin_rng = np.random.default_rng(0)
    # a few decisions in, then copy mid-game (with the observer's caches and recall memory filled)
    _aec_lockstep(env, copy.deepcopy(env), twin_rng, 0)
    for _ in range(25):
        if env.unwrapped.game.is_terminal() or len(env.unwrapped.game.legal_actions()) == 0:
            break
        obs, _, term, trunc, info = env.last()
        env.step(int(rng.choice(np.flatnonzero(_mask(obs, info)))))
        if len(env.unwrapped.game.history) >= 3 and get_spec(name).name == "secret_nim":
            break
    twin = COPIES[how](env)
    assert _aec_lockstep(env, twin, np.random.default_rng(1), 3000) > 0
    twin.reset(seed=3)  # the copy is a whole env: it resets and plays on its own
    env.reset(seed=3)
    _aec_lockstep(env, twin, np.random.default_rng(2), 40)


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", NAMES)
def test_parallel_copies_step_in_lock_step(name, how):
    mod = face(name)
    env = mod.parallel_env(num_players=_players(name))
    observations, infos = env.reset(seed=5)
    rng = np.random.default_rng(5)

    def actions(observations, infos):
        return {a: int(rng.choice(np.flatnonzero(_mask(o, infos[a])))) for a, o in observations.items()}

    for _ in range(10 if get_spec(name).name != "secret_nim" else 2):
        observations, _, _, _, infos = env.step(actions(observations, infos))
    assert env.agents
    twin = COPIES[how](env)
    steps = 0
    while env.agents and steps < 3000:
        chosen = actions(observations, infos)
        out, out_twin = env.step(chosen), twin.step(chosen)
        for x, y in zip(out, out_twin):
            assert _same(x, y)
        observations, infos = out[0], out[4]
        steps += 1
    assert not twin.agents and steps > 0


@pytest.mark.parametrize("name", CURRENT)
def test_observations_are_fresh_arrays_unless_reuse_is_asked(name):
    mod = face(name)
    env = mod.raw_env(num_players=_players(name))
    env.reset(seed=2)
    kept, copies = [], []
    for _ in range(12):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        kept.append(obs)
        copies.append(copy.deepcopy(obs))
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    for was, now in zip(copies, kept):
        assert _same(was, now), "an observation handed out earlier was overwritten"
    reuse = mod.raw_env(num_players=_players(name), reuse_buffers=True)
    reuse.reset(seed=2)
    first = reuse.observe(reuse.agent_selection)["action_mask"]
    assert reuse.reuse_buffers and np.shares_memory(first, reuse._slots[reuse.game.current_player][1].mask)


def _finish_with_masks(env, rng):
    for _agent in env.agent_iter(max_iter=20000):
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(_mask(obs, info)))))
        if term or trunc:
            return obs, info
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", CURRENT)
def test_terminal_masks_are_all_ones_and_samplers_work(name):
    mod = face(name)
    env = mod.env(num_players=_players(name))
    env.reset(seed=4)
    obs, info = _finish_with_masks(env, np.random.default_rng(4))
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask.all(), "terminal mask must mark every action legal"
    space = env.action_space(env.possible_agents[0])
    assert space.contains(space.sample(mask))
    logits = np.zeros(mask.shape, np.float32)
    masked = np.where(mask.astype(bool), logits, -np.inf)
    probs = np.exp(masked - masked.max())
    assert np.isfinite(probs / probs.sum()).all()
    torch = pytest.importorskip("torch")
    dist = torch.distributions.Categorical(logits=torch.where(torch.as_tensor(mask).bool(), 0.0, -float("inf")))
    assert torch.isfinite(dist.probs).all() and int(dist.sample()) < mask.size
    par = mod.parallel_env(num_players=_players(name))
    observations, infos = par.reset(seed=4)
    rng = np.random.default_rng(4)
    while par.agents:
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
        observations, _, _, _, infos = par.step(acts)
    assert all(o["action_mask"].all() for o in observations.values())
    assert all(par.action_mask(a).all() for a in par.possible_agents)


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_terminal_masks_stay_empty(name):
    env = face(name).env(num_players=_players(name))
    env.reset(seed=4)
    obs, _ = _finish_with_masks(env, np.random.default_rng(4))
    assert not obs["action_mask"].any()


@pytest.mark.parametrize("name", CURRENT)
def test_infos_have_fixed_numeric_shapes_on_every_step(name):
    mod = face(name)
    n = _players(name)
    env = mod.raw_env(num_players=n, info_mask=True)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    shapes = {
        "winners": ((n,), np.int8),
        "scores": ((n,), np.float32),
        "illegal_action": ((n,), np.int8),
        "action_mask": ((env.space_n,), np.int8),
    }
    last = None
    for _agent in env.agent_iter(max_iter=20000):
        obs, _, term, trunc, info = env.last()
        for a in env.agents:
            got = env.infos[a]
            assert set(got) == set(shapes), f"info keys {sorted(got)}"
            for key, (shape, dtype) in shapes.items():
                assert got[key].shape == shape and got[key].dtype == dtype, key
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        last = info
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.game
    assert last["winners"].tolist() == [int(s in game.winners()) for s in range(n)]
    assert last["scores"].tolist() == pytest.approx([s.total for s in game.scores()])
    par = mod.parallel_env(num_players=n)
    observations, infos = par.reset(seed=6)
    keys = set(next(iter(infos.values())))
    while par.agents:
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
        observations, _, _, _, infos = par.step(acts)
        assert all(set(i) == keys for i in infos.values())


@pytest.mark.parametrize("name", CURRENT)
def test_observation_modes(name):
    mod = face(name)
    n = _players(name)
    envs = {mode: mod.raw_env(num_players=n, observation_mode=mode) for mode in ("dict", "flat_dict", "flat")}
    for env in envs.values():
        env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(60):
        agent = envs["dict"].agent_selection
        if not envs["dict"].agents:
            break
        obs = {mode: env.last()[0] for mode, env in envs.items()}
        info = envs["flat"].last()[4]
        flat = np.concatenate([v.reshape(-1) for v in obs["dict"]["observation"].values()])
        assert np.array_equal(obs["flat"], flat) and np.array_equal(obs["flat_dict"]["observation"], flat)
        assert np.array_equal(info["action_mask"], obs["dict"]["action_mask"])
        for mode, env in envs.items():
            assert env.observation_space(agent).contains(obs[mode]), mode
        done = envs["dict"].terminations[agent] or envs["dict"].truncations[agent]
        action = None if done else int(rng.choice(np.flatnonzero(info["action_mask"])))
        for env in envs.values():
            env.step(action)
    with pytest.raises(ValueError, match="observation_mode"):
        mod.raw_env(observation_mode="image")


@pytest.mark.parametrize("name", CURRENT)
def test_box_bounds_are_finite(name):
    env = face(name).raw_env(observation_mode="flat")
    space = env.observation_space(env.possible_agents[0])
    assert np.isfinite(space.high).all() and np.isfinite(space.low).all()
    nested = face(name).raw_env().observation_space(env.possible_agents[0])["observation"]
    assert all(np.isfinite(box.high).all() for box in nested.values())


@pytest.mark.parametrize("name", CURRENT)
def test_env_ends_the_game_on_an_illegal_action_and_raw_env_raises(name):
    mod = face(name)
    n = _players(name)
    env = mod.env(num_players=n)
    env.reset(seed=1)
    offender = env.agent_selection
    legal = set(np.flatnonzero(env.last()[0]["action_mask"]).tolist())
    bad = next((a for a in range(env.action_space(offender).n) if a not in legal), None)
    if bad is None:
        pytest.skip("every action is legal at the start")
    env.step(bad)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == env.unwrapped.illegal_reward
    seat = env.unwrapped.agent_name_mapping[offender]
    for agent in env.possible_agents:
        assert env.infos[agent]["illegal_action"].tolist() == [int(i == seat) for i in range(n)]
    assert env.unwrapped.last_illegal["agent"] == offender
    from farmgames.envs.core.protocol import IllegalActionError

    raw = mod.raw_env(num_players=n)
    raw.reset(seed=1)
    with pytest.raises(IllegalActionError):
        raw.step(bad)
    par = mod.parallel_env(num_players=n)
    par.reset(seed=1)
    decider = par.possible_agents[par.deciders()[0]]
    _, rewards, terms, _, infos = par.step({decider: bad})
    assert all(terms.values()) and rewards[decider] == par.illegal_reward


@pytest.mark.parametrize("name", CURRENT)
def test_pettingzoo_parallel_seed_test(name):
    mod = face(name)
    parallel_seed_test(lambda: mod.parallel_env(num_players=_players(name)), num_cycles=40)


@pytest.mark.parametrize("mode", ["flat", "flat_dict"])
@pytest.mark.parametrize("name", CURRENT)
def test_pettingzoo_api_test_in_every_observation_mode(name, mode):
    from pettingzoo.test import api_test

    api_test(face(name).env(num_players=_players(name), observation_mode=mode), num_cycles=30)
