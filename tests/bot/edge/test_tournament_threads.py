"""A table's thread: public (discord.py makes a private one unless told), archived after a week
at most, and found again by its name when a run that made it stopped before recording it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import AsyncMock, MagicMock

import discord
import pytest

from bot.edge.tournaments import ARCHIVE_MINUTES, TournamentDisplay
from bot.presentation import tournaments as shown
from tests.bot.presentation.test_tournaments import view

BOT = 4242


def display_over(parent: Any) -> TournamentDisplay:
    client = SimpleNamespace(get_channel=lambda _: parent, user=SimpleNamespace(id=BOT))
    nothing = cast(Any, None)
    return TournamentDisplay(cast(discord.Client, client), nothing, nothing, nothing)


def parent_with(*threads: SimpleNamespace) -> MagicMock:
    parent = MagicMock(spec=discord.TextChannel)
    parent.threads = list(threads)
    parent.create_thread = AsyncMock(return_value=SimpleNamespace(id=555))
    return parent


async def test_a_new_table_gets_a_public_thread_named_after_it() -> None:
    tournament = view()
    table = tournament.tables[2]
    parent = parent_with(SimpleNamespace(name="another", owner_id=BOT, id=1))
    assert await display_over(parent)._thread_for(tournament, table) == 555
    parent.create_thread.assert_awaited_once_with(
        name=shown.thread_name(tournament, table),
        type=discord.ChannelType.public_thread,
        auto_archive_duration=ARCHIVE_MINUTES,
    )
    assert ARCHIVE_MINUTES == 7 * 24 * 60


@pytest.mark.parametrize("owner", [BOT, 1])
async def test_a_thread_made_but_never_recorded_is_found_again(owner: int) -> None:
    tournament = view()
    table = tournament.tables[2]
    made = SimpleNamespace(name=shown.thread_name(tournament, table), owner_id=owner, id=77)
    parent = parent_with(made)
    found = await display_over(parent)._thread_for(tournament, table)
    if owner == BOT:
        assert found == 77
        parent.create_thread.assert_not_awaited()
    else:  # someone else's thread of the same name is not the table's
        assert found == 555
