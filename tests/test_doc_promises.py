"""The table at the end of docs/ratings.md, analysis.md, tournaments.md, coach.md, async.md and
watching.md lists each promise of the page with the tests that hold it: every row names a test,
and every test it names exists (a module-level test function of that file), so the table cannot
rot. Every other test a page of the docs or a README names (reliability.md's table of messages,
performance.md's figures, ...) exists too, and so does every file of the project's folders that
any Markdown page of the repository names (a test module, a helper, a lock file)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ("ratings.md", "analysis.md", "tournaments.md", "coach.md", "async.md", "watching.md")
PAGES = (
    *sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "docs").glob("*.md")),
    "README.md",
    "tests/e2e/fakecord/README.md",
)
"""Every page that may name a test."""
PROJECT_FILE = re.compile(
    r"(?<![\w/.-])(?:\.\./)*"
    r"((?:tests|bot|engine|ai|render|requirements|deploy)/[\w/.-]*\w"
    r"\.(?:py|md|json|lock|sh|txt|sql|yaml))\b"
)
"""A file of the project's folders, named from the repository's root (or from a page of docs/,
after `../`)."""
HEADING = "## Promises and the tests that hold them"
TEST_ID = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[[^\]`]*\])?`")
NAMED_TEST = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
"""A test named anywhere in a page, in backquotes or not."""


def table_rows(doc: str) -> list[str]:
    """The body rows of the promises table at the end of `doc`."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    assert HEADING in text, f"docs/{doc} ends with its promises and their tests"
    section = text.split(HEADING, 1)[1]
    assert "\n## " not in section, f"the promises table is the last section of docs/{doc}"
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows[0].replace(" ", "") == "|Promise|Test|"
    return rows[2:]


@functools.cache
def functions_of(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    )


@pytest.mark.parametrize("doc", DOCS)
def test_every_promise_names_a_test_that_exists(doc: str) -> None:
    rows = table_rows(doc)
    assert rows, f"docs/{doc} lists its promises"
    missing = []
    for row in rows:
        ids = TEST_ID.findall(row)
        assert ids, f"docs/{doc}: no test holds {row!r}"
        for path, name in ids:
            if not (ROOT / path).is_file() or name not in functions_of(path):
                missing.append(f"{path}::{name}")
    assert not missing, f"docs/{doc} names tests that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_every_test_a_page_names_exists(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    missing = sorted(
        f"{path}::{name}"
        for path, name in set(NAMED_TEST.findall(text))
        if not (ROOT / path).is_file() or name not in functions_of(path)
    )
    assert not missing, f"{page} names tests that do not exist: {missing}"


def test_the_check_finds_a_test_that_does_not_exist() -> None:
    assert "test_every_promise_names_a_test_that_exists" in functions_of(
        "tests/test_doc_promises.py"
    )
    assert "test_no_such_thing" not in functions_of("tests/test_doc_promises.py")
    assert TEST_ID.findall("`tests/a/b.py::test_c[2-3]`, `tests/d.py::test_e`") == [
        ("tests/a/b.py", "test_c"),
        ("tests/d.py", "test_e"),
    ]
    assert NAMED_TEST.findall("held by tests/a/b.py::test_c and `tests/d.py::test_e[x]`") == [
        ("tests/a/b.py", "test_c"),
        ("tests/d.py", "test_e"),
    ]


def markdown_pages() -> list[Path]:
    """Every Markdown page of the repository (not of a virtualenv or another hidden folder)."""
    return sorted(
        path
        for path in ROOT.rglob("*.md")
        if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
    )


def test_every_project_file_a_page_names_exists() -> None:
    """A page that names a file where it no longer is (a test module moved into the folder of
    the package it tests, say) sends a new contributor looking for nothing."""
    pages = markdown_pages()
    assert ROOT / "docs" / "contributing.md" in pages
    missing = sorted(
        f"{page.relative_to(ROOT)}: {name}"
        for page in pages
        for name in set(PROJECT_FILE.findall(page.read_text(encoding="utf-8")))
        if not (ROOT / name).is_file()
    )
    assert not missing, f"pages name files that do not exist: {missing}"


def test_the_file_check_reads_names_as_written() -> None:
    text = (
        "held by `tests/bot/presentation/test_vocabulary.py`, see "
        "[the locks](../requirements/dev.lock); `tests/e2e/test_crash*.py` and "
        "migrations/0001_games.sql are no names from the root"
    )
    assert PROJECT_FILE.findall(text) == [
        "tests/bot/presentation/test_vocabulary.py",
        "requirements/dev.lock",
    ]
