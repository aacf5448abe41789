"""The Fields of Green heuristic bot's fast paths against the plain ones (docs/fields_of_green/bots.md, "Speed").

``HeuristicBot`` must decide exactly as the plain one-step lookahead: the memo tables, the acts done on a copy
of one farm (``_direct_act``), the projection template, the reused hypothetical clone of a pick, the shared
harvest-location memo and the "flat" cheap estimates are speed only. Each is compared here with the plain
path it replaces, on states of seeded games (no test here times anything)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green import bots as bots_module
from farmgames.envs.fields_of_green.bots import FAST_WEIGHTS, LITE_WEIGHTS, HeuristicBot, HeuristicWeights, play_game
from farmgames.envs.fields_of_green.bots import heuristic as heuristic_module
from farmgames.envs.fields_of_green.bots.model import _decoded
from farmgames.envs.fields_of_green.farm import EMPTY


class _PlainBot(HeuristicBot):
    """The plain lookahead: overriding a shortcut method (``_SHORTCUT_METHODS``) turns off ``_direct_act``,
    the memo of act values, the projection template and the reused pick clone; ``_share`` storing nothing
    turns off the harvest-location memo shared by projections."""

    def _project(self, *args, **kwargs) -> float:  # the same projection, so the bot is not "stock"
        return super()._project(*args, **kwargs)

    def _share(self, key, value) -> None:
        return None


def test_the_plain_bot_really_takes_the_plain_path():
    assert HeuristicBot(seed=0)._stock
    assert not _PlainBot(seed=0)._stock


@pytest.mark.parametrize(
    ("players", "seed", "weights"),
    [(2, 11, None), (3, 12, None), (4, 13, None), (3, 14, LITE_WEIGHTS), (2, 15, FAST_WEIGHTS), (4, 16, FAST_WEIGHTS)],
)
def test_fast_bot_plays_the_plain_lookahead_move_for_move(players, seed, weights):
    """Also with the narrower searches of ``heuristic_lite`` and ``heuristic_fast`` (their weights: fewer
    candidates, same fast paths)."""
    fast = play_game([HeuristicBot(seed=seed + i, weights=weights) for i in range(players)], seed=seed)
    plain = play_game([_PlainBot(seed=seed + i, weights=weights) for i in range(players)], seed=seed)
    assert fast.history == plain.history
    assert [s.total for s in fast.scores()] == [s.total for s in plain.scores()]


def test_fast_paths_agree_with_the_engine_under_verify_caches(monkeypatch):
    """``VERIFY_CACHES``: every memo hit recomputed, every copy-of-the-farm act replayed on a full engine
    clone, every reused pick clone compared with a fresh one (assertions inside the bot); a 4-player game,
    where picks and acts are apart and the deny term reads the next seat's farm."""
    monkeypatch.setattr(bots_module, "VERIFY_CACHES", True)
    game = play_game([HeuristicBot(seed=40 + i) for i in range(4)], seed=41)
    assert game.is_terminal()


def _act_states(players: int, seed: int, every: int = 3):
    """(game, bot) at act decisions of a seeded heuristic game (every ``every``-th one), the bot warmed up."""
    bots = [HeuristicBot(seed=seed + i) for i in range(players)]
    game = Game(num_players=players, seed=seed)
    count = 0
    while not game.is_terminal():
        bot = bots[game.current_player]
        if game.decision_kind == "act":
            count += 1
            if count % every == 0:
                yield game, bot
        game.apply(bot.act(game))


@pytest.mark.parametrize(("players", "seed"), [(2, 21), (4, 22)])
def test_memoised_cheap_estimates_equal_the_plain_ones(players, seed):
    """The per-farm-state tables (``fc``) and their shortcuts ("own", "own2", "flat", "nbr", "global") give the
    value the plain estimate computes from scratch (``fc=None``), for every legal cell; and the pruned
    candidate list (with its per-card flat value) is the plain ranking's."""
    checked = 0
    for game, bot in _act_states(players, seed):
        p = game.current_player
        farm, card, ctx = game.farms[p], game.picks[p], bot._ctx(game, p)
        fc = bot._fc(farm, ctx)
        decoded = _decoded(game.layout)
        legal = game.legal_actions()
        plain = {"build": [], "tower": [], "silo": []}
        others = []
        for a in legal:
            kind, cell = decoded[a]
            if kind == "build":
                value = bot._quick_build(farm, card, cell, ctx, None)
                assert bot._quick_build(farm, card, cell, ctx, fc) == value, (card, cell)
                assert bot._global_delta(farm, card, cell, ctx, fc) == bot._global_delta(farm, card, cell, ctx)
                plain["build"].append((value, a))
                checked += 1
            elif kind in ("tower", "silo"):
                value = bot._quick_structure(farm, kind, cell, None)
                assert bot._quick_structure(farm, kind, cell, fc) == value, (kind, cell)
                plain[kind].append((value, a))
            else:
                others.append(a)
            if kind != "market":
                assert bot._neighbour_scores(farm, cell, ctx, fc) == bot._neighbour_scores(farm, cell, ctx)
        expected = list(others)
        w = bot.w
        for kind, n in (("build", w.build_cells), ("tower", w.structure_cells), ("silo", w.structure_cells)):
            expected += [a for _, a in sorted(plain[kind], key=lambda t: (-t[0], t[1]))[:n]]
        assert bot._act_candidates(game, p, legal, card) == expected
    assert checked > 50


def _pick_states(players: int, seed: int, weights):
    """(game, bot) at pick decisions of a seeded game of bots with ``weights``."""
    bots = [HeuristicBot(seed=seed + i, weights=weights) for i in range(players)]
    game = Game(num_players=players, seed=seed)
    while not game.is_terminal():
        bot = bots[game.current_player]
        if game.decision_kind == "pick":
            yield game, bot
        game.apply(bot.act(game))


def _plain_candidates(bot, game, p, legal, card, cells, pool):
    """The pruning of ``_act_candidates`` written out: every legal act ranked in one go, no memo."""
    decoded = _decoded(game.layout)
    farm, ctx, w = game.farms[p], bot._ctx(game, p), bot.w
    builds = [a for a in legal if decoded[a][0] == "build"]
    if pool:
        grid, nbrs = farm.grid, farm.geometry.neighbours
        key = {c: (-sum(1 for n in nbrs[c] if grid[n] != EMPTY), c) for c in farm.frontier}
        builds = sorted(builds, key=lambda a: key[decoded[a][1]])[:pool]
    ranked = {"build": [], "tower": [], "silo": []}
    for a in builds:
        ranked["build"].append((bot._quick_build(farm, card, decoded[a][1], ctx, None), a))
    others = []
    for a in legal:
        kind, cell = decoded[a]
        if kind in ("tower", "silo"):
            ranked[kind].append((bot._quick_structure(farm, kind, cell, None), a))
        elif kind != "build":
            others.append(a)
    if w.market_sales:
        sales = sorted((a for a in others if decoded[a][0] == "market"), key=lambda a: -decoded[a][1])
        others = [a for a in others if decoded[a][0] != "market" or a in sales[: w.market_sales]]
    out = list(others)
    for kind, n in (("build", cells), ("tower", w.structure_cells), ("silo", w.structure_cells)):
        out += [a for _, a in sorted(ranked[kind], key=lambda t: (-t[0], t[1]))[:n]]
    return out


@pytest.mark.parametrize(
    ("players", "seed", "weights"),
    [
        (2, 51, FAST_WEIGHTS),
        (4, 52, replace(FAST_WEIGHTS, pick_pool=4)),
        (2, 53, None),
        (2, 54, HeuristicWeights(pick_pool=3)),
    ],
)
def test_pruned_halves_and_the_pick_pool_equal_the_plain_ranking(players, seed, weights):
    """``_act_candidates`` prunes builds and the other acts separately and memoises each half per farm state;
    the pick's ``pick_pool`` keeps a card's builds on the best-connected legal cells and ``market_sales`` the
    largest sales. Asked in the pick's order (the other acts, then each card's builds) and then for the whole
    act list, it returns what ranking the legal acts in one go from scratch gives."""
    checked = 0
    for game, bot in _pick_states(players, seed, weights):
        p = game.current_player
        decoded = _decoded(game.layout)
        for a in game.legal_actions()[:2]:
            g = bot._hypothetical_act(game, p, a)
            if g is None:
                continue
            card = g.picks[p]
            legal = g.legal_actions()
            others = [x for x in legal if decoded[x][0] != "build"]
            builds = [x for x in legal if decoded[x][0] == "build"]
            w = bot.w
            assert bot._act_candidates(g, p, others, card) == _plain_candidates(bot, g, p, others, card, 0, 0)
            got = bot._act_candidates(g, p, builds, card, w.pick_cells, pool=w.pick_pool)
            assert got == _plain_candidates(bot, g, p, builds, card, w.pick_cells, w.pick_pool)
            full = bot._act_candidates(g, p, legal, card)  # the act: halves from the memo, every cell
            assert full == _plain_candidates(bot, g, p, legal, card, w.build_cells, 0)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("in_act", [False, True])
def test_the_act_keeps_to_the_pick_pool_only_with_pool_in_act(in_act):
    """``pool_in_act``: the act decision prunes its builds with the pick's ``pick_pool`` (so with
    ``build_cells == pick_cells`` it only asks the memo for what its pick evaluated); without it, every cell."""
    seen = {"act": set(), "pick": set()}
    deciding = []  # the kind of the decision being taken (the pick prunes on a clone at its act)

    class Spy(HeuristicBot):  # (a subclass, not patched methods: the compiled bot calls its methods directly)
        def _act_candidates(self, game, p, legal, card, cells=None, sid=None, pool=0):
            seen[deciding[-1]].add(pool)
            return super()._act_candidates(game, p, legal, card, cells, sid, pool)

        def act(self, game):
            deciding.append(game.decision_kind)
            return super().act(game)

    weights = replace(FAST_WEIGHTS, pick_pool=5, pool_in_act=in_act)
    play_game([Spy(seed=60 + i, weights=weights) for i in range(2)], seed=61)
    assert seen["pick"] >= {5} and seen["act"] == ({5} if in_act else {0})


@pytest.mark.parametrize(("players", "seed"), [(2, 31), (3, 32)])
def test_direct_acts_and_template_projections_equal_engine_clones(players, seed):
    """``_direct_act`` (the act on a copy of the farm) gives the engine's farm, and the projection with the
    decision farm's template (``tmpl``, ``changed``) gives the plain projection of that farm."""
    from farmgames.envs.fields_of_green.bots.heuristic import _farm_sig

    checked = 0
    for game, bot in _act_states(players, seed, every=2):
        p = game.current_player
        if not bot._local_act(game, p):
            continue
        tmpl = bot._template(game.farms[p])
        in_harvest = game.phase == "harvest"
        for a in bot._act_candidates(game, p, game.legal_actions(), game.picks[p]):
            done = bot._direct_act(game, p, a)
            if done is None:
                continue
            f, cell, pending = done
            full = game.clone()
            full.apply(a)
            engine_pending = bot._resolve_own(full, p)  # the sub-decisions of the act, with the bot's policies
            assert (_farm_sig(f), pending) == (_farm_sig(full.farms[p]), engine_pending), a
            plain = bot._project(game.year, in_harvest, full.farms[p], pending)
            assert bot._project(game.year, in_harvest, f, pending, owned=True, tmpl=tmpl, changed=cell) == plain, a
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("players", [2, 4])
def test_model_count_equals_the_engine_count(players):
    """``_Model.count`` (the card counters over per-filter flags, ``_Model.match_list``) counts what the engine's
    ``effects.count`` counts, for every counter of the card set's abilities and tiles, at every cell of the farms of
    random games (FOG-ABIL-6: adjacent / farm / distinct sub-types; fallow cards never count, FOG-RUL-7)."""

    from farmgames.envs.fields_of_green import effects
    from farmgames.envs.fields_of_green.bots.model import _model_for

    game = Game(num_players=players, seed=11)
    model = _model_for(game.cards)
    effects_of = [c.ability.effect for c in game.cards.locations if c.ability] + [
        t.effect for t in game.cards.equipment
    ]
    counters = [op[k] for ops in effects_of for op in ops for k in ("if", "per") if k in op]
    assert {k for c in counters for k in c} >= {"adjacent", "farm", "distinct_subtypes"}
    checked, nonzero = 0, 0
    for farm, cell in _cells_of_a_random_game(game, 11):
        for counter in counters:
            got = model.count(farm, cell, counter)
            assert got == effects.count(farm, cell, counter), (cell, counter)
            checked += 1
            nonzero += got > 0
    assert checked > 10_000 and nonzero > 100


def _cells_of_a_random_game(game: Game, seed: int):
    """Every (farm, cell) of ``game`` at every 17th step of uniformly random play from it to its end."""
    import random

    rng = random.Random(seed)
    while not game.is_terminal():
        if len(game.history) % 17 == 0:
            for farm in game.farms:
                for cell in range(farm.geometry.cells):
                    yield farm, cell
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("players", [2, 4])
def test_model_gains_and_conditions_equal_the_engines(players):
    """``_Model.gain_amounts`` and ``_Model.holds`` read each op from its compiled record (``_OpPlan``: its kind,
    counters, cap and gains) and give what the engine's ``effects.gain_amounts`` and ``effects.condition_holds``
    give, for every op of the card set's abilities and tiles, at every cell of the farms of random games
    (FOG-ABIL-6: per / max / if; fallow cards never count, FOG-RUL-7). ``_Card.plans`` holds the records of the
    card's own ops, in order (``_Model.tile_plans`` a tile's), and a record's kind is the first of ``OP_KINDS`` the
    op has."""

    from farmgames.envs.fields_of_green import effects
    from farmgames.envs.fields_of_green.bots.model import OP_KINDS, _model_for

    game = Game(num_players=players, seed=13)
    model = _model_for(game.cards)
    for rec in model.card:
        assert [p.op for p in rec.plans] == list(rec.effect)
    for tile, plans in zip(game.cards.equipment, model.tile_plans, strict=True):
        assert [p.op for p in plans] == list(tile.effect)
    ops = [op for c in game.cards.locations if c.ability for op in c.ability.effect]
    ops += [op for t in game.cards.equipment for op in t.effect]
    for op in ops:
        kind = model.plan(op).kind
        assert all(key not in op for key in OP_KINDS[:kind]) and (kind == len(OP_KINDS) or OP_KINDS[kind] in op), op
    gains = [op for op in ops if "gain" in op]
    assert any("per" in op and "max" in op for op in gains) and any("if" in op for op in gains)
    checked, varied, failed = 0, 0, 0
    for farm, cell in _cells_of_a_random_game(game, 13):
        for op in ops:
            holds = model.holds(farm, cell, op)
            assert holds == effects.condition_holds(farm, cell, op), (cell, op)
            failed += not holds
            if "gain" in op:
                got = model.gain_amounts(farm, cell, op)
                assert got == effects.gain_amounts(farm, cell, op), (cell, op)
                varied += got != op["gain"]
            checked += 1
    assert checked > 10_000 and varied > 100 and failed > 100


def test_model_card_records_and_harvest_costs_equal_the_card_set():
    """``_Model.card`` (the compiled copies of the ``LocationCard`` numbers the search reads) and
    ``_Model.harvest_cost`` (those numbers less the permanent tiles' discounts) equal the card set's records and
    the engine's ``game.harvest_cost``, for every location of the base set, bare and under every tile (FOG-CARD-10,
    FOG-EQUIP-*)."""
    from farmgames.envs.fields_of_green.bots.model import _model_for
    from farmgames.envs.fields_of_green.game import harvest_cost

    game = Game(num_players=2, seed=3)
    model = _model_for(game.cards)
    locs, tiles = game.cards.locations, game.cards.equipment
    assert len(model.card) == len(locs)
    for code, (rec, card) in enumerate(zip(model.card, locs, strict=True)):
        cost, harvest = card.cost, card.harvest_cost
        assert (rec.vp, rec.coins, rec.water, rec.food) == (card.vp, cost.coins, cost.water, cost.food), card.name
        assert (rec.kind, rec.h_coins, rec.h_water, rec.h_food) == (
            card.ability_kind,
            harvest.coins,
            harvest.water,
            harvest.food,
        ), card.name
        assert rec.effect == (card.ability.effect if card.ability else ()), card.name
        assert model.design[code] == card.design, card.name  # the pick groups a hand's copies by it
        farm = game.farms[0].clone()
        cell = next(iter(sorted(farm.frontier)))
        farm.grid[cell] = code
        for attached in [(), *[(t,) for t in range(len(tiles))], tuple(range(len(tiles)))]:
            if attached:
                farm.equipment[cell] = list(attached)
            else:
                farm.equipment.pop(cell, None)
            assert model.harvest_cost(farm, cell) == harvest_cost(farm, cell, locs, tiles), (card.name, attached)


_CODE = st.integers(min_value=-4, max_value=200)  # -4 fallow, -3 silo, -2 tower, -1 empty, then card indexes
_OWN2 = st.tuples(
    st.integers(min_value=0, max_value=65535),
    st.one_of(st.none(), st.lists(_CODE, min_size=1, max_size=6).map(sorted)),
    st.sampled_from([None, False, True]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(_OWN2, st.tuples(st.integers(1, 10), st.integers(0, 65535), st.integers(0, 65535))), max_size=40
    ),
    st.sampled_from([8, 16]),  # the digit width of the neighbour codes (_Model.code_bits; codes here are below 248)
)
def test_int_keys_of_the_per_farm_tables_tell_their_entries_apart(entries, bits):
    """The per-farm-state tables key their frequent entries by ints (``heuristic._fkey``, ``_own2_key``) instead
    of tuples: distinct entries -- any kind, card, cell, flag or neighbour pattern -- get distinct keys, so a
    packed key never returns another entry's value (the decisions stay the golden ones; the speed-up is
    docs/profiling.md, "Eighteenth pass")."""
    keys = {}
    for entry in entries:
        if isinstance(entry[1], int):
            kind, a, b = entry
            key = heuristic_module._fkey(kind, a, b)
        else:
            card, codes, flag = entry
            key = heuristic_module._own2_key(card, codes, flag, bits)
        assert keys.setdefault(key, entry) == entry
    with pytest.raises(AssertionError):
        heuristic_module._fkey(1, 65536, 0)  # a card or cell past 16 bits is refused, never wrapped
    with pytest.raises(AssertionError):
        heuristic_module._own2_key(3, [248], None, 8)  # a code past the 8-bit digits too
