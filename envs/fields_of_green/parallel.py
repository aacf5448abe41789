"""Fields of Green as a PettingZoo ParallelEnv.

Every live agent submits an action every step. An agent with nothing to decide has a mask whose only
legal action is ``noop`` (``env.unwrapped.NOOP``). The simultaneous hidden picks of 3-4 players happen
in one parallel step: every player still to pick this turn gets its pick mask, and the engine applies
the picks in its own order (seat order from the first player, FOG-RUL-15); nobody's observation shows
another player's pick before the reveal. Every other decision is one agent at a time, in the engine's
order (the others get NOOP-only masks), so the same game as the AEC env is played.

Illegal submissions: ``illegal_action="raise"`` checks every submitted action before applying any, so an
error leaves the game untouched; ``"terminate"`` ends the game, gives the offender the illegal-move
reward and sets ``info["illegal_action"]`` (FOG-RUL-16).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from .aec import RENDER_MODES, FieldsOfGreenBase, _as_index
from .game import IllegalActionError


class FieldsOfGreenParallelEnv(FieldsOfGreenBase, ParallelEnv):
    """The parallel environment. Build it with ``fields_of_green_v0.parallel_env()``."""

    metadata = {
        "name": "fields_of_green_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def __init__(self, num_players: int = 4, render_mode: str | None = None, **variant: Any):
        self._setup(num_players, render_mode, variant)
        self.agents: list[str] = []
        self._deciders: list[int] = []

    # ---- who decides now

    def deciders(self) -> list[int]:
        """Seats that must submit a real action this step, in the order the engine applies them."""
        game = self.game
        frame = game.decision
        if frame is None:
            return []
        seat = frame[1]
        if frame[0] != "pick" or game.two_player:
            return [seat]
        # FOG-RUL-15: picks are collected in seat order from the first player; the seats still to pick
        # this turn are those after the current one in that order that have not picked yet.
        n = self.num_players
        first = game.first_player
        order = [(first + i) % n for i in range(n)]
        out = [seat]
        for q in order[order.index(seat) + 1:]:
            hand = game.hands[q]
            if game.picks[q] is None and hand and not (game.auto_single and len(hand) == 1):
                out.append(q)  # (a single-card hand is auto-picked by the engine with auto_single)
        return out

    def _legal_for(self, seat: int) -> list[int]:
        game = self.game
        if seat == game.current_player:
            return game.legal_actions()
        # a later picker of the same turn: its own hand, untouched by the earlier picks
        return [self.layout.PICK + i for i in range(len(game.hands[seat]))]

    # ---- PettingZoo API

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        return self._after_load()

    def load_game(self, game) -> tuple[dict, dict]:
        """Continue from a given engine state; returns ``(observations, infos)`` like ``reset``."""
        super().load_game(game)
        return self._last_reset

    def _after_load(self):
        self.agents = self.possible_agents[:]
        self._deciders = self.deciders()
        observations = {a: self._observe(self.agent_name_mapping[a]) for a in self.agents}
        infos = self._final_infos() if self.game.is_terminal() else {a: {} for a in self.agents}
        self._last_reset = (observations, infos)
        return self._last_reset

    def _observe(self, seat: int) -> dict[str, Any]:
        return self._observation(seat)

    def _mask_actions(self, seat: int) -> list[int]:
        if seat in self._deciders:
            return self._legal_for(seat)
        return [] if self.game.is_terminal() or not self.agents else [self.NOOP]

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's current observation (arrays valid until it is observed in two later states)."""
        return self._observation(self.agent_name_mapping[agent])

    def step(self, actions: dict[str, Any]):
        game = self.game
        if not self.agents:
            raise RuntimeError("step() called after the game ended; call reset()")
        # 1. check every submission before applying anything (FOG-RUL-16: an error changes nothing)
        chosen: dict[int, int] = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            deciding = seat in self._deciders
            action = actions.get(agent, None if deciding else self.NOOP)
            try:
                if deciding and agent not in actions:
                    raise IllegalActionError(f"{agent} must decide ({game.decision_kind}) but submitted no action")
                index = action if type(action) is int else _as_index(action)
                if deciding:
                    legal = self._legal_for(seat)
                    ok = index in legal
                else:  # only NOOP is legal
                    ok = index == self.NOOP
                if not ok:
                    legal = legal if deciding else [self.NOOP]
                    what = self.describe_action(index, agent) if 0 <= index < self.layout.size else "out of range"
                    raise IllegalActionError(
                        f"action {index} ({what}) is not legal for {agent} now; legal: {legal[:20]}"
                        + (" …" if len(legal) > 20 else "")
                    )
            except IllegalActionError as exc:
                if self.illegal_action == "raise":
                    raise
                self._version += 1
                return self._terminate_illegal(agent, action, exc)
            if deciding:
                chosen[seat] = index
        self._version += 1
        # 2. apply in the engine's order (later pickers may have been auto-applied with auto_single)
        for seat in self._deciders:
            if game.current_player != seat:
                raise RuntimeError(f"engine asks seat {game.current_player}, expected seat {seat}")  # pragma: no cover
            pick = self.observer.pick_context(game, seat)
            game.apply(chosen[seat])
            if pick is not None:
                self.observer.note_pick(*pick, chosen[seat] - self.layout.PICK)
        # 3. results
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
        infos = {a: {} for a in agents}
        return observations, rewards, terminations, truncations, infos

    def _terminate_illegal(self, agent: str, action: Any, exc: Exception):
        rewards = {a: 0.0 for a in self.agents}
        rewards[agent] = float(self.illegal_reward)
        info = self._illegal_info(agent, action, exc)
        infos = {a: {"illegal_action": info} for a in self.agents}
        self._deciders = []
        agents, self.agents = self.agents, []
        observations = {a: self._observe(self.agent_name_mapping[a]) for a in agents}
        terminations = {a: True for a in agents}
        truncations = {a: False for a in agents}
        return observations, rewards, terminations, truncations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """A fresh int8 mask of ``agent``."""
        mask = np.zeros(self.layout.size, np.int8)
        legal = self._mask_actions(self.agent_name_mapping[agent])
        if legal:
            mask[legal] = 1
        return mask

    def observation_text(self, agent: str) -> str:
        return self.observer.text(self.game, self.agent_name_mapping[agent])

    def state(self):
        raise NotImplementedError("fields_of_green_v0 has imperfect information: use observations")


def parallel_env(num_players: int = 4, render_mode: str | None = None, **variant: Any) -> FieldsOfGreenParallelEnv:
    return FieldsOfGreenParallelEnv(num_players=num_players, render_mode=render_mode, **variant)


__all__ = ["FieldsOfGreenParallelEnv", "parallel_env"]
