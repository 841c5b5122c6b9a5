"""Fixtures every part of the suite may use: where the repository and the test data live."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "tests" / "data"
"""Reference files the tests read (conformance vectors, game records, rulebook excerpts); see
tests/data/README.md for where each comes from."""


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (holds pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The test suite's reference files, `DATA_DIR` (conformance/, rulebooks/)."""
    return DATA_DIR


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    """Undo a test's logging set-up (root handlers, level, warnings capture) afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)
