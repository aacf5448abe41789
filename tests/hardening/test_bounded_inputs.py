"""Bounded inputs: YAML size, alias expansion, depth and numbers; an upper bound on every card-set number
(issue 12: "Data that exhausts memory"), and no silent coercion of engine keywords and actions."""

from __future__ import annotations

import copy
import math
import time

import numpy as np
import pytest
import yaml

from farmgames.envs.core.datafiles import (
    MAX_BYTES,
    DataFileError,
    dump_yaml,
    load_yaml,
    load_yaml_text,
    read_text_bounded,
)
from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.fields_of_green.cards import DEFAULT_CARD_SET, LIMITS, CardSetError, load_card_set
from farmgames.envs.fields_of_green.game import Game

BASE = yaml.safe_load(DEFAULT_CARD_SET.read_text(encoding="utf-8"))


def _billion_laughs() -> str:
    """~19 KB of nested aliases: 10**9 leaves once expanded (the issue's file)."""
    lines = ["a: &a [" + ", ".join(["lol"] * 10) + "]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    lines.append("locations: {Field: *i}")
    text = "\n".join(lines) + "\n"
    return text + "# " + "padding " * ((19_000 - len(text)) // 8) + "\n"


def test_nested_aliases_are_refused_quickly(tmp_path):
    text = _billion_laughs()
    assert 18_000 < len(text) < 20_000
    path = tmp_path / "lol.yaml"
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(CardSetError, match="once aliases are expanded"):
        load_card_set(path)
    assert time.perf_counter() - start < 2


def test_recursive_alias_is_refused():
    with pytest.raises(DataFileError, match="contains it"):
        load_yaml_text("a: &a [1, *a]\n", "r.yaml")


def test_ordinary_anchors_still_load():
    """PyYAML's own safe_dump writes anchors for shared objects: such a card set still loads."""
    data = copy.deepcopy(BASE)
    shared = {"kind": "immediate", "effect": [{"gain": {"coins": 1}}]}
    data["locations"]["Construction"][0]["ability"] = shared
    data["locations"]["Construction"][1]["ability"] = shared
    text = yaml.safe_dump(data, sort_keys=False)
    assert "&id001" in text
    assert load_yaml_text(text, "anchors.yaml") == load_yaml_text(dump_yaml(data), "plain.yaml")
    assert "&" not in dump_yaml(data).split("name:")[0]


def test_deep_nesting_and_huge_numbers_are_refused():
    with pytest.raises(DataFileError, match="nested deeper"):
        load_yaml_text("a: " + "[" * 5000 + "]" * 5000, "deep.yaml")
    with pytest.raises(DataFileError, match="outside"):
        load_yaml_text("pile_size: " + "9" * 400, "big.yaml")
    with pytest.raises(DataFileError, match="finite"):
        load_yaml_text("vp: .inf", "inf.yaml")
    with pytest.raises(DataFileError, match="larger than"):
        load_yaml_text("a: " + "x" * (MAX_BYTES + 1), "large.yaml")


def test_file_reads_are_bounded(tmp_path):
    with pytest.raises(DataFileError, match="not a regular file"):
        read_text_bounded("/dev/zero")
    with pytest.raises(DataFileError, match="not a regular file"):
        load_card_set("/dev/urandom")
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(MAX_BYTES + 10)
    with pytest.raises(CardSetError, match="larger than"):
        load_card_set(big)
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(DataFileError, match="UTF-8"):
        load_yaml(bad)


def _write(tmp_path, data) -> str:
    path = tmp_path / "set.yaml"
    path.write_text(dump_yaml(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.__setitem__("pile_size", 10**6), "pile_size"),
        (lambda d: d.__setitem__("equipment_count", 5000), "equipment_count"),
        (lambda d: d["towers"].__setitem__("count", 10**5), "towers.count"),
        (lambda d: d["silos"].__setitem__("capacity", 10**5), "silos.capacity"),
        (lambda d: d["towers"].__setitem__("capacity", 51), "towers.capacity"),
        (lambda d: d["locations"]["Field"][0].__setitem__("copies", 10**7), "copies"),
        (lambda d: d["locations"]["Field"][0].__setitem__("vp", 10**6), "vp"),
        (lambda d: d["locations"]["Field"][0]["cost"].__setitem__("coins", 500), "cost.coins"),
        (lambda d: d["equipment"][0].__setitem__("copies", 10**6), "copies"),
        (lambda d: d["locations"]["Field"][0].__setitem__("name", "W" * 500), "name"),
    ],
)
def test_every_card_set_number_has_an_upper_bound(tmp_path, edit, field):
    data = copy.deepcopy(BASE)
    edit(data)
    with pytest.raises(CardSetError) as err:
        load_card_set(_write(tmp_path, data))
    assert field in str(err.value)
    assert "at most" in str(err.value) or "must" in str(err.value)


def test_effect_amounts_have_an_upper_bound(tmp_path):
    data = copy.deepcopy(BASE)
    for pile in data["locations"].values():
        for card in pile:
            ability = card.get("ability")
            if ability and ability["effect"] and "gain" in ability["effect"][0]:
                resource = next(iter(ability["effect"][0]["gain"]))
                ability["effect"][0]["gain"][resource] = 10**8
                with pytest.raises(
                    CardSetError,
                    match=rf"ability\.effect\[0\]\.gain\.{resource} must be at most "
                    rf"{LIMITS['amount']}",
                ):
                    load_card_set(_write(tmp_path, data))
                return
    raise AssertionError("the base set has a gain ability")


def test_base_set_is_within_the_limits():
    cards = load_card_set()
    assert cards.pile_size <= LIMITS["pile_size"] and len(cards.equipment) <= LIMITS["equipment_count"]
    assert len(cards.sha256) == 64 and cards.text == DEFAULT_CARD_SET.read_text(encoding="utf-8")


# ---- engine keywords and actions: refused, never coerced


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        ({"seed": -1}, ["seed", "-1"]),
        ({"seed": 1.0}, ["seed", "1.0"]),
        ({"seed": True}, ["seed", "True"]),
        ({"first_player": True}, ["first_player", "True"]),
        ({"first_player": 1.0}, ["first_player", "1.0"]),
        ({"auto_single": "no"}, ["auto_single", "'no'"]),
        ({"auto_single": 1}, ["auto_single", "1"]),
        ({"fixed_split": {1.5: (2, 2, 1, 1), 2: (2, 2, 1, 1), 3: (2, 2, 1, 1), 4: (2, 2, 1, 1)}}, ["year", "1.5"]),
        ({"fixed_split": {True: (2, 2, 1, 1)}}, ["year", "True"]),
        ({"fixed_split": {1: (2.0, 2, 1, 1)}}, ["fixed_split[1]", "2.0"]),
        ({"fixed_split": [1, 2]}, ["fixed_split", "mapping"]),
        ({"pass_directions": "clockwise"}, ["pass_directions", "'clockwise'"]),
        ({"card_set": 3}, ["card_set", "3"]),
        ({"card_set": "missing.yaml"}, ["missing.yaml", "cannot read"]),
    ],
)
def test_engine_keywords_are_checked_not_coerced(keywords, words):
    with pytest.raises(ValueError) as err:
        Game(num_players=2, **keywords)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("action", [float("inf"), float("nan"), 38.9, 38.0, "38", np.float32(38.5), True, None, [38]])
def test_apply_refuses_non_integers(action):
    game = Game(num_players=2, seed=0)
    before = game.to_json()
    with pytest.raises(IllegalActionError, match="integer"):
        game.apply(action)
    assert game.to_json() == before
    assert not (isinstance(action, float) and math.isnan(action) and game.history)
