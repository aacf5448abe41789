"""Training configs: YAML files loaded into checked dataclasses.

A config has five sections; every key is optional and falls back to the defaults below::

    name: ppo_2p_vs_random        # used in the default output folder runs/<name>
    seed: 0
    total_steps: 2000000
    out: runs/ppo_2p_vs_random
    init_from: null               # start from the weights of a checkpoint .zip (same network and spaces)
    env:                          # the single-agent env (farmgames.wrappers.SingleAgentEnv)
      game: fields_of_green_v0    # a registered game version (farmgames.envs.GAMES); a bare name: its newest
      num_players: 2              # within the game's SPEC.min_players .. max_players
      opponents: random           # a bot of the game (SPEC.bots) | path/to/checkpoint.zip | a list, one per other seat
      learner_seat: rotate        # a seat number, rotate or random
      deterministic_opponents: false
      reward_scale: 1.0           # multiplies the learner's reward (e.g. 0.05 with variant reward: margin)
      variant: {}                 # any keyword of the game's env() (e.g. farm_size, reward, ...)
    self_play:                    # a pool of earlier checkpoints of this run, sampled as opponents
      enabled: false
      every_steps: 100000         # add the current policy to the pool every K steps
      pool_size: 10               # keep the K newest pool checkpoints
      probability: 0.5            # chance an episode's opponents come from the pool (else `opponents`)
    ppo:                          # sb3-contrib MaskablePPO hyper-parameters
      learning_rate: 0.0003
      n_steps: 512                # per env copy, per update
      batch_size: 256
      ...
      net_arch: [256, 256]
      activation: tanh
      obs_transform: symlog       # sign(x)*log1p(|x|) in the network (raw counts -> small inputs), or none
      features_dim: 0             # > 0: one shared first layer of this width for policy and value nets
    training:
      n_envs: 8
      vec_env: dummy              # dummy (one process), subproc (one process per env copy) or batched
                                  # (all copies in one process as one batch: farmgames.wrappers.vector)
      vec_workers: 1              # batched only: > 1 splits the batch over that many processes (parent + workers)
                                  # (farmgames.wrappers.process_vector), for bot-bound steps on several cores
      vec_parent_envs: null       # with vec_workers > 1: how many of the games this process steps (null: an
                                  # equal share; not read with vec_workers 1); the workers' bots anticipate
                                  # while the learner thinks
      torch_threads: 1
      checkpoint_every: 100000
      progress_bar: true
      device: cpu
    imitation:                    # optional: behaviour-cloning warm start before PPO (absent/null: none)
      teacher: heuristic          # the bot of the game whose decisions are cloned (SPEC.bots)
      games: 400                  # demonstration games played by the teacher in the learner's seat
      epochs: 8                   # supervised passes over the demonstrations
      batch_size: 256
      learning_rate: 0.001        # Adam, cosine-decayed to 0
      value_coef: 0.5             # weight of the value head's fit to the discounted outcome (0: off)
      validation: 0.1             # share of the games held out to measure accuracy
      cache: null                 # .npz of the demonstrations (default <out>/demos.npz), reused when it fits
      workers: 2                  # processes playing the demonstration games (fork)

With an ``imitation`` section, ``total_steps`` may be 0: only the warm start runs (``final.zip`` is then
the cloned policy).

Unknown or misspelled keys, and values of the wrong type, raise :class:`ConfigError` naming the key
(``ppo.learing_rate``) and listing the valid keys of its section. The loaded config is saved next to
the checkpoints as ``resolved.yaml`` (all defaults filled in), which loads back to the same config.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Union

import yaml


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key and the file."""


@dataclass
class EnvConfig:
    game: str = "fields_of_green_v0"
    num_players: int = 2
    opponents: str | list = "random"
    learner_seat: int | str = "rotate"
    deterministic_opponents: bool = False
    reward_scale: float = 1.0
    variant: dict = field(default_factory=dict)


@dataclass
class SelfPlayConfig:
    enabled: bool = False
    every_steps: int = 100_000
    pool_size: int = 10
    probability: float = 0.5


@dataclass
class PPOConfig:
    learning_rate: float = 3e-4
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    net_arch: list = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    obs_transform: str = "symlog"
    features_dim: int = 0


@dataclass
class TrainingConfig:
    n_envs: int = 8
    vec_env: str = "dummy"
    vec_workers: int = 1
    vec_parent_envs: int | None = None
    torch_threads: int = 1
    checkpoint_every: int = 100_000
    progress_bar: bool = True
    device: str = "cpu"
    log_window: int = 100


@dataclass
class ImitationConfig:
    teacher: str = "heuristic"
    games: int = 400
    epochs: int = 8
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    validation: float = 0.1
    cache: str | None = None
    workers: int = 2


@dataclass
class Config:
    name: str = "run"
    seed: int = 0
    total_steps: int = 1_000_000
    out: str | None = None
    init_from: str | None = None
    env: EnvConfig = field(default_factory=EnvConfig)
    self_play: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    imitation: ImitationConfig | None = None  # optional section: absent or null means no warm start

    @property
    def out_dir(self) -> Path:
        return Path(self.out) if self.out else Path("runs") / self.name

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["out"] = str(self.out_dir)
        return d

    def dump(self, path: str | Path) -> None:
        Path(path).write_text(yaml.safe_dump(self.to_dict(), sort_keys=False))


ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")
OBS_TRANSFORMS = ("symlog", "none")
VEC_ENVS = ("dummy", "subproc", "batched")

# ------------------------------------------------------------------ loading and checking


def load_config(path: str | Path, overrides: dict | None = None) -> Config:
    """Load and check a YAML config file; ``overrides`` maps dotted keys to values
    (``{"total_steps": 500, "training.n_envs": 2}``) and is applied before checking."""
    from farmgames.envs.core.datafiles import DataFileError, load_yaml

    path = Path(path)
    try:  # bounded: size, nesting, expanded aliases, numbers (core.datafiles)
        raw = load_yaml(path, what="config")
    except DataFileError as exc:
        raise ConfigError(f"config {exc}") from None
    if raw is None:
        raw = {}
    return config_from_dict(raw, source=str(path), overrides=overrides)


def config_from_dict(raw: Any, source: str = "config", overrides: dict | None = None) -> Config:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of keys, got {type(raw).__name__}")
    raw = _deep_copy(raw)
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        node = raw
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    config = _build(Config, raw, source, "")
    _check_values(config, source)
    return config


def _deep_copy(value):
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


def _build(cls, raw: Any, source: str, prefix: str):
    where = prefix.rstrip(".") or "the top level"
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: '{where}' must be a mapping, got {raw!r}")
    hints = typing.get_type_hints(cls)
    valid = [f.name for f in fields(cls)]
    for key in raw:
        if key not in valid:
            close = difflib.get_close_matches(str(key), valid, n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            raise ConfigError(f"{source}: unknown key '{prefix}{key}'{hint}; valid keys in {where}: {', '.join(valid)}")
    kwargs = {}
    for f in fields(cls):
        if f.name not in raw:
            continue
        hint = hints[f.name]
        value = raw[f.name]
        key = prefix + f.name
        optional = _optional_section(hint)
        if optional is not None:  # an optional section: null (or absent) means off, a mapping turns it on
            kwargs[f.name] = None if value is None else _build(optional, value, source, key + ".")
        elif dataclasses.is_dataclass(hint):
            kwargs[f.name] = _build(hint, value if value is not None else {}, source, key + ".")
        else:
            kwargs[f.name] = _coerce(value, hint, source, key)
    return cls(**kwargs)


def _optional_section(hint):
    """The dataclass of an ``Optional[SomeSection]`` field, else None."""
    if typing.get_origin(hint) in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and dataclasses.is_dataclass(args[0]):
            return args[0]
    return None


def _type_name(hint) -> str:
    if typing.get_origin(hint) in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(hint))
    if hint is type(None):
        return "null"
    return {
        int: "an integer",
        float: "a number",
        bool: "true/false",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }.get(hint, getattr(hint, "__name__", str(hint)))


def _coerce(value, hint, source: str, key: str):
    if typing.get_origin(hint) in (Union, types.UnionType):
        for arg in typing.get_args(hint):
            try:
                return _coerce(value, arg, source, key)
            except ConfigError:
                continue
        raise ConfigError(f"{source}: '{key}' must be {_type_name(hint)}, got {value!r}")
    ok = False
    if hint is type(None):
        ok = value is None
    elif hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok and isinstance(value, float) and value.is_integer():  # 1e6 written as a float
            value, ok = int(value), True
    elif hint is float:
        if isinstance(value, str):  # PyYAML reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    elif hint is list:
        ok = isinstance(value, list)
    elif hint is dict:
        ok = isinstance(value, dict)
        if value is None:
            value, ok = {}, True
    if not ok:
        raise ConfigError(f"{source}: '{key}' must be {_type_name(hint)}, got {value!r}")
    return value


def _game_spec(game: Any, bad) -> Any:
    """The GameSpec of ``env.game``; a ConfigError (through ``bad``) lists the registered games."""
    from farmgames.envs import get_spec

    try:
        return get_spec(game)
    except ValueError as exc:
        bad("env.game", f"is not a registered game: {exc}")


def _check_values(c: Config, source: str) -> None:
    """Value checks per section; the first problem raises ConfigError naming the key."""

    def bad(key, message):
        raise ConfigError(f"{source}: '{key}' {message}")

    if c.imitation is not None:
        if c.total_steps < 0:
            bad("total_steps", f"must be at least 0 (0: only the imitation warm start), got {c.total_steps}")
    elif c.total_steps < 1:
        bad("total_steps", f"must be at least 1 (0 only with an imitation section), got {c.total_steps}")
    if not isinstance(c.name, str) or not c.name:
        bad("name", "must be a non-empty string")
    spec = _check_env(c.env, bad)
    _check_self_play(c.self_play, bad)
    _check_ppo(c.ppo, bad)
    _check_training(c.training, bad)
    if c.imitation is not None:
        _check_imitation(c.imitation, spec, bad)
    p, t = c.ppo, c.training
    if p.batch_size > p.n_steps * t.n_envs:
        bad(
            "ppo.batch_size",
            f"({p.batch_size}) is larger than one rollout, ppo.n_steps x training.n_envs = {p.n_steps * t.n_envs}",
        )


def _check_env(e: EnvConfig, bad: Callable[[str, str], Any]) -> Any:
    spec = _game_spec(e.game, bad)
    if e.num_players not in spec.player_counts:
        counts = ", ".join(str(n) for n in spec.player_counts)
        bad("env.num_players", f"must be one of {counts} for {spec.name}, got {e.num_players}")
    if isinstance(e.learner_seat, int):
        if not 0 <= e.learner_seat < e.num_players:
            bad(
                "env.learner_seat", f"must be a seat 0..{e.num_players - 1}, 'rotate' or 'random', got {e.learner_seat}"
            )
    elif e.learner_seat not in ("rotate", "random"):
        bad("env.learner_seat", f"must be a seat number, 'rotate' or 'random', got {e.learner_seat!r}")
    if isinstance(e.opponents, list):
        if len(e.opponents) != e.num_players - 1:
            bad(
                "env.opponents",
                f"lists one opponent per other seat: {e.num_players - 1} for "
                f"{e.num_players} players, got {len(e.opponents)}",
            )
        for i, o in enumerate(e.opponents):
            if not isinstance(o, str):
                bad(
                    f"env.opponents[{i}]",
                    f"must be a string (a bot of {spec.name}: {', '.join(sorted(spec.bots))}; "
                    f"or a checkpoint path), got {o!r}",
                )
    for key in ("num_players", "seed"):
        if key in e.variant:
            bad(f"env.variant.{key}", f"is set by the config itself (use env.{key} / seed), not as a variant")
    return spec


def _check_self_play(s: SelfPlayConfig, bad: Callable[[str, str], Any]) -> None:
    if s.every_steps < 1:
        bad("self_play.every_steps", f"must be at least 1, got {s.every_steps}")
    if s.pool_size < 1:
        bad("self_play.pool_size", f"must be at least 1, got {s.pool_size}")
    if not 0.0 <= s.probability <= 1.0:
        bad("self_play.probability", f"must be between 0 and 1, got {s.probability}")


def _check_ppo(p: PPOConfig, bad: Callable[[str, str], Any]) -> None:
    for key in ("learning_rate", "clip_range"):
        if getattr(p, key) <= 0:
            bad(f"ppo.{key}", f"must be positive, got {getattr(p, key)}")
    for key in ("n_steps", "batch_size", "n_epochs"):
        if getattr(p, key) < 1:
            bad(f"ppo.{key}", f"must be at least 1, got {getattr(p, key)}")
    for key in ("gamma", "gae_lambda"):
        if not 0.0 <= getattr(p, key) <= 1.0:
            bad(f"ppo.{key}", f"must be between 0 and 1, got {getattr(p, key)}")
    if not p.net_arch or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in p.net_arch):
        bad("ppo.net_arch", f"must be a non-empty list of positive layer sizes, got {p.net_arch!r}")
    if p.activation not in ACTIVATIONS:
        bad("ppo.activation", f"must be one of {', '.join(ACTIVATIONS)}, got {p.activation!r}")
    if p.obs_transform not in OBS_TRANSFORMS:
        bad("ppo.obs_transform", f"must be one of {', '.join(OBS_TRANSFORMS)}, got {p.obs_transform!r}")
    if p.features_dim < 0:
        bad("ppo.features_dim", f"must be 0 (no shared layer) or a positive width, got {p.features_dim}")


def _check_training(t: TrainingConfig, bad: Callable[[str, str], Any]) -> None:
    if t.n_envs < 1:
        bad("training.n_envs", f"must be at least 1, got {t.n_envs}")
    if t.vec_env not in VEC_ENVS:
        bad("training.vec_env", f"must be one of {', '.join(VEC_ENVS)}, got {t.vec_env!r}")
    if t.vec_workers < 1 or t.vec_workers > t.n_envs:
        bad("training.vec_workers", f"must be from 1 to training.n_envs ({t.n_envs}), got {t.vec_workers}")
    if t.vec_workers > 1 and t.vec_env != "batched":
        bad("training.vec_workers", f"splits the batched env: needs training.vec_env: batched, got {t.vec_env!r}")
    if t.vec_parent_envs is not None and t.vec_workers > 1:  # (no split, vec_workers 1: the process steps all)
        if not 1 <= t.vec_parent_envs <= t.n_envs - (t.vec_workers - 1):
            bad(
                "training.vec_parent_envs",
                f"must be from 1 to training.n_envs - (training.vec_workers - 1) ({t.n_envs - (t.vec_workers - 1)}), "
                f"got {t.vec_parent_envs}",
            )
    if t.torch_threads < 1:
        bad("training.torch_threads", f"must be at least 1, got {t.torch_threads}")
    if t.checkpoint_every < 1:
        bad("training.checkpoint_every", f"must be at least 1, got {t.checkpoint_every}")
    if t.log_window < 1:
        bad("training.log_window", f"must be at least 1, got {t.log_window}")


def _check_imitation(i: ImitationConfig, spec: Any, bad: Callable[[str, str], Any]) -> None:
    if i.teacher not in spec.bots:
        bad(
            "imitation.teacher",
            f"must be one of {', '.join(sorted(spec.bots))} (a bot of {spec.name} that "
            f"reads the engine state), got {i.teacher!r}",
        )
    if i.games < 2:
        bad("imitation.games", f"must be at least 2 (at least one game is held out for validation), got {i.games}")
    for key in ("epochs", "batch_size", "workers"):
        if getattr(i, key) < 1:
            bad(f"imitation.{key}", f"must be at least 1, got {getattr(i, key)}")
    if i.learning_rate <= 0:
        bad("imitation.learning_rate", f"must be positive, got {i.learning_rate}")
    if i.value_coef < 0:
        bad("imitation.value_coef", f"must be 0 (no value fit) or positive, got {i.value_coef}")
    if not 0.0 < i.validation < 1.0:
        bad("imitation.validation", f"must be between 0 and 1 (share of games held out), got {i.validation}")
    if i.cache is not None and not i.cache.endswith(".npz"):
        bad("imitation.cache", f"must be a .npz path or null, got {i.cache!r}")
