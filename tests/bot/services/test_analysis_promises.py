"""Which games have an analysis, through the services on a real database (each back end): only
a game of the asking server played to its end; a game still running is not over yet, one
aborted, abandoned or cancelled was stopped before its end, and another server's is not
found, as a replay of it would not be."""

from __future__ import annotations

import pytest

from bot.services import GameStatus
from bot.services.analysis import finished_game
from bot.services.errors import NoAnalysisYetError, NotAReplayError
from bot.storage import Database
from tests.bot.services.test_async_play import BOB, GUILD, HOST, LIMIT, Table, human_vs_ai
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import time_out_three_times
from tests.bot.services.test_ratings import OTHER_GUILD, opened
from tests.bot.services.test_service import service_on, step


async def test_only_a_game_of_this_server_played_to_its_end_has_an_analysis(
    database: Database,
) -> None:
    service = service_on(database)
    over = await opened(service, (HOST, BOB), channel=1)
    assert (await service.play.resign(over.id, BOB)).status is GameStatus.OVER
    found = await finished_game(service.play, over.id, GUILD)
    assert found.game_id == over.id
    assert {player.user_id for player in found.players} == {HOST, BOB}
    with pytest.raises(NotAReplayError):
        await finished_game(service.play, over.id, OTHER_GUILD)
    with pytest.raises(NotAReplayError):
        await finished_game(service.play, 999, GUILD)

    running = await opened(service, (HOST, BOB), channel=2)
    with pytest.raises(NoAnalysisYetError) as not_yet:
        await finished_game(service.play, running.id, GUILD)
    assert not not_yet.value.stopped
    await step(service, running)
    await service.play.abort(running.id, HOST)
    with pytest.raises(NoAnalysisYetError) as aborted:
        await finished_game(service.play, running.id, GUILD)
    assert aborted.value.stopped


async def test_only_a_game_of_this_server_played_to_its_end_has_a_replay(
    database: Database,
) -> None:
    """`/marrakech replay game:` hands out the record (its seed revealed) of a finished game of
    the asking server only: another server's game by its number is no finished game here, and
    neither is one still running, one aborted or a lobby cancelled."""
    service = service_on(database)
    over = await opened(service, (HOST, BOB), channel=1)
    assert (await service.play.resign(over.id, BOB)).status is GameStatus.OVER
    record = await service.play.replay_record(over.id, GUILD)
    assert record["game_id"] == over.id
    assert record["seed"]
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(over.id, OTHER_GUILD)
    running = await opened(service, (HOST, BOB), channel=2)
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(running.id, GUILD)
    await step(service, running)
    assert (await service.play.abort(running.id, HOST)).status is GameStatus.ABORTED
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(running.id, GUILD)
    lobby = await service.lobby.create_lobby(guild_id=GUILD, channel_id=3, host_id=HOST, seats=2)
    assert (await service.lobby.cancel(lobby.id, HOST)).status is GameStatus.ABORTED
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(lobby.id, GUILD)


async def test_an_abandoned_game_was_stopped_before_its_end(table: Table) -> None:
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    await time_out_three_times(table, view, HOST)
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()
    (abandoned,) = table.abandoned
    with pytest.raises(NoAnalysisYetError) as stopped:
        await finished_game(table.service.play, abandoned.view.id, GUILD)
    assert stopped.value.stopped
