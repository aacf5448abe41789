"""``farmgames replay RECORD.json``: show a saved game step by step, or only its final state.

    farmgames play --save-record game.json
    farmgames replay game.json              # every step: the action, then the table after it
    farmgames replay game.json --final      # only the final table and the scores
    farmgames replay game.json --pause      # wait for Enter after each step
    farmgames replay game.json --viewer 2   # show only what seat 2 could see (its own hand)

A record is the JSON of ``Game.record()`` / ``env.record()`` (``game``, ``num_players``, ``seed``,
``variant``, ``actions``); :func:`farmgames.envs.replay` rebuilds it through the registry, for any game
(records without ``game`` are games of ``--game``, default fields_of_green). The table and the score line
come from the game's narrator.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from farmgames.training.play import silence_stdout

from .games import add_game_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record written by `farmgames play --save-record`")
    add_game_argument(parser)
    parser.add_argument("--final", action="store_true", help="show only the final state")
    parser.add_argument("--pause", action="store_true", help="wait for Enter after each step")
    parser.add_argument(
        "--viewer",
        type=int,
        default=None,
        metavar="SEAT",
        help="show the table as this seat sees it (default: every hand)",
    )


def load_record(path: str, game: str = "fields_of_green_v0") -> dict:
    """The record in ``path`` (``game`` filled in from ``--game`` when the record has none)."""
    from farmgames.envs import get_spec
    from farmgames.envs.core.datafiles import DataFileError, load_json
    from farmgames.envs.core.records import MAX_RECORD_BYTES, resolve_paths

    try:  # bounded: size, nesting and numbers (an endless or hostile file is refused, not read to the end)
        record = load_json(path, what="game record", limit=MAX_RECORD_BYTES)
    except DataFileError as exc:
        raise ValueError(str(exc)) from None
    if isinstance(record, dict):
        resolve_paths(record, Path(path).parent)  # a relative card-set path: also looked up beside the record
    if not isinstance(record, dict):
        raise ValueError(f"{path} is not a game record (a JSON object)")
    spec = get_spec(record.get("game") if isinstance(record.get("game"), str) else game)
    missing = [k for k in ("num_players", "seed", "actions") if k not in record]
    if missing:
        raise ValueError(f"{path} is not a {spec.title} game record (missing {', '.join(missing)})")
    record.setdefault("game", spec.name)
    from farmgames.envs.core.records import check_record

    return check_record(record)  # every field checked; errors name the field or the step


def start(record: dict) -> Any:
    """The record's game before its first action (through the registry, like ``envs.replay``)."""
    from farmgames.envs import replay as replay_record

    return replay_record({**record, "actions": []})


def replay(
    path: str,
    final: bool = False,
    pause: bool = False,
    viewer: int | None = None,
    out=None,
    read=input,
    game: str = "fields_of_green_v0",
) -> int:
    from farmgames.envs import get_spec
    from farmgames.envs import replay as replay_record
    from farmgames.envs.core.protocol import IllegalActionError

    from .narration import Narration

    out = out if out is not None else sys.stdout
    record = load_record(path, game)
    state = replay_record(record) if final else start(record)  # final: errors name the record step
    narration = Narration(get_spec(record["game"]))
    if viewer is not None and not 0 <= viewer < state.num_players:
        raise ValueError(f"--viewer must be a seat 0..{state.num_players - 1}")
    seats = record.get("seats")
    actions = record["actions"]
    print(
        f"record {path}: {state.num_players} players, seed {state.seed}, {len(actions)} actions"
        + (f"; seats: {', '.join(map(str, seats))}" if seats else ""),
        file=out,
    )
    if not final:
        print(narration.table(state, viewer), file=out)
        for i, action in enumerate(actions):
            seat = state.current_player
            if seat is None:
                raise ValueError(f"step {i}: the game is already over but the record has more actions")
            text = (
                "(hidden from the viewer)" if narration.hidden(state, seat, viewer) else state.describe_action(action)
            )
            try:
                state.apply(action)
            except IllegalActionError as exc:
                raise ValueError(f"step {i}: {exc}") from None
            print(f"\n--- step {i + 1}/{len(actions)}: player {seat} — {text}", file=out)
            print(narration.table(state, viewer), file=out)
            if pause:
                try:
                    read("[Enter] ")
                except EOFError:
                    return 0
    else:
        print(narration.table(state, viewer), file=out)
    if state.is_terminal():
        print(narration.score_line(state), file=out)
    else:
        print(f"(the record stops before the end of the game: player {state.current_player} to decide)", file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return replay(args.record, final=args.final, pause=args.pause, viewer=args.viewer, game=args.game)
    except BrokenPipeError:  # e.g. `farmgames replay x | head`: stop quietly
        silence_stdout()
        return 0
    except ValueError as exc:
        print(f"farmgames replay: {exc}", file=sys.stderr)
        return 2
