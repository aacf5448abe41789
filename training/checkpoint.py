"""Checkpoints that cannot run code: the farmgames checkpoint format (``.safetensors`` + JSON metadata).

A stable-baselines3 ``.zip`` is unsafe to load from an untrusted source: ``MaskablePPO.load`` unpickles
the serialized entries of the zip's ``data`` file, and a pickle can run any code. ``farmgames train``
therefore writes, beside every ``.zip`` it saves, a ``.safetensors`` file of the same name:

* the policy network's tensors in the `safetensors <https://github.com/huggingface/safetensors>`_ layout
  (an 8-byte header length, a JSON header naming each tensor's dtype, shape and byte range, then raw
  little-endian numbers), which holds no code and is read here with numpy alone, every offset checked;
* in the header's ``__metadata__["farmgames"]``, JSON: format, game, env version, farmgames version,
  observation and action layout, the network architecture (layer sizes, activation, observation
  transform, shared features layer) and the training config.

Every farmgames loader (``evaluate --policy/--opponents``, ``league``, self-play pools, the single-agent
env's checkpoint opponents) reads this file. A ``.zip`` given on the command line is read through its
``.safetensors`` sibling; a ``.zip`` without one is refused with a message naming the file, unless the
user passes ``--trust-checkpoint`` (``trust=True``): only then is SB3's pickle-based loader used.
``farmgames convert-checkpoint MODEL.zip --trust-checkpoint`` writes the sibling once for an older zip.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np

SAFE_FORMAT = "farmgames-safe-checkpoint/1"
SUFFIX = ".safetensors"
MAX_CHECKPOINT_BYTES = 1 << 30  # a 256x256 policy on Fields of Green is ~5 MB
MAX_HEADER_BYTES = 16 << 20
MAX_TENSORS = 10_000
ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")
OBS_TRANSFORMS = ("symlog", "none")
_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}
_CODES = {np.dtype(v).str: k for k, v in _DTYPES.items()}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: unreadable, unsafe to load without ``trust``, not written by
    ``farmgames train``, or trained for another game or observation/action space. Names the file."""


def safe_path(path: str | Path) -> Path:
    """``runs/x/final.zip`` -> ``runs/x/final.safetensors`` (a ``.safetensors`` path is returned as is)."""
    path = Path(path)
    return path if path.suffix == SUFFIX else path.with_suffix(SUFFIX)


# ------------------------------------------------------------------ the safetensors layout, numpy only


def write_safetensors(path: str | Path, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> Path:
    """Write tensors and string metadata in the safetensors layout (atomically: a reader never sees half)."""
    path = Path(path)
    header: dict[str, Any] = {"__metadata__": dict(metadata)}
    chunks, offset = [], 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        code = _CODES.get(array.dtype.newbyteorder("<").str if array.dtype.byteorder == ">" else array.dtype.str)
        if code is None:
            raise CheckpointError(f"{path}: cannot store tensor {name!r} of dtype {array.dtype}")
        data = array.astype(_DTYPES[code], copy=False).tobytes()
        header[name] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the format pads the header to a multiple of 8
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for chunk in chunks:
            f.write(chunk)
    os.replace(tmp, path)
    return path


def _header(path: Path, raw: bytes) -> dict[str, Any]:
    if len(raw) < 8:
        raise CheckpointError(f"checkpoint {path} is not a safetensors file (too short)")
    (size,) = struct.unpack("<Q", raw[:8])
    if size > MAX_HEADER_BYTES or 8 + size > len(raw):
        raise CheckpointError(f"checkpoint {path} is corrupt: header of {size} bytes in a {len(raw)}-byte file")
    try:
        header = json.loads(raw[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt: its header is not JSON ({exc})") from None
    if not isinstance(header, dict) or len(header) > MAX_TENSORS:
        raise CheckpointError(f"checkpoint {path} is corrupt: its header is not an object of tensors")
    return header


def read_safetensors(
    path: str | Path, limit: int = MAX_CHECKPOINT_BYTES
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Tensors and metadata of a safetensors file, every dtype, shape and byte range checked (numpy only:
    nothing in the file is ever executed). Raises CheckpointError naming the file."""
    path = Path(path)
    try:
        if not path.is_file():
            raise CheckpointError(
                f"checkpoint {path} does not exist" if not path.exists() else f"checkpoint {path} is not a regular file"
            )
        with path.open("rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise CheckpointError(f"checkpoint {path} is larger than {limit} bytes")
    header = _header(path, raw)
    (size,) = struct.unpack("<Q", raw[:8])
    body = memoryview(raw)[8 + size :]
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise CheckpointError(f"checkpoint {path} is corrupt: __metadata__ must map names to strings")
    tensors: dict[str, np.ndarray] = {}
    spans = []
    for name, info in header.items():
        where = f"checkpoint {path}: tensor {name!r}"
        if not isinstance(info, dict) or info.get("dtype") not in _DTYPES:
            raise CheckpointError(f"{where} has no known dtype (allowed: {', '.join(_DTYPES)})")
        shape, offsets = info.get("shape"), info.get("data_offsets")
        if not isinstance(shape, list) or not all(type(n) is int and 0 <= n <= limit for n in shape) or len(shape) > 8:
            raise CheckpointError(f"{where} has a bad shape {shape!r}")
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(type(o) is int for o in offsets)
            and 0 <= offsets[0] <= offsets[1] <= len(body)
        ):
            raise CheckpointError(f"{where} has byte range {offsets!r} outside the {len(body)}-byte data")
        dtype = np.dtype(_DTYPES[info["dtype"]])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if count * dtype.itemsize != offsets[1] - offsets[0]:
            raise CheckpointError(f"{where}: shape {shape} of {info['dtype']} does not fill bytes {offsets}")
        spans.append((offsets[0], offsets[1], name))
        tensors[name] = np.frombuffer(body[offsets[0] : offsets[1]], dtype=dtype).reshape(shape).copy()
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise CheckpointError(f"checkpoint {path} is corrupt: tensors {a!r} and {b!r} overlap")
    return tensors, metadata


# ------------------------------------------------------------------ farmgames checkpoints


def architecture_of(ppo: Any) -> dict[str, Any]:
    """The network description stored in a checkpoint, from a config's ``ppo`` section."""
    return {
        "policy": "MaskableActorCriticPolicy",
        "net_arch": [int(n) for n in ppo.net_arch],
        "activation": str(ppo.activation),
        "obs_transform": str(ppo.obs_transform),
        "features_dim": int(ppo.features_dim),
    }


def save_safe_checkpoint(model: Any, zip_path: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``<zip_path stem>.safetensors`` for an SB3 MaskablePPO ``model`` (its policy's tensors) with
    ``meta`` (make_meta's, including ``architecture``) and the number of timesteps."""
    state = {k: v.detach().cpu().numpy() for k, v in model.policy.state_dict().items()}
    info = {**meta, "format": SAFE_FORMAT, "num_timesteps": int(getattr(model, "num_timesteps", 0))}
    return write_safetensors(safe_path(zip_path), state, {"farmgames": json.dumps(info)})


def read_meta(path: str | Path) -> dict[str, Any]:
    """The farmgames metadata of a ``.safetensors`` checkpoint (checked: format, sizes, architecture)."""
    _, metadata = read_safetensors(path)
    return _meta(Path(path), metadata)


def _meta(path: Path, metadata: dict[str, str]) -> dict[str, Any]:
    try:
        meta = json.loads(metadata["farmgames"])
    except (KeyError, ValueError, RecursionError):
        raise CheckpointError(
            f"checkpoint {path} has no farmgames metadata (it was not written by `farmgames "
            "train`), so the environment it was trained for is unknown"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != SAFE_FORMAT:
        raise CheckpointError(f"checkpoint {path}: metadata format must be {SAFE_FORMAT!r}")
    for key in ("observation_size", "action_size"):
        if type(meta.get(key)) is not int or not 0 < meta[key] <= 10**7:
            raise CheckpointError(
                f"checkpoint {path}: metadata {key} must be a positive integer, got {meta.get(key)!r}"
            )
    arch = meta.get("architecture")
    if not isinstance(arch, dict):
        raise CheckpointError(f"checkpoint {path}: metadata has no network architecture")
    layers = arch.get("net_arch")
    if not isinstance(layers, list) or not layers or not all(type(n) is int and 0 < n <= 65536 for n in layers):
        raise CheckpointError(f"checkpoint {path}: architecture net_arch must be layer sizes, got {layers!r}")
    if arch.get("activation") not in ACTIVATIONS or arch.get("obs_transform") not in OBS_TRANSFORMS:
        raise CheckpointError(
            f"checkpoint {path}: architecture activation/obs_transform must be one of "
            f"{ACTIVATIONS} / {OBS_TRANSFORMS}, got {arch.get('activation')!r} / "
            f"{arch.get('obs_transform')!r}"
        )
    if type(arch.get("features_dim", 0)) is not int or not 0 <= arch.get("features_dim", 0) <= 65536:
        raise CheckpointError(f"checkpoint {path}: architecture features_dim must be an integer >= 0")
    return meta


def policy_kwargs(arch: dict[str, Any]) -> dict[str, Any]:
    """SB3 ``policy_kwargs`` for an architecture (the same networks ``farmgames train`` builds)."""
    import torch.nn as nn

    from .networks import SymLogFlatten, SymLogLinear

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU, "leaky_relu": nn.LeakyReLU}[arch["activation"]]
    kwargs: dict[str, Any] = {"net_arch": list(arch["net_arch"]), "activation_fn": activation}
    symlog = arch["obs_transform"] == "symlog"
    if arch.get("features_dim", 0) > 0:
        kwargs["features_extractor_class"] = SymLogLinear
        kwargs["features_extractor_kwargs"] = {
            "features_dim": arch["features_dim"],
            "symlog": symlog,
            "activation": activation,
        }
    elif symlog:
        kwargs["features_extractor_class"] = SymLogFlatten
    return kwargs


def load_safe_policy(path: str | Path, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """``(policy, meta)``: the MaskableActorCriticPolicy rebuilt from the architecture in the metadata,
    its weights loaded from the tensors (strictly: every name and shape must match)."""
    import gymnasium
    import torch
    from sb3_contrib.ppo_mask.policies import MaskableActorCriticPolicy

    path = safe_path(path)
    tensors, metadata = read_safetensors(path)
    meta = _meta(path, metadata)
    obs_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(meta["observation_size"],), dtype=np.float32)
    act_space = gymnasium.spaces.Discrete(meta["action_size"])
    policy = MaskableActorCriticPolicy(obs_space, act_space, lambda _: 0.0, **policy_kwargs(meta["architecture"]))
    state = {k: torch.from_numpy(v) for k, v in tensors.items()}
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise CheckpointError(
            f"checkpoint {path}: tensors do not fit the architecture in its metadata ({exc})"
        ) from None
    policy.set_training_mode(False)
    return policy.to(device), meta


def architecture_of_policy(policy: Any) -> dict[str, Any]:
    """The architecture of a loaded SB3 policy built by ``farmgames train`` (for converting older zips)."""
    from .networks import SymLogFlatten, SymLogLinear

    names = {"Tanh": "tanh", "ReLU": "relu", "ELU": "elu", "LeakyReLU": "leaky_relu"}
    activation = names.get(getattr(policy.activation_fn, "__name__", ""), None)
    net_arch = policy.net_arch
    if isinstance(net_arch, dict):  # pi/vf given separately: only the shared form is stored by train
        if net_arch.get("pi") != net_arch.get("vf"):
            raise CheckpointError("the policy has separate pi/vf layers, which farmgames checkpoints do not describe")
        net_arch = net_arch.get("pi")
    extractor = policy.features_extractor
    if isinstance(extractor, SymLogLinear):
        transform, features = ("symlog" if extractor.symlog else "none"), int(extractor.features_dim)
    elif isinstance(extractor, SymLogFlatten):
        transform, features = ("symlog" if extractor.symlog else "none"), 0
    else:
        transform, features = "none", 0
    if activation is None or not isinstance(net_arch, list):
        raise CheckpointError(f"the policy's network ({policy.activation_fn}, {net_arch}) is not one farmgames builds")
    return {
        "policy": "MaskableActorCriticPolicy",
        "net_arch": [int(n) for n in net_arch],
        "activation": activation,
        "obs_transform": transform,
        "features_dim": features,
    }


# ------------------------------------------------------------------ farmgames convert-checkpoint


def add_arguments(parser: Any) -> None:
    parser.add_argument("checkpoint", help="a stable-baselines3 MaskablePPO .zip written by farmgames train")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="required: loading the zip unpickles it, which can run code; only for files you trust",
    )


def convert(path: str | Path) -> Path:
    """Write the ``.safetensors`` twin of a trusted zip (loads it through SB3: it is unpickled)."""
    from sb3_contrib import MaskablePPO

    from .policy import checkpoint_metadata

    path = Path(path)
    meta = dict(checkpoint_metadata(path))  # JSON only; the trained env's facts
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # noqa: BLE001 - torch/zip/pickle errors come in many types
        raise CheckpointError(f"checkpoint {path} could not be loaded: {type(exc).__name__}: {exc}") from None
    meta["architecture"] = architecture_of_policy(model.policy)
    meta.setdefault("observation_size", int(model.observation_space.shape[0]))
    meta.setdefault("action_size", int(model.action_space.n))
    out = save_safe_checkpoint(model, path, meta)
    read_meta(out)  # what loaders will check
    return out


def run(args: Any) -> int:
    import sys

    if not args.trust_checkpoint:
        print(
            f"farmgames convert-checkpoint: {args.checkpoint} is loaded through stable-baselines3, which unpickles it "
            "(a zip can run code): pass --trust-checkpoint if you trust where it came from",
            file=sys.stderr,
        )
        return 2
    try:
        out = convert(args.checkpoint)
    except CheckpointError as exc:
        print(f"farmgames convert-checkpoint: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out} (load it, or share it, instead of the zip)")
    return 0


__all__ = [
    "CheckpointError",
    "SAFE_FORMAT",
    "SUFFIX",
    "architecture_of",
    "architecture_of_policy",
    "convert",
    "load_safe_policy",
    "policy_kwargs",
    "read_meta",
    "read_safetensors",
    "safe_path",
    "save_safe_checkpoint",
    "write_safetensors",
]
