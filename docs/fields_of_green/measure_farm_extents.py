"""Farm extents of heuristic Fields of Green games on the largest grid (farm_size 25).

The rules put no bound on a farm (FOG-RUL-8 only fixes the grid the engine uses). This script plays
heuristic self-play games on a 25x25 grid, where the bound almost never binds, and records for every
farm how far it reaches from the starting Water Tower (the grid centre) in each direction, its bounding
box, and at every decision how far the deciding seat's farm reaches. From those, for a centred grid of
size S the bound binds in a game when some farm touches the grid's edge (reach >= S // 2: a cell it could
build next lies outside), and for a window of size W re-centred on the farm when the farm's bounding box
plus its frontier is wider than W (span + 2 > W).

    python docs/fields_of_green/measure_farm_extents.py --games 1000 --out runs/farm_extents.json

Writes one JSON line per game (appending, so an interrupted run resumes) and a progress line to
``<out>.progress``; ``--summary`` prints the table of docs/fields_of_green/env_versions.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

SIZE = 25


def play_one(num_players: int, seed: int) -> dict:
    from farmgames.envs.core.bots import play_game
    from farmgames.envs.fields_of_green.game import Game
    from farmgames.envs.fields_of_green_v0 import SPEC

    game = Game(num_players=num_players, seed=seed, farm_size=SIZE)
    bots = [SPEC.bots["heuristic"](seed=seed * 10 + i) for i in range(num_players)]
    centre = game.geometry.centre
    seen = [0] * num_players
    ext = [[0, 0, 0, 1] for _ in range(num_players)]  # min_dr, max_dr, min_dc, max_dc from the tower
    decision_reach = [0] * (SIZE // 2 + 1)  # decisions by the deciding farm's reach

    def update(seat: int) -> None:
        farm = game.farms[seat]
        e = ext[seat]
        for cell in farm.occupied[seen[seat] :]:
            r, c = divmod(cell, SIZE)
            dr, dc = r - centre, c - centre
            e[0], e[1], e[2], e[3] = min(e[0], dr), max(e[1], dr), min(e[2], dc), max(e[3], dc)
        seen[seat] = len(farm.occupied)

    def on_action(g, seat, action):
        update(seat)
        e = ext[seat]
        decision_reach[max(-e[0], e[1], -e[2], e[3])] += 1

    play_game(bots, game, on_action=on_action)
    for s in range(num_players):
        update(s)
    return {
        "players": num_players,
        "seed": seed,
        "extents": ext,
        "decision_reach": decision_reach,
        "scores": [s.total for s in game.scores()],
    }


def run(games: int, out: Path, players: list[int]) -> None:
    done: set[tuple[int, int]] = set()
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((row["players"], row["seed"]))
    progress = out.with_suffix(out.suffix + ".progress")
    start = time.time()
    count = 0
    with out.open("a") as fh:
        for seed in range(games):
            for n in players:
                if (n, seed) in done:
                    continue
                fh.write(json.dumps(play_one(n, seed)) + "\n")
                fh.flush()
                count += 1
                if count % 10 == 0:
                    progress.write_text(f"{count} new games, last seed {seed}, {time.time() - start:.0f} s\n")
    progress.write_text(f"done: {count} new games in {time.time() - start:.0f} s\n")


def summary(path: Path, sizes: tuple[int, ...] = (9, 11, 13, 15, 17, 19, 21, 23, 25)) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    lines = [
        "| players | games | farm reach p50 / p99 / max | bbox span p99 / max | "
        + " | ".join(f"S={s}" for s in sizes)
        + " |",
        "|---|---|---|---|" + "---|" * len(sizes),
    ]
    for n in sorted({r["players"] for r in rows}):
        mine = [r for r in rows if r["players"] == n]
        reach = sorted(max(max(-e[0], e[1], -e[2], e[3]) for e in r["extents"]) for r in mine)
        span = sorted(max(max(e[1] - e[0], e[3] - e[2]) + 1 for e in r["extents"]) for r in mine)
        q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
        cells = []
        for s in sizes:
            binds = sum(1 for v in reach if v >= s // 2) / len(reach)
            cells.append(f"{100 * binds:.1f}%")
        lines.append(
            f"| {n} | {len(mine)} | {q(reach, 0.5)} / {q(reach, 0.99)} / {reach[-1]} | "
            f"{q(span, 0.99)} / {span[-1]} | " + " | ".join(cells) + " |"
        )
    lines.append("")
    lines.append("Share of decisions taken with the deciding farm touching the edge of a centred S grid:")
    lines.append("")
    lines.append("| players | " + " | ".join(f"S={s}" for s in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for n in sorted({r["players"] for r in rows}):
        hist = [0] * (SIZE // 2 + 1)
        for r in rows:
            if r["players"] == n:
                hist = [a + b for a, b in zip(hist, r["decision_reach"])]
        total = sum(hist)
        cells = [f"{100 * sum(hist[s // 2 :]) / total:.2f}%" for s in sizes]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Share of games in which a window of width W re-centred on each farm binds (span + 2 > W):")
    lines.append("")
    lines.append("| players | " + " | ".join(f"W={s}" for s in sizes) + " |")
    lines.append("|---|" + "---|" * len(sizes))
    for n in sorted({r["players"] for r in rows}):
        span = [max(max(e[1] - e[0], e[3] - e[2]) + 1 for e in r["extents"]) for r in rows if r["players"] == n]
        cells = [f"{100 * sum(1 for v in span if v + 2 > s) / len(span):.1f}%" for s in sizes]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--out", type=Path, default=Path("runs/farm_extents.jsonl"))
    ap.add_argument("--summary", action="store_true", help="print the tables of an existing run")
    args = ap.parse_args(argv)
    if args.summary:
        print(summary(args.out))
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    run(args.games, args.out, args.players)
    print(summary(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
