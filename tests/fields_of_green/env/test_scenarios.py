"""Water range and food payment at the environment level: the mask offers a build exactly where the
whole cost can be paid (FOG-ACT-BUILD-7, FOG-WATER-1..4, FOG-ACT-BUILD-5)."""

from __future__ import annotations

import numpy as np
import pytest

from farmgames.envs import fields_of_green_v0
from farmgames.envs.fields_of_green import IllegalActionError
from farmgames.envs.fields_of_green.scenario import at, scenario

# A 5x5 farm in a row: a full tower at (2,0), the silo, two plain Buildings; a dry tower at the far end.
#   row 1:  .   .   .   .   .
#   row 2:  T3  S   B   B   T0
FARM = """
    .  .  .  .  .
    .  .  .  .  .
    T3 S  P  P  T0
    .  .  .  .  .
    .  .  .  .  .
"""
LEGEND = {"P": "Plain Building"}


def _env_with(game):
    env = fields_of_green_v0.raw_env(num_players=3, farm_size=5, card_set=game.variant["card_set"])
    env.reset(seed=0)
    env.load_game(game)
    return env


def _builds(env) -> set[int]:
    obs = env.observe(env.agent_selection)
    L = env.layout
    return {a - L.BUILD for a in np.flatnonzero(obs["action_mask"]) if L.BUILD <= a < L.BUILD + L.cells}


def _towers(env) -> set[int]:
    obs = env.observe(env.agent_selection)
    L = env.layout
    return {a - L.TOWER for a in np.flatnonzero(obs["action_mask"]) if L.TOWER <= a < L.TOWER + L.cells}


def test_build_offered_only_where_a_tower_with_water_is_in_range(env_set):
    game = scenario(
        num_players=3,
        farm_size=5,
        card_set=env_set,
        farms={0: FARM},
        legend=LEGEND,
        coins={0: 10},
        food={0: 0},
        picks={0: "Melon Patch"},
        decision=("act", 0),
    )
    env = _env_with(game)
    assert env.agent_selection == "player_0"
    near, far = at(game, 1, 1), at(game, 1, 3)
    # both cells are legal placements (a water tower could go on either) ...
    assert {near, far} <= _towers(env)
    # ... but Melon Patch costs 1 water: (1,1) is diagonal to the full tower with the silo on a corner
    # (distance 2, FOG-WATER-4); (1,3) is 4 steps away, and the tower beside it is dry.
    builds = _builds(env)
    assert near in builds and far not in builds
    assert builds == {c for c in game.farms[0].frontier if game.farms[0].water_in_range(c) >= 1}
    with pytest.raises(IllegalActionError):
        env.step(env.layout.index("build", far))
    # choosing the legal build asks for the water from the only tower in range that holds water
    env.step(env.layout.index("build", near))
    obs = env.observe("player_0")
    assert game.decision_kind == "pay_water"
    assert np.flatnonzero(obs["action_mask"]).tolist() == [env.layout.index("pay_water", at(game, 2, 0))]
    d = obs["observation"]
    assert d["decision"][list(env.observer.feature_names("decision")).index("water_due")] == 1
    assert d["decision_cell"][1, 1] == 1 and d["decision_cell"].sum() == 1
    env.step(env.layout.index("pay_water", at(game, 2, 0)))
    assert game.farms[0].tower_water[at(game, 2, 0)] == 2


def test_same_cell_becomes_buildable_when_its_tower_has_water(env_set):
    wet = FARM.replace("T0", "T1")
    game = scenario(
        num_players=3,
        farm_size=5,
        card_set=env_set,
        farms={0: wet},
        legend=LEGEND,
        coins={0: 10},
        picks={0: "Melon Patch"},
        decision=("act", 0),
    )
    env = _env_with(game)
    assert at(game, 1, 3) in _builds(env)  # now the tower at (2,4) is in range and holds water


def test_build_illegal_only_because_of_food(env_set):
    def setup(food):
        return scenario(
            num_players=3,
            farm_size=5,
            card_set=env_set,
            farms={0: FARM},
            legend=LEGEND,
            coins={0: 10},
            food={0: food},
            picks={0: "Cows"},
            decision=("act", 0),
        )

    poor = _env_with(setup(1))  # Cows cost 1 coin and 2 food
    assert _builds(poor) == set()
    assert _towers(poor)  # placements exist, coins suffice: only the food is missing
    before = poor.game.to_json()
    with pytest.raises(IllegalActionError):
        poor.step(poor.layout.index("build", at(poor.game, 1, 1)))
    assert poor.game.to_json() == before
    rich = _env_with(setup(2))
    assert _builds(rich) == set(rich.game.farms[0].frontier)
    rich.step(rich.layout.index("build", at(rich.game, 1, 1)))
    assert rich.game.farms[0].food == 0 and rich.game.farms[0].coins == 9


def test_market_sales_limited_by_food(env_set):
    game = scenario(
        num_players=3,
        farm_size=5,
        card_set=env_set,
        farms={0: FARM},
        legend=LEGEND,
        coins={0: 0},
        food={0: 1},
        picks={0: "Chapel"},
        decision=("act", 0),
    )
    env = _env_with(game)
    mask = env.observe("player_0")["action_mask"]
    L = env.layout
    assert [a - L.MARKET for a in np.flatnonzero(mask) if L.MARKET <= a < L.MARKET + 3] == [0, 1]
    assert not _builds(env) and not _towers(env)  # Chapel costs 4 coins; a tower 2 coins
