"""The observer's fast path against a plain one, at every step (docs/profiling.md, "The 3x target").

The incremental observer skips work on the engine's word: farms whose ``Farm.version`` stood still, and
the public values outside the farms while ``Game.public_version`` stands still (game._FARM_ONLY_DECISIONS). Here
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

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.farm import SILO, TOWER
from farmgames.envs.fields_of_green.observer import (
    CARD_FEATURES,
    FARM_PLANES,
    GAME_FEATURES,
    PLAYER_FEATURES,
    Observer,
)

_FP = {name: i for i, (name, _, _) in enumerate(FARM_PLANES)}
_PF = {name: i for i, (name, _, _) in enumerate(PLAYER_FEATURES)}
_GF = {name: i for i, (name, _, _) in enumerate(GAME_FEATURES)}
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
        plain = plain_public(env.game, seat)
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
