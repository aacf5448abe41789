"""``farmgames train --backend rllib``: masked PPO on Ray RLlib (new API stack), self-play across seats.

    farmgames train --backend rllib --config configs/key_harvest/rllib/selfplay_2p.yaml

One shared RLModule (RLlib's ``ActionMaskingTorchRLModule``) plays every seat of the game's parallel env
(:mod:`farmgames.wrappers.integrations.rllib`), sampled by several env runners. Without ``ray.address``
the command starts a local Ray on 127.0.0.1; with ``address: auto`` (or ``<head-ip>:6379``) it joins a
cluster started with ``ray start --head`` on one machine and ``ray start --address <head-ip>:6379`` on the
others (farmgames installed on each). Checkpoints (``<out>/checkpoint_<iteration>``, ``<out>/final``) are
RLlib checkpoints plus a ``farmgames_policy.json``; ``evaluate``/``league`` load them as policies
(:class:`RLlibPolicy`, Ray needed). Ray pins gymnasium 1.2.x: install it in a venv of its own.

Config (YAML)::

    backend: rllib
    out: runs/key_harvest/rllib_2p_selfplay
    seed: 0
    env: {game: key_harvest_v0, num_players: 2, variant: {}}
    ray: {address: null, num_cpus: 2}
    training: {iterations: 20, env_runners: 2, train_batch_size: 4000, minibatch_size: 512, lr: 0.0003,
               hidden: [128, 128], checkpoint_every: 5}
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["RLlibPolicy", "is_rllib_checkpoint", "load_rllib_config", "run_cli", "train_rllib"]

POLICY_FILE = "farmgames_policy.json"
MODULE_ID = "shared"

_DEFAULTS: dict[str, Any] = {
    "out": "runs/rllib",
    "seed": 0,
    "env": {"game": "fields_of_green", "num_players": None, "variant": {}},
    "ray": {"address": None, "num_cpus": 2},
    "training": {
        "iterations": 10,
        "env_runners": 2,
        "train_batch_size": 4000,
        "minibatch_size": 512,
        "lr": 3e-4,
        "hidden": [128, 128],
        "checkpoint_every": 5,
    },
}


class RLlibConfigError(ValueError):
    pass


def load_rllib_config(path: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The config with defaults filled in; unknown keys are refused with their name."""
    from farmgames.envs.core.datafiles import load_yaml

    raw = load_yaml(path, "config") or {}
    if not isinstance(raw, dict):
        raise RLlibConfigError(f"{path}: a config is a mapping")
    if raw.get("backend", "rllib") != "rllib":
        raise RLlibConfigError(f"{path}: backend must be 'rllib' here, got {raw.get('backend')!r}")
    config = json.loads(json.dumps(_DEFAULTS))
    for key, value in raw.items():
        if key == "backend":
            continue
        if key not in config:
            raise RLlibConfigError(f"{path}: unknown key {key!r}; valid: backend, {', '.join(config)}")
        if isinstance(config[key], dict):
            if not isinstance(value, dict):
                raise RLlibConfigError(f"{path}: {key} must be a mapping")
            unknown = set(value) - set(config[key])
            if unknown:
                raise RLlibConfigError(
                    f"{path}: unknown key {key}.{sorted(unknown)[0]}; valid: {', '.join(config[key])}"
                )
            config[key].update(value)
        else:
            config[key] = value
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        *head, last = dotted.split(".")
        target = config
        for part in head:
            target = target[part]
        target[last] = value
    from farmgames.envs import get_spec

    config["env"]["game"] = get_spec(config["env"]["game"]).env_name  # validates the name, pins the version
    return config


def _init_ray(config: dict[str, Any]) -> Any:
    import ray

    address = config["ray"]["address"]
    if ray.is_initialized():
        return ray
    if address is None:  # a local Ray on loopback only
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        ray.init(
            address="local",
            _node_ip_address="127.0.0.1",
            num_cpus=config["ray"]["num_cpus"],
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    else:
        ray.init(address=address, log_to_driver=False)
    return ray


def _write_policy_file(folder: Path, config: dict[str, Any]) -> None:
    env = config["env"]
    meta = {
        "backend": "rllib",
        "module": MODULE_ID,
        "env": env["game"],
        "game": env["game"],
        "num_players": env["num_players"],
        "variant": env["variant"],
    }
    (folder / POLICY_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def train_rllib(config: dict[str, Any]) -> dict[str, Any]:
    """Train; returns a summary (iterations, env steps, episodes, checkpoint folders)."""
    from farmgames.wrappers.integrations.rllib import ppo_config

    ray = _init_ray(config)
    env, tr = config["env"], config["training"]
    out = Path(config["out"])
    out.mkdir(parents=True, exist_ok=True)
    algo_config = ppo_config(
        env["game"],
        num_players=env["num_players"],
        env_runners=tr["env_runners"],
        hidden=tuple(tr["hidden"]),
        train_batch_size=tr["train_batch_size"],
        minibatch_size=tr["minibatch_size"],
        lr=tr["lr"],
        **env["variant"],
    )
    algo_config = algo_config.debugging(seed=config["seed"])
    algo = algo_config.build_algo()
    checkpoints: list[str] = []
    result: dict[str, Any] = {}
    try:
        for iteration in range(1, tr["iterations"] + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            print(
                f"iteration {iteration}: env steps {runners.get('num_env_steps_sampled_lifetime')}, "
                f"episodes {runners.get('num_episodes_lifetime')}",
                flush=True,
            )
            if tr["checkpoint_every"] and iteration % tr["checkpoint_every"] == 0:
                checkpoints.append(_save(algo, out / f"checkpoint_{iteration}", config))
        checkpoints.append(_save(algo, out / "final", config))
    finally:
        algo.stop()
    runners = result.get("env_runners", {})
    summary = {
        "iterations": tr["iterations"],
        "env_steps": runners.get("num_env_steps_sampled_lifetime"),
        "episodes": runners.get("num_episodes_lifetime"),
        "checkpoints": checkpoints,
        "nodes": len(ray.nodes()),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return summary


def _save(algo: Any, folder: Path, config: dict[str, Any]) -> str:
    path = algo.save_to_path(str(folder.resolve()))
    _write_policy_file(Path(path), config)
    return str(path)


def is_rllib_checkpoint(path: str | Path) -> bool:
    return (Path(path) / POLICY_FILE).is_file()


class RLlibPolicy:
    """A trained RLlib checkpoint as a farmgames Policy (``act(observation, action_mask)``) for evaluate,
    league and the single-agent env's opponents. Observations are the flat vectors the arena gives
    (:func:`farmgames.wrappers.make_flat_aec`), reordered into the env's layout order the module saw."""

    needs_observation = True

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int = 0, **_: Any):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        self.path = Path(path)
        self.meta = json.loads((self.path / POLICY_FILE).read_text(encoding="utf-8"))
        self.module = RLModule.from_checkpoint(self.path / "learner_group" / "learner" / "rl_module" / MODULE_ID)
        self.deterministic = bool(deterministic)
        self._torch = torch
        self._generator = torch.Generator().manual_seed(int(seed))
        self._order = self._layout_order()
        self._num_actions = int(self.module.action_space.n)

    def _layout_order(self) -> np.ndarray:
        """``order[i]``: the layout index of element i of the arena's flat vector."""
        from gymnasium import spaces

        from farmgames.envs import face

        env = face(self.meta["env"]).raw_env(num_players=self.meta["num_players"], **self.meta["variant"])
        space = env.observation_space(env.possible_agents[0])["observation"]
        index = np.arange(env.observer.layout.size, dtype=np.float64)
        return np.asarray(spaces.flatten(space, env.observer.layout.views(index)), dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator.manual_seed(int(seed))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        torch = self._torch
        ordered = np.empty(len(self._order), np.float32)
        ordered[self._order] = np.asarray(observation, np.float32)
        mask = np.zeros(self._num_actions, np.float32)  # the parallel env's actions: the game's + noop
        mask[: len(action_mask)] = np.asarray(action_mask, np.float32)
        batch = {"obs": {"observations": torch.as_tensor(ordered)[None], "action_mask": torch.as_tensor(mask)[None]}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        logits = torch.where(torch.as_tensor(mask) > 0, logits, torch.tensor(-1e9))
        if self.deterministic:
            return int(torch.argmax(logits))
        return int(torch.multinomial(torch.softmax(logits, -1), 1, generator=self._generator))


def run_cli(args: Any) -> int:
    """The ``farmgames train --backend rllib`` command."""
    overrides = {
        "out": getattr(args, "out", None),
        "seed": getattr(args, "seed", None),
        "env.game": getattr(args, "game", None),
    }
    try:
        config = load_rllib_config(args.config, overrides)
    except (RLlibConfigError, ValueError, OSError) as exc:
        print(f"farmgames train: error: {exc}", file=sys.stderr)
        return 2
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        print(
            "farmgames train --backend rllib: Ray RLlib is not installed (pip install 'ray[rllib]' in a venv "
            "of its own: it pins gymnasium 1.2.x)",
            file=sys.stderr,
        )
        return 2
    summary = train_rllib(config)
    print(json.dumps(summary, indent=2, default=str))
    return 0
