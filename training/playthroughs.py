"""``farmgames playthroughs``: golden game transcripts, as OpenSpiel keeps them.

Each playthrough is a seeded game between seeded uniformly random players (their own
``random.Random``, independent of the bots module), played through the AEC environment with a frozen
copy of the base card set (``card_set.yaml`` beside the transcripts, refreshed by ``--write``, so that
balance edits of the base set do not churn the goldens while rule and encoding changes do), written as
readable text: for the first ``DETAIL`` decisions the whole table (every hand), a checksum of each
observation array of the deciding agent, every legal action with its description and the chosen
action; after that one line per decision; then the final table, the rewards and the score breakdowns.
CI replays them (``tests/env/test_playthroughs.py``) and fails on any difference, so a change of
rules, card data, encodings or descriptions shows up as a reviewed diff.

    farmgames playthroughs --check tests/playthroughs      # what the test does
    farmgames playthroughs --write tests/playthroughs      # regenerate after a reviewed change
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
import zlib
from pathlib import Path

DETAIL = 60  # decisions shown in full detail
CARD_SET = "card_set.yaml"  # the frozen card set the playthroughs use
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"

# name -> (players, game seed, player seed, variant)
PLAYTHROUGHS: dict[str, tuple[int, int, int, dict]] = {
    "fields_of_green_2p": (2, 1, 101, {}),
    "fields_of_green_3p": (3, 2, 202, {}),
    "fields_of_green_4p": (4, 3, 303, {}),
}


def state_text(game) -> str:
    """The whole table, every hand included (a transcript is omniscient)."""
    from farmgames.envs.fields_of_green.render import farms_text, status_line

    cards = game.cards.locations
    lines = [status_line(game), farms_text(game)]
    if game.two_player:
        lines.append("display: " + (", ".join(cards[c].name for c in game.display) or "-")
                     + f"; offer pile {len(game.offer)}")
    for p in range(game.num_players):
        parts = []
        if game.hands[p]:
            parts.append("hand " + ", ".join(cards[c].name for c in game.hands[p]))
        if game.picks[p] is not None:
            parts.append("pick " + cards[game.picks[p]].name)
        if game.farms[p].set_aside:
            parts.append("set aside " + ", ".join(game.cards.equipment[t].name for t in game.farms[p].set_aside))
        if parts:
            lines.append(f"player {p}: " + "; ".join(parts))
    if game.decision is not None:
        lines.append(f"pending: {game.decision_kind} for player {game.current_player}")
    return "\n".join(lines)


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


def transcript(name: str, directory: Path = DEFAULT_DIR) -> str:
    import numpy as np

    from farmgames.envs.fields_of_green.actions import SPLITS
    from farmgames.envs.fields_of_green_v0 import raw_env

    players, seed, player_seed, variant = PLAYTHROUGHS[name]
    env = raw_env(num_players=players, card_set=str(Path(directory) / CARD_SET), **variant)
    env.reset(seed=seed)
    rng = random.Random(player_seed)
    game = env.game
    out = [
        f"# playthrough {name}",
        f"# fields_of_green_v0: num_players={players}, seed={seed}, variant={variant}, card set {CARD_SET} "
        f"(frozen copy of the base set); uniformly random players (random.Random({player_seed}))",
        f"# regenerate after a reviewed change: farmgames playthroughs --write tests/playthroughs",
        f"# action space {env.layout.size}, observation {env.observer.size} float32 values",
        "",
    ]
    step = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if legal != game.legal_actions():
            raise AssertionError(f"decision {step}: mask differs from the engine's legal actions")
        action = rng.choice(legal)
        kind = game.decision_kind
        if step < DETAIL:
            out.append(f"## decision {step}: {agent} ({kind})")
            out.append(state_text(game))
            out.append(f"observation of {agent} (crc32 per array):")
            out.append(observation_digest(obs))
            if kind == "split":  # 50 draw splits: compact (Field/Livestock/Construction/Building)
                out.append(f"legal actions ({len(legal)}), draw splits as index F/L/C/B:")
                out.append(_wrap([f"{a} {'/'.join(map(str, SPLITS[a - env.layout.SPLIT]))}" for a in legal]))
            else:
                out.append(f"legal actions ({len(legal)}):")
                out.extend(f"  {a:>4} {env.describe_action(a)}" for a in legal)
            out.append(f"chosen: {action} {env.describe_action(action)}")
            out.append("")
        else:
            if step == DETAIL:
                out.append("## later decisions: step agent (kind): action description")
            out.append(f"{step} {agent} ({kind}): {action} {env.describe_action(action)}")
        env.step(action)
        step += 1
    out.append("")
    out.append(f"## final state after {step} decisions")
    out.append(state_text(game))
    out.append("rewards: " + ", ".join(f"{a} {r:+g}" for a, r in env._cumulative_rewards.items()))
    for p, score in enumerate(game.scores()):
        out.append(f"player {p}: {score.as_dict()}")
    out.append(f"winners: {game.winners()}")
    return "\n".join(out) + "\n"


def write(directory: Path) -> list[Path]:
    """Freeze the current base card set beside the transcripts, then write every transcript."""
    from farmgames.envs.fields_of_green.cards import DEFAULT_CARD_SET

    directory.mkdir(parents=True, exist_ok=True)
    cards = directory / CARD_SET
    cards.write_text(Path(DEFAULT_CARD_SET).read_text(encoding="utf-8"), encoding="utf-8")
    paths = [cards]
    for name in PLAYTHROUGHS:
        path = directory / f"{name}.txt"
        path.write_text(transcript(name, directory), encoding="utf-8")
        paths.append(path)
    return paths


def check(directory: Path, context: int = 3, limit: int = 80) -> dict[str, str]:
    """{name: unified diff (at most ``limit`` lines)} for every playthrough that differs."""
    problems = {}
    if not (directory / CARD_SET).exists():
        return {"card set": f"{directory / CARD_SET} is missing (run: farmgames playthroughs --write {directory})"}
    for name in PLAYTHROUGHS:
        path = directory / f"{name}.txt"
        if not path.exists():
            problems[name] = f"{path} is missing (run: farmgames playthroughs --write {directory})"
            continue
        expected = path.read_text(encoding="utf-8")
        actual = transcript(name, directory)
        if actual != expected:
            diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"{path} (golden)",
                                             f"{name} (now)", n=context, lineterm=""))
            more = len(diff) - limit
            problems[name] = "\n".join(diff[:limit]) + (f"\n… {more} more diff lines" if more > 0 else "")
    return problems


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="DIR", nargs="?", const=str(DEFAULT_DIR),
                       help=f"(re)write the transcripts into DIR (default {DEFAULT_DIR})")
    group.add_argument("--check", metavar="DIR", nargs="?", const=str(DEFAULT_DIR),
                       help="replay and compare with the transcripts in DIR")


def run(args: argparse.Namespace) -> int:
    if args.write:
        for path in write(Path(args.write)):
            print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
        return 0
    problems = check(Path(args.check))
    for name, diff in problems.items():
        print(f"playthrough {name} differs:\n{diff}\n", file=sys.stderr)
    if problems:
        print(f"{len(problems)} playthrough(s) differ; if the change is intended and reviewed, regenerate with "
              f"`farmgames playthroughs --write {args.check}`", file=sys.stderr)
        return 1
    print(f"{len(PLAYTHROUGHS)} playthroughs match")
    return 0
