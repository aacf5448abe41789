"""How ``farmgames bench`` measures: interleaved timed repeats with the reference after each, peak RSS of
many envs in subprocesses, observation sizes, MaskablePPO's time inside the env (subprocess), the machine.

Method: one warm-up run per case, then ``repeats`` timed runs of ``seconds`` each, interleaved (repeat 1
of every case, then repeat 2 …). The reference ``connect_four_v3`` runs again right after every timed run
of every other case, and a ratio is the median over repeats of (case rate / the rate of the reference run
that followed it): runs seconds apart see the same background load, so ratios hold on a shared machine
where absolute rates drift. Spread is half the range of the repeats, as a percentage of the median.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cases import REFERENCE, Case, Runner, _choose, pz_env_factory

# ============================================================================ statistics


def summarise(values: list[float]) -> dict[str, float]:
    med = statistics.median(values)
    spread = (max(values) - min(values)) / 2 / med * 100 if med else 0.0
    return {"median": med, "min": min(values), "max": max(values), "spread_pct": spread, "n": len(values)}


def short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 160 else text[:157] + "..."


@dataclass
class CaseResult:
    case: Case
    rates: list[float] = field(default_factory=list)
    steps: int = 0
    games: int = 0
    elapsed: float = 0.0
    error: str | None = None
    runner: Runner | None = None
    game_rates: list[float] = field(default_factory=list)  # whole-game runners only
    ratios: list[float] = field(default_factory=list)  # to the reference run right after

    def steps_per_game(self) -> float | None:
        return self.steps / self.games if self.games else None

    def timed_run(self, seconds: float, rng: random.Random) -> float | None:
        """One timed run; its rate (None after an error, which is kept)."""
        try:
            steps, games, elapsed = self.runner(seconds, rng)
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            self.error = short(exc)
            return None
        self.rates.append(steps / elapsed)
        self.steps += steps
        self.games += games
        self.elapsed += elapsed
        if self.case.whole_games:
            self.game_rates.append(games / elapsed)
        return steps / elapsed


class Progress:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int):
        self._progress = None
        if enabled:
            try:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
                from rich.progress import Progress as RichProgress

                self._progress = RichProgress(
                    TextColumn("{task.description:<44}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=Console(stderr=True),
                    transient=True,
                )
                self._progress.start()
                self._task = self._progress.add_task("bench", total=total)
            except ImportError:  # pragma: no cover
                self._progress = None

    def step(self, description: str, advance: int = 1) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description, advance=advance)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


# ============================================================================ throughput


def build_runners(cases: list[Case]) -> list[CaseResult]:
    """Construct every case's runner (env construction is not timed); failures are kept as errors."""
    results = []
    for case in cases:
        result = CaseResult(case)
        try:
            result.runner = case.build()
        except Exception as exc:  # noqa: BLE001 - an env that does not exist yet is reported, not fatal
            result.error = short(exc)
        results.append(result)
    return results


def measure_throughput(live: list[CaseResult], mode: dict, rng: random.Random, progress: Progress) -> None:
    """Warm-up, then interleaved repeats, the reference right after every other case's timed run."""
    for r in live:
        progress.step(f"warm-up {r.case.key}")
        try:
            r.runner(mode["warmup"], rng)
        except Exception as exc:  # noqa: BLE001
            r.error = short(exc)
    ref = next((r for r in live if r.case.key == REFERENCE), None)
    for rep in range(mode["repeats"]):
        for r in live:
            progress.step(f"repeat {rep + 1}/{mode['repeats']} {r.case.key}")
            if r.error is not None or r is ref:
                continue
            rate = r.timed_run(mode["seconds"], rng)
            # the reference runs right after every case, so each ratio compares runs made seconds
            # apart (the load of a shared machine drifts over a round of all cases)
            if rate is not None and ref is not None and ref.error is None:
                ref_rate = ref.timed_run(mode["seconds"], rng)
                if ref_rate is not None:
                    r.ratios.append(rate / ref_rate)


def throughput_rows(results: list[CaseResult]) -> list[dict]:
    ref = next((r for r in results if r.case.key == REFERENCE and r.rates), None)
    by_key = {r.case.key: r for r in results}
    rows = []
    for r in results:
        c = r.case
        row: dict[str, Any] = {
            "key": c.key,
            "label": c.label,
            "group": c.group,
            "players": c.players,
            "unit": c.unit,
            "note": c.note,
            "game": c.game,
        }
        if r.error is not None or not r.rates:
            row["error"] = r.error or "no timed repeat finished"
            rows.append(row)
            continue
        row["steps_per_s"] = summarise(r.rates)
        row["repeats"] = [round(x, 1) for x in r.rates]
        row["steps_per_game"] = r.steps_per_game()
        if c.whole_games:
            row["games_per_s"] = summarise(r.game_rates)
        elif r.games and c.unit != "clone":
            row["games_per_s"] = {"median": row["steps_per_s"]["median"] / r.steps_per_game(), "derived": True}
        if r is ref:
            row["ratio_to_reference"] = 1.0
        elif r.ratios:
            row["ratio_to_reference"] = statistics.median(r.ratios)
            row["ratios"] = [round(x, 3) for x in r.ratios]
        other = by_key.get(c.versus) if c.versus else None
        if other is not None and other.rates and len(other.rates) == len(r.rates):
            # the two cases ran in the same repeats (seconds apart): the median of the per-repeat ratios
            pairs = [a / b for a, b in zip(r.rates, other.rates, strict=True)]
            row["versus"] = c.versus
            row["ratio_to_versus"] = statistics.median(pairs)
            row["versus_ratios"] = [round(x, 3) for x in pairs]
        rows.append(row)
    return rows


# ============================================================================ memory (subprocesses)


def _reset_peak_rss() -> bool:
    """Linux: make the peak RSS (VmHWM) restart from the current RSS, so import-time transients do
    not hide what the envs add. Returns False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_kb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def _rss_now_kb() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


def _memory_factory(spec: dict):
    """(imports done) -> make. Imports happen here so the baseline pays them too."""
    import numpy as np  # noqa: F401
    import pettingzoo  # noqa: F401

    if spec["what"] == "env":
        from farmgames.envs import face

        module = face(spec["game"])
        return lambda: module.env(num_players=spec["players"])
    if spec["what"] == "engine":
        from farmgames.envs import get_spec

        game = get_spec(spec["game"])
        seeds = iter(range(10**9))
        return lambda: game.new_game(num_players=spec["players"], seed=next(seeds))
    make = pz_env_factory(spec["kind"])
    make().close()  # the env module's imports belong to the baseline
    return make


def _play(env: Any, spec: dict, i: int, rng: random.Random) -> None:
    if spec["what"] == "engine":
        for _ in range(spec["steps"]):
            if env.is_terminal():
                break
            legal = env.legal_actions()
            env.apply(legal[rng.randrange(len(legal))])
        return
    env.reset(seed=i)
    for _ in range(spec["steps"]):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _choose(obs["action_mask"], rng))


def memory_child(arg: str) -> None:
    """Subprocess body: after the imports, build ``n`` envs, play ``steps`` random steps in each, and
    print the peak RSS since the imports finished (and the resident RSS at the end) as JSON."""
    import gc

    spec = json.loads(arg)
    make = _memory_factory(spec)
    gc.collect()
    peak_reset = _reset_peak_rss()
    rng = random.Random(0)
    envs = []
    for i in range(spec["n"]):
        env = make()
        _play(env, spec, i, rng)
        envs.append(env)
    gc.collect()
    print(json.dumps({"peak_kb": _peak_rss_kb(), "rss_kb": _rss_now_kb(), "n": len(envs), "peak_reset": peak_reset}))


def run_child(function: str, spec: dict, timeout: float = 900) -> dict:
    """``function(json.dumps(spec))`` of this module in a fresh interpreter; its last stdout line as JSON."""
    code = f"import sys; from farmgames.training.bench.measure import {function}; {function}(sys.argv[1])"
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(spec)], capture_output=True, text=True, timeout=timeout, env=env
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(" | ".join(tail) or f"exit code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory_rows(jobs: list[dict], progress: Progress) -> list[dict]:
    """Run the memory jobs (one subprocess each, count 0 = the baseline) and subtract the baselines."""
    measured: dict[tuple[str, int], dict] = {}
    errors: dict[str, str] = {}
    targets: dict[str, dict] = {}
    for job in jobs:
        kind, n = job["kind"], job["n"]
        targets[kind] = job
        progress.step(f"memory {kind} x{n}")
        if kind in errors:
            continue
        try:
            measured[(kind, n)] = run_child("memory_child", job)
        except Exception as exc:  # noqa: BLE001
            errors[kind] = short(exc)
    return [_memory_row(kind, job, measured, errors) for kind, job in targets.items()]


def _memory_row(kind: str, job: dict, measured: dict, errors: dict) -> dict:
    row: dict[str, Any] = {
        "kind": kind,
        "env": job["label"],
        "players": job["players"],
        "game": job["game"],
        "steps_played_per_env": job["steps"],
    }
    if kind in errors:
        row["error"] = errors[kind]
        return row
    base = measured[(kind, 0)]
    row["baseline_mib"] = base["peak_kb"] / 1024
    counts = sorted(n for (k, n) in measured if k == kind and n)
    for n in counts:
        # peak RSS over the baseline's peak, and resident RSS over the baseline's
        row[f"envs_{n}_mib"] = (measured[(kind, n)]["peak_kb"] - base["peak_kb"]) / 1024
        row[f"envs_{n}_rss_mib"] = (measured[(kind, n)]["rss_kb"] - base["rss_kb"]) / 1024
    if len(counts) >= 2:
        lo, hi = counts[0], counts[-1]
        row["per_env_kib"] = (measured[(kind, hi)]["rss_kb"] - measured[(kind, lo)]["rss_kb"]) / (hi - lo)
    row["counts"] = counts
    return row


# ============================================================================ observation size


def _nbytes(value) -> int:
    import numpy as np

    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    return int(np.asarray(value).nbytes)


def observation_sizes(makers: list) -> list[dict]:
    rows = []
    for label, make in makers:
        try:
            env = make()
            env.reset(seed=0)
            obs = env.observe(env.agent_selection)
            rows.append(
                {
                    "env": label,
                    "observation_bytes": _nbytes(obs["observation"]),
                    "mask_bytes": _nbytes(obs["action_mask"]),
                    "mask_size": int(len(obs["action_mask"])),
                    "parts": len(obs["observation"]) if isinstance(obs["observation"], dict) else 1,
                }
            )
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            rows.append({"env": label, "error": short(exc)})
    return rows


# ============================================================================ MaskablePPO share (subprocess)


def ppo_settings(config_path: str | None, candidates: tuple[str, ...], game: str) -> tuple[dict, str]:
    """The env and PPO settings of a shipped config (the first of ``candidates`` that exists), or the
    config defaults for ``game`` (its fewest players, random opponents), as plain dicts."""
    from farmgames.envs import get_spec
    from farmgames.training.config import Config, load_config

    path = config_path
    root = Path(__file__).resolve().parents[2]  # the source checkout (editable install)
    for candidate in candidates if path is None else ():
        found = next((base / candidate for base in (Path.cwd(), root) if (base / candidate).exists()), None)
        if found is not None:
            path = str(found)
            break
    if path:
        config = load_config(path)
    else:
        config = Config()
        config.env.game = game
        config.env.num_players = get_spec(game).min_players
    d = config.to_dict()
    return {"env": d["env"], "ppo": d["ppo"], "training": d["training"], "seed": d["seed"]}, path or "config defaults"


def _timed_env_class(clock: dict):
    import gymnasium

    perf = time.perf_counter

    class TimedEnv(gymnasium.Wrapper):
        """Adds the time spent in step/reset/action_masks of the wrapped env to ``clock``."""

        def step(self, action):
            t = perf()
            out = self.env.step(action)
            clock["step"] += perf() - t
            clock["steps"] += 1
            return out

        def reset(self, **kwargs):
            t = perf()
            out = self.env.reset(**kwargs)
            clock["reset"] += perf() - t
            return out

        def action_masks(self):
            t = perf()
            out = self.env.get_wrapper_attr("action_masks")()
            clock["action_masks"] += perf() - t
            return out

    return TimedEnv


def _timed_batched(kwargs: dict, n_envs: int, clock: dict):
    """The batched env as an SB3 VecEnv (with VecMonitor, as Monitor for the others), its step/reset/masks timed."""
    from stable_baselines3.common.vec_env import VecMonitor

    from farmgames.wrappers.vector import SB3BatchedVecEnv

    return VecMonitor(_timed_vec(SB3BatchedVecEnv(n_envs, **kwargs), n_envs, clock))


def _timed_procs(kwargs: dict, n_envs: int, clock: dict, parent_envs: int | None = None):
    """The batched env split over processes (``training.vec_workers``: one per usable core, the parent's included,
    at most ``n_envs``; forked, as ``farmgames train`` starts them; the parent stepping ``parent_envs`` games, the
    config's ``training.vec_parent_envs``) as an SB3 VecEnv, timed as ``_timed_batched``."""
    from stable_baselines3.common.vec_env import VecMonitor

    from farmgames.training.train import _start_method
    from farmgames.wrappers.process_vector import ProcessBatchedEnv, default_workers
    from farmgames.wrappers.vector import SB3BatchedVecEnv

    workers = min(default_workers(), n_envs)
    if workers == 1 or (parent_envs is not None and not 1 <= parent_envs <= n_envs - (workers - 1)):
        parent_envs = None  # (no split here, or a config written for more cores: an equal share)
    batched = ProcessBatchedEnv(
        n_envs, workers=workers, start_method=_start_method(), parent_envs=parent_envs, **kwargs
    )
    clock["vec_workers"] = batched.workers
    clock["vec_parent_envs"] = batched.parent_envs
    return VecMonitor(_timed_vec(SB3BatchedVecEnv(batched), n_envs, clock))


def _timed_subproc(kwargs: dict, n_envs: int, clock: dict):
    """SB3's SubprocVecEnv of ``n_envs`` single envs (``training.vec_env: subproc``, forked as ``farmgames train``
    forks them), each with its Monitor in the worker; the main process's time from sending the actions to
    receiving the results (and in reset and the masks) is the env's: the learner waits for the workers."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from farmgames.training.train import _EnvFactory, _start_method

    vec = make_vec_env(
        _EnvFactory(kwargs, worker=True),
        n_envs=n_envs,
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": _start_method()},
    )
    return _timed_vec(vec, n_envs, clock)


def _timed_vec(vec, n_envs: int, clock: dict):
    """``vec`` (an SB3 VecEnv) with its step (``step_async`` + ``step_wait``), reset and masks timed into ``clock``."""
    perf = time.perf_counter
    step_async, step_wait, reset, env_method = vec.step_async, vec.step_wait, vec.reset, vec.env_method
    sent = [0.0]

    def timed_step_async(actions):
        sent[0] = perf()
        step_async(actions)

    def timed_step_wait():
        out = step_wait()
        clock["step"] += perf() - sent[0]
        clock["steps"] += n_envs
        return out

    def timed_reset():
        t = perf()
        out = reset()
        clock["reset"] += perf() - t
        return out

    def timed_env_method(name, *args, **kw):
        t = perf()
        out = env_method(name, *args, **kw)
        if name == "action_masks":
            clock["action_masks"] += perf() - t
        return out

    vec.step_async, vec.step_wait = timed_step_async, timed_step_wait
    vec.reset, vec.env_method = timed_reset, timed_env_method
    return vec


def ppo_child(arg: str) -> None:
    """Subprocess body: MaskablePPO.learn for ``steps`` steps; time spent inside env calls vs wall. ``learn`` runs
    inside ``settled_heap()`` as ``farmgames train`` runs it (``"settle_heap": false`` in the spec leaves the
    collector as it is, for an A/B of that setting; docs/profiling.md, "Twenty-second pass")."""
    spec = json.loads(arg)
    import torch
    from gymnasium import spaces

    torch.set_num_threads(spec["torch_threads"])
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from farmgames.training.policy import resolve_opponent
    from farmgames.wrappers.single_agent import SingleAgentEnv

    clock = {"step": 0.0, "reset": 0.0, "action_masks": 0.0, "steps": 0}
    timed = _timed_env_class(clock)
    env_cfg, ppo = spec["env"], spec["ppo"]
    kwargs = {
        "game": env_cfg.get("game", "fields_of_green_v0"),
        "num_players": env_cfg["num_players"],
        "opponents": env_cfg["opponents"],
        "resolver": resolve_opponent,
    }
    if "learner_seat" in env_cfg:
        kwargs["learner_seat"] = env_cfg["learner_seat"]
    kwargs.update(env_cfg.get("variant") or {})
    n_envs = spec["n_envs"]
    if spec.get("vec_env") == "batched":
        venv = _timed_batched(kwargs, n_envs, clock)
    elif spec.get("vec_env") == "batched-procs":
        venv = _timed_procs(kwargs, n_envs, clock, spec.get("vec_parent_envs"))
    elif spec.get("vec_env") == "subproc":
        venv = _timed_subproc(kwargs, n_envs, clock)  # (the Monitors are in the workers)
    else:
        venv = DummyVecEnv([lambda: Monitor(timed(SingleAgentEnv(**kwargs))) for _ in range(n_envs)])
    n_steps = max(8, spec["steps"] // n_envs)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU, "leaky_relu": torch.nn.LeakyReLU}[
        ppo.get("activation", "tanh")
    ]
    policy = "MultiInputPolicy" if isinstance(venv.observation_space, spaces.Dict) else "MlpPolicy"
    batch = min(ppo["batch_size"], n_steps * n_envs)
    epochs = spec.get("n_epochs") or ppo["n_epochs"]
    model = MaskablePPO(
        policy,
        venv,
        n_steps=n_steps,
        batch_size=batch,
        n_epochs=epochs,
        learning_rate=ppo["learning_rate"],
        gamma=ppo["gamma"],
        gae_lambda=ppo["gae_lambda"],
        clip_range=ppo["clip_range"],
        ent_coef=ppo["ent_coef"],
        vf_coef=ppo["vf_coef"],
        max_grad_norm=ppo["max_grad_norm"],
        policy_kwargs={"net_arch": list(ppo["net_arch"]), "activation_fn": activation},
        seed=spec["seed"],
        device="cpu",
        verbose=0,
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a /tmp/SB3-<time> folder a run
    workers = clock.pop("vec_workers", 1)
    parent_envs = clock.pop("vec_parent_envs", None)
    for key in clock:
        clock[key] = 0
    from contextlib import nullcontext

    from farmgames.wrappers.heap import settled_heap

    with settled_heap() if spec.get("settle_heap", True) else nullcontext(0) as frozen:  # as ``farmgames train``
        t0 = time.perf_counter()
        model.learn(total_timesteps=n_steps * n_envs)
        wall = time.perf_counter() - t0
    env_time = clock["step"] + clock["reset"]
    print(
        json.dumps(
            {
                "n_envs": n_envs,
                "vec_env": spec.get("vec_env", "dummy"),
                "vec_workers": workers,
                "vec_parent_envs": parent_envs,
                "n_steps": n_steps,
                "learner_steps": clock["steps"],
                "wall_s": wall,
                "env_step_s": clock["step"],
                "env_reset_s": clock["reset"],
                "action_masks_s": clock["action_masks"],
                "env_share": env_time / wall,
                "env_share_with_masks": (env_time + clock["action_masks"]) / wall,
                "policy": policy,
                "batch_size": batch,
                "n_epochs": epochs,
                "net_arch": list(ppo["net_arch"]),
                "torch_threads": torch.get_num_threads(),
                "frozen_objects": frozen,
                "obs_size": int(spaces.flatdim(venv.observation_space)),
            }
        )
    )


# ============================================================================ machine info


def _cpu_name() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def _cgroup_cpus() -> float | None:
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        return round(int(quota) / int(period), 2) if quota != "max" else None
    except (OSError, ValueError):
        return None


def machine_info() -> dict:
    from importlib import metadata

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    versions = {}
    for dist in (
        "farmgames",
        "numpy",
        "pettingzoo",
        "gymnasium",
        "open_spiel",
        "torch",
        "stable_baselines3",
        "sb3_contrib",
    ):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    mem_gb = None
    try:
        import psutil

        mem_gb = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    from farmgames.envs._native import compiled_modules

    return {
        "compiled": compiled_modules(),  # the modules this run used compiled with mypyc (envs/_native.py)
        "cpu": _cpu_name(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable,
        "cgroup_cpu_limit": _cgroup_cpus(),
        "memory_gib": mem_gb,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "load_average_start": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }
