"""What the display needs to retire a game's old messages: the seq each turn began at (so a
message known to show some seq can be told which turn it showed), the same after moves,
resignations and a rebuild from the log; and the lobby's message, kept once the game started."""

from __future__ import annotations

import pytest

from bot.services import GameService, GameStatus, GameView
from bot.storage import Database
from tests.bot.services.test_service import BOB, CAROL, DAVE, HOST, service_on, started, step


@pytest.fixture
def service(database: Database) -> GameService:
    return service_on(database)


async def test_each_turn_s_start_is_kept_and_rebuilt_the_same(
    service: GameService, database: Database
) -> None:
    view = await started(service, (HOST, BOB, CAROL, DAVE))
    assert view.turn_starts == (0,)
    resigned = False
    while view.status is GameStatus.RUNNING:
        before = view
        assert before.state is not None
        if not resigned and before.state.turn == 6:
            # a seat that is not to move resigns: no new turn; then the mover does: a new turn
            idle = next(
                p.user_id
                for p in before.players
                if p.seat != before.state.to_move and p.user_id is not None
            )
            view = await service.play.resign(view.id, idle)
            assert view.turn_starts == before.turn_starts
            mover = view.user_to_move
            assert mover is not None
            view = await service.play.resign(view.id, mover)
            assert view.turn_starts[-1] == view.seq, "the next turn begins after the resignation"
            resigned = True
        else:
            view = await step(service, view)
        assert view.turn_at(before.seq) == before.state.turn
        assert view.state is not None
        assert len(view.turn_starts) == view.state.turn
        if view.seq % 10 == 0 or view.status is not GameStatus.RUNNING:
            rebuilt = await service_on(database).play.look(view.id)
            assert rebuilt.turn_starts == view.turn_starts
            assert rebuilt.turn_events == view.turn_events
    assert resigned


async def test_the_lobby_and_reminder_messages_are_kept(
    service: GameService, database: Database
) -> None:
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=77, host_id=HOST, seats=2)
    await service.play.set_board_message(lobby.id, 111, 0)
    await service.lobby.join(lobby.id, BOB)
    await service.play.set_board_message(lobby.id, 112, 0)  # the lobby posted again
    view: GameView = await service.lobby.start(lobby.id, HOST)
    await service.play.set_board_message(view.id, 113, view.seq)  # the first turn
    await service.play.set_reminder_message(view.id, 114)
    for reader in (service, service_on(database)):
        game = (await reader.play.look(view.id)).game
        assert (game.board_message_id, game.lobby_message_id) == (113, 112)
        assert game.reminder_message_id == 114
    await service.play.set_reminder_message(view.id, None)  # its turn's end was shown
    for reader in (service, service_on(database)):
        assert (await reader.play.look(view.id)).game.reminder_message_id is None
