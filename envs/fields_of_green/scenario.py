"""Build a Fields of Green game state from a readable description, for small explicit rule scenarios.

A rule test wants "player 0 has this farm, these coins, this picked card, and must now choose an
action" without playing a game up to that point. :func:`scenario` starts a normal :class:`Game`
(so every attribute exists and has its usual type), then overwrites the parts you describe and puts
the decision you name on top of the engine's stack. Cards and equipment tiles are *taken* from the
piles and the Equipment stack, so every physical card and tile still exists exactly once.

Example::

    from farmgames.envs.fields_of_green.scenario import scenario, at

    game = scenario(
        num_players=3,
        farm_size=5,
        legend={"B": "Amberstalk Barley"},
        farms={0: '''
            .  .  .  .  .
            .  .  B  .  .
            .  .  T2 S  .
            .  .  .  .  .
            .  .  .  .  .
        '''},                                   # a full 5x5 picture: row r, column c = cell (r, c)
        coins={0: 5}, food={0: 2},
        picks={0: "Windrow Rye"},
        decision=("act", 0),
    )
    build_here = game.layout.index("build", at(game, 1, 3))
    assert build_here in game.legal_actions()

Farm pictures
-------------
One text row per grid row, cells separated by white space:

=============  ================================================================================
token          meaning
=============  ================================================================================
``.``          empty cell
``T``          Water Tower holding the card set's start water (3); ``T2`` holds 2 water;
               ``T2/5`` holds 2 water with capacity 5 (default capacity from the card set)
``S``          Silo (default capacity); ``S/6`` a Silo of capacity 6
``X``          the location card ``legend["X"]`` (a card *name*), face up
``(X)``        the same card, fallow (face down)
=============  ================================================================================

A picture with ``farm_size`` rows and columns *is* the farm: picture row ``r``, column ``c`` is grid
cell ``(r, c)``. A smaller picture is placed so that its first ``T`` (in reading order) lies on the
centre cell ``(c, c)``, ``c = farm_size // 2``, where setup puts the starting tower (so ``"T S"`` is
exactly the starting layout of FOG-FARM-8 and ``"W T S"`` puts W at ``(c, c-1)``); a picture without
a tower is centred; ``origin`` overrides both with the grid cell of the picture's top-left token.
Every other argument addresses cells by absolute grid ``(row, col)``; :func:`at` turns that into the
engine's flat cell index. A described farm replaces the player's starting farm entirely (coins, VP
tokens and food carry over unless given); the Water Tower and Silo piles shrink by the towers and
silos that the farms hold (FOG-SETUP-5). The farm must be orthogonally connected (FOG-FARM-3).

Other arguments (all per seat ``{seat: value}`` unless noted; seats not named keep the setup value):
``coins``, ``food`` (the one food pool, FOG-RUL-11), ``vp_tokens``; ``equipment``
(``{seat: {(row, col): [tile names]}}`` placed without on-place effects, checked against
FOG-EQUIP-4..10); ``set_aside`` (tile names); ``hands`` (card names); ``picks`` (one card name);
``display`` / ``offer`` (2 players, card names, the offer's top is the last one) and ``discard`` (card
names), not per seat; ``pile_top`` (``{pile: [card names]}``, moved to the top of that main pile,
the last name on top), ``pile_sizes`` (``{pile: n}``: keep the top n cards of that pile, the rest go
to the discard pile as if played earlier) and ``stack_top`` (tile names moved to the top of the
Equipment stack, the last name on top); ``year``, ``turn``, ``first_player``, ``direction``,
``phase``, ``revealed``.

``decision`` is the frame now pending, e.g. ``("act", 0)``, ``("harvest", 1)``, ``("split", 2)``,
``("pay_water", 0, cell, 2)``, or a list of frames run first-to-last, e.g.
``[("harvest", 0), ("harvest", 1)]``; continuation frames such as ``("gain_equipment", 0, 1)`` or
``("year",)`` are allowed. When the list is used up the game is over, unless a frame such as
``("year",)`` or ``("pass_first",)`` continues it. ``decision=None`` keeps the setup stack (player
seats choosing their year-1 draw split).

The result is an ordinary game with an empty history (``record()``/``replay()`` do not rebuild a
scenario; ``clone()`` and ``to_json()``/``from_json()`` do, if the card set was given as a path).

:func:`write_card_set` writes a small synthetic card set (FOG-RUL-1 lets rule tests use them): name
the designs a test needs and the piles are filled up with plain cards.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.datafiles import dump_yaml
from .cards import PILES, CardSet
from .farm import EMPTY, SILO, TOWER, Farm
from .game import Game

__all__ = ["scenario", "at", "cells_of", "write_card_set"]

_TOWER = re.compile(r"^T(\d+)?(?:/(\d+))?$")
_SILO = re.compile(r"^S(?:/(\d+))?$")


def at(game: Game, row: int, col: int) -> int:
    """Flat cell index of grid cell (row, col) (raises ValueError outside the farm, FOG-RUL-8)."""
    return game.geometry.cell(row, col)


def cells_of(game: Game, seat: int, name: str) -> list[tuple[int, int]]:
    """Grid cells (row, col) of the seat's farm holding a card of this name (or ``"Water Tower"`` /
    ``"Silo"``), in cell order."""
    farm = game.farms[seat]
    out = []
    for cell in sorted(farm.occupied):
        code = farm.grid[cell]
        label = "Water Tower" if code == TOWER else "Silo" if code == SILO else game.cards.locations[code].name
        if label == name:
            out.append(game.geometry.row_col(cell))
    return out


class _Pool:
    """Takes physical cards and tiles by name out of the piles / Equipment stack."""

    def __init__(self, game: Game):
        self.game = game
        self.by_name: dict[str, list[int]] = {}
        for i, card in enumerate(game.cards.locations):
            self.by_name.setdefault(card.name, []).append(i)
        self.tiles_by_name: dict[str, list[int]] = {}
        for i, tile in enumerate(game.cards.equipment):
            self.tiles_by_name.setdefault(tile.name, []).append(i)

    def card(self, name: str) -> int:
        if name not in self.by_name:
            raise ValueError(f"scenario: no location card named {name!r} in card set {self.game.cards.name!r}")
        pile_index = PILES.index(self.game.cards.locations[self.by_name[name][0]].pile)
        pile = self.game.piles[pile_index]
        for card_id in self.by_name[name]:
            if card_id in pile:
                pile.remove(card_id)
                return card_id
        raise ValueError(f"scenario: every copy of {name!r} is already used")

    def tile(self, name: str) -> int:
        if name not in self.tiles_by_name:
            raise ValueError(f"scenario: no equipment tile named {name!r} in card set {self.game.cards.name!r}")
        stack = self.game.equipment_stack
        for tile_id in self.tiles_by_name[name]:
            if tile_id in stack:
                stack.remove(tile_id)
                return tile_id
        raise ValueError(f"scenario: every copy of equipment {name!r} is already used")


def _parse_picture(text: str) -> list[list[str]]:
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    if not rows:
        raise ValueError("scenario: empty farm picture")
    width = max(len(r) for r in rows)
    if any(len(r) != width for r in rows):
        raise ValueError(f"scenario: farm picture rows have different lengths: {[len(r) for r in rows]}")
    return rows


def _build_farm(game: Game, pool: _Pool, seat: int, text: str, legend: Mapping[str, str], origin) -> Farm:
    cards = game.cards
    rows = _parse_picture(text)
    size = game.geometry.size
    height, width = len(rows), len(rows[0])
    if origin is None:
        c = game.geometry.centre
        towers = [(i, j) for i, row in enumerate(rows) for j, token in enumerate(row) if _TOWER.match(token)]
        if (height, width) == (size, size):
            origin = (0, 0)
        elif towers:
            origin = (c - towers[0][0], c - towers[0][1])
        else:
            origin = (c - (height - 1) // 2, c - (width - 1) // 2)
    old = game.farms[seat]
    farm = Farm(game.geometry, game._info)
    farm.coins, farm.vp_tokens = old.coins, old.vp_tokens
    for i, row in enumerate(rows):
        for j, token in enumerate(row):
            if token == ".":
                continue
            cell = game.geometry.cell(origin[0] + i, origin[1] + j)  # raises outside the grid
            tower, silo = _TOWER.match(token), _SILO.match(token)
            if tower:
                farm.place(cell, TOWER)
                farm.tower_capacity[cell] = int(tower.group(2)) if tower.group(2) else cards.tower_capacity
                water = int(tower.group(1)) if tower.group(1) else cards.tower_start_water
                if water > farm.tower_capacity[cell]:
                    raise ValueError(f"scenario: tower {token!r} holds more water than its capacity")
                farm.tower_water[cell] = water
            elif silo:
                farm.place(cell, SILO)
                farm.silo_capacity[cell] = int(silo.group(1)) if silo.group(1) else cards.silo_capacity
            else:
                fallow = token.startswith("(") and token.endswith(")")
                key = token[1:-1] if fallow else token
                if key not in legend:
                    raise ValueError(f"scenario: farm token {token!r} is neither ., T.., S.. nor a legend key")
                farm.place(cell, pool.card(legend[key]))
                if fallow:
                    farm.fallow.add(cell)
    _check_connected(farm, seat)
    farm.food = min(old.food, farm.food_capacity)
    return farm


def _check_connected(farm: Farm, seat: int) -> None:
    if not farm.occupied:
        raise ValueError(f"scenario: farm of seat {seat} is empty")
    seen = {farm.occupied[0]}
    todo = deque(seen)
    while todo:
        for n in farm.geometry.neighbours[todo.popleft()]:
            if farm.grid[n] != EMPTY and n not in seen:
                seen.add(n)
                todo.append(n)
    if len(seen) != len(farm.occupied):
        raise ValueError(f"scenario: farm of seat {seat} is not orthogonally connected (FOG-FARM-3)")


def scenario(  # noqa: C901 - one validated step per keyword of the scenario language
    num_players: int = 3,
    *,
    seed: int = 0,
    card_set: str | Path | CardSet | None = None,
    farms: Mapping[int, str] | None = None,
    legend: Mapping[str, str] | None = None,
    origin: tuple[int, int] | None = None,
    coins: Mapping[int, int] | None = None,
    food: Mapping[int, int] | None = None,
    vp_tokens: Mapping[int, int] | None = None,
    equipment: Mapping[int, Mapping[tuple[int, int], Iterable[str]]] | None = None,
    set_aside: Mapping[int, Iterable[str]] | None = None,
    hands: Mapping[int, Iterable[str]] | None = None,
    picks: Mapping[int, str] | None = None,
    display: Iterable[str] | None = None,
    offer: Iterable[str] | None = None,
    discard: Iterable[str] | None = None,
    pile_top: Mapping[str, Iterable[str]] | None = None,
    stack_top: Iterable[str] | None = None,
    pile_sizes: Mapping[str, int] | None = None,
    year: int = 1,
    turn: int = 1,
    first_player: int = 0,
    direction: str | None = None,
    phase: str | None = None,
    revealed: bool | None = None,
    decision: tuple | list[tuple] | None = None,
    **variant: Any,
) -> Game:
    """Return a :class:`Game` in the described state (see the module docstring)."""
    game = Game(num_players=num_players, seed=seed, card_set=card_set, first_player=first_player, **variant)
    pool = _Pool(game)
    legend = dict(legend or {})
    for key in legend:
        if key == "." or _TOWER.match(key) or _SILO.match(key) or "(" in key:
            raise ValueError(f"scenario: legend key {key!r} looks like an empty cell, tower, silo or fallow mark")

    for seat, text in (farms or {}).items():
        game.farms[seat] = _build_farm(game, pool, seat, text, legend, origin)
    game.towers_left = game.cards.tower_count - sum(len(f.tower_water) for f in game.farms)
    game.silos_left = game.cards.silo_count - sum(len(f.silo_capacity) for f in game.farms)
    if game.towers_left < 0 or game.silos_left < 0:
        raise ValueError("scenario: the farms hold more towers or silos than the card set has")

    for seat, value in (coins or {}).items():
        game.farms[seat].coins = value
    for seat, value in (vp_tokens or {}).items():
        game.farms[seat].vp_tokens = value
    for seat, value in (food or {}).items():
        farm = game.farms[seat]
        if value > farm.food_capacity:
            raise ValueError(f"scenario: seat {seat} food {value} exceeds silo capacity {farm.food_capacity}")
        farm.food = value

    for seat, by_cell in (equipment or {}).items():
        farm = game.farms[seat]
        for (row, col), names in by_cell.items():
            cell = at(game, row, col)
            for name in names:
                tile_id = pool.tile(name)
                if not game._tile_fits(farm, game.cards.equipment[tile_id], cell):
                    raise ValueError(f"scenario: equipment {name!r} cannot lie on ({row},{col}) (FOG-EQUIP-4..10)")
                farm.equipment.setdefault(cell, []).append(tile_id)
    for seat, names in (set_aside or {}).items():
        game.farms[seat].set_aside = [pool.tile(n) for n in names]

    for seat, names in (hands or {}).items():
        game.hands[seat] = sorted(pool.card(n) for n in names)
    for seat, name in (picks or {}).items():
        game.picks[seat] = pool.card(name)
    if display is not None:
        game.display = sorted(pool.card(n) for n in display)
    if offer is not None:
        game.offer = [pool.card(n) for n in offer]
    if discard is not None:
        game.discard = [pool.card(n) for n in discard]

    for pile, names in (pile_top or {}).items():
        ids = [pool.card(n) for n in names]
        game.piles[PILES.index(pile)].extend(ids)
    if stack_top is not None:
        ids = [pool.tile(n) for n in stack_top]
        game.equipment_stack.extend(ids)
    for pile, size in (pile_sizes or {}).items():
        cards = game.piles[PILES.index(pile)]
        cut = max(len(cards) - size, 0)
        game.discard.extend(cards[:cut])  # as if drawn and discarded earlier; every card stays counted
        del cards[:cut]

    game.year, game.turn = year, turn
    game.direction = direction or game.pass_directions[year - 1]
    if decision is not None:
        frames = [decision] if isinstance(decision, tuple) else list(decision)
        game._stack = [tuple(f) for f in reversed(frames)]
        first = frames[0][0] if frames else None
        if phase is None:
            phase = {"split": "draw", "harvest": "harvest"}.get(first, "action" if first in ("pick", "act") else None)
        if revealed is None:
            revealed = first == "act" and num_players > 2
    if phase is not None:
        game.phase = phase
    if revealed is not None:
        game.revealed = revealed
    game.history = []
    game._legal = None
    game._advance()
    return game


def write_card_set(
    directory: str | Path,
    *,
    locations: Mapping[str, list[dict]] | None = None,
    equipment: list[dict] | None = None,
    pile_size: int = 6,
    towers: Mapping[str, int] | None = None,
    silos: Mapping[str, int] | None = None,
    name: str = "synthetic",
) -> Path:
    """Write a small card set YAML (data/FORMAT.md) into ``directory`` and return its path.

    ``locations`` maps a pile name to card entries as in the format (``copies`` defaults to 1); each
    pile is filled up to ``pile_size`` with ``Plain <Pile>`` cards (cost 0, 0 VP, no ability; Fields are
    cereal, Livestock dairy). ``equipment`` lists tile entries; ``equipment_count`` is their copies.
    """
    piles: dict[str, list[dict]] = {}
    for pile in PILES:
        entries = [dict(e) for e in (locations or {}).get(pile, [])]
        used = sum(e.get("copies", 1) for e in entries)
        if used > pile_size:
            raise ValueError(f"write_card_set: {pile} has {used} cards, more than pile_size {pile_size}")
        if used < pile_size:
            plain: dict[str, Any] = {"name": f"Plain {pile}", "copies": pile_size - used}
            if pile == "Field":
                plain["subtype"] = "cereal"
            elif pile == "Livestock":
                plain["subtype"] = "dairy"
            entries.append(plain)
        piles[pile] = entries
    tiles = [dict(e) for e in (equipment or [])]
    data = {
        "name": name,
        "towers": dict(towers or {"count": 20, "capacity": 3, "start_water": 3}),
        "silos": dict(silos or {"count": 14, "capacity": 4}),
        "pile_size": pile_size,
        "equipment_count": sum(t.get("copies", 1) for t in tiles),
        "locations": piles,
        "equipment": tiles,
    }
    path = Path(directory) / f"{name}.yaml"
    path.write_text(dump_yaml(data), encoding="utf-8")  # no aliases: the loader refuses them
    return path
