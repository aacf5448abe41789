"""Hidden information: a seat's view in the viewer does not change when only what that seat cannot see
changes (the same black-box perturbations as the envs' conformance test, ``SPEC.hidden_perturbation``).

Every state the viewer reads for a step (the state, the one before it, the observer's) is replaced by a
perturbed copy for the seat; the JSON frames, the decision log and the PNG pictures the server sends for
that seat must be byte-identical to the unperturbed ones.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from farmgames.envs import get_spec
from farmgames.training.view.frames import Frames, Timeline
from farmgames.training.view.server import ViewerApp

from .conftest import get, get_json, random_record, registered, running


class PerturbedTimeline(Timeline):
    """The record's states, each changed in what ``seat`` cannot see (a fixed draw per step)."""

    def __init__(self, spec: Any, record: dict[str, Any], seat: int, seed: int = 0):
        super().__init__(spec, record)
        self.seat = seat
        self.seed = seed
        self.changed = 0
        self._perturbed: dict[int, Any] = {}

    def state(self, i: int) -> Any:
        if i not in self._perturbed:
            real = super().state(i)
            other = self.spec.hidden_perturbation(real, self.seat, random.Random(self.seed * 100_003 + i))
            if other is not None and other.to_json() != real.to_json():
                self.changed += 1
            self._perturbed[i] = real if other is None else other
        return self._perturbed[i]


def _actors(spec: Any, record: dict[str, Any]) -> list[int]:
    """The seat that took each action of the record."""
    timeline = Timeline(spec, record)
    return [timeline.state(i).current_player for i in range(timeline.steps)]


def _app(record: dict[str, Any], timeline: Timeline) -> ViewerApp:
    app = ViewerApp(records=[("record", record)])
    app.sources[0]._frames = Frames(timeline)
    return app


def _hidden_games() -> list[str]:
    return [name for name in registered() if get_spec(name).hidden_perturbation is not None]


@pytest.mark.parametrize("name", _hidden_games())
def test_a_seat_view_shows_nothing_hidden(name: str) -> None:
    spec = get_spec(name)
    players = max(spec.min_players, min(3, spec.max_players))  # 3 players: hidden picks in Fields of Green
    record = random_record(name, seed=5, players=players, limit=90)
    steps = len(record["actions"])
    actors = _actors(spec, record)
    for seat in range(players):
        # pictures: the start, the end, and steps right after another seat decided (its choice is worded)
        others = [i + 1 for i, who in enumerate(actors) if who != seat]
        pictures = sorted({1, steps - 1, *others[1 :: max(1, len(others) // 3)][:3]})
        plain = _app(record, Timeline(spec, record))
        perturbed_timeline = PerturbedTimeline(spec, record, seat, seed=seat)
        perturbed = _app(record, perturbed_timeline)
        with running(plain) as a, running(perturbed) as b:
            for step in range(0, steps + 1, 2):
                path = f"/api/frame?step={step}&view={seat}"
                assert get_json(a, path) == get_json(b, path), f"{name} seat {seat} step {step}: frame differs"
            path = f"/api/log?view={seat}"
            assert get_json(a, path) == get_json(b, path), f"{name} seat {seat}: log differs"
            for step in pictures:
                path = f"/api/picture?step={step}&view={seat}"
                one, two = get(a, path), get(b, path)
                assert one[0] == two[0] and one[2] == two[2], f"{name} seat {seat} step {step}: picture differs"
        assert perturbed_timeline.changed > steps // 4, "the perturbation must actually change hidden things"


def test_the_check_catches_a_leak() -> None:
    """The same comparison fails for the everything view, which shows every hand."""
    spec = get_spec("fields_of_green")
    record = random_record("fields_of_green", seed=5, players=3, limit=40)
    plain = Frames(Timeline(spec, record))
    perturbed = Frames(PerturbedTimeline(spec, record, 0))
    differs = [i for i in range(1, 40) if json.dumps(plain.frame(i, None)) != json.dumps(perturbed.frame(i, None))]
    assert differs
