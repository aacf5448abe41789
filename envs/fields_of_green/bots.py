"""Built-in bots for Fields of Green: a uniform random legal bot and a rules-aware heuristic bot.

Pure Python over the engine's public API (no gymnasium / pettingzoo imports), so the environments,
the training code, the balance report and the benchmarks all share these players.

    >>> from farmgames.envs.fields_of_green import Game
    >>> from farmgames.envs.fields_of_green.bots import make_bot, play_game
    >>> game = play_game([make_bot("heuristic", seed=1), make_bot("random", seed=2)], seed=0)
    >>> game.is_terminal()
    True

``HeuristicBot`` is documented in ``docs/bots.md``. In short it is a greedy one-step lookahead:
for a meaningful choice (the card pick and the action after the reveal) it clones the game once per
candidate action, applies it, resolves the rest of that action (water payment, attachments, card
choices) with its cheap sub-policies, and scores the result with a *projection*: the player's farm is
played forward through every remaining Harvest phase (with income, water range, silo capacity and
fallow risk, no further builds), then counted like the final score with fractional coins and food,
plus a year-dependent bonus for coins that future builds can still spend. Cheap analytic estimates
prune the candidate cells and guide the draw split; small rule-based policies handle harvest order,
water payment and storage, equipment and card-ability choices.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from . import effects
from .actions import SPLITS
from .farm import EMPTY, TOWER, Farm

__all__ = ["BOTS", "Bot", "HeuristicBot", "HeuristicWeights", "RandomBot", "make_bot", "play_game"]

YEARS = 4
ACTIONS_PER_GAME = 24  # 6 actions in each of 4 years (FOG-ACT-1, FOG-2P-9)
INCOME = {"coins": 3, "water": 2, "food": 1}  # FOG-UPKEEP-4, years 2..4


class Bot:
    """A player: ``act(game)`` returns a legal action for ``game.current_player``."""

    name = "bot"

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.rng = random.Random(self.seed)

    def act(self, game) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, game) -> int:
        return self.act(game)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(Bot):
    """Uniform over the legal actions, from its own seeded ``random.Random``."""

    name = "random"

    def act(self, game) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return legal[0]
        return self.rng.choice(legal)


# --------------------------------------------------------------------------------------------
# The heuristic bot


@dataclass(frozen=True)
class HeuristicWeights:
    """The numbers behind ``HeuristicBot`` (VP units). Per-year tuples are indexed by year - 1."""

    # static resource values, used to rank harvest orders, trades, equipment and cheap estimates
    coin: tuple[float, ...] = (0.6, 0.55, 0.45, 0.34)
    food: tuple[float, ...] = (0.6, 0.6, 0.55, 0.5)
    water: tuple[float, ...] = (0.45, 0.45, 0.35, 0.15)
    equipment_draw: float = 1.4  # value of one pending "gain equipment" (draw 3, keep 1)
    # projection: coins the player can still spend on builds are worth more than their 1/3 VP
    spend_bonus: float = 0.0  # extra VP per spendable coin, up to the coins future builds need
    coins_per_action: float = 3.5  # coins a future build needs on average
    water_bonus: tuple[float, ...] = (0.25, 0.2, 0.12, 0.0)  # per stored water (first 4) for future fields
    food_bonus: tuple[float, ...] = (0.15, 0.12, 0.08, 0.0)  # per stored food for future livestock
    tower_bonus: tuple[float, ...] = (0.6, 0.35, 0.15, 0.0)  # a tower with water also opens water range
    adjacency_potential: float = 0.35  # per free neighbour cell an adjacency scorer may still fill
    # search breadth
    build_cells: int = 3  # best cells (by the cheap estimate) fully evaluated for the picked card
    pick_cells: int = 3  # same, for each card in hand when choosing the pick
    structure_cells: int = 2  # same for towers and silos
    deny: float = 0.1  # pick: weight of the card's value to the player who receives the hand
    noise: float = 0.02  # tie-breaking jitter from the bot's seeded RNG


def _clip_year(year: int) -> int:
    return min(max(year, 1), YEARS) - 1


class _Model:
    """Per card set: card and tile records flattened for speed."""

    def __init__(self, cards):
        self.cards = cards
        self.locs = cards.locations
        self.tiles = cards.equipment
        self.global_ops: list[bool] = []  # ability uses farm-wide counters (farm / distinct_subtypes)
        self.adjacent_ops: list[bool] = []  # ability uses adjacency counters
        self.adjacent_max: list[int] = []  # how many more neighbours such an ability may reward
        for card in self.locs:
            ops = card.ability.effect if card.ability else ()
            g = a = False
            most = 0
            for op in ops:
                for key in ("per", "if"):
                    counter = op.get(key)
                    if counter:
                        if "farm" in counter or "distinct_subtypes" in counter or "fallow" in counter:
                            g = True
                        if "adjacent" in counter:
                            a = True
                            if key == "per":
                                most += op.get("max", 4)
                            else:
                                most += counter.get("at_least", 1)
            self.global_ops.append(g)
            self.adjacent_ops.append(a)
            self.adjacent_max.append(min(most, 4))
        self.pile_cards = {pile: cards.pile_cards(pile) for pile in ("Field", "Livestock", "Construction", "Building")}
        self.any_neighbour_tiles = {i for i, t in enumerate(self.tiles) if t.timing in ("end_game", "harvest")}


@dataclass
class _Ctx:
    """Per-decision context: the deciding seat, the year and its resource values."""

    year: int
    harvests: int  # Harvest phases still ahead whose income a new location would see
    coin: float
    food: float
    water: float
    eq: float

    def value(self, amounts: dict) -> float:
        return (
            amounts.get("coins", 0) * self.coin + amounts.get("food", 0) * self.food
            + amounts.get("water", 0) * self.water + amounts.get("vp", 0)
        )


class HeuristicBot(Bot):
    """Greedy one-step lookahead over a projected value of the player's farm (see module docstring
    and docs/bots.md). Deterministic for a given seed; ``weights`` overrides the numbers."""

    name = "heuristic"

    def __init__(self, seed: int = 0, weights: HeuristicWeights | None = None, **overrides):
        super().__init__(seed)
        self.w = replace(weights or HeuristicWeights(), **overrides) if overrides else (weights or HeuristicWeights())
        self._model: _Model | None = None
        self._cost_memo: tuple[Farm, dict] | None = None

    # ------------------------------------------------------------------ entry point

    def act(self, game) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return legal[0]
        if self._model is None or self._model.cards is not game.cards:
            self._model = _Model(game.cards)
        kind = game.decision_kind
        handler = getattr(self, "_decide_" + kind, None)
        choice = handler(game, legal) if handler else None
        return choice if choice in legal else legal[0]

    # ------------------------------------------------------------------ context and small helpers

    def _ctx(self, game, p: int) -> _Ctx:
        y = _clip_year(game.year)
        harvests = YEARS - game.year + (0 if game.phase == "harvest" else 1)
        w = self.w
        return _Ctx(game.year, max(harvests, 0), w.coin[y], w.food[y], w.water[y], w.equipment_draw)

    def _jitter(self) -> float:
        return self.rng.random() * self.w.noise

    def _harvest_cost(self, farm: Farm, cell: int) -> tuple[int, int, int]:
        """Harvest cost after permanent equipment discounts (as Game.harvest_cost, on any farm).
        Inside ``_value`` the projected farm's costs are memoised (its equipment only ever leaves
        with a fallow location, which is not harvested again)."""
        memo = self._cost_memo
        if memo is not None and memo[0] is farm:
            hit = memo[1].get(cell)
            if hit is None:
                hit = memo[1][cell] = self._harvest_cost_now(farm, cell)
            return hit
        return self._harvest_cost_now(farm, cell)

    def _harvest_cost_now(self, farm: Farm, cell: int) -> tuple[int, int, int]:
        cost = self._model.locs[farm.grid[cell]].harvest_cost
        coins, water, food = cost.coins, cost.water, cost.food
        for tile_id in farm.equipment.get(cell, ()):
            tile = self._model.tiles[tile_id]
            if tile.timing == "permanent":
                for op in tile.effect:
                    d = op.get("harvest_discount")
                    if d:
                        coins -= d.get("coins", 0)
                        water -= d.get("water", 0)
                        food -= d.get("food", 0)
        return max(coins, 0), max(water, 0), max(food, 0)

    def _ops_value(self, farm: Farm, cell: int, ops: Sequence[dict], ctx: _Ctx, vp_only: bool = False) -> float:
        """Static value of applying ``ops`` for the card at ``cell`` (no state change)."""
        total = 0.0
        for op in ops:
            if "gain" in op:
                amounts = effects.gain_amounts(farm, cell, op)
                total += amounts.get("vp", 0) if vp_only else ctx.value(amounts)
            elif vp_only or not effects.condition_holds(farm, cell, op):
                continue
            elif "gain_equipment" in op:
                total += op["gain_equipment"] * ctx.eq
            elif "raise_capacity" in op:
                total += 0.25 * op["raise_capacity"]["by"]
            elif "trade" in op:
                t = op["trade"]
                net = ctx.value(t["gain"]) - ctx.value(t["pay"])
                if net > 0:
                    times = t["max_times"]
                    pay = t["pay"]
                    if pay.get("coins"):
                        times = min(times, farm.coins // pay["coins"])
                    if pay.get("food"):
                        times = min(times, farm.food // pay["food"])
                    total += net * max(times, 0)
        return total

    def _tower_demand(self, farm: Farm, tower: int, skip: int = -1, paid: set | None = None) -> int:
        """Water that face-up harvest locations in range of ``tower`` still ask for."""
        need = 0
        locs = self._model.locs
        for cell in farm.occupied:
            code = farm.grid[cell]
            if code < 0 or cell == skip or cell in farm.fallow or (paid and cell in paid):
                continue
            if locs[code].ability_kind == "harvest" and farm.tower_in_range(tower, cell):
                w = self._harvest_cost(farm, cell)[1]
                need += w
        return need

    # ------------------------------------------------------------------ cheap estimates

    def _quick_build(self, farm: Farm, card: int, cell: int, ctx: _Ctx) -> float:
        """Cheap estimate (VP) of building ``card`` at ``cell``: printed VP, its ability at that cell,
        what it adds to its neighbours' adjacency abilities, water range for a harvest water cost,
        and the free neighbours an adjacency scorer can still fill; minus the build cost. The card is
        placed on the grid temporarily. Farm-wide abilities do not depend on the cell: see
        ``_global_delta``."""
        m = self._model
        rec = m.locs[card]
        before = self._neighbour_scores(farm, cell, ctx)
        grid = farm.grid
        grid[cell] = card
        farm.occupied.append(cell)
        try:
            value = float(rec.vp)
            ability = rec.ability
            if ability is not None:
                if ability.kind == "end_game":
                    value += self._ops_value(farm, cell, ability.effect, ctx, vp_only=True)
                elif ability.kind == "immediate":
                    value += self._ops_value(farm, cell, ability.effect, ctx)
                else:
                    coins, water, food = self._harvest_cost(farm, cell)
                    per = self._ops_value(farm, cell, ability.effect, ctx) - (
                        coins * ctx.coin + water * ctx.water + food * ctx.food)
                    if water and not any(farm.tower_in_range(t, cell) for t in farm.tower_water):
                        value = -0.5  # no tower in range: it would turn fallow at the harvest
                    else:
                        value += max(per, -0.5) * ctx.harvests
                if m.adjacent_ops[card]:
                    free = sum(1 for n in farm.geometry.neighbours[cell] if grid[n] == EMPTY)
                    value += self.w.adjacency_potential * min(free, m.adjacent_max[card]) * (ctx.harvests / 4)
            after = self._neighbour_scores(farm, cell, ctx)
        finally:
            farm.occupied.pop()
            grid[cell] = EMPTY
        cost = rec.cost
        return value + after - before - cost.coins * ctx.coin - cost.water * ctx.water - cost.food * ctx.food

    def _ability_score(self, farm: Farm, n: int, ctx: _Ctx) -> float:
        m = self._model
        total = 0.0
        ab = m.locs[farm.grid[n]].ability
        if ab is not None and ab.kind != "immediate":
            if ab.kind == "end_game":
                total += self._ops_value(farm, n, ab.effect, ctx, vp_only=True)
            else:
                total += self._ops_value(farm, n, ab.effect, ctx) * ctx.harvests
        for tile_id in farm.equipment.get(n, ()):
            tile = m.tiles[tile_id]
            if tile.timing == "end_game":
                total += self._ops_value(farm, n, tile.effect, ctx, vp_only=True)
        return total

    def _neighbour_scores(self, farm: Farm, cell: int, ctx: _Ctx) -> float:
        """Value of the abilities of the face-up locations next to ``cell`` (they may count it)."""
        m = self._model
        grid = farm.grid
        total = 0.0
        for n in farm.geometry.neighbours[cell]:
            code = grid[n]
            if code >= 0 and n not in farm.fallow and (m.adjacent_ops[code] or n in farm.equipment):
                total += self._ability_score(farm, n, ctx)
        return total

    def _global_delta(self, farm: Farm, card: int, cell: int, ctx: _Ctx) -> float:
        """What placing ``card`` adds to farm-wide abilities of the other locations (counts of a type,
        distinct sub-types); the same for every cell."""
        m = self._model
        cells = [c for c in farm.occupied if farm.grid[c] >= 0 and m.global_ops[farm.grid[c]] and c not in farm.fallow]
        if not cells:
            return 0.0
        before = sum(self._ability_score(farm, c, ctx) for c in cells)
        farm.grid[cell] = card
        farm.occupied.append(cell)
        try:
            after = sum(self._ability_score(farm, c, ctx) for c in cells)
        finally:
            farm.occupied.pop()
            farm.grid[cell] = EMPTY
        return after - before

    def _quick_structure(self, farm: Farm, kind: str, cell: int) -> float:
        """Rank cells for a tower (water range over thirsty locations and free cells) or a silo
        (keep the cells next to cards free for adjacency scorers)."""
        grid = farm.grid
        if kind == "tower":
            score = 0.0
            for c in farm.occupied:
                code = grid[c]
                if code >= 0 and c not in farm.fallow and farm.tower_in_range(cell, c):
                    if self._harvest_cost(farm, c)[1]:
                        score += 2.0
            for c in farm.frontier:
                if c != cell and farm.tower_in_range(cell, c):
                    score += 0.3
            return score
        occupied = sum(1 for n in farm.geometry.neighbours[cell] if grid[n] != EMPTY)
        return -occupied

    # ------------------------------------------------------------------ projection (the state value)

    def _value(self, game, p: int, pending_equipment: int = 0) -> float:
        """Projected final score (VP, fractional) of seat ``p`` if it built nothing more: the farm is
        played through the remaining Harvest phases with income; plus the spend bonus for coins,
        water and food that future actions can still use."""
        if game.is_terminal():
            s = game.scores()[p]
            return s.total + 0.01 * s.locations + 0.001 * s.coins_held
        farm = game.farms[p]
        f = farm.clone()
        self._cost_memo = (f, {})
        try:
            return self._project(game, p, farm, f, pending_equipment)
        finally:
            self._cost_memo = None

    def _project(self, game, p: int, farm: Farm, f: Farm, pending_equipment: int) -> float:
        w = self.w
        y = _clip_year(game.year)
        extra = pending_equipment * w.equipment_draw
        spendable = f.coins
        start = game.year if game.phase != "harvest" else game.year + 1
        ctx = self._ctx(game, p)
        for yy in range(start, YEARS + 1):
            if yy > game.year:
                f.coins += INCOME["coins"]
                f.gain_food(INCOME["food"])
                self._store_water_sim(f, INCOME["water"])
                if yy <= YEARS:
                    spendable += INCOME["coins"]
            before = f.coins
            extra += self._sim_harvest(f, ctx)
            if yy < YEARS:
                spendable += max(f.coins - before, 0)
        remaining_actions = ACTIONS_PER_GAME - farm.actions_taken
        need = remaining_actions * w.coins_per_action
        value = self._final_value(f) + extra
        value += w.spend_bonus * min(spendable, need)
        if remaining_actions > 0:
            value += w.water_bonus[y] * min(farm.water, 4) + w.food_bonus[y] * min(farm.food, 4)
            towers = sum(1 for t, wt in farm.tower_water.items() if wt)
            value += w.tower_bonus[y] * min(towers, 3)
        return value

    def _final_value(self, f: Farm) -> float:
        """FOG-END-3..8 on a farm, with fractional coins and food (as scoring.score_farm)."""
        m = self._model
        total = float(f.vp_tokens) + len(f.set_aside)
        for cell in f.occupied:
            code = f.grid[cell]
            if code < 0 or cell in f.fallow:
                continue
            rec = m.locs[code]
            total += rec.vp
            if rec.ability is not None and rec.ability.kind == "end_game":
                for op in rec.ability.effect:
                    total += effects.gain_amounts(f, cell, op).get("vp", 0)
        for cell, tiles in f.equipment.items():
            for tile_id in tiles:
                tile = m.tiles[tile_id]
                if tile.timing == "end_game":
                    for op in tile.effect:
                        total += effects.gain_amounts(f, cell, op).get("vp", 0)
        total += f.coins / 3 + f.food / 2
        total += sum(1 for c, wt in f.tower_water.items() if wt == 0 and f.grid[c] == TOWER)
        return total

    def _store_water_sim(self, f: Farm, amount: int) -> None:
        demand: dict[int, int] = {}
        for _ in range(amount):
            rooms = f.towers_with_room()
            if not rooms:
                return
            for t in rooms:
                if t not in demand:
                    demand[t] = self._tower_demand(f, t)
            best = max(rooms, key=lambda t: (demand[t] - f.tower_water[t], -t))
            f.tower_water[best] += 1

    def _harvest_order_key(self, f: Farm, cell: int, ctx: _Ctx, consumers_ready: bool) -> float:
        """Priority of paying a harvest location next (higher first): free abilities and food
        producers before food consumers, unless the food would overflow while a consumer can eat."""
        rec = self._model.locs[f.grid[cell]]
        coins, water, food = self._harvest_cost(f, cell)
        gain_food = 0
        for op in rec.ability.effect:
            if "gain" in op:
                gain_food += effects.gain_amounts(f, cell, op).get("food", 0)
        overflow = f.food - food + gain_food > f.food_capacity
        if gain_food > food:
            if overflow and consumers_ready:
                return 5.0
            return (100.0 if not (coins or water or food) else 60.0) + gain_food
        if not (coins or water or food):
            return 90.0
        if food:
            return 20.0 + self._ops_value(f, cell, rec.ability.effect, ctx) / food
        return 40.0

    def _sim_harvest(self, f: Farm, ctx: _Ctx) -> float:
        """Play one Harvest phase on farm ``f`` with the harvest policy; unpaid locations turn fallow.
        Returns side value (equipment draws) not visible on the farm. Order as ``_decide_harvest``:
        free abilities and food producers first, consumers after; a producer whose food would
        overflow waits while food is there for consumers; then a second pass for what is left."""
        m = self._model
        locs = m.locs
        plan = []
        memo = self._cost_memo[1] if self._cost_memo is not None and self._cost_memo[0] is f else None
        for c in f.occupied:
            code = f.grid[c]
            if code < 0 or c in f.fallow:
                continue
            rec = locs[code]
            if rec.ability_kind != "harvest":
                continue
            if memo is not None:  # the order of later projected harvests reuses the first one's
                item = memo.get(-1 - c)
                if item is not None:
                    plan.append(item)
                    continue
            cost = self._harvest_cost(f, c)
            ops = rec.ability.effect
            tiles = f.equipment.get(c)
            if tiles:
                ops = list(ops)
                for tile_id in tiles:
                    if m.tiles[tile_id].timing == "harvest":
                        ops.extend(m.tiles[tile_id].effect)
            food_gain = 0
            for op in ops:
                if "gain" in op:
                    food_gain += effects.gain_amounts(f, c, op).get("food", 0)
            if food_gain > cost[2]:
                prio = (100.0 if not any(cost) else 60.0) + food_gain
            elif not any(cost):
                prio = 90.0
            elif cost[2]:
                prio = 20.0 + self._ops_value(f, c, ops, ctx) / cost[2]
            else:
                prio = 40.0
            plan.append((-prio, c, cost, ops, food_gain))
            if memo is not None:
                memo[-1 - c] = plan[-1]
        if not plan:
            return 0.0
        plan.sort()
        extra = 0.0
        consumers = sum(1 for item in plan if item[2][2])
        waiting = []
        for item in plan:
            _, c, cost, ops, food_gain = item
            if food_gain > cost[2] and consumers and f.food - cost[2] + food_gain > f.food_capacity and f.food:
                waiting.append(item)
                continue
            if self._sim_pay(f, c, cost):
                extra += self._sim_ops(f, c, ops, ctx)
                if cost[2]:
                    consumers -= 1
            else:
                waiting.append(item)
        for item in waiting:
            _, c, cost, ops, _ = item
            if self._sim_pay(f, c, cost):
                extra += self._sim_ops(f, c, ops, ctx)
            else:  # FOG-HARVEST-5: unpaid -> fallow, equipment lost
                f.fallow.add(c)
                f.equipment.pop(c, None)
        return extra

    def _sim_pay(self, f: Farm, cell: int, cost: tuple[int, int, int]) -> bool:
        coins, water, food = cost
        if f.coins < coins or f.food < food:
            return False
        if water:
            towers = [t for t, wt in f.tower_water.items() if wt and f.tower_in_range(t, cell)]
            if sum(f.tower_water[t] for t in towers) < water:
                return False
            for _ in range(water):
                t = max(towers, key=lambda t: (f.tower_water[t], -t))
                f.tower_water[t] -= 1
        f.coins -= coins
        f.food -= food
        return True

    def _sim_ops(self, f: Farm, cell: int, ops: Sequence[dict], ctx: _Ctx) -> float:
        extra = 0.0
        for op in ops:
            if "gain" in op:
                a = effects.gain_amounts(f, cell, op)
                f.coins += a.get("coins", 0)
                f.vp_tokens += a.get("vp", 0)
                if a.get("food"):
                    f.gain_food(a["food"])
                if a.get("water"):
                    self._store_water_sim(f, a["water"])
            elif not effects.condition_holds(f, cell, op):
                continue
            elif "gain_equipment" in op:
                extra += op["gain_equipment"] * ctx.eq
            elif "raise_capacity" in op:
                target = op["raise_capacity"]["target"]
                pool = f.silo_capacity if target == "silo" else f.tower_capacity
                if pool:
                    pool[min(pool)] += op["raise_capacity"]["by"]
            elif "trade" in op:
                times = self._trade_times(f, op["trade"], ctx)
                t = op["trade"]
                f.coins -= t["pay"].get("coins", 0) * times
                f.food -= t["pay"].get("food", 0) * times
                g = t["gain"]
                f.coins += g.get("coins", 0) * times
                f.vp_tokens += g.get("vp", 0) * times
                if g.get("food"):
                    f.gain_food(g["food"] * times)
                if g.get("water"):
                    self._store_water_sim(f, g["water"] * times)
        return extra

    def _trade_times(self, f: Farm, trade: dict, ctx: _Ctx, options: Sequence[int] | None = None) -> int:
        """Best number of trades by static values, limited by what can be paid and stored."""
        pay, gain = trade["pay"], trade["gain"]
        best, best_value = 0, 0.0
        for k in options if options is not None else range(trade["max_times"] + 1):
            if f.coins < pay.get("coins", 0) * k or f.food < pay.get("food", 0) * k:
                continue
            food_in = gain.get("food", 0) * k
            room = f.food_capacity - f.food + pay.get("food", 0) * k
            stored_food = min(food_in, room)
            got = dict(gain)
            value = k * (ctx.value({r: v for r, v in got.items() if r != "food"}) - ctx.value(pay))
            value += stored_food * ctx.food
            if value > best_value + 1e-9:
                best, best_value = k, value
        return best

    # ------------------------------------------------------------------ lookahead helpers

    SUB_DECISIONS = ("pay_water", "store_water", "attach", "ability_target", "ability_option", "place_equipment")

    def _resolve_own(self, game, p: int) -> int:
        """Finish the current action of seat ``p`` on a clone with the cheap sub-policies; returns
        the number of equipment draws left pending (their tiles are hidden, so they are not looked at)."""
        pending = 0
        guard = 0
        while not game.is_terminal() and game.current_player == p and guard < 64:
            guard += 1
            kind = game.decision_kind
            if kind == "keep_equipment":
                # value the draw without peeking at the hidden tiles; later draws are pending frames
                pending += 1 + sum(f[2] for f in game._stack if f[0] == "gain_equipment" and f[1] == p)
                break
            if kind not in self.SUB_DECISIONS:
                break
            legal = game.legal_actions()
            action = legal[0] if len(legal) == 1 else getattr(self, "_decide_" + kind)(game, legal)
            game.apply(action)
        return pending

    def _evaluate(self, game, p: int, action: int) -> float:
        g = game.clone()
        g.apply(action)
        pending = self._resolve_own(g, p)
        return self._value(g, p, pending)

    def _act_candidates(self, game, p: int, legal: Sequence[int], card: int | None, cells: int | None = None) -> list[int]:
        """Prune the act decision: best cells by the cheap estimates, every market and restore."""
        layout = game.layout
        farm = game.farms[p]
        ctx = self._ctx(game, p)
        builds, towers, silos, others = [], [], [], []
        for a in legal:
            kind, arg = layout.decode(a)
            if kind == "build":
                builds.append((self._quick_build(farm, card, arg, ctx), a))
            elif kind == "tower":
                towers.append((self._quick_structure(farm, "tower", arg), a))
            elif kind == "silo":
                silos.append((self._quick_structure(farm, "silo", arg), a))
            else:
                others.append(a)
        out = list(others)
        build_cells = self.w.build_cells if cells is None else cells
        for group, n in ((builds, build_cells), (towers, self.w.structure_cells), (silos, self.w.structure_cells)):
            group.sort(key=lambda t: (-t[0], t[1]))
            out += [a for _, a in group[:n]]
        return out

    def _best_act(self, game, p: int, legal: Sequence[int]) -> tuple[int, float, dict]:
        card = game.picks[p]
        values = {}
        for a in self._act_candidates(game, p, legal, card):
            values[a] = self._evaluate(game, p, a) + self._jitter()
        best = max(values, key=lambda a: (values[a], -a))
        return best, values[best], values

    # ------------------------------------------------------------------ decisions

    def _decide_act(self, game, legal):
        return self._best_act(game, game.current_player, legal)[0]

    def _decide_pick(self, game, legal):
        """Evaluate the best action reachable with each card (build at the best cells, or any of the
        card-independent actions), then take the best card; among equals, deny the card the player
        receiving the hand values most."""
        p = game.current_player
        source = game.display if game.two_player else game.hands[p]
        layout = game.layout
        results: dict[int, float] = {}
        alternative = None  # best value of actions that do not depend on the card
        seen: dict[int, float] = {}
        for a in legal:
            slot = layout.decode(a)[1]
            card = source[slot]
            design = game.cards.locations[card].design
            if design in seen:
                results[a] = seen[design]
                continue
            g = self._hypothetical_act(game, p, a)
            if g is None:  # the engine's frames changed: fall back to the cheap estimate
                ctx = self._ctx(game, p)
                results[a] = seen[design] = self._quick_card(game.farms[p], card, ctx)
                continue
            act_legal = g.legal_actions()
            build_actions = [x for x in act_legal if layout.decode(x)[0] == "build"]
            if alternative is None:
                other = [x for x in act_legal if layout.decode(x)[0] != "build"]
                alternative = max(self._evaluate(g, p, x) for x in self._act_candidates(g, p, other, card)) if other else -1e9
            value = alternative
            if build_actions:
                candidates = self._act_candidates(g, p, build_actions, card, self.w.pick_cells)
                value = max(value, max(self._evaluate(g, p, x) for x in candidates))
            seen[design] = value
            results[a] = value
        if self.w.deny and not game.two_player:
            receiver = self._receiver(game, p)
            if receiver is not None:
                ctx = self._ctx(game, receiver)
                farm = game.farms[receiver]
                for a in results:
                    card = source[layout.decode(a)[1]]
                    results[a] += self.w.deny * max(0.0, self._quick_card(farm, card, ctx))
        for a in results:
            results[a] += self._jitter()
        return max(results, key=lambda a: (results[a], -a))

    @staticmethod
    def _hypothetical_act(game, p: int, pick_action: int):
        """A clone where seat ``p`` has picked and must now choose its action with that card. With 2
        players the act follows the pick at once; with 3-4 players the other picks and the reveal
        come first, so the clone gets an ``("act", p)`` decision frame on top (engine internals:
        returns None if that does not give seat ``p``'s act decision)."""
        g = game.clone()
        g.apply(pick_action)
        if g.current_player == p and g.decision_kind == "act":
            return g
        try:
            g._stack.append(("act", p))
            g._legal = None
            if g.current_player == p and g.decision_kind == "act" and g.legal_actions():
                return g
        except Exception:  # pragma: no cover - only if the engine's internals change
            pass
        return None

    def _receiver(self, game, p: int) -> int | None:
        if game.turn >= 6:
            return None
        step = 1 if game.direction == "clockwise" else -1
        return (p + step) % game.num_players

    def _quick_card(self, farm: Farm, card: int, ctx: _Ctx, cells: int = 4) -> float:
        """Cheap value of a card on a farm: best of a few frontier cells (no cost-legality check
        beyond coins and water range)."""
        rec = self._model.locs[card]
        frontier = sorted(farm.frontier)
        if rec.cost.water:
            frontier = [c for c in frontier if farm.water_in_range(c) >= rec.cost.water]
        if not frontier:
            return 0.0
        if len(frontier) > cells:
            grid = farm.grid
            frontier.sort(key=lambda c: -sum(1 for n in farm.geometry.neighbours[c] if grid[n] != EMPTY))
            frontier = frontier[:cells]
        best = max(self._quick_build(farm, card, c, ctx) for c in frontier)
        best += self._global_delta(farm, card, frontier[0], ctx)
        if farm.coins < rec.cost.coins or farm.food < rec.cost.food:
            best -= 1.0
        return best

    def _decide_split(self, game, legal):
        """Desirability of each pile = mean of its designs' two best cheap values for this farm,
        weighted by copies; the split maximises sum(d_pile * (1 + 0.75 + 0.75^2 ...)) over the
        legal splits, so the draw leans to good piles but still spreads (FOG-DRAW-3)."""
        p = game.current_player
        farm = game.farms[p]
        ctx = self._ctx(game, p)
        m = self._model
        sizes = [len(pile) for pile in game.piles]
        desirability = []
        for i, pile in enumerate(("Field", "Livestock", "Construction", "Building")):
            if not sizes[i]:
                desirability.append(0.0)
                continue
            values = {}
            for card in m.pile_cards[pile]:
                d = m.locs[card].design
                if d not in values:
                    values[d] = (self._quick_card(farm, card, ctx, cells=3), m.locs[card].copies)
            total = sum(c for _, c in values.values())
            desirability.append(sum(max(v, 0.0) * c for v, c in values.values()) / total)
        layout = game.layout
        best, best_value = legal[0], -1e18
        for a in legal:
            split = SPLITS[layout.decode(a)[1]]
            value = sum(desirability[i] * (1 - 0.75 ** split[i]) / 0.25 for i in range(4)) + self._jitter()
            if value > best_value:
                best, best_value = a, value
        return best

    def _decide_harvest(self, game, legal):
        """Pay every payable location, producers before consumers, free ones first, avoiding food
        overflow when a consumer can eat first; end the harvest when nothing is payable."""
        p = game.current_player
        farm = game.farms[p]
        ctx = self._ctx(game, p)
        layout = game.layout
        cells = [layout.decode(a)[1] for a in legal if layout.decode(a)[0] == "harvest"]
        if not cells:
            return layout.HARVEST_END
        consumers = any(self._harvest_cost(farm, c)[2] for c in cells)
        cell = max(cells, key=lambda c: (self._harvest_order_key(farm, c, ctx, consumers), -c))
        return layout.HARVEST + cell

    def _decide_pay_water(self, game, legal):
        """Pay from the tower with the most water to spare after the other thirsty locations in its
        range; in the final harvest, prefer emptying a tower (1 VP each, FOG-END-7)."""
        p = game.current_player
        farm = game.farms[p]
        target = game.decision[2]
        paid = game.harvested if game.phase == "harvest" else None
        final = game.phase == "harvest" and game.year == YEARS
        layout = game.layout

        def key(a):
            t = layout.decode(a)[1]
            water = farm.tower_water[t]
            slack = water - self._tower_demand(farm, t, skip=target, paid=paid)
            drain = 1 if final and water == 1 else 0
            return (drain, slack, water if not final else -water, -t)

        return max(legal, key=key)

    def _decide_store_water(self, game, legal):
        """Store on the tower whose range needs water most; in year 4 keep empty towers empty."""
        p = game.current_player
        farm = game.farms[p]
        layout = game.layout
        late = game.year == YEARS and game.phase == "harvest"

        def key(a):
            t = layout.decode(a)[1]
            need = self._tower_demand(farm, t) - farm.tower_water[t]
            keep_empty = -1 if late and farm.tower_water[t] == 0 else 0
            return (keep_empty, need, -t)

        return max(legal, key=key)

    def _tile_value(self, game, p: int, tile_id: int, cell: int | None) -> float:
        """Value of a tile placed on ``cell`` (or set aside when None: 1 VP at the end, FOG-EQUIP-14)."""
        if cell is None:
            return 1.0 + 0.05
        farm = game.farms[p]
        tile = self._model.tiles[tile_id]
        ctx = self._ctx(game, p)
        harvests = ctx.harvests
        if game.phase == "harvest" and cell not in game.harvested:
            harvests += 1  # FOG-RUL-18: usable in this harvest
        if tile.timing == "on_place":
            return self._ops_value(farm, cell, tile.effect, ctx)
        if tile.timing == "end_game":
            return self._ops_value(farm, cell, tile.effect, ctx, vp_only=True)
        if tile.timing == "harvest":
            return self._ops_value(farm, cell, tile.effect, ctx) * harvests
        value = 0.0  # permanent
        coins, water, food = self._harvest_cost(farm, cell) if farm.grid[cell] >= 0 else (0, 0, 0)
        for op in tile.effect:
            d = op.get("harvest_discount")
            if d:
                saved = {"coins": min(d.get("coins", 0), coins), "water": min(d.get("water", 0), water),
                         "food": min(d.get("food", 0), food)}
                value += ctx.value(saved) * harvests
            rc = op.get("raise_capacity")
            if rc:
                value += 0.3 * rc["by"] if harvests else 0.0
        return value

    def _best_host(self, game, p: int, tile_id: int) -> tuple[float, int | None]:
        farm = game.farms[p]
        best = (self._tile_value(game, p, tile_id, None), None)
        tile = self._model.tiles[tile_id]
        for cell in farm.occupied:
            if game._tile_fits(farm, tile, cell):
                v = self._tile_value(game, p, tile_id, cell)
                if v > best[0]:
                    best = (v, cell)
        return best

    def _decide_keep_equipment(self, game, legal):
        p = game.current_player
        tiles = game.decision[2]
        layout = game.layout
        return max(legal, key=lambda a: (self._best_host(game, p, tiles[layout.decode(a)[1]])[0], -a))

    def _decide_place_equipment(self, game, legal):
        p = game.current_player
        tile_id = game.decision[2]
        layout = game.layout
        best, best_value = layout.SET_ASIDE, self._tile_value(game, p, tile_id, None)
        for a in legal:
            kind, cell = layout.decode(a)
            if kind == "place_equipment":
                v = self._tile_value(game, p, tile_id, cell)
                if v > best_value:
                    best, best_value = a, v
        return best

    def _decide_attach(self, game, legal):
        """Attach a set-aside tile when it is worth more on the new location than its 1 VP aside."""
        p = game.current_player
        farm = game.farms[p]
        cell = game.decision[2]
        layout = game.layout
        best, best_value = layout.ATTACH_DONE, 0.0
        for a in legal:
            kind, slot = layout.decode(a)
            if kind == "attach":
                tile_id = farm.set_aside[slot]
                gain = self._tile_value(game, p, tile_id, cell) - self._tile_value(game, p, tile_id, None)
                if gain > best_value:
                    best, best_value = a, gain
        return best

    def _decide_ability_target(self, game, legal):
        """Raise the tower whose range needs most water (or the fullest); any silo (food is pooled)."""
        p = game.current_player
        farm = game.farms[p]
        layout = game.layout
        if game.decision[2] != "tower":
            return legal[0]

        def key(a):
            t = layout.decode(a)[1]
            return (self._tower_demand(farm, t), farm.tower_water[t], -t)

        return max(legal, key=key)

    def _decide_ability_option(self, game, legal):
        p = game.current_player
        farm = game.farms[p]
        frame = game.decision
        trade = {"pay": frame[3], "gain": frame[4], "max_times": frame[5]}
        options = [game.layout.decode(a)[1] for a in legal]
        k = self._trade_times(farm, trade, self._ctx(game, p), options)
        return game.layout.ABILITY_OPTION + k


# --------------------------------------------------------------------------------------------
# Registry and a game loop

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A bot by registry name (``BOTS``): ``random`` or ``heuristic``."""
    try:
        cls = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; valid names: {', '.join(sorted(BOTS))}") from None
    return cls(seed=seed)


def play_game(bots: Sequence[Bot | Callable], seed: int = 0, game=None, on_action=None, **variant):
    """Play a complete game with ``bots[seat]`` deciding for each seat; returns the finished Game.
    ``on_action(game, seat, action)`` is called before each action is applied."""
    if game is None:
        from .game import Game

        game = Game(num_players=len(bots), seed=seed, **variant)
    while not game.is_terminal():
        seat = game.current_player
        action = bots[seat].act(game) if hasattr(bots[seat], "act") else bots[seat](game)
        if on_action is not None:
            on_action(game, seat, action)
        game.apply(action)
    return game
