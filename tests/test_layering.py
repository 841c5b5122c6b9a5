"""The layering of the packages, read from the source: who may import whom.

engine (the rules) imports none of the others; ai imports engine only; render draws engine
states and knows nothing of the AI or the bot; inside the bot, the services never see Discord
and storage never sees the services. For the layers every import counts, also those inside
functions and under TYPE_CHECKING, because each one ties the importer to the imported. The
longest chain of imports inside `bot` is kept short, so a module can be read (and loads) with
few others in mind.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "ai", "render", "bot")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("ai", "render", "bot", "discord", "PIL", "aiosqlite"),
    "ai": ("render", "bot", "discord", "PIL", "aiosqlite"),
    "render": ("ai", "bot", "discord", "aiosqlite"),
    "bot.services": ("discord", "bot.edge", "bot.presentation", "bot.runtime"),
    "bot.storage": ("bot.services", "discord", "bot.edge", "bot.presentation", "bot.runtime"),
}
"""Importer (a package or module, with everything below it) -> what it must never import."""

MAX_CHAIN = 10
"""The most modules one chain of imports inside `bot` may pass through: the imports that run
when a module is imported, one module loading the next (a type named under TYPE_CHECKING or a
module a function imports when called starts no chain of its own)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def imports_of(path: Path, *, at_import_only: bool = False, annotations: bool = True) -> set[str]:
    """Every module `path` imports by name (absolute names; relative imports resolved). As in
    other import linters, `import a.b` counts as an import of `a.b` only, not of package `a`.

    With `at_import_only`, only the imports that run when the module itself is imported: those
    at its top level, outside `if TYPE_CHECKING:` (not those inside functions). Without
    `annotations`, every import but those under `if TYPE_CHECKING:`, which never run."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    if at_import_only:
        nodes: Iterator[ast.AST] = top_level(tree)
    else:
        nodes = ast.walk(tree) if annotations else walk_running(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from package import module` names the module only
                submodule = f"{base}.{alias.name}"
                found.add(submodule if is_module(submodule) else base)
    return found


def top_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """The statements Python runs on import, less the body of `if TYPE_CHECKING:`."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If):
            if not is_type_checking(node.test):
                pending.extend(node.body)
            pending.extend(node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend([*node.body, *node.orelse, *node.finalbody])
            for handler in node.handlers:
                pending.extend(handler.body)
        else:
            yield node


def is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@functools.cache
def graph() -> dict[str, frozenset[str]]:
    """Every first-party module -> the first-party modules importing it loads (see MAX_CHAIN)."""
    modules = {module_name(path): path for path in source_files()}
    edges = {}
    for name, path in modules.items():
        imported = imports_of(path, at_import_only=True)
        edges[name] = frozenset(other for other in imported if other in modules and other != name)
    return edges


def violations() -> list[str]:
    found = []
    for path in source_files():
        importer = module_name(path)
        for layer, forbidden in FORBIDDEN.items():
            if not within(importer, layer):
                continue
            found.extend(
                f"{importer} imports {imported} ({layer} must not)"
                for imported in sorted(imports_of(path))
                if any(within(imported, banned) for banned in forbidden)
            )
    return found


def longest_chain(edges: dict[str, frozenset[str]], prefix: str) -> list[str]:
    """The longest path of imports between modules under `prefix` (cycles are not followed)."""
    inside = {name: {n for n in targets if within(n, prefix)} for name, targets in edges.items()}
    best: dict[str, list[str]] = {}

    def walk(name: str, on_path: frozenset[str]) -> list[str]:
        if name in best:
            return best[name]
        longest: list[str] = []
        for target in sorted(inside.get(name, ())):
            if target in on_path:
                continue
            chain = walk(target, on_path | {target})
            if len(chain) > len(longest):
                longest = chain
        best[name] = [name, *longest]
        return best[name]

    chains = [walk(name, frozenset({name})) for name in inside if within(name, prefix)]
    return max(chains, key=len, default=[])


def test_each_layer_imports_only_what_is_below_it() -> None:
    assert violations() == []


def test_the_import_chains_inside_the_bot_stay_short() -> None:
    chain = longest_chain(graph(), "bot")
    assert len(chain) <= MAX_CHAIN, " -> ".join(chain)


@pytest.mark.parametrize(
    ("source", "importer", "message"),
    [
        ("import discord\n", "bot/services/example.py", "bot.services must not"),
        ("from bot.services import views\n", "bot/storage/example.py", "bot.storage must not"),
        ("from render import Labels\n", "engine/example.py", "engine must not"),
        ("def draw():\n    import bot.runtime.app\n", "render/sub/example.py", "render must not"),
    ],
)
def test_a_forbidden_import_is_caught(
    source: str, importer: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / importer
    path.parent.mkdir(parents=True)
    path.write_text(source)
    this = sys.modules[__name__]
    monkeypatch.setattr(this, "ROOT", tmp_path)
    monkeypatch.setattr(this, "source_files", lambda: iter([path]))
    found = violations()
    assert found
    assert all(message in line for line in found), found


def test_the_longest_chain_follows_imports_and_not_cycles() -> None:
    edges = {
        "bot.a": frozenset({"bot.b"}),
        "bot.b": frozenset({"bot.c", "engine.x"}),
        "bot.c": frozenset({"bot.a"}),
        "engine.x": frozenset(),
    }
    assert longest_chain(edges, "bot") == ["bot.a", "bot.b", "bot.c"]


def import_cycles(edges: dict[str, frozenset[str]], prefix: str) -> list[list[str]]:
    """The cycles of imports between modules under `prefix`, each as the modules it passes."""
    inside = {
        name: sorted(n for n in targets if within(n, prefix)) for name, targets in edges.items()
    }
    cycles: list[list[str]] = []
    done: set[str] = set()

    def walk(name: str, path: list[str]) -> None:
        for target in inside.get(name, ()):
            if target in path:
                cycles.append([*path[path.index(target) :], target])
            elif target not in done:
                walk(target, [*path, target])
        done.add(name)

    for name in sorted(inside):
        if within(name, prefix) and name not in done:
            walk(name, [name])
    return cycles


def walk_running(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of `tree` but the bodies of `if TYPE_CHECKING:` (code that never runs)."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.If) and is_type_checking(node.test):
            pending.extend(node.orelse)
            pending.append(node.test)
        else:
            pending.extend(ast.iter_child_nodes(node))


def is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


@functools.cache
def full_graph() -> dict[str, frozenset[str]]:
    """Every first-party module -> every first-party module it imports when it runs, at its
    top level or inside functions (not those named under TYPE_CHECKING for annotations only)."""
    modules = {module_name(path): path for path in source_files()}
    return {
        name: frozenset(
            other
            for other in imports_of(path, annotations=False)
            if other in modules and other != name
        )
        for name, path in modules.items()
    }


def test_storage_has_no_import_cycles() -> None:
    """The interface (bot.storage.database) imports neither back end; the factory that picks one
    (bot.storage.open) sits beside them. Imports inside functions count too; those for
    annotations only do not, as they never run."""
    assert import_cycles(full_graph(), "bot.storage") == []


def test_an_import_cycle_is_found() -> None:
    edges = {
        "bot.storage.database": frozenset({"bot.storage.sqlite"}),
        "bot.storage.sqlite": frozenset({"bot.storage.database"}),
        "bot.storage.open": frozenset({"bot.storage.sqlite"}),
    }
    assert import_cycles(edges, "bot.storage") == [
        ["bot.storage.database", "bot.storage.sqlite", "bot.storage.database"]
    ]
