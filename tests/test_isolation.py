"""Layering checks: `engine` stays pure standard library, `ai` builds on `engine` alone, `render`
never reaches for Discord.

Each import runs in a fresh, isolated interpreter (`-I`) with the repository root first on
`sys.path`; what the package pulls in is what `sys.modules` gains during the import.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE_FORBIDDEN = {"discord", "PIL", "aiosqlite", "asyncio", "random", "aiohttp", "sqlite3"}
AI_FORBIDDEN = {"discord", "PIL", "aiosqlite", "asyncio", "aiohttp", "sqlite3", "render", "bot"}
RENDER_FORBIDDEN = {"discord", "aiosqlite", "asyncio", "aiohttp", "sqlite3", "ai", "bot"}
RENDER_ALLOWED_THIRD_PARTY = {"PIL", "engine", "render"}

PROBE = """
import importlib, json, os, pkgutil, sys
sys.path.insert(0, os.getcwd())
before = set(sys.modules)
package = importlib.import_module(sys.argv[1])
if sys.argv[2] == "all":
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
print(json.dumps({
    "loaded": sorted(sys.modules),
    "new_top_level": sorted({name.split(".")[0] for name in set(sys.modules) - before}),
}))
"""


def loaded_modules(repo_root: Path, package: str, *, submodules: bool) -> dict[str, list[str]]:
    """Import `package` (and with `submodules`, every module in it) in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, package, "all" if submodules else "top"],
        cwd=repo_root,
        env={"PYTHONHASHSEED": "0"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, list[str]] = json.loads(result.stdout)
    return data


def top_level(names: list[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def test_import_engine_loads_only_the_standard_library(repo_root: Path) -> None:
    modules = loaded_modules(repo_root, "engine", submodules=False)

    outside = set(modules["new_top_level"]) - set(sys.stdlib_module_names) - {"engine"}
    assert outside == set(), f"engine imports non-standard modules: {sorted(outside)}"
    forbidden = top_level(modules["loaded"]) & ENGINE_FORBIDDEN
    assert forbidden == set(), f"import engine loads {sorted(forbidden)}"


def test_every_engine_module_uses_only_the_standard_library(repo_root: Path) -> None:
    modules = loaded_modules(repo_root, "engine", submodules=True)

    outside = set(modules["new_top_level"]) - set(sys.stdlib_module_names) - {"engine"}
    assert outside == set(), f"engine modules import non-standard modules: {sorted(outside)}"
    assert top_level(modules["loaded"]) & {"discord", "PIL", "aiosqlite", "asyncio"} == set()


@pytest.mark.parametrize("submodules", [False, True], ids=["import-ai", "every-module"])
def test_ai_uses_only_engine_and_the_standard_library(repo_root: Path, submodules: bool) -> None:
    modules = loaded_modules(repo_root, "ai", submodules=submodules)

    outside = set(modules["new_top_level"]) - set(sys.stdlib_module_names) - {"ai", "engine"}
    assert outside == set(), f"ai imports {sorted(outside)}"
    forbidden = top_level(modules["loaded"]) & AI_FORBIDDEN
    assert forbidden == set(), f"ai loads {sorted(forbidden)}"
    if not submodules:
        assert "random" not in top_level(modules["loaded"]), "import ai loads random"


def test_engine_never_imports_ai(repo_root: Path) -> None:
    """No engine module names the ai package, not even in a function body."""
    for source in sorted((repo_root / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            assert all(name.split(".")[0] != "ai" for name in names), f"{source} imports ai"


@pytest.mark.parametrize("submodules", [False, True], ids=["import-render", "every-module"])
def test_render_uses_only_engine_pillow_and_the_standard_library(
    repo_root: Path, submodules: bool
) -> None:
    modules = loaded_modules(repo_root, "render", submodules=submodules)

    outside = set(modules["new_top_level"]) - set(sys.stdlib_module_names)
    assert outside <= RENDER_ALLOWED_THIRD_PARTY, f"render imports {sorted(outside)}"
    forbidden = top_level(modules["loaded"]) & RENDER_FORBIDDEN
    assert forbidden == set(), f"render loads {sorted(forbidden)}"
