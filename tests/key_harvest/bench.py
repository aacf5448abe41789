"""Speed and strength of Key Harvest (not a test): engine-only random games per second, AEC steps per second
with observation and mask against connect_four_v3 in the same loop, and the heuristic bot's win rates.

    python tests/key_harvest/bench.py [games] [steps]
    python tests/key_harvest/bench.py --win-rates [games]     # docs/key_harvest/bots.md table
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


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / den
    return centre - half, centre + half


def win_rates(games: int) -> None:
    """One heuristic seat (rotating) against random bots, deal seeds 10000.. (shared wins count 1/k)."""
    from farmgames.envs.core.bots import RandomBot, play_game
    from farmgames.envs.key_harvest.bots import HeuristicBot
    from farmgames.envs.key_harvest.game import Game

    for n in (2, 3, 4):
        wins, most, truncated, own, rest = 0.0, 0, 0, 0, 0
        for k in range(games):
            seat = k % n
            bots = [HeuristicBot(k) if q == seat else RandomBot(k * 7 + q) for q in range(n)]
            g = play_game(bots, Game(n, 10000 + k))
            won = g.winners()
            wins += 1 / len(won) if seat in won else 0
            most, truncated = max(most, g.rounds), truncated + g.truncated
            totals = [s.total for s in g.scores()]
            own, rest = own + totals[seat], rest + sum(totals) - totals[seat]
        p = wins / games
        lo, hi = wilson(p, games)
        print(
            f"{n}p: win rate {p:.3f} Wilson 95% [{lo:.3f}, {hi:.3f}] over {games} games; mean score "
            f"{own / games:.1f} vs {rest / games / (n - 1):.1f}; most rounds {most}; truncated {truncated}"
        )


def main() -> None:
    if sys.argv[1:2] == ["--win-rates"]:
        win_rates(int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
        return
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
