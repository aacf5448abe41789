"""Fields of Green as a PettingZoo AEC environment (the classic-games convention, with action masks).

    >>> from farmgames.envs import fields_of_green_v0
    >>> env = fields_of_green_v0.env(num_players=4)
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter():
    ...     obs, reward, termination, truncation, info = env.last()
    ...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    ...     env.step(action)

``agent_selection`` follows the engine's decision order (FOG-RUL-15): the same agent may act several
times in a row when its turn has sub-decisions (water sources, equipment, …). Observations are built
by :class:`~.observer.Observer`; the action numbering is :class:`~.actions.ActionLayout` (one
``Discrete`` space; the ``noop`` index is never legal here, only in the parallel env).

This module and ``parallel.py`` are the only ones importing pettingzoo; the engine stays pure.
Shared pieces (variant checking, game facts, rewards, records) live in :class:`FieldsOfGreenBase`,
which the parallel env reuses.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from .actions import ActionLayout
from .cards import CardSet
from .game import DEFAULT_DIRECTIONS, STARTING_COINS, TURNS, YEARS, Game, IllegalActionError
from .observer import Observer

MIN_PLAYERS, MAX_PLAYERS = 2, 4  # FOG-GEN-1
REWARD_MODES = ("win_loss", "score", "margin")
ILLEGAL_MODES = ("raise", "terminate")
RENDER_MODES = ("human", "ansi", "rgb_array")

# Every engine keyword (Game.__init__) with its default, then the environment's own options.
GAME_KEYWORDS: dict[str, Any] = {
    "farm_size": 9,
    "card_set": None,
    "fixed_split": None,
    "pass_directions": DEFAULT_DIRECTIONS,
    "first_player": None,
    "auto_single": False,
}
ENV_KEYWORDS: dict[str, Any] = {"reward": "win_loss", "illegal_action": "raise", "perfect_recall": False}
VALID_KEYWORDS = ("num_players", "render_mode", *GAME_KEYWORDS, *ENV_KEYWORDS)


def check_variant(num_players: Any, render_mode: Any, variant: dict[str, Any]) -> tuple[dict, dict]:
    """Split and validate keywords: (engine keywords, environment options). The engine validates its
    own values when the first Game is built; this checks names and the environment's options."""
    unknown = [k for k in variant if k not in GAME_KEYWORDS and k not in ENV_KEYWORDS]
    if unknown:
        raise TypeError(
            f"fields_of_green_v0: unknown keyword {unknown[0]!r}; valid keywords are: {', '.join(VALID_KEYWORDS)}"
        )
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not (
        MIN_PLAYERS <= num_players <= MAX_PLAYERS
    ):
        raise ValueError(f"fields_of_green_v0: num_players must be 2, 3 or 4 (FOG-GEN-1), got {num_players!r}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"fields_of_green_v0: render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    options = {**ENV_KEYWORDS, **{k: v for k, v in variant.items() if k in ENV_KEYWORDS}}
    if options["reward"] not in REWARD_MODES:
        raise ValueError(f"fields_of_green_v0: reward must be one of {REWARD_MODES}, got {options['reward']!r}")
    if options["illegal_action"] not in ILLEGAL_MODES:
        raise ValueError(
            f"fields_of_green_v0: illegal_action must be one of {ILLEGAL_MODES}, got {options['illegal_action']!r}"
        )
    if not isinstance(options["perfect_recall"], (bool, np.bool_)):
        raise ValueError(f"fields_of_green_v0: perfect_recall must be True or False, got {options['perfect_recall']!r}")
    options["perfect_recall"] = bool(options["perfect_recall"])
    game_kwargs = {k: v for k, v in variant.items() if k in GAME_KEYWORDS}
    return game_kwargs, options


# ------------------------------------------------------------------------------------------------
# Game facts (OpenSpiel style). The bounds are derived from the card set; see docs/env.md.

ACTIONS_PER_PLAYER = YEARS * TURNS  # 24 actions A-E per player and game (FOG-ACT-1, FOG-2P-9)
HARVEST_USES = sum(TURNS * y for y in range(1, YEARS + 1))  # <= 6y harvest locations in year y: 60
FARM_CARDS_MAX = 2 + ACTIONS_PER_PLAYER  # start tower + silo, then at most one card per action
_COUNTER_MAX = {"adjacent": 4, "distinct_subtypes": 4, "fallow": ACTIONS_PER_PLAYER}


def _counter_max(counter: dict, tiles: int) -> int:
    """Largest value a COUNTER (data/FORMAT.md) can take on one farm."""
    if "farm" in counter:
        return FARM_CARDS_MAX
    if "equipment" in counter:
        return 2 if counter["equipment"] == "here" else tiles
    if "set_aside" in counter:
        return tiles
    for key, value in _COUNTER_MAX.items():
        if key in counter:
            return value
    return FARM_CARDS_MAX  # unknown counter: the largest count of anything on a farm


def _effect_max(effect, tiles: int) -> dict[str, int]:
    """Upper bounds of what one application of an effect gains, and of the decisions it asks."""
    out = {"coins": 0, "water": 0, "food": 0, "vp": 0, "trade": 0, "target": 0}
    for op in effect or ():
        if "gain" in op:
            factor = _counter_max(op["per"], tiles) if "per" in op else 1
            for res, amount in op["gain"].items():
                total = amount * factor
                if op.get("max") is not None:
                    total = min(total, op["max"])
                out[res] += total
        elif "trade" in op:
            t = op["trade"]
            out["trade"] += 1
            for res, amount in t["gain"].items():
                out[res] += amount * t["max_times"]
        elif "raise_capacity" in op and op["raise_capacity"]["target"] != "host":
            out["target"] += 1
    return out


def game_bounds(cards: CardSet, num_players: int, fixed_split: bool = False) -> dict[str, float]:
    """Upper bounds on decisions per game and on a final score, for a card set (see docs/env.md).

    Per player and game: 4 draw splits (none with ``fixed_split``), 24 picks, 24 actions, 24 "attach
    no more" decisions (one per build), at most ``6y + 1`` harvest decisions in year ``y`` (64), one
    ``store_water`` per water unit gained and one ``pay_water`` per water unit ever held, one option or
    target decision per trade / capacity op applied. Ability applications: at most 24 Immediate ones
    (one per build), 60 Harvest ones, 2 harvest-timed tiles per Harvest use (120), one on-place effect
    per tile. Equipment decisions are shared by all players: each ``keep`` removes a tile from the
    stack for good, so at most ``tiles`` keeps, ``tiles`` placements and ``tiles`` attachments per game.
    Gains use the largest value each counter can reach (a farm holds at most 26 cards).
    """
    tiles = len(cards.equipment)
    A = ACTIONS_PER_PLAYER
    kinds = {"immediate": [], "harvest": [], "end_game": []}
    vp_printed = 0
    for card in cards.location_designs:
        vp_printed = max(vp_printed, card.vp)
        if card.ability is not None:
            kinds[card.ability.kind].append(_effect_max(card.ability.effect, tiles))
    eq = {"place": [], "harvest": [], "end_game": []}
    for tile in cards.equipment_designs:
        key = "harvest" if tile.timing == "harvest" else "end_game" if tile.timing == "end_game" else "place"
        eq[key].append(_effect_max(tile.effect, tiles))

    def most(rows, key):
        return max((r[key] for r in rows), default=0)

    def per_player(key):
        return (A * most(kinds["immediate"], key) + HARVEST_USES * most(kinds["harvest"], key)
                + tiles * most(eq["place"], key) + 2 * HARVEST_USES * most(eq["harvest"], key))

    water_gained = 2 * (YEARS - 1) + per_player("water")  # income 2 water in years 2-4
    towers = min(A, max(cards.tower_count - num_players, 0))
    water_held = cards.tower_start_water * (1 + towers) + water_gained
    harvest_decisions = sum(TURNS * y + 1 for y in range(1, YEARS + 1))
    decisions = (
        (0 if fixed_split else YEARS) + 3 * A + harvest_decisions + water_gained + water_held
        + per_player("trade") + per_player("target")
    )
    max_decisions = num_players * decisions + 3 * tiles

    coins = STARTING_COINS + 3 * (YEARS - 1) + A * 6 + per_player("coins")  # market: at most 6 per action
    food = 1 + (YEARS - 1) + per_player("food")
    end_game_vp = A * most(kinds["end_game"], "vp") + tiles * max(1, most(eq["end_game"], "vp"))
    max_score = (A * vp_printed + per_player("vp") + end_game_vp + coins // 3 + food // 2 + 1 + towers)
    return {"max_decisions": int(max_decisions), "max_score": int(max_score)}


# ------------------------------------------------------------------------------------------------


class _Slot:
    """One observation buffer of an agent: the observer's buffer, the action mask (an int8 array over
    a bytearray, see ``_observation``) and the dict handed out."""

    __slots__ = ("buf", "bits", "zeros", "mask", "obs")

    def __init__(self, buf, num_actions: int):
        self.buf = buf
        self.bits = bytearray(num_actions)
        self.zeros = bytes(num_actions)
        self.mask = np.frombuffer(self.bits, dtype=np.int8)  # writable view of bits
        self.obs = {"observation": buf.views, "action_mask": self.mask}


class FieldsOfGreenBase:
    """Everything the AEC and parallel environments share (no pettingzoo API here)."""

    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def _setup(self, num_players: int, render_mode: str | None, variant: dict[str, Any]) -> None:
        self._game_kwargs, self.options = check_variant(num_players, render_mode, variant)
        self.num_players = int(num_players)
        self.render_mode = render_mode
        self.reward_mode = self.options["reward"]
        self.illegal_action = self.options["illegal_action"]
        self.perfect_recall = self.options["perfect_recall"]
        probe = Game(num_players=self.num_players, seed=0, **self._game_kwargs)  # validates the engine keywords
        self.game: Game = probe
        self.cards = probe.cards
        self.layout: ActionLayout = probe.layout
        self.NOOP = self.layout.NOOP
        self.observer = Observer(probe, perfect_recall=self.perfect_recall)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        box = gymnasium.spaces.Box
        self._observation_spaces = {  # one space object per agent (PettingZoo seeds them one by one)
            a: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Dict({
                    e.name: box(low=0.0, high=e.high, shape=e.shape, dtype=np.float32)
                    for e in self.observer.entries
                }),
                "action_mask": box(low=0, high=1, shape=(self.layout.size,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self._action_spaces = {a: gymnasium.spaces.Discrete(self.layout.size) for a in self.possible_agents}
        bounds = game_bounds(self.cards, self.num_players, fixed_split=bool(self._game_kwargs.get("fixed_split")))
        self.max_decisions = bounds["max_decisions"]
        self.max_score = bounds["max_score"]
        self.reward_range = {
            "win_loss": (-1.0, 1.0),
            "score": (0.0, float(self.max_score)),
            "margin": (-float(self.max_score), float(self.max_score)),
        }[self.reward_mode]
        self.illegal_reward = self.reward_range[0]
        self._np_random: np.random.Generator | None = None
        # Observation memory: two buffers per agent, used alternately, so an agent's previous and
        # current observations are both valid (obs / next_obs pairs); see docs/env.md.
        self._slots = [[_Slot(self.observer.new_buffer(), self.layout.size) for _ in range(2)]
                       for _ in range(self.num_players)]
        self._slot_of = [0] * self.num_players
        # per agent: the state its current buffer shows, as (_version, len(game.history))
        self._slot_version: list = [None] * self.num_players
        self._slot_history: list = [None] * self.num_players
        self._version = 0  # bumped by every reset / step / load_game

    def _observation(self, seat: int) -> dict[str, Any]:
        """``seat``'s observation (cached while the state is unchanged)."""
        version, history = self._version, len(self.game.history)  # robust to direct game.apply() calls too
        if self._slot_history[seat] == history and self._slot_version[seat] == version:
            return self._slots[seat][self._slot_of[seat]].obs
        index = self._slot_of[seat] ^ 1
        slot = self._slots[seat][index]
        self.observer.fill(self.game, seat, slot.buf)
        # the mask's memory is a bytearray: clearing it is one memcpy and setting an index a plain
        # Python store, cheaper than numpy calls for a few dozen legal actions (same int8 array)
        bits = slot.bits
        bits[:] = slot.zeros
        for action in self._mask_actions(seat):
            bits[action] = 1
        self._slot_of[seat] = index
        self._slot_version[seat], self._slot_history[seat] = version, history
        return slot.obs

    def _mask_actions(self, seat: int) -> list[int]:  # pragma: no cover - overridden
        raise NotImplementedError

    # ---- spaces (the same object every call, as PettingZoo's tests require)

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        return self._action_spaces[agent]

    # ---- game facts

    def game_facts(self) -> dict[str, Any]:
        """OpenSpiel-style facts: players, bounds on decisions per game and on rewards."""
        return {
            "name": "fields_of_green_v0",
            "num_players": self.num_players,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "num_actions": self.layout.size,
            "max_decisions": self.max_decisions,
            "max_score": self.max_score,
            "reward": self.reward_mode,
            "reward_range": self.reward_range,
            "illegal_reward": self.illegal_reward,
            "zero_sum": False,
            "information": "imperfect",
            "chance": "sampled at setup from the seed",
        }

    # ---- games and seeds

    def _new_game(self, seed: int | None) -> Game:
        """reset(seed=s) plays the game Game(seed=s); reset() draws the next game seed from a generator
        seeded at the last seeded reset (or from entropy if never seeded)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise ValueError(f"seed must be an integer or None, got {seed!r}")
            self._np_random = np.random.default_rng(int(seed))
            game_seed = int(seed)
        else:
            if self._np_random is None:
                self._np_random = np.random.default_rng()
            game_seed = int(self._np_random.integers(0, 2**31 - 1))
        self.game = Game(num_players=self.num_players, seed=game_seed, **self._game_kwargs)
        self.observer.reset(self.game)
        self._version += 1
        return self.game

    def load_game(self, game: Game) -> None:
        """Continue from a given engine state (a scenario, ``Game.from_json``, a clone …): the next
        observations and masks describe it. The game must match this env's players, farm size and card
        set. Call it after ``reset()``."""
        same_cards = game.cards is self.cards or game.cards.path == self.cards.path
        if game.num_players != self.num_players or game.layout.size != self.layout.size or not same_cards:
            raise ValueError("load_game: the game's players, farm size or card set do not match this env")
        self.game = game
        self.observer.reset(game)
        self._version += 1
        self._after_load()

    def _after_load(self) -> None:  # pragma: no cover - overridden
        pass

    # ---- descriptions

    def describe_action(self, action: int, agent: str | None = None) -> str:
        """A readable description of an action index (for ``agent``'s decision; default: the agent
        deciding now)."""
        action = int(action)
        if action == self.NOOP:
            return "wait (no decision)"
        game = self.game
        kind, arg = self.layout.decode(action)
        seat = self.agent_name_mapping[agent] if agent is not None else game.current_player
        if kind == "pick" and seat is not None and not game.two_player:
            hand = game.hands[seat]
            name = game.cards.locations[hand[arg]].name if arg < len(hand) else "?"
            return f"pick slot {arg}: {name}"
        return game.describe_action(action)

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """The action indices ``agent``'s mask allows now (default: the agent the engine asks)."""
        game = self.game
        if game.is_terminal():
            return []
        seat = game.current_player if agent is None else self.agent_name_mapping[agent]
        return list(self._mask_actions(seat))

    # ---- rewards and records

    def _final_rewards(self) -> dict[str, float]:
        game = self.game
        totals = [s.total for s in game.scores()]
        if self.reward_mode == "win_loss":
            values = game.returns()  # +1 every winner incl. shared victories (FOG-END-13, FOG-RUL-35)
        elif self.reward_mode == "score":
            values = [float(t) for t in totals]
        else:
            values = [float(t - max(totals[:p] + totals[p + 1:])) for p, t in enumerate(totals)]
        return {a: float(values[i]) for i, a in enumerate(self.possible_agents)}

    def _final_infos(self) -> dict[str, dict]:
        game = self.game
        scores = game.scores()
        winners = [self.possible_agents[p] for p in game.winners()]
        return {
            a: {"score": scores[i].as_dict(), "final_vp": scores[i].total, "winners": winners,
                "scores": [s.total for s in scores]}
            for i, a in enumerate(self.possible_agents)
        }

    def _illegal_info(self, agent: str, action: Any, exc: Exception) -> dict:
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            action = int(action)
        elif action is not None:
            action = repr(action)
        return {"agent": agent, "action": action, "message": str(exc)}

    def record(self) -> dict:
        """The game record (seed, players, variant, actions; ``Game.replay`` rebuilds it) plus the
        environment options."""
        rec = self.game.record()
        rec["env"] = {"name": "fields_of_green_v0", **self.options}
        return rec

    # ---- render

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        from . import render

        viewer = self.game.current_player
        if self.render_mode == "rgb_array":
            return render.rgb_array(self.game)
        text = render.ansi_text(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return "fields_of_green_v0"


class FieldsOfGreenAECEnv(FieldsOfGreenBase, AECEnv):
    """The AEC environment. Build it with ``fields_of_green_v0.env()`` (wrapped) or ``raw_env()``."""

    metadata = {
        "name": "fields_of_green_v0",
        "render_modes": list(RENDER_MODES),
        # PettingZoo's generic aec_to_parallel needs agents to act once per cycle in a fixed order; here
        # the engine's decision order lets one agent act several times in a row, so that wrapper does
        # not apply. Use fields_of_green_v0.parallel_env() (or parallel_to_aec of it) instead.
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, num_players: int = 4, render_mode: str | None = None, **variant: Any):
        super().__init__()
        self._setup(num_players, render_mode, variant)
        self.agents: list[str] = []
        self._stopped = False

    # ---- PettingZoo API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed)
        self._after_load()

    def _after_load(self) -> None:
        self._stopped = False
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self.game.is_terminal():
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": {name: float32 array}, "action_mask": int8 array}``. The arrays are the
        env's own buffers: valid until this agent is observed in two later states (copy to keep)."""
        return self._observation(self.agent_name_mapping[agent])

    def _mask_actions(self, seat: int) -> list[int]:
        game = self.game
        return game.legal_actions() if game.current_player == seat and not self._stopped else []

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        try:
            index = action if type(action) is int else _as_index(action)
            if self.perfect_recall:
                pick = self.observer.pick_context(game, self.agent_name_mapping[agent])
                game.apply(index)  # the engine's legality check (its legal list is cached per state)
                if pick is not None:
                    self.observer.note_pick(*pick, index - self.layout.PICK)
            else:
                game.apply(index)
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise
            self._version += 1
            self._terminate_illegal(agent, action, exc)
            return
        self._version += 1
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in self.agents:
            rewards[a] = 0.0
        if game.is_terminal():
            self._finish()
            self._accumulate_rewards()
        else:  # rewards are all zero until the end: accumulating them would change nothing
            self.agent_selection = self.possible_agents[game.current_player]

    def _finish(self) -> None:
        self.rewards = self._final_rewards()
        self.terminations = {a: True for a in self.agents}
        self.infos = self._final_infos()

    def _terminate_illegal(self, agent: str, action: Any, exc: Exception) -> None:
        """FOG-RUL-16 "terminate": the offender gets the illegal-move reward, the game ends for all
        (the engine state stays as it was; masks are empty from now on)."""
        self._stopped = True
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = float(self.illegal_reward)
        self.terminations = {a: True for a in self.agents}
        info = self._illegal_info(agent, action, exc)
        self.infos = {a: {"illegal_action": info} for a in self.agents}
        self._accumulate_rewards()

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """A fresh int8 mask of ``agent`` (default: the agent to act)."""
        agent = agent or self.agent_selection
        mask = np.zeros(self.layout.size, np.int8)
        legal = self._mask_actions(self.agent_name_mapping[agent])
        if legal:
            mask[legal] = 1
        return mask

    def observation_text(self, agent: str | None = None) -> str:
        """``observer.text`` for ``agent`` (default: the agent to act)."""
        agent = agent or self.agent_selection
        return self.observer.text(self.game, self.agent_name_mapping[agent])


def _as_index(action: Any) -> int:
    """An action as a plain int, or IllegalActionError (None, floats with fractions, arrays …)."""
    if isinstance(action, (bool, np.bool_)) or action is None:
        raise IllegalActionError(f"action must be an integer index, got {action!r}")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    raise IllegalActionError(f"action must be an integer index, got {action!r}")


def raw_env(num_players: int = 4, render_mode: str | None = None, **variant: Any) -> FieldsOfGreenAECEnv:
    return FieldsOfGreenAECEnv(num_players=num_players, render_mode=render_mode, **variant)


def env(num_players: int = 4, render_mode: str | None = None, **variant: Any):
    """The AEC env wrapped the PettingZoo way: bounds checks, then order enforcement. Illegal moves are
    handled by the raw env itself (``illegal_action``), like TerminateIllegalWrapper but with
    ``info["illegal_action"]``. The wrappers are PettingZoo's ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` (subclasses with the same checks and cheaper attribute forwarding, see
    :class:`AssertOutOfBounds`)."""
    e = raw_env(num_players=num_players, render_mode=render_mode, **variant)
    e = AssertOutOfBounds(e)
    e = OrderEnforcing(e)
    return e


# ------------------------------------------------------------------------------------------------
# Wrappers. PettingZoo's BaseWrapper forwards every attribute the AEC loop reads (agent_selection,
# agents, terminations, ... about 15 per step) through __getattr__, once per wrapper level, and
# AssertOutOfBoundsWrapper.step calls Discrete.contains: together as much time as a whole step of the
# raw env. These subclasses keep PettingZoo's classes and checks and only make the common path cheap:
# the loop's attributes are properties that read the env under all wrappers of these two classes (they
# never change them), last() goes straight to that env, and an in-range int action skips
# Discrete.contains (which would accept it). Anything else takes PettingZoo's own code path.
# tests/env/test_pettingzoo_suites.py runs PettingZoo's api_test on env(); test_observer_incremental.py
# plays env() side by side with the plain PettingZoo wrappers and checks the errors before reset.


def _forward(name: str, check_reset: bool = False) -> property:
    if check_reset:  # OrderEnforcingWrapper's rule: these raise AttributeError before reset()
        def get(self):
            if self._has_reset:
                return getattr(self._target, name)
            raise AttributeError(f"{name} cannot be accessed before reset")
    else:
        def get(self):
            return getattr(self._target, name)
    return property(get, doc=f"``{name}`` of the wrapped env")


# what the standard loop reads (agent_iter, last, step); OrderEnforcingWrapper guards them until reset()
_LOOP_ATTRIBUTES = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos")


class AssertOutOfBounds(AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with cheap attribute forwarding (see above)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._target = _target_of(env)
        spaces = [env.action_space(a) for a in env.possible_agents]
        discrete = all(isinstance(sp, gymnasium.spaces.Discrete) and int(sp.start) == 0 for sp in spaces)
        # an int in [0, n) is in every agent's Discrete(n) space: no need to ask the space
        self._num_actions = int(spaces[0].n) if discrete and len({int(sp.n) for sp in spaces}) == 1 else 0

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's assertion

    def last(self, observe: bool = True):
        return self._target.last(observe)


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with cheap attribute forwarding (see above); ``agent_iter``
    and the errors and warnings are PettingZoo's."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._target = _target_of(env)

    def step(self, action: Any) -> None:
        if self._has_reset and self._target.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's error before reset / warning after the end

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._target.last(observe)

    def __str__(self) -> str:
        return str(self.env)  # as OrderEnforcingWrapper prints itself


def _target_of(env: AECEnv) -> AECEnv:
    """The env whose loop attributes a wrapper of ``env`` reads: through our own wrappers (they only
    forward them), else ``env`` itself."""
    return env._target if isinstance(env, (AssertOutOfBounds, OrderEnforcing)) else env


for _name in _LOOP_ATTRIBUTES:
    setattr(AssertOutOfBounds, _name, _forward(_name))
    setattr(OrderEnforcing, _name, _forward(_name, check_reset=True))
# BaseWrapper lets this one private name through, without a reset check
for _cls in (AssertOutOfBounds, OrderEnforcing):
    _cls._cumulative_rewards = _forward("_cumulative_rewards")
del _name, _cls


# ------------------------------------------------------------------------------------------------
# Generated documentation tables (docs/env.md): python -m farmgames.envs.fields_of_green.aec


def docs_markdown(num_players: int = 4) -> str:
    """The generated parts of docs/env.md: action table, observation layout, keywords, game facts."""
    env = raw_env(num_players=num_players, perfect_recall=True)
    lines = [f"### Action table (farm_size 9, base set: {env.layout.size} actions)", "",
             "| kind | first | last | meaning |", "|---|---|---|---|"]
    lines += [f"| `{k}` | {a} | {b} | {m} |" for k, a, b, m in env.layout.table()]
    lines += ["", "### Observation layout", "", env.observer.markdown(), "", "### Keywords", "",
              "| keyword | default | meaning |", "|---|---|---|"]
    meaning = {
        "farm_size": "odd grid size 5..25 (FOG-RUL-8)",
        "card_set": "path of a card-set YAML (data/FORMAT.md); default the base set",
        "fixed_split": "{year: (F, L, C, B)} for every year: no draw decisions (FOG-RUL-3)",
        "pass_directions": "4 entries of clockwise/counterclockwise (or cw/ccw) (FOG-RUL-4)",
        "first_player": "a seat, or None for a seeded random seat (FOG-RUL-28)",
        "auto_single": "apply decisions with exactly one legal action automatically",
        "reward": "`win_loss` (+1 every winner, -1 the others), `score` (final VP) or `margin` (VP minus best opponent)",
        "illegal_action": "`raise` (error, state unchanged) or `terminate` (offender gets the lowest reward, game ends)",
        "perfect_recall": "add `passed`: the hands this agent passed on this year",
    }
    for key, default in {**GAME_KEYWORDS, **ENV_KEYWORDS}.items():
        shown = list(default) if isinstance(default, tuple) else default
        lines.append(f"| `{key}` | `{shown!r}` | {meaning[key]} |")
    lines += ["", "### Game facts (base set)", "", "| players | max decisions per game | max final score |",
              "|---|---|---|"]
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        b = game_bounds(env.cards, n)
        lines.append(f"| {n} | {b['max_decisions']} | {b['max_score']} |")
    return "\n".join(lines)


__all__ = [
    "AssertOutOfBounds", "FieldsOfGreenAECEnv", "FieldsOfGreenBase", "GAME_KEYWORDS", "ENV_KEYWORDS", "OrderEnforcing",
    "VALID_KEYWORDS", "check_variant", "env", "game_bounds", "raw_env",
]


if __name__ == "__main__":  # pragma: no cover
    print(docs_markdown())
