"""Build hook: compiles the modules listed in ``envs/_native.py`` with mypyc, when it can.

The metadata lives in pyproject.toml; this file only adds the optional C extensions. mypyc turns the same
Python source into C, so the compiled modules decide exactly as the plain ones (envs/_native.py). Set
``FARMGAMES_PURE_PYTHON=1`` to skip the compile; without a C compiler the build keeps the plain modules.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
NATIVE = runpy.run_path(str(ROOT / "envs" / "_native.py"))
FOLDERS = ("envs", "wrappers", "training")  # installed as farmgames.<folder> (pyproject's package-dir)
GROUP = "_compiled"  # the shared library of the compiled modules: farmgames.envs._compiled__mypyc


def _remove_old_extensions() -> None:
    """Delete the extensions of earlier builds, in the tree (an editable install's) and in setuptools' build
    folders (a wheel's), before building: a module no longer listed, a plain build after a compiled one, or a
    compile that fails would otherwise import an old extension (of older source) instead of the .py. A wheel's
    build leaves the tree's alone (they are an editable install's, and the wheel does not rebuild them)."""
    folders = list((ROOT / "build").glob("lib*/farmgames/envs"))
    if "bdist_wheel" not in sys.argv[1:]:
        folders.append(ROOT / "envs")
    for folder in folders:
        for extension in folder.rglob("*.so"):
            extension.unlink()


def _extensions() -> list[Extension]:
    if {"egg_info", "dist_info"} & set(sys.argv[1:]):  # pip asking for metadata only: nothing to compile yet
        return []
    _remove_old_extensions()
    if NATIVE["pure_python_requested"]():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # (pyproject's build requirements bring mypy; a build without them stays plain)
        return []
    # mypyc names a module after its path: a tree of links spells the import names (farmgames/envs/...)
    shadow = ROOT / "build" / "mypyc-src"
    (shadow / "farmgames").mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        link = shadow / "farmgames" / folder
        if not link.exists():
            link.symlink_to(ROOT / folder, target_is_directory=True)
    os.environ["MYPYPATH"] = str(shadow)
    config = shadow / "mypy.ini"  # (not pyproject's [tool.mypy], whose strict checks are for envs/core and adapters)
    config.write_text("[mypy]\n")
    envs = shadow / "farmgames" / "envs"
    paths = [str(envs / (name.replace(".", "/") + ".py")) for name in NATIVE["COMPILED_MODULES"]]
    extensions = mypycify(
        [
            f"--config-file={config}",
            "--ignore-missing-imports",
            "--explicit-package-bases",
            "--follow-imports=silent",
            "--disable-error-code=annotation-unchecked",
            *paths,
        ],
        opt_level="3",
        group_name=f"farmgames.envs.{GROUP}",
        target_dir=str(ROOT / "build" / "mypyc"),
    )
    for extension in extensions:
        extension.optional = True  # a failed compile leaves the plain module in place
    return extensions


setup(ext_modules=_extensions())
