"""N single-agent games in one process as one batched env: gymnasium's ``VectorEnv`` API and an SB3 ``VecEnv``.

    from farmgames.wrappers.vector import BatchedSingleAgentEnv, SB3BatchedVecEnv

    envs = BatchedSingleAgentEnv(8, game="fields_of_green", num_players=2, opponents="random")
    obs, infos = envs.reset(seed=0)            # obs: (8, observation_size) float32
    masks = envs.action_masks()                # (8, num_actions) bool, what MaskablePPO reads
    obs, rewards, terminations, truncations, infos = envs.step(actions)

    vec = SB3BatchedVecEnv(envs)               # for stable-baselines3 / sb3-contrib (MaskablePPO)

Every game is a :class:`~farmgames.wrappers.single_agent.SingleAgentEnv` with the same keywords, so the
episodes (seeds, learner seats, opponents, rewards, final infos) are exactly those of N single envs seeded
``seed, seed + 1, ...`` — ``tests/speed/test_vector.py`` plays both side by side and compares every
observation, mask, reward and final info. What the batch does differently, for speed:

* **Batch arrays, built in one call.** Observations are one ``(N, observation_size)`` float32 array and the
  masks one ``(N, num_actions)`` bool array. The learner's observation is filled by the game's own observer
  into one buffer per game (so the incremental refill only redoes what changed since that game's last
  learner observation); at the end of a step the byte ranges of every game's buffer, in the single env's
  flat order (its Dict keys sorted, as gymnasium's ``flatten`` orders them; runs of parts adjacent in both
  orders), are joined in C in one call into the new observation array (``copy=True``, handed out as it is;
  the kept buffers of ``copy=False`` take one more memcpy): no Python statement per game or part. The
  single env builds a new flat array, a new mask and an info dict per step. The mask row is one memcpy of
  the engine's cached 0/1 bytes where the game has ``legal_mask_bytes()``, else cleared with one memcpy
  and set from its index array or its legal list.
* **A lean step, one loop over the games.** Each game in turn: the learner's action and its bot opponents'
  decisions (``needs_observation = False``, deciding from the engine state without the mask the plain
  loop builds for them) played through the raw env's ``step``, its next observation into its buffer.
  Per-step infos are empty (masks come from ``action_masks()``; final infos only for games that ended), so
  nothing is computed that nobody reads; a reset skips the single env's observation and
  info (``_start_episode``), a finished game's last observation is refilled incrementally in the game's
  own buffer. The legality check reads the batch's mask; an illegal action takes the single env's own
  path (the episode ends with its penalty).
* **Autoreset in the same step** (``AutoresetMode.SAME_STEP``): a finished game's last observation and final
  info go to ``infos["final_obs"]`` / ``infos["final_info"]`` (gymnasium's layout), and its row holds the next
  episode's first observation; the SB3 adapter gives them as ``terminal_observation`` and the info keys, plus
  the ``info["episode"]`` SB3's ``Monitor`` adds (so ``rollout/ep_rew_mean`` etc. are logged as with
  DummyVecEnv; ``training.vec_env: batched`` in ``farmgames train``).
* **Opponents' decisions batched.** When opponents are policy objects that read observations, the games
  waiting for them are advanced together and every game waiting for the same policy object is decided in
  one call of its ``act_batch(observations, masks)`` if it has one (e.g. one network forward pass for N
  games), else one ``act`` per game.

``copy=True`` (default, and the fastest) hands out arrays that no later step writes into (the learner may
keep them; :func:`SB3BatchedVecEnv` builds this); with ``copy=False`` the returned array is the batch's buffer
itself and the next step overwrites it; ``copy=False, double_buffer=True`` alternates two buffers, so an
array handed out stays valid through the next step. Never write into a handed-out buffer.
``tests/wrappers/test_vector_batched.py`` compares these paths with the copying one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from farmgames.envs.adapters.base import as_index

from .policies import BotPolicy
from .single_agent import _JOIN, SingleAgentEnv, copy_runs, flat_sources

__all__ = [
    "BatchedSingleAgentEnv",
    "SB3BatchedVecEnv",
    "check_actions",
    "check_num_envs",
    "copy_runs",
    "flat_plan",
    "reset_seeds",
]


def flat_plan(structured_space: gymnasium.spaces.Dict) -> list[tuple[str, int, int]]:
    """``[(name, start, stop)]`` of each named part in the single env's flat observation: gymnasium's
    ``flatten`` order of the Dict space (its keys as the Dict holds them, sorted for a plain dict)."""
    out, start = [], 0
    for name, sub in structured_space.spaces.items():
        size = int(np.prod(sub.shape))
        out.append((name, start, start + size))
        start += size
    return out


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int, or ``ValueError`` naming it (a positive integer, not a bool)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    return int(num_envs)


def reset_seeds(seed: Any, num_envs: int) -> list[int | None]:
    """The per-game seeds of ``reset(seed=...)``: ``seed + i`` for game ``i`` (None: unseeded), or a list of
    ``num_envs`` seeds as given."""
    if seed is None or isinstance(seed, (int, np.integer)):
        return [None if seed is None else int(seed) + i for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise ValueError(f"reset(seed=...) needs {num_envs} seeds, got {len(seeds)}")
    return seeds


def check_actions(actions: Any, num_envs: int) -> np.ndarray:
    """``step``'s actions as an integer array of shape ``(num_envs,)``, or ``ValueError`` naming what is wrong
    (as the single env: integers only, never rounded; a value outside the action space is an illegal action)."""
    actions = np.asarray(actions)
    if actions.shape != (num_envs,):
        raise ValueError(f"step() needs {num_envs} actions, got shape {actions.shape}")
    if actions.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
    return actions


class _Game:
    """One game of the batch: its single env, the raw PettingZoo env under it, and the learner's observer
    buffer with its byte ranges in the flat order (joined, this game's row of a batch observation array)."""

    __slots__ = ("env", "raw", "observer", "buf", "flat_srcs", "mask_row")

    def __init__(self, env: SingleAgentEnv, mask_row: np.ndarray, runs: list, size: int):
        self.env = env
        self.raw = env._aec.unwrapped
        # The learner's observation is filled by the env's own observer (so its incremental caches and
        # perfect-recall memory are the env's) into a buffer of the batch's own; its byte ranges in the
        # single env's flat order (runs of parts adjacent in both orders, sorted by destination) joined are
        # this game's flat observation (the observer writes at its layout's offsets and the flat order sorts
        # the parts by name, so it cannot fill a row itself; tests/speed/test_vector.py checks the values
        # step by step). The batch joins every game's ranges in one call (BatchedSingleAgentEnv._collect).
        self.observer = self.raw.observer
        self.buf = self.observer.new_buffer()
        self.flat_srcs = flat_sources(self.buf.flat, runs, size)
        self.mask_row = memoryview(mask_row.view(np.uint8))

    def final(self) -> np.ndarray:
        """The learner's last observation of a finished game in a new flat array (the single env's final
        observation): filled into this game's buffer, which last showed this game's previous learner
        decision (so the refill is incremental; the single env's own buffer last showed its previous
        game's end and would be rewritten entirely), its flat-order ranges joined."""
        self.observer.fill(self.raw.game, self.env.learner_seat, self.buf)
        return np.frombuffer(_JOIN(self.flat_srcs), dtype=np.float32)

    def write(self) -> None:
        """The learner's observation and mask now: the observation into this game's buffer (the batch copies
        it into the game's row at the end of the step, with every other game's), the mask into its row of the
        batch's masks by the raw env itself (``write_action_mask``: the engine's cached 0/1 bytes in one memcpy
        where it has them, else plain stores from its legal list)."""
        raw = self.raw
        seat = self.env.learner_seat
        self.observer.fill(raw.game, seat, self.buf)
        raw.write_action_mask(seat, self.mask_row)  # the raw env's one definition of a mask


# What ``map_envs`` applies to a single env (module level, so that a worker process finds them by name).
def _get(env: SingleAgentEnv, name: str) -> Any:
    return getattr(env, name)


def _set(env: SingleAgentEnv, name: str, value: Any) -> None:
    setattr(env, name, value)


def _call(env: SingleAgentEnv, name: str, args: tuple, kwargs: dict) -> Any:
    value = getattr(env, name)
    return value(*args, **kwargs) if callable(value) else value


def _is_instance(env: SingleAgentEnv, cls: type) -> bool:
    return isinstance(env, cls)


def _seed_action_space(env: SingleAgentEnv, seed: int) -> None:
    env.action_space.seed(seed)


_APPLY: dict[str, Callable[..., Any]] = {
    "get": _get,
    "set": _set,
    "call": _call,
    "isinstance": _is_instance,
    "seed_action_space": _seed_action_space,
}


class BatchedSingleAgentEnv(VectorEnv):
    """``num_envs`` :class:`SingleAgentEnv` games (same keywords) stepped as one batch (see module doc)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        game: str = "fields_of_green",
        *,
        copy: bool = True,
        double_buffer: bool = False,
        **env_kwargs: Any,
    ):
        self.num_envs = check_num_envs(num_envs)
        self.copy = bool(copy)
        self.double_buffer = bool(double_buffer) and not self.copy
        envs = [SingleAgentEnv(game=game, **env_kwargs) for _ in range(self.num_envs)]
        self.envs = envs
        first = envs[0]
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {**type(self).metadata, "name": first.metadata["name"]}
        self.render_mode = first.render_mode
        self.spec = None
        size, actions = int(self.single_observation_space.shape[0]), int(self.single_action_space.n)
        self._num_actions = actions
        # ``copy=True``: every reset and step joins all the games' observations into a new array and hands it
        # out as it is (each game's row is new in every step: its next observation, or its next episode's
        # first), the cheapest path (_collect). The kept buffers (``copy=False``; ``double_buffer``: two,
        # alternated per step, so that an array handed out stays valid through the next step) take one more
        # memcpy of the batch: for a caller that wants the same array object every step.
        self._size = size
        kept = 0 if self.copy else 1 + self.double_buffer
        self._obs_buffers = [np.zeros((self.num_envs, size), dtype=np.float32) for _ in range(kept)]
        self._buffer_bytes = [memoryview(b).cast("B") for b in self._obs_buffers]
        self._slot = 0
        self._obs = self._obs_buffers[0] if kept else np.zeros((self.num_envs, size), dtype=np.float32)
        self._masks = np.zeros((self.num_envs, actions), dtype=bool)
        self._truncations = np.zeros(self.num_envs, dtype=bool)
        structured = first._aec.structured_observation_space(first.agents[0])
        self.plan = flat_plan(structured)
        if self.plan[-1][2] != size:  # pragma: no cover - the flatten wrapper's layout changed
            raise TypeError("the single env's flat observation is not its Dict parts in order")
        layout = first._aec.unwrapped.observer.layout
        runs = copy_runs([(e.name, e.start, e.stop) for e in layout.entries], self.plan)
        self._games = [_Game(env, self._masks[i], runs, size) for i, env in enumerate(envs)]
        # every game's flat observation ranges, game by game: joined, they are the batch observation array
        self._flat_srcs = [src for g in self._games for src in g.flat_srcs]
        self._has_reset = False
        #: per game that ended in the last step: (its last observation, its final info), as in ``infos``
        self.final_infos: dict[int, tuple[np.ndarray, dict]] = {}

    # ------------------------------------------------------------------ gymnasium VectorEnv API

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        seeds = reset_seeds(seed, self.num_envs)
        for g, s in zip(self._games, seeds, strict=True):
            g.env._start_episode(s, options)  # reset() without the single env's observation and info
            g.write()
        self._has_reset = True
        self.final_infos = {}
        return self._collect(), {}

    def step(self, actions):
        """One learner decision per game. A single loop over the games: each one's learner action, its bot
        opponents' decisions (from the engine, no mask built for them) and its next observation written
        into its buffer (rows joined at the end); games waiting for an observation-reading opponent are
        decided together afterwards."""
        if not self._has_reset:
            raise RuntimeError("step() called before reset()")
        actions = check_actions(actions, self.num_envs)
        n_actions = self._num_actions
        rewards = [0.0] * self.num_envs
        terminations = [False] * self.num_envs
        finished: list[tuple[int, np.ndarray, dict]] = []
        waiting: list[tuple[int, Any]] = []  # games whose next opponent reads observations, and that policy
        for i, (g, action) in enumerate(zip(self._games, actions.tolist(), strict=True)):
            env = g.env
            if not (0 <= action < n_actions and g.mask_row[action]):
                env._learner_obs()  # the single env's own view of the state (the batch kept only its rows)
                obs, reward, terminated, _, info = env.step(action)  # the single env's illegal-action path
                rewards[i], terminations[i] = reward, terminated
                finished.append((i, obs, info))
                continue
            raw = g.raw
            game = raw.game
            policy = None
            raw.step(action)
            env._decisions += 1
            reward = raw.rewards.get(env._learner_agent, 0.0) * env.reward_scale
            if not game.is_terminal():
                reward, policy = self._run_bots(g, reward)
            rewards[i] = reward
            if policy is not None:
                waiting.append((i, policy))
            elif game.is_terminal():
                terminations[i] = True
                finished.append((i, self._final(g), {}))
            else:
                g.write()
        if waiting:
            self._play_policies(waiting, finished, rewards, terminations)
        infos: dict[str, Any] = {}
        self.final_infos = {}
        for i, final_obs, final_info in sorted(finished, key=lambda t: t[0]):
            g = self._games[i]
            env = g.env
            env._done = True
            info = final_info or env._info()
            info.pop("action_mask", None)
            self.final_infos[i] = (final_obs, info)
            infos = self._add_info(infos, {"final_obs": final_obs, "final_info": info}, i)
            env._start_episode(None, None)  # reset() without the single env's observation and info
            g.write()
        return (
            self._collect(),
            np.array(rewards, dtype=np.float64),
            np.array(terminations, dtype=bool),
            self._truncations.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool (sb3-contrib's name)."""
        return self._masks.copy() if self.copy else self._masks

    def anticipate(self, stop: Any = None) -> int:
        """Each game's :meth:`SingleAgentEnv.anticipate`, in order, until ``stop()`` (if given) is true; returns how
        many games anticipated. The decisions stay those made without (a worker's use: ``process_vector``)."""
        made = 0
        for env in self.envs:
            if stop is not None and stop():
                break
            made += env.anticipate()
        return made

    def render(self):
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        return tuple(self.map_envs("call", range(self.num_envs), name, args, kwargs))

    def get_attr(self, name: str) -> tuple:
        return tuple(getattr(env, name) for env in self.envs)

    def set_attr(self, name: str, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        for env, value in zip(self.envs, values, strict=True):
            setattr(env, name, value)

    def map_envs(self, what: str, indices: Sequence[int], *args: Any) -> list:
        """``what`` applied to the single envs ``indices`` with ``args``: ``get`` (an attribute), ``set`` (one
        value), ``call`` (name, args, kwargs: a method's result, or the attribute), ``isinstance`` (a class),
        ``seed_action_space`` (a seed). The SB3 adapter's one way in, shared with
        :class:`~farmgames.wrappers.process_vector.ProcessBatchedEnv` (whose envs live in its workers)."""
        fn = _APPLY.get(what)
        if fn is None:
            raise ValueError(f"map_envs: what must be one of {sorted(_APPLY)}, got {what!r}")
        if what == "call" and args[:1] == ("action_masks",) and not any(args[1:]):
            # the batch keeps the masks (a single env's own mask is that of its last own step, not the batch's)
            return [self._masks[int(i)].copy() for i in indices]
        return [fn(self.envs[int(i)], *args) for i in indices]

    # ------------------------------------------------------------------ internals

    def _collect(self) -> np.ndarray:
        """The batch observation array of this reset or step: every game's buffer ranges in the flat order,
        game by game, joined in C in one call (no Python statement per game or run); with ``copy`` the joined
        bytes are the new array, else they are copied into the kept buffer of this step (the other of the two
        with ``double_buffer``)."""
        joined = _JOIN(self._flat_srcs)
        if self.copy:
            self._obs = np.frombuffer(joined, dtype=np.float32).reshape(self.num_envs, self._size)
        else:
            if self.double_buffer:
                self._slot ^= 1
                self._obs = self._obs_buffers[self._slot]
            self._buffer_bytes[self._slot][:] = joined
        return self._obs  # with ``copy``, a new array per reset and step, nowhere else referenced

    def _final(self, g: _Game) -> np.ndarray:
        """The learner's last observation of a finished game (a fresh flat array, as the single env's)."""
        return g.final()  # a new array per call

    def _run_bots(self, g: _Game, reward: float) -> tuple[float, Any]:
        """Let bot opponents of game ``g`` decide until the learner's turn, the end, or an opponent that
        reads observations; returns the learner's reward so far and that opponent (undecided) or None."""
        raw, env = g.raw, g.env
        game = raw.game
        learner = env._learner_agent
        me = env.learner_seat
        opponents = env.opponents
        scale = env.reward_scale
        while not game.is_terminal():
            seat = game.current_player
            if seat == me:
                break
            policy = opponents[seat]
            if type(policy) is BotPolicy:  # it reads the engine, never the mask: none is built for it
                action = policy.act(None, None)
            elif getattr(policy, "needs_observation", True):
                return reward, policy
            else:
                action = as_index(policy.act(None, game.legal_mask().astype(np.int8)))  # 38.9 is refused
            raw.step(action)
            reward += raw.rewards.get(learner, 0.0) * scale
        return reward, None

    def _play_policies(self, waiting: list[tuple[int, Any]], finished: list, rewards: list, terminations: list) -> None:
        """Advance the games in ``waiting`` to their learner's next decision (or their end): every game
        waiting for the same policy object is decided in one ``act_batch(observations, masks)`` call when
        the policy has one (e.g. one forward pass), else one ``act`` per game; bots in between at once."""
        games = self._games
        while waiting:
            asks: dict[int, tuple[Any, list[int]]] = {}
            for i, policy in waiting:
                asks.setdefault(id(policy), (policy, []))[1].append(i)
            waiting = []
            for policy, rows in asks.values():
                observed = [games[i].env._aec.observe(games[i].raw.agent_selection) for i in rows]
                batch = getattr(policy, "act_batch", None)
                if batch is not None:
                    chosen = batch(np.stack([o["observation"] for o in observed]), [o["action_mask"] for o in observed])
                else:
                    chosen = [policy.act(o["observation"], o["action_mask"]) for o in observed]
                for i, action in zip(rows, chosen, strict=True):
                    g = games[i]
                    raw, env = g.raw, g.env
                    raw.step(as_index(action))
                    rewards[i] += raw.rewards.get(env._learner_agent, 0.0) * env.reward_scale
                    nxt = None
                    if not raw.game.is_terminal():
                        rewards[i], nxt = self._run_bots(g, rewards[i])
                    if nxt is not None:
                        waiting.append((i, nxt))
                    elif raw.game.is_terminal():
                        terminations[i] = True
                        finished.append((i, self._final(g), {}))
                    else:
                        g.write()


_SB3_CLASS: list[type] = []


def SB3BatchedVecEnv(batched: VectorEnv | int, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - a class to its users
    """A :class:`BatchedSingleAgentEnv` (or the arguments to build one), or a
    :class:`~farmgames.wrappers.process_vector.ProcessBatchedEnv`, as a stable-baselines3 ``VecEnv``.
    MaskablePPO reads masks with ``env_method("action_masks")``: answered with the batch's mask array at once.
    Built here from arguments, the batch hands out a new observation array per step (``copy=True``, its
    cheapest path), which SB3 may keep as long as it likes. Episode ends
    carry what SB3's ``Monitor`` adds to a DummyVecEnv's infos (``info["episode"] = {"r", "l", "t"}``),
    ``terminal_observation`` and ``TimeLimit.truncated``, so SB3's logs and the training callbacks read
    the same keys as with DummyVecEnv. (A factory, so that importing this module does not import SB3.)"""
    if not isinstance(batched, VectorEnv):
        batched = BatchedSingleAgentEnv(batched, *args, **kwargs)
    elif not hasattr(batched, "map_envs"):
        raise TypeError(f"SB3BatchedVecEnv takes a BatchedSingleAgentEnv or a ProcessBatchedEnv, got {type(batched)}")
    if not _SB3_CLASS:
        _SB3_CLASS.append(_sb3_class())
    return _SB3_CLASS[0](batched)


def _sb3_class() -> type:
    import time

    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecEnv

    class BatchedVecEnv(VecEnv):
        """SB3's VecEnv over a :class:`BatchedSingleAgentEnv` or a ``ProcessBatchedEnv`` (same-step autoreset,
        as SB3 expects); the single envs are reached through the batch's ``map_envs``."""

        def __init__(self, batched: Any):
            self.batched = batched
            super().__init__(batched.num_envs, batched.single_observation_space, batched.single_action_space)
            self._actions: Any = None
            # an array handed to SB3 must survive the next step: a copy unless the batch alternates buffers
            self._copy_obs = not (batched.copy or batched.double_buffer)
            # Monitor's episode statistics, per game: return (summed in step order, as Monitor sums), length
            self._t_start = time.time()
            self._returns = np.zeros(self.num_envs, dtype=np.float64)
            self._lengths = np.zeros(self.num_envs, dtype=np.int64)

        def reset(self):
            seeds = list(self._seeds) if any(s is not None for s in self._seeds) else None
            options = self._options[0]
            if any(o != options for o in self._options):
                raise ValueError("the batched env resets every game with the same options")
            obs, _ = self.batched.reset(seed=seeds, options=options or None)
            self._reset_seeds()
            self._reset_options()
            self._returns[:] = 0.0
            self._lengths[:] = 0
            return obs.copy() if self._copy_obs else obs

        def step_async(self, actions):
            self._actions = actions

        def step_wait(self):
            obs, rewards, terminations, truncations, _ = self.batched.step(self._actions)
            dones = terminations | truncations
            self._returns += rewards
            self._lengths += 1
            infos: list[dict] = [{} for _ in range(self.num_envs)]
            if self.batched.final_infos:
                elapsed = round(time.time() - self._t_start, 6)
                for i, (final_obs, final_info) in self.batched.final_infos.items():
                    info = dict(final_info)
                    info["episode"] = {"r": round(float(self._returns[i]), 6), "l": int(self._lengths[i]), "t": elapsed}
                    info["terminal_observation"] = final_obs
                    info["TimeLimit.truncated"] = bool(truncations[i] and not terminations[i])
                    infos[i] = info
                    self._returns[i] = 0.0
                    self._lengths[i] = 0
            return (obs.copy() if self._copy_obs else obs), rewards.astype(np.float32), dones, infos

        def close(self):
            self.batched.close()

        def get_attr(self, attr_name, indices=None):
            return self.batched.map_envs("get", list(self._get_indices(indices)), attr_name)

        def set_attr(self, attr_name, value, indices=None):
            for i in self._get_indices(indices):
                self.batched.map_envs("set", [i], attr_name, value)

        def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
            if method_name == "action_masks" and indices is None and not method_args and not method_kwargs:
                return self.batched.action_masks()  # one (N, A) array: np.stack copies it once
            indices = list(self._get_indices(indices))
            return self.batched.map_envs("call", indices, method_name, method_args, method_kwargs)

        def env_is_wrapped(self, wrapper_class, indices=None):
            # the episode infos are Monitor's (see SB3BatchedVecEnv): SB3's evaluate_policy may read them
            if wrapper_class is Monitor:
                return [True for _ in self._get_indices(indices)]
            return self.batched.map_envs("isinstance", list(self._get_indices(indices)), wrapper_class)

        def get_images(self):
            return list(self.batched.render())

    return BatchedVecEnv
