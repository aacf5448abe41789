"""What a seat cannot see, changed: the hook ``SPEC.hidden_perturbation`` of Fields of Green.

The conformance suite (tests/conformance) builds such a copy of a state and checks that the seat's
observation, mask, text and renders do not change (FOG-INFO-3..8).
"""

from __future__ import annotations

import random

from .game import Game


def swap_with_pile(game: Game, rng: random.Random, card: int) -> int:
    """Put ``card`` into a random place of a random non-empty main pile; return the card that was there."""
    piles = [p for p in game.piles if p]
    pile = rng.choice(piles)
    j = rng.randrange(len(pile))
    other, pile[j] = pile[j], card
    return other


def hidden_perturbation(game: Game, viewer: int, rng: random.Random) -> Game | None:
    """A clone where everything ``viewer`` may not see is changed: other hands, other face-down picks,
    pile order, the Equipment stack, the 2-player offer pile, tiles another player is choosing from.
    None when the piles are empty (nothing to swap with)."""
    if not any(game.piles):
        return None
    g = game.clone()
    for q in range(g.num_players):
        if q == viewer:
            continue
        hand = g.hands[q]
        for i in range(len(hand)):
            if rng.random() < 0.7:
                hand[i] = swap_with_pile(g, rng, hand[i])
        hand.sort()
        if g.picks[q] is not None and not g.revealed and not g.two_player:
            g.picks[q] = swap_with_pile(g, rng, g.picks[q])
    for pile in g.piles:
        rng.shuffle(pile)
    rng.shuffle(g.equipment_stack)
    for i in range(len(g.offer)):
        g.offer[i] = swap_with_pile(g, rng, g.offer[i])
    frame = g.decision
    if frame is not None and frame[1] != viewer and g.equipment_stack:
        if frame[0] == "keep_equipment":
            tiles = tuple(
                g.equipment_stack[-1 - i] if i < len(g.equipment_stack) else t for i, t in enumerate(frame[2])
            )
            g._stack[-1] = (frame[0], frame[1], tiles)
        elif frame[0] == "place_equipment":
            g._stack[-1] = (frame[0], frame[1], g.equipment_stack[-1])
    g._legal = None
    return g
