"""``farmgames train``: MaskablePPO (sb3-contrib) on the single-agent env of any game, from a YAML config.

    farmgames train --config configs/fields_of_green/ppo_2p_vs_random.yaml
    farmgames train --config configs/fields_of_green/smoke.yaml --total-steps 512 --out /tmp/smoke
    farmgames train --game fields_of_green --config my.yaml     # --game overrides the config's env.game

The output folder (``out`` in the config, default ``runs/<name>``) receives:

* ``resolved.yaml``: the config with every default filled in (``farmgames train --config`` accepts it);
* ``progress.csv`` and TensorBoard event files (``tensorboard --logdir runs``): SB3's metrics plus
  ``rollout/win_rate``, ``rollout/score_mean`` and ``rollout/margin_mean`` over the last episodes;
* ``checkpoints/model_<steps>_steps.zip`` every ``training.checkpoint_every`` steps, and ``final.zip``;
* ``pool/`` (self-play only): the checkpoints the opponents are sampled from;
* ``learning_curve.png`` and ``summary.json`` (steps, wall time, steps/s, last win rate);
* with an ``imitation:`` section (:mod:`farmgames.training.imitation`): ``imitation.zip`` (the policy
  cloned from the teacher bot before PPO, a normal checkpoint) and ``imitation.json`` (accuracies,
  losses, timings). ``total_steps: 0`` then stops after the warm start (``final.zip`` = the clone). A
  run with ``init_from`` starts from that checkpoint instead and skips the imitation phase.

Every checkpoint carries the game configuration it was trained for (game, players, variant, observation and
action sizes; see :func:`farmgames.training.policy.checkpoint_metadata`), so ``farmgames evaluate``
rebuilds the same env and rejects a mismatched one with a clear error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from .checkpoint import architecture_of, read_safetensors, safe_path, save_safe_checkpoint
from .config import Config, ConfigError, load_config
from .games import add_game_argument
from .policy import CHECKPOINT_FORMAT, META_ATTRIBUTE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser, default=None)
    parser.add_argument("--config", required=True, type=Path, help="YAML config (see configs/<game>/)")
    parser.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO (default); rllib: masked PPO on Ray RLlib, self-play across seats "
        "(configs/<game>/rllib/*.yaml; see farmgames.training.rllib_backend)",
    )
    parser.add_argument("--total-steps", type=int, default=None, help="override total_steps")
    parser.add_argument("--out", type=str, default=None, help="override the output folder")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="allow checkpoint opponents that are stable-baselines3 .zip files without a .safetensors file "
        "beside them (loading such a zip unpickles it: it can run code; only for files you trust)",
    )
    parser.add_argument("--seed", type=int, default=None, help="override seed")
    parser.add_argument(
        "--init-from",
        type=str,
        default=None,
        metavar="CHECKPOINT",
        help="start from this checkpoint's weights (override init_from)",
    )
    parser.add_argument("--n-envs", type=int, default=None, help="override training.n_envs")
    parser.add_argument(
        "--vec-env", choices=("dummy", "subproc", "batched"), default=None, help="override training.vec_env"
    )
    parser.add_argument(
        "--vec-workers", type=int, default=None, help="override training.vec_workers (processes stepping batched)"
    )
    parser.add_argument(
        "--vec-parent-envs",
        type=int,
        default=None,
        help="override training.vec_parent_envs (the games this process steps when vec_workers > 1)",
    )
    parser.add_argument("--torch-threads", type=int, default=None, help="override training.torch_threads")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args) -> int:
    if getattr(args, "backend", "sb3") == "rllib":
        from .rllib_backend import run_cli

        return run_cli(args)
    overrides = {
        "env.game": getattr(args, "game", None),
        "total_steps": args.total_steps,
        "out": args.out,
        "seed": args.seed,
        "init_from": args.init_from,
        "training.n_envs": args.n_envs,
        "training.vec_env": args.vec_env,
        "training.vec_workers": args.vec_workers,
        "training.vec_parent_envs": args.vec_parent_envs,
        "training.torch_threads": args.torch_threads,
    }
    if args.no_progress:
        overrides["training.progress_bar"] = False
    try:
        config = load_config(args.config, overrides)
        summary = train(config, trust=bool(getattr(args, "trust_checkpoint", False)))
    except ConfigError as exc:
        print(f"farmgames train: error: {exc}", file=sys.stderr)
        return 2
    if "bc_seconds" in summary:
        print(
            f"imitation warm start: demonstrations {summary['demo_seconds']:.0f} s, behaviour cloning "
            f"{summary['bc_seconds']:.0f} s, held-out accuracy {summary['imitation_val_accuracy']:.3f}"
        )
    print(f"trained {summary['steps']} steps in {summary['seconds']:.0f} s ({summary['steps_per_second']:.0f} steps/s)")
    if summary.get("win_rate") is not None:
        print(f"win rate over the last {summary['episodes_in_window']} training episodes: {summary['win_rate']:.3f}")
    print(f"final checkpoint: {summary['final']}")
    print(
        f"evaluate it:      farmgames evaluate --policy {summary['final']} --opponents "
        f"{' '.join(summary['eval_opponents'])} --games 1000 --seed 10000"
    )
    return 0


# ------------------------------------------------------------------ building blocks


def opponents_spec(config: Config, out_dir: Path):
    """The ``opponents`` argument of the single-agent env for this config."""
    base = config.env.opponents
    if config.self_play.enabled:
        return {
            "pool": str(out_dir / "pool"),
            "probability": config.self_play.probability,
            "base": base,
            "pool_size": config.self_play.pool_size,
        }
    return base


def env_kwargs(config: Config, out_dir: Path, torch_threads: int | None = None, trust: bool = False) -> dict:
    """Keywords of :class:`farmgames.wrappers.SingleAgentEnv` for ``config`` (checkpoints and pools go
    through training's resolver; ``trust``: --trust-checkpoint)."""
    from functools import partial

    from .policy import resolve_opponent

    return {
        "game": config.env.game,
        "resolver": partial(resolve_opponent, trust=True) if trust else resolve_opponent,
        "num_players": config.env.num_players,
        "opponents": opponents_spec(config, out_dir),
        "learner_seat": config.env.learner_seat,
        "deterministic_opponents": config.env.deterministic_opponents,
        "reward_scale": config.env.reward_scale,
        "torch_threads": torch_threads,
        **config.env.variant,
    }


class _EnvFactory:
    """Picklable env constructor (for SubprocVecEnv workers). ``worker``: it runs in a worker process of its
    own, which then keeps the collector off what it inherited (wrappers/heap.py)."""

    def __init__(self, kwargs: dict, worker: bool = False):
        self.kwargs = kwargs
        self.worker = worker

    def __call__(self):
        from farmgames.wrappers.heap import settle_worker
        from farmgames.wrappers.single_agent import SingleAgentEnv

        env = SingleAgentEnv(**self.kwargs)
        if self.worker:
            settle_worker()
        return env


def make_batched_vec_env(kwargs: dict, n_envs: int, seed: int, workers: int = 1, parent_envs: int | None = None):
    """``training.vec_env: batched``: the ``n_envs`` games as one in-process batch behind SB3's VecEnv
    (:func:`farmgames.wrappers.vector.SB3BatchedVecEnv`), seeded as ``make_vec_env`` seeds a DummyVecEnv
    (game ``i`` gets ``seed + i``, each action space too). Its episode-end infos carry what SB3's Monitor
    adds (``episode``) and ``terminal_observation``, so the logs and the callbacks read the same as with
    ``dummy`` (tests/training/test_batched_training.py trains both on the same seed). ``workers > 1``
    (``training.vec_workers``): the same games split over that many processes, this one and ``workers - 1``
    workers (:class:`farmgames.wrappers.process_vector.ProcessBatchedEnv`, forked like ``subproc``'s workers), this
    one stepping ``parent_envs`` of the games (``training.vec_parent_envs``; None: an equal share)."""
    from farmgames.wrappers.vector import BatchedSingleAgentEnv, SB3BatchedVecEnv

    batched: Any
    if workers > 1:
        from farmgames.wrappers.process_vector import ProcessBatchedEnv

        batched = ProcessBatchedEnv(
            n_envs, workers=workers, start_method=_start_method(), parent_envs=parent_envs, **kwargs
        )
    else:
        batched = BatchedSingleAgentEnv(n_envs, **kwargs)
    for rank in range(n_envs):
        batched.map_envs("seed_action_space", [rank], seed + rank)
    vec_env = SB3BatchedVecEnv(batched)
    vec_env.seed(seed)
    return vec_env


def _start_method() -> str:
    import multiprocessing

    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def probe_env(config: Config, out_dir: Path, trust: bool = False) -> dict:
    """Build one env to check the env section early; returns its facts. Errors name the config key."""
    from farmgames.training.policy import CheckpointError
    from farmgames.wrappers.single_agent import SingleAgentEnv

    kwargs = env_kwargs(config, out_dir, trust=trust)
    try:
        env = SingleAgentEnv(**kwargs)
    except CheckpointError as exc:
        raise ConfigError(f"'env.opponents': {exc}") from None
    except (TypeError, ValueError) as exc:
        text = str(exc)
        opponents = str(config.env.opponents)
        mentions = any(word in text for word in ("opponent", "policy", "resolver", "pool", opponents))
        key = "env.opponents" if mentions else "env.variant"
        for name in config.env.variant:
            if name in text:
                key = f"env.variant.{name}"
                break
        raise ConfigError(f"'{key}': {text}") from None
    try:
        env.reset(seed=config.seed)
    finally:
        env.close()
    return env.facts


def make_meta(config: Config, facts: dict) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    try:
        farmgames_version = version("farmgames")
    except PackageNotFoundError:  # pragma: no cover
        farmgames_version = "unknown"
    from farmgames.envs import get_spec

    spec = get_spec(config.env.game)
    return {
        "format": CHECKPOINT_FORMAT,
        "game": spec.name,
        "version": spec.version,
        "env": spec.env_name,
        "gym_id": spec.gym_id,
        "num_players": facts["num_players"],
        "variant": facts["variant"],
        "observation_size": facts["observation_size"],
        "action_size": facts["action_size"],
        "config_name": config.name,
        "init_from": config.init_from,
        "opponents": config.env.opponents,
        "self_play": config.self_play.enabled,
        "seed": config.seed,
        "farmgames_version": farmgames_version,
        # what the code-free .safetensors checkpoint needs to rebuild the network (training/checkpoint.py)
        "architecture": architecture_of(config.ppo),
        **_layouts(spec, facts),
        "training_config": config.to_dict(),
    }


def _layouts(spec, facts: dict) -> dict:
    """The observation and action layout of the env a checkpoint was trained on (names, shapes, ranges)."""
    from farmgames.envs import face

    try:
        env = face(spec.env_name).raw_env(num_players=facts["num_players"], **facts["variant"])
    except Exception:  # noqa: BLE001 - metadata only: a layout that cannot be built is left out
        return {}
    entries = [[e.name, list(e.shape)] for e in env.observer.layout.entries]
    layout = getattr(env.game, "layout", None)  # a core ActionLayout where the game declares its ranges
    if layout is not None and hasattr(layout, "table"):
        actions = [[name, first, last] for name, first, last, _ in layout.table()]
    else:
        actions = [["actions", 0, int(env.game.num_actions) - 1]]
    return {
        "observation_layout": {"order": "gymnasium.spaces.flatten of the Dict observation", "entries": entries},
        "action_layout": actions,
    }


def _activation(name: str):
    import torch.nn as nn

    return {"tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU, "leaky_relu": nn.LeakyReLU}[name]


def _policy_kwargs(p) -> dict:
    from .networks import SymLogFlatten, SymLogLinear

    activation = _activation(p.activation)
    kwargs = {"net_arch": list(p.net_arch), "activation_fn": activation}
    symlog = p.obs_transform == "symlog"
    if p.features_dim > 0:
        kwargs["features_extractor_class"] = SymLogLinear
        kwargs["features_extractor_kwargs"] = {
            "features_dim": p.features_dim,
            "symlog": symlog,
            "activation": activation,
        }
    elif symlog:
        kwargs["features_extractor_class"] = SymLogFlatten
    return kwargs


def _callbacks(config: Config, out_dir: Path, meta: dict):
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

    class SafeCheckpoints(CheckpointCallback):
        """SB3's periodic checkpoints, each with its code-free ``.safetensors`` twin."""

        def _on_step(self) -> bool:
            result = super()._on_step()
            if self.n_calls % self.save_freq == 0:
                save_safe_checkpoint(self.model, self._checkpoint_path(extension="zip"), meta)
            return result

    class EpisodeStats(BaseCallback):
        """Win rate / score / margin of the last ``log_window`` finished episodes, logged every rollout;
        redraws the learning curve every ``checkpoint_every`` steps."""

        def __init__(self):
            super().__init__()
            w = config.training.log_window
            self.won, self.vp, self.margin = deque(maxlen=w), deque(maxlen=w), deque(maxlen=w)
            self.pool = deque(maxlen=w)
            self.episodes = 0
            self._next_plot = config.training.checkpoint_every

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done and "learner_won" in info and info.get("game_over", 1):
                    self.episodes += 1
                    self.won.append(float(info["learner_won"]))
                    self.vp.append(float(info["learner_score"]))
                    self.margin.append(float(info["learner_margin"]))
                    self.pool.append(float(info.get("pool_opponents", False)))
            return True

        def _on_rollout_end(self) -> None:
            if self.won:
                self.logger.record("rollout/win_rate", sum(self.won) / len(self.won))
                self.logger.record("rollout/score_mean", sum(self.vp) / len(self.vp))
                self.logger.record("rollout/margin_mean", sum(self.margin) / len(self.margin))
                if config.self_play.enabled:
                    self.logger.record("rollout/pool_share", sum(self.pool) / len(self.pool))
            self.logger.record("rollout/episodes", self.episodes)
            if self.num_timesteps >= self._next_plot:
                self._next_plot += config.training.checkpoint_every
                _plot(out_dir, config.name)

    class SelfPlayPool(BaseCallback):
        """Save the current policy into the opponents' pool every ``self_play.every_steps`` steps."""

        def __init__(self):
            super().__init__()
            self.pool_dir = out_dir / "pool"
            self._next = config.self_play.every_steps

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                self._next += config.self_play.every_steps
                self.pool_dir.mkdir(parents=True, exist_ok=True)
                tmp = self.pool_dir / f".pool_{self.num_timesteps:010d}.tmp.zip"
                final = self.pool_dir / f"pool_{self.num_timesteps:010d}.zip"
                self.model.save(tmp)
                save_safe_checkpoint(self.model, final, meta)  # workers load this code-free twin
                tmp.rename(final)  # workers never see half a file
                pool = sorted(self.pool_dir.glob("pool_*.zip"))
                for old in pool[: max(0, len(pool) - config.self_play.pool_size)]:
                    old.unlink(missing_ok=True)
                    safe_path(old).unlink(missing_ok=True)
            return True

    every = max(config.training.checkpoint_every // config.training.n_envs, 1)
    callbacks = [
        SafeCheckpoints(save_freq=every, save_path=str(out_dir / "checkpoints"), name_prefix="model"),
        EpisodeStats(),
    ]
    if config.self_play.enabled:
        callbacks.append(SelfPlayPool())
    return callbacks


def build_model(config: Config, env):
    """The MaskablePPO model of ``config`` on ``env`` (a VecEnv or a gymnasium env): the one network
    every checkpoint of this config has (the imitation warm start trains this same model)."""
    from sb3_contrib import MaskablePPO

    p = config.ppo
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        normalize_advantage=p.normalize_advantage,
        policy_kwargs=_policy_kwargs(p),
        seed=config.seed,
        device=config.training.device,
        verbose=0,
    )


def _load_initial_weights(model, path: str, facts: dict) -> None:
    """Copy a checkpoint's network weights into the new model ('init_from'); errors name the key."""
    from .policy import CheckpointError, check_compatible, checkpoint_metadata

    try:
        check_compatible(path, checkpoint_metadata(path), facts)
        if safe_path(path).is_file():  # the code-free twin
            import torch

            tensors, _ = read_safetensors(safe_path(path))
            model.policy.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=True)
        else:  # SB3 reads only the zip's tensors here (torch weights_only, no unpickling of its data)
            model.set_parameters(path, exact_match=True, device=model.device)
    except CheckpointError as exc:
        raise ConfigError(f"'init_from': {exc}") from None
    except Exception as exc:  # noqa: BLE001 - shape mismatches come as RuntimeError/ValueError
        raise ConfigError(
            f"'init_from': checkpoint {path} does not match this config's network "
            f"(ppo.net_arch / ppo.features_dim / ppo.obs_transform): {exc}"
        ) from None


def _plot(out_dir: Path, title: str) -> Path | None:
    from .plots import plot_learning_curve

    csv_path = out_dir / "progress.csv"
    if not csv_path.exists() or csv_path.stat().st_size == 0:
        return None
    try:
        return plot_learning_curve(csv_path, out_dir / "learning_curve.png", title=title)
    except Exception as exc:  # noqa: BLE001 - a plot must never kill a training run
        print(f"warning: learning curve not drawn: {exc}", file=sys.stderr)
        return None


def check_out_dir(out_dir: Path) -> None:
    """Fail before a long run, not after it: the output folder must be a folder we can write in."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"'out': {out_dir} is an existing file, not a folder; give another --out")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".farmgames_write_test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"'out': cannot write in {out_dir} ({exc.strerror or exc})") from None


def train(config: Config, trust: bool = False) -> dict:
    """Train MaskablePPO as configured; returns a summary (also written to ``summary.json``). Every
    ``.zip`` checkpoint gets a code-free ``.safetensors`` twin (training/checkpoint.py). ``trust``
    (--trust-checkpoint) lets checkpoint opponents be zips without one."""
    out_dir = config.out_dir
    check_out_dir(out_dir)
    config.dump(out_dir / "resolved.yaml")
    if config.self_play.enabled:  # the pool belongs to this run: drop a previous run's pool
        for old in (out_dir / "pool").glob("*.zip"):
            old.unlink()
            safe_path(old).unlink(missing_ok=True)
    facts = probe_env(config, out_dir, trust=trust)
    if config.init_from:
        from .policy import CheckpointError, check_compatible, checkpoint_metadata

        try:
            check_compatible(config.init_from, checkpoint_metadata(config.init_from), facts)
        except CheckpointError as exc:
            raise ConfigError(f"'init_from': {exc}") from None

    import torch
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from farmgames.wrappers.heap import settled_heap

    t = config.training
    torch.set_num_threads(t.torch_threads)
    imitate = config.imitation is not None and not config.init_from
    if config.imitation is not None and config.init_from:
        print(f"imitation: skipped, the weights come from init_from {config.init_from}", file=sys.stderr)
    timings = {}
    subproc = t.vec_env == "subproc" and t.n_envs > 1 and config.total_steps > 0
    workers = t.vec_workers if t.vec_env == "batched" and config.total_steps > 0 else 1
    kwargs = env_kwargs(config, out_dir, torch_threads=1 if subproc or workers > 1 else t.torch_threads, trust=trust)
    if t.vec_env == "batched":
        vec_env = make_batched_vec_env(
            kwargs, t.n_envs, config.seed, workers, t.vec_parent_envs if workers > 1 else None
        )
    else:
        vec_env = make_vec_env(
            _EnvFactory(kwargs, worker=subproc),
            n_envs=t.n_envs,
            seed=config.seed,
            vec_env_cls=SubprocVecEnv if subproc else DummyVecEnv,
            # fork: workers inherit the imported modules (forkserver/spawn re-import torch and SB3 in every
            # worker, ~10 s each on a small machine). Safe here: no torch thread pool has run yet.
            vec_env_kwargs={"start_method": _start_method()} if subproc else None,
        )
    try:
        if imitate:  # demonstrations first: their worker processes fork before torch has computed anything
            from .imitation import prepare_demos

            demos, demo_info = prepare_demos(config, facts, out_dir, progress=t.progress_bar)
        model = build_model(config, vec_env)
        if config.init_from:
            _load_initial_weights(model, config.init_from, facts)
        meta = make_meta(config, facts)
        imitation = None
        if imitate:
            from .imitation import run_imitation

            meta["imitation"] = {"teacher": config.imitation.teacher, "games": config.imitation.games}
            setattr(model, META_ATTRIBUTE, meta)
            imitation = run_imitation(config, model, demos, demo_info, out_dir, meta)
            del demos
            timings = {"demo_seconds": imitation["demo_seconds"], "bc_seconds": imitation["bc_seconds"]}
            meta["imitation"]["val_accuracy"] = imitation["val_accuracy"]
        setattr(model, META_ATTRIBUTE, meta)  # saved in every checkpoint's "data" (SB3 saves instance attributes)
        model.set_logger(configure(str(out_dir), ["csv", "tensorboard"]))
        started = time.perf_counter()
        callbacks = _callbacks(config, out_dir, meta)
        interrupted = False
        if config.total_steps > 0:
            try:
                with settled_heap():  # the collector walks only what the run allocates (wrappers/heap.py)
                    model.learn(total_timesteps=config.total_steps, callback=callbacks, progress_bar=t.progress_bar)
            except KeyboardInterrupt:  # Ctrl-C: keep what was learned (final.zip/.safetensors below)
                interrupted = True
                print(f"training interrupted after {model.num_timesteps} steps: saving the model", file=sys.stderr)
    finally:
        vec_env.close()
    elapsed = time.perf_counter() - started
    final = out_dir / "final.zip"
    model.save(final)
    save_safe_checkpoint(model, final, meta)  # final.safetensors: what evaluate, league and pools load
    (out_dir / "final.json").write_text(json.dumps({**meta, "num_timesteps": int(model.num_timesteps)}, indent=2))
    model.logger.close()
    png = _plot(out_dir, config.name)
    stats = callbacks[1]
    base = config.env.opponents
    summary = {
        "config": config.name,
        "game": config.env.game,
        "steps": int(model.num_timesteps),
        "seconds": elapsed,
        "steps_per_second": model.num_timesteps / elapsed if elapsed > 0 else 0.0,
        "episodes": stats.episodes,
        "episodes_in_window": len(stats.won),
        "win_rate": sum(stats.won) / len(stats.won) if stats.won else None,
        "margin_mean": sum(stats.margin) / len(stats.margin) if stats.margin else None,
        "final": str(final),
        "learning_curve": str(png) if png else None,
        "n_envs": t.n_envs,
        "vec_env": t.vec_env,
        "vec_workers": t.vec_workers,
        "vec_parent_envs": t.vec_parent_envs,
        "torch_threads": t.torch_threads,
        "eval_opponents": base if isinstance(base, list) else [base],
        "interrupted": interrupted,
        **timings,
    }
    if imitation is not None:
        summary["imitation_val_accuracy"] = imitation["val_accuracy"]
        summary["imitation_checkpoint"] = imitation["checkpoint"]
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
