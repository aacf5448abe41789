"""The Key Harvest balance items (envs/key_harvest/balance.py): the tracker's counts agree with the game's
record, replayed phase by phase, and with its final state; a small report renders with every section."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from farmgames.envs import get_spec
from farmgames.envs.core.bots import make_bot, play_game
from farmgames.envs.key_harvest import balance as kh
from farmgames.envs.key_harvest.actions import DONE, HARVEST, STORE0
from farmgames.envs.key_harvest.board import EVENT_TILES, EVENTS, STORE_SPACES, WORKERS, worker_kind
from farmgames.envs.key_harvest.game import EVENT0, Game
from farmgames.training import balance
from farmgames.training.cli import main

GAMES = [(2, 0, "heuristic"), (2, 5, "random"), (3, 2, "random"), (4, 1, "heuristic"), (4, 7, "random")]


def _play(players: int, seed: int, bot: str) -> tuple[Game, dict]:
    """One seeded game with the tracker, as ``farmgames balance`` plays it."""
    spec = get_spec("key_harvest")
    game = spec.new_game(num_players=players, seed=seed)
    tracker = kh.SeatItems(game)
    bots = [make_bot(spec.bots, bot, seed=seed * 10 + i) for i in range(players)]
    play_game(bots, game=game, on_action=tracker.on_action)
    return game, tracker.result(game)


def _phases(game: Game) -> list[tuple[str, int, int, Game]]:
    """(phase, seat, action, state before it) for every decision of the record, replayed from the seed."""
    replay = Game(game.num_players, game.seed, **game.record()["variant"])
    out = []
    for a in game.history:
        out.append((replay.phase, replay.current_player, a, replay.clone()))
        replay.apply(a)
    assert replay.is_terminal() and replay.scores() == game.scores()
    return out


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: f"{g[0]}p-seed{g[1]}-{g[2]}")
def played(request) -> tuple[Game, dict, list]:
    game, result = _play(*request.param)
    return game, result, _phases(game)


def test_workers_played_match_the_record(played):
    game, r, phases = played
    space = Counter(WORKERS[worker_kind(s.frame[2])].name for ph, _, _, s in phases if ph == "SPACE")
    assert sum(w["played"] for w in r["workers"].values()) == sum(space.values())
    assert {k: w["played"] for k, w in r["workers"].items() if w["played"]} == dict(space)
    removes = sum(1 for ph, _, _, _ in phases if ph == "REMOVE")
    assert sum(w["removed"] for w in r["workers"].values()) == removes
    replaces = sum(1 for ph, _, a, _ in phases if ph == "REPLACE" and a != DONE)
    assert sum(w["re_placed"] for w in r["workers"].values()) == replaces
    hiring = sum(1 for ph, _, a, _ in phases if ph == "HIRING" and a == 2)
    assert sum(w["by_hiring_fair"] for w in r["workers"].values()) == hiring


def test_workers_on_board_balance(played):
    """Each placement puts a tile on a board, each replacement, displacement and removal takes one off."""
    game, r, _ = played
    on_board = Counter(WORKERS[worker_kind(t)].name for t, s in enumerate(game.worker_space) if s >= 0)
    for name, w in r["workers"].items():
        put = w.get("played", 0) + w.get("re_placed", 0)
        off = w.get("replaced", 0) + w.get("displaced", 0) + w.get("removed", 0)
        assert put - off == w["on_board_end"] == on_board[name], name


def test_bids_match_the_record(played):
    game, r, phases = played
    registry = sum(1 for ph, _, a, _ in phases if ph == "REGISTRY" and a != DONE)
    crops = sum(1 for ph, _, a, _ in phases if ph == "BID" and a != DONE)
    assert len(r["bid_sizes"]) == registry
    assert sum(r["bid_sizes"]) == crops
    assert all(b >= 1 for b in r["bid_sizes"])  # KH-ACT-BID-4
    bought = sum(1 for ph, _, a, _ in phases if ph == "STORE" and a != DONE)
    assert r["purchases"].get("own", 0) + r["purchases"].get("other", 0) == bought
    left = sum(1 for row in game.store for t in row if t >= 0)
    assert r["store_left"] == left
    assert registry == bought + left  # every tile bid for was bought or is still in a store (KH-ACT-BID-7)
    prices = 0
    for ph, p, a, s in phases:
        if ph == "STORE" and a != DONE:
            o, k = divmod(a - STORE0, STORE_SPACES)
            prices += sum(s.bids[s.store_owner(p, o)][k])
    assert r["purchases"].get("own_price", 0) + r["purchases"].get("other_price", 0) == prices


def test_events_and_turns_match_the_state(played):
    game, r, phases = played
    assert r["turns"] == game.turns and r["rounds"] == game.rounds
    drawn = Counter(EVENTS[EVENT_TILES[t - EVENT0]].name for t in game.events)
    assert r["events_drawn"] == dict(drawn)
    assert sum(r["events_drawn"].values()) + sum(r["events_removed"].values()) <= len(EVENT_TILES)
    tithes = sum(1 for ph, _, _, _ in phases if ph == "TITHE")
    assert r["event_asked"].get("Tithe", 0) == r["event_acted"].get("Tithe", 0) == tithes
    enclosed = sum(1 for ph, _, _, _ in phases if ph == "ENCLOSE")
    assert r["event_acted"].get("Enclosure", 0) == enclosed == len(game.fallow)
    deeds = sum(1 for ph, _, _, _ in phases if ph == "DEED")
    assert r["event_asked"].get("Deed Day", 0) == deeds
    if game.end_triggered:
        assert r["end_trigger_turn"] is not None and 1 <= r["end_trigger_turn"] <= game.turns
        before = [s for ph, _, _, s in phases if not s.end_triggered]  # the last decision before the 10th event
        assert r["end_trigger_turn"] == before[-1].turns + 1
    starts = r["counters"]["samples"]
    assert starts == len({s.turns for ph, _, _, s in phases if ph == "TURN"}) <= game.turns


def test_counter_flows_add_up(played):
    """Every counter leaving or entering the general stock is booked to one source."""
    game, r, phases = played
    start = Game(game.num_players, game.seed, **game.record()["variant"])
    flow = r["flow"]
    assert sum(flow.values()) == sum(start.stock) - sum(game.stock)
    for source in ("Labourer", "Merchant", "Market Day"):  # exchanges take as many as they give (KH-RULING-13)
        assert flow.get(source, 0) == 0, source
    assert flow.get("Tithe", 0) == -sum(1 for ph, _, _, _ in phases if ph == "TITHE")
    apprentice = sum(1 for ph, _, a, s in phases if ph == "CROP" and s.frame[2] == "apprentice" and a != DONE)
    assert flow.get("Apprentice", 0) == apprentice
    for source in ("registry", "bid", "worker", "hiring", "deed", "enclose", "extra"):
        assert flow.get(source, 0) == 0, source  # these decisions never move counters
    tiles_a = sum(1 for ph, _, a, s in phases if ph == "HARVEST" and not s.frame[2] and a != DONE)
    assert r["harvested"].get("harvest (a)", 0) == r["harvests"].get("tiles", 0) == tiles_a
    assert 0 <= flow.get("harvest (a)", 0) <= tiles_a
    letters = sum(1 for ph, _, a, _ in phases if ph in ("TURN", "EXTRA") and a == HARVEST)
    assert r["harvests"].get("turn", 0) + r["harvests"].get("extra", 0) == letters
    end = sum(
        sum(s.bids[q][k])
        for ph, _, _, s in phases[-1:]
        for q in range(game.num_players)
        for k in range(STORE_SPACES)
        if s.store[q][k] >= 0
    )
    if phases[-1][0] not in ("STORE", "REGISTRY", "BID"):  # the last decision did not change the stores
        assert -flow.get(kh.END_SOURCE, 0) == end


def test_turn_start_samples():
    game, r = _play(2, 3, "heuristic")
    c = r["counters"]
    assert c["samples"] == game.turns  # every turn of this game has a decision
    assert 0 <= c["stock_min"] <= c["stock_mean"] <= 60
    assert len(c["supply_max"]) == 2 and all(m >= 0 for m in c["supply_max"])
    assert c["end"] == {"stock": sum(game.stock), "supply": [sum(s) for s in game.supply]}


def test_report_renders(tmp_path):
    out, data = tmp_path / "kh.md", tmp_path / "kh.json"
    code = main(
        ["balance", "--game", "key_harvest", "--players", "3", "--games", "3", "--bots", "random"]
        + ["--out", str(out), "--json", str(data), "--plot", "none", "--no-progress"]
    )
    assert code == 0
    text = out.read_text(encoding="utf-8")
    for section in ("## Headline", "## Turns", "## Economy", "## Bids, purchases, harvests", "## Workers", "## Events"):
        assert section in text, section
    for name in [w.name for w in WORKERS] + [e.name for e in EVENTS]:
        assert f"| {name}" in text, name
    assert "**Verdict: the counter economy" in text
    assert "Game length: median" in text and "points" in text.split("## Headline")[0]
    stats = json.loads(data.read_text(encoding="utf-8"))
    assert stats["economy"]["total_counters"] == 60
    assert len(stats["workers"]) == 12 and len(stats["events"]) == 7
    assert sum(e["drawn"] for e in stats["events"]) == pytest.approx(stats["events_per_game"]["mean"])
    # the report renders again from the saved statistics, identically
    again = tmp_path / "again.md"
    assert main(["balance", "--from-json", str(data), "--out", str(again), "--plot", "none"]) == 0
    assert again.read_text(encoding="utf-8") == text


def test_flood_verdict_follows_the_figures():
    games = [balance.simulate_game(s, 2, ["heuristic", "heuristic"], game="key_harvest") for s in range(3)]
    stats = balance.aggregate(games, game="key_harvest")
    assert kh.floods(stats) == []
    assert "does not flood" in kh.economy_paragraph(stats)[0]
    flooded = json.loads(json.dumps(stats))
    flooded["economy"]["stock_empty_rate"] = 0.4
    flooded["economy"]["invented_share"] = 0.7
    reasons = kh.floods(flooded)
    assert len(reasons) == 2 and "40%" in reasons[0] and "70%" in reasons[1]
    assert "**Verdict: the counter economy floods**" in kh.economy_paragraph(flooded)[0]
    assert "**floods**" in "\n".join(kh.headline(flooded))
