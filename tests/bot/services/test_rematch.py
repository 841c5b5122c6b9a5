"""A rematch: a new lobby in the finished game's channel, same settings and AI seats."""

from __future__ import annotations

import pytest

from bot.presentation import presenter
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


async def finished(table: Table, seats: int = 3) -> int:
    """A game of HOST, BOB and a medium AI, opened for `seats`, both people resigned."""
    lobby = table.service.lobby
    view = await lobby.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        seats=seats,
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


async def test_a_rematch_has_the_seats_its_game_was_opened_with_not_the_seats_it_started_with(
    table: Table,
) -> None:
    """A game opened for 4 that started with 3 comes back as a lobby for 4, with a seat open
    for a fourth person, as its lobby says."""
    game_id = await finished(table, seats=4)
    view, _ = await table.service.lobby.rematch(game_id, HOST)
    assert [(p.user_id, p.ai_level) for p in view.players] == [(HOST, None), (None, "medium")]
    players = presenter.lobby_post(view, language="en").embed.fields[0]
    assert players.name == "Players (2/4)"
    assert view.game.seats_wanted == 4
