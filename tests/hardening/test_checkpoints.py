"""Checkpoints that cannot run code (issue 12: "Code execution from a checkpoint").

A stable-baselines3 zip with one added pickle entry (and intact farmgames metadata) ran its code through
``evaluate --policy``, ``evaluate --opponents``, ``league`` and the single-agent env's checkpoint
opponents. Here the payload only creates a marker file: it is shown to run through plain SB3 loading,
and every farmgames loader is shown to refuse the zip (naming it) or to read its code-free
``.safetensors`` twin instead."""

from __future__ import annotations

import base64
import json
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from farmgames.training.checkpoint import (  # noqa: E402
    SAFE_FORMAT,
    CheckpointError,
    load_safe_policy,
    read_meta,
    read_safetensors,
    safe_path,
    save_safe_checkpoint,
    write_safetensors,
)
from farmgames.training.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class _Marker:
    """Unpickling this creates a file: harmless, but proof that loading ran code."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _model():
    """A small MaskablePPO model as ``farmgames train`` builds it (smoke config, 5x5 farm), its metadata
    and env."""
    from farmgames.training.config import config_from_dict
    from farmgames.training.policy import META_ATTRIBUTE
    from farmgames.training.train import build_model, make_meta
    from farmgames.wrappers.single_agent import SingleAgentEnv

    raw = yaml.safe_load((ROOT / "configs" / "fields_of_green" / "smoke.yaml").read_text())
    raw["env"]["variant"] = {"farm_size": 5}
    config = config_from_dict(raw, "smoke.yaml")
    env = SingleAgentEnv(game="fields_of_green_v0", num_players=2, farm_size=5)
    env.reset(seed=0)
    model = build_model(config, env)
    meta = make_meta(config, env.facts)
    setattr(model, META_ATTRIBUTE, meta)
    return model, meta, env


def _make_model_zip(path: Path) -> Path:
    """A zip as older releases wrote it: farmgames metadata without architecture, no .safetensors twin."""
    model, meta, _ = _model()
    old = {k: v for k, v in meta.items() if k not in ("architecture", "observation_layout", "action_layout")}
    from farmgames.training.policy import META_ATTRIBUTE

    setattr(model, META_ATTRIBUTE, old)
    model.save(path)
    return path


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    """A small MaskablePPO model saved by farmgames' own code (zip with metadata + .safetensors twin)."""
    folder = tmp_path_factory.mktemp("ckpt")
    model, meta, env = _model()
    clean = folder / "clean.zip"
    model.save(clean)
    save_safe_checkpoint(model, clean, meta)
    return folder, clean, model, env


def _evil_copy(clean: Path, folder: Path, name: str) -> tuple[Path, Path]:
    """``clean`` with one added serialized entry in its 'data' JSON; returns (zip, marker path)."""
    marker = folder / f"{name}.marker"
    marker.unlink(missing_ok=True)
    evil = folder / f"{name}.zip"
    with zipfile.ZipFile(clean) as src, zipfile.ZipFile(evil, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "data":
                doc = json.loads(data)
                doc["payload"] = {
                    ":type:": "<class 'builtins.object'>",
                    ":serialized:": base64.b64encode(pickle.dumps(_Marker(marker))).decode(),
                }
                data = json.dumps(doc).encode()
            dst.writestr(item, data)
    return evil, marker


def test_the_payload_runs_through_plain_sb3_load(model_files):
    """Control: the crafted zip really executes code when SB3 loads it (what farmgames used to do)."""
    from sb3_contrib import MaskablePPO

    folder, clean, _, _ = model_files
    evil, marker = _evil_copy(clean, folder, "control")
    assert json.loads(zipfile.ZipFile(evil).read("data"))["farmgames_meta"]["format"]  # metadata intact
    MaskablePPO.load(evil, device="cpu")
    assert marker.exists()


def test_every_farmgames_loader_refuses_the_untrusted_zip(model_files, tmp_path, capsys):
    from farmgames.training.policy import CheckpointPool, MaskablePPOPolicy, load_policy, resolve_opponent
    from farmgames.wrappers.single_agent import SingleAgentEnv

    folder, clean, _, _ = model_files
    evil, marker = _evil_copy(clean, tmp_path, "evil")
    for load in (
        lambda: MaskablePPOPolicy(evil),
        lambda: load_policy(str(evil)),
        lambda: resolve_opponent(str(evil)),
        lambda: SingleAgentEnv(
            game="fields_of_green_v0", num_players=2, farm_size=5, opponents=str(evil), resolver=resolve_opponent
        ).reset(seed=0),
    ):
        with pytest.raises(CheckpointError, match=r"evil\.zip.*runs code.*--trust-checkpoint"):
            load()
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "pool_1.zip").write_bytes(evil.read_bytes())
    p = CheckpointPool(pool)
    p.refresh()
    with pytest.raises(CheckpointError, match="runs code"):
        p.draw(np.random.default_rng(0), 0)
    game = ["--game", "fields_of_green_v0", "--variant", "farm_size=5", "--games", "1", "--no-progress"]
    for argv in (
        ["evaluate", "--policy", str(evil), *game],
        ["evaluate", "--policy", "random", "--opponents", str(evil), *game],
        ["league", "--policies", str(evil), "random", *game],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert str(evil) in err and "--trust-checkpoint" in err and "Traceback" not in err
    assert not marker.exists()


def test_the_safetensors_twin_is_loaded_instead_of_the_zip(model_files, tmp_path):
    """A tampered zip beside its .safetensors twin: the twin is read, the zip's pickle never runs."""
    import torch

    from farmgames.training.policy import MaskablePPOPolicy

    folder, clean, model, env = model_files
    evil, marker = _evil_copy(clean, tmp_path, "final")
    safe_path(evil).write_bytes(safe_path(clean).read_bytes())
    policy = MaskablePPOPolicy(evil)
    assert not marker.exists()
    obs, info = env.reset(seed=3)
    mask = info["action_mask"]
    with torch.no_grad():
        want = model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None]).distribution.probs
    assert policy.act(obs, mask) == int(torch.argmax(want))
    assert (
        main(
            [
                "evaluate",
                "--policy",
                str(evil),
                "--game",
                "fields_of_green_v0",
                "--variant",
                "farm_size=5",
                "--games",
                "2",
                "--no-progress",
            ]
        )
        == 0
    )
    assert not marker.exists()


def test_trust_flag_loads_a_zip_without_twin(model_files, tmp_path):
    from farmgames.training.policy import MaskablePPOPolicy

    folder, clean, _, _ = model_files
    plain = tmp_path / "plain.zip"
    plain.write_bytes(clean.read_bytes())
    with pytest.raises(CheckpointError, match="plain.zip"):
        MaskablePPOPolicy(plain)
    assert MaskablePPOPolicy(plain, trust=True).action_size > 0


def test_safetensors_metadata_describes_the_run(model_files):
    _, clean, model, env = model_files
    meta = read_meta(safe_path(clean))
    assert meta["format"] == SAFE_FORMAT and meta["game"] == "fields_of_green" and meta["version"] == 0
    assert meta["architecture"] == {
        "policy": "MaskableActorCriticPolicy",
        "net_arch": [32],
        "activation": "tanh",
        "obs_transform": "symlog",
        "features_dim": 32,
    }
    assert meta["observation_size"] == env.observation_space.shape[0] and meta["action_size"] == env.action_space.n
    assert meta["observation_layout"]["entries"] and meta["action_layout"][0][0] == "split"
    assert meta["training_config"]["ppo"]["net_arch"] == [32] and meta["farmgames_version"]
    tensors, _ = read_safetensors(safe_path(clean))
    assert set(tensors) == set(model.policy.state_dict())


def _raw(path: Path) -> tuple[int, dict, bytes]:
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    return n, json.loads(data[8 : 8 + n]), data[8 + n :]


def _write_raw(path: Path, header: dict, body: bytes) -> None:
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + body)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda h, b: (h, b[:-10]), "outside"),
        (
            lambda h, b: (
                {
                    **h,
                    next(k for k in h if k != "__metadata__"): {
                        "dtype": "PICKLE",
                        "shape": [1],
                        "data_offsets": [0, 1],
                    },
                },
                b,
            ),
            "dtype",
        ),
        (lambda h, b: ({k: v for k, v in h.items() if k != "__metadata__"}, b), "no farmgames metadata"),
        (
            lambda h, b: ({**h, "__metadata__": {"farmgames": json.dumps({"format": SAFE_FORMAT})}}, b),
            "observation_size",
        ),
    ],
)
def test_damaged_safetensors_are_refused_naming_the_file(model_files, tmp_path, damage, words):
    _, clean, _, _ = model_files
    _, header, body = _raw(safe_path(clean))
    header, body = damage(header, body)
    bad = tmp_path / "bad.safetensors"
    _write_raw(bad, header, body)
    with pytest.raises(CheckpointError, match=words) as err:
        load_safe_policy(bad)
    assert "bad.safetensors" in str(err.value)


def test_safetensors_header_bounds(tmp_path):
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**60) + b"{}")
    with pytest.raises(CheckpointError, match="header"):
        read_safetensors(huge)
    with pytest.raises(CheckpointError, match="does not exist"):
        read_safetensors(tmp_path / "missing.safetensors")
    path = write_safetensors(
        tmp_path / "t.safetensors", {"a": np.arange(6, dtype=np.float32).reshape(2, 3)}, {"k": "v"}
    )
    tensors, meta = read_safetensors(path)
    assert tensors["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and meta == {"k": "v"}
