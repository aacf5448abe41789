"""wrappers/heap.py: the collector off the start-up heap of a training run. It must restore the caller's
collector settings, reach the worker processes and the training loop, and change no result."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from farmgames.training.cli import main
from farmgames.training.config import load_config
from farmgames.training.imitation import collect_demos, demo_env_kwargs
from farmgames.training.train import _EnvFactory, _start_method
from farmgames.wrappers import heap
from farmgames.wrappers.heap import YOUNG_THRESHOLD, settle_worker, settled_heap

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "fields_of_green" / "smoke.yaml"  # the CI smoke run


@pytest.fixture
def collector():
    """The test process's collector settings, put back whatever a test does."""
    thresholds = gc.get_threshold()
    yield thresholds
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def test_settled_heap_freezes_raises_the_young_threshold_and_restores(collector):
    assert gc.get_freeze_count() == 0
    keep = [[i] for i in range(1000)]  # containers alive at entry: frozen
    with settled_heap() as frozen:
        assert frozen >= len(keep) and gc.get_freeze_count() > 0
        assert gc.get_threshold() == (max(YOUNG_THRESHOLD, collector[0]), *collector[1:])
        # frozen: out of the generations the collector walks (and so out of gc.get_objects())
        assert not any(o is keep[0] for o in gc.get_objects())
    assert gc.get_freeze_count() == 0
    assert any(o is keep[0] for o in gc.get_objects())
    assert gc.get_threshold() == collector


def test_settled_heap_restores_after_an_error(collector):
    with pytest.raises(RuntimeError, match="inside"), settled_heap():
        raise RuntimeError("inside")
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == collector


def test_settled_heap_still_frees_unreachable_cycles_of_the_run(collector):
    """What the run allocates is still collected: a cycle made inside the block is freed by a collection."""

    class Node:
        pass

    with settled_heap():
        a, b = Node(), Node()
        a.other, b.other = b, a
        ids = {id(a), id(b)}
        del a, b
        gc.collect()
        assert not any(id(o) in ids for o in gc.get_objects() if isinstance(o, Node))


def _worker_state() -> tuple[int, tuple[int, int, int]]:
    return gc.get_freeze_count(), gc.get_threshold()


def test_settle_worker_as_a_pool_initializer():
    with multiprocessing.get_context(_start_method()).Pool(1, initializer=settle_worker) as pool:
        frozen, thresholds = pool.apply(_worker_state)
    assert frozen > 0 and thresholds[0] == max(YOUNG_THRESHOLD, gc.get_threshold()[0])


def test_demonstrations_are_the_same_with_and_without_the_settled_heap(monkeypatch):
    kwargs = demo_env_kwargs(load_config(SMOKE))
    settled = collect_demos(kwargs, "heuristic", games=2, workers=1, progress=False)
    monkeypatch.setattr(heap, "settled_heap", lambda: contextlib.nullcontext(0))
    plain = collect_demos(kwargs, "heuristic", games=2, workers=1, progress=False)
    for key in ("obs", "mask", "action", "reward", "game"):
        np.testing.assert_array_equal(settled[key], plain[key], err_msg=key)


def test_train_learns_inside_a_settled_heap_and_restores(monkeypatch, tmp_path, collector):
    seen = []

    @contextlib.contextmanager
    def spy():
        with settled_heap() as frozen:
            seen.append((frozen, gc.get_threshold()))
            yield frozen

    monkeypatch.setattr(heap, "settled_heap", spy)
    out = tmp_path / "run"
    assert main(["train", "--config", str(SMOKE), "--total-steps", "128", "--out", str(out), "--no-progress"]) == 0
    assert len(seen) == 1 and seen[0][0] > 0 and seen[0][1][0] == max(YOUNG_THRESHOLD, collector[0])
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == collector
    assert (out / "final.zip").is_file()


def _factory_state(worker: bool) -> tuple[int, int]:
    env = _EnvFactory({"game": "fields_of_green_v0", "num_players": 2, "opponents": "random"}, worker=worker)()
    env.close()
    return gc.get_freeze_count(), gc.get_threshold()[0]


@pytest.mark.parametrize("worker", [False, True])
def test_subproc_env_factory_settles_only_a_worker(worker):
    """``training.vec_env: subproc``: each SubprocVecEnv worker builds its env through ``_EnvFactory(worker=True)``
    and settles its heap; the factory of an in-process env leaves the collector alone."""
    with multiprocessing.get_context(_start_method()).Pool(1) as pool:
        frozen, young = pool.apply(_factory_state, (worker,))
    assert (frozen > 0) is worker
    assert (young == max(YOUNG_THRESHOLD, gc.get_threshold()[0])) is worker
