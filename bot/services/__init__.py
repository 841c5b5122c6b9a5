"""The Discord-free use cases of the bot: games (lobby, play, turn clock), guild settings and
stats, their errors and the views they return."""

from bot.services.actions import AI_LEVELS, ROLL, LobbyAction
from bot.services.games import GameService
from bot.services.guilds import GuildService
from bot.services.lobby import LobbyService
from bot.services.play import PlayService
from bot.services.stats import StatsService
from bot.services.turn_clock import TurnClockService
from bot.services.views import (
    Abandoned,
    AutoTurn,
    Damage,
    DueKind,
    DueWork,
    EndReason,
    GameInfo,
    GameStatus,
    GameView,
    Player,
    Reminder,
    TurnReason,
)

__all__ = [
    "AI_LEVELS",
    "ROLL",
    "Abandoned",
    "AutoTurn",
    "Damage",
    "DueKind",
    "DueWork",
    "EndReason",
    "GameInfo",
    "GameService",
    "GameStatus",
    "GameView",
    "GuildService",
    "LobbyAction",
    "LobbyService",
    "PlayService",
    "Player",
    "Reminder",
    "StatsService",
    "TurnClockService",
    "TurnReason",
]
