"""The shared core of every farmgames game: protocols, the game spec, observation and action layouts,
keywords, scoring, records, seeds, bots, bounded data files. Pure Python + numpy (+ PyYAML for data
files): no pettingzoo, gymnasium or torch (checked by import-linter in .ci/run)."""

from .actions import ActionLayout, ActionRange, count_vectors
from .bots import Bot, RandomBot, make_bot, play_game
from .observation import Entry, ObservationBuffer, ObservationLayout
from .protocol import Game, IllegalActionError, Narrator, Observer, Score, SimultaneousGame
from .records import RecordError, check_record, replay
from .spec import Bounds, GameSpec, Keyword

__all__ = [
    "ActionLayout",
    "ActionRange",
    "Bot",
    "Bounds",
    "Entry",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "Keyword",
    "Narrator",
    "ObservationBuffer",
    "ObservationLayout",
    "Observer",
    "RandomBot",
    "RecordError",
    "Score",
    "SimultaneousGame",
    "check_record",
    "count_vectors",
    "make_bot",
    "play_game",
    "replay",
]
