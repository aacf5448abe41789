"""``farmgames bench``: steps per second of Fields of Green next to peer environments.

Everything is measured in one run, with uniformly random legal play, so that ratios between the rows
are meaningful on a shared or noisy machine:

* the pure-Python engine (``Game``): complete games/s and decisions/s for 2, 3 and 4 players, and
  clones/s of a mid-game state;
* ``fields_of_green_v0``: the standard AEC loop (``agent_iter`` / ``last`` / ``step``, observation and
  mask read every step, a random legal action drawn from the mask) on ``env()`` (wrapped) and
  ``raw_env()`` (unwrapped), ``parallel_env()``, the flattened AEC env and the single-agent gymnasium env;
* the same loop on PettingZoo's ``connect_four_v3`` and ``chess_v6``, and on OpenSpiel games
  (``state.observation_tensor`` — or ``information_state_tensor`` for games without one — plus
  ``state.legal_actions()``); every rate is also given as a ratio to ``connect_four_v3``;
* memory: peak RSS of 1 and of 64 live envs, each count in its own subprocess, minus a baseline
  subprocess that makes the same imports; the size of one observation;
* MaskablePPO: the share of ``learn()`` wall time spent inside the env's ``step``/``reset`` (and
  ``action_masks``), in a subprocess with one torch thread.

Method: one warm-up run per case, then ``repeats`` timed runs of ``seconds`` each, interleaved
(repeat 1 of every case, then repeat 2 …). The reference ``connect_four_v3`` runs again right after
every timed run of every other case, and a ratio is the median over repeats of (case rate / the rate
of the reference run that followed it): runs seconds apart see the same background load, so ratios
hold on a shared machine where absolute rates drift. Spread is half the range of the repeats, as a
percentage of the median.

The benchmark is a command, not a test: nothing asserts a time. ``--smoke`` runs every code path in a
few seconds for CI.
"""

from __future__ import annotations

import argparse
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
from typing import Any, Callable

REFERENCE = "pz/connect_four_v3"

MODES: dict[str, dict[str, Any]] = {
    # warm-up seconds, timed repeats, seconds per repeat, env counts for memory, PPO steps
    "smoke": {"warmup": 0.0, "repeats": 2, "seconds": 0.05, "memory_envs": (1, 2), "ppo_steps": 64,
              "memory_steps": 20, "ppo_runs": (("main", 1),)},
    "quick": {"warmup": 0.2, "repeats": 3, "seconds": 0.4, "memory_envs": (1, 64), "ppo_steps": 2048,
              "memory_steps": None, "ppo_runs": (("main", 1),)},
    "full": {"warmup": 1.0, "repeats": 5, "seconds": 1.5, "memory_envs": (1, 64), "ppo_steps": 2048,
             "memory_steps": None,
             "ppo_runs": (("main", 1), ("main", "config"), ("2p-heuristic", 1), ("4p-heuristic", 1))},
}

# Shipped training configs whose env and PPO settings the MaskablePPO measurement uses: "main" is the
# headline figure (the first that exists); the others are extra rows of the full run.
SHIPPED_CONFIGS = {
    "main": ("configs/ppo_2p_vs_random.yaml", "configs/ppo_2p.yaml"),
    "2p-heuristic": ("configs/ppo_2p_vs_heuristic.yaml",),
    "4p-heuristic": ("configs/ppo_4p_vs_heuristic.yaml",),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="a ~1-minute run (fewer cases, shorter repeats)")
    mode.add_argument("--smoke", action="store_true", help="a few-second run that only proves the command works")
    parser.add_argument("--out", default="bench.json", metavar="PATH",
                        help="write results as JSON (default: %(default)s)")
    parser.add_argument("--markdown", default=None, metavar="PATH",
                        help="also write the tables as markdown (e.g. docs/bench.md)")
    parser.add_argument("--repeats", type=int, default=None, help="timed repeats per case (default: by mode)")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per timed repeat (default: by mode)")
    parser.add_argument("--only", default=None, metavar="WORDS",
                        help="comma-separated substrings: run only cases whose key contains one (the reference "
                             f"{REFERENCE} always runs); 'memory' and 'ppo' select those parts")
    parser.add_argument("--skip", default=None, metavar="WORDS",
                        help="comma-separated substrings of case keys to skip (also 'memory', 'ppo', 'openspiel')")
    parser.add_argument("--ppo-config", default=None, metavar="YAML",
                        help="training config whose env/PPO settings the MaskablePPO share uses "
                             f"(default: {SHIPPED_CONFIGS['main'][0]}, else the config defaults)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random players (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


# ============================================================================ throughput runners
#
# A runner is called as runner(seconds, rng) and returns (steps, games, elapsed). It plays until the
# time is up, so the rate is steps / elapsed. Runners that only stop between games say so
# (``whole_games``) and then games / elapsed is an exact complete-games rate.

Runner = Callable[[float, random.Random], tuple[int, int, float]]


def _choose(mask, rng: random.Random) -> int:
    """A uniformly random legal action from a 0/1 mask (the same helper for every env)."""
    import numpy as np

    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def engine_runner(num_players: int) -> Runner:
    from farmgames.envs.fields_of_green import Game

    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            game = Game(num_players=num_players, seed=next(seeds))
            while not game.is_terminal():
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
                steps += 1
            games += 1
            now = clock()
            if now >= deadline:
                return steps, games, now - start

    return run


def clone_runner(num_players: int) -> Runner:
    """Clones/s of a mid-game state (a year-3 action decision); 'steps' are clones."""
    from farmgames.envs.fields_of_green import Game

    rng0 = random.Random(1)
    game = Game(num_players=num_players, seed=1)
    while not game.is_terminal() and game.year < 3:
        legal = game.legal_actions()
        game.apply(legal[rng0.randrange(len(legal))])

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        n = 0
        while True:
            for _ in range(100):
                game.clone()
            n += 100
            now = clock()
            if now >= deadline:
                return n, 0, now - start

    return run


def aec_runner(make_env: Callable[[], Any]) -> Runner:
    """The standard PettingZoo AEC loop with observation and mask (PettingZoo docs, classic envs)."""
    env = make_env()
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            env.reset(seed=next(seeds))
            for agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = _choose(observation["action_mask"], rng)
                env.step(action)
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def parallel_runner(make_env: Callable[[], Any]) -> Runner:
    """PettingZoo parallel loop: every live agent submits a random legal action each step."""
    env = make_env()
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            observations, infos = env.reset(seed=next(seeds))
            while env.agents:
                actions = {a: _choose(observations[a]["action_mask"], rng) for a in env.agents}
                observations, rewards, terminations, truncations, infos = env.step(actions)
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def gym_runner(make_env: Callable[[], Any]) -> Runner:
    """Single-agent gymnasium loop: mask from ``action_masks()``, a random legal action, reset at the end."""
    env = make_env()
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            env.reset(seed=next(seeds))
            done = False
            while not done:
                action = _choose(env.action_masks(), rng)
                observation, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def openspiel_runner(name: str) -> Runner:
    """OpenSpiel loop: at each decision read the observation tensor (information-state tensor for
    games without one) and the legal actions, apply a random one; chance nodes sample their outcome
    distribution and are not counted as steps."""
    import pyspiel

    game = pyspiel.load_game(name)
    use_observation = game.get_type().provides_observation_tensor

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(actions, probs)[0])
                    continue
                player = state.current_player()
                if use_observation:
                    state.observation_tensor(player)
                else:
                    state.information_state_tensor(player)
                legal = state.legal_actions(player)
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


# ============================================================================ env factories


def _fog_module():
    from farmgames.envs import fields_of_green_v0

    return fields_of_green_v0


def _fog_env(num_players: int):
    return lambda: _fog_module().env(num_players=num_players)


def _fog_raw_env(num_players: int):
    return lambda: _fog_module().raw_env(num_players=num_players)


def _fog_parallel_env(num_players: int):
    return lambda: _fog_module().parallel_env(num_players=num_players)


def _fog_flat_env(num_players: int):
    def make():
        from farmgames.wrappers.flatten import flatten_observations

        return flatten_observations(_fog_module().env(num_players=num_players))

    return make


def _fog_single_agent_env(num_players: int, opponents: str = "random"):
    def make():
        from farmgames.wrappers.single_agent import FieldsOfGreenSingleAgentEnv

        return FieldsOfGreenSingleAgentEnv(num_players=num_players, opponents=opponents)

    return make


PZ_IDS = {"connect_four_v3": "classic/connect_four-v3", "chess_v6": "classic/chess-v6"}


def _pz_env_factory(name: str) -> Callable[[], Any]:
    """``env()`` of a PettingZoo classic env: through PettingZoo's registry (``pettingzoo.make``, 1.27+;
    the same wrapped env as the module's ``env()``), else the module (older PettingZoo)."""
    import pettingzoo

    if hasattr(pettingzoo, "make") and PZ_IDS.get(name) in getattr(pettingzoo, "aec_registry", {}):
        return lambda: pettingzoo.make("aec", PZ_IDS[name])
    import importlib

    return importlib.import_module(f"pettingzoo.classic.{name}").env


def _pz_classic(name: str):
    def make():
        return _pz_env_factory(name)()

    return make


@dataclass
class Case:
    key: str
    label: str
    group: str  # engine | farmgames | pettingzoo | openspiel
    players: int
    unit: str  # what one "step" is
    build: Callable[[], Runner]
    modes: tuple[str, ...] = ("smoke", "quick", "full")
    note: str = ""
    whole_games: bool = False


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for n in (2, 3, 4):
        cases.append(Case(f"engine/{n}p", f"engine Game, {n} players", "engine", n, "decision",
                          lambda n=n: engine_runner(n), whole_games=True))
    cases.append(Case("engine/clone-4p", "engine Game.clone(), 4 players, mid-game", "engine", 4, "clone",
                      lambda: clone_runner(4), note="rate is clones/s"))
    every, full = ("smoke", "quick", "full"), ("full",)
    fog = [
        ("fog/aec-env-4p", "fields_of_green_v0.env() AEC, 4 players (wrapped)", 4,
         lambda: aec_runner(_fog_env(4)), every),
        ("fog/aec-raw-4p", "fields_of_green_v0.raw_env() AEC, 4 players (unwrapped)", 4,
         lambda: aec_runner(_fog_raw_env(4)), every),
        ("fog/aec-env-2p", "fields_of_green_v0.env() AEC, 2 players (wrapped)", 2,
         lambda: aec_runner(_fog_env(2)), full),
        ("fog/aec-flat-4p", "flatten_observations(env()) AEC, 4 players", 4,
         lambda: aec_runner(_fog_flat_env(4)), full),
        ("fog/parallel-4p", "fields_of_green_v0.parallel_env(), 4 players", 4,
         lambda: parallel_runner(_fog_parallel_env(4)), every),
        ("fog/gym-2p", "single-agent gymnasium env (flat obs), 2 players vs random", 2,
         lambda: gym_runner(_fog_single_agent_env(2)), every),
        ("fog/gym-4p", "single-agent gymnasium env (flat obs), 4 players vs random", 4,
         lambda: gym_runner(_fog_single_agent_env(4)), full),
    ]
    for key, label, n, build, modes in fog:
        unit = {"parallel": "parallel step", "gym": "learner step"}.get(key.split("/")[1].split("-")[0], "step")
        note = {"parallel step": "one step = every live agent acts (NOOP if it has no decision)",
                "learner step": "opponents' moves happen inside step()"}.get(unit, "")
        cases.append(Case(key, label, "farmgames", n, unit, build, modes=modes, note=note))
    cases.append(Case(REFERENCE, "pettingzoo connect_four_v3 AEC (reference)", "pettingzoo", 2, "step",
                      lambda: aec_runner(_pz_classic("connect_four_v3"))))
    cases.append(Case("pz/chess_v6", "pettingzoo chess_v6 AEC", "pettingzoo", 2, "step",
                      lambda: aec_runner(_pz_classic("chess_v6"))))
    spiel = [
        ("bridge(use_double_dummy_result=false)", "bridge", 4, ("smoke", "quick", "full"),
         "card play instead of a double-dummy score; observation_tensor"),
        ("hearts", "hearts", 4, ("quick", "full"), "no observation tensor: information_state_tensor"),
        ("spades", "spades", 4, ("full",), "observation_tensor"),
        ("connect_four", "connect_four", 2, ("quick", "full"), "C++ implementation"),
        ("chess", "chess", 2, ("full",), "C++ implementation"),
    ]
    for name, short, n, modes, note in spiel:
        cases.append(Case(f"openspiel/{short}", f"OpenSpiel {short}", "openspiel", n, "decision",
                          lambda name=name: openspiel_runner(name), modes=modes, note=note))
    return cases


# ============================================================================ statistics


def summarise(values: list[float]) -> dict[str, float]:
    med = statistics.median(values)
    spread = (max(values) - min(values)) / 2 / med * 100 if med else 0.0
    return {"median": med, "min": min(values), "max": max(values), "spread_pct": spread, "n": len(values)}


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


def _wanted(key: str, only: list[str] | None, skip: list[str]) -> bool:
    if any(s in key for s in skip):
        return False
    return only is None or any(o in key for o in only)


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


def _memory_factory(kind: str, players: int):
    """(imports done) -> (make, step_randomly). Imports happen here so the baseline pays them too."""
    import numpy as np  # noqa: F401
    import pettingzoo  # noqa: F401

    if kind == "fog":
        module = _fog_module()
        make = lambda: module.env(num_players=players)  # noqa: E731
    elif kind == "engine":
        from farmgames.envs.fields_of_green import Game

        seeds = iter(range(10**9))
        make = lambda: Game(num_players=players, seed=next(seeds))  # noqa: E731
    else:
        make = _pz_env_factory(kind)
        make().close()  # the env module's imports belong to the baseline
    return make


def _memory_child(arg: str) -> None:
    """Subprocess body: after the imports, build ``n`` envs, play ``steps`` random steps in each, and
    print the peak RSS since the imports finished (and the resident RSS at the end) as JSON."""
    import gc

    spec = json.loads(arg)
    make = _memory_factory(spec["kind"], spec["players"])
    gc.collect()
    peak_reset = _reset_peak_rss()
    rng = random.Random(0)
    envs = []
    for i in range(spec["n"]):
        env = make()
        if spec["kind"] == "engine":
            for _ in range(spec["steps"]):
                if env.is_terminal():
                    break
                legal = env.legal_actions()
                env.apply(legal[rng.randrange(len(legal))])
        else:
            env.reset(seed=i)
            for _ in range(spec["steps"]):
                if not env.agents:
                    break
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else _choose(obs["action_mask"], rng))
        envs.append(env)
    gc.collect()
    print(json.dumps({"peak_kb": _peak_rss_kb(), "rss_kb": _rss_now_kb(), "n": len(envs), "peak_reset": peak_reset}))


def _run_child(function: str, spec: dict, timeout: float = 900) -> dict:
    code = f"import sys; from farmgames.training.bench import {function}; {function}(sys.argv[1])"
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], capture_output=True, text=True,
                          timeout=timeout, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(" | ".join(tail) or f"exit code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


MEMORY_TARGETS = (
    # kind, players, label, random steps played in each env before measuring
    ("fog", 4, "fields_of_green_v0.env(), 4 players", 150),
    ("engine", 4, "engine Game, 4 players", 150),
    ("connect_four_v3", 2, "pettingzoo connect_four_v3", 10),
    ("chess_v6", 2, "pettingzoo chess_v6", 60),
)


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


def observation_sizes() -> list[dict]:
    rows = []
    makers = [
        ("fields_of_green_v0.env(), 4 players", _fog_env(4)),
        ("flatten_observations(env()), 4 players", _fog_flat_env(4)),
        ("fields_of_green_v0.env(), 2 players", _fog_env(2)),
        ("pettingzoo connect_four_v3", _pz_classic("connect_four_v3")),
        ("pettingzoo chess_v6", _pz_classic("chess_v6")),
    ]
    for label, make in makers:
        try:
            env = make()
            env.reset(seed=0)
            obs = env.observe(env.agent_selection)
            rows.append({"env": label, "observation_bytes": _nbytes(obs["observation"]),
                         "mask_bytes": _nbytes(obs["action_mask"]),
                         "mask_size": int(len(obs["action_mask"])),
                         "parts": len(obs["observation"]) if isinstance(obs["observation"], dict) else 1})
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            rows.append({"env": label, "error": _short(exc)})
    return rows


# ============================================================================ MaskablePPO share (subprocess)


def _ppo_settings(config_path: str | None, which: str = "main") -> tuple[dict, str]:
    """The env and PPO settings of a shipped config (or the config defaults) as plain dicts."""
    from farmgames.training.config import Config, load_config

    path = config_path
    if path is None:
        root = Path(__file__).resolve().parent.parent  # the source checkout (editable install)
        for candidate in SHIPPED_CONFIGS[which]:
            for base in (Path.cwd(), root):
                if (base / candidate).exists():
                    path = str(base / candidate)
                    break
            if path:
                break
        if path is None and which != "main":
            raise FileNotFoundError(f"no shipped config {' or '.join(SHIPPED_CONFIGS[which])}")
    config = load_config(path) if path else Config()
    d = config.to_dict()
    return {"env": d["env"], "ppo": d["ppo"], "training": d["training"], "seed": d["seed"]}, path or "config defaults"


def _ppo_child(arg: str) -> None:
    """Subprocess body: MaskablePPO.learn for ``steps`` steps; time spent inside env calls vs wall."""
    spec = json.loads(arg)
    import gymnasium
    import torch
    from gymnasium import spaces

    torch.set_num_threads(spec["torch_threads"])
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from farmgames.wrappers.single_agent import FieldsOfGreenSingleAgentEnv

    clock = {"step": 0.0, "reset": 0.0, "action_masks": 0.0, "steps": 0}
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

    env_cfg, ppo = spec["env"], spec["ppo"]
    kwargs = {"num_players": env_cfg["num_players"], "opponents": env_cfg["opponents"]}
    for key in ("learner_seat",):
        if key in env_cfg:
            kwargs[key] = env_cfg[key]
    kwargs.update(env_cfg.get("variant") or {})

    def make(i):
        def thunk():
            try:
                inner = FieldsOfGreenSingleAgentEnv(**kwargs, seed=spec["seed"] + i)
            except TypeError:
                inner = FieldsOfGreenSingleAgentEnv(**kwargs)
            return Monitor(TimedEnv(inner))

        return thunk

    n_envs = spec["n_envs"]
    venv = DummyVecEnv([make(i) for i in range(n_envs)])
    n_steps = max(8, spec["steps"] // n_envs)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU,
                  "leaky_relu": torch.nn.LeakyReLU}[ppo.get("activation", "tanh")]
    policy = "MultiInputPolicy" if isinstance(venv.observation_space, spaces.Dict) else "MlpPolicy"
    model = MaskablePPO(
        policy, venv, n_steps=n_steps, batch_size=min(ppo["batch_size"], n_steps * n_envs),
        n_epochs=spec.get("n_epochs") or ppo["n_epochs"], learning_rate=ppo["learning_rate"],
        gamma=ppo["gamma"], gae_lambda=ppo["gae_lambda"], clip_range=ppo["clip_range"],
        ent_coef=ppo["ent_coef"], vf_coef=ppo["vf_coef"], max_grad_norm=ppo["max_grad_norm"],
        policy_kwargs={"net_arch": list(ppo["net_arch"]), "activation_fn": activation},
        seed=spec["seed"], device="cpu", verbose=0,
    )
    for key in clock:
        clock[key] = 0
    t0 = perf()
    model.learn(total_timesteps=n_steps * n_envs)
    wall = perf() - t0
    env_time = clock["step"] + clock["reset"]
    print(json.dumps({
        "n_envs": n_envs, "n_steps": n_steps, "learner_steps": clock["steps"], "wall_s": wall,
        "env_step_s": clock["step"], "env_reset_s": clock["reset"], "action_masks_s": clock["action_masks"],
        "env_share": env_time / wall, "env_share_with_masks": (env_time + clock["action_masks"]) / wall,
        "policy": policy, "batch_size": min(ppo["batch_size"], n_steps * n_envs),
        "n_epochs": spec.get("n_epochs") or ppo["n_epochs"], "net_arch": list(ppo["net_arch"]),
        "torch_threads": torch.get_num_threads(), "obs_size": int(spaces.flatdim(venv.observation_space)),
    }))


# ============================================================================ machine info


def machine_info() -> dict:
    from importlib import metadata

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    limit = None
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if quota != "max":
            limit = round(int(quota) / int(period), 2)
    except (OSError, ValueError):
        pass
    versions = {}
    for dist in ("farmgames", "numpy", "pettingzoo", "gymnasium", "open_spiel", "torch", "stable_baselines3",
                 "sb3_contrib"):
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
    return {
        "cpu": cpu, "logical_cores": os.cpu_count(), "usable_cores": usable, "cgroup_cpu_limit": limit,
        "memory_gib": mem_gb, "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(), "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "load_average_start": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


# ============================================================================ the run


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(__file__).resolve().parent.parent))
    except ValueError:
        return path


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 160 else text[:157] + "..."


def _split_words(text: str | None) -> list[str] | None:
    return [w.strip() for w in text.split(",") if w.strip()] if text else None


class _Progress:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int):
        self._progress = None
        if enabled:
            try:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

                self._progress = Progress(TextColumn("{task.description:<44}"), BarColumn(), MofNCompleteColumn(),
                                          TimeElapsedColumn(), console=Console(stderr=True), transient=True)
                self._progress.start()
                self._task = self._progress.add_task("bench", total=total)
            except ImportError:  # pragma: no cover
                self._progress = None

    def step(self, description: str, advance: int = 1) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description, advance=advance)

    def describe(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def run(args: argparse.Namespace) -> int:
    mode_name = "smoke" if args.smoke else "quick" if args.quick else "full"
    mode = dict(MODES[mode_name])
    if args.repeats is not None:
        mode["repeats"] = max(1, args.repeats)
    if args.seconds is not None:
        mode["seconds"] = max(0.01, args.seconds)
    only = _split_words(args.only)
    skip = _split_words(args.skip) or []
    do_memory = "memory" not in skip and (only is None or "memory" in only)
    do_ppo = "ppo" not in skip and (only is None or "ppo" in only)

    cases = [c for c in all_cases() if mode_name in c.modes and (c.key == REFERENCE or _wanted(c.key, only, skip))]
    info = machine_info()
    started = time.perf_counter()

    # ---- build runners (env construction is not timed)
    results: list[CaseResult] = []
    for case in cases:
        result = CaseResult(case)
        try:
            result.runner = case.build()
        except Exception as exc:  # noqa: BLE001 - an env that does not exist yet is reported, not fatal
            result.error = _short(exc)
        results.append(result)

    live = [r for r in results if r.error is None]
    mem_jobs = []
    if do_memory:
        for kind, players, label, steps in MEMORY_TARGETS:
            if (mode_name != "full" and kind == "chess_v6") or (mode_name == "smoke" and kind == "connect_four_v3"):
                continue
            for n in (0, *mode["memory_envs"]):
                played = steps if mode["memory_steps"] is None else min(steps, mode["memory_steps"])
                mem_jobs.append((kind, players, label, played, n))
    ppo_jobs = list(mode["ppo_runs"]) if do_ppo else []
    total = len(live) * (1 + mode["repeats"]) - mode["repeats"] + len(mem_jobs) + len(ppo_jobs) + 1
    show_progress = not args.no_progress and (sys.stderr.isatty() or os.environ.get("FARMGAMES_PROGRESS") == "1")
    progress = _Progress(show_progress, total)
    rng = random.Random(args.seed)
    try:
        # ---- warm-up, then interleaved repeats
        for r in live:
            progress.step(f"warm-up {r.case.key}")
            try:
                r.runner(mode["warmup"], rng)
            except Exception as exc:  # noqa: BLE001
                r.error = _short(exc)
        ref = next((r for r in live if r.case.key == REFERENCE), None)

        def timed_run(r: CaseResult) -> float | None:
            try:
                steps, games, elapsed = r.runner(mode["seconds"], rng)
            except Exception as exc:  # noqa: BLE001
                r.error = _short(exc)
                return None
            r.rates.append(steps / elapsed)
            r.steps += steps
            r.games += games
            r.elapsed += elapsed
            if r.case.whole_games:
                r.game_rates.append(games / elapsed)
            return steps / elapsed

        for rep in range(mode["repeats"]):
            for r in live:
                progress.step(f"repeat {rep + 1}/{mode['repeats']} {r.case.key}")
                if r.error is not None or r is ref:
                    continue
                rate = timed_run(r)
                # the reference runs right after every case, so each ratio compares runs made seconds
                # apart (the load of a shared machine drifts over a round of all cases)
                if rate is not None and ref is not None and ref.error is None:
                    ref_rate = timed_run(ref)
                    if ref_rate is not None:
                        r.ratios.append(rate / ref_rate)

        throughput = _throughput_rows(results)

        # ---- observation sizes (in-process; cheap)
        progress.step("observation sizes")
        obs_rows = observation_sizes()

        # ---- memory
        memory = _memory_rows(mem_jobs, progress)

        # ---- MaskablePPO share
        ppo_rows = []
        for which, envs in ppo_jobs:
            progress.step(f"MaskablePPO ({which} config, {envs} env{'s' if envs != 1 else ''})")
            try:
                settings, source = _ppo_settings(args.ppo_config if which == "main" else None, which)
            except Exception as exc:  # noqa: BLE001
                ppo_rows.append({"config": which, "role": which, "error": _short(exc)})
                continue
            n_envs = 1 if envs == 1 else settings["training"]["n_envs"]
            spec = {"env": settings["env"], "ppo": settings["ppo"], "seed": settings["seed"],
                    "torch_threads": 1, "n_envs": n_envs,
                    "steps": mode["ppo_steps"] if envs == 1 else settings["ppo"]["n_steps"] * n_envs}
            if mode_name == "smoke":
                spec["n_epochs"] = 1
            try:
                row = _run_child("_ppo_child", spec)
            except Exception as exc:  # noqa: BLE001
                row = {"n_envs": n_envs, "error": _short(exc)}
            row["config"] = _relative(source)
            row["role"] = which
            row["opponents"] = settings["env"]["opponents"]
            row["num_players"] = settings["env"]["num_players"]
            ppo_rows.append(row)
    finally:
        progress.close()

    info["load_average_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    report = {
        "format": "farmgames.bench/1",
        "mode": mode_name,
        "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in mode.items()} | {"seed": args.seed},
        "machine": info,
        "reference": REFERENCE,
        "throughput": throughput,
        "observation": obs_rows,
        "memory": memory,
        "ppo": ppo_rows,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    report["targets"] = evaluate_targets(report)

    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    markdown = to_markdown(report)
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(markdown)
    _print_report(report)
    if args.out:
        print(f"results written to {args.out}" + (f" and {args.markdown}" if args.markdown else ""))
    return 0


def _throughput_rows(results: list[CaseResult]) -> list[dict]:
    ref = next((r for r in results if r.case.key == REFERENCE and r.rates), None)
    rows = []
    for r in results:
        c = r.case
        row: dict[str, Any] = {"key": c.key, "label": c.label, "group": c.group, "players": c.players,
                               "unit": c.unit, "note": c.note}
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
            spg = r.steps_per_game()
            row["games_per_s"] = {"median": row["steps_per_s"]["median"] / spg, "derived": True}
        if r is ref:
            row["ratio_to_reference"] = 1.0
        elif r.ratios:
            row["ratio_to_reference"] = statistics.median(r.ratios)
            row["ratios"] = [round(x, 3) for x in r.ratios]
        rows.append(row)
    return rows


def _memory_rows(jobs: list, progress: _Progress) -> list[dict]:
    measured: dict[tuple[str, int], dict] = {}
    errors: dict[str, str] = {}
    labels = {}
    for kind, players, label, steps, n in jobs:
        labels[kind] = (label, players, steps)
        progress.step(f"memory {kind} x{n}")
        if kind in errors:
            continue
        try:
            spec = {"kind": kind, "players": players, "n": n, "steps": steps}
            measured[(kind, n)] = _run_child("_memory_child", spec)
        except Exception as exc:  # noqa: BLE001
            errors[kind] = _short(exc)
    rows = []
    for kind, (label, players, steps) in labels.items():
        row: dict[str, Any] = {"kind": kind, "env": label, "players": players, "steps_played_per_env": steps}
        if kind in errors:
            row["error"] = errors[kind]
            rows.append(row)
            continue
        base = measured[(kind, 0)]
        row["baseline_mib"] = base["peak_kb"] / 1024
        counts = sorted(n for (k, n) in measured if k == kind and n)
        for n in counts:
            # peak RSS over the baseline's peak (what the issue asks), and resident RSS over the baseline's
            row[f"envs_{n}_mib"] = (measured[(kind, n)]["peak_kb"] - base["peak_kb"]) / 1024
            row[f"envs_{n}_rss_mib"] = (measured[(kind, n)]["rss_kb"] - base["rss_kb"]) / 1024
        if len(counts) >= 2:
            lo, hi = counts[0], counts[-1]
            row["per_env_kib"] = (measured[(kind, hi)]["rss_kb"] - measured[(kind, lo)]["rss_kb"]) / (hi - lo)
        row["counts"] = counts
        rows.append(row)
    return rows


# ============================================================================ targets and reports

TARGETS = (
    ("aec4_ratio", "4-player AEC random play with obs + mask vs connect_four_v3", ">= 3x"),
    ("engine4_games", "engine alone, 4 players, complete games/s", ">= 100"),
    ("ppo_env_share", "env share of MaskablePPO wall time (1 env, 1 torch thread)", "< 15%"),
    ("memory_64", "64 envs (4 players), RSS over baseline", "< 1 GB"),
)


def evaluate_targets(report: dict) -> list[dict]:
    rows = {r["key"]: r for r in report["throughput"]}
    out = []

    def add(key, label, goal, value, shown, met):
        out.append({"key": key, "target": label, "goal": goal, "value": value, "measured": shown, "met": met})

    aec = rows.get("fog/aec-env-4p", {})
    ratio = aec.get("ratio_to_reference")
    add("aec4_ratio", TARGETS[0][1], TARGETS[0][2], ratio, f"{ratio:.2f}x" if ratio else "n/a",
        None if ratio is None else ratio >= 3)
    eng = rows.get("engine/4p", {}).get("games_per_s", {}).get("median")
    add("engine4_games", TARGETS[1][1], TARGETS[1][2], eng, f"{eng:.0f} games/s" if eng else "n/a",
        None if eng is None else eng >= 100)
    share = next((p.get("env_share") for p in report["ppo"]
                  if p.get("role") == "main" and p.get("n_envs") == 1 and "env_share" in p), None)
    main_config = next((p.get("config") for p in report["ppo"] if p.get("role") == "main"), None)
    label = TARGETS[2][1] + (f", {main_config}" if main_config else "")
    add("ppo_env_share", label, TARGETS[2][2], share, f"{share * 100:.1f}%" if share is not None else "n/a",
        None if share is None else share < 0.15)
    mem = next((m.get("envs_64_mib") for m in report["memory"] if m.get("kind") == "fog"), None)
    add("memory_64", TARGETS[3][1], TARGETS[3][2], mem, f"{mem:.0f} MiB" if mem is not None else "n/a",
        None if mem is None else mem * 2**20 < 1e9)
    for p in report["ppo"]:  # the other shipped configs, for information
        if p.get("role") != "main" and p.get("n_envs") == 1 and "env_share" in p:
            add(f"ppo_env_share:{p['role']}", f"{TARGETS[2][1]}, {p['config']}", TARGETS[2][2], p["env_share"],
                f"{p['env_share'] * 100:.1f}%", p["env_share"] < 0.15)
    return out


def _fmt_rate(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _table_rows(report: dict) -> list[list[str]]:
    rows = []
    for r in report["throughput"]:
        if "error" in r:
            rows.append([r["label"], r["unit"], "—", "", "—", "—", "skipped: " + r["error"]])
            continue
        s = r["steps_per_s"]
        games = r.get("games_per_s")
        g = "—" if not games else _fmt_rate(games["median"]) + ("" if not games.get("derived") else "*")
        ratio = r.get("ratio_to_reference")
        rows.append([r["label"], r["unit"], _fmt_rate(s["median"]), f"±{s['spread_pct']:.0f}%", g,
                     f"{ratio:.2f}x" if ratio is not None else "—", r.get("note", "")])
    return rows


THROUGHPUT_HEADER = ["benchmark", "step =", "steps/s (median)", "spread", "games/s", "vs connect_four_v3", "note"]


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(x):
        return str(x).replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _mem_pair(m: dict, n: int) -> str:
    """'peak delta / resident delta' in MiB."""
    return f"{m.get(f'envs_{n}_mib', 0):.1f} / {m.get(f'envs_{n}_rss_mib', 0):.1f}"


def _memory_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["env", "baseline process (MiB)", "1 env (MiB)", "64 envs (MiB)", "per extra env (KiB)"]
    rows = []
    for m in report["memory"]:
        if "error" in m:
            rows.append([m["env"], "skipped: " + m["error"], "", "", ""])
            continue
        counts = m.get("counts", [])
        big = counts[-1] if counts else None
        header[3] = f"{big} envs (MiB)" if big else header[3]
        rows.append([m["env"], f"{m['baseline_mib']:.0f}", _mem_pair(m, 1), _mem_pair(m, big) if big else "—",
                     f"{m['per_env_kib']:.0f}" if "per_env_kib" in m else "—"])
    return header, rows


def _obs_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["env", "observation (bytes)", "action mask (bytes)", "actions"]
    rows = []
    for o in report["observation"]:
        if "error" in o:
            rows.append([o["env"], "skipped: " + o["error"], "", ""])
        else:
            rows.append([o["env"], f"{o['observation_bytes']:,}", f"{o['mask_bytes']:,}", f"{o['mask_size']:,}"])
    return header, rows


def _ppo_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["config", "run", "learner steps", "wall (s)", "env step+reset", "+ action_masks", "env share",
              "share incl. masks"]
    rows = []
    for p in report["ppo"]:
        name = f"{p.get('n_envs', '?')} env{'s' if p.get('n_envs') != 1 else ''}, DummyVecEnv"
        if "num_players" in p:
            name += f"; {p['num_players']} players vs {p['opponents']}"
        config = f"`{p.get('config')}`"
        if "error" in p:
            rows.append([config, name, "skipped: " + p["error"], "", "", "", "", ""])
            continue
        env_s = p["env_step_s"] + p["env_reset_s"]
        rows.append([config, name, str(p["learner_steps"]), f"{p['wall_s']:.1f}", f"{env_s:.2f} s",
                     f"{p['action_masks_s']:.2f} s", f"{p['env_share'] * 100:.1f}%",
                     f"{p['env_share_with_masks'] * 100:.1f}%"])
    return header, rows


def _targets_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["target", "goal", "measured", "met"]
    rows = [[t["target"], t["goal"], t["measured"], {True: "yes", False: "**no**", None: "n/a"}[t["met"]]]
            for t in report["targets"]]
    return header, rows


def _machine_lines(report: dict) -> list[str]:
    m = report["machine"]
    v = m["versions"]
    cores = f"{m['logical_cores']} logical cores ({m['usable_cores']} usable"
    cores += f", cgroup limit {m['cgroup_cpu_limit']} CPUs)" if m.get("cgroup_cpu_limit") else ")"
    return [
        f"- CPU: {m['cpu']}, {cores}, {m.get('memory_gib')} GiB RAM",
        f"- {m['python']} on {m['os']}",
        "- " + ", ".join(f"{k} {val}" for k, val in v.items() if val),
        f"- load average at start {m.get('load_average_start')}, at end {m.get('load_average_end')} (shared machine)",
        f"- mode `{report['mode']}`: warm-up {report['settings']['warmup']} s, {report['settings']['repeats']} "
        f"repeats of {report['settings']['seconds']} s per case, interleaved; run took {report['wall_seconds']} s; "
        f"{m['date']}",
    ]


def to_markdown(report: dict) -> str:
    parts = [
        "# Benchmark",
        "",
        "Generated by `farmgames bench" + {"quick": " --quick", "smoke": " --smoke", "full": ""}[report["mode"]]
        + " --markdown docs/bench.md`; do not edit by hand (see `docs/profiling.md` for what the numbers led to).",
        "Uniformly random legal play everywhere. Rates are medians over interleaved repeats; spread is half the "
        "range of the repeats. `connect_four_v3` runs again right after every timed run of every other case, "
        "and a ratio is the median of (case rate / that reference run's rate): on a shared, loaded machine the "
        "ratios are the figures to compare, not the absolute rates.",
        "",
        "## Machine",
        "",
        *_machine_lines(report),
        "",
        "## Targets",
        "",
        _md_table(*_targets_table(report)),
        "",
        "## Throughput",
        "",
        _md_table(THROUGHPUT_HEADER, _table_rows(report)),
        "",
        "`*` games/s derived from steps/s and the mean game length of the completed games. AEC steps include "
        "each agent's final step with `None` after the game ends, as the standard loop does.",
        "",
        "## Memory",
        "",
        "Each count runs in its own subprocess: imports, then the peak-RSS counter is reset (Linux "
        "`/proc/self/clear_refs`), then N envs are built, reset and played for some random steps each. Shown: "
        "peak RSS minus that of a baseline subprocess with the same imports and no env; after the slash the same "
        "for the resident RSS at the end. Per extra env: resident growth from 1 to N envs, divided by N - 1.",
        "",
        _md_table(*_memory_table(report)),
        "",
        "## Observation size",
        "",
        _md_table(*_obs_table(report)),
        "",
        "## MaskablePPO: time inside the env",
        "",
        "`MaskablePPO.learn` for one rollout with the env and PPO settings (batch size, epochs, network) of "
        "the shipped config, torch with 1 thread, `n_steps` = steps / envs; env time is measured by a wrapper "
        "around each single-agent env (opponent moves happen inside `step`, so bot opponents count as env "
        "time). The headline target uses the first row.",
        "",
        _md_table(*_ppo_table(report)),
        "",
    ]
    return "\n".join(parts)


def _print_report(report: dict) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover
        print(to_markdown(report))
        return
    console = Console(width=max(160, Console().width))

    def show(title, header, rows):
        table = Table(title=title, title_justify="left")
        for h in header:
            table.add_column(h, overflow="fold")
        for row in rows:
            table.add_row(*[str(c).replace("`", "").replace("**", "") for c in row])
        console.print(table)

    for line in _machine_lines(report):
        console.print(line, markup=False, highlight=False)
    show("Throughput (random legal play)", THROUGHPUT_HEADER, _table_rows(report))
    show("Memory", *_memory_table(report))
    show("Observation size", *_obs_table(report))
    show("MaskablePPO: time inside the env", *_ppo_table(report))
    show("Targets", *_targets_table(report))
