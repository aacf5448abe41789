"""The single-agent env on the current conventions: the same numeric info keys on every step, an
all-ones mask once the game is over (samplers never see an empty mask), fresh observations, a clean
illegal-action ending. Not marked ``integration`` (gymnasium only)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_single_agent_infos_masks_and_observations(name):
    from farmgames.wrappers import SingleAgentEnv

    n = players(name)
    env = SingleAgentEnv(game=name, num_players=n, opponents="random")
    obs, info = env.reset(seed=0)
    keys = set(info)
    rng = np.random.default_rng(0)
    kept, copies = [], []
    for _ in range(5000):
        assert set(info) == keys
        assert info["scores"].shape == (n,) and info["scores"].dtype == np.float32
        assert info["winners"].shape == (n,) and info["winners"].dtype == np.int8
        assert all(np.isscalar(info[k]) for k in keys - {"scores", "winners", "action_mask"})
        kept.append(obs)
        copies.append(obs.copy())
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            break
    assert term and info["game_over"] == 1 and info["action_mask"].all() and env.action_masks().all()
    assert info["winners"].tolist() == [int(s in env.game.winners()) for s in range(n)]
    assert info["learner_won"] == info["winners"][env.learner_seat]
    assert all(np.array_equal(a, b) for a, b in zip(kept, copies)), "an earlier observation was overwritten"
    obs, info = env.reset(seed=1)
    bad = next((a for a in range(env.action_space.n) if not info["action_mask"][a]), None)
    if bad is not None:
        obs, reward, term, trunc, info = env.step(bad)
        assert term and info["illegal_action"] == 1 and info["game_over"] == 0 and set(info) == keys
