"""``farmgames view``: watch a recorded game, or play one against bots, in your browser.

    farmgames play --save-record g.json && farmgames view g.json     # step through a game
    farmgames view --play --game fields_of_green --bots random,heuristic --save-record mine.json

A small server on 127.0.0.1 serves a page shipped with the package (nothing is fetched from the
internet): step forward and back, jump to a step, choose whose view to show (a seat sees exactly its own
information; "everything" shows all), read each decision with its legal alternatives, and see the game's
picture (the same drawing code as ``render_mode="rgb_array"``). With ``--play`` you take a seat
(``--human``, default 0) and click one of your legal actions; the bots (names from the game's bots, or
``.zip`` checkpoints, or ``module:attribute`` policies) answer at once. See docs/viewer.md.

Records written by ``farmgames play --save-record``, ``farmgames evaluate --save-records`` and training
evaluations open: one record, a list of them, or an object holding them (``--index`` picks one; the page
lists them all).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", nargs="?", help="a JSON file with one or more game records")
    parser.add_argument("--index", type=int, default=0, help="which record of the file to open first (default 0)")
    parser.add_argument("--play", action="store_true", help="play a new game in the browser against bots")
    parser.add_argument(
        "--game", default=None, metavar="GAME", help="with --play: which game (default fields_of_green)"
    )
    parser.add_argument(
        "--bots",
        default=None,
        help="with --play: comma-separated opponents in seat order after you: bot names of the "
        "game (random, heuristic …), .zip checkpoints or module:attribute (default heuristic; "
        "one name = every opponent)",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="with --play: number of players (default: you + the opponents named, at least the game's minimum)",
    )
    parser.add_argument("--human", type=int, default=0, metavar="SEAT", help="with --play: your seat (default 0)")
    parser.add_argument("--seed", type=int, default=0, help="with --play: game seed (default 0)")
    parser.add_argument(
        "--variant",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="with --play: game keywords, e.g. farm_size=7 (values are YAML)",
    )
    parser.add_argument("--save-record", metavar="PATH", help="with --play: write the record here at the end")
    parser.add_argument("--step", default=None, help="open at this step (default: the first; 'last' for the end)")
    parser.add_argument(
        "--view",
        default=None,
        metavar="SEAT|all",
        help="open with this view: a seat number, or all (everything; the default)",
    )
    parser.add_argument(
        "--png",
        metavar="PATH",
        help="write the picture of --step (default the last) in --view to PATH and exit, no server",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 or a busy port: the OS picks one)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in your web browser")
    parser.add_argument("--verbose", action="store_true", help="log every request")


def parse_opponents(text: str | None, players: int | None, spec: Any) -> tuple[int, list[str]]:
    """(players, one opponent name per other seat) from ``--bots`` and ``--players``."""
    names = [n.strip() for n in (text or "heuristic").split(",") if n.strip()] or ["heuristic"]
    if players is None:
        players = max(spec.min_players, 1 + len(names)) if len(names) > 1 else spec.min_players
    if players not in spec.player_counts:
        raise ValueError(
            f"--players must be one of {', '.join(map(str, spec.player_counts))} for {spec.name}, got {players}"
        )
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise ValueError(f"--bots names {len(names)} opponents for {players} players; give one, or {players - 1}")
    return players, names


def policy_resolver(spec: Any) -> Any:
    """Opponents for ``--play``: the game's bots, ``.zip`` checkpoints and ``module:attribute`` policies
    (through :func:`farmgames.training.policy.load_policy`)."""

    def resolve(name: str, seat: int, seed: int, facts: dict[str, Any]) -> Any:
        from farmgames.training.policy import load_policy

        return load_policy(name, seed=seed, deterministic=True, env_facts=facts, game=spec.name)

    return resolve


def build_app(args: argparse.Namespace) -> Any:
    """The :class:`~.server.ViewerApp` the arguments ask for (ValueError: a message for the user)."""
    from .server import ViewerApp

    if args.play:
        from farmgames.envs import get_spec

        from .session import PlaySession

        if args.record:
            raise ValueError("give a record file or --play, not both")
        spec = get_spec(args.game or "fields_of_green")
        players, opponents = parse_opponents(args.bots, args.players, spec)
        variant = _variant(args.variant)
        session = PlaySession(
            spec, players, args.human, opponents, seed=args.seed, variant=variant, resolver=policy_resolver(spec)
        )
        return ViewerApp(session=session, save_path=args.save_record)
    if not args.record:
        raise ValueError("give a record file (farmgames play --save-record g.json) or --play")
    from .records import load_records

    records = load_records(args.record)
    if not 0 <= args.index < len(records):
        raise ValueError(f"--index {args.index}: {args.record} holds {len(records)} record(s)")
    app = ViewerApp(records=records)
    _ = app.sources[args.index].frames  # replay now: a broken record is reported before the server starts
    return app


def _variant(items: list[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--variant takes KEY=VALUE, got {item!r}")
        out[key] = yaml.safe_load(value)
    return out


def serve(app: Any, port: int = DEFAULT_PORT, verbose: bool = False) -> Any:
    """A started-later :class:`~.server.ViewerServer` on ``port`` (the OS picks one if it is busy)."""
    from .server import ViewerServer

    try:
        return ViewerServer(app, port, verbose=verbose)
    except OSError:
        if port == 0:
            raise
        return ViewerServer(app, 0, verbose=verbose)


def write_png(app: Any, args: argparse.Namespace) -> str:
    """The still frame of ``--step``/``--view`` as a PNG file (the same picture the page shows)."""
    frames = app.frames(args.index)
    view = app.view_of(frames, args.view)
    step = app.step_of(frames, args.step)
    png = frames.picture_png(step, view)
    if png is None:
        raise ValueError(f"{frames.spec.name} draws no picture for view {args.view or 'all'}")
    from pathlib import Path

    Path(args.png).parent.mkdir(parents=True, exist_ok=True)
    Path(args.png).write_bytes(png)
    return f"wrote {args.png} (step {step} of {frames.timeline.steps}, view {args.view or 'all'})"


def page_query(args: argparse.Namespace) -> str:
    """``?record=…&step=…&view=…`` for the options given."""
    from urllib.parse import urlencode

    items = {"record": args.index or None, "step": args.step, "view": args.view}
    query = urlencode({k: v for k, v in items.items() if v not in (None, "")})
    return f"?{query}" if query else ""


def run(args: argparse.Namespace) -> int:
    from .server import Refused

    try:
        app = build_app(args)
        if args.png:
            print(write_png(app, args))
            return 0
    except (ValueError, Refused) as exc:  # also CheckpointError, RecordError, IllegalActionError
        print(f"farmgames view: {exc}", file=sys.stderr)
        return 2
    server = serve(app, args.port, args.verbose)
    url = server.url + page_query(args)
    what = "your game" if args.play else args.record
    print(f"farmgames view: showing {what} at {url}  (Ctrl-C to stop)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    if args.play and args.save_record and not app.saved and app.session.timeline.steps:
        app.save()  # an unfinished game too: its record replays and opens in the viewer
    if app.saved:
        state = "" if app.mode == "record" or app.session.over else " (unfinished game)"
        print(f"record written to {app.saved}{state}")
    return 0


__all__ = [
    "add_arguments",
    "build_app",
    "page_query",
    "parse_opponents",
    "policy_resolver",
    "run",
    "serve",
    "write_png",
]
