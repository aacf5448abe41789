"""The rules-aware heuristic bot of Fields of Green.

``HeuristicBot`` is documented in ``docs/fields_of_green/bots.md``. In short it is a greedy one-step lookahead:
for a meaningful choice (the card pick and the action after the reveal) it clones the game once per
candidate action, applies it, resolves the rest of that action (water payment, attachments, card
choices) with its cheap sub-policies, and scores the result with a *projection*: the player's farm is
played forward through every remaining Harvest phase (with income, water range, silo capacity and
fallow risk, no further builds), then counted like the final score with fractional coins and food,
plus a year-dependent bonus for coins that future builds can still spend. Cheap analytic estimates
prune the candidate cells and guide the draw split; small rule-based policies handle harvest order,
water payment and storage, equipment and card-ability choices.

Speed (docs/fields_of_green/bots.md, "Speed"): the bot makes exactly the choices of that plain description,
faster. Results that depend only on a farm's contents are memoised in bounded LRU tables keyed by those contents:
the value of each candidate act (so the act decision reuses what its pick evaluated), the projection, the cheap
estimates per farm state (their frequent keys packed into ints: ``_fkey``). When an act provably touches nothing
but the player's own farm before the next seat decides (``HeuristicBot._local_act``), it is done on a copy of
that farm (``_direct_act``, the engine's steps with the bot's sub-policies) instead of a game clone, and the
projection of that farm reuses what does not depend on the changed cell. ``VERIFY_CACHES = True`` recomputes
every memo hit and replays every such act on a full engine clone, asserting agreement;
tests/fields_of_green/test_bots.py pins the decisions with recorded golden games.

The rules come from the engine: years, turns, income and the action count from ``game.py``, gains and
conditions from ``effects`` (``_Model`` passes its compiled-filter counter), the final count from
``scoring.vp_items``, harvest discounts from ``game.harvest_discount``. Three thin adapters remain, for
speed: ``_Model.count`` (``effects.count`` over precompiled filters) and ``_direct_act`` (the engine's act
steps on a copy of one farm), both checked against the engine by ``VERIFY_CACHES``; and ``_Model.card``, the
card numbers the search reads as compiled records, with ``_Model.harvest_cost`` (``game.harvest_cost`` over
them), checked against the card set and the engine by tests/fields_of_green/test_bot_fast_paths.py.

The install compiles this module, ``projection`` and ``model`` with mypyc (``envs/_native.py``): the same
decisions, ~2.5x less CPU (with the engine it calls, docs/profiling.md). So the annotations are checked at
run time there, a subclass or a spy must override methods (patching the class is not seen by compiled
callers), and ``FARMGAMES_PURE_PYTHON=1`` runs the source.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ...core.bots import Bot
from ...core.lru import MISS as _MISS
from ...core.lru import lru_get as _lru_get
from ...core.lru import lru_put as _lru_put
from ..actions import SPLITS
from ..cards import PILES
from ..farm import EMPTY, SILO, TOWER, Farm
from ..game import ACTIONS_PER_GAME, INCOME, MARKET_BASE, MARKET_PER_FOOD, RESTORE_COST, TOWER_COST, TURNS, YEARS, Game
from .anticipation import Anticipation, after_assumed_act, after_own_pick, hide_farm, restore_farm
from .model import (
    OP_GAIN,
    OP_GAIN_EQUIPMENT,
    OP_RAISE_CAPACITY,
    OP_TRADE,
    _Card,
    _decoded,
    _Model,
    _model_for,
    _OpPlan,
    _reach,
)
from .projection import _Ctx, _Projection, trade_value

_INCOME_COINS, _INCOME_WATER, _INCOME_FOOD = INCOME["coins"], INCOME["water"], INCOME["food"]
# The package holds the switch: ``bots.VERIFY_CACHES = True`` (tests/fields_of_green/test_bots.py) recomputes
# every memo hit the slow way and replays every shortcut act on a full engine clone, asserting agreement.
_SETTINGS = sys.modules[__package__]


@mypyc_attr(native_class=False)  # a plain dataclass when compiled too (callers read its fields by name)
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
    split_cells: int = 3  # frontier cells per design in the draw split's cheap estimate
    # > 0: the pick looks at a card's builds only on the ``pick_pool`` legal cells with the most occupied
    # neighbours (lowest cell first among equals); the act still looks at every legal cell (0: every cell)
    pick_pool: int = 0
    pool_in_act: bool = False  # the act decision keeps to the pick's ``pick_pool`` cells too
    market_sales: int = 0  # > 0: only the largest ``market_sales`` market sales are looked at (0: all)
    split_own: bool = False  # draw split: a design's value without its neighbours (``_own_value`` minus cost)
    deny: float = 0.1  # pick: weight of the card's value to the player who receives the hand
    noise: float = 0.02  # tie-breaking jitter from the bot's seeded RNG


def _clip_year(year: int) -> int:
    return min(max(year, 1), YEARS) - 1


_DRAW_WEIGHT = [1 - 0.75**k for k in range(8)]  # 0.25 * (1 + 0.75 + 0.75^2 ...) for k cards, see _decide_split


# Bounds of the per-bot memo tables (entries). Old entries are dropped least recently used first.
_SIG_CAP = 512  # farm contents -> small ids used in the other keys
_VALUE_CAP = 512  # projected values by resulting farm (acts that are not local, see _local_act)
_EVAL_CAP = 4096  # values of (farm, action) by the lookahead
_FARM_CAP = 64  # per-farm-state tables of cheap estimates
_CELL_CAP = 20_000  # harvest plan entries and resolved gains shared by projections (see _Projection)


# Keys of the per-farm-state tables (``_fc``) for their most frequent entries: one int per (kind, a, b) -- a and
# b below 2**16: card indexes, cells, small flags and ids -- instead of a tuple such as ("build", card, cell).
# An int hashes at once and is not tracked by the cyclic garbage collector: a game's tables take ~5,000 keys per
# bot, and the tuples' allocation, hashing and collections cost ~5% of the bot (docs/profiling.md, "Eighteenth
# pass"). The kind is in the low 4 bits, so keys of different kinds never meet (the "own2" key of
# ``_quick_build_now`` packs more above it); the tables' other keys (strings, tuples) are never equal to an int.
_FK_BUILD: Final = 1
_FK_OWN: Final = 2
_FK_RANGE: Final = 3
_FK_FLAT: Final = 4
_FK_NBR: Final = 5
_FK_GLOBAL: Final = 6
_FK_TOWER: Final = 7
_FK_SILO: Final = 8
_FK_CARD: Final = 9
_FK_SPLIT_OWN: Final = 10
_FK_OWN2: Final = 11


def _fkey(kind: int, a: int, b: int = 0) -> int:
    """The int key of entry ``kind`` for ``(a, b)`` in a per-farm-state table (see ``_FK_BUILD``)."""
    assert 0 <= a < 65536 and 0 <= b < 65536, (kind, a, b)
    return (a << 20) | (b << 4) | kind


def _own2_key(card: int, codes: list[int] | None, in_range: bool | None, bits: int = 16) -> int:
    """The int key of a card's own value by its neighbours' sorted codes (None: the card has no adjacency
    ops) and its water range (see ``_quick_build_now``): each code + 8 is a base-2**bits digit above the card and
    the flag. No digit is 0, so code lists of different lengths differ; None and [] (a cell without neighbours)
    share a key, but a card has either no adjacency ops or always a list, and the card is in the key.
    ``bits``: the model's ``code_bits``, 8 when every grid code is below 248, so a cell's four neighbours, the card
    and the flags fit in 54 bits: a machine-word int (compiled, no big-int arithmetic); else 16. One table only ever
    holds keys of one width (a bot's tables are reset with its card set)."""
    limit = (1 << bits) - 8
    pattern = 0
    if codes is not None:
        for code in codes:
            assert -8 < code < limit, code
            pattern = (pattern << bits) | (code + 8)
    return (((((pattern << 16) | card) << 2) | _flag(in_range)) << 4) | _FK_OWN2


def _flag(x: bool | None) -> int:
    """A ``bool | None`` as 0 (False), 1 (True) or 2 (None), for ``_fkey``."""
    return 2 if x is None else int(x)


def _farm_sig(f: Farm) -> tuple:
    """Everything of a farm that the bot's estimates and projection can read (not its version)."""
    eq = f.equipment
    return (
        tuple(f.grid),
        tuple(f.occupied),
        tuple(sorted(f.fallow)) if f.fallow else (),
        tuple(sorted(f.frontier)),
        tuple(f.tower_water.items()),
        tuple(f.tower_capacity.items()),
        tuple(f.silo_capacity.items()),
        f.food,
        f.coins,
        f.vp_tokens,
        tuple([(k, tuple(v)) for k, v in eq.items()]) if eq else (),
        tuple(f.set_aside),
        f.actions_taken,
    )


# HeuristicBot's own attributes (its __getstate__ keeps seed, rng and w of them and rebuilds the rest)
_BOT_STATE = frozenset(
    "seed rng w _model _stock _cache_w _noise _pw _ctxs _sids _next_sid _values _evals _farm_caches _cell_memo"
    " _dec_layout _dec _anticipated".split()
)
# times _hypothetical_act fell back on an engine frame it did not expect (an anticipation made meanwhile is dropped)
_FALLBACKS: list[int] = [0]


def _clone_own(game, p: int):
    """``game.clone()`` that copies only seat ``p``'s farm and shares the other farms (read-only).
    Only for steps proven to touch no other farm (see ``HeuristicBot._local_act``)."""
    farms = game.farms
    game.farms = []  # (cloned with no farms, then given them: the others shared, seat p's copied)
    try:
        g = game.clone()
    finally:
        game.farms = farms
    g.farms = [f.clone() if i == p else f for i, f in enumerate(farms)]
    return g


@mypyc_attr(allow_interpreted_subclasses=True)  # (compiled: researchers' and tests' subclasses still work)
class HeuristicBot(Bot):
    """Greedy one-step lookahead over a projected value of the player's farm (see module docstring
    and docs/fields_of_green/bots.md). Deterministic for a given seed; ``weights`` overrides the numbers.

    Speed: results that depend only on a farm's contents (the projection, the lookahead value of an
    action, the cheap estimates) are memoised per bot in bounded LRU tables keyed by the farm's full
    contents, so e.g. the act decision reuses what its pick already evaluated; the decisions are the
    same as without the tables (``bots.VERIFY_CACHES`` checks every hit). The card-set model and the
    harvest-location memo of the projection are shared by the bots with the same weights."""

    name = "heuristic"

    # the lookahead's shortcuts (_direct_act, the memo of act values) reproduce these methods as defined
    # here; a subclass that overrides one of them gets the plain lookahead
    _SHORTCUT_METHODS = (
        "_value",
        "_project",
        "_resolve_own",
        "_decide_pay_water",
        "_decide_store_water",
        "_decide_attach",
        "_decide_ability_target",
        "_decide_ability_option",
        "_tower_demand",
        "_trade_times",
    )

    def __init__(self, seed: int = 0, weights: HeuristicWeights | None = None, **overrides):
        super().__init__(seed)
        self.w = replace(weights or HeuristicWeights(), **overrides) if overrides else (weights or HeuristicWeights())
        # the card set's _Model, None until the first act (Any, not _Model | None: the search reads it
        # everywhere after act has set it, and mypy would ask each read to test for None)
        self._model: Any = None
        self._stock = self._shortcuts_intact()
        self._anticipated: Anticipation | None = None
        self._reset_caches()

    def _shortcuts_intact(self) -> bool:
        """The class keeps every method the lookahead's shortcuts reproduce (``_SHORTCUT_METHODS``)."""
        cls = type(self)
        return all(getattr(cls, n) is getattr(HeuristicBot, n) for n in self._SHORTCUT_METHODS)

    def _reset_caches(self) -> None:
        w = self._cache_w = self.w
        # the weights the hottest paths read (``_project``'s six per projection, ``_jitter``'s per candidate) as typed
        # attributes: compiled, a native read instead of a lookup in the dataclass's instance dict each time. The
        # same numbers (float() of an int weight adds and multiplies as the int does); act refreshes them with the
        # tables whenever ``w`` is replaced.
        self._noise = float(w.noise)
        self._pw: tuple[float, float, float, tuple[float, ...], tuple[float, ...], tuple[float, ...]] = (
            float(w.equipment_draw),
            float(w.coins_per_action),
            float(w.spend_bonus),
            tuple([float(x) for x in w.water_bonus]),
            tuple([float(x) for x in w.food_bonus]),
            tuple([float(x) for x in w.tower_bonus]),
        )
        self._ctxs: dict = {}
        # the last layout's decoded actions (``_decoded``), read through an identity test (``_decode``)
        self._dec_layout: object = None
        self._dec: list[tuple[str, int]] = []
        self._sids: dict[tuple, int] = {}
        self._next_sid = 0
        self._values: dict = {}
        self._evals: dict = {}
        self._farm_caches: dict = {}
        # see _Projection: shared by the bots with the same weights on the same card set
        self._cell_memo: dict = self._model.cell_memos.setdefault(self.w, {}) if self._model is not None else {}

    def __getstate__(self) -> dict:
        """A pickled bot keeps its seed, random state and weights (and a subclass's own attributes), not its
        memo tables or card-set model: its next act rebuilds them, and no decision depends on them (memo
        hits equal fresh values, ``VERIFY_CACHES``; the jitter is drawn per candidate either way). Copies stay
        small, and the compiled bot's classes need no pickling of their own."""
        extra = {k: v for k, v in getattr(self, "__dict__", {}).items() if k not in _BOT_STATE}
        return {"seed": self.seed, "rng": self.rng, "w": self.w, "extra": extra}

    def __setstate__(self, state: dict) -> None:
        self.seed, self.rng, self.w = state["seed"], state["rng"], state["w"]
        self._stock = self._shortcuts_intact()
        self._model = None
        self._anticipated = None
        self._reset_caches()
        if state["extra"]:
            self.__dict__.update(state["extra"])

    def _share(self, key, value) -> None:
        memo = self._cell_memo
        if len(memo) >= _CELL_CAP:
            memo.clear()
        memo[key] = value

    # ------------------------------------------------------------------ entry point

    def act(self, game) -> int:
        ahead = self._anticipated
        if ahead is not None:  # (any decision ends an anticipation: only the next one can use it)
            self._anticipated = None
            if ahead.applies_to(game, self.w, self.rng):
                self.rng = ahead.rng  # (the generator that made the choice: its state is the one after it)
                self._anticipated = ahead.next
                return ahead.action
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no legal action")
        if len(legal) == 1:
            return legal[0]
        if self._model is None or self._model.cards is not game.cards:
            self._model = _model_for(game.cards)
            self._reset_caches()
        elif self._cache_w is not self.w:
            self._reset_caches()
        kind = game.decision_kind
        handler = getattr(self, "_decide_" + kind, None)
        choice: int | None = handler(game, legal) if handler else None
        return choice if choice is not None and choice in legal else legal[0]

    def anticipate(self, game, seat: int) -> bool:
        """Work out this bot's next pick, and the act that follows it, now, while ``seat`` (the other player of a
        2-player game) chooses its act: on a clone after an assumed act, with ``seat``'s farm hidden (see
        ``anticipation``). The next ``act`` calls return them if their inputs turn out the same, else decide afresh:
        the same decisions either way. True if one was made. For a process with a spare core
        (``wrappers/process_vector.py``); elsewhere it only costs time."""
        self._anticipated = None
        g = after_assumed_act(game, seat)
        if g is None:
            return False
        original = self.rng
        fallbacks = _FALLBACKS[0]
        made: list[Anticipation] = []
        try:
            while g is not None:
                before = original.getstate() if not made else made[-1].rng.getstate()
                trial = random.Random()
                trial.setstate(before)
                self.rng = trial
                farm = hide_farm(g, seat)
                try:
                    kind = g.decision_kind
                    action = self.act(g)
                finally:
                    restore_farm(g, seat, farm)
                made.append(Anticipation(g, seat, kind, self.w, before, trial, action))
                g = after_own_pick(g, seat, action) if kind == "pick" else None
        except Exception:  # noqa: BLE001 - a read of the hidden farm, or any other failure: no anticipation
            made = []
        finally:
            self.rng = original
        if not made or _FALLBACKS[0] != fallbacks:
            # the memo tables may hold what a failed search half-built: start them afresh (they change no decision)
            self._cell_memo.clear()
            self._reset_caches()
            return False
        for first, second in zip(made, made[1:]):
            first.next = second
        self._anticipated = made[0]
        return True

    # ------------------------------------------------------------------ memo tables

    def _decode(self, layout) -> list[tuple[str, int]]:
        """``_decoded(layout)``: the bot's games share a layout, so an identity test finds it (not a lookup)."""
        if layout is not self._dec_layout:
            self._dec = _decoded(layout)
            self._dec_layout = layout
        return self._dec

    def _sid(self, farm: Farm) -> int:
        """A small id for the farm's contents (ids are never reused, so a dropped entry only misses)."""
        sig = _farm_sig(farm)
        sid = self._sids.get(sig)
        if sid is None:
            self._next_sid += 1
            sid = self._next_sid
            _lru_put(self._sids, sig, sid, _SIG_CAP)
        return sid

    def _fc(self, farm: Farm, ctx: _Ctx) -> dict:
        """The table of cheap estimates for this farm state and context."""
        return self._fc_by_sid(self._sid(farm), ctx.year, ctx.harvests)

    def _fc_by_sid(self, sid: int, year: int, harvests: int) -> dict:
        key = (sid, year, harvests)
        fc = _lru_get(self._farm_caches, key)
        if fc is _MISS:
            fc = {}
            _lru_put(self._farm_caches, key, fc, _FARM_CAP)
        return fc

    # ------------------------------------------------------------------ context and small helpers

    def _ctx(self, game: Game, p: int) -> _Ctx:
        return self._ctx_at(game.year, game.phase == "harvest")

    def _ctx_at(self, year: int, in_harvest: bool) -> _Ctx:
        ctx = self._ctxs.get((year, in_harvest))
        if ctx is None:
            y = _clip_year(year)
            harvests = YEARS - year + (0 if in_harvest else 1)
            w = self.w
            ctx = self._ctxs[(year, in_harvest)] = _Ctx(
                year, max(harvests, 0), w.coin[y], w.food[y], w.water[y], w.equipment_draw, y
            )
        return ctx

    def _template(self, farm: Farm) -> dict:
        """What projections of farms one act away from ``farm`` share (see ``_Projection``): its
        locations with a harvest ability, their tower ranges, their ``entry`` results and plan items."""
        grid, harvest_kind = farm.grid, self._model.harvest_kind
        hcells = [c for c in farm.occupied if grid[c] >= 0 and harvest_kind[grid[c]]]
        return {"hcells": hcells, "hset": frozenset(hcells), "tin": {}}

    def _jitter(self) -> float:
        return self.rng.random() * self._noise

    def _harvest_cost(self, farm: Farm, cell: int) -> tuple[int, int, int]:
        """Harvest cost after permanent equipment discounts (as Game.harvest_cost, on any farm)."""
        m: _Model = self._model
        return m.harvest_cost(farm, cell)

    def _plans_value(self, farm: Farm, cell: int, plans: Sequence[_OpPlan], ctx: _Ctx, vp_only: bool = False) -> float:
        """Static value of applying a card's or tile's ops for the card at ``cell`` (no state change), read from the
        ops' compiled records (``_Card.plans``, ``_Model.tile_plans``)."""
        m: _Model = self._model
        total = 0.0
        for plan in plans:
            op = plan.op
            kind = plan.kind
            if kind == OP_GAIN:
                amounts = m.plan_amounts(farm, cell, plan)
                if vp_only:
                    total += amounts.get("vp", 0)
                else:
                    total += ctx.value(amounts)
            elif vp_only or not m.plan_holds(farm, cell, plan):
                continue
            elif kind == OP_GAIN_EQUIPMENT:
                total += op["gain_equipment"] * ctx.eq
            elif kind == OP_RAISE_CAPACITY:
                total += 0.25 * op["raise_capacity"]["by"]
            elif kind == OP_TRADE:
                total += trade_value(op["trade"], ctx, farm.coins, farm.food)
        return total

    def _tower_demand(self, farm: Farm, tower: int, skip: int = -1, paid: set | None = None) -> int:
        """Water that face-up harvest locations in range of ``tower`` still ask for."""
        need = 0
        m: _Model = self._model
        harvest_kind = m.harvest_kind
        for cell in farm.occupied:
            code = farm.grid[cell]
            if code < 0 or cell == skip or cell in farm.fallow or (paid and cell in paid):
                continue
            if harvest_kind[code] and farm.tower_in_range(tower, cell):
                need += m.harvest_cost(farm, cell)[1]
        return need

    # ------------------------------------------------------------------ cheap estimates

    def _quick_build(self, farm: Farm, card: int, cell: int, ctx: _Ctx, fc: dict | None = None) -> float:
        """Cheap estimate (VP) of building ``card`` at ``cell``: printed VP, its ability at that cell,
        what it adds to its neighbours' adjacency abilities, water range for a harvest water cost,
        and the free neighbours an adjacency scorer can still fill; minus the build cost. The card is
        placed on the grid temporarily. Farm-wide abilities do not depend on the cell: see
        ``_global_delta``. ``fc``: the farm state's table (``_fc``) to memoise in."""
        if fc is None:
            return self._quick_build_now(farm, card, cell, ctx, None)
        key = _fkey(_FK_BUILD, card, cell)
        value = fc.get(key)
        if value is None:
            value = fc[key] = self._quick_build_now(farm, card, cell, ctx, fc)
        return value

    def _own_in(self, fc: dict, farm: Farm, card: int, cell: int, ctx: _Ctx) -> tuple[float, int]:
        """``_own_value`` of a counter-free card, memoised in the farm state's table (the cell does not matter)."""
        key = _fkey(_FK_OWN, card)
        own = fc.get(key)
        if own is None:
            own = fc[key] = self._own_value(farm, card, cell, ctx)
        return own

    def _range_in(self, fc: dict, farm: Farm, cell: int) -> bool:
        """Whether a tower has ``cell`` in range, memoised in the farm state's table (no tower is built meanwhile)."""
        key = _fkey(_FK_RANGE, cell)
        in_range = fc.get(key)
        if in_range is None:
            in_range = fc[key] = any(farm.tower_in_range(t, cell) for t in farm.tower_water)
        return in_range

    def _quick_build_now(  # noqa: C901 - the bot's hottest path: its memo shortcuts stay inline
        self, farm: Farm, card: int, cell: int, ctx: _Ctx, fc: dict | None
    ) -> float:
        m: _Model = self._model
        rec = m.card[card]
        if fc is not None and not m.counting[card] and cell not in farm.equipment:
            # the card's own part does not depend on the cell, except for the water range
            value, water = self._own_in(fc, farm, card, cell, ctx)
            in_range: bool | None = True
            if water:
                in_range = self._range_in(fc, farm, cell)
                if not in_range:
                    value = -0.5  # no tower in range: it would turn fallow at the harvest
            touchy = fc.get("touchy")
            if touchy is None:
                touchy = fc["touchy"] = self._touchy_cells(farm)
            if cell not in touchy:
                # no neighbour scores anything here: before and after are 0.0, the same for every such cell
                key = _fkey(_FK_FLAT, card, _flag(in_range))
                flat = fc.get(key)
                if flat is None:
                    flat = fc[key] = (
                        value + 0.0 - 0.0 - rec.coins * ctx.coin - rec.water * ctx.water - rec.food * ctx.food
                    )
                return flat
            before = self._neighbour_scores(farm, cell, ctx, fc)
            after = fc.get(_fkey(_FK_NBR, cell, m.info_id[card]))
            if after is None:
                grid = farm.grid
                grid[cell] = card
                farm.occupied.append(cell)
                try:
                    after = self._neighbour_scores(farm, cell, ctx, fc, m.info_id[card])
                finally:
                    farm.occupied.pop()
                    grid[cell] = EMPTY
            return value + after - before - rec.coins * ctx.coin - rec.water * ctx.water - rec.food * ctx.food
        before = self._neighbour_scores(farm, cell, ctx, fc)
        grid = farm.grid
        own_key: int | None = None
        if fc is not None and cell not in farm.equipment:
            # its counters see the same farm wherever it goes, except its neighbours: its own value depends
            # only on their cards (a fallow one counts as -4: it matches nothing and is not free) and,
            # for a thirsty harvest card, on the water range
            codes: list[int] | None = None
            if m.adjacent_ops[card]:
                fallow = farm.fallow
                codes = []
                for n in farm.geometry.neighbours[cell]:
                    code = grid[n]
                    codes.append(code if code < 0 or n not in fallow else -4)
                codes.sort()
            in_range = None
            if rec.kind == "harvest" and rec.h_water:
                in_range = self._range_in(fc, farm, cell)
            own_key = _own2_key(card, codes, in_range, m.code_bits)
            known = fc.get(own_key)
            if known is not None:
                after = fc.get(_fkey(_FK_NBR, cell, m.info_id[card]))
                if after is None:
                    grid[cell] = card
                    farm.occupied.append(cell)
                    try:
                        after = self._neighbour_scores(farm, cell, ctx, fc, m.info_id[card])
                    finally:
                        farm.occupied.pop()
                        grid[cell] = EMPTY
                return known + after - before - rec.coins * ctx.coin - rec.water * ctx.water - rec.food * ctx.food
        grid[cell] = card
        farm.occupied.append(cell)
        try:
            value = float(rec.vp) + self._once_value(farm, cell, rec, ctx)
            if rec.kind != "none":
                if rec.kind == "harvest":
                    coins, water, food = m.harvest_cost(farm, cell)
                    per = self._plans_value(farm, cell, rec.plans, ctx) - (
                        coins * ctx.coin + water * ctx.water + food * ctx.food
                    )
                    if water and not any(farm.tower_in_range(t, cell) for t in farm.tower_water):
                        value = -0.5  # no tower in range: it would turn fallow at the harvest
                    else:
                        value += max(per, -0.5) * ctx.harvests
                if m.adjacent_ops[card]:
                    free = sum(1 for n in farm.geometry.neighbours[cell] if grid[n] == EMPTY)
                    value += self.w.adjacency_potential * min(free, m.adjacent_max[card]) * (ctx.harvests / 4)
            if own_key is not None and fc is not None:  # (own_key is only set with a table)
                fc[own_key] = value
            # the neighbours see only the card's (type, sub-type, ability kind)
            after = self._neighbour_scores(farm, cell, ctx, fc, m.info_id[card])
        finally:
            farm.occupied.pop()
            grid[cell] = EMPTY
        return value + after - before - rec.coins * ctx.coin - rec.water * ctx.water - rec.food * ctx.food

    def _touchy_cells(self, farm: Farm) -> set[int]:
        """Cells next to a face-up location that ``_neighbour_scores`` looks at (an adjacency ability or
        equipment); elsewhere the neighbour scores are 0.0."""
        m: _Model = self._model
        grid, fallow, equipment = farm.grid, farm.fallow, farm.equipment
        neighbours = farm.geometry.neighbours
        out: set[int] = set()
        for n in farm.occupied:
            code = grid[n]
            if code >= 0 and n not in fallow and (m.adjacent_ops[code] or n in equipment):
                out.update(neighbours[n])
        return out

    def _own_value(self, farm: Farm, card: int, cell: int, ctx: _Ctx) -> tuple[float, int]:
        """``_quick_build``'s value of the card itself when its ability counts nothing (so the cell does
        not matter), with a tower in range; and the harvest water it needs."""
        m: _Model = self._model
        rec = m.card[card]
        value = float(rec.vp) + self._once_value(farm, cell, rec, ctx)
        water = 0
        if rec.kind == "harvest":
            # the card is not on the grid: no equipment discounts
            coins, water, food = max(rec.h_coins, 0), max(rec.h_water, 0), max(rec.h_food, 0)
            spent = coins * ctx.coin + water * ctx.water + food * ctx.food
            per = self._plans_value(farm, cell, rec.plans, ctx) - spent
            value += max(per, -0.5) * ctx.harvests
        return value, water

    def _once_value(self, farm: Farm, cell: int, rec: _Card, ctx: _Ctx) -> float:
        """Value of a card's ability that counts once at ``cell``: its End-game VP or its Immediate gains
        (0.0 for a Harvest ability or none)."""
        if rec.kind == "end_game":
            return self._plans_value(farm, cell, rec.plans, ctx, vp_only=True)
        if rec.kind == "immediate":
            return self._plans_value(farm, cell, rec.plans, ctx)
        return 0.0

    def _ability_score(self, farm: Farm, n: int, ctx: _Ctx) -> float:
        m: _Model = self._model
        total = 0.0
        rec = m.card[farm.grid[n]]
        kind = rec.kind
        if kind != "none" and kind != "immediate":
            if kind == "end_game":
                total += self._plans_value(farm, n, rec.plans, ctx, vp_only=True)
            else:
                total += self._plans_value(farm, n, rec.plans, ctx) * ctx.harvests
        for tile_id in farm.equipment.get(n, ()):
            tile = m.tiles[tile_id]
            if tile.timing == "end_game":
                total += self._plans_value(farm, n, m.tile_plans[tile_id], ctx, vp_only=True)
        return total

    def _neighbour_scores(self, farm: Farm, cell: int, ctx: _Ctx, fc: dict | None = None, placed: int = 0) -> float:
        """Value of the abilities of the face-up locations next to ``cell`` (they may count it).
        ``placed``: the info id (``_Model.info_id``) of the card temporarily on ``cell`` (0 if the cell is as in
        ``fc``'s farm)."""
        if fc is not None:
            key = _fkey(_FK_NBR, cell, placed)
            value = fc.get(key)
            if value is None:
                value = fc[key] = self._neighbour_scores(farm, cell, ctx)
            return value
        m: _Model = self._model
        grid = farm.grid
        total = 0.0
        for n in farm.geometry.neighbours[cell]:
            code = grid[n]
            if code >= 0 and n not in farm.fallow and (m.adjacent_ops[code] or n in farm.equipment):
                total += self._ability_score(farm, n, ctx)
        return total

    def _global_delta(self, farm: Farm, card: int, cell: int, ctx: _Ctx, fc: dict | None = None) -> float:
        """What placing ``card`` adds to farm-wide abilities of the other locations (counts of a type,
        distinct sub-types); the same for every cell."""
        m: _Model = self._model
        if fc is not None:
            key = _fkey(_FK_GLOBAL, cell, m.info_id[card])  # other cards see only the card's info
            value = fc.get(key)
            if value is None:
                value = fc[key] = self._global_delta(farm, card, cell, ctx)
            return value
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

    def _quick_structure(self, farm: Farm, kind: str, cell: int, fc: dict | None = None) -> float:
        """Rank cells for a tower (water range over thirsty locations and free cells) or a silo
        (keep the cells next to cards free for adjacency scorers)."""
        if fc is not None:
            key = _fkey(_FK_TOWER if kind == "tower" else _FK_SILO, cell)
            value = fc.get(key)
            if value is None:
                value = fc[key] = self._quick_structure_now(farm, kind, cell, fc)
            return value
        return self._quick_structure_now(farm, kind, cell, None)

    def _quick_structure_now(self, farm: Farm, kind: str, cell: int, fc: dict | None) -> float:
        grid = farm.grid
        if kind == "tower":
            score = 0.0
            m: _Model = self._model
            thirsty = fc.get("thirsty") if fc is not None else None
            if thirsty is None:  # face-up locations with a water harvest cost
                thirsty = [
                    c for c in farm.occupied if grid[c] >= 0 and c not in farm.fallow and m.harvest_cost(farm, c)[1]
                ]
                if fc is not None:
                    fc["thirsty"] = thirsty
            for c in thirsty:
                if farm.tower_in_range(cell, c):
                    score += 2.0
            frontier = farm.frontier
            reached = 0  # free cells in range (only cells within reach can be)
            for c in _reach(farm.geometry)[cell]:
                if c in frontier and farm.tower_in_range(cell, c):
                    reached += 1
            for _ in range(reached):
                score += 0.3
            return score
        occupied = sum(1 for n in farm.geometry.neighbours[cell] if grid[n] != EMPTY)
        return -occupied

    # ------------------------------------------------------------------ projection (the state value)

    def _value(self, game: Game, p: int, pending_equipment: int = 0) -> float:
        """Projected final score (VP, fractional) of seat ``p`` if it built nothing more: the farm is
        played through the remaining Harvest phases with income; plus the spend bonus for coins,
        water and food that future actions can still use. Memoised on the farm's contents."""
        if game.is_terminal():
            s = game.scores()[p]
            return s.total + 0.01 * s.locations + 0.001 * s.coins_held
        farm = game.farms[p]
        in_harvest = game.phase == "harvest"
        key = (_farm_sig(farm), game.year, in_harvest, pending_equipment)
        value = _lru_get(self._values, key)
        if value is _MISS:
            value = self._project(game.year, in_harvest, farm, pending_equipment)
            _lru_put(self._values, key, value, _VALUE_CAP)
        elif _SETTINGS.VERIFY_CACHES:
            assert value == self._project(game.year, in_harvest, farm, pending_equipment)
        return value

    def _project(
        self,
        year: int,
        in_harvest: bool,
        farm: Farm,
        pending_equipment: int,
        owned: bool = False,
        tmpl: dict | None = None,
        changed=None,
    ) -> float:
        """The projection behind ``_value``; ``owned``: ``farm`` is a scratch copy it may change;
        ``tmpl``, ``changed``: see ``_Projection``."""
        equipment_draw, coins_per_action, spend_bonus, water_bonus, food_bonus, tower_bonus = self._pw
        y = _clip_year(year)
        ctx = self._ctx_at(year, in_harvest)
        # the bonuses below are about the farm as it is now
        remaining_actions = ACTIONS_PER_GAME - farm.actions_taken
        water_now, food_now = farm.water, farm.food
        towers = sum(1 for t, wt in farm.tower_water.items() if wt)
        f = farm if owned else farm.clone()
        proj = _Projection(self, f, ctx, tmpl, changed)
        extra = pending_equipment * equipment_draw
        spendable = f.coins
        start = year if not in_harvest else year + 1
        for yy in range(start, YEARS + 1):
            if yy > year:
                f.coins += _INCOME_COINS
                f.gain_food(_INCOME_FOOD)
                proj.store_water(_INCOME_WATER)
                if yy <= YEARS:
                    spendable += _INCOME_COINS
            before = f.coins
            extra += proj.harvest()
            if yy < YEARS:
                spendable += max(f.coins - before, 0)
        need = remaining_actions * coins_per_action
        value = proj.final_value() + extra
        value += spend_bonus * min(spendable, need)
        if remaining_actions > 0:
            value += water_bonus[y] * min(water_now, 4) + food_bonus[y] * min(food_now, 4)
            value += tower_bonus[y] * min(towers, 3)
        return value

    def _harvest_order_key(self, f: Farm, cell: int, ctx: _Ctx, consumers_ready: bool) -> float:
        """Priority of paying a harvest location next (higher first): free abilities and food
        producers before food consumers, unless the food would overflow while a consumer can eat."""
        m: _Model = self._model
        plans = m.card[f.grid[cell]].plans
        coins, water, food = m.harvest_cost(f, cell)
        gain_food = 0
        for plan in plans:
            if plan.kind == OP_GAIN:
                gain_food += m.plan_amounts(f, cell, plan).get("food", 0)
        overflow = f.food - food + gain_food > f.food_capacity
        if gain_food > food:
            if overflow and consumers_ready:
                return 5.0
            return (100.0 if not (coins or water or food) else 60.0) + gain_food
        if not (coins or water or food):
            return 90.0
        if food:
            return 20.0 + self._plans_value(f, cell, plans, ctx) / food
        return 40.0

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

    def _resolve_own(self, game: Game, p: int) -> int:
        """Finish the current action of seat ``p`` on a clone with the cheap sub-policies; returns
        the number of equipment draws left pending (their tiles are hidden, so they are not looked at).
        The actions come from the clone's legal list, so they are applied without re-checking."""
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
            game._apply(action)
            game._advance()
        return pending

    @staticmethod
    def _local_act(game: Game, p: int) -> bool:
        """True when seat ``p``'s pending act decision, once it and its own follow-up steps are done,
        leads straight to another seat's decision through steps that touch no farm and leave the year
        and phase as they are: the next act or pick of the turn (a pick's hand is not empty, an act's
        card is there), or the next turn's first pick. Then the act's outcome for ``p`` (its farm, the
        equipment draws left pending) depends only on ``p``'s farm, the action, the picked card, the
        year/phase and whether equipment tiles are left, and a clone need not copy the other farms.
        Not with ``auto_single`` (the engine would also play other seats' forced decisions)."""
        st = game._stack
        if getattr(game, "auto_single", True) or len(st) < 2 or st[-1][0] != "act" or st[-1][1] != p:
            return False
        below = st[-2]
        kind = below[0]
        if kind == "act":
            return below[1] != p and game.picks[below[1]] is not None
        if kind == "pick":
            return below[1] != p and bool(game.display if game.two_player else game.hands[below[1]])
        if kind == "after_turn2":  # 2 players: refill the display, then the other seat picks
            return (
                len(st) >= 4
                and st[-3] == ("turn2", below[1] + 1)
                and st[-4][0] == "pick"
                and st[-4][1] != p
                and bool(game.display)
            )
        if kind == "end_turn":  # 3-4 players: the next turn starts with the first player's pick
            return len(st) >= 3 and st[-3][0] == "turn" and not game.two_player and bool(game.hands[game.first_player])
        return False

    def _eval_prefix(self, game: Game, p: int, sid: int | None = None):
        """Key prefix of the lookahead memo for seat ``p``'s act decision on ``game`` (None: no memo).
        ``sid``: ``_sid(game.farms[p])`` if known."""
        if not self._local_act(game, p):
            return None
        if sid is None:
            sid = self._sid(game.farms[p])
        return (sid, game.picks[p], game.year, game.phase, bool(game.equipment_stack))

    def _evaluate(self, game: Game, p: int, action: int, prefix=_MISS) -> float:
        """Value for seat ``p`` of taking ``action`` (an act) now: apply it on a clone, finish it with the
        sub-policies, project. ``prefix``: ``_eval_prefix(game, p)`` if already known."""
        if prefix is _MISS:
            prefix = self._eval_prefix(game, p) if game.decision_kind == "act" else None
        if prefix is None or not self._stock:
            g = game.clone()
            g.apply(action)
            return self._value(g, p, self._resolve_own(g, p))
        sid, card, year, phase, tiles_left = prefix
        # the picked card only matters to a build (other actions discard it)
        key = (sid, action, card if self._decode(game.layout)[action][0] == "build" else None, year, phase, tiles_left)
        value = _lru_get(self._evals, key)
        if value is _MISS or _SETTINGS.VERIFY_CACHES:
            # a local act keeps the year and phase and never ends the game (see _local_act)
            done = self._direct_act(game, p, action)
            direct = (_farm_sig(done[0]), done[2]) if _SETTINGS.VERIFY_CACHES and done is not None else None
            if done is not None:
                f, cell, pending = done
                # the harvest locations away from the changed cell are as on the decision's farm
                in_harvest = phase == "harvest"
                fc = self._fc_by_sid(sid, year, max(YEARS - year + (0 if in_harvest else 1), 0))
                tmpl = fc.get("template")
                if tmpl is None:
                    tmpl = fc["template"] = self._template(game.farms[p])
                fresh = self._project(year, in_harvest, f, pending, owned=True, tmpl=tmpl, changed=cell)
            else:
                g = _clone_own(game, p)
                g._apply(action)
                g._advance()
                pending = self._resolve_own(g, p)
                fresh = self._project(g.year, g.phase == "harvest", g.farms[p], pending)
            if _SETTINGS.VERIFY_CACHES:
                full = game.clone()
                full.apply(action)
                pending = self._resolve_own(full, p)
                assert direct is None or direct == (_farm_sig(full.farms[p]), pending), action
                assert fresh == self._value(full, p, pending), (action, fresh)
                assert value is _MISS or value == fresh, (action, value, fresh)
            value = fresh
            _lru_put(self._evals, key, value, _EVAL_CAP)
        return value

    def _direct_act(self, game: Game, p: int, action: int) -> tuple[Farm, int | None, int] | None:
        """Seat ``p``'s farm after a local act (``_local_act``) done on a copy of the farm the way the
        engine does it (Game._act, _finish_build, _run_ops; FOG-ACT-*) with the bot's sub-policies: a
        market sale, a restore, a tower, silo or build after which no set-aside tile fits the new
        location (else attaching is a choice), a build whose water comes from a single tower, then its
        Immediate ability. None for the other acts (the engine plays those on a clone). Returns the
        farm, the one cell that changed (None for a market sale) and the equipment draws left pending.
        ``bots.VERIFY_CACHES`` checks it against the engine."""
        if game.phase == "harvest":
            return None
        kind, arg = self._decode(game.layout)[action]
        farm = game.farms[p]
        m: _Model = self._model
        ops: Sequence[dict] = ()
        if kind == "market":
            f = farm.clone()
            f.food -= arg
            f.coins += MARKET_BASE + MARKET_PER_FOOD * arg
        elif kind == "restore":
            f = farm.clone()
            f.coins -= RESTORE_COST
            f.fallow.discard(arg)
        elif kind == "build":
            card = game.picks[p]
            assert card is not None  # (an act decision follows the seat's pick)
            rec = m.card[card]
            if rec.kind == "immediate":
                ops = rec.effect
            tower = None
            if rec.water:
                towers = farm.towers_in_range(arg)
                if len(towers) != 1 or farm.tower_water[towers[0]] < rec.water:
                    return None
                tower = towers[0]
            f = farm.clone()
            f.coins -= rec.coins
            f.food -= rec.food
            if tower is not None:
                f.tower_water[tower] -= rec.water
            f.place(arg, card)
        elif kind == "tower":
            f = farm.clone()
            f.coins -= TOWER_COST
            f.place(arg, TOWER)
            f.tower_capacity[arg] = m.cards.tower_capacity
            f.tower_water[arg] = m.cards.tower_start_water
        elif kind == "silo":
            f = farm.clone()
            f.place(arg, SILO)
            f.silo_capacity[arg] = m.cards.silo_capacity
        else:
            return None
        if kind in ("build", "tower", "silo") and f.set_aside:
            tiles = m.tiles
            if any(game._tile_fits(f, tiles[t], arg) for t in f.set_aside):
                return None  # FOG-RUL-20: an attach decision follows
        pending = self._direct_ops(game, p, f, arg, ops) if ops else 0
        f.actions_taken += 1
        return f, (arg if kind != "market" else None), pending

    def _direct_ops(self, game: Game, p: int, f: Farm, arg: int, ops: Sequence[dict]) -> int:
        """The Immediate ability of the location just built at ``arg`` on the copy ``f`` (Game._run_ops),
        each choice by the bot's sub-policy; returns the equipment draws left pending."""
        m: _Model = self._model
        pending = 0
        for op in ops:
            if "gain" in op:
                self._direct_gain(f, m.gain_amounts(f, arg, op))
            elif not m.holds(f, arg, op):
                continue
            elif "gain_equipment" in op:
                if game.equipment_stack:
                    # the draw is valued as pending (tiles unseen); the rest of the ops wait behind it
                    pending = op["gain_equipment"]
                    break
            elif "raise_capacity" in op:
                target, by = op["raise_capacity"]["target"], op["raise_capacity"]["by"]
                if target == "host":
                    pool = f.tower_capacity if f.grid[arg] == TOWER else f.silo_capacity
                    pool[arg] += by
                else:  # _decide_ability_target
                    pool = f.tower_capacity if target == "tower" else f.silo_capacity
                    options = sorted(pool)
                    if len(options) > 1 and target == "tower":
                        t = max(options, key=lambda t: (self._tower_demand(f, t), f.tower_water[t], -t))
                    else:
                        t = options[0]
                    pool[t] += by
            elif "trade" in op:  # _decide_ability_option
                trade = op["trade"]
                pay = trade["pay"]
                options = [
                    k
                    for k in range(trade["max_times"] + 1)
                    if f.coins >= pay.get("coins", 0) * k and f.food >= pay.get("food", 0) * k
                ]
                k = options[0] if len(options) == 1 else self._trade_times(f, trade, self._ctx(game, p), options)
                if k:
                    f.coins -= pay.get("coins", 0) * k
                    f.food -= pay.get("food", 0) * k
                    self._direct_gain(f, {r: v * k for r, v in trade["gain"].items()})
        return pending

    def _direct_gain(self, f: Farm, amounts: dict) -> None:
        """Game._gain on a copy of the farm, water stored as ``_decide_store_water`` would."""
        f.coins += amounts.get("coins", 0)
        f.vp_tokens += amounts.get("vp", 0)
        if amounts.get("food"):
            f.gain_food(amounts["food"])
        if amounts.get("water"):
            self._direct_store_water(f, amounts["water"])

    def _direct_store_water(self, f: Farm, amount: int) -> None:
        """Game._gain_water with ``_decide_store_water`` choosing (outside the harvest): one token at a
        time while several towers have room, else all on the only tower with room."""
        while amount > 0:
            rooms = f.towers_with_room()
            if len(rooms) > 1:
                t = max(rooms, key=lambda t: (self._tower_demand(f, t) - f.tower_water[t], -t))
                f.tower_water[t] += 1
                amount -= 1
            else:
                if rooms:
                    t = rooms[0]
                    f.tower_water[t] = min(f.tower_capacity[t], f.tower_water[t] + amount)
                return

    def _act_candidates(
        self,
        game: Game,
        p: int,
        legal: Sequence[int],
        card: int | None,
        cells: int | None = None,
        sid: int | None = None,
        pool: int = 0,
    ) -> list[int]:
        """Prune the act decision: best cells by the cheap estimates, every market and restore.
        ``sid``: ``_sid(game.farms[p])`` if known; ``pool``: see ``HeuristicWeights.pick_pool``.

        Speed: the builds and the other acts are pruned separately and each half is memoised in the farm
        state's table (``_fc``), so the act decision reuses the halves its pick computed (the pick asks
        for them one at a time). The result is the same list in the same order as pruning ``legal`` in
        one go: the others, the best builds, the best towers, the best silos (the order matters: each
        candidate draws its jitter in turn)."""
        decoded = self._decode(game.layout)
        ctx = self._ctx(game, p)
        fc = self._fc(game.farms[p], ctx) if sid is None else self._fc_by_sid(sid, ctx.year, ctx.harvests)
        builds: list[int] = []
        rest: list[int] = []
        for a in legal:
            (builds if decoded[a][0] == "build" else rest).append(a)
        build_cells = self.w.build_cells if cells is None else cells
        out: list[int] = []
        tail: list[int] = []
        if rest:
            key: tuple = ("others", tuple(rest))
            hit = fc.get(key)
            if hit is None or _SETTINGS.VERIFY_CACHES:
                fresh = self._prune(game, p, rest, card, build_cells, fc, ctx, 0)
                assert hit is None or hit == fresh
                hit = fc[key] = fresh
            out += hit[0]
            tail = hit[2] + hit[3]
        if builds:
            key = ("builds", card, build_cells, pool, tuple(builds))
            hit = fc.get(key)
            if hit is None or _SETTINGS.VERIFY_CACHES:
                fresh = self._prune(game, p, builds, card, build_cells, fc, ctx, pool)
                assert hit is None or hit == fresh
                hit = fc[key] = fresh
            out += hit[1]
        return out + tail

    def _prune(
        self,
        game: Game,
        p: int,
        legal: Sequence[int],
        card: int | None,
        build_cells: int,
        fc: dict,
        ctx: _Ctx,
        pool: int,
    ) -> tuple[list[int], list[int], list[int], list[int]]:
        """``_act_candidates`` of one half: (others, best builds, best towers, best silos)."""
        decoded = self._decode(game.layout)
        farm = game.farms[p]
        builds, towers, silos, others = [], [], [], []
        m: _Model = self._model
        flat_ok = card is not None and not m.counting[card]
        if flat_ok:
            # a counter-free card at a cell no neighbour scores: its estimate is one per-card value (as
            # _quick_build_now's "flat" case, without a call per cell)
            touchy = fc.get("touchy")
            if touchy is None:
                touchy = fc["touchy"] = self._touchy_cells(farm)
            touchy_cells: set[int] = touchy
            equipment = farm.equipment
            flats: dict[bool | None, float] = {}
        cells_in = None
        if pool:
            # only the ``pool`` legal cells with the most occupied neighbours (a narrower search)
            rank = fc.get("rank")
            if rank is None:
                grid, nbrs = farm.grid, farm.geometry.neighbours
                order = sorted(farm.frontier, key=lambda c: (-sum(1 for n in nbrs[c] if grid[n] != EMPTY), c))
                rank = fc["rank"] = {c: i for i, c in enumerate(order)}
            ranked = sorted(
                (rank.get(decoded[a][1], 1 << 30), decoded[a][1]) for a in legal if decoded[a][0] == "build"
            )
            cells_in = {c for _, c in ranked[:pool]}
        for a in legal:
            kind, arg = decoded[a]
            if kind == "build":
                assert card is not None  # (a build is always of the picked card)
                if cells_in is not None and arg not in cells_in:
                    continue
                if flat_ok and arg not in touchy_cells and arg not in equipment:
                    own = self._own_in(fc, farm, card, arg, ctx)
                    in_range: bool | None = True
                    if own[1]:
                        in_range = self._range_in(fc, farm, arg)
                    value = flats.get(in_range)
                    if value is None:
                        value = flats[in_range] = self._quick_build(farm, card, arg, ctx, fc)
                    builds.append((-value, a))
                else:
                    builds.append((-self._quick_build(farm, card, arg, ctx, fc), a))
            elif kind == "tower":
                towers.append((-self._quick_structure(farm, "tower", arg, fc), a))
            elif kind == "silo":
                silos.append((-self._quick_structure(farm, "silo", arg, fc), a))
            else:
                others.append(a)
        if self.w.market_sales:
            # only the largest sales (the action's argument is the food sold)
            sales = sorted((a for a in others if decoded[a][0] == "market"), key=lambda a: -decoded[a][1])
            dropped = set(sales[self.w.market_sales :])
            others = [a for a in others if a not in dropped]
        chosen = []
        for group, n in ((builds, build_cells), (towers, self.w.structure_cells), (silos, self.w.structure_cells)):
            group.sort()  # (-estimate, action): best first, the lowest action among equals
            chosen.append([a for _, a in group[:n]])
        return others, chosen[0], chosen[1], chosen[2]

    def _best_act(self, game, p: int, legal: Sequence[int]) -> tuple[int, float, dict]:
        card = game.picks[p]
        prefix = self._eval_prefix(game, p)
        values = {}
        pool = self.w.pick_pool if self.w.pool_in_act else 0
        for a in self._act_candidates(game, p, legal, card, pool=pool):
            values[a] = self._evaluate(game, p, a, prefix) + self._jitter()
        best = max(values, key=lambda a: (values[a], -a))
        return best, values[best], values

    # ------------------------------------------------------------------ decisions

    def _decide_act(self, game, legal):
        return self._best_act(game, game.current_player, legal)[0]

    def _decide_pick(self, game: Game, legal: list[int]) -> int:
        """Evaluate the best action reachable with each card (build at the best cells, or any of the
        card-independent actions), then take the best card; among equals, deny the card the player
        receiving the hand values most."""
        p = game.current_player
        assert p is not None  # (a decision has a seat; typed, the loop below reads the game natively)
        m: _Model = self._model
        source = game.display if game.two_player else game.hands[p]
        layout = game.layout
        decoded = self._decode(layout)
        results: dict[int, float] = {}
        alternative = None  # best value of actions that do not depend on the card
        seen: dict[int, float] = {}
        sid = self._sid(game.farms[p])  # picking does not change the farm
        reuse: Game | None = None  # a hypothetical clone whose act is local: the next card only swaps its pick
        for a in legal:
            slot = decoded[a][1]
            card = source[slot]
            design = m.design[card]
            if design in seen:
                results[a] = seen[design]
                continue
            if reuse is not None:
                # the act and all that follows it up to the next seat's decision read the picked card,
                # never which cards stayed in the hand (see _local_act)
                g = reuse
                g.picks[p] = card
                g._legal = None
                if _SETTINGS.VERIFY_CACHES:
                    fresh = self._hypothetical_act(game, p, a)
                    assert fresh is not None and fresh.legal_actions() == g.legal_actions()
                    assert self._eval_prefix(fresh, p) == self._eval_prefix(g, p)
            else:
                made = self._hypothetical_act(game, p, a)
                if made is None:  # the engine's frames changed: fall back to the cheap estimate
                    ctx = self._ctx(game, p)
                    results[a] = seen[design] = self._quick_card(game.farms[p], card, ctx)
                    continue
                g = made
            prefix = self._eval_prefix(g, p, sid)
            if prefix is not None and reuse is None and self._stock:
                reuse = g
            if alternative is None:
                act_legal = g.legal_actions()
                build_actions = [x for x in act_legal if decoded[x][0] == "build"]
                other = [x for x in act_legal if decoded[x][0] != "build"]
                alternative = (
                    max(self._evaluate(g, p, x, prefix) for x in self._act_candidates(g, p, other, card, sid=sid))
                    if other
                    else -1e9
                )
            else:
                # the other acts do not depend on the card, and are valued once above: only the builds
                build_actions = g.build_actions()
            value = alternative
            if build_actions:
                candidates = self._act_candidates(
                    g, p, build_actions, card, self.w.pick_cells, sid=sid, pool=self.w.pick_pool
                )
                value = max(value, max(self._evaluate(g, p, x, prefix) for x in candidates))
            seen[design] = value
            results[a] = value
        if self.w.deny and not game.two_player:
            receiver = self._receiver(game, p)
            if receiver is not None:
                ctx = self._ctx(game, receiver)
                farm = game.farms[receiver]
                fc = self._fc(farm, ctx)
                for a in results:
                    card = source[decoded[a][1]]
                    results[a] += self.w.deny * max(0.0, self._quick_card(farm, card, ctx, fc=fc))
        for a in results:
            results[a] += self._jitter()
        return max(results, key=lambda a: (results[a], -a))

    @staticmethod
    def _hypothetical_act(game: Game, p: int, pick_action: int) -> Game | None:
        """A clone where seat ``p`` has picked and must now choose its action with that card. With 2
        players the act follows the pick at once; with 3-4 players the other picks and the reveal
        come first, so the clone gets an ``("act", p)`` decision frame on top (engine internals:
        returns None if that does not give seat ``p``'s act decision). When the pick leads straight
        to another decision without touching a farm, only ``p``'s farm is copied."""
        st = game._stack
        below = st[-2] if len(st) >= 2 else None
        local = (
            not getattr(game, "auto_single", True)
            and below is not None
            and (
                (game.two_player and below == ("act", p))
                or (not game.two_player and below == ("reveal",))
                or (not game.two_player and below[0] == "pick" and below[1] != p and bool(game.hands[below[1]]))
            )
        )
        if local:
            g = _clone_own(game, p)
            g._apply(pick_action)  # a legal pick: the clone's history is not needed
            g._advance()
        else:
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
            _FALLBACKS[0] += 1
        return None

    def _receiver(self, game, p: int) -> int | None:
        if game.turn >= TURNS:  # nothing is passed after the last turn (FOG-ACT-8)
            return None
        step = 1 if game.direction == "clockwise" else -1
        return (p + step) % game.num_players

    def _quick_card(self, farm: Farm, card: int, ctx: _Ctx, cells: int = 4, fc: dict | None = None) -> float:
        """Cheap value of a card on a farm: best of a few frontier cells (no cost-legality check
        beyond coins and water range)."""
        if fc is None:
            fc = self._fc(farm, ctx)
        key = _fkey(_FK_CARD, card, cells)
        value = fc.get(key)
        if value is not None:
            return value
        m: _Model = self._model
        rec = m.card[card]
        fkey = ("frontier", rec.water, cells)
        frontier = fc.get(fkey)
        if frontier is None:
            frontier = sorted(farm.frontier)
            if rec.water:
                frontier = [c for c in frontier if farm.water_in_range(c) >= rec.water]
            if len(frontier) > cells:
                grid = farm.grid
                frontier.sort(key=lambda c: -sum(1 for n in farm.geometry.neighbours[c] if grid[n] != EMPTY))
                frontier = frontier[:cells]
            fc[fkey] = frontier
        if not frontier:
            fc[key] = 0.0
            return 0.0
        best = max(self._quick_build(farm, card, c, ctx, fc) for c in frontier)
        best += self._global_delta(farm, card, frontier[0], ctx, fc)
        if farm.coins < rec.coins or farm.food < rec.food:
            best -= 1.0
        fc[key] = best
        return best

    def _decide_split(self, game, legal):
        """Desirability of each pile = mean of its designs' two best cheap values for this farm,
        weighted by copies; the split maximises sum(d_pile * (1 + 0.75 + 0.75^2 ...)) over the
        legal splits, so the draw leans to good piles but still spreads (FOG-DRAW-3)."""
        p = game.current_player
        farm = game.farms[p]
        ctx = self._ctx(game, p)
        fc = self._fc(farm, ctx)
        m: _Model = self._model
        sizes = [len(pile) for pile in game.piles]
        own_cell = None  # split_own: every design valued at the frontier cell with the most occupied neighbours
        if self.w.split_own and farm.frontier:
            grid, nbrs = farm.grid, farm.geometry.neighbours
            own_cell = min(farm.frontier, key=lambda c: (-sum(1 for n in nbrs[c] if grid[n] != EMPTY), c))
        desirability = []
        for i, pile in enumerate(PILES):
            if not sizes[i]:
                desirability.append(0.0)
                continue
            values = {}
            for card in m.pile_cards[pile]:
                d = m.design[card]
                if d not in values:
                    if own_cell is not None:
                        values[d] = (self._split_own_value(farm, card, own_cell, ctx, fc), m.locs[card].copies)
                    else:
                        values[d] = (self._quick_card(farm, card, ctx, self.w.split_cells, fc), m.locs[card].copies)
            total = sum(c for _, c in values.values())
            desirability.append(sum(max(v, 0.0) * c for v, c in values.values()) / total)
        decoded = self._decode(game.layout)
        best, best_value = legal[0], -1e18
        for a in legal:
            split = SPLITS[decoded[a][1]]
            value = 0.0  # (the sum in pile order, as sum() adds it)
            for i in range(4):
                value += desirability[i] * _DRAW_WEIGHT[split[i]] / 0.25
            value += self._jitter()
            if value > best_value:
                best, best_value = a, value
        return best

    def _split_own_value(self, farm: Farm, card: int, cell: int, ctx: _Ctx, fc: dict) -> float:
        """The draw split's cheaper design value (``split_own``): the card's own value (``_own_value``: printed
        VP and its ability, with a tower in range) at ``cell``, minus its build cost; not what it adds to its
        neighbours' or farm-wide abilities, no water range or affordability check."""
        key = _fkey(_FK_SPLIT_OWN, card, cell)
        value = fc.get(key)
        if value is None:
            m: _Model = self._model
            rec = m.card[card]
            own = self._own_value(farm, card, cell, ctx)[0]
            value = fc[key] = own - rec.coins * ctx.coin - rec.water * ctx.water - rec.food * ctx.food
        return value

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
        m: _Model = self._model
        tile, plans = m.tiles[tile_id], m.tile_plans[tile_id]
        ctx = self._ctx(game, p)
        harvests = ctx.harvests
        if game.phase == "harvest" and cell not in game.harvested:
            harvests += 1  # FOG-RUL-18: usable in this harvest
        if tile.timing == "on_place":
            return self._plans_value(farm, cell, plans, ctx)
        if tile.timing == "end_game":
            return self._plans_value(farm, cell, plans, ctx, vp_only=True)
        if tile.timing == "harvest":
            return self._plans_value(farm, cell, plans, ctx) * harvests
        value = 0.0  # permanent
        coins, water, food = self._harvest_cost(farm, cell) if farm.grid[cell] >= 0 else (0, 0, 0)
        for op in tile.effect:
            d = op.get("harvest_discount")
            if d:
                saved = {
                    "coins": min(d.get("coins", 0), coins),
                    "water": min(d.get("water", 0), water),
                    "food": min(d.get("food", 0), food),
                }
                value += ctx.value(saved) * harvests
            rc = op.get("raise_capacity")
            if rc:
                value += 0.3 * rc["by"] if harvests else 0.0
        return value

    def _best_host(self, game, p: int, tile_id: int) -> tuple[float, int | None]:
        farm = game.farms[p]
        best: tuple[float, int | None] = (self._tile_value(game, p, tile_id, None), None)
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


# The lighter search of ``LiteHeuristicBot``: one cell per card in the pick, two for the picked card, one
# tower and one silo cell, one frontier cell per design in the draw split (docs/fields_of_green/bots.md).
LITE_WEIGHTS = HeuristicWeights(pick_cells=1, build_cells=2, structure_cells=1, split_cells=1)


@mypyc_attr(allow_interpreted_subclasses=True)
class LiteHeuristicBot(HeuristicBot):
    """``HeuristicBot`` with a narrower search (``LITE_WEIGHTS``): about 1.3x less CPU per decision, as strong
    as the full bot in a 2,000-game head-to-head (docs/fields_of_green/bots.md, "A lighter search"). Not the
    default: the golden games and the published baselines are the full bot's ("heuristic")."""

    name = "heuristic_lite"

    def __init__(self, seed: int = 0, weights: HeuristicWeights | None = None, **overrides):
        super().__init__(seed, weights or LITE_WEIGHTS, **overrides)


# The cheaper search of ``FastHeuristicBot`` (the default ``heuristic``): LITE_WEIGHTS with only the largest market
# sale looked at and the draw split by each design's own value (docs/fields_of_green/bots.md, "A cheaper search").
FAST_WEIGHTS = replace(LITE_WEIGHTS, market_sales=1, split_own=True)


@mypyc_attr(allow_interpreted_subclasses=True)
class FastHeuristicBot(HeuristicBot):
    """``HeuristicBot`` with ``FAST_WEIGHTS``: the lite search (one projected cell per card at the pick, two at
    the act, one tower and one silo cell), the largest market sale only, and a draw split by the designs' own
    values (docs/fields_of_green/bots.md, "A cheaper search")."""

    name = "heuristic_fast"

    def __init__(self, seed: int = 0, weights: HeuristicWeights | None = None, **overrides):
        super().__init__(seed, weights or FAST_WEIGHTS, **overrides)
