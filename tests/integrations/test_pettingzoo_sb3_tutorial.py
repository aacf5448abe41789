"""PettingZoo's own SB3 action-mask tutorial (the ``SB3ActionMaskWrapper`` of its docs, verbatim in shape)
over ``env(observation_mode="flat_dict")``: SB3's ``check_env`` passes (it steps unmasked random actions:
``env()`` ends the game with a penalty instead of raising) and MaskablePPO self-play trains."""

from __future__ import annotations

import gymnasium as gym
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]


def _tutorial_wrapper():
    import pettingzoo.utils

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (
                self.observe(next_agent),
                self._cumulative_rewards[current_agent],
                self.terminations[current_agent],
                self.truncations[current_agent],
                self.infos[current_agent],
            )

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    return SB3ActionMaskWrapper


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_pettingzoo_sb3_tutorial_wrapper_checks_and_trains(name):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.logger import Logger

    from farmgames.envs import face

    wrapper = _tutorial_wrapper()
    env = wrapper(face(name).env(num_players=players(name), observation_mode="flat_dict"))
    env.reset(seed=0)
    check_env(env)
    env.reset(seed=0)
    masked = ActionMasker(env, lambda e: e.action_mask())
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        masked,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
        device="cpu",
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-<time> folder per run
    model.learn(total_timesteps=300)
    assert model.num_timesteps >= 300
