"""SQLite storage: connection, migrations, games, guild settings and stats queries."""

from bot.storage.database import Database, StorageError
from bot.storage.games import (
    ActionRow,
    ChannelBusyError,
    GameRow,
    GameStore,
    NewAction,
    NewGame,
    ResultRow,
    SeatControl,
    SeatRow,
    StaleSeqError,
)
from bot.storage.guilds import GuildSettings, GuildStore
from bot.storage.kinds import EndReason, GameStatus, TurnClock
from bot.storage.stats import HistoryRow, PlayerStats, StatsStore

__all__ = [
    "ActionRow",
    "ChannelBusyError",
    "Database",
    "EndReason",
    "GameRow",
    "GameStatus",
    "GameStore",
    "GuildSettings",
    "GuildStore",
    "HistoryRow",
    "NewAction",
    "NewGame",
    "PlayerStats",
    "ResultRow",
    "SeatControl",
    "SeatRow",
    "StaleSeqError",
    "StatsStore",
    "StorageError",
    "TurnClock",
]
