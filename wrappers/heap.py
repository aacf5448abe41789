"""Keep Python's cyclic garbage collector off the start-up heap of a long training run and of its env workers.

A training process holds ≈ 320,000 long-lived objects from its start-up (torch, SB3, the model, the envs' card
sets), and Python's full collections walk all of them. They are triggered by the run's own allocations, mostly
the heuristic bots' searches inside env steps: in the FoG ``ppo_2p_vs_heuristic`` loop one full collection cost
≈ 0.17 s and the collector 4.2–4.4% of the wall time (docs/profiling.md, "Twenty-second pass"). Inside
:func:`settled_heap` what exists at entry sits in the collector's permanent generation (``gc.freeze``, the
standard library's tool for this), and the young generation is collected after :data:`YOUNG_THRESHOLD` net
allocations instead of Python's 700, so a search's short-lived tuples and lists die by reference counting before
a collection has to look at them: the collector's share fell to 0.3–0.5%. Frozen objects are still freed by
reference counting (only cycles among them wait until the exit, which unfreezes them). No decision, observation
or weight changes: the collector frees memory, it runs no game code.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000  # net container allocations between young collections (Python's default: 700)


def settle_worker() -> int:
    """Collect once, freeze every object alive now and raise the young threshold, for the rest of the process
    (a worker that ends with its work, e.g. a ``multiprocessing.Pool`` initializer); returns the frozen count."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(max(YOUNG_THRESHOLD, thresholds[0]), *thresholds[1:])
    return gc.get_freeze_count()


@contextmanager
def settled_heap() -> Iterator[int]:
    """:func:`settle_worker` for the ``with`` block only; yields the number of frozen objects. On exit the
    objects are unfrozen and the thresholds restored, so a caller's process (a test session, a notebook) keeps
    its own collector settings."""
    thresholds = gc.get_threshold()
    frozen = settle_worker()
    try:
        yield frozen
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
