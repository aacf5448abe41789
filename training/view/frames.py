"""What the viewer shows at one step of a game, for one view: game-free, hidden-information aware.

A *view* is ``None`` ("everything": every hand, every observation, for replays and debugging) or a seat:
then a frame holds exactly what that seat may know — its observation text (``observer.text``), the
seat-aware table text (``SPEC.render_ansi(game, seat)``), a picture only if the game draws one for that
seat (see :func:`seat_picture`), and the decisions of the other seats in the words that seat saw them
(their legal alternatives never). Everything comes through the game's
:class:`~farmgames.envs.core.spec.GameSpec`, so a game registered later gets the viewer as it lands.

:class:`Timeline` replays a record step by step (snapshots every few steps, so jumping is cheap); it only
grows (``append``), which is how a game played in the browser is shown with the same code.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from farmgames.envs import get_spec
from farmgames.envs.core.records import check_record

View = int | None
SNAPSHOT_EVERY = 16


def spec_of_record(record: dict[str, Any]) -> Any:
    """The GameSpec a record was written for, found as ``envs.replay`` finds it: the env's versioned name,
    else the pinned env version, else the game's newest version."""
    check_record(record)
    env = record.get("env")
    name = env.get("name") if isinstance(env, dict) else None
    if name is None and isinstance(record.get("pins"), dict):
        name = record["pins"].get("env")
    return get_spec(name if isinstance(name, str) else record["game"])


def start_state(record: dict[str, Any]) -> Any:
    """The game before the record's first action, built exactly as ``envs.replay`` builds it (variant,
    pinned and embedded data files)."""
    from farmgames.envs import replay

    return replay({**record, "actions": []})


def _unwrap(fn: Any) -> Any:
    """The function behind a ``core.lazy`` reference (``lazy("module:attribute")``), else ``fn``."""
    if fn is not None and hasattr(fn, "target") and callable(getattr(fn, "resolve", None)):
        try:
            return fn.resolve()
        except (ImportError, AttributeError):
            return None
    return fn


def _accepts(fn: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def game_module(game: Any, name: str) -> Any | None:
    """``<package of the game's engine>.<name>`` (e.g. ``farmgames.envs.fields_of_green.render``), or None."""
    package = type(game).__module__.rpartition(".")[0]
    if not package:
        return None
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError:
        return None


def seat_picture(spec: Any, game: Any) -> Callable[..., Any] | None:
    """A drawing function ``(game, viewer, previous) -> HxWx3 array`` that shows only what ``viewer`` may
    know, or None when the game has none: ``SPEC.render_rgb`` if it takes a ``viewer``, else the game's
    ``render.rgb_array`` if that takes one (the function ``render_rgb`` wraps in the suite's games). A
    picture that cannot be told whose view it is for is never shown in a seat's view, except in a game
    of perfect information (nothing is hidden)."""
    candidates = [_unwrap(spec.render_rgb)]
    module = game_module(game, "render")
    if module is not None:
        candidates.append(getattr(module, "rgb_array", None))
    for fn in candidates:
        if fn is not None and _accepts(fn, "viewer"):
            takes_previous = _accepts(fn, "previous")

            def draw(game: Any, viewer: View, previous: Any = None, _fn: Any = fn, _prev: bool = takes_previous) -> Any:
                if _prev:
                    return _fn(game, viewer=viewer, previous=previous)
                return _fn(game, viewer=viewer)

            return draw
    if spec.information == "perfect" and spec.render_rgb is not None:
        return lambda game, viewer, previous=None: spec.render_rgb(game)
    return None


def public_words(spec: Any, game: Any) -> Callable[[Any, int, int, View], str] | None:
    """``(game, seat, action, viewer) -> str``: a decision in the words ``viewer`` saw it — the game's
    ``render.decision_text`` if it has one, else its narrator's ``decision_line``."""
    module = game_module(game, "render")
    fn = getattr(module, "decision_text", None) if module is not None else None
    if fn is not None:
        return fn  # type: ignore[no-any-return]
    if spec.narrator is not None:
        try:
            narrator = spec.narrator()
        except Exception:  # noqa: BLE001 - a narrator that cannot be built is not needed to watch
            return None
        return narrator.decision_line  # type: ignore[no-any-return]
    return None


def _omniscient_text(spec: Any, game: Any) -> str:
    """Every hand and every secret: the game's own ``str`` if it defines one, else the public table."""
    if type(game).__str__ is not object.__str__:
        return str(game)
    return spec.render_ansi(game, None) if spec.render_ansi else ""


def _pillow() -> bool:
    """Whether pictures can be drawn here (Pillow, extra ``render``); without it the page shows text only."""
    try:
        import PIL  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the installation
        return False
    return True


class Timeline:
    """A record replayed step by step: ``state(i)`` is the game after ``i`` actions."""

    def __init__(self, spec: Any, record: dict[str, Any]):
        self.spec = spec
        self.record = dict(record)
        self.actions: list[int] = [int(a) for a in record["actions"]]
        env = record.get("env") if isinstance(record.get("env"), dict) else {}
        names = set(spec.keywords_for("observer"))
        self.observer_kwargs = {k: v for k, v in (env or {}).items() if k in names}
        start = start_state({**record, "actions": []})
        self.num_players: int = start.num_players
        self._snapshots: dict[int, Any] = {0: start}
        self._observer = spec.new_observer(start, **self.observer_kwargs)
        self.recall = bool(getattr(self._observer, "wants_actions", False))
        self._cursor: tuple[int, Any] | None = None  # (step, game) of the observer's last sync
        self._cache: dict[int, Any] = {}

    @property
    def steps(self) -> int:
        return len(self.actions)

    def append(self, action: int) -> None:
        """One more action (a game played live): checked against the replayed state."""
        game = self.state(self.steps).clone()
        game.apply(int(action))
        self.actions.append(int(action))
        self._keep(self.steps, game)

    def _keep(self, i: int, game: Any) -> None:
        if i % SNAPSHOT_EVERY == 0:
            self._snapshots[i] = game.clone()
        if len(self._cache) > 8:
            self._cache.pop(next(iter(self._cache)))
        self._cache[i] = game

    def state(self, i: int) -> Any:
        """The game after ``i`` actions (shared: read it, never change it)."""
        if not 0 <= i <= self.steps:
            raise IndexError(f"step {i} is outside 0..{self.steps}")
        if i in self._cache:
            return self._cache[i]
        base = max(s for s in self._snapshots if s <= i)
        near = [s for s in self._cache if base < s < i]
        start = max(near) if near else base
        game = (self._cache[start] if near else self._snapshots[base]).clone()
        for step in range(start, i):
            game.apply(self.actions[step])
            if (step + 1) % SNAPSHOT_EVERY == 0 and step + 1 not in self._snapshots:
                self._snapshots[step + 1] = game.clone()
        self._keep(i, game)
        return game

    def observer_at(self, i: int) -> Any:
        """The observer ready to speak for the state after ``i`` actions (with perfect recall it has seen
        every action up to ``i``, as in the env)."""
        game = self.state(i)
        if not self.recall:
            self._observer.reset(game)
            return self._observer
        if self._cursor is None or self._cursor[0] > i:
            live = self.state(0).clone()
            self._observer = self.spec.new_observer(live, **self.observer_kwargs)
            self._observer.reset(live)
            self._cursor = (0, live)
        step, live = self._cursor
        while step < i:
            action = self.actions[step]
            token = self._observer.before_apply(live, live.current_player, action)
            live.apply(action)
            self._observer.after_apply(token)
            step += 1
        self._cursor = (step, live)
        return self._observer


class Frames:
    """Frames of one timeline, worded for any view (the JSON the page shows)."""

    def __init__(self, timeline: Timeline, seats: list[str] | None = None):
        self.timeline = timeline
        self.spec = timeline.spec
        self.seats = seats or [f"player {p}" for p in range(timeline.num_players)]
        start = timeline.state(0)
        self.picture = seat_picture(self.spec, start)
        self.words = public_words(self.spec, start)
        self._logs: dict[View, list[dict[str, Any]]] = {}

    # ---- decisions

    def sees_choices(self, seat: int | None, view: View) -> bool:
        """Whether ``view`` may see ``seat``'s decision itself and its alternatives."""
        return view is None or view == seat or self.spec.information == "perfect"

    def decision(self, before: Any, action: int | None, view: View) -> dict[str, Any] | None:
        """The decision taken (``action``) or pending (``action=None``) at ``before``, for ``view``."""
        seat = before.current_player
        if seat is None:
            return None
        out: dict[str, Any] = {"seat": seat, "player": self.seats[seat]}
        if self.sees_choices(seat, view):
            if action is not None:
                out["text"] = before.describe_action(action)
            out["alternatives"] = [
                {"action": a, "text": before.describe_action(a), "chosen": a == action} for a in before.legal_actions()
            ]
        else:
            out["text"] = self.hidden_words(before, seat, action, view) if action is not None else ""
            out["alternatives"] = None
            out["hidden"] = True
        return out

    def hidden_words(self, before: Any, seat: int, action: int, view: View) -> str:
        """What ``view`` saw of ``seat``'s choice, without the leading "player N" (the page names the seat)."""
        if self.words is not None:
            try:
                text = str(self.words(before, seat, action, view))
            except Exception:  # noqa: BLE001 - fall back to saying nothing about the choice
                text = ""
            for prefix in (f"player {seat}: ", f"player {seat} "):
                if text.startswith(prefix):
                    return text[len(prefix) :]
            if text:
                return text
        return "decides (hidden from this view)"

    def log(self, view: View) -> list[dict[str, Any]]:
        """One line per decision so far, worded for ``view``; grows with the timeline."""
        lines = self._logs.setdefault(view, [])
        t = self.timeline
        for i in range(len(lines), t.steps):
            game = t.state(i)
            seat = game.current_player
            action = t.actions[i]
            text = (
                game.describe_action(action)
                if self.sees_choices(seat, view)
                else self.hidden_words(game, seat, action, view)
            )
            lines.append({"step": i, "seat": seat, "text": text})
        return lines[: t.steps]

    # ---- frames

    def frame(self, i: int, view: View, pending: bool = False) -> dict[str, Any]:
        """Everything the page shows at step ``i`` for ``view`` (``pending``: the next decision is still to
        be made, as in a live game, so its alternatives are listed without a choice)."""
        t = self.timeline
        before = t.state(i - 1) if i > 0 else None
        last = t.actions[i - 1] if i > 0 else None
        upcoming = t.actions[i] if i < t.steps else None
        frame = self.compose(t.state(i), before, last, upcoming, view, t.observer_at(i), pending=pending)
        frame.update(step=i, steps=t.steps)
        return frame

    def compose(
        self,
        game: Any,
        before: Any,
        last: int | None,
        upcoming: int | None,
        view: View,
        observer: Any,
        pending: bool = False,
    ) -> dict[str, Any]:
        """The frame of ``game`` (reached from ``before`` by ``last``; ``upcoming`` is the action taken
        next, None if not known yet) for ``view``: a function of these states only, so that states
        differing in what ``view`` cannot see give the same frame (tests/viewer checks it)."""
        spec = self.spec
        frame: dict[str, Any] = {"view": view, "acting": game.current_player, "terminal": bool(game.is_terminal())}
        if view is None:
            frame["table"] = _omniscient_text(spec, game)
            frame["observations"] = {str(p): observer.text(game, p) for p in range(self.timeline.num_players)}
        else:
            frame["table"] = spec.render_ansi(game, view) if spec.render_ansi else ""
            frame["observations"] = {str(view): observer.text(game, view)}
        frame["picture"] = self.has_picture(view)
        frame["last"] = self.decision(before, last, view) if before is not None and last is not None else None
        if upcoming is not None:
            frame["next"] = self.decision(game, upcoming, view)
        elif pending and not game.is_terminal():
            frame["next"] = self.decision(game, None, view)
        else:
            frame["next"] = None
        if game.is_terminal():
            frame["scores"] = [s.total for s in game.scores()]
            frame["winners"] = list(game.winners())
        return frame

    def has_picture(self, view: View) -> bool:
        if not _pillow():
            return False
        if view is None:
            return self.spec.render_rgb is not None or self.picture is not None
        return self.picture is not None

    def picture_array(self, i: int, view: View) -> Any | None:
        """The picture of step ``i`` for ``view`` (the game's own drawing code), or None."""
        t = self.timeline
        return self.draw(t.state(i), t.state(i - 1) if i > 0 else None, view)

    def draw(self, game: Any, previous: Any, view: View) -> Any | None:
        """The game's own picture of ``game`` for ``view`` (``previous``: the state before the last action)."""
        if self.picture is not None:
            return self.picture(game, view, previous)
        if view is None and self.spec.render_rgb is not None:
            return self.spec.render_rgb(game)
        return None

    def picture_png(self, i: int, view: View) -> bytes | None:
        from farmgames.envs.core.render import png_bytes

        array = self.picture_array(i, view)
        return None if array is None else png_bytes(array)


__all__ = [
    "Frames",
    "Timeline",
    "View",
    "game_module",
    "public_words",
    "seat_picture",
    "spec_of_record",
    "start_state",
]
