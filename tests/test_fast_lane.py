"""The fast lane's list of long tests (tests/conftest.py) names tests that exist: a test renamed
or moved would otherwise come back into `make test-fast` unnoticed. And the order of a run on
several test processes: the long end-to-end tests first, the other long ones last."""

from __future__ import annotations

import ast
from fnmatch import fnmatch
from pathlib import Path
from typing import cast

import pytest

from tests.conftest import LONG_MODULES, LONG_TESTS, pytest_collection_modifyitems


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


class Item:
    """What the ordering reads of a collected test: its node id and its marks."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.marks: set[str] = set()

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.marks else None

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.add(mark.name)


def test_the_long_end_to_end_tests_run_first_and_the_other_long_ones_last() -> None:
    """The first test process takes the long end-to-end tests one after another; the short
    tests come next, the other long ones last, for whichever process is free (conftest.py)."""
    ids = [
        "tests/engine/test_game.py::test_short",
        "tests/bot/workers/test_analysis_job.py::test_the_benchmark_times_and_draws",
        "tests/e2e/test_quiet_channel.py::test_short",
        "tests/e2e/test_crash.py::test_any",
        "tests/e2e/test_game.py::test_a_whole_game_with_kills_and_restarts",
    ]
    items = [Item(node_id) for node_id in ids]
    pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert [item.nodeid for item in items] == [ids[3], ids[4], ids[0], ids[2], ids[1]]
    assert [item.nodeid for item in items if "long" in item.marks] == [ids[3], ids[4], ids[1]]


def test_a_test_marked_slow_is_long_like_one_marked_long() -> None:
    short = Item("tests/engine/test_game.py::test_short")
    slow = Item("tests/bot/services/test_pairing_optimum.py::test_slow")
    slow.marks.add("slow")
    items = [slow, short]
    pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert [item.nodeid for item in items] == [short.nodeid, slow.nodeid], "long ones last"
    assert "long" in slow.marks
    assert "long" not in short.marks


def test_every_parameter_of_a_test_named_in_long_tests_is_long() -> None:
    items = [
        Item(f"{node_id}[{parameter}]")
        for node_id in sorted(LONG_TESTS)
        for parameter in ("sqlite", "postgres-2")
    ]
    pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert [item.nodeid for item in items if "long" not in item.marks] == []
