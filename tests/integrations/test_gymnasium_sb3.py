"""Gymnasium (env checker, make_vec sync/async) and SB3 / sb3-contrib MaskablePPO with DummyVecEnv and
SubprocVecEnv, on the single-agent env of every game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _make(name: str):
    from farmgames.wrappers import SingleAgentEnv

    return SingleAgentEnv(game=name, num_players=players(name), opponents="random")


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_gymnasium_env_checker_passes_without_warnings(name):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(_make(name), skip_render_check=True)
    assert not [str(w.message) for w in caught if "gymnasium" in str(w.filename)]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("name", GAME_PARAMS)
def test_gymnasium_make_vec(name, mode):
    import gymnasium

    from farmgames.envs import get_spec

    spec = get_spec(name)
    venv = gymnasium.make_vec(
        spec.gym_id, num_envs=2, vectorization_mode=mode, num_players=players(name), opponents="random"
    )
    try:
        obs, infos = venv.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(60):
            masks = infos["action_mask"]
            assert masks.any(axis=1).all(), "an empty mask where the vector env samples"
            actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
            obs, rewards, terms, truncs, infos = venv.step(np.array(actions))
            assert venv.single_observation_space.contains(obs[0].astype(np.float32))
    finally:
        venv.close()


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
@pytest.mark.parametrize("name", GAME_PARAMS)
def test_maskable_ppo_trains(name, vec):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [lambda: _make(name) for _ in range(2)]
    venv = DummyVecEnv(fns) if vec == "dummy" else SubprocVecEnv(fns, start_method="spawn")
    try:
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=128,
            batch_size=64,
            n_epochs=1,
            seed=0,
            policy_kwargs={"net_arch": [32]},
            device="cpu",
        )
        model.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-<time> folder per run
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        obs = venv.reset()
        action, _ = model.predict(obs, action_masks=np.stack(venv.env_method("action_masks")))
        assert action.shape == (2,)
    finally:
        venv.close()
