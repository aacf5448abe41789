"""``Game.legal_mask_bytes`` (the optional mask hook of ``core.protocol.Game``) against the plain mask.

The hook builds a mask without the legal list where that is cheap (a pick's and a full-piles split's are
prebuilt per layout, an act's is joined from byte blocks and ``Farm.frontier_mask``) and keeps it in
``Game._legal`` for ``apply``'s check. Compared here with the plain reading -- one byte per action of
``legal_actions()`` -- at every state of random games of 2-4 players (auto_single, fixed splits, a small farm),
asked before and after the list, on clones and loaded states; ``apply`` through a kept mask refuses exactly
what the list refuses, state untouched (FOG-RUL-16); ``Farm.frontier_mask`` is the frontier (FOG-FARM-3).
"""

from __future__ import annotations

import random

import pytest

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.actions import MARKET_SALES
from farmgames.envs.fields_of_green.cards import HAND_SIZE
from farmgames.envs.fields_of_green.farm import Farm
from farmgames.envs.fields_of_green.game import _MASKED, _legal_split_tuple, _legal_splits, _MaskTable

from .test_engine_paths import _variants


def _plain_mask(game: Game) -> bytes:
    """The plain reading: one 0/1 byte per action, 1 for each of legal_actions()."""
    bits = bytearray(game.num_actions)
    for a in game.legal_actions():
        bits[a] = 1
    return bytes(bits)


def _plain_frontier_bits(farm: Farm) -> bytes:
    return bytes(1 if c in farm.frontier else 0 for c in range(farm.geometry.cells))


def _games(players: int, count: int):
    """The engine-path tests' variants (auto_single, a fixed split, a 7x7 grid), as new games."""
    for seed, kw in _variants(players, count):
        yield seed, Game(num_players=players, seed=seed, **kw)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mask_equals_the_plain_mask_at_every_state(players):
    kinds: dict[str, int] = {}
    water_builds = restores = 0
    for seed, game in _games(players, 8):
        rng = random.Random(seed)
        while not game.is_terminal():
            kind = game.decision_kind
            kinds[kind] = kinds.get(kind, 0) + 1
            if rng.random() < 0.5:  # the mask first (kept in _legal), then the list
                mask = game.legal_mask_bytes()
                if game._legal is _MASKED:  # (not with auto_single's list kept by _advance)
                    assert game.legal_mask_bytes() is mask  # asked again: the kept bytes
                plain = _plain_mask(game)
            else:  # the list first, then the mask built from it
                plain = _plain_mask(game)
                mask = game.legal_mask_bytes()
            assert type(mask) is bytes and mask == plain, (seed, game.decision)
            if kind == "act":
                p = game.current_player
                assert game._act_mask(p, game.farms[p]) == plain
                card = game.cards.locations[game.picks[p]]
                water_builds += bool(card.cost.water and any(mask[game.layout.BUILD : game.layout.TOWER]))
                restores += any(mask[game.layout.RESTORE : game.layout.RESTORE + game.layout.cells])
            for farm in game.farms:  # asked now and then: grown from one or several cells placed since
                if rng.random() < 0.3:
                    assert bytes(farm.frontier_mask()) == _plain_frontier_bits(farm)
            if rng.random() < 0.05:  # clones and loaded states: the same mask, mask first
                for other in (game.clone(), Game.from_json(game.to_json())):
                    assert other.legal_mask_bytes() == plain
                    for farm in other.farms:
                        assert bytes(farm.frontier_mask()) == _plain_frontier_bits(farm)
            if rng.random() < 0.5:
                game._legal = None
                game.legal_mask_bytes()  # apply below checks through the kept mask
            legal = game.legal_actions() if game._legal is not _MASKED else list(game._compute_legal())
            game.apply(legal[rng.randrange(len(legal))])
        assert game.legal_mask_bytes() == bytes(game.num_actions)  # over: nothing is legal
    assert kinds["pick"] > 100 and kinds["act"] > 100 and kinds["split"] > 10 and kinds["harvest"] > 20
    assert water_builds > 20 and restores > 2


@pytest.mark.parametrize("players", [2, 4])
def test_apply_through_a_kept_mask_refuses_what_the_list_refuses(players):
    """FOG-RUL-16: through the mask or the list, the same actions are refused, the state untouched."""
    refused = 0
    for seed, game in _games(players, 3):
        rng = random.Random(seed)
        while not game.is_terminal():
            legal = game.legal_actions()
            probes = [-1, -game.num_actions, game.num_actions, game.num_actions + 5, 10**20]
            probes += [rng.randrange(game.num_actions) for _ in range(3)]
            for action in probes:
                if action in legal:
                    continue
                for through_mask in (True, False):
                    game._legal = None
                    if through_mask:
                        game.legal_mask_bytes()
                    before = game.to_json()
                    with pytest.raises(IllegalActionError):
                        game.apply(action)
                    assert game.to_json() == before
                    refused += 1
            game._legal = None
            game.legal_mask_bytes()
            game.apply(legal[rng.randrange(len(legal))])
    assert refused > 1000


def test_prebuilt_masks_are_the_plain_masks():
    for farm_size in (5, 9, 25):
        layout = Game(num_players=2, farm_size=farm_size).layout
        table = _MaskTable(layout)
        size = layout.size

        def plain(actions, size=size):
            return bytes(1 if i in set(actions) else 0 for i in range(size))

        assert table.zeros == bytes(size)
        assert [m for m in table.picks] == [plain(c) for c in layout.pick_choices]
        full = _legal_split_tuple((HAND_SIZE,) * 4)  # every pile holds a full hand (FOG-DRAW-2..4)
        assert table.all_splits == plain([layout.SPLIT + i for i in full])
        rng = random.Random(farm_size)
        for _ in range(300):  # short piles (FOG-RUL-14): memoised by the sizes capped at a hand
            sizes = tuple(rng.choice([0, 0, 1, 2, 3, 5, 6, 7, 20]) for _ in range(4))
            want = plain([layout.SPLIT + i for i in _legal_splits(list(sizes))])
            assert table.split_mask(sizes) == want and table.split_mask(sizes) == want, sizes
        assert len(table.act_head) == layout.BUILD and len(table.no_cells) == layout.cells
        assert len(table.act_head) + 4 * layout.cells + MARKET_SALES + len(table.act_tail) == size
        assert [m for m in table.market] == [plain(range(k + 1), MARKET_SALES) for k in range(MARKET_SALES)]


def test_a_state_edited_from_outside_gets_a_fresh_mask():
    """Edits from outside (scenarios, bots' clones) reset _legal to None: the mask follows the edit."""
    game = Game(num_players=3, seed=4)
    while game.decision_kind != "pick":
        game.apply(game.legal_actions()[0])
    assert game.legal_mask_bytes() == _plain_mask(game)
    p = game.current_player
    game.hands[p] = game.hands[p][:2]
    game._legal = None
    assert game.legal_mask_bytes() == _plain_mask(game)
    assert sum(game.legal_mask_bytes()) == 2
    game.hands[p] = list(range(len(game.layout.pick_choices) + 2))  # longer than any prebuilt mask
    game._legal = None
    mask = game.legal_mask_bytes()
    assert mask == _plain_mask(game) and sum(mask) == len(game.hands[p])


def test_a_kept_mask_survives_pickles_and_deep_copies():
    """_legal is _MASKED (a mask kept by legal_mask_bytes) after a pickle or deepcopy too: the copy's apply
    checks through its mask, and refuses what the original refuses."""
    import copy
    import pickle

    game = Game(num_players=4, seed=7)
    rng = random.Random(7)
    for _ in range(60):
        game.legal_mask_bytes()
        assert game._legal is _MASKED
        for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
            assert other._legal is _MASKED and other._mask == game._mask
            with pytest.raises(IllegalActionError):
                other.apply(game.num_actions - 1)  # the noop: never legal
        legal = list(game._compute_legal())
        game.apply(legal[rng.randrange(len(legal))])
