"""``_MASKED``, ``Game._legal_now``'s marker (game.py): a tuple subclass, kept out of the mypyc-compiled game.py
(mypyc cannot compile a subclass of tuple)."""

from __future__ import annotations


class _MaskKept(tuple):
    """The type of ``_MASKED``: an empty tuple (``action in _MASKED`` is False, at C speed) that pickles and
    copies as the module's one instance, so ``game._legal_now is _MASKED`` survives pickles and deep copies."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "_MASKED"


_MASKED = _MaskKept()
