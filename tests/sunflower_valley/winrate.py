"""Heuristic vs random: win rate of one HeuristicBot against n-1 RandomBots over seeded games, per player count,
with Wilson 95% intervals (the heuristic's seat rotates; a shared win counts as a win).
Run: python tests/sunflower_valley/winrate.py [games per count] [opponent: random|heuristic]"""

from __future__ import annotations

import math
import sys
import time

from farmgames.envs.core.bots import RandomBot, play_game
from farmgames.envs.sunflower_valley.bots import HeuristicBot
from farmgames.envs.sunflower_valley.game import Game


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    r = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c - r) / d, (c + r) / d


def win_rate(num_players: int, games: int, seed0: int = 0, opponent: str = "random") -> dict:
    wins = 0
    margin = 0.0
    t0 = time.perf_counter()
    for i in range(games):
        seed = seed0 + i
        seat = i % num_players
        opp = RandomBot if opponent == "random" else HeuristicBot
        bots = [opp(seed * 7 + q) for q in range(num_players)]
        bots[seat] = HeuristicBot(seed)
        g = play_game(bots, Game(num_players, seed))
        wins += seat in g.winners()
        totals = [s.total for s in g.scores()]
        margin += totals[seat] - max(t for q, t in enumerate(totals) if q != seat)
    lo, hi = wilson(wins, games)
    return {
        "players": num_players,
        "games": games,
        "wins": wins,
        "rate": wins / games,
        "wilson95": (lo, hi),
        "mean_margin": margin / games,
        "seconds": time.perf_counter() - t0,
    }


if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    opponent = sys.argv[2] if len(sys.argv) > 2 else "random"
    for n in (2, 3, 4, 5):
        r = win_rate(n, games, opponent=opponent)
        lo, hi = r["wilson95"]
        print(
            f"{n} players: heuristic wins {r['wins']}/{r['games']} = {r['rate']:.3f} [{lo:.3f}, {hi:.3f}], "
            f"mean margin {r['mean_margin']:+.1f}, {r['seconds']:.0f} s",
            flush=True,
        )
