"""The doctests of every module of ``farmgames.envs`` (imported by their package names, so that the
examples see the same classes as users do)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import farmgames.envs


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(farmgames.envs.__path__, "farmgames.envs."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} doctest examples failed"
