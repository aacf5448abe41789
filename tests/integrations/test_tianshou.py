"""Tianshou: PettingZooEnv over the flat_dict AEC env, a masked DQN for seat 0 against a masked random
agent, collected into a replay buffer that checks for NaNs (fixed numeric infos), and updated."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_tianshou_masked_dqn_collects_and_updates(name):
    pytest.importorskip("tianshou")
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net

    from farmgames.wrappers.integrations.tianshou import tianshou_env

    n = players(name)
    env = tianshou_env(name, num_players=n)
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=20)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(n - 1)]
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    train_envs = DummyVectorEnv([lambda: tianshou_env(name, num_players=n) for _ in range(2)])
    collector = Collector(
        algo, train_envs, VectorReplayBuffer(2000, 2), exploration_noise=True, raise_on_nan_in_buffer=True
    )
    collector.reset()
    stats = collector.collect(n_step=300)
    assert stats.n_collected_steps >= 300
    batch = collector.buffer.sample(0)[0]
    assert np.isfinite(batch.info.scores).all() and batch.obs.mask.any(axis=-1).all()
    from tianshou.utils.torch_utils import policy_within_training_step

    with policy_within_training_step(algo.policy):
        for _ in range(3):
            algo.update(buffer=collector.buffer, sample_size=64)
    train_envs.close()
