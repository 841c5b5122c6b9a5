"""Fixtures every part of the suite may use: where the repository and the shared docs live."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (holds pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared read-only folder beside the repository (RULES.md, conformance/, seeds/, ...)."""
    shared = REPO_ROOT.parent / "shared"
    if not shared.is_dir():
        pytest.fail(f"expected the shared folder beside the repository at {shared}")
    return shared


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    """Undo a test's logging set-up (root handlers, level, warnings capture) afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)
