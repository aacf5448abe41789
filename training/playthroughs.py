"""``farmgames playthroughs``: golden game transcripts, as OpenSpiel keeps them.

Each playthrough is a seeded game between seeded uniformly random players (their own
``random.Random``, independent of any bot), played through the game's AEC environment and written as
readable text: for the first ``DETAIL`` decisions the whole table, a checksum of each observation array
of the deciding agent, every legal action with its description and the chosen action; after that one
line per decision; then the final table, the rewards and the score breakdowns. CI replays them and
fails on any difference, so a change of rules, data, encodings or descriptions shows up as a reviewed
diff. The loop is the same for every game; the state text, the legal-action listing and any frozen
data (Fields of Green: a copy of the base card set, ``card_set.yaml``, so that balance edits do not
churn the goldens) come from the game's narrator. One playthrough per player count of the game:
``<game>_<n>p`` with game seed ``n - 1`` and player seed ``101 * (n - 1)``. The default game is
``fields_of_green_v0``, whose transcripts are ``tests/playthroughs``; other versions and games keep theirs in
``tests/<game>/playthroughs/v<N>`` unless their narrator says otherwise.

    farmgames playthroughs --check tests/playthroughs      # what the test does (fields_of_green_v0)
    farmgames playthroughs --write tests/playthroughs      # regenerate after a reviewed change
    farmgames playthroughs --game <game> --check           # another game, in its own folder
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
import zlib
from pathlib import Path
from typing import Any

from .games import DEFAULT_GAME, add_game_argument

DETAIL = 60  # decisions shown in full detail
ROOT = Path(__file__).resolve().parent.parent  # the source checkout (editable install)
CARD_SET = "card_set.yaml"  # kept for users of the single-game release (fields_of_green's frozen card set)


def playthroughs(game: str = DEFAULT_GAME) -> dict[str, tuple[int, int, int, dict]]:
    """name -> (players, game seed, player seed, variant): one per player count of the game."""
    from farmgames.envs import get_spec

    spec = get_spec(game)
    return {f"{spec.name}_{n}p": (n, n - 1, 101 * (n - 1), {}) for n in spec.player_counts}


def default_dir(game: str = DEFAULT_GAME) -> Path:
    """Where a game's golden transcripts live (its narrator's ``playthrough_dir``)."""
    from farmgames.envs import get_spec

    from .narration import Narration

    return ROOT / Narration(get_spec(game)).playthrough_dir


PLAYTHROUGHS = playthroughs(DEFAULT_GAME)
DEFAULT_DIR = default_dir(DEFAULT_GAME)


def _wrap(parts: list[str], width: int = 100) -> str:
    lines, line = [], "  "
    for part in parts:
        if len(line) + len(part) > width and line.strip():
            lines.append(line.rstrip(", "))
            line = "  "
        line += part + ", "
    lines.append(line.rstrip(", "))
    return "\n".join(lines)


def observation_digest(obs: dict) -> str:
    parts = [f"{name} {zlib.crc32(arr.tobytes()):08x}" for name, arr in obs["observation"].items()]
    parts.append(f"action_mask {zlib.crc32(obs['action_mask'].tobytes()):08x}")
    return _wrap(parts)


def _header(name: str, spec: Any, env: Any, setup: tuple, note: str, narration: Any) -> list[str]:
    players, seed, player_seed, variant = setup
    return [
        f"# playthrough {name}",
        f"# {spec.env_name}: num_players={players}, seed={seed}, variant={variant}"
        + (f", {note}" if note else "")
        + f"; uniformly random players (random.Random({player_seed}))",
        "# regenerate after a reviewed change: farmgames playthroughs"
        + ("" if spec.env_name == DEFAULT_GAME else f" --game {spec.env_name}")
        + f" --write {narration.playthrough_dir}",
        f"# action space {env.space_n}, observation {env.observer.layout.size} float32 values",
        "",
    ]


def _decision(env: Any, narration: Any, agent: str, obs: dict, legal: list[int], action: int) -> list[str]:
    game = env.game
    out = [
        f"## decision {len(game.history)}: {agent} ({narration.decision_kind(game)})",
        narration.state_text(game),
        f"observation of {agent} (crc32 per array):",
        observation_digest(obs),
    ]
    listing = narration.legal_listing(game, legal)
    if listing is not None:
        out += [listing[0], _wrap(listing[1])]
    else:
        out.append(f"legal actions ({len(legal)}):")
        out.extend(f"  {a:>4} {env.describe_action(a)}" for a in legal)
    out += [f"chosen: {action} {env.describe_action(action)}", ""]
    return out


def transcript(name: str, directory: Path | None = None, game: str = DEFAULT_GAME) -> str:
    import numpy as np

    from farmgames.envs import face, get_spec

    from .narration import Narration

    spec = get_spec(game)
    narration = Narration(spec)
    directory = Path(directory) if directory is not None else default_dir(game)
    setup = playthroughs(game)[name]
    players, seed, player_seed, variant = setup
    frozen, note = narration.playthrough_setup(directory)
    env = face(game).raw_env(num_players=players, **frozen, **variant)
    env.reset(seed=seed)
    rng = random.Random(player_seed)
    out = _header(name, spec, env, setup, note, narration)
    step = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        state = env.game
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if legal != state.legal_actions():
            raise AssertionError(f"decision {step}: mask differs from the engine's legal actions")
        action = rng.choice(legal)
        if step < DETAIL:
            out += _decision(env, narration, agent, obs, legal, action)
        else:
            if step == DETAIL:
                out.append("## later decisions: step agent (kind): action description")
            out.append(f"{step} {agent} ({narration.decision_kind(state)}): {action} {env.describe_action(action)}")
        env.step(action)
        step += 1
    state = env.game
    out += [
        "",
        f"## final state after {step} decisions",
        narration.state_text(state),
        "rewards: " + ", ".join(f"{a} {r:+g}" for a, r in env._cumulative_rewards.items()),
    ]
    out += [f"player {p}: {score.as_dict()}" for p, score in enumerate(state.scores())]
    out.append(f"winners: {state.winners()}")
    return "\n".join(out) + "\n"


def write(directory: Path | None = None, game: str = DEFAULT_GAME) -> list[Path]:
    """Freeze the game's playthrough data (if any) beside the transcripts, then write every transcript."""
    from farmgames.envs import get_spec

    from .narration import Narration

    directory = Path(directory) if directory is not None else default_dir(game)
    directory.mkdir(parents=True, exist_ok=True)
    paths = Narration(get_spec(game)).freeze_playthrough_data(directory)
    for name in playthroughs(game):
        path = directory / f"{name}.txt"
        path.write_text(transcript(name, directory, game), encoding="utf-8")
        paths.append(path)
    return paths


def check(directory: Path | None = None, context: int = 3, limit: int = 80, game: str = DEFAULT_GAME) -> dict[str, str]:
    """{name: unified diff (at most ``limit`` lines)} for every playthrough that differs."""
    from farmgames.envs import get_spec

    from .narration import Narration

    directory = Path(directory) if directory is not None else default_dir(game)
    problems = {}
    missing = Narration(get_spec(game)).playthrough_missing(directory)
    if missing:
        return {"data": f"{missing} (run: farmgames playthroughs --write {directory})"}
    for name in playthroughs(game):
        path = directory / f"{name}.txt"
        if not path.exists():
            problems[name] = f"{path} is missing (run: farmgames playthroughs --write {directory})"
            continue
        expected = path.read_text(encoding="utf-8")
        actual = transcript(name, directory, game)
        if actual != expected:
            diff = list(
                difflib.unified_diff(
                    expected.splitlines(),
                    actual.splitlines(),
                    f"{path} (golden)",
                    f"{name} (now)",
                    n=context,
                    lineterm="",
                )
            )
            more = len(diff) - limit
            problems[name] = "\n".join(diff[:limit]) + (f"\n… {more} more diff lines" if more > 0 else "")
    return problems


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_argument(parser)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--write",
        metavar="DIR",
        nargs="?",
        const="",
        help=f"(re)write the transcripts into DIR (default: the game's folder, {DEFAULT_DIR} for {DEFAULT_GAME})",
    )
    group.add_argument(
        "--check",
        metavar="DIR",
        nargs="?",
        const="",
        help="replay and compare with the transcripts in DIR (default: the game's folder)",
    )


def run(args: argparse.Namespace) -> int:
    game = args.game
    if args.write is not None:
        directory = Path(args.write) if args.write else default_dir(game)
        for path in write(directory, game):
            print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
        return 0
    directory = Path(args.check) if args.check else default_dir(game)
    problems = check(directory, game=game)
    for name, diff in problems.items():
        print(f"playthrough {name} differs:\n{diff}\n", file=sys.stderr)
    if problems:
        print(
            f"{len(problems)} playthrough(s) differ; if the change is intended and reviewed, regenerate with "
            f"`farmgames playthroughs --game {game} --write {directory}`",
            file=sys.stderr,
        )
        return 1
    print(f"{len(playthroughs(game))} playthroughs match")
    return 0
