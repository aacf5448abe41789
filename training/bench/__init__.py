"""``farmgames bench``: steps per second of the farmgames games next to peer environments.

    farmgames bench --quick                          # fields_of_green and the peers, ~1 minute
    farmgames bench --game key_harvest --smoke       # another game (comma-separated list, or all)
    farmgames bench --markdown docs/bench.md         # the full run behind docs/bench.md

Everything is measured in one run, with uniformly random legal play, so that ratios between the rows
are meaningful on a shared or noisy machine (:mod:`.cases` says what runs, :mod:`.measure` how, and
:mod:`.report` writes the tables, one per game):

* each game's pure-Python engine: complete games/s and decisions/s for every player count of its spec,
  and clones/s of a mid-game state;
* each game's env: the standard AEC loop (``agent_iter`` / ``last`` / ``step``, observation and mask read
  every step, a random legal action drawn from the mask) on ``env()`` (wrapped) and ``raw_env()``,
  ``parallel_env()``, the flattened AEC env and the single-agent gymnasium env against random and
  heuristic bots;
* the same loop on PettingZoo's ``connect_four_v3`` and ``chess_v6``, and on OpenSpiel games
  (``state.observation_tensor`` — or ``information_state_tensor`` for games without one — plus
  ``state.legal_actions()``); every rate is also given as a ratio to ``connect_four_v3``;
* memory: peak RSS of 1 and of 64 live envs, each count in its own subprocess, minus a baseline
  subprocess that makes the same imports; the size of one observation;
* MaskablePPO: the share of ``learn()`` wall time spent inside the env's ``step``/``reset`` (and
  ``action_masks``), in a subprocess with one torch thread, with the game's shipped config.

The benchmark is a command, not a test: nothing asserts a time. ``--smoke`` runs every code path in a
few seconds for CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from .cases import REFERENCE, Case, all_cases, memory_targets, observation_targets
from .measure import (
    CaseResult,
    Progress,
    build_runners,
    machine_info,
    measure_throughput,
    memory_rows,
    observation_sizes,
    ppo_settings,
    run_child,
    short,
    summarise,
    throughput_rows,
)
from .report import TARGETS, evaluate_targets, print_report, to_markdown

__all__ = [
    "MODES",
    "REFERENCE",
    "SHIPPED_CONFIGS",
    "TARGETS",
    "Case",
    "CaseResult",
    "add_arguments",
    "all_cases",
    "evaluate_targets",
    "run",
    "summarise",
    "to_markdown",
]

MODES: dict[str, dict[str, Any]] = {
    # warm-up seconds, timed repeats, seconds per repeat, env counts for memory, PPO steps
    "smoke": {
        "warmup": 0.0,
        "repeats": 2,
        "seconds": 0.05,
        "memory_envs": (1, 2),
        "ppo_steps": 64,
        "memory_steps": 20,
        "ppo_runs": (("main", 1, "dummy"), ("main", 2, "batched"), ("main", 2, "batched-procs")),
    },
    "quick": {
        "warmup": 0.2,
        "repeats": 5,
        "seconds": 0.5,
        "memory_envs": (1, 64),
        "ppo_steps": 2048,
        "memory_steps": None,
        "ppo_runs": (
            ("main", 1, "dummy"),
            ("main", "config", "batched"),
            ("2p-heuristic", "config", "batched"),
            ("2p-heuristic", "config", "batched-procs"),
        ),
    },
    "full": {
        "warmup": 1.0,
        "repeats": 9,
        "seconds": 2.0,
        "memory_envs": (1, 64),
        "ppo_steps": 2048,
        "memory_steps": None,
        # (config role, env count: 1 or the config's n_envs, vector env: dummy, batched, batched-procs (the batch
        # split over one process per core, the parent's included, training.vec_workers) or subproc (SB3's
        # SubprocVecEnv))
        "ppo_runs": (
            ("main", 1, "dummy"),
            ("main", "config", "dummy"),
            ("main", "config", "batched"),
            ("2p-heuristic", 1, "dummy"),
            ("2p-heuristic", "config", "dummy"),
            ("2p-heuristic", "config", "batched"),
            ("2p-heuristic", "config", "subproc"),
            ("2p-heuristic", "config", "batched-procs"),
            ("4p-heuristic", 1, "dummy"),
            ("4p-heuristic", "config", "batched"),
            ("4p-heuristic", "config", "subproc"),
            ("4p-heuristic", "config", "batched-procs"),
        ),
    },
}

# Shipped training configs whose env and PPO settings the MaskablePPO measurement uses, per game: "main" is
# the headline figure (the first that exists; else the config defaults for that game version); the others are extra
# rows of the full run where the game has them.
SHIPPED_CONFIGS: dict[str, dict[str, tuple[str, ...]]] = {
    "fields_of_green_v0": {
        "main": ("configs/fields_of_green/ppo_2p_vs_random.yaml",),
        "2p-heuristic": ("configs/fields_of_green/ppo_2p_vs_heuristic.yaml",),
        "4p-heuristic": ("configs/fields_of_green/ppo_4p_vs_heuristic.yaml",),
    },
    "fields_of_green_v1": {"main": ("configs/fields_of_green/ppo_v1_2p_vs_random.yaml",)},
    "key_harvest_v0": {
        "main": ("configs/key_harvest/ppo_2p_vs_random.yaml",),
        "2p-heuristic": ("configs/key_harvest/ppo_2p_vs_heuristic.yaml",),
        "4p-heuristic": ("configs/key_harvest/ppo_4p_vs_heuristic.yaml",),
    },
    "sunflower_valley_v0": {
        "main": ("configs/sunflower_valley/ppo_2p_vs_random.yaml",),
        "2p-heuristic": ("configs/sunflower_valley/ppo_2p_vs_heuristic.yaml",),
    },
}


def _games_type(text: str) -> tuple[str, ...]:
    """``--game``: one game, a comma-separated list, or ``all``; errors list the registered games."""
    import farmgames.envs as envs

    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return tuple(row.env_name for row in envs.all_rows())
    out = []
    for name in names or [text]:
        try:
            out.append(envs.get_spec(name).env_name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return tuple(dict.fromkeys(out))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="a ~1-minute run (fewer cases, shorter repeats)")
    mode.add_argument("--smoke", action="store_true", help="a few-second run that only proves the command works")
    parser.add_argument(
        "--game",
        type=_games_type,
        default=("fields_of_green_v0",),
        metavar="GAME[,GAME]",
        help="the games to measure: a registered game (its newest version) or <game>_v<N>, a comma-separated "
        "list, or all (default fields_of_green_v0, the version of the targets); the peers always run",
    )
    parser.add_argument(
        "--out", default="bench.json", metavar="PATH", help="write results as JSON (default: %(default)s)"
    )
    parser.add_argument(
        "--markdown", default=None, metavar="PATH", help="also write the tables as markdown (e.g. docs/bench.md)"
    )
    parser.add_argument("--repeats", type=int, default=None, help="timed repeats per case (default: by mode)")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per timed repeat (default: by mode)")
    parser.add_argument(
        "--only",
        default=None,
        metavar="WORDS",
        help="comma-separated substrings: run only cases whose key contains one (the reference "
        f"{REFERENCE} always runs); 'memory' and 'ppo' select those parts",
    )
    parser.add_argument(
        "--skip",
        default=None,
        metavar="WORDS",
        help="comma-separated substrings of case keys to skip (also 'memory', 'ppo', 'openspiel')",
    )
    parser.add_argument(
        "--ppo-config",
        default=None,
        metavar="YAML",
        help="training config whose env/PPO settings the MaskablePPO share uses (default: the "
        "game's shipped config, e.g. configs/fields_of_green/ppo_2p_vs_random.yaml, else the "
        "config defaults)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random players (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _split_words(text: str | None) -> list[str] | None:
    return [w.strip() for w in text.split(",") if w.strip()] if text else None


def _wanted(key: str, only: list[str] | None, skip: list[str]) -> bool:
    if any(s in key for s in skip):
        return False
    return only is None or any(o in key for o in only)


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(__file__).resolve().parents[2]))
    except ValueError:
        return path


def _memory_jobs(games: tuple[str, ...], mode_name: str, mode: dict) -> list[dict]:
    jobs = []
    for target in memory_targets(games):
        kind = target["kind"]
        if (mode_name != "full" and kind == "chess_v6") or (mode_name == "smoke" and kind == "connect_four_v3"):
            continue
        steps = target["steps"] if mode["memory_steps"] is None else min(target["steps"], mode["memory_steps"])
        jobs += [{**target, "steps": steps, "n": n} for n in (0, *mode["memory_envs"])]
    return jobs


def _ppo_jobs(games: tuple[str, ...], mode: dict) -> list[tuple[str, str, Any, str]]:
    """(game, role, env count, vector env): the main rows of every game, the other roles where the game has
    the config."""
    return [
        (game, which, envs, vec)
        for game in games
        for which, envs, vec in mode["ppo_runs"]
        if which == "main" or which in SHIPPED_CONFIGS.get(game, {})
    ]


def _ppo_row(
    game: str, which: str, envs: Any, args: argparse.Namespace, mode_name: str, mode: dict, vec: str = "dummy"
) -> dict:
    try:
        candidates = SHIPPED_CONFIGS.get(game, {}).get(which, ())  # else: the config defaults for the game
        settings, source = ppo_settings(args.ppo_config if which == "main" else None, candidates, game)
    except Exception as exc:  # noqa: BLE001
        return {"config": which, "role": which, "game": game, "error": short(exc)}
    n_envs = envs if isinstance(envs, int) else settings["training"]["n_envs"]
    spec = {
        "vec_env": vec,
        "env": settings["env"],
        "ppo": settings["ppo"],
        "seed": settings["seed"],
        "torch_threads": 1,
        "n_envs": n_envs,
        # the config's own split of the batch (batched-procs rows with the config's env count only)
        "vec_parent_envs": None if isinstance(envs, int) else settings["training"].get("vec_parent_envs"),
        "steps": mode["ppo_steps"] if isinstance(envs, int) else settings["ppo"]["n_steps"] * n_envs,
    }
    if mode_name == "smoke":
        spec["n_epochs"] = 1
    try:
        row = run_child("ppo_child", spec)
    except Exception as exc:  # noqa: BLE001
        row = {"n_envs": n_envs, "vec_env": vec, "error": short(exc)}
    row.update(
        {
            "config": _relative(source),
            "role": which,
            "game": game,
            "opponents": settings["env"]["opponents"],
            "num_players": settings["env"]["num_players"],
            "shipped_n_envs": settings.get("training", {}).get("n_envs"),  # the config's own env count (its target)
        }
    )
    return row


def _mode(args: argparse.Namespace) -> tuple[str, dict]:
    mode_name = "smoke" if args.smoke else "quick" if args.quick else "full"
    mode = dict(MODES[mode_name])
    if args.repeats is not None:
        mode["repeats"] = max(1, args.repeats)
    if args.seconds is not None:
        mode["seconds"] = max(0.01, args.seconds)
    return mode_name, mode


def measure(args: argparse.Namespace) -> dict:
    """Run every selected part of the benchmark; returns the report (JSON-ready)."""
    mode_name, mode = _mode(args)
    games = tuple(args.game)
    only, skip = _split_words(args.only), _split_words(args.skip) or []
    do_memory = "memory" not in skip and (only is None or "memory" in only)
    do_ppo = "ppo" not in skip and (only is None or "ppo" in only)
    cases = [c for c in all_cases(games) if mode_name in c.modes and (c.key == REFERENCE or _wanted(c.key, only, skip))]
    info = machine_info()
    started = time.perf_counter()
    results = build_runners(cases)
    live = [r for r in results if r.error is None]
    mem_jobs = _memory_jobs(games, mode_name, mode) if do_memory else []
    ppo_jobs = _ppo_jobs(games, mode) if do_ppo else []
    total = len(live) * (1 + mode["repeats"]) - mode["repeats"] + len(mem_jobs) + len(ppo_jobs) + 1
    show = not args.no_progress and (sys.stderr.isatty() or os.environ.get("FARMGAMES_PROGRESS") == "1")
    progress = Progress(show, total)
    try:
        measure_throughput(live, mode, random.Random(args.seed), progress)
        throughput = throughput_rows(results)
        progress.step("observation sizes")
        obs_rows = observation_sizes(observation_targets(games))
        memory = memory_rows(mem_jobs, progress)
        ppo_rows = []
        for game, which, envs, vec in ppo_jobs:
            progress.step(f"MaskablePPO ({game}, {which} config, {envs} env{'s' if envs != 1 else ''}, {vec})")
            ppo_rows.append(_ppo_row(game, which, envs, args, mode_name, mode, vec))
    finally:
        progress.close()
    info["load_average_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    report = {
        "format": "farmgames.bench/1",
        "mode": mode_name,
        "games": list(games),
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
    return report


def run(args: argparse.Namespace) -> int:
    report = measure(args)
    if args.markdown:
        report["markdown"] = args.markdown  # the command line the tables' header repeats
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(to_markdown(report))
    print_report(report)
    if args.out:
        print(f"results written to {args.out}" + (f" and {args.markdown}" if args.markdown else ""))
    return 0
