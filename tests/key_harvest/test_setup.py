"""Setup: KH-SETUP-1, KH-SETUP-2, KH-SETUP-3, KH-SETUP-4, KH-SETUP-5, KH-SETUP-6, KH-SETUP-7, KH-SETUP-8, KH-SETUP-9,
KH-SETUP-10, KH-SETUP-11, KH-SETUP-12, KH-SETUP-13, KH-SETUP-14, KH-SETUP-15, KH-SETUP-16, KH-SETUP-17, KH-SETUP-18,
KH-RULING-10, KH-INFO-4."""

from __future__ import annotations

from collections import Counter

import pytest

from farmgames.envs.key_harvest.board import BIT, START_PAIRS, spaces
from farmgames.envs.key_harvest.game import Game


def test_setup_1_17_town_board_and_empty_fallow():
    """KH-SETUP-1: the town board (registry, event spaces, townsfolk) is set out; KH-SETUP-17: room for the fallow
    area, empty at the start."""
    g = Game(3, 0)
    assert len(g.registry) == 6 and g.events == [] and g.fallow == []


def test_setup_2_each_player_takes_components():
    """KH-SETUP-2: a screen (supply), store card, 6 farmhands and a country board each."""
    g = Game(4, 2)
    for p in range(4):
        assert len(g.available_workers(p)) == 6 + 6  # own 6 farmhands + the 6 townsfolk in town
        assert g.store[p] == [-1, -1]


def test_setup_3_4_start_player_seeded_or_configured():
    """KH-SETUP-3, KH-SETUP-4: the start player is random from the seed (uniform), or given by first_player."""
    counts = Counter(Game(4, s).start_player for s in range(400))
    assert set(counts) == {0, 1, 2, 3} and min(counts.values()) > 60
    assert Game(4, 5).start_player == Game(4, 5).start_player
    g = Game(3, 7, first_player=2)
    assert g.start_player == 2 and g.current_player == 2
    with pytest.raises(ValueError, match="first_player"):
        Game(3, 7, first_player=3)


def test_setup_5_six_townsfolk_on_town_board():
    """KH-SETUP-5: the 6 townsfolk start on the town board."""
    assert Game(2, 0).town == [-1] * 6


def test_setup_6_7_8_start_pairs_dealt_at_random_unharvested():
    """KH-SETUP-6, KH-SETUP-7, KH-SETUP-8: each player's start pair lies on its coordinates, unharvested side up,
    dealt at random."""
    seen = set()
    for seed in range(30):
        g = Game(4, seed)
        for p in range(4):
            pair = START_PAIRS[g.pairs[p]]
            assert g.fields[p] == BIT[pair[0]] | BIT[pair[1]] == g.unharvested[p]
        seen.add(tuple(g.pairs))
    assert len(seen) > 5


def test_setup_9_two_players_open_split():
    """KH-SETUP-9: 2 players: 6 counters, four singles and two of a fifth crop; each takes 3 incl. one of the fifth."""
    for seed in range(20):
        g = Game(2, seed)
        fifth = g.roles[4]
        assert sum(g.pool) == 6 and g.pool[fifth] == 2 and sorted(g.pool) == [1, 1, 1, 1, 2]
        for p in range(2):
            assert sum(g.supply[p]) == 3 and g.supply[p][fifth] == 1 and max(g.supply[p]) == 1


def test_setup_10_three_players_secret_draw_of_nine():
    """KH-SETUP-10: 3 players: 9 counters (2,2,2,2,1) in the bag, 3 drawn by each."""
    for seed in range(20):
        g = Game(3, seed)
        assert sorted(g.pool) == [1, 2, 2, 2, 2] and sum(g.pool) == 9
        assert [sum(g.supply[p][c] for p in range(3)) for c in range(5)] == g.pool


def test_setup_11_four_players_secret_draw_of_twelve():
    """KH-SETUP-11: 4 players: 12 counters (3,3,2,2,2), 3 drawn by each."""
    for seed in range(20):
        g = Game(4, seed)
        assert sorted(g.pool) == [2, 2, 2, 3, 3]
        assert all(sum(g.supply[p]) == 3 for p in range(4))


def test_setup_12_ruling_10_crop_roles_random():
    """KH-SETUP-12, KH-RULING-10: which crops fill the roles is uniform from the seed."""
    fifth = Counter(Game(2, s).roles[4] for s in range(500))
    assert set(fifth) == {0, 1, 2, 3, 4} and min(fifth.values()) > 60
    assert Game(3, 11).roles == Game(3, 11).roles


def test_setup_13_three_counters_two_tiles_each():
    """KH-SETUP-13: every player starts with 3 counters and 2 field tiles."""
    for n in (2, 3, 4):
        g = Game(n, 9)
        assert all(sum(g.supply[p]) == 3 and g.fields[p].bit_count() == 2 for p in range(n))


def test_setup_14_rest_is_general_stock():
    """KH-SETUP-14: the counters not handed out form the general stock."""
    g = Game(4, 3)
    assert sum(g.stock) == 60 - 12


def test_setup_15_registry_six_fields_and_unused_pairs_in_bag():
    """KH-SETUP-15: the remaining field tiles (with unused start pairs) go in the bag; 6 are drawn to the registry."""
    g = Game(2, 4)
    assert all(0 <= t < 56 for t in g.registry) and len(g.registry) == 6
    used = {s for p in range(2) for s in spaces(g.fields[p])}
    unused_pairs = {s for c, pair in START_PAIRS.items() if c not in g.pairs for s in pair}
    in_bag_or_registry = set(g.bag) | set(g.registry)
    assert unused_pairs <= in_bag_or_registry
    assert len([t for t in g.bag if t < 56]) == 56 - 4 - 6 and not used & in_bag_or_registry


def test_setup_16_info_4_events_added_after_registry():
    """KH-SETUP-16, KH-INFO-4: all 14 events with 2 players; with 3-4 players 2 removed unseen, 12 in the bag;
    the registry holds field tiles only (events enter the bag after it is filled)."""
    g = Game(2, 0)
    assert len([t for t in g.bag if t >= 56]) == 14 and g.removed == []
    for n in (3, 4):
        g = Game(n, 0)
        assert len([t for t in g.bag if t >= 56]) == 12 and len(g.removed) == 2
        assert all(t < 56 for t in g.registry)


def test_setup_18_what_setup_reveals():
    """KH-SETUP-18: the start player, start pairs and crop roles are public; 2-player start counters are public,
    3-4 player draws are seen only by their owner (the observer's supply_exact)."""
    from farmgames.envs.key_harvest.observer import Observer

    for n, known in ((2, [1, 1]), (3, [1, 0, 0]), (4, [1, 0, 0, 0])):
        g = Game(n, 6)
        obs = Observer(g)
        buf = obs.new_buffer()
        obs.fill(g, 0, buf)
        assert list(obs.player_feature(buf, "supply_known")) == known
        assert obs.player_feature(buf, "start_player").sum() == 1
