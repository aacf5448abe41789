"""Game facts of Fields of Green (OpenSpiel style): bounds on decisions per game and on a final score,
derived from the card set (docs/fields_of_green/env.md, "Game facts")."""

from __future__ import annotations

from .actions import MARKET_SALES
from .cards import SUBTYPES, CardSet
from .game import (
    ACTIONS_PER_GAME,
    INCOME,
    MARKET_BASE,
    MARKET_PER_FOOD,
    MAX_TILES_PER_LOCATION,
    STARTING_COINS,
    TURNS,
    YEARS,
)

ACTIONS_PER_PLAYER = ACTIONS_PER_GAME  # 24 actions A-E per player and game (FOG-ACT-1, FOG-2P-9)
HARVEST_USES = sum(TURNS * y for y in range(1, YEARS + 1))  # <= 6y harvest locations in year y: 60
FARM_CARDS_MAX = 2 + ACTIONS_PER_PLAYER  # start tower + silo, then at most one card per action
_COUNTER_MAX = {
    "adjacent": 4,  # orthogonal neighbours
    "distinct_subtypes": max(len(names) for names in SUBTYPES.values()),
    "fallow": ACTIONS_PER_PLAYER,
}
_MARKET_MAX = MARKET_BASE + MARKET_PER_FOOD * (MARKET_SALES - 1)  # coins of the best sale: 6


def _counter_max(counter: dict, tiles: int) -> int:
    """Largest value a COUNTER (data/FORMAT.md) can take on one farm."""
    if "farm" in counter:
        return FARM_CARDS_MAX
    if "equipment" in counter:
        return MAX_TILES_PER_LOCATION if counter["equipment"] == "here" else tiles
    if "set_aside" in counter:
        return tiles
    for key, value in _COUNTER_MAX.items():
        if key in counter:
            return value
    return FARM_CARDS_MAX  # unknown counter: the largest count of anything on a farm


def _effect_max(effect, tiles: int) -> dict[str, int]:
    """Upper bounds of what one application of an effect gains, and of the decisions it asks."""
    out = {"coins": 0, "water": 0, "food": 0, "vp": 0, "trade": 0, "target": 0}
    for op in effect or ():
        if "gain" in op:
            factor = _counter_max(op["per"], tiles) if "per" in op else 1
            for res, amount in op["gain"].items():
                total = amount * factor
                if op.get("max") is not None:
                    total = min(total, op["max"])
                out[res] += total
        elif "trade" in op:
            t = op["trade"]
            out["trade"] += 1
            for res, amount in t["gain"].items():
                out[res] += amount * t["max_times"]
        elif "raise_capacity" in op and op["raise_capacity"]["target"] != "host":
            out["target"] += 1
    return out


def game_bounds(cards: CardSet, num_players: int, fixed_split: bool = False) -> dict[str, float]:
    """Upper bounds on decisions per game and on a final score, for a card set (see docs/fields_of_green/env.md).

    Per player and game: 4 draw splits (none with ``fixed_split``), 24 picks, 24 actions, 24 "attach
    no more" decisions (one per build), at most ``6y + 1`` harvest decisions in year ``y`` (64), one
    ``store_water`` per water unit gained and one ``pay_water`` per water unit ever held, one option or
    target decision per trade / capacity op applied. Ability applications: at most 24 Immediate ones
    (one per build), 60 Harvest ones, 2 harvest-timed tiles per Harvest use (120), one on-place effect
    per tile. Equipment decisions are shared by all players: each ``keep`` removes a tile from the
    stack for good, so at most ``tiles`` keeps, ``tiles`` placements and ``tiles`` attachments per game.
    Gains use the largest value each counter can reach (a farm holds at most 26 cards).
    """
    tiles = len(cards.equipment)
    A = ACTIONS_PER_PLAYER
    kinds = {"immediate": [], "harvest": [], "end_game": []}
    vp_printed = 0
    for card in cards.location_designs:
        vp_printed = max(vp_printed, card.vp)
        if card.ability is not None:
            kinds[card.ability.kind].append(_effect_max(card.ability.effect, tiles))
    eq = {"place": [], "harvest": [], "end_game": []}
    for tile in cards.equipment_designs:
        key = "harvest" if tile.timing == "harvest" else "end_game" if tile.timing == "end_game" else "place"
        eq[key].append(_effect_max(tile.effect, tiles))

    def most(rows, key):
        return max((r[key] for r in rows), default=0)

    def per_player(key):
        return (
            A * most(kinds["immediate"], key)
            + HARVEST_USES * most(kinds["harvest"], key)
            + tiles * most(eq["place"], key)
            + 2 * HARVEST_USES * most(eq["harvest"], key)
        )

    water_gained = INCOME["water"] * (YEARS - 1) + per_player("water")  # income in years 2-4
    towers = min(A, max(cards.tower_count - num_players, 0))
    water_held = cards.tower_start_water * (1 + towers) + water_gained
    harvest_decisions = sum(TURNS * y + 1 for y in range(1, YEARS + 1))
    decisions = (
        (0 if fixed_split else YEARS)
        + 3 * A
        + harvest_decisions
        + water_gained
        + water_held
        + per_player("trade")
        + per_player("target")
    )
    max_decisions = num_players * decisions + 3 * tiles

    coins = STARTING_COINS + INCOME["coins"] * (YEARS - 1) + A * _MARKET_MAX + per_player("coins")
    food = 1 + INCOME["food"] * (YEARS - 1) + per_player("food")  # 1 at the start (FOG-SETUP-7)
    end_game_vp = A * most(kinds["end_game"], "vp") + tiles * max(1, most(eq["end_game"], "vp"))
    max_score = A * vp_printed + per_player("vp") + end_game_vp + coins // 3 + food // 2 + 1 + towers
    return {"max_decisions": int(max_decisions), "max_score": int(max_score)}
