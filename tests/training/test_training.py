"""Training tools: config checking, the Policy protocol and checkpoints, a training smoke run through
the CLI, evaluate's statistics, the league."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from farmgames.training.arena import wilson_interval
from farmgames.training.cli import main
from farmgames.training.config import Config, ConfigError, config_from_dict, load_config
from farmgames.training.policy import (
    BotPolicy,
    CheckpointError,
    MaskablePPOPolicy,
    Policy,
    checkpoint_metadata,
    load_policy,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*/*.yaml"))


# ------------------------------------------------------------------ configs


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_load(path):
    config = load_config(path)
    assert isinstance(config, Config)
    assert config.total_steps > 0


def test_config_unknown_key_names_it_and_lists_valid_keys(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  learing_rate: 0.001\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    message = str(err.value)
    assert "ppo.learing_rate" in message and "did you mean 'ppo.learning_rate'" in message
    assert "learning_rate" in message and "batch_size" in message and str(bad) in message
    with pytest.raises(ConfigError, match="unknown key 'totl_steps'.*valid keys in the top level: name, seed"):
        config_from_dict({"totl_steps": 5})


def test_config_types_and_values_are_checked():
    with pytest.raises(ConfigError, match="'training.n_envs' must be an integer, got 'four'"):
        config_from_dict({"training": {"n_envs": "four"}})
    with pytest.raises(ConfigError, match="'ppo.net_arch' must be a list"):
        config_from_dict({"ppo": {"net_arch": 64}})
    with pytest.raises(ConfigError, match="'training.vec_env' must be one of dummy, subproc"):
        config_from_dict({"training": {"vec_env": "threads"}})
    with pytest.raises(ConfigError, match="'env.opponents' lists one opponent per other seat"):
        config_from_dict({"env": {"num_players": 3, "opponents": ["random"]}})
    with pytest.raises(ConfigError, match="'env' must be a mapping"):
        config_from_dict({"env": "random"})
    # PyYAML reads 3e-4 as a string: accepted for float keys
    assert config_from_dict({"ppo": {"learning_rate": "3e-4"}}).ppo.learning_rate == pytest.approx(3e-4)
    assert config_from_dict({"total_steps": 1e3}).total_steps == 1000


def test_resolved_config_round_trips(tmp_path):
    config = load_config(ROOT / "configs" / "fields_of_green" / "ppo_2p_vs_heuristic.yaml", {"total_steps": 123})
    config.dump(tmp_path / "resolved.yaml")
    again = load_config(tmp_path / "resolved.yaml")
    assert again == config and again.total_steps == 123


def test_train_cli_reports_config_errors(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env:\n  num_player: 2\n")
    assert main(["train", "--config", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "env.num_player" in err and "num_players" in err
    bad.write_text("env:\n  variant: {farm_size: 4}\n")
    assert main(["train", "--config", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "env.variant.farm_size" in capsys.readouterr().err


# ------------------------------------------------------------------ policies and checkpoints


class FirstLegal:
    """The documented minimal user policy."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_policy_protocol():
    assert isinstance(FirstLegal(), Policy)
    assert isinstance(BotPolicy("fields_of_green", "random"), Policy)
    assert load_policy("heuristic").name == "heuristic"
    user = load_policy(f"{__name__}:FirstLegal")
    assert isinstance(user, FirstLegal)
    with pytest.raises(ValueError, match="unknown bot"):
        BotPolicy("fields_of_green", "clever")
    with pytest.raises(ValueError, match="unknown policy"):
        load_policy("clever")


def test_user_policy_in_evaluate():
    from farmgames.training.evaluate import evaluate

    res = evaluate(FirstLegal(), "random", players=2, games=2, seed=0)
    assert res["games"] == 2 and 0 <= res["win_rate"] <= 1


def test_corrupt_checkpoint_errors_name_the_file(tmp_path, capsys):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"this is not a zip file")
    with pytest.raises(CheckpointError, match=r"junk\.zip is corrupt or not a \.zip"):
        MaskablePPOPolicy(junk)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(CheckpointError, match=r"other\.zip is a zip but not a stable-baselines3 model"):
        checkpoint_metadata(other)
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("data", "{not json")
        zf.writestr("policy.pth", b"")
    with pytest.raises(CheckpointError, match=r"broken\.zip is corrupt"):
        checkpoint_metadata(broken)
    with pytest.raises(CheckpointError, match="does not exist"):
        checkpoint_metadata(tmp_path / "missing.zip")
    assert main(["evaluate", "--policy", str(junk), "--games", "1", "--no-progress"]) == 2
    assert "junk.zip" in capsys.readouterr().err


# ------------------------------------------------------------------ evaluate statistics


def test_wilson_interval():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_evaluate_heuristic_vs_random_fixed_seeds(tmp_path):
    out1, out2 = tmp_path / "a.json", tmp_path / "b.json"
    args = [
        "evaluate",
        "--policy",
        "heuristic",
        "--opponents",
        "random",
        "--players",
        "2",
        "--games",
        "6",
        "--seed",
        "5",
        "--no-progress",
    ]
    assert main(args + ["--json", str(out1)]) == 0
    assert main(args + ["--json", str(out2)]) == 0
    a, b = json.loads(out1.read_text()), json.loads(out2.read_text())
    for key in (
        "policy",
        "opponents",
        "players",
        "games",
        "seed",
        "wins",
        "win_rate",
        "ci95",
        "mean_vp",
        "mean_margin",
        "per_seat",
        "records",
    ):
        assert key in a
    assert a["games"] == 6 and a["players"] == 2 and len(a["records"]) == 6
    lo, hi = a["ci95"]
    assert 0.0 <= lo <= a["win_rate"] <= hi <= 1.0
    assert a["win_rate"] == a["wins"] / 6
    assert a["mean_vp"] == pytest.approx(np.mean([r["vp"] for r in a["records"]]))
    assert a["mean_margin"] == pytest.approx(np.mean([r["margin"] for r in a["records"]]))
    assert [r["seat"] for r in a["records"]] == [0, 1, 0, 1, 0, 1]  # every seat
    assert [r["seed"] for r in a["records"]] == [5, 5, 6, 6, 7, 7]  # every deal from both seats
    assert a["per_seat"]["0"]["games"] == 3
    assert a["mean_margin"] > 0 and a["win_rate"] >= 0.5  # the heuristic bot beats random play
    for key in ("wins", "win_rate", "ci95", "mean_vp", "mean_margin", "records"):
        assert a[key] == b[key]  # deterministic


# ------------------------------------------------------------------ training smoke run


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke") / "run"
    code = main(
        [
            "train",
            "--config",
            str(ROOT / "configs" / "fields_of_green" / "smoke.yaml"),
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    return out


def test_smoke_training_writes_everything(smoke_run):
    out = smoke_run
    for name in ("final.zip", "final.json", "resolved.yaml", "progress.csv", "summary.json", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert list((out / "checkpoints").glob("model_*_steps.zip"))
    assert list((out / "pool").glob("pool_*.zip"))  # the smoke config has self-play on
    assert list(out.glob("events.out.tfevents.*"))
    resolved = load_config(out / "resolved.yaml")
    assert resolved.name == "smoke" and resolved.out == str(out)
    meta = checkpoint_metadata(out / "final.zip")
    assert meta["num_players"] == 2 and meta["observation_size"] > 0
    ckpt = sorted((out / "checkpoints").glob("*.zip"))[0]
    assert checkpoint_metadata(ckpt)["observation_size"] == meta["observation_size"]
    header = (out / "progress.csv").read_text().splitlines()[0]
    assert "rollout/win_rate" in header and "time/total_timesteps" in header and "rollout/pool_share" in header


def test_smoke_checkpoint_plays_a_complete_evaluation_game(smoke_run, tmp_path):
    final = smoke_run / "final.zip"
    policy = MaskablePPOPolicy(final)
    assert isinstance(policy, Policy)
    out = tmp_path / "eval.json"
    assert (
        main(
            [
                "evaluate",
                "--policy",
                str(final),
                "--opponents",
                "random",
                "--games",
                "2",
                "--seed",
                "0",
                "--json",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    res = json.loads(out.read_text())
    assert res["players"] == 2 and res["games"] == 2  # players taken from the checkpoint
    assert all(r["decisions"] > 50 for r in res["records"])  # complete games
    from farmgames.training.evaluate import evaluate

    again = evaluate(str(final), "random", games=2, seed=0)
    assert again["records"] == res["records"]  # greedy checkpoint play is deterministic
    sampled = [evaluate(str(final), "random", games=2, seed=0, deterministic=False)["records"] for _ in range(2)]
    assert sampled[0] == sampled[1]  # sampling uses the policy's own seeded generator


def test_mismatched_checkpoint_error(smoke_run, capsys):
    final = smoke_run / "final.zip"
    code = main(["evaluate", "--policy", str(final), "--players", "4", "--games", "1", "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err
    assert str(final) in err and "observation size" in err and "num_players=4" in err


def test_checkpoint_as_opponent_and_self_play_pool(smoke_run, tmp_path):
    from farmgames.training.policy import resolve_opponent
    from farmgames.wrappers import FieldsOfGreenSingleAgentEnv, SingleAgentEnv

    final = smoke_run / "final.zip"
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "a.zip").write_bytes(final.read_bytes())
    (pool / "a.safetensors").write_bytes((smoke_run / "final.safetensors").read_bytes())  # the code-free twin
    env = SingleAgentEnv(
        game="fields_of_green_v0",
        num_players=2,
        opponents={"pool": str(pool), "probability": 1.0},
        resolver=resolve_opponent,
    )
    obs, info = env.reset(seed=0)
    assert env.opponent_names[1 - env.learner_seat].endswith("a.zip")
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward == env.game.returns()[env.learner_seat]
    env2 = FieldsOfGreenSingleAgentEnv(num_players=2, opponents=str(final), resolver=resolve_opponent)
    env2.reset(seed=1)
    with pytest.raises(ValueError, match="resolver"):  # without a resolver the wrappers know no checkpoints
        FieldsOfGreenSingleAgentEnv(num_players=2, opponents=str(final))


def test_league_table(smoke_run, tmp_path, capsys):
    out = tmp_path / "league.json"
    code = main(
        [
            "league",
            "--policies",
            "random",
            "heuristic",
            str(smoke_run / "final.zip"),
            "--games",
            "2",
            "--json",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "ordinal" in printed and "heuristic" in printed
    res = json.loads(out.read_text())
    assert res["tables"] == 3 and len(res["games"]) == 6
    names = [r["policy"] for r in res["ratings"]]
    assert sorted(names) == sorted(["random", "heuristic", str(smoke_run / "final.zip")])
    assert all(r["games"] == 4 for r in res["ratings"])
    ordinals = [r["ordinal"] for r in res["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)


def test_illegal_action_from_a_user_policy_is_reported():
    from farmgames.training.evaluate import evaluate

    class Bad:
        name = "bad-agent"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    with pytest.raises(ValueError, match="policy bad-agent .* chose an illegal action"):
        evaluate(Bad(), "random", players=2, games=1)


def test_init_from_a_mismatched_checkpoint_is_a_config_error(smoke_run, tmp_path, capsys):
    cfg = tmp_path / "warm.yaml"
    cfg.write_text(f"init_from: {smoke_run / 'final.zip'}\nenv:\n  num_players: 3\n")
    assert main(["train", "--config", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'init_from'" in err and "observation size" in err
