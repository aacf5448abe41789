"""Rule tests: general rules, components, cards and setup (spec sections 1, 2, 3, 6)."""

from __future__ import annotations

import random

import pytest

from farmgames.envs.fields_of_green import CardSetError, Game, load_card_set
from farmgames.envs.fields_of_green.actions import RANGES
from farmgames.envs.fields_of_green.cards import PILES, SUBTYPES
from farmgames.envs.fields_of_green.farm import SILO, TOWER
from farmgames.envs.fields_of_green.render import PILE_LETTER
from farmgames.envs.fields_of_green.scenario import write_card_set

from .conftest import act, cell, is_legal, legal_kinds, play_random

BASE = load_card_set()


def _phase_trace(game: Game, rng: random.Random) -> list[tuple[int, str]]:
    """(year, phase) at every decision of a random game, consecutive duplicates removed."""
    trace: list[tuple[int, str]] = []
    while not game.is_terminal():
        key = (game.year, game.phase)
        if not trace or trace[-1] != key:
            trace.append(key)
        game.apply(rng.choice(game.legal_actions()))
    return trace


# ---------------------------------------------------------------- 1. General


@pytest.mark.parametrize("n", [2, 3, 4])
def test_FOG_GEN_1_two_to_four_players(n):
    """FOG-GEN-1: 2, 3 or 4 players; other counts are refused."""
    game = Game(num_players=n, seed=1)
    assert len(game.farms) == n


@pytest.mark.parametrize("n", [0, 1, 5, True, "3"])
def test_FOG_GEN_1_other_player_counts_rejected(n):
    """FOG-GEN-1: anything but 2..4 players raises ValueError."""
    with pytest.raises(ValueError):
        Game(num_players=n, seed=1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_FOG_GEN_2_and_GEN_3_four_years_of_upkeep_action_harvest(n):
    """FOG-GEN-2: exactly 4 years, numbered 1..4. FOG-GEN-3: Upkeep, Action, Harvest in that order."""
    trace = _phase_trace(Game(num_players=n, seed=7), random.Random(7))
    assert sorted({y for y, _ in trace}) == [1, 2, 3, 4]
    rank = {"upkeep": 0, "draw": 0, "action": 1, "harvest": 2}
    for year in range(1, 5):
        phases = [p for y, p in trace if y == year]
        ranks = [rank[p] for p in phases]
        assert ranks == sorted(ranks), (year, phases)
        assert "draw" in phases and "action" in phases
    years = [y for y, _ in trace]
    assert years == sorted(years)


def test_FOG_GEN_4_game_ends_after_year_4_harvest_most_vp_wins():
    """FOG-GEN-4: the game ends after the year-4 Harvest; the player(s) with the most VP win."""
    game = Game(num_players=3, seed=11)
    play_random(game, random.Random(11))
    assert game.is_terminal() and game.year == 4 and game.phase == "end"
    scores = game.scores()
    best = max(s.total for s in scores)
    assert all(scores[w].total == best for w in game.winners())


def test_FOG_GEN_5_two_player_variant_replaces_only_the_named_parts():
    """FOG-GEN-5: 3-4 player rules are the default; with 2 players the display replaces hands, the
    rest (costs, action kinds, income) is unchanged."""
    g2, g3 = Game(num_players=2, seed=3, first_player=0), Game(num_players=3, seed=3, first_player=0)
    for g in (g2, g3):
        while g.decision_kind != "pick":
            g.apply(g.legal_actions()[0])
    assert g2.hands == [[], []] and len(g2.display) == 6
    assert all(len(h) == 6 for h in g3.hands) and g3.display == []
    for g in (g2, g3):
        act(g, "pick", 0)
        while g.decision_kind != "act":
            g.apply(g.legal_actions()[0])
        kinds = legal_kinds(g)
        assert kinds["market"] == [0, 1]  # 1 food at start: sell 0 or 1
        assert set(kinds) <= {"build", "tower", "silo", "market", "restore"}


# ---------------------------------------------------------------- 2. Components


@pytest.mark.parametrize(
    "rule,pile",
    [("FOG-COMP-1", "Field"), ("FOG-COMP-2", "Livestock"), ("FOG-COMP-3", "Construction"), ("FOG-COMP-4", "Building")],
)
def test_FOG_COMP_1_to_4_main_piles_hold_33_cards(rule, pile):
    """FOG-COMP-1 Fields, FOG-COMP-2 Livestock, FOG-COMP-3 Constructions, FOG-COMP-4 Buildings: 33 each."""
    assert len(BASE.pile_cards(pile)) == 33, rule
    game = Game(num_players=4, seed=0)
    assert len(game.piles[PILES.index(pile)]) == 33


def test_FOG_COMP_5_and_COMP_6_tower_and_silo_piles():
    """FOG-COMP-5: 20 Water Tower cards; FOG-COMP-6: 14 Silo cards; starting ones come from them."""
    assert BASE.tower_count == 20 and BASE.silo_count == 14
    for n in (2, 3, 4):
        game = Game(num_players=n, seed=0)
        assert game.towers_left + n == 20 and game.silos_left + n == 14


def test_FOG_COMP_7_thirty_equipment_tiles():
    """FOG-COMP-7: 30 Equipment tiles in one face-down stack."""
    assert len(BASE.equipment) == 30
    assert sorted(Game(num_players=3, seed=0).equipment_stack) == list(range(30))


def test_FOG_COMP_8_to_11_token_supply_is_not_a_hard_limit(scen):
    """FOG-COMP-8 water 32, FOG-COMP-9 food 44, FOG-COMP-10 coins 61, FOG-COMP-11 VP 20 are not hard
    limits (FOG-RUL-13): a player may hold more than the physical count."""
    towers = " ".join(["T3"] * 5)
    picture = "\n".join([towers] * 3)  # 15 towers x 3 water = 45 > 32 water tokens
    game = scen(
        num_players=2,
        farm_size=5,
        farms={0: picture + "\nS/60 . . . ."},
        origin=(0, 0),
        food={0: 50},
        coins={0: 61},
        vp_tokens={0: 20},
        picks={0: "Statue"},
        decision=("act", 0),
    )
    farm = game.farms[0]
    assert farm.water == 45 and farm.food == 50
    act(game, "market", 2)
    assert farm.coins == 67 and farm.food == 48
    assert farm.vp_tokens == 20  # more VP tokens: see test_FOG_STORE_12 (pigs at 20 tokens)


def test_FOG_COMP_11_vp_tokens_beyond_twenty(scen):
    """FOG-COMP-11 / FOG-RUL-13: VP tokens keep coming beyond the 20 physical tokens."""
    game = scen(
        farms={0: "T S P"},
        legend={"P": "Pigs"},
        coins={0: 3},
        food={0: 1},
        vp_tokens={0: 20},
        year=4,
        decision=("harvest", 0),
    )
    act(game, "harvest", cell(game, 2, 4))
    assert game.farms[0].vp_tokens == 21


def test_FOG_COMP_12_markers():
    """FOG-COMP-12: First Player tile (a seat), Year Track + token (year, direction), 4 pile indicators."""
    game = Game(num_players=4, seed=5)
    assert game.first_player in range(4)
    assert game.year == 1 and game.direction in ("clockwise", "counterclockwise")
    assert len(game.piles) == 4 and PILES == ("Field", "Livestock", "Construction", "Building")


def test_FOG_COMP_13_aids_have_no_rules_effect():
    """FOG-COMP-13: player aids, scoring pad and rulebook have no rules effect: the action table has no
    action for them, and it is exactly the decision kinds of the rules."""
    kinds = [name for name, _, _ in RANGES]
    assert kinds == [
        "split",
        "pick",
        "build",
        "tower",
        "silo",
        "market",
        "restore",
        "pay_water",
        "store_water",
        "harvest",
        "harvest_end",
        "keep_equipment",
        "place_equipment",
        "set_aside",
        "attach",
        "attach_done",
        "ability_target",
        "ability_option",
        "noop",
    ]
    assert not any("aid" in k or "pad" in k or "rule" in k for k in kinds)


def test_FOG_COMP_14_four_main_piles_132_cards():
    """FOG-COMP-14: four main piles of 33 (132 cards); Constructions and Buildings are two piles."""
    game = Game(num_players=3, seed=2)
    assert len(game.piles) == 4 and sum(len(p) for p in game.piles) == 132
    assert {BASE.locations[c].pile for c in game.piles[2]} == {"Construction"}
    assert {BASE.locations[c].pile for c in game.piles[3]} == {"Building"}


def test_FOG_COMP_15_card_and_equipment_lists_are_data(syn):
    """FOG-COMP-15: the concrete lists are not rules but data (FOG-RUL-1, FOG-RUL-2): any set in the
    format can be loaded, and the game then uses exactly its cards."""
    cards = load_card_set(syn)
    game = Game(num_players=3, seed=0, card_set=syn)
    names = {cards.locations[c].name for pile in game.piles for c in pile}
    assert "Wheat" in names and "Manor" in names
    assert {t.name for t in game.cards.equipment} >= {"Hose", "Valve"}


# ---------------------------------------------------------------- 3. Cards


def test_FOG_CARD_1_location_type_is_its_pile():
    """FOG-CARD-1: a location card belongs to one of the four piles; that pile is its type."""
    assert {c.pile for c in BASE.locations} == set(PILES)
    game = Game(num_players=3, seed=0)
    for i, pile in enumerate(game.piles):
        assert all(BASE.locations[c].pile == PILES[i] for c in pile)


def test_FOG_CARD_2_four_distinguishable_colours():
    """FOG-CARD-2: Fields green, Livestock red, Constructions yellow, Buildings purple: the four types
    are told apart everywhere (render letters F/L/C/B, one per pile)."""
    assert set(PILE_LETTER) == set(PILES)
    assert len(set(PILE_LETTER.values())) == 4


def test_FOG_CARD_3_field_subtypes(make_set):
    """FOG-CARD-3 / FOG-RUL-32: every Field has exactly one of cereal, fruit, vegetable."""
    assert SUBTYPES["Field"] == ("cereal", "fruit", "vegetable")
    assert all(c.subtype in SUBTYPES["Field"] for c in BASE.locations if c.pile == "Field")
    path = make_set(locations={"Field": [{"name": "Odd", "subtype": "nut"}]})
    with pytest.raises(CardSetError, match="subtype"):
        load_card_set(path)
    path = make_set(locations={"Field": [{"name": "Bare"}]})
    with pytest.raises(CardSetError, match="subtype"):
        load_card_set(path)


def test_FOG_CARD_4_livestock_subtypes(make_set):
    """FOG-CARD-4 / FOG-RUL-32: every Livestock card is dairy, meat, poultry or work."""
    assert SUBTYPES["Livestock"] == ("dairy", "meat", "poultry", "work")
    assert all(c.subtype in SUBTYPES["Livestock"] for c in BASE.locations if c.pile == "Livestock")
    with pytest.raises(CardSetError, match="subtype"):
        load_card_set(make_set(locations={"Livestock": [{"name": "Odd", "subtype": "cereal"}]}))


def test_FOG_CARD_5_constructions_and_buildings_have_no_subtype(make_set):
    """FOG-CARD-5: Constructions and Buildings have no sub-type; a file that gives one is refused."""
    assert all(c.subtype is None for c in BASE.locations if c.pile in ("Construction", "Building"))
    with pytest.raises(CardSetError, match="subtype"):
        load_card_set(make_set(locations={"Building": [{"name": "Odd", "subtype": "fruit"}]}))


def test_FOG_CARD_6_coin_cost(scen):
    """FOG-CARD-6: the coin cost must be paid to build: Chapel (4 coins) is illegal with 3 coins."""
    game = scen(picks={0: "Chapel"}, coins={0: 3}, decision=("act", 0))
    assert "build" not in legal_kinds(game)
    game = scen(picks={0: "Chapel"}, coins={0: 4}, decision=("act", 0))
    assert "build" in legal_kinds(game)
    assert game.cards.locations[game.picks[0]].coin_cost == 4


def test_FOG_CARD_7_water_and_food_costs_are_part_of_the_build_cost(scen):
    """FOG-CARD-7: water and food costs are part of the build cost."""
    cows = scen(picks={0: "Cows"}, food={0: 1}, decision=("act", 0))
    assert "build" not in legal_kinds(cows)  # needs 2 food
    paddy = scen(farms={0: "T1 S"}, picks={0: "Rice Paddy"}, decision=("act", 0))
    assert "build" not in legal_kinds(paddy)  # needs 2 water
    card = paddy.cards.locations[paddy.picks[0]]
    assert (card.coin_cost, card.water_cost, card.food_cost) == (2, 2, 0)


def test_FOG_CARD_8_printed_vp(scen):
    """FOG-CARD-8: a location's printed VP counts in scoring (Chapel: 5 VP)."""
    game = scen(farms={0: "T S C"}, legend={"C": "Chapel"}, decision=[])
    assert game.scores()[0].printed_vp == 5


def test_FOG_CARD_9_one_ability_box_with_a_timing(make_set):
    """FOG-CARD-9: at most one ability, of kind immediate, harvest or end_game."""
    assert all(c.ability is None or c.ability.kind in ("immediate", "harvest", "end_game") for c in BASE.locations)
    bad = make_set(locations={"Building": [{"name": "Odd", "ability": {"kind": "weekly", "effect": []}}]})
    with pytest.raises(CardSetError, match="kind"):
        load_card_set(bad)


def test_FOG_CARD_10_harvest_cost_only_on_harvest_abilities(make_set, scen):
    """FOG-CARD-10: a Harvest ability shows a harvest cost; its effect applies only if it is paid."""
    bad = make_set(
        locations={
            "Building": [
                {"name": "Odd", "ability": {"kind": "end_game", "cost": {"coins": 1}, "effect": [{"gain": {"vp": 1}}]}}
            ]
        }
    )
    with pytest.raises(CardSetError, match="cost"):
        load_card_set(bad)
    game = scen(farms={0: "T0 S W"}, legend={"W": "Wheat"}, food={0: 0}, year=4, decision=("harvest", 0))
    assert not is_legal(game, "harvest", cell(game, 2, 4))  # 1 water unpaid -> no effect
    act(game, "harvest_end")
    assert game.farms[0].food == 0


def test_FOG_CARD_11_towers_and_silos_have_no_location_type(scen):
    """FOG-CARD-11: Water Towers and Silos are locations without a location type."""
    game = scen(decision=[])
    farm = game.farms[0]
    assert farm.card_info(cell(game, 2, 2)) == ("WaterTower", None, "none")
    assert farm.card_info(cell(game, 2, 3)) == ("Silo", None, "none")
    assert farm.face_up_locations() == 2  # but they are locations (FOG-RUL-22)


def test_FOG_CARD_12_towers_and_silos_identical_no_vp_no_ability(scen):
    """FOG-CARD-12: all towers (and all silos) are alike: 0 printed VP and no ability."""
    game = scen(farms={0: "T S\nT S"}, decision=[])
    s = game.scores()[0]
    assert s.printed_vp == 0 and s.end_game == 0
    assert game.farms[0].tower_capacity == {cell(game, 2, 2): 3, cell(game, 3, 2): 3}
    assert game.farms[0].silo_capacity == {cell(game, 2, 3): 4, cell(game, 3, 3): 4}


def test_FOG_CARD_13_face_up_or_fallow(scen):
    """FOG-CARD-13: a location card on a farm is face up or face down (fallow)."""
    game = scen(farms={0: "(W) T S W"}, legend={"W": "Wheat"}, decision=[])
    farm = game.farms[0]
    up, down = cell(game, 2, 4), cell(game, 2, 1)
    assert up not in farm.fallow and down in farm.fallow
    assert farm.card_info(up) == ("Field", "cereal", "harvest") and farm.card_info(down) is None


# ---------------------------------------------------------------- 6. Setup


@pytest.mark.parametrize("size", [5, 9, 11])
def test_FOG_FARM_8_starting_layout(size):
    """FOG-FARM-8 / FOG-RUL-9: tower at (c, c), silo at (c, c+1), c = farm_size // 2."""
    game = Game(num_players=3, seed=0, farm_size=size)
    c = size // 2
    for farm in game.farms:
        assert sorted(farm.occupied) == [c * size + c, c * size + c + 1]
        assert farm.grid[c * size + c] == TOWER and farm.grid[c * size + c + 1] == SILO


def test_FOG_SETUP_1_cards_sorted_into_piles():
    """FOG-SETUP-1: four main piles by type, plus the Water Tower and Silo piles."""
    game = Game(num_players=4, seed=9)
    for i, pile in enumerate(game.piles):
        assert sorted(pile) == BASE.pile_cards(PILES[i])
    assert game.towers_left == 16 and game.silos_left == 10


def test_FOG_SETUP_2_each_pile_shuffled_separately():
    """FOG-SETUP-2: each main pile is shuffled on its own (a pile keeps its own cards; seeds differ)."""
    a, b = Game(num_players=3, seed=1), Game(num_players=3, seed=2)
    for i in range(4):
        assert sorted(a.piles[i]) == sorted(b.piles[i]) == BASE.pile_cards(PILES[i])
    assert a.piles != b.piles
    assert any(a.piles[i] != sorted(a.piles[i]) for i in range(4))


def test_FOG_SETUP_3_tower_and_silo_piles_face_up_and_counted():
    """FOG-SETUP-3: the Water Tower and Silo piles are face up: their sizes are plain public counts."""
    game = Game(num_players=3, seed=0)
    assert (game.towers_left, game.silos_left) == (17, 11)
    assert "towers 17" in str(game) and "silos 11" in str(game)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_FOG_SETUP_4_fifteen_coins(n):
    """FOG-SETUP-4: each player receives 15 coins."""
    assert [f.coins for f in Game(num_players=n, seed=0).farms] == [15] * n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_FOG_SETUP_5_one_tower_one_silo_each(n):
    """FOG-SETUP-5: each farm starts with 1 tower and 1 silo from the piles (20-N and 14-N left)."""
    game = Game(num_players=n, seed=0)
    assert all(len(f.tower_water) == 1 and len(f.silo_capacity) == 1 for f in game.farms)
    assert (game.towers_left, game.silos_left) == (20 - n, 14 - n)


def test_FOG_SETUP_6_and_SETUP_7_start_water_and_food():
    """FOG-SETUP-6: the starting tower holds 3 water. FOG-SETUP-7: the starting silo holds 1 food."""
    for farm in Game(num_players=4, seed=0).farms:
        assert list(farm.tower_water.values()) == [3]
        assert farm.food == 1


def test_FOG_SETUP_8_remaining_tokens_form_the_supply():
    """FOG-SETUP-8: everything not handed out stays in the (unlimited, FOG-RUL-13) Supply: players hold
    no VP tokens and nothing else than their starting resources."""
    for farm in Game(num_players=3, seed=0).farms:
        assert (farm.vp_tokens, farm.coins, farm.water, farm.food) == (0, 15, 3, 1)


def test_FOG_SETUP_9_equipment_stack_shuffled():
    """FOG-SETUP-9: the 30 tiles are shuffled into one face-down stack (seed-dependent order)."""
    a, b = Game(num_players=3, seed=1), Game(num_players=3, seed=2)
    assert sorted(a.equipment_stack) == list(range(30))
    assert a.equipment_stack != b.equipment_stack


def test_FOG_SETUP_10_and_RUL_28_first_player():
    """FOG-SETUP-10 / FOG-RUL-28: the first player is a seeded random seat, or fixed by config."""
    seats = {Game(num_players=4, seed=s).first_player for s in range(40)}
    assert seats == {0, 1, 2, 3}
    assert Game(num_players=4, seed=3).first_player == Game(num_players=4, seed=3).first_player
    assert Game(num_players=4, seed=3, first_player=2).first_player == 2
    with pytest.raises(ValueError):
        Game(num_players=3, seed=0, first_player=3)
    game = Game(num_players=4, seed=3, first_player=2)
    assert game.decision == ("split", 2)


def test_FOG_SETUP_11_empty_discard_no_hands_no_equipment():
    """FOG-SETUP-11: the discard pile is empty; nobody holds cards or equipment."""
    game = Game(num_players=4, seed=0)
    assert game.discard == [] and game.display == [] and game.offer == []
    assert all(h == [] for h in game.hands) and all(p is None for p in game.picks)
    assert all(f.equipment == {} and f.set_aside == [] for f in game.farms)


def test_FOG_SETUP_12_starting_state_per_player():
    """FOG-SETUP-12: 15 coins, 3 water on one tower, 1 food in one silo, 2 cards, 0 VP tokens."""
    for farm in Game(num_players=2, seed=4).farms:
        assert farm.coins == 15 and farm.water == 3 and len(farm.tower_water) == 1
        assert farm.food == 1 and len(farm.silo_capacity) == 1
        assert len(farm.occupied) == 2 and farm.vp_tokens == 0 and farm.fallow == set()


# ---------------------------------------------------------------- rulings about data


def test_FOG_RUL_1_card_records_and_pile_sizes(make_set, tmp_path):
    """FOG-RUL-1: cards are data with the listed fields; each pile must have pile_size (33) records;
    towers and silos have 0 VP and no ability."""
    card = BASE.locations[0]
    for attr in (
        "name",
        "pile",
        "subtype",
        "coin_cost",
        "water_cost",
        "food_cost",
        "vp",
        "ability_kind",
        "harvest_cost",
    ):
        assert hasattr(card, attr)
    for pile in PILES:
        assert sum(1 for c in BASE.locations if c.pile == pile) == 33
    short = write_card_set(tmp_path, locations={}, pile_size=6, name="short")
    text = short.read_text().replace("pile_size: 6", "pile_size: 7")
    short.write_text(text)
    with pytest.raises(CardSetError, match="pile"):
        load_card_set(short)


def test_FOG_RUL_2_equipment_records_and_names(make_set):
    """FOG-RUL-2: tiles are data (name, host type, keyword, timing, effect); duplicates of a name may
    exist (copies), two designs may not share a name."""
    tile = BASE.equipment[0]
    for attr in ("name", "host_type", "keyword", "timing", "effect"):
        assert hasattr(tile, attr)
    assert any(t.copies > 1 for t in BASE.equipment_designs)
    dup = [{"name": "Hose", "host": "Field", "timing": "on_place", "effect": [{"gain": {"coins": 1}}]}] * 2
    with pytest.raises(CardSetError, match="twice"):
        load_card_set(make_set(equipment=dup))
    bad_host = [{"name": "Odd", "host": "Barn", "timing": "on_place", "effect": []}]
    with pytest.raises(CardSetError, match="host"):
        load_card_set(make_set(equipment=bad_host))


def test_FOG_RUL_32_subtypes_are_closed_enums():
    """FOG-RUL-32: Field in {cereal, fruit, vegetable}; Livestock in {dairy, meat, poultry, work};
    Constructions and Buildings have none."""
    assert SUBTYPES == {
        "Field": ("cereal", "fruit", "vegetable"),
        "Livestock": ("dairy", "meat", "poultry", "work"),
        "Construction": (),
        "Building": (),
    }
