"""What the AEC and parallel environments of every game share (no pettingzoo API here).

``BoardGameEnvBase`` reads a :class:`~farmgames.envs.core.spec.GameSpec`: keywords are checked from its
table, the engine and observer are built by its factories, spaces come from the observer's
:class:`~farmgames.envs.core.observation.ObservationLayout`, rewards from ``core.scoring``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np

from ..core import scoring
from ..core.protocol import IllegalActionError
from ..core.seeding import check_seed
from ..core.spec import GameSpec
from ..core.variants import RENDER_MODES, check_keywords

__all__ = ["BoardGameEnvBase", "as_index"]


class _Slot:
    """One observation buffer of an agent: the observer's buffer, the action mask (an int8 array over
    a bytearray, see ``_observation``) and the dict handed out."""

    __slots__ = ("buf", "bits", "zeros", "mask", "obs")

    def __init__(self, buf: Any, num_actions: int):
        self.buf = buf
        self.bits = bytearray(num_actions)
        self.zeros = bytes(num_actions)
        self.mask = np.frombuffer(self.bits, dtype=np.int8)  # writable view of bits
        self.obs = {"observation": buf.views, "action_mask": self.mask}


def as_index(action: Any) -> int:
    """An action as a plain int, or IllegalActionError (None, floats with fractions, arrays …)."""
    if isinstance(action, (bool, np.bool_)) or action is None:
        raise IllegalActionError(f"action must be an integer index, got {action!r}")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    raise IllegalActionError(f"action must be an integer index, got {action!r}")


class BoardGameEnvBase:
    """Everything the AEC and parallel environments share, for the game of ``spec``."""

    spec: ClassVar[GameSpec]
    #: the parallel env appends a ``noop`` action when the game has none of its own
    _appends_noop: ClassVar[bool] = False

    def _setup(self, num_players: Any, render_mode: str | None, variant: dict[str, Any]) -> None:
        spec = self.spec
        n, self._game_kwargs, self._observer_kwargs, self.options = check_keywords(
            spec, num_players, render_mode, variant
        )
        self.options = {**self.options, **self._observer_kwargs}
        for name, value in self._observer_kwargs.items():  # e.g. env.perfect_recall
            setattr(self, name, value)
        self.num_players = n
        self.min_players, self.max_players = spec.min_players, spec.max_players
        self.render_mode = render_mode
        self.reward_mode = self.options["reward"]
        self.illegal_action = self.options["illegal_action"]
        probe = spec.new_game(num_players=n, seed=0, **self._game_kwargs)  # validates the engine keywords
        self.game: Any = probe
        self.layout = getattr(probe, "layout", None)  # the game's action layout, where it has one
        self.num_actions = int(probe.num_actions)
        own_noop = getattr(probe, "noop_action", None)
        if own_noop is not None:
            self.NOOP: int | None = int(own_noop)
            space_n = self.num_actions
        elif self._appends_noop:
            self.NOOP, space_n = self.num_actions, self.num_actions + 1
        else:
            self.NOOP, space_n = None, self.num_actions
        self.space_n = space_n
        self.observer = spec.new_observer(probe, **self._observer_kwargs)
        self._recall = bool(getattr(self.observer, "wants_actions", False))
        self.possible_agents = spec.agents(n)
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        box = gymnasium.spaces.Box
        entries = self.observer.layout.entries
        self._observation_spaces = {  # one space object per agent (PettingZoo seeds them one by one)
            a: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Dict({
                    e.name: box(low=0.0, high=e.high, shape=e.shape, dtype=np.float32) for e in entries
                }),
                "action_mask": box(low=0, high=1, shape=(space_n,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self._action_spaces = {a: gymnasium.spaces.Discrete(space_n) for a in self.possible_agents}
        bounds = spec.bounds(probe)
        self.max_decisions = int(bounds.max_decisions)
        self.max_score = bounds.max_score
        self.min_score = bounds.min_score
        self.reward_range = scoring.reward_range(self.reward_mode, bounds.min_score, bounds.max_score)
        self.illegal_reward = self.reward_range[0]
        self._np_random: np.random.Generator | None = None
        # Observation memory: two buffers per agent, used alternately, so an agent's previous and
        # current observations are both valid (obs / next_obs pairs); see the env docs.
        self._slots = [[_Slot(self.observer.new_buffer(), space_n) for _ in range(2)] for _ in range(n)]
        self._slot_of = [0] * n
        # per agent: the state its current buffer shows, as (_version, len(game.history))
        self._slot_version: list[Any] = [None] * n
        self._slot_history: list[Any] = [None] * n
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

    def _apply(self, seat: int, action: int) -> None:
        """Apply ``seat``'s action to the engine, with the observer's perfect-recall hooks."""
        if self._recall:
            token = self.observer.before_apply(self.game, seat, action)
            self.game.apply(action)
            self.observer.after_apply(token)
        else:
            self.game.apply(action)

    # ---- spaces (the same object every call, as PettingZoo's tests require)

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        return self._action_spaces[agent]

    # ---- game facts

    def game_facts(self) -> dict[str, Any]:
        """OpenSpiel-style facts: players, bounds on decisions per game and on rewards."""
        return {
            "name": self.spec.env_name,
            "num_players": self.num_players,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "num_actions": self.space_n,
            "max_decisions": self.max_decisions,
            "max_score": self.max_score,
            "reward": self.reward_mode,
            "reward_range": self.reward_range,
            "illegal_reward": self.illegal_reward,
            "zero_sum": False,
            "information": self.spec.information,
            "chance": "sampled from the seed",
        }

    # ---- games and seeds

    def _new_game(self, seed: int | None) -> Any:
        """reset(seed=s) plays the game Game(seed=s); reset() draws the next game seed from a generator
        seeded at the last seeded reset (or from entropy if never seeded)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise ValueError(f"seed must be an integer or None, got {seed!r}")
            check_seed(seed, "reset(seed=...)")
            self._np_random = np.random.default_rng(int(seed))
            game_seed = int(seed)
        else:
            if self._np_random is None:
                self._np_random = np.random.default_rng()
            game_seed = int(self._np_random.integers(0, 2**31 - 1))
        self.game = self.spec.new_game(num_players=self.num_players, seed=game_seed, **self._game_kwargs)
        self.observer.reset(self.game)
        self._version += 1
        return self.game

    def load_game(self, game: Any) -> None:
        """Continue from a given engine state (a scenario, ``from_json``, a clone …): the next
        observations and masks describe it. The game must match this env's players and variant
        (``same_setup``, where the game has it). Call it after ``reset()``."""
        same = game.num_players == self.num_players and int(game.num_actions) == self.num_actions
        check = getattr(self.game, "same_setup", None)
        if same and check is not None:
            same = bool(check(game))
        if not same:
            raise ValueError(f"load_game: the game's players or variant do not match this {self.spec.env_name} env")
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
        seat = self.agent_name_mapping[agent] if agent is not None else game.current_player
        for_seat = getattr(game, "describe_action_for", None)
        if for_seat is not None and seat is not None:
            return str(for_seat(action, seat))
        return str(game.describe_action(action))

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
        values = scoring.rewards(self.reward_mode, totals, game.returns())
        return {a: float(values[i]) for i, a in enumerate(self.possible_agents)}

    def _final_infos(self) -> dict[str, dict[str, Any]]:
        game = self.game
        scores = game.scores()
        winners = [self.possible_agents[p] for p in game.winners()]
        key = self.spec.score_info_key
        infos: dict[str, dict[str, Any]] = {
            a: {"score": scores[i].as_dict(), key: scores[i].total, "winners": winners,
                "scores": [s.total for s in scores]}
            for i, a in enumerate(self.possible_agents)
        }
        return infos

    def _illegal_info(self, agent: str, action: Any, exc: Exception) -> dict[str, Any]:
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            action = int(action)
        elif action is not None:
            action = repr(action)
        return {"agent": agent, "action": action, "message": str(exc)}

    def record(self) -> dict[str, Any]:
        """The game record (seed, players, variant, actions; ``farmgames.envs.replay`` rebuilds it) plus
        the environment options."""
        rec: dict[str, Any] = self.game.record()
        rec["env"] = {"name": self.spec.env_name, **self.options}
        return rec

    # ---- render

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        spec = self.spec
        viewer = self.game.current_player
        if self.render_mode == "rgb_array":
            if spec.render_rgb is None:
                raise NotImplementedError(f"{spec.env_name} has no rgb_array render")
            return spec.render_rgb(self.game)
        if spec.render_ansi is None:
            raise NotImplementedError(f"{spec.env_name} has no text render")
        text = spec.render_ansi(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.spec.env_name


def metadata(spec: GameSpec, parallelizable: bool) -> dict[str, Any]:
    return {
        "name": spec.env_name,
        "render_modes": list(RENDER_MODES),
        # PettingZoo's generic aec_to_parallel needs agents to act once per cycle in a fixed order; in
        # these games one agent may act several times in a row, so that wrapper does not apply. Use the
        # game's parallel_env() (or parallel_to_aec of it) instead.
        "is_parallelizable": parallelizable,
        "render_fps": spec.render_fps,
    }
