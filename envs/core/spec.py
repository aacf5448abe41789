"""``GameSpec``: everything the adapters and tools need to know about one game, in one place.

A game's versioned face (``envs/<game>_v<N>.py``) defines ``SPEC = GameSpec(...)``; one row in
``farmgames.envs.GAMES`` names that face. The keyword table drives validation (:mod:`.variants`) and
the generated docs table (:mod:`.docs`), so a keyword's default, check and meaning live in one row.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Target = Literal["game", "observer", "env"]


@dataclass(frozen=True)
class Keyword:
    """One keyword of ``env()``: where it goes (the engine, the observer or the env), its default,
    a check that returns the value to use or raises ``ValueError`` naming the value and what is
    allowed, and its meaning for the docs."""

    name: str
    default: Any
    meaning: str
    target: Target = "game"
    check: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Bounds:
    """OpenSpiel-style game facts: at most this many decisions per game; final scores in
    ``[min_score, max_score]``."""

    max_decisions: int
    max_score: float
    min_score: float = 0.0


@dataclass(frozen=True)
class EnvConventions:
    """The environment behaviour that changes between env versions (PettingZoo's ``_v<N>`` idea): a face
    module keeps the conventions it was published with, so results reproduce; new games and new versions
    take :data:`CURRENT`. The env-version history of every game (what changed, why) is in its docs.

    * ``env_illegal_action``: what ``env()`` and ``parallel_env()`` do with an illegal action
      (``raw_env()`` always raises by default);
    * ``reuse_buffers``: observations are the env's own double buffers (True) or fresh arrays that are
      never written again (False; reuse is then the ``reuse_buffers=True`` opt-in);
    * ``terminal_mask``: the action mask once an agent is done: ``"empty"`` (all zero) or ``"all"``
      (every action marked legal, the Pgx convention, so that samplers and ``-inf`` logit masks never
      see an empty mask; the action is ignored by the env);
    * ``infos``: ``"final"`` (string-keyed score details at the end only) or ``"fixed"`` (the same numeric
      keys on every step: ``winners`` 0/1 and ``scores`` as arrays over seats, ``illegal_action`` flags);
    * ``finite_bounds``: Box highs of unbounded counts are ``GameSpec.count_high`` instead of ``inf``;
    * ``keywords``: the env keywords offered beyond ``reward`` and ``illegal_action``
      (``observation_mode``, ``info_mask``, ``reuse_buffers``).
    """

    version: int
    env_illegal_action: str
    reuse_buffers: bool
    terminal_mask: Literal["empty", "all"]
    infos: Literal["final", "fixed"]
    finite_bounds: bool
    keywords: tuple[str, ...] = ()


#: the conventions of the first release (Fields of Green v0)
LEGACY = EnvConventions(
    version=0, env_illegal_action="raise", reuse_buffers=True, terminal_mask="empty", infos="final", finite_bounds=False
)
#: the conventions of every new game and env version
CURRENT = EnvConventions(
    version=1,
    env_illegal_action="terminate",
    reuse_buffers=False,
    terminal_mask="all",
    infos="fixed",
    finite_bounds=True,
    keywords=("observation_mode", "info_mask", "reuse_buffers"),
)


@dataclass(frozen=True)
class GameSpec:
    """One game of the suite (the OpenSpiel ``GameType``/``GameInfo`` idea).

    ``new_game(num_players=, seed=, **game keywords)`` builds an engine state;
    ``new_observer(game, **observer keywords)`` its observer; ``bounds(game)`` its facts.
    ``bots`` maps a bot name to a factory ``(seed) -> Bot``. ``hidden_perturbation(game, seat, rng)``
    returns a copy of ``game`` that differs only in what ``seat`` cannot see (or ``None`` when nothing
    hidden can change now): the conformance suite checks that ``seat``'s observation, mask, text and
    renders are identical on both. ``conventions`` are the env behaviours of this version
    (:class:`EnvConventions`); ``count_high`` is the finite Box bound of the observation's unbounded
    counts under ``finite_bounds`` (a true bound: the conformance suite checks observations stay inside
    their spaces).
    """

    name: str
    version: int
    gym_name: str
    title: str
    min_players: int
    max_players: int
    new_game: Callable[..., Any]
    new_observer: Callable[..., Any]
    from_json: Callable[[str], Any]
    bounds: Callable[[Any], Bounds]
    keywords: tuple[Keyword, ...] = ()
    default_players: int | None = None
    bots: Mapping[str, Callable[[int], Any]] = field(default_factory=dict)
    render_ansi: Callable[[Any, int | None], str] | None = None
    render_rgb: Callable[[Any], Any] | None = None
    narrator: Callable[[], Any] | None = None
    information: Literal["perfect", "imperfect"] = "imperfect"
    hidden_perturbation: Callable[[Any, int, random.Random], Any] | None = None
    rules: str = ""
    render_fps: int = 2
    score_info_key: str = "final_score"
    conventions: EnvConventions = CURRENT
    count_high: float = 1e6

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.name}: players {self.min_players}..{self.max_players} is not a range")
        if self.default_players is None:
            object.__setattr__(self, "default_players", self.max_players)

    @property
    def env_name(self) -> str:
        """``fields_of_green_v0``: the PettingZoo-style name of the face module."""
        return f"{self.name}_v{self.version}"

    @property
    def pettingzoo_id(self) -> str:
        return f"farmgames/{self.name}-v{self.version}"

    @property
    def gym_id(self) -> str:
        return f"farmgames/{self.gym_name}-v{self.version}"

    @property
    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Specs pickle by name (an env or a tool that holds one copies cleanly; the keyword checks and
        factories are not data): unpickling looks the version up in the registry."""
        return (_spec_by_name, (self.env_name,))

    def keyword(self, name: str) -> Keyword:
        for kw in self.keywords:
            if kw.name == name:
                return kw
        raise KeyError(name)

    def keywords_for(self, target: Target) -> dict[str, Any]:
        """Defaults of the keywords that go to ``target``."""
        return {kw.name: kw.default for kw in self.keywords if kw.target == target}

    def agents(self, num_players: int) -> list[str]:
        return [f"player_{i}" for i in range(num_players)]


def _spec_by_name(env_name: str) -> GameSpec:
    import importlib

    spec: GameSpec = importlib.import_module("farmgames.envs").get_spec(env_name)
    return spec


__all__ = ["CURRENT", "LEGACY", "Bounds", "EnvConventions", "GameSpec", "Keyword"]
