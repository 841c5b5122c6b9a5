"""A tournament's name as its moderator typed it, in the bot's messages: never Discord markdown
(a `**` ending their bold, a `[text](url)` making the bot post a masked link)."""

from __future__ import annotations

import pytest

from bot.presentation import tournaments as shown
from bot.services.tournament_views import TournamentStatus
from tests.bot.presentation.test_tournaments import view

MARKDOWN_NAMES = ["**Spring** cup", "[free nitro](https://example.com)", "__cup__ ~~old~~ `x`"]


@pytest.mark.parametrize("name", MARKDOWN_NAMES)
def test_a_tournament_s_name_shows_in_its_messages_as_typed_not_as_markdown(name: str) -> None:
    """Discord would read the name's markdown; escaped, the message shows its characters."""
    over = view(status=TournamentStatus.OVER, name=name)
    aborted = view(status=TournamentStatus.ABORTED, name=name)
    table = over.tables[2]
    for said in (
        shown.finished_text(over),
        shown.aborted_text(aborted),
        shown.welcome_post(over, table).content or "",
    ):
        assert shown.in_text(name) in said, said
        assert f"**{name}**" not in said, said
    assert shown.in_text(name) != name, "the name carries markdown to escape"
