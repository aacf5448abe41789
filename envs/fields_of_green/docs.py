"""The observation layout table of docs/fields_of_green/env.md, for any player count and farm size.

    python -m farmgames.envs.fields_of_green.docs [players] [farm_size]

(A plain module of its own: ``observer.py`` ships compiled with mypyc, and ``python -m`` cannot run a
compiled module.)
"""

from __future__ import annotations

import sys

from .observer import layout_markdown


def main(argv: list[str]) -> None:
    """Print the markdown table; the arguments are the player count and the farm size (default 4 and 9)."""
    numbers = [int(a) for a in argv[:2]]
    print(layout_markdown(*numbers))


if __name__ == "__main__":
    main(sys.argv[1:])
