"""``training.vec_env: batched`` (wrappers/vector.py behind SB3's VecEnv) trains exactly as ``dummy``.

Same config, same seed: the games, the learner's decisions and therefore SB3's Monitor statistics, our
win-rate callback and even the final weights must be the same (MaskablePPO on CPU is deterministic)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from farmgames.training.checkpoint import read_safetensors  # noqa: E402
from farmgames.training.cli import main  # noqa: E402
from farmgames.training.config import ConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "fields_of_green" / "smoke.yaml"


def _train(tmp_path: Path, vec_env: str, *extra: str) -> Path:
    out = tmp_path / vec_env
    code = main(["train", "--config", str(SMOKE), "--out", str(out), "--vec-env", vec_env, "--no-progress", *extra])
    assert code == 0
    return out


def _progress(out: Path) -> list[dict]:
    with (out / "progress.csv").open() as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vec")
    # no self-play: the pool opponents would be the same too, but this keeps the comparison to the env
    cfg = tmp / "cfg.yaml"
    cfg.write_text(SMOKE.read_text().replace("enabled: true", "enabled: false"))
    out = {}
    for name, kind, workers in (("dummy", "dummy", "1"), ("batched", "batched", "1"), ("procs", "batched", "2")):
        code = main(
            [
                "train",
                "--config",
                str(cfg),
                "--out",
                str(tmp / name),
                "--vec-env",
                kind,
                "--vec-workers",
                workers,
                "--total-steps",
                "640",
                "--seed",
                "3",
                "--no-progress",
            ]
        )
        assert code == 0
        out[name] = tmp / name
    return out


def test_batched_is_an_allowed_vec_env(tmp_path):
    assert load_config(SMOKE, {"training.vec_env": "batched"}).training.vec_env == "batched"
    with pytest.raises(ConfigError, match="batched"):
        load_config(SMOKE, {"training.vec_env": "threads"})


def test_vec_workers_is_checked():
    config = load_config(SMOKE, {"training.vec_env": "batched", "training.vec_workers": 2})
    assert config.training.vec_workers == 2
    with pytest.raises(ConfigError, match=r"training\.vec_workers.*needs training\.vec_env: batched, got 'dummy'"):
        load_config(SMOKE, {"training.vec_env": "dummy", "training.vec_workers": 2})
    with pytest.raises(ConfigError, match=r"training\.vec_workers.*from 1 to training\.n_envs \(2\), got 3"):
        load_config(SMOKE, {"training.vec_env": "batched", "training.vec_workers": 3})
    with pytest.raises(ConfigError, match=r"training\.vec_workers.*got 0"):
        load_config(SMOKE, {"training.vec_env": "batched", "training.vec_workers": 0})


def test_vec_parent_envs_is_checked():
    base = {"training.vec_env": "batched", "training.n_envs": 4, "training.vec_workers": 2}
    assert load_config(SMOKE, {**base, "training.vec_parent_envs": 3}).training.vec_parent_envs == 3
    assert load_config(SMOKE, base).training.vec_parent_envs is None  # an equal share
    with pytest.raises(ConfigError, match=r"training\.vec_parent_envs.*from 1 to .* \(3\), got 4"):
        load_config(SMOKE, {**base, "training.vec_parent_envs": 4})
    with pytest.raises(ConfigError, match=r"training\.vec_parent_envs.*from 1 to .* \(3\), got 0"):
        load_config(SMOKE, {**base, "training.vec_parent_envs": 0})
    # not read without a split (e.g. --vec-workers 1 with a config that sets it)
    assert (
        load_config(SMOKE, {**base, "training.vec_workers": 1, "training.vec_parent_envs": 9}).training.vec_workers == 1
    )
    with pytest.raises(ConfigError, match=r"training\.vec_parent_envs.*must be an integer or null, got 'two'"):
        load_config(SMOKE, {**base, "training.vec_parent_envs": "two"})


def test_batched_training_logs_the_same_episodes_as_dummy(runs):
    import json

    a = json.loads((runs["dummy"] / "summary.json").read_text())
    b = json.loads((runs["batched"] / "summary.json").read_text())
    assert b["vec_env"] == "batched" and a["vec_env"] == "dummy"
    assert a["steps"] == b["steps"] == 640
    assert a["episodes"] > 0, "no episode ended: train longer"
    for key in ("episodes", "episodes_in_window", "win_rate", "margin_mean"):
        assert a[key] == b[key], key
    rows_a, rows_b = _progress(runs["dummy"]), _progress(runs["batched"])
    assert len(rows_a) == len(rows_b) > 0
    # SB3's own episode statistics come from Monitor's info["episode"] (dummy) and the adapter's (batched)
    keys = ("rollout/ep_rew_mean", "rollout/ep_len_mean", "rollout/win_rate", "rollout/episodes")
    assert any(row.get("rollout/ep_len_mean") for row in rows_b), "SB3 logged no episode statistics"
    for row_a, row_b in zip(rows_a, rows_b, strict=True):
        for key in keys:
            assert row_a.get(key) == row_b.get(key), key


def test_batched_training_learns_the_same_weights_as_dummy(runs):
    wa, _ = read_safetensors(runs["dummy"] / "final.safetensors")
    for other in ("batched", "procs"):  # procs: the batch split over 2 worker processes (training.vec_workers)
        wb, _ = read_safetensors(runs[other] / "final.safetensors")
        assert wa.keys() == wb.keys()
        for name in wa:
            np.testing.assert_array_equal(wa[name], wb[name], err_msg=f"{other}: {name}")


def test_batched_training_over_worker_processes_logs_the_same_as_dummy(runs):
    import json

    a = json.loads((runs["dummy"] / "summary.json").read_text())
    b = json.loads((runs["procs"] / "summary.json").read_text())
    assert b["vec_workers"] == 2 and b["vec_env"] == "batched"
    for key in ("steps", "episodes", "episodes_in_window", "win_rate", "margin_mean"):
        assert a[key] == b[key], key


def test_batched_training_with_self_play_runs(tmp_path):
    """The shipped smoke config (self-play pool opponents: observation-reading policies the batch asks
    together) through the batched env."""
    out = _train(tmp_path, "batched", "--total-steps", "256")
    assert (out / "final.zip").is_file() and list((out / "pool").glob("pool_*.zip"))
