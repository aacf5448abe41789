"""The observer's fast path against a plain one, at every step (docs/profiling.md, "The 3x target").

The incremental observer skips work on the engine's word: farms whose ``Farm.version`` stood still, and
the public values outside the farms while ``Game.public_version`` stands still (game._FARM_ONLY_DECISIONS),
all but the hand sizes and picks while only ``Game.pick_version`` moved (3-4 player picks). Here
every observation of random 2-4 player games is compared, value for value, with

* ``fill(force_full=True)`` of a second observer (the caches rebuilt from the game), and
* a plain numpy reference written below from the rules' own words (FARM_PLANES, PLAYER_FEATURES,
  GAME_FEATURES ...), which shares no code with the observer's incremental writes,

also right after ``clone()``, ``to_json``/``from_json``, ``load_game`` and pickling the env, so that a
counter carried over (or not) by a copy can never leave a stale value behind.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0, fields_of_green_v1
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.cards import EQUIPMENT_TIMINGS, HAND_SIZE, HOST_TYPES
from farmgames.envs.fields_of_green.farm import EMPTY, SILO, TOWER
from farmgames.envs.fields_of_green.observer import (
    CARD_FEATURES,
    DECISION_FEATURES,
    FARM_PLANES,
    GAME_FEATURES,
    PLAYER_FEATURES,
    TILE_FEATURES_FIXED,
    Observer,
)

_FP = {name: i for i, (name, _, _) in enumerate(FARM_PLANES)}
_PF = {name: i for i, (name, _, _) in enumerate(PLAYER_FEATURES)}
_GF = {name: i for i, (name, _, _) in enumerate(GAME_FEATURES)}
_DF = {name: i for i, (name, _, _) in enumerate(DECISION_FEATURES)}
C = len(CARD_FEATURES)


def plain_public(game: Game, viewer: int) -> dict[str, np.ndarray]:
    """The public arrays of ``viewer``'s observation, written the slow, obvious way."""
    n, s = game.num_players, game.geometry.size
    cells = s * s
    cards, tiles = game.cards.locations, game.cards.equipment
    order = [(viewer + k) % n for k in range(n)]
    current = game.current_player
    farms = np.zeros((n, len(FARM_PLANES), cells), np.float32)
    players = np.zeros((n, len(PLAYER_FEATURES)), np.float32)
    draws = np.zeros((n, 4), np.float32)
    E, D = len(game.cards.equipment_designs), len(game.cards.location_designs)
    placed, aside = np.zeros((n, E), np.float32), np.zeros((n, E), np.float32)
    for k, p in enumerate(order):
        f, a = game.farms[p], farms[k]
        for cell in f.occupied:
            code = f.grid[cell]
            a[_FP["occupied"], cell] = 1
            if code == TOWER:
                a[_FP["tower"], cell] = 1
            elif code == SILO:
                a[_FP["silo"], cell] = 1
            else:
                a[:C, cell] = Observer._card_features(cards[code])
                if cards[code].ability_kind == "harvest":
                    a[_FP["card_harvest_coins"] : _FP["card_harvest_food"] + 1, cell] = game.harvest_cost(p, cell)
        for cell in f.frontier:
            a[_FP["buildable"], cell] = 1
        for cell in f.fallow:
            a[_FP["fallow"], cell] = 1
        for cell, w in f.tower_water.items():
            a[_FP["water"], cell] = w
        for cell, c in f.tower_capacity.items():
            a[_FP["tower_capacity"], cell] = c
        for cell, c in f.silo_capacity.items():
            a[_FP["silo_capacity"], cell] = c
        for cell, ts in f.equipment.items():
            a[_FP["equipment"], cell] = len(ts)
            for t in ts:
                placed[k, tiles[t].design] += 1
        for t in f.set_aside:
            aside[k, tiles[t].design] += 1
        if game.phase == "harvest" and p == current:
            for cell in game.harvested:
                a[_FP["harvested"], cell] = 1
        row = players[k]
        values = {
            "coins": f.coins,
            "food": f.food,
            "food_capacity": f.food_capacity,
            "water": f.water,
            "water_capacity": sum(f.tower_capacity.values()),
            "vp_tokens": f.vp_tokens,
            "set_aside": len(f.set_aside),
            "towers": len(f.tower_water),
            "silos": len(f.silo_capacity),
            "fallow": len(f.fallow),
            "locations": f.face_up_locations(),
            "actions_taken": f.actions_taken,
            "hand_size": len(game.hands[p]),
            "picked": game.picks[p] is not None,
            "first_player": p == game.first_player,
            "to_act": p == current,
        }
        for name, value in values.items():
            row[_PF[name]] = value
        draws[k] = game.draw_counts[p]
    g = np.zeros(len(GAME_FEATURES), np.float32)
    if 1 <= game.year <= 4:
        g[_GF[f"year_{game.year}"]] = 1
    if game.phase == "action" and 1 <= game.turn <= 6:
        g[_GF[f"turn_{game.turn}"]] = 1
    if f"phase_{game.phase}" in _GF:
        g[_GF[f"phase_{game.phase}"]] = 1
    g[_GF[game.direction]] = 1
    g[_GF["two_player"]] = n == 2
    g[_GF["revealed"]] = game.revealed
    for name, pile in zip(("field", "livestock", "construction", "building"), game.piles):
        g[_GF[f"pile_{name}"]] = len(pile)
    for name, value in (
        ("towers_left", game.towers_left),
        ("silos_left", game.silos_left),
        ("equipment_stack", len(game.equipment_stack)),
        ("offer_pile", len(game.offer)),
        ("display", len(game.display)),
        ("discard_pile", len(game.discard)),
    ):
        g[_GF[name]] = value
    discard = np.zeros(D, np.float32)
    for card in game.discard:
        discard[cards[card].design] += 1
    return {
        "farms": farms.reshape(n, len(FARM_PLANES), s, s),
        "players": players,
        "draw_counts": draws,
        "game": g,
        "placed_equipment": placed,
        "set_aside_equipment": aside,
        "discard": discard,
    }


def plain_private(game: Game, viewer: int) -> dict[str, np.ndarray]:
    """The picked cards, hand and decision arrays of ``viewer``'s observation, the slow, obvious way (the
    observer writes the first two from byte patterns, one memcpy per block)."""
    n, s = game.num_players, game.geometry.size
    cards, tiles = game.cards.locations, game.cards.equipment
    D, E = len(game.cards.location_designs), len(game.cards.equipment_designs)

    def card_row(card: int) -> np.ndarray:
        row = np.zeros(C + D, np.float32)
        row[:C] = Observer._card_features(cards[card])
        row[C + cards[card].design] = 1
        return row

    def tile_row(tile_id: int) -> np.ndarray:
        tile = tiles[tile_id]
        row = np.zeros(len(TILE_FEATURES_FIXED) + E, np.float32)
        row[HOST_TYPES.index(tile.host)] = 1
        row[len(HOST_TYPES) + EQUIPMENT_TIMINGS.index(tile.timing)] = 1
        row[len(TILE_FEATURES_FIXED) + tile.design] = 1
        return row

    revealed = np.zeros((n, C + D), np.float32)
    for k in range(n):
        p = (viewer + k) % n
        card = game.picks[p]
        if card is not None and (p == viewer or n == 2 or game.revealed):  # FOG-ACT-4/6
            revealed[k] = card_row(card)
    hand = np.zeros((HAND_SIZE, 1 + C + D), np.float32)
    for i, card in enumerate(game.display if n == 2 else game.hands[viewer]):
        hand[i, 0] = 1
        hand[i, 1:] = card_row(card)
    decision = np.zeros(len(DECISION_FEATURES), np.float32)
    decision_card = np.zeros(C + D, np.float32)
    cell_plane = np.zeros(s * s, np.float32)
    drawn = np.zeros((3, len(TILE_FEATURES_FIXED) + E), np.float32)
    kept = np.zeros(len(TILE_FEATURES_FIXED) + E, np.float32)
    frame = game.decision
    if frame is not None:
        kind = frame[0]
        decision[_DF[f"kind_{kind}"]] = 1
        if frame[1] == viewer:
            decision[_DF["yours"]] = 1
            grid = game.farms[viewer].grid
            card = None
            if kind == "act":
                card = game.picks[viewer]
            elif kind == "pay_water":
                decision[_DF["water_due"]] = frame[3]
                cell_plane[frame[2]] = 1
                building = grid[frame[2]] == EMPTY
                decision[_DF["for_build" if building else "for_harvest"]] = 1
                card = game.picks[viewer] if building else grid[frame[2]] if grid[frame[2]] >= 0 else None
            elif kind == "store_water":
                decision[_DF["water_to_store"]] = frame[2]
            elif kind == "keep_equipment":
                for i, tile_id in enumerate(frame[2]):
                    drawn[i] = tile_row(tile_id)
            elif kind == "place_equipment":
                kept[:] = tile_row(frame[2])
            elif kind == "attach":
                cell_plane[frame[2]] = 1
                decision[_DF["for_build"]] = 1
                card = grid[frame[2]] if grid[frame[2]] >= 0 else None
            elif kind == "ability_target":
                decision[_DF[f"target_{frame[2]}"]] = 1
                decision[_DF["raise_by"]] = frame[3]
            elif kind == "ability_option":
                cell, pay, gain, times = frame[2:6]
                if cell >= 0:
                    cell_plane[cell] = 1
                    card = grid[cell] if grid[cell] >= 0 else None
                decision[_DF["trade_pay_coins"]] = pay.get("coins", 0)
                decision[_DF["trade_pay_food"]] = pay.get("food", 0)
                for res in ("coins", "water", "food", "vp"):
                    decision[_DF[f"trade_gain_{res}"]] = gain.get(res, 0)
                decision[_DF["trade_max_times"]] = times
            if card is not None:
                decision_card[:] = card_row(card)
    return {
        "revealed": revealed,
        "hand": hand,
        "decision": decision,
        "decision_card": decision_card,
        "decision_cell": cell_plane.reshape(s, s),
        "decision_tiles": drawn,
        "decision_kept": kept,
    }


@pytest.mark.parametrize(
    "module, players, variant",
    [
        (fields_of_green_v0, 2, {}),
        (fields_of_green_v0, 3, {}),
        (fields_of_green_v0, 4, {}),
        (fields_of_green_v0, 4, {"auto_single": True}),
        (fields_of_green_v1, 2, {}),
        (fields_of_green_v1, 4, {}),
    ],
)
def test_every_viewer_after_every_step_equals_a_plain_recomputation(module, players, variant):
    """Every seat's observation (not only the deciding seat's) after every step of random games, v0 and
    v1, array for array against plain_public + plain_private: catches a fast-path write that is right
    for the seat the env happens to observe and stale for the others."""
    rng = random.Random(players)
    env = module.raw_env(num_players=players, **variant)
    checked = 0
    for seed in range(2):
        env.reset(seed=300 + seed)
        while env.agents:
            obs, _, termination, truncation, _ = env.last()
            for seat in range(players):
                seen = env.observe(env.possible_agents[seat])["observation"]
                plain = {**plain_public(env.game, seat), **plain_private(env.game, seat)}
                assert set(plain) == set(seen) - {"passed"}
                bad = [k for k in plain if not np.array_equal(plain[k], seen[k])]
                assert not bad, f"seed {300 + seed}, step {len(env.game.history)}, seat {seat}: {bad}"
                checked += 1
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 200 * players  # two whole games, every seat


class _Checker:
    """Compares ``env``'s observation of a seat with a forced full fill and with the plain reference."""

    def __init__(self):
        self.checked = 0

    def __call__(self, env, seat: int, where: str) -> None:
        obs = env.observe(env.possible_agents[seat])["observation"]
        ref = Observer(env.game)
        buf = ref.new_buffer()
        ref.fill(env.game, seat, buf, force_full=True)
        bad = [k for k in buf.views if k != "passed" and not np.array_equal(buf.views[k], obs[k])]
        assert not bad, f"{where}, seat {seat}: differs from fill(force_full=True) in {bad}"
        plain = {**plain_public(env.game, seat), **plain_private(env.game, seat)}
        bad = [k for k in plain if not np.array_equal(plain[k], obs[k])]
        assert not bad, f"{where}, seat {seat}: differs from the plain reference in {bad}"
        self.checked += 1


def _copy(env, how: str, rng: random.Random):
    """The env, or a copy of it made ``how``, to continue playing with."""
    if how == "pickle":
        return pickle.loads(pickle.dumps(env))
    game = env.game
    if how == "clone":
        env.load_game(game.clone())
    elif how == "json":
        env.load_game(Game.from_json(game.to_json()))
    elif how == "in_place_clone":  # the observer keeps its caches across a clone it never saw
        twin = game.clone()
        twin.apply(rng.choice(twin.legal_actions()))
        env.observer.fill(twin, rng.randrange(twin.num_players), env.observer.new_buffer())
    return env


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_observation_equals_the_plain_path_including_after_copies(players):
    check = _Checker()
    rng = random.Random(10 + players)
    copies = ["pickle", "clone", "json", "in_place_clone"]
    for seed in range(3):
        env = fields_of_green_v0.raw_env(num_players=players, auto_single=seed == 1)
        env.reset(seed=200 + seed)
        while env.agents:
            agent = env.agent_selection
            obs, _, termination, truncation, _ = env.last()
            where = f"seed {200 + seed}, step {len(env.game.history)}"
            seats = range(players) if rng.random() < 0.1 else [env.agent_name_mapping[agent]]
            for seat in seats:
                check(env, seat, where)
            if termination or truncation:
                env.step(None)
                continue
            if rng.random() < 0.03:
                how = rng.choice(copies)
                env = _copy(env, how, rng)
                agent = env.agent_selection
                check(env, env.agent_name_mapping[agent], f"{where} after {how}")
                obs = env.observe(agent)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert check.checked > 350


def test_a_missed_version_bump_would_be_caught():
    """An edit the engine's counters do not see (a farm changed by hand) leaves the fast path stale,
    and the plain reference says so: the comparison above can fail."""
    env = fields_of_green_v0.raw_env(num_players=3)
    env.reset(seed=1)
    for _ in range(40):
        legal = env.legal_actions()
        env.step(legal[len(legal) // 2])
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    assert np.array_equal(plain_public(env.game, seat)["players"], env.observe(agent)["observation"]["players"])
    env.game.farms[seat].coins += 1  # behind the engine's back: Farm.version stands still
    env._version += 1  # (so that the env fills the observation again)
    stale = env.observe(agent)["observation"]["players"].copy()
    assert not np.array_equal(plain_public(env.game, seat)["players"], stale)
    env.observer.invalidate()  # what the observer's docs ask after editing a game by hand
    env._version += 1
    assert np.array_equal(plain_public(env.game, seat)["players"], env.observe(agent)["observation"]["players"])
