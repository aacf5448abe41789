"""Speed of Key Harvest (not a test): engine-only random games per second, and AEC steps per second with
observation and mask against connect_four_v3 in the same loop.

    python tests/key_harvest/bench.py [games] [steps]
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np


def engine_games_per_second(n: int, games: int) -> tuple[float, float]:
    from farmgames.envs.key_harvest.game import Game

    steps = 0
    t = time.perf_counter()
    for seed in range(games):
        g = Game(n, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
            steps += 1
    dt = time.perf_counter() - t
    return games / dt, steps / dt


def aec_steps_per_second(env, steps: int) -> float:
    rng = random.Random(0)
    env.reset(seed=0)
    done = 0
    t = time.perf_counter()
    while done < steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=done)
            continue
        mask = env.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.randrange(len(legal))]))
        done += 1
    return steps / (time.perf_counter() - t)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    for n in (2, 3, 4):
        gps, sps = engine_games_per_second(n, games)
        print(f"engine {n}p: {gps:.0f} random games/s ({sps:.0f} decisions/s)")
    from pettingzoo.classic import connect_four_v3

    from farmgames.envs import key_harvest_v0

    c4 = aec_steps_per_second(connect_four_v3.env(), steps)
    print(f"connect_four_v3 AEC: {c4:.0f} steps/s")
    for n in (2, 4):
        for kw in ({}, {"reuse_buffers": True}):
            try:
                env = key_harvest_v0.env(num_players=n, **kw)
            except TypeError:
                continue
            kh = aec_steps_per_second(env, steps)
            print(f"key_harvest AEC {n}p {kw or ''}: {kh:.0f} steps/s = {kh / c4:.2f} x connect_four_v3")


if __name__ == "__main__":
    main()
