"""The PettingZoo AEC environment of any game (the classic-games convention, with action masks).

    >>> from farmgames.envs import fields_of_green_v0
    >>> env = fields_of_green_v0.env(num_players=4)
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter():
    ...     obs, reward, termination, truncation, info = env.last()
    ...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    ...     env.step(action)

``agent_selection`` follows the engine's decision order: the same agent may act several times in a row
when its turn has sub-decisions. Observations are built by the game's observer; the action numbering
is the game's (one ``Discrete`` space).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from ..core.protocol import IllegalActionError
from .base import BoardGameEnvBase, as_index, metadata

__all__ = ["BoardGameAECEnv"]


class BoardGameAECEnv(BoardGameEnvBase, AECEnv):
    """The AEC environment of ``spec``. Build it with ``<game>_v<N>.env()`` (wrapped) or ``raw_env()``."""

    metadata: dict[str, Any] = {"name": "board_game", "render_modes": [], "is_parallelizable": False}

    def __init__(self, num_players: int | None = None, render_mode: str | None = None, **variant: Any):
        super().__init__()
        self._setup(self.spec.default_players if num_players is None else num_players, render_mode, variant)
        self.agents: list[str] = []
        self._stopped = False
        self._over = False

    # ---- PettingZoo API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self._after_load()

    def _after_load(self) -> None:
        self._stopped = self._over = False
        self.last_illegal = None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = (
            self._step_infos(self.agents) if self._fixed_infos else {a: {} for a in self.agents}
        )
        if self.game.is_terminal():
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> Any:
        """``{"observation": {name: float32 array}, "action_mask": int8 array}`` (``observation_mode``
        gives the other shapes). Fresh arrays, never written again by the env; with ``reuse_buffers`` they
        are the env's own buffers instead, valid until this agent is observed in two later states."""
        return self._observation(self.agent_name_mapping[agent])

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``AECEnv.last`` with the observation taken straight from the buffers (no
        ``observe`` dispatch): the same five values."""
        agent = self.agent_selection
        assert agent is not None
        observation = self._observation(self.agent_name_mapping[agent]) if observe else None
        if not self._over:  # a live decision: nobody is terminated and the rewards are all zero until the end
            return observation, 0.0, False, False, self.infos[agent]
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _mask_actions(self, seat: int) -> list[int]:
        game = self.game
        return game.legal_actions() if game.current_player == seat and not self._stopped else []

    def step(self, action: Any) -> None:
        try:
            agent = self.agent_selection
        except AttributeError:  # set by reset()
            raise RuntimeError(f"{self.spec.env_name}: step() called before reset(); call reset() first") from None
        if self._over:  # every agent is terminated together (truncations are never set)
            self._was_dead_step(action)
            return
        game = self.game
        try:
            index = action if type(action) is int else as_index(action)
            if self._recall:
                self._apply(self.agent_name_mapping[agent], index)
            else:
                game.apply(index)  # the engine's legality check
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise
            self._version += 1
            self._terminate_illegal(agent, action, exc)
            return
        self._version += 1
        # rewards are all zero until the end (``_finish`` and ``_terminate_illegal`` replace the dict):
        # there is nothing to clear or accumulate on the other steps, and the acting agent's cumulative
        # reward, which PettingZoo's envs clear here, is still the 0.0 of the reset
        seat = game.current_player  # None exactly when the game is over (core.protocol.Game): no is_terminal call
        if seat is None:
            self._finish()
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[seat]
            if self._fixed_infos and self.info_mask:  # the masks change; without them the infos do not
                self.infos = self._step_infos(self.agents)

    def _finish(self) -> None:
        self.rewards = self._final_rewards()
        self.terminations = {a: True for a in self.agents}
        self._over = True
        self.infos = self._final_infos()

    def _terminate_illegal(self, agent: str, action: Any, exc: Exception) -> None:
        """``illegal_action="terminate"``: the offender gets the illegal-move reward, the game ends for
        all (the engine state stays as it was; masks are empty from now on)."""
        self._stopped = self._over = True
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = float(self.illegal_reward)
        self.terminations = {a: True for a in self.agents}
        self.infos = self._illegal_infos(agent, action, exc)
        self._accumulate_rewards()

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """A fresh int8 mask of ``agent`` (default: the agent to act); all ones once the game ended under
        the ``terminal_mask="all"`` convention."""
        agent = agent or self.agent_selection
        return self._current_mask(self.agent_name_mapping[agent])

    def observation_text(self, agent: str | None = None) -> str:
        """``observer.text`` for ``agent`` (default: the agent to act)."""
        agent = agent or self.agent_selection
        return str(self.observer.text(self.game, self.agent_name_mapping[agent]))

    @classmethod
    def for_spec(cls, spec: Any, name: str, module: str) -> type[BoardGameAECEnv]:
        """A subclass bound to one game (named and placed so that it pickles by reference)."""
        return type(
            name,
            (cls,),
            {
                "spec": spec,
                "metadata": metadata(spec, False),
                "__module__": module,
                "__qualname__": name,
                "__doc__": f"The AEC environment of {spec.title}.",
            },
        )
