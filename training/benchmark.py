"""``farmgames benchmark``: the standard evaluation protocol of the suite, and the ladder it rates against.

    farmgames benchmark --game fields_of_green --policy path/to/model.zip      # rate one policy
    farmgames benchmark --game key_harvest --ladder                            # regenerate docs/<game>/ladder.md

A result on the benchmark is always measured the same way (docs/benchmark.md):

* a fixed list of deals (``derive_seed(BENCHMARK_SEED, i)``, ``--deals`` of them, 50 by default);
* every seat rotation: each deal is played once with the policy in every seat, the other seats taken by
  one ladder opponent (so ``deals x players`` games per opponent);
* opponents from the game's ladder: ``random``, ``heuristic``, ``ismcts_25`` and ``ismcts_100`` (IS-MCTS at
  two simulation budgets, :mod:`farmgames.envs.core.search`), and the best shipped PPO checkpoint of the
  game when the repository ships one (:data:`SHIPPED_CHECKPOINTS`; every game ships one today, ``--checkpoint``
  adds your own);
* per opponent: win rate (a shared win counts 1/k for k winners) with its 95% Wilson interval, mean score
  and mean margin (own score minus the best other score);
* an OpenSkill (Plackett-Luce) rating against the ladder: the ladder's ratings from its own round robin
  (``docs/<game>/ladder.json``) are held fixed and only the policy's rating moves, game by game, in the
  fixed order of the protocol.

The command writes the JSON result (``--out``) and prints one markdown row for a leaderboard table. With
``--ladder`` it plays the round robin of the ladder itself (every pair, every seat rotation, the same deal
list) and rewrites ``docs/<game>/ladder.md`` and ``ladder.json``. Every game is appended to a JSON-lines log
as it ends (``--log``), so ``--aggregate LOG`` rebuilds the report of an interrupted run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from farmgames.envs.core.seeding import derive_seed

from .arena import wilson_interval
from .games import add_game_argument

BENCHMARK_SEED = 14
LADDER: tuple[str, ...] = ("random", "heuristic", "ismcts_25", "ismcts_100")
#: where a game's shipped PPO checkpoints live (the newest trained on the env version joins its ladder)
SHIPPED_CHECKPOINTS = "docs/{game}/baselines/*.safetensors"
DOCS = Path(__file__).resolve().parents[1] / "docs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser)
    parser.add_argument("--policy", help="the policy to rate: a bot name, a checkpoint .zip, or module:attribute")
    parser.add_argument("--ladder", action="store_true", help="play the ladder's round robin; rewrite its docs")
    parser.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    parser.add_argument("--deals", type=int, default=50, help="deals per opponent / pair (x players games)")
    parser.add_argument("--opponents", nargs="+", help=f"ladder entrants (default {' '.join(LADDER)})")
    parser.add_argument("--checkpoint", action="append", default=[], help="add a checkpoint to the ladder")
    parser.add_argument("--trust-checkpoint", action="store_true", help="allow unpickling SB3 .zip checkpoints")
    parser.add_argument("--out", help="JSON result path (default benchmark_<game>_<policy>.json; ladder: docs)")
    parser.add_argument("--log", help="JSON-lines log of every game (default <out>.games.jsonl)")
    parser.add_argument(
        "--aggregate", metavar="LOG", help="rebuild the report from a games log (or a ladder.json) instead of playing"
    )
    parser.add_argument("--docs", default=str(DOCS), help="docs folder for --ladder (default the repo's docs/)")


# ---------------------------------------------------------------------------------------------- playing


class _Timed:
    """A policy wrapper that times the decisions with more than one legal action."""

    def __init__(self, policy: Any):
        self.policy = policy
        self.needs_observation = getattr(policy, "needs_observation", True)
        self.seconds = 0.0
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        if hasattr(self.policy, "reset"):
            self.policy.reset(seed=seed)

    def attach(self, game: Any, seat: int | None = None) -> None:
        if hasattr(self.policy, "attach"):
            self.policy.attach(game, seat)

    def act(self, observation: Any, action_mask: Any) -> int:
        if int(action_mask.sum()) <= 1:
            return int(self.policy.act(observation, action_mask))
        t = time.perf_counter()
        action = int(self.policy.act(observation, action_mask))
        self.seconds += time.perf_counter() - t
        self.decisions += 1
        return action


def label(spec: str) -> str:
    """The name an entrant goes by in results: a checkpoint by its file stem, anything else as given."""
    text = str(spec)
    if text.endswith((".safetensors", ".zip")) or "/" in text:
        return Path(text).stem
    return text


def _same_file(a: str, b: str) -> bool:
    pa, pb = Path(a), Path(b)
    return pa.is_file() and pb.is_file() and pa.resolve() == pb.resolve()


def deal_seeds(deals: int) -> list[int]:
    """The fixed deal list of the protocol."""
    return [derive_seed(BENCHMARK_SEED, i) for i in range(deals)]


def shipped_checkpoints(game: str, root: Path | None = None, env: str | None = None) -> list[str]:
    """Checkpoints the repository ships for ``game`` (the best of them joins the ladder); with ``env`` only
    those trained on that version (``fields_of_green_v0`` and ``_v1`` share docs/fields_of_green/)."""
    from .checkpoint import read_meta

    base = root or DOCS.parent
    paths = sorted(str(p) for p in base.glob(SHIPPED_CHECKPOINTS.format(game=game)))
    return [p for p in paths if env is None or read_meta(p).get("env") == env]


def play_tables(
    game: str,
    players: int,
    entrants: list[str],
    tables: list[tuple[int, ...]],
    deals: int,
    log: Path | None,
    trust: bool = False,
    progress: bool = True,
) -> tuple[list[dict], dict[str, dict[str, float]]]:
    """Play every table (entrant indices, one per seat before rotation) on every deal in every seat rotation.
    Returns the game rows and per-entrant timing."""
    from .arena import Arena
    from .policy import load_policy

    arena = Arena(players, game=game)
    timed = {label(e): _Timed(load_policy(e, seed=0, env_facts=arena.facts, trust=trust)) for e in entrants}
    rows: list[dict] = []
    out = log.open("a") if log is not None else None
    seeds = deal_seeds(deals)
    total, done, start = len(tables) * deals * players, 0, time.perf_counter()
    try:
        for table in tables:
            for d, seed in enumerate(seeds):
                for rot in range(players):
                    order = [table[(seat + rot) % len(table)] for seat in range(players)]
                    names = [label(entrants[i]) for i in order]
                    result = arena.play([timed[n] for n in names], seed, names)
                    row = {
                        "seed": seed,
                        "deal": d,
                        "seats": names,
                        "scores": result.scores,
                        "winners": result.winners,
                        "ranks": result.ranks,
                        "decisions": result.decisions,
                    }
                    rows.append(row)
                    if out is not None:
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                    done += 1
                    if progress:
                        rate = (time.perf_counter() - start) / done
                        print(f"\r{done}/{total} games, {rate:.1f} s/game", end="", file=sys.stderr, flush=True)
    finally:
        if out is not None:
            out.close()
        arena.close()
        if progress:
            print(file=sys.stderr)
    timing = {
        n: {
            "decisions": t.decisions,
            "seconds": t.seconds,
            "decisions_per_second": t.decisions / t.seconds if t.seconds else math.inf,
        }
        for n, t in timed.items()
    }
    return rows, timing


# ---------------------------------------------------------------------------------------------- statistics


def _credit(row: dict, seat: int) -> float:
    return 1.0 / len(row["winners"]) if seat in row["winners"] else 0.0


def _margin(row: dict, seat: int) -> float:
    scores = row["scores"]
    return float(scores[seat] - max(s for q, s in enumerate(scores) if q != seat))


def record_of(rows: list[dict], name: str, against: str | None = None) -> dict:
    """Win rate (Wilson 95%), mean score and margin of ``name`` over ``rows`` (only tables with ``against``
    when given)."""
    wins = games = 0.0
    score = margin = 0.0
    for row in rows:
        seats = row["seats"]
        if name not in seats or (against is not None and against not in seats) or (against == name):
            continue
        for seat, who in enumerate(seats):
            if who != name:
                continue
            games += 1
            wins += _credit(row, seat)
            score += row["scores"][seat]
            margin += _margin(row, seat)
    lo, hi = wilson_interval(wins, int(games))
    n = max(games, 1)
    return {
        "games": int(games),
        "wins": wins,
        "win_rate": wins / n,
        "wilson_95": [lo, hi],
        "mean_score": score / n,
        "mean_margin": margin / n,
    }


def ladder_ratings(rows: list[dict], entrants: list[str]) -> dict[str, dict[str, float]]:
    """OpenSkill Plackett-Luce ratings of the entrants from the games in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in entrants}
    for row in rows:
        seats = row["seats"]
        if len(set(seats)) < len(seats):  # the same entrant twice at a table: no information about it
            continue
        new = model.rate([[ratings[n]] for n in seats], ranks=[float(r) for r in row["ranks"]])
        for n, team in zip(seats, new):
            ratings[n] = team[0]
    return {n: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for n, r in ratings.items()}


def rating_against(rows: list[dict], name: str, ladder: dict[str, dict[str, float]]) -> dict[str, float]:
    """The OpenSkill rating of ``name`` against fixed ladder ratings (only its own rating moves)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mine = model.rating(name=name)
    for row in rows:
        seats = row["seats"]
        if name not in seats or any(s != name and s not in ladder for s in seats):
            continue
        teams = [
            [mine] if s == name else [model.rating(mu=ladder[s]["mu"], sigma=ladder[s]["sigma"], name=s)] for s in seats
        ]
        new = model.rate(teams, ranks=[float(r) for r in row["ranks"]])
        mine = new[seats.index(name)][0]
    return {"mu": mine.mu, "sigma": mine.sigma, "ordinal": mine.ordinal()}


# ---------------------------------------------------------------------------------------------- reports


def _pct(rec: dict) -> str:
    lo, hi = rec["wilson_95"]
    return f"{100 * rec['win_rate']:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]"


def leaderboard_header(opponents: list[str]) -> str:
    cols = ["policy", "game", "players", "games"] + [f"win vs {o}" for o in opponents]
    cols += ["mean score", "mean margin", "OpenSkill ordinal (mu, sigma)"]
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def leaderboard_row(result: dict) -> str:
    """One markdown row: the policy's line on a leaderboard (columns as :func:`leaderboard_header`)."""
    per = result["opponents"]
    total = result["overall"]
    rating = result.get("rating")
    rated = f"{rating['ordinal']:.2f} ({rating['mu']:.2f}, {rating['sigma']:.2f})" if rating else "n/a"
    cells = [result["policy"], result["game"], str(result["players"]), str(total["games"])]
    cells += [_pct(per[o]) for o in result["opponent_names"]]
    cells += [f"{total['mean_score']:.1f}", f"{total['mean_margin']:+.1f}", rated]
    return "| " + " | ".join(cells) + " |"


def benchmark_result(
    rows: list[dict],
    policy: str,
    game: str,
    players: int,
    opponents: list[str],
    ladder: dict | None,
    timing: dict | None = None,
) -> dict:
    spec_name = _env_name(game)
    policy, opponents = label(policy), [label(o) for o in opponents]
    return {
        "protocol": f"farmgames benchmark/1 (seed {BENCHMARK_SEED}, every seat rotation)",
        "policy": policy,
        "game": spec_name,
        "players": players,
        "deals": len({row["deal"] for row in rows}),
        "opponent_names": opponents,
        "opponents": {o: record_of(rows, policy, o) for o in opponents},
        "overall": record_of(rows, policy),
        "rating": rating_against(rows, policy, ladder["ratings"]) if ladder else None,
        "ladder": ladder.get("generated") if ladder else None,
        "timing": (timing or {}).get(policy),
        "games": rows,
    }


def ladder_result(
    rows: list[dict], entrants: list[str], game: str, players: int, timing: dict | None, command: str, seconds: float
) -> dict:
    entrants = [label(e) for e in entrants]
    ratings = ladder_ratings(rows, entrants)
    table = {a: {b: record_of(rows, a, b) for b in entrants if b != a} for a in entrants}
    return {
        "protocol": f"farmgames benchmark/1 (seed {BENCHMARK_SEED}, every seat rotation)",
        "game": _env_name(game),
        "players": players,
        "deals": len({row["deal"] for row in rows}),
        "entrants": entrants,
        "ratings": ratings,
        "records": {n: record_of(rows, n) for n in entrants},
        "pairs": table,
        "timing": timing,
        "generated": {
            "command": command,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "python": platform.python_version(),
            "machine": platform.machine(),
            "seconds": round(seconds, 1),
        },
        "games": rows,
    }


def ladder_markdown(res: dict) -> str:
    entrants = res["entrants"]
    order = sorted(entrants, key=lambda n: -res["ratings"][n]["ordinal"])
    gen = res["generated"]
    lines = [
        f"# Ladder: {res['game']}, {res['players']} players",
        "",
        "The benchmark's opponents rated against each other (docs/benchmark.md). Generated by",
        "",
        f"    {gen['command']}",
        "",
        f"on {gen['date']} (Python {gen['python']}, {gen['machine']}, one core, {gen['seconds'] / 60:.0f} min): "
        f"{res['deals']} fixed deals, every pair in every seat rotation, {len(res['games'])} games. Win rates "
        "count a shared win as 1/k; intervals are 95% Wilson; ratings are OpenSkill Plackett-Luce over the games "
        "in order (ordinal = mu - 3 sigma)." + (f" Note: {gen['note']}." if gen.get("note") else ""),
        "",
        "| entrant | OpenSkill ordinal | mu | sigma | games | win rate | mean score | mean margin | decisions/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n in order:
        r, rec = res["ratings"][n], res["records"][n]
        t = (res.get("timing") or {}).get(n) or {}
        speed = t.get("decisions_per_second")
        speed_text = "-" if speed is None else ("fast" if math.isinf(speed) or speed > 1e4 else f"{speed:.1f}")
        lines.append(
            f"| {n} | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | {rec['games']} | {_pct(rec)} | "
            f"{rec['mean_score']:.1f} | {rec['mean_margin']:+.1f} | {speed_text} |"
        )
    lines += ["", "Win rate of the row against the column (games between the two only):", ""]
    lines.append("| | " + " | ".join(order) + " |")
    lines.append("|---|" + "---|" * len(order))
    for a in order:
        cells = ["-" if a == b else _pct(res["pairs"][a][b]) for b in order]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Decisions/s: wall clock of the decisions with more than one legal action (the others are free), during",
        "the round robin, one process on a 2-core machine shared with other jobs (docs/benchmark.md has figures",
        "measured apart).",
        "",
    ]
    return "\n".join(lines)


def _env_name(game: str) -> str:
    from farmgames.envs import get_spec

    return str(get_spec(game).env_name)


def _read_log(path: str | Path) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return _relabel(rows)


def _relabel(rows: list[dict]) -> list[dict]:
    for row in rows:
        row["seats"] = [label(s) for s in row["seats"]]
    return rows


# ---------------------------------------------------------------------------------------------- command


def run_ladder(args: argparse.Namespace) -> int:
    from farmgames.envs import get_spec

    spec = get_spec(args.game)
    entrants = (
        list(args.opponents or LADDER) + list(args.checkpoint) + shipped_checkpoints(spec.name, env=spec.env_name)[-1:]
    )
    docs = Path(args.docs) / spec.name
    out = Path(args.out) if args.out else docs / "ladder.json"
    log = Path(args.log) if args.log else Path(tempfile.gettempdir()) / f"ladder_{spec.name}.games.jsonl"
    command = f"farmgames benchmark --game {spec.name} --ladder --players {args.players} --deals {args.deals}"
    if args.opponents:
        command += " --opponents " + " ".join(args.opponents)
    start = time.perf_counter()
    timing, generated = None, None
    if args.aggregate and str(args.aggregate).endswith(".json"):  # a ladder.json: rewrite its page
        old = json.loads(Path(args.aggregate).read_text())
        rows, generated, entrants = _relabel(old["games"]), old.get("generated"), old["entrants"]
        timing = {label(k): v for k, v in (old.get("timing") or {}).items()}
    elif args.aggregate:
        rows = _read_log(args.aggregate)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        tables = list(itertools.combinations(range(len(entrants)), args.players))
        rows, timing = play_tables(
            args.game, args.players, entrants, tables, args.deals, log, trust=args.trust_checkpoint
        )
    res = ladder_result(rows, entrants, args.game, args.players, timing, command, time.perf_counter() - start)
    if generated:
        res["generated"] = generated
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    md = out.with_suffix(".md")
    md.write_text(ladder_markdown(res))
    print(f"wrote {out} and {md}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.ladder:
        return run_ladder(args)
    if not args.policy:
        print("farmgames benchmark: give --policy P (or --ladder)", file=sys.stderr)
        return 2
    from farmgames.envs import get_spec

    spec = get_spec(args.game)
    shipped = shipped_checkpoints(spec.name, env=spec.env_name)
    opponents = list(args.opponents or LADDER) + list(args.checkpoint) + shipped[-1:]
    if not shipped and not args.checkpoint:
        print(f"note: no PPO checkpoint is shipped for {spec.name}; the ladder has no PPO entrant", file=sys.stderr)
    ladder_path = Path(args.docs) / spec.name / "ladder.json"
    ladder = json.loads(ladder_path.read_text()) if ladder_path.is_file() else None
    if ladder is None:
        print(f"note: {ladder_path} is missing (run --ladder first): no rating", file=sys.stderr)
    elif ladder.get("game") != spec.env_name or ladder.get("players") != args.players:
        print(
            f"note: {ladder_path} rates {ladder.get('game')} with {ladder.get('players')} players, not "
            f"{spec.env_name} with {args.players}: no rating",
            file=sys.stderr,
        )
        ladder = None
    # a shipped checkpoint rated against the ladder does not play itself
    opponents = [o for o in opponents if not _same_file(o, args.policy)]
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(args.policy).stem)
    out = Path(args.out or f"benchmark_{spec.name}_{safe}.json")
    log = Path(args.log) if args.log else out.with_suffix(".games.jsonl")
    timing = None
    if args.aggregate:
        rows = _read_log(args.aggregate)
    else:
        log.write_text("")
        entrants = [args.policy, *opponents]
        tables = [(0,) + (i,) * (args.players - 1) for i in range(1, len(entrants))]
        rows, timing = play_tables(
            args.game, args.players, entrants, tables, args.deals, log, trust=args.trust_checkpoint
        )
    res = benchmark_result(rows, args.policy, args.game, args.players, opponents, ladder, timing)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(leaderboard_header([label(o) for o in opponents]))
    print(leaderboard_row(res))
    print(f"wrote {out}", file=sys.stderr)
    return 0
