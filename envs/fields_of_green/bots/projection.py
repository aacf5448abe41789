"""The heuristic bot's projection: a farm played through the remaining Harvest phases, then counted.

``_Projection`` plays the Harvest phases of ``HeuristicBot._project`` (which adds the income between them)
on a copy of a farm with the bot's harvest policy, water range, silo capacity and fallow risk (no further
builds), and counts the result like the final score -- the engine's ``scoring.vp_items`` -- with fractional
coins and food. ``_Ctx`` is the per-decision context it values resources in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import scoring
from ..farm import EMPTY, Farm
from .model import _Model, _reach_sets

# One step of a harvest plan: (-priority, cell, coins, water, food it costs, food it gains, its ops). A plan is
# its steps sorted, so by priority and then cell (no two steps share a cell, so nothing after the cell is ever
# compared), and the harvest loop runs the sorted list itself. It unpacks each step through this type, natively
# when compiled (docs/profiling.md, "Eighteenth pass"); the plans hold the steps as plain tuples, so a step put
# aside for the second pass is the same object, not a copy.
_Step = tuple[float, int, int, int, int, int, Any]

if TYPE_CHECKING:
    from .heuristic import HeuristicBot


@dataclass
class _Ctx:
    """Per-decision context: the deciding seat, the year and its resource values."""

    year: int
    harvests: int  # Harvest phases still ahead whose income a new location would see
    coin: float
    food: float
    water: float
    eq: float
    y: int = 0  # index of the year's values (year - 1, clipped to 0..3)

    def value(self, amounts: dict[str, int]) -> float:
        # (typed: compiled, each amount is read as an int and multiplied natively, the same floats as untyped)
        return (
            amounts.get("coins", 0) * self.coin
            + amounts.get("food", 0) * self.food
            + amounts.get("water", 0) * self.water
            + amounts.get("vp", 0)
        )


def trade_value(trade: dict, ctx: _Ctx, coins: int, food: int) -> float:
    """Value of a trade ability done as often as it pays and the farm's coins and food allow."""
    net = ctx.value(trade["gain"]) - ctx.value(trade["pay"])
    if net <= 0:
        return 0.0
    times = trade["max_times"]
    pay = trade["pay"]
    if pay.get("coins"):
        times = min(times, coins // pay["coins"])
    if pay.get("food"):
        times = min(times, food // pay["food"])
    return net * max(times, 0)


def _consumers(plan: list[Any]) -> int:
    """How many steps (``_Step``) of a plan pay food."""
    consumers = 0
    for step in plan:
        typed: _Step = step  # read natively when compiled
        if typed[4]:
            consumers += 1
    return consumers


class _Projection:
    """One run of the projection on a copy ``f`` of a farm: the remaining Harvest phases with income,
    then the final count (``HeuristicBot._value``).

    The grid does not change while projecting, so tower ranges and harvest costs are worked out once.
    Counts on the farm (ability gains, conditions, the water each tower's range asks for, the harvest
    order) only change when a location turns fallow, so they are kept until then (an "epoch"). A
    harvest location whose ops only count its neighbours (or nothing) gets its harvest priority and
    resolved gains from the bot's ``_cell_memo``, keyed by the card, its tiles and its neighbours' cards
    (a fallow neighbour counts as empty), so projections of candidate farms share them."""

    __slots__ = (
        "bot",
        "m",
        "f",
        "ctx",
        "y",
        "towers",
        "hcells",
        "plan",
        "tin",
        "gains",
        "conds",
        "demand",
        "fx",
        "order",
        "shared",
        "tmpl",
        "near",
        "tin_tmpl",
        "far",
        "same_plan",
    )

    def __init__(self, bot: HeuristicBot, f: Farm, ctx: _Ctx, tmpl: dict | None = None, changed=None):
        """``tmpl``: a template of the farm the decision started from (``HeuristicBot._template``),
        when ``f`` differs from it at most on the cell ``changed`` (None: on no cell of the grid). Its
        ``entry`` results serve every location but that cell and its neighbours while no location has
        turned fallow, and its tower ranges every cell out of the changed cell's reach."""
        m: _Model = bot._model
        self.bot = bot
        self.m = m
        self.f = f
        self.ctx = ctx
        self.y = ctx.y
        self.shared = bot._cell_memo
        self.towers = sorted(f.tower_water)  # no tower is built while projecting
        self.tmpl = tmpl
        self.tin_tmpl: dict | None = None
        self.near: frozenset[int] = frozenset()  # the changed cell and its neighbours (a set: only tested with in)
        self.far: frozenset | None = None
        grid, harvest_kind = f.grid, m.harvest_kind
        self.same_plan = False  # the first epoch's plan is the decision farm's (kept in the template)
        self.plan: dict[int, tuple] = {}  # the order of later projected harvests reuses the first one's
        self.fx: dict[int, list | tuple] = {}  # cell -> its harvest ops resolved on the current epoch
        self.order: tuple[list[Any], int] | None = None  # (sorted plan, consumers) of the current epoch
        if tmpl is not None:
            # locations with a harvest ability, in farm order (fallow ones are skipped where used)
            self.hcells = tmpl["hcells"]
            self.tin_tmpl = tmpl["tin"]
            self.same_plan = True
            if changed is not None:
                reach, nears = _reach_sets(f.geometry)
                self.near = near = nears[changed]
                self.far = reach[changed]  # cells whose tower ranges may differ
                code = grid[changed]
                if code >= 0 and harvest_kind[code] and changed not in tmpl["hset"]:
                    self.hcells = self.hcells + [changed]  # a new location: last on the farm
                hset = tmpl["hset"]
                self.same_plan = not any(c in hset for c in near) and len(self.hcells) == len(hset)
            if self.same_plan:
                run = tmpl.get("run")
                if run is not None:
                    self.order, fx, plan = run
                    self.fx = dict(fx)
                    self.plan = dict(plan)
        else:
            self.hcells = [c for c in f.occupied if grid[c] >= 0 and harvest_kind[grid[c]]]
        self.tin: dict[int, list[int]] = {}  # cell -> towers in range
        self.gains: dict[tuple[int, int], dict[str, int]] = {}
        self.conds: dict = {}
        self.demand: dict[int, int] = {}

    def fallow_changed(self) -> None:
        self.tmpl = None
        self.gains.clear()
        self.conds.clear()
        self.demand.clear()
        self.fx.clear()
        self.order = None

    def gain(self, cell: int, op: dict) -> dict[str, int]:
        key = (id(op), cell)
        a = self.gains.get(key)
        if a is None:
            a = self.gains[key] = self.m.gain_amounts(self.f, cell, op)
        return a

    def holds(self, cell: int, op: dict) -> bool:
        if "if" not in op:
            return True
        key = (id(op), cell)
        h = self.conds.get(key)
        if h is None:
            h = self.conds[key] = self.m.holds(self.f, cell, op)
        return h

    def spec(self, cell: int) -> tuple:
        f = self.f
        tiles = f.equipment.get(cell)
        return self.m.harvest_spec(f.grid[cell], tuple(tiles) if tiles else ())

    def towers_in_range(self, cell: int) -> list[int]:
        t = self.tin.get(cell)
        if t is None:
            shared = self.tin_tmpl
            if shared is not None and (self.far is None or cell not in self.far):
                t = shared.get(cell)  # out of the changed cell's reach: as on the decision's farm
                if t is None:
                    t = shared[cell] = self._in_range(cell)
            else:
                t = self._in_range(cell)
            self.tin[cell] = t
        return t

    def _in_range(self, cell: int) -> list[int]:
        """The towers with ``cell`` in range, in cell order. (A loop of direct calls: compiled, a bound method
        called per tower went through the Python call protocol.)"""
        f = self.f
        out = []
        for tower in self.towers:
            if f.tower_in_range(tower, cell):
                out.append(tower)
        return out

    def tower_demand(self, tower: int) -> int:
        """``HeuristicBot._tower_demand`` on the projected farm."""
        d = self.demand.get(tower)
        if d is None:
            d = 0
            fallow = self.f.fallow
            for cell in self.hcells:
                if cell not in fallow and tower in self.towers_in_range(cell):
                    d += self.spec(cell)[1][1]
            self.demand[tower] = d
        return d

    def ops_value(self, cell: int, ops: Sequence[dict]) -> float:
        """``HeuristicBot._plans_value`` (not vp_only) on the projected farm, through its epoch's memo of gains."""
        ctx, f = self.ctx, self.f
        total = 0.0
        for op in ops:
            if "gain" in op:
                total += ctx.value(self.gain(cell, op))
            elif not self.holds(cell, op):
                continue
            elif "gain_equipment" in op:
                total += op["gain_equipment"] * ctx.eq
            elif "raise_capacity" in op:
                total += 0.25 * op["raise_capacity"]["by"]
            elif "trade" in op:
                total += trade_value(op["trade"], ctx, f.coins, f.food)
        return total

    def store_water(self, amount: int) -> None:
        """Each token on the tower with room whose range asks most (beyond its water), lowest cell first."""
        tw, cap = self.f.tower_water, self.f.tower_capacity
        towers = self.towers
        if len(towers) == 1:
            t = towers[0]
            for _ in range(amount):
                if tw[t] >= cap[t]:
                    return
                tw[t] += 1
            return
        for _ in range(amount):
            # max over the towers with room by (demand - water, -cell): a loop, not max(key=lambda) (compiled, the
            # lambda was a Python-level call per tower); the keys are distinct, so the same tower
            best = -1
            best_key = (0, 0)
            for t in towers:
                if tw[t] < cap[t]:
                    key = (self.tower_demand(t) - tw[t], -t)
                    if best < 0 or key > best_key:
                        best, best_key = t, key
            if best < 0:
                return
            tw[best] += 1

    def compute_fx(self, cell: int, ops: Sequence[dict]) -> list | tuple:
        """The ops of a harvest location on the current epoch: a tuple (coins, vp, food, water) when they
        are only gains, else a list of gains as (coins, vp, food, water, None) and other ops whose
        condition holds as (0, 0, 0, 0, op)."""
        fx: list[tuple] = []
        for op in ops:
            if "gain" in op:
                a = self.gain(cell, op)
                if a:
                    fx.append((a.get("coins", 0), a.get("vp", 0), a.get("food", 0), a.get("water", 0), None))
            elif self.holds(cell, op):
                fx.append((0, 0, 0, 0, op))
        if all(e[4] is None for e in fx):
            # only gains: one sum does the same (food is capped once for the total, and water
            # tokens are stored one at a time either way; nothing in between reads them)
            return (sum(e[0] for e in fx), sum(e[1] for e in fx), sum(e[2] for e in fx), sum(e[3] for e in fx))
        return fx

    def entry(self, cell: int) -> tuple:
        """(spec, shared entry or None) of a face-up harvest location on the current epoch; fills
        ``fx[cell]``. The shared entry ``[fx, {(year, cost): (-priority, food gain)}]`` is keyed by what
        the location's counters read: its ops (card and tiles; "equipment here" counts tiles, which
        give the location its own ops list) and, if they count neighbours, the neighbours' cards (a
        fallow one as empty)."""
        tmpl = self.tmpl
        if tmpl is not None:
            if cell in self.near:
                tmpl = None
            else:
                hit = tmpl.get(cell)
                if hit is not None:
                    self.fx[cell] = hit[1][0]
                    return hit[0], hit[1]
        f = self.f
        grid = f.grid
        code = grid[cell]
        tiles = f.equipment.get(cell)
        spec = (self.m.spec0[code] if not tiles else None) or self.m.harvest_spec(code, tuple(tiles) if tiles else ())
        level = spec[2]
        if level == 2:
            self.fx[cell] = self.compute_fx(cell, spec[0])
            return spec, None
        if level:
            fallow = f.fallow
            fp = []
            for n in f.geometry.neighbours[cell]:
                c = grid[n]
                fp.append(c if c < 0 or n not in fallow else EMPTY)
            key: tuple | int = (tuple(fp), id(spec[0]))
        else:
            key = id(spec[0])
        ent = self.shared.get(key)
        if ent is None:
            ent = [self.compute_fx(cell, spec[0]), {}]
            self.bot._share(key, ent)
        self.fx[cell] = ent[0]
        if tmpl is not None:
            tmpl[cell] = (spec, ent, None)  # the plan item is added by make_plan
        return spec, ent

    def make_plan(self) -> tuple[list[Any], int]:
        """The harvest order of the current epoch (the priorities are the first epoch's), and each
        location's resolved ops (``fx``)."""
        fallow = self.f.fallow
        plan = []
        memo = self.plan
        fxs = self.fx
        y = self.y
        tmpl, near = self.tmpl, self.near
        shared_only = True  # no location depends on more than its neighbours (or trades)
        for c in self.hcells:
            if c in fallow:
                continue
            if tmpl is not None and c not in near:  # first epoch: as on the decision's farm
                hit = tmpl.get(c)
                if hit is not None and hit[2] is not None:
                    fxs[c] = hit[1][0]
                    memo[c] = hit[2]
                    plan.append(hit[2])
                    continue
            spec, ent = self.entry(c)
            if ent is None or spec[3]:
                shared_only = False
            item = memo.get(c)
            if item is None:
                ops, cost, level, trade = spec
                if trade:
                    ent = None  # the priority of a trade depends on the coins and food at hand
                hit = ent[1].get((y, cost)) if ent is not None else None
                if hit is not None:
                    item = (hit[0], c, cost[0], cost[1], cost[2], hit[1], ops)
                else:
                    food_gain = 0
                    for op in ops:
                        if "gain" in op:
                            food_gain += self.gain(c, op).get("food", 0)
                    if food_gain > cost[2]:
                        prio = (100.0 if not any(cost) else 60.0) + food_gain
                    elif not any(cost):
                        prio = 90.0
                    elif cost[2]:
                        prio = 20.0 + self.ops_value(c, ops) / cost[2]
                    else:
                        prio = 40.0
                    item = (-prio, c, cost[0], cost[1], cost[2], food_gain, ops)
                    if ent is not None:
                        ent[1][(y, cost)] = (-prio, food_gain)
                memo[c] = item
                if ent is not None and tmpl is not None and c not in near:
                    tmpl[c] = (spec, ent, item)
            plan.append(item)
        plan.sort()
        self.order = order = (plan, _consumers(plan))
        if self.same_plan and shared_only and tmpl is not None:
            tmpl["run"] = (order, dict(fxs), dict(memo))
        return order

    def harvest(self) -> float:  # noqa: C901 - one Harvest phase in one loop: the projection's inner loop
        """One Harvest phase with the harvest policy; unpaid locations turn fallow. Returns side value
        (equipment draws) not visible on the farm. Order as ``_decide_harvest``: free abilities and food
        producers first, consumers after; a producer whose food would overflow waits while food is there
        for consumers; then a second pass for what is left. (Coins, food and VP tokens are kept in locals
        and written back around the steps that read the farm.)"""
        order = self.order
        if order is None:
            order = self.make_plan()
        run, consumers = order
        if not run:
            return 0.0
        f = self.f
        fxs = self.fx
        tins = self.tin
        tw = f.tower_water
        extra = 0.0
        waiting: list[Any] = []
        cap = f.food_capacity
        f_coins, f_food, f_vp = f.coins, f.food, f.vp_tokens
        for step in run:
            typed: _Step = step
            _, c, coins, water, food, food_gain, ops = typed
            if food_gain > food and consumers and f_food - food + food_gain > cap and f_food:
                waiting.append(step)
                continue
            if f_coins < coins or f_food < food:
                waiting.append(step)
                continue
            if water:
                tin = tins.get(c)
                if tin is None:
                    tin = self.towers_in_range(c)
                if len(tin) == 1:  # pay_water with one tower in range
                    t = tin[0]
                    if tw[t] < water:
                        waiting.append(step)
                        continue
                    tw[t] -= water
                elif not self.pay_water(c, water):
                    waiting.append(step)
                    continue
            f_coins -= coins
            f_food -= food
            fx: Any = fxs[c]  # (a tuple of gains or a list of ops: see compute_fx)
            if isinstance(fx, tuple):
                gains: tuple[int, int, int, int] = fx  # (coins, vp, food, water): unpacked natively
                g_coins, g_vp, g_food, g_water = gains
                f_coins += g_coins
                f_vp += g_vp
                if g_food:
                    room = cap - f_food
                    f_food += room if room < g_food else g_food
                if g_water:
                    self.store_water(g_water)
            else:
                f.coins, f.food, f.vp_tokens = f_coins, f_food, f_vp
                extra += self.apply_ops(c, fx)
                f_coins, f_food, f_vp = f.coins, f.food, f.vp_tokens
                cap = f.food_capacity
            if food:
                consumers -= 1
        for step in waiting:
            typed = step
            _, c, coins, water, food, _, ops = typed
            if f_coins < coins or f_food < food or (water and not self.pay_water(c, water)):
                # FOG-HARVEST-5: unpaid -> fallow, equipment lost
                f.fallow.add(c)
                f.equipment.pop(c, None)
                self.fallow_changed()
                continue
            f_coins -= coins
            f_food -= food
            fx = fxs.get(c)  # a location may have turned fallow since the plan: resolve again
            if fx is None:
                self.entry(c)
                fx = fxs[c]
            if isinstance(fx, tuple):
                gains = fx
                g_coins, g_vp, g_food, g_water = gains
                f_coins += g_coins
                f_vp += g_vp
                if g_food:
                    room = cap - f_food
                    f_food += room if room < g_food else g_food
                if g_water:
                    self.store_water(g_water)
            else:
                f.coins, f.food, f.vp_tokens = f_coins, f_food, f_vp
                extra += self.apply_ops(c, fx)
                f_coins, f_food, f_vp = f.coins, f.food, f.vp_tokens
                cap = f.food_capacity
        f.coins, f.food, f.vp_tokens = f_coins, f_food, f_vp
        return extra

    def pay_water(self, cell: int, water: int) -> bool:
        """Pay ``water`` from the towers in range, fullest first (nothing if they hold too little)."""
        tw = self.f.tower_water
        towers = self.towers_in_range(cell)
        if len(towers) == 1:  # the usual case: one tower pays it all
            t = towers[0]
            if tw[t] < water:
                return False
            tw[t] -= water
            return True
        towers = [t for t in towers if tw[t]]
        if sum(tw[t] for t in towers) < water:
            return False
        for _ in range(water):
            # the fullest tower, the lowest cell among equals: max by (water, -cell), as a loop (see store_water)
            best = -1
            best_key = (0, 0)
            for t in towers:
                key = (tw[t], -t)
                if best < 0 or key > best_key:
                    best, best_key = t, key
            tw[best] -= 1
        return True

    def apply_ops(self, cell: int, fx: list) -> float:
        f = self.f
        extra = 0.0
        for entry in fx:
            typed: tuple[int, int, int, int, Any] = entry  # (see compute_fx): unpacked natively
            coins, vp, food, water, op = typed
            if op is None:
                f.coins += coins
                f.vp_tokens += vp
                if food:
                    f.gain_food(food)
                if water:
                    self.store_water(water)
            elif "gain_equipment" in op:
                extra += op["gain_equipment"] * self.ctx.eq
            elif "raise_capacity" in op:
                target = op["raise_capacity"]["target"]
                pool = f.silo_capacity if target == "silo" else f.tower_capacity
                if pool:
                    pool[min(pool)] += op["raise_capacity"]["by"]
            elif "trade" in op:
                times = self.bot._trade_times(f, op["trade"], self.ctx)
                t = op["trade"]
                f.coins -= t["pay"].get("coins", 0) * times
                f.food -= t["pay"].get("food", 0) * times
                g = t["gain"]
                f.coins += g.get("coins", 0) * times
                f.vp_tokens += g.get("vp", 0) * times
                if g.get("food"):
                    f.gain_food(g["food"] * times)
                if g.get("water"):
                    self.store_water(g["water"] * times)
        return extra

    def final_value(self) -> float:
        """The final count of the projected farm: the engine's ``scoring.vp_items`` (FOG-END-3, 4, 7, 8)
        with the model's gains, plus fractional coins and food (FOG-END-5/6 without rounding down). The
        VP are whole numbers, so they are added up as integers (the same float in the end)."""
        f, m = self.f, self.m
        printed, equipment, empty, end_game = scoring.vp_items(f, m.vp, m.end_ops, m.tiles, self.end_vp, m.gain_amounts)
        return float(printed + equipment + end_game) + (f.coins / 3 + f.food / 2) + empty

    def end_vp(self, f: Farm, cell: int, ops: Sequence[dict]) -> int:
        """``scoring.end_game_vp`` with the model's gains. An ability that only counts neighbours gets its
        VP from the bot's ``_cell_memo``, keyed by its neighbours' cards (a fallow one as empty)."""
        m = self.m
        if not m.end_local[f.grid[cell]]:
            return scoring.end_game_vp(f, cell, ops, m.gain_amounts)
        grid, fallow = f.grid, f.fallow
        fp = []
        for n in f.geometry.neighbours[cell]:
            c = grid[n]
            fp.append(c if c < 0 or n not in fallow else EMPTY)
        key = ("end", tuple(fp), id(ops))
        got = self.shared.get(key)
        if got is None:
            got = scoring.end_game_vp(f, cell, ops, m.gain_amounts)
            self.bot._share(key, got)
        return got
