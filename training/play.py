"""``farmgames play``: a complete game printed as it happens — bots against each other, or you against bots.

    farmgames play                                  # 4 heuristic bots, seed 0
    farmgames play --players 3 --bots random,heuristic,heuristic --seed 5
    farmgames play --human 0                        # you play seat 0 in the terminal
    farmgames play --save-record game.json          # then: farmgames replay game.json

Output: one line per decision, the revealed picks of each turn, the farms after every Action phase and
every Harvest phase, and the final scores. With ``--human`` the log never shows what that seat may not
know (other players' picks before the reveal, tiles others draw); on your turn you see your view of
the table and choose among numbered legal actions.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

DEFAULT_BOT = "heuristic"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, help="number of players, 2-4 (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument(
        "--bots", default=None,
        help="comma-separated bot names, one per seat, e.g. heuristic,random,heuristic,random "
             f"(names: random, heuristic; default: {DEFAULT_BOT} everywhere). A human seat's entry is ignored.",
    )
    parser.add_argument("--human", type=int, default=None, metavar="SEAT", help="play this seat yourself")
    parser.add_argument("--save-record", metavar="PATH", help="write the game record (JSON) here")
    parser.add_argument("--farm-size", type=int, default=None, help="variant: farm grid size (odd, 5-25)")
    parser.add_argument("--quiet", action="store_true", help="only the farms after each phase and the result")


# ------------------------------------------------------------------------------------------------
# bots


class _LocalRandomBot:
    """Uniform random legal bot, used only if the engine's bots module is unavailable."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, game) -> int:
        return self.rng.choice(game.legal_actions())


def make_bots(names: list[str], seed: int) -> list:
    try:
        from farmgames.envs.fields_of_green.bots import make_bot
    except ImportError:  # pragma: no cover - the bots module ships with the engine
        make_bot = None
    bots = []
    for seat, name in enumerate(names):
        bot_seed = seed * 100 + seat + 1
        if make_bot is not None:
            bots.append(make_bot(name, bot_seed))
        elif name == "random":  # pragma: no cover
            bots.append(_LocalRandomBot(bot_seed))
        else:  # pragma: no cover
            print(f"bot {name!r} is not available; using a random bot for seat {seat}", file=sys.stderr)
            bots.append(_LocalRandomBot(bot_seed))
    return bots


def parse_bots(text: str | None, players: int) -> list[str]:
    if not text:
        return [DEFAULT_BOT] * players
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} bots for {players} players; give one name per seat")
    for name in names:
        if name not in ("random", "heuristic", "human"):
            raise ValueError(f"unknown bot {name!r}; valid names: random, heuristic")
    return names


# ------------------------------------------------------------------------------------------------
# the log


class Narrator:
    """Prints one line per decision and the farms after each phase, hiding what ``viewer`` may not know."""

    def __init__(self, game, viewer: int | None, out=None, quiet: bool = False):
        self.game = game
        self.viewer = viewer
        self.out = out if out is not None else sys.stdout
        self.quiet = quiet

    def line(self, text: str = "") -> None:
        print(text, file=self.out)

    def hidden(self, game, seat: int, kind: str) -> bool:
        """Would describing this decision of ``seat`` reveal something the viewer may not know?"""
        if self.viewer is None or seat == self.viewer:
            return False
        return (kind == "pick" and not game.two_player) or kind == "keep_equipment"

    def before(self, game, seat: int, action: int, describe) -> None:
        if self.quiet:
            return
        kind = game.decision_kind
        where = f"y{game.year}" + (f" t{game.turn}" if game.phase == "action" else f" {game.phase}")
        if self.hidden(game, seat, kind):
            text = "picks a card (face down)" if kind == "pick" else "keeps one of the drawn equipment tiles"
        else:
            text = describe(action)
        self.line(f"{where:<10} player {seat}  {text}")

    def after(self, game, before_state: tuple) -> None:
        year, phase, revealed = before_state
        cards = game.cards.locations
        if not self.quiet and game.revealed and not revealed and not game.two_player:
            picks = "; ".join(f"player {p}: {cards[c].name}" for p, c in enumerate(game.picks) if c is not None)
            self.line(f"{'':<10} revealed: {picks}")
        if phase != game.phase or year != game.year:
            if phase == "action":
                self.farms(f"after the Action phase of year {year}")
            elif phase == "harvest":
                self.farms(f"after the Harvest phase of year {year}")

    def farms(self, title: str) -> None:
        from farmgames.envs.fields_of_green.render import farms_text

        self.line()
        self.line(f"=== {title} ===")
        self.line(farms_text(self.game))
        self.line()

    def result(self) -> None:
        game = self.game
        self.line("=== final scores (FOG-END-2..13) ===")
        header = "player  total  printed+tokens  equipment  coins  food  empty towers  end-game  locations  coins held"
        self.line(header)
        for p, s in enumerate(game.scores()):
            self.line(f"{p:>6}  {s.total:>5}  {s.printed_vp:>14}  {s.equipment:>9}  {s.coins:>5}  {s.food:>4}  "
                      f"{s.empty_towers:>12}  {s.end_game:>8}  {s.locations:>9}  {s.coins_held:>10}")
        winners = game.winners()
        self.line(("winner: " if len(winners) == 1 else "shared victory: ")
                  + ", ".join(f"player {w}" for w in winners))


# ------------------------------------------------------------------------------------------------
# the human seat


class HumanQuit(Exception):
    pass


def ask_human(env, seat: int, out=None, read=input) -> int:
    """Show the seat's view and its numbered legal actions; return the chosen action index."""
    from farmgames.envs.fields_of_green.render import ansi_text

    out = out if out is not None else sys.stdout
    game = env.game
    agent = env.possible_agents[seat]
    legal = env.legal_actions(agent)
    print(file=out)
    print(ansi_text(game, seat), file=out)
    print(env.observer.text(game, seat).splitlines()[-1], file=out)  # "your decision: …"
    kind = game.decision_kind
    if kind == "split":  # 50 options: a compact table of (Field, Livestock, Construction, Building)
        from farmgames.envs.fields_of_green.actions import SPLITS

        print("  draw split as Field/Livestock/Construction/Building:", file=out)
        cells = [f"{i:>3}) {'/'.join(map(str, SPLITS[a - env.layout.SPLIT]))}" for i, a in enumerate(legal, 1)]
        for row in range(0, len(cells), 6):
            print("  " + "   ".join(cells[row:row + 6]), file=out)
    else:
        cards = game.cards.locations
        hand = game.display if game.two_player else game.hands[seat]
        for i, action in enumerate(legal, 1):
            text = env.describe_action(action, agent)
            if kind == "pick":
                slot = action - env.layout.PICK
                text = f"pick slot {slot}: {_card_text(cards[hand[slot]])}"
            print(f"  {i:>3}) {text}", file=out)
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


def _card_text(card) -> str:
    try:
        return card.text
    except Exception:  # generated card text is a convenience; fall back to the name
        return card.name


# ------------------------------------------------------------------------------------------------


def play(players: int = 4, seed: int = 0, bots: str | None = None, human: int | None = None,
         save_record: str | None = None, farm_size: int | None = None, quiet: bool = False,
         out=None, read=input) -> int:
    from farmgames.envs.fields_of_green_v0 import raw_env

    out = out if out is not None else sys.stdout
    names = parse_bots(bots, players)
    if human is not None and not 0 <= human < players:
        raise ValueError(f"--human must be a seat 0..{players - 1}, got {human}")
    variant = {} if farm_size is None else {"farm_size": farm_size}
    env = raw_env(num_players=players, **variant)
    env.reset(seed=seed)
    game = env.game
    seats = ["you" if p == human else names[p] for p in range(players)]
    robots = make_bots(["random" if s in ("you", "human") else s for s in seats], seed)
    narrator = Narrator(game, human, out=out, quiet=quiet)
    narrator.line(f"Fields of Green — {players} players, seed {seed}, first player {game.first_player}; "
                  + ", ".join(f"player {p}: {s}" for p, s in enumerate(seats)))
    status = 0
    try:
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last(observe=False)
            if termination or truncation:
                env.step(None)
                continue
            seat = env.agent_name_mapping[agent]
            if seat == human:
                action = ask_human(env, seat, out=out, read=read)
            else:
                action = robots[seat].act(game)
            narrator.before(game, seat, action, lambda a: env.describe_action(a, agent))
            state = (game.year, game.phase, game.revealed)
            env.step(action)
            narrator.after(game, state)
    except HumanQuit as exc:
        narrator.line(f"game stopped ({exc}) after {len(game.history)} decisions")
        status = 1
    except KeyboardInterrupt:
        narrator.line(f"game interrupted after {len(game.history)} decisions")
        status = 130
    if game.is_terminal():
        narrator.result()
    if save_record:
        record = env.record()
        record["seats"] = seats
        Path(save_record).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        narrator.line(f"record written to {save_record} ({len(record['actions'])} actions)")
    return status


def run(args: argparse.Namespace) -> int:
    try:
        return play(players=args.players, seed=args.seed, bots=args.bots, human=args.human,
                    save_record=args.save_record, farm_size=args.farm_size, quiet=args.quiet)
    except BrokenPipeError:  # e.g. `farmgames play | head`: stop quietly
        silence_stdout()
        return 0
    except ValueError as exc:
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
