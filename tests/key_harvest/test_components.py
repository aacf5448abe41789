"""Components, boards and tiles: KH-COMP-*, KH-BOARD-*, KH-TILE-*, KH-GEN-2, KH-RULING-1, KH-RULING-2, KH-RULING-3,
KH-RULING-4, KH-RULING-5 (data), data validation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from farmgames.envs.key_harvest import board as B
from farmgames.envs.key_harvest import tiles as T
from farmgames.envs.key_harvest.game import Game

from .helpers import S, play, scenario


def test_comp_1_boards_stores_and_bag_per_player():
    """KH-COMP-1: one town board (registry, event spaces), a country board, screen (supply) and store card per
    player, one bag."""
    g = Game(4, 0)
    assert len(g.fields) == len(g.supply) == len(g.store) == 4
    assert all(len(s) == 2 for s in g.store) and len(g.registry) == 6 and isinstance(g.bag, list)


def test_comp_2_and_board_3_56_field_tiles_one_per_coordinate():
    """KH-COMP-2, KH-BOARD-3, KH-TILE-3: 56 field tiles, exactly one per coordinate; a tile goes only on its own
    space, so a coordinate can be filled on only one board."""
    assert B.NUM_SPACES == 56 and len(B.CROP_OF) == 56 and len(set(B.SPACE_NAMES)) == 56
    g = Game(4, 3)
    on_boards = [s for p in range(4) for s in B.spaces(g.fields[p])]
    assert len(on_boards) == len(set(on_boards))


def test_comp_3_tile_1_2_double_sided_same_crop():
    """KH-COMP-3, KH-TILE-1, KH-TILE-2: a field tile has an unharvested and a harvested side showing the same crop."""
    g = scenario(boards={0: "C2 C3"})
    play(g, 1, S("C2"))
    assert not g.unharvested[0] >> B.parse_space("C2") & 1 and g.fields[0] >> B.parse_space("C2") & 1
    assert B.CROP_OF[B.parse_space("C2")] == B.CROPS.index("wheat")
    assert g.supply[0][B.CROPS.index("wheat")] == 1  # the small symbol names the crop taken


def test_comp_4_5_work_5_6_7_workers():
    """KH-COMP-4, KH-COMP-5, KH-WORK-1, KH-WORK-2, KH-WORK-5, KH-WORK-6, KH-WORK-7: 6 farmhands per colour numbered
    1-3, 6 townsfolk numbered 4-5, named as in
    KH-RULING-4, KH-RULING-5."""
    names = [w.name for w in B.WORKERS]
    assert names[:6] == ["Apprentice", "Casual", "Unskilled", "Labourer", "Supervisor", "Foreman"]
    assert names[6:] == ["Miller", "Brewer", "Carter", "Merchant", "Reeve", "Surveyor"]
    assert list(B.NUMBER) == [1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 5]
    assert B.NUM_WORKER_TILES == 24 + 6


def test_comp_6_event_4_fourteen_event_tiles_seven_kinds():
    """KH-COMP-6, KH-EVENT-4, KH-RULING-6: 14 event tiles, seven kinds of two."""
    assert B.NUM_EVENT_TILES == 14 and len(B.EVENTS) == 7
    assert all(B.EVENT_TILES.count(k) == 2 for k in range(7))
    assert [e.name for e in B.EVENTS] == [
        "Harvest Festival",
        "Hiring Fair",
        "Spring Rain",
        "Market Day",
        "Deed Day",
        "Tithe",
        "Enclosure",
    ]


def test_comp_7_8_sixty_counters_five_crops():
    """KH-COMP-7, KH-COMP-8: 60 counters, 12 of each of wheat, hops, vegetables, cider apples, wine."""
    assert B.CROPS == ("wheat", "hops", "vegetables", "cider apples", "wine")
    assert B.COUNTERS_PER_CROP == 12 and B.TOTAL_COUNTERS == 60
    for n in (2, 3, 4):
        g = Game(n, 1)
        assert [g.stock[c] + sum(s[c] for s in g.supply) for c in range(5)] == [12] * 5


def test_comp_9_two_to_four_players():
    """KH-COMP-9: 2 to 4 players."""
    for n in (2, 3, 4):
        assert Game(n, 0).num_players == n
    for bad in (1, 5, True, 2.0):
        with pytest.raises(ValueError, match="num_players"):
            Game(bad, 0)


def test_board_1_2_4_ruling_1_geometry():
    """KH-BOARD-1, KH-BOARD-2, KH-BOARD-4, KH-RULING-1, KH-GEN-2: identical boards, 7 rows A-G x 8 columns, unique
    letter-number
    coordinates, odd-r neighbour table."""
    assert B.SPACE_NAMES[0] == "A1" and B.SPACE_NAMES[7] == "A8" and B.SPACE_NAMES[8] == "B1"
    assert B.SPACE_NAMES[55] == "G8"
    nb = {B.SPACE_NAMES[t] for t in B.NEIGHBOURS[B.parse_space("D4")]}  # odd row
    assert nb == {"C4", "C5", "D3", "D5", "E4", "E5"}
    nb = {B.SPACE_NAMES[t] for t in B.NEIGHBOURS[B.parse_space("C4")]}  # even row
    assert nb == {"B3", "B4", "C3", "C5", "D3", "D4"}
    assert {B.SPACE_NAMES[t] for t in B.NEIGHBOURS[0]} == {"A2", "B1"}
    for s in range(56):  # symmetric, and the shift-based dilation equals the table
        assert all(s in B.NEIGHBOURS[t] for t in B.NEIGHBOURS[s])
        assert B.dilate(B.BIT[s]) == B.NEIGHBOUR_MASK[s]
    g = Game(3, 0)
    assert len({len(row) for row in g.worker_at}) == 1


def test_board_5_town_board_spaces():
    """KH-BOARD-5: registry of 6, 10 event spaces, the townsfolk spaces."""
    assert B.REGISTRY_SPACES == 6 and B.EVENT_SPACES == 10
    assert Game(2, 0).town == [-1] * 6


def test_board_6_act_bid_2_store_two_spaces():
    """KH-BOARD-6: a store card has two spaces, each a tile plus its bid."""
    g = Game(2, 0)
    assert B.STORE_SPACES == 2 and all(len(b) == 2 for b in g.bids)


def test_board_7_fallow_area_public():
    """KH-BOARD-7: removed field tiles lie face up in the fallow area, visible to everyone."""
    g = scenario(fallow=["A1"])
    from farmgames.envs.key_harvest.observer import Observer

    obs = Observer(g)
    buf = obs.new_buffer()
    obs.fill(g, 1, buf)
    assert buf.views["tile_places"][1][0] == 1.0 and "fallow: A1" in obs.text(g, 1)


def test_tile_4_ruling_2_crop_map():
    """KH-TILE-4, KH-RULING-2: crop of (r, c) = crops[(2r + c) mod 5]; 11-12 per crop; no two adjacent alike."""
    for s in range(56):
        r, c = divmod(s, 8)
        assert B.CROP_OF[s] == (2 * r + c) % 5
        assert all(B.CROP_OF[t] != B.CROP_OF[s] for t in B.NEIGHBOURS[s])
    counts = [B.CROP_OF.count(k) for k in range(5)]
    assert counts == [11, 11, 12, 11, 11]


def test_tile_5_6_ruling_3_start_pairs():
    """KH-TILE-5, KH-TILE-6, KH-RULING-3: four coloured start pairs, 4 steps apart, no two start tiles adjacent."""
    pairs = {k: tuple(B.SPACE_NAMES[s] for s in v) for k, v in B.START_PAIRS.items()}
    assert pairs == {"red": ("C2", "E5"), "blue": ("C5", "E2"), "green": ("C7", "D3"), "yellow": ("F3", "F7")}
    for a, b in B.START_PAIRS.values():  # hex distance by repeated dilation
        reach, steps = B.BIT[a], 0
        while not reach & B.BIT[b]:
            reach |= B.dilate(reach)
            steps += 1
        assert steps == 4
    starts = B.START_TILES
    assert all(not B.NEIGHBOUR_MASK[s] & sum(B.BIT[t] for t in starts) for s in starts)


def test_tile_7_events_mixed_into_bag():
    """KH-TILE-7: event tiles lie in the bag mixed with the field tiles."""
    last_positions = set()
    for seed in range(20):
        g = Game(2, seed)
        events = [i for i, t in enumerate(g.bag) if t >= 56]
        assert len(events) == 14
        last_positions.add(tuple(events))
    assert len(last_positions) > 1


def _copy_data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(T.DATA, d)
    return d


def test_data_files_are_validated_naming_file_entry_and_field(tmp_path):
    """KH-RULING-2, KH-RULING-4, KH-RULING-5, KH-RULING-6 as data: a broken data file is refused with file, entry and
    field named."""
    d = _copy_data(tmp_path)
    text = (d / "tiles.yaml").read_text().replace("{coordinate: A3, crop: vegetables}", "{coordinate: A3, crop: rice}")
    (d / "tiles.yaml").write_text(text)
    with pytest.raises(T.DataError, match=r"tiles.yaml: tiles\[2\]: field 'crop'"):
        T.load_tiles(list(B.CROPS), list(B.SPACE_NAMES), d)
    d = _copy_data(tmp_path / "b")
    text = (d / "workers.yaml").read_text().replace("{name: Miller, number: 4", "{name: Miller, number: 7")
    (d / "workers.yaml").write_text(text)
    with pytest.raises(T.DataError, match=r"workers.yaml: townsfolk\[0\]: field 'number'"):
        T.load_workers(d)
    d = _copy_data(tmp_path / "c")
    text = (d / "events.yaml").read_text().replace("effect: tithe, who: all", "effect: tithe, who: nobody")
    (d / "events.yaml").write_text(text)
    with pytest.raises(T.DataError, match=r"events.yaml: events\[5\]: field 'who'"):
        T.load_events(d)
    d = _copy_data(tmp_path / "d")
    text = (d / "setup.yaml").read_text().replace("3: {roles: [2, 2, 2, 2, 1]", "3: {roles: [2, 2, 2, 2, 2]")
    (d / "setup.yaml").write_text(text)
    with pytest.raises(T.DataError, match=r"setup.yaml: player_counts\[3\]: field 'roles'"):
        T.load_setup(d)
    d = _copy_data(tmp_path / "e")
    text = (d / "board.yaml").read_text().replace("columns: 8", "columns: 9")
    (d / "board.yaml").write_text(text)
    with pytest.raises(T.DataError, match="board.yaml"):
        T.load_board(d)
