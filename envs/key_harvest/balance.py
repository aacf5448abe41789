"""What the balance report counts for Key Harvest beyond scores and seats: workers, events and the counters.

``farmgames balance --game key_harvest`` (:mod:`farmgames.training.balance`) finds this module and merges
its items into the generic report (issue 10: are the invented worker benefits and events, KH-RULING-4/5/6,
flooding the counter economy?). Nothing here re-implements a rule: :class:`SeatItems` reads the engine's
public state and its pending decision frame (``game.frame``, the §16 phase with its context) before every
action, and the state the engine reached afterwards.

* :class:`SeatItems` follows one game: turns; per worker kind how often it is played (action (b) or a
  Hiring Fair), re-placed, replaced by a higher worker, displaced by a field tile and removed; events drawn
  and how many players acted on them; the general stock, the supplies and the bids sampled at the first
  decision of every turn; bids, purchases from stores, harvests; and every counter taken from or returned
  to the general stock, by its source (harvest action, each benefit, each event, store bids);
* :func:`aggregate` turns the per-game records into the report's statistics;
* :func:`headline` and :func:`sections` render them, with an "economy" paragraph written from the figures.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from .actions import DONE, HARVEST, REGISTRY0, SPACE0, STORE0
from .board import (
    CROPS,
    EVENT_TILES,
    EVENTS,
    NUM_CROPS,
    STORE_SPACES,
    TOTAL_COUNTERS,
    WORKERS,
    worker_kind,
)
from .game import EVENT0

__all__ = ["PARTS", "PARTS_LABEL", "SCORE_UNIT", "SeatItems", "aggregate", "headline", "sections"]

SCORE_UNIT = "points"
PARTS = ("largest_group", "second_group", "group_points", "worker_points", "crop_points", "field_tiles", "counters")
PARTS_LABEL = "part (KH-SCORE-1..10; field_tiles and counters are the tie-break keys)"

WORKER_NAMES: tuple[str, ...] = tuple(w.name for w in WORKERS)
EVENT_NAMES: tuple[str, ...] = tuple(e.name for e in EVENTS)
WORKER_FIELDS = ("played", "by_action", "by_hiring_fair", "re_placed", "replaced", "displaced", "removed", "benefits")
BUCKETS = 5  # the game's turns split into fifths for the trend of the counters
HARVEST_SOURCES = ("harvest (a)", "Harvest Festival", "Reeve", "Miller", "Foreman", "Unskilled")
END_SOURCE = "store bids at the end"
OWN_STORE_SOURCE = "own store bought"
# Source order of the flow table: the harvest action, benefits (KH-RULING-4/5), events (KH-RULING-6), bids.
SOURCES = (
    "harvest (a)",
    "Apprentice",
    "Unskilled",
    "Labourer",
    "Foreman",
    "Miller",
    "Brewer",
    "Merchant",
    "Reeve",
    "Harvest Festival",
    "Market Day",
    "Tithe",
    OWN_STORE_SOURCE,
    END_SOURCE,
)

# When the economy "floods" (the verdict of the economy paragraph; thresholds documented in the report).
EMPTY_STOCK_LIMIT = 0.10  # general stock completely empty at 10 % or more of the turn starts
LOST_GAINS_LIMIT = 0.05  # 5 % or more of the harvested tiles yielded nothing (KH-ACT-HARVEST-9)
INVENTED_SHARE_LIMIT = 0.5  # benefits and events bring half or more of the counters taken from the stock


# --------------------------------------------------------------------------------------------
# One game


def _label(game: Any, f: tuple, previous: str | None) -> str:
    """The source of what a decision moves between the general stock and the supplies (the decision and the
    automatic steps after it, e.g. the Miller's harvest after its placement). Read from the frame."""
    name = f[0]
    if name == "harvest":
        if not f[2]:
            return "harvest (a)"  # a turn or extra action (a) (KH-ACT-HARVEST-13: 0 is not free)
        return "Harvest Festival" if _event(game) == "Harvest Festival" else "Reeve"
    if name == "pick":
        return {"unskilled": "Unskilled", "foreman": "Foreman", "casual": "Casual", "rain": "Spring Rain"}[f[2]]
    if name == "crop":
        return "Apprentice" if f[2] == "apprentice" else "Brewer"
    if name == "give":
        return {2: "Labourer", 3: "Market Day"}.get(f[2], "Merchant")
    if name in ("subst", "take"):  # a substitute crop or the take phase: part of the step before
        return previous or name
    if name in ("space", "replace"):
        return WORKER_NAMES[worker_kind(f[2])]
    if name == "tithe":
        return "Tithe"
    if name == "store":
        return OWN_STORE_SOURCE  # KH-ACT-PLACE-2: only the own store's bid goes back to the stock
    if name == "survey":
        return "Surveyor"
    return name


def _event(game: Any) -> str | None:
    """The event being resolved (events never nest: effects inside one start no refill, KH-DRAW-6)."""
    return EVENT_NAMES[EVENT_TILES[game.events[-1] - EVENT0]] if game.event_depth and game.events else None


def _unharvested(game: Any) -> int:
    return sum(m.bit_count() for m in game.unharvested)


class SeatItems:
    """Counts of one game (see the module docstring); ``on_action`` sees the state before each action."""

    def __init__(self, game: Any):
        n = game.num_players
        self.n = n
        self.workers = {w: Counter() for w in WORKER_NAMES}
        self.played_by_seat = [Counter() for _ in range(n)]
        self.event_asked: Counter = Counter()  # entry decisions of an event, per kind
        self.event_acted: Counter = Counter()
        self.letters: Counter = Counter()  # turn actions (KH-TURN-2) by letter
        self.extra: Counter = Counter()  # extra actions taken (KH-RULING-14), by letter; "declined"
        self.harvests = Counter()  # action (a): "turn", "extra", "tiles"
        self.bid_sizes: list[int] = []
        self.bid_of_tile: dict[int, int] = {}
        self.purchases: Counter = Counter()  # own / other, by context; "price"
        self.surveyed = 0
        self.flow: Counter = Counter()  # source -> counters taken from the general stock (negative: returned)
        self.harvested: Counter = Counter()  # source -> tiles turned to the harvested side
        self.turned_back: Counter = Counter()
        self.samples: list[tuple[int, int, tuple[int, ...], tuple[int, ...], int]] = []
        self.end_trigger_turn: int | None = None
        self._store_ctx = "turn"
        self._label: str | None = None
        self._stock = sum(game.stock)
        self._unharv = _unharvested(game)
        self._turn = -1
        self._prev_turns = 0

    # ------------------------------------------------------------------ per decision

    def _settle(self, game: Any) -> None:
        """Book what the previous decision (and the automatic steps after it) moved."""
        if self._label is None:
            return
        stock, unharv = sum(game.stock), _unharvested(game)
        if self._stock != stock:
            self.flow[self._label] += self._stock - stock
        if unharv < self._unharv:
            self.harvested[self._label] += self._unharv - unharv
        elif unharv > self._unharv and self._label in ("Casual", "Spring Rain"):
            self.turned_back[self._label] += unharv - self._unharv
        self._stock, self._unharv = stock, unharv

    def on_action(self, game: Any, seat: int, action: int) -> None:
        """Called with the state before ``action`` is applied."""
        self._settle(game)
        f = game.frame
        name = f[0]
        if game.end_triggered and self.end_trigger_turn is None:  # drawn after the previous decision
            self.end_trigger_turn = self._prev_turns + 1  # 1-based turn number
        self._prev_turns = game.turns
        if name == "turn":
            if game.turns != self._turn:  # the first decision of a turn: nothing of it has happened yet
                self._turn = game.turns
                self._sample(game)
            if action != DONE:
                self.letters[action] += 1
                self._store_ctx = "turn"
                if action == HARVEST:
                    self.harvests["turn"] += 1
        elif name == "extra":
            self.extra[action] += 1
            self._store_ctx = "extra"
            if action == HARVEST:
                self.harvests["extra"] += 1
        elif name == "harvest" and not f[2] and action != DONE:
            self.harvests["tiles"] += 1
        elif name in ("space", "replace"):
            self._worker(game, f, action)
        elif name == "remove":
            self.workers[WORKER_NAMES[worker_kind(game.worker_at[f[1]][action - SPACE0])]]["removed"] += 1
        elif name == "registry" and action != DONE:
            self.bid_sizes.append(0)
            self.bid_of_tile[game.registry[action - REGISTRY0]] = 0
        elif name == "bid" and action != DONE:  # one counter more on the tile just taken (KH-ACT-BID-3)
            self.bid_sizes[-1] += 1
            self.bid_of_tile[game.store[f[1]][f[2]]] += 1
        elif name == "store" and action != DONE:
            self._purchase(game, f[1], action)
        elif name == "survey" and action != DONE:
            self.surveyed += 1
            self._displaced(game, f[1], game.registry[action - REGISTRY0])
        elif name == "deed":
            self._store_ctx = "Deed Day"
        self._event_entry(game, f, action)
        self._label = _label(game, f, self._label)

    def _sample(self, game: Any) -> None:
        bids = sum(sum(b) for row in game.bids for b in row)
        self.samples.append((game.turns, sum(game.stock), tuple(game.stock), tuple(sum(s) for s in game.supply), bids))

    def _worker(self, game: Any, f: tuple, action: int) -> None:
        _, p, tile, ctx = f
        w = self.workers[WORKER_NAMES[worker_kind(tile)]]
        if f[0] == "space":
            w["played"] += 1
            w["by_hiring_fair" if ctx == "hiring" else "by_action"] += 1
            w["benefits"] += 1  # KH-ACT-WORKER-8: every newly placed worker
            self.played_by_seat[p][WORKER_NAMES[worker_kind(tile)]] += 1
        else:
            if action == DONE:
                return
            w["re_placed"] += 1
            if not ctx and not game.rebenefit >> tile & 1:  # KH-ACT-PLACE-11 (1) and (2)
                w["benefits"] += 1
        old = game.worker_at[p][action - SPACE0]
        if old >= 0:  # KH-ACT-WORKER-5/6: a lower own worker goes back
            self.workers[WORKER_NAMES[worker_kind(old)]]["replaced"] += 1

    def _displaced(self, game: Any, p: int, tile: int) -> None:
        old = game.worker_at[p][tile]
        if old >= 0:  # KH-ACT-PLACE-6
            self.workers[WORKER_NAMES[worker_kind(old)]]["displaced"] += 1

    def _purchase(self, game: Any, p: int, action: int) -> None:
        o, k = divmod(action - STORE0, STORE_SPACES)
        owner = game.store_owner(p, o)
        tile = game.store[owner][k]
        who = "own" if owner == p else "other"
        self.purchases[who] += 1
        self.purchases[f"{who}_price"] += sum(game.bids[owner][k])
        self.purchases[self._store_ctx] += 1
        self.bid_of_tile.pop(tile, None)
        self._displaced(game, p, tile)

    def _event_entry(self, game: Any, f: tuple, action: int) -> None:
        """The first decision an event asks of a player (KH-RULING-6), and whether the player acted."""
        kind = _event(game)
        if kind is None:
            return
        name = f[0]
        entry = (
            (kind == "Harvest Festival" and name == "harvest" and not f[3])
            or (kind == "Hiring Fair" and name == "hiring")
            or (kind == "Spring Rain" and name == "pick" and f[2] == "rain" and f[3] == 2)
            or (kind == "Market Day" and name == "give" and f[2] == 3 and f[4] == 0)
            or (kind == "Deed Day" and name == "deed")
            or (kind == "Tithe" and name == "tithe")
            or (kind == "Enclosure" and name == "enclose")
        )
        if entry:
            self.event_asked[kind] += 1
            self.event_acted[kind] += action != DONE

    # ------------------------------------------------------------------ the end

    def result(self, game: Any) -> dict[str, Any]:
        self._settle(game)
        # KH-END-5: the bids of tiles left in stores went back to the stock after the last decision
        left = [t for row in game.store for t in row if t >= 0]
        returned = sum(self.bid_of_tile.get(t, 0) for t in left)
        if returned and self._label is not None:
            self.flow[self._label] += returned
            self.flow[END_SOURCE] -= returned
        drawn = Counter(EVENT_NAMES[EVENT_TILES[t - EVENT0]] for t in game.events)
        removed = Counter(EVENT_NAMES[EVENT_TILES[t - EVENT0]] for t in game.removed)
        on_board = Counter(WORKER_NAMES[worker_kind(t)] for t, s in enumerate(game.worker_space) if s >= 0)
        for w in WORKER_NAMES:
            self.workers[w]["on_board_end"] = on_board[w]
        turns = game.turns
        return {
            "turns": turns,
            "rounds": game.rounds,
            "truncated": bool(game.truncated),
            "end_trigger_turn": self.end_trigger_turn,
            "workers": {w: {k: c[k] for k in (*WORKER_FIELDS, "on_board_end")} for w, c in self.workers.items()},
            "played_by_seat": [dict(c) for c in self.played_by_seat],
            "events_drawn": dict(drawn),
            "events_removed": dict(removed),
            "event_asked": dict(self.event_asked),
            "event_acted": dict(self.event_acted),
            "letters": {str(k): v for k, v in self.letters.items()},
            "extra": {str(k): v for k, v in self.extra.items()},
            "harvests": dict(self.harvests),
            "bid_sizes": self.bid_sizes,
            "store_left": len(left),
            "store_left_bids": returned,
            "purchases": dict(self.purchases),
            "surveyed": self.surveyed,
            "flow": dict(self.flow),
            "harvested": dict(self.harvested),
            "turned_back": dict(self.turned_back),
            "counters": self._counters(game, turns),
        }

    def _counters(self, game: Any, turns: int) -> dict[str, Any]:
        """The turn-start samples of one game, summarised (means, maxima, empty stock, fifths of the game)."""
        s = self.samples
        n = self.n
        if not s:
            return {"samples": 0}
        fifths: list[list[tuple]] = [[] for _ in range(BUCKETS)]
        for x in s:
            fifths[min(BUCKETS - 1, x[0] * BUCKETS // max(1, turns))].append(x)

        def mean(xs: list[float]) -> float | None:
            return statistics.fmean(xs) if xs else None

        return {
            "samples": len(s),
            "stock_mean": mean([x[1] for x in s]),
            "stock_min": min(x[1] for x in s),
            "stock_empty": sum(1 for x in s if x[1] == 0),
            "crop_empty": [sum(1 for x in s if x[2][c] == 0) for c in range(NUM_CROPS)],
            "any_crop_empty": sum(1 for x in s if 0 in x[2]),
            "supply_mean": [mean([x[3][p] for x in s]) for p in range(n)],
            "supply_max": [max(x[3][p] for x in s) for p in range(n)],
            "bids_mean": mean([x[4] for x in s]),
            "fifths": [
                {
                    "stock": mean([x[1] for x in b]),
                    "supply": mean([x[3][p] for x in b for p in range(n)]),
                    "bids": mean([x[4] for x in b]),
                }
                for b in fifths
            ],
            "end": {"stock": sum(game.stock), "supply": [sum(x) for x in game.supply]},
        }


# --------------------------------------------------------------------------------------------
# Many games


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def _rate(a: float, b: float) -> float | None:
    return a / b if b else None


def _worker_rows(games: list[dict]) -> list[dict]:
    ng = len(games) or 1
    rows = []
    for w in WORKERS:
        tot: Counter = Counter()
        players = wins = 0
        for g in games:
            tot.update(g["workers"][w.name])
            won = set(g["winners"])
            for seat, played in enumerate(g["played_by_seat"]):
                if played.get(w.name):
                    players += 1
                    wins += seat in won
        row: dict[str, Any] = {
            "name": w.name,
            "number": w.number,
            "kind": "townsfolk" if w.townsfolk else "farmhand",
            "benefit": w.benefit,
        }
        row.update({f: tot[f] / ng for f in (*WORKER_FIELDS, "on_board_end")})
        row["players"] = players
        row["player_win_rate"] = _rate(wins, players)
        rows.append(row)
    return rows


def _resolvers(who: str, players: int) -> int:
    """Players an event tile is resolved for (KH-EVENT-3, KH-RULING-6: all, all but the active, the active)."""
    return {"all": players, "others": players - 1, "active": 1}[who]


def _event_rows(games: list[dict]) -> list[dict]:
    ng = len(games) or 1
    rows = []
    for e in EVENTS:
        drawn = sum(g["events_drawn"].get(e.name, 0) for g in games)
        removed = sum(g["events_removed"].get(e.name, 0) for g in games)
        resolutions = sum(g["events_drawn"].get(e.name, 0) * _resolvers(e.who, g["players"]) for g in games)
        asked = sum(g["event_asked"].get(e.name, 0) for g in games)
        acted = sum(g["event_acted"].get(e.name, 0) for g in games)
        rows.append(
            {
                "name": e.name,
                "who": e.who,
                "copies": e.count,
                "removed": removed / ng,
                "drawn": drawn / ng,
                "draw_rate": _rate(drawn, e.count * len(games) - removed),
                "resolutions": resolutions,
                "asked": asked,
                "acted": acted,
                "acted_rate": _rate(acted, resolutions),
            }
        )
    return rows


def _economy(games: list[dict]) -> dict[str, Any]:
    cs = [g["counters"] for g in games if g["counters"].get("samples")]
    samples = sum(c["samples"] for c in cs)
    flow: Counter = Counter()
    harvested: Counter = Counter()
    turned_back: Counter = Counter()
    for g in games:
        flow.update(g["flow"])
        harvested.update(g["harvested"])
        turned_back.update(g["turned_back"])
    ng = len(games) or 1
    taken = sum(v for v in flow.values() if v > 0)
    invented = sum(v for k, v in flow.items() if v > 0 and k != "harvest (a)")
    tiles = sum(harvested[s] for s in HARVEST_SOURCES)
    gained = sum(max(0, flow[s]) for s in HARVEST_SOURCES)
    fifths = []
    for i in range(BUCKETS):
        parts = [c["fifths"][i] for c in cs if c["fifths"][i]["stock"] is not None]
        fifths.append({k: _mean([p[k] for p in parts]) for k in ("stock", "supply", "bids")})
    return {
        "total_counters": TOTAL_COUNTERS,
        "samples": samples,
        "unsampled": sum(g["turns"] for g in games) - samples,
        "stock_mean": _mean([c["stock_mean"] for c in cs]),
        "stock_min_mean": _mean([c["stock_min"] for c in cs]),
        "stock_empty_rate": _rate(sum(c["stock_empty"] for c in cs), samples),
        "any_crop_empty_rate": _rate(sum(c["any_crop_empty"] for c in cs), samples),
        "crop_empty_rate": {CROPS[k]: _rate(sum(c["crop_empty"][k] for c in cs), samples) for k in range(NUM_CROPS)},
        "games_stock_ever_empty": sum(1 for c in cs if c["stock_empty"]),
        "supply_mean": _mean([x for c in cs for x in c["supply_mean"]]),
        "supply_max_mean": _mean([x for c in cs for x in c["supply_max"]]),
        "supply_max": max((x for c in cs for x in c["supply_max"]), default=0),
        "supply_by_seat": [
            {
                "mean": _mean([c["supply_mean"][p] for c in cs]),
                "max_mean": _mean([c["supply_max"][p] for c in cs]),
                "max": max(c["supply_max"][p] for c in cs),
            }
            for p in range(min((len(c["supply_mean"]) for c in cs), default=0))
        ],
        "bids_mean": _mean([c["bids_mean"] for c in cs]),
        "fifths": fifths,
        "end_stock": _mean([c["end"]["stock"] for c in cs]),
        "end_supply": _mean([x for c in cs for x in c["end"]["supply"]]),
        "flow_per_game": {k: flow[k] / ng for k in (*SOURCES, *sorted(set(flow) - set(SOURCES)))},
        "harvested_per_game": {k: harvested[k] / ng for k in HARVEST_SOURCES},
        "turned_back_per_game": {k: turned_back[k] / ng for k in ("Casual", "Spring Rain")},
        "taken_per_game": taken / ng,
        "invented_share": _rate(invented, taken),
        "lost_gains_rate": _rate(tiles - gained, tiles),
    }


def aggregate(games: list[dict], variant: dict | None = None, dist: Any = None) -> dict[str, Any]:
    """The Key Harvest statistics of the report from per-game records (``SeatItems`` merged in);
    ``dist(values)`` summarises a list of numbers (the generic report's distribution)."""
    d = dist or (lambda xs: xs)
    ng = len(games) or 1
    bids = [b for g in games for b in g["bid_sizes"]]
    purchases: Counter = Counter()
    letters: Counter = Counter()
    extra: Counter = Counter()
    harvests: Counter = Counter()
    for g in games:
        purchases.update(g["purchases"])
        letters.update(g["letters"])
        extra.update(g["extra"])
        harvests.update(g["harvests"])
    turns = sum(g["turns"] for g in games) or 1
    n_harvests = harvests["turn"] + harvests["extra"]
    bought = purchases["own"] + purchases["other"]
    return {
        "turns": d([g["turns"] for g in games]),
        "rounds": d([g["rounds"] for g in games]),
        "truncated": sum(1 for g in games if g["truncated"]),
        "end_trigger_turn": d([g["end_trigger_turn"] for g in games if g["end_trigger_turn"] is not None]),
        "events_per_game": d([sum(g["events_drawn"].values()) for g in games]),
        "workers": _worker_rows(games),
        "events": _event_rows(games),
        "actions_per_turn": {
            k: letters[str(a)] / turns
            for k, a in (("(a)", 1), ("(b) play", 2), ("(b) remove", 3), ("(c)", 4), ("(d)", 5))
        },
        "extra": {
            "offered": sum(extra.values()) / ng,
            "taken": {k: extra[str(a)] / ng for k, a in (("(a)", 1), ("(c)", 4), ("(d)", 5))},
        },
        "harvests": {
            "per_game": n_harvests / ng,
            "extra_per_game": harvests["extra"] / ng,
            "mean_size": _rate(harvests["tiles"], n_harvests),
        },
        "bids": {
            "per_game": len(bids) / ng,
            "size": d(bids),
            "sizes": {str(k): sum(1 for b in bids if (b if b < 4 else 4) == k) for k in (1, 2, 3, 4)},
            "store_left_per_game": _mean([g["store_left"] for g in games]),
            "store_left_bids_per_game": _mean([g["store_left_bids"] for g in games]),
        },
        "purchases": {
            "per_game": bought / ng,
            "own_per_game": purchases["own"] / ng,
            "other_per_game": purchases["other"] / ng,
            "own_price": _rate(purchases["own_price"], purchases["own"]),
            "other_price": _rate(purchases["other_price"], purchases["other"]),
            "by": {k: purchases[k] / ng for k in ("turn", "extra", "Deed Day")},
            "bought_rate": _rate(bought, len(bids)),
            "surveyed_per_game": _mean([g["surveyed"] for g in games]),
        },
        "economy": _economy(games),
    }


# --------------------------------------------------------------------------------------------
# Report


def _f(x: float | None, pct: bool = False, digits: int = 1) -> str:
    if x is None:
        return "–"
    if pct:
        return f"{100 * x:.0f}%"
    return f"{x:.{digits}f}"


def floods(stats: dict) -> list[str]:
    """The reasons to call the counter economy flooded (empty when it is not), from the figures."""
    e = stats["economy"]
    out = []
    if (e["stock_empty_rate"] or 0) >= EMPTY_STOCK_LIMIT:
        out.append(f"the general stock is empty at {_f(e['stock_empty_rate'], True)} of the turn starts")
    if (e["lost_gains_rate"] or 0) >= LOST_GAINS_LIMIT:
        out.append(f"{_f(e['lost_gains_rate'], True)} of the harvested tiles yield nothing (empty stock)")
    if (e["invented_share"] or 0) >= INVENTED_SHARE_LIMIT:
        out.append(
            f"worker benefits and events bring {_f(e['invented_share'], True)} of the counters taken from the stock"
        )
    return out


def headline(stats: dict) -> list[str]:
    """Headline bullets: game length in turns, the economy verdict, bids."""
    t, e, b = stats["turns"], stats["economy"], stats["bids"]
    verdict = floods(stats)
    return [
        f"- Game length: median {t['median']:.0f} turns (p10 {t['p10']:.0f}, p90 {t['p90']:.0f}), "
        f"{stats['truncated']} games truncated (KH-END-6).",
        f"- Counters: {e['supply_mean']:.1f} per supply and {e['stock_mean']:.1f} in the general stock on average "
        f"at a turn start (of {e['total_counters']}); stock empty at {_f(e['stock_empty_rate'], True)} of turn starts.",
        f"- Bids: {b['per_game']:.1f} per game, mean {b['size']['mean']:.2f} counters per bid.",
        "- Economy: " + ("**floods**: " + "; ".join(verdict) + "." if verdict else "does not flood (see Economy)."),
    ]


def _length(stats: dict) -> list[str]:
    t, r, e, x = stats["turns"], stats["rounds"], stats["end_trigger_turn"], stats["events_per_game"]
    a = stats["actions_per_turn"]
    return [
        "",
        "## Turns",
        "",
        "| per game | mean | median | p10 | p90 | min | max |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {label} | {v['mean']:.1f} | {v['median']:.0f} | {v['p10']:.0f} | {v['p90']:.0f} | {v['min']} "
            f"| {v['max']} |"
            for label, v in (
                ("turns", t),
                ("complete rounds", r),
                ("turn of the 10th event (KH-END-1)", e),
                ("events drawn", x),
            )
            if v.get("n")
        ),
        "",
        "Turn actions per turn (KH-TURN-2; at most two): "
        + ", ".join(f"{k} {v:.2f}" for k, v in a.items())
        + f" — {sum(a.values()):.2f} in all. Extra actions (Supervisor, Carter; KH-RULING-14) per game: offered "
        f"{stats['extra']['offered']:.2f}, taken "
        + ", ".join(f"{k} {v:.2f}" for k, v in stats["extra"]["taken"].items())
        + ".",
    ]


def _workers(stats: dict) -> list[str]:
    lines = [
        "",
        "## Workers",
        "",
        "Per game (all seats together). **played**: newly placed by action (b) or a Hiring Fair (KH-ACT-WORKER-8); "
        "**re-placed**: put back at once after a field tile displaced it (KH-ACT-PLACE-7); **replaced**: sent back "
        "by a higher own worker (KH-ACT-WORKER-5/6); **displaced**: by a field tile (KH-ACT-PLACE-6); **removed**: "
        "by action (b) (KH-ACT-WORKER-7); **benefits**: benefits given (KH-ACT-PLACE-11 limits the re-placed); "
        "**on board**: at the end (scores its number, KH-SCORE-5). **players**: player-games that played it, and "
        "their win rate.",
        "",
        "| worker | no. | played | by (b) | by Hiring Fair | re-placed | replaced | displaced | removed | benefits "
        "| on board at end | players | players' win rate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for w in stats["workers"]:
        lines.append(
            f"| {w['name']} ({w['kind']}) | {w['number']} | {w['played']:.2f} | {w['by_action']:.2f} | "
            f"{w['by_hiring_fair']:.2f} | {w['re_placed']:.2f} | {w['replaced']:.2f} | {w['displaced']:.2f} | "
            f"{w['removed']:.2f} | {w['benefits']:.2f} | {w['on_board_end']:.2f} | {w['players']} | "
            f"{_f(w['player_win_rate'], True)} |"
        )
    return lines


def _events(stats: dict) -> list[str]:
    lines = [
        "",
        "## Events",
        "",
        "Per kind (KH-RULING-6, two tiles each; with 3–4 players two tiles are removed unseen, KH-SETUP-16). "
        "**drawn**: per game (every drawn event is resolved at once, KH-DRAW-3); **draw rate**: drawn / tiles in "
        "the bag; **acted**: of the player-resolutions (each player, KH-EVENT-3; Deed Day: all but the active "
        "player; Enclosure: the active player), those where the player did something (Tithe and Enclosure are "
        "forced when they apply).",
        "",
        "| event | for | removed | drawn | draw rate | player-resolutions | acted | acted rate |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for e in stats["events"]:
        lines.append(
            f"| {e['name']} | {e['who']} | {e['removed']:.2f} | {e['drawn']:.2f} | {_f(e['draw_rate'], True)} | "
            f"{e['resolutions']} | {e['acted']} | {_f(e['acted_rate'], True)} |"
        )
    return lines


def _trade(stats: dict) -> list[str]:
    b, p, h = stats["bids"], stats["purchases"], stats["harvests"]
    s = b["size"]
    sizes = ", ".join(f"{k if k != '4' else '4+'}: {v}" for k, v in b["sizes"].items())
    return [
        "",
        "## Bids, purchases, harvests",
        "",
        f"- Bids (action (d), KH-ACT-BID-3/4): {b['per_game']:.1f} per game, counters per bid mean {s['mean']:.2f} "
        f"(median {s['median']:.0f}, p90 {s['p90']:.0f}, max {s['max']}); bids of 1 / 2 / 3 / 4+ counters: {sizes}.",
        f"- Purchases from stores (action (c)): {p['per_game']:.1f} per game ({_f(p['bought_rate'], True)} of the "
        f"bid tiles): own store {p['own_per_game']:.1f} (bid {_f(p['own_price'], digits=2)} counters back to the "
        f"stock, KH-ACT-PLACE-2), another's {p['other_per_game']:.1f} (paid {_f(p['other_price'], digits=2)} "
        "counters, the owner receives twice that, KH-ACT-PLACE-3/4). By turn action (c) "
        f"{p['by']['turn']:.1f}, extra (c) {p['by']['extra']:.2f}, Deed Day {p['by']['Deed Day']:.2f}; Surveyor "
        f"{p['surveyed_per_game']:.2f} tiles straight from the registry.",
        f"- Tiles left in stores at the end: {b['store_left_per_game']:.2f} per game, their bids "
        f"{b['store_left_bids_per_game']:.2f} counters back to the stock (KH-END-5).",
        f"- Harvest actions (a): {h['per_game']:.1f} per game ({h['extra_per_game']:.2f} as an extra action), "
        f"mean {_f(h['mean_size'], digits=2)} tiles per harvest.",
    ]


def _economy_table(stats: dict) -> list[str]:
    e = stats["economy"]
    lines = [
        "",
        "## Economy",
        "",
        *economy_paragraph(stats),
        "",
        f"Counters at turn starts ({e['samples']} turn starts sampled at the first decision of each turn"
        + (f", {e['unsampled']} turns without a decision not sampled" if e.get("unsampled") else "")
        + "; "
        f"{e['total_counters']} counters in all = stock + supplies + bids):",
        "",
        "| where | mean | mean of each game's max | max |",
        "|---|---:|---:|---:|",
        f"| general stock | {e['stock_mean']:.1f} | – (mean min {e['stock_min_mean']:.1f}) | – |",
    ]
    for i, sd in enumerate(e["supply_by_seat"]):
        lines.append(f"| supply of seat {i} | {sd['mean']:.1f} | {sd['max_mean']:.1f} | {sd['max']} |")
    lines += [
        f"| bids in stores (all) | {e['bids_mean']:.1f} | – | – |",
        "",
        "Trend by fifth of the game (turn index / turns):",
        "",
        "| fifth | stock | supply per player | bids |",
        "|---|---:|---:|---:|",
    ]
    for i, x in enumerate(e["fifths"], 1):
        lines.append(f"| {i} | {x['stock']:.1f} | {x['supply']:.1f} | {x['bids']:.1f} |")
    lines.append(f"| end | {e['end_stock']:.1f} | {e['end_supply']:.1f} | 0.0 |")
    crop = ", ".join(f"{c} {_f(r, True)}" for c, r in e["crop_empty_rate"].items())
    lines += [
        "",
        f"Stock exhaustion: empty at {_f(e['stock_empty_rate'], True)} of turn starts (in "
        f"{e['games_stock_ever_empty']} of {stats['games']} games at least once); some crop out of stock at "
        f"{_f(e['any_crop_empty_rate'], True)} ({crop}).",
        "",
        "Counters taken from the general stock per game, by source (negative: returned to it). Exchanges "
        "(Labourer, Merchant, Market Day; KH-RULING-13) give back as many as they take, so they show 0.",
        "",
        "| source | counters per game | tiles harvested per game |",
        "|---|---:|---:|",
    ]
    for k, v in e["flow_per_game"].items():
        if k not in SOURCES and not v:  # decisions that never move counters (registry, turn, ...)
            continue
        tiles = e["harvested_per_game"].get(k)
        lines.append(f"| {k} | {v:+.2f} | {'' if tiles is None else f'{tiles:.2f}'} |")
    tb = e["turned_back_per_game"]
    lines += [
        "",
        f"Tiles turned back to the unharvested side per game (KH-ACT-HARVEST-12): Casual {tb['Casual']:.2f}, "
        f"Spring Rain {tb['Spring Rain']:.2f}.",
    ]
    return lines


def economy_paragraph(stats: dict) -> list[str]:
    """A short verdict on the counter economy written from the figures (issue 10: the invented benefits must not
    flood it). Thresholds: ``EMPTY_STOCK_LIMIT``, ``LOST_GAINS_LIMIT``, ``INVENTED_SHARE_LIMIT``."""
    e = stats["economy"]
    f = e["fifths"]
    reasons = floods(stats)
    first, last = f[0], f[-1]
    trend = (
        "grows"
        if last["supply"] > first["supply"] + 0.5
        else "falls"
        if last["supply"] < first["supply"] - 0.5
        else "stays level"
    )
    flow = e["flow_per_game"]
    benefits = sum(v for k, v in flow.items() if k in WORKER_NAMES and v > 0)
    events = sum(v for k, v in flow.items() if k in EVENT_NAMES and v > 0)
    text = (
        f"Of the {e['total_counters']} counters, {e['stock_mean']:.1f} lie in the general stock at an average turn "
        f"start, {e['supply_mean']:.1f} in each supply and {e['bids_mean']:.1f} in bids. The supply per player "
        f"{trend} over the game ({first['supply']:.1f} in the first fifth, {last['supply']:.1f} in the last, "
        f"{e['end_supply']:.1f} at the end) while the stock goes from {first['stock']:.1f} to {last['stock']:.1f}. "
        f"The stock is empty at {_f(e['stock_empty_rate'], True)} of turn starts and some crop is out at "
        f"{_f(e['any_crop_empty_rate'], True)}; {_f(e['lost_gains_rate'], True)} of the harvested tiles yielded "
        f"nothing. Per game {e['taken_per_game']:.1f} counters are taken from the stock: "
        f"{max(0.0, flow.get('harvest (a)', 0.0)):.1f} by harvest actions, {benefits:.1f} by worker benefits and "
        f"{events:.1f} by events ({_f(e['invented_share'], True)} invented, KH-RULING-4/5/6); own-store purchases "
        f"return {-flow.get(OWN_STORE_SOURCE, 0.0):.1f}, Tithe {-flow.get('Tithe', 0.0):.1f} and the bids left in "
        f"stores {-flow.get(END_SOURCE, 0.0):.1f}. "
    )
    limits = (
        f"(flooding = stock empty at ≥ {EMPTY_STOCK_LIMIT:.0%} of turn starts, or ≥ {LOST_GAINS_LIMIT:.0%} of "
        f"harvested tiles yielding nothing, or benefits and events bringing ≥ {INVENTED_SHARE_LIMIT:.0%} of the "
        "counters taken)"
    )
    if reasons:
        text += f"**Verdict: the counter economy floods** {limits}: " + "; ".join(reasons) + "."
    else:
        text += f"**Verdict: the counter economy does not flood** {limits}."
    return [text]


def sections(stats: dict, where: str) -> list[str]:
    """Markdown of the game's own sections at ``where`` in the generic report (``body``: after the score parts)."""
    if where == "body":
        return _length(stats) + _economy_table(stats) + _trade(stats) + _workers(stats) + _events(stats) + [""]
    return []
