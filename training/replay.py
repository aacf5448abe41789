"""``farmgames replay RECORD.json``: show a saved game step by step, or only its final state.

    farmgames play --save-record game.json
    farmgames replay game.json              # every step: the action, then the table after it
    farmgames replay game.json --final      # only the final table and the scores
    farmgames replay game.json --pause      # wait for Enter after each step
    farmgames replay game.json --viewer 2   # show only what seat 2 could see (its own hand)

A record is the JSON of ``Game.record()`` (``num_players``, ``seed``, ``variant``, ``actions``); replaying
it rebuilds the same game exactly (the engine draws every random number from the seed at setup).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from farmgames.training.play import silence_stdout


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record written by `farmgames play --save-record`")
    parser.add_argument("--final", action="store_true", help="show only the final state")
    parser.add_argument("--pause", action="store_true", help="wait for Enter after each step")
    parser.add_argument("--viewer", type=int, default=None, metavar="SEAT",
                        help="show the table as this seat sees it (default: every hand)")


def load_record(path: str) -> dict:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    missing = [k for k in ("num_players", "seed", "actions") if k not in record]
    if not isinstance(record, dict) or missing:
        raise ValueError(f"{path} is not a Fields of Green game record (missing {', '.join(missing) or 'fields'})")
    return record


def table(game, viewer: int | None) -> str:
    from farmgames.envs.fields_of_green.render import ansi_text

    text = ansi_text(game, viewer)
    if viewer is None and not game.two_player:  # an omniscient replay shows every hand
        cards = game.cards.locations
        hands = [f"  player {p}: " + ", ".join(cards[c].name for c in h) for p, h in enumerate(game.hands) if h]
        if hands:
            text += "\nhands:\n" + "\n".join(hands)
    return text


def replay(path: str, final: bool = False, pause: bool = False, viewer: int | None = None,
           out=None, read=input) -> int:
    from farmgames.envs.fields_of_green import Game, IllegalActionError

    out = out if out is not None else sys.stdout
    record = load_record(path)
    variant = {k: v for k, v in (record.get("variant") or {}).items() if v is not None}
    game = Game(num_players=record["num_players"], seed=record["seed"], **variant)
    if viewer is not None and not 0 <= viewer < game.num_players:
        raise ValueError(f"--viewer must be a seat 0..{game.num_players - 1}")
    seats = record.get("seats")
    print(f"record {path}: {game.num_players} players, seed {game.seed}, {len(record['actions'])} actions"
          + (f"; seats: {', '.join(map(str, seats))}" if seats else ""), file=out)
    if not final:
        print(table(game, viewer), file=out)
    for i, action in enumerate(record["actions"]):
        seat = game.current_player
        if seat is None:
            raise ValueError(f"step {i}: the game is already over but the record has more actions")
        hidden = viewer is not None and seat != viewer and (
            (game.decision_kind == "pick" and not game.two_player) or game.decision_kind == "keep_equipment")
        text = "(hidden from the viewer)" if hidden else game.describe_action(action)
        try:
            game.apply(action)
        except IllegalActionError as exc:
            raise ValueError(f"step {i}: {exc}") from None
        if final:
            continue
        print(f"\n--- step {i + 1}/{len(record['actions'])}: player {seat} — {text}", file=out)
        print(table(game, viewer), file=out)
        if pause:
            try:
                read("[Enter] ")
            except EOFError:
                return 0
    if final:
        print(table(game, viewer), file=out)
    if game.is_terminal():
        scores = game.scores()
        print("scores: " + "; ".join(f"player {p}: {s.total} VP {s.as_dict()}" for p, s in enumerate(scores)),
              file=out)
    else:
        print(f"(the record stops before the end of the game: player {game.current_player} to decide)", file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return replay(args.record, final=args.final, pause=args.pause, viewer=args.viewer)
    except BrokenPipeError:  # e.g. `farmgames play | head`: stop quietly
        silence_stdout()
        return 0
    except ValueError as exc:
        print(f"farmgames replay: {exc}", file=sys.stderr)
        return 2


