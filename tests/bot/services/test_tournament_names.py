"""A tournament's name as its moderator typed it: one with no visible character is refused,
blanks or not (tests/bot/services/test_tournaments.py holds the blanks)."""

from __future__ import annotations

import pytest

from bot.services.errors import BadOptionError
from bot.storage import Database
from tests.bot.services.test_tournaments import opened, services


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\u200b \u2060", "\u00ad"])
async def test_a_tournament_named_only_with_invisible_characters_is_refused(
    database: Database, invisible: str
) -> None:
    """Zero-width characters are no blanks to str.split, yet show nothing: a standings title
    and thread names of no visible letter. Refused as blanks are, and nothing is opened."""
    _, tournaments = services(database)
    with pytest.raises(BadOptionError) as refused:
        await opened(tournaments, (), name=invisible)
    assert refused.value.option == "name"
    assert (await opened(tournaments, (), name="Cup \u200b")).name == "Cup \u200b"
