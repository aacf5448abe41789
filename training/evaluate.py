"""``farmgames evaluate``: a policy against opponents over seeded games, in every seat.

    farmgames evaluate --policy runs/ppo_2p_vs_random/final.zip --opponents random --games 1000 --seed 0
    farmgames evaluate --policy heuristic --opponents random --players 2 --games 200 --json out.json

Game ``i`` deals with seed ``seed + i // players`` and seats the evaluated policy at ``i % players``, so
every deal is played from every seat (when ``--games`` is a multiple of ``--players``). A win is
finishing first, ties after the game's tie-breaks shared; the win rate has a 95% Wilson interval.
``vp`` / ``mean_vp`` is the policy's final score (the name of the single-game release; ``mean_score``
is the same number), margin its score minus the best opponent's. ``--game`` picks the game (default:
a checkpoint's game, else fields_of_green_v0); players and bots come from its spec.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml

from .games import DEFAULT_GAME, add_checkpoint_options, add_game_argument, check_players
from .outputs import check_output, write_text
from .policy import CheckpointError, checkpoint_game, checkpoint_metadata, is_checkpoint, load_policy, policy_name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser, default=None)
    parser.add_argument(
        "--policy",
        required=True,
        help="a bot of the game (random, heuristic …), a checkpoint .zip, or module:attribute (your own Policy)",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="OPPONENT",
        help="one spec for every other seat, or one per other seat in turn order after the policy (default: the "
        "game's heuristic bot, else random)",
    )
    parser.add_argument(
        "--players", type=int, default=None, help="number of players (default: the checkpoint's, else 2)"
    )
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a variant keyword (YAML value), repeatable; default: the checkpoint's variant",
    )
    parser.add_argument(
        "--stochastic",
        action="store_true",
        help="sample checkpoint policies' actions instead of taking the most likely one",
    )
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--save-records",
        type=Path,
        default=None,
        metavar="PATH",
        help="write every game's record ({'records': [...]}; replays, and opens in farmgames view)",
    )
    add_checkpoint_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def parse_variant(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--variant takes KEY=VALUE, got {item!r}")
        out[key.strip()] = yaml.safe_load(value)
    return out


def first_checkpoint_meta(specs: list) -> dict | None:
    """The stored configuration of the first checkpoint among ``specs`` (None: no checkpoint)."""
    for spec in specs:
        if isinstance(spec, str) and is_checkpoint(spec):
            return checkpoint_metadata(spec)
    return None


def resolve_table(policy_spec, opponents, players, variant, game=None):
    """(game, players, variant) from the arguments, falling back on a checkpoint's stored configuration
    (game, players, variant), then on fields_of_green_v0 with 2 players."""
    specs = [policy_spec] + (list(opponents) if isinstance(opponents, (list, tuple)) else [opponents])
    meta = first_checkpoint_meta(specs)
    if game is None:
        game = checkpoint_game(meta) if meta else DEFAULT_GAME
    if players is None:
        players = int(meta["num_players"]) if meta else 2
    if variant is None:
        variant = dict(meta.get("variant") or {}) if meta else {}
    return game, players, variant


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # the train extra is not installed
        return None
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True, leave=False)


def evaluate(
    policy,
    opponents=None,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    variant: dict | None = None,
    deterministic: bool = True,
    progress: bool = False,
    game: str | None = None,
    trust: bool = False,
) -> dict:
    """Play ``games`` seeded games of ``policy`` against ``opponents`` (one spec for all other seats or a
    list, one per other seat in turn order after the policy) and return the statistics as a dict.
    ``trust``: checkpoints may be SB3 zips without a .safetensors twin (unpickled: they can run code)."""
    from farmgames.envs import get_spec

    from .arena import Arena, wilson_interval

    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    game, players, variant = resolve_table(policy, opponents, players, variant, game)
    game_spec = get_spec(game)
    check_players(game_spec, players)
    if opponents is None or opponents == []:
        opponents = "heuristic" if "heuristic" in game_spec.bots else "random"
    opp_specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
    if len(opp_specs) == 1:
        opp_specs = opp_specs * (players - 1)
    if len(opp_specs) != players - 1:
        raise ValueError(f"--opponents takes one spec or one per other seat ({players - 1}), got {len(opp_specs)}")
    try:
        arena = Arena(players, game=game, **variant)
    except TypeError as exc:  # an unknown keyword: the message lists the valid ones
        raise ValueError(f"--variant: {exc}") from None
    spec_bots = game_spec.bots
    learner = load_policy(policy, seed=seed, deterministic=deterministic, env_facts=arena.facts, trust=trust)
    # one policy object per other seat (bots keep per-seat generators; checkpoints are loaded once)
    loaded: dict[str, object] = {}
    opp_policies = []
    for i, spec in enumerate(opp_specs):
        if isinstance(spec, str) and spec not in spec_bots and spec in loaded:
            opp_policies.append(loaded[spec])
            continue
        p = load_policy(spec, seed=seed + 1 + i, deterministic=deterministic, env_facts=arena.facts, trust=trust)
        if isinstance(spec, str):
            loaded[spec] = p
        opp_policies.append(p)
    learner_name = policy_name(learner) if not isinstance(policy, str) else policy
    opp_names = [s if isinstance(s, str) else policy_name(s) for s in opp_specs]

    records = []
    game_records: list[dict] = []  # the games themselves, for --save-records (farmgames view opens them)
    bar = _progress(games, progress, f"{Path(learner_name).name} vs {', '.join(sorted(set(map(str, opp_names))))}")
    started = time.perf_counter()
    wins = outright = 0
    try:
        for i in range(games):
            deal = seed + i // players
            seat = i % players
            table = [None] * players
            names = [""] * players
            table[seat], names[seat] = learner, learner_name
            for r in range(1, players):
                s = (seat + r) % players
                table[s], names[s] = opp_policies[r - 1], opp_names[r - 1]
            result = arena.play(table, deal, names)
            won = seat in result.winners
            wins += won
            outright += won and len(result.winners) == 1
            others = [v for j, v in enumerate(result.scores) if j != seat]
            records.append(
                {
                    "game": i,
                    "seed": deal,
                    "seat": seat,
                    "won": bool(won),
                    "shared": bool(won and len(result.winners) > 1),
                    "vp": result.scores[seat],
                    "margin": result.scores[seat] - max(others),
                    "scores": result.scores,
                    "rank": result.ranks[seat],
                    "decisions": result.decisions,
                }
            )
            game_records.append({**result.record, "players": names})
            if bar is not None:
                bar.update(1)
                bar.set_postfix(win_rate=f"{wins / (i + 1):.3f}")
    finally:
        if bar is not None:
            bar.close()
        arena.close()
    elapsed = time.perf_counter() - started
    lo, hi = wilson_interval(wins, games)
    vps = [r["vp"] for r in records]
    margins = [r["margin"] for r in records]
    per_seat = {}
    for s in range(players):
        rs = [r for r in records if r["seat"] == s]
        if rs:
            w = sum(r["won"] for r in rs)
            slo, shi = wilson_interval(w, len(rs))
            per_seat[str(s)] = {
                "games": len(rs),
                "wins": w,
                "win_rate": w / len(rs),
                "ci95": [slo, shi],
                "mean_vp": statistics.fmean(r["vp"] for r in rs),
            }
    return {
        "game": game_spec.env_name,
        "policy": learner_name,
        "opponents": opp_names,
        "players": players,
        "variant": variant,
        "games": games,
        "seed": seed,
        "deterministic": deterministic,
        "wins": wins,
        "outright_wins": outright,
        "shared_wins": wins - outright,
        "win_rate": wins / games,
        "ci95": [lo, hi],
        "mean_vp": statistics.fmean(vps),
        "mean_score": statistics.fmean(vps),
        "std_vp": statistics.pstdev(vps),
        "mean_margin": statistics.fmean(margins),
        "std_margin": statistics.pstdev(margins),
        "per_seat": per_seat,
        "seconds": elapsed,
        "games_per_second": games / elapsed if elapsed > 0 else None,
        "records": records,
        "game_records": game_records,
    }


def format_report(res: dict) -> str:
    lines = [
        f"policy     {res['policy']}",
        f"opponents  {', '.join(res['opponents'])}   ({res.get('game', DEFAULT_GAME)}, {res['players']} players"
        + (f", variant {res['variant']}" if res["variant"] else "")
        + ")",
        f"games      {res['games']} (deal seeds {res['seed']}..{res['seed'] + (res['games'] - 1) // res['players']}, "
        f"every seat)",
        f"win rate   {res['win_rate']:.3f}  95% CI [{res['ci95'][0]:.3f}, {res['ci95'][1]:.3f}]  "
        f"({res['wins']} wins, {res['shared_wins']} of them shared)",
        f"mean score {res['mean_vp']:.2f} (sd {res['std_vp']:.2f})",
        f"margin     {res['mean_margin']:+.2f} (sd {res['std_margin']:.2f}) vs best opponent",
        "per seat   " + "  ".join(f"seat {s}: {v['win_rate']:.3f} ({v['games']})" for s, v in res["per_seat"].items()),
        f"time       {res['seconds']:.1f} s ({res['games_per_second']:.1f} games/s)",
    ]
    return "\n".join(lines)


def _set_torch_threads(n: int, specs) -> None:
    """torch.set_num_threads(n) when a checkpoint will be loaded (bots-only runs never import torch)."""
    if any(isinstance(s, str) and (s.endswith(".zip") or Path(s).is_file()) for s in specs):
        import torch

        torch.set_num_threads(max(1, int(n)))


def run(args) -> int:
    try:
        if args.torch_threads < 1:
            raise ValueError(f"--torch-threads must be at least 1, got {args.torch_threads}")
        _set_torch_threads(args.torch_threads, [args.policy, *(args.opponents or [])])
        variant = parse_variant(args.variant) if args.variant else None
        if args.json:  # checked before the games, not after them
            check_output(args.json, "--json")
        if args.save_records:
            check_output(args.save_records, "--save-records")
        res = evaluate(
            args.policy,
            args.opponents,
            players=args.players,
            games=args.games,
            seed=args.seed,
            variant=variant,
            deterministic=not args.stochastic,
            progress=not args.no_progress,
            game=args.game,
            trust=args.trust_checkpoint,
        )
    except (CheckpointError, ValueError) as exc:
        print(f"farmgames evaluate: error: {exc}", file=sys.stderr)
        return 2
    print(format_report(res))
    games_played = res.pop("game_records")
    if args.json:
        print(f"wrote {write_text(args.json, json.dumps(res, indent=2), what='evaluate')}")
    if args.save_records:
        text = json.dumps({"records": games_played})
        print(f"wrote {write_text(args.save_records, text, what='evaluate')} ({len(games_played)} game records)")
    return 0
