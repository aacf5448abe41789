"""Engine speed: complete random 4-player games per second (random legal action each step, legal_actions
included). Run: python tests/sunflower_valley/bench_engine.py [games] [players]"""

from __future__ import annotations

import random
import sys
import time

from farmgames.envs.sunflower_valley.game import Game


def run(games: int = 2000, players: int = 4) -> float:
    rng = random.Random(0)
    choice = rng.choice
    t0 = time.perf_counter()
    for seed in range(games):
        g = Game(players, seed)
        while g.current is not None:
            g.apply(choice(g.legal_actions()))
    return games / (time.perf_counter() - t0)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    p = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    print(f"{run(n, p):.0f} complete {p}-player random games/s")
