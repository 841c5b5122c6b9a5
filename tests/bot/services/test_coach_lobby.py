"""Coached games through the service on a real database (each back end): a coached game is
casual whatever the lobby asked, finishes without a rating change, keeps the coach in its
rematch; a tournament's games are never coached; the database itself refuses a coached game
that would be rated."""

from __future__ import annotations

import pytest

from bot.services import GameStatus
from bot.storage import Database
from tests.bot.services.test_async_play import BOB, GUILD, HOST
from tests.bot.services.test_ratings import tables
from tests.bot.services.test_service import service_on
from tests.bot.services.test_tournaments import opened as tournament_opened
from tests.bot.services.test_tournaments import services, set_up


async def test_a_coached_game_is_casual_and_finishes_without_a_rating_change(
    database: Database,
) -> None:
    service = service_on(database)
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=1, host_id=HOST, seats=2, coach=True
    )
    assert lobby.game.coach
    assert lobby.game.casual, "asking for the coach makes the game casual"
    await service.lobby.join(lobby.id, BOB)
    view = await service.lobby.start(lobby.id, HOST)
    assert view.game.coach
    assert view.game.casual
    over = await service.play.resign(view.id, BOB)
    assert over.status is GameStatus.OVER
    assert over.ratings == ()
    assert (await service.ratings.player(GUILD, HOST)).games == 0
    assert (await service.ratings.player(GUILD, BOB)).games == 0
    assert [row for name, row in await tables(database) if name != "ratings"] == [[], [], []]
    rematch, _ = await service.lobby.rematch(view.id, BOB)
    assert rematch.game.coach, "a rematch keeps the coach"
    assert rematch.game.casual


async def test_a_game_without_the_coach_is_not_coached(database: Database) -> None:
    service = service_on(database)
    rated = await service.lobby.create_lobby(guild_id=GUILD, channel_id=1, host_id=HOST)
    casual = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=2, host_id=HOST, casual=True
    )
    assert not rated.game.coach
    assert not rated.game.casual
    assert not casual.game.coach
    assert casual.game.casual


async def test_the_database_refuses_a_coached_game_that_is_rated(database: Database) -> None:
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=GUILD, channel_id=1, host_id=HOST)
    with pytest.raises(Exception, match=r"(?i)check"):
        async with database.transaction() as conn:
            await conn.execute("UPDATE games SET coach = 1 WHERE id = $1", lobby.id)


async def test_a_tournament_s_games_are_never_coached(database: Database) -> None:
    _, tournaments = services(database)
    view = await tournament_opened(tournaments, (5001, 5002))
    await tournaments.start(view.id, 5000, moderator=False)
    started = await set_up(tournaments, view.id)
    assert started
    assert all(not game.game.coach for game in started)
