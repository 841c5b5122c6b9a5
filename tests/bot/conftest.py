"""Fixtures the bot's tests share."""

from __future__ import annotations

import pytest

from bot.edge.incidents import DISCORD
from tests.judged import count_judgings, judging_untraced


@pytest.fixture(autouse=True)
def discord_answers() -> None:
    """Each test starts with Discord answering: an outage another test's requests met (with
    no client of its own to start afresh) is not this one's."""
    DISCORD.renew()


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The games judged in the workers during the test, each given the golden game's judgement
    (`tests.judged.count_judgings`)."""
    return count_judgings(monkeypatch)


@pytest.fixture(autouse=True)
def judges_untraced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers judge games and coached decisions with the coverage tracer paused
    (`tests.judged.judging_untraced`): the bot's tests read the judge's answers, the judge's
    own tests (tests/ai) measure its lines."""
    judging_untraced(monkeypatch)
