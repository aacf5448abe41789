"""Seeds: checks and stable derived seeds (for opponents, evaluation games, workers).

>>> derive_seed(1, 2) == derive_seed(1, 2) != derive_seed(2, 1)
True
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

MAX_SEED = 2**63 - 1


def check_seed(seed: Any, field: str = "seed") -> int:
    """A non-negative integer seed, or ValueError naming the value (bools and floats are refused)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{field} must be a non-negative integer, got {seed!r}")
    value = int(seed)
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"{field} must be an integer from 0 to 2**63-1, got {seed!r}")
    return value


def derive_seed(*parts: int) -> int:
    """A stable 31-bit seed from integers."""
    return zlib.crc32(np.asarray(parts, dtype=np.int64).tobytes()) & 0x7FFFFFFF


__all__ = ["MAX_SEED", "check_seed", "derive_seed"]
