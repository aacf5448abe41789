"""Fields of Green as a single-agent gymnasium env: the learner takes one seat, policies play the others.

    import gymnasium
    import farmgames.envs  # registers the ids

    env = gymnasium.make("farmgames/FieldsOfGreen-v0", num_players=4, opponents="heuristic")
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]                      # also env.unwrapped.action_masks()
    obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

* Observation: the learner's information state flattened into one float32 ``Box`` (the structured
  observation of ``fields_of_green_v0`` through :func:`farmgames.wrappers.flatten_observations`).
* Action: the env's single ``Discrete`` action space; ``action_masks()`` (what sb3-contrib's
  MaskablePPO calls) and ``info["action_mask"]`` give the legal ones.
* Reward: the learner's OWN reward, accumulated from its action until its next decision (or the end of
  the game, which may come on an opponent's move). With the default reward it is +1 for a win, -1 for a
  loss on the final step (ties per FOG-END-13), 0 before; ``reward="score"`` (final VP) /
  ``"margin"`` (VP minus the best opponent's) are passed on to the PettingZoo env like every other
  variant keyword; ``reward_scale`` multiplies the learner's reward (e.g. 0.05 for margins).
* Opponents (one policy per other seat): ``"random"``, ``"heuristic"``, a checkpoint ``.zip`` path,
  ``"module:attribute"``, any object with ``act(observation, action_mask)`` (see
  :mod:`farmgames.training.policy`), a list of those, one per other seat in turn order after the
  learner (seat ``learner+1``, ``learner+2``, …), or a self-play pool
  ``{"pool": "runs/x/pool", "probability": 0.5, "base": "heuristic"}``: with that probability an
  episode's opponents are drawn from the checkpoints in the folder (re-scanned at every reset, so a
  training run can add to it while subprocess workers play), otherwise ``base`` plays.
* ``learner_seat``: a seat number, ``"rotate"`` (the next seat each episode) or ``"random"``.
* An action outside the mask ends the episode with ``illegal_reward`` (default -1) and
  ``info["illegal_action"] = True`` (``illegal_action="raise"`` raises instead); masked policies never
  send one, but gymnasium's and SB3's env checkers do.
* Seeding: ``reset(seed=s)`` makes the episode sequence reproducible (game deals, the learner's seat,
  opponents' random choices). ``reset(options={"game_seed": g, "learner_seat": k})`` fixes one episode.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .flatten import FlattenObservation

__all__ = ["FieldsOfGreenSingleAgentEnv", "CheckpointPool", "env_facts"]

BOT_NAMES = ("random", "heuristic")


def _derive_seed(*parts: int) -> int:
    """A stable 31-bit seed from integers (for opponents' generators)."""
    return zlib.crc32(np.asarray(parts, dtype=np.int64).tobytes()) & 0x7FFFFFFF


def _make_aec(num_players: int, render_mode: str | None, variant: dict):
    from farmgames.envs import fields_of_green_v0

    return FlattenObservation(fields_of_green_v0.raw_env(num_players=num_players, render_mode=render_mode, **variant))


def env_facts(num_players: int = 4, **variant) -> dict:
    """Sizes a checkpoint must match for this game configuration: ``observation_size``, ``action_size``,
    ``num_players``, ``variant``."""
    aec = _make_aec(num_players, None, variant)
    agent = aec.possible_agents[0]
    return {
        "observation_size": int(aec.observation_space(agent)["observation"].shape[0]),
        "action_size": int(aec.action_space(agent).n),
        "num_players": int(num_players),
        "variant": dict(variant),
    }


class CheckpointPool:
    """The ``*.zip`` checkpoints in a folder (self-play pool), loaded lazily and cached."""

    def __init__(self, directory: str | Path, max_size: int | None = None, deterministic: bool = False,
                 torch_threads: int | None = None, env_facts: dict | None = None):
        self.directory = Path(directory)
        self.max_size = max_size
        self.deterministic = deterministic
        self.torch_threads = torch_threads
        self.env_facts = env_facts
        self.paths: list[Path] = []
        self._cache: dict[Path, Any] = {}

    def refresh(self) -> list[Path]:
        stamped = []
        if self.directory.is_dir():
            for path in self.directory.glob("*.zip"):
                try:  # the trainer may prune a file between glob and stat
                    stamped.append((path.stat().st_mtime, path.name, path))
                except FileNotFoundError:
                    continue
        paths = [p for _, _, p in sorted(stamped)]
        if self.max_size:
            paths = paths[-self.max_size:]
        self.paths = paths
        for stale in set(self._cache) - set(paths):
            del self._cache[stale]
        return paths

    def __len__(self) -> int:
        return len(self.paths)

    def policy(self, path: Path, seed: int):
        if path not in self._cache:
            from farmgames.training.policy import MaskablePPOPolicy

            if self.torch_threads:
                import torch

                torch.set_num_threads(self.torch_threads)
            self._cache[path] = MaskablePPOPolicy(path, deterministic=self.deterministic, seed=seed,
                                                  env_facts=self.env_facts)
        return self._cache[path]


class FieldsOfGreenSingleAgentEnv(gymnasium.Env):
    """One learner seat of Fields of Green against policies in the other seats (see module doc)."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "FieldsOfGreen-v0", "render_fps": 4}

    def __init__(
        self,
        num_players: int = 4,
        opponents: Any = "heuristic",
        learner_seat: int | str = "rotate",
        render_mode: str | None = None,
        deterministic_opponents: bool = False,
        torch_threads: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        reward_scale: float = 1.0,
        **variant,
    ):
        super().__init__()
        if isinstance(num_players, bool) or num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if isinstance(learner_seat, str):
            if learner_seat not in ("rotate", "random"):
                raise ValueError(f"learner_seat must be a seat number, 'rotate' or 'random', got {learner_seat!r}")
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) \
                or not 0 <= learner_seat < num_players:
            raise ValueError(f"learner_seat must be a seat 0..{num_players - 1}, 'rotate' or 'random', got {learner_seat!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.reward_scale = float(reward_scale)
        self.num_players = int(num_players)
        self.learner_seat_mode = learner_seat
        self.render_mode = render_mode
        self.variant = dict(variant)
        self.deterministic_opponents = bool(deterministic_opponents)
        self.torch_threads = torch_threads
        self._aec = _make_aec(self.num_players, render_mode, self.variant)
        self.agents = list(self._aec.possible_agents)
        agent0 = self.agents[0]
        self.observation_space = self._aec.observation_space(agent0)["observation"]
        self.action_space = self._aec.action_space(agent0)
        if not isinstance(self.action_space, spaces.Discrete):
            raise TypeError(f"expected a Discrete action space, got {self.action_space}")
        self.facts = {
            "observation_size": int(self.observation_space.shape[0]),
            "action_size": int(self.action_space.n),
            "num_players": self.num_players,
            "variant": dict(self.variant),
        }
        self._base_specs, self._pool, self._pool_probability = self._parse_opponents(opponents)
        self._policy_cache: dict[tuple, Any] = {}
        self._episode = 0
        self._seat_offset = 0
        self.learner_seat: int = learner_seat if isinstance(learner_seat, int) else 0
        self.opponents: dict[int, Any] = {}
        self.opponent_names: dict[int, str] = {}
        self._obs: dict | None = None
        self._done = True
        self._decisions = 0
        self._used_pool = False

    # ------------------------------------------------------------------ opponents

    def _parse_opponents(self, opponents):
        n_other = self.num_players - 1
        pool, probability = None, 0.0
        if isinstance(opponents, dict):
            unknown = set(opponents) - {"pool", "probability", "base", "pool_size"}
            if unknown or "pool" not in opponents:
                raise ValueError(
                    "a self-play opponents mapping has keys pool (folder of .zip checkpoints), probability, base, "
                    f"pool_size; got {sorted(opponents)}"
                )
            probability = float(opponents.get("probability", 0.5))
            if not 0.0 <= probability <= 1.0:
                raise ValueError(f"opponents.probability must be between 0 and 1, got {probability}")
            pool = CheckpointPool(opponents["pool"], max_size=opponents.get("pool_size"),
                                  deterministic=self.deterministic_opponents, torch_threads=self.torch_threads,
                                  env_facts=self.facts)
            opponents = opponents.get("base", "heuristic")
        if isinstance(opponents, CheckpointPool):
            pool, probability, opponents = opponents, 1.0, "heuristic"
        if isinstance(opponents, (list, tuple)):
            specs = list(opponents)
            if len(specs) != n_other:
                raise ValueError(
                    f"opponents lists one policy per other seat: {n_other} for {self.num_players} players, got {len(specs)}"
                )
        else:
            specs = [opponents] * n_other
        for spec in specs:
            self._check_spec(spec)
        return specs, pool, probability

    def _check_spec(self, spec) -> None:
        if hasattr(spec, "act"):
            return
        if not isinstance(spec, (str, Path)):
            raise ValueError(f"an opponent is 'random', 'heuristic', a checkpoint path, 'module:attribute' or a "
                             f"policy object with act(observation, action_mask); got {spec!r}")
        text = str(spec)
        if text in BOT_NAMES or ":" in text:
            return
        from farmgames.training.policy import check_compatible, checkpoint_metadata

        check_compatible(text, checkpoint_metadata(text), self.facts)  # early, clear errors

    def _policy_for(self, spec, relative: int, seed: int):
        """A policy object for an opponent spec (cached; bots get one object per relative seat)."""
        if hasattr(spec, "act"):
            return spec
        text = str(spec)
        key = (text, relative) if text in BOT_NAMES else (text,)
        policy = self._policy_cache.get(key)
        if policy is None:
            from farmgames.training.policy import load_policy

            if text not in BOT_NAMES and self.torch_threads:
                import torch

                torch.set_num_threads(self.torch_threads)
            policy = load_policy(text, seed=seed, deterministic=self.deterministic_opponents, env_facts=self.facts)
            self._policy_cache[key] = policy
        return policy

    def _choose_opponents(self, game_seed: int) -> None:
        use_pool = False
        self._used_pool = False
        if self._pool is not None and self._pool_probability > 0:
            self._pool.refresh()
            use_pool = len(self._pool) > 0 and self.np_random.random() < self._pool_probability
        self._used_pool = use_pool
        game = self._aec.unwrapped.game
        self.opponents, self.opponent_names = {}, {}
        for relative in range(1, self.num_players):
            seat = (self.learner_seat + relative) % self.num_players
            seed = _derive_seed(game_seed, seat)
            policy = None
            if use_pool:
                path = self._pool.paths[int(self.np_random.integers(len(self._pool)))]
                try:
                    policy, name = self._pool.policy(path, seed), str(path)
                except Exception:  # noqa: BLE001
                    if path.exists():  # a real problem (e.g. another network): say so
                        raise
                    policy = None  # pruned by the trainer meanwhile: the base opponent plays this seat
            if policy is None:
                spec = self._base_specs[relative - 1]
                policy = self._policy_for(spec, relative, seed)
                name = getattr(policy, "name", None) or str(spec)
            if hasattr(policy, "reset"):
                policy.reset(seed=seed)
            if hasattr(policy, "attach"):
                policy.attach(game, seat)
            self.opponents[seat] = policy
            self.opponent_names[seat] = name

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"game_seed", "learner_seat"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; valid: game_seed, learner_seat")
        if seed is not None:
            self._episode = 0
            self._seat_offset = int(self.np_random.integers(self.num_players))
        game_seed = options.get("game_seed")
        if game_seed is None:
            game_seed = int(self.np_random.integers(2**31 - 1))
        seat = options.get("learner_seat")
        if seat is None:
            if self.learner_seat_mode == "rotate":
                seat = (self._seat_offset + self._episode) % self.num_players
            elif self.learner_seat_mode == "random":
                seat = int(self.np_random.integers(self.num_players))
            else:
                seat = int(self.learner_seat_mode)
        if not 0 <= int(seat) < self.num_players:
            raise ValueError(f"learner_seat must be a seat 0..{self.num_players - 1}, got {seat!r}")
        self.learner_seat = int(seat)
        self._learner_agent = self.agents[self.learner_seat]
        self._episode += 1
        self.game_seed = int(game_seed)
        self._aec.reset(seed=self.game_seed)
        self._choose_opponents(self.game_seed)
        self._done = False
        self._decisions = 0
        self._play_opponents()  # the learner's reward is 0 before its first decision
        if self._done:  # cannot happen in Fields of Green: every player decides in year 1
            raise RuntimeError("the game ended before the learner's first decision")
        return self._learner_obs(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        agent = self._learner_agent
        if self._aec.agent_selection != agent:
            raise RuntimeError(f"internal error: it is {self._aec.agent_selection}'s decision, not the learner's")
        action = int(action)
        mask = self._mask()
        if not (0 <= action < len(mask) and mask[action]):
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action} for the learner (seat {self.learner_seat}); legal: "
                    f"{np.flatnonzero(mask).tolist()}"
                )
            # the game is abandoned: the episode ends with the illegal-action penalty (MaskablePPO never
            # gets here; gymnasium's and SB3's env checkers do, with unmasked random actions)
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._obs["observation"].copy(), self.illegal_reward, True, False, info
        reward = self._aec_step(action)
        self._decisions += 1
        self._done = self._game_over()
        if not self._done:
            reward += self._play_opponents()
        return self._learner_obs(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool), for sb3-contrib's MaskablePPO."""
        return np.asarray(self._mask(), dtype=bool)

    def render(self):
        return self._aec.render()

    def close(self):
        self._aec.close()

    @property
    def game(self):
        """The engine ``Game`` being played."""
        return self._aec.unwrapped.game

    # ------------------------------------------------------------------ internals

    def _game_over(self) -> bool:
        return self.game.is_terminal()

    def _aec_step(self, action: int) -> float:
        """One step of the PettingZoo env (whoever's decision it is); returns the LEARNER's reward from
        that step, never the reward of the agent that moved."""
        self._aec.step(action)
        return float(self._aec.rewards.get(self._learner_agent, 0.0)) * self.reward_scale

    def _play_opponents(self) -> float:
        """Let the other seats decide until it is the learner's turn or the game ends; returns the
        learner's reward accumulated meanwhile."""
        aec = self._aec
        learner = self._learner_agent
        game = self.game
        reward = 0.0
        while not game.is_terminal() and aec.agent_selection != learner:
            agent = aec.agent_selection
            seat = self.agents.index(agent)
            policy = self.opponents[seat]
            if getattr(policy, "needs_observation", True):
                obs = aec.observe(agent)
                action = policy.act(obs["observation"], obs["action_mask"])
            else:
                action = policy.act(None, game.legal_mask().astype(np.int8))
            reward += self._aec_step(int(action))
        self._done = game.is_terminal()
        return reward

    def _learner_obs(self) -> np.ndarray:
        self._obs = self._aec.observe(self._learner_agent)
        return self._obs["observation"]

    def _mask(self) -> np.ndarray:
        if self._obs is None:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return self._obs["action_mask"]

    def _info(self) -> dict:
        info = {"action_mask": np.array(self._mask(), dtype=np.int8), "learner_seat": self.learner_seat}
        if self._done and self.game.is_terminal():
            game = self.game
            scores = [s.total for s in game.scores()]
            winners = game.winners()
            me = self.learner_seat
            best_other = max(s for i, s in enumerate(scores) if i != me)
            info.update({
                "scores": scores,
                "winners": winners,
                "learner_won": me in winners,
                "learner_vp": scores[me],
                "learner_margin": scores[me] - best_other,
                "returns": list(game.returns()),
                "decisions": self._decisions,
                "opponents": dict(self.opponent_names),
                "pool_opponents": self._used_pool,
                "game_seed": self.game_seed,
            })
        return info
