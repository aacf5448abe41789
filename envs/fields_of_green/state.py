"""Reading a Fields of Green state (``Game.from_json``) with every invariant the engine relies on checked.

A state file is data someone may have edited. Before the engine sees it, this module checks: the format
and pins (card-set hash, versions); the player count of every per-seat list; every location card, every
equipment tile, every Water Tower and every Silo in exactly one place (FOG-COMP); each card in its own
pile; each farm's grid, occupied cells, frontier (FOG-FARM-3..7), towers and silos with their water and
capacities, food within the silos' capacity (FOG-STORE), equipment on matching hosts, at most two per
location with distinct names (FOG-EQUIP-4..6/10); resources within bounds; every decision frame's
shape, seat, cell and card, and the pending decision consistent with the phase. The first violation is a
:class:`~farmgames.envs.core.statecheck.StateError` (a ``ValueError``) naming the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.datafiles import DataFileError, DataText, load_json_text
from ..core.records import PACKAGE, package_version
from ..core.seeding import MAX_SEED
from ..core.statecheck import StateError, StateReader, check_int, check_ints, check_list, check_unique, exactly_once
from .cards import LIMITS, PILES
from .farm import EMPTY, SILO, TOWER

if TYPE_CHECKING:
    from .game import Game

MAX_RESOURCE = 10**6  # coins, VP tokens: far above any real game (a game ends after 24 actions a player)
MAX_CAPACITY = 10**4  # tower/silo capacity after raise_capacity abilities
MAX_HISTORY = 100_000
MAX_FRAMES = 500
VARIANT_KEYS = ("farm_size", "card_set", "fixed_split", "pass_directions", "first_player", "auto_single")
PHASES = ("setup", "upkeep", "draw", "action", "harvest", "end")

# frame kind -> its arguments after the name (see game.Game._run / _apply)
FRAMES: dict[str, tuple[str, ...]] = {
    **{
        k: ()
        for k in ("year", "income", "draw", "draw_done", "actions", "reveal", "end_turn", "harvest_phase", "pass_first")
    },
    **{k: ("seat",) for k in ("income_for", "split", "draw_fixed", "pick", "act", "harvest", "harvest_close")},
    "turn": ("turn",),
    "turn2": ("turn2",),
    "after_turn2": ("turn2",),
    "finish_build": ("seat", "card", "cell"),
    "immediate": ("seat", "cell"),
    "finish_harvest": ("seat", "cell"),
    "ops": ("seat", "cell", "effect", "index"),
    "gain_equipment": ("seat", "times"),
    "pay_water": ("seat", "cell", "count"),
    "store_water": ("seat", "count"),
    "keep_equipment": ("seat", "tiles"),
    "place_equipment": ("seat", "tile"),
    "attach": ("seat", "cell"),
    "ability_target": ("seat", "target", "by"),
    "ability_option": ("seat", "cell", "pay", "gain", "times"),
}
# decisions that resolve a step at once (water, equipment, ability choices): only ever the top frame
SUB_DECISIONS = frozenset(
    {"pay_water", "store_water", "keep_equipment", "place_equipment", "ability_target", "ability_option"}
)
# the phases in which a pending decision of each kind can happen (stores and equipment: any phase)
DECISION_PHASES: dict[str, tuple[str, ...]] = {
    "split": ("draw",),
    "pick": ("action",),
    "act": ("action",),
    "harvest": ("harvest",),
}


def game_from_json(cls: type[Game], text: str | bytes) -> Game:
    """The game a state JSON describes, or StateError naming the first broken invariant."""
    try:
        data = load_json_text(text, "Fields of Green state")
    except DataFileError as exc:
        raise StateError(str(exc)) from None
    from .game import STATE_FORMAT

    top = StateReader(data, "state file")
    if top.raw("format") != STATE_FORMAT:
        raise StateError(f"state file: format must be {STATE_FORMAT!r}, got {top.raw('format')!r}")
    st = top.child("state")
    game = _new_game(cls, st, data.get("files"))
    _check_pins(data.get("pins"), game)
    _Loader(game, st).load()
    return game


def _new_game(cls: type[Game], st: StateReader, files: Any) -> Game:
    n = st.integer("num_players", 2, 4)
    seed = st.integer("seed", 0, MAX_SEED)
    variant = dict(st.child("variant").data)
    unknown = [k for k in variant if k not in VARIANT_KEYS]
    if unknown:
        raise StateError(f"state.variant: unknown keyword {unknown[0]!r} (allowed: {', '.join(VARIANT_KEYS)})")
    variant = {k: v for k, v in variant.items() if v is not None}
    if files is not None:
        if not isinstance(files, dict) or not isinstance(files.get("card_set", ""), str):
            raise StateError("state file: 'files' must be an object {'card_set': the card set's YAML text}")
        if "card_set" in files:
            variant["card_set"] = DataText(str(variant.get("card_set", "<state files.card_set>")), files["card_set"])
    try:
        return cls(num_players=n, seed=seed, **variant)
    except (TypeError, ValueError) as exc:
        raise StateError(f"state.variant: {exc}") from None


def _check_pins(pins: Any, game: Game) -> None:
    if pins is None:
        return  # a state of an older release
    from .game import ENV_NAME

    p = StateReader(pins, "state file pins")
    if p.data.get("env", ENV_NAME) != ENV_NAME:
        raise StateError(f"state is pinned to env {p.data['env']!r}, this is {ENV_NAME!r}")
    version = p.data.get(PACKAGE, package_version())
    if version != package_version():
        raise StateError(f"state is pinned to {PACKAGE} {version!r}, this is {PACKAGE} {package_version()}")
    want = p.data.get("data", {}).get("card_set") if isinstance(p.data.get("data"), dict) else None
    if want is not None and want != game.cards.sha256:
        raise StateError(
            f"state pins card_set sha256 {want}, but the card set loaded now ({game.cards.path}) has sha256 "
            f"{game.cards.sha256}: the file changed since the state was saved"
        )


class _Loader:
    """Reads the state's fields into ``game``, checking each; ``load`` then checks the cross-invariants."""

    def __init__(self, game: Game, st: StateReader):
        self.game, self.st = game, st
        self.n = game.num_players
        self.cards = len(game.cards.locations)
        self.tiles = len(game.cards.equipment)
        self.cells = game.geometry.cells

    def card_ids(self, key: str, max_length: int | None = None) -> list[int]:
        return self.st.integers(key, 0, self.cards - 1, max_length=max_length)

    def load(self) -> None:
        g, st, n = self.game, self.st, self.n
        from .game import HAND_SIZE, TURNS, YEARS

        piles = st.items("piles", length=len(PILES))
        g.piles = [check_ints(p, f"state.piles[{i}]", 0, self.cards - 1) for i, p in enumerate(piles)]
        for i, pile in enumerate(g.piles):
            for card in pile:
                if g.cards.locations[card].pile != PILES[i]:
                    raise StateError(
                        f"state.piles[{i}]: card {card} is a {g.cards.locations[card].pile}, not a {PILES[i]}"
                    )
        g.equipment_stack = st.integers("equipment_stack", 0, max(self.tiles - 1, 0), max_length=self.tiles)
        g.first_player = st.integer("first_player", 0, n - 1)
        keys = st.items("offer_keys", length=YEARS)
        for y, row in enumerate(keys):
            for i, k in enumerate(check_list(row, f"state.offer_keys[{y}]", length=2 * HAND_SIZE)):
                if isinstance(k, bool) or not isinstance(k, (int, float)) or not 0 <= k < 1:
                    raise StateError(f"state.offer_keys[{y}][{i}] must be a number in [0, 1), got {k!r}")
        g._offer_keys = keys
        g.towers_left = st.integer("towers_left", 0, g.cards.tower_count)
        g.silos_left = st.integer("silos_left", 0, g.cards.silo_count)
        farms = st.items("farms", length=n)
        for p, farm in enumerate(g.farms):
            self.farm(p, farm, StateReader(farms[p], f"state.farms[{p}]"))
        g.year = st.integer("year", 0, YEARS)
        g.turn = st.integer("turn", 0, 2 * TURNS)
        g.phase = st.choice("phase", PHASES)
        g.direction = st.choice("direction", ("clockwise", "counterclockwise"))
        hands = st.items("hands", length=n)
        g.hands = [
            check_ints(h, f"state.hands[{p}]", 0, self.cards - 1, max_length=HAND_SIZE) for p, h in enumerate(hands)
        ]
        picks = st.items("picks", length=n)
        for p, pick in enumerate(picks):
            if pick is not None:
                check_int(pick, f"state.picks[{p}]", 0, self.cards - 1)
        g.picks = picks
        g.revealed = st.flag("revealed")
        g.offer = self.card_ids("offer", max_length=4 * 2 * HAND_SIZE)
        g.display = self.card_ids("display", max_length=HAND_SIZE)
        counts = st.items("draw_counts", length=n)
        g.draw_counts = [check_ints(c, f"state.draw_counts[{p}]", 0, HAND_SIZE, length=4) for p, c in enumerate(counts)]
        g.discard = self.card_ids("discard")
        g.removed_equipment = st.integers("removed_equipment", 0, max(self.tiles - 1, 0), max_length=self.tiles)
        harvested = st.integers("harvested", 0, self.cells - 1)
        check_unique(harvested, "state.harvested")
        g.harvested = set(harvested)
        g.history = st.integers("history", 0, g.layout.size - 1, max_length=MAX_HISTORY)
        frames = st.items("stack", max_length=MAX_FRAMES)
        g._stack = [self.frame(i, f) for i, f in enumerate(frames)]
        g._legal = None
        self.components()
        self.decision()

    # ---- one farm

    def farm(self, p: int, farm: Any, f: StateReader) -> None:
        g = self.game
        grid = f.integers("grid", SILO, self.cards - 1, length=self.cells)
        occupied = f.integers("occupied", 0, self.cells - 1)
        check_unique(occupied, f.at("occupied"))
        if set(occupied) != {c for c, code in enumerate(grid) if code != EMPTY}:
            raise StateError(f"{f.at('occupied')} must list exactly the cells of the grid that hold a card")
        fallow = f.integers("fallow", 0, self.cells - 1)
        check_unique(fallow, f.at("fallow"))
        for cell in fallow:
            if grid[cell] < 0:
                raise StateError(f"{f.at('fallow')}: cell {cell} holds no location card (only locations turn fallow)")
        frontier = f.integers("frontier", 0, self.cells - 1)
        neighbours = g.geometry.neighbours
        want = {m for c in occupied for m in neighbours[c] if grid[m] == EMPTY}
        if set(frontier) != want or len(frontier) != len(want):
            raise StateError(
                f"{f.at('frontier')} must be the empty cells next to the farm (FOG-FARM-3), got {frontier}"
            )
        towers = [c for c, code in enumerate(grid) if code == TOWER]
        silos = [c for c, code in enumerate(grid) if code == SILO]
        capacity = self.cell_map(f, "tower_capacity", towers, 1, MAX_CAPACITY)
        water = self.cell_map(f, "tower_water", towers, 0, MAX_CAPACITY)
        for cell, amount in water.items():
            if amount > capacity[cell]:
                raise StateError(
                    f"{f.at('tower_water')}: tower {cell} holds {amount}, over its capacity {capacity[cell]}"
                )
        silo_capacity = self.cell_map(f, "silo_capacity", silos, 1, MAX_CAPACITY)
        food = f.integer("food", 0, sum(silo_capacity.values()))
        equipment = self.equipment(f, grid, set(fallow))
        farm.grid, farm.occupied, farm.fallow, farm.frontier = list(grid), list(occupied), set(fallow), set(frontier)
        farm.tower_capacity, farm.tower_water, farm.silo_capacity = capacity, water, silo_capacity
        farm.food = food
        farm.coins = f.integer("coins", 0, MAX_RESOURCE)
        farm.vp_tokens = f.integer("vp_tokens", 0, MAX_RESOURCE)
        farm.equipment = equipment
        farm.set_aside = f.integers("set_aside", 0, max(self.tiles - 1, 0), max_length=self.tiles)
        from .game import TURNS, YEARS

        farm.actions_taken = f.integer("actions_taken", 0, YEARS * TURNS)  # one action A-E a turn (FOG-ACT-1)

    def cell_map(self, f: StateReader, key: str, cells: list[int], low: int, high: int) -> dict[int, int]:
        pairs = f.items(key, length=len(cells))
        out: dict[int, int] = {}
        for i, pair in enumerate(pairs):
            check_list(pair, f"{f.at(key)}[{i}]", length=2)
            cell = check_int(pair[0], f"{f.at(key)}[{i}][0]", 0, self.cells - 1)
            out[cell] = check_int(pair[1], f"{f.at(key)}[{i}][1]", low, high)
        if sorted(out) != cells:
            raise StateError(
                f"{f.at(key)} must have one entry per structure on the grid (cells {cells}), got {sorted(out)}"
            )
        return out

    def equipment(self, f: StateReader, grid: list[int], fallow: set[int]) -> dict[int, list[int]]:
        from .game import MAX_TILES_PER_LOCATION

        g = self.game
        out: dict[int, list[int]] = {}
        for i, pair in enumerate(f.items("equipment", max_length=self.cells)):
            at = f"{f.at('equipment')}[{i}]"
            check_list(pair, at, length=2)
            cell = check_int(pair[0], f"{at}[0]", 0, self.cells - 1)
            tiles = check_ints(pair[1], f"{at}[1]", 0, max(self.tiles - 1, 0), max_length=MAX_TILES_PER_LOCATION)
            if cell in out or not tiles:
                raise StateError(f"{at}: cell {cell} is listed twice or with no tiles")
            code = grid[cell]
            if code == EMPTY or cell in fallow:
                raise StateError(f"{at}: equipment on cell {cell}, which holds no face-up card (FOG-EQUIP-4)")
            names = [g.cards.equipment[t].name for t in tiles]
            if len(set(names)) != len(names):
                raise StateError(f"{at}: two tiles of the same name on one location (FOG-EQUIP-10)")
            for t in tiles:
                tile = g.cards.equipment[t]
                host = "WaterTower" if code == TOWER else "Silo" if code == SILO else g.cards.locations[code].pile
                card = g.cards.locations[code] if code >= 0 else None
                keyword_ok = tile.keyword is None or (
                    card is not None and tile.keyword in (card.subtype, card.ability_kind)
                )
                if tile.host != host or not keyword_ok:
                    raise StateError(f"{at}: tile {t} ({tile.name}) cannot lie on a {host} (FOG-EQUIP-4/5)")
            out[cell] = list(tiles)
        return out

    # ---- frames

    def frame(self, i: int, item: Any) -> tuple:
        at = f"state.stack[{i}]"
        check_list(item, at)
        if not item or not isinstance(item[0], str) or item[0] not in FRAMES:
            raise StateError(f"{at} must start with a frame name ({', '.join(sorted(FRAMES))}), got {item[:1]!r}")
        kind, args = item[0], FRAMES[item[0]]
        if len(item) != len(args) + 1:
            raise StateError(
                f"{at}: a {kind!r} frame has {len(args)} arguments ({', '.join(args) or 'none'}), got {len(item) - 1}"
            )
        out: list[Any] = [kind]
        seat = None
        for name, value in zip(args, item[1:]):
            value = self.argument(f"{at} {kind} {name}", name, value, seat)
            if name == "seat":
                seat = value
            out.append(value)
        frame = tuple(out)
        self.frame_semantics(at, frame)
        return frame

    def argument(self, at: str, name: str, value: Any, seat: int | None) -> Any:
        from .game import TURNS

        top = LIMITS["amount"]
        if name == "seat":
            return check_int(value, at, 0, self.n - 1)
        if name in ("cell",):
            return check_int(value, at, 0, self.cells - 1)
        if name == "card":
            return check_int(value, at, 0, self.cards - 1)
        if name == "tile":
            return check_int(value, at, 0, self.tiles - 1)
        if name == "tiles":
            return tuple(check_ints(value, at, 0, self.tiles - 1, max_length=3)) or self.fail(at, "lists no tiles")
        if name == "turn":
            return check_int(value, at, 1, TURNS)
        if name == "turn2":
            return check_int(value, at, 0, 2 * TURNS - 1)
        if name in ("times", "count", "by"):
            return check_int(value, at, 1, top)
        if name == "index":
            return check_int(value, at, 0, top)
        if name == "target":
            if value not in ("tower", "silo"):
                raise StateError(f"{at} must be 'tower' or 'silo', got {value!r}")
            return value
        if name == "effect":
            return self.known_effect(at, value)
        return value  # pay, gain: checked with the whole frame

    def known_effect(self, at: str, value: Any) -> tuple:
        """An effect must be one the card set defines (the engine runs its operations)."""
        ops = tuple(check_list(value, at, max_length=64))
        for effect in self.effects():
            if effect == ops:
                return effect
        raise StateError(f"{at} is not the effect of any card or tile of this card set")

    def effects(self) -> list[tuple]:
        cards = self.game.cards
        out = [c.ability.effect for c in cards.location_designs if c.ability is not None]
        return out + [t.effect for t in cards.equipment_designs if t.effect]

    def fail(self, at: str, problem: str) -> Any:
        raise StateError(f"{at} {problem}")

    def frame_semantics(self, at: str, frame: tuple) -> None:  # noqa: C901 - one case per frame kind
        g = self.game
        kind = frame[0]
        farm = g.farms[frame[1]] if FRAMES[kind][:1] == ("seat",) else None
        if kind == "finish_build":
            if g.picks[frame[1]] != frame[2] or farm.grid[frame[3]] != EMPTY:
                raise StateError(
                    f"{at}: builds card {frame[2]} on cell {frame[3]}, but that is not the seat's pick "
                    "or the cell is not empty"
                )
        elif kind in ("immediate", "finish_harvest"):
            code = farm.grid[frame[2]]
            if code < 0 or (kind == "finish_harvest" and g.cards.locations[code].ability_kind != "harvest"):
                raise StateError(f"{at}: cell {frame[2]} holds no location with that ability")
        elif kind == "ops":
            cell, effect, index = frame[2], frame[3], frame[4]
            code = farm.grid[cell]
            mine = [g.cards.locations[code].ability.effect] if code >= 0 and g.cards.locations[code].ability else []
            mine += [g.cards.equipment[t].effect for t in farm.equipment.get(cell, ())]
            if effect not in mine or index >= len(effect):
                raise StateError(f"{at}: the effect is not that of the card or a tile on cell {cell}")
        elif kind == "attach":
            if farm.grid[frame[2]] == EMPTY:
                raise StateError(f"{at}: cell {frame[2]} is empty")
        elif kind == "ability_option":
            trades = [op["trade"] for e in self.effects() for op in e if "trade" in op]
            wanted = {"pay": frame[3], "gain": frame[4], "max_times": frame[5]}
            if wanted not in trades or farm.grid[frame[2]] < 0:
                raise StateError(f"{at}: not a trade of a card of this card set on a location")
        elif kind == "pay_water":
            if frame[3] > farm.water_in_range(frame[2]):
                raise StateError(f"{at}: {frame[3]} water to pay, but only {farm.water_in_range(frame[2])} in range")

    # ---- cross-checks

    def components(self) -> None:
        g = self.game
        places: dict[str, list[int]] = {f"state.piles[{i}]": pile for i, pile in enumerate(g.piles)}
        places.update({f"state.hands[{p}]": h for p, h in enumerate(g.hands)})
        places["state.picks"] = [c for c in g.picks if c is not None]
        places.update({"state.offer": g.offer, "state.display": g.display, "state.discard": g.discard})
        for p, farm in enumerate(g.farms):
            places[f"state.farms[{p}].grid"] = [c for c in farm.grid if c >= 0]
        exactly_once(places, self.cards, "location card")
        tiles: dict[str, list[int]] = {
            "state.equipment_stack": g.equipment_stack,
            "state.removed_equipment": g.removed_equipment,
        }
        for p, farm in enumerate(g.farms):
            tiles[f"state.farms[{p}].equipment"] = [t for ts in farm.equipment.values() for t in ts]
            tiles[f"state.farms[{p}].set_aside"] = farm.set_aside
        tiles["state.stack (drawn tiles)"] = g.pending_equipment()
        exactly_once(tiles, self.tiles, "equipment tile")
        for what, left, count, code in (
            ("Water Tower", g.towers_left, g.cards.tower_count, TOWER),
            ("Silo", g.silos_left, g.cards.silo_count, SILO),
        ):
            placed = sum(farm.grid.count(code) for farm in g.farms)
            if left + placed != count:
                raise StateError(
                    f"{placed} {what}s on the farms and {left} left make {left + placed}, the card set has "
                    f"{count} (each {what} in exactly one place)"
                )
        if g.two_player and any(g.hands):
            raise StateError("state.hands must be empty with 2 players (cards are picked from the display, FOG-2P-6)")
        if not g.two_player and (g.offer or g.display):
            raise StateError("state.offer and state.display must be empty with 3-4 players (FOG-2P-2 is 2-player only)")
        if g.two_player:
            self.offer_fits()

    def offer_fits(self) -> None:
        """FOG-2P-3: the offer is shuffled with one key per position (2 x 6 a year), so when a draw ends the
        offer must fit them. Walks the frames in the order the engine will run them (expanding the phase
        frames as ``Game._run`` does, to the end of the game), with 6 cards per draw at most, 6 turned up
        at the end of a draw and 2 refilled after each pair of turns (FOG-2P-2..8)."""
        from .game import HAND_SIZE, TURNS, YEARS

        g = self.game
        offer, year = len(g.offer), g.year
        todo: list[Any] = [f[0] if f[0] != "after_turn2" else ("after_turn2", f[1] % 2) for f in reversed(g._stack)]
        steps = 0
        while todo and steps < 10_000:
            steps += 1
            kind = todo.pop(0)
            if kind in ("split", "draw_fixed"):
                offer += HAND_SIZE
            elif kind == "draw_done":
                if offer > 2 * HAND_SIZE:
                    raise StateError(
                        f"state.offer holds {len(g.offer)} cards: with the draws and refills still to come it would "
                        f"hold {offer} when a draw ends, more than its {2 * HAND_SIZE} places (FOG-2P-3)"
                    )
                offer -= min(HAND_SIZE, offer)
            elif kind == ("after_turn2", 1):
                offer -= min(2, offer)
            elif kind == "draw":
                todo[:0] = ["split"] * self.n + ["draw_done"]
            elif kind == "actions":
                todo[:0] = [("after_turn2", i % 2) for i in range(2 * TURNS)]
            elif kind == "year" and year < YEARS:
                year += 1
                todo[:0] = ["draw", "actions", "harvest_phase"]
            elif kind == "harvest_phase":
                todo.insert(0, "pass_first")
            elif kind == "pass_first":
                todo.insert(0, "year")

    def decision(self) -> None:
        """The top frame is the pending decision, one the engine could have stopped at, in its phase."""
        from .game import DECISIONS, YEARS

        g = self.game
        if not g._stack:
            if g.phase != "end":  # (a rule scenario may end a game early: any year)
                raise StateError(f"state.stack is empty (the game is over) but phase is {g.phase!r}, not 'end'")
            return
        frame = g._stack[-1]
        kind, seat = frame[0], frame[1] if len(frame) > 1 else None
        if kind not in DECISIONS:
            raise StateError(f"state.stack: the top frame {kind!r} is not a decision (the engine stops only at one)")
        for i, below in enumerate(g._stack[:-1]):
            if below[0] in SUB_DECISIONS:  # they resolve at once: the engine never leaves one under another frame
                raise StateError(f"state.stack[{i}]: a {below[0]!r} decision can only be the pending (top) frame")
        if g.phase not in DECISION_PHASES.get(kind, ("upkeep", "draw", "action", "harvest")):
            raise StateError(f"state.stack: a {kind!r} decision cannot be pending in phase {g.phase!r}")
        if g.year < 1:
            raise StateError(f"state.year must be 1..{YEARS} while the game runs, got {g.year}")
        source = g.display if g.two_player else g.hands[seat]
        if kind == "pick" and not source:
            raise StateError(f"state.stack: seat {seat} must pick, but has no cards to pick from")
        if kind == "act" and g.picks[seat] is None:
            raise StateError(f"state.stack: seat {seat} must act, but has no picked card (state.picks[{seat}])")
        if kind == "place_equipment" and frame[2] in g.farms[seat].set_aside:
            raise StateError("state.stack: the tile to place is also set aside")
        try:
            legal = g.legal_actions()
        except (IndexError, KeyError, TypeError, ValueError) as exc:  # a combination no check above names
            raise StateError(
                f"state.stack: the pending {kind!r} decision of seat {seat} is inconsistent ({exc!r})"
            ) from None
        if not legal:
            raise StateError(f"state.stack: the pending {kind!r} decision of seat {seat} has no legal action")


__all__ = ["FRAMES", "MAX_RESOURCE", "StateError", "game_from_json"]
