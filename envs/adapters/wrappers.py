"""PettingZoo's AEC wrappers with cheap attribute forwarding (the wrapped ``env()`` of every game).

PettingZoo's BaseWrapper forwards every attribute the AEC loop reads (agent_selection, agents,
terminations, ... about 15 per step) through __getattr__, once per wrapper level, and
AssertOutOfBoundsWrapper.step calls Discrete.contains: together as much time as a whole step of the raw
env. These subclasses keep PettingZoo's classes and checks and only make the common path cheap: the
loop's attributes are properties that read the env under all wrappers of these two classes (they never
change them), last() goes straight to that env, an in-range int action skips Discrete.contains
(which would accept it) and OrderEnforcing hands it to the env directly, and agent_iter's iterator reads
the loop attributes from the env. Anything else takes PettingZoo's own code path. tests/conformance runs
PettingZoo's api_test on env() of every game; tests/fields_of_green/env/test_observer_incremental.py
plays env() side by side with the plain PettingZoo wrappers and checks the errors before reset.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

__all__ = ["AssertOutOfBounds", "OrderEnforcing"]


def _forward(name: str, check_reset: bool = False) -> property:
    if check_reset:  # OrderEnforcingWrapper's rule: these raise AttributeError before reset()

        def get(self: Any) -> Any:
            if self._has_reset:
                return getattr(self._target, name)
            raise AttributeError(f"{name} cannot be accessed before reset")
    else:

        def get(self: Any) -> Any:
            return getattr(self._target, name)

    return property(get, doc=f"``{name}`` of the wrapped env")


# what the standard loop reads (agent_iter, last, step); OrderEnforcingWrapper guards them until reset()
_LOOP_ATTRIBUTES = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos")


class AssertOutOfBounds(AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with cheap attribute forwarding (see above)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._target = _target_of(env)
        spaces = [env.action_space(a) for a in env.possible_agents]
        discrete = all(isinstance(sp, gymnasium.spaces.Discrete) and int(sp.start) == 0 for sp in spaces)
        # an int in [0, n) is in every agent's Discrete(n) space: no need to ask the space
        self._num_actions = int(spaces[0].n) if discrete and len({int(sp.n) for sp in spaces}) == 1 else 0

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's assertion

    def last(self, observe: bool = True) -> Any:
        return self._target.last(observe)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's ``AECOrderEnforcingIterator`` (the same checks in the same order) reading ``agents`` and
    ``agent_selection`` straight from the env under the wrappers, not through two forwarding properties."""

    def __next__(self) -> Any:
        env = self.env
        target = env._target
        if not target.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return target.agent_selection


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with cheap attribute forwarding (see above); the errors and
    warnings are PettingZoo's, ``agent_iter`` its iterator with the loop attributes read directly."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._target = _target_of(env)
        # over our AssertOutOfBounds right on the env: an in-range int goes straight to the env (the check it
        # makes, and all it does then)
        direct = isinstance(env, AssertOutOfBounds) and env._target is env.env
        self._num_actions = env._num_actions if isinstance(env, AssertOutOfBounds) and direct else 0

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def step(self, action: Any) -> None:
        if self._has_reset and self._target.agents:
            self._has_updated = True
            if type(action) is int and 0 <= action < self._num_actions:
                self._target.step(action)
            else:
                self.env.step(action)
        else:
            super().step(action)  # PettingZoo's error before reset / warning after the end

    def last(self, observe: bool = True) -> Any:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._target.last(observe)

    def __str__(self) -> str:
        return str(self.env)  # as OrderEnforcingWrapper prints itself


def _target_of(env: Any) -> Any:
    """The env whose loop attributes a wrapper of ``env`` reads: through our own wrappers (they only
    forward them), else ``env`` itself."""
    return env._target if isinstance(env, (AssertOutOfBounds, OrderEnforcing)) else env


for _name in _LOOP_ATTRIBUTES:
    setattr(AssertOutOfBounds, _name, _forward(_name))
    setattr(OrderEnforcing, _name, _forward(_name, check_reset=True))
# BaseWrapper lets this one private name through, without a reset check
for _cls in (AssertOutOfBounds, OrderEnforcing):
    _cls._cumulative_rewards = _forward("_cumulative_rewards")
del _name, _cls
