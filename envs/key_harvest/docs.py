"""The generated parts of docs/key_harvest/env.md (action table, phase table, observation tables).

    python -m farmgames.envs.key_harvest.docs docs/key_harvest/env.md   # rewrites the part after the heading

``tests/key_harvest/test_docs.py`` checks that env.md contains exactly these tables.
"""

from __future__ import annotations

from farmgames.envs.core.observation import feature_table_markdown

from .actions import action_table_markdown
from .game import Game
from .observer import BOARD_PLANES, PLAYER_FEATURES, STATE_FEATURES, Observer

PHASE_TABLE = """| phase | legal ids |
|---|---|
| TURN | 1-5 for each letter still allowed (KH-TURN-2..4); 0 ends the turn |
| HARVEST | own unharvested spaces, then only the first pick's group; 0 after one pick (event, Reeve: at once) |
| PICK | the spaces the Unskilled, Foreman, Casual or Spring Rain allow; 0 at once |
| SUBSTITUTE | crops present in the stock (no 0) |
| HIRING | 2 (play) / 3 (remove) where possible; 0 |
| WORKER | own farmhands 62-67 and townsfolk 68-73 with at least one legal space |
| SPACE | the legal spaces of that worker |
| REMOVE | spaces of own workers |
| STORE | store tiles 80-87 that may be taken (exact payment, not new this turn); 0 after the first |
| REPLACE | legal spaces of the displaced worker; 0 sends it back |
| REGISTRY | registry spaces 74-79 while the store has room and the supply counters; 0 after the first |
| BID | crops in the supply; 0 after the first counter |
| EXTRA | Supervisor 1 / 4 / 5, Carter 4, where allowed; 0 |
| DEED | 4 if a tile can be taken; 0 |
| CROP | crops in the stock (the Brewer's second: the same crop); 0 |
| GIVE | crops the exchange procedure allows (KH-RULING-13); 0 |
| TAKE | crops in the stock not given in this exchange (no 0) |
| TITHE | crops in the supply (no 0) |
| ENCLOSE | registry spaces holding a tile (no 0) |
| SURVEY | registry spaces holding a tile; 0 |"""


def generated_markdown(num_players: int = 4) -> str:
    """Action ids, phases, the observation layout and its three feature tables, for ``num_players``."""
    layout = Observer(Game(num_players, 0)).layout
    parts = [
        "### Action ids (Discrete(93), KH-RULING-17)",
        "",
        action_table_markdown(),
        "",
        "### Phases",
        "",
        PHASE_TABLE,
        "",
        f"### Observation layout ({num_players} players; player axes have one row per player, viewer first)",
        "",
        layout.markdown(),
        "",
        f"Flat size: {layout.size} floats for {num_players} players. Every bound is finite.",
        "",
        feature_table_markdown("BOARD_PLANES (last axis of `board`)", BOARD_PLANES),
        "",
        feature_table_markdown("PLAYER_FEATURES (last axis of `players`)", PLAYER_FEATURES),
        "",
        feature_table_markdown("STATE_FEATURES (`state`)", STATE_FEATURES),
    ]
    return "\n".join(parts)


HEADING = "## Generated tables"


def rewrite(path: str) -> None:
    """Replace everything after ``HEADING`` in the page at ``path`` with the current tables."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head = text[: text.index(HEADING)] if HEADING in text else text + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + HEADING + "\n\n" + generated_markdown() + "\n")


if __name__ == "__main__":  # pragma: no cover
    import sys

    if len(sys.argv) > 1:
        rewrite(sys.argv[1])
    else:
        print(generated_markdown())
