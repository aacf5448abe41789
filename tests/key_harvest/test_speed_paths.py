"""The engine's speed paths against the plain readings of the rules they replace, on random game states:
cached neighbour counts, the cached worker-placement table (KH-ACT-WORKER-3..5), ``can_play_worker``
(KH-ACT-WORKER-2), the WORKER legal list, ``has_store_choice`` (KH-ACT-PLACE-1/3/9, KH-EVENT-6),
``auction.can_pay``, the crop lists and the change log."""

from __future__ import annotations

import random

import numpy as np
import pytest

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.key_harvest import auction, game
from farmgames.envs.key_harvest.actions import CROP0, DONE, STORE0
from farmgames.envs.key_harvest.board import (
    BIT,
    FULL,
    NEIGHBOUR_MASK,
    NUM_CROPS,
    NUMBER,
    cached_neighbour_counts,
    dilate,
    neighbour_counts,
    spaces,
    worker_kind,
)
from farmgames.envs.key_harvest.game import Game


def plain_worker_spaces(g: Game, p: int, number: int) -> int:
    """KH-ACT-WORKER-3..5 read directly: an empty space not next to a worker, or an own lower worker with no
    worker next to it, with at least ``number`` neighbouring field tiles."""
    f, w = g.fields[p], g.workers[p]
    cand = FULL & ~(f | w) & ~dilate(w)
    for s in spaces(w):
        if NUMBER[worker_kind(g.worker_at[p][s])] < number and not NEIGHBOUR_MASK[s] & w:
            cand |= BIT[s]
    return cand & neighbour_counts(f)[number - 1]


def plain_store_choices(g: Game, p: int) -> list[int]:
    """KH-ACT-PLACE-1/3/9, KH-EVENT-6 read directly: every store tile by offset and space, own ones freely, the
    others for an exact payment of their bid, none that entered a store this turn."""
    out = []
    for o in range(g.num_players):
        owner = (p + o) % g.num_players
        for k, t in enumerate(g.store[owner]):
            if t >= 0 and t not in g.new_in_store:
                if o == 0 or all(s >= b for s, b in zip(g.supply[p], g.bids[owner][k])):
                    out.append(STORE0 + 2 * o + k)
    return out


def states(n: int, seed: int, every: int = 3):
    rng = random.Random(seed)
    g = Game(n, seed)
    step = 0
    while not g.is_terminal():
        if step % every == 0:
            yield g
        g.apply(rng.choice(g.legal_actions()))
        step += 1


def counter_neighbour_counts(m: int) -> tuple[int, ...]:
    """One saturating bit-sliced counter per threshold over the ten shifts of dilate (the reference for the
    adder tree of board.neighbour_counts)."""
    from farmgames.envs.key_harvest.board import _EVEN, _NOT_FIRST, _NOT_LAST, _ODD

    e, o = m & _EVEN, m & _ODD
    c = [0] * 6
    for d in (
        (m & _NOT_LAST) << 1,
        (m & _NOT_FIRST) >> 1,
        e >> 8,
        (e & _NOT_FIRST) >> 9,
        (e & _NOT_FIRST) << 7,
        e << 8,
        (o & _NOT_LAST) >> 7,
        o >> 8,
        o << 8,
        (o & _NOT_LAST) << 9,
    ):
        for k in range(5, 0, -1):
            c[k] |= c[k - 1] & d
        c[0] |= d
    return tuple(x & FULL for x in c)


def test_neighbour_counts_equal_a_count_of_neighbours():
    """board.neighbour_counts (an adder tree) against a saturating counter and against NEIGHBOUR_MASK."""
    rng = random.Random(1)
    for _ in range(3000):
        m = rng.getrandbits(56) & (rng.getrandbits(56) if rng.random() < 0.5 else FULL)
        counts = neighbour_counts(m)
        assert counts == counter_neighbour_counts(m)
        for s in range(0, 56, 5):
            k = (NEIGHBOUR_MASK[s] & m).bit_count()
            assert [counts[j] >> s & 1 for j in range(6)] == [int(k > j) for j in range(6)]


def test_space_ids_equal_plain():
    """game.space_ids (a byte table) against the SPACE ids of board.spaces, for random masks of every density."""
    rng = random.Random(2)
    for k in range(3000):
        m = FULL if k == 0 else 0 if k == 1 else rng.getrandbits(56) & rng.getrandbits(56) >> rng.randrange(56)
        assert game.space_ids(m) == [game.SPACE0 + s for s in spaces(m)]
    for s in range(56):  # the masks of one space (a path of their own)
        assert game.space_ids(BIT[s]) == [game.SPACE0 + s]
    assert game.space_ids(0) == []


def test_grown_neighbour_counts_equal_plain():
    """board.grow_counts (the counts of a board one tile larger, from the cached counts) against neighbour_counts,
    and the counts cached for every board of random games."""
    from farmgames.envs.key_harvest import board

    rng = random.Random(4)
    for _ in range(2000):
        m = rng.getrandbits(56) & rng.getrandbits(56)
        tile = rng.randrange(56)
        board._COUNTS.clear()
        board.grow_counts(m, tile)  # not cached: nothing to grow from
        assert m | BIT[tile] not in board._COUNTS or m & BIT[tile]
        cached_neighbour_counts(m)
        board.grow_counts(m, tile)
        assert cached_neighbour_counts(m | BIT[tile]) == neighbour_counts(m | BIT[tile])
    for g in states(4, 160):
        for f in g.fields:
            assert cached_neighbour_counts(f) == neighbour_counts(f)
    assert all(board._COUNTS[m] == neighbour_counts(m) for m in board._COUNTS)


def test_cached_neighbour_counts_equal_plain():
    rng = random.Random(0)
    for _ in range(3000):
        m = rng.getrandbits(56) & rng.getrandbits(56)
        assert cached_neighbour_counts(m) == neighbour_counts(m)
        assert cached_neighbour_counts(m) == neighbour_counts(m)  # from the cache


@pytest.mark.parametrize("n", [2, 3, 4])
def test_placement_worker_and_store_paths_equal_plain(n):
    checked = replacing = turn_d = 0
    for seed in range(3):
        for g in states(n, 40 + seed):
            for p in range(n):
                assert g._placement(p) == g._placement_plain(p)
                for number in range(1, 6):
                    assert g.worker_spaces(p, number) == plain_worker_spaces(g, p, number)
                    replacing += bool(g.worker_spaces(p, number) & g.workers[p])  # an own lower worker replaced
                # the numbers with a space (bit ``number``), unrolled in _placement_plain
                assert g._placement(p)[3] == sum(1 << k for k in range(1, 6) if plain_worker_spaces(g, p, k))
                plain_can = any(plain_worker_spaces(g, p, NUMBER[worker_kind(t)]) for t in g.available_workers(p))
                assert g.can_play_worker(p) == plain_can == g._can_play_worker_plain(p)
                assert g._l_worker(("worker", p, None)) == g._l_worker_plain(p)  # WORKER list from the mask
                plain_ids = [  # KH-ACT-WORKER-2..5: every available tile whose number has a space, in id order
                    game.FARMHAND0 + worker_kind(t)
                    if t < game.TOWNSFOLK_BASE
                    else game.TOWNSFOLK0 + t - game.TOWNSFOLK_BASE
                    for t in g.available_workers(p)
                    if plain_worker_spaces(g, p, NUMBER[worker_kind(t)])
                ]
                assert g._l_worker(("worker", p, None)) == plain_ids
                assert g.store_choices(p) == plain_store_choices(g, p)
                assert g.has_store_choice(p) == bool(g.store_choices(p))
                # KH-ACT-BID-1/2/5 read directly: an empty store space, counters to bid, a registry tile
                assert g.can_take_registry(p) == (-1 in g.store[p] and sum(g.supply[p]) > 0 and max(g.registry) >= 0)
                # the TURN list's (d) (KH-TURN-3/4: (d) once a turn, within two actions)
                letters = g._l_turn(("turn", p))
                open_d = g.actions_taken < 2 and not g.taken & game.LETTER_D
                assert (game.TAKE_REGISTRY in letters) == (open_d and g.can_take_registry(p))
                turn_d += open_d and g.can_take_registry(p)
                for owner in range(n):
                    for bid in g.bids[owner]:
                        assert auction.can_pay(g.supply[p], bid) == all(s >= b for s, b in zip(g.supply[p], bid))
                checked += 1
    assert checked > 300 and replacing > 20 and turn_d > 50


@pytest.mark.parametrize("n", [2, 3, 4])
def test_crop_lists_equal_plain(n):
    """The BID (unrolled), SUBSTITUTE, CROP, TITHE lists (compress over the counts) against the plain comprehensions of
    KH-ACT-BID-3, KH-ACT-HARVEST-14, the Apprentice / Brewer and the Tithe, for every seat of random states."""
    checked = 0
    for g in states(n, 90 + n, every=2):
        stock = [CROP0 + c for c in range(NUM_CROPS) if g.stock[c]]
        assert g._l_subst(("subst", 0)) == stock
        for given in (0, 1, 6, 21, 31):  # TAKE (KH-RULING-13): the crops in the stock not given
            assert g._l_take(("take", 0, 1, given)) == [a for a in stock if not given >> (a - CROP0) & 1]
        assert g._l_crop(("crop", 0, "apprentice", -1)) == [DONE] + stock
        for p in range(n):
            supply = [CROP0 + c for c in range(NUM_CROPS) if g.supply[p][c]]
            assert g._l_bid(("bid", p, 0, 0)) == supply
            assert g._l_bid(("bid", p, 0, 1)) == [DONE] + supply
            assert g._l_tithe(("tithe", p)) == supply
            checked += 1
        # the REGISTRY (unrolled), ENCLOSE and SURVEY lists (compress over the filled spaces): the registry tiles, also
        # with spaces emptied by hand (a registry is full for most of a game)
        h = g.clone()
        h.registry[1 + checked % 3] = h.registry[4] = -1
        for s in (g, h):
            tiles = [game.REGISTRY0 + i for i, t in enumerate(s.registry) if t >= 0]
            assert s._l_enclose(("enclose", 0)) == tiles and s._l_survey(("survey", 0)) == [DONE] + tiles
            for p in range(n):
                room = -1 in s.store[p] and any(s.supply[p])  # KH-ACT-BID-1/2
                assert s._l_registry(("registry", p, 0)) == (tiles if room else [])
                assert s._l_registry(("registry", p, 1)) == [DONE] + (tiles if room else [])
    assert checked > 100


def test_apply_fast_path_keeps_the_action_checks():
    g = Game(4, 1)
    legal = g.legal_actions()
    with pytest.raises(IllegalActionError):
        g.apply(True)
    with pytest.raises(IllegalActionError):
        g.apply(1.0)
    g.apply(np.int64(legal[0]))
    assert g.history == [legal[0]] and type(g.history[0]) is int


def _parts(g: Game) -> dict[int, object]:
    """Each logged part of the state, by its change-log tag."""
    n = g.num_players
    parts: dict[int, object] = {}
    for q in range(n):
        parts[game.CH_BOARD + q] = (g.fields[q], g.unharvested[q], g.workers[q], list(g.worker_at[q]))
        parts[game.CH_COUNTERS + q] = (list(g.supply[q]), list(g.net[q]), list(g.min_net[q]))
        parts[game.CH_BIDS + q] = [list(b) for b in g.bids[q]]
        parts[game.CH_STORE + q] = list(g.store[q])
    parts[game.CH_STOCK] = list(g.stock)
    parts[game.CH_REGISTRY] = list(g.registry)
    parts[game.CH_BAG] = (list(g.bag), list(g.fallow))
    parts[game.CH_EVENTS] = list(g.events)
    parts[game.CH_WORKERS] = (list(g.worker_space), list(g.town), g.rebenefit)
    parts[game.CH_NEW] = list(g.new_in_store)
    parts[game.CH_TURN] = (
        g.taken,
        g.actions_taken,
        g.rebenefit,
        g.pending_extra,
        g.end_triggered,
        g.turns_left,
        g.rounds,
    )
    return parts


@pytest.mark.parametrize("n", [2, 3, 4])
def test_change_log_names_every_part_that_changed(n):
    """Game.changes (read by the incremental observer): every decision logs the tag of every part it changed."""
    assert (auction.CH_STOCK, auction.CH_BIDS) == (game.CH_STOCK, game.CH_BIDS)
    logged = 0
    for seed in range(4):
        g = Game(n, 70 + seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            before, start = _parts(g), len(g.changes)
            g.apply(rng.choice(g.legal_actions()))
            after, tags = _parts(g), set(g.changes[start:])
            changed = {tag for tag in before if before[tag] != after[tag]}
            assert changed <= tags, (seed, len(g.history), changed - tags)
            logged += len(changed)
        assert g.clone().changes == []
    assert logged > 1000


@pytest.mark.parametrize("n", [2, 4])
def test_final_scores_cache_equals_plain_scoring(n):
    """Game.scores() keeps the final scores (KH-SCORE-1..10): equal to score_player on the end state, a fresh
    list per call, not inherited by clones (a perturbed clone of an end state is scored afresh)."""
    from farmgames.envs.key_harvest.scoring import score_player

    for seed in range(3):
        g = Game(n, 70 + seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_actions()))
        plain = [score_player(g, p) for p in range(n)]
        first, second = g.scores(), g.scores()
        assert first == second == plain and first is not second
        first.clear()
        assert g.scores() == plain
        twin = g.clone()
        twin.supply[0][0] += 3  # a hand edit of the clone (hidden perturbations edit supplies)
        assert twin.scores() == [score_player(twin, p) for p in range(n)]
        assert twin.scores()[0].counters == plain[0].counters + 3 and g.scores() == plain


def apply_plain(g: Game, action: int) -> None:
    """Game.apply as the machine reads, for a legal action: its frame's handler, then Game._advance (the loop
    that tells continuations and decision frames apart by name)."""
    assert action in g.legal_actions()
    g.history.append(action)
    f = g.stack[-1]
    game._DO[f[0]](g, f, action)
    g._advance()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_apply_equals_the_plain_machine(n):
    """Game.apply (the loop inlined, one table: a continuation's handler returns None) against apply_plain:
    every action of random games applied both ways gives the same state, legal ids and change log."""
    checked = 0
    for g in states(n, 110 + n, every=1):
        for action in g.legal_actions()[:4]:
            fast, plain = g.clone(), g.clone()
            fast.apply(action)
            apply_plain(plain, action)
            assert fast.to_json() == plain.to_json() and fast.changes == plain.changes
            assert fast.legal_actions() == plain.legal_actions()
            if fast.is_terminal():  # the end empties the stack the loop holds (no legal ids computed after it)
                assert fast._legal == [] and fast.stack == []
            checked += 1
    assert checked > 1000


def test_pushed_frames_equal_the_built_ones():
    """_OPENS, _ACTION_END and _TURN (frames built once per seat) equal the frames built in place."""
    g = Game(4, 0)
    for p in range(4):
        for action in game._LETTER_FRAMES:
            assert game._OPENS[action][p] == g._letter_frame(p, action)
        assert game._ACTION_END[p] == ("action_end", p) and game._TURN[p] == ("turn", p)


@pytest.mark.parametrize("n", [2, 4])
def test_spaces_for_one_and_groups_equal_plain(n):
    """The cached spaces for a worker numbered 1 (KH-ACT-WORKER-3/4) against plain_worker_spaces, and
    board.group_of (grown from the neighbour table) against group_of_plain for every space of random boards."""
    from farmgames.envs.key_harvest.board import group_of, group_of_plain

    for g in states(n, 130 + n):
        for p in range(n):
            assert g._spaces_for_one(p) == game.spaces_for_one(g.fields[p], g.workers[p])
            assert g._spaces_for_one(p) == plain_worker_spaces(g, p, 1)
    rng = random.Random(3)
    for k in range(400):
        fields = rng.getrandbits(56) & rng.getrandbits(56) & (rng.getrandbits(56) if k % 2 else FULL)
        for s in range(56):
            assert group_of(s, fields) == group_of_plain(s, fields), (fields, s)
        workers = fields & rng.getrandbits(56) & rng.getrandbits(56)
        assert game._worker_neighbours(workers) == dilate(workers)
    assert game._worker_neighbours(0) == 0 and game._worker_neighbours(FULL) == dilate(FULL)


def test_legal_actions_is_a_fresh_list():
    """legal_actions() hands out a copy of the cached list: editing it changes neither the game nor later lists."""
    g = Game(4, 5)
    first = g.legal_actions()
    first.append(-7)
    assert -7 not in g.legal_actions() and g.legal_actions() is not g.legal_actions()
    g.apply(g.legal_actions()[0])
    g.over = True  # a state marked over by hand has no legal action
    assert g.legal_actions() == []


def test_giveable_and_tile_numbers_equal_plain():
    """auction.giveable (compress over a selector per given-set) against giveable_plain (KH-RULING-13) for
    random supplies, stocks, given sets and counts; the worker tiles' numbers against NUMBER[worker_kind]."""
    rng = random.Random(5)
    for _ in range(5000):
        supply = [rng.choice((0, 0, 1, 2, 5)) for _ in range(NUM_CROPS)]
        stock = [rng.choice((0, 0, 1, 3, 12)) for _ in range(NUM_CROPS)]
        given, count = rng.getrandbits(NUM_CROPS) & rng.getrandbits(NUM_CROPS), rng.randrange(4)
        assert auction.giveable(supply, stock, given, count) == auction.giveable_plain(supply, stock, given, count)
    assert game.TILE_NUMBER == tuple(NUMBER[worker_kind(t)] for t in range(30))


def test_decision_functions_have_no_cells():
    """The functions a decision runs hold no closure cells (in CPython 3.11 a local read by a comprehension,
    generator or lambda is a cell allocated on every call, whichever branch runs): every phase's legal list,
    handler and continuation and the helpers they call (tests/speed/test_no_cells.py does the same for the
    adapters and the observer)."""
    from farmgames.envs.key_harvest import board

    hot = [
        Game.apply,
        Game.legal_actions,
        *game._LEGAL.values(),
        *game._DO.values(),
        *game._RUN.values(),
        Game.can_play_worker,
        Game._spaces_for_one,
        Game._can_play_worker_plain,
        Game.has_store_choice,
        Game.store_choices,
        Game.can_take_registry,
        Game.worker_spaces,
        Game._placement,
        Game._placement_plain,
        Game._worker_key,
        Game._end_turn,
        Game._finish,
        Game._gain,
        Game._lose,
        Game._take_from_stock,
        Game._give_to_stock,
        Game._harvest_tile,
        Game._place_field,
        Game._lift_worker,
        Game._return_worker,
        Game._place_worker,
        Game._benefit,
        Game._extra_letters,
        Game._start_event,
        game.space_ids,
        game._worker_neighbours,
        auction.settle,
        auction.giveable,
        board.group_of,
        board.grow_counts,
        board.cached_neighbour_counts,
        board.neighbour_counts,
        board.dilate,
        board.spaces,
    ]
    assert [f.__qualname__ for f in hot if f.__code__.co_cellvars] == []


def test_clone_copies_every_slot():
    """Game keeps its state in slots: a clone has every slot equal to the original's, shares no list (at any
    depth) with it, starts a new change log, carries other attributes over but the kept final scores; pickle
    and deepcopy give the same state."""
    import copy
    import pickle

    rng = random.Random(6)
    for n in (2, 4):
        g = Game(n, 20 + n)
        g.note = "kept"  # an attribute outside the slots (as infostate's resampled deal)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_actions()))
            if len(g.history) % 37 == 0 or g.is_terminal():
                g.scores()
                c = g.clone()
                for name in Game.__slots__:
                    if name in ("__dict__", "changes"):
                        continue
                    a, b = getattr(g, name), getattr(c, name)
                    assert a == b, name
                    if isinstance(a, list):
                        assert a is not b, name
                        for x, y in zip(a, b):
                            if isinstance(x, list):
                                assert x is not y, name
                                assert all(u is not v for u, v in zip(x, y) if isinstance(u, list)), name
                assert c.changes == [] and c.note == "kept" and "_final_scores" not in c.__dict__
                assert pickle.loads(pickle.dumps(g)).to_json() == g.to_json() == copy.deepcopy(g).to_json()


def _top_seat(g: Game) -> int | None:
    """The plain reading of ``current_player``: the seat of the frame on top of the stack, None once empty."""
    return g.stack[-1][1] if g.stack else None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_current_player_slot_follows_the_stack(n):
    """``current_player`` (a slot written where the machine stops) against the stack's top after every decision
    of random games, through both machine loops (apply and apply_plain's _advance), clones, JSON round trips,
    pickles and scenario states; None at the end."""
    import pickle

    from farmgames.envs.key_harvest.scenario import scenario

    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        g = Game(n, 300 + seed)
        assert g.current_player == _top_seat(g) is not None
        while not g.is_terminal():
            action = rng.choice(g.legal_actions())
            if checked % 5 == 0:
                plain = g.clone()
                apply_plain(plain, action)
                assert plain.current_player == _top_seat(plain)
            g.apply(action)
            assert g.current_player == _top_seat(g), (seed, len(g.history))
            assert g.stack == [] if g.current_player is None else g.stack[-1][0] in game.PHASE_OF
            if checked % 23 == 0:
                for twin in (g.clone(), Game.from_json(g.to_json()), pickle.loads(pickle.dumps(g))):
                    assert twin.current_player == g.current_player
            checked += 1
        assert g.current_player is None and Game.from_json(g.to_json()).current_player is None
    assert checked > 3000
    s = scenario(n, boards={1: "C2 C3 E6"}, supply={0: {"hops": 1}}, active=1, frames=[("tithe", 0)])
    assert s.current_player == _top_seat(s) == 0 and s.stack[-1] == ("tithe", 0)


def test_registry_tests_equal_plain_on_edge_states():
    """can_take_registry and the REGISTRY list (list comparisons against an empty supply / registry) against
    KH-ACT-BID-1/2/5 read directly, on states edited to an empty supply, an empty registry and a full store."""
    base = next(g for g in states(3, 77, every=1) if len(g.history) > 40).clone()
    checked = 0
    for supply in ([0] * NUM_CROPS, [0, 0, 0, 0, 1], [2, 0, 1, 0, 0]):
        for registry in ([-1] * 6, [-1, -1, -1, -1, -1, 30], [3, -1, 5, -1, -1, -1], list(base.registry)):
            for store in ([-1, -1], [4, -1], [4, 9]):
                g = base.clone()
                g.supply[1], g.registry, g.store[1] = list(supply), list(registry), list(store)
                room = -1 in store and sum(supply) > 0
                tiles = [game.REGISTRY0 + i for i, t in enumerate(registry) if t >= 0]
                assert g.can_take_registry(1) == (room and bool(tiles))
                assert g._l_registry(("registry", 1, 0)) == (tiles if room else [])
                checked += 1
    assert checked == 36
