"""Golden playthroughs (OpenSpiel style) of every game that has them: replayed and compared line by line.

Regenerate after a reviewed rules, encoding or description change with
``farmgames playthroughs --game <game>_v<N> --write`` and commit the diff with the change."""

from __future__ import annotations

import pytest

from farmgames.envs import GAMES
from farmgames.training import playthroughs

#: every game version with golden transcripts (Fields of Green v1 is v0's engine on other conventions)
WITH_GOLDENS = ["fields_of_green_v0", "sunflower_valley_v0", "key_harvest_v0"]


def test_every_game_has_goldens():
    assert set(WITH_GOLDENS) >= {row.env_name for row in GAMES if row.game != "fields_of_green"}
    for name in WITH_GOLDENS:
        files = sorted(playthroughs.default_dir(name).glob("*.txt"))
        assert len(files) >= 2, f"{name}: no golden transcripts in {playthroughs.default_dir(name)}"


@pytest.mark.parametrize("name", WITH_GOLDENS)
def test_goldens_match(name):
    problems = playthroughs.check(game=name)
    assert not problems, f"{name}: golden playthroughs differ:\n" + "\n\n".join(problems.values())
