"""Ray RLlib (new API stack): the MultiAgentEnv passes RLlib's env checks, and masked PPO with one shared
module for every seat trains on a local Ray started by the test on loopback (127.0.0.1 only), with
two env runners. Ray pins gymnasium 1.2.x: this runs in its own venv (.ci/integrations)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from .conftest import GAME_PARAMS, players

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # node address = loopback
    ray.init(
        address="local",
        _node_ip_address="127.0.0.1",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        assert all(node["NodeManagerAddress"] == "127.0.0.1" for node in ray.nodes())
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_rllib_env_plays_a_game_with_masks(name):
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from farmgames.wrappers.integrations.rllib import RLlibEnv

    env = RLlibEnv({"game": name, "num_players": players(name)})
    check_multiagent_environments(env)
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5000):
        for o in obs.values():
            assert set(o) == {"observations", "action_mask"} and o["action_mask"].any()
            assert env.observation_space.contains(o)
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, infos = env.step(actions)
        if terms["__all__"] or truncs["__all__"]:
            break
    assert terms["__all__"] and set(obs) == set(env.possible_agents)


@pytest.mark.parametrize("name", GAME_PARAMS)
def test_rllib_masked_ppo_self_play_trains(name, local_ray, tmp_path):
    from farmgames.wrappers.integrations.rllib import ppo_config

    config = ppo_config(
        name, num_players=players(name), env_runners=2, hidden=(32,), train_batch_size=300, minibatch_size=100
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 300
        path = algo.save_to_path(str(tmp_path / "checkpoint"))
        assert os.path.isdir(path)
    finally:
        algo.stop()


def test_farmgames_train_backend_rllib_and_evaluate_the_checkpoint(local_ray, tmp_path):
    """``farmgames train --backend rllib`` on the local loopback Ray (head + 2 env-runner workers), then
    ``evaluate`` loads the checkpoint as a policy and plays full games with it."""
    pytest.importorskip("stable_baselines3")  # the CLI's train extra
    from farmgames.training.cli import main
    from farmgames.training.evaluate import evaluate

    config = tmp_path / "rllib.yaml"
    config.write_text(
        "backend: rllib\nseed: 0\nenv: {game: key_harvest_v0, num_players: 2, variant: {}}\n"
        "training: {iterations: 2, env_runners: 2, train_batch_size: 200, minibatch_size: 100, hidden: [32],"
        " checkpoint_every: 1}\n"
    )
    out = tmp_path / "run"
    assert main(["train", "--backend", "rllib", "--config", str(config), "--out", str(out)]) == 0
    final = out / "final"
    assert (final / "farmgames_policy.json").is_file() and (out / "checkpoint_1").is_dir()
    result = evaluate(str(final), opponents="random", games=2, seed=0, trust=True)  # RLlib restores with pickle
    assert result["games"] == 2


def test_train_joins_a_two_node_loopback_cluster(tmp_path):
    """The multi-machine path (``ray.address``): a head and a second node, both raylets on 127.0.0.1
    (``ray.cluster_utils.Cluster``, what ``ray start --head`` / ``ray start --address`` set up), and
    ``train_rllib`` joins it by address; env runners are spread over the nodes."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    from ray.cluster_utils import Cluster

    from farmgames.training.rllib_backend import load_rllib_config, train_rllib

    if ray.is_initialized():
        ray.shutdown()
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        config_path = tmp_path / "c.yaml"
        config_path.write_text(
            f"backend: rllib\nray: {{address: '{cluster.address}'}}\n"
            "env: {game: sunflower_valley_v0, num_players: 2, variant: {}}\n"
            "training: {iterations: 1, env_runners: 2, train_batch_size: 200, minibatch_size: 100, hidden: [32],"
            " checkpoint_every: 0}\n"
        )
        config = load_rllib_config(config_path, {"out": str(tmp_path / "run")})
        summary = train_rllib(config)
        assert summary["nodes"] == 2 and summary["env_steps"] >= 200
        assert all(node["NodeManagerAddress"] == "127.0.0.1" for node in ray.nodes())
    finally:
        ray.shutdown()
        cluster.shutdown()
