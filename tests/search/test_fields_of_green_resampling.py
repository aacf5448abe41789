"""Fields of Green resampling matches the distribution the rules imply, on small constructed cases.

Each case counts one hidden quantity over many resampled states and compares the counts with the exact
distribution worked out from the rules alone (not from the resampler) by a chi-square test. A resampler that
kept the true hidden cards fails every case (checked too, so the tests can fail).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from farmgames.envs.fields_of_green.actions import SPLIT_INDEX
from farmgames.envs.fields_of_green.cards import PILES
from farmgames.envs.fields_of_green.game import Game

from .chisq import check

DRAWS = 3000


def split(game: Game, counts: tuple[int, int, int, int]) -> None:
    game.apply(game.layout.SPLIT + SPLIT_INDEX[counts])


def design_probabilities(game: Game, cards: list[int]) -> dict:
    names = Counter(game.cards.locations[c].name for c in cards)
    return {name: k / len(cards) for name, k in names.items()}


def sample(game: Game, seat: int, what: Callable[[Game], object], draws: int = DRAWS) -> Counter:
    draw = game.infostate_sampler(seat)
    rng = random.Random(2024)
    return Counter(what(draw(rng)) for _ in range(draws))


def three_player_drawn() -> Game:
    game = Game(3, seed=11, first_player=0)
    split(game, (3, 1, 1, 1))
    split(game, (1, 1, 1, 3))
    split(game, (2, 2, 1, 1))
    return game


def test_pile_order_is_uniform_over_unseen_cards() -> None:
    """FOG-INFO-5, FOG-INFO-3: after the draw, the top Field card is any Field card seat 0 does not hold,
    equally likely (other hands and the rest of the pile are one unseen pool)."""
    game = three_player_drawn()
    field = set(game.cards.pile_cards(PILES[0]))
    unseen = sorted(field - set(game.hands[0]))
    counts = sample(game, 0, lambda g: g.cards.locations[g.piles[0][-1]].name)
    check(
        counts, design_probabilities(game, unseen), game.cards.locations[game.piles[0][-1]].name, "FoG top Field card"
    )


def test_other_hands_keep_their_public_split() -> None:
    """FOG-DRAW-6 / FOG-INFO-4: another hand always has the drawn split (3, 1, 1, 1) per pile; its Field
    cards are uniform over the unseen Field cards."""
    game = three_player_drawn()
    pile = {c: PILES.index(game.cards.locations[c].pile) for c in range(len(game.cards.locations))}
    draw = game.infostate_sampler(2)
    rng = random.Random(5)
    for _ in range(200):
        other = draw(rng)
        per_pile = Counter(pile[c] for c in other.hands[0])
        assert [per_pile.get(k, 0) for k in range(4)] == [3, 1, 1, 1]
        assert sorted(other.hands[2]) == sorted(game.hands[2])


def test_unseen_face_down_pick_follows_the_split() -> None:
    """FOG-ACT-4, FOG-RUL-15: seat 2 has not seen seat 0's hand; seat 0's face-down pick comes from the
    pile with probability (cards of that pile in its draw) / 6, picks being uniform (no opponent model)."""
    game = three_player_drawn()
    game.apply(game.layout.PICK + 0)  # seat 0 picks face down
    game.apply(game.layout.PICK + 5)  # seat 1 picks face down
    assert game.current_player == 2 and not game.revealed
    expected = {k: c / 6 for k, c in enumerate((3, 1, 1, 1))}
    counts = sample(game, 2, lambda g: PILES.index(g.cards.locations[g.picks[0]].pile))
    check(counts, expected, PILES.index(game.cards.locations[game.picks[0]].pile), "FoG unseen pick pile (seat 0)")
    expected1 = {k: c / 6 for k, c in enumerate((1, 1, 1, 3))}
    counts1 = sample(game, 2, lambda g: PILES.index(g.cards.locations[g.picks[1]].pile))
    check(counts1, expected1, PILES.index(game.cards.locations[game.picks[1]].pile), "FoG unseen pick pile (seat 1)")


def test_pick_from_a_hand_the_seat_passed_is_uniform_over_it() -> None:
    """FOG-INFO-3 with perfect recall: seat 2 passed its hand to seat 0 (year 1 is clockwise, FOG-ACT-5);
    seat 0's face-down pick in turn 2 is one of those 5 cards, each with probability 1/5."""
    game = three_player_drawn()
    for _ in range(3):
        game.apply(game.layout.PICK + 0)
    passed = sorted(game.hands[0])  # after the reveal seat 0 holds what seat 2 passed
    while game.decision_kind == "act" or game.decision_kind not in ("pick", None):
        legal = game.legal_actions()
        market = [a for a in legal if game.layout.decode(a)[0] == "market"]
        game.apply(market[0] if market else legal[0])
    assert game.decision_kind == "pick" and game.turn == 2 and game.current_player == 0
    game.apply(game.layout.PICK + 3)
    game.apply(game.layout.PICK + 1)
    assert game.current_player == 2
    counts = sample(game, 2, lambda g: g.picks[0])
    check(counts, {c: 1 / 5 for c in passed}, game.picks[0], "FoG pick from a passed hand")


def test_two_player_offer_order() -> None:
    """FOG-2P-3, FOG-INFO-5: the next card turned up from the 2-player offer comes from each pile with
    probability (cards of that pile left in the offer) / (cards in the offer); the composition is public
    (the splits and the display are)."""
    game = Game(2, seed=4, first_player=0)
    split(game, (3, 1, 1, 1))
    split(game, (1, 1, 3, 1))
    assert len(game.offer) == 6 and len(game.display) == 6
    comp = Counter(PILES.index(game.cards.locations[c].pile) for c in game.offer)
    expected = {k: c / len(game.offer) for k, c in comp.items()}
    counts = sample(game, 0, lambda g: PILES.index(g.cards.locations[g.offer[-1]].pile))
    check(counts, expected, PILES.index(game.cards.locations[game.offer[-1]].pile), "FoG 2p offer next card pile")
    for other in (game.infostate_sampler(1)(random.Random(i)) for i in range(20)):
        assert other.display == game.display  # the display is public (FOG-2P-4)


def test_equipment_stack_is_uniform_before_any_tile_is_seen() -> None:
    """FOG-INFO-5, FOG-SETUP-9: no tile has been seen, so the top tile is any tile, by copies."""
    game = three_player_drawn()
    tiles = list(range(len(game.cards.equipment)))
    names = Counter(game.cards.equipment[t].name for t in tiles)
    expected = {name: k / len(tiles) for name, k in names.items()}
    counts = sample(game, 1, lambda g: g.cards.equipment[g.equipment_stack[-1]].name)
    check(counts, expected, game.cards.equipment[game.equipment_stack[-1]].name, "FoG top Equipment tile")


def test_an_edited_state_is_refused() -> None:
    """A state that its deal and history do not produce (edited by hand) has no information state."""
    import pytest

    game = three_player_drawn()
    game.piles[0][-1], game.piles[0][0] = game.piles[0][0], game.piles[0][-1]
    with pytest.raises(ValueError, match="not the replay"):
        game.information_state(0)
