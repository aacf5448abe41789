"""Environment misuse gets a message naming the value and what is allowed, never an AttributeError or a
silently ignored value (issue 12: "parallel.step("x"), raw_env.step() before reset … end in tracebacks";
"an unknown agent key in the parallel step is ignored")."""

from __future__ import annotations

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.core.protocol import IllegalActionError


def test_aec_step_before_reset_says_reset():
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        fields_of_green_v0.raw_env(num_players=2).step(0)


def test_parallel_step_before_reset_and_after_the_end():
    par = fields_of_green_v0.parallel_env(num_players=2)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        par.step({})


def test_parallel_step_needs_a_dict():
    par = fields_of_green_v0.parallel_env(num_players=2)
    par.reset(seed=0)
    for bad in ("x", None, [0, 0], 38):
        with pytest.raises(TypeError, match="dict"):
            par.step(bad)


def test_parallel_unknown_agent_key_is_refused():
    par = fields_of_green_v0.parallel_env(num_players=2)
    par.reset(seed=0)
    legal = {a: int(np.flatnonzero(par.action_mask(a))[0]) for a in par.agents}
    before = par.game.to_json()
    with pytest.raises(ValueError, match="'player_9'.*player_0, player_1"):
        par.step({**legal, "player_9": 0})
    assert par.game.to_json() == before
    par.step(legal)  # the same step without the typo is fine


@pytest.mark.parametrize("action", [38.9, "38", np.float32(38.5), True, float("inf"), None])
def test_env_step_refuses_non_integer_actions(action):
    env = fields_of_green_v0.raw_env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(action)


def test_env_keyword_errors_name_the_value():
    with pytest.raises(TypeError, match="'colour'"):
        fields_of_green_v0.env(colour=1)
    with pytest.raises(ValueError, match="'no'"):
        fields_of_green_v0.env(auto_single="no").reset(seed=0)
    with pytest.raises(ValueError, match="first_player.*True"):
        fields_of_green_v0.env(first_player=True).reset(seed=0)
    with pytest.raises(ValueError, match="-1"):
        fields_of_green_v0.env().reset(seed=-1)


@pytest.mark.parametrize("action", [38.9, "38", np.float32(38.5), True, 38.0, None, [38]])
def test_single_agent_env_refuses_non_integer_actions(action):
    """Before: SingleAgentEnv.step turned 38.9, "38" and np.float32(38.5) into action 38."""
    from farmgames.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv(game="fields_of_green", num_players=2)
    _, info = env.reset(seed=0)
    assert info["action_mask"][38]  # 38 is legal: only the type is wrong
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(action)
    env.step(np.int64(38))  # numpy integers are integers


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        ({"deterministic_opponents": "no"}, ["deterministic_opponents", "'no'"]),
        ({"reward_scale": "1"}, ["reward_scale", "'1'"]),
        ({"illegal_reward": float("nan")}, ["illegal_reward", "nan"]),
        ({"torch_threads": 1.5}, ["torch_threads", "1.5"]),
        ({"auto_single": "no"}, ["auto_single", "'no'"]),
    ],
)
def test_single_agent_env_options_are_checked_not_coerced(keywords, words):
    from farmgames.wrappers.single_agent import SingleAgentEnv

    with pytest.raises(ValueError) as err:
        SingleAgentEnv(game="fields_of_green", num_players=2, **keywords).reset(seed=0)
    for word in words:
        assert word in str(err.value), (word, str(err.value))
