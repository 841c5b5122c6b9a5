"""The layering of the packages, read from the source: who may import whom.

The rule is the table of docs/architecture.md ("| layer | may import |"), read from the page
itself, so the page and the test cannot say two things: every module of the project sits in one
row, and imports only its own layer and the layers its row names. Every import counts, also
those inside functions and under TYPE_CHECKING, because each one ties the importer to the
imported; for the same reason no module may come back to itself through its imports (no cycle).
Beside the table, the third-party packages a layer must never load (Discord in the services,
Pillow in the engine, ...), and Discord in no module but those of the edge, the presentation and
the runtime. The longest chain of imports inside `bot` is kept short, so a module
can be read (and loads) with few others in mind.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "ai", "render", "bot")

ARCHITECTURE = ROOT / "docs" / "architecture.md"
TABLE_HEADER = "| layer | may import |"

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("discord", "PIL", "aiosqlite", "asyncpg"),
    "ai": ("discord", "PIL", "aiosqlite", "asyncpg"),
    "render": ("discord", "aiosqlite", "asyncpg"),
    "bot.services": ("discord", "PIL", "aiosqlite", "asyncpg"),
    "bot.storage": ("discord", "PIL"),
    "bot.workers": ("discord", "aiosqlite", "asyncpg"),
    "bot.presentation": ("aiosqlite", "asyncpg"),
    "bot.edge": ("aiosqlite", "asyncpg"),
}
"""Importer (a package or module, with everything below it) -> the third-party packages it must
never import."""

DISCORD_IMPORTERS = ("bot.edge", "bot.presentation", "bot.runtime", "bot.__main__")
"""The only modules that may import Discord (docs/architecture.md): `bot` is the only package
that talks to it, and inside `bot` only the edge, the presentation and the runtime."""

STANDARD_LIBRARY_ONLY = ("engine", "ai")
"""The layers that import nothing from outside the project but the standard library, so the
rules and the AI run on a bare Python."""


def read_layers(page: str) -> dict[str, frozenset[str]]:
    """The table of `page` under TABLE_HEADER: each layer named in a row's first cell -> the
    layers named (in backquotes) in its second, and the others of its own cell."""
    lines = page.splitlines()
    start = lines.index(TABLE_HEADER) + 2
    layers: dict[str, frozenset[str]] = {}
    for line in itertools.takewhile(lambda line: line.startswith("|"), lines[start:]):
        importers, allowed = (cell.strip() for cell in line.strip("|").split("|"))
        row = re.findall(r"`([\w.]+)`", importers)
        for importer in row:
            layers[importer] = frozenset(re.findall(r"`([\w.]+)`", allowed)).union(row) - {importer}
    return layers


@functools.cache
def layers() -> dict[str, frozenset[str]]:
    return read_layers(ARCHITECTURE.read_text(encoding="utf-8"))


def layer_of(module: str, table: dict[str, frozenset[str]]) -> str | None:
    """The row `module` sits in: the longest layer that names it or a package above it."""
    return max((name for name in table if within(module, name)), key=len, default=None)


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


def imports_of(path: Path, *, at_import_only: bool = False) -> set[str]:
    """Every module `path` imports by name (absolute names; relative imports resolved). As in
    other import linters, `import a.b` counts as an import of `a.b` only, not of package `a`.

    With `at_import_only`, only the imports that run when the module itself is imported: those
    at its top level, outside `if TYPE_CHECKING:` (not those inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    if at_import_only:
        nodes: Iterator[ast.AST] = top_level(tree)
    else:
        nodes = ast.walk(tree)
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
    table = layers()
    found = []
    for path in source_files():
        importer = module_name(path)
        layer = layer_of(importer, table)
        for imported in sorted(imports_of(path)):
            if imported.partition(".")[0] in PACKAGES:
                target = layer_of(imported, table)
                if layer is not None and target not in {layer, *table[layer]}:
                    found.append(f"{importer} imports {imported} ({layer} may not)")
            for banned_by, forbidden in FORBIDDEN.items():
                if within(importer, banned_by) and any(within(imported, b) for b in forbidden):
                    found.append(f"{importer} imports {imported} ({banned_by} must not)")
            top = imported.partition(".")[0]
            if any(within(importer, only) for only in STANDARD_LIBRARY_ONLY) and not (
                top in PACKAGES or top in sys.stdlib_module_names
            ):
                found.append(f"{importer} imports {imported} (not in the standard library)")
    return found


def discord_importers() -> list[str]:
    """The imports of Discord by a module outside DISCORD_IMPORTERS (at load, in a function or
    under TYPE_CHECKING)."""
    found: list[str] = []
    for path in source_files():
        importer = module_name(path)
        if any(within(importer, allowed) for allowed in DISCORD_IMPORTERS):
            continue
        found.extend(
            f"{importer} imports {imported}"
            for imported in sorted(imports_of(path))
            if within(imported, "discord")
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
    found = violations()
    assert found == [], "\n".join(found)


def test_only_the_edge_the_presentation_and_the_runtime_import_discord() -> None:
    found = discord_importers()
    assert found == [], "\n".join(found)


def only_this_source(
    importer: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Make the checks read one file, `importer` holding `source`, in a tree of its own."""
    path = tmp_path / importer
    path.parent.mkdir(parents=True)
    path.write_text(source)
    this = sys.modules[__name__]
    monkeypatch.setattr(this, "ROOT", tmp_path)
    monkeypatch.setattr(this, "source_files", lambda: iter([path]))


@pytest.mark.parametrize(
    ("source", "importer"),
    [
        ("import discord\n", "bot/supervisor.py"),
        ("def f():\n    from discord import utils\n", "bot/crashpoints.py"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import discord\n",
            "bot/__init__.py",
        ),
    ],
)
def test_discord_imported_outside_the_edge_the_presentation_and_the_runtime_is_caught(
    source: str, importer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_this_source(importer, source, tmp_path, monkeypatch)
    assert len(discord_importers()) == 1


def test_the_import_chains_inside_the_bot_stay_short() -> None:
    chain = longest_chain(graph(), "bot")
    assert len(chain) <= MAX_CHAIN, " -> ".join(chain)


def test_every_module_sits_in_one_row() -> None:
    table = layers()
    named = {name for allowed in table.values() for name in allowed}
    assert named <= set(table), f"names no row: {sorted(named - set(table))}"
    unplaced = [
        name
        for name in map(module_name, source_files())
        if layer_of(name, table) is None or (layer_of(name, table) == "bot" and name != "bot")
    ]
    assert unplaced == []


def test_the_table_is_read_from_the_page() -> None:
    page = "\n".join(
        [
            "Text.",
            "",
            TABLE_HEADER,
            "|---|---|",
            "| `engine` | nothing of the project |",
            "| `bot.edge`, `bot.x` | `bot.services`, `engine` |",
            "",
            "| other | table |",
        ]
    )
    assert read_layers(page) == {
        "engine": frozenset(),
        "bot.edge": frozenset({"bot.services", "engine", "bot.x"}),
        "bot.x": frozenset({"bot.services", "engine", "bot.edge"}),
    }
    assert set(layers()) >= {"engine", "ai", "render", "bot.storage", "bot.edge", "bot.runtime"}


@pytest.mark.parametrize(
    ("source", "importer", "message"),
    [
        ("import discord\n", "bot/services/example.py", "bot.services must not"),
        ("from bot.services import views\n", "bot/storage/example.py", "bot.storage may not"),
        ("from render import Labels\n", "engine/example.py", "engine may not"),
        ("def draw():\n    import bot.runtime.app\n", "render/sub/example.py", "render may not"),
        ("from bot.storage.games import X\n", "bot/edge/example.py", "bot.edge may not"),
        ("from bot.runtime import health\n", "bot/edge/example.py", "bot.edge may not"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.storage import X\n",
            "bot/edge/example.py",
            "bot.edge may not",
        ),
        ("from bot.presentation import x\n", "bot/workers/example.py", "bot.workers may not"),
        ("from bot.storage.kinds import X\n", "bot/presentation/x.py", "bot.presentation may not"),
        ("from bot.edge import buttons\n", "bot/services/example.py", "bot.services may not"),
        ("from bot.edge import buttons\n", "bot/supervisor.py", "bot.supervisor may not"),
        ("from ai import x\n", "render/example.py", "render may not"),
        ("def f():\n    import yaml\n", "engine/example.py", "not in the standard library"),
        ("import numpy.linalg\n", "ai/example.py", "not in the standard library"),
    ],
)
def test_a_forbidden_import_is_caught(
    source: str, importer: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_this_source(importer, source, tmp_path, monkeypatch)
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


def is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def every_import(paths: Iterable[Path]) -> dict[str, frozenset[str]]:
    """Every module of `paths` -> every one of them it imports: at its top level, inside a
    function or under TYPE_CHECKING (a cycle of annotations still ties each to the others)."""
    modules = {module_name(path): path for path in paths}
    return {
        name: frozenset(other for other in imports_of(path) if other in modules and other != name)
        for name, path in modules.items()
    }


def test_no_module_imports_itself_back() -> None:
    edges = every_import(source_files())
    assert [cycle for package in PACKAGES for cycle in import_cycles(edges, package)] == []


def test_an_import_cycle_is_found() -> None:
    edges = {
        "bot.storage.database": frozenset({"bot.storage.sqlite"}),
        "bot.storage.sqlite": frozenset({"bot.storage.database"}),
        "bot.storage.open": frozenset({"bot.storage.sqlite"}),
    }
    assert import_cycles(edges, "bot.storage") == [
        ["bot.storage.database", "bot.storage.sqlite", "bot.storage.database"]
    ]


def test_an_import_for_annotations_only_closes_a_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = tmp_path / "bot" / "first.py"
    second = tmp_path / "bot" / "second.py"
    first.parent.mkdir()
    first.write_text("from bot.second import B\n")
    second.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.first import A\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    edges = every_import([first, second])
    assert import_cycles(edges, "bot") == [["bot.first", "bot.second", "bot.first"]]


def test_the_bot_packages_table_names_every_module_of_each_package() -> None:
    """docs/architecture.md's table of `bot/` ("| package | what it holds |") says what each
    package holds by naming its modules: a module it leaves out is one a new contributor has to
    find by reading the code."""
    page = ARCHITECTURE.read_text(encoding="utf-8")
    rows = {
        row.split("|")[1].strip().strip("`").rstrip("/"): row
        for row in page.split("| package | what it holds |", 1)[1].splitlines()
        if row.startswith("| `")
    }
    unnamed = sorted(
        f"bot/{package}/{path.name}"
        for package in ("runtime", "edge", "presentation", "services", "storage", "workers")
        for path in (ROOT / "bot" / package).glob("*.py")
        if path.name != "__init__.py" and f"`{path.name}`" not in rows[package]
    )
    assert not unnamed, f"docs/architecture.md's table of bot/ does not name {unnamed}"
