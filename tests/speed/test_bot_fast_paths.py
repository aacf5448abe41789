"""The heuristic bots' fast paths against their plain counterparts (no test here times anything).

Key Harvest: the memoised group counts and the one-tile merge of ``points_with`` against the flood fills of
``board.groups`` on random boards (the decisions themselves were checked move for move against the bot before
these changes on 90 seeded 2-, 3- and 4-player games; tests/key_harvest pins its behaviour)."""

from __future__ import annotations

import random

from farmgames.envs.key_harvest import bots as kh_bots
from farmgames.envs.key_harvest.board import BIT, NUM_SPACES, groups


def _random_fields(rng: random.Random) -> int:
    density = rng.choice((0.05, 0.15, 0.3, 0.5, 0.8))
    return sum(BIT[s] for s in range(NUM_SPACES) if rng.random() < density)


def test_key_harvest_points_with_equals_the_flood_fill_count():
    rng = random.Random(13)
    for _ in range(3000):
        fields = _random_fields(rng)
        tile = rng.randrange(NUM_SPACES)
        assert kh_bots.points_with(fields, tile) == kh_bots._group_points(fields | BIT[tile])
        assert kh_bots.group_points(fields) == kh_bots._group_points(fields)
        assert kh_bots._groups(fields) == tuple(groups(fields))
        sizes = sorted((g.bit_count() for g in groups(fields)), reverse=True) + [0, 0]
        assert kh_bots._group_points(fields) == sizes[0] + 2 * sizes[1]


def test_key_harvest_memo_tables_are_bounded():
    for cached in (kh_bots.group_points, kh_bots.points_with, kh_bots._groups, kh_bots._group_of):
        assert cached.cache_info().maxsize is not None


def test_sunflower_valley_memoised_projection_equals_the_plain_one():
    from farmgames.envs.core.bots import RandomBot
    from farmgames.envs.sunflower_valley import bots as sv_bots
    from farmgames.envs.sunflower_valley.game import Game
    from farmgames.envs.sunflower_valley.scoring import analyse

    game = Game(num_players=2, seed=5)
    bot = RandomBot(seed=5)
    checked = 0
    while not game.is_terminal():
        for p in range(game.num_players):
            sheet = list(game.sheets[p])
            mountains, children = game.sheet_map.mountains, game.children
            for t in (0.0, 0.5, 23 / 24):
                assert sv_bots._projected(tuple(sheet), mountains, children, t) == sv_bots.projected(
                    sheet, mountains, children, t
                )
            info = analyse(sheet, mountains, children)
            paired = {h for _, h in info.pairs}
            plain = sum(1 << h for h, v in enumerate(sheet) if v == sv_bots.HOUSE and h not in paired)
            assert sv_bots._unpaired_houses(tuple(sheet), mountains, children) == plain
            checked += 1
        game.apply(bot.act(game))
    assert checked > 20
