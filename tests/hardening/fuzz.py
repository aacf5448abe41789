"""The loaders under fuzz: mutated records, states, card sets (as data and as YAML text) and configs, each
either accepted or refused with its documented error type (never another exception, never a hang).

Documented refusals: ``RecordError`` / ``IllegalActionError`` (records), ``StateError`` (states),
``CardSetError`` / ``DataFileError`` (card sets, YAML), ``ConfigError`` (training configs), and for env
keywords ``ValueError`` (a bad value) or ``TypeError`` (an unknown keyword, as Python does): all
``ValueError`` subclasses but the last. Used by test_fuzz.py (a bounded run in the default suite and the
slow >= 100,000-input run)."""

from __future__ import annotations

import copy
import json
import random
import signal
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from farmgames import envs
from farmgames.envs.core.datafiles import DataFileError, DataText, dump_yaml, load_yaml_text
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.core.records import RecordError
from farmgames.envs.core.statecheck import StateError
from farmgames.envs.fields_of_green.cards import DEFAULT_CARD_SET, CardSetError, load_card_set
from farmgames.envs.fields_of_green.game import Game

from .mutate import mutate, mutate_stack

ROOT = Path(__file__).resolve().parents[2]
HANG_SECONDS = 10  # one input taking longer than this counts as a hang


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def alarm(signum, frame):  # noqa: ARG001
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _play(game: Game, rng: random.Random, steps: int | None = None) -> Game:
    n = 0
    while not game.is_terminal() and (steps is None or n < steps):
        game.apply(rng.choice(game.legal_actions()))
        n += 1
    return game


@cache
def small_card_set() -> dict:
    """The base set cut down to 3 designs a pile and 5 tiles (fast to parse, every field kind present)."""
    data = yaml.safe_load(DEFAULT_CARD_SET.read_text(encoding="utf-8"))
    for pile, cards in data["locations"].items():
        data["locations"][pile] = [dict(c, copies=c_copies) for c, c_copies in zip(cards[:3], (4, 3, 3))]
    data["pile_size"] = 10
    data["equipment"] = [dict(t, copies=1) for t in data["equipment"][:5]]
    data["equipment_count"] = 5
    return data


@cache
def corpus_states() -> tuple[dict, ...]:
    out = []
    for n in (2, 3, 4):
        for seed in range(2):
            game = Game(num_players=n, seed=seed)
            rng = random.Random(seed)
            while not game.is_terminal():
                if rng.random() < 0.05:
                    out.append(json.loads(game.to_json()))
                game.apply(rng.choice(game.legal_actions()))
            out.append(json.loads(game.to_json()))
    small = Game(num_players=2, seed=3, card_set=DataText("small.yaml", dump_yaml(small_card_set())))
    out.append(json.loads(_play(small, random.Random(3), 40).to_json(embed=True)))
    return tuple(out)


@cache
def corpus_records() -> tuple[dict, ...]:
    out = []
    for n in (2, 3, 4):
        out.append(_play(Game(num_players=n, seed=n), random.Random(n)).record())
        out.append(_play(Game(num_players=n, seed=n + 10, farm_size=7), random.Random(n), 60).record())
    env = envs.face("fields_of_green").raw_env(num_players=3)
    env.reset(seed=5)
    out.append(env.record())
    small = Game(num_players=2, seed=1, card_set=DataText("small.yaml", dump_yaml(small_card_set())))
    out.append(_play(small, random.Random(1)).record(embed=True))
    split = {y: (2, 2, 1, 1) for y in (1, 2, 3, 4)}
    out.append(_play(Game(num_players=2, seed=2, fixed_split=split, auto_single=True), random.Random(2)).record())
    return tuple(json.loads(json.dumps(r)) for r in out)


@cache
def corpus_configs() -> tuple[dict, ...]:
    return tuple(yaml.safe_load(p.read_text()) for p in sorted((ROOT / "configs").rglob("*.yaml")))


ENV_KEYWORDS = {
    "num_players": 3,
    "farm_size": 7,
    "first_player": 1,
    "auto_single": False,
    "reward": "score",
    "illegal_action": "raise",
    "perfect_recall": True,
    "fixed_split": {1: [2, 2, 1, 1], 2: [2, 2, 1, 1], 3: [1, 2, 2, 1], 4: [2, 1, 1, 2]},
    "pass_directions": ["cw", "ccw", "cw", "ccw"],
}


# ---- one input through one loader: returns "accepted" or the refusal's type name; raises otherwise


@cache
def corpus_frames() -> tuple:
    return tuple(f for state in corpus_states() for f in state["state"]["stack"])


def fuzz_state(rng: random.Random, edits: int) -> str:
    base = rng.choice(corpus_states())
    if rng.random() < 0.3:  # the engine's flow mutated: frames inserted, dropped, duplicated, swapped
        data = mutate_stack(base, rng, list(corpus_frames()), edits)
    else:
        data = mutate(base, rng, edits)
    try:
        game = Game.from_json(json.dumps(data))
    except StateError as exc:
        return type(exc).__name__
    game.legal_actions()
    game.to_json()
    if rng.random() < 0.1:  # some accepted ones play on
        _play(game, rng, 200)
    return "accepted"


def fuzz_record(rng: random.Random, edits: int) -> str:
    data = mutate(rng.choice(corpus_records()), rng, edits)
    try:
        envs.replay(data)
    except (RecordError, IllegalActionError) as exc:
        return type(exc).__name__
    return "accepted"


def fuzz_card_set(rng: random.Random, edits: int) -> str:
    data = mutate(small_card_set(), rng, edits)
    try:
        cards = load_card_set(DataText("fuzz.yaml", dump_yaml(data)))
    except CardSetError as exc:
        return type(exc).__name__
    if rng.random() < 0.2:  # an accepted set must give a playable game
        for n in (2, 4):
            try:
                game = Game(num_players=n, seed=rng.randrange(100), card_set=cards)
            except ValueError as exc:  # e.g. too few towers for 4 players: refused by Game, named
                return f"Game:{type(exc).__name__}"
            _play(game, rng, 300)
    return "accepted"


def _text_edit(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) + 1)
    op = rng.random()
    if op < 0.3:
        return text[:i] + text[i + rng.randint(1, 20) :]
    if op < 0.6:
        return (
            text[:i]
            + rng.choice(
                [
                    "&a ",
                    "*a",
                    "[",
                    "]",
                    "{",
                    ":",
                    "- ",
                    "!!python/object:os.system ",
                    "\t",
                    "\x00",
                    "9" * rng.randint(1, 40),
                    "\n  ",
                    "? ",
                    "<<: *a\n",
                    "'",
                    '"',
                ]
            )
            + text[i:]
        )
    j = rng.randrange(len(text) + 1)
    return text[:i] + text[min(i, j) : max(i, j)] * rng.randint(1, 3) + text[i:]


def fuzz_yaml_text(rng: random.Random, edits: int) -> str:
    text = dump_yaml(small_card_set())
    for _ in range(edits):
        text = _text_edit(text, rng)
    try:
        load_card_set(DataText("fuzz.yaml", text))
    except (CardSetError, DataFileError) as exc:
        return type(exc).__name__
    try:
        load_yaml_text(text, "fuzz.yaml")
    except DataFileError as exc:
        return type(exc).__name__
    return "accepted"


def fuzz_config(rng: random.Random, edits: int) -> str:
    from farmgames.training.config import ConfigError, config_from_dict

    data = mutate(rng.choice(corpus_configs()), rng, edits)
    try:
        config_from_dict(data, "fuzz.yaml")
    except ConfigError as exc:
        return type(exc).__name__
    return "accepted"


def fuzz_env_keywords(rng: random.Random, edits: int) -> str:
    kw = mutate(ENV_KEYWORDS, rng, edits)
    if not isinstance(kw, dict) or not all(isinstance(k, str) for k in kw):
        return "skipped"
    face = envs.face("fields_of_green")
    try:
        env = face.raw_env(**kw)
        env.reset(seed=rng.randrange(1000))
    except (ValueError, TypeError) as exc:
        return type(exc).__name__
    return "accepted"


LOADERS: dict[str, Callable[[random.Random, int], str]] = {
    "state": fuzz_state,
    "record": fuzz_record,
    "card_set": fuzz_card_set,
    "yaml_text": fuzz_yaml_text,
    "config": fuzz_config,
    "env_keywords": fuzz_env_keywords,
}


def run_one(kind: str, seed: int, edits: int, counts: Counter) -> None:
    """One input: counted by outcome; an undocumented exception or a hang fails with the reproducer."""
    rng = random.Random(seed)
    try:
        with time_limit(HANG_SECONDS):
            outcome = LOADERS[kind](rng, edits)
    except Exception as exc:
        raise AssertionError(f"{kind} input (seed={seed}, edits={edits}) raised {exc!r}") from exc
    counts[(kind, outcome)] += 1


def mutated(data: Any, seed: int, edits: int = 1) -> Any:
    return mutate(copy.deepcopy(data), random.Random(seed), edits)
