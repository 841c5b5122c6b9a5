"""The service keeps a bounded number of games in memory (the others are rebuilt from the log)
and a game's lock only while it is held or awaited."""

from __future__ import annotations

import asyncio

import pytest

import engine
from bot.services import GameService, loader
from bot.services.errors import GameNotFoundError
from bot.storage import Database, GameStore


async def test_games_dropped_from_memory_play_on_from_their_logs(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader, "CACHE_SIZE", 1)
    service = GameService(GameStore(database))
    ids = []
    for channel in (1, 2, 3):
        lobby = await service.lobby.create_lobby(guild_id=1, channel_id=channel, host_id=7, seats=2)
        await service.lobby.join(lobby.id, 8)
        await service.lobby.start(lobby.id, 7)
        ids.append(lobby.id)
    for _ in range(3):
        for game_id in ids:  # each use pushes the others out of memory
            view = await service.play.look(game_id)
            assert view.state is not None
            assert view.user_to_move is not None
            after = await service.play.act(game_id, view.user_to_move, view.seq, "S")
            assert after.seq > view.seq
            assert after.state is not None
            assert after.user_to_move is not None
            rug = engine.legal_actions(after.state)[0]
            placed = await service.play.act(game_id, after.user_to_move, after.seq, rug)
            assert placed.seq == after.seq + 1
    assert service.loader.games_in_memory == 1
    assert service.loader.locks_in_use == 0


async def test_no_lock_is_left_behind_by_a_thousand_games(database: Database) -> None:
    """Every game touched once, its lobby opened, joined, looked at, and some ids that are no
    game at all: afterwards no game has a lock."""
    service = GameService(GameStore(database))
    for channel in range(1, 1001):
        lobby = await service.lobby.create_lobby(guild_id=1, channel_id=channel, host_id=7)
        await service.lobby.join(lobby.id, 8)
        await service.play.look(lobby.id)
        await service.play.set_board_message(lobby.id, 10_000 + channel, lobby.seq)
        with pytest.raises(GameNotFoundError):
            await service.play.look(100_000 + channel)
    assert service.loader.locks_in_use == 0


async def test_a_lock_is_kept_while_it_is_awaited_and_still_excludes(
    database: Database,
) -> None:
    games = GameService(GameStore(database)).loader
    inside: list[int] = []
    entered = asyncio.Event()

    async def hold(number: int) -> None:
        async with games.locked(42):
            inside.append(number)
            assert len(inside) == 1, "two holders at once"
            entered.set()
            await asyncio.sleep(0.01)
            inside.remove(number)

    first = asyncio.create_task(hold(1))
    await entered.wait()
    waiters = [asyncio.create_task(hold(n)) for n in (2, 3)]
    await asyncio.sleep(0)
    assert games.locks_in_use == 1
    cancelled = asyncio.create_task(hold(4))
    await asyncio.sleep(0)
    cancelled.cancel()  # a waiter that gives up is no longer counted
    await asyncio.gather(first, *waiters)
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert games.locks_in_use == 0
