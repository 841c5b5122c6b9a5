"""The fast lane's list of long tests (tests/conftest.py) names tests that exist: a test renamed
or moved would otherwise come back into `make test-fast` unnoticed."""

from __future__ import annotations

import ast
from fnmatch import fnmatch
from pathlib import Path

from tests.conftest import LONG_MODULES, LONG_TESTS


def names_of_tests(module: Path) -> set[str]:
    """The names of the test functions and methods of a test module."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            found.add(node.name)
    return found


def test_every_long_test_named_exists(repo_root: Path) -> None:
    missing = []
    for node_id in sorted(LONG_TESTS):
        path, _, name = node_id.partition("::")
        module = repo_root / path
        if not module.is_file() or name.rpartition("::")[2] not in names_of_tests(module):
            missing.append(node_id)
    assert missing == [], "named in LONG_TESTS, but no such test"


def test_the_long_modules_are_end_to_end_ones_that_exist(repo_root: Path) -> None:
    for pattern in LONG_MODULES:
        assert pattern.startswith("tests/e2e/test_"), pattern
    matched = {
        pattern
        for pattern in LONG_MODULES
        for module in (repo_root / "tests" / "e2e").glob("test_*.py")
        if fnmatch(module.relative_to(repo_root).as_posix(), pattern)
    }
    assert "tests/e2e/test_multiprocess*.py" in matched
    assert "tests/e2e/test_crash*.py" in matched
