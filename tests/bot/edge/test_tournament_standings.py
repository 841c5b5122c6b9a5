"""The standings message's embed and picture (bot/edge/tournaments.py): the embed names
`attachment://standings.png` only together with that file; a click that waits for the
picture is deferred meanwhile; a picture that cannot be drawn leaves standings without one,
never an embed naming a file it lacks."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import AsyncMock

import discord
import pytest

from bot.edge import tournaments as edge
from bot.edge.tournaments import TournamentDisplay
from bot.presentation import tournaments as shown
from tests.bot.presentation.test_tournaments import view

PNG = b"\x89PNG\r\n\x1a\n"


def display_drawing(standings_png: Any) -> TournamentDisplay:
    pictures = SimpleNamespace(standings_png=standings_png)
    nothing = cast(Any, None)
    return TournamentDisplay(nothing, nothing, nothing, cast(Any, pictures))


def clicked() -> Any:
    return SimpleNamespace(
        type=discord.InteractionType.component,
        response=SimpleNamespace(defer=AsyncMock(), is_done=lambda: False),
    )


def image_url(embed: discord.Embed) -> str | None:
    return embed.image.url


async def test_the_embed_names_the_picture_it_comes_with() -> None:
    embed, files = await display_drawing(AsyncMock(return_value=PNG)).standings(view())
    assert image_url(embed) == f"attachment://{shown.STANDINGS_NAME}"
    assert [file.filename for file in files] == [shown.STANDINGS_NAME]
    assert image_url(shown.standings_post(view()).embed) is None, "not before it is attached"


async def test_a_picture_that_cannot_be_drawn_leaves_the_standings_without_one() -> None:
    interaction = clicked()
    display = display_drawing(AsyncMock(side_effect=TimeoutError("workers busy")))
    embed, files = await display.standings_in_time(interaction, view())
    assert files == []
    assert image_url(embed) is None
    assert "Spring cup" in str(embed.title)
    interaction.response.defer.assert_not_awaited()


async def test_a_slow_picture_defers_the_click_then_comes_with_the_standings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(edge, "PICTURE_PATIENCE_SECONDS", 0.0)
    drawn = asyncio.Event()

    async def slow(_: object) -> bytes:
        await drawn.wait()
        return PNG

    interaction = clicked()
    interaction.response.defer.side_effect = lambda **_: drawn.set()
    embed, files = await display_drawing(slow).standings_in_time(interaction, view())
    interaction.response.defer.assert_awaited_once_with(ephemeral=False, thinking=False)
    assert image_url(embed) == f"attachment://{shown.STANDINGS_NAME}"
    assert [file.filename for file in files] == [shown.STANDINGS_NAME]
