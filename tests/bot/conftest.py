"""Fixtures the bot's tests share."""

from __future__ import annotations

import pytest

from tests.judged import count_judgings


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The games judged in the workers during the test, each given the golden game's judgement
    (`tests.judged.count_judgings`)."""
    return count_judgings(monkeypatch)
