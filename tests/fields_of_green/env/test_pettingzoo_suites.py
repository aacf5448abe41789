"""PettingZoo's own test suites, AEC <-> parallel conversions, and the registries."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test
from pettingzoo.utils.conversions import (
    aec_to_parallel,
    parallel_to_aec,
    turn_based_aec_to_parallel,
)

from farmgames.envs import fields_of_green_v0

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_api_test(players):
    api_test(fields_of_green_v0.env(num_players=players), num_cycles=150)


def test_api_test_raw_and_variants():
    api_test(
        fields_of_green_v0.raw_env(num_players=3, farm_size=7, perfect_recall=True, auto_single=True), num_cycles=150
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_parallel_api_test(players):
    parallel_api_test(fields_of_green_v0.parallel_env(num_players=players), num_cycles=400)


def test_seed_test():
    seed_test(lambda: fields_of_green_v0.env(num_players=4), num_cycles=60)
    seed_test(lambda: fields_of_green_v0.env(num_players=2, reward="margin"), num_cycles=60)


def test_parallel_seed_test():
    # PettingZoo's parallel seed test samples actions WITHOUT the mask, so the first step is illegal:
    # with illegal_action="terminate" that ends the game deterministically (our own test below uses masks).
    parallel_seed_test(
        lambda: fields_of_green_v0.parallel_env(num_players=4, illegal_action="terminate"), num_cycles=50
    )


def test_render_test():
    render_test(lambda render_mode=None: fields_of_green_v0.env(num_players=4, render_mode=render_mode))
    render_test(lambda render_mode=None: fields_of_green_v0.env(num_players=2, render_mode=render_mode))


def test_parallel_to_aec_passes_api_test_and_round_trips():
    par = fields_of_green_v0.parallel_env(num_players=3)
    aec = parallel_to_aec(par)
    api_test(aec, num_cycles=150)
    assert aec_to_parallel(aec) is par


def test_parallel_to_aec_plays_the_same_game_as_parallel():
    par = fields_of_green_v0.parallel_env(num_players=3)
    aec = parallel_to_aec(fields_of_green_v0.parallel_env(num_players=3))
    rng = np.random.default_rng(0)
    observations, _ = par.reset(seed=4)
    aec.reset(seed=4)
    chosen = {}
    steps = 0
    for agent in aec.agent_iter():
        obs, reward, termination, truncation, info = aec.last()
        if termination or truncation:
            aec.step(None)
            continue
        assert np.array_equal(obs["action_mask"], observations[agent]["action_mask"])
        legal = np.flatnonzero(obs["action_mask"])
        chosen[agent] = int(rng.choice(legal))
        aec.step(chosen[agent])
        if len(chosen) == len(par.agents):
            observations, rewards, terminations, truncations, infos = par.step(chosen)
            chosen = {}
            steps += 1
    assert par.game.to_json() == aec.unwrapped.game.to_json()
    assert par.game.is_terminal() and steps > 50


def test_turn_based_aec_to_parallel_plays_a_full_game():
    par = turn_based_aec_to_parallel(fields_of_green_v0.env(num_players=4))
    observations, infos = par.reset(seed=2)
    rng = np.random.default_rng(2)
    while par.agents:
        actions = {}
        for agent in par.agents:
            legal = np.flatnonzero(observations[agent]["action_mask"])
            actions[agent] = int(rng.choice(legal)) if len(legal) else None
        observations, rewards, terminations, truncations, infos = par.step(actions)
    assert par.unwrapped.game.is_terminal()


def test_generic_aec_to_parallel_is_refused_with_a_clear_reason():
    # the AEC order lets one agent act several times in a row, so PettingZoo's cycle-based wrapper
    # does not apply; the metadata says so and the wrapper refuses at construction
    env = fields_of_green_v0.env(num_players=4)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env)
    assert fields_of_green_v0.parallel_env().metadata["is_parallelizable"] is True


def test_pettingzoo_registry_make():
    import pettingzoo

    import farmgames.envs  # noqa: F401  (registers)

    aec = pettingzoo.make("aec", "farmgames/fields_of_green-v0", num_players=4)
    aec.reset(seed=0)
    assert aec.unwrapped.num_players == 4 and aec.agent_selection in aec.possible_agents
    par = pettingzoo.make("parallel", "farmgames/fields_of_green-v0", num_players=2, reward="score")
    obs, infos = par.reset(seed=1)
    assert set(obs) == {"player_0", "player_1"} and par.unwrapped.reward_mode == "score"
    assert pettingzoo.spec("aec", "farmgames/fields_of_green_v0").entry_point == "farmgames.envs.fields_of_green_v0:env"


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_imports_and_lazy_registration_in_fresh_processes():
    # the rules engine (which imports farmgames.envs first) pulls in neither framework
    out = _run(
        "import sys, farmgames.envs.fields_of_green as f; "
        "print(sorted(m for m in ('pettingzoo', 'gymnasium', 'torch') if m in sys.modules))"
    )
    assert out == "[]"
    # farmgames.envs first, pettingzoo later: registered when pettingzoo is imported
    out = _run(
        "import farmgames.envs, pettingzoo, sys; "
        "e = pettingzoo.make('parallel', 'farmgames/fields_of_green-v0', num_players=3); "
        "print(type(e).__name__, 'farmgames/fields_of_green-v0' in pettingzoo.aec_registry, "
        "'torch' in sys.modules)"
    )
    assert out == "FieldsOfGreenParallelEnv True False"
    # pettingzoo first: registered at once; gymnasium id registered without importing the wrapper module
    out = _run(
        "import pettingzoo, gymnasium, sys, farmgames.envs; "
        "print('farmgames/fields_of_green-v0' in pettingzoo.parallel_registry, "
        "gymnasium.registry['farmgames/FieldsOfGreen-v0'].entry_point, "
        "'farmgames.wrappers.single_agent' in sys.modules)"
    )
    assert out == "True farmgames.wrappers.single_agent:SingleAgentEnv False"


def test_registering_twice_is_silent():
    import farmgames.envs as envs

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        envs.register_pettingzoo()
        envs.register_gymnasium()
