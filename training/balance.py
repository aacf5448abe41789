"""``farmgames balance``: a balance report for any game by seeded bot-vs-bot simulation.

    farmgames balance                          # 400 games, 4 heuristic bots -> docs/fields_of_green/balance.md
    farmgames balance --games 40 --players 3 --out /tmp/b.md --json /tmp/b.json
    farmgames balance --winrate --games 1000   # heuristic vs random win rates for every player count
    farmgames balance --game <game> --players N

For every game the report gives the score distribution (winning and all scores, the margin between first
and second), the mean score parts (``Score.as_dict()``), win rates by seat (and by seat after the first
player, where the game has one) and the game length. A game adds its own items through
``envs/<game>/balance.py`` (see :mod:`farmgames.envs.fields_of_green.balance`: per card design pick rate,
build rate and builders' win rate, equipment, action mix, strategies, with flags for designs that look
dominant or useless). Everything is derived from the seed, so a run is reproducible.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

from .games import DEFAULT_GAME, add_game_argument, check_players

__all__ = ["aggregate", "game_items", "render_report", "simulate_game", "winrates"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser)
    parser.add_argument("--games", type=int, default=400, help="number of seeded games (default 400)")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="players per game (default: the game's default, 4 for fields_of_green)",
    )
    parser.add_argument(
        "--bots",
        default=None,
        help="a bot of the game for every seat (e.g. random, heuristic), or a comma-separated list, one per seat "
        "(default: heuristic where the game has it, else random)",
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed+i (default 0)")
    parser.add_argument("--out", default=None, help="markdown report path (default docs/<game>/balance.md)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the raw statistics as JSON")
    parser.add_argument(
        "--plot",
        default="auto",
        metavar="PATH",
        help="score histogram PNG (needs matplotlib); 'auto' = beside --out as <out>_scores.png if matplotlib "
        "is installed, 'none' = no plot",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword of the game (YAML value), repeatable",
    )
    parser.add_argument(
        "--card-set",
        default=None,
        metavar="PATH",
        help="fields_of_green: card-set YAML (default: the base set); same as --variant card_set=PATH",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1; the machine is small)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--winrate",
        action="store_true",
        help="instead of the report: heuristic (rotating seat) vs random bots, --games games for each player "
        "count of the game (with --only-players: only --players)",
    )
    parser.add_argument("--only-players", action="store_true", help="with --winrate: only the --players count")
    parser.add_argument(
        "--from-json",
        default=None,
        metavar="PATH",
        help="re-render the report from statistics saved with --json (no new games)",
    )


def game_items(game: str) -> Any:
    """The game's balance module (``farmgames.envs.<game>.balance``), or None when it has none."""
    from farmgames.envs import get_spec

    name = f"farmgames.envs.{get_spec(game).name}.balance"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):  # no such module (or no such package: a game from elsewhere)
            return None
        raise


# --------------------------------------------------------------------------------------------
# Simulation (top-level functions so that multiprocessing can pickle them)


def _seat_bots(text: str, players: int) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"--bots lists {len(names)} bots for {players} players")
    return names


def _new_game(spec: Any, players: int, seed: int, variant: dict) -> Any:
    return spec.new_game(num_players=players, seed=seed, **{k: v for k, v in variant.items() if v is not None})


def simulate_game(
    seed: int,
    players: int,
    bots: list[str],
    card_set: str | None = None,
    game: str = DEFAULT_GAME,
    variant: dict | None = None,
) -> dict:
    """Play one seeded game (seat ``i``'s bot seeded ``seed * 10 + i``) and return its statistics (plain
    data, JSON-ready): scores, winners, decisions, plus the game's own items."""
    from farmgames.envs import get_spec
    from farmgames.envs.core.bots import make_bot, play_game

    spec = get_spec(game)
    variant = {**(variant or {}), **({"card_set": card_set} if card_set else {})}
    state = _new_game(spec, players, seed, variant)
    seat_bots = [make_bot(spec.bots, name, seed=seed * 10 + i) for i, name in enumerate(bots)]
    items = game_items(game)
    tracker = items.SeatItems(state) if items is not None else None
    first_player = getattr(state, "first_player", None)
    play_game(seat_bots, game=state, on_action=tracker.on_action if tracker is not None else None)
    record = {
        "seed": seed,
        "players": players,
        "bots": bots,
        "first_player": first_player,
        "scores": [s.as_dict() for s in state.scores()],
        "winners": state.winners(),
        "decisions": len(state.history),
    }
    if tracker is not None:
        record.update(tracker.result(state))
    return record


def _run_games(fn, seeds: list[int], workers: int, progress: bool, label: str) -> list[dict]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    results: list[dict] = []
    with Progress(*columns, disable=not progress, transient=False) as bar:
        task = bar.add_task(label, total=len(seeds))
        if workers > 1 and len(seeds) > 1:
            import multiprocessing as mp

            with mp.get_context("spawn").Pool(workers) as pool:
                for result in pool.imap(fn, seeds, chunksize=4):
                    results.append(result)
                    bar.advance(task)
        else:
            for s in seeds:
                results.append(fn(s))
                bar.advance(task)
    return results


# --------------------------------------------------------------------------------------------
# Aggregation


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    xs = sorted(values)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _dist(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "mean": 0.0, "median": 0.0, "p10": 0.0, "p90": 0.0, "min": 0, "max": 0}
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "p10": _pct(values, 0.1),
        "p90": _pct(values, 0.9),
        "min": min(values),
        "max": max(values),
    }


def score_parts(games: list[dict], items: Any = None) -> tuple[str, ...]:
    """The score parts to report: the game's ``PARTS``, else every numeric part of ``as_dict()``."""
    if items is not None and hasattr(items, "PARTS"):
        return tuple(items.PARTS)
    if not games:
        return ()
    first = games[0]["scores"][0]
    return tuple(
        k for k, v in first.items() if k != "total" and isinstance(v, (int, float)) and not isinstance(v, bool)
    )


def _rates(table: dict) -> dict[str, dict]:
    return {str(k): {"player_games": v[0], "win_rate": v[1] / v[0] if v[0] else 0.0} for k, v in sorted(table.items())}


def _per_seat(games: list[dict], parts: tuple[str, ...]) -> dict[str, Any]:
    """Scores, parts and seat win rates over every player-game."""
    all_scores, win_scores = [], []
    parts_all: dict[str, list] = {p: [] for p in parts}
    parts_win: dict[str, list] = {p: [] for p in parts}
    seats: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    after_first: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    wins = 0
    for g in games:
        winners = set(g["winners"])
        for seat, s in enumerate(g["scores"]):
            won = seat in winners
            wins += won
            all_scores.append(s["total"])
            for p in parts:
                parts_all[p].append(s[p])
            if won:
                win_scores.append(s["total"])
                for p in parts:
                    parts_win[p].append(s[p])
            seats[seat][0] += 1
            seats[seat][1] += won
            if g.get("first_player") is not None:
                rel = after_first[(seat - g["first_player"]) % g["players"]]
                rel[0] += 1
                rel[1] += won
    return {
        "all": all_scores,
        "win": win_scores,
        "parts_all": parts_all,
        "parts_win": parts_win,
        "seats": _rates(seats),
        "seats_after_first": _rates(after_first),
        "wins": wins,
    }


def aggregate(
    games: list[dict], card_set: str | None = None, game: str = DEFAULT_GAME, variant: dict | None = None
) -> dict:
    """Turn per-game records into the report's statistics (generic ones, then the game's own items)."""
    from farmgames.envs import get_spec

    spec = get_spec(game)
    variant = {**(variant or {}), **({"card_set": card_set} if card_set else {})}
    items = game_items(game)
    parts = score_parts(games, items)
    seat = _per_seat(games, parts)
    player_games = sum(g["players"] for g in games)
    margins = []
    for g in games:
        totals = sorted((s["total"] for s in g["scores"]), reverse=True)
        margins.append(totals[0] - totals[1] if len(totals) > 1 else 0)
    stats = {
        "game": spec.env_name,
        "variant": variant,
        "games": len(games),
        "players": games[0]["players"] if games else 0,
        "bots": games[0]["bots"] if games else [],
        "seeds": [g["seed"] for g in games[:1]] + [g["seed"] for g in games[-1:]],
        "player_games": player_games,
        "baseline_win_rate": seat["wins"] / player_games if player_games else 0.0,
        "ties": sum(1 for g in games if len(g["winners"]) > 1),
        "scores": {"winning": _dist(seat["win"]), "all": _dist(seat["all"]), "margin": _dist(margins)},
        "score_values": {"winning": seat["win"], "all": seat["all"]},
        "parts": {
            p: {
                "all": statistics.fmean(seat["parts_all"][p]) if seat["parts_all"][p] else 0.0,
                "winners": statistics.fmean(seat["parts_win"][p]) if seat["parts_win"][p] else 0.0,
            }
            for p in parts
        },
        "seats": seat["seats"],
        "seats_after_first": seat["seats_after_first"],
        "game_length": _dist([g["decisions"] for g in games if "decisions" in g]),
    }
    if items is not None:
        stats.update(items.aggregate(games, variant, dist=_dist))
    return stats


# --------------------------------------------------------------------------------------------
# Report


def _f(x, pct: bool = False, digits: int = 1) -> str:
    if x is None:
        return "–"
    if pct:
        return f"{100 * x:.0f}%"
    return f"{x:.{digits}f}"


def _unit(items: Any) -> str:
    return str(getattr(items, "SCORE_UNIT", "VP" if items is not None else "points"))


def _intro(s: dict, command: str, title: str, unit: str) -> list[str]:
    win, allsc = s["scores"]["winning"], s["scores"]["all"]
    return [
        f"# {title}",
        "",
        "Generated by `farmgames balance` (training/balance.py); do not edit by hand. Regenerate with:",
        "",
        "```",
        command,
        "```",
        "",
        f"**{s['games']} games, {s['players']} players, bots: {', '.join(s['bots'])}.** "
        f"Median winning score **{win['median']:.0f}** {unit} (p10 {win['p10']:.0f}, p90 {win['p90']:.0f}); "
        f"mean score of all players {allsc['mean']:.1f}. Baseline win rate per player "
        f"{_f(s['baseline_win_rate'], True)} (shared victories count for every winner; {s['ties']} games tied).",
        "",
    ]


def _headline(s: dict, items: Any, unit: str) -> list[str]:
    win = s["scores"]["winning"]
    lines = [
        "## Headline",
        "",
        f"- Winning score: median {win['median']:.0f}, mean {win['mean']:.1f}, p10–p90 {win['p10']:.0f}–"
        f"{win['p90']:.0f}, range {win['min']}–{win['max']}.",
        f"- Winning margin (first minus second): median {s['scores']['margin']['median']:.0f} {unit}.",
    ]
    if items is not None and hasattr(items, "headline"):
        lines += items.headline(s)
    return lines + [""]


def _scores(s: dict, plot: str | None, items: Any) -> list[str]:
    win, allsc = s["scores"]["winning"], s["scores"]["all"]
    lines = [
        "## Score distribution",
        "",
        "| scores | n | mean | median | p10 | p90 | min | max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, d in (("winning", win), ("all players", allsc), ("margin 1st-2nd", s["scores"]["margin"])):
        lines.append(
            f"| {label} | {d['n']} | {d['mean']:.1f} | {d['median']:.1f} | {d['p10']:.1f} | {d['p90']:.1f} | "
            f"{d['min']} | {d['max']} |"
        )
    lines.append("")
    if plot:
        lines += [f"![score histogram]({plot})", ""]
    label = getattr(items, "PARTS_LABEL", "part")
    lines += ["## Mean score parts", "", f"| {label} | all players | winners |", "|---|---:|---:|"]
    lines += [f"| {p} | {v['all']:.1f} | {v['winners']:.1f} |" for p, v in s["parts"].items()]
    return lines


def _seats_and_length(s: dict) -> list[str]:
    lines = [
        "## Seats",
        "",
        "Win rate by seat (shared victories count for every winner).",
        "",
        "| seat | player-games | win rate |",
        "|---|---:|---:|",
    ]
    lines += [f"| {k} | {v['player_games']} | {_f(v['win_rate'], True)} |" for k, v in s.get("seats", {}).items()]
    g = s.get("game_length")
    if g and g.get("n"):
        lines += [
            "",
            "## Game length",
            "",
            "Decisions per game (every seat's, forced ones included): "
            f"mean {g['mean']:.1f}, median {g['median']:.0f}, p10 {g['p10']:.0f}, p90 {g['p90']:.0f}, "
            f"range {g['min']}–{g['max']}.",
        ]
    return lines + [""]


def render_report(stats: dict, command: str, plot: str | None = None) -> str:
    """The markdown report: generic sections, with the game's own sections where it places them."""
    from farmgames.envs import get_spec

    game = stats.get("game", DEFAULT_GAME)
    items = game_items(game)
    unit = _unit(items)
    title = getattr(items, "TITLE", f"{get_spec(game).title} — balance report")

    def own(where: str) -> list[str]:
        return items.sections(stats, where) if items is not None and hasattr(items, "sections") else []

    lines = _intro(stats, command, title, unit) + _headline(stats, items, unit) + own("after_headline")
    lines += _scores(stats, plot, items) + own("after_parts")
    body = own("body")
    lines += body if body else [""]
    lines += _seats_and_length(stats)
    return "\n".join(lines)


def write_plot(stats: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    from farmgames.envs import get_spec

    values = stats["score_values"]
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    lo = min(values["all"]) if values["all"] else 0
    hi = max(values["all"]) if values["all"] else 1
    bins = range(int(lo), int(hi) + 2)
    ax.hist(values["all"], bins=bins, alpha=0.55, label="all players", color="#6a9955")
    ax.hist(values["winning"], bins=bins, alpha=0.75, label="winners", color="#c58b1b")
    ax.set_xlabel(f"final score ({_unit(game_items(stats.get('game', DEFAULT_GAME)))})")
    ax.set_ylabel("player-games")
    title = get_spec(stats.get("game", DEFAULT_GAME)).title
    ax.set_title(
        f"{title}: {stats['games']} games, {stats['players']} players ({', '.join(sorted(set(stats['bots'])))})"
    )
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------------------------
# Heuristic vs random win rates


def winrate_game(
    seed: int, players: int, card_set: str | None = None, game: str = DEFAULT_GAME, variant: dict | None = None
) -> dict:
    """One game: the heuristic in seat ``seed % players``, random bots elsewhere."""
    from farmgames.envs import get_spec
    from farmgames.envs.core.bots import make_bot, play_game

    spec = get_spec(game)
    seat = seed % players
    bots = [make_bot(spec.bots, "heuristic" if i == seat else "random", seed=seed * 10 + i) for i in range(players)]
    state = _new_game(spec, players, seed, {**(variant or {}), **({"card_set": card_set} if card_set else {})})
    play_game(bots, game=state)
    scores = [s.total for s in state.scores()]
    winners = state.winners()
    return {
        "seat": seat,
        "won": seat in winners,
        "sole": winners == [seat],
        "score": scores[seat],
        "others": [x for i, x in enumerate(scores) if i != seat],
    }


def winrates(
    games: int,
    seed: int = 0,
    players: tuple[int, ...] | None = None,
    workers: int = 1,
    progress: bool = False,
    card_set: str | None = None,
    game: str = DEFAULT_GAME,
    variant: dict | None = None,
) -> dict:
    """Heuristic-vs-random win rates per player count (heuristic seat rotates with the seed)."""
    from farmgames.envs import get_spec

    spec = get_spec(game)
    missing = [b for b in ("heuristic", "random") if b not in spec.bots]
    if missing:
        raise ValueError(
            f"--winrate plays heuristic against random; {spec.name} has no {missing[0]!r} bot "
            f"(bots: {', '.join(sorted(spec.bots))})"
        )
    out = {}
    for n in players or tuple(spec.player_counts):
        fn = partial(winrate_game, players=n, card_set=card_set, game=game, variant=variant)
        results = _run_games(fn, list(range(seed, seed + games)), workers, progress, f"{n} players")
        won = sum(r["won"] for r in results)
        out[n] = {
            "games": games,
            "wins": won,
            "win_rate": won / games,
            "sole_wins": sum(r["sole"] for r in results),
            "heuristic_mean_score": statistics.fmean(r["score"] for r in results),
            "random_mean_score": statistics.fmean(x for r in results for x in r["others"]),
            "chance": 1 / n,
        }
    return out


def winrate_table(result: dict, command: str) -> str:
    lines = [
        f"`{command}`",
        "",
        "| players | games | heuristic wins | win rate | chance level | heuristic mean score | random mean score |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in result.items():
        lines.append(
            f"| {n} | {r['games']} | {r['wins']} | {100 * r['win_rate']:.1f}% | {100 * r['chance']:.0f}% | "
            f"{r['heuristic_mean_score']:.1f} | {r['random_mean_score']:.1f} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------


def default_out(game: str) -> str:
    from farmgames.envs import get_spec

    return f"docs/{get_spec(game).name}/balance.md"


def _command_line(args: argparse.Namespace, players: int, default_players: int) -> str:
    parts = ["farmgames balance"]
    if args.game != DEFAULT_GAME:
        parts += ["--game", args.game]
    if args.winrate:
        parts.append("--winrate")
        if args.only_players:
            parts += ["--players", str(players), "--only-players"]
    else:
        if players != default_players:
            parts += ["--players", str(players)]
        if args.bots is not None:
            parts += ["--bots", args.bots]
    parts += ["--games", str(args.games)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.card_set:
        parts += ["--card-set", args.card_set]
    parts += [f"--variant {v}" for v in args.variant]
    if not args.winrate and args.out and args.out != default_out(args.game):
        parts += ["--out", args.out]
    return " ".join(parts)


def _check_bots(spec: Any, text: str, players: int) -> list[str]:
    bots = _seat_bots(text, players)
    unknown = [b for b in bots if b not in spec.bots]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; valid names: {', '.join(sorted(spec.bots))}")
    return bots


def run(args: argparse.Namespace) -> int:
    from farmgames.envs import get_spec

    from .evaluate import parse_variant

    try:
        spec = get_spec(args.game)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        players = spec.default_players if args.players is None else check_players(spec, args.players)
        variant = parse_variant(args.variant)
        default = "heuristic" if "heuristic" in spec.bots else "random"
        bots = None if args.winrate or args.from_json else _check_bots(spec, args.bots or default, players)
        if not args.from_json:  # the card set and variant load (or are refused, named) before any game runs
            try:
                with_set = {**variant, **({"card_set": args.card_set} if args.card_set else {})}
                _new_game(spec, players, args.seed, with_set)
            except TypeError as exc:
                raise ValueError(f"--variant: {exc}") from None
        from .outputs import check_output

        for flag, path in (("--json", args.json), ("--out", None if args.winrate else args.out)):
            if path:
                check_output(path, flag)
    except ValueError as exc:
        print(f"farmgames balance: {exc}", file=sys.stderr)
        return 2
    progress = not args.no_progress
    workers = max(1, args.workers)
    command = _command_line(args, players, spec.default_players)
    if args.winrate:
        counts = (players,) if args.only_players else tuple(spec.player_counts)
        try:
            result = winrates(args.games, args.seed, counts, workers, progress, args.card_set, args.game, variant)
        except ValueError as exc:
            print(f"farmgames balance: {exc}", file=sys.stderr)
            return 2
        print(winrate_table(result, command))
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps({str(k): v for k, v in result.items()}, indent=2), encoding="utf-8")
        return 0
    if args.from_json:
        from farmgames.envs.core.datafiles import DataFileError, load_json

        try:  # bounded (size, nesting, numbers); a mistake is a message, not a traceback
            stats = load_json(args.from_json, what="balance statistics")
            if not isinstance(stats, dict):
                raise DataFileError(f"{args.from_json}: balance statistics must be a JSON object")
        except DataFileError as exc:
            print(f"farmgames balance: {exc}", file=sys.stderr)
            return 2
        return _write_report(stats, stats.get("command") or command, args)
    fn = partial(simulate_game, players=players, bots=bots, card_set=args.card_set, game=args.game, variant=variant)
    games = _run_games(fn, list(range(args.seed, args.seed + args.games)), workers, progress, "balance games")
    stats = aggregate(games, args.card_set, game=args.game, variant=variant)
    stats["command"] = command
    return _write_report(stats, command, args)


def _write_report(stats: dict, command: str, args: argparse.Namespace) -> int:
    out = Path(args.out or default_out(stats.get("game", args.game)))
    out.parent.mkdir(parents=True, exist_ok=True)
    plot_ref = None
    if args.plot and args.plot != "none":
        plot_path = out.with_name(out.stem + "_scores.png") if args.plot == "auto" else Path(args.plot)
        if write_plot(stats, plot_path):
            try:
                plot_ref = str(plot_path.resolve().relative_to(out.parent.resolve()))
            except ValueError:
                plot_ref = str(plot_path)
        elif args.plot != "auto":
            print("farmgames balance: matplotlib is not installed; no plot written", file=sys.stderr)
    out.write_text(render_report(stats, command, plot_ref), encoding="utf-8")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(stats, indent=2), encoding="utf-8")
    win = stats["scores"]["winning"]
    flagged = f"{sum(1 for v in stats['flags'].values() if v)} designs flagged; " if "flags" in stats else ""
    print(
        f"{stats['games']} games: median winning score {win['median']:.0f} (p10 {win['p10']:.0f}, "
        f"p90 {win['p90']:.0f}); {flagged}report written to {out}"
    )
    return 0
