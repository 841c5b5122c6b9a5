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


async def test_a_name_longer_than_the_option_takes_is_kept_to_its_first_100_characters(
    database: Database,
) -> None:
    """`name:` takes 100 characters; a longer one Discord never lets through opens the
    tournament under its first 100 (blanks made one, none left at the end), not an error."""
    _, tournaments = services(database)
    typed = "Grand  " + "x" * 93 + " " + "y" * 1900
    view = await opened(tournaments, (), name=typed)
    assert view.name == "Grand " + "x" * 93  # the 100th character, a blank, left off too
