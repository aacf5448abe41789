"""The ``farmgames`` command: one entry point, one module per subcommand.

Each subcommand module defines ``add_arguments(parser)`` and ``run(args) -> int``; modules are
imported only when their subcommand runs, so ``farmgames play`` never loads torch.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "play": ("farmgames.training.play", "play a game: bots against each other, or you against bots"),
    "replay": ("farmgames.training.replay", "show a saved game record step by step"),
    "train": ("farmgames.training.train", "train MaskablePPO from a YAML config"),
    "evaluate": ("farmgames.training.evaluate", "play seeded games: a policy against opponents, in every seat"),
    "league": ("farmgames.training.league", "rate several policies against each other (OpenSkill)"),
    "bench": ("farmgames.training.bench", "speed benchmark of the games against peer environments"),
    "balance": ("farmgames.training.balance", "balance report by bot simulation (seats, scores, game items)"),
    "playthroughs": ("farmgames.training.playthroughs", "write or check golden playthrough transcripts"),
    "convert-checkpoint": (
        "farmgames.training.checkpoint",
        "write the code-free .safetensors twin of a stable-baselines3 zip you trust",
    ),
    "view": ("farmgames.training.view", "watch a recorded game, or play one, in your browser"),
    "benchmark": ("farmgames.training.benchmark", "the standard protocol: a policy against the ladder; --ladder"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="farmgames", description="farm-building board games for RL")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("farmgames"):
                p.set_defaults(_missing=str(exc))
                continue
            raise
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "_missing", None):
        print(f"farmgames {args.command}: not available ({args._missing})", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
