"""A tournament's name as its moderator typed it: one with no visible character is refused,
blanks or not (tests/bot/services/test_tournaments.py holds the blanks)."""

from __future__ import annotations

import pytest

from bot.services.errors import InvisibleNameError
from bot.storage import Database
from tests.bot.services.test_tournaments import opened, services


@pytest.mark.parametrize(
    "invisible",
    [
        "\u200b\u200b",
        "\u200b \u2060",
        "\u00ad",
        "\u3164\u3164",
        "\u115f\u1160 \uffa0",
        "\u2800\u2800",
        "\u0301\u0308\u20dd",
        "\u202e\u2066\u200f",
        "\u200b\u3164 \u0301",
    ],
    ids=[
        "zero-width-spaces",
        "word-joiner",
        "soft-hyphen",
        "hangul-filler",
        "other-hangul-fillers",
        "braille-blank",
        "combining-marks",
        "bidi-controls",
        "mixed",
    ],
)
async def test_a_tournament_named_only_with_invisible_characters_is_refused(
    database: Database, invisible: str
) -> None:
    """Zero-width characters, Hangul fillers, the blank Braille pattern, combining marks with
    no letter to sit on and direction controls are no blanks to str.split, yet show nothing:
    a standings title and thread names of no visible letter. Refused as blanks are, as a
    name that shows nothing (InvisibleNameError), and nothing is opened."""
    _, tournaments = services(database)
    with pytest.raises(InvisibleNameError) as refused:
        await opened(tournaments, (), name=invisible)
    assert refused.value.option == "name"
    assert (await opened(tournaments, (), name="Cup \u200b")).name == "Cup \u200b"


@pytest.mark.parametrize(
    "shown",
    ["Cafe\u0301", "\u5927\u4f1a", "\U0001f3c6", "#1", "\u3164Cup", "\u0416"],
    ids=[
        "combining-accent-on-a-letter",
        "han",
        "emoji",
        "punctuation-and-digit",
        "filler-and-letters",
        "cyrillic",
    ],
)
async def test_a_tournament_name_with_something_to_show_is_taken(
    database: Database, shown: str
) -> None:
    """A name in any script, or of a symbol, shows something: it is taken as typed."""
    _, tournaments = services(database)
    assert (await opened(tournaments, (), name=shown)).name == shown


async def test_a_name_longer_than_the_option_takes_is_kept_to_its_first_100_characters(
    database: Database,
) -> None:
    """`name:` takes 100 characters; a longer one Discord never lets through opens the
    tournament under its first 100 (blanks made one, none left at the end), not an error."""
    _, tournaments = services(database)
    typed = "Grand  " + "x" * 93 + " " + "y" * 1900
    view = await opened(tournaments, (), name=typed)
    assert view.name == "Grand " + "x" * 93  # the 100th character, a blank, left off too
