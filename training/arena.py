"""Play complete games between Policy objects (one per seat): the engine behind evaluate and league.

The game (any registered one) runs in its PettingZoo AEC env with flattened observations, so a policy
sees exactly what a learner in :class:`farmgames.wrappers.SingleAgentEnv` sees. Ranks come from
:func:`farmgames.envs.core.scoring.ranks` over the games' tie-break keys.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from farmgames.envs import get_spec
from farmgames.envs.core.scoring import ranks
from farmgames.envs.core.seeding import derive_seed
from farmgames.wrappers.single_agent import make_flat_aec

from .games import DEFAULT_GAME

__all__ = ["Arena", "GameResult", "derive_seed", "wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); (0, 1) when n == 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class GameResult:
    seed: int
    scores: list[Any]  # final score per seat
    winners: list[int]  # seats that win (several when still tied after the game's tie-breaks)
    ranks: list[int]  # 1 = best; equal tie-break keys share a rank
    returns: list[float]
    decisions: int
    names: list[str] = field(default_factory=list)
    record: dict = field(default_factory=dict)  # the game record (replays; opens in farmgames view)

    def as_dict(self) -> dict:
        return asdict(self)


class Arena:
    """Reusable table for one game configuration (game, players, variant)."""

    def __init__(self, num_players: int = 2, game: str = DEFAULT_GAME, **variant: Any):
        self.spec = get_spec(game)
        self.num_players = int(num_players)
        self.variant = dict(variant)
        self.env = make_flat_aec(game, self.num_players, None, **self.variant)
        agent = self.env.possible_agents[0]
        self.facts = {
            "game": self.spec.name,
            "env": self.spec.env_name,
            "observation_size": int(self.env.observation_space(agent)["observation"].shape[0]),
            "action_size": int(self.env.action_space(agent).n),
            "num_players": self.num_players,
            "variant": dict(self.variant),
        }

    def play(self, policies: list, seed: int, names: list[str] | None = None) -> GameResult:
        if len(policies) != self.num_players:
            raise ValueError(f"{self.num_players} players need {self.num_players} policies, got {len(policies)}")
        env = self.env
        env.reset(seed=int(seed))
        game = env.unwrapped.game
        agents = list(env.possible_agents)
        for seat, policy in enumerate(policies):
            if hasattr(policy, "reset"):
                policy.reset(seed=derive_seed(seed, seat))
            if hasattr(policy, "attach"):
                policy.attach(game, seat)
        decisions = 0
        while not game.is_terminal():
            agent = env.agent_selection
            seat = agents.index(agent)
            policy = policies[seat]
            if getattr(policy, "needs_observation", True):
                obs = env.observe(agent)
                action = policy.act(obs["observation"], obs["action_mask"])
            else:
                action = policy.act(None, game.legal_mask().astype(np.int8))
            try:
                env.step(int(action))
            except ValueError as exc:  # IllegalActionError: name the policy that chose it
                who = (names or [None] * len(policies))[seat] or getattr(policy, "name", None) or type(policy).__name__
                raise ValueError(
                    f"policy {who} (seat {seat}, game seed {seed}) chose an illegal action: {exc}"
                ) from exc
            decisions += 1
        scores = game.scores()
        return GameResult(
            seed=int(seed),
            scores=[s.total for s in scores],
            winners=list(game.winners()),
            ranks=ranks([s.key for s in scores]),
            returns=[float(r) for r in game.returns()],
            decisions=decisions,
            names=list(names or []),
            record=game.record(),
        )

    def close(self) -> None:
        self.env.close()
