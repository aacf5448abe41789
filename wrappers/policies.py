"""Opponent policies the wrappers can build on their own: a game's bots as Policy objects.

A *Policy* is anything with ``act(observation, action_mask) -> int``; optional ``reset(seed=None)``,
``attach(game, seat)`` and ``needs_observation`` (False: the flat observation is not computed for it).
The wrappers build only what a game's :class:`~farmgames.envs.core.spec.GameSpec` declares (its bots)
and ``module:attribute`` objects; checkpoints and self-play pools are training's business and reach the
env through a ``resolver`` (see :func:`farmgames.training.policy.resolve_opponent`), so that the arrow
points one way: training imports wrappers, never the reverse.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from farmgames.envs.core.bots import make_bot

__all__ = ["BotPolicy", "OpponentPool", "Policy", "load_object", "policy_name"]


@runtime_checkable
class Policy(Protocol):
    """Observation + mask -> action. ``reset(seed)`` and ``attach(game, seat)`` are optional."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


@runtime_checkable
class OpponentPool(Protocol):
    """A source of opponents drawn per episode (e.g. a self-play pool of checkpoints).

    At every reset the env calls ``refresh()`` (how many policies can be drawn now); with that many > 0
    and probability ``probability`` the episode's opponents are drawn with ``draw(rng, seed)``, which
    returns ``(policy, name)`` or ``None`` (nothing usable: the ``base`` opponents play that seat)."""

    probability: float
    base: Any

    def refresh(self) -> int: ...

    def draw(self, rng: np.random.Generator, seed: int) -> tuple[Any, str] | None: ...


def policy_name(policy: Any) -> str:
    return getattr(policy, "name", None) or type(policy).__name__


class BotPolicy:
    """A bot of a game's ``SPEC.bots`` as a Policy: it reads the engine state given by
    ``attach(game, seat)`` and ignores the observation (``needs_observation = False``)."""

    needs_observation = False

    def __init__(self, spec: Any = "fields_of_green", name: str = "heuristic", seed: int = 0):
        if isinstance(spec, str):
            from farmgames.envs import get_spec

            spec = get_spec(spec)
        if name not in spec.bots:
            raise ValueError(f"unknown bot {name!r} for {spec.name}; valid names: {', '.join(sorted(spec.bots))}")
        self.spec = spec
        self.name = name
        self.seed = int(seed)
        self._game: Any = None
        self._seat: int | None = None
        self._bot = make_bot(spec.bots, name, self.seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = int(seed)
            self._bot = make_bot(self.spec.bots, self.name, self.seed)

    def attach(self, game: Any, seat: int | None = None) -> None:
        self._game = game
        self._seat = seat

    def act(self, observation: Any, action_mask: Any) -> int:
        if self._game is None:
            raise RuntimeError(
                f"BotPolicy({self.name!r}) plays from the engine state: call attach(game, seat) before act()"
            )
        return int(self._bot.act(self._game))

    def anticipate(self, seat: int) -> bool:
        """Let the bot work out its next decision now, while ``seat`` decides, if it can (``HeuristicBot.anticipate``
        of Fields of Green: the same decision as without, only earlier); True if it did."""
        fn = getattr(self._bot, "anticipate", None)
        return bool(self._game is not None and fn is not None and fn(self._game, seat))

    def __repr__(self) -> str:
        return f"BotPolicy({self.spec.name!r}, {self.name!r}, seed={self.seed})"


def load_object(text: str) -> Any:
    """``"module:attribute"``: the attribute (a class or factory is called with no arguments); it must
    have ``act``. ValueError names what is missing."""
    module_name, _, attr = text.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"policy {text!r}: cannot import module {module_name!r} ({exc})") from None
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"policy {text!r}: module {module_name!r} has no attribute {attr!r}") from None
    policy = obj() if callable(obj) and not hasattr(obj, "act") or isinstance(obj, type) else obj
    if not hasattr(policy, "act"):
        raise ValueError(f"policy {text!r} has no act(observation, action_mask) method")
    if not getattr(policy, "name", None):
        try:
            policy.name = text
        except AttributeError:
            pass
    return policy
