"""The ``Policy`` protocol: what evaluate, league and the single-agent env's opponents play with.

A policy is any object with one method::

    act(observation: np.ndarray, action_mask: np.ndarray) -> int

``observation`` is the seat's flat float32 observation (the vector
:class:`farmgames.wrappers.FieldsOfGreenSingleAgentEnv` and
:func:`farmgames.wrappers.flatten_observations` give; ``unflatten_observation`` restores the named
parts) and ``action_mask`` the int8 legal-action mask (1 = legal). It returns one legal action index.
Two methods are optional:

* ``reset(seed: int | None = None)`` is called before every game (clear memories, reseed).
* ``attach(game, seat)`` is called before every game with the engine ``Game`` and the policy's seat.
  Only policies that read the engine state directly need it (the built-in bots do); a policy that
  sets ``needs_observation = False`` may receive ``observation=None`` (the flat observation is then
  not computed for it, which makes bot-only games faster).

Your own agent needs nothing from this module::

    import numpy as np

    class FirstLegal:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

and can be used on the command line as ``farmgames evaluate --policy mypackage.agents:FirstLegal``
(``module:attribute``; a class or factory is called with no arguments).

Adapters here: :class:`BotPolicy` (the engine's ``random`` / ``heuristic`` bots),
:class:`MaskablePPOPolicy` (a ``.zip`` checkpoint written by ``farmgames train``) and
:func:`load_policy`, which turns a command-line spec into a policy.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "BUILTIN_BOTS", "BotPolicy", "CheckpointError", "MaskablePPOPolicy", "Policy", "checkpoint_metadata",
    "load_policy", "policy_name", "CHECKPOINT_FORMAT",
]

BUILTIN_BOTS = ("random", "heuristic")
CHECKPOINT_FORMAT = "farmgames-checkpoint/1"
META_ATTRIBUTE = "farmgames_meta"  # saved inside the SB3 zip's "data" JSON (and in a .json sidecar)


@runtime_checkable
class Policy(Protocol):
    """Observation + mask -> action. ``reset(seed)`` and ``attach(game, seat)`` are optional."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        ...


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: unreadable, not a farmgames MaskablePPO zip, or trained for
    another observation/action space. The message names the file and the mismatch."""


def policy_name(policy: Any) -> str:
    return getattr(policy, "name", None) or type(policy).__name__


# ------------------------------------------------------------------ built-in bots


class BotPolicy:
    """One of the engine's bots (``random`` or ``heuristic``) as a Policy. It reads the engine state
    given by ``attach(game, seat)`` and ignores the observation."""

    needs_observation = False

    def __init__(self, name: str = "heuristic", seed: int = 0):
        if name not in BUILTIN_BOTS:
            raise ValueError(f"unknown bot {name!r}; built-in bots: {', '.join(BUILTIN_BOTS)}")
        self.name = name
        self.seed = int(seed)
        self._game = None
        self._seat = None
        self._bot = self._make(self.seed)

    def _make(self, seed: int):
        from farmgames.envs.fields_of_green.bots import make_bot

        return make_bot(self.name, seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = int(seed)
            self._bot = self._make(self.seed)

    def attach(self, game, seat: int | None = None) -> None:
        self._game = game
        self._seat = seat

    def act(self, observation, action_mask) -> int:
        if self._game is None:
            raise RuntimeError(
                f"BotPolicy({self.name!r}) plays from the engine state: call attach(game, seat) before act()"
            )
        return int(self._bot.act(self._game))

    def __repr__(self) -> str:
        return f"BotPolicy({self.name!r}, seed={self.seed})"


# ------------------------------------------------------------------ checkpoints


def checkpoint_metadata(path: str | Path) -> dict:
    """What ``farmgames train`` stored about the env of a checkpoint: ``num_players``, ``variant``,
    ``observation_size``, ``action_size`` … Read from the zip without loading torch; raises
    :class:`CheckpointError` for a missing, corrupt or foreign file."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a folder; give the .zip file (e.g. {path}/final.zip)")
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if "data" not in names or "policy.pth" not in names:
                raise CheckpointError(
                    f"checkpoint {path} is a zip but not a stable-baselines3 model (no 'data'/'policy.pth' inside)"
                )
            data = json.loads(zf.read("data").decode("utf-8"))
    except zipfile.BadZipFile:
        raise CheckpointError(f"checkpoint {path} is corrupt or not a .zip file (cannot open it as a zip)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt: its 'data' entry is not valid JSON ({exc})") from None
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {path}: {exc}") from None
    meta = data.get(META_ATTRIBUTE)
    if meta is None:
        sidecar = path.with_suffix(".json")
        if sidecar.exists():
            try:
                meta = json.loads(sidecar.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise CheckpointError(f"checkpoint {path}: its sidecar {sidecar} is unreadable ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"checkpoint {path} has no farmgames metadata (it was not written by `farmgames train`), so the "
            "environment it was trained for is unknown"
        )
    return meta


def check_compatible(path: str | Path, meta: dict, env_facts: dict) -> None:
    """Raise CheckpointError if a checkpoint's ``meta`` does not fit an env with ``env_facts``
    (``observation_size``, ``action_size``, ``num_players``, ``variant``)."""
    for key in ("observation_size", "action_size"):
        want, have = meta.get(key), env_facts.get(key)
        if want is not None and have is not None and int(want) != int(have):
            raise CheckpointError(
                f"checkpoint {path} does not fit this environment: it was trained with {key.replace('_', ' ')} "
                f"{want} (num_players={meta.get('num_players')}, variant={meta.get('variant')}) but this "
                f"environment has {key.replace('_', ' ')} {have} (num_players={env_facts.get('num_players')}, "
                f"variant={env_facts.get('variant')})"
            )


class MaskablePPOPolicy:
    """A MaskablePPO ``.zip`` checkpoint as a Policy (greedy by default; ``deterministic=False``
    samples from the masked distribution with its own seeded generator)."""

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int = 0, device: str = "cpu",
                 env_facts: dict | None = None, name: str | None = None):
        self.path = Path(path)
        self.meta = checkpoint_metadata(self.path)
        if env_facts is not None:
            check_compatible(self.path, self.meta, env_facts)
        self.deterministic = bool(deterministic)
        self.name = name or str(self.path)
        self._rng = np.random.default_rng(seed)
        try:
            from sb3_contrib import MaskablePPO

            self.model = MaskablePPO.load(self.path, device=device)
        except Exception as exc:  # noqa: BLE001 - torch/zip/pickle errors come in many types
            raise CheckpointError(f"checkpoint {self.path} could not be loaded as a MaskablePPO model: "
                                  f"{type(exc).__name__}: {exc}") from exc
        shape = getattr(self.model.observation_space, "shape", None)
        n_actions = getattr(self.model.action_space, "n", None)
        if shape is None or len(shape) != 1 or n_actions is None:
            raise CheckpointError(
                f"checkpoint {self.path}: expected a flat Box observation and Discrete actions, got "
                f"{self.model.observation_space} / {self.model.action_space}"
            )
        self.observation_size = int(shape[0])
        self.action_size = int(n_actions)
        stored = {"observation_size": self.meta.get("observation_size"), "action_size": self.meta.get("action_size")}
        check_compatible(self.path, stored, {"observation_size": self.observation_size,
                                             "action_size": self.action_size})

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation, action_mask) -> int:
        import torch

        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != (self.observation_size,):
            raise CheckpointError(
                f"checkpoint {self.path} expects observations of size {self.observation_size}, got shape {obs.shape}"
            )
        mask = np.asarray(action_mask, dtype=bool)
        if mask.shape != (self.action_size,):
            raise CheckpointError(
                f"checkpoint {self.path} expects action masks of size {self.action_size}, got shape {mask.shape}"
            )
        policy = self.model.policy
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(obs[None], device=policy.device), action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        if self.deterministic or probs.sum() <= 0:
            return int(np.argmax(np.where(mask, probs, -1.0)))
        probs /= probs.sum()
        return int(self._rng.choice(len(probs), p=probs))

    def __repr__(self) -> str:
        return f"MaskablePPOPolicy({str(self.path)!r}, deterministic={self.deterministic})"


# ------------------------------------------------------------------ specs


def load_policy(spec: Any, seed: int = 0, deterministic: bool = True, env_facts: dict | None = None):
    """A policy from a spec: ``"random"`` / ``"heuristic"`` (built-in bots), a path to a ``.zip``
    checkpoint, ``"module:attribute"`` (your own class or factory, called with no arguments), or an
    object that already has ``act`` (returned as is)."""
    if hasattr(spec, "act"):
        return spec
    if not isinstance(spec, (str, Path)):
        raise ValueError(f"a policy is 'random', 'heuristic', a checkpoint path or 'module:attribute', got {spec!r}")
    text = str(spec)
    if text in BUILTIN_BOTS:
        return BotPolicy(text, seed=seed)
    path = Path(text)
    if path.suffix == ".zip" or path.exists():
        return MaskablePPOPolicy(path, deterministic=deterministic, seed=seed, env_facts=env_facts)
    if ":" in text:
        module_name, _, attr = text.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"policy {text!r}: cannot import module {module_name!r} ({exc})") from None
        try:
            obj = getattr(module, attr)
        except AttributeError:
            raise ValueError(f"policy {text!r}: module {module_name!r} has no attribute {attr!r}") from None
        policy = obj() if callable(obj) and not hasattr(obj, "act") or isinstance(obj, type) else obj
        if not hasattr(policy, "act"):
            raise ValueError(f"policy {text!r} has no act(observation, action_mask) method")
        if not getattr(policy, "name", None):
            try:
                policy.name = text
            except AttributeError:
                pass
        return policy
    raise ValueError(
        f"unknown policy {text!r}: use {' or '.join(BUILTIN_BOTS)}, a checkpoint .zip path, or module:attribute"
    )
