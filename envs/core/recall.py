"""Perfect recall by replay: what one seat observed along a game's history, as canonical tokens.

The information states of every game (``information_state(seat)``) are built the same way: replay the
history from the state the game started in, and after each action note the actor, the action as the seat
saw it and, when it changed, the part of the state only observation tells the seat (``view_token``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any


def check_seat(game: Any, seat: Any) -> int:
    """``seat`` as a seat of ``game``, or ValueError naming it."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat!r}")
    return seat


def replay_views(
    fresh: Any,
    history: Sequence[int],
    seat: int,
    view_token: Callable[[Any, int], Hashable],
    start: str,
) -> list[str]:
    """Apply ``history`` to ``fresh`` (the game as it started), recording ``seat``'s tokens: ``start`` and
    the first view, then ``actor:action`` per step with the view appended where it changed. ValueError
    when the game ends before the history does."""
    last = view_token(fresh, seat)
    tokens = [f"{start} view {last!r}".lstrip()]
    for i, action in enumerate(history):
        actor = fresh.current_player
        if actor is None:
            raise ValueError(f"state is not the replay of its history: the game ends before step {i}")
        fresh.apply(action)
        view = view_token(fresh, seat)
        tokens.append(f"{actor}:{action}" if view == last else f"{actor}:{action} view {view!r}")
        last = view
    return tokens


def check_replayed(replayed: Any, game: Any, what: str = "its history") -> None:
    """ValueError unless the replay gave ``game`` back (a state edited by hand has no recall)."""
    if replayed.to_json() != game.to_json():
        raise ValueError(
            f"state is not the replay of {what} (edited by hand?): information states and resampling need a "
            "state reached by play"
        )


__all__ = ["check_replayed", "check_seat", "replay_views"]
