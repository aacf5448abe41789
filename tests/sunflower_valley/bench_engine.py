"""Engine speed: complete random games per second (random legal action each step, legal_actions included),
then the per-turn split the AEC env pays (µs of this thread's CPU time per turn, so other jobs on the machine
matter less; best of interleaved runs over the same replayed games): apply, legal_actions,
legal_action_array, legal_mask_bytes and the observer's fill of the mover.
Run: python tests/sunflower_valley/bench_engine.py [games] [players]"""

from __future__ import annotations

import random
import sys
import time

from farmgames.envs.sunflower_valley.game import Game
from farmgames.envs.sunflower_valley.observer import Observer


def run(games: int = 2000, players: int = 4) -> float:
    rng = random.Random(0)
    choice = rng.choice
    t0 = time.perf_counter()
    for seed in range(games):
        g = Game(players, seed)
        while g.current is not None:
            g.apply(choice(g.legal_actions()))
    return games / (time.perf_counter() - t0)


def split(games: int = 30, players: int = 4, repeats: int = 7) -> dict[str, float]:
    """µs per turn of each part (the apply loop's own time subtracted from the others)."""
    rng = random.Random(1)
    records = []
    for seed in range(games):
        g = Game(players, seed)
        while g.current is not None:
            g.apply(rng.choice(g.legal_actions()))
        records.append((seed, g.history))
    turns = sum(len(h) for _, h in records)

    def once(part: str) -> float:
        observer = Observer(num_players=players)
        buffers = [observer.new_buffer() for _ in range(players)]
        total = 0.0
        for seed, history in records:
            g = Game(players, seed)
            observer.fill(g, 0, buffers[0])
            apply = g.apply
            t0 = time.thread_time()
            if part == "apply":
                for a in history:
                    apply(a)
            elif part == "fill":
                for a in history:
                    observer.fill(g, g.current, buffers[g.current])
                    apply(a)
            else:
                method = getattr(Game, part)
                for a in history:
                    method(g)
                    apply(a)
            total += time.thread_time() - t0
        return total / turns * 1e6

    parts = ["apply", "legal_actions", "legal_action_array", "legal_mask_bytes", "fill"]
    best = dict.fromkeys(parts, float("inf"))
    for _ in range(repeats):
        for part in parts:
            best[part] = min(best[part], once(part))
    return {part: best[part] - (best["apply"] if part != "apply" else 0.0) for part in parts}


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    p = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    print(f"{run(n, p):.0f} complete {p}-player random games/s")
    print("µs per turn: " + ", ".join(f"{part} {us:.2f}" for part, us in split(players=p).items()))
