"""A game played in the browser: one human seat, every other seat a bot or a policy.

The game runs in the game's flat AEC env (as in :class:`farmgames.training.arena.Arena`), so a checkpoint
sees the same observation it was trained on. Opponents come from a *resolver*
``(name, seat, seed, facts) -> Policy``: the default knows only the game's bots (``SPEC.bots``); the
``view`` command passes one that also loads ``.zip`` checkpoints and ``module:attribute`` policies.
After each human action the bots move until it is the human's turn again or the game is over.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from farmgames.envs.core.seeding import derive_seed

from .frames import Frames, Timeline

Resolver = Callable[[str, int, int, dict[str, Any]], Any]


def bot_resolver(spec: Any) -> Resolver:
    """A resolver that knows only the game's own bots (no checkpoints)."""
    from farmgames.wrappers.policies import BotPolicy

    def resolve(name: str, seat: int, seed: int, facts: dict[str, Any]) -> Any:
        if name not in spec.bots:
            raise ValueError(f"unknown opponent {name!r} for {spec.name}: use one of {', '.join(sorted(spec.bots))}")
        return BotPolicy(spec, name, seed=seed)

    return resolve


class PlaySession:
    """One live game: ``act(action)`` for the human, bots answer at once; thread-safe."""

    def __init__(
        self,
        spec: Any,
        num_players: int,
        human: int,
        opponents: list[str],
        seed: int = 0,
        variant: dict[str, Any] | None = None,
        resolver: Resolver | None = None,
    ):
        from farmgames.wrappers.single_agent import make_flat_aec

        if not 0 <= human < num_players:
            raise ValueError(f"--human must be a seat 0..{num_players - 1}, got {human}")
        if len(opponents) != num_players - 1:
            raise ValueError(f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}")
        self.spec = spec
        self.human = int(human)
        self.seed = int(seed)
        self.variant = dict(variant or {})
        self.lock = threading.RLock()
        self.env = make_flat_aec(spec.name, num_players, None, **self.variant)
        self.env.reset(seed=self.seed)
        self.game = self.env.unwrapped.game
        agent = self.env.possible_agents[0]
        facts = {
            "game": spec.name,
            "observation_size": int(self.env.observation_space(agent)["observation"].shape[0]),
            "action_size": int(self.env.action_space(agent).n),
            "num_players": num_players,
            "variant": dict(self.variant),
        }
        resolve = resolver or bot_resolver(spec)
        self.names: list[str] = []
        self.policies: list[Any] = []
        others = iter(opponents)
        for seat in range(num_players):
            if seat == self.human:
                self.names.append("you")
                self.policies.append(None)
                continue
            name = next(others)
            policy = resolve(name, seat, derive_seed(self.seed, seat), facts)
            if hasattr(policy, "reset"):
                policy.reset(seed=derive_seed(self.seed, seat))
            if hasattr(policy, "attach"):
                policy.attach(self.game, seat)
            self.names.append(name)
            self.policies.append(policy)
        self.timeline = Timeline(spec, self.env.unwrapped.record())
        self.frames = Frames(self.timeline, seats=[f"player {p} ({n})" for p, n in enumerate(self.names)])
        self.advance()

    @property
    def over(self) -> bool:
        return bool(self.game.is_terminal())

    def _step(self, action: int) -> None:
        self.env.step(int(action))
        self.timeline.append(int(action))

    def advance(self, limit: int = 100_000) -> int:
        """Let the bots play until the human decides or the game ends; returns how many moved."""
        moved = 0
        with self.lock:
            while not self.over and self.game.current_player != self.human and moved < limit:
                seat = self.game.current_player
                policy = self.policies[seat]
                agent = self.env.agent_selection
                if getattr(policy, "needs_observation", True):
                    obs = self.env.observe(agent)
                    action = policy.act(obs["observation"], obs["action_mask"])
                else:
                    action = policy.act(None, self.game.legal_mask().astype(np.int8))
                self._step(int(action))
                moved += 1
        return moved

    def act(self, action: int) -> None:
        """The human's action (ValueError if it is not their turn or not legal), then the bots'."""
        with self.lock:
            if self.over:
                raise ValueError("the game is over")
            if self.game.current_player != self.human:
                raise ValueError(f"it is player {self.game.current_player}'s turn, not yours")
            if int(action) not in self.game.legal_actions():
                raise ValueError(f"action {action} is not legal now")
            self._step(int(action))
        self.advance()

    def record(self) -> dict[str, Any]:
        with self.lock:
            rec: dict[str, Any] = self.env.unwrapped.record()
            rec["seats"] = list(self.names)
            return rec

    def close(self) -> None:
        self.env.close()


__all__ = ["PlaySession", "Resolver", "bot_resolver"]
