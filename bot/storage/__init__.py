"""SQLite storage for games: connection, migrations and the game repository."""

from bot.storage.database import Database, StorageError
from bot.storage.games import (
    ActionRow,
    ChannelBusyError,
    GameRow,
    GameStatus,
    GameStore,
    NewAction,
    NewGame,
    SeatRow,
    StaleSeqError,
)

__all__ = [
    "ActionRow",
    "ChannelBusyError",
    "Database",
    "GameRow",
    "GameStatus",
    "GameStore",
    "NewAction",
    "NewGame",
    "SeatRow",
    "StaleSeqError",
    "StorageError",
]
