"""Information states and determinisation for Fields of Green: what one seat knows, and states drawn from it.

What a seat may know is section 14 of the rulebook (FOG-INFO-1..8, FOG-RUL-31): farms, coins, VP tokens,
set-aside tiles, the discard pile, draw counts and pile sizes are public; a hand only to its holder
(FOG-INFO-3: with perfect recall the seat also remembers every hand it held and passed on); this turn's
face-down picks until the reveal (FOG-ACT-4); the order and content of the main piles, the 2-player offer
pile and the Equipment stack to no one (FOG-INFO-5); tiles put on the bottom only to their drawer (FOG-INFO-8).

How it works. All chance of the game is drawn at setup (the :class:`Deal`: pile orders, Equipment stack,
2-player offer shuffle keys), so a state is its deal plus its action history. The information state of a
seat replays the history from the deal and writes down, per decision, who decided, what the seat saw of the
decision (:func:`action_token`: another seat's pick slot and kept-tile index are hidden) and what it saw
after it (:func:`view_token`: its hand and pick, revealed picks, the display, tiles it draws).

Resampling (:func:`sampler`) draws from the posterior the rules imply. Every card and tile the seat has
never seen is exchangeable with every other one of its kind (same main pile; any tile): the shuffles were
uniform and nothing the seat observed depends on which unseen card lies where. So a draw relabels the
unseen cards of each pile by a uniform permutation (other hands, this turn's unseen picks, the rest of the
piles, the 2-player offer) and the unseen tiles likewise (the stack, tiles another seat is choosing from);
the face-down picks of this turn are chosen again uniformly from the picker's cards (no opponent model),
the order of the unseen 2-player offer is shuffled again, and the shuffle keys of 2-player offers not yet
formed are drawn again. The drawn state keeps its own deal (``_deal``) and a history translated to it
(another seat's pick slot is the rank of the card it picked in its relabelled hand), so its information
state is computed by the same replay: tests/search checks that it equals the original's.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from ..core.protocol import InformationState
from ..core.search import ISMCTSBot, PIMCBot
from .cards import PILES
from .game import Game

__all__ = [
    "ROLLOUT_DEPTH",
    "ismcts_25",
    "ismcts_100",
    "pimc_25",
    "pimc_100",
    "Deal",
    "action_token",
    "deal_of",
    "information_state",
    "resample_from_infostate",
    "sampler",
    "view_token",
]


@dataclass(frozen=True)
class Deal:
    """Every chance outcome of a game, drawn at setup: main piles (top = last), the Equipment stack (top =
    last) and the 2-player offer shuffle keys per year."""

    piles: tuple[tuple[int, ...], ...]
    equipment_stack: tuple[int, ...]
    offer_keys: tuple[tuple[float, ...], ...]


def _fresh(game: Game, deal: Deal | None) -> tuple[Game, Deal]:
    """A new game with ``game``'s players, seed and variant at its first decision; with ``deal`` its chance
    replaced by that deal. Returns the game and the deal it was built from."""
    v = game.variant
    g = Game.__new__(Game)
    Game.__init__(
        g,
        _advance_now=False,  # (nothing drawn yet: the deal is set below, then _advance runs)
        num_players=game.num_players,
        seed=game.seed,
        farm_size=v["farm_size"],
        card_set=game.cards,
        fixed_split=v["fixed_split"],
        pass_directions=v["pass_directions"],
        first_player=v["first_player"],
        auto_single=v["auto_single"],
    )
    g.variant = dict(v)
    if deal is None:
        deal = Deal(tuple(tuple(p) for p in g.piles), tuple(g.equipment_stack), tuple(tuple(k) for k in g._offer_keys))
    else:
        g.piles = [list(p) for p in deal.piles]
        g.equipment_stack = list(deal.equipment_stack)
        g._offer_keys = [list(k) for k in deal.offer_keys]
    g._advance()
    return g, deal


@lru_cache(maxsize=256)
def _seed_deal(key: str, game_ref: Any) -> Deal:
    return _fresh(game_ref.game, None)[1]


class _Ref:
    """Carries a game into the cache without making it part of the key."""

    def __init__(self, game: Game):
        self.game = game

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return True


def deal_of(game: Game) -> Deal:
    """The deal ``game`` was played from: its own ``_deal`` (a resampled state) or the one its seed draws."""
    deal = getattr(game, "_deal", None)
    if deal is not None:
        return deal
    key = json.dumps([game.num_players, game.seed, game.cards.sha256, game.variant], sort_keys=True, default=str)
    return _seed_deal(key, _Ref(game))


# ---------------------------------------------------------------------------------------------- tokens


def action_token(game: Game, seat: int, action: int) -> Hashable:
    """What ``seat`` observes of the current player's ``action`` (before it is applied): the action, except
    another seat's pick slot in 3-4 player games (FOG-ACT-4) and the slot of the tile it keeps (FOG-INFO-8);
    the tile another seat places is shown with the placement (FOG-INFO-1)."""
    frame = game.decision
    if frame is None or frame[1] == seat:
        return int(action)
    kind = frame[0]
    if kind == "pick" and not game.two_player:
        return "pick"
    if kind == "keep_equipment":
        return "keep"
    if kind == "place_equipment":
        return (int(action), frame[2])
    return int(action)


def view_token(game: Game, seat: int) -> Hashable:
    """What ``seat`` sees now that no action told it: its hand and pick, the picks once revealed (always in
    2-player games), the 2-player display, and the tiles it is choosing from."""
    frame = game.decision
    own = (
        frame[2]
        if frame is not None and frame[1] == seat and frame[0] in ("keep_equipment", "place_equipment")
        else None
    )
    shown = tuple(game.picks) if game.revealed or game.two_player else None
    return (tuple(game.hands[seat]), game.picks[seat], shown, tuple(game.display), own)


# ---------------------------------------------------------------------------------------------- analysis


@dataclass
class _Analysis:
    """One replay of a state from its deal, seen by one seat."""

    seat: int
    deal: Deal
    tokens: list[str]
    seen_cards: set[int]
    seen_tiles: set[int]
    picks: list[tuple[int, int, int, tuple[int, ...]]]  # (history index, picker, card, hand) of other seats


def _seen_now(game: Game, seat: int, cards: set[int], tiles: set[int]) -> None:
    cards.update(game.hands[seat])
    cards.update(game.display)
    if game.picks[seat] is not None:
        cards.add(game.picks[seat])
    frame = game.decision
    if frame is not None and frame[1] == seat:
        if frame[0] == "keep_equipment":
            tiles.update(frame[2])
        elif frame[0] == "place_equipment":
            tiles.add(frame[2])


def _seen_public(game: Game, cards: set[int], tiles: set[int]) -> None:
    """Cards and tiles on the table: farms, set-aside tiles, discard, removed tiles, revealed picks."""
    for farm in game.farms:
        cards.update(code for code in farm.grid if code >= 0)
        for placed in farm.equipment.values():
            tiles.update(placed)
        tiles.update(farm.set_aside)
    cards.update(game.discard)
    tiles.update(game.removed_equipment)
    if game.revealed or game.two_player:
        cards.update(c for c in game.picks if c is not None)


def analyse(game: Game, seat: int) -> _Analysis:
    """Replay ``game`` from its deal, recording what ``seat`` observes. ValueError when the replay does not
    give ``game`` back (a state edited by hand, or one whose seed is not the one it was played from)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1}, got {seat!r}")
    deal = deal_of(game)
    g, _ = _fresh(game, deal)
    cards: set[int] = set()
    tiles: set[int] = set()
    picks: list[tuple[int, int, int, tuple[int, ...]]] = []
    last = view_token(g, seat)
    tokens = [f"view {last!r}"]
    _seen_now(g, seat, cards, tiles)
    pick = g.layout.PICK
    for i, action in enumerate(game.history):
        frame = g.decision
        if frame is None:
            raise ValueError(f"state is not the replay of its deal: the game ends before history step {i}")
        actor = frame[1]
        if frame[0] == "pick" and actor != seat and not g.two_player:
            hand = tuple(g.hands[actor])
            picks.append((i, actor, hand[action - pick] if 0 <= action - pick < len(hand) else -1, hand))
        token = action_token(g, seat, action)
        g.apply(action)
        view = view_token(g, seat)
        tokens.append(f"{actor}:{token!r}" if view == last else f"{actor}:{token!r} view {view!r}")
        last = view
        _seen_now(g, seat, cards, tiles)
    _seen_public(g, cards, tiles)
    if g.to_json() != game.to_json():
        raise ValueError(
            "state is not the replay of its deal and history (edited by hand?): information states and "
            "resampling need a state reached by play"
        )
    return _Analysis(seat, deal, tokens, cards, tiles, picks)


# ---------------------------------------------------------------------------------------------- public API


def information_state(game: Game, seat: int) -> InformationState:
    """``seat``'s information state (perfect recall). The string lists the variant, then per decision
    ``decider:what the seat saw of it`` and, when it changed, the seat's view after it. The tensor is the
    seat's observation (:class:`~farmgames.envs.fields_of_green.observer.Observer`, no perfect_recall entry)
    followed by two 0/1 masks: location cards and Equipment tiles the seat has seen so far."""
    a = analyse(game, seat)
    head = json.dumps(
        {
            "game": "fields_of_green",
            "seat": seat,
            "num_players": game.num_players,
            "card_set": game.cards.sha256,
            "variant": game.variant,
        },
        sort_keys=True,
        default=str,
    )
    string = head + "\n" + "\n".join(a.tokens)
    from .observer import Observer

    obs = Observer(game)
    buf = obs.new_buffer()
    obs.fill(game, seat, buf)
    card_mask = np.zeros(len(game.cards.locations), np.float32)
    card_mask[sorted(a.seen_cards)] = 1.0
    tile_mask = np.zeros(len(game.cards.equipment), np.float32)
    tile_mask[sorted(a.seen_tiles)] = 1.0
    tensor = np.concatenate([buf.flat, card_mask, tile_mask])
    return InformationState(seat, string, tensor)


def string_digest(string: str) -> str:
    """A short digest of an information-state string (for logs and tests)."""
    return hashlib.blake2b(string.encode(), digest_size=8).hexdigest()


def sampler(game: Game, seat: int) -> Callable[[random.Random], Game]:
    """Analyse ``game`` once for ``seat``; the function returned draws resampled states (see the module
    docstring) from a ``random.Random``."""
    a = analyse(game, seat)
    cards = game.cards
    unseen = [[c for c in cards.pile_cards(p) if c not in a.seen_cards] for p in PILES]
    unseen_tiles = [t for t in range(len(cards.equipment)) if t not in a.seen_tiles]
    n = game.num_players
    hidden_picks = [
        q for q in range(n) if q != seat and game.picks[q] is not None and not game.revealed and not game.two_player
    ]
    last_event: dict[int, int] = {}
    for k, (_, actor, _, _) in enumerate(a.picks):
        last_event[actor] = k
    formed = game.phase not in ("setup", "upkeep", "draw")
    year = max(game.year, 1)

    def draw(rng: random.Random) -> Game:
        m: dict[int, int] = {}
        for group in unseen:
            shuffled = group[:]
            rng.shuffle(shuffled)
            m.update(zip(group, shuffled))
        shuffled_tiles = unseen_tiles[:]
        rng.shuffle(shuffled_tiles)
        mt = dict(zip(unseen_tiles, shuffled_tiles))

        def mc(c: int) -> int:
            return m.get(c, c)

        def me(t: int) -> int:
            return mt.get(t, t)

        g = game.clone()
        g.piles = [[mc(c) for c in pile] for pile in game.piles]
        g.hands = [sorted(mc(c) for c in hand) for hand in game.hands]
        g.picks = [None if c is None else mc(c) for c in game.picks]
        g.offer = [mc(c) for c in game.offer]
        g.equipment_stack = [me(t) for t in game.equipment_stack]
        g._stack = [_map_frame(f, me) for f in game._stack]
        history = list(game.history)
        for i, _actor, card, hand in a.picks:  # other seats' slots: ranks in their relabelled hands
            history[i] = game.layout.PICK + sorted(mc(c) for c in hand).index(mc(card))
        for q in hidden_picks:  # this turn's face-down picks: chosen again from the picker's cards
            pool = sorted(g.hands[q] + [g.picks[q]])
            slot = rng.randrange(len(pool))
            g.picks[q] = pool.pop(slot)
            g.hands[q] = pool
            k = last_event.get(q)
            if k is not None and a.picks[k][2] == game.picks[q]:
                history[a.picks[k][0]] = game.layout.PICK + slot
        keys = [list(k) for k in a.deal.offer_keys]
        if game.two_player:
            keys = _offer_keys(game, g, keys, year, formed, rng)
        g.history = history
        g._offer_keys = keys
        g._legal = None
        g._deal = Deal(  # type: ignore[attr-defined]
            tuple(tuple(mc(c) for c in pile) for pile in a.deal.piles),
            tuple(me(t) for t in a.deal.equipment_stack),
            tuple(tuple(k) for k in keys),
        )
        return g

    return draw


def _offer_keys(
    game: Game, g: Game, keys: list[list[float]], year: int, formed: bool, rng: random.Random
) -> list[list[float]]:
    """2-player offer (FOG-2P-3, FOG-INFO-5): shuffle keys of offers not formed yet are drawn again; the
    unseen rest of this year's offer is put in a new uniform order (``g.offer`` rewritten) and the keys of
    its cards exchanged so that the deal still forms it."""
    first_new = year if formed else year - 1  # index of the first year whose keys are future chance
    for y in range(first_new, len(keys)):
        keys[y] = [rng.random() for _ in keys[y]]
    if formed and g.offer:
        current = keys[year - 1]
        drawn = sum(sum(c) for c in game.draw_counts)
        order = sorted(range(drawn), key=lambda i: current[i])
        r = len(g.offer)
        slots = order[:r]  # drawn-order indices of the cards still in the offer, in offer order
        values = [current[i] for i in slots]
        perm = list(range(r))
        rng.shuffle(perm)
        g.offer = [g.offer[j] for j in perm]
        for j, src in enumerate(perm):
            current[slots[src]] = values[j]
    return keys


def _map_frame(frame: tuple, me: Callable[[int], int]) -> tuple:
    if frame[0] == "keep_equipment":
        return (frame[0], frame[1], tuple(me(t) for t in frame[2]))
    if frame[0] == "place_equipment":
        return (frame[0], frame[1], me(frame[2]))
    return frame


def resample_from_infostate(game: Game, seat: int, rng: random.Random) -> Game:
    """A complete state drawn from what ``seat`` knows in ``game`` (``game`` is untouched)."""
    return sampler(game, seat)(rng)


# ---------------------------------------------------------------------------------------------- search bots

#: playouts stop after this many decisions (about a third of a 2-player year) and are valued from the scores
ROLLOUT_DEPTH = 40

pimc_25 = partial(PIMCBot, simulations=25, determinizations=5, rollout_depth=ROLLOUT_DEPTH)
pimc_100 = partial(PIMCBot, simulations=100, determinizations=10, rollout_depth=ROLLOUT_DEPTH)
ismcts_25 = partial(ISMCTSBot, simulations=25, rollout_depth=ROLLOUT_DEPTH)
ismcts_100 = partial(ISMCTSBot, simulations=100, rollout_depth=ROLLOUT_DEPTH)
