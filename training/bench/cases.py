"""What ``farmgames bench`` runs: throughput cases for every selected game (from its spec) and the peers.

A *runner* is called as ``runner(seconds, rng)`` and returns ``(steps, games, elapsed)``. It plays until
the time is up, so the rate is ``steps / elapsed``. Runners that only stop between games say so
(``whole_games``) and then ``games / elapsed`` is an exact complete-games rate.

Per game (players from ``SPEC.min_players .. max_players``): the engine alone (complete games per player
count, clones of a mid-game state), the wrapped and raw AEC loop with observation and mask, the parallel
env, the flattened AEC env, and the single-agent gymnasium env against random and heuristic bots. Peers:
PettingZoo's ``connect_four_v3`` (the reference every ratio is taken to) and ``chess_v6``, and OpenSpiel
games, measured in the same run.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REFERENCE = "pz/connect_four_v3"
EVERY, QUICK, FULL = ("smoke", "quick", "full"), ("quick", "full"), ("full",)

Runner = Callable[[float, random.Random], tuple[int, int, float]]

# case keys of the single-game release, kept so that reports and targets stay comparable
LEGACY_PREFIX = {"fields_of_green_v0": "fog"}


def game_prefix(game: str) -> str:
    """``fog`` for fields_of_green_v0 (as before the shared core), else the versioned game name."""
    return LEGACY_PREFIX.get(game, game)


def engine_prefix(game: str) -> str:
    """``engine`` for fields_of_green_v0, ``<game>_v<N>/engine`` for the others."""
    return "engine" if game in LEGACY_PREFIX else f"{game}/engine"


# ============================================================================ runners


def _choose(mask, rng: random.Random) -> int:
    """A uniformly random legal action from a 0/1 mask (the same helper for every env)."""
    import numpy as np

    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def engine_runner(spec: Any, num_players: int) -> Runner:
    """Complete random games of the pure-Python engine (no env, no observation)."""
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            game = spec.new_game(num_players=num_players, seed=next(seeds))
            while not game.is_terminal():
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
                steps += 1
            games += 1
            now = clock()
            if now >= deadline:
                return steps, games, now - start

    return run


def mid_game(spec: Any, num_players: int, seed: int = 1) -> Any:
    """A random game of ``seed`` played to half its length (for clone timing)."""
    rng = random.Random(seed)
    full = spec.new_game(num_players=num_players, seed=seed)
    while not full.is_terminal():
        legal = full.legal_actions()
        full.apply(legal[rng.randrange(len(legal))])
    game = spec.new_game(num_players=num_players, seed=seed)
    for action in full.history[: len(full.history) // 2]:
        game.apply(action)
    return game


def clone_runner(spec: Any, num_players: int) -> Runner:
    """Clones/s of a mid-game state; 'steps' are clones."""
    game = mid_game(spec, num_players)

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        n = 0
        while True:
            for _ in range(100):
                game.clone()
            n += 100
            now = clock()
            if now >= deadline:
                return n, 0, now - start

    return run


def aec_runner(make_env: Callable[[], Any]) -> Runner:
    """The standard PettingZoo AEC loop with observation and mask (PettingZoo docs, classic envs)."""
    env = make_env()
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            env.reset(seed=next(seeds))
            for _agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    env.step(None)  # a dead step: not a decision, not counted (for every env alike)
                    continue
                env.step(_choose(observation["action_mask"], rng))
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def _deciders(env: Any) -> Callable[[], int]:
    """How many agents have a real decision in the parallel env's current state (the engine's
    ``deciders()``; the others can only send the NOOP and are not counted)."""
    game_of = lambda: env.unwrapped.game  # noqa: E731 - the env replaces its game at every reset
    return lambda: len(game_of().deciders()) if hasattr(game_of(), "deciders") else len(env.agents)


def parallel_runner(make_env: Callable[[], Any]) -> Runner:
    """PettingZoo parallel loop: every live agent submits a random legal action each step; a step counts
    one decision per agent that had one (NOOP-only agents are not counted)."""
    env = make_env()
    seeds = iter(range(10**9))
    deciders = _deciders(env)

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            observations, infos = env.reset(seed=next(seeds))
            while env.agents:
                actions = {a: _choose(observations[a]["action_mask"], rng) for a in env.agents}
                steps += deciders()
                observations, rewards, terminations, truncations, infos = env.step(actions)
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def gym_runner(make_env: Callable[[], Any]) -> Runner:
    """Single-agent gymnasium loop: mask from ``action_masks()``, a random legal action, reset at the end."""
    env = make_env()
    seeds = iter(range(10**9))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            env.reset(seed=next(seeds))
            done = False
            while not done:
                action = _choose(env.action_masks(), rng)
                observation, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def vector_runner(make_env: Callable[[], Any]) -> Runner:
    """A vector env of single-agent games (same-step autoreset): masks as a batch, one random legal action per
    game, one ``step`` for all; every game's learner decision counts as a step."""
    env = make_env()
    seeds = iter(range(0, 10**9, 1000))
    masks_of = env.action_masks if hasattr(env, "action_masks") else lambda: _stack(env.call("action_masks"))

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        env.reset(seed=next(seeds))
        while True:
            actions = [_choose(mask, rng) for mask in masks_of()]
            _, _, terminations, truncations, _ = env.step(actions)
            steps += len(actions)
            games += int(terminations.sum() + truncations.sum())
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


def _stack(rows: Any) -> Any:
    import numpy as np

    return np.stack(rows)


def openspiel_runner(name: str) -> Runner:
    """OpenSpiel loop: at each decision read the observation tensor (information-state tensor for
    games without one) and the legal actions, apply a random one; chance nodes sample their outcome
    distribution and are not counted as steps."""
    import pyspiel

    game = pyspiel.load_game(name)
    use_observation = game.get_type().provides_observation_tensor

    def run(seconds: float, rng: random.Random) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        deadline = start + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(actions, probs)[0])
                    continue
                player = state.current_player()
                if use_observation:
                    state.observation_tensor(player)
                else:
                    state.information_state_tensor(player)
                legal = state.legal_actions(player)
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
                if not steps & 31 and clock() >= deadline:
                    return steps, games, clock() - start
            games += 1
            if clock() >= deadline:
                return steps, games, clock() - start

    return run


# ============================================================================ env factories


def game_env(game: str, num_players: int, kind: str = "env") -> Callable[[], Any]:
    """``env()`` (wrapped), ``raw_env()``, ``parallel_env()`` or ``flat`` (flattened ``env()``) of a game."""

    def make() -> Any:
        from farmgames.envs import face

        module = face(game)
        if kind == "flat":
            from farmgames.wrappers.flatten import flatten_observations

            return flatten_observations(module.env(num_players=num_players))
        return getattr(module, {"env": "env", "raw": "raw_env", "parallel": "parallel_env"}[kind])(
            num_players=num_players
        )

    return make


def single_agent_env(game: str, num_players: int, opponents: str = "random") -> Callable[[], Any]:
    def make() -> Any:
        from farmgames.wrappers.single_agent import SingleAgentEnv

        return SingleAgentEnv(game=game, num_players=num_players, opponents=opponents)

    return make


def vector_env(game: str, num_players: int, n: int, kind: str, opponents: str = "random") -> Callable[[], Any]:
    """``kind="sync"``: gymnasium's ``SyncVectorEnv`` over ``n`` single-agent envs (same-step autoreset, masks
    through ``call("action_masks")``); ``"batched"``: :class:`farmgames.wrappers.vector.BatchedSingleAgentEnv`."""

    def make() -> Any:
        kwargs = {"game": game, "num_players": num_players, "opponents": opponents}
        if kind == "batched":
            from farmgames.wrappers.vector import BatchedSingleAgentEnv

            return BatchedSingleAgentEnv(n, **kwargs)
        from gymnasium.vector import AutoresetMode, SyncVectorEnv

        from farmgames.wrappers.single_agent import SingleAgentEnv

        return SyncVectorEnv(
            [lambda: SingleAgentEnv(**kwargs) for _ in range(n)], autoreset_mode=AutoresetMode.SAME_STEP
        )

    return make


PZ_IDS = {"connect_four_v3": "classic/connect_four-v3", "chess_v6": "classic/chess-v6"}


def pz_env_factory(name: str) -> Callable[[], Any]:
    """``env()`` of a PettingZoo classic env: through PettingZoo's registry (``pettingzoo.make``, 1.27+;
    the same wrapped env as the module's ``env()``), else the module (older PettingZoo)."""
    import pettingzoo

    if hasattr(pettingzoo, "make") and PZ_IDS.get(name) in getattr(pettingzoo, "aec_registry", {}):
        return lambda: pettingzoo.make("aec", PZ_IDS[name])
    return importlib.import_module(f"pettingzoo.classic.{name}").env


def pz_classic(name: str) -> Callable[[], Any]:
    def make() -> Any:
        return pz_env_factory(name)()

    return make


# ============================================================================ cases


@dataclass
class Case:
    key: str
    label: str
    group: str  # engine | farmgames | pettingzoo | openspiel
    players: int
    unit: str  # what one "step" is
    build: Callable[[], Runner]
    modes: tuple[str, ...] = EVERY
    note: str = ""
    whole_games: bool = False
    game: str | None = None  # the farmgames game of the case (None: a peer)
    versus: str | None = None  # key of the case this one is also compared with, repeat by repeat


NOTES = {
    "decision (parallel)": "one step() = every live agent acts; counted: the agents with a decision",
    "learner step": "opponents' moves happen inside step()",
    "learner step (batched)": "learner decisions of all N games; opponents' moves happen inside step()",
}
VECTOR_SIZES = (8, 64)


def game_cases(game: str) -> list[Case]:
    """The cases of one registered game, players from its spec."""
    from farmgames.envs import get_spec

    spec = get_spec(game)
    name, lo, hi = spec.env_name, spec.min_players, spec.max_players
    eng, pre = engine_prefix(name), game_prefix(name)
    cases = [
        Case(
            f"{eng}/{n}p",
            f"engine {spec.title}, {n} players",
            "engine",
            n,
            "decision",
            lambda n=n: engine_runner(spec, n),
            whole_games=True,
            game=name,
        )
        for n in spec.player_counts
    ]
    cases.append(
        Case(
            f"{eng}/clone-{hi}p",
            f"engine {spec.title} clone(), {hi} players, mid-game",
            "engine",
            hi,
            "clone",
            lambda: clone_runner(spec, hi),
            note="rate is clones/s",
            game=name,
        )
    )
    env = spec.env_name
    rows = [
        (
            "aec-env",
            hi,
            f"{env}.env() AEC, {hi} players (wrapped)",
            "step",
            lambda: aec_runner(game_env(name, hi)),
            EVERY,
        ),
        (
            "aec-raw",
            hi,
            f"{env}.raw_env() AEC, {hi} players (unwrapped)",
            "step",
            lambda: aec_runner(game_env(name, hi, "raw")),
            EVERY,
        ),
        (
            "aec-env",
            lo,
            f"{env}.env() AEC, {lo} players (wrapped)",
            "step",
            lambda: aec_runner(game_env(name, lo)),
            FULL,
        ),
        (
            "aec-flat",
            hi,
            f"flatten_observations({env}.env()) AEC, {hi} players",
            "step",
            lambda: aec_runner(game_env(name, hi, "flat")),
            FULL,
        ),
        (
            "parallel",
            hi,
            f"{env}.parallel_env(), {hi} players",
            "decision (parallel)",
            lambda: parallel_runner(game_env(name, hi, "parallel")),
            EVERY,
        ),
        (
            "gym",
            lo,
            f"single-agent gymnasium env (flat obs), {lo} players vs random",
            "learner step",
            lambda: gym_runner(single_agent_env(name, lo)),
            EVERY,
        ),
        (
            "gym",
            hi,
            f"single-agent gymnasium env (flat obs), {hi} players vs random",
            "learner step",
            lambda: gym_runner(single_agent_env(name, hi)),
            FULL,
        ),
    ]
    if 4 in spec.player_counts and 4 not in (lo, hi):  # the issues' speed targets are 4-player AEC loops
        rows.append(
            (
                "aec-env",
                4,
                f"{env}.env() AEC, 4 players (wrapped)",
                "step",
                lambda: aec_runner(game_env(name, 4)),
                EVERY,
            )
        )
    if "heuristic" in spec.bots:
        rows.append(
            (
                "gym-heuristic",
                lo,
                f"single-agent gymnasium env (flat obs), {lo} players vs heuristic",
                "learner step",
                lambda: gym_runner(single_agent_env(name, lo, "heuristic")),
                QUICK,
            )
        )
    seen = {c.key for c in cases}
    for kind, n, label, unit, build, modes in rows:
        key = f"{pre}/{kind}-{n}p"
        if key in seen:  # min_players == max_players
            continue
        seen.add(key)
        cases.append(Case(key, label, "farmgames", n, unit, build, modes=modes, note=NOTES.get(unit, ""), game=name))
    return cases + vector_cases(spec, pre)


def vector_cases(spec: Any, pre: str) -> list[Case]:
    """The batched env against gymnasium's ``SyncVectorEnv`` over N single envs, fewest players vs random (and
    vs heuristic at N = 8), each batched case compared with its sync case repeat by repeat."""
    name, lo = spec.env_name, spec.min_players
    out = []
    runs = [(n, "random", EVERY if n == VECTOR_SIZES[0] else QUICK) for n in VECTOR_SIZES]
    if "heuristic" in spec.bots:
        runs.append((VECTOR_SIZES[0], "heuristic", FULL))
    for n, opponents, modes in runs:
        tag = "" if opponents == "random" else "-heuristic"
        sync_key = f"{pre}/vec-sync{tag}-{n}x{lo}p"
        for kind, label in (("sync", "gymnasium SyncVectorEnv over"), ("batched", "BatchedSingleAgentEnv of")):
            out.append(
                Case(
                    f"{pre}/vec-{kind}{tag}-{n}x{lo}p",
                    f"{label} {n} single-agent envs, {lo} players vs {opponents}",
                    "farmgames",
                    lo,
                    "learner step (batched)",
                    lambda n=n, kind=kind, opponents=opponents: vector_runner(vector_env(name, lo, n, kind, opponents)),
                    modes=modes,
                    note=NOTES["learner step (batched)"],
                    game=name,
                    versus=sync_key if kind == "batched" else None,
                )
            )
    return out


def peer_cases() -> list[Case]:
    """PettingZoo and OpenSpiel peers (the reference first)."""
    cases = [
        Case(
            REFERENCE,
            "pettingzoo connect_four_v3 AEC (reference)",
            "pettingzoo",
            2,
            "step",
            lambda: aec_runner(pz_classic("connect_four_v3")),
        ),
        Case(
            "pz/chess_v6",
            "pettingzoo chess_v6 AEC",
            "pettingzoo",
            2,
            "step",
            lambda: aec_runner(pz_classic("chess_v6")),
        ),
    ]
    spiel = [
        (
            "bridge(use_double_dummy_result=false)",
            "bridge",
            4,
            EVERY,
            "card play instead of a double-dummy score; observation_tensor",
        ),
        ("hearts", "hearts", 4, QUICK, "no observation tensor: information_state_tensor"),
        ("spades", "spades", 4, FULL, "observation_tensor"),
        ("connect_four", "connect_four", 2, QUICK, "C++ implementation"),
        ("chess", "chess", 2, FULL, "C++ implementation"),
    ]
    for name, short, n, modes, note in spiel:
        cases.append(
            Case(
                f"openspiel/{short}",
                f"OpenSpiel {short}",
                "openspiel",
                n,
                "decision",
                lambda name=name: openspiel_runner(name),
                modes=modes,
                note=note,
            )
        )
    return cases


def all_cases(games: tuple[str, ...] = ("fields_of_green_v0",)) -> list[Case]:
    """Every case of the selected games, then the peers."""
    cases: list[Case] = []
    for game in games:
        cases += game_cases(game)
    return cases + peer_cases()


# ============================================================================ memory and observation targets

PEER_MEMORY = (
    # kind, players, label, random steps played in each env before measuring
    ("connect_four_v3", 2, "pettingzoo connect_four_v3", 10),
    ("chess_v6", 2, "pettingzoo chess_v6", 60),
)


def memory_targets(games: tuple[str, ...]) -> list[dict[str, Any]]:
    """Memory jobs: each game's wrapped env and engine at most players (150 random steps each), then peers."""
    from farmgames.envs import get_spec

    out = []
    for game in games:
        spec = get_spec(game)
        n = spec.max_players
        out.append(
            {
                "kind": game_prefix(spec.env_name),
                "what": "env",
                "game": spec.env_name,
                "players": n,
                "label": f"{spec.env_name}.env(), {n} players",
                "steps": 150,
            }
        )
        out.append(
            {
                "kind": engine_prefix(spec.env_name),
                "what": "engine",
                "game": spec.env_name,
                "players": n,
                "label": f"engine {spec.title}, {n} players",
                "steps": 150,
            }
        )
    for kind, players, label, steps in PEER_MEMORY:
        out.append({"kind": kind, "what": "pz", "game": None, "players": players, "label": label, "steps": steps})
    return out


def observation_targets(games: tuple[str, ...]) -> list[tuple[str, Callable[[], Any]]]:
    """(label, env factory) whose single observation is sized: each game at most and fewest players, peers."""
    from farmgames.envs import get_spec

    out = []
    for game in games:
        spec = get_spec(game)
        hi, lo = spec.max_players, spec.min_players
        out.append((f"{spec.env_name}.env(), {hi} players", game_env(spec.env_name, hi)))
        out.append((f"flatten_observations({spec.env_name}.env()), {hi} players", game_env(spec.env_name, hi, "flat")))
        if lo != hi:
            out.append((f"{spec.env_name}.env(), {lo} players", game_env(spec.env_name, lo)))
    out += [
        ("pettingzoo connect_four_v3", pz_classic("connect_four_v3")),
        ("pettingzoo chess_v6", pz_classic("chess_v6")),
    ]
    return out
