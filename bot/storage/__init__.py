"""Storage: the database interface, its two back ends (SQLite, PostgreSQL) and the factory that
opens one, migrations, and the stores of games, guild settings, player settings and stats."""

from bot.storage.database import (
    CheckViolation,
    Database,
    IntegrityError,
    StorageError,
    UniqueViolation,
)
from bot.storage.games import (
    ActionRow,
    ChannelBusyError,
    GameRow,
    GameStore,
    NewAction,
    NewGame,
    NextMoments,
    ResultRow,
    SeatControl,
    SeatRow,
    ShardSet,
    StaleSeqError,
)
from bot.storage.guilds import GuildSettings, GuildStore
from bot.storage.kinds import AiFor, EndReason, GameStatus, TurnClock
from bot.storage.open import open_database
from bot.storage.stats import HistoryRow, PlayerStats, StatsStore

__all__ = [
    "ActionRow",
    "AiFor",
    "ChannelBusyError",
    "CheckViolation",
    "Database",
    "EndReason",
    "GameRow",
    "GameStatus",
    "GameStore",
    "GuildSettings",
    "GuildStore",
    "HistoryRow",
    "IntegrityError",
    "NewAction",
    "NewGame",
    "NextMoments",
    "PlayerStats",
    "ResultRow",
    "SeatControl",
    "SeatRow",
    "ShardSet",
    "StaleSeqError",
    "StatsStore",
    "StorageError",
    "TurnClock",
    "UniqueViolation",
    "open_database",
]
