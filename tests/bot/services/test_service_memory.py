"""The service keeps a bounded number of games in memory, the one stored longest ago let go
first (the others are rebuilt from the log), and a game's lock only while it is held or
awaited."""

from __future__ import annotations

import asyncio

import pytest

import engine
from bot.services import GameService, loader
from bot.services.errors import GameNotFoundError
from bot.storage import Database, GameStore


async def three_started_games(service: GameService) -> list[int]:
    """Three games of two (host 7, guest 8), one per channel 1, 2 and 3, started: their ids in
    the order they were opened."""
    ids = []
    for channel in (1, 2, 3):
        lobby = await service.lobby.create_lobby(guild_id=1, channel_id=channel, host_id=7, seats=2)
        await service.lobby.join(lobby.id, 8)
        await service.lobby.start(lobby.id, 7)
        ids.append(lobby.id)
    return ids


async def test_games_dropped_from_memory_play_on_from_their_logs(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader, "CACHE_SIZE", 1)
    service = GameService(GameStore(database))
    ids = await three_started_games(service)
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


async def test_the_game_let_go_from_memory_is_the_one_stored_longest_ago(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond the bound the oldest game goes, not the one just loaded: otherwise, once the
    memory is full, every click on a newer game would replay its whole log."""
    monkeypatch.setattr(loader, "CACHE_SIZE", 2)
    service = GameService(GameStore(database))
    ids = await three_started_games(service)
    first, second, third = ids
    for game_id in ids:
        await service.play.look(game_id)
    assert service.loader.games_in_memory == 2
    assert service.loader.in_memory(third) is not None, "the game used last is kept"
    assert service.loader.in_memory(second) is not None
    assert service.loader.in_memory(first) is None, "the one stored longest ago goes"


async def test_a_game_played_on_stays_in_memory_before_one_stored_since_it_was_loaded(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every write stores its game anew: the game let go is the one stored longest ago, not
    the one loaded first, or the busiest games, loaded first, would be the ones replayed from
    their logs at every click."""
    monkeypatch.setattr(loader, "CACHE_SIZE", 2)
    service = GameService(GameStore(database))
    first, second, third = await three_started_games(service)
    assert service.loader.in_memory(first) is None
    view = await service.play.look(second)
    assert view.user_to_move is not None
    await service.play.act(second, view.user_to_move, view.seq, "S")  # stored after the third
    await service.play.look(first)
    assert service.loader.in_memory(second) is not None, "the game played on is kept"
    assert service.loader.in_memory(third) is None, "the one stored longest ago goes"


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
    """The holder leaves while another task awaits the lock: the lock stays (counted, and the
    same lock), so a task that comes while the second one holds it waits its turn; a waiter
    that gives up is no longer counted, and once all are done no lock is left."""
    games = GameService(GameStore(database)).loader
    inside: list[int] = []
    together: list[list[int]] = []
    entered = {number: asyncio.Event() for number in (1, 2, 3, 4)}
    leave = {number: asyncio.Event() for number in (1, 2, 3, 4)}

    async def hold(number: int) -> None:
        async with games.locked(42):
            inside.append(number)
            if len(inside) > 1:
                together.append(list(inside))
            entered[number].set()
            await leave[number].wait()
            inside.remove(number)

    first = asyncio.create_task(hold(1))
    await entered[1].wait()
    second = asyncio.create_task(hold(2))
    cancelled = asyncio.create_task(hold(4))
    await asyncio.sleep(0)  # both now wait for the lock
    assert not entered[2].is_set()
    assert games.locks_in_use == 1
    cancelled.cancel()  # a waiter that gives up
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    leave[1].set()
    await entered[2].wait()
    await first
    assert games.locks_in_use == 1, "the lock the second task holds is still counted"
    third = asyncio.create_task(hold(3))
    await asyncio.sleep(0)  # it reaches the lock, held by the second task
    assert not entered[3].is_set(), "a task that came later got in while the second held it"
    leave[2].set()
    await entered[3].wait()
    leave[3].set()
    await asyncio.gather(second, third)
    assert together == []
    assert games.locks_in_use == 0
