"""Any farmgames game as a single-agent gymnasium env: the learner takes one seat, policies play the others.

    import gymnasium
    import farmgames.envs  # registers the ids

    env = gymnasium.make("farmgames/FieldsOfGreen-v0", num_players=4, opponents="heuristic")
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]                      # also env.unwrapped.action_masks()
    obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

    from farmgames.wrappers import SingleAgentEnv
    env = SingleAgentEnv(game="fields_of_green", num_players=2, opponents="random")

* Game: any registered game (``"fields_of_green"`` = its newest version, or ``"fields_of_green_v0"``);
  players from the game's spec (``SPEC.min_players .. SPEC.max_players``, default ``SPEC.default_players``).
* Observation: the learner's information state flattened into one float32 ``Box`` (the structured
  observation of the game's AEC env through :func:`farmgames.wrappers.flatten_observations`).
* Action: the env's single ``Discrete`` action space; ``action_masks()`` (what sb3-contrib's
  MaskablePPO calls) and ``info["action_mask"]`` give the legal ones.
* Reward: the learner's OWN reward, accumulated from its action until its next decision (or the end of
  the game, which may come on an opponent's move). With the default reward it is +1 for a win, -1 for a
  loss on the final step (shared wins count for every winner), 0 before; ``reward="score"`` (final
  score) / ``"margin"`` (score minus the best opponent's) are passed on to the PettingZoo env like every
  other variant keyword; ``reward_scale`` multiplies the learner's reward (e.g. 0.05 for margins).
* Opponents (one per other seat): a bot name of the game (``SPEC.bots``, e.g. ``"random"``,
  ``"heuristic"``), ``"module:attribute"``, any Policy object (``act(observation, action_mask)``, see
  :mod:`farmgames.wrappers.policies`), a list of those, one per other seat in turn order after the
  learner (seat ``learner+1``, ``learner+2``, …), or an :class:`~farmgames.wrappers.policies.OpponentPool`
  (drawn per episode). Anything else — checkpoint paths, self-play pool mappings
  ``{"pool": "runs/x/pool", "probability": 0.5, "base": "heuristic"}`` — goes through ``resolver``
  (``farmgames.training.policy.resolve_opponent`` understands both); the wrappers never import training.
* ``learner_seat``: a seat number, ``"rotate"`` (the next seat each episode) or ``"random"``.
* An action outside the mask ends the episode with ``illegal_reward`` (default -1) and
  ``info["illegal_action"] = True`` (``illegal_action="raise"`` raises instead); masked policies never
  send one, but gymnasium's and SB3's env checkers do.
* Seeding: ``reset(seed=s)`` makes the episode sequence reproducible (game deals, the learner's seat,
  opponents' random choices). ``reset(options={"game_seed": g, "learner_seat": k})`` fixes one episode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from farmgames.envs import face, get_spec
from farmgames.envs.adapters.aec import BoardGameAECEnv
from farmgames.envs.adapters.base import as_index
from farmgames.envs.core.seeding import derive_seed
from farmgames.envs.core.variants import check_players

from .flatten import FlattenObservation
from .policies import BotPolicy, load_object

__all__ = ["FieldsOfGreenSingleAgentEnv", "SingleAgentEnv", "env_facts", "make_flat_aec"]

# joins byte ranges into a new (writable) bytearray in one C call: the direct path's flat observation
_JOIN = bytearray().join

#: ``resolver(spec, *, seed, deterministic, facts, torch_threads)`` -> a Policy (or an OpponentPool)
Resolver = Callable[..., Any]


def make_flat_aec(
    game: str = "fields_of_green", num_players: int | None = None, render_mode: str | None = None, **variant: Any
) -> FlattenObservation:
    """The game's raw AEC env with flat observations (what the single-agent env and the arena play)."""
    return FlattenObservation(face(game).raw_env(num_players=num_players, render_mode=render_mode, **variant))


def _facts(spec: Any, aec: Any, variant: dict) -> dict:
    agent = aec.possible_agents[0]
    return {
        "game": spec.name,
        "env": spec.env_name,
        "observation_size": int(aec.observation_space(agent)["observation"].shape[0]),
        "action_size": int(aec.action_space(agent).n),
        "num_players": int(aec.unwrapped.num_players),
        "variant": dict(variant),
    }


def env_facts(num_players: int | None = None, *, game: str = "fields_of_green_v0", **variant: Any) -> dict:
    """Sizes a checkpoint must match for this game configuration: ``game``, ``env`` (the versioned name),
    ``observation_size``, ``action_size``, ``num_players``, ``variant`` (default game: ``fields_of_green_v0``,
    what this function measured in the single-game release)."""
    return _facts(get_spec(game), make_flat_aec(game, num_players, None, **variant), variant)


def copy_runs(src_plan: list[tuple[str, int, int]], dst_plan: list[tuple[str, int, int]]) -> list[tuple[int, int, int]]:
    """``[(src_start, dst_start, size)]`` copying every named part from the ``src_plan`` layout to the
    ``dst_plan`` one, with parts that are adjacent in both layouts merged into one run (fewer memcpys)."""
    dst = {name: start for name, start, _ in dst_plan}
    runs: list[list[int]] = []
    for name, start, stop in src_plan:
        size = stop - start
        if runs and runs[-1][0] + runs[-1][2] == start and runs[-1][1] + runs[-1][2] == dst[name]:
            runs[-1][2] += size
        else:
            runs.append([start, dst[name], size])
    return [(a, b, c) for a, b, c in runs]


def flat_sources(flat: np.ndarray, runs: list[tuple[int, int, int]], size: int) -> list[memoryview]:
    """The byte ranges of an observer buffer ``flat`` (float32) that, joined in this order, are the flat
    observation of ``size`` floats: the ``runs`` of :func:`copy_runs` sorted by destination, checked to tile it."""
    src = memoryview(flat).cast("B")
    ordered = sorted(runs, key=lambda run: run[1])  # by destination
    covered = 0
    for _, d, n in ordered:
        if d != covered:  # pragma: no cover - a layout out of step
            raise RuntimeError(f"the flat layout is not covered by the observer's parts at float {covered}")
        covered += n
    if covered != size:  # pragma: no cover
        raise RuntimeError(f"the observer's parts cover {covered} floats of the flat {size}")
    return [src[s * 4 : (s + n) * 4] for s, _, n in ordered]


def _number(name: str, value: Any) -> float:
    """A finite real number (an int or float, never a bool or a string), or ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


class SingleAgentEnv(gymnasium.Env):
    """One learner seat of a game against policies in the other seats (see module doc)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "name": "farmgames", "render_fps": 4}

    def __init__(
        self,
        game: str = "fields_of_green",
        num_players: int | None = None,
        opponents: Any = None,
        learner_seat: int | str = "rotate",
        render_mode: str | None = None,
        deterministic_opponents: bool = False,
        torch_threads: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        reward_scale: float = 1.0,
        resolver: Resolver | None = None,
        **variant: Any,
    ):
        super().__init__()
        self.game_spec = spec = get_spec(game)
        self.game_name = spec.env_name
        self.metadata = {**type(self).metadata, "name": f"{spec.gym_name}-v{spec.version}"}
        num_players = spec.default_players if num_players is None else num_players
        self.num_players = check_players(spec, num_players)
        self._check_options(learner_seat, illegal_action)
        self.illegal_action = illegal_action
        self.illegal_reward = _number("illegal_reward", illegal_reward)
        self.reward_scale = _number("reward_scale", reward_scale)
        self.learner_seat_mode = learner_seat
        self.render_mode = render_mode
        self.variant = dict(variant)
        if not isinstance(deterministic_opponents, (bool, np.bool_)):  # "no" must not become True
            raise ValueError(f"deterministic_opponents must be True or False, got {deterministic_opponents!r}")
        if torch_threads is not None and (type(torch_threads) is not int or torch_threads < 1):
            raise ValueError(f"torch_threads must be a positive integer or None, got {torch_threads!r}")
        self.deterministic_opponents = bool(deterministic_opponents)
        self.torch_threads = torch_threads
        self.resolver = resolver
        self._aec = make_flat_aec(self.game_name, self.num_players, render_mode, **self.variant)
        self.agents = list(self._aec.possible_agents)
        agent0 = self.agents[0]
        self.observation_space = self._aec.observation_space(agent0)["observation"]
        self.action_space = self._aec.action_space(agent0)
        if not isinstance(self.action_space, spaces.Discrete):
            raise TypeError(f"expected a Discrete action space, got {self.action_space}")
        self.facts = _facts(spec, self._aec, self.variant)
        self._init_fast_path()
        if opponents is None:
            opponents = "heuristic" if "heuristic" in spec.bots else "random"
        self._policy_cache: dict[tuple, Any] = {}
        self._base_policies, self._pool = self._parse_opponents(opponents)
        self._episode = 0
        self._seat_offset = 0
        self.learner_seat: int = learner_seat if isinstance(learner_seat, int) else 0
        self.opponents: dict[int, Any] = {}
        self.opponent_names: dict[int, str] = {}
        self._obs: dict | None = None
        self._done = True
        self._decisions = 0
        self._used_pool = False

    def _check_options(self, learner_seat: Any, illegal_action: Any) -> None:
        n = self.num_players
        if isinstance(learner_seat, str):
            if learner_seat not in ("rotate", "random"):
                raise ValueError(f"learner_seat must be a seat number, 'rotate' or 'random', got {learner_seat!r}")
        elif (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, (int, np.integer))
            or not 0 <= learner_seat < n
        ):
            raise ValueError(f"learner_seat must be a seat 0..{n - 1}, 'rotate' or 'random', got {learner_seat!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")

    # ------------------------------------------------------------------ opponents

    def _resolve(self, item: Any, seed: int = 0) -> Any:
        if self.resolver is None:
            return None
        return self.resolver(
            item,
            seed=seed,
            deterministic=self.deterministic_opponents,
            facts=self.facts,
            torch_threads=self.torch_threads,
        )

    @staticmethod
    def _is_pool(item: Any) -> bool:
        return hasattr(item, "draw") and hasattr(item, "refresh")

    def _parse_opponents(self, opponents: Any) -> tuple[list[tuple[Any, str]], Any]:
        """``([(policy, name) per other seat in turn order after the learner], pool or None)``."""
        n_other = self.num_players - 1
        pool = None
        if isinstance(opponents, Mapping):
            pool = self._resolve(dict(opponents))
            if not self._is_pool(pool):
                raise ValueError(
                    f"an opponents mapping ({sorted(opponents)}) needs a resolver that turns it into an "
                    "opponent pool, e.g. resolver=farmgames.training.policy.resolve_opponent"
                )
        elif self._is_pool(opponents):
            pool = opponents
        if pool is not None:
            opponents = pool.base
        if isinstance(opponents, (list, tuple)):
            items = list(opponents)
            if len(items) != n_other:
                raise ValueError(
                    f"opponents lists one policy per other seat: {n_other} for {self.num_players} "
                    f"players, got {len(items)}"
                )
        else:
            items = [opponents] * n_other
        return [self._policy_for(item, relative) for relative, item in enumerate(items, 1)], pool

    def _policy_for(self, item: Any, relative: int) -> tuple[Any, str]:
        """A policy object for an opponent (bots: one object per relative seat; others cached by name)."""
        if hasattr(item, "act"):
            return item, getattr(item, "name", None) or str(item)
        bots = self.game_spec.bots
        if not isinstance(item, (str, Path)):
            raise ValueError(
                f"an opponent is a bot name of {self.game_spec.name} ({', '.join(sorted(bots))}), "
                "'module:attribute', a policy object with act(observation, action_mask) or, with a "
                f"resolver, a checkpoint path; got {item!r}"
            )
        text = str(item)
        key = (text, relative) if text in bots else (text,)
        policy = self._policy_cache.get(key)
        if policy is None:
            policy = self._build(text)
            self._policy_cache[key] = policy
        return policy, getattr(policy, "name", None) or text

    def _build(self, text: str) -> Any:
        if text in self.game_spec.bots:
            return BotPolicy(self.game_spec, text)
        policy = self._resolve(text)
        if policy is not None:
            return policy
        if ":" in text and not Path(text).exists():
            return load_object(text)
        raise ValueError(
            f"unknown opponent {text!r}: the bots of {self.game_spec.name} are "
            f"{', '.join(sorted(self.game_spec.bots))}; checkpoint paths need "
            "resolver=farmgames.training.policy.resolve_opponent"
        )

    def _choose_opponents(self, game_seed: int) -> None:
        pool = self._pool
        use_pool = False
        if pool is not None and pool.probability > 0:
            use_pool = pool.refresh() > 0 and self.np_random.random() < pool.probability
        self._used_pool = use_pool
        game = self._aec.unwrapped.game
        self.opponents, self.opponent_names = {}, {}
        for relative in range(1, self.num_players):
            seat = (self.learner_seat + relative) % self.num_players
            seed = derive_seed(game_seed, seat)
            drawn = pool.draw(self.np_random, seed) if use_pool else None
            policy, name = drawn if drawn is not None else self._base_policies[relative - 1]
            if hasattr(policy, "reset"):
                policy.reset(seed=seed)
            if hasattr(policy, "attach"):
                policy.attach(game, seat)
            self.opponents[seat] = policy
            self.opponent_names[seat] = name

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._start_episode(seed, options)
        return self._learner_obs(), self._info()

    def _start_episode(self, seed: int | None, options: dict | None) -> None:
        """``reset`` up to the learner's first decision, without building its observation and info (the
        batched env writes them into its rows itself)."""
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
        if self._done:  # a game where the learner never decides cannot be learned from
            raise RuntimeError("the game ended before the learner's first decision")

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        agent = self._learner_agent
        if self._raw.agent_selection != agent:  # the raw env's attribute (the wrapper forwards it)
            raise RuntimeError(f"internal error: it is {self._raw.agent_selection}'s decision, not the learner's")
        if type(action) is not int:  # integers only: 38.9, "38", np.float32(38.5), True are refused, never rounded
            action = as_index(action)
        bits = self._bits  # the same 0/1 values as the mask (a bytearray: a cheaper lookup than numpy's)
        if not (0 <= action < len(bits) and bits[action]):
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action} for the learner (seat {self.learner_seat}); legal: "
                    f"{np.flatnonzero(self._mask()).tolist()}"
                )
            # the game is abandoned: the episode ends with the illegal-action penalty (MaskablePPO never
            # gets here; gymnasium's and SB3's env checkers do, with unmasked random actions)
            self._done = True
            # new arrays: the previous step handed out these very ones (its observation and info mask)
            self._obs = {key: value.copy() for key, value in self._obs.items()}
            info = self._info(illegal=True)
            return self._obs["observation"], self.illegal_reward, True, False, info
        reward = self._aec_step(action)
        self._decisions += 1
        # _play_opponents asks whether the game is over (and sets _done) before it lets any seat decide
        reward += self._play_opponents()
        return self._learner_obs(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool), for sb3-contrib's MaskablePPO."""
        # a view, not a copy: the int8 0/1 mask is fresh per learner observation and never written again
        return self._mask().view(np.bool_)

    def anticipate(self) -> bool:
        """While the learner decides, let the bot opponents that can work out their next decision now
        (``BotPolicy.anticipate``: the same decisions as without, only earlier, see
        ``fields_of_green/bots/anticipation.py``; other policies are left alone). For a process with a spare core
        (``wrappers/process_vector.py``); in the learner's own process it only moves time around. True if any did."""
        if self._done or self.game.current_player != self.learner_seat:
            return False
        made = False
        for policy in self.opponents.values():
            if isinstance(policy, BotPolicy) and policy.anticipate(self.learner_seat):
                made = True
        return made

    def render(self):
        return self._aec.render()

    def close(self):
        self._aec.close()

    @property
    def game(self):
        """The engine ``Game`` being played."""
        return self._raw.game

    # ------------------------------------------------------------------ internals

    def _aec_step(self, action: int) -> float:
        """One step of the PettingZoo env (whoever's decision it is); returns the LEARNER's reward from
        that step, never the reward of the agent that moved. (The raw env's step: the flatten wrapper
        only forwards it.)"""
        raw = self._raw
        raw.step(action)
        return float(raw.rewards.get(self._learner_agent, 0.0)) * self.reward_scale

    def _play_opponents(self) -> float:
        """Let the other seats decide until it is the learner's turn or the game ends; returns the
        learner's reward accumulated meanwhile."""
        aec = self._aec
        learner = self._learner_agent
        game = self.game
        reward = 0.0
        raw = self._raw  # the flatten wrapper forwards agent_selection from it, through __getattr__
        done = game.is_terminal()
        # asked whether the game is over once before and once after each opponent decision, not again after
        # the loop (the same answers); an int action skips as_index's call
        while not done and raw.agent_selection != learner:
            agent = raw.agent_selection
            policy = self.opponents[raw.agent_name_mapping[agent]]
            if type(policy) is BotPolicy:  # it reads the engine, never the mask: none is built for it
                action = policy.act(None, None)
            elif getattr(policy, "needs_observation", True):
                obs = aec.observe(agent)
                action = policy.act(obs["observation"], obs["action_mask"])
            else:
                action = policy.act(None, game.legal_mask().astype(np.int8))
            reward += self._aec_step(action if type(action) is int else as_index(action))  # 38.9 is refused too
            done = game.is_terminal()
        self._done = done
        return reward

    def _init_fast_path(self) -> None:
        """The fast paths of a step: nothing copied twice, nothing computed that nobody reads.

        The flat layout is the flatten wrapper's (the structured parts in its Dict order), so checkpoints
        and the env version are unaffected; only the work changes. Direct observations (``_direct``: dict
        observations of a board-game AEC env without masks in its infos): the learner's observation is
        filled by the raw env's observer into this env's own buffer and copied once into the new flat
        array the step returns, one memcpy per run of parts adjacent in both orders
        (``_learner_obs_direct``); its mask is built once as the raw env builds it, and the info and
        ``action_masks()`` share it. Otherwise: the raw env hands out its own double buffers
        (``reuse_buffers``) and each named part is copied once. Actions always go through the raw env's
        ``step`` (applying them to the engine with a copy of its bookkeeping measured no faster).
        tests/speed/test_single_agent.py compares both paths with the raw env's ``observe`` and the
        flatten wrapper's plain path."""
        raw = self._raw = self._aec.unwrapped
        structured = self._aec.structured_observation_space(self.agents[0])
        self._flat_plan: list[tuple[str, int, int]] | None = None
        if isinstance(structured, spaces.Dict) and all(isinstance(b, spaces.Box) for b in structured.spaces.values()):
            plan, start = [], 0
            for name, box in structured.spaces.items():
                size = int(np.prod(box.shape))
                plan.append((name, start * 4, (start + size) * 4))
                start += size
            self._flat_plan, self._flat_size = plan, start
            if hasattr(raw, "reuse_buffers"):
                raw.reuse_buffers = True  # safe: everything handed on is copied out of them right away
        self._flat_sources: dict[int, tuple[Any, list]] = {}
        self._bits: Any = b""  # the learner's mask as 0/1 values (step's legality check)
        # Direct observations (``_learner_obs_direct``): for the dict observations of a board-game AEC env
        # without masks in its infos. The learner's observation is filled by the raw env's observer (its
        # incremental caches, its perfect-recall memory) into a buffer of this env's own and copied into a
        # new array in the flat order, one memcpy per run of parts adjacent in both orders; the mask is
        # built as the raw env builds it.
        self._direct = (
            self._flat_plan is not None
            and isinstance(raw, BoardGameAECEnv)
            and raw.observation_mode == "dict"
            and not raw.info_mask
        )
        if self._direct:
            entries = raw.observer.layout.entries
            names = [name for name, _, _ in self._flat_plan]
            if sorted(names) != sorted(e.name for e in entries):  # pragma: no cover - a layout out of step
                self._direct = False
            else:
                self._runs = copy_runs(
                    [(e.name, e.start, e.stop) for e in entries],
                    [(name, start // 4, stop // 4) for name, start, stop in self._flat_plan],
                )
        self._direct_buf: Any = None  # (observer, its buffer, [src bytes in the flat order]): lazily
        self._mask_size = int(self.action_space.n)

    def _learner_obs_direct(self) -> np.ndarray:
        """The learner's flat observation and mask now (fresh arrays, never written again), without the
        raw env's ``observe``: the same values (tests/speed/test_single_agent.py)."""
        raw = self._raw
        observer = raw.observer
        cached = self._direct_buf
        if cached is None or cached[0] is not observer:  # first use, or a new observer (after unpickling)
            cached = self._direct_buf = self._direct_cache(observer)
        seat = self.learner_seat
        observer.fill(raw.game, seat, cached[1])
        # the parts in the flat order joined in C into one new bytearray (one allocation, no per-run Python
        # statement), its float32 view the fresh observation
        flat = np.frombuffer(_JOIN(cached[2]), dtype=np.float32)
        bits = bytearray(self._mask_size)  # fresh (a new array per observation), the raw env writes it
        raw.write_action_mask(seat, bits)
        self._bits = bits
        self._obs = {"observation": flat, "action_mask": np.frombuffer(bits, dtype=np.int8)}
        return flat

    def _direct_cache(self, observer: Any) -> tuple[Any, Any, list[memoryview]]:
        """The direct path's buffer and the byte ranges of it that make up the flat order, in that order:
        (observer, buffer, [src bytes]). Out of line, as every comprehension of the per-step methods: in 3.11
        the locals a comprehension reads are cells, allocated on every call of the method that holds it."""
        buf = observer.new_buffer()
        return observer, buf, flat_sources(buf.flat, self._runs, self._flat_size)

    def _learner_obs(self) -> np.ndarray:
        if self._direct:
            return self._learner_obs_direct()
        return self._learner_obs_plain()

    def _learner_obs_plain(self) -> np.ndarray:
        obs = self._raw.observe(self._learner_agent)
        views = obs["observation"] if self._flat_plan is not None else None
        if not isinstance(views, dict):  # another observation mode: the flatten wrapper's plain path
            self._obs = self._aec.observe(self._learner_agent)
            return self._obs["observation"]
        hit = self._flat_sources.get(id(views))
        if hit is None or hit[0] is not views:
            if len(self._flat_sources) >= 2 * self.num_players:  # two buffers per seat are in use
                self._flat_sources.clear()
            hit = self._flat_sources[id(views)] = (
                views,
                [memoryview(views[name]).cast("B") for name, _, _ in self._flat_plan],
            )
        flat = np.empty(self._flat_size, dtype=np.float32)
        dst = memoryview(flat).cast("B")
        for (_, start, stop), src in zip(self._flat_plan, hit[1], strict=True):
            dst[start:stop] = src
        self._obs = {"observation": flat, "action_mask": np.array(obs["action_mask"], dtype=np.int8)}
        self._bits = self._obs["action_mask"]
        return flat

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_flat_sources"] = {}  # memoryviews do not pickle; rebuilt on the next observation
        state["_direct_buf"] = None  # its observer is rebuilt by the raw env's unpickling, so is this
        return state

    def _mask(self) -> np.ndarray:
        if self._obs is None:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return self._obs["action_mask"]

    def _info(self, illegal: bool = False) -> dict:
        if self.game_spec.conventions.infos == "fixed":
            return self._fixed_info(illegal)
        info = {"action_mask": self._mask(), "learner_seat": self.learner_seat}  # fresh per observation
        if illegal:
            info["illegal_action"] = True
        if self._done and self.game.is_terminal():
            game = self.game
            scores = [s.total for s in game.scores()]
            winners = game.winners()
            me = self.learner_seat
            best_other = _best_other(scores, me)
            info.update(
                {
                    "scores": scores,
                    "winners": winners,
                    "learner_won": me in winners,
                    "learner_score": scores[me],
                    "learner_vp": scores[me],  # the name of the single-game release
                    "learner_margin": scores[me] - best_other,
                    "returns": list(game.returns()),
                    "decisions": self._decisions,
                    "opponents": dict(self.opponent_names),
                    "pool_opponents": self._used_pool,
                    "game_seed": self.game_seed,
                }
            )
        return info

    def _fixed_info(self, illegal: bool) -> dict:
        """The ``fixed`` info convention (every game on the current conventions): the same numeric keys on
        every step, zeros until the game is over. ``scores`` (float32) and ``winners`` (int8 0/1) are
        arrays over seats; ``game_over`` is 1 once the game was played to its end, ``illegal_action`` 1
        when an illegal action of the learner ended the episode. Opponent names: ``env.opponent_names``."""
        n = self.num_players
        over = bool(self._done and self.game.is_terminal())
        me = self.learner_seat
        margin = 0.0
        # fresh arrays on every call: gymnasium's env checker (rightly) refuses infos that share objects
        scores = np.zeros(n, np.float32)
        winners = np.zeros(n, np.int8)
        if over:
            game = self.game
            scores[:] = [s.total for s in game.scores()]
            winners[list(game.winners())] = 1
            margin = float(scores[me] - _best_other([float(x) for x in scores], me))
        return {
            "action_mask": self._mask(),  # fresh per learner observation, never written again
            "learner_seat": me,
            "scores": scores,
            "winners": winners,
            "learner_won": int(winners[me]),
            "learner_score": float(scores[me]),
            "learner_margin": margin,
            "game_over": int(over),
            "illegal_action": int(illegal),
            "decisions": self._decisions,
            "pool_opponents": int(self._used_pool),
            "game_seed": self.game_seed,
        }


def _best_other(scores: list[Any], me: int) -> Any:
    """The best score of the seats but ``me`` (a function of its own: see ``_direct_cache``)."""
    return max(x for i, x in enumerate(scores) if i != me)


class FieldsOfGreenSingleAgentEnv(SingleAgentEnv):
    """:class:`SingleAgentEnv` of ``fields_of_green_v0`` (the name of the single-game release; same game
    version and defaults: 4 players against heuristic bots)."""

    def __init__(self, num_players: int = 4, opponents: Any = "heuristic", **kwargs: Any):
        game = kwargs.pop("game", "fields_of_green_v0")
        if get_spec(game).name != "fields_of_green":
            raise TypeError(
                f"FieldsOfGreenSingleAgentEnv plays fields_of_green, not {game!r}; use SingleAgentEnv(game=...)"
            )
        super().__init__(game=game, num_players=num_players, opponents=opponents, **kwargs)
