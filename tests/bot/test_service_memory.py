"""The service keeps a bounded number of games in memory; the others are rebuilt from the log."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from bot.services import GameService, games
from bot.storage import Database, GameStore


async def test_games_dropped_from_memory_play_on_from_their_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games, "CACHE_SIZE", 1)
    database = await Database.open(tmp_path / "db.sqlite3")
    try:
        service = GameService(GameStore(database))
        ids = []
        for channel in (1, 2, 3):
            lobby = await service.create_lobby(guild_id=1, channel_id=channel, host_id=7, seats=2)
            await service.join(lobby.id, 8)
            await service.start(lobby.id, 7)
            ids.append(lobby.id)
        for _ in range(3):
            for game_id in ids:  # each use pushes the others out of memory
                view = await service.look(game_id)
                assert view.state is not None and view.user_to_move is not None
                after = await service.act(game_id, view.user_to_move, view.seq, "S")
                assert after.seq > view.seq
                assert after.state is not None and after.user_to_move is not None
                rug = engine.legal_actions(after.state)[0]
                placed = await service.act(game_id, after.user_to_move, after.seq, rug)
                assert placed.seq == after.seq + 1
        assert len(service._cache) == 1
    finally:
        await database.close()
