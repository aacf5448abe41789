"""``farmgames play``: a complete game printed as it happens — bots against each other, or you against bots.

    farmgames play                                  # fields_of_green, heuristic bots, seed 0
    farmgames play --players 3 --bots random,heuristic,heuristic --seed 5
    farmgames play --human 0                        # you play seat 0 in the terminal
    farmgames play --save-record game.json          # then: farmgames replay game.json
    farmgames play --game <game> --players N        # any registered game

The loop is the same for every game; its words come from the game's narrator (``SPEC.narrator()``): one
line per decision, what a phase summary shows (Fields of Green: the revealed picks of each turn, the farms
after every Action and Harvest phase), and the final scores. With ``--human`` the log never shows what
that seat may not know; on your turn you see your view of the table and choose among numbered legal
actions.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .games import DEFAULT_GAME, add_game_argument, check_players

DEFAULT_BOT = "heuristic"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser)
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="number of players (default: the game's default, 4 for fields_of_green)",
    )
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument(
        "--bots",
        default=None,
        help="comma-separated bot names of the game, one per seat, e.g. heuristic,random,heuristic,random "
        f"(default: {DEFAULT_BOT} everywhere, where the game has it, else random). A human seat's entry is "
        "ignored.",
    )
    parser.add_argument("--human", type=int, default=None, metavar="SEAT", help="play this seat yourself")
    parser.add_argument("--save-record", metavar="PATH", help="write the game record (JSON) here")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword of the game's env() (YAML value), repeatable",
    )
    parser.add_argument(
        "--farm-size",
        type=int,
        default=None,
        help="fields_of_green variant: farm grid size (odd, 5-25); same as --variant farm_size=N",
    )
    parser.add_argument("--quiet", action="store_true", help="only the phase summaries and the result")


# ------------------------------------------------------------------------------------------------
# bots


def default_bot(spec: Any) -> str:
    return DEFAULT_BOT if DEFAULT_BOT in spec.bots else "random"


def make_bots(names: list[str], seed: int, spec: Any = None) -> list:
    """One bot per seat from the game's bot table; seat ``s`` is seeded ``seed * 100 + s + 1``."""
    from farmgames.envs import get_spec
    from farmgames.envs.core.bots import make_bot

    spec = spec if spec is not None else get_spec(DEFAULT_GAME)
    return [make_bot(spec.bots, name, seed * 100 + seat + 1) for seat, name in enumerate(names)]


def parse_bots(text: str | None, players: int, spec: Any = None) -> list[str]:
    from farmgames.envs import get_spec

    spec = spec if spec is not None else get_spec(DEFAULT_GAME)
    if not text:
        return [default_bot(spec)] * players
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} bots for {players} players; give one name per seat")
    for name in names:
        if name not in spec.bots and name != "human":
            raise ValueError(f"unknown bot {name!r}; valid names: {', '.join(sorted(spec.bots))}")
    return names


# ------------------------------------------------------------------------------------------------
# the human seat


class HumanQuit(Exception):
    pass


def ask_human(env, seat: int, narration, out=None, read=input) -> int:
    """Show the seat's view and its numbered legal actions; return the chosen action index."""
    out = out if out is not None else sys.stdout
    game = env.game
    agent = env.possible_agents[seat]
    legal = env.legal_actions(agent)
    print(file=out)
    for line in narration.human_view(env, seat, legal):
        print(line, file=out)
    while True:
        try:
            answer = read(f"player {seat}, choose 1-{len(legal)} ('?' full view, 'q' quit): ").strip()
        except EOFError:
            raise HumanQuit("input closed") from None
        if answer.lower() in ("q", "quit", "exit"):
            raise HumanQuit("quit")
        if answer == "?":
            print(env.observer.text(game, seat), file=out)
            continue
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        print(f"please type a number from 1 to {len(legal)}", file=out)


# ------------------------------------------------------------------------------------------------


def _table(game_name: str, players: int | None, bots: str | None, human: int | None, variant: dict):
    """(spec, players, bot names, env) for a play command, checked."""
    from farmgames.envs import face, get_spec

    spec = get_spec(game_name)
    players = spec.default_players if players is None else check_players(spec, players)
    names = parse_bots(bots, players, spec)
    if human is not None and not 0 <= human < players:
        raise ValueError(f"--human must be a seat 0..{players - 1}, got {human}")
    return spec, players, names, face(game_name).raw_env(num_players=players, **variant)


def play(
    players: int | None = None,
    seed: int = 0,
    bots: str | None = None,
    human: int | None = None,
    save_record: str | None = None,
    farm_size: int | None = None,
    quiet: bool = False,
    out=None,
    read=input,
    game: str = "fields_of_green_v0",
    variant: dict | None = None,
) -> int:
    from .narration import Narration
    from .outputs import check_output

    out = out if out is not None else sys.stdout
    variant = dict(variant or {})
    if farm_size is not None:
        variant["farm_size"] = farm_size
    if save_record:  # before the game: a game someone played must not be lost to a bad path afterwards
        check_output(save_record, "--save-record")
    spec, players, names, env = _table(game, players, bots, human, variant)
    env.reset(seed=seed)
    state = env.game
    seats = ["you" if p == human else names[p] for p in range(players)]
    stand_in = "random" if "random" in spec.bots else default_bot(spec)  # never asked: the human decides
    robots = make_bots([stand_in if s in ("you", "human") else s for s in seats], seed, spec)
    narration = Narration(spec)

    def line(text: str = "") -> None:
        print(text, file=out)

    line(
        f"{spec.title} — {players} players, seed {seed}{narration.setup_note(state)}; "
        + ", ".join(f"player {p}: {s}" for p, s in enumerate(seats))
    )
    status = 0
    try:
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last(observe=False)
            if termination or truncation:
                env.step(None)
                continue
            seat = env.agent_name_mapping[agent]
            action = ask_human(env, seat, narration, out=out, read=read) if seat == human else robots[seat].act(state)
            text = narration.decision_line(state, seat, action, human)
            if not quiet:
                line(text)
            env.step(action)
            for text in narration.after_action(state, quiet):
                line(text)
    except HumanQuit as exc:
        line(f"game stopped ({exc}) after {len(state.history)} decisions")
        status = 1
    except KeyboardInterrupt:
        line(f"game interrupted after {len(state.history)} decisions")
        status = 130
    except BaseException:  # an error: the record of the game so far is still written, then it is raised
        if save_record:
            _save_record(env, seats, save_record, line)
        raise
    if state.is_terminal():
        line(narration.final_table(state))
    if save_record:
        _save_record(env, seats, save_record, line)
    return status


def _save_record(env, seats: list[str], path: str, line) -> None:
    """Write the record (atomically; to a named fallback file if ``path`` fails after all)."""
    from .outputs import write_text

    record = env.record()
    record["seats"] = seats
    where = write_text(path, json.dumps(record, indent=1) + "\n", what="record")
    try:
        line(f"record written to {where} ({len(record['actions'])} actions)")
    except BrokenPipeError:  # `farmgames play | head`: the record is written all the same
        pass


def run(args: argparse.Namespace) -> int:
    from .evaluate import parse_variant

    try:
        return play(
            players=args.players,
            seed=args.seed,
            bots=args.bots,
            human=args.human,
            save_record=args.save_record,
            farm_size=args.farm_size,
            quiet=args.quiet,
            game=args.game,
            variant=parse_variant(args.variant),
        )
    except BrokenPipeError:  # e.g. `farmgames play | head`: stop quietly
        silence_stdout()
        return 0
    except (TypeError, ValueError) as exc:
        print(f"farmgames play: {exc}", file=sys.stderr)
        return 2


def silence_stdout() -> None:
    """Point stdout at /dev/null so a closed pipe (`farmgames play | head`) ends quietly."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no real stdout
        pass
