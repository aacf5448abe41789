"""AgileRL: IPPO with masks read from ``info[agent]["action_mask"]`` and Box observations; a few hundred
steps collected and learning updates. AgileRL pins pettingzoo 1.26.x: this runs in its own venv
(.ci/integrations)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_agilerl_ippo_acts_with_info_masks_and_learns(name):
    pytest.importorskip("agilerl")
    from agilerl.algorithms import IPPO

    from farmgames.wrappers.integrations.agilerl import agilerl_env

    env = agilerl_env(name, num_players=players(name))
    agent_ids = list(env.possible_agents)
    steps = 100
    agent = IPPO(
        observation_spaces=[env.observation_space(a) for a in agent_ids],
        action_spaces=[env.action_space(a) for a in agent_ids],
        agent_ids=agent_ids,
        net_config={"encoder_config": {"hidden_size": [32]}},
        learn_step=steps,
        batch_size=50,
        update_epochs=1,
    )
    obs, info = env.reset(seed=0)
    total = 0
    for _update in range(3):
        keys = ("states", "actions", "log_probs", "rewards", "dones", "values")
        buf: dict[str, dict] = {k: {a: [] for a in agent_ids} for k in keys}
        done = {a: 0.0 for a in agent_ids}
        for _ in range(steps):
            batched = {a: o[None, :] for a, o in obs.items()}
            action, log_prob, _, value = agent.get_action(obs=batched, infos=info)
            chosen = {a: int(np.asarray(action[a]).reshape(-1)[0]) for a in agent_ids}
            for a in agent_ids:  # IPPO respected the masks in info
                assert info[a]["action_mask"][chosen[a]] == 1
            next_obs, reward, term, trunc, info = env.step(chosen)
            for a in agent_ids:
                for k, v in (
                    ("states", batched[a]),
                    ("actions", action[a]),
                    ("log_probs", log_prob[a]),
                    ("rewards", np.array([reward[a]])),
                    ("dones", np.array([done[a]])),
                    ("values", value[a]),
                ):
                    buf[k][a].append(v)
            done = {a: float(term[a] or trunc[a]) for a in agent_ids}
            obs = next_obs
            if not env.agents:
                obs, info = env.reset()
            total += 1
        experiences = (
            buf["states"],
            buf["actions"],
            buf["log_probs"],
            buf["rewards"],
            buf["dones"],
            buf["values"],
            {a: o[None, :] for a, o in obs.items()},
            {a: np.array([d]) for a, d in done.items()},
        )
        loss = agent.learn(experiences)
        values = loss.values() if isinstance(loss, dict) else [loss]
        assert all(np.isfinite(float(v)) for v in values)
    assert total >= 300
