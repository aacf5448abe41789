"""Information states and determinisation for Key Harvest: what one seat knows, and states drawn from it.

Every action and every transfer is public (KH-INFO-2, KH-INFO-5, KH-INFO-6); only three things are hidden
(KH-INFO-7): the order of the bag, the 2 event tiles removed unseen in a 3-4 player game (KH-INFO-4), and,
in a 3-4 player game, the other players' secret start draws (KH-SETUP-9..12), as far as the public record
does not reveal them (KH-RULING-16). All chance is drawn at setup (:class:`Deal`: start draws, removed
events, bag order), so a state is its deal plus its action history.

Information state: the seat's own start draw, then per decision who decided and what, and, when it
changed, what was drawn from the bag (the registry, the event spaces, the fallow area) and the seat's own
supply. Replayed from the state's deal, so perfect recall holds by construction.

Resampling, from the distribution the rules imply given the public record:

* start draws (3-4 players): the pool minus the seat's own draw is dealt to the other seats as the rules
  deal it (a uniform shuffle), conditioned on the public record. The splits with ``start + lowest public
  net so far >= 0`` per crop (every counter a player spent was his: the engine's ``min_net``) are
  enumerated with their exact probabilities (at most 35^3); a drawn split is kept only if the whole record
  replays from it legally with the same observations (some actions need counters a player holds without
  spending them), else drawn again: rejection sampling, so the draw is exactly the conditional
  distribution (each split is checked once per analysis);
* removed events: any unseen event tiles (those in the bag and the removed ones) are equally likely to be
  the removed ones;
* bag order: a uniform shuffle of what is left (its composition is public, KH-INFO-3).

A drawn state keeps its own deal (``_deal``), so its information state is computed by the same replay
(tests/search checks it equals the original's).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache, partial
from math import comb

import numpy as np

from farmgames.envs.core.recall import check_replayed, check_seat, replay_views

from ..core.protocol import IllegalActionError, InformationState
from ..core.search import ISMCTSBot, PIMCBot
from .board import NUM_CROPS, NUM_SPACES, START_COUNTERS
from .game import Game

__all__ = [
    "ROLLOUT_DEPTH",
    "Deal",
    "action_token",
    "deal_of",
    "information_state",
    "ismcts_25",
    "ismcts_100",
    "pimc_25",
    "pimc_100",
    "resample_from_infostate",
    "sampler",
    "view_token",
]


@dataclass(frozen=True)
class Deal:
    """The chance of a game after setup: start draws per seat, removed events, bag (drawn from the end)."""

    start: tuple[tuple[int, ...], ...]
    removed: tuple[int, ...]
    bag: tuple[int, ...]


def _no_advance() -> None:
    """Stands in for ``Game._advance`` while a game is set up for a given deal."""


def _fresh(game: Game, deal: Deal | None) -> tuple[Game, Deal]:
    g = Game.__new__(Game)
    g._advance = _no_advance  # type: ignore[method-assign]
    Game.__init__(g, game.num_players, game.seed, first_player=game.first_player)
    del g._advance
    if deal is None:
        deal = Deal(tuple(tuple(r) for r in g.start), tuple(g.removed), tuple(g.bag))
    else:
        g.start = [list(r) for r in deal.start]
        g.supply = [list(r) for r in deal.start]
        g.removed = list(deal.removed)
        g.bag = list(deal.bag)
    g._advance()
    return g, deal


@lru_cache(maxsize=256)
def _seed_deal(num_players: int, seed: int, first_player: int | None) -> Deal:
    probe = Game.__new__(Game)
    probe.num_players, probe.seed, probe.first_player = num_players, seed, first_player
    return _fresh(probe, None)[1]


def deal_of(game: Game) -> Deal:
    """The deal ``game`` was played from: its own ``_deal`` (a resampled state) or its seed's."""
    deal = getattr(game, "_deal", None)
    return deal if deal is not None else _seed_deal(game.num_players, game.seed, game.first_player)


def action_token(game: Game, seat: int, action: int) -> Hashable:
    """Every Key Harvest action is public (KH-INFO-6)."""
    return int(action)


def view_token(game: Game, seat: int) -> Hashable:
    """What ``seat`` sees that no action told it: tiles drawn from the bag (registry, event spaces, fallow
    area) and its own supply."""
    return (tuple(game.registry), tuple(game.events), tuple(game.fallow), tuple(game.supply[seat]))


def _run(game: Game, seat: int, deal: Deal) -> tuple[Game, list[str]]:
    """Replay ``game``'s history from ``deal``: the replayed game and ``seat``'s tokens (IllegalActionError
    when the history is not legal from that deal)."""
    g, _ = _fresh(game, deal)
    return g, replay_views(g, game.history, seat, view_token, f"start {list(deal.start[seat])}")


def _replay(game: Game, seat: int) -> tuple[Deal, list[str]]:
    check_seat(game, seat)
    deal = deal_of(game)
    g, tokens = _run(game, seat, deal)
    check_replayed(g, game, "its deal and history")
    return deal, tokens


def information_state(game: Game, seat: int) -> InformationState:
    """``seat``'s information state (perfect recall); the tensor is its observation (which already holds
    what perfect recall deduces about the other supplies, KH-INFO-8)."""
    _, tokens = _replay(game, seat)
    head = json.dumps(
        {"game": "key_harvest", "seat": seat, "num_players": game.num_players, "first_player": game.first_player},
        sort_keys=True,
    )
    from .observer import Observer

    obs = Observer(game)
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)
    return InformationState(seat, head + "\n" + "\n".join(tokens), np.array(buf.flat, copy=True))


def _vectors(remaining: list[int]) -> list[tuple[int, ...]]:
    """Every start draw of START_COUNTERS counters that ``remaining`` (counts per crop) allows."""
    out = []
    for combo in itertools.combinations_with_replacement(range(NUM_CROPS), START_COUNTERS):
        v = [0] * NUM_CROPS
        for c in combo:
            v[c] += 1
        if all(v[c] <= remaining[c] for c in range(NUM_CROPS)):
            out.append(tuple(v))
    return out


def start_distribution(game: Game, seat: int) -> list[tuple[float, tuple[tuple[int, ...], ...]]]:
    """The exact distribution of the other seats' start draws given ``seat``'s knowledge: (probability,
    draws of the other seats in seat order), for 3-4 players (KH-SETUP-9..12, KH-INFO-7)."""
    others = [q for q in range(game.num_players) if q != seat]
    remaining = [game.pool[c] - game.start[seat][c] for c in range(NUM_CROPS)]
    out: list[tuple[float, tuple[tuple[int, ...], ...]]] = []

    def fits(q: int, v: tuple[int, ...]) -> bool:
        return all(v[c] + game.min_net[q][c] >= 0 for c in range(NUM_CROPS))

    def walk(i: int, rem: list[int], weight: float, chosen: tuple[tuple[int, ...], ...]) -> None:
        if i == len(others):
            out.append((weight, chosen))
            return
        for v in _vectors(rem):
            if fits(others[i], v):
                w = weight
                for c in range(NUM_CROPS):
                    w *= comb(rem[c], v[c])
                walk(i + 1, [rem[c] - v[c] for c in range(NUM_CROPS)], w, (*chosen, v))

    walk(0, remaining, 1.0, ())
    total = sum(w for w, _ in out)
    return [(w / total, draws) for w, draws in out]


def sampler(game: Game, seat: int) -> Callable[[random.Random], Game]:
    """Analyse ``game`` once for ``seat``; the function returned draws resampled states from an RNG."""
    deal, tokens = _replay(game, seat)
    n = game.num_players
    others = [q for q in range(n) if q != seat]
    secret = n > 2  # the 2-player start counters are dealt openly (KH-SETUP-18)
    dist = start_distribution(game, seat) if secret else [(1.0, tuple(tuple(game.start[q]) for q in others))]
    cumulative = list(itertools.accumulate(w for w, _ in dist))
    indices = range(len(dist))
    valid: dict[int, bool] = {}
    unseen_events = sorted([t for t in game.bag if t >= NUM_SPACES] + list(game.removed))
    fields = [t for t in game.bag if t < NUM_SPACES]
    drawn_tail = deal.bag[len(game.bag) :]  # what was drawn so far (the bag is only ever popped)
    k = len(game.removed)

    def consistent(i: int) -> bool:
        """Whether start draws ``dist[i]`` explain the whole record as ``seat`` saw it: every past action
        legal (some need counters a player holds without spending them) and the same observations."""
        if i not in valid:
            start = [list(r) for r in deal.start]
            for q, v in zip(others, dist[i][1]):
                start[q] = list(v)
            trial = Deal(tuple(tuple(r) for r in start), deal.removed, deal.bag)
            try:
                valid[i] = _run(game, seat, trial)[1] == tokens
            except (ValueError, IllegalActionError):
                valid[i] = False
        return valid[i]

    def draw(rng: random.Random) -> Game:
        g = game.clone()
        while True:  # rejection: exact conditional distribution (the true draws are always consistent)
            i = 0 if len(dist) == 1 else rng.choices(indices, cum_weights=cumulative)[0]
            if len(dist) == 1 or consistent(i):
                break
        draws = dist[i][1]
        start = [list(r) for r in game.start]
        for q, v in zip(others, draws):
            start[q] = list(v)
            g.supply[q] = [v[c] + game.net[q][c] for c in range(NUM_CROPS)]
        g.start = start
        events = unseen_events[:]
        rng.shuffle(events)
        g.removed = sorted(events[:k])
        bag = fields + events[k:]
        rng.shuffle(bag)
        g.bag = bag
        g._advance()  # the decider's legal actions follow its (resampled) supply, as in a replay of the deal
        g._deal = Deal(tuple(tuple(r) for r in start), tuple(g.removed), tuple(bag) + drawn_tail)  # type: ignore[attr-defined]
        return g

    return draw


def resample_from_infostate(game: Game, seat: int, rng: random.Random) -> Game:
    """A complete state drawn from what ``seat`` knows in ``game`` (``game`` is untouched)."""
    return sampler(game, seat)(rng)


# ---------------------------------------------------------------------------------------------- search bots

#: playouts stop after this many decisions and are valued from the scores (2-player games last ~450)
ROLLOUT_DEPTH = 30

pimc_25 = partial(PIMCBot, simulations=25, determinizations=5, rollout_depth=ROLLOUT_DEPTH)
pimc_100 = partial(PIMCBot, simulations=100, determinizations=10, rollout_depth=ROLLOUT_DEPTH)
ismcts_25 = partial(ISMCTSBot, simulations=25, rollout_depth=ROLLOUT_DEPTH)
ismcts_100 = partial(ISMCTSBot, simulations=100, rollout_depth=ROLLOUT_DEPTH)
