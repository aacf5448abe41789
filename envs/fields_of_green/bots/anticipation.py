"""The heuristic bot's next pick and act, worked out before its turn: while the other seat still chooses its act.

Why: in a 2-player game the bot's pick follows the other seat's act at once, its act follows its pick, and the two
are most of the bot's time (docs/profiling.md). A worker process of ``wrappers/process_vector.py`` has a free core
while the learner thinks; there it asks the bot to *anticipate* (``HeuristicBot.anticipate``): play an assumed act
for the other seat on a clone, pick from there, play the pick and choose the act. When the real decisions come,
each reuses its anticipated choice if nothing it could have read differs (:func:`same_inputs`), else the bot
decides afresh. Either way the decision is the one the bot makes without anticipating
(tests/fields_of_green/test_anticipation.py plays seeded games both ways, action for action).

What makes the reuse exact:

* **A decision reads the game and the bot's random state only.** The bot's memo tables change no decision
  (``VERIFY_CACHES``), its weights are compared by identity and its ``random.Random`` state in full.
* **It never reads the other seat's farm**, and this is checked, not assumed: the anticipated decision runs on a
  clone where that farm is ``None``, so any read of it raises (compiled, a ``Farm`` is type-checked where it is
  read; from the source, ``None`` has none of a farm's attributes), and a raised exception, or the pick's one
  fallback for an unexpected engine frame, discards the anticipation (and the bot's memo tables with it).
* **Every other attribute of the game is compared**, exactly, except those no decision can read (listed in
  :data:`NOT_READ`, each with where it is read) and the two supplies the engine reads only as "any left"
  (:data:`ANY_LEFT`, compared as ``min(n, 2)``: any left before and after the one an act may take). A new
  engine attribute is compared exactly until someone shows it belongs elsewhere (a test checks the names exist).
"""

from __future__ import annotations

import operator
from typing import Any

from ..farm import Farm
from ..game import Game

# Game attributes the pick cannot read: only written (appended, bumped) on the pick's path, or caches of the rest.
# (grep of envs/fields_of_green/{game,farm,effects,scoring}.py and bots/: the lines named.)
NOT_READ: dict[str, str] = {
    "history": "appended by apply; read only as records/JSON and as len() in the final-score cache key",
    "discard": "appended by a market sale; read only by clone, to_json and the observer",
    "public_version": "bumped by the engine; read only by the observer",
    "pick_version": "bumped by the engine; read only by the observer",
    "_legal_now": "the legal-action cache (recomputed from the rest)",
    "_mask": "the legal-mask cache (recomputed from the rest)",
    "_final_scores": "the final-score cache (keyed, recomputed from the farms)",
}
# Read only as truthiness (game.py: the act's legal tower / silo builds) and decremented by one build.
ANY_LEFT: tuple[str, ...] = ("towers_left", "silos_left")
# Farm attributes that are caches or counters of the rest (Farm.version: see Game.public_version).
FARM_NOT_READ: frozenset[str] = frozenset({"version", "harvest_memo", "frontier_of", "frontier_bits"})

_GAME_ATTRS: tuple[str, ...] = tuple(getattr(Game, "__mypyc_attrs__", None) or Game.__slots__)
_FARM_ATTRS: tuple[str, ...] = tuple(getattr(Farm, "__mypyc_attrs__", None) or Farm.__slots__)
_COMPARED: tuple[str, ...] = tuple(a for a in _GAME_ATTRS if a not in NOT_READ and a not in ANY_LEFT and a != "farms")
_FARM_COMPARED: tuple[str, ...] = tuple(a for a in _FARM_ATTRS if a not in FARM_NOT_READ)
ASSUMED_ACT = "market"  # the other seat's act assumed: a sale changes only its farm and the discard pile


def _then(g: Game, action: int, player: int, kind: str) -> Game | None:
    """``g`` (a clone) after ``action``, if ``player``'s ``kind`` decision comes next; else None."""
    g.apply(action)
    return g if g.current_player == player and g.decision_kind == kind else None


def after_assumed_act(game: Game, seat: int) -> Game | None:
    """A clone of ``game`` after ``seat``'s assumed act, if ``seat`` is choosing its act in a 2-player game and
    the next decision is then the other seat's pick; else None."""
    if game.num_players != 2 or game.current_player != seat or game.decision_kind != "act":
        return None
    g = game.clone()  # (first: the game itself is left exactly as it was, its caches included)
    legal = g.legal_actions()
    decode = g.layout.decode
    return _then(g, next((a for a in legal if decode(a)[0] == ASSUMED_ACT), legal[0]), 1 - seat, "pick")


def after_own_pick(game: Game, seat: int, action: int) -> Game | None:
    """A clone of ``game`` (the other seat's pick to make) after pick ``action``, if that seat's act comes next."""
    return _then(game.clone(), action, 1 - seat, "act")


_game_parts = operator.attrgetter(*_COMPARED)
_farm_parts = operator.attrgetter(*_FARM_COMPARED)


def inputs_key(game: Game, other: int) -> tuple:
    """Everything of ``game`` that the bot's decision may read (``other``'s farm aside), as one tuple: equal keys,
    equal inputs. The parts are the game's own objects (a key is compared at once, not kept across changes)."""
    farms = game.farms
    return (
        _game_parts(game),
        min(game.towers_left, 2),
        min(game.silos_left, 2),
        len(farms),
        tuple([_farm_parts(f) for seat, f in enumerate(farms) if seat != other]),
    )


def same_inputs(anticipated: Game, real: Game, other: int) -> bool:
    """Whether every attribute the bot's decision may read is the same in both games (``other``'s farm aside)."""
    return inputs_key(anticipated, other) == inputs_key(real, other)


def hide_farm(game: Game, seat: int) -> Farm:
    """Put ``None`` in place of ``seat``'s farm (any read of it raises); returns the farm, for :func:`restore_farm`."""
    farms: list[Any] = game.farms
    farm: Farm = farms[seat]
    farms[seat] = None
    return farm


def restore_farm(game: Game, seat: int, farm: Farm) -> None:
    game.farms[seat] = farm


class Anticipation:
    """A decision worked out ahead: the game it was made in (``kind``: pick or act), the seat whose act was assumed,
    the bot's weights, its random state before and the generator after (a copy that made the choice), the action,
    and the anticipated decision that comes next (the act after a pick), if any."""

    __slots__ = ("action", "game", "key", "kind", "next", "rng", "rng_before", "seat", "weights")

    def __init__(
        self, game: Game, seat: int, kind: str | None, weights: object, rng_before: tuple, rng: Any, action: int
    ):
        self.game = game  # (not changed after: the next anticipated decision is made on a clone)
        self.key = inputs_key(game, seat)
        self.seat = seat
        self.kind = kind
        self.weights = weights
        self.rng_before = rng_before
        self.rng = rng
        self.action = action
        self.next: Anticipation | None = None

    def applies_to(self, game: Game, weights: object, rng: Any) -> bool:
        """The real decision is the one anticipated, with the same inputs and the same random state."""
        return (
            game.current_player == 1 - self.seat
            and game.decision_kind == self.kind
            and weights is self.weights
            and inputs_key(game, self.seat) == self.key
            and rng.getstate() == self.rng_before
        )
