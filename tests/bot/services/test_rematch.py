"""A rematch: a new lobby in the finished game's channel, same settings and AI seats."""

from __future__ import annotations

import pytest

from bot.services import GameStatus
from bot.services.errors import ChannelHasGameError, GameNotRunningError, NotSeatedError
from bot.storage import Database
from tests.bot.services.test_async_play import (
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    HOST,
    ManualClock,
    Table,
    make_table,
)


@pytest.fixture
def table(database: Database) -> Table:
    return make_table(database, ManualClock())


async def finished(table: Table) -> int:
    lobby = table.service.lobby
    view = await lobby.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        seats=3,
        variant="standard",
        turn_limit_seconds=3600,
        locale="fr",
    )
    await lobby.join(view.id, BOB)
    view = await lobby.add_ai(view.id, HOST, "medium")
    with pytest.raises(GameNotRunningError):
        await lobby.rematch(view.id, HOST)
    view = await lobby.start(view.id, HOST)
    await table.service.play.resign(view.id, HOST)
    view = await table.service.play.resign(view.id, BOB)
    assert view.status is GameStatus.OVER
    return view.id


async def test_a_player_reopens_the_game_with_its_settings_and_ai_seats(table: Table) -> None:
    game_id = await finished(table)
    with pytest.raises(NotSeatedError):
        await table.service.lobby.rematch(game_id, CAROL)
    view, invited = await table.service.lobby.rematch(game_id, BOB, "Bob")
    assert view.status is GameStatus.LOBBY
    assert view.id != game_id
    assert (view.game.host_id, view.game.channel_id, view.game.guild_id) == (BOB, CHANNEL, GUILD)
    assert (view.game.seats_wanted, view.game.variant) == (3, "standard")
    assert (view.game.turn_limit_seconds, view.game.locale) == (3600, "fr")
    assert [(p.user_id, p.ai_level) for p in view.players] == [(BOB, None), (None, "medium")]
    assert invited == (HOST,)
    with pytest.raises(ChannelHasGameError):
        await table.service.lobby.rematch(game_id, HOST)
