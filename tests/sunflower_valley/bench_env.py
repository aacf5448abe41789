"""AEC env speed vs PettingZoo's connect_four_v3: steps/s of a random masked agent (env.last + step), best of
several interleaved runs, by the wall clock and by this thread's CPU time (the CPU ratio is the one to trust
on a machine shared with other jobs).
Run: python tests/sunflower_valley/bench_env.py [steps per run] [runs]"""

from __future__ import annotations

import sys
import time

import numpy as np


def steps_per_second(env, steps: int, seed: int = 0) -> tuple[float, float]:
    """(steps per wall-clock second, steps per CPU second of this thread)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    t0, c0 = time.perf_counter(), time.thread_time()
    while done < steps:
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            done += 1
            if done >= steps:
                break
        env.reset()
    return done / (time.perf_counter() - t0), done / (time.thread_time() - c0)


if __name__ == "__main__":
    from pettingzoo.classic import connect_four_v3

    from farmgames.envs import sunflower_valley_v0

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    c4 = sv = (0.0, 0.0)
    for _ in range(runs):
        c4 = tuple(map(max, c4, steps_per_second(connect_four_v3.env(), n)))
        sv = tuple(map(max, sv, steps_per_second(sunflower_valley_v0.env(num_players=4), n)))
    for clock, i in (("wall clock", 0), ("thread CPU time", 1)):
        print(
            f"best of {runs} ({clock}): connect_four_v3 {c4[i]:.0f} steps/s; sunflower_valley_v0 (4p) {sv[i]:.0f} "
            f"steps/s; ratio {sv[i] / c4[i]:.2f}"
        )
