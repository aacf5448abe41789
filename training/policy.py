"""The ``Policy`` protocol and training's policies: checkpoints, self-play pools, and command-line specs.

A policy is any object with one method::

    act(observation: np.ndarray, action_mask: np.ndarray) -> int

``observation`` is the seat's flat float32 observation (the vector
:class:`farmgames.wrappers.SingleAgentEnv` and :func:`farmgames.wrappers.flatten_observations` give;
``unflatten_observation`` restores the named parts) and ``action_mask`` the int8 legal-action mask
(1 = legal). It returns one legal action index. Two methods are optional:

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

Checkpoints are read from the code-free ``.safetensors`` file ``farmgames train`` writes beside every
``.zip`` (:mod:`farmgames.training.checkpoint`); a stable-baselines3 ``.zip`` itself is unpickled only
with ``trust=True`` (``--trust-checkpoint``), because a pickle can run any code.

Here: :class:`MaskablePPOPolicy` (a checkpoint written by ``farmgames train``),
:class:`CheckpointPool` (a self-play pool of checkpoints), :func:`load_policy` (a command-line spec ->
a policy; bot names come from the game's ``SPEC.bots`` through
:class:`farmgames.wrappers.policies.BotPolicy`) and :func:`resolve_opponent`, the resolver training
hands to :class:`farmgames.wrappers.SingleAgentEnv` for checkpoints and pools.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from farmgames.envs import get_spec
from farmgames.wrappers.policies import BotPolicy, Policy, load_object, policy_name

from .games import DEFAULT_GAME

__all__ = [
    "CHECKPOINT_FORMAT",
    "BotPolicy",
    "CheckpointError",
    "CheckpointPool",
    "MaskablePPOPolicy",
    "Policy",
    "bot_names",
    "checkpoint_metadata",
    "is_checkpoint",
    "load_policy",
    "policy_name",
    "resolve_opponent",
]

CHECKPOINT_FORMAT = "farmgames-checkpoint/1"
META_ATTRIBUTE = "farmgames_meta"  # saved inside the SB3 zip's "data" JSON (and in a .json sidecar)


from .checkpoint import SAFE_FORMAT, CheckpointError, load_safe_policy, read_meta, safe_path  # noqa: E402

MAX_ZIP_DATA = 64 << 20  # the JSON "data" entry of an SB3 zip (a few KB) read for its metadata


def bot_names(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The bot names of a game (its ``SPEC.bots``)."""
    return tuple(sorted(get_spec(game).bots))


def is_checkpoint(spec: Any) -> bool:
    """A string that names a checkpoint file (``.zip`` or an existing file), not a bot or module:attribute."""
    if isinstance(spec, (str, Path)) and (Path(spec) / "farmgames_policy.json").is_file():
        return True  # a checkpoint of farmgames train --backend rllib
    return isinstance(spec, (str, Path)) and (str(spec).endswith(".zip") or Path(spec).is_file())


def checkpoint_game(meta: dict) -> str:
    """The game version a checkpoint was trained on (``fields_of_green_v0`` for checkpoints of the
    single-game release, which stored only ``env``)."""
    return str(meta.get("env") or meta.get("game") or "fields_of_green_v0")


# ------------------------------------------------------------------ checkpoints


def checkpoint_metadata(path: str | Path) -> dict:
    """What ``farmgames train`` stored about the env of a checkpoint: ``num_players``, ``variant``,
    ``observation_size``, ``action_size`` … Read from the zip without loading torch; raises
    :class:`CheckpointError` for a missing, corrupt or foreign file."""
    if str(path).endswith(".safetensors") or safe_path(path).is_file():
        return read_meta(safe_path(path))  # the code-free file (farmgames train writes it beside the zip)
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if path.is_dir() and (path / "farmgames_policy.json").is_file():  # farmgames train --backend rllib
        try:
            return dict(json.loads((path / "farmgames_policy.json").read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path}: farmgames_policy.json is unreadable ({exc})") from None
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a folder; give the .zip file (e.g. {path}/final.zip)")
    try:
        with zipfile.ZipFile(path) as zf:  # reading the JSON entry runs nothing; SB3's load would unpickle
            names = zf.namelist()
            if "data" not in names or "policy.pth" not in names:
                raise CheckpointError(
                    f"checkpoint {path} is a zip but not a stable-baselines3 model (no 'data'/'policy.pth' inside)"
                )
            if zf.getinfo("data").file_size > MAX_ZIP_DATA:
                raise CheckpointError(f"checkpoint {path}: its 'data' entry is larger than {MAX_ZIP_DATA} bytes")
            data = json.loads(zf.read("data").decode("utf-8"))
    except zipfile.BadZipFile:
        raise CheckpointError(f"checkpoint {path} is corrupt or not a .zip file (cannot open it as a zip)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt: its 'data' entry is not valid JSON ({exc})") from None
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {path}: {exc}") from None
    meta = data.get(META_ATTRIBUTE) if isinstance(data, dict) else None
    if meta is None:
        sidecar = path.with_suffix(".json")
        if sidecar.exists():
            try:
                meta = json.loads(sidecar.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise CheckpointError(f"checkpoint {path}: its sidecar {sidecar} is unreadable ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") not in (CHECKPOINT_FORMAT, SAFE_FORMAT):
        raise CheckpointError(
            f"checkpoint {path} has no farmgames metadata (it was not written by `farmgames train`), so the "
            "environment it was trained for is unknown"
        )
    return meta


def check_compatible(path: str | Path, meta: dict, env_facts: dict) -> None:
    """Raise CheckpointError if a checkpoint's ``meta`` does not fit an env with ``env_facts``
    (``game``, ``observation_size``, ``action_size``, ``num_players``, ``variant``)."""
    if env_facts.get("env") and (meta.get("game") or meta.get("env")):
        trained = get_spec(checkpoint_game(meta)).env_name
        if trained != env_facts["env"]:
            raise CheckpointError(f"checkpoint {path} was trained on {trained}, not {env_facts['env']}")
    for key in ("observation_size", "action_size"):
        want, have = meta.get(key), env_facts.get(key)
        if want is not None and have is not None and int(want) != int(have):
            raise CheckpointError(
                f"checkpoint {path} does not fit this environment: it was trained with {key.replace('_', ' ')} "
                f"{want} (num_players={meta.get('num_players')}, variant={meta.get('variant')}) but this "
                f"environment has {key.replace('_', ' ')} {have} (num_players={env_facts.get('num_players')}, "
                f"variant={env_facts.get('variant')})"
            )


def untrusted_zip_message(path: Path) -> str:
    return (
        f"checkpoint {path}: a stable-baselines3 .zip runs code when it is loaded (its entries are unpickled), "
        f"and there is no {safe_path(path).name} beside it (the code-free file farmgames train writes). Load the "
        ".safetensors file, or pass --trust-checkpoint (trust=True) only if you trust where the zip came from; "
        f"`farmgames convert-checkpoint {path} --trust-checkpoint` writes the .safetensors file once"
    )


class MaskablePPOPolicy:
    """A MaskablePPO checkpoint as a Policy (greedy by default; ``deterministic=False`` samples from the
    masked distribution with its own seeded generator).

    ``path`` is a ``.safetensors`` file or a ``.zip``; for a zip, the ``.safetensors`` file beside it is
    loaded (tensors and JSON only: nothing runs). Only with ``trust=True`` is a zip without one loaded
    through SB3 (which unpickles it)."""

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        seed: int = 0,
        device: str = "cpu",
        env_facts: dict | None = None,
        name: str | None = None,
        trust: bool = False,
    ):
        self.path = Path(path)
        safe = safe_path(self.path).is_file()
        self.meta = checkpoint_metadata(self.path)  # JSON only (a zip's 'data' entry is parsed, never unpickled)
        if not safe and not trust:
            raise CheckpointError(untrusted_zip_message(self.path))
        if env_facts is not None:
            check_compatible(self.path, self.meta, env_facts)
        self.deterministic = bool(deterministic)
        self.name = name or str(self.path)
        self._rng = np.random.default_rng(seed)
        if safe:
            self.policy, _ = load_safe_policy(self.path, device=device)
            self.observation_size, self.action_size = int(self.meta["observation_size"]), int(self.meta["action_size"])
            return
        try:
            from sb3_contrib import MaskablePPO

            self.model = MaskablePPO.load(self.path, device=device)  # trust=True: the user vouches for the file
        except Exception as exc:  # noqa: BLE001 - torch/zip/pickle errors come in many types
            raise CheckpointError(
                f"checkpoint {self.path} could not be loaded as a MaskablePPO model: {type(exc).__name__}: {exc}"
            ) from exc
        self.policy = self.model.policy
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
        check_compatible(
            self.path, stored, {"observation_size": self.observation_size, "action_size": self.action_size}
        )

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
        policy = self.policy
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


# ------------------------------------------------------------------ self-play pools


class CheckpointPool:
    """The ``*.zip`` checkpoints in a folder (self-play pool), loaded lazily and cached; an
    :class:`~farmgames.wrappers.policies.OpponentPool` for the single-agent env (``probability``: the
    chance an episode's opponents come from the pool; ``base``: who plays otherwise)."""

    def __init__(
        self,
        directory: str | Path,
        max_size: int | None = None,
        deterministic: bool = False,
        torch_threads: int | None = None,
        env_facts: dict | None = None,
        probability: float = 1.0,
        base: Any = "heuristic",
        trust: bool = False,
    ):
        if not 0.0 <= float(probability) <= 1.0:
            raise ValueError(f"opponents.probability must be between 0 and 1, got {probability}")
        self.directory = Path(directory)
        self.max_size = max_size
        self.deterministic = deterministic
        self.torch_threads = torch_threads
        self.env_facts = env_facts
        self.probability = float(probability)
        self.base = base
        self.trust = bool(trust)  # pool files are read through their .safetensors twins unless trusted
        self.paths: list[Path] = []
        self._cache: dict[Path, Any] = {}

    def refresh(self) -> int:
        """Re-scan the folder (a training run adds to it while workers play); returns the pool size."""
        stamped = []
        if self.directory.is_dir():
            for path in self.directory.glob("*.zip"):
                try:  # the trainer may prune a file between glob and stat
                    stamped.append((path.stat().st_mtime, path.name, path))
                except FileNotFoundError:
                    continue
        paths = [p for _, _, p in sorted(stamped)]
        if self.max_size:
            paths = paths[-self.max_size :]
        self.paths = paths
        for stale in set(self._cache) - set(paths):
            del self._cache[stale]
        return len(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def policy(self, path: Path, seed: int) -> Any:
        if path not in self._cache:
            if self.torch_threads:
                import torch

                torch.set_num_threads(self.torch_threads)
            self._cache[path] = MaskablePPOPolicy(
                path, deterministic=self.deterministic, seed=seed, env_facts=self.env_facts, trust=self.trust
            )
        return self._cache[path]

    def draw(self, rng: np.random.Generator, seed: int) -> tuple[Any, str] | None:
        """A random checkpoint of the pool as ``(policy, path)``; None if it was pruned meanwhile."""
        path = self.paths[int(rng.integers(len(self.paths)))]
        try:
            return self.policy(path, seed), str(path)
        except Exception:  # noqa: BLE001
            if path.exists():  # a real problem (e.g. another network): say so
                raise
            return None  # pruned by the trainer meanwhile: the base opponent plays this seat


POOL_KEYS = ("pool", "probability", "base", "pool_size")


# ------------------------------------------------------------------ specs


def load_policy(
    spec: Any,
    seed: int = 0,
    deterministic: bool = True,
    env_facts: dict | None = None,
    game: str | None = None,
    trust: bool = False,
) -> Any:
    """A policy from a spec: a bot name of the game (``SPEC.bots``: ``"random"``, ``"heuristic"`` …), a
    path to a ``.zip`` checkpoint, ``"module:attribute"`` (your own class or factory, called with no
    arguments), or an object that already has ``act`` (returned as is). ``game`` defaults to
    ``env_facts["game"]``, else fields_of_green. ``trust`` (--trust-checkpoint): a ``.zip`` without its
    ``.safetensors`` twin may be unpickled (it can run code)."""
    if hasattr(spec, "act"):
        return spec
    facts = env_facts or {}
    game = game or facts.get("env") or facts.get("game") or DEFAULT_GAME
    names = bot_names(game)
    if not isinstance(spec, (str, Path)):
        raise ValueError(
            f"a policy is a bot ({', '.join(names)}), a checkpoint path or 'module:attribute', got {spec!r}"
        )
    text = str(spec)
    if text in names:
        return BotPolicy(get_spec(game), text, seed=seed)
    path = Path(text)
    if path.is_dir() and (path / "farmgames_policy.json").is_file():  # farmgames train --backend rllib
        if not trust:  # RLlib restores its modules with pickle
            raise CheckpointError(
                f"checkpoint {path}: an RLlib checkpoint runs code when it is loaded (RLlib restores it with "
                "pickle); pass --trust-checkpoint (trust=True) only if you trust where it came from"
            )
        from .rllib_backend import RLlibPolicy

        return RLlibPolicy(path, deterministic=deterministic, seed=seed)
    if path.suffix == ".zip" or path.exists():
        return MaskablePPOPolicy(path, deterministic=deterministic, seed=seed, env_facts=env_facts, trust=trust)
    if ":" in text:
        return load_object(text)
    raise ValueError(
        f"unknown policy {text!r}: use a bot of {get_spec(game).name} ({', '.join(names)}), a checkpoint .zip "
        "path, or module:attribute"
    )


def resolve_opponent(
    spec: Any,
    *,
    seed: int = 0,
    deterministic: bool = False,
    facts: dict | None = None,
    torch_threads: int | None = None,
    trust: bool = False,
) -> Any:
    """The resolver training passes to :class:`farmgames.wrappers.SingleAgentEnv`: a checkpoint path or
    ``module:attribute`` -> a policy; a self-play mapping ``{"pool": folder, "probability": p, "base":
    opponents, "pool_size": k}`` -> a :class:`CheckpointPool`."""
    if isinstance(spec, dict):
        unknown = set(spec) - set(POOL_KEYS)
        if unknown or "pool" not in spec:
            raise ValueError(
                "a self-play opponents mapping has keys pool (folder of .zip checkpoints), probability, base, "
                f"pool_size; got {sorted(spec)}"
            )
        return CheckpointPool(
            spec["pool"],
            max_size=spec.get("pool_size"),
            deterministic=deterministic,
            torch_threads=torch_threads,
            env_facts=facts,
            probability=float(spec.get("probability", 0.5)),
            base=spec.get("base", "heuristic"),
            trust=trust,
        )
    if is_checkpoint(spec) and torch_threads:
        import torch

        torch.set_num_threads(torch_threads)
    return load_policy(spec, seed=seed, deterministic=deterministic, env_facts=facts, trust=trust)
