"""The Key Harvest and Sunflower Valley heuristic bots' fast paths against their plain counterparts.

No test here times anything. Each memo, table or incremental computation is compared with the plain
computation it replaces, on random boards / sheets and on the states of played games. The decisions
themselves were checked move for move against the bots before issue 13's work on >= 100 seeded games per
game over every player count (docs/profiling.md); the golden playthroughs pin them too."""

from __future__ import annotations

import random

from farmgames.envs.core.bots import RandomBot
from farmgames.envs.key_harvest import bots as kh_bots
from farmgames.envs.key_harvest.board import BIT, NUM_CROPS, NUM_SPACES, group_of, groups
from farmgames.envs.key_harvest.game import Game as KHGame
from farmgames.envs.key_harvest.observer import known_supplies

# ------------------------------------------------------------------------------------------ Key Harvest


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


def test_key_harvest_groups_grown_tile_by_tile_equal_the_flood_fill():
    """A board one tile larger than a memoised board gets its groups by merging."""
    rng = random.Random(7)
    merged = 0
    for _ in range(200):
        fields = BIT[rng.randrange(NUM_SPACES)]
        kh_bots._groups(fields)
        for _ in range(rng.randrange(5, 40)):
            tile = rng.randrange(NUM_SPACES)
            kh_bots._base_value_plain(fields, tile)
            grown = fields | BIT[tile]
            if grown != fields and grown not in kh_bots._GROUPS:
                merged += 1
            fields = grown
            assert kh_bots._groups(fields) == tuple(groups(fields))
            for s in range(NUM_SPACES):
                if fields >> s & 1:
                    assert kh_bots._group_of(s, fields) == group_of(s, fields)
    assert merged > 1000  # the merge path ran


def test_key_harvest_base_value_equals_the_tile_value():
    rng = random.Random(3)
    no_workers = [-1] * NUM_SPACES
    for _ in range(3000):
        fields = _random_fields(rng) or BIT[0]
        tile = rng.randrange(NUM_SPACES)
        plain = kh_bots._tile_value(fields, kh_bots.group_points(fields), no_workers, tile)
        assert kh_bots._base_value_plain(fields, tile) == plain  # bit for bit
        assert kh_bots._board_values(fields).get(tile, plain) == plain


def _kh_states(seeds: range, players: tuple[int, ...] = (2, 3, 4)):
    """Every decision state of games played by a mix of heuristic and random bots."""
    for seed in seeds:
        n = players[seed % len(players)]
        game = KHGame(num_players=n, seed=seed)
        bots = [kh_bots.HeuristicBot(seed=seed + q) if (q + seed) % 3 else RandomBot(seed=seed + q) for q in range(n)]
        while not game.is_terminal():
            yield game
            game.apply(bots[game.current_player].act(game))


def test_key_harvest_fast_queries_equal_the_plain_ones_on_played_games():
    bot = kh_bots.HeuristicBot(seed=0)
    rng = random.Random(11)
    checked = 0
    for game in _kh_states(range(24)):
        for p in range(game.num_players):
            assert bot._best_registry(game, p) == bot._best_registry_plain(game, p)
            plain_store = max(
                ((bot._store_value(game, p, a), -i, a) for i, a in enumerate(game.store_choices(p))),
                default=(-1e9, 0, None),
            )
            value, arg = bot._best_store(game, p)
            assert (value, arg) == (plain_store[0], plain_store[2])
            assert bot._best_worker(game, p) == bot._best_worker_plain(game, p)
            if game.frame is not None and game.frame[0] == "bid" and game.current_player == p:
                legal = game.legal_actions()
                held = kh_bots._rivals_held(game, p)
                cand = [a - 88 for a in legal if a >= 88]
                plain_bid = 88 + min(cand, key=lambda c: (held[c], -game.supply[p][c], c)) if cand else 0
                if game.frame[3] == 0 and cand:  # no counter bid yet: the crop choice itself
                    assert bot._bid(game, p, legal, game.frame) == plain_bid
            crops = [88 + c for c in range(NUM_CROPS) if rng.random() < 0.7]
            plain = max(crops, key=lambda a: bot._crop_value(game, p, a - 88)) if crops else 0
            assert bot._pick_crop(game, p, [0, *crops]) == plain
            exact, low, total = known = known_supplies(game, p)
            held = [sum((exact[q] or low[q])[c] for q in range(game.num_players) if q != p) for c in range(NUM_CROPS)]
            assert kh_bots._rivals_held(game, p) == held
            for _ in range(3):
                bid = [rng.randrange(3) for _ in range(NUM_CROPS)]
                assert bot._someone_can_pay(game, p, bid) == bot._someone_can_pay(game, p, bid, known)
            for tile in range(NUM_SPACES):
                assert kh_bots._value_for(game, p, tile) == kh_bots.tile_value(game, p, tile)
            legal = game.legal_actions()
            some = [a for a in legal if rng.random() < 0.7] if rng.random() < 0.5 else legal
            assert bot._worker_space(game, p, some) == bot._worker_space_plain(game, p, some)
            spaces = [6 + s for s in range(NUM_SPACES) if rng.random() < 0.4]
            assert bot._worker_space(game, p, spaces) == bot._worker_space_plain(game, p, spaces)
            f, u = game.fields[p], game.unharvested[p]
            if f:
                assert kh_bots._best_overlap(f, u) == max((u & g).bit_count() for g in groups(f))
                cand = tuple(6 + s for s in range(NUM_SPACES) if u >> s & 1)
                if cand:
                    plain = max(cand, key=lambda a: (group_of(a - 6, f) & u).bit_count())
                    assert kh_bots._harvest_choice(f, u, cand) == plain
                    assert bot._harvest(game, p, [0, *cand], ("harvest", p, 1, 0)) == plain
            for level in (0.25, 1.0, kh_bots._ABOVE_ZERO, rng.uniform(-2, 3)):
                assert bot._store_above(game, p, level) == (value > level)
                assert bot._registry_at_least(game, p, level) == (bot._best_registry(game, p)[0] >= level)
            checked += 1
    assert checked > 5000


def test_key_harvest_memo_tables_are_bounded():
    saved = kh_bots._MEMO_SIZE
    try:
        kh_bots._MEMO_SIZE = 4
        for s in range(20):
            kh_bots._groups(BIT[s] | BIT[(s + 9) % NUM_SPACES])
            kh_bots._base_value_plain(BIT[s], (s + 1) % NUM_SPACES)
            kh_bots.group_points(BIT[s] | BIT[(s + 3) % NUM_SPACES])
            kh_bots.points_with(BIT[s], (s + 2) % NUM_SPACES)
        assert len(kh_bots._GROUPS) <= 4
        assert len(kh_bots._POINTS) <= 4 and len(kh_bots._POINTS_WITH) <= 8
        for s in range(NUM_SPACES):
            kh_bots._board_values(BIT[s])
        assert len(kh_bots._BOARD_VALUES) <= 1 << 14
    finally:
        kh_bots._MEMO_SIZE = saved


# ------------------------------------------------------------------------------------ Sunflower Valley


from farmgames.envs.sunflower_valley.projection import SheetContext  # noqa: E402 - beside its use

# every part of a context compared as it is: all its slots but the chains and the networks' roots (compared in
# a canonical form below: their order and labels may differ) and the caches (memo, terms, _base)
_CONTEXT_PARTS = tuple(s for s in SheetContext.__slots__ if s not in {"chains", "root", "memo", "terms", "_base"})


def _canonical_chains(chains, sheet: list[int]) -> list[tuple]:
    """Chains as what the projection reads of them: hexes, length, lowest hex and the two faced hexes where
    they are empty or a house (a faced rail, mountain or edge is just "closed"), in either order."""

    def kind(x: int) -> int:
        return x if x >= 0 and sheet[x] in (-1, 0) else -1

    return [(m, n, low, sorted((kind(fa), kind(fb)))) for m, n, low, fa, fb in chains]


def _partition(root: list[int]) -> list[tuple[int, ...]]:
    return [tuple(j for j, r in enumerate(root) if r == ri) for ri in root]


def _random_sheet(rng: random.Random, layout) -> list[int]:
    from farmgames.envs.sunflower_valley.scoring import EMPTY, MOUNTAIN_CELL

    sheet = [MOUNTAIN_CELL if c < 0 else EMPTY for c in layout.colour]
    density = rng.random()
    for h in range(len(sheet)):
        if sheet[h] == EMPTY and rng.random() < density:
            sheet[h] = rng.choices(range(13), (3, 2, 1, 1) + (1,) * 9)[0]  # houses and sheep more often
    return sheet


def test_sunflower_valley_projection_equals_the_plain_one_on_random_sheets():
    """``SheetContext.value`` / ``value_with`` against ``bots.projected`` (scoring.analyse on the whole
    sheet) for the sheet and every symbol in every empty hex, both variants; and the unpaired houses."""
    from farmgames.envs.sunflower_valley import bots as sv_bots
    from farmgames.envs.sunflower_valley.projection import SheetContext, _chains
    from farmgames.envs.sunflower_valley.scoring import EMPTY, analyse, rail_chains
    from farmgames.envs.sunflower_valley.sheets import LAYOUTS

    rng = random.Random(17)
    letters = sorted(LAYOUTS)
    checked = 0
    for _ in range(250):
        layout = LAYOUTS[rng.choice(letters)]
        sheet = _random_sheet(rng, layout)
        children = rng.random() < 0.3
        t = rng.choice((0.0, 0.5, 23 / 24))
        context = SheetContext(sheet, layout.mountains, children)
        assert context.value(t) == sv_bots.projected(sheet, layout.mountains, children, t)  # bit for bit
        info = analyse(sheet, layout.mountains, children)
        paired = {h for _, h in info.pairs}
        unpaired = sum(1 << h for h, v in enumerate(sheet) if v == sv_bots.HOUSE and h not in paired)
        assert context.unpaired_houses() == unpaired
        plain_chains = rail_chains(sheet)
        assert [(c[0].bit_count(), c[1], c[2]) for c in _chains(sheet)] == [
            (len(set(hexes)), len(hexes), min(hexes)) for hexes, _, _ in plain_chains
        ]
        for h in range(len(sheet)):
            if sheet[h] != EMPTY:
                continue
            for symbol in range(13):
                sheet[h] = symbol
                want = sv_bots.projected(sheet, layout.mountains, children, t)
                sheet[h] = EMPTY
                assert context.value_with(symbol, h, t) == want, (sheet, symbol, h, children, t)
                checked += 1
                if symbol in (0, 1, 2, 4, 8):  # the grown context equals a fresh analysis of that sheet
                    sheet[h] = symbol
                    fresh, grown = SheetContext(sheet, layout.mountains, children), context.grown(symbol, h)
                    assert _canonical_chains(grown.chains, sheet) == _canonical_chains(fresh.chains, sheet)
                    assert _partition(grown.root) == _partition(fresh.root)  # the networks (labels may differ)
                    sheet[h] = EMPTY
                    for part in _CONTEXT_PARTS:
                        assert getattr(grown, part) == getattr(fresh, part), (part, sheet, symbol, h)
    assert checked > 20000


def test_sunflower_valley_projection_equals_the_plain_one_on_played_sheets():
    from farmgames.envs.sunflower_valley import bots as sv_bots
    from farmgames.envs.sunflower_valley.game import Game
    from farmgames.envs.sunflower_valley.projection import SheetContext
    from farmgames.envs.sunflower_valley.scoring import EMPTY

    checked = 0
    for seed, children in ((3, False), (4, True)):
        game = Game(num_players=3, seed=seed, children=children)
        bots = [sv_bots.HeuristicBot(seed=seed), RandomBot(seed=seed), sv_bots.HeuristicBot(seed=seed + 1)]
        while not game.is_terminal():
            p = game.current_player
            sheet, mountains = list(game.sheets[p]), game.sheet_map.mountains
            t = max(sv_bots.TOTAL_TURNS - game.turns[p] - 1, 0) / sv_bots.TOTAL_TURNS
            context = SheetContext(sheet, mountains, children)
            for h in range(len(sheet)):
                k = game.sheet_map.colour[h]
                if k >= 0:  # the region majority against a plain count of every sheet
                    region = game.sheet_map.region_mask[k]
                    counts = [sum(1 for x in range(30) if region >> x & 1 and s[x] in (2, 3)) for s in game.sheets]
                    mine, rival = counts[p], max(c for q, c in enumerate(counts) if q != p)
                    plain = 0.0 if mine > rival else 3.0 if mine + 1 > rival else 1.0 if mine + 1 == rival else 0.0
                    assert sv_bots.HeuristicBot._majority_value(game, p, h) == plain
                if sheet[h] == EMPTY:
                    for symbol in range(13):
                        sheet[h] = symbol
                        assert context.value_with(symbol, h, t) == sv_bots.projected(sheet, mountains, children, t)
                        sheet[h] = EMPTY
                        checked += 1
            game.apply(bots[p].act(game))
    assert checked > 5000


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
