"""``farmgames league``: several policies play each other; OpenSkill (Plackett-Luce) ratings in a table.

    farmgames league --policies random heuristic runs/ppo_2p_vs_heuristic/final.zip --games 100 --json league.json

Every table of ``--players`` distinct entrants (all combinations) plays ``--games`` seeded games, the
seats rotating between games (game ``g`` of a table deals with seed ``seed + g // players``). Each game
updates the ratings with the final ranking (equal tie-break keys share a rank; ``--game`` picks the
game, default a checkpoint's game, else fields_of_green_v0). The table is
sorted by the conservative ordinal ``mu - 3 sigma``. Repeat a spec to enter it twice (e.g. a 4-player
league of two policies: ``--policies heuristic heuristic random random``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from .evaluate import _progress, _set_torch_threads, first_checkpoint_meta, parse_variant
from .games import DEFAULT_GAME, add_checkpoint_options, add_game_argument, check_players
from .outputs import check_output, write_text
from .policy import CheckpointError, checkpoint_game, load_policy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser, default=None)
    parser.add_argument(
        "--policies",
        nargs="+",
        required=True,
        metavar="POLICY",
        help="random, heuristic, checkpoint .zip paths, module:attribute …",
    )
    parser.add_argument("--games", type=int, default=50, help="games per table of players (default 50)")
    parser.add_argument("--players", type=int, default=None, help="players per game (default: a checkpoint's, else 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--stochastic", action="store_true", help="sample checkpoint policies' actions")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    add_checkpoint_options(parser)
    parser.add_argument("--no-progress", action="store_true")


def _entrant_names(specs: list[str]) -> list[str]:
    names, seen = [], {}
    for spec in specs:
        base = str(spec)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def league(
    specs: list,
    games: int = 50,
    players: int | None = None,
    seed: int = 0,
    variant: dict | None = None,
    deterministic: bool = True,
    progress: bool = False,
    game: str | None = None,
    trust: bool = False,
) -> dict:
    """Rate ``specs`` against each other. ``trust``: checkpoints may be SB3 zips without a .safetensors
    twin (unpickled: they can run code)."""
    from openskill.models import PlackettLuce

    from farmgames.envs import get_spec

    from .arena import Arena

    if len(specs) < 2:
        raise ValueError("a league needs at least 2 policies")
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    meta = first_checkpoint_meta(list(specs))
    if game is None:
        game = checkpoint_game(meta) if meta else DEFAULT_GAME
    if players is None:
        players = int(meta["num_players"]) if meta else 2
    if variant is None:
        variant = dict(meta.get("variant") or {}) if meta else {}
    spec = get_spec(game)
    check_players(spec, players)
    if len(specs) < players:
        raise ValueError(
            f"{players}-player games need at least {players} entrants, got {len(specs)} "
            "(repeat a policy to enter it more than once)"
        )
    names = [s if isinstance(s, str) else getattr(s, "name", type(s).__name__) for s in specs]
    names = _entrant_names(names)
    try:
        arena = Arena(players, game=game, **variant)
    except TypeError as exc:  # an unknown keyword: the message lists the valid ones
        raise ValueError(f"--variant: {exc}") from None
    pols = [
        load_policy(s, seed=seed + i, deterministic=deterministic, env_facts=arena.facts, trust=trust)
        for i, s in enumerate(specs)
    ]
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    stats = {n: {"games": 0, "wins": 0, "vp": 0.0, "rank_sum": 0.0} for n in names}
    tables = list(itertools.combinations(range(len(specs)), players))
    total = len(tables) * games
    bar = _progress(total, progress, "league")
    history = []
    try:
        for t, table in enumerate(tables):
            for g in range(games):
                rot = g % players
                order = list(table[rot:] + table[:rot])  # entrant index per seat
                deal = seed + g // players
                result = arena.play([pols[i] for i in order], deal, [names[i] for i in order])
                teams = [[ratings[names[i]]] for i in order]
                new = model.rate(teams, ranks=[float(r) for r in result.ranks])
                for seat, i in enumerate(order):
                    n = names[i]
                    ratings[n] = new[seat][0]
                    st = stats[n]
                    st["games"] += 1
                    st["wins"] += seat in result.winners
                    st["vp"] += result.scores[seat]
                    st["rank_sum"] += result.ranks[seat]
                history.append(
                    {
                        "table": t,
                        "seed": deal,
                        "seats": [names[i] for i in order],
                        "scores": result.scores,
                        "ranks": result.ranks,
                    }
                )
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
        arena.close()
    rows = []
    for n in names:
        r, st = ratings[n], stats[n]
        rows.append(
            {
                "policy": n,
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal(),
                "games": st["games"],
                "wins": st["wins"],
                "win_rate": st["wins"] / st["games"] if st["games"] else 0.0,
                "mean_vp": st["vp"] / st["games"] if st["games"] else 0.0,
                "mean_rank": st["rank_sum"] / st["games"] if st["games"] else 0.0,
            }
        )
    rows.sort(key=lambda row: row["ordinal"], reverse=True)
    return {
        "rating_system": "openskill PlackettLuce",
        "game": spec.env_name,
        "players": players,
        "variant": variant,
        "games_per_table": games,
        "tables": len(tables),
        "seed": seed,
        "ratings": rows,
        "games": history,
    }


def format_table(res: dict) -> str:
    width = max(len("policy"), *(len(r["policy"]) for r in res["ratings"]))
    head = (
        f"{'#':>2}  {'policy':<{width}}  {'ordinal':>7}  {'mu':>6}  {'sigma':>5}  {'games':>5}  {'win%':>5}  "
        f"{'score':>5}"
    )
    lines = [
        f"{res['rating_system']}, {res.get('game', DEFAULT_GAME)}, {res['players']} players, "
        f"{res['games_per_table']} games per table x {res['tables']} tables",
        head,
        "-" * len(head),
    ]
    for k, r in enumerate(res["ratings"], 1):
        lines.append(
            f"{k:>2}  {r['policy']:<{width}}  {r['ordinal']:>7.2f}  {r['mu']:>6.2f}  {r['sigma']:>5.2f}  "
            f"{r['games']:>5}  {100 * r['win_rate']:>5.1f}  {r['mean_vp']:>5.1f}"
        )
    return "\n".join(lines)


def run(args) -> int:
    try:
        if args.torch_threads < 1:
            raise ValueError(f"--torch-threads must be at least 1, got {args.torch_threads}")
        _set_torch_threads(args.torch_threads, args.policies)
        variant = parse_variant(args.variant) if args.variant else None
        if args.json:  # checked before the games, not after them
            check_output(args.json, "--json")
        res = league(
            args.policies,
            games=args.games,
            players=args.players,
            seed=args.seed,
            variant=variant,
            deterministic=not args.stochastic,
            progress=not args.no_progress,
            game=args.game,
            trust=args.trust_checkpoint,
        )
    except (CheckpointError, ValueError) as exc:
        print(f"farmgames league: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(res))
    if args.json:
        print(f"wrote {write_text(args.json, json.dumps(res, indent=2), what='league')}")
    return 0
