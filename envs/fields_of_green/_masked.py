"""``_MASKED``, ``Game._legal_now``'s marker (game.py): a tuple subclass, kept out of the mypyc-compiled game.py
(mypyc cannot compile a subclass of tuple)."""

from __future__ import annotations


class _MaskKept(tuple):
    """The type of ``_MASKED``: an empty tuple (``action in _MASKED`` is False, at C speed) that pickles and
    copies as the module's one instance, so ``game._legal_now is _MASKED`` survives pickles and deep copies."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "_MASKED"


# Game._legal_now when legal_mask_bytes() computed the mask first (kept in Game._mask) and no list exists: apply's
# "action not in legal" then always holds, and it checks the mask there instead (speed: the list path costs
# nothing extra, and anything that resets the cache to None after an edit also drops the mask)
_MASKED = _MaskKept()
