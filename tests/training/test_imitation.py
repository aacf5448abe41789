"""Imitation warm start: the ``imitation:`` config section, demonstrations (determinism, cache), behaviour
cloning (it must really learn), and a tiny run through ``farmgames train`` whose checkpoints load and play."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from farmgames.training.config import ConfigError, ImitationConfig, config_from_dict, load_config
from farmgames.training.imitation import (
    behaviour_clone,
    collect_demos,
    demo_env_kwargs,
    discounted_returns,
    load_demos,
    masked_accuracy,
    save_demos,
)

TINY = {
    "name": "tiny_imitation",
    "seed": 0,
    "total_steps": 64,
    "env": {"num_players": 2, "opponents": "random", "reward_scale": 0.05, "variant": {"reward": "margin"}},
    "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "features_dim": 16, "net_arch": [16]},
    "training": {"n_envs": 2, "vec_env": "dummy", "progress_bar": False, "checkpoint_every": 64},
    "imitation": {"teacher": "heuristic", "games": 2, "epochs": 1, "batch_size": 64, "workers": 1},
}


# ------------------------------------------------------------------ config


def test_imitation_section_is_optional_and_checked():
    assert config_from_dict({}).imitation is None
    assert config_from_dict({"imitation": None}).imitation is None
    assert config_from_dict({"imitation": {}}).imitation == ImitationConfig()
    c = config_from_dict({"imitation": {"games": 50, "learning_rate": "3e-4", "cache": "runs/d.npz"}})
    assert c.imitation.games == 50 and c.imitation.learning_rate == pytest.approx(3e-4)
    with pytest.raises(
        ConfigError,
        match=r"unknown key 'imitation\.gmes' \(did you mean 'imitation\.games'\?\); "
        r"valid keys in imitation: teacher, games, epochs",
    ):
        config_from_dict({"imitation": {"gmes": 10}})
    with pytest.raises(ConfigError, match="'imitation.teacher' must be one of heuristic, .*random"):
        config_from_dict({"imitation": {"teacher": "oracle"}})
    with pytest.raises(ConfigError, match="'imitation.games' must be at least 2"):
        config_from_dict({"imitation": {"games": 1}})
    with pytest.raises(ConfigError, match="'imitation.epochs' must be an integer"):
        config_from_dict({"imitation": {"epochs": "many"}})
    with pytest.raises(ConfigError, match="'imitation.validation' must be between 0 and 1"):
        config_from_dict({"imitation": {"validation": 1.0}})
    with pytest.raises(ConfigError, match="'imitation.cache' must be a .npz path"):
        config_from_dict({"imitation": {"cache": "demos.pkl"}})
    with pytest.raises(ConfigError, match="'imitation' must be a mapping"):
        config_from_dict({"imitation": 400})
    # total_steps 0 (warm start only) needs an imitation section
    assert config_from_dict({"total_steps": 0, "imitation": {}}).total_steps == 0
    with pytest.raises(ConfigError, match="'total_steps' must be at least 1 \\(0 only with an imitation section\\)"):
        config_from_dict({"total_steps": 0})


def test_imitation_config_round_trips(tmp_path):
    config = config_from_dict({**TINY, "out": str(tmp_path / "run")})
    config.dump(tmp_path / "resolved.yaml")
    assert load_config(tmp_path / "resolved.yaml") == config
    off = config_from_dict({**{k: v for k, v in TINY.items() if k != "imitation"}, "out": str(tmp_path / "run")})
    off.dump(tmp_path / "off.yaml")
    assert load_config(tmp_path / "off.yaml").imitation is None


# ------------------------------------------------------------------ demonstrations


def test_discounted_returns_restart_at_each_game():
    reward = np.array([0, 0, 1.0, 0, -2.0], dtype=np.float32)
    game = np.array([0, 0, 0, 1, 1])
    np.testing.assert_allclose(discounted_returns(reward, game, 0.5), [0.25, 0.5, 1.0, -1.0, -2.0])


@pytest.fixture(scope="module")
def demos():
    """Three demonstration games (heuristic teacher vs random), in one process."""
    kwargs = demo_env_kwargs(config_from_dict(TINY))
    return collect_demos(kwargs, "heuristic", games=3, workers=1, progress=False)


def test_demos_are_recorded_and_deterministic(demos, tmp_path):
    n = len(demos["action"])
    assert n > 100 and demos["obs"].shape[0] == n and demos["mask"].shape[0] == n
    assert demos["obs"].dtype == np.uint8  # counts stored exactly, compactly
    assert demos["mask"][np.arange(n), demos["action"]].all()  # every teacher action was legal
    assert sorted(set(demos["game"].tolist())) == [0, 1, 2] and len(demos["game_won"]) == 3
    # each game ends with the learner's scaled margin as its last reward
    last = np.flatnonzero(np.diff(np.append(demos["game"], -1)) != 0)
    np.testing.assert_allclose(demos["reward"][last], demos["game_margin"] * 0.05, atol=1e-6)
    # the same games in two forked workers give the same data
    kwargs = demo_env_kwargs(config_from_dict(TINY))
    again = collect_demos(kwargs, "heuristic", games=2, workers=2, progress=False)
    first2 = demos["game"] < 2
    np.testing.assert_array_equal(again["action"], demos["action"][first2])
    np.testing.assert_array_equal(again["obs"], demos["obs"][first2])
    # the cache gives back the first games of a larger set, and refuses other settings
    meta = {"teacher": "heuristic", "games": 3, "num_players": 2}
    path = save_demos(tmp_path / "d.npz", demos, meta)
    loaded = load_demos(path, {**meta, "games": 2})
    np.testing.assert_array_equal(loaded["action"], demos["action"][first2])
    assert loaded["meta"]["games"] == 2 and len(loaded["game_won"]) == 2
    assert load_demos(path, {**meta, "teacher": "random"}) is None


# ------------------------------------------------------------------ behaviour cloning


def test_behaviour_cloning_learns_the_teacher(demos):
    import torch

    from farmgames.training.train import build_model
    from farmgames.wrappers.single_agent import SingleAgentEnv

    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small batches: more threads than free cores is many times slower
    config = config_from_dict({**TINY, "ppo": {**TINY["ppo"], "features_dim": 64, "net_arch": [64]}})
    env = SingleAgentEnv(**{**demo_env_kwargs(config), "torch_threads": None})
    model = build_model(config, env)
    train_idx = np.flatnonzero(demos["game"] < 2)  # behaviour_clone holds out the last game of three
    returns = discounted_returns(demos["reward"], demos["game"], 0.99)
    before = masked_accuracy(model.policy, demos, train_idx, returns)
    result = behaviour_clone(
        model.policy,
        demos,
        epochs=40,
        batch_size=32,
        learning_rate=3e-3,
        value_coef=0.5,
        gamma=0.99,
        validation=0.34,
        max_grad_norm=None,
        progress=False,
        seed=0,
    )
    after = masked_accuracy(model.policy, demos, train_idx, returns)
    # an untrained policy picks the teacher's action about as often as chance; the clone fits it
    assert before["accuracy"] < 0.45
    assert after["accuracy"] >= 0.65 and after["accuracy"] >= before["accuracy"] + 0.3
    assert after["value_mse"] < before["value_mse"]
    assert result["train_accuracy"] >= 0.65
    # and on the held-out game it does better than the untrained policy
    assert result["val_games"] == 1 and result["val_accuracy"] > result["initial_val_accuracy"]
    assert len(result["history"]) == 40
    env.close()
    torch.set_num_threads(threads)


# ------------------------------------------------------------------ through farmgames train


def test_tiny_imitation_run_through_train(tmp_path):
    from farmgames.training.cli import main
    from farmgames.training.evaluate import evaluate
    from farmgames.training.policy import checkpoint_metadata

    raw = json.loads(json.dumps(TINY))
    raw["imitation"]["cache"] = str(tmp_path / "cache" / "demos.npz")
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(yaml.safe_dump(raw))
    out = tmp_path / "run"
    assert main(["train", "--config", str(cfg), "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "imitation.json").read_text())
    assert report["games"] == 2 and report["decisions"] > 50 and not report["cache_hit"]
    assert report["val_accuracy"] is not None and report["demo_seconds"] > 0 and report["bc_seconds"] > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] >= 64 and "bc_seconds" in summary
    for name in ("imitation.zip", "final.zip"):
        meta = checkpoint_metadata(out / name)
        assert meta["num_players"] == 2 and meta["imitation"]["teacher"] == "heuristic"
        res = evaluate(str(out / name), "random", games=1, seed=3)
        assert res["games"] == 1 and res["records"][0]["decisions"] > 0
    # a second run reuses the cached demonstrations; total_steps 0 stops after the warm start
    out2 = tmp_path / "run2"
    assert main(["train", "--config", str(cfg), "--out", str(out2), "--total-steps", "0", "--no-progress"]) == 0
    assert json.loads((out2 / "imitation.json").read_text())["cache_hit"]
    assert json.loads((out2 / "summary.json").read_text())["steps"] == 0
    assert checkpoint_metadata(out2 / "final.zip")["observation_size"] == meta["observation_size"]
    # init_from a clone: the imitation phase is skipped, PPO starts from its weights
    out3 = tmp_path / "run3"
    assert (
        main(
            ["train", "--config", str(cfg), "--out", str(out3), "--init-from", str(out2 / "final.zip"), "--no-progress"]
        )
        == 0
    )
    assert not (out3 / "imitation.json").exists() and (out3 / "final.zip").exists()
