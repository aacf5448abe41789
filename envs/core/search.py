"""Search bots for any game on the core protocols: determinised MCTS (PIMC) and single-observer IS-MCTS.

Both read the engine through :class:`~farmgames.envs.core.protocol.SearchableGame` and never look at what
the deciding seat cannot see: every simulation starts from ``game.resample_from_infostate(seat, rng)``,
a complete state drawn from what that seat knows (other hands, pile orders, future dice redrawn).

* :class:`PIMCBot` (Perfect Information Monte Carlo, "determinised MCTS"): draw ``determinizations``
  states; on each run a plain UCT search with an equal share of the simulation budget as if the
  state were fully known; add the root visit counts over the draws and play the most visited action.
  Fast and strong in card games, but it assumes it will know everything later (strategy fusion).
* :class:`ISMCTSBot` (single-observer information-set MCTS, Cowling, Powley & Whitehouse 2012, in the
  form of OpenSpiel's ``ISMCTSBot``): one tree for the whole search, one fresh determinisation per
  simulation. A node is an information set of the seat acting there *as far as the searching seat can
  tell it apart*: its key is the sequence, since the root, of what that seat observed of each action
  (``action_token``) and saw afterwards (``view_token``). Hidden moves of other seats (a face-down pick)
  therefore lead to one node, and the statistics of every determinisation are shared. Selection is UCB
  with availability counts (an action is only counted where it was legal).

Budgets count simulations (each one: selection, expansion of one node, a playout, backpropagation).
A playout is uniformly random; with ``rollout_depth`` it stops after that many decisions and the
position is valued from the current scores (``tanh`` of each seat's margin over the others, scaled by
``margin_scale``); a finished game is valued by ``returns()`` (+1 win, -1 loss). Everything is pure
Python and seeded: the same seed and the same game give the same move.

Games that also offer ``infostate_sampler(seat) -> (rng -> state)`` (analyse once, draw many times)
are sampled through it; it must draw from the same distribution as ``resample_from_infostate``.

>>> from farmgames.envs.core.search import ISMCTSBot
>>> ISMCTSBot(seed=1, simulations=50)
ISMCTSBot(seed=1, simulations=50)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from .bots import Bot

__all__ = ["BUDGETS", "ISMCTSBot", "PIMCBot", "leaf_values", "random_playout", "sampler_for", "search_bots"]

Sampler = Callable[[random.Random], Any]


def sampler_for(game: Any, seat: int) -> Sampler:
    """A function ``rng -> state`` drawing states consistent with what ``seat`` knows in ``game``."""
    fast = getattr(game, "infostate_sampler", None)
    if fast is not None:
        sampler: Sampler = fast(seat)
        return sampler
    resample = getattr(game, "resample_from_infostate", None)
    if resample is None:
        raise TypeError(
            f"{type(game).__name__} has no resample_from_infostate(seat, rng): search bots need the "
            "SearchableGame protocol (farmgames.envs.core.protocol)"
        )
    return lambda rng: resample(seat, rng)


def _action_token(game: Any, seat: int, action: int) -> Hashable:
    fn = getattr(game, "action_token", None)
    return action if fn is None else fn(seat, action)


def _view_token(game: Any, seat: int) -> Hashable:
    fn = getattr(game, "view_token", None)
    return None if fn is None else fn(seat)


def leaf_values(game: Any, margin_scale: float | None = None) -> list[float]:
    """Values in [-1, 1] per seat: ``returns()`` at the end, else the mean over the other seats of
    ``tanh((own total - their total) / scale)`` from the current scores."""
    if game.is_terminal():
        return [float(r) for r in game.returns()]
    totals = [float(s.total) for s in game.scores()]
    n = len(totals)
    scale = margin_scale or max(2.0, 0.1 * sum(abs(t) for t in totals) / n)
    out = []
    for p in range(n):
        out.append(sum(math.tanh((totals[p] - totals[q]) / scale) for q in range(n) if q != p) / (n - 1))
    return out


def random_playout(game: Any, rng: random.Random, depth: int | None) -> int:
    """Play uniformly random legal actions (at most ``depth`` of them); returns how many were played."""
    steps = 0
    while not game.is_terminal() and (depth is None or steps < depth):
        legal = game.legal_actions()
        game.apply(legal[0] if len(legal) == 1 else rng.choice(legal))
        steps += 1
    return steps


class _SearchBot(Bot):
    """Shared settings of the search bots."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        simulations: int = 100,
        exploration: float = 1.4,
        rollout_depth: int | None = None,
        margin_scale: float | None = None,
    ):
        super().__init__(seed)
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        if rollout_depth is not None and (
            isinstance(rollout_depth, bool) or not isinstance(rollout_depth, int) or rollout_depth < 0
        ):
            raise ValueError(f"rollout_depth must be a non-negative integer or None, got {rollout_depth!r}")
        self.simulations = simulations
        self.exploration = float(exploration)
        self.rollout_depth = rollout_depth
        self.margin_scale = margin_scale
        self.last_stats: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, simulations={self.simulations})"

    def _values(self, state: Any) -> list[float]:
        random_playout(state, self.rng, self.rollout_depth)
        return leaf_values(state, self.margin_scale)


class _Node:
    """Statistics of one decision point: per action visits and summed values of the deciding seat."""

    __slots__ = ("visits", "value", "avail", "total")

    def __init__(self) -> None:
        self.visits: dict[int, int] = {}
        self.value: dict[int, float] = {}
        self.avail: dict[int, int] = {}
        self.total = 0

    def select(self, legal: list[int], c: float, rng: random.Random, use_avail: bool) -> tuple[int, bool]:
        """(action, is_new): an untried legal action at random, else the best UCB score."""
        if use_avail:
            for a in legal:
                self.avail[a] = self.avail.get(a, 0) + 1
        untried = [a for a in legal if a not in self.visits]
        if untried:
            return rng.choice(untried), True
        best, best_score = legal[0], -math.inf
        log_total = math.log(max(1, self.total))
        for a in legal:
            n = self.visits[a]
            log_n = math.log(max(1, self.avail[a])) if use_avail else log_total
            score = self.value[a] / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = a, score
        return best, False

    def update(self, action: int, value: float) -> None:
        self.visits[action] = self.visits.get(action, 0) + 1
        self.value[action] = self.value.get(action, 0.0) + value
        self.total += 1


class PIMCBot(_SearchBot):
    """Determinised MCTS: UCT on ``determinizations`` sampled states, root visits added over them."""

    name = "pimc"

    def __init__(self, seed: int = 0, simulations: int = 100, determinizations: int = 10, **kwargs: Any):
        super().__init__(seed, simulations, **kwargs)
        if isinstance(determinizations, bool) or not isinstance(determinizations, int) or determinizations < 1:
            raise ValueError(f"determinizations must be a positive integer, got {determinizations!r}")
        self.determinizations = determinizations

    def act(self, game: Any) -> int:
        seat = game.current_player
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return int(legal[0])
        sample = sampler_for(game, seat)
        k = min(self.determinizations, self.simulations)
        visits: dict[int, int] = {}
        value: dict[int, float] = {}
        for i in range(k):
            share = self.simulations // k + (1 if i < self.simulations % k else 0)
            root = self._uct(sample(self.rng), share)
            for a, n in root.visits.items():
                visits[a] = visits.get(a, 0) + n
                value[a] = value.get(a, 0.0) + root.value[a]
        best = max(legal, key=lambda a: (visits.get(a, 0), value.get(a, 0.0) / max(1, visits.get(a, 0))))
        self.last_stats = {"visits": visits, "determinizations": k}
        return int(best)

    def _uct(self, root_state: Any, simulations: int) -> _Node:
        """Plain UCT on one determinised state (nodes keyed by the action path: everything is known)."""
        tree: dict[tuple[int, ...], _Node] = {}
        c = self.exploration
        for _ in range(simulations):
            state = root_state.clone()
            path: list[tuple[_Node, int, int]] = []
            key: tuple[int, ...] = ()
            while not state.is_terminal():
                node = tree.get(key)
                if node is None:
                    node = tree[key] = _Node()
                seat = state.current_player
                action, new = node.select(state.legal_actions(), c, self.rng, use_avail=False)
                path.append((node, action, seat))
                state.apply(action)
                key = (*key, action)
                if new:
                    break
            values = self._values(state)
            for node, action, seat in path:
                node.update(action, values[seat])
        return tree[()]


class ISMCTSBot(_SearchBot):
    """Single-observer IS-MCTS: one tree of information sets, one determinisation per simulation."""

    name = "ismcts"

    def act(self, game: Any) -> int:
        me = game.current_player
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return int(legal[0])
        sample = sampler_for(game, me)
        tree: dict[tuple[int, tuple[Hashable, ...]], _Node] = {}
        c = self.exploration
        n = game.num_players
        for _ in range(self.simulations):
            state = sample(self.rng)
            # what the searching seat can tell apart: per seat, its own view at the root, then per action
            # what it observed of the action and what it saw after it
            paths: list[tuple[Hashable, ...]] = [(_view_token(state, p) if p == me else None,) for p in range(n)]
            trail: list[tuple[_Node, int, int]] = []
            while not state.is_terminal():
                seat = state.current_player
                key = (seat, paths[seat] if seat == me else (*paths[me], _view_token(state, seat)))
                node = tree.get(key)
                if node is None:
                    node = tree[key] = _Node()
                action, new = node.select(state.legal_actions(), c, self.rng, use_avail=True)
                trail.append((node, action, seat))
                token = _action_token(state, me, action)
                state.apply(action)
                paths[me] = (*paths[me], seat, token, _view_token(state, me))
                if new:
                    break
            values = self._values(state)
            for node, action, seat in trail:
                node.update(action, values[seat])
        root = tree[(me, paths_root(game, me))]
        best = max(legal, key=lambda a: (root.visits.get(a, 0), root.value.get(a, 0.0) / max(1, root.visits.get(a, 0))))
        self.last_stats = {"visits": dict(root.visits), "nodes": len(tree)}
        return int(best)


def paths_root(game: Any, me: int) -> tuple[Hashable, ...]:
    """The key path of the root information set of seat ``me``."""
    return (_view_token(game, me),)


#: the two simulation budgets every game registers (``pimc_<b>`` and ``ismcts_<b>`` in ``SPEC.bots``)
BUDGETS: tuple[int, ...] = (25, 100)


def search_bots(module: str) -> dict[str, Any]:
    """``SPEC.bots`` rows ``pimc_<b>`` / ``ismcts_<b>`` for every budget of :data:`BUDGETS`, each a
    :class:`~farmgames.envs.core.lazy.lazy` factory ``module:<name>`` (the game's module defines them with
    its own playout settings, e.g. ``functools.partial(ISMCTSBot, simulations=25, rollout_depth=40)``)."""
    from .lazy import lazy

    return {f"{kind}_{b}": lazy(f"{module}:{kind}_{b}") for kind in ("pimc", "ismcts") for b in BUDGETS}
