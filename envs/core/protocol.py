"""The protocols every farmgames game implements, and the one error type for illegal moves.

A game is pure Python (+ numpy): it never imports gymnasium, pettingzoo or torch. The adapters
(:mod:`farmgames.envs.adapters`) turn any object that follows :class:`Game` and :class:`Observer` into
PettingZoo AEC / parallel environments and gymnasium spaces; the tools (play, replay, evaluate, bench,
balance) read only what is declared here and in :class:`~farmgames.envs.core.spec.GameSpec`.

These are :class:`typing.Protocol` classes (structural): a game does not inherit from them, it just
has the members. ``tests/conformance`` checks every registered game against them.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .observation import ObservationBuffer, ObservationLayout


class IllegalActionError(ValueError):
    """An action that is not legal now (or not an integer index). The game state is unchanged."""


@runtime_checkable
class Score(Protocol):
    """One seat's final score: ``total``, the tie-break ``key`` (larger is better, compared as tuples;
    ``key[0] == total``) and every part by name in ``as_dict()`` (which includes ``"total"``)."""

    @property
    def total(self) -> int | float: ...

    @property
    def key(self) -> tuple[Any, ...]: ...

    def as_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class Game(Protocol):
    """A game state machine over one ``Discrete(num_actions)`` action numbering.

    Chance is drawn from ``seed`` (at setup or from a generator kept in the state, as the game likes),
    so ``Game(num_players, seed, **variant)`` followed by the same actions is always the same game.
    ``apply`` checks legality and raises :class:`IllegalActionError` with the state untouched.

    Optional speed hooks, for states with dozens of legal actions: ``legal_mask_bytes() -> bytes`` (one
    0/1 byte per action, ``num_actions`` long) or ``legal_action_array() -> np.ndarray`` (a read-only intp
    array), the same set as ``legal_actions()``, cached per state. The AEC env then writes a mask with one
    memcpy or one numpy store instead of a Python loop (``tests/conformance/test_speed_hooks.py`` checks
    both against ``legal_actions()``).
    """

    num_players: int
    seed: int
    history: list[int]

    @property
    def num_actions(self) -> int: ...

    @property
    def current_player(self) -> int | None:
        """The seat that decides now; ``None`` once the game is over."""

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of ``current_player`` (a fresh list; empty at the end)."""

    def legal_mask(self) -> np.ndarray: ...

    def apply(self, action: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def scores(self) -> list[Any]:
        """One :class:`Score` per seat (final once the game is over)."""

    def winners(self) -> list[int]: ...

    def returns(self) -> list[float]:
        """+1 every winner, -1 every other seat at the end; zeros before."""

    def describe_action(self, action: int) -> str: ...

    def clone(self) -> Game: ...

    def record(self) -> dict[str, Any]:
        """``{"game", "num_players", "seed", "variant", "actions"}``: replays through the registry."""

    def to_json(self) -> str: ...


@runtime_checkable
class SimultaneousGame(Game, Protocol):
    """A game whose engine asks for some decisions one seat at a time although the rules make them
    simultaneous (hidden picks): ``deciders()`` lists every seat that decides in the current step, in
    the order the engine will apply them (``deciders()[0] == current_player``), and
    ``legal_actions_for(seat)`` what each may choose, without seeing the earlier seats' choices. The
    parallel env collects all of them in one step. Games without it act one seat per step."""

    def deciders(self) -> list[int]: ...

    def legal_actions_for(self, seat: int) -> list[int]: ...


@dataclass(frozen=True)
class InformationState:
    """Everything one seat knows, with perfect recall (OpenSpiel's information state).

    ``string`` is canonical: two states of the same game give a seat equal strings exactly when that seat
    cannot tell them apart (it saw the same things in the same order and took the same actions).
    ``tensor`` is its fixed-size float32 twin: what the seat knows now (its observation plus what it
    remembers), equal whenever the strings are equal.
    """

    seat: int
    string: str
    tensor: np.ndarray = field(repr=False, compare=False)

    def __str__(self) -> str:
        return self.string


@runtime_checkable
class SearchableGame(Game, Protocol):
    """A :class:`Game` that search algorithms can use without cheating (optional: the adapters and tools
    need only :class:`Game`; :mod:`farmgames.envs.core.search` needs these).

    * ``information_state(seat)``: the seat's :class:`InformationState` (perfect recall).
    * ``resample_from_infostate(seat, rng)``: a complete, independent state (a new object; ``self`` is
      untouched) that gives ``seat`` the same information state and the same observation, drawn from the
      distribution the rules imply given what ``seat`` knows (OpenSpiel's ``ResampleFromInfostate``): the
      game's chance (shuffles, draws, dice) conditioned on the seat's observations; decisions of other
      seats that ``seat`` did not see are drawn uniformly from their legal choices (no opponent model).
      Future chance is redrawn too, so a determinised search cannot know the next card or die.
    * ``action_token(seat, action)``: what ``seat`` observes of the current player's ``action`` (called
      before it is applied): the action itself when it is public, something coarser (``"pick"``) when it
      is hidden. Search trees key their nodes on these.
    * ``view_token(seat)``: a cheap hashable of what ``seat`` sees now that actions do not tell it (its own
      hand, cards turned up, dice rolled): with the action tokens, the perfect-recall key of a search node.
    """

    def information_state(self, seat: int) -> InformationState: ...

    def resample_from_infostate(self, seat: int, rng: random.Random) -> SearchableGame: ...

    def action_token(self, seat: int, action: int) -> Hashable: ...

    def view_token(self, seat: int) -> Hashable: ...


@runtime_checkable
class Observer(Protocol):
    """Fills one seat's observation into a flat float32 buffer laid out by ``layout``.

    ``fill`` must write only what ``seat`` may know (hidden information is never copied into the
    buffer). ``before_apply``/``after_apply`` are optional hooks for perfect recall: the adapters call
    ``token = before_apply(game, seat, action)`` just before the engine applies an action and
    ``after_apply(token)`` once it was applied (never for a rejected action).
    """

    layout: ObservationLayout

    def reset(self, game: Any) -> None: ...

    def new_buffer(self) -> ObservationBuffer: ...

    def fill(self, game: Any, seat: int, buffer: ObservationBuffer) -> None: ...

    def text(self, game: Any, seat: int) -> str: ...


@runtime_checkable
class Bot(Protocol):
    """A player that reads the engine state directly: ``act(game) -> action`` for
    ``game.current_player``. Bots may only use what that seat may know (tests check the heuristic
    bots by perturbing hidden information)."""

    def act(self, game: Any) -> int: ...


@runtime_checkable
class Narrator(Protocol):
    """The words of a game for play / replay / playthroughs (hidden-information aware: ``viewer`` is
    the seat whose view is printed, ``None`` for an omniscient narration)."""

    def decision_line(self, game: Any, seat: int, action: int, viewer: int | None) -> str:
        """One line for ``seat`` taking ``action`` in ``game`` (the state *before* the action)."""

    def phase_summary(self, game: Any) -> str | None:
        """A heading when a new round/phase starts in ``game`` (the state after an action), else None."""

    def final_table(self, game: Any) -> str:
        """The final score table."""


__all__ = [
    "Bot",
    "Game",
    "IllegalActionError",
    "InformationState",
    "Narrator",
    "Observer",
    "Score",
    "SearchableGame",
    "SimultaneousGame",
]
