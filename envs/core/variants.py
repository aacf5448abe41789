"""Keyword checking for ``env()``/``raw_env()``/``parallel_env()`` of any game, from the spec's table.

The environment's own keywords (``reward``, ``illegal_action``) are the same for every game and are
appended here; a game lists its engine and observer keywords in ``GameSpec.keywords``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .spec import GameSpec, Keyword

REWARD_MODES = ("win_loss", "score", "margin")
ILLEGAL_MODES = ("raise", "terminate")
RENDER_MODES = ("human", "ansi", "rgb_array")
#: ``dict``: ``{"observation": {name: array}, "action_mask": mask}``; ``flat_dict``: ``{"observation": one
#: float32 vector, "action_mask": mask}``; ``flat``: the float32 vector alone, the mask in ``info["action_mask"]``
OBSERVATION_MODES = ("dict", "flat_dict", "flat")


def _choice(name: str, allowed: tuple[str, ...]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        return value

    return check


def check_bool(name: str) -> Callable[[Any], bool]:
    """A Keyword check: booleans only (``"no"`` or 1 are refused, never coerced)."""

    def check(value: Any) -> bool:
        if type(value).__name__ not in ("bool", "bool_"):
            raise ValueError(f"{name} must be True or False, got {value!r}")
        return bool(value)

    return check


ENV_KEYWORDS: tuple[Keyword, ...] = (
    Keyword(
        "reward",
        "win_loss",
        "`win_loss` (+1 every winner, -1 the others), `score` (final score) or `margin` (score minus best opponent)",
        "env",
        _choice("reward", REWARD_MODES),
    ),
    Keyword(
        "illegal_action",
        "raise",
        "`raise` (error, state unchanged) or `terminate` (offender gets the lowest reward, game ends)",
        "env",
        _choice("illegal_action", ILLEGAL_MODES),
    ),
)


#: env keywords that a spec's conventions offer (``EnvConventions.keywords``), with the defaults of the
#: current conventions
VERSIONED_KEYWORDS: tuple[Keyword, ...] = (
    Keyword(
        "observation_mode",
        "dict",
        '`dict` (`{"observation": {name: array}, "action_mask"}`), `flat_dict` (`{"observation": '
        'float32 vector, "action_mask"}`) or `flat` (the vector alone; mask in `info["action_mask"]`)',
        "env",
        _choice("observation_mode", OBSERVATION_MODES),
    ),
    Keyword(
        "info_mask",
        False,
        'also put each agent\'s mask in `info["action_mask"]` (always on for `flat`)',
        "env",
        check_bool("info_mask"),
    ),
    Keyword(
        "reuse_buffers",
        False,
        "hand out the env's own observation buffers (zero-copy): an agent's arrays stay valid until it is "
        "observed in two later states; copy what you keep",
        "env",
        check_bool("reuse_buffers"),
    ),
)


def all_keywords(spec: GameSpec) -> tuple[Keyword, ...]:
    """The game's keywords, then the environment's own (a game may override an env keyword's default
    by listing a keyword of the same name); the versioned env keywords its conventions offer."""
    own = {kw.name for kw in spec.keywords}
    offered = spec.conventions.keywords
    extra = tuple(kw for kw in VERSIONED_KEYWORDS if kw.name in offered)
    return spec.keywords + tuple(kw for kw in ENV_KEYWORDS + extra if kw.name not in own)


def valid_keywords(spec: GameSpec) -> tuple[str, ...]:
    return ("num_players", "render_mode", *(kw.name for kw in all_keywords(spec)))


def check_players(spec: GameSpec, num_players: Any) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, int) and not hasattr(num_players, "__index__"):
        raise ValueError(
            f"{spec.env_name}: num_players must be an integer from {spec.min_players} to "
            f"{spec.max_players}, got {num_players!r}"
        )
    n = int(num_players.__index__()) if not isinstance(num_players, int) else num_players
    if not spec.min_players <= n <= spec.max_players:
        counts = ", ".join(str(k) for k in spec.player_counts)
        raise ValueError(f"{spec.env_name}: num_players must be one of {counts}, got {num_players!r}")
    return n


def check_keywords(
    spec: GameSpec, num_players: Any, render_mode: Any, variant: dict[str, Any]
) -> tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Validate ``env()`` keywords: ``(num_players, game keywords, observer keywords, env options)``.
    Game keywords the user did not give are left out (the engine's own defaults apply); the engine
    checks their values when the first game is built."""
    table = all_keywords(spec)
    names = {kw.name: kw for kw in table}
    unknown = [k for k in variant if k not in names]
    if unknown:
        raise TypeError(
            f"{spec.env_name}: unknown keyword {unknown[0]!r}; valid keywords are: {', '.join(valid_keywords(spec))}"
        )
    n = check_players(spec, num_players)
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"{spec.env_name}: render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    out: dict[str, dict[str, Any]] = {"game": {}, "observer": {}, "env": {}}
    for kw in table:
        if kw.name in variant:
            value = variant[kw.name]
            if kw.check is not None:
                try:
                    value = kw.check(value)
                except ValueError as exc:
                    raise ValueError(f"{spec.env_name}: {exc}") from None
            out[kw.target][kw.name] = value
        elif kw.target != "game":
            out[kw.target][kw.name] = kw.default
    return n, out["game"], out["observer"], out["env"]


__all__ = [
    "ENV_KEYWORDS",
    "ILLEGAL_MODES",
    "OBSERVATION_MODES",
    "VERSIONED_KEYWORDS",
    "RENDER_MODES",
    "REWARD_MODES",
    "all_keywords",
    "check_bool",
    "check_keywords",
    "check_players",
    "valid_keywords",
]
