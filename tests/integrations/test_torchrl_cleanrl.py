"""TorchRL (PettingZooWrapper, check_env_specs, a masked policy trained on collected frames) and a
CleanRL-style masked PPO loop on gymnasium's vector env of the single-agent env."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_torchrl_pettingzoo_wrapper_specs_and_masked_training(name):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from tensordict.nn import TensorDictModule
    from torchrl.envs.utils import check_env_specs
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    from farmgames.wrappers.integrations.torchrl import torchrl_env

    env = torchrl_env(name, num_players=players(name), seed=0)
    check_env_specs(env)
    group = next(iter(env.group_map))
    size = env.full_observation_spec[group, "observation", "observation"].shape[-1]
    n = env.full_action_spec[group, "action"].space.n
    net = TensorDictModule(
        torch.nn.Sequential(torch.nn.Linear(size, 32), torch.nn.Tanh(), torch.nn.Linear(32, n)),
        in_keys=[(group, "observation", "observation")],
        out_keys=[(group, "logits")],
    )
    policy = ProbabilisticActor(
        net,
        in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
        out_keys=[(group, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(group, "log_prob"),
    )
    optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    frames = 0
    for _ in range(3):
        td = env.rollout(100, policy=policy, break_when_any_done=False)
        frames += td.numel()
        logits = net(td.clone())[group, "logits"]
        dist = MaskedCategorical(logits=logits, mask=td[group, "action_mask"])
        logp = dist.log_prob(td[group, "action"])
        ret = td["next", group, "reward"].squeeze(-1).flip(0).cumsum(0).flip(0)
        loss = -(logp * ret).mean() - 0.01 * dist.entropy().mean()
        assert torch.isfinite(loss)
        optim.zero_grad()
        loss.backward()
        optim.step()
    assert frames >= 300


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_cleanrl_style_masked_ppo_loop(name):
    torch = pytest.importorskip("torch")
    import gymnasium

    from farmgames.envs import get_spec

    num_envs, num_steps = 2, 64
    envs = gymnasium.make_vec(
        get_spec(name).gym_id,
        num_envs=num_envs,
        vectorization_mode="sync",
        num_players=players(name),
        opponents="random",
    )
    obs_size = envs.single_observation_space.shape[0]
    n = envs.single_action_space.n
    torch.manual_seed(0)
    actor = torch.nn.Sequential(torch.nn.Linear(obs_size, 32), torch.nn.Tanh(), torch.nn.Linear(32, n))
    critic = torch.nn.Sequential(torch.nn.Linear(obs_size, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    optim = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=2.5e-4)

    def dist(o, m):
        logits = actor(o)
        return torch.distributions.Categorical(logits=torch.where(m, logits, torch.tensor(-1e8)))

    obs, infos = envs.reset(seed=0)
    steps = 0
    for _update in range(3):
        batch = {"obs": [], "mask": [], "act": [], "logp": [], "rew": [], "done": [], "val": []}
        for _ in range(num_steps):
            o = torch.as_tensor(obs, dtype=torch.float32)
            m = torch.as_tensor(infos["action_mask"]).bool()
            assert m.any(dim=1).all(), "empty mask where the loop samples"
            with torch.no_grad():
                d = dist(o, m)
                a = d.sample()
                batch["logp"].append(d.log_prob(a))
                batch["val"].append(critic(o).squeeze(-1))
            obs, rew, term, trunc, infos = envs.step(a.numpy())
            for k, v in (
                ("obs", o),
                ("mask", m),
                ("act", a),
                ("rew", torch.as_tensor(rew, dtype=torch.float32)),
                ("done", torch.as_tensor(term | trunc, dtype=torch.float32)),
            ):
                batch[k].append(v)
            steps += num_envs
        b = {k: torch.stack(v) for k, v in batch.items()}
        ret = torch.zeros_like(b["rew"])
        running = torch.zeros(num_envs)
        for t in reversed(range(num_steps)):
            running = b["rew"][t] + 0.99 * running * (1 - b["done"][t])
            ret[t] = running
        adv = ret - b["val"]
        d = dist(b["obs"].reshape(-1, obs_size), b["mask"].reshape(-1, n))
        ratio = (d.log_prob(b["act"].reshape(-1)) - b["logp"].reshape(-1)).exp()
        a_flat = adv.reshape(-1)
        pg = -torch.min(ratio * a_flat, ratio.clamp(0.8, 1.2) * a_flat).mean()
        v_loss = ((critic(b["obs"].reshape(-1, obs_size)).squeeze(-1) - ret.reshape(-1)) ** 2).mean()
        loss = pg + 0.5 * v_loss - 0.01 * d.entropy().mean()
        assert torch.isfinite(loss), "NaN loss: a mask was empty"
        optim.zero_grad()
        loss.backward()
        optim.step()
    envs.close()
    assert steps >= 300 and np.isfinite(float(loss))
