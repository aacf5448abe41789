"""Card data: the shipped base set, its generated text, and the loader's error messages.

Rule IDs are in the test names/docstrings (spec: /work/shared/rules/fields_of_green.md). The base set is
the project's own design (FOG-RUL-1, FOG-RUL-2); these tests pin its frame (pile sizes, sub-types,
ability kinds), its design goals (variety, archetypes, cost/VP ranges) and the promise of
data/FORMAT.md that a malformed file is reported with file, entry and field.
"""

from __future__ import annotations

import copy
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
import yaml

from farmgames.envs.fields_of_green import card_text
from farmgames.envs.fields_of_green.cards import (
    ABILITY_KINDS,
    DEFAULT_CARD_SET,
    HOST_TYPES,
    PILES,
    SUBTYPES,
    CardSetError,
    load_card_set,
)


@pytest.fixture(scope="module")
def base():
    return load_card_set()


@pytest.fixture(scope="module")
def raw_base() -> dict:
    return yaml.safe_load(DEFAULT_CARD_SET.read_text(encoding="utf-8"))


def designs(cs, pile):
    return [d for d in cs.location_designs if d.pile == pile]


def all_ops(cs):
    """(owner, op) for every operation of every location ability and equipment tile."""
    for d in cs.location_designs:
        if d.ability:
            for op in d.ability.effect:
                yield d, op
    for t in cs.equipment_designs:
        for op in t.effect:
            yield t, op


def all_counters(op):
    for key in ("per", "if"):
        if key in op:
            yield op[key]


# ------------------------------------------------------------------------------------ base set frame


def test_fog_rul_1_base_set_loads(base):
    """FOG-RUL-1: the shipped base set is valid data and loads by default."""
    assert base.name == "base"
    assert Path(base.path) == DEFAULT_CARD_SET
    assert base.location_designs and base.equipment_designs


@pytest.mark.parametrize("pile", PILES)
def test_fog_comp_1_to_4_each_main_pile_has_33_cards(base, pile):
    """FOG-COMP-1..4: 33 physical cards per main pile."""
    assert len(base.pile_cards(pile)) == 33
    assert sum(d.copies for d in designs(base, pile)) == 33


def test_fog_comp_14_four_piles_132_cards(base):
    """FOG-COMP-14: exactly four main piles, 132 location cards in total."""
    assert {c.pile for c in base.locations} == set(PILES)
    assert len(base.locations) == 132
    assert base.pile_size == 33


def test_fog_comp_5_twenty_water_towers(base):
    """FOG-COMP-5, FOG-STORE-2, FOG-ACT-TOWER-4: 20 towers, capacity 3, a new tower gets 3 water."""
    assert (base.tower_count, base.tower_capacity, base.tower_start_water) == (20, 3, 3)


def test_fog_comp_6_fourteen_silos(base):
    """FOG-COMP-6, FOG-STORE-4: 14 silos, capacity 4."""
    assert (base.silo_count, base.silo_capacity) == (14, 4)


def test_fog_comp_7_thirty_equipment_tiles(base):
    """FOG-COMP-7: 30 Equipment tiles."""
    assert len(base.equipment) == 30
    assert sum(t.copies for t in base.equipment_designs) == 30


def test_fog_card_3_fields_have_one_field_subtype(base):
    """FOG-CARD-3, FOG-RUL-32: every Field is cereal, fruit or vegetable."""
    for c in base.pile_cards("Field"):
        assert base.locations[c].subtype in ("cereal", "fruit", "vegetable")


def test_fog_card_4_livestock_have_one_livestock_subtype(base):
    """FOG-CARD-4, FOG-RUL-32: every Livestock is dairy, meat, poultry or work."""
    for c in base.pile_cards("Livestock"):
        assert base.locations[c].subtype in ("dairy", "meat", "poultry", "work")


def test_fog_card_5_constructions_and_buildings_have_no_subtype(base):
    """FOG-CARD-5, FOG-RUL-32."""
    for pile in ("Construction", "Building"):
        assert all(d.subtype is None for d in designs(base, pile))


def test_fog_card_9_at_most_one_ability_of_a_known_kind(base):
    """FOG-CARD-9: a card has no ability or exactly one, of kind immediate, harvest or end_game."""
    for d in base.location_designs:
        assert d.ability is None or d.ability.kind in ABILITY_KINDS
        assert d.ability_kind in ABILITY_KINDS + ("none",)


def test_fog_card_10_only_harvest_abilities_have_a_cost(base):
    """FOG-CARD-10: a harvest cost exists only on Harvest abilities."""
    for d in base.location_designs:
        if d.ability and d.ability.kind != "harvest":
            assert d.ability.cost.is_free()
            assert d.harvest_cost.is_free()


def test_set_convention_construction_immediate_building_end_game(base):
    """data/FORMAT.md convention (FOG-RUL-1 archetypes): Constructions act when built, Buildings score at the end."""
    assert {d.ability_kind for d in designs(base, "Construction")} == {"immediate"}
    assert {d.ability_kind for d in designs(base, "Building")} == {"end_game"}


def test_fog_card_12_towers_and_silos_are_counts_not_cards(base):
    """FOG-CARD-11/12, FOG-RUL-1: towers and silos are identical, with no VP and no ability; the set
    only gives their counts, so no location record is a tower or silo."""
    assert all(c.pile in PILES for c in base.locations)
    assert not any(d.name.lower() in ("water tower", "silo") for d in base.location_designs)


def test_fog_rul_2_names_unique(base):
    """FOG-RUL-2: 'different equipment' is a different name, so names are unique per design."""
    names = [d.name for d in base.location_designs]
    assert len(names) == len(set(names))
    tiles = [t.name for t in base.equipment_designs]
    assert len(tiles) == len(set(tiles))


# ------------------------------------------------------------------------------------ design goals


@pytest.mark.parametrize("pile", PILES)
def test_variety_at_least_12_designs_per_pile(base, pile):
    """FOG-RUL-1 base-set goal: at least 12 distinct designs per pile."""
    assert len(designs(base, pile)) >= 12


def test_variety_at_least_15_equipment_designs(base):
    """FOG-RUL-2 base-set goal: at least 15 distinct equipment designs, on every host type."""
    assert len(base.equipment_designs) >= 15
    assert {t.host for t in base.equipment_designs} == set(HOST_TYPES)
    assert {t.timing for t in base.equipment_designs} == {"on_place", "permanent", "harvest", "end_game"}
    keywords = {t.keyword for t in base.equipment_designs}
    assert "harvest" in keywords
    assert keywords & set(SUBTYPES["Field"]) and keywords & set(SUBTYPES["Livestock"])


@pytest.mark.parametrize("pile", ["Field", "Livestock"])
def test_variety_every_subtype_in_several_designs(base, pile):
    """FOG-CARD-3/4: every sub-type appears in at least 2 designs and at least 5 physical cards."""
    per_design = Counter(d.subtype for d in designs(base, pile))
    per_card = Counter(base.locations[c].subtype for c in base.pile_cards(pile))
    for subtype in SUBTYPES[pile]:
        assert per_design[subtype] >= 2, subtype
        assert per_card[subtype] >= 5, subtype


def test_synergies_use_every_counter_and_condition(base):
    """The set rewards the farm's shape: adjacency, farm-wide, sub-type variety counters and conditions."""
    used = Counter()
    for _, op in all_ops(base):
        for counter in all_counters(op):
            used.update(k for k in counter if k != "at_least")
        used.update(k for k in op if k in ("per", "max", "if"))
    for key in ("adjacent", "farm", "distinct_subtypes", "equipment", "set_aside", "fallow", "per", "max", "if"):
        assert used[key] >= 1, key
    assert used["adjacent"] >= 10


def test_every_verb_is_used(base):
    verbs = Counter(k for _, op in all_ops(base) for k in op if k not in ("per", "max", "if"))
    assert set(verbs) == {"gain", "gain_equipment", "raise_capacity", "trade", "harvest_discount"}


def test_fog_rul_1_archetype_fields_turn_water_into_food(base):
    """FOG-RUL-1: most Fields have a harvest ability; paid Field harvests mostly cost water and give food."""
    fields = designs(base, "Field")
    harvest = [d for d in fields if d.ability_kind == "harvest"]
    assert len(harvest) >= len(fields) * 2 // 3
    paid = [d for d in harvest if not d.harvest_cost.is_free()]
    assert all(d.harvest_cost.water >= 1 for d in paid)
    food = [d for d in harvest if any("food" in op.get("gain", {}) for op in d.ability.effect)]
    assert len(food) >= len(harvest) * 2 // 3
    assert any(d.harvest_cost.is_free() for d in harvest)  # FOG-RUL-23 free harvest exists
    assert any(d.ability is None for d in fields) and any(d.ability_kind == "immediate" for d in fields)


def test_fog_rul_1_archetype_livestock_turn_food_into_coins_or_vp(base):
    """FOG-RUL-1: paid Livestock harvests cost food and give coins or VP tokens."""
    harvest = [d for d in designs(base, "Livestock") if d.ability_kind == "harvest"]
    assert len(harvest) >= 10
    for d in harvest:
        if not d.harvest_cost.is_free():
            assert d.harvest_cost.food >= 1, d.name
            gains = {r for op in d.ability.effect for r in op.get("gain", {})}
            assert gains & {"coins", "vp"}, d.name


def test_cost_and_vp_ranges(base):
    """Balance frame: coins 0-7, water 0-2, food 0-2, printed VP 0-5, and VP never above the build cost."""
    for d in base.location_designs:
        assert 0 <= d.cost.coins <= 7, d.name
        assert 0 <= d.cost.water <= 2 and 0 <= d.cost.food <= 2, d.name
        assert 0 <= d.vp <= 5, d.name
        assert d.vp <= d.cost.coins + d.cost.water + d.cost.food, d.name
        if d.ability and d.ability.kind == "harvest":
            cost = d.ability.cost
            assert cost.coins + cost.water + cost.food <= 3, d.name


def test_buildings_cost_more_than_fields_and_livestock(base):
    """Buildings are the costly end-game scorers; Fields/Livestock are the cheap engines."""

    def mean_cost(pile):
        cards = [base.locations[c] for c in base.pile_cards(pile)]
        return sum(c.cost.coins for c in cards) / len(cards)

    assert mean_cost("Building") > mean_cost("Field")
    assert mean_cost("Building") > mean_cost("Livestock")


@pytest.mark.parametrize("pile", PILES)
def test_no_design_dominates_another_with_the_same_ability(base, pile):
    """No design is a strictly better copy of another: same ability, no higher cost, no lower VP."""
    for a, b in combinations(designs(base, pile), 2):
        if a.ability != b.ability:
            continue
        for x, y in ((a, b), (b, a)):
            cheaper = x.cost.coins <= y.cost.coins and x.cost.water <= y.cost.water and x.cost.food <= y.cost.food
            assert not (cheaper and x.vp >= y.vp), f"{x.name} dominates {y.name}"


# ------------------------------------------------------------------------------------ generated text


def test_every_card_and_tile_has_text_naming_it(base):
    """Card text is generated from the records (FOG-ABIL-6) for every design."""
    for d in base.location_designs:
        text = d.text
        assert text and d.name in text and d.pile in text and f"{d.vp} VP" in text, text
        assert "None" not in text and "{" not in text, text
        assert text == card_text.location_text(d)
    for t in base.equipment_designs:
        text = t.text
        assert text and t.name in text and "None" not in text and "{" not in text, text
        assert text == card_text.equipment_text(t)


def test_text_examples(base):
    by_name = {d.name: d for d in base.location_designs}
    barley = by_name["Amberstalk Barley"]
    assert barley.text == "Amberstalk Barley (Field, cereal) — cost 2 coins — 1 VP — Harvest: pay 1 water: gain 2 food."
    hose = next(t for t in base.equipment_designs if t.name == "Seep Hose")
    assert hose.text == "Seep Hose (Field – harvest, permanent): harvest cost 1 water less."


SYNTHETIC = {
    "name": "synthetic",
    "pile_size": 1,
    "equipment_count": 6,
    "locations": {
        "Field": [
            {
                "name": "Test Field",
                "subtype": "cereal",
                "cost": {"coins": 1, "water": 2, "food": 1},
                "vp": 1,
                "ability": {
                    "kind": "harvest",
                    "cost": {},
                    "effect": [
                        {"gain": {"coins": 1}, "per": {"adjacent": {"type": "Livestock"}}, "max": 3},
                        {"gain": {"food": 1}, "if": {"adjacent": {"type": "Field"}, "at_least": 2}},
                        {"gain": {"vp": 1}, "per": {"equipment": "here"}},
                        {"trade": {"pay": {"food": 1}, "gain": {"coins": 3}, "max_times": 2}},
                        {"gain_equipment": 1, "if": {"farm": {"ability": "harvest"}, "at_least": 3}},
                    ],
                },
            }
        ],
        "Livestock": [
            {
                "name": "Test Herd",
                "subtype": "work",
                "vp": 0,
                "ability": {
                    "kind": "immediate",
                    "effect": [
                        {"raise_capacity": {"target": "silo", "by": 2}},
                        {"raise_capacity": {"target": "tower"}},
                        {"gain_equipment": 2},
                        {"gain": {"water": 1, "food": 1}, "per": {"set_aside": True}, "max": 2},
                        {"trade": {"pay": {"coins": 2}, "gain": {"vp": 1}}},
                        {"gain": {"coins": 2}, "if": {"fallow": True, "at_least": 0}},
                    ],
                },
            }
        ],
        "Construction": [{"name": "Test Shed", "cost": {"coins": 3}, "vp": 2}],
        "Building": [
            {
                "name": "Test Hall",
                "cost": {"coins": 5},
                "vp": 2,
                "ability": {
                    "kind": "end_game",
                    "effect": [
                        {"gain": {"vp": 2}, "per": {"distinct_subtypes": "Field"}},
                        {"gain": {"vp": 1}, "per": {"farm": {"subtype": "cereal"}}, "max": 4},
                        {"gain": {"vp": 1}, "per": {"fallow": True}},
                        {"gain": {"vp": 1}, "per": {"equipment": "farm"}},
                        {"gain": {"vp": 3}, "if": {"distinct_subtypes": "Livestock", "at_least": 2}},
                        {"gain": {"vp": 1}, "per": {"adjacent": {}}},
                        {"gain": {"vp": 1}, "if": {"set_aside": True}},
                        {"gain": {"vp": 1}, "if": {"equipment": "here", "at_least": 2}},
                    ],
                },
            }
        ],
    },
    "equipment": [
        {
            "name": "T Hose",
            "host": "Field",
            "keyword": "harvest",
            "timing": "permanent",
            "effect": [{"harvest_discount": {"water": 1, "food": 1}}],
        },
        {
            "name": "T Bonus",
            "host": "Livestock",
            "keyword": "harvest",
            "timing": "harvest",
            "effect": [{"gain": {"coins": 1}}],
        },
        {
            "name": "T Valve",
            "host": "WaterTower",
            "timing": "permanent",
            "effect": [{"raise_capacity": {"target": "host", "by": 2}}],
        },
        {"name": "T Bin", "host": "Silo", "timing": "on_place", "effect": [{"raise_capacity": {"target": "host"}}]},
        {
            "name": "T Flag",
            "host": "Building",
            "keyword": "end_game",
            "timing": "end_game",
            "effect": [{"gain": {"vp": 1}, "per": {"equipment": "here"}}],
        },
        {"name": "T Box", "host": "Construction", "timing": "on_place", "effect": []},
    ],
}


@pytest.fixture
def synthetic(tmp_path):
    path = tmp_path / "synthetic.yaml"
    path.write_text(yaml.safe_dump(SYNTHETIC, sort_keys=False), encoding="utf-8")
    cs = load_card_set(path)
    return {d.name: d for d in cs.location_designs} | {t.name: t for t in cs.equipment_designs}


def test_text_covers_every_verb_modifier_and_counter(synthetic):
    """card_text works on any valid set: natural phrases for every verb, modifier and counter of FORMAT.md."""
    field = synthetic["Test Field"].text
    assert field.startswith("Test Field (Field, cereal) — cost 1 coin, 2 water, 1 food — 1 VP — Harvest (free): ")
    assert "gain 1 coin per adjacent Livestock (max 3)" in field
    assert "gain 1 food if at least 2 adjacent Fields" in field
    assert "gain 1 VP token per placed equipment tile on this card" in field
    assert "you may pay 1 food to gain 3 coins, up to 2 times" in field
    assert "gain equipment (draw 3, keep 1) if your farm has at least 3 cards with a Harvest ability" in field

    herd = synthetic["Test Herd"].text
    assert "(Livestock, work) — cost nothing — 0 VP — Immediate: " in herd
    assert "one of your silos holds 2 more food" in herd
    assert "one of your water towers holds 1 more water" in herd
    assert "gain equipment 2 times" in herd
    assert "gain 1 water and 1 food per set-aside equipment tile (max 2 each)" in herd
    assert "you may pay 2 coins to gain 1 VP token, once" in herd
    assert herd.endswith("; gain 2 coins.")  # 'at least 0' always holds

    assert synthetic["Test Shed"].text == "Test Shed (Construction) — cost 3 coins — 2 VP."

    hall = synthetic["Test Hall"].text
    assert "End of game: score 2 VP per different Field sub-type in your farm" in hall
    assert "score 1 VP per cereal Field in your farm (max 4)" in hall
    assert "score 1 VP per fallow card in your farm" in hall
    assert "score 1 VP per placed equipment tile in your farm" in hall
    assert "score 3 VP if your farm has at least 2 different Livestock sub-types" in hall
    assert "score 1 VP per adjacent card" in hall
    assert "score 1 VP if you have at least 1 set-aside equipment tile" in hall
    assert "score 1 VP if this card holds at least 2 placed equipment tiles" in hall

    assert synthetic["T Hose"].text == "T Hose (Field – harvest, permanent): harvest cost 1 water and 1 food less."
    assert synthetic["T Bonus"].text == (
        "T Bonus (Livestock – harvest, harvest bonus): when its host's harvest is applied, gain 1 coin."
    )
    assert synthetic["T Valve"].text == "T Valve (Water Tower, permanent): this water tower holds 2 more water."
    assert synthetic["T Bin"].text == "T Bin (Silo, when placed): this silo holds 1 more food."
    assert synthetic["T Flag"].text == (
        "T Flag (Building – end-game, end of game): score 1 VP per placed equipment tile on its host."
    )
    assert synthetic["T Box"].text == "T Box (Construction, when placed): no effect."


def test_filter_nouns():
    assert card_text.filter_noun({}) == "card"
    assert card_text.filter_noun({"type": "any"}, 2) == "cards"
    assert card_text.filter_noun({"type": "Livestock", "subtype": "dairy"}, 2) == "dairy Livestock"
    assert card_text.filter_noun({"subtype": "work"}) == "work-animal Livestock"
    assert card_text.filter_noun({"type": "Silo"}, 3) == "Silos"
    assert card_text.filter_noun({"type": "Field", "ability": "end_game"}) == "Field with an End-game ability"


# ------------------------------------------------------------------------------------ loader errors


def write_set(tmp_path: Path, data: dict, name: str = "custom.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    with pytest.raises(CardSetError) as info:
        load_card_set(path)
    message = str(info.value)
    assert message.startswith(str(path)), message  # every message names the file first
    return message


def entry(raw: dict, pile: str, index: int) -> str:
    return f"locations.{pile}[{index}] {raw['locations'][pile][index]['name']!r}"


def test_fog_rul_1_mutated_copy_of_base_set_still_loads(tmp_path, raw_base):
    """Control for the error tests below: the dump/reload round trip itself is valid."""
    cs = load_card_set(write_set(tmp_path, copy.deepcopy(raw_base)))
    assert len(cs.locations) == 132 and len(cs.equipment) == 30


def test_error_bad_yaml(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: base\nlocations: {Field: [\n", encoding="utf-8")
    message = load_error(path)
    assert "not valid YAML" in message and "line" in message


def test_error_missing_file(tmp_path):
    path = tmp_path / "nowhere.yaml"
    message = load_error(path)
    assert "cannot read card set" in message


def test_error_unknown_key_in_entry(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Livestock"][0]["colour"] = "red"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Livestock", 0) in message
    assert "unknown key 'colour'" in message


def test_error_unknown_key_in_ability(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Field"][0]["ability"]["text"] = "gain food"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Field", 0) in message and "ability has unknown key 'text'" in message


def test_error_unknown_top_level_key(tmp_path, raw_base):
    data = copy.deepcopy(raw_base) | {"cards": []}
    message = load_error(write_set(tmp_path, data))
    assert "top level" in message and "'cards'" in message


def test_fog_card_6_error_negative_cost(tmp_path, raw_base):
    """FOG-CARD-6/7: build costs are integers >= 0."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Field"][2]["cost"]["water"] = -1
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Field", 2) in message
    assert "cost.water must be an integer >= 0, got -1" in message


def test_fog_card_8_error_vp_not_an_integer(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][1]["vp"] = "two"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Building", 1) in message and "vp must be an integer" in message


def test_fog_card_3_error_wrong_subtype(tmp_path, raw_base):
    """FOG-CARD-3, FOG-RUL-32: a Field with a Livestock sub-type is rejected."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Field"][0]["subtype"] = "dairy"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Field", 0) in message
    assert "subtype must be one of cereal, fruit, vegetable" in message and "'dairy'" in message


def test_fog_card_5_error_subtype_on_building(tmp_path, raw_base):
    """FOG-CARD-5: Buildings have no sub-type."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][0]["subtype"] = "cereal"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Building", 0) in message and "subtype must be omitted" in message


def test_fog_comp_1_error_pile_total_not_33(tmp_path, raw_base):
    """FOG-COMP-1..4: a pile whose copies do not add up to 33 is rejected, naming the pile."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Livestock"][0]["copies"] += 1
    message = load_error(write_set(tmp_path, data))
    assert "locations.Livestock copies add up to 34" in message and "33" in message


def test_fog_comp_7_error_equipment_total_not_30(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["equipment"][0]["copies"] += 1
    message = load_error(write_set(tmp_path, data))
    assert "equipment copies add up to 31, expected 30" in message


def test_fog_rul_2_error_duplicate_name(tmp_path, raw_base):
    """FOG-RUL-2: names identify designs, so a name used twice is rejected."""
    data = copy.deepcopy(raw_base)
    first = data["locations"]["Field"][0]["name"]
    data["locations"]["Field"][1]["name"] = first
    message = load_error(write_set(tmp_path, data))
    assert "locations.Field[1]" in message and "name" in message and f"{first!r} is used twice" in message


def test_fog_rul_2_error_duplicate_equipment_name(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["equipment"][1]["name"] = data["equipment"][0]["name"]
    message = load_error(write_set(tmp_path, data))
    assert "equipment[1]" in message and "is used twice" in message


def test_fog_card_9_error_two_abilities(tmp_path, raw_base):
    """FOG-CARD-9: at most one ability; a list of abilities is rejected."""
    data = copy.deepcopy(raw_base)
    ability = data["locations"]["Construction"][0]["ability"]
    data["locations"]["Construction"][0]["ability"] = [ability, ability]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Construction", 0) in message and "ability must be a mapping" in message


def test_fog_card_9_error_unknown_ability_kind(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Field"][0]["ability"]["kind"] = "passive"
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Field", 0) in message and "ability.kind must be one of" in message


def test_fog_card_10_error_cost_on_immediate_ability(tmp_path, raw_base):
    """FOG-CARD-10: only Harvest abilities carry a cost."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Construction"][0]["ability"]["cost"] = {"water": 1}
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Construction", 0) in message
    assert "ability.cost is only allowed on a harvest ability" in message


def test_fog_abil_6_error_unknown_verb(tmp_path, raw_base):
    """FOG-ABIL-6: effects use the verbs of data/FORMAT.md only."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Construction"][0]["ability"]["effect"] = [{"grow": {"food": 2}}]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Construction", 0) in message
    assert "ability.effect[0] must have exactly one verb" in message and "'grow'" in message


def test_fog_abil_3_error_verb_not_allowed_for_timing(tmp_path, raw_base):
    """FOG-ABIL-3: an End-game ability only scores VP; gaining equipment then is rejected."""
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][0]["ability"]["effect"] = [{"gain_equipment": 1}]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Building", 0) in message
    assert "ability.effect[0].gain_equipment is not allowed with timing 'end_game'" in message


def test_fog_abil_3_error_end_game_gain_of_coins(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][0]["ability"]["effect"] = [{"gain": {"coins": 2}}]
    message = load_error(write_set(tmp_path, data))
    assert (
        entry(raw_base, "Building", 0) in message and "ability.effect[0].gain has unknown resource 'coins'" in message
    )


def test_fog_equip_12_error_verb_not_allowed_for_equipment_timing(tmp_path, raw_base):
    """FOG-EQUIP-12: a permanent tile cannot gain resources."""
    data = copy.deepcopy(raw_base)
    data["equipment"][0]["timing"] = "permanent"
    data["equipment"][0]["effect"] = [{"gain": {"food": 1}}]
    message = load_error(write_set(tmp_path, data))
    assert f"equipment[0] {raw_base['equipment'][0]['name']!r}" in message
    assert "effect[0].gain is not allowed with timing 'permanent'" in message


def test_error_bad_counter(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][0]["ability"]["effect"] = [{"gain": {"vp": 1}, "per": {"neighbours": {}}}]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Building", 0) in message
    assert "ability.effect[0].per must have exactly one counter key" in message and "neighbours" in message


def test_error_bad_counter_argument(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Building"][0]["ability"]["effect"] = [
        {"gain": {"vp": 1}, "per": {"distinct_subtypes": "Building"}}
    ]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Building", 0) in message
    assert "ability.effect[0].per.distinct_subtypes must be Field or Livestock" in message


def test_error_bad_filter_in_condition(tmp_path, raw_base):
    data = copy.deepcopy(raw_base)
    data["locations"]["Livestock"][0]["ability"]["effect"] = [
        {"gain": {"coins": 1}, "if": {"adjacent": {"type": "Barn"}, "at_least": 2}}
    ]
    message = load_error(write_set(tmp_path, data))
    assert entry(raw_base, "Livestock", 0) in message
    assert "ability.effect[0].if.adjacent.type must be one of" in message and "'Barn'" in message


def test_fog_equip_5_error_keyword_not_a_host_subtype(tmp_path, raw_base):
    """FOG-EQUIP-5: a keyword is an ability kind or a sub-type of the host type."""
    data = copy.deepcopy(raw_base)
    data["equipment"][0]["host"] = "Livestock"
    data["equipment"][0]["keyword"] = "cereal"
    message = load_error(write_set(tmp_path, data))
    assert f"equipment[0] {raw_base['equipment'][0]['name']!r}" in message
    assert "keyword must be an ability kind or a Livestock sub-type" in message


def test_fog_rul_20_error_unknown_host(tmp_path, raw_base):
    """FOG-EQUIP-4, FOG-RUL-20: hosts are the four types, WaterTower or Silo."""
    data = copy.deepcopy(raw_base)
    data["equipment"][2]["host"] = "Barn"
    message = load_error(write_set(tmp_path, data))
    assert f"equipment[2] {raw_base['equipment'][2]['name']!r}" in message and "host must be one of" in message
