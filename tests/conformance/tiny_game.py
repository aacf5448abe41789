"""Secret Nim: a tiny game written only for the tests, the proof that the core is generic.

Two players take 1 or 2 stones in turn from a pile of 7-9 stones (the size is drawn from the seed).
Each player also holds a secret bonus of 0-2 points (drawn from the seed, hidden from the other
player). Whoever takes the last stone gets 2 points; a player's score is stones taken + bonus (+2).
Ties: more stones taken wins; still tied, both win.

It registers through ``farmgames.envs.register`` exactly as a researcher's own game would, and
``tests/conformance`` runs the whole conformance suite over it.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from farmgames.envs.core.actions import ActionLayout
from farmgames.envs.core.bots import Bot, RandomBot
from farmgames.envs.core.observation import ObservationLayout
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.core.seeding import check_seed
from farmgames.envs.core.spec import Bounds, GameSpec, Keyword

LAYOUT = ActionLayout([("take", 2, "take i+1 stones")])
MAX_PILE = 9


@dataclass(frozen=True)
class Score:
    stones: int
    bonus: int
    last_stone: int

    @property
    def total(self) -> int:
        return self.stones + self.bonus + self.last_stone

    @property
    def key(self) -> tuple[int, int]:
        return (self.total, self.stones)

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "total": self.total}


class Game:
    """The engine (pure Python on the core protocols)."""

    layout = LAYOUT

    def __init__(self, num_players: int = 2, seed: int = 0, *, pile: int | None = None):
        if num_players != 2:
            raise ValueError(f"num_players must be 2, got {num_players!r}")
        self.seed = check_seed(seed)
        if pile is not None and (isinstance(pile, bool) or not isinstance(pile, int) or not 1 <= pile <= MAX_PILE):
            raise ValueError(f"pile must be an integer from 1 to {MAX_PILE} or None, got {pile!r}")
        rng = random.Random(self.seed)
        self.num_players = 2
        self.pile = pile if pile is not None else rng.randint(7, 9)
        self.bonus = [rng.randint(0, 2), rng.randint(0, 2)]
        self.stones = [0, 0]
        self.last: int | None = None
        self.to_move = rng.randint(0, 1)
        self.history: list[int] = []
        self.variant = {"pile": pile}

    @property
    def num_actions(self) -> int:
        return LAYOUT.size

    @property
    def current_player(self) -> int | None:
        return None if self.pile == 0 else self.to_move

    def is_terminal(self) -> bool:
        return self.pile == 0

    def legal_actions(self) -> list[int]:
        return [] if self.pile == 0 else list(range(min(2, self.pile)))

    def legal_action_array(self) -> np.ndarray:
        """The optional speed hook of ``core.protocol.Game`` (here so the adapters' hook path is tested
        on a game a researcher might write; not cached, which the hook allows)."""
        array = np.array(self.legal_actions(), dtype=np.intp)
        array.flags.writeable = False
        return array

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def apply(self, action: int) -> None:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an integer index, got {action!r}")
        if int(action) not in self.legal_actions():
            raise IllegalActionError(f"action {action!r} is not legal now; legal: {self.legal_actions()}")
        take = int(action) + 1
        p = self.to_move
        self.pile -= take
        self.stones[p] += take
        self.history.append(int(action))
        if self.pile == 0:
            self.last = p
        self.to_move = 1 - p

    def scores(self) -> list[Score]:
        return [Score(self.stones[p], self.bonus[p], 2 if self.last == p else 0) for p in range(2)]

    def winners(self) -> list[int]:
        keys = [s.key for s in self.scores()]
        return [p for p in range(2) if keys[p] == max(keys)]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        win = self.winners()
        return [1.0 if p in win else -1.0 for p in range(2)]

    def describe_action(self, action: int) -> str:
        return f"take {int(action) + 1} stone(s)"

    def clone(self) -> Game:
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.bonus, new.stones, new.history = self.bonus[:], self.stones[:], self.history[:]
        new.variant = dict(self.variant)
        return new

    def record(self) -> dict[str, Any]:
        return {
            "game": "secret_nim",
            "num_players": 2,
            "seed": self.seed,
            "variant": dict(self.variant),
            "actions": list(self.history),
        }

    def to_json(self) -> str:
        return json.dumps({"format": "secret_nim/1", "state": {k: v for k, v in self.__dict__.items()}})

    @classmethod
    def from_json(cls, text: str) -> Game:
        data = json.loads(text)
        if data.get("format") != "secret_nim/1":
            raise ValueError(f"not a secret_nim state: format {data.get('format')!r}")
        game = cls.__new__(cls)
        game.__dict__.update(data["state"])
        if game.pile < 0 or sum(game.stones) + game.pile > MAX_PILE:
            raise ValueError("secret_nim state: stones and pile do not add up")
        return game

    def __str__(self) -> str:
        return f"pile {self.pile}; stones {self.stones}; to move {self.current_player}"


class Observer:
    """Own bonus, pile, stones (viewer first), whose turn."""

    def __init__(self, game: Game):
        self.layout = ObservationLayout.build(
            [
                ("pile", ("1",), (1,), "stones left", float(MAX_PILE)),
                ("stones", ("players",), (2,), "stones taken, viewer first", float(MAX_PILE)),
                ("bonus", ("1",), (1,), "the viewer's own secret bonus", 2.0),
                ("to_act", ("1",), (1,), "the viewer moves now", 1.0),
            ]
        )

    def reset(self, game: Game) -> None:
        pass

    def new_buffer(self) -> Any:
        return self.layout.new_buffer()

    def fill(self, game: Game, seat: int, buffer: Any) -> None:
        v = buffer.views
        v["pile"][0] = game.pile
        v["stones"][0], v["stones"][1] = game.stones[seat], game.stones[1 - seat]
        v["bonus"][0] = game.bonus[seat]
        v["to_act"][0] = 1.0 if game.current_player == seat else 0.0

    def text(self, game: Game, seat: int) -> str:
        return f"pile {game.pile}; you {game.stones[seat]} (+{game.bonus[seat]}); other {game.stones[1 - seat]}"


class GreedyBot(Bot):
    """Takes 2 whenever it can."""

    name = "greedy"

    def act(self, game: Game) -> int:
        return max(game.legal_actions())


class Narrator:
    def decision_line(self, game: Game, seat: int, action: int, viewer: int | None) -> str:
        return f"player {seat}: {game.describe_action(action)}"

    def phase_summary(self, game: Game) -> str | None:
        return None

    def final_table(self, game: Game) -> str:
        return " | ".join(f"player {p}: {s.total}" for p, s in enumerate(game.scores()))


def hidden_perturbation(game: Game, seat: int, rng: random.Random) -> Game | None:
    """The other player's secret bonus, changed."""
    g = game.clone()
    other = 1 - seat
    choices = [b for b in range(3) if b != g.bonus[other]]
    g.bonus[other] = rng.choice(choices)
    return g


def _ansi(game: Game, viewer: int | None) -> str:
    bonus = "" if viewer is None else f"; your bonus {game.bonus[viewer]}"
    return f"pile {game.pile}; stones {game.stones}{bonus}"


def _rgb(game: Game) -> np.ndarray:
    img = np.zeros((20, 10 * MAX_PILE, 3), np.uint8)
    img[:, : 10 * game.pile] = 200
    return img


SPEC = GameSpec(
    name="secret_nim",
    version=0,
    gym_name="SecretNim",
    title="Secret Nim (test game)",
    min_players=2,
    max_players=2,
    new_game=Game,
    new_observer=Observer,
    from_json=Game.from_json,
    bounds=lambda game: Bounds(max_decisions=MAX_PILE, max_score=MAX_PILE + 4),
    keywords=(Keyword("pile", None, "stones at the start (1..9), or None for 7-9 drawn from the seed"),),
    bots={"random": RandomBot, "greedy": GreedyBot},
    render_ansi=_ansi,
    render_rgb=_rgb,
    narrator=Narrator,
    information="imperfect",
    hidden_perturbation=hidden_perturbation,
)


def _register() -> tuple[Any, ...]:
    from farmgames.envs import register
    from farmgames.envs.adapters import env_functions

    fns = env_functions(SPEC, module=__name__)
    register(SPEC, __name__)
    return fns


env, raw_env, parallel_env = _register()
