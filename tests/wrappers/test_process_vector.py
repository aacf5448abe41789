"""ProcessBatchedEnv (wrappers/process_vector.py): the batched env split over worker processes plays exactly
the games of the in-process BatchedSingleAgentEnv, refuses bad input without touching the games, and reports
a failed worker instead of hanging."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from farmgames.wrappers.process_vector import ProcessBatchedEnv, _poll, _slices
from farmgames.wrappers.vector import BatchedSingleAgentEnv

KW = {"game": "fields_of_green_v0", "num_players": 2, "opponents": "random"}


def _choose(masks: np.ndarray, rng: random.Random) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row).tolist()) for row in masks], dtype=np.int64)


def _same(x, y, where: str = "infos") -> None:
    """Equal nested infos (gymnasium's vector layout: dicts of arrays, object arrays of observations)."""
    if isinstance(x, dict):
        assert isinstance(y, dict) and x.keys() == y.keys(), where
        for key in x:
            _same(x[key], y[key], f"{where}[{key!r}]")
    elif isinstance(x, np.ndarray) and x.dtype == object:
        assert isinstance(y, np.ndarray) and x.shape == y.shape, where
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            _same(u, v, f"{where}[{i}]")
    else:
        np.testing.assert_array_equal(x, y, err_msg=where)


def _same_step(a: tuple, b: tuple) -> None:
    for x, y in zip(a[:4], b[:4], strict=True):
        np.testing.assert_array_equal(x, y)
    _same(a[4], b[4])


@pytest.fixture
def procs():
    made = []

    def make(*args, **kwargs):
        env = ProcessBatchedEnv(*args, **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


def test_slices_cover_every_game_once():
    for n in range(1, 12):
        for w in range(1, n + 1):
            cuts = _slices(n, w)
            assert len(cuts) == w and cuts[0][0] == 0 and cuts[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
            sizes = [hi - lo for lo, hi in cuts]
            assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
            for parent in range(1, n - w + 2) if w > 1 else ():
                cuts = _slices(n, w, parent)  # the parent's share as asked, the workers' as equal as possible
                assert cuts[0] == (0, parent) and len(cuts) == w and cuts[-1][1] == n
                assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
                sizes = [hi - lo for lo, hi in cuts[1:]]
                assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1


@pytest.mark.parametrize(
    ("n", "workers", "opponents", "spin", "more"),
    [
        (4, 2, "random", 0.002, {}),
        (5, 2, "random", 0.0, {}),
        (3, 3, "heuristic", 0.002, {}),
        (3, 1, "random", 0.002, {}),
        (4, 2, "heuristic", 0.002, {"parent_envs": 1}),
        (3, 2, "heuristic", 0.0, {"anticipate": False}),
    ],
)
def test_the_same_games_as_the_in_process_batch(procs, n, workers, opponents, spin, more):
    """Step for step (episodes ending and restarting included): observations, masks, rewards, terminations,
    truncations, final observations and final infos; the parent steps the first share (``parent_envs`` games, or
    an equal share) and ``workers - 1`` processes the others (``workers=1``: none), polling between commands or not
    (``spin``), their heuristic bots anticipating while the parent is away (``anticipate``, the default) or not."""
    kw = {**KW, "opponents": opponents}
    here = BatchedSingleAgentEnv(n, **kw)
    there = procs(n, workers=workers, spin=spin, **more, **kw)
    assert there.parent_envs == more.get("parent_envs", there._slices[0][1])
    assert len(there._procs) == workers - 1 and all(p.is_alive() for p in there._procs)
    assert there.single_observation_space == here.single_observation_space
    assert there.single_action_space == here.single_action_space
    a, b = here.reset(seed=11), there.reset(seed=11)
    np.testing.assert_array_equal(a[0], b[0])
    rng = random.Random(0)
    ended = 0
    for _ in range(160 if opponents == "random" else 60):
        masks = here.action_masks()
        np.testing.assert_array_equal(masks, there.action_masks())
        actions = _choose(masks, rng)
        out_a, out_b = here.step(actions), there.step(actions)
        _same_step(out_a, out_b)
        assert here.final_infos.keys() == there.final_infos.keys()
        for i in here.final_infos:
            np.testing.assert_array_equal(here.final_infos[i][0], there.final_infos[i][0])
            _same(here.final_infos[i][1], there.final_infos[i][1])
        ended += len(there.final_infos)
    if opponents == "random":
        assert ended > 0, "no game ended: step longer"
    here.close()


def test_an_illegal_action_takes_the_single_envs_path(procs):
    here, there = BatchedSingleAgentEnv(2, **KW), procs(2, workers=2, **KW)
    here.reset(seed=1), there.reset(seed=1)
    bad = np.flatnonzero(~here.action_masks()[0])[0]
    actions = np.array([bad, np.flatnonzero(here.action_masks()[1])[0]])
    _same_step(here.step(actions), there.step(actions))
    assert there.final_infos[0][1]["illegal_action"] is True
    here.close()


def test_bad_arguments_name_the_field(procs):
    with pytest.raises(ValueError, match="workers must be an integer from 1 to num_envs \\(2\\), got 3"):
        ProcessBatchedEnv(2, workers=3, **KW)
    with pytest.raises(ValueError, match="workers .* got True"):
        ProcessBatchedEnv(2, workers=True, **KW)
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got 0"):
        ProcessBatchedEnv(0, **KW)
    with pytest.raises(ValueError, match="'copy' is not a keyword"):
        ProcessBatchedEnv(2, copy=False, **KW)
    for spin in (-0.001, 2, "0.002", True):
        with pytest.raises(ValueError, match=f"spin must be a number of seconds from 0 to 1, got {spin!r}"):
            ProcessBatchedEnv(2, spin=spin, **KW)
    for parent in (0, 2, True, "1", 1.0):
        with pytest.raises(ValueError, match=f"parent_envs must be an integer from 1 to .* \\(1\\), got {parent!r}"):
            ProcessBatchedEnv(2, workers=2, parent_envs=parent, **KW)
    with pytest.raises(ValueError, match="anticipate must be True or False, got 'yes'"):
        ProcessBatchedEnv(2, anticipate="yes", **KW)
    with pytest.raises(ValueError, match="start_method must be one of"):
        ProcessBatchedEnv(2, start_method="threads", **KW)
    with pytest.raises(ValueError, match="keyword 'resolver' .* cannot be sent to a worker"):
        ProcessBatchedEnv(2, workers=2, start_method="spawn", resolver=lambda spec: spec, **KW)
    with pytest.raises(ValueError, match="num_players"):  # the single env's own check, in the parent
        ProcessBatchedEnv(2, **{**KW, "num_players": 9})


def test_workers_poll_only_when_every_process_has_a_core(procs, monkeypatch):
    """By default a worker polls (``SPIN``) only when the processes fit the usable cores; with more processes
    than cores polling workers would take the parent's core, so they sleep at once. A given ``spin`` is kept."""
    import farmgames.wrappers.process_vector as process_vector

    monkeypatch.setattr(process_vector, "default_workers", lambda: 2)
    assert procs(3, workers=2, **KW).spin == process_vector.SPIN > 0
    assert procs(3, workers=3, **KW).spin == 0.0
    assert procs(3, workers=3, spin=0.001, **KW).spin == 0.001


def test_poll_waits_at_most_spin_for_a_message_and_never_past_one():
    """``_poll``: a waiting message or a closed pipe ends it at once; with nothing to read it returns after
    ``spin`` (the reader then sleeps in ``recv``); ``spin=0`` does not wait."""
    import multiprocessing
    import time

    reader, writer = multiprocessing.Pipe(duplex=False)
    start = time.perf_counter()
    _poll(reader, 0.05)
    assert time.perf_counter() - start >= 0.05
    assert not reader.poll()
    writer.send("step")
    _poll(reader, 1.0)
    assert reader.poll() and reader.recv() == "step"
    start = time.perf_counter()
    _poll(reader, 0)
    writer.close()
    _poll(reader, 1.0)  # EOF: poll is True, so the wait ends and recv reports it
    assert time.perf_counter() - start < 0.9
    with pytest.raises(EOFError):
        reader.recv()


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_a_worker_that_dies_mid_step_ends_the_parents_poll(procs, monkeypatch):
    """The parent polls for the workers' replies (``spin``): a worker that dies while stepping ends the wait
    with its EOF, and is reported (forked, the worker runs the patched step: it exits inside it)."""
    import time

    import farmgames.wrappers.process_vector as process_vector

    step = process_vector._Share.step

    def dies_in_a_worker(self):
        if self.lo:  # share 0 is the parent's
            os._exit(3)
        return step(self)

    monkeypatch.setattr(process_vector._Share, "step", dies_in_a_worker)
    env = procs(4, workers=2, spin=1.0, start_method="fork", **KW)
    env.reset(seed=0)
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="worker 1: ended unexpectedly"):
        env.step(_choose(env.action_masks(), random.Random(0)))
    assert time.perf_counter() - start < 0.9  # the EOF, not the end of the poll, ended the wait


def test_a_rejected_step_leaves_every_game_as_it_was(procs):
    here, there = BatchedSingleAgentEnv(3, **KW), procs(3, workers=2, **KW)
    with pytest.raises(RuntimeError, match="before reset"):
        there.step(np.zeros(3, dtype=np.int64))
    here.reset(seed=5), there.reset(seed=5)
    for bad, message in (
        (np.zeros(2, dtype=np.int64), "needs 3 actions"),
        (np.zeros(3, dtype=np.float64), "must be integers"),
        (np.full(3, 2**63, dtype=np.uint64), "must fit in int64"),
    ):
        with pytest.raises(ValueError, match=message):
            there.step(bad)
    rng = random.Random(2)
    for _ in range(5):
        actions = _choose(here.action_masks(), rng)
        _same_step(here.step(actions), there.step(actions))
    here.close()


def test_attributes_and_calls_reach_the_games_in_their_workers(procs):
    env = procs(3, workers=2, **KW)
    env.reset(seed=0)
    assert env.get_attr("reward_scale") == (1.0, 1.0, 1.0)
    env.set_attr("reward_scale", [1.0, 2.0, 3.0])
    assert env.map_envs("get", [2, 0], "reward_scale") == [3.0, 1.0]
    masks = env.call("action_masks")
    np.testing.assert_array_equal(np.stack(masks), env.action_masks())
    with pytest.raises(ValueError, match="what must be one of"):
        env.map_envs("exec", [0])
    with pytest.raises(IndexError, match="env index 3 out of range 0..2"):
        env.map_envs("get", [3], "reward_scale")
    # a failed call changed nothing: it raises, and the env goes on
    with pytest.raises(RuntimeError, match="no_such_method"):
        env.call("no_such_method")
    env.step(_choose(env.action_masks(), random.Random(0)))


def test_a_worker_that_dies_is_reported_and_the_env_stops(procs):
    env = procs(4, workers=3, **KW)
    env.reset(seed=0)
    env._procs[1].kill()  # worker 2: share 0 is the parent's
    env._procs[1].join()
    with pytest.raises(RuntimeError, match="worker 2: ended unexpectedly"):
        env.step(_choose(env.action_masks(), random.Random(0)))
    with pytest.raises(RuntimeError, match="failed earlier"):
        env.step(_choose(env.action_masks(), random.Random(0)))


def test_an_error_in_the_parents_share_is_reported_and_the_env_stops(procs, monkeypatch):
    """Share 0 is stepped by the parent: its error is reported as worker 0's, after the workers have replied
    (nothing left in a pipe: the env still closes cleanly), and the env refuses further steps."""
    env = procs(4, workers=2, **KW)
    env.reset(seed=0)

    def broken(actions):
        raise KeyError("boom")

    monkeypatch.setattr(env._local.batch, "step", broken)
    with pytest.raises(RuntimeError, match=r"worker 0: \(the parent's share\)(.|\n)*KeyError: 'boom'") as info:
        env.step(_choose(env.action_masks(), random.Random(0)))
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(RuntimeError, match="failed earlier"):
        env.step(_choose(env.action_masks(), random.Random(0)))
    workers = list(env._procs)
    env.close()
    assert not any(p.is_alive() for p in workers)


def test_close_ends_the_workers(procs):
    env = procs(2, workers=2, **KW)
    workers = list(env._procs)
    env.close()
    assert not any(p.is_alive() for p in workers)
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)


def test_the_sb3_adapter_gives_the_same_transitions(procs):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.monitor import Monitor

    from farmgames.wrappers.single_agent import SingleAgentEnv
    from farmgames.wrappers.vector import SB3BatchedVecEnv

    a = SB3BatchedVecEnv(BatchedSingleAgentEnv(4, **KW))
    b = SB3BatchedVecEnv(procs(4, workers=2, **KW))
    a.seed(3), b.seed(3)
    np.testing.assert_array_equal(a.reset(), b.reset())
    assert b.env_is_wrapped(Monitor) == [True] * 4 and b.env_is_wrapped(SingleAgentEnv, indices=[1]) == [True]
    assert b.get_attr("reward_scale", indices=[0, 3]) == [1.0, 1.0]
    rng, ends = random.Random(1), 0
    for _ in range(150):
        masks = a.env_method("action_masks")
        np.testing.assert_array_equal(masks, b.env_method("action_masks"))
        actions = _choose(masks, rng)
        a.step_async(actions), b.step_async(actions)
        oa, ra, da, ia = a.step_wait()
        ob, rb, db, ib = b.step_wait()
        for x, y in ((oa, ob), (ra, rb), (da, db)):
            np.testing.assert_array_equal(x, y)
        for x, y in zip(ia, ib, strict=True):
            assert x.keys() == y.keys()
            if "terminal_observation" in x:
                ends += 1
                np.testing.assert_array_equal(x["terminal_observation"], y["terminal_observation"])
                assert x["episode"]["r"] == y["episode"]["r"] and x["episode"]["l"] == y["episode"]["l"]
    assert ends > 0
    a.close()


def test_ctrl_c_is_the_parents_alone(procs):
    """Ctrl-C reaches the whole process group: the workers ignore it, so training can catch it in the parent,
    save its model and close the env (a worker killed mid-step would be a worker failure instead)."""
    import os
    import signal

    env = procs(2, workers=2, **KW)
    env.reset(seed=0)
    for proc in env._procs:
        os.kill(proc.pid, signal.SIGINT)
    rng = random.Random(0)
    for _ in range(3):
        env.step(_choose(env.action_masks(), rng))
    assert all(proc.is_alive() for proc in env._procs)


def test_a_script_without_the_main_guard_is_told_what_to_do(tmp_path):
    """With forkserver or spawn a worker imports the caller's main module first: a script that builds the env
    at import time starts workers from inside a worker, which multiprocessing refuses. The parent says why."""
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    script.write_text(
        "from farmgames.wrappers.process_vector import ProcessBatchedEnv\n"
        "ProcessBatchedEnv(2, workers=2, start_method='spawn', game='fields_of_green_v0', num_players=2)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "failed to start" in done.stderr and "if __name__ == '__main__':" in done.stderr


def test_each_worker_settles_its_heap(monkeypatch, tmp_path):
    """Every worker keeps the collector off its inherited heap once its games are built (wrappers/heap.py): the
    call is seen in each forked worker, and the games are the in-process batch's."""
    import farmgames.wrappers.process_vector as process_vector

    real = process_vector.settle_worker

    def spy() -> int:
        frozen = real()
        (tmp_path / f"settled-{os.getpid()}").write_text(str(frozen))
        return frozen

    monkeypatch.setattr(process_vector, "settle_worker", spy)  # a forked worker inherits the patched module
    env = ProcessBatchedEnv(4, workers=3, start_method="fork", **KW)  # the parent and two workers
    try:
        obs, _ = env.reset(seed=3)
    finally:
        env.close()
    marks = sorted(tmp_path.glob("settled-*"))
    assert len(marks) == 2 and all(int(m.read_text()) > 0 for m in marks)
    assert f"settled-{os.getpid()}" not in [m.name for m in marks]  # the parent's own heap is the caller's
    ref = BatchedSingleAgentEnv(4, **KW)
    np.testing.assert_array_equal(obs, ref.reset(seed=3)[0])
    ref.close()


def test_the_workers_bots_anticipate_between_steps(procs, monkeypatch, tmp_path):
    """A worker lets its games' bots anticipate after each step (forked, it runs this spy), and not when told not to."""
    from farmgames.wrappers import vector

    anticipate = vector.BatchedSingleAgentEnv.anticipate

    def spy(self, stop=None):
        made = anticipate(self, stop)
        with open(tmp_path / f"made-{os.getpid()}", "a") as log:
            log.write(f"{made}\n")
        return made

    monkeypatch.setattr(vector.BatchedSingleAgentEnv, "anticipate", spy)
    kw = {**KW, "opponents": "heuristic"}
    for flag in (True, False):
        env = procs(3, workers=2, parent_envs=1, start_method="fork", anticipate=flag, **kw)
        env.reset(seed=5)
        rng = random.Random(1)
        for _ in range(30):
            env.step(_choose(env.action_masks(), rng))
        env.close()
        logs = list(tmp_path.glob("made-*"))
        if flag:
            assert len(logs) == 1 and str(os.getpid()) not in logs[0].name  # the worker's, not the parent's
            made = [int(x) for x in logs[0].read_text().split()]
            assert len(made) >= 30 and sum(made) > 5
            logs[0].unlink()
        else:
            assert logs == []
