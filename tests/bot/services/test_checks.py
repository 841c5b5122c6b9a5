"""The checks the edge makes before it asks "are you sure?": `check_resign` and `check_abort`
raise exactly what resigning or ending the game would raise, and change nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.services import GameService, GameStatus
from bot.services.errors import (
    GameNotRunningError,
    HostOnlyAbortError,
    HostOnlyError,
    HostOutError,
    NotSeatedError,
)
from bot.storage import Database
from tests.bot.services.test_service import BOB, CAROL, CHANNEL, HOST, service_on, started

OUTSIDER = 1099


@pytest.fixture
def service(database: Database) -> GameService:
    return service_on(database)


async def test_check_resign_refuses_who_resign_refuses_and_changes_nothing(
    service: GameService,
) -> None:
    view = await started(service)
    await service.play.check_resign(view.id, BOB)
    with pytest.raises(NotSeatedError):
        await service.play.check_resign(view.id, OUTSIDER)
    after = await service.play.look(view.id)
    assert (after.seq, after.state) == (view.seq, view.state), "checking changed nothing"

    await service.play.resign(view.id, BOB)
    with pytest.raises(NotSeatedError):
        await service.play.check_resign(view.id, BOB)  # out already
    await service.play.resign(view.id, CAROL)  # one player left: the game is over
    with pytest.raises(GameNotRunningError):
        await service.play.check_resign(view.id, HOST)


async def test_check_resign_refuses_a_lobby(service: GameService) -> None:
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=2)
    with pytest.raises(GameNotRunningError):
        await service.play.check_resign(lobby.id, HOST)


async def test_check_abort_is_for_the_host_or_a_moderator_of_an_open_game(
    service: GameService,
) -> None:
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=2)
    await service.play.check_abort(lobby.id, HOST)
    view = await started(service, channel=CHANNEL + 1)
    await service.play.check_abort(view.id, HOST)
    await service.play.check_abort(view.id, BOB, moderator=True)
    with pytest.raises(HostOnlyError):
        await service.play.check_abort(view.id, BOB)
    assert (await service.play.look(view.id)).status is GameStatus.RUNNING

    await service.play.abort(view.id, HOST)
    for user, moderator in ((HOST, False), (BOB, True)):
        with pytest.raises(GameNotRunningError):
            await service.play.check_abort(view.id, user, moderator=moderator)


async def test_a_seat_out_of_the_game_is_refused_as_not_seated(service: GameService) -> None:
    view = await started(service)
    loaded = service.loader.in_memory(view.id)
    assert loaded is not None
    assert loaded.state is not None
    out = next(p.seat for p in view.players if p.user_id == BOB)
    assert out is not None
    assert out != loaded.state.to_move
    # Bob's seat could not pay (R9): it is out, though he never resigned.
    service.loader.keep(replace(loaded, state=loaded.state._replace(eliminated=(out,))))
    with pytest.raises(NotSeatedError):
        await service.play.check_resign(view.id, BOB)
    with pytest.raises(NotSeatedError):
        await service.play.resign(view.id, BOB)


async def test_a_host_out_of_the_game_can_no_longer_end_it(service: GameService) -> None:
    """Ending the game early rates no one: a host who resigned, or whose seat could not pay,
    would wipe their own loss (and the others' game). A moderator still may."""
    view = await started(service)
    await service.play.resign(view.id, HOST)
    for check in (service.play.check_abort, service.play.abort):
        with pytest.raises(HostOutError):
            await check(view.id, HOST)
    assert (await service.play.look(view.id)).status is GameStatus.RUNNING
    await service.play.check_abort(view.id, BOB, moderator=True)

    other = await started(service, channel=CHANNEL + 2)
    loaded = service.loader.in_memory(other.id)
    assert loaded is not None
    assert loaded.state is not None
    host_seat = next(p.seat for p in other.players if p.user_id == HOST)
    assert host_seat is not None
    service.loader.keep(replace(loaded, state=loaded.state._replace(eliminated=(host_seat,))))
    with pytest.raises(HostOutError):
        await service.play.check_abort(other.id, HOST)


async def test_a_player_who_is_not_the_host_is_told_the_moderators_command(
    service: GameService,
) -> None:
    view = await started(service)
    with pytest.raises(HostOnlyError) as refused:
        await service.play.check_abort(view.id, BOB)
    assert isinstance(refused.value, HostOnlyAbortError)
