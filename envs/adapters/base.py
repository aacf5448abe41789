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
    a bytearray, see ``write_action_mask``) and what is handed out when buffers are reused (``out``: the
    dict of named views, the flat dict or the flat array, by ``observation_mode``)."""

    __slots__ = ("buf", "bits", "mask", "out")

    def __init__(self, buf: Any, num_actions: int, mode: str):
        self.buf = buf
        self.bits = bytearray(num_actions)
        self.mask = np.frombuffer(self.bits, dtype=np.int8)  # writable view of bits
        if mode == "dict":
            self.out: Any = {"observation": buf.views, "action_mask": self.mask}
        elif mode == "flat_dict":
            self.out = {"observation": buf.flat, "action_mask": self.mask}
        else:
            self.out = buf.flat


def _zero_infos(n: int) -> dict[str, np.ndarray]:
    """The ``fixed`` infos before the end: zeros over ``n`` seats, read-only so that sharing them between
    agents and steps is safe (a write raises instead of changing another agent's info)."""
    arrays: dict[str, np.ndarray] = {
        "winners": np.zeros(n, np.int8),
        "scores": np.zeros(n, np.float32),
        "illegal_action": np.zeros(n, np.int8),
    }
    for a in arrays.values():
        a.flags.writeable = False
    return arrays


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
    # What every step reads lives in slots: an env has ≈ 55 attributes, more than the 30 that CPython 3.11
    # keeps as shared-key instance values, so in the instance dict each ``self.x`` is a dict lookup. The rest
    # (and PettingZoo's own attributes) stay in ``__dict__``; pickling carries both (``__getstate__``).
    __slots__ = (
        "game",
        "observer",
        "_version",
        "_slots",
        "_slot_of",
        "_slot_version",
        "_slot_history",
        "_handed",
        "reuse_buffers",
        "observation_mode",
        "space_n",
        "_terminal_all",
        "_stopped",  # an illegal action ended the game (illegal_action="terminate")
        "_over",  # AEC: every agent is terminated (the game ended or was stopped); they always end together
        "_legal_hook",
        "_mask_zeros",
        "_mask_ones",
        "_recall",
        "_fixed_infos",
        "info_mask",
        "agent_name_mapping",
        "possible_agents",
        "agents",
        "agent_selection",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
        "__dict__",
    )
    agents: list[str]
    _stopped: bool

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
        conv = self.conventions = spec.conventions
        self.observation_mode: str = self.options.get("observation_mode", "dict")
        self.reuse_buffers: bool = bool(self.options.get("reuse_buffers", conv.reuse_buffers))
        self.info_mask: bool = self.observation_mode == "flat" or bool(self.options.get("info_mask", False))
        self._terminal_all = conv.terminal_mask == "all"
        self._fixed_infos = conv.infos == "fixed"
        self.last_illegal: dict[str, Any] | None = None  # the last illegal action (agent, action, message)
        probe = spec.new_game(num_players=n, seed=0, **self._game_kwargs)  # validates the engine keywords
        self.game: Any = probe
        self.layout = getattr(probe, "layout", None)  # the game's action layout, where it has one
        self.num_actions = int(probe.num_actions)
        # the optional mask hooks of the engine (core.protocol.Game): "bytes", "array" or None
        self._legal_hook = (
            "bytes"
            if callable(getattr(probe, "legal_mask_bytes", None))
            else "array"
            if callable(getattr(probe, "legal_action_array", None))
            else None
        )
        own_noop = getattr(probe, "noop_action", None)
        if own_noop is not None:
            self.NOOP: int | None = int(own_noop)
            space_n = self.num_actions
        elif self._appends_noop:
            self.NOOP, space_n = self.num_actions, self.num_actions + 1
        else:
            self.NOOP, space_n = None, self.num_actions
        self.space_n = space_n
        if space_n != self.num_actions:  # an appended NOOP, which the engine's hooks do not cover: the list path
            self._legal_hook = None
        self._mask_zeros, self._mask_ones = bytes(space_n), b"\x01" * space_n  # (write_action_mask)
        self.observer = spec.new_observer(probe, **self._observer_kwargs)
        self._recall = bool(getattr(self.observer, "wants_actions", False))
        self.possible_agents = spec.agents(n)
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._observation_spaces = {a: self._make_observation_space() for a in self.possible_agents}
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
        self._version = 0  # bumped by every reset / step / load_game
        self._make_slots()
        self._zero_infos = _zero_infos(n)
        # perfect recall: the game the observer was reset on and the (seat, action) it saw since, so that
        # a copy of the env (pickle, deepcopy) rebuilds the observer's memory exactly
        self._recall_origin: Any = None
        self._recall_log: list[tuple[int, int]] = []

    def _make_slots(self) -> None:
        n, space_n, mode = self.num_players, self.space_n, self.observation_mode
        self._slots = [[_Slot(self.observer.new_buffer(), space_n, mode) for _ in range(2)] for _ in range(n)]
        self._slot_of = [0] * n
        # per agent: the state its current buffer shows, as (_version, len(game.history)), and what was
        # handed out for it
        self._slot_version: list[Any] = [None] * n
        self._slot_history: list[Any] = [None] * n
        self._handed: list[Any] = [None] * n

    def _make_observation_space(self) -> gymnasium.spaces.Space[Any]:
        """The observation space of one agent for ``observation_mode`` (finite bounds under the
        conventions' ``finite_bounds``: unbounded counts get ``spec.count_high``)."""
        box = gymnasium.spaces.Box
        layout = self.observer.layout
        cap = float(self.spec.count_high) if self.conventions.finite_bounds else None

        def high(values: np.ndarray) -> np.ndarray:
            return values if cap is None else np.where(np.isinf(values), np.float32(cap), values).astype(np.float32)

        mask = box(low=0, high=1, shape=(self.space_n,), dtype=np.int8)
        flat = box(low=0.0, high=high(layout.high()), shape=(layout.size,), dtype=np.float32)
        if self.observation_mode == "flat":
            return flat
        if self.observation_mode == "flat_dict":
            return gymnasium.spaces.Dict({"observation": flat, "action_mask": mask})
        named = gymnasium.spaces.Dict(
            {e.name: box(low=0.0, high=high(e.high), shape=e.shape, dtype=np.float32) for e in layout.entries}
        )
        return gymnasium.spaces.Dict({"observation": named, "action_mask": mask})

    def _observation(self, seat: int) -> Any:
        """``seat``'s observation in ``observation_mode`` (cached while the state is unchanged)."""
        game = self.game
        version, history = self._version, len(game.history)  # robust to direct game.apply() calls too
        if self._slot_history[seat] == history and self._slot_version[seat] == version:
            return self._handed[seat]
        if self.reuse_buffers:
            # the handed-out arrays are the buffers themselves, the two of a seat used alternately, so the
            # previous observation stays valid (inline, not a method of its own: the step's hot path)
            index = self._slot_of[seat] ^ 1
            slot = self._slots[seat][index]
            self.observer.fill(game, seat, slot.buf)
            self.write_action_mask(seat, slot.bits)
            self._slot_of[seat] = index
            out = slot.out
        else:
            # fresh arrays are copies, never written again by the env: one buffer per seat suffices (slot 0),
            # and an incremental observer finds fewer changes since the buffer's last fill
            slot = self._slots[seat][0]
            self.observer.fill(game, seat, slot.buf)
            self.write_action_mask(seat, slot.bits)
            mask = slot.mask.copy()
            mode = self.observation_mode
            if mode == "dict":  # a copy per named array: cheaper than one flat copy plus a view per name
                named = {}
                for name, view in slot.buf.views.items():  # a plain loop: a 3.11 comprehension is a call
                    named[name] = view.copy()
                out = {"observation": named, "action_mask": mask}
            else:
                flat = slot.buf.flat.copy()
                out = {"observation": flat, "action_mask": mask} if mode == "flat_dict" else flat
        # (after the fill: a fill that raises leaves nothing marked current)
        self._slot_version[seat], self._slot_history[seat] = version, history
        self._handed[seat] = out
        return out

    def _ended(self) -> bool:
        """The game is over for every agent (played to the end or stopped by an illegal action)."""
        return bool(self._stopped or self.game.is_terminal())

    def write_action_mask(self, seat: int, bits: bytearray | memoryview) -> None:
        """Write ``seat``'s action mask into ``bits`` (a bytearray or writable byte memoryview of one 0/1
        byte per action): the legal
        actions when it is ``seat``'s decision, none otherwise, all once the game ended under
        ``terminal_mask="all"``. The one definition of a mask: observations, infos and the single-agent env
        all write theirs here. A bytearray because clearing it is one memcpy and setting an index a plain
        Python store, cheaper than numpy calls for a few dozen legal actions; a game whose states have many
        legal actions hands over cached mask bytes or an index array instead (the hooks)."""
        hook = self._legal_hook
        if hook is not None and not self._stopped:  # (no call for hookless games)
            # the engine's optional cached hooks (core.protocol.Game) answer only for the seat that decides
            # now (the current player: in the parallel env the first decider; later pickers of a
            # simultaneous step take the list path), so never once the game ended. Inline, not a method of
            # its own: the step's hot path
            game = self.game
            if game.current_player == seat:
                if hook == "bytes":
                    fast = game.legal_mask_bytes()
                    if len(fast) != self.space_n:
                        raise ValueError(
                            f"legal_mask_bytes() gave {len(fast)} bytes; the action space has {self.space_n}"
                        )
                    bits[:] = fast  # one memcpy
                    return
                bits[:] = self._mask_zeros
                np.frombuffer(bits, np.int8)[game.legal_action_array()] = 1
                return
        if self._terminal_all and (self._stopped or self.game.is_terminal()):  # _ended(), inlined
            bits[:] = self._mask_ones
            return
        bits[:] = self._mask_zeros
        for action in self._mask_actions(seat):
            bits[action] = 1

    def _current_mask(self, seat: int) -> np.ndarray:
        """A fresh int8 mask of ``seat`` (``write_action_mask``)."""
        bits = bytearray(self.space_n)
        self.write_action_mask(seat, bits)
        return np.frombuffer(bits, np.int8)

    def _mask_actions(self, seat: int) -> list[int]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _apply(self, seat: int, action: int) -> None:
        """Apply ``seat``'s action to the engine, with the observer's perfect-recall hooks."""
        if self._recall:
            token = self.observer.before_apply(self.game, seat, action)
            self.game.apply(action)
            self.observer.after_apply(token)
            self._recall_log.append((seat, action))
        else:
            self.game.apply(action)

    def _reset_observer(self, game: Any) -> None:
        self.observer.reset(game)
        if self._recall:
            self._recall_origin, self._recall_log = game.clone(), []

    # ---- copies: pickle, deepcopy, cloudpickle

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the observer and the observation buffers (memoryviews, incremental caches):
        ``__setstate__`` rebuilds them, replaying the observer's perfect-recall hooks where it has them,
        so that a copy steps in lock step with the original."""
        state = {name: getattr(self, name) for name in _SLOT_NAMES if hasattr(self, name)}
        state.update(self.__dict__)
        for name in (
            "observer",
            "_slots",
            "_slot_of",
            "_slot_version",
            "_slot_history",
            "_handed",
            "_zero_infos",
        ):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        game = self.game
        self.observer = self.spec.new_observer(game, **self._observer_kwargs)
        if self._recall and self._recall_origin is not None:
            replayed = self._recall_origin.clone()
            self.observer.reset(replayed)
            for seat, action in self._recall_log:
                token = self.observer.before_apply(replayed, seat, action)
                replayed.apply(action)
                self.observer.after_apply(token)
        else:
            self.observer.reset(game)
        self._make_slots()
        self._zero_infos = _zero_infos(self.num_players)
        if self._fixed_infos and isinstance(state.get("infos"), dict) and self.agents and not self._ended():
            self.infos = self._step_infos(self.agents)  # the shared read-only zeros again (pickle copied them)

    # ---- spaces (the same object every call, as PettingZoo's tests require)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
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
        self._reset_observer(self.game)
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
        self._reset_observer(game)
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
        if self._fixed_infos:
            return self._step_infos(self.possible_agents)
        game = self.game
        scores = game.scores()
        winners = [self.possible_agents[p] for p in game.winners()]
        key = self.spec.score_info_key
        infos: dict[str, dict[str, Any]] = {
            a: {
                "score": scores[i].as_dict(),
                key: scores[i].total,
                "winners": winners,
                "scores": [s.total for s in scores],
            }
            for i, a in enumerate(self.possible_agents)
        }
        return infos

    def _step_infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        """The infos of the ``fixed`` convention: on every step the same numeric keys for every agent:
        ``winners`` (int8 0/1 over seats ``player_0..``; zeros before the end), ``scores`` (float32 final
        scores over seats; zeros before the end), ``illegal_action`` (int8, 1 at the seat whose illegal
        action ended the game), and ``action_mask`` with ``info_mask``. The env never writes an array it
        handed out: before the end the three are shared read-only zeros (nothing to allocate per step);
        at the end each agent gets fresh arrays of its own."""
        game, n = self.game, self.num_players
        ended = game.is_terminal() or self._stopped
        infos: dict[str, dict[str, Any]] = {}
        if not ended:
            zeros = self._zero_infos
            for a in agents:
                info = dict(zeros)
                if self.info_mask:
                    info["action_mask"] = self._current_mask(self.agent_name_mapping[a])
                infos[a] = info
            return infos
        winners = np.zeros(n, np.int8)
        scores = np.zeros(n, np.float32)
        if game.is_terminal():
            winners[list(game.winners())] = 1
            scores[:] = [s.total for s in game.scores()]
        illegal = np.zeros(n, np.int8)
        if self._stopped and self.last_illegal is not None:
            illegal[self.agent_name_mapping[self.last_illegal["agent"]]] = 1
        for a in agents:
            info = {"winners": winners.copy(), "scores": scores.copy(), "illegal_action": illegal.copy()}
            if self.info_mask:
                info["action_mask"] = self._current_mask(self.agent_name_mapping[a])
            infos[a] = info
        return infos

    def _illegal_info(self, agent: str, action: Any, exc: Exception) -> dict[str, Any]:
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            action = int(action)
        elif action is not None:
            action = repr(action)
        return {"agent": agent, "action": action, "message": str(exc)}

    def _illegal_infos(self, agent: str, action: Any, exc: Exception) -> dict[str, dict[str, Any]]:
        """Infos when an illegal action ends the game. The error message (which may list the offender's
        legal actions, i.e. a private hand) goes to the offender only, and to ``env.last_illegal``."""
        detail = self.last_illegal = self._illegal_info(agent, action, exc)
        if self._fixed_infos:
            gymnasium.logger.warn(
                f"{self.spec.env_name}: illegal action {detail['action']!r} by {agent} ends the "
                "game (illegal_action='terminate'); details in env.unwrapped.last_illegal"
            )
            return self._step_infos(self.agents)
        public = {"agent": agent, "action": detail["action"]}
        return {a: {"illegal_action": detail if a == agent else dict(public)} for a in self.agents}

    def record(self) -> dict[str, Any]:
        """The game record (seed, players, variant, actions; ``farmgames.envs.replay`` rebuilds it) plus
        the environment options."""
        rec: dict[str, Any] = self.game.record()
        rec["env"] = {"name": self.spec.env_name, **self.options}
        pins = rec.get("pins")
        if isinstance(pins, dict) and "env" in pins:  # the engine pins its game; the env knows its version
            rec["pins"] = {**pins, "env": self.spec.env_name}
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


_SLOT_NAMES = tuple(name for name in BoardGameEnvBase.__slots__ if name != "__dict__")


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
