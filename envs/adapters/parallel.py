"""The PettingZoo ParallelEnv of any game.

Every live agent submits an action every step. An agent with nothing to decide has a mask whose only
legal action is ``noop`` (``env.unwrapped.NOOP``: the game's own, or one appended after its actions).
Simultaneous decisions (a game with ``deciders()``, e.g. hidden picks) happen in one parallel step:
every deciding seat gets its mask, and the engine applies the choices in its own order; nobody's
observation shows another player's choice before the rules reveal it. Every other decision is one
agent at a time, in the engine's order, so the same game as the AEC env is played.

Illegal submissions: ``illegal_action="raise"`` checks every submitted action before applying any, so an
error leaves the game untouched; ``"terminate"`` ends the game, gives the offender the illegal-move
reward and sets ``info["illegal_action"]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from ..core.protocol import IllegalActionError
from .base import BoardGameEnvBase, as_index, metadata

__all__ = ["BoardGameParallelEnv"]


class BoardGameParallelEnv(BoardGameEnvBase, ParallelEnv):
    """The parallel environment of ``spec``. Build it with ``<game>_v<N>.parallel_env()``."""

    metadata: dict[str, Any] = {"name": "board_game", "render_modes": [], "is_parallelizable": True}
    _appends_noop = True

    def __init__(self, num_players: int | None = None, render_mode: str | None = None, **variant: Any):
        self._setup(self.spec.default_players if num_players is None else num_players, render_mode, variant)
        self.agents: list[str] = []
        self._deciders: list[int] = []
        self._stopped = False
        self._simultaneous = hasattr(self.game, "deciders")

    # ---- who decides now

    def deciders(self) -> list[int]:
        """Seats that must submit a real action this step, in the order the engine applies them."""
        game = self.game
        if game.is_terminal():
            return []
        if self._simultaneous:
            return [int(s) for s in game.deciders()]
        return [int(game.current_player)]

    def _legal_for(self, seat: int) -> list[int]:
        game = self.game
        if seat == game.current_player:
            return list(game.legal_actions())
        return list(game.legal_actions_for(seat))  # a later decider of the same simultaneous step

    # ---- PettingZoo API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self._new_game(seed)
        return self._after_load()

    def load_game(self, game: Any) -> Any:
        """Continue from a given engine state; returns ``(observations, infos)`` like ``reset``."""
        super().load_game(game)
        return self._last_reset

    def _after_load(self) -> Any:
        self._stopped = False
        self.last_illegal = None
        self.agents = self.possible_agents[:]
        self._deciders = self.deciders()
        observations = {a: self._observe(self.agent_name_mapping[a]) for a in self.agents}
        infos: dict[str, dict[str, Any]]
        if self._fixed_infos:
            infos = self._step_infos(self.agents)
        else:
            infos = self._final_infos() if self.game.is_terminal() else {a: {} for a in self.agents}
        self._last_reset = (observations, infos)
        return self._last_reset

    def _observe(self, seat: int) -> Any:
        return self._observation(seat)

    def _mask_actions(self, seat: int) -> list[int]:
        if seat in self._deciders:
            return self._legal_for(seat)
        if self.game.is_terminal() or not self.agents or self.NOOP is None:
            return []
        return [self.NOOP]

    def observe(self, agent: str) -> Any:
        """The agent's current observation (fresh arrays; with ``reuse_buffers`` the env's buffers, valid
        until it is observed in two later states)."""
        return self._observation(self.agent_name_mapping[agent])

    def _check(self, actions: dict[str, Any]) -> dict[int, int] | tuple[str, Any, IllegalActionError]:
        """Every submission checked before anything is applied: the chosen actions by seat, or the
        first offence ``(agent, action, error)``."""
        game = self.game
        chosen: dict[int, int] = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            deciding = seat in self._deciders
            action = actions.get(agent, None if deciding else self.NOOP)
            try:
                if deciding and agent not in actions:
                    raise IllegalActionError(f"{agent} must decide now but submitted no action")
                index = action if type(action) is int else as_index(action)
                legal = self._legal_for(seat) if deciding else [self.NOOP]
                if index not in legal:
                    what = self.describe_action(index, agent) if 0 <= index < self.space_n else "out of range"
                    raise IllegalActionError(
                        f"action {index} ({what}) is not legal for {agent} now; legal: {legal[:20]}"
                        + (" …" if len(legal) > 20 else "")
                    )
            except IllegalActionError as exc:
                return agent, action, exc
            if deciding:
                chosen[seat] = index
        del game
        return chosen

    def step(self, actions: dict[str, Any]) -> Any:
        game = self.game
        if not self.agents:
            when = "before reset()" if self._version == 0 else "after the game ended"
            raise RuntimeError(f"{self.spec.env_name}: step() called {when}; call reset()")
        if not isinstance(actions, dict):
            raise TypeError(
                f"{self.spec.env_name}: step() takes a dict {{agent: action}} (agents {self.agents}), got {actions!r}"
            )
        for key in actions:
            if key not in self.agent_name_mapping:  # a typo must not be ignored
                raise ValueError(
                    f"{self.spec.env_name}: step() got an action for {key!r}, which is not an agent of "
                    f"this game (agents: {', '.join(self.agents)})"
                )
        checked = self._check(actions)  # an error changes nothing
        if isinstance(checked, tuple):
            agent, action, exc = checked
            if self.illegal_action == "raise":
                raise exc
            self._version += 1
            return self._terminate_illegal(agent, action, exc)
        self._version += 1
        for seat in self._deciders:  # in the engine's order
            if game.current_player != seat:  # pragma: no cover - a game whose deciders() lie
                raise RuntimeError(f"engine asks seat {game.current_player}, expected seat {seat}")
            self._apply(seat, checked[seat])
        if game.is_terminal():
            self._deciders = []
            rewards = self._final_rewards()
            infos = self._final_infos()
            agents, self.agents = self.agents, []
            observations = {a: self._observe(self.agent_name_mapping[a]) for a in agents}
            terminations = {a: True for a in agents}
            truncations = {a: False for a in agents}
            return observations, rewards, terminations, truncations, infos
        self._deciders = self.deciders()
        agents, seat_of, observe = self.agents, self.agent_name_mapping, self._observation
        observations = {a: observe(seat_of[a]) for a in agents}
        # fresh dicts every step (callers may keep them); dict.fromkeys builds them in C
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        truncations = dict.fromkeys(agents, False)
        fresh: dict[str, dict[str, Any]] = self._step_infos(agents) if self._fixed_infos else {a: {} for a in agents}
        return observations, rewards, terminations, truncations, fresh

    def _terminate_illegal(self, agent: str, action: Any, exc: Exception) -> Any:
        rewards = {a: 0.0 for a in self.agents}
        rewards[agent] = float(self.illegal_reward)
        self._stopped = True
        infos = self._illegal_infos(agent, action, exc)
        self._deciders = []
        agents, self.agents = self.agents, []
        observations = {a: self._observe(self.agent_name_mapping[a]) for a in agents}
        terminations = {a: True for a in agents}
        truncations = {a: False for a in agents}
        return observations, rewards, terminations, truncations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """A fresh int8 mask of ``agent`` (all ones once the game ended, under ``terminal_mask="all"``)."""
        return self._current_mask(self.agent_name_mapping[agent])

    def observation_text(self, agent: str) -> str:
        return str(self.observer.text(self.game, self.agent_name_mapping[agent]))

    def state(self) -> Any:
        raise NotImplementedError(f"{self.spec.env_name}: use observations (state() is not provided)")

    @classmethod
    def for_spec(cls, spec: Any, name: str, module: str) -> type[BoardGameParallelEnv]:
        """A subclass bound to one game (named and placed so that it pickles by reference)."""
        return type(
            name,
            (cls,),
            {
                "spec": spec,
                "metadata": metadata(spec, True),
                "__module__": module,
                "__qualname__": name,
                "__doc__": f"The parallel environment of {spec.title}.",
            },
        )
