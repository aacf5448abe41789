"""The tables of ``farmgames bench``: targets, throughput (one table per game, then the peers), memory,
observation size, MaskablePPO's env share; as markdown (``--markdown docs/bench.md``) and on the console."""

from __future__ import annotations

from typing import Any

from .cases import LEGACY_PREFIX, VECTOR_SIZES, game_prefix

TARGETS = (
    ("aec4_ratio", "4-player AEC random play with obs + mask vs connect_four_v3", ">= 3x"),
    ("engine4_games", "engine alone, 4 players, complete games/s", ">= 100"),
    ("ppo_env_share", "env share of MaskablePPO wall time (1 torch thread)", "< 8%"),
    ("memory_64", "64 envs (4 players), RSS over baseline", "< 1 GB"),
)
# issue 13: (key, throughput row, label, goal as a minimum ratio, which ratio: to the reference or to its versus)
RATIO_TARGETS = (
    (
        "gym2_random",
        "gym-2p",
        "single-agent env, 2 players vs random, per learner step, vs connect_four_v3",
        1.5,
        "ref",
    ),
    ("gym2_heuristic", "gym-heuristic-2p", "single-agent env, 2 players vs heuristic, vs connect_four_v3", 0.5, "ref"),
    ("vec8", "vec-batched-8x2p", "batched env, N = 8, vs SyncVectorEnv over 8 single envs", 2.0, "versus"),
    ("vec64", "vec-batched-64x2p", "batched env, N = 64, vs SyncVectorEnv over 64 single envs", 2.0, "versus"),
)
# env share of MaskablePPO wall time per shipped config role: (role, goal); among the runs with the config's own
# env count (``shipped_n_envs``) the best vector env counts (dummy, batched, batched-procs or, in full mode,
# subproc: the time the learner waits for its workers). A run with another env count is not the config:
# 1 env makes PPO's own step dearer, so its env share is lower without the env being any faster.
SHARE_TARGETS = (("main", 0.08), ("2p-heuristic", 0.20))
TARGET_GAME = "fields_of_green_v0"  # the targets of the single-game release are Fields of Green v0's


def _add(out: list, key: str, label: str, goal: str, value: Any, shown: str, met: bool | None) -> None:
    out.append({"key": key, "target": label, "goal": goal, "value": value, "measured": shown, "met": met})


# the speed targets of each game's own issue: (4-player AEC env() vs connect_four_v3, 4-player engine
# complete games/s); the other games get the AEC goal at 4 players for information
GAME_TARGETS = {"sunflower_valley_v0": (3.0, 1000.0), "key_harvest_v0": (3.0, 200.0)}


def _game_ratio_targets(report: dict, out: list) -> None:
    """For every other game: its wrapped 4-player AEC loop (else at most players) vs the reference, and its
    4-player engine games/s where its issue sets a goal."""
    from farmgames.envs import get_spec

    rows = {r["key"]: r for r in report["throughput"]}
    for game in report.get("games", []):
        if game == TARGET_GAME:
            continue
        spec, pre = get_spec(game), game_prefix(game)
        aec_goal, engine_goal = GAME_TARGETS.get(game, (3.0, None))
        seats = 4 if 4 in spec.player_counts else spec.max_players
        r = rows.get(f"{pre}/aec-env-{seats}p")
        if r is not None:
            ratio = r.get("ratio_to_reference")
            _add(
                out,
                f"aec_ratio:{game}",
                f"{r['label']} vs connect_four_v3" + ("" if game in GAME_TARGETS else " (for information)"),
                f">= {aec_goal:g}x",
                ratio,
                f"{ratio:.2f}x" if ratio else "n/a",
                None if ratio is None else ratio >= aec_goal,
            )
        for n in VECTOR_SIZES:  # issue 13's batched goal holds for every game: its rows where the run has them
            versus = rows.get(f"{pre}/vec-batched-{n}x{spec.min_players}p", {}).get("ratio_to_versus")
            if versus is not None:
                _add(
                    out,
                    f"vec{n}:{game}",
                    f"batched env ({game}), N = {n}, vs SyncVectorEnv over {n} single envs",
                    ">= 2x",
                    versus,
                    f"{versus:.2f}x",
                    versus >= 2.0,
                )
        eng = rows.get(f"{game}/engine/4p", {}).get("games_per_s", {}).get("median")
        if engine_goal is not None and eng is not None:
            _add(
                out,
                f"engine4_games:{game}",
                f"engine {spec.title} alone, 4 players, complete games/s",
                f">= {engine_goal:g}",
                eng,
                f"{eng:.0f} games/s",
                eng >= engine_goal,
            )


def evaluate_targets(report: dict) -> list[dict]:
    rows = {r["key"]: r for r in report["throughput"]}
    out: list[dict] = []
    pre = LEGACY_PREFIX[TARGET_GAME]
    ratio = rows.get(f"{pre}/aec-env-4p", {}).get("ratio_to_reference")
    _add(
        out,
        "aec4_ratio",
        TARGETS[0][1],
        TARGETS[0][2],
        ratio,
        f"{ratio:.2f}x" if ratio else "n/a",
        None if ratio is None else ratio >= 3,
    )
    eng = rows.get("engine/4p", {}).get("games_per_s", {}).get("median")
    _add(
        out,
        "engine4_games",
        TARGETS[1][1],
        TARGETS[1][2],
        eng,
        f"{eng:.0f} games/s" if eng else "n/a",
        None if eng is None else eng >= 100,
    )
    _share_targets(report, out, SHARE_TARGETS[:1], "ppo_env_share")
    mem = next((m.get("envs_64_mib") for m in report["memory"] if m.get("kind") == pre), None)
    _add(
        out,
        "memory_64",
        TARGETS[3][1],
        TARGETS[3][2],
        mem,
        f"{mem:.0f} MiB" if mem is not None else "n/a",
        None if mem is None else mem * 2**20 < 1e9,
    )
    _ratio_targets(rows, pre, out)
    _share_targets(report, out, SHARE_TARGETS[1:])
    _game_ratio_targets(report, out)
    return out


def _ratio_targets(rows: dict, pre: str, out: list) -> None:
    for key, case, label, goal, which in RATIO_TARGETS:
        r = rows.get(f"{pre}/{case}", {})
        ratio = r.get("ratio_to_reference" if which == "ref" else "ratio_to_versus")
        _add(
            out,
            key,
            label,
            f">= {goal:g}x",
            ratio,
            f"{ratio:.2f}x" if ratio else "n/a",
            None if ratio is None else ratio >= goal,
        )


def _run_name(p: dict) -> str:
    workers = p.get("vec_workers", 1)
    parent = p.get("vec_parent_envs")
    split = f", {parent} in the parent" if parent is not None else ""
    procs = f" ({workers} workers{split})" if p.get("vec_env") == "batched-procs" else ""
    return f"{p.get('n_envs', '?')} env{'s' if p.get('n_envs') != 1 else ''}, {p.get('vec_env', 'dummy')}{procs}"


def _share_targets(report: dict, out: list, roles: tuple, key: str | None = None) -> None:
    """Per shipped config role of the target game: the lowest env share among its runs with the config's own
    env count (the training configs use the fastest vector env), naming the run. Reports written before rows
    recorded ``shipped_n_envs`` count every run."""
    for role, goal in roles:
        runs = [
            p
            for p in report["ppo"]
            if p.get("role") == role and p.get("game", TARGET_GAME) == TARGET_GAME and "env_share" in p
        ]
        runs = [p for p in runs if p.get("shipped_n_envs") in (None, p.get("n_envs"))]
        best = min(runs, key=lambda p: p["env_share"], default=None)
        label = f"{TARGETS[2][1]}, {best['config'] if best else role}" + (f" ({_run_name(best)})" if best else "")
        share = best["env_share"] if best else None
        shown = f"{share * 100:.1f}%" if share is not None else "n/a"
        _add(
            out,
            key or f"ppo_env_share:{role}",
            label,
            f"< {goal * 100:g}%",
            share,
            shown,
            None if share is None else share < goal,
        )


def _fmt_rate(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


THROUGHPUT_HEADER = ["benchmark", "step =", "steps/s (median)", "spread", "games/s", "vs connect_four_v3", "note"]


def _row(r: dict) -> list[str]:
    if "error" in r:
        return [r["label"], r["unit"], "—", "", "—", "—", "skipped: " + r["error"]]
    s = r["steps_per_s"]
    games = r.get("games_per_s")
    g = "—" if not games else _fmt_rate(games["median"]) + ("" if not games.get("derived") else "*")
    ratio = r.get("ratio_to_reference")
    return [
        r["label"],
        r["unit"],
        _fmt_rate(s["median"]),
        f"±{s['spread_pct']:.0f}%",
        g,
        f"{ratio:.2f}x" if ratio is not None else "—",
        _note(r),
    ]


def _note(r: dict) -> str:
    """The case's note, with its ratio to the case it is paired with (same repeats) where it has one."""
    note = r.get("note", "")
    if r.get("ratio_to_versus") is not None:
        pair = f"**{r['ratio_to_versus']:.2f}x** `{r['versus'].split('/', 1)[-1]}` (median of per-repeat ratios)"
        note = f"{pair}; {note}" if note else pair
    return note


def throughput_tables(report: dict) -> list[tuple[str, list[list[str]]]]:
    """``[(title, rows)]``: one table per game (in run order), then the peers."""
    from farmgames.envs import get_spec

    tables: dict[str | None, list[list[str]]] = {}
    for r in report["throughput"]:
        tables.setdefault(r.get("game"), []).append(_row(r))
    out = []
    for game, rows in tables.items():
        if game is not None:
            spec = get_spec(game)
            out.append((f"{spec.title} ({spec.env_name})", rows))
    if None in tables:
        out.append(("Peers (PettingZoo, OpenSpiel)", tables[None]))
    return out


def table_rows(report: dict) -> list[list[str]]:
    """Every throughput row in one list (the console's single table)."""
    return [_row(r) for r in report["throughput"]]


def md_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(x):
        return str(x).replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _mem_pair(m: dict, n: int) -> str:
    """'peak delta / resident delta' in MiB."""
    return f"{m.get(f'envs_{n}_mib', 0):.1f} / {m.get(f'envs_{n}_rss_mib', 0):.1f}"


def memory_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["env", "baseline process (MiB)", "1 env (MiB)", "64 envs (MiB)", "per extra env (KiB)"]
    rows = []
    for m in report["memory"]:
        if "error" in m:
            rows.append([m["env"], "skipped: " + m["error"], "", "", ""])
            continue
        counts = m.get("counts", [])
        big = counts[-1] if counts else None
        header[3] = f"{big} envs (MiB)" if big else header[3]
        rows.append(
            [
                m["env"],
                f"{m['baseline_mib']:.0f}",
                _mem_pair(m, 1),
                _mem_pair(m, big) if big else "—",
                f"{m['per_env_kib']:.0f}" if "per_env_kib" in m else "—",
            ]
        )
    return header, rows


def obs_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["env", "observation (bytes)", "action mask (bytes)", "actions"]
    rows = []
    for o in report["observation"]:
        if "error" in o:
            rows.append([o["env"], "skipped: " + o["error"], "", ""])
        else:
            rows.append([o["env"], f"{o['observation_bytes']:,}", f"{o['mask_bytes']:,}", f"{o['mask_size']:,}"])
    return header, rows


def ppo_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = [
        "config",
        "run",
        "learner steps",
        "wall (s)",
        "steps/s",
        "env step+reset",
        "+ action_masks",
        "env share",
        "share incl. masks",
    ]
    rows = []
    for p in report["ppo"]:
        name = _run_name(p)
        if "num_players" in p:
            name += f"; {p.get('game', TARGET_GAME)}, {p['num_players']} players vs {p['opponents']}"
        config = f"`{p.get('config')}`"
        if "error" in p:
            rows.append([config, name, "skipped: " + p["error"], "", "", "", "", "", ""])
            continue
        env_s = p["env_step_s"] + p["env_reset_s"]
        rows.append(
            [
                config,
                name,
                str(p["learner_steps"]),
                f"{p['wall_s']:.1f}",
                f"{p['learner_steps'] / p['wall_s']:,.0f}" if p["wall_s"] else "—",
                f"{env_s:.2f} s",
                f"{p['action_masks_s']:.2f} s",
                f"{p['env_share'] * 100:.1f}%",
                f"{p['env_share_with_masks'] * 100:.1f}%",
            ]
        )
    return header, rows


def targets_table(report: dict) -> tuple[list[str], list[list[str]]]:
    header = ["target", "goal", "measured", "met"]
    rows = [
        [t["target"], t["goal"], t["measured"], {True: "yes", False: "**no**", None: "n/a"}[t["met"]]]
        for t in report["targets"]
    ]
    return header, rows


def _compiled_line(compiled: dict | None) -> str:
    """Which modules ran compiled with mypyc (envs/_native.py); reports from before the build say nothing."""
    if compiled is None:
        return "- compiled modules: not recorded"
    on = [name for name, yes in compiled.items() if yes]
    if not on:
        return "- compiled modules: none (plain Python throughout)"
    return f"- compiled with mypyc: {', '.join(on)} (the rest plain Python)"


def machine_lines(report: dict) -> list[str]:
    m = report["machine"]
    v = m["versions"]
    cores = f"{m['logical_cores']} logical cores ({m['usable_cores']} usable"
    cores += f", cgroup limit {m['cgroup_cpu_limit']} CPUs)" if m.get("cgroup_cpu_limit") else ")"
    s = report["settings"]
    return [
        f"- CPU: {m['cpu']}, {cores}, {m.get('memory_gib')} GiB RAM",
        f"- {m['python']} on {m['os']}",
        "- " + ", ".join(f"{k} {val}" for k, val in v.items() if val),
        _compiled_line(m.get("compiled")),
        f"- load average at start {m.get('load_average_start')}, at end {m.get('load_average_end')} (shared machine)",
        f"- mode `{report['mode']}`: warm-up {s['warmup']} s, {s['repeats']} repeats of {s['seconds']} s per case, "
        f"interleaved; run took {report['wall_seconds']} s; {m['date']}",
        f"- games: {', '.join(report.get('games', [TARGET_GAME]))}",
    ]


def _command(report: dict) -> str:
    mode = {"quick": " --quick", "smoke": " --smoke", "full": ""}[report["mode"]]
    games = report.get("games", [TARGET_GAME])
    game = "" if games == [TARGET_GAME] else f" --game {','.join(games)}"
    return f"farmgames bench{mode}{game} --markdown {report.get('markdown', 'docs/bench.md')}"


def to_markdown(report: dict) -> str:
    throughput = []
    for title, rows in throughput_tables(report):
        throughput += [f"### {title}", "", md_table(THROUGHPUT_HEADER, rows), ""]
    parts = [
        "# Benchmark",
        "",
        f"Generated by `{_command(report)}`; do not edit by hand (see `docs/profiling.md` for what the numbers "
        "led to).",
        "Uniformly random legal play everywhere. Rates are medians over interleaved repeats; spread is half the "
        "range of the repeats. `connect_four_v3` runs again right after every timed run of every other case, "
        "and a ratio is the median of (case rate / that reference run's rate): on a shared, loaded machine the "
        "ratios are the figures to compare, not the absolute rates.",
        "",
        "## Machine",
        "",
        *machine_lines(report),
        "",
        "## Targets",
        "",
        md_table(*targets_table(report)),
        "",
        "## Throughput",
        "",
        "One table per game, then the peers (all measured in the same run).",
        "",
        *throughput,
        "`*` games/s derived from steps/s and the mean game length of the completed games. Only live decisions "
        "count, for every env and peer alike: an AEC loop's final `step(None)` of each agent after the game "
        "ended is played but not counted, a parallel step counts the agents that had a decision (not those "
        "that could only send the NOOP), OpenSpiel chance nodes are not counted, and a vector env's step "
        "counts one learner decision per game. A **bold** ratio in the note compares a case with the case it "
        "names, repeat by repeat (the two run seconds apart in every repeat).",
        "",
        "## Memory",
        "",
        "Each count runs in its own subprocess: imports, then the peak-RSS counter is reset (Linux "
        "`/proc/self/clear_refs`), then N envs are built, reset and played for some random steps each. Shown: "
        "peak RSS minus that of a baseline subprocess with the same imports and no env; after the slash the same "
        "for the resident RSS at the end. Per extra env: resident growth from 1 to N envs, divided by N - 1.",
        "",
        md_table(*memory_table(report)),
        "",
        "## Observation size",
        "",
        md_table(*obs_table(report)),
        "",
        "## MaskablePPO: time inside the env",
        "",
        "`MaskablePPO.learn` for one rollout with the env and PPO settings (batch size, epochs, network) of "
        "the shipped config, torch with 1 thread, `n_steps` = steps / envs; env time is measured by a wrapper "
        "around each single-agent env (`dummy`: SB3's DummyVecEnv) or around the batched env's `step_wait`, "
        "`reset` and `action_masks` (`batched`: `farmgames.wrappers.vector.SB3BatchedVecEnv`; `batched-procs`: "
        "the same over `farmgames.wrappers.process_vector.ProcessBatchedEnv`, one process per core, the parent's "
        "included; "
        "`subproc`: SB3's SubprocVecEnv, its `step_async` to `step_wait`); opponent moves "
        "happen inside `step`, so bot opponents count as env time. The env-share targets take the lowest share "
        "among the runs of each config with its own env count (the training configs use the fastest vector env).",
        "",
        md_table(*ppo_table(report)),
        "",
    ]
    return "\n".join(parts)


def print_report(report: dict) -> None:
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

    for line in machine_lines(report):
        console.print(line, markup=False, highlight=False)
    for title, rows in throughput_tables(report):
        show(f"Throughput: {title} (random legal play)", THROUGHPUT_HEADER, rows)
    show("Memory", *memory_table(report))
    show("Observation size", *obs_table(report))
    show("MaskablePPO: time inside the env", *ppo_table(report))
    show("Targets", *targets_table(report))
