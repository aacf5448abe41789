"""The batched env split over processes: every core steps its share of the games, the parent's core included.

    from farmgames.wrappers.process_vector import ProcessBatchedEnv
    from farmgames.wrappers.vector import SB3BatchedVecEnv

    envs = ProcessBatchedEnv(8, game="fields_of_green_v0", num_players=2, opponents="heuristic", workers=2)
    obs, infos = envs.reset(seed=0)            # obs: (8, observation_size) float32, as BatchedSingleAgentEnv
    obs, rewards, terminations, truncations, infos = envs.step(actions)
    vec = SB3BatchedVecEnv(envs)               # for MaskablePPO: training.vec_workers in a config

Why: against the heuristic bot most of a learner step is the bot's own decisions (docs/profiling.md), which
the in-process :class:`~farmgames.wrappers.vector.BatchedSingleAgentEnv` plays on one core while the others
idle. SB3's ``SubprocVecEnv`` uses every core but pays a pipe round trip per env and per call, pickles every
observation and asks for the masks in a second round trip (it trained no faster here, issue 13). This env
splits the games into ``workers`` contiguous shares: the parent steps the first share itself, in-process, while
``workers - 1`` worker processes, each with one ``BatchedSingleAgentEnv``, step the others; the observation,
mask, action, reward and termination arrays are shared with them (``multiprocessing`` shared memory), so a
step is one short message to each worker and one reply (the finished games' final observations and infos,
pickled, the rest in the shared arrays). Worth it where a step is dear (bot opponents); for cheap steps the
messages cost more than a second core gives (``farmgames bench`` measures both).

What decides what a second core gives (docs/profiling.md, "Twenty-fourth pass" and "Twenty-fifth pass") is the time
between two steps: on the machines measured, a step run after a pause costs more than the same step run back to back,
the more the longer the pause, whether the process slept or kept busy (4 games against random opponents, medians of
three rounds: 28 µs a game step back to back; after a 0.2 / 1 / 3 ms busy wait 37 / 46 / 64 µs, after as long a
sleep 42 / 63 / 99 µs). So:

* **The parent steps a share itself**, on the core it was just busy on (the learner's forward pass), with no
  message and no copy through a pipe for those games; it waits for the workers only after that.
* **A process polls for the next message for ``spin`` seconds before it sleeps** (default 2 ms when the
  processes fit the usable cores, see below; ``spin=0``: it sleeps at once): a worker for its next command, the
  parent for the workers' replies. Polling saves the sleep's share of the cost above, not the pause's: in a tight
  loop of cheap steps it made the step 1.2-1.37x cheaper, and the parent's poll cut the time from the slower share's
  end to the step's return from ≈ 0.13 to ≈ 0.09 ms; in a MaskablePPO rollout (≈ 3 ms of the learner's own work
  between two steps) neither was visible in the env share, and a worker polling through the whole pause (50 ms)
  stepped its share no faster. Polling is the default only with ``workers`` at most the usable cores: with more
  processes than cores polling workers take the parent's core (3 processes on 2 cores: env share 32% polling,
  22% not, 19% with 2 processes), so the default is then 0; on a machine shared with other work, ``spin=0``
  gives the polling time back.

* **A worker's bots anticipate while the learner thinks** (``anticipate=True``, the default): after each reply a
  worker asks its games' opponents to work out their next decisions now (``SingleAgentEnv.anticipate``). The
  Fields of Green heuristic bot, in a 2-player game whose learner is choosing its act, plays an assumed act on a
  clone and makes its next pick and act there; the real ones reuse them when nothing they could read differs,
  so the games are exactly those of ``BatchedSingleAgentEnv`` (envs/fields_of_green/bots/anticipation.py). The
  worker stops between two games when the next command comes. It is work on the core the learner leaves idle:
  in ``ppo_2p_vs_heuristic`` rollouts the env time fell ≈ 1.7× (docs/profiling.md, "Twenty-sixth pass"), and a
  worker's share then costs less per game than the parent's, which cannot anticipate (its idle time is the
  learner's): ``parent_envs`` sets how many games the parent steps (default: an equal share). Where torch uses
  every core, ``anticipate=False`` leaves the learner its cores.

Workers start with ``forkserver`` where it exists (else ``spawn``; ``start_method="fork"`` as ``farmgames train``
uses), so a script that builds this env at import time needs the usual ``if __name__ == "__main__":`` guard.

The games, their seeds and so their episodes are those of ``BatchedSingleAgentEnv(num_envs, ...)`` (game
``i`` is reset with ``seed + i``), step for step: ``tests/wrappers/test_process_vector.py`` compares every
observation, mask, reward, termination and final info. The returned arrays are new each step (the
caller may keep them). A worker that fails raises ``RuntimeError`` with its traceback in the parent (worker
``w`` steps share ``w``; share 0 is the parent's), and the env refuses further steps (its games' state is then
unknown); an error in the parent's own share is reported the same way, as worker 0's.
``close()`` ends the workers; the workers also end when the parent's end of their pipe closes.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import time
import traceback
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .heap import settle_worker
from .single_agent import SingleAgentEnv
from .vector import _APPLY, BatchedSingleAgentEnv, check_actions, check_num_envs, reset_seeds

__all__ = ["ProcessBatchedEnv", "default_workers"]

SPIN = 0.002  # seconds a process polls for its next message before it sleeps (see the module doc)


def default_workers() -> int:
    """The cores this process may use (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - no affinity API (macOS)
        return max(1, multiprocessing.cpu_count() or 1)


def _slices(num_envs: int, workers: int, parent_envs: int | None = None) -> list[tuple[int, int]]:
    """Contiguous ``[lo, hi)`` game ranges: the parent's first (``parent_envs`` games, or an equal share), then the
    workers', as equal as possible (the first ones one game larger)."""
    out, lo = [], 0
    if parent_envs is not None and workers > 1:
        out.append((0, parent_envs))
        lo, num_envs, workers = parent_envs, num_envs - parent_envs, workers - 1
    base, extra = divmod(num_envs, workers)
    for w in range(workers):
        hi = lo + base + (w < extra)
        out.append((lo, hi))
        lo = hi
    return out


class _Share:
    """One contiguous share ``lo..hi-1`` of the games: its ``BatchedSingleAgentEnv`` and its rows of the shared
    arrays, which every reset and step fill. The parent steps share 0 through one, each worker its own."""

    def __init__(self, lo: int, hi: int, shared: tuple, game: str, env_kwargs: dict):
        obs_raw, masks_raw, actions_raw, rewards_raw, terms_raw, num_envs, size, num_actions = shared
        self.lo = lo
        self.obs = np.frombuffer(obs_raw, dtype=np.float32).reshape(num_envs, size)[lo:hi]
        self.masks = np.frombuffer(masks_raw, dtype=bool).reshape(num_envs, num_actions)[lo:hi]
        self.actions = np.frombuffer(actions_raw, dtype=np.int64)[lo:hi]
        self.rewards = np.frombuffer(rewards_raw, dtype=np.float64)[lo:hi]
        self.terms = np.frombuffer(terms_raw, dtype=bool)[lo:hi]
        self.batch = BatchedSingleAgentEnv(hi - lo, game, **env_kwargs)

    def step(self) -> list[tuple[int, np.ndarray, dict]]:
        """Step the share with its actions from the shared array; the finished games' ``(index in the whole
        batch, final observation, final info)``."""
        batch = self.batch
        o, r, t, _, _ = batch.step(self.actions)
        self.obs[:] = o
        self.masks[:] = batch._masks
        self.rewards[:] = r
        self.terms[:] = t
        return [(self.lo + i, final_obs, info) for i, (final_obs, info) in batch.final_infos.items()]

    def reset(self, seeds: list, options: dict | None) -> None:
        o, _ = self.batch.reset(seed=seeds, options=options)
        self.obs[:] = o
        self.masks[:] = self.batch._masks

    def map_envs(self, what: str, indices: list[int], args: tuple) -> list:
        return self.batch.map_envs(what, [i - self.lo for i in indices], *args)


def _check_split(num_envs: int, workers: int, parent_envs: Any, anticipate: Any) -> None:
    """``parent_envs`` leaves every worker a game; ``anticipate`` is a bool (no coercion: "no" is not False)."""
    if parent_envs is not None and (
        isinstance(parent_envs, bool)
        or not isinstance(parent_envs, (int, np.integer))
        or not 1 <= parent_envs <= num_envs - (workers - 1)
    ):
        raise ValueError(
            f"parent_envs must be an integer from 1 to num_envs - (workers - 1) ({num_envs - (workers - 1)}), "
            f"got {parent_envs!r}"
        )
    if not isinstance(anticipate, (bool, np.bool_)):
        raise ValueError(f"anticipate must be True or False, got {anticipate!r}")


def _poll(conn: Any, spin: float) -> None:
    """Poll ``conn`` for up to ``spin`` seconds, so that a message arriving meanwhile finds its reader awake (the
    reader's ``recv`` then returns at once; after that it sleeps in ``recv`` as usual). ``poll`` is True at EOF
    too, so a closed pipe ends the wait and ``recv`` reports it."""
    if spin > 0:
        clock = time.perf_counter
        deadline = clock() + spin
        while not conn.poll() and clock() < deadline:
            pass


def _worker(
    conn: Any, lo: int, hi: int, shared: tuple, game: str, env_kwargs: dict, spin: float, anticipate: bool = False
) -> None:
    """A worker process: a :class:`_Share` of games ``lo..hi-1`` of the parent's batch; commands and the rare
    pickled results over ``conn``. After a step or reset it lets its games' bots anticipate (``anticipate``) until
    the next command comes; then it polls ``conn`` for ``spin`` seconds before it sleeps in ``recv`` (module doc: a
    step right after the core slept costs more)."""
    # Ctrl-C goes to the whole process group: only the parent handles it (training saves its model and
    # closes the env), a worker killed mid-step would turn it into a worker failure
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    share = None
    try:
        share = _Share(lo, hi, shared, game, env_kwargs)
        settle_worker()  # the collector off what the worker inherited or built (wrappers/heap.py)
        conn.send(("ok", None))
        while True:
            _poll(conn, spin)
            try:
                command, arg = conn.recv()
            except EOFError:  # the parent is gone
                break
            try:
                if command == "step":
                    reply: Any = share.step()
                elif command == "reset":
                    share.reset(*arg)
                    reply = None
                elif command == "apply":
                    what, indices, args = arg
                    reply = share.map_envs(what, indices, args)
                elif command == "close":
                    conn.send(("ok", None))
                    break
                else:  # pragma: no cover - the parent sends only the commands above
                    raise ValueError(f"unknown worker command {command!r}")
            except Exception:
                conn.send(("error", traceback.format_exc()))
                continue
            conn.send(("ok", reply))
            if anticipate and command in ("step", "reset"):
                share.batch.anticipate(stop=conn.poll)  # (the same decisions: only earlier, while the learner thinks)
    except Exception:
        try:
            conn.send(("error", traceback.format_exc()))
        except OSError:  # pragma: no cover - the parent is gone
            pass
    finally:
        if share is not None:
            share.batch.close()
        conn.close()


class ProcessBatchedEnv(VectorEnv):
    """``num_envs`` :class:`SingleAgentEnv` games (same keywords) in ``workers`` shares, each a
    :class:`BatchedSingleAgentEnv`: the parent steps share 0 (``parent_envs`` games, default an equal share), a
    worker process each other share (see module doc). ``workers=1``: every game in the parent (no process).
    ``spin``: the seconds a worker polls for its next command, and the parent for the workers' replies, before it
    sleeps (0: at once; default :data:`SPIN` when ``workers`` is at most the usable cores, else 0).
    ``anticipate``: the workers let their games' bots work out their next decisions between steps (the same
    decisions; module doc)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}
    copy = True  # (what the SB3 adapter reads: every array handed out is new)
    double_buffer = False

    def __init__(
        self,
        num_envs: int,
        game: str = "fields_of_green",
        *,
        workers: int | None = None,
        start_method: str | None = None,
        spin: float | None = None,
        parent_envs: int | None = None,
        anticipate: bool = True,
        **env_kwargs: Any,
    ):
        self.num_envs = check_num_envs(num_envs)
        if workers is None:
            workers = min(default_workers(), self.num_envs)
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 1 <= workers <= num_envs:
            raise ValueError(f"workers must be an integer from 1 to num_envs ({num_envs}), got {workers!r}")
        if spin is None:  # polling workers would take the parent's core when there are more processes than cores
            spin = SPIN if workers <= default_workers() else 0.0
        if isinstance(spin, bool) or not isinstance(spin, (int, float)) or not 0 <= spin <= 1:
            raise ValueError(f"spin must be a number of seconds from 0 to 1, got {spin!r}")
        _check_split(self.num_envs, int(workers), parent_envs, anticipate)
        methods = multiprocessing.get_all_start_methods()
        if start_method is None:
            start_method = "forkserver" if "forkserver" in methods else "spawn"
        if start_method not in methods:
            raise ValueError(f"start_method must be one of {methods}, got {start_method!r}")
        for key in ("copy", "double_buffer"):
            if key in env_kwargs:
                raise ValueError(f"{key!r} is not a keyword of ProcessBatchedEnv (its arrays are always new)")
        self.workers = int(workers)
        self.spin = float(spin)
        self.anticipate = bool(anticipate)
        if start_method != "fork" and self.workers > 1:  # the keywords travel to workers pickled: say which cannot
            for key, value in env_kwargs.items():
                try:
                    pickle.dumps(value)
                except Exception as exc:  # noqa: BLE001 - any pickling failure
                    raise ValueError(
                        f"keyword {key!r} ({type(value).__name__}) cannot be sent to a worker process with "
                        f"start_method {start_method!r} ({exc}); use start_method='fork' or a picklable value"
                    ) from None
        # the spaces and the env's name from one game built here (this also checks the keywords in the parent,
        # with the single env's own errors, before any process starts)
        probe = SingleAgentEnv(game=game, **env_kwargs)
        self.single_observation_space: gymnasium.spaces.Box = probe.observation_space
        self.single_action_space: gymnasium.spaces.Discrete = probe.action_space
        self.metadata = {**type(self).metadata, "name": probe.metadata["name"]}
        self.render_mode = probe.render_mode
        probe.close()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.spec = None
        size, actions = int(self.single_observation_space.shape[0]), int(self.single_action_space.n)
        ctx = multiprocessing.get_context(start_method)
        n = self.num_envs
        raws = (
            ctx.RawArray("b", 4 * n * size),
            ctx.RawArray("b", n * actions),
            ctx.RawArray("b", 8 * n),
            ctx.RawArray("b", 8 * n),
            ctx.RawArray("b", n),
        )
        self._obs = np.frombuffer(raws[0], dtype=np.float32).reshape(n, size)
        self._masks = np.frombuffer(raws[1], dtype=bool).reshape(n, actions)
        self._actions = np.frombuffer(raws[2], dtype=np.int64)
        self._rewards = np.frombuffer(raws[3], dtype=np.float64)
        self._terms = np.frombuffer(raws[4], dtype=bool)
        self._truncations = np.zeros(n, dtype=bool)
        self._num_actions = actions
        self._slices = _slices(n, self.workers, None if parent_envs is None else int(parent_envs))
        self.parent_envs = self._slices[0][1]  # the games this process steps itself
        self._conns: list[Any] = []  # worker w (share w, from 1) at index w - 1
        self._procs: list[Any] = []
        self._broken: str | None = None
        self._has_reset = False
        self.closed = False
        #: per game that ended in the last step: (its last observation, its final info), as in ``infos``
        self.final_infos: dict[int, tuple[np.ndarray, dict]] = {}
        shared = (*raws, n, size, actions)
        self._local: _Share | None = None
        try:
            for lo, hi in self._slices[1:]:
                parent, child = ctx.Pipe()
                proc = ctx.Process(
                    target=_worker,
                    args=(child, lo, hi, shared, game, env_kwargs, self.spin, self.anticipate),
                    daemon=True,
                    name=f"farmgames-{lo}",
                )
                proc.start()
                child.close()
                self._conns.append(parent)
                self._procs.append(proc)
            for w, conn in enumerate(self._conns, start=1):  # every worker built its games
                try:
                    status, payload = conn.recv()
                except (EOFError, OSError) as exc:
                    status, payload = "error", f"ended unexpectedly ({exc!r})"
                    if start_method != "fork":  # the usual cause: the child re-ran the caller's script
                        payload += (
                            f"; with start_method {start_method!r} a worker imports the main module first: a script "
                            "that builds this env at import time needs `if __name__ == '__main__':` around it"
                        )
                if status != "ok":
                    raise RuntimeError(f"a ProcessBatchedEnv worker failed to start:\nworker {w}: {payload}")
            lo, hi = self._slices[0]
            self._local = _Share(lo, hi, shared, game, env_kwargs)  # the parent's own share (after the forks)
        except BaseException:
            self._terminate()
            raise

    # ------------------------------------------------------------------ gymnasium VectorEnv API

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        seeds = reset_seeds(seed, self.num_envs)
        self._check_open()
        lo, hi = self._slices[0]
        self._exchange(
            {w: ("reset", (seeds[a:b], options)) for w, (a, b) in enumerate(self._slices) if w},
            local=lambda: self._own().reset(seeds[lo:hi], options),
        )
        self._has_reset = True
        self.final_infos = {}
        return self._obs.copy(), {}

    def step(self, actions):
        """One learner decision per game: every worker steps its share while the parent steps its own."""
        if not self._has_reset:
            raise RuntimeError("step() called before reset()")
        actions = check_actions(actions, self.num_envs)
        if actions.dtype.kind == "u" and actions.size and int(actions.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"actions must fit in int64, got {int(actions.max())}")
        self._check_open()
        self._actions[:] = actions  # (values outside the action space take the single env's illegal-action path)
        finished: list[tuple[int, np.ndarray, dict]] = []
        replies = self._exchange(
            {w: ("step", None) for w in range(1, self.workers)}, local=lambda: finished.extend(self._own().step())
        )
        finished += [item for reply in replies for item in reply]
        infos: dict[str, Any] = {}
        self.final_infos = {}
        for i, final_obs, info in sorted(finished, key=lambda t: t[0]):
            self.final_infos[i] = (final_obs, info)
            infos = self._add_info(infos, {"final_obs": final_obs, "final_info": info}, i)
        return self._obs.copy(), self._rewards.copy(), self._terms.copy(), self._truncations.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool (a new array)."""
        return self._masks.copy()

    def render(self):
        return tuple(self.map_envs("call", range(self.num_envs), "render", (), {}))

    def close_extras(self, **kwargs: Any) -> None:
        if self._broken is None:
            for conn in self._conns:
                try:
                    conn.send(("close", None))
                except OSError:  # pragma: no cover - the worker is gone
                    pass
            for conn in self._conns:
                try:
                    conn.recv()
                except (EOFError, OSError):  # pragma: no cover
                    pass
        self._terminate()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        return tuple(self.map_envs("call", range(self.num_envs), name, args, kwargs))

    def get_attr(self, name: str) -> tuple:
        return tuple(self.map_envs("get", range(self.num_envs), name))

    def set_attr(self, name: str, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr needs {self.num_envs} values, got {len(values)}")
        for i, value in enumerate(values):
            self.map_envs("set", [i], name, value)

    # ------------------------------------------------------------------ shared with the SB3 adapter

    def map_envs(self, what: str, indices: Sequence[int], *args: Any) -> list:
        """``what`` (``get``, ``set``, ``call``, ``isinstance``, ``seed_action_space``) applied to the single
        envs ``indices`` where they are (the parent's share here, the others in their workers, with ``args``
        pickled); the results in the order of ``indices``."""
        if what not in _APPLY:
            raise ValueError(f"map_envs: what must be one of {sorted(_APPLY)}, got {what!r}")
        indices = [int(i) for i in indices]
        for i in indices:
            if not 0 <= i < self.num_envs:
                raise IndexError(f"env index {i} out of range 0..{self.num_envs - 1}")
        self._check_open()
        shares = [[i for i in indices if lo <= i < hi] for lo, hi in self._slices]
        messages = {w: ("apply", (what, mine, args)) for w, mine in enumerate(shares) if w and mine}
        results: dict[int, Any] = {}
        own: list = []
        mine = self._own()
        replies = self._exchange(messages, breaks=False, local=lambda: own.extend(mine.map_envs(what, shares[0], args)))
        results.update(zip(shares[0], own, strict=True))
        for w, reply in zip(messages, replies, strict=True):
            results.update(zip(shares[w], reply, strict=True))
        return [results[i] for i in indices]

    # ------------------------------------------------------------------ internals

    def _own(self) -> _Share:
        """The parent's share (there from the end of ``__init__``)."""
        assert self._local is not None
        return self._local

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("the env is closed")
        if self._broken is not None:
            raise RuntimeError(f"a worker failed earlier; this env cannot step any more:\n{self._broken}")

    def _exchange(self, messages: dict[int, tuple], breaks: bool = True, local: Any = None) -> list:
        """Send each worker (by share number, from 1) its message, run ``local`` (the parent's share of the
        work) meanwhile, then take every reply in the workers' order (all of them before raising, so no reply
        is left in a pipe). ``breaks``: a failure leaves the games in an unknown state (a reset or step), so
        the env refuses to go on; a failed ``map_envs`` (say, a missing attribute) changed nothing and only
        raises. A worker that is gone always breaks the env. An error in ``local`` is reported as worker 0's
        (share 0 is the parent's), chained to the original exception."""
        try:
            return self._exchange_all(messages, breaks, local)
        except KeyboardInterrupt:  # replies may be left in the pipes: this env cannot step any more
            self._broken = "interrupted (KeyboardInterrupt) while the workers were busy"
            raise

    def _exchange_all(self, messages: dict[int, tuple], breaks: bool, local: Any) -> list:
        errors: dict[int, str] = {}
        for w, command in messages.items():
            try:
                self._conns[w - 1].send(command)
            except OSError as exc:
                errors[w] = f"ended unexpectedly ({exc!r})"
                breaks = True
        failed: BaseException | None = None
        if local is not None:
            try:
                local()
            except Exception as exc:  # reported below as a worker's, once every worker has replied
                failed = exc
                errors[0] = f"(the parent's share) {traceback.format_exc()}"
        replies = []
        for w in messages:
            if w in errors:
                continue
            conn = self._conns[w - 1]
            try:
                _poll(conn, self.spin)  # awake when the reply comes: the parent waits for it anyway
                status, payload = conn.recv()
            except (EOFError, OSError) as exc:
                errors[w] = f"ended unexpectedly ({exc!r})"
                breaks = True
                continue
            if status == "ok":
                replies.append(payload)
            else:
                errors[w] = payload
        if errors:
            message = "\n".join(f"worker {w}: {errors[w]}" for w in sorted(errors))
            if breaks:
                self._broken = message
            raise RuntimeError(f"a ProcessBatchedEnv worker failed:\n{message}") from failed
        return replies

    def _terminate(self) -> None:
        for conn in self._conns:
            conn.close()
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():  # pragma: no cover - a worker stuck in a step
                proc.terminate()
                proc.join(timeout=5)
        self._conns, self._procs = [], []
        if self._local is not None:
            self._local.batch.close()
